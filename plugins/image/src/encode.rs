//! Re-encoding a decoded frame, only when the original bytes cannot be embedded as they are
//! (a frame turned upright, the first frame of an animation, a page of a multi-page TIFF).
//!
//! The host normalises every embedded image anyway; encoding here at most the configured
//! output size keeps the hand-over small and the host's scaling a no-op.

use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::{CompressionType, FilterType as PngFilter, PngEncoder};
use image::imageops::FilterType;
use image::{DynamicImage, ImageEncoder};
use quire_plugin_api::{Error, ImageRules, Result};

/// Encoded bytes and their MIME type.
pub struct Encoded {
    pub data: Vec<u8>,
    pub mime: &'static str,
}

/// The frame scaled down (never up) to fit the configured box, keeping the aspect ratio.
fn fit(image: &DynamicImage, rules: &ImageRules) -> Option<DynamicImage> {
    let (w, h) = (image.width(), image.height());
    if w <= rules.max_width && h <= rules.max_height {
        return None;
    }
    Some(image.resize(
        rules.max_width.max(1),
        rules.max_height.max(1),
        FilterType::Triangle,
    ))
}

/// Eight bits per channel, alpha kept only when the frame has it.
fn to_8bit(image: &DynamicImage) -> DynamicImage {
    match image {
        DynamicImage::ImageLuma8(_) | DynamicImage::ImageRgb8(_) | DynamicImage::ImageRgba8(_) => {
            image.clone()
        }
        DynamicImage::ImageLumaA8(_) => DynamicImage::ImageRgba8(image.to_rgba8()),
        DynamicImage::ImageLuma16(_) => DynamicImage::ImageLuma8(image.to_luma8()),
        other if other.color().has_alpha() => DynamicImage::ImageRgba8(other.to_rgba8()),
        other => DynamicImage::ImageRgb8(other.to_rgb8()),
    }
}

/// PNG at full resolution (for OCR, which wants every pixel).
pub fn png_full(image: &DynamicImage) -> Result<Encoded> {
    png(&to_8bit(image))
}

/// A frame for embedding: JPEG at the configured quality when the source was a photo (JPEG),
/// PNG otherwise; scaled to fit the configured box.
pub fn for_embedding(image: &DynamicImage, as_jpeg: bool, rules: &ImageRules) -> Result<Encoded> {
    let scaled = fit(image, rules);
    let frame = to_8bit(scaled.as_ref().unwrap_or(image));
    if as_jpeg {
        let rgb = match &frame {
            DynamicImage::ImageLuma8(_) => frame.clone(),
            other => DynamicImage::ImageRgb8(other.to_rgb8()),
        };
        let mut data = Vec::new();
        JpegEncoder::new_with_quality(&mut data, rules.jpeg_quality.clamp(1, 100))
            .encode_image(&rgb)
            .map_err(encode_error)?;
        return Ok(Encoded {
            data,
            mime: "image/jpeg",
        });
    }
    png(&frame)
}

fn png(image: &DynamicImage) -> Result<Encoded> {
    let mut data = Vec::new();
    PngEncoder::new_with_quality(&mut data, CompressionType::Fast, PngFilter::Adaptive)
        .write_image(
            image.as_bytes(),
            image.width(),
            image.height(),
            image.color().into(),
        )
        .map_err(encode_error)?;
    Ok(Encoded {
        data,
        mime: "image/png",
    })
}

fn encode_error(e: image::ImageError) -> Error {
    Error::internal("An image frame could not be re-encoded.").with_detail(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_to_fit_and_keeps_aspect() {
        let img = DynamicImage::new_rgb8(4000, 1000);
        let rules = ImageRules {
            max_width: 2000,
            max_height: 2000,
            jpeg_quality: 80,
        };
        let out = for_embedding(&img, true, &rules).unwrap();
        assert_eq!(out.mime, "image/jpeg");
        let back = image::load_from_memory(&out.data).unwrap();
        assert_eq!((back.width(), back.height()), (2000, 500));
        let out = for_embedding(&DynamicImage::new_luma16(10, 10), false, &rules).unwrap();
        assert_eq!(out.mime, "image/png");
    }
}
