//! The shared corpus (when present): expectation records for `html/`, and no panic on any file.

use quire_testkit as common;

use quire_plugin_html::HtmlConverter;

#[test]
fn corpus_expectations() {
    if let Some((met, total)) = common::run_corpus(&HtmlConverter, "html", "text/html") {
        assert!(
            met * 100 >= total * 95,
            "only {met}/{total} html records met"
        );
    }
}

#[test]
fn corpus_files_never_panic() {
    let n = common::run_all_files(&HtmlConverter, "html", "text/html");
    println!("converted {n} files without a panic");
}
