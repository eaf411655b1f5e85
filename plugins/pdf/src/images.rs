//! Images placed on a page: where they stand, and their bytes.
//!
//! JPEG streams (DCTDecode) are passed through untouched; grey and RGB samples stored raw or
//! with Flate are decoded by the fast path (`content`) on the pages it reads; every other
//! encoding (JPX, JBIG2, CCITT, indexed colour, masked images, ...) is decoded by PDFium; all
//! but JPEGs are stored as PNG. The host scales and re-encodes
//! both by the image rules, like images from any other plugin. Limits on count and pixels
//! are checked before anything is decoded.

use crate::geom::{PageTransform, Rect};
use image::ImageEncoder;
use pdfium_render::prelude::*;
use quire_plugin_api::{pixels, Context, Image, ImageRules};

/// An image and its box on the page.
#[derive(Debug)]
pub struct Placed {
    pub rect: Rect,
    pub image: Image,
}

/// Counts images across the document for names and limits.
#[derive(Debug, Default)]
pub struct Budget {
    pub seen: u32,
    pub kept: u32,
    warned_count: bool,
    /// The image box to scale raw bitmaps into before encoding, when the host's rules may be
    /// applied here (the host applies them to every image anyway; a 600-dpi scan is cheaper to
    /// shrink from its pixels than to encode at full size and decode again).
    fit: Option<ImageRules>,
}

impl Budget {
    pub fn new(fit: Option<ImageRules>) -> Budget {
        Budget {
            fit,
            ..Budget::default()
        }
    }

    /// The box raw pixels are scaled into before encoding, if any.
    pub fn fit(&self) -> Option<&ImageRules> {
        self.fit.as_ref()
    }
}

/// What a page draws besides text.
#[derive(Debug, Default)]
pub struct Objects {
    pub images: Vec<Placed>,
    /// Share of the page area covered by images (overlaps counted twice, capped at 1).
    pub image_coverage: f32,
    /// Whether the page draws anything at all (paths, images, shadings).
    pub has_graphics: bool,
    /// Thin horizontal and vertical strokes (table rules), in display space.
    pub rules: Vec<Rect>,
    /// Small images (picture bullets, icons) that were not extracted.
    pub marks: Vec<Rect>,
}

/// The entry of an image over the document's image limit (warned about once).
pub fn over_budget(budget: &mut Budget, name_base: &str, ctx: &mut Context<'_>) -> Image {
    if !budget.warned_count {
        budget.warned_count = true;
        ctx.warn(format!(
            "The PDF has more than {} images; the rest are listed but not embedded",
            ctx.limits.max_images
        ));
    }
    let mut image = Image::new(format!("{name_base}.png"), "image/png", Vec::new());
    image.skipped = Some(format!(
        "over the limit of {} images",
        ctx.limits.max_images
    ));
    image
}

/// What an encoder gives: `(data, mime, extension, width, height)`, or why it was skipped.
pub type Encoded = std::result::Result<(Vec<u8>, &'static str, &'static str, u32, u32), String>;

/// The entry of an image within the document's image limit: its bytes, counted against the
/// budget, or an empty entry that says why it was skipped (warned about).
pub fn entry(
    budget: &mut Budget,
    name_base: &str,
    encoded: Encoded,
    ctx: &mut Context<'_>,
) -> Image {
    match encoded {
        Ok((data, mime, ext, width, height)) => {
            budget.kept += 1;
            let mut image = Image::new(format!("{name_base}.{ext}"), mime, data);
            image.width = Some(width);
            image.height = Some(height);
            image
        }
        Err(reason) => {
            ctx.warn(format!("An image on a page was not extracted: {reason}"));
            let mut image = Image::new(format!("{name_base}.png"), "image/png", Vec::new());
            image.skipped = Some(reason);
            image
        }
    }
}

/// Refuses an image of more than `max_pixels` pixels, saying so.
pub fn check_pixels(width: u32, height: u32, max_pixels: u64) -> std::result::Result<(), String> {
    if u64::from(width) * u64::from(height) > max_pixels {
        return Err(format!(
            "{width}x{height} pixels is over the limit of {max_pixels} pixels"
        ));
    }
    Ok(())
}

/// Images smaller than this (points, either side) are rules, bullets or spacers.
pub(crate) const MIN_SIDE: f32 = 6.0;

