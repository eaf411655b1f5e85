//! Runs the shared corpus (when `/work/shared/corpus` or `QUIRE_CORPUS` exists) through the
//! converter: expectation rates per type, and no panic on any file in `bad/`.
//!
//! The text checked is a flattening close to the Markdown renderer's: `## <sheet>` then the
//! grid as a pipe table (header row, `| --- |` separator, rows padded to the widest row).

use quire_plugin_api::{Block, Context, Converter, Document, Input};
use quire_plugin_spreadsheet::SpreadsheetConverter;
use std::path::{Path, PathBuf};

fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("QUIRE_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/shared/corpus"));
    dir.join("expectations.jsonl").exists().then_some(dir)
}

fn mime_for(ext: &str) -> &'static str {
    match ext {
        "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "xlsm" => "application/vnd.ms-excel.sheet.macroEnabled.12",
        "xls" => "application/vnd.ms-excel",
        _ => "text/csv",
    }
}

fn flatten(doc: &Document) -> String {
    let mut out = String::new();
    for part in &doc.parts {
        out.push_str(&format!("## {}\n", part.name.clone().unwrap_or_default()));
        for block in &part.blocks {
            if let Block::Paragraph(inlines) = block {
                for i in inlines {
                    if let quire_plugin_api::Inline::Text { text, .. } = i {
                        out.push_str(text);
                    }
                }
                out.push('\n');
            }
            if let Block::Grid(g) = block {
                for (i, row) in g.iter_rows().enumerate() {
                    let mut cells: Vec<&str> = row.collect();
                    cells.resize(g.columns(), "");
                    out.push_str(&format!("| {} |\n", cells.join(" | ")));
                    if i == 0 {
                        out.push_str(&format!("|{}\n", " --- |".repeat(g.columns())));
                    }
                }
            }
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
    SpreadsheetConverter.convert(&input, &mut Context::new())
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
        if file.starts_with("bad/") || !matches!(ext, "xlsx" | "xlsm" | "xls" | "csv") {
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
        let missing: Vec<&str> = rec["must_include"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str())
            .filter(|s| !text.contains(&fold(s)))
            .collect();
        let present: Vec<&str> = rec["must_not_include"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str())
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

/// `A1:C5` for a grid, from where it sits and its size.
fn range(g: &quire_plugin_api::Grid) -> String {
    fn name(mut c: u32) -> String {
        let mut s = String::new();
        c += 1;
        while c > 0 {
            c -= 1;
            s.insert(0, char::from(b'A' + (c % 26) as u8));
            c /= 26;
        }
        s
    }
    let (r, c) = g.origin().expect("sheet grids know where they sit");
    let (h, w) = (g.rows() as u32, g.columns() as u32);
    format!("{}{}:{}{}", name(c), r + 1, name(c + w - 1), r + h)
}

#[test]
fn separate_tables_of_docling_xlsx_01_come_apart() {
    let Some(dir) = corpus() else { return };
    let doc = convert(&dir.join("xlsx/docling__xlsx_01.xlsx"), mime_for("xlsx")).expect("converts");
    let ranges = |sheet: &str| -> Vec<String> {
        let part = doc.parts.iter().find(|p| p.name.as_deref() == Some(sheet));
        part.expect("sheet")
            .blocks
            .iter()
            .filter_map(|b| match b {
                Block::Grid(g) => Some(range(g)),
                _ => None,
            })
            .collect()
    };
    // The tables docling's ground truth shows, in its order.
    assert_eq!(ranges("Sheet1"), ["A1:C7"]);
    assert_eq!(ranges("Sheet2"), ["A1:D9", "G5:I9", "C14:E18"]);
    assert_eq!(ranges("Sheet3"), ["A1:C7", "E7:G13"]);
}

#[test]
fn every_corpus_file_converts_or_fails_cleanly() {
    let Some(dir) = corpus() else { return };
    for sub in ["xlsx", "xlsm", "xls", "csv", "bad"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            let mimes: Vec<&str> = if sub == "bad" {
                vec![mime_for("xlsx"), mime_for("xls"), mime_for("csv")]
            } else {
                vec![mime_for(sub)]
            };
            for mime in mimes {
                let result = std::panic::catch_unwind(|| convert(&path, mime));
                match result {
                    Err(_) => panic!("panic on {} as {mime}", path.display()),
                    Ok(Err(e)) if sub != "bad" => {
                        eprintln!("error on {}: {e} [{:?}]", path.display(), e.detail())
                    }
                    Ok(Err(e))
                        if path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
                            matches!(e, "xlsx" | "xls" | "csv") && mime == mime_for(e)
                        }) =>
                    {
                        eprintln!("bad {}: {} - {e}", path.display(), e.kind())
                    }
                    Ok(_) => {}
                }
            }
        }
    }
}
