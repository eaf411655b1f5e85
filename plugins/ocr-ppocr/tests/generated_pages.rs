//! End-to-end accuracy on pages generated from installed fonts (see `common/testpages.rs`):
//! several fonts and sizes, a noisy skewed JPEG scan, two and three columns, an invoice,
//! low contrast, small text on a wide screenshot, and pages turned 90°, 180° and 270°.
//! Skips (with a message) when the models or the DejaVu fonts are not installed.

#[path = "common/testpages.rs"]
mod testpages;

use quire_ocr_ppocr::PpOcr;
use quire_plugin_api::{OcrImage, OcrProvider, PluginConfig};

fn provider() -> Option<PpOcr> {
    let mut config = PluginConfig::default();
    config.ocr.model_dir = quire_testkit::runtime_dir().join("models");
    match PpOcr::new(&config) {
        Ok(p) => Some(p),
        Err(e) => {
            eprintln!(
                "SKIPPED: PP-OCR models not available ({:?}); run scripts/setup.sh",
                e.detail()
            );
            None
        }
    }
}

#[test]
fn generated_pages_are_read_with_low_cer() {
    let Some(ocr) = provider() else { return };
    let Some(pages) = testpages::pages() else {
        eprintln!("SKIPPED: no DejaVu fonts (install the Debian package fonts-dejavu-core)");
        return;
    };
    let mut total = 0.0;
    let mut report = String::new();
    for page in &pages {
        let out = ocr
            .recognize(&OcrImage {
                data: &page.data,
                mime: page.mime,
                dpi: None,
            })
            .expect("a generated page is readable");
        let cer = testpages::cer(&page.truth, &out.text);
        report.push_str(&format!("{:<24} CER {:>6.2}%\n", page.name, cer * 100.0));
        assert!(cer <= 0.05, "{}: CER {cer:.3}\n{}", page.name, out.text);
        total += cer;
    }
    let mean = total / pages.len() as f64;
    eprintln!(
        "{report}mean CER {:.2}% over {} pages",
        mean * 100.0,
        pages.len()
    );
    assert!(mean <= 0.02, "mean CER {mean:.4}");
}

#[test]
fn two_columns_read_column_by_column_with_paragraphs() {
    let Some(ocr) = provider() else { return };
    let Some(pages) = testpages::pages() else {
        return;
    };
    let page = pages
        .iter()
        .find(|p| p.name == "two_columns")
        .expect("page exists");
    let out = ocr
        .recognize(&OcrImage {
            data: &page.data,
            mime: page.mime,
            dpi: None,
        })
        .expect("readable");
    assert!(
        out.text.starts_with("Annual Report Summary\n\n"),
        "{}",
        out.text
    );
    let left = out.text.find("by phone.").expect("end of the left column");
    let right = out
        .text
        .find("Machine learning")
        .expect("start of the right column");
    assert!(left < right, "{}", out.text);
    assert!(out.confidence.is_some_and(|c| c > 0.8));
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let Some(ocr) = provider() else { return };
    let err = ocr
        .recognize(&OcrImage {
            data: b"not an image at all",
            mime: "image/png",
            dpi: None,
        })
        .unwrap_err();
    assert_eq!(
        err.kind(),
        quire_plugin_api::ErrorKind::Unsupported,
        "{err}"
    );
    // A PNG header claiming 100,000 x 100,000 pixels fails on the limit before decoding.
    let mut png = Vec::new();
    png.extend_from_slice(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
    let ihdr: [u8; 13] = [0, 1, 0x86, 0xa0, 0, 1, 0x86, 0xa0, 8, 0, 0, 0, 0];
    png.extend_from_slice(&ihdr);
    let mut crc_input = b"IHDR".to_vec();
    crc_input.extend_from_slice(&ihdr);
    png.extend_from_slice(&crc32(&crc_input).to_be_bytes());
    let err = ocr
        .recognize(&OcrImage {
            data: &png,
            mime: "image/png",
            dpi: None,
        })
        .unwrap_err();
    assert_eq!(
        err.kind(),
        quire_plugin_api::ErrorKind::LimitExceeded,
        "{err}"
    );
    // A blank page has no text and no confidence.
    let blank = image::GrayImage::from_pixel(300, 200, image::Luma([255]));
    let out = ocr
        .recognize(&OcrImage {
            data: &testpages::png(&blank),
            mime: "image/png",
            dpi: None,
        })
        .expect("a blank page is fine");
    assert_eq!(out.text, "");
    assert_eq!(out.confidence, None);
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}
