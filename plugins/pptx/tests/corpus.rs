//! Runs the shared corpus (when `/work/shared/corpus` or `QUIRE_CORPUS` exists) through the
//! converter: expectation rates per type, and no panic on any file in `bad/`.
//!
//! The text checked is a flattening close to the Markdown renderer's output.

use quire_plugin_api::{Block, Context, Converter, Document, Inline, Input};
use quire_plugin_pptx::PptxConverter;
use std::path::{Path, PathBuf};

fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("QUIRE_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/shared/corpus"));
    dir.join("expectations.jsonl").exists().then_some(dir)
}

fn mime_for(ext: &str) -> &'static str {
    match ext {
        "pptm" => "application/vnd.ms-powerpoint.presentation.macroEnabled.12",
        "potx" => "application/vnd.openxmlformats-officedocument.presentationml.template",
        "potm" => "application/vnd.ms-powerpoint.template.macroEnabled.12",
        _ => "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    }
}

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

fn fold(s: &str) -> String {
    quire_plugin_api::text::fold_whitespace(s)
}

fn convert(path: &Path, mime: &str) -> quire_plugin_api::Result<Document> {
    let bytes = std::fs::read(path).expect("read corpus file");
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let input = Input {
        bytes: &bytes,
        file_name: name,
        mime,
    };
    PptxConverter.convert(&input, &mut Context::new())
}

#[test]
fn corpus_expectations() {
    let Some(dir) = corpus() else {
        eprintln!("corpus not found; skipped");
        return;
    };
    let lines = std::fs::read_to_string(dir.join("expectations.jsonl")).expect("expectations");
    let mut stats: std::collections::BTreeMap<String, (u32, u32)> = Default::default();
    for line in lines.lines() {
        let Ok(rec) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let file = rec["file"].as_str().unwrap_or_default();
        let ext = file.rsplit('.').next().unwrap_or_default();
        if file.starts_with("bad/") || !matches!(ext, "pptx" | "pptm" | "potx" | "potm") {
            continue;
        }
        let entry = stats.entry(ext.to_owned()).or_default();
        entry.1 += 1;
        let text = match convert(&dir.join(file), mime_for(ext)) {
            Ok(doc) => fold(&flatten(&doc)),
            Err(e) => {
                eprintln!("FAIL {file}: error {e} ({:?})", e.detail());
                continue;
            }
        };
        let strs = |k: &str| -> Vec<String> {
            rec[k]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str())
                .map(str::to_owned)
                .collect()
        };
        let missing: Vec<String> = strs("must_include")
            .into_iter()
            .filter(|s| !text.contains(&fold(s)))
            .collect();
        let present: Vec<String> = strs("must_not_include")
            .into_iter()
            .filter(|s| text.contains(&fold(s)))
            .collect();
        if missing.is_empty() && present.is_empty() {
            entry.0 += 1;
        } else {
            eprintln!("FAIL {file}: missing {missing:?}, unwanted {present:?}");
        }
    }
    for (ext, (ok, total)) in &stats {
        eprintln!(
            "corpus {ext}: {ok}/{total} = {:.0}%",
            f64::from(*ok) * 100.0 / f64::from(*total)
        );
    }
}

#[test]
fn every_corpus_file_converts_or_fails_cleanly() {
    let Some(dir) = corpus() else { return };
    for sub in ["pptx", "pptm", "potx", "potm", "bad"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            let mime = mime_for(sub);
            match std::panic::catch_unwind(|| convert(&path, mime)) {
                Err(_) => panic!("panic on {}", path.display()),
                Ok(Err(e)) if sub != "bad" => {
                    eprintln!("error on {}: {e} [{:?}]", path.display(), e.detail())
                }
                Ok(Err(e)) if path.extension().is_some_and(|e| e == "pptx") => {
                    eprintln!("bad {}: {} - {e}", path.display(), e.kind())
                }
                Ok(Ok(doc)) if sub != "bad" && doc.parts.is_empty() => {
                    eprintln!("no slides in {}", path.display())
                }
                _ => {}
            }
        }
    }
}
