//! Times the converter on every `md` file of the shared corpus (see
//! `quire_testkit::bench_corpus`).
//!
//! `cargo run --release -p quire-plugin-markdown --example bench_md [NAME-FILTER]`;
//! `BENCH_REPEAT=N` changes the runs per file.

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    quire_testkit::bench_corpus(
        &quire_plugin_markdown::MarkdownConverter,
        "md",
        "text/markdown",
        &filter,
    );
}
