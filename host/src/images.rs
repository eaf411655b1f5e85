//! The image rules, applied once to every image of every document before rendering.
//!
//! - An image larger than `IMAGE_MAX_WIDTH` x `IMAGE_MAX_HEIGHT` is scaled down to fit, aspect
//!   kept; a scaled JPEG is re-encoded at `IMAGE_COMPRESSION_QUALITY`, anything else scaled
//!   becomes PNG.
//! - PNG, JPEG, GIF and BMP that already fit pass through byte for byte (re-encoding would
//!   lose quality and time for nothing).
//! - Other formats the decoder knows (WebP, TIFF, ...) become PNG; formats it does not (EMF,
//!   WMF, JPEG 2000, ...) are kept out of the output and listed as skipped; the words an EMF
//!   or WMF draws become the picture's text (`metafile`).
//! - Decoding is bounded: the pixel count is checked from the header before any pixel buffer
//!   is allocated, and the decoder runs under an allocation limit.
//! - File names are made unique within the document and carry the extension of the bytes
//!   they name, since JSON output keys images by file name.

use image::{DynamicImage, ImageFormat, ImageReader};
use quire_plugin_api::{pixels, Document, Image, ImageRules};
use std::collections::HashSet;
use std::io::Cursor;

/// Applies the image rules to every image in `doc`. `max_pixels` bounds any one decode; at
/// most `max_images` images are kept, later ones are listed as skipped.
pub fn normalize_document(
    doc: &mut Document,
    rules: &ImageRules,
    max_pixels: u64,
    max_images: u32,
) {
    let mut names = HashSet::new();
    let mut kept = 0u32;
    doc.for_each_image_mut(&mut |image| {
        if image.skipped.is_none() {
            if kept >= max_images {
                image.skipped = Some(format!("more than {max_images} images in the document"));
            } else {
                normalize(image, rules, max_pixels);
            }
        }
        if image.skipped.is_none() {
            kept += 1;
        } else {
            image.data = Vec::new();
        }
        image.name = unique_name(&image.name, &image.mime, &mut names);
    });
}

fn format_of(image: &Image) -> Option<ImageFormat> {
    image::guess_format(&image.data)
        .ok()
        .or_else(|| ImageFormat::from_mime_type(&image.mime))
}

/// Applies the rules to one image, setting `skipped` when it cannot be embedded.
pub fn normalize(image: &mut Image, rules: &ImageRules, max_pixels: u64) {
    let Some(format) = format_of(image) else {
        // A metafile's words are kept as the picture's text (see `metafile`).
        if image.ocr_text.is_none() {
            image.ocr_text = crate::metafile::text(&image.data);
        }
        image.skipped = Some(format!(
            "{} images cannot be embedded",
            describe(&image.mime)
        ));
        return;
    };
    let reader = ImageReader::with_format(Cursor::new(image.data.as_slice()), format);
    let Ok((w, h)) = reader.into_dimensions() else {
        image.skipped = Some("the image data is damaged".into());
        return;
    };
    if u64::from(w) * u64::from(h) > max_pixels {
        image.skipped = Some(format!(
            "the image is {w} x {h} pixels, over the limit of {} megapixels",
            max_pixels / 1_000_000
        ));
        return;
    }
    let fits = w <= rules.max_width && h <= rules.max_height;
    let passthrough = matches!(
        format,
        ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::Gif | ImageFormat::Bmp
    );
    image.width = Some(w);
    image.height = Some(h);
    if fits && passthrough {
        image.mime = format.to_mime_type().to_owned();
        return;
    }
    let decoded = match decode(&image.data, format, max_pixels) {
        Ok(d) => d,
        Err(reason) => {
            image.skipped = Some(reason);
            return;
        }
    };
    let decoded = if fits {
        decoded
    } else {
        shrink(&decoded, rules.max_width, rules.max_height)
    };
    let (data, mime) = if format == ImageFormat::Jpeg {
        (encode_jpeg(&decoded, rules.jpeg_quality), "image/jpeg")
    } else {
        (encode_png(&decoded), "image/png")
    };
    match data {
        Some(data) => {
            image.width = Some(decoded.width());
            image.height = Some(decoded.height());
            image.data = data;
            image.mime = mime.to_owned();
        }
        None => image.skipped = Some("the image could not be re-encoded".into()),
    }
}

