//! The shared corpus (skipped when absent): expectation records for PDFs met by the text of
//! the converted document, and every file in `bad/` ending with a document or a clear error.

mod support;

use quire_plugin_api::{Context, Converter, ErrorKind, Input};
use quire_plugin_pdf::{flatten::document_text, PdfConverter};
use support::{corpus_dir, expectations, TesseractCli};

#[test]
fn corpus_pdf_expectations() {
    let records = expectations("pdf");
    if records.is_empty() {
        eprintln!("corpus not found; skipped");
        return;
    }
    let converter = PdfConverter::new(&support::config());
    let ocr = TesseractCli;
    // The scanned-page records need OCR; scripts/setup.sh installs the engine.
    assert!(
        TesseractCli::available(),
        "the tesseract command is missing: run scripts/setup.sh"
    );
    let mut met = 0;
    let mut failures = Vec::new();
    for (file, include, exclude) in &records {
        let bytes = std::fs::read(corpus_dir().join(file)).expect("corpus file");
        let mut ctx = Context::new().with_ocr("tesseract-cli", &ocr);
        let input = Input {
            bytes: &bytes,
            file_name: file,
            mime: "application/pdf",
        };
        let text = match converter.convert(&input, &mut ctx) {
            Ok(doc) => quire_plugin_api::text::fold_whitespace(&document_text(&doc)),
            Err(e) => {
                failures.push(format!("{file}: error {e}"));
                continue;
            }
        };
        let missing: Vec<&String> = include
            .iter()
            .filter(|s| !text.contains(&quire_plugin_api::text::fold_whitespace(s)))
            .collect();
        let present: Vec<&String> = exclude
            .iter()
            .filter(|s| text.contains(s.as_str()))
            .collect();
        if missing.is_empty() && present.is_empty() {
            met += 1;
        } else {
            failures.push(format!(
                "{file}: missing {missing:?}, unexpected {present:?}"
            ));
        }
    }
    let rate = met as f64 / records.len() as f64;
    eprintln!(
        "pdf expectations met: {met}/{} ({:.1}%)",
        records.len(),
        rate * 100.0
    );
    for f in &failures {
        eprintln!("  {f}");
    }
    assert!(rate >= 0.90, "only {met}/{} met", records.len());
}

#[test]
fn every_password_free_corpus_pdf_converts_with_all_pages() {
    let dir = corpus_dir().join("pdf");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("corpus not found; skipped");
        return;
    };
    let converter = PdfConverter::new(&support::config());
    let mut total = 0;
    let mut ok = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "pdf") {
            continue;
        }
        total += 1;
        let bytes = std::fs::read(&path).expect("read");
        let input = Input {
            bytes: &bytes,
            file_name: "x.pdf",
            mime: "application/pdf",
        };
        match converter.convert(&input, &mut Context::new()) {
            Ok(doc) => {
                let declared = doc.metadata.extra["num_pages"].as_u64().unwrap_or(0);
                assert_eq!(doc.parts.len() as u64, declared, "{}", path.display());
                let numbers: Vec<u32> = doc.parts.iter().map(|p| p.number).collect();
                assert_eq!(numbers, (1..=declared as u32).collect::<Vec<_>>());
                ok += 1;
            }
            Err(e) => eprintln!("{}: {e}", path.display()),
        }
    }
    assert!(ok * 100 >= total * 97, "{ok}/{total} converted");
}

#[test]
fn bad_files_end_with_a_document_or_a_clear_error() {
    let dir = corpus_dir().join("bad");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("corpus not found; skipped");
        return;
    };
    let converter = PdfConverter::new(&support::config());
    let mut files: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    files.sort();
    for path in files {
        let bytes = std::fs::read(&path).expect("read");
        let input = Input {
            bytes: &bytes,
            file_name: "bad",
            mime: "application/pdf",
        };
        let started = std::time::Instant::now();
        let result = converter.convert(&input, &mut Context::new());
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        eprintln!(
            "{name}: {} in {:?}",
            match &result {
                Ok(doc) => format!("{} pages", doc.parts.len()),
                Err(e) => format!("{:?}: {e}", e.kind()),
            },
            started.elapsed()
        );
        if let Err(e) = &result {
            assert!(!e.message().is_empty());
            assert_ne!(e.kind(), ErrorKind::Internal, "{name}: {e}");
        }
        if (name.contains("encrypted") || name.contains("password")) && name.ends_with(".pdf") {
            assert_eq!(
                result.err().map(|e| e.kind()),
                Some(ErrorKind::Encrypted),
                "{name}"
            );
        }
    }
}
