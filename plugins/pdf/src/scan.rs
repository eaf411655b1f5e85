//! Pages without a usable text layer: detected here, rendered and sent to OCR.
//!
//! A page is *scanned* when it has no text at all but draws something, or when it has
//! almost no text (a stray page number, a stamp) and images cover most of it. With OCR on,
//! the page is rendered by PDFium (which applies `/Rotate`, so the image is upright) at
//! 200 dpi (rendered in colour, PDFium's grey bitmaps are unreliable, then reduced to grey) and the provider's text becomes the page's paragraphs.

use crate::images::encode_bitmap;
use pdfium_render::prelude::*;
use quire_plugin_api::{Block, Context, OcrImage};

/// Resolution pages are rendered at for OCR.
pub const OCR_DPI: u32 = 200;
/// Longest side of a rendered page, in pixels (a poster-sized page is scaled down).
const MAX_SIDE: i32 = 6000;

/// Whether a page needs OCR to be read.
pub fn is_scanned(visible_chars: usize, image_coverage: f32, has_graphics: bool) -> bool {
    (visible_chars == 0 && has_graphics) || (visible_chars < 20 && image_coverage >= 0.5)
}

/// Renders a page and reads it with the job's OCR provider. `Ok(None)` when OCR is off.
///
/// A scan may be stored upside down or sideways. A provider that finds the orientation
/// itself (provider_one by orientation detection, provider_two by box shapes and its
/// direction classifier) reads each page once. With any other provider, when the text read
/// does not look like language (low confidence, or none of the commonest short words), the
/// page is read again turned by 180, 90 and 270 degrees and the best reading wins.
pub fn ocr_page(
    page: &PdfPage<'_>,
    ctx: &mut Context<'_>,
) -> quire_plugin_api::Result<Option<Vec<Block>>> {
    if !ctx.ocr_enabled() {
        return Ok(None);
    }
    let once = ctx.ocr_reads_any_orientation();
    let mut best: Option<(f32, String)> = None;
    for rotation in [
        PdfPageRenderRotation::None,
        PdfPageRenderRotation::Degrees180,
        PdfPageRenderRotation::Degrees90,
        PdfPageRenderRotation::Degrees270,
    ] {
        let Some(out) = ocr_rendered(page, rotation, ctx)? else {
            break;
        };
        let score = plausibility(&out.text, out.confidence);
        if best.as_ref().is_none_or(|(s, _)| score > *s) {
            best = Some((score, out.text));
        }
        if once || best.as_ref().is_some_and(|(s, _)| *s >= 0.5) {
            break;
        }
    }
    Ok(Some(
        best.map(|(_, text)| text_blocks(&text)).unwrap_or_default(),
    ))
}

/// One rendering read by OCR; `Ok(None)` when it could not be done (a warning is recorded).
fn ocr_rendered(
    page: &PdfPage<'_>,
    rotation: PdfPageRenderRotation,
    ctx: &mut Context<'_>,
) -> quire_plugin_api::Result<Option<quire_plugin_api::OcrOutput>> {
    let config = PdfRenderConfig::new()
        .scale_page_by_factor(OCR_DPI as f32 / 72.0)
        .set_maximum_width(MAX_SIDE)
        .set_maximum_height(MAX_SIDE)
        .rotate(rotation, true)
        .render_form_data(true)
        .render_annotations(true);
    let png = match page.render_with_config(&config) {
        Ok(bitmap) => match encode_bitmap(&bitmap, ctx.limits.max_image_pixels, true) {
            Ok((png, _, _)) => png,
            Err(reason) => {
                ctx.warn(format!(
                    "A scanned page could not be prepared for OCR: {reason}"
                ));
                return Ok(None);
            }
        },
        Err(_) => {
            ctx.warn(
                "A page could not be rendered for OCR: its content is damaged; its text was not read."
                    .to_string(),
            );
            return Ok(None);
        }
    };
    let image = OcrImage {
        data: &png,
        mime: "image/png",
        dpi: Some(OCR_DPI),
    };
    match ctx.ocr(&image) {
        None => Ok(None),
        Some(Ok(out)) => Ok(Some(out)),
        Some(Err(e)) if e.kind() == quire_plugin_api::ErrorKind::Timeout || e.is_temporary() => {
            Err(e)
        }
        Some(Err(e)) => {
            ctx.warn(format!("OCR failed on a scanned page: {}", e.message()));
            Ok(None)
        }
    }
}

/// How much OCR output looks like text in some language, 0..=1: the engine's confidence
/// when it gives one, else the share of very common short words (scaled), which is near
/// zero for a page read upside down.
pub fn plausibility(text: &str, confidence: Option<f32>) -> f32 {
    let (words, common) = quire_plugin_api::text::common_words(text);
    if words < 4 {
        // Too little to judge: accept what confidence says, or a neutral score.
        return confidence.unwrap_or(0.5);
    }
    let by_words = (common as f32 / words as f32 * 5.0).min(1.0);
    match confidence {
        Some(c) => c.min(by_words.max(0.2)),
        None => by_words,
    }
}

/// OCR text (paragraphs separated by blank lines) as paragraph blocks.
pub fn text_blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut para: Vec<&str> = Vec::new();
    for line in text.lines().map(str::trim).chain(std::iter::once("")) {
        if line.is_empty() {
            if !para.is_empty() {
                out.push(Block::text(quire_plugin_api::text::fold_whitespace(
                    &para.join(" "),
                )));
                para.clear();
            }
        } else {
            para.push(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scanned_page_rules() {
        assert!(is_scanned(0, 1.0, true));
        assert!(is_scanned(0, 0.0, true));
        assert!(!is_scanned(0, 0.0, false));
        assert!(is_scanned(5, 0.9, true));
        assert!(!is_scanned(500, 0.9, true));
    }

    #[test]
    fn upside_down_readings_score_low() {
        let good =
            "Docling bundles PDF document conversion to JSON and Markdown in an easy package";
        let bad = "eseyoed peulejuod jjas Asea ue Ul UMOpyJePW PU NOSTL 0} UOISJOAUOD JUBSLUNDOP";
        assert!(plausibility(good, None) >= 0.5);
        assert!(plausibility(bad, None) < 0.1);
    }

    #[test]
    fn ocr_text_becomes_paragraphs() {
        let blocks = text_blocks("Line one\nline two\n\n  Second  para \n");
        assert_eq!(
            blocks,
            vec![Block::text("Line one line two"), Block::text("Second para")]
        );
    }
}
