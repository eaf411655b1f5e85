//! Corpus pictures with OCR expectations, converted by the image plugin with Tesseract as the
//! job's OCR provider; the expected strings must appear in the OCR text (whitespace folded).
//! Skipped when the shared corpus is not on this machine.

use quire_ocr_tesseract::TesseractProvider;
use quire_plugin_api::{
    text::fold_whitespace, Context, Converter, ImageRules, Input, PluginConfig,
};
use quire_plugin_image::ImageConverter;

#[test]
fn corpus_ocr_expectations() {
    let root = quire_testkit::workspace().join("../shared/corpus");
    let Ok(lines) = std::fs::read_to_string(root.join("expectations.jsonl")) else {
        eprintln!("skipped: no corpus");
        return;
    };
    let provider = TesseractProvider::new(&PluginConfig::default()).unwrap();
    let converter = ImageConverter::new(ImageRules::default());
    let (mut met, mut total) = (0, 0);
    for line in lines.lines() {
        let Ok(record) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let file = record["file"].as_str().unwrap_or_default();
        // Expectations about EXIF/XMP metadata are the renderer's business, not OCR's.
        if record["source"]
            .as_str()
            .unwrap_or_default()
            .contains("metadata only")
        {
            continue;
        }
        let mime = match file.split('/').next() {
            Some("png") => "image/png",
            Some("jpg") => "image/jpeg",
            Some("gif") => "image/gif",
            Some("bmp") => "image/bmp",
            Some("webp") => "image/webp",
            Some("tiff") => "image/tiff",
            _ => continue,
        };
        let Ok(bytes) = std::fs::read(root.join(file)) else {
            continue;
        };
        let input = Input {
            bytes: &bytes,
            file_name: file,
            mime,
        };
        let mut ctx = Context::new().with_ocr("provider_one", &provider);
        let doc = converter.convert(&input, &mut ctx).unwrap();
        let text = fold_whitespace(
            doc.image
                .as_ref()
                .unwrap()
                .ocr_text
                .as_deref()
                .unwrap_or(""),
        );
        for want in record["must_include"].as_array().into_iter().flatten() {
            let want = fold_whitespace(want.as_str().unwrap_or_default());
            total += 1;
            if text.contains(&want) {
                met += 1;
            } else {
                println!("missing in {file}: {want:?}");
            }
        }
    }
    println!("corpus OCR expectations met: {met}/{total}");
    assert_eq!(met, total);
}
