//! Pages without a usable text layer: detected here, rendered and sent to OCR.
//!
//! A page is *scanned* when it has no text at all but draws something, or when it has
//! almost no text (a stray page number, a stamp) and images cover most of it. With OCR on,
//! the page is rendered by PDFium (which applies `/Rotate`, so the image is upright) at
//! 200 dpi (rendered in colour, PDFium's grey bitmaps are unreliable, then reduced to grey) and the provider's text becomes the page's paragraphs.
//!
//! A page that is nothing but one image covering it (what a scanner writes) is read from
//! that image's own pixels instead, decoded at their native resolution and turned or
//! mirrored as the image's matrix and `/Rotate` show it, so the recogniser sees the scan's
//! own pixels rather than PDFium's resampling of them (on the generated bench scan both
//! read alike: ARCHITECTURE.md, PDF third pass).

use crate::geom::PageTransform;
use crate::images::encode_bitmap;
use image::ImageEncoder;
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
    transform: &PageTransform,
    ctx: &mut Context<'_>,
) -> quire_plugin_api::Result<Option<Vec<Block>>> {
    if !ctx.ocr_enabled() {
        return Ok(None);
    }
    let once = ctx.ocr_reads_any_orientation();
    let native = page_image(page, transform, ctx.limits.max_image_pixels);
    let mut best: Option<(f32, String)> = None;
    for rotation in [
        PdfPageRenderRotation::None,
        PdfPageRenderRotation::Degrees180,
        PdfPageRenderRotation::Degrees90,
        PdfPageRenderRotation::Degrees270,
    ] {
        let read = match &native {
            Some(image) => ocr_native(image, rotation, ctx)?,
            None => ocr_rendered(page, rotation, ctx)?,
        };
        let Some(out) = read else {
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
        Ok(bitmap) => match encode_bitmap(&bitmap, ctx.limits.max_image_pixels, true, None) {
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
    read(
        &OcrImage {
            data: &png,
            mime: "image/png",
            dpi: Some(OCR_DPI),
        },
        ctx,
    )
}

/// One page image read by the job's provider; `Ok(None)` when it failed (a warning says so).
fn read(
    image: &OcrImage<'_>,
    ctx: &mut Context<'_>,
) -> quire_plugin_api::Result<Option<quire_plugin_api::OcrOutput>> {
    match ctx.ocr(image) {
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

/// A page's only image, as grey pixels in the page's display orientation.
struct PageImage {
    pixels: Vec<u8>,
    width: u32,
    height: u32,
    dpi: u32,
}

/// The page's image area must cover this share of the page to be read as the whole page.
const FULL_PAGE: f32 = 0.9;
/// Native resolutions read as they are; outside this range the page is rendered at
/// [`OCR_DPI`] as before (a coarse scan gains from PDFium's smoothing; a 600-dpi scan would
/// give OCR nine times the pixels of a 200-dpi rendering, and Tesseract's time with them).
const NATIVE_DPI: std::ops::RangeInclusive<f32> = 150.0..=300.0;

/// The page's one image with its transform applied, when the page is exactly that: one
/// image object covering the page, set square to it (quarter turns and mirrors only), and
/// nothing else drawn (text objects only when invisible, as an OCR layer is). `None`
/// otherwise, and for image masks, flat images whose shape is in a soft mask, and images
/// over the pixel limit: those pages are rendered.
fn page_image(page: &PdfPage<'_>, transform: &PageTransform, max_pixels: u64) -> Option<PageImage> {
    let mut image = None;
    for object in page.objects().iter() {
        match object.object_type() {
            PdfPageObjectType::Image if image.is_none() => image = Some(object),
            PdfPageObjectType::Text
                if object
                    .as_text_object()
                    .is_some_and(|t| t.render_mode() == PdfPageTextRenderMode::Invisible) => {}
            _ => return None,
        }
    }
    let object = image?;
    let matrix = object.matrix().ok()?;
    let img = object.as_image_object()?;
    if matches!(img.color_space(), Ok(PdfColorSpace::Unknown) | Err(_)) {
        // An image mask (a stencil painted in the fill colour) has no colour space.
        return None;
    }
    // The unit square's corners in display space: the image's top-left corner, and where
    // its rows and its columns run.
    let at = |u: f32, v: f32| {
        let (x, y) = matrix.apply_to_points(PdfPoints::new(u), PdfPoints::new(v));
        transform.point(x.value, y.value)
    };
    let origin = at(0.0, 1.0);
    let right = at(1.0, 1.0);
    let down = at(0.0, 0.0);
    let along = (right.0 - origin.0, right.1 - origin.1);
    let across = (down.0 - origin.0, down.1 - origin.1);
    let orientation = Orientation::of(along, across)?;
    let (page_w, page_h) = transform.display_size();
    let (shown_w, shown_h) = if orientation.columns_horizontal {
        (along.0.abs(), across.1.abs())
    } else {
        (across.0.abs(), along.1.abs())
    };
    if shown_w * shown_h < FULL_PAGE * page_w * page_h {
        return None;
    }
    let bitmap = img.get_raw_bitmap().ok()?;
    let (w, h) = (bitmap.width().max(0) as u32, bitmap.height().max(0) as u32);
    if w == 0 || h == 0 || u64::from(w) * u64::from(h) > max_pixels {
        return None;
    }
    let grey = grey_pixels(&bitmap)?;
    if grey.iter().all(|p| *p == grey[0]) {
        return None;
    }
    let (pixels, width, height) = orientation.apply(&grey, w, h);
    let dpi = width as f32 / (shown_w / 72.0);
    if !NATIVE_DPI.contains(&dpi) {
        return None;
    }
    Some(PageImage {
        pixels,
        width,
        height,
        dpi: dpi.round() as u32,
    })
}

/// A PDFium bitmap's pixels as grey (luma), row by row without padding.
fn grey_pixels(bitmap: &PdfBitmap<'_>) -> Option<Vec<u8>> {
    let w = bitmap.width().max(0) as usize;
    let h = bitmap.height().max(0) as usize;
    let raw = bitmap.as_raw_bytes();
    if h == 0 || raw.len() < h {
        return None;
    }
    let stride = raw.len() / h;
    let channels = match bitmap.format().ok()? {
        PdfBitmapFormat::Gray => 1,
        PdfBitmapFormat::BGR => 3,
        PdfBitmapFormat::BGRx | PdfBitmapFormat::BGRA => 4,
    };
    if stride < w * channels {
        return None;
    }
    let mut out = Vec::with_capacity(w * h);
    for row in raw.chunks(stride).take(h) {
        let row = &row[..w * channels];
        if channels == 1 {
            out.extend_from_slice(row);
        } else {
            out.extend(row.chunks_exact(channels).map(|px| {
                ((u32::from(px[2]) * 299 + u32::from(px[1]) * 587 + u32::from(px[0]) * 114) / 1000)
                    as u8
            }));
        }
    }
    Some(out)
}

/// How an image's pixel grid lies on the displayed page: whether its columns (one row's
/// pixels, left to right in the image) run horizontally, and whether each axis is reversed.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Orientation {
    columns_horizontal: bool,
    /// The image's columns run right to left (or bottom to top when vertical).
    columns_reversed: bool,
    /// The image's rows run bottom to top (or right to left when horizontal).
    rows_reversed: bool,
}

impl Orientation {
    /// From the display vectors of the image's column and row directions; `None` when the
    /// image is not set square to the page (a skewed or slightly turned placement).
    fn of(along: (f32, f32), across: (f32, f32)) -> Option<Orientation> {
        let square = |v: (f32, f32), horizontal: bool| {
            let (main, off) = if horizontal { (v.0, v.1) } else { (v.1, v.0) };
            main.abs() > 1.0 && off.abs() <= 0.01 * main.abs()
        };
        if square(along, true) && square(across, false) {
            Some(Orientation {
                columns_horizontal: true,
                columns_reversed: along.0 < 0.0,
                rows_reversed: across.1 < 0.0,
            })
        } else if square(along, false) && square(across, true) {
            Some(Orientation {
                columns_horizontal: false,
                columns_reversed: along.1 < 0.0,
                rows_reversed: across.0 < 0.0,
            })
        } else {
            None
        }
    }

    /// The `w` x `h` grey pixels as the page shows them: `(pixels, width, height)`.
    fn apply(self, src: &[u8], w: u32, h: u32) -> (Vec<u8>, u32, u32) {
        let (w, h) = (w as usize, h as usize);
        let (ow, oh) = if self.columns_horizontal {
            (w, h)
        } else {
            (h, w)
        };
        if self.columns_horizontal && !self.columns_reversed && !self.rows_reversed {
            return (src.to_vec(), ow as u32, oh as u32);
        }
        let mut out = vec![0u8; ow * oh];
        for j in 0..h {
            let jj = if self.rows_reversed { h - 1 - j } else { j };
            for i in 0..w {
                let ii = if self.columns_reversed { w - 1 - i } else { i };
                let (x, y) = if self.columns_horizontal {
                    (ii, jj)
                } else {
                    (jj, ii)
                };
                out[y * ow + x] = src[j * w + i];
            }
        }
        (out, ow as u32, oh as u32)
    }
}

/// Grey pixels turned clockwise by a quarter turn: `(pixels, width, height)`.
fn turn_clockwise(src: &[u8], w: u32, h: u32) -> (Vec<u8>, u32, u32) {
    let (w, h) = (w as usize, h as usize);
    let mut out = vec![0u8; w * h];
    // The new image is h wide and w high; source (x, y) goes to (h - 1 - y, x).
    for y in 0..h {
        for x in 0..w {
            out[x * h + (h - 1 - y)] = src[y * w + x];
        }
    }
    (out, h as u32, w as u32)
}

/// The page's own image read by OCR, turned by `rotation` (clockwise, as PDFium renders).
fn ocr_native(
    image: &PageImage,
    rotation: PdfPageRenderRotation,
    ctx: &mut Context<'_>,
) -> quire_plugin_api::Result<Option<quire_plugin_api::OcrOutput>> {
    let turns = match rotation {
        PdfPageRenderRotation::None => 0,
        PdfPageRenderRotation::Degrees90 => 1,
        PdfPageRenderRotation::Degrees180 => 2,
        PdfPageRenderRotation::Degrees270 => 3,
    };
    let (mut pixels, mut w, mut h) = (image.pixels.clone(), image.width, image.height);
    for _ in 0..turns {
        (pixels, w, h) = turn_clockwise(&pixels, w, h);
    }
    let mut png = Vec::new();
    let encoded = image::codecs::png::PngEncoder::new_with_quality(
        &mut png,
        image::codecs::png::CompressionType::Fast,
        image::codecs::png::FilterType::Adaptive,
    )
    .write_image(&pixels, w, h, image::ExtendedColorType::L8);
    if let Err(e) = encoded {
        ctx.warn(format!(
            "A scanned page could not be prepared for OCR: it could not be encoded as PNG ({e})"
        ));
        return Ok(None);
    }
    read(
        &OcrImage {
            data: &png,
            mime: "image/png",
            dpi: Some(image.dpi),
        },
        ctx,
    )
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

    /// A 3 x 2 image: rows "abc" and "def".
    const GRID: [u8; 6] = [1, 2, 3, 4, 5, 6];

    #[test]
    fn an_image_set_upright_keeps_its_pixels() {
        let o = Orientation::of((300.0, 0.0), (0.0, 200.0)).unwrap();
        assert_eq!(o.apply(&GRID, 3, 2), (GRID.to_vec(), 3, 2));
    }

    #[test]
    fn a_mirrored_or_turned_image_is_shown_as_the_page_shows_it() {
        // Drawn with a negative vertical scale (rows bottom to top): mirrored top to bottom.
        let flipped = Orientation::of((300.0, 0.0), (0.0, -200.0)).unwrap();
        assert_eq!(flipped.apply(&GRID, 3, 2), (vec![4, 5, 6, 1, 2, 3], 3, 2));
        // Columns running down, rows running right to left: turned a quarter clockwise.
        let turned = Orientation::of((0.0, 300.0), (-200.0, 0.0)).unwrap();
        assert_eq!(turned.apply(&GRID, 3, 2), (vec![4, 1, 5, 2, 6, 3], 2, 3));
        assert_eq!(turn_clockwise(&GRID, 3, 2), (vec![4, 1, 5, 2, 6, 3], 2, 3));
        // Half a turn: both axes reversed.
        let half = Orientation::of((-300.0, 0.0), (0.0, -200.0)).unwrap();
        assert_eq!(half.apply(&GRID, 3, 2), (vec![6, 5, 4, 3, 2, 1], 3, 2));
    }

    #[test]
    fn a_skewed_image_is_rendered_instead() {
        assert!(Orientation::of((300.0, 20.0), (0.0, 200.0)).is_none());
        assert!(Orientation::of((300.0, 0.0), (300.0, 0.0)).is_none());
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
