//! The shared corpus (when present): expectation records for `md/`, and no panic on any file.

use quire_testkit as common;

use quire_plugin_markdown::MarkdownConverter;

#[test]
fn corpus_expectations() {
    if let Some((met, total)) = common::run_corpus(&MarkdownConverter, "md", "text/markdown") {
        assert!(met * 100 >= total * 95, "only {met}/{total} md records met");
    }
}

#[test]
fn corpus_files_never_panic() {
    let n = common::run_all_files(&MarkdownConverter, "md", "text/markdown");
    println!("converted {n} files without a panic");
}