/// Scales `img` down to fit `max_width` x `max_height`, aspect kept: 8-bit images shrinking by
/// two or more by averaging areas (`pixels::shrink_by_areas`, the rule the PDF plugin applies
/// to raw bitmaps too), everything else with the triangle filter.
fn shrink(img: &DynamicImage, max_width: u32, max_height: u32) -> DynamicImage {
    let (w, h) = (img.width(), img.height());
    let by_areas =
        |raw: &[u8], channels| pixels::shrink_by_areas(raw, w, h, channels, max_width, max_height);
    let shrunk = match img {
        DynamicImage::ImageLuma8(b) => by_areas(b, 1).and_then(|(raw, w, h)| {
            image::GrayImage::from_raw(w, h, raw).map(DynamicImage::ImageLuma8)
        }),
        DynamicImage::ImageLumaA8(b) => by_areas(b, 2).and_then(|(raw, w, h)| {
            image::GrayAlphaImage::from_raw(w, h, raw).map(DynamicImage::ImageLumaA8)
        }),
        DynamicImage::ImageRgb8(b) => by_areas(b, 3).and_then(|(raw, w, h)| {
            image::RgbImage::from_raw(w, h, raw).map(DynamicImage::ImageRgb8)
        }),
        DynamicImage::ImageRgba8(b) => by_areas(b, 4).and_then(|(raw, w, h)| {
            image::RgbaImage::from_raw(w, h, raw).map(DynamicImage::ImageRgba8)
        }),
        _ => None,
    };
    shrunk
        .unwrap_or_else(|| img.resize(max_width, max_height, image::imageops::FilterType::Triangle))
}

fn decode(data: &[u8], format: ImageFormat, max_pixels: u64) -> Result<DynamicImage, String> {
    let mut reader = ImageReader::with_format(Cursor::new(data), format);
    let mut limits = image::Limits::default();
    // 4 bytes a pixel plus room for the decoder's own buffers.
    limits.max_alloc = Some(max_pixels.saturating_mul(8).max(64 << 20));
    reader.limits(limits);
    reader
        .decode()
        .map_err(|e| format!("the image could not be decoded ({e})"))
}

fn encode_png(img: &DynamicImage) -> Option<Vec<u8>> {
    let mut out = Cursor::new(Vec::new());
    let img = match img {
        DynamicImage::ImageRgb32F(_) | DynamicImage::ImageRgba32F(_) => {
            DynamicImage::ImageRgba8(img.to_rgba8())
        }
        _ => img.clone(),
    };
    img.write_to(&mut out, ImageFormat::Png).ok()?;
    Some(out.into_inner())
}

/// Encodes as JPEG at `quality` (1..=100); JPEG has no alpha, so it is dropped.
pub fn encode_jpeg(img: &DynamicImage, quality: u8) -> Option<Vec<u8>> {
    let rgb = img.to_rgb8();
    let mut out = Vec::new();
    let encoder =
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality.clamp(1, 100));
    rgb.write_with_encoder(encoder).ok()?;
    Some(out)
}

fn describe(mime: &str) -> String {
    match mime {
        "image/x-emf" | "image/emf" => "EMF".into(),
        "image/x-wmf" | "image/wmf" => "WMF".into(),
        "image/jp2" | "image/jpx" => "JPEG 2000".into(),
        m => m.strip_prefix("image/").unwrap_or(m).to_ascii_uppercase(),
    }
}

fn extension_for(mime: &str) -> &'static str {
    match mime {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/bmp" => "bmp",
        "image/webp" => "webp",
        "image/tiff" => "tiff",
        "image/x-emf" | "image/emf" => "emf",
        "image/x-wmf" | "image/wmf" => "wmf",
        _ => "bin",
    }
}

