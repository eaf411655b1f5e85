//! Times pathological nesting (release): `cargo run --release -p quire-plugin-html --example deep_html`.

use quire_plugin_api::{Context, Converter, Input};
use quire_plugin_html::HtmlConverter;
use std::time::Instant;

fn main() {
    let cases: Vec<(&str, String)> = vec![
        (
            "100k nested div",
            format!(
                "{}deep{}",
                "<div>".repeat(100_000),
                "</div>".repeat(100_000)
            ),
        ),
        ("20k nested li", format!("{}x", "<ul><li>".repeat(20_000))),
        (
            "20k blockquote",
            format!("{}x", "<blockquote>".repeat(20_000)),
        ),
        (
            "5k nested table",
            format!("{}x", "<table><tr><td>".repeat(5_000)),
        ),
        ("20k b/i", format!("{}x", "<b><i>".repeat(20_000))),
    ];
    for (name, html) in cases {
        let t = Instant::now();
        let input = Input {
            bytes: html.as_bytes(),
            file_name: "x.html",
            mime: "text/html",
        };
        let r = HtmlConverter.convert(&input, &mut Context::new());
        println!("{name}: {:?} ok={}", t.elapsed(), r.is_ok());
    }
}