pub fn collect(
    page: &PdfPage<'_>,
    document: &PdfDocument<'_>,
    transform: &PageTransform,
    budget: &mut Budget,
    ctx: &mut Context<'_>,
) -> Objects {
    let mut has_graphics = false;
    let mut matrices: Vec<PdfMatrix> = Vec::new();
    let (w, h) = transform.display_size();
    let page_area = (w * h).max(1.0);
    let mut placed: Vec<Placed> = Vec::new();
    let mut marks: Vec<Rect> = Vec::new();
    let mut covered = 0.0;
    let mut visit = |rect: Rect, img: &PdfPageImageObject<'_>| {
        covered += rect.area();
        let tiny_pixels = match (img.width(), img.height()) {
            (Ok(w), Ok(h)) => i64::from(w) * i64::from(h) < 64,
            _ => false,
        };
        let icon = rect.width() < 3.0 * MIN_SIDE && rect.height() < 3.0 * MIN_SIDE;
        if rect.width() < MIN_SIDE || rect.height() < MIN_SIDE || icon || tiny_pixels {
            // Bullets, icons, spacers and 2x2 fills: not content, but maybe a list marker.
            if rect.width() >= 1.5 && rect.height() >= 1.5 && rect.width() < 3.0 * MIN_SIDE {
                marks.push(rect);
            }
            return;
        }
        budget.seen += 1;
        let name_base = format!("image{}", budget.seen);
        if budget.kept >= ctx.limits.max_images {
            let image = over_budget(budget, &name_base, ctx);
            placed.push(Placed { rect, image });
            return;
        }
        let image = entry(
            budget,
            &name_base,
            encode(
                img,
                document,
                ctx.limits.max_image_pixels,
                budget.fit.as_ref(),
            ),
            ctx,
        );
        placed.push(Placed { rect, image });
    };
    let mut rules = Vec::new();
    let mut drawn_marks = Vec::new();
    let mut walker = Walker {
        matrices: &mut matrices,
        transform,
        visit: &mut visit,
        has_graphics: &mut has_graphics,
        rules: &mut rules,
        marks: &mut drawn_marks,
    };
    walker.walk(&mut page.objects().iter(), 0);
    marks.extend(drawn_marks);
    Objects {
        images: placed,
        image_coverage: (covered / page_area).min(1.0),
        has_graphics,
        rules,
        marks,
    }
}

/// Walks page objects, descending into form XObjects: images go to `visit` with their
/// display boxes, thin strokes to `rules`.
struct Walker<'w> {
    matrices: &'w mut Vec<PdfMatrix>,
    transform: &'w PageTransform,
    visit: &'w mut dyn FnMut(Rect, &PdfPageImageObject<'_>),
    has_graphics: &'w mut bool,
    rules: &'w mut Vec<Rect>,
    /// Small filled or outlined shapes (drawn bullets: discs, squares, circles).
    marks: &'w mut Vec<Rect>,
}

/// A stroke at most this thick (points) can be a table rule.
const RULE_THICKNESS: f32 = 3.0;
/// Rules shorter than this are ignored (underlines of single letters, tick marks).
pub(crate) const RULE_MIN_LENGTH: f32 = 8.0;
/// Drawn shapes at most this big (points, either side) may be list bullets.
pub(crate) const MARK_MAX_SIDE: f32 = 9.0;
/// Paths with more segments than this are drawings, not table grids.
const MAX_PATH_SEGMENTS: usize = 400;

