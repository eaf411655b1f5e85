//! Prints a presentation as rough Markdown (for eyeballing): `cargo run -p quire-plugin-pptx --example dump_pptx -- FILE`.

use quire_plugin_api::{Block, Context, Converter, Document, Inline, Input};
use quire_plugin_pptx::PptxConverter;

fn inlines(v: &[Inline], out: &mut String) {
    for i in v {
        match i {
            Inline::Text { text, .. } => out.push_str(text),
            Inline::Link(link) => inlines(&link.content, out),
            Inline::Break => out.push('\n'),
            Inline::Code(c) => out.push_str(c),
            _ => {}
        }
    }
}

fn blocks(v: &[Block], out: &mut String, depth: usize) {
    for b in v {
        match b {
            Block::Heading { level, content } => {
                out.push_str(&"#".repeat(usize::from(*level)));
                out.push(' ');
                inlines(content, out);
            }
            Block::Paragraph(c) => inlines(c, out),
            Block::List(l) => {
                for (n, item) in l.items.iter().enumerate() {
                    out.push_str(&"  ".repeat(depth));
                    if l.ordered {
                        out.push_str(&format!("{}. ", n as u64 + l.start));
                    } else {
                        out.push_str("- ");
                    }
                    blocks(&item.blocks, out, depth + 1);
                }
            }
            Block::Table(t) => {
                for row in &t.rows {
                    out.push('|');
                    for c in row {
                        out.push(' ');
                        inlines(&c.content, out);
                        out.push_str(" |");
                    }
                    out.push('\n');
                }
            }
            Block::Image(i) => {
                out.push_str(i.alt.as_deref().unwrap_or(&i.name));
                if let Some(t) = &i.ocr_text {
                    out.push_str(t);
                }
            }
            _ => {}
        }
        out.push('\n');
    }
}

fn flatten(doc: &Document) -> String {
    let mut out = String::new();
    for p in &doc.parts {
        out.push_str(&format!("<!-- Slide {} -->\n", p.number));
        blocks(&p.blocks, &mut out, 0);
        if !p.notes.is_empty() {
            out.push_str("### Notes\n");
            blocks(&p.notes, &mut out, 0);
        }
    }
    out
}

fn main() {
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path).expect("read file");
        let input = Input {
            bytes: &bytes,
            file_name: &path,
            mime: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        };
        let mut ctx = Context::new();
        match PptxConverter.convert(&input, &mut ctx) {
            Ok(doc) => {
                println!("{}", flatten(&doc));
                println!("metadata: {:?}", doc.metadata);
            }
            Err(e) => println!("error: {e} ({:?})", e.detail()),
        }
        for w in ctx.warnings() {
            println!("warning: {w}");
        }
    }
}
