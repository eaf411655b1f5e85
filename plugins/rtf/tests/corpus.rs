//! Runs every corpus file of this plugin's type (when `../shared/corpus` exists) and checks
//! the `expectations.jsonl` records against the document's text; also feeds every file in
//! `bad/` to the converter to prove it never panics.

use quire_plugin_api::{Block, Context, Converter, Document, Inline, Input};
use std::path::PathBuf;

const TYPE: &str = "rtf";
const MIME: &str = "application/rtf";

fn converter() -> Box<dyn Converter> {
    (quire_plugin_rtf::DESCRIPTOR.factory)(&Default::default()).expect("factory")
}

fn corpus() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    dir.is_dir().then_some(dir)
}

fn inline_text(inlines: &[Inline], out: &mut String) {
    for i in inlines {
        match i {
            Inline::Text { text, .. } | Inline::Code(text) => out.push_str(text),
            Inline::Link { content, .. } => inline_text(content, out),
            Inline::Break => out.push('\n'),
            Inline::Image(img) => out.push_str(img.ocr_text.as_deref().unwrap_or("")),
            Inline::NoteRef(label) => out.push_str(label),
        }
    }
}

fn block_text(blocks: &[Block], out: &mut String) {
    for b in blocks {
        match b {
            Block::Heading { level, content } => {
                out.push_str(&"#".repeat(usize::from(*level)));
                out.push(' ');
                inline_text(content, out);
            }
            Block::Paragraph(content) => inline_text(content, out),
            Block::List(list) => {
                for item in &list.items {
                    out.push_str("- ");
                    block_text(&item.blocks, out);
                }
            }
            Block::Table(t) => {
                for row in &t.rows {
                    for cell in row {
                        out.push_str("| ");
                        inline_text(&cell.content, out);
                        out.push(' ');
                    }
                    out.push_str("|\n");
                }
            }
            Block::Grid(g) => {
                for row in g.iter_rows() {
                    for cell in row {
                        out.push_str(cell);
                        out.push_str(" | ");
                    }
                    out.push('\n');
                }
            }
            Block::Code { text, .. } => out.push_str(text),
            Block::Quote(inner) | Block::Note { blocks: inner, .. } => block_text(inner, out),
            Block::Image(img) => out.push_str(img.ocr_text.as_deref().unwrap_or("")),
            Block::Rule => out.push_str("---"),
        }
        out.push('\n');
    }
}

fn document_text(doc: &Document) -> String {
    let mut out = String::new();
    for part in &doc.parts {
        block_text(&part.blocks, &mut out);
        block_text(&part.notes, &mut out);
    }
    quire_plugin_api::text::fold_whitespace(&out)
}

fn convert(path: &std::path::Path) -> quire_plugin_api::Result<Document> {
    let bytes = std::fs::read(path).expect("read corpus file");
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let input = Input {
        bytes: &bytes,
        file_name: name,
        mime: MIME,
    };
    converter().convert(&input, &mut Context::new())
}

#[test]
fn corpus_expectations() {
    let Some(dir) = corpus() else {
        eprintln!("corpus not found; skipped");
        return;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(TYPE))
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    let lines = std::fs::read_to_string(dir.join("expectations.jsonl")).unwrap_or_default();
    let (mut records, mut met) = (0, 0);
    for path in &files {
        let doc = convert(path);
        let rel = format!(
            "{TYPE}/{}",
            path.file_name().and_then(|n| n.to_str()).unwrap_or("")
        );
        let text = doc.as_ref().map(document_text).unwrap_or_default();
        if let Err(e) = &doc {
            eprintln!("{rel}: error: {e}");
        }
        // QUIRE_DUMP=1 prints each file's flattened text, to eyeball the conversion.
        if std::env::var_os("QUIRE_DUMP").is_some() {
            eprintln!("===== {rel}\n{}", text.replace(" # ", "\n# "));
        }
        for line in lines.lines() {
            let Ok(rec) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            if rec["file"] != rel.as_str() {
                continue;
            }
            records += 1;
            let fold = |v: &serde_json::Value| {
                quire_plugin_api::text::fold_whitespace(v.as_str().unwrap_or(""))
            };
            let missing: Vec<String> = rec["must_include"]
                .as_array()
                .into_iter()
                .flatten()
                .map(fold)
                .filter(|s| !text.contains(s.as_str()))
                .collect();
            let present: Vec<String> = rec["must_not_include"]
                .as_array()
                .into_iter()
                .flatten()
                .map(fold)
                .filter(|s| text.contains(s.as_str()))
                .collect();
            if missing.is_empty() && present.is_empty() {
                met += 1;
            } else {
                eprintln!("{rel}: missing {missing:?}, unwanted {present:?}");
            }
        }
    }
    eprintln!(
        "{TYPE}: {} files, expectation records met {met}/{records}",
        files.len()
    );
    if records > 0 {
        assert!(met * 100 >= records * 95, "rate below 95%: {met}/{records}");
    }
}

#[test]
fn bad_files_never_panic() {
    let Some(dir) = corpus() else {
        return;
    };
    let Ok(rd) = std::fs::read_dir(dir.join("bad")) else {
        return;
    };
    for entry in rd.flatten() {
        let _ = convert(&entry.path());
    }
}

/// Truncated and byte-flipped copies of every corpus file of this type: an error or a
/// document, never a panic.
#[test]
fn damaged_corpus_files_never_panic() {
    let Some(dir) = corpus() else {
        return;
    };
    let Ok(rd) = std::fs::read_dir(dir.join(TYPE)) else {
        return;
    };
    let converter = converter();
    for entry in rd.flatten() {
        let Ok(bytes) = std::fs::read(entry.path()) else {
            continue;
        };
        let mut variants: Vec<Vec<u8>> = [1, 3, 7, 10]
            .iter()
            .map(|tenths| bytes[..bytes.len() * tenths / 10].to_vec())
            .collect();
        let mut seed = bytes.len() as u64 | 1;
        for _ in 0..4 {
            let mut v = bytes.clone();
            for _ in 0..(v.len() / 200).max(1) {
                // xorshift: a cheap deterministic sprinkling of damage.
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                if let Some(len) = std::num::NonZeroUsize::new(v.len()) {
                    let at = (seed as usize) % len.get();
                    v[at] = (seed >> 32) as u8;
                }
            }
            variants.push(v);
        }
        for v in variants {
            let input = Input {
                bytes: &v,
                file_name: "damaged",
                mime: MIME,
            };
            let _ = converter.convert(&input, &mut Context::new());
        }
    }
}