impl Walker<'_> {
    fn to_display(&self, x: PdfPoints, y: PdfPoints) -> (f32, f32) {
        let (mut x, mut y) = (x, y);
        for m in self.matrices.iter().rev() {
            (x, y) = m.apply_to_points(x, y);
        }
        self.transform.point(x.value, y.value)
    }

    fn walk<'a>(&mut self, objects: &mut dyn Iterator<Item = PdfPageObject<'a>>, depth: u32) {
        for object in objects {
            match object.object_type() {
                PdfPageObjectType::Image => {
                    *self.has_graphics = true;
                    if let (Ok(b), Some(img)) = (object.bounds(), object.as_image_object()) {
                        let (ax, ay) = self.to_display(b.left(), b.bottom());
                        let (bx, by) = self.to_display(b.right(), b.top());
                        (self.visit)(Rect::new(ax, ay, bx, by), img);
                    }
                }
                // Nested forms are bounded (PDFium itself refuses cycles).
                PdfPageObjectType::XObjectForm if depth < 12 => {
                    if let Some(form) = object.as_x_object_form_object() {
                        let mut children = (0..form.len()).filter_map(|i| form.get(i).ok());
                        let pushed = match form.matrix() {
                            Ok(m) => {
                                self.matrices.push(m);
                                true
                            }
                            Err(_) => false,
                        };
                        self.walk(&mut children, depth + 1);
                        if pushed {
                            self.matrices.pop();
                        }
                    }
                }
                PdfPageObjectType::Path => {
                    *self.has_graphics = true;
                    if let Some(path) = object.as_path_object() {
                        self.path_rules(path);
                    }
                }
                PdfPageObjectType::Shading => *self.has_graphics = true,
                _ => {}
            }
        }
    }

    /// Horizontal and vertical straight pieces of a path, and the whole path when it is a
    /// thin filled bar (how many writers draw rules).
    fn path_rules(&mut self, path: &PdfPagePathObject<'_>) {
        if let Ok(b) = path.bounds() {
            let (ax, ay) = self.to_display(b.left(), b.bottom());
            let (bx, by) = self.to_display(b.right(), b.top());
            let r = Rect::new(ax, ay, bx, by);
            if is_rule(&r) {
                self.rules.push(r);
                return;
            }
            // A small, roughly square shape: a bullet as Chromium, LibreOffice and many
            // writers draw them (whether it starts a list is decided next to the text).
            let (w, h) = (r.width(), r.height());
            if (1.5..=MARK_MAX_SIDE).contains(&w)
                && (1.5..=MARK_MAX_SIDE).contains(&h)
                && w <= 2.0 * h
                && h <= 2.0 * w
            {
                self.marks.push(r);
                return;
            }
        }
        let Ok(matrix) = path.matrix() else { return };
        let segments = path.segments();
        let n = segments.len() as usize;
        if n > MAX_PATH_SEGMENTS {
            return;
        }
        let segments = segments.transform(matrix);
        let mut start: Option<(f32, f32)> = None;
        let mut last: Option<(f32, f32)> = None;
        for segment in segments.iter() {
            let (x, y) = segment.point();
            let p = self.to_display(x, y);
            match segment.segment_type() {
                PdfPathSegmentType::MoveTo => {
                    start = Some(p);
                    last = Some(p);
                }
                PdfPathSegmentType::LineTo => {
                    if let Some(a) = last {
                        self.line(a, p);
                    }
                    last = Some(p);
                }
                _ => last = Some(p),
            }
            if segment.is_close() {
                if let (Some(a), Some(s)) = (last, start) {
                    self.line(a, s);
                }
                last = start;
            }
        }
    }

    fn line(&mut self, a: (f32, f32), b: (f32, f32)) {
        let r = Rect::new(a.0, a.1, b.0, b.1);
        if (r.height() <= 1.0 && r.width() >= RULE_MIN_LENGTH)
            || (r.width() <= 1.0 && r.height() >= RULE_MIN_LENGTH)
        {
            self.rules.push(r);
        }
    }
}

pub(crate) fn is_rule(r: &Rect) -> bool {
    (r.height() <= RULE_THICKNESS && r.width() >= RULE_MIN_LENGTH)
        || (r.width() <= RULE_THICKNESS && r.height() >= RULE_MIN_LENGTH)
}

/// The image's bytes: `(data, mime, extension, width, height)`, or why it was skipped.
fn encode(
    img: &PdfPageImageObject<'_>,
    document: &PdfDocument<'_>,
    max_pixels: u64,
    fit: Option<&ImageRules>,
) -> Result<(Vec<u8>, &'static str, &'static str, u32, u32), String> {
    let width = img.width().unwrap_or(0).max(0) as u32;
    let height = img.height().unwrap_or(0).max(0) as u32;
    check_pixels(width, height, max_pixels)?;
    let filters: Vec<String> = img.filters().iter().map(|f| f.name().to_string()).collect();
    if filters.len() == 1 && filters[0] == "DCTDecode" {
        if let Ok(raw) = img.get_raw_image_data() {
            if raw.starts_with(&[0xFF, 0xD8]) {
                return Ok((raw, "image/jpeg", "jpg", width, height));
            }
        }
    }
    let bitmap = img
        .get_raw_bitmap()
        .map_err(|_| "its pixels could not be decoded".to_string())?;
    // The raw bitmap is the image's own samples: an image whose shape is in its soft mask
    // (line art drawn as one flat colour with a /SMask, as TeX and many plotting tools write)
    // is a single colour there, solid black mostly. For such an image PDFium's rendered
    // bitmap, which applies the masks, is the picture the page shows (kept with its alpha
    // as PNG), at the image's own pixel size.
    if is_uniform(&bitmap) {
        let rendered = img
            .get_processed_bitmap_with_size(document, bitmap.width(), bitmap.height())
            .ok()
            .and_then(|r| png_from_bitmap(&r, max_pixels, fit).ok());
        if let Some((png, w, h)) = rendered {
            return Ok((png, "image/png", "png", w, h));
        }
    }
    let (png, w, h) = png_from_bitmap(&bitmap, max_pixels, fit)?;
    Ok((png, "image/png", "png", w, h))
}

