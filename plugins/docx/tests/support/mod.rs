//! A small stand-in for the host's Markdown renderer, so tests and examples can check text
//! (headings as `#`, list items, table cells, notes) without depending on the host crate.

#![allow(dead_code)]

use quire_plugin_api::{Block, Document, Inline};

pub fn inline_md(inlines: &[Inline], out: &mut String) {
    for i in inlines {
        match i {
            Inline::Text { text, style } => {
                let mark = match (style.bold, style.italic) {
                    (true, true) => "***",
                    (true, false) => "**",
                    (false, true) => "*",
                    _ => "",
                };
                out.push_str(mark);
                out.push_str(text);
                out.push_str(mark);
            }
            Inline::Code(t) => out.push_str(t),
            Inline::Math { tex, display: true } => out.push_str(&format!("$${tex}$$")),
            Inline::Math { tex, .. } => out.push_str(&format!("${tex}$")),
            Inline::Link(l) => {
                out.push('[');
                inline_md(&l.content, out);
                out.push_str(&format!("]({})", l.href));
            }
            Inline::Break => out.push_str("<br>"),
            Inline::Lines { text } => out.push_str(&text.replace('\n', "<br>")),
            Inline::Image(img) => {
                out.push_str(&format!(
                    "![{}]({} {} bytes)",
                    img.alt.as_deref().unwrap_or(""),
                    img.name,
                    img.data.len()
                ));
                if let Some(s) = &img.skipped {
                    out.push_str(&format!(" (skipped: {s})"));
                }
            }
            Inline::NoteRef(l) => out.push_str(&format!("[^{l}]")),
        }
    }
}

pub fn blocks_md(blocks: &[Block], indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    for b in blocks {
        match b {
            Block::Heading { level, content } => {
                out.push_str(&format!("{pad}{} ", "#".repeat(*level as usize)));
                inline_md(content, out);
                out.push('\n');
            }
            Block::Paragraph(content) => {
                out.push_str(&pad);
                inline_md(content, out);
                out.push('\n');
            }
            Block::List(list) => {
                for (n, item) in list.items.iter().enumerate() {
                    let marker = if list.ordered {
                        format!("{}. ", list.start + n as u64)
                    } else {
                        "- ".into()
                    };
                    out.push_str(&format!("{pad}{marker}"));
                    let mut inner = String::new();
                    blocks_md(&item.blocks, indent + marker.len(), &mut inner);
                    out.push_str(inner.trim_start());
                }
            }
            Block::Table(t) => {
                for row in &t.rows {
                    out.push_str(&pad);
                    out.push('|');
                    for cell in row {
                        out.push(' ');
                        inline_md(&cell.content, out);
                        if cell.colspan > 1 || cell.rowspan > 1 {
                            out.push_str(&format!(" {{{}x{}}}", cell.colspan, cell.rowspan));
                        }
                        out.push_str(" |");
                    }
                    out.push('\n');
                }
            }
            Block::Image(img) => {
                inline_md(&[Inline::Image(img.clone())], out);
                out.push('\n');
            }
            Block::Code { text, .. } => out.push_str(text),
            Block::Quote(inner) => blocks_md(inner, indent + 2, out),
            Block::Note { label, blocks } => {
                out.push_str(&format!("[^{label}]: "));
                let mut inner = String::new();
                blocks_md(blocks, 0, &mut inner);
                out.push_str(&inner);
            }
            Block::Grid(_) | Block::Rule => {}
        }
    }
}

pub fn markdown(doc: &Document) -> String {
    let mut out = String::new();
    for p in &doc.parts {
        blocks_md(&p.blocks, 0, &mut out);
    }
    out
}
