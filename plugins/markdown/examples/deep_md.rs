//! Times pathological nesting (release): `cargo run --release -p quire-plugin-markdown --example deep_md`.

use quire_plugin_api::{Context, Converter, Input};
use quire_plugin_markdown::MarkdownConverter;
use std::time::Instant;

fn main() {
    let cases: Vec<(&str, String)> = vec![
        ("100k >", ">".repeat(100_000) + " bottom\n"),
        (
            "2k indented lists",
            (0..2_000)
                .map(|i| format!("{}- x\n", "  ".repeat(i)))
                .collect(),
        ),
        ("50k '- ' on one line", "- ".repeat(50_000) + "x\n"),
        ("50k '1. > ' on one line", "1. > ".repeat(50_000) + "x\n"),
        ("50k [", "[".repeat(50_000)),
        ("20k *a **b", "*a **b ".repeat(20_000)),
    ];
    for (name, md) in cases {
        let t = Instant::now();
        let input = Input {
            bytes: md.as_bytes(),
            file_name: "x.md",
            mime: "text/markdown",
        };
        let r = MarkdownConverter.convert(&input, &mut Context::new());
        println!("{name}: {:?} ok={}", t.elapsed(), r.is_ok());
    }
}