/// Whether every pixel of a bitmap has the same value (an image that is all one colour).
fn is_uniform(bitmap: &PdfBitmap<'_>) -> bool {
    let w = bitmap.width().max(0) as usize;
    let h = bitmap.height().max(0) as usize;
    let raw = bitmap.as_raw_bytes();
    if w == 0 || h == 0 || raw.is_empty() {
        return false;
    }
    let stride = raw.len() / h;
    let channels = (stride / w).clamp(1, 4);
    let first = &raw[..channels];
    raw.chunks(stride).take(h).all(|row| {
        row[..w * channels]
            .chunks_exact(channels)
            .all(|px| px == first)
    })
}

/// Encodes a PDFium bitmap as PNG (grey stays grey, colour becomes RGB or RGBA), scaled into
/// the `fit` box when it is two or more times too big for it.
pub fn png_from_bitmap(
    bitmap: &PdfBitmap<'_>,
    max_pixels: u64,
    fit: Option<&ImageRules>,
) -> Result<(Vec<u8>, u32, u32), String> {
    encode_bitmap(bitmap, max_pixels, false, fit)
}

/// Encodes a PDFium bitmap as PNG, optionally reduced to grey (rendered pages for OCR, which
/// are never scaled: `fit` is `None`).
pub fn encode_bitmap(
    bitmap: &PdfBitmap<'_>,
    max_pixels: u64,
    gray: bool,
    fit: Option<&ImageRules>,
) -> Result<(Vec<u8>, u32, u32), String> {
    let w = bitmap.width().max(0) as u32;
    let h = bitmap.height().max(0) as u32;
    if w == 0 || h == 0 {
        return Err("it is empty".into());
    }
    check_pixels(w, h, max_pixels)?;
    let raw = bitmap.as_raw_bytes();
    let stride = raw.len() / h as usize;
    let format = bitmap
        .format()
        .map_err(|_| "its pixel format is not one PDFium describes".to_string())?;
    let (channels, mut color) = match format {
        PdfBitmapFormat::Gray => (1, image::ExtendedColorType::L8),
        PdfBitmapFormat::BGR => (3, image::ExtendedColorType::Rgb8),
        PdfBitmapFormat::BGRx => (4, image::ExtendedColorType::Rgb8),
        PdfBitmapFormat::BGRA => (4, image::ExtendedColorType::Rgba8),
    };
    if gray {
        color = image::ExtendedColorType::L8;
    }
    let out_channels = match color {
        image::ExtendedColorType::L8 => 1,
        image::ExtendedColorType::Rgb8 => 3,
        _ => 4,
    };
    if stride < w as usize * channels {
        return Err("its pixel buffer is truncated".into());
    }
    let mut pixels = Vec::with_capacity(w as usize * h as usize * out_channels);
    for row in raw.chunks(stride).take(h as usize) {
        let row = &row[..w as usize * channels];
        if gray && channels >= 3 {
            for px in row.chunks_exact(channels) {
                let luma =
                    (u32::from(px[2]) * 299 + u32::from(px[1]) * 587 + u32::from(px[0]) * 114)
                        / 1000;
                pixels.push(luma as u8);
            }
            continue;
        }
        match format {
            PdfBitmapFormat::Gray => pixels.extend_from_slice(row),
            PdfBitmapFormat::BGR | PdfBitmapFormat::BGRx => {
                for px in row.chunks_exact(channels) {
                    pixels.extend_from_slice(&[px[2], px[1], px[0]]);
                }
            }
            PdfBitmapFormat::BGRA => {
                for px in row.chunks_exact(4) {
                    pixels.extend_from_slice(&[px[2], px[1], px[0], px[3]]);
                }
            }
        }
    }
    encode_pixels(pixels, w, h, color, fit)
}

/// Encodes packed 8-bit pixels (`color` says how many channels: grey, RGB or RGBA) as PNG,
/// scaled into the `fit` box when they are two or more times too big for it.
pub fn encode_pixels(
    pixels: Vec<u8>,
    w: u32,
    h: u32,
    color: image::ExtendedColorType,
    fit: Option<&ImageRules>,
) -> Result<(Vec<u8>, u32, u32), String> {
    let channels = match color {
        image::ExtendedColorType::L8 => 1,
        image::ExtendedColorType::Rgb8 => 3,
        _ => 4,
    };
    let (pixels, w, h) = fit
        .and_then(|r| pixels::shrink_by_areas(&pixels, w, h, channels, r.max_width, r.max_height))
        .unwrap_or((pixels, w, h));
    let mut png = Vec::new();
    image::codecs::png::PngEncoder::new_with_quality(
        &mut png,
        image::codecs::png::CompressionType::Fast,
        image::codecs::png::FilterType::Adaptive,
    )
    .write_image(&pixels, w, h, color)
    .map_err(|e| format!("it could not be encoded as PNG ({e})"))?;
    Ok((png, w, h))
}
