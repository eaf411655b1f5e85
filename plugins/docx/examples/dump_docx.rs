//! Prints a rough Markdown view of a DOCX file: `cargo run -p quire-plugin-docx --example dump FILE`.

#[path = "../tests/support/mod.rs"]
mod support;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: dump FILE.docx");
        std::process::exit(2);
    };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let mut ctx = quire_plugin_api::Context::new();
    match quire_plugin_docx::convert(&bytes, &mut ctx) {
        Ok(doc) => {
            println!("{}", support::markdown(&doc));
            println!(
                "--- metadata: {}",
                serde_json::to_string(&doc.metadata).unwrap_or_default()
            );
            for w in ctx.warnings() {
                println!("--- warning: {w}");
            }
        }
        Err(e) => println!("ERROR {:?}: {} ({:?})", e.kind(), e.message(), e.detail()),
    }
}
