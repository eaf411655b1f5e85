//! Decoding the input under limits and turning pixels into model tensors.
//!
//! Every network here was trained on OpenCV's BGR channel order, so tensors are built in that
//! order. Crops for the classifier and the recogniser are sampled straight from the full
//! resolution page (bilinear, through the box's affine frame), so a page downscaled for
//! detection loses nothing for recognition.

use image::{DynamicImage, ImageDecoder, ImageReader, RgbImage};
use quire_plugin_api::{Error, Result};
use std::io::Cursor;

/// Largest image (width x height) the provider decodes; the same figure as the host's
/// default `max_image_pixels`, so a decompression bomb fails before it allocates.
pub const MAX_PIXELS: u64 = 50_000_000;
/// Largest single side accepted.
const MAX_SIDE: u32 = 30_000;

/// Decodes `data` to RGB under the pixel limit, honouring EXIF orientation and flattening
/// transparency onto white (text drawn on a transparent background stays readable).
pub fn decode(data: &[u8]) -> Result<RgbImage> {
    let unreadable = |e: image::ImageError| {
        Error::malformed("The image could not be read for OCR; it may be damaged.").with_detail(e)
    };
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_PIXELS * 8);
    let mut reader = ImageReader::new(Cursor::new(data))
        .with_guessed_format()
        .map_err(|e| Error::malformed("The image could not be read for OCR.").with_detail(e))?;
    if reader.format().is_none() {
        return Err(Error::unsupported(
            "The image format is not one OCR can read (PNG, JPEG, GIF, BMP, WebP or TIFF).",
        ));
    }
    reader.limits(limits);
    let mut decoder = reader.into_decoder().map_err(limit_or(unreadable))?;
    let (w, h) = decoder.dimensions();
    if u64::from(w) * u64::from(h) > MAX_PIXELS {
        return Err(Error::limit(format!(
            "The image is {w}x{h} pixels, more than the {} megapixels OCR accepts.",
            MAX_PIXELS / 1_000_000
        )));
    }
    if w == 0 || h == 0 {
        return Err(Error::malformed("The image has no pixels."));
    }
    let orientation = decoder.orientation().ok();
    let mut img = DynamicImage::from_decoder(decoder).map_err(limit_or(unreadable))?;
    if let Some(o) = orientation {
        img.apply_orientation(o);
    }
    Ok(flatten(img))
}

fn limit_or(other: impl Fn(image::ImageError) -> Error) -> impl Fn(image::ImageError) -> Error {
    move |e| match e {
        image::ImageError::Limits(_) => Error::limit(
            "The image is larger than OCR accepts (dimensions or memory needed to decode it).",
        )
        .with_detail(e),
        e => other(e),
    }
}

fn flatten(img: DynamicImage) -> RgbImage {
    if !img.color().has_alpha() {
        return img.into_rgb8();
    }
    let rgba = img.into_rgba8();
    let (w, h) = rgba.dimensions();
    let mut out = RgbImage::new(w, h);
    for (dst, src) in out.pixels_mut().zip(rgba.pixels()) {
        let a = u32::from(src[3]);
        for c in 0..3 {
            dst[c] = ((u32::from(src[c]) * a + 255 * (255 - a) + 127) / 255) as u8;
        }
    }
    out
}

/// The page resized for the detector (longest side at most `max_side`, both sides multiples
/// of 32) as a `[1, 3, H, W]` BGR tensor normalised with ImageNet mean and deviation, plus
/// the scale factors from detector pixels back to page pixels.
pub fn det_tensor(img: &RgbImage, max_side: u32) -> (Vec<f32>, [usize; 2], [f32; 2]) {
    let (w, h) = img.dimensions();
    let scale = (max_side as f32 / w.max(h) as f32).min(1.0);
    let round32 = |v: f32| (((v / 32.0).round() as u32).max(1) * 32) as usize;
    let tw = round32(w as f32 * scale);
    let th = round32(h as f32 * scale);
    let resized = image::imageops::resize(
        img,
        tw as u32,
        th as u32,
        image::imageops::FilterType::Triangle,
    );
    const MEAN: [f32; 3] = [0.485, 0.456, 0.406];
    const STD: [f32; 3] = [0.229, 0.224, 0.225];
    let plane = tw * th;
    let mut data = vec![0f32; 3 * plane];
    for (i, p) in resized.pixels().enumerate() {
        // BGR: channel 0 is blue.
        for c in 0..3 {
            let v = f32::from(p[2 - c]) / 255.0;
            data[c * plane + i] = (v - MEAN[c]) / STD[c];
        }
    }
    (data, [th, tw], [w as f32 / tw as f32, h as f32 / th as f32])
}

