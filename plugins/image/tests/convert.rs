//! The image converter on pictures generated here: orientation, frames, pages, OCR, limits.

use image::codecs::gif::GifEncoder;
use image::{DynamicImage, Frame, ImageFormat, Rgb, RgbImage, Rgba, RgbaImage};
use quire_plugin_api::{
    Block, Context, Converter, DocumentKind, ErrorKind, ImageRules, Input, Limits, OcrImage,
    OcrOutput, OcrProvider, PartKind, Result,
};
use quire_plugin_image::ImageConverter;
use std::io::Cursor;
use std::sync::Mutex;

fn converter() -> ImageConverter {
    ImageConverter::new(ImageRules::default())
}

fn convert(bytes: &[u8], mime: &str, ctx: &mut Context<'_>) -> Result<quire_plugin_api::Document> {
    let input = Input {
        bytes,
        file_name: "test",
        mime,
    };
    converter().convert(&input, ctx)
}

fn encode(image: &DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    image.write_to(&mut out, format).unwrap();
    out.into_inner()
}

/// Left half red, right half blue: the orientation is visible in the decoded pixels.
fn two_tone(w: u32, h: u32) -> DynamicImage {
    DynamicImage::ImageRgb8(RgbImage::from_fn(w, h, |x, _| {
        if x < w / 2 {
            Rgb([255, 0, 0])
        } else {
            Rgb([0, 0, 255])
        }
    }))
}

/// An APP1 segment holding an EXIF block with one Orientation tag, built byte by byte.
fn exif_app1(orientation: u16) -> Vec<u8> {
    let mut tiff = b"MM\0\x2a\0\0\0\x08".to_vec();
    tiff.extend_from_slice(&1u16.to_be_bytes()); // one entry
    tiff.extend_from_slice(&0x0112u16.to_be_bytes()); // Orientation
    tiff.extend_from_slice(&3u16.to_be_bytes()); // SHORT
    tiff.extend_from_slice(&1u32.to_be_bytes()); // count
    tiff.extend_from_slice(&orientation.to_be_bytes());
    tiff.extend_from_slice(&[0, 0]);
    tiff.extend_from_slice(&0u32.to_be_bytes()); // no next IFD
    let mut payload = b"Exif\0\0".to_vec();
    payload.extend_from_slice(&tiff);
    let mut seg = vec![0xFF, 0xE1];
    seg.extend_from_slice(&((payload.len() + 2) as u16).to_be_bytes());
    seg.extend_from_slice(&payload);
    seg
}

fn image_of(doc: &quire_plugin_api::Document, part: usize) -> &quire_plugin_api::Image {
    match &doc.parts[part].blocks[0] {
        Block::Image(img) => img,
        other => panic!("expected an image block, got {other:?}"),
    }
}

#[test]
fn png_is_embedded_as_it_is() {
    let bytes = encode(&two_tone(30, 20), ImageFormat::Png);
    let doc = convert(&bytes, "image/png", &mut Context::new()).unwrap();
    assert_eq!(doc.kind, DocumentKind::Image);
    assert_eq!(doc.type_label, "Image");
    let summary = doc.image.as_ref().unwrap();
    assert_eq!((summary.width, summary.height, summary.frames), (30, 20, 1));
    assert_eq!(summary.format, "png");
    assert_eq!(summary.ocr_text, None);
    assert_eq!(doc.parts.len(), 1);
    let img = image_of(&doc, 0);
    assert_eq!(img.mime, "image/png");
    assert_eq!(img.data, bytes);
}

