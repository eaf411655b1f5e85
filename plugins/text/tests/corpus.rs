//! The shared corpus (when present): expectation records for `txt/`, and no panic on any file.

use quire_testkit as common;

use quire_plugin_text::TextConverter;

#[test]
fn corpus_expectations() {
    if let Some((met, total)) = common::run_corpus(&TextConverter, "txt", "text/plain") {
        assert!(
            met * 100 >= total * 95,
            "only {met}/{total} txt records met"
        );
    }
}

#[test]
fn corpus_files_never_panic() {
    let n = common::run_all_files(&TextConverter, "txt", "text/plain");
    println!("converted {n} files without a panic");
}