/// A text box on the page: corners clockwise from the reading start (top-left of the text).
pub type Quad = [[f32; 2]; 4];

/// Samples the quad's interior into a `height`-row strip whose width follows the quad's
/// aspect (at least 1, at most `max_width`). Returns RGB bytes, row-major, and the width.
pub fn crop(img: &RgbImage, quad: &Quad, height: usize, max_width: usize) -> (Vec<u8>, usize) {
    let dist = |a: [f32; 2], b: [f32; 2]| ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt();
    let qw = dist(quad[0], quad[1]).max(dist(quad[3], quad[2])).max(1.0);
    let qh = dist(quad[0], quad[3]).max(dist(quad[1], quad[2])).max(1.0);
    let width = ((height as f32 * qw / qh).ceil() as usize).clamp(1, max_width.max(1));
    let mut out = vec![0u8; width * height * 3];
    let [p0, p1, _, p3] = *quad;
    let ux = [
        (p1[0] - p0[0]) / width as f32,
        (p1[1] - p0[1]) / width as f32,
    ];
    let vy = [
        (p3[0] - p0[0]) / height as f32,
        (p3[1] - p0[1]) / height as f32,
    ];
    // When shrinking a lot, average a few samples per output pixel so thin strokes survive.
    let step = (qh / height as f32).max(qw / width as f32);
    let n = (step.ceil() as usize).clamp(1, 4);
    for y in 0..height {
        for x in 0..width {
            let mut acc = [0f32; 3];
            for sy in 0..n {
                for sx in 0..n {
                    let fx = x as f32 + (sx as f32 + 0.5) / n as f32;
                    let fy = y as f32 + (sy as f32 + 0.5) / n as f32;
                    let px = p0[0] + ux[0] * fx + vy[0] * fy;
                    let py = p0[1] + ux[1] * fx + vy[1] * fy;
                    let s = bilinear(img, px - 0.5, py - 0.5);
                    for c in 0..3 {
                        acc[c] += s[c];
                    }
                }
            }
            let o = (y * width + x) * 3;
            for c in 0..3 {
                out[o + c] = (acc[c] / (n * n) as f32).round().clamp(0.0, 255.0) as u8;
            }
        }
    }
    (out, width)
}

fn bilinear(img: &RgbImage, x: f32, y: f32) -> [f32; 3] {
    let (w, h) = img.dimensions();
    let x = x.clamp(0.0, (w - 1) as f32);
    let y = y.clamp(0.0, (h - 1) as f32);
    let x0 = x.floor() as u32;
    let y0 = y.floor() as u32;
    let x1 = (x0 + 1).min(w - 1);
    let y1 = (y0 + 1).min(h - 1);
    let (ax, ay) = (x - x0 as f32, y - y0 as f32);
    let p = |xx, yy| img.get_pixel(xx, yy).0;
    let (a, b, c, d) = (p(x0, y0), p(x1, y0), p(x0, y1), p(x1, y1));
    let mut out = [0f32; 3];
    for i in 0..3 {
        let top = f32::from(a[i]) * (1.0 - ax) + f32::from(b[i]) * ax;
        let bottom = f32::from(c[i]) * (1.0 - ax) + f32::from(d[i]) * ax;
        out[i] = top * (1.0 - ay) + bottom * ay;
    }
    out
}

/// Writes RGB strips into a `[n, 3, height, width]` BGR batch normalised to [-1, 1], each strip
/// left-aligned and padded with zeros (mid grey), as PaddleOCR's recogniser expects.
pub fn strip_batch(strips: &[(&[u8], usize)], height: usize, width: usize) -> Vec<f32> {
    let plane = height * width;
    let mut data = vec![0f32; strips.len() * 3 * plane];
    for (n, &(pixels, stride)) in strips.iter().enumerate() {
        let w = stride.min(width);
        let base = n * 3 * plane;
        for y in 0..height {
            for x in 0..w {
                let src = (y * stride + x) * 3;
                for c in 0..3 {
                    let v = f32::from(pixels[src + 2 - c]) / 255.0;
                    data[base + c * plane + y * width + x] = (v - 0.5) / 0.5;
                }
            }
        }
    }
    data
}