#[test]
fn jpeg_exif_orientation_is_applied() {
    let jpeg = encode(&two_tone(40, 20), ImageFormat::Jpeg);
    let mut bytes = jpeg[..2].to_vec();
    bytes.extend_from_slice(&exif_app1(6)); // rotate 90° clockwise to display
    bytes.extend_from_slice(&jpeg[2..]);
    let doc = convert(&bytes, "image/jpeg", &mut Context::new()).unwrap();
    let summary = doc.image.as_ref().unwrap();
    assert_eq!((summary.width, summary.height), (20, 40));
    let img = image_of(&doc, 0);
    assert_eq!(img.mime, "image/jpeg");
    assert_ne!(img.data, bytes, "a rotated frame is re-encoded");
    let shown = image::load_from_memory(&img.data).unwrap().to_rgb8();
    assert_eq!(shown.dimensions(), (20, 40));
    // The stored left (red) half is on top once turned clockwise.
    assert!(shown.get_pixel(10, 5)[0] > 200 && shown.get_pixel(10, 35)[2] > 200);
}

fn multipage_tiff(sizes: &[(u32, u32)]) -> Vec<u8> {
    use tiff::encoder::{colortype, TiffEncoder};
    let mut out = Cursor::new(Vec::new());
    let mut enc = TiffEncoder::new(&mut out).unwrap();
    for (i, &(w, h)) in sizes.iter().enumerate() {
        let data: Vec<u8> = (0..w * h)
            .map(|p| ((p as usize * 7 + i * 50) % 256) as u8)
            .collect();
        enc.write_image::<colortype::Gray8>(w, h, &data).unwrap();
    }
    out.into_inner()
}

#[test]
fn multipage_tiff_gives_one_page_per_frame() {
    let bytes = multipage_tiff(&[(30, 20), (10, 40), (25, 25)]);
    let doc = convert(&bytes, "image/tiff", &mut Context::new()).unwrap();
    let summary = doc.image.as_ref().unwrap();
    assert_eq!((summary.width, summary.height, summary.frames), (30, 20, 3));
    assert_eq!(summary.format, "tiff");
    assert_eq!(doc.parts.len(), 3);
    for (i, (w, h)) in [(30, 20), (10, 40), (25, 25)].into_iter().enumerate() {
        assert_eq!(doc.parts[i].kind, PartKind::Page);
        assert_eq!(doc.parts[i].number, i as u32 + 1);
        let img = image_of(&doc, i);
        assert_eq!(img.mime, "image/png");
        let back = image::load_from_memory(&img.data).unwrap();
        assert_eq!((back.width(), back.height()), (w, h));
    }
}

#[test]
fn tiff_pages_are_capped_by_max_parts() {
    let bytes = multipage_tiff(&[(8, 8), (8, 8), (8, 8)]);
    let limits = Limits {
        max_parts: 2,
        ..Limits::default()
    };
    let mut ctx = Context::new().with_limits(limits);
    let doc = convert(&bytes, "image/tiff", &mut ctx).unwrap();
    assert_eq!(doc.parts.len(), 2);
    assert!(ctx.warnings()[0].contains("more than 2 pages"));
}

#[test]
fn animated_gif_keeps_the_first_frame() {
    let mut bytes = Vec::new();
    {
        let mut enc = GifEncoder::new(&mut bytes);
        let frames = [
            Rgba([255, 0, 0, 255]),
            Rgba([0, 255, 0, 255]),
            Rgba([0, 0, 255, 255]),
        ]
        .into_iter()
        .map(|c| Frame::new(RgbaImage::from_pixel(16, 12, c)));
        enc.encode_frames(frames).unwrap();
    }
    let doc = convert(&bytes, "image/gif", &mut Context::new()).unwrap();
    let summary = doc.image.as_ref().unwrap();
    assert_eq!((summary.width, summary.height, summary.frames), (16, 12, 3));
    assert_eq!(doc.parts.len(), 1);
    let img = image_of(&doc, 0);
    assert_eq!(img.mime, "image/png");
    let first = image::load_from_memory(&img.data).unwrap().to_rgb8();
    assert_eq!(first.get_pixel(3, 3), &Rgb([255, 0, 0]));
}

