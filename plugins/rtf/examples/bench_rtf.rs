//! Times the converter on every `rtf` file of the shared corpus (see
//! `quire_testkit::bench_corpus`).
//!
//! `cargo run --release -p quire-plugin-rtf --example bench_rtf [NAME-FILTER]`;
//! `BENCH_REPEAT=N` changes the runs per file.

fn main() {
    let converter = (quire_plugin_rtf::DESCRIPTOR.factory)(&Default::default()).expect("factory");
    let filter = std::env::args().nth(1).unwrap_or_default();
    quire_testkit::bench_corpus(&*converter, "rtf", "application/rtf", &filter);
}