/// A file name for the image that is unique in the document and ends with its format's
/// extension; anything path-like is reduced to its last component.
fn unique_name(name: &str, mime: &str, taken: &mut HashSet<String>) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let stem = match base.rfind('.') {
        Some(i) if i > 0 => &base[..i],
        _ => base,
    };
    let stem: String = stem
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_ ".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let stem = if stem.trim().is_empty() {
        "image".to_owned()
    } else {
        stem
    };
    let ext = extension_for(mime);
    let mut candidate = format!("{stem}.{ext}");
    let mut n = 2;
    while !taken.insert(candidate.clone()) {
        candidate = format!("{stem}-{n}.{ext}");
        n += 1;
    }
    candidate
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{Rgb, RgbImage};
    use quire_plugin_api::{Block, DocumentKind, Part};

    fn png(w: u32, h: u32) -> Vec<u8> {
        let img = RgbImage::from_pixel(w, h, Rgb([200, 10, 10]));
        encode_png(&DynamicImage::ImageRgb8(img)).unwrap()
    }

    fn rules() -> ImageRules {
        ImageRules {
            max_width: 100,
            max_height: 50,
            jpeg_quality: 80,
        }
    }

    #[test]
    fn small_png_passes_through_unchanged() {
        let data = png(40, 20);
        let mut img = Image::new("a.png", "image/png", data.clone());
        normalize(&mut img, &rules(), 1_000_000);
        assert_eq!(img.data, data);
        assert_eq!((img.width, img.height), (Some(40), Some(20)));
    }

    #[test]
    fn large_images_are_scaled_keeping_aspect() {
        let mut img = Image::new("a.png", "image/png", png(400, 100));
        normalize(&mut img, &rules(), 1_000_000);
        assert_eq!((img.width, img.height), (Some(100), Some(25)));
        let jpeg = encode_jpeg(&DynamicImage::ImageRgb8(RgbImage::new(300, 300)), 90).unwrap();
        let mut img = Image::new("p.jpg", "image/jpeg", jpeg);
        normalize(&mut img, &rules(), 1_000_000);
        assert_eq!(img.mime, "image/jpeg");
        assert_eq!((img.width, img.height), (Some(50), Some(50)));
    }

    #[test]
    fn shrinking_averages_detail_finer_than_the_new_pixels() {
        // One-pixel stripes, shrunk 4x and 1.5x: every new pixel covers black and white
        // alike and must come out grey, never one of the two (which sampling would give).
        let stripes = image::GrayImage::from_fn(400, 200, |x, _| {
            image::Luma([if x % 2 == 0 { 0 } else { 255 }])
        });
        let img = DynamicImage::ImageLuma8(stripes);
        for (w, h) in [(100, 50), (266, 133)] {
            let small = shrink(&img, w, h).to_luma8();
            assert_eq!((small.width(), small.height()), (w, h));
            let (lo, hi) = small
                .pixels()
                .fold((255u8, 0u8), |(lo, hi), p| (lo.min(p.0[0]), hi.max(p.0[0])));
            assert!(lo >= 60 && hi <= 195, "{w}x{h}: {lo}..{hi}");
        }
        // The aspect ratio is kept as by `resize`.
        let tall = DynamicImage::ImageLuma8(image::GrayImage::new(4960, 7016));
        let small = shrink(&tall, 2048, 2048);
        assert_eq!((small.width(), small.height()), (1448, 2048));
    }

    #[test]
    fn other_formats_become_png_and_unknown_ones_are_skipped() {
        let mut tiff = Cursor::new(Vec::new());
        DynamicImage::ImageRgb8(RgbImage::new(10, 10))
            .write_to(&mut tiff, ImageFormat::Tiff)
            .unwrap();
        let mut img = Image::new("scan.tif", "image/tiff", tiff.into_inner());
        normalize(&mut img, &rules(), 1_000_000);
        assert_eq!(img.mime, "image/png");
        assert!(img.data.starts_with(b"\x89PNG"));
        let mut emf = Image::new("x.emf", "image/x-emf", vec![1, 0, 0, 0, 9, 9]);
        normalize(&mut emf, &rules(), 1_000_000);
        assert_eq!(
            emf.skipped.as_deref(),
            Some("EMF images cannot be embedded")
        );
    }

    #[test]
    fn a_metafile_is_skipped_and_its_words_become_its_text() {
        use crate::metafile::tests::{emf, font, select, text_w};
        let data = emf(&[
            font(1, -20, 0, "Arial"),
            select(1),
            text_w(0, 0, "Revenue", None),
            text_w(0, 40, "1. Europe", None),
        ]);
        let mut img = Image::new("chart.emf", "image/x-emf", data);
        normalize(&mut img, &rules(), 1_000_000);
        assert_eq!(
            img.skipped.as_deref(),
            Some("EMF images cannot be embedded")
        );
        assert_eq!(img.ocr_text.as_deref(), Some("Revenue\n1. Europe"));
        // In Markdown the words are lines of text beside the picture's placeholder.
        let mut doc = Document::new(DocumentKind::Flowing, "Test");
        let mut part = Part::section();
        part.blocks.push(Block::Image(Box::new(img)));
        doc.parts.push(part);
        let md = crate::render::markdown::document(&doc, crate::render::ImageMode::DataUri);
        assert!(md.contains("Revenue\n1\\. Europe"), "{md}");
    }

    #[test]
    fn pixel_limit_is_checked_from_the_header() {
        let mut img = Image::new("big.png", "image/png", png(2000, 1000));
        normalize(&mut img, &rules(), 1_000_000);
        assert!(img.skipped.unwrap().contains("2000 x 1000 pixels"));
    }

    #[test]
    fn names_are_unique_with_matching_extensions() {
        let mut doc = Document::new(DocumentKind::Flowing, "Test");
        let mut part = Part::section();
        for name in ["../x/image.png", "image.png", "image"] {
            part.blocks.push(Block::Image(Box::new(Image::new(
                name,
                "image/png",
                png(2, 2),
            ))));
        }
        doc.parts.push(part);
        normalize_document(&mut doc, &rules(), 1_000_000, 2);
        let names: Vec<_> = doc.images().iter().map(|i| i.name.clone()).collect();
        assert_eq!(names, ["image.png", "image-2.png", "image-3.png"]);
        assert!(doc.images()[2].skipped.is_some());
    }
}