#[test]
fn webp_and_bmp_convert() {
    let bmp = encode(&two_tone(9, 7), ImageFormat::Bmp);
    let doc = convert(&bmp, "image/bmp", &mut Context::new()).unwrap();
    assert_eq!(doc.image.as_ref().unwrap().format, "bmp");
    assert_eq!(image_of(&doc, 0).data, bmp);
    let webp = encode(
        &DynamicImage::ImageRgba8(two_tone(9, 7).to_rgba8()),
        ImageFormat::WebP,
    );
    let doc = convert(&webp, "image/webp", &mut Context::new()).unwrap();
    assert_eq!(doc.image.as_ref().unwrap().format, "webp");
    assert_eq!(image_of(&doc, 0).mime, "image/webp");
}

/// Records what it was asked and answers a fixed text.
struct FakeOcr(Mutex<Vec<(String, usize)>>);

impl OcrProvider for FakeOcr {
    fn recognize(&self, image: &OcrImage<'_>) -> Result<OcrOutput> {
        let decoded = image::load_from_memory(image.data).unwrap();
        let mut seen = self.0.lock().unwrap();
        seen.push((image.mime.to_owned(), decoded.width() as usize));
        Ok(OcrOutput {
            text: format!("Page {}\nsecond line\n\nnext paragraph", seen.len()),
            confidence: Some(0.9),
        })
    }
}

#[test]
fn ocr_text_goes_into_the_image_and_below_it() {
    let fake = FakeOcr(Mutex::new(Vec::new()));
    let bytes = multipage_tiff(&[(30, 20), (10, 40)]);
    let mut ctx = Context::new().with_ocr("provider_one", &fake);
    let doc = convert(&bytes, "image/tiff", &mut ctx).unwrap();
    assert_eq!(ctx.ocr_image_count(), 2);
    let summary = doc.image.as_ref().unwrap();
    assert_eq!(summary.ocr_provider.as_deref(), Some("provider_one"));
    assert!(summary.ocr_text.as_deref().unwrap().contains("Page 2"));
    let img = image_of(&doc, 1);
    assert!(img.ocr_text.as_deref().unwrap().starts_with("Page 2"));
    assert_eq!(
        doc.parts[1].blocks.len(),
        1,
        "the renderer prints ocr_text below the image"
    );
    let seen = fake.0.lock().unwrap();
    assert_eq!(seen[1], ("image/png".to_owned(), 10));
}

#[test]
fn png_goes_to_ocr_unchanged() {
    let fake = FakeOcr(Mutex::new(Vec::new()));
    let bytes = encode(&two_tone(30, 20), ImageFormat::Png);
    let mut ctx = Context::new().with_ocr("provider_two", &fake);
    convert(&bytes, "image/png", &mut ctx).unwrap();
    assert_eq!(fake.0.lock().unwrap()[0], ("image/png".to_owned(), 30));
}

#[test]
fn over_the_pixel_limit_is_refused_from_the_header() {
    let bytes = encode(&two_tone(300, 200), ImageFormat::Png);
    let limits = Limits {
        max_image_pixels: 50_000,
        ..Limits::default()
    };
    let err = convert(&bytes, "image/png", &mut Context::new().with_limits(limits)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded);
    assert_eq!(
        err.message(),
        "The image is 300 x 200 pixels (0.1 megapixels), over the limit of 0.1 megapixels."
    );
}

#[test]
fn garbage_is_a_clear_error_not_a_panic() {
    let err = convert(
        b"\x89PNG\r\n\x1a\nnot really",
        "image/png",
        &mut Context::new(),
    )
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Malformed);
    let err = convert(b"hello", "image/webp", &mut Context::new()).unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::Malformed | ErrorKind::Unsupported
    ));
    // Truncated body after a valid header.
    let png = encode(&two_tone(64, 64), ImageFormat::Png);
    let err = convert(&png[..png.len() / 2], "image/png", &mut Context::new()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Malformed, "{err:?}");
}
