//! Runs every DOCX of the shared corpus (when present) through the converter and checks the
//! expectation records against the document's text; then feeds every file of `bad/` to the
//! converter, which must answer with a document or an error, never a panic.

mod support;

use quire_plugin_api::{text::fold_whitespace, Context};
use std::path::PathBuf;

fn corpus() -> Option<PathBuf> {
    let root = quire_testkit::workspace().join("../shared/corpus");
    root.join("expectations.jsonl").exists().then_some(root)
}

#[test]
fn corpus_expectations() {
    let Some(root) = corpus() else {
        eprintln!("corpus not found; skipped");
        return;
    };
    let records = std::fs::read_to_string(root.join("expectations.jsonl")).expect("expectations");
    let (mut met, mut total, mut files) = (0usize, 0usize, 0usize);
    let mut misses = Vec::new();
    for line in records.lines().filter(|l| !l.trim().is_empty()) {
        let rec: serde_json::Value = serde_json::from_str(line).expect("record");
        let file = rec["file"].as_str().unwrap_or_default();
        if !file.starts_with("docx/") {
            continue;
        }
        files += 1;
        let bytes = std::fs::read(root.join(file)).expect("corpus file");
        let mut ctx = Context::new();
        let text = match quire_plugin_docx::convert(&bytes, &mut ctx) {
            Ok(doc) => fold_whitespace(&support::markdown(&doc)),
            Err(e) => {
                misses.push(format!("{file}: conversion failed: {}", e.message()));
                String::new()
            }
        };
        let strings = |key: &str| {
            rec[key]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str())
                        .map(fold_whitespace)
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        };
        for s in strings("must_include") {
            total += 1;
            if text.contains(&s) {
                met += 1;
            } else {
                misses.push(format!("{file}: missing {s:?}"));
            }
        }
        for s in strings("must_not_include") {
            total += 1;
            if text.contains(&s) {
                misses.push(format!("{file}: must not include {s:?}"));
            } else {
                met += 1;
            }
        }
    }
    for m in &misses {
        eprintln!("  {m}");
    }
    let rate = if total == 0 {
        1.0
    } else {
        met as f64 / total as f64
    };
    eprintln!(
        "docx corpus: {files} files, {met}/{total} expectations met ({:.1}%)",
        rate * 100.0
    );
    assert!(
        rate >= 0.95,
        "expectation rate {:.1}% is under 95%",
        rate * 100.0
    );
}

#[test]
fn corpus_files_convert_and_bad_files_do_not_panic() {
    let Some(root) = corpus() else {
        return;
    };
    let mut failed = Vec::new();
    for dir in ["docx", "bad"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let bytes = std::fs::read(entry.path()).expect("read");
            let mut ctx = Context::new();
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                quire_plugin_docx::convert(&bytes, &mut ctx)
            }));
            let name = entry.file_name().to_string_lossy().into_owned();
            match result {
                Err(_) => panic!("{dir}/{name}: the converter panicked"),
                Ok(Err(e)) if dir == "docx" => failed.push(format!("{name}: {}", e.message())),
                Ok(Err(e)) => eprintln!("  bad/{name}: {:?}: {}", e.kind(), e.message()),
                Ok(Ok(_)) => eprintln!("  {dir}/{name}: converted"),
            }
        }
    }
    assert!(failed.is_empty(), "corpus files failed: {failed:#?}");
}
