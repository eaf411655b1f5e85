//! Runs every corpus file of this plugin's type (when `../shared/corpus` exists) and checks
//! the `expectations.jsonl` records against the document's text; also feeds every file in
//! `bad/` to the converter to prove it never panics.

use quire_plugin_api::Converter;
use quire_testkit as common;

const TYPE: &str = "json";
const MIME: &str = "application/json";

fn converter() -> Box<dyn Converter> {
    (quire_plugin_json::DESCRIPTOR.factory)(&Default::default()).expect("factory")
}

#[test]
fn corpus_expectations() {
    if let Some((met, total)) = common::run_corpus(&*converter(), TYPE, MIME) {
        assert!(
            met * 100 >= total * 95,
            "only {met}/{total} {TYPE} records met"
        );
    }
}

#[test]
fn corpus_and_bad_files_never_panic() {
    let n = common::run_all_files(&*converter(), TYPE, MIME);
    println!("converted {n} files without a panic");
}

/// Truncated and byte-flipped copies of every corpus file of this type: an error or a
/// document, never a panic.
#[test]
fn damaged_corpus_files_never_panic() {
    let n = common::run_damaged_copies(&*converter(), TYPE, MIME);
    println!("converted {n} damaged copies without a panic");
}
