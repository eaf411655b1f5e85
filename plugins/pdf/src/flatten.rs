//! The plain text of a converted document, for tests, evaluation and word counts: blocks
//! separated by blank lines, table cells by a tab, list items on their own lines (an ordered
//! item after its number, as the page shows it).

use quire_plugin_api::{Block, Document, Inline, Part};

/// All text of a document, page after page.
pub fn document_text(doc: &Document) -> String {
    let mut out = String::new();
    for part in &doc.parts {
        let t = part_text(part);
        if !t.is_empty() {
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            out.push_str(&t);
        }
    }
    out
}

/// The text of one page.
pub fn part_text(part: &Part) -> String {
    let mut out = String::new();
    blocks_text(&part.blocks, &mut out);
    out.trim().to_string()
}

fn blocks_text(blocks: &[Block], out: &mut String) {
    for block in blocks {
        match block {
            Block::Heading { content, .. } | Block::Paragraph(content) => {
                inlines_text(content, out);
            }
            Block::List(list) => {
                for (i, item) in list.items.iter().enumerate() {
                    // An ordered item's number is text of the page (bullets are not).
                    if list.ordered {
                        out.push_str(&format!("{}. ", list.start + i as u64));
                    }
                    blocks_text(&item.blocks, out);
                }
            }
            Block::Table(table) => {
                for row in &table.rows {
                    let cells: Vec<String> = row
                        .iter()
                        .map(|c| {
                            let mut s = String::new();
                            inlines_text(&c.content, &mut s);
                            s
                        })
                        .collect();
                    out.push_str(&cells.join("\t"));
                    out.push('\n');
                }
            }
            Block::Image(img) => {
                if let Some(t) = &img.ocr_text {
                    out.push_str(t);
                }
            }
            Block::Code { text, .. } => out.push_str(text),
            Block::Quote(inner) | Block::Note { blocks: inner, .. } => blocks_text(inner, out),
            Block::Grid(_) | Block::Rule => {}
        }
        if !out.ends_with("\n\n") {
            out.push_str(if out.ends_with('\n') { "\n" } else { "\n\n" });
        }
    }
}

fn inlines_text(inlines: &[Inline], out: &mut String) {
    for inline in inlines {
        match inline {
            Inline::Text { text, .. }
            | Inline::Lines { text }
            | Inline::Code(text)
            | Inline::Math { tex: text, .. } => out.push_str(text),
            Inline::Link(link) => inlines_text(&link.content, out),
            Inline::Break => out.push('\n'),
            Inline::Image(img) => {
                if let Some(t) = &img.ocr_text {
                    out.push_str(t);
                }
            }
            Inline::NoteRef(_) => {}
        }
    }
}
