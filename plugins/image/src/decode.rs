//! Reading pictures under limits: the header first, then a bounded decode.
//!
//! The pixel count is checked from the header before any pixel buffer exists, so a 100,000 x
//! 100,000 PNG that is 100 bytes on disk is refused in microseconds. The decoder is then given
//! `image::Limits` (per-side and allocation caps) as a second fence for formats whose header and
//! data disagree (GIF frames larger than the logical screen, TIFF strips, WebP chunks).

use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader, Limits as DecodeLimits};
use quire_plugin_api::{Error, Result};
use std::io::Cursor;

/// Bytes per pixel of the widest colour type a decoder may produce (RGBA, 32-bit float).
const WIDEST_PIXEL: u64 = 16;
/// Decoder bookkeeping beyond the output buffer (palettes, line buffers, zlib windows).
const DECODER_SLACK: u64 = 64 << 20;

/// What the header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub format: ImageFormat,
    pub width: u32,
    pub height: u32,
}

/// A decoded frame, already turned upright by its EXIF/TIFF orientation.
pub struct Frame {
    pub image: DynamicImage,
    /// Whether an orientation other than "as stored" was applied (the original bytes would
    /// then show the picture sideways, so they cannot be embedded as they are).
    pub reoriented: bool,
    /// Raw EXIF (TIFF structure) and XMP packets, when the file has them.
    pub exif: Option<Vec<u8>>,
    pub xmp: Option<Vec<u8>>,
}

/// The short format name used in `ImageSummary.format`.
pub fn format_name(format: ImageFormat) -> &'static str {
    match format {
        ImageFormat::Png => "png",
        ImageFormat::Jpeg => "jpeg",
        ImageFormat::Gif => "gif",
        ImageFormat::Bmp => "bmp",
        ImageFormat::WebP => "webp",
        ImageFormat::Tiff => "tiff",
        other => other.extensions_str().first().copied().unwrap_or("unknown"),
    }
}

/// Finds the format from the content (the magic bytes), falling back to the detected MIME type.
pub fn guess_format(bytes: &[u8], mime: &str) -> Result<ImageFormat> {
    let from_content = image::guess_format(bytes).ok();
    let format = from_content
        .or_else(|| ImageFormat::from_mime_type(mime))
        .ok_or_else(|| Error::unsupported("The file is not an image format quire can read."))?;
    match format {
        ImageFormat::Png
        | ImageFormat::Jpeg
        | ImageFormat::Gif
        | ImageFormat::Bmp
        | ImageFormat::WebP
        | ImageFormat::Tiff => Ok(format),
        other => Err(Error::unsupported(format!(
            "{} images are not supported; quire reads PNG, JPEG, GIF, BMP, WebP and TIFF.",
            format_name(other).to_uppercase()
        ))),
    }
}

fn reader(bytes: &[u8], format: ImageFormat) -> ImageReader<Cursor<&[u8]>> {
    let mut reader = ImageReader::new(Cursor::new(bytes));
    reader.set_format(format);
    reader
}

/// Reads the dimensions from the header only.
pub fn read_header(bytes: &[u8], format: ImageFormat) -> Result<Header> {
    let mut r = reader(bytes, format);
    // Header parsing allocates little, but keep a cap so a hostile TIFF directory cannot.
    r.limits(header_limits());
    let (width, height) = r.into_dimensions().map_err(|e| {
        Error::malformed(format!(
            "The {} image is damaged: its header could not be read.",
            format_name(format).to_uppercase()
        ))
        .with_detail(e)
    })?;
    if width == 0 || height == 0 {
        return Err(Error::malformed(
            "The image has no pixels (width or height is 0).",
        ));
    }
    Ok(Header {
        format,
        width,
        height,
    })
}

fn header_limits() -> DecodeLimits {
    let mut limits = DecodeLimits::default();
    limits.max_alloc = Some(DECODER_SLACK);
    limits
}

/// Refuses an image whose pixel count exceeds `max_pixels`, before anything is decoded.
pub fn check_pixels(width: u32, height: u32, max_pixels: u64) -> Result<()> {
    let pixels = u64::from(width) * u64::from(height);
    if pixels > max_pixels {
        return Err(Error::limit(format!(
            "The image is {width} x {height} pixels ({} megapixels), over the limit of {} megapixels.",
            megapixels(pixels),
            megapixels(max_pixels)
        )));
    }
    Ok(())
}

/// Megapixels for people: whole numbers from 10 up, one decimal below.
fn megapixels(pixels: u64) -> String {
    let mp = pixels as f64 / 1_000_000.0;
    if mp >= 10.0 || (mp.fract() == 0.0) {
        format!("{mp:.0}")
    } else {
        let s = format!("{mp:.1}");
        if s == "0.0" {
            "0.1".into()
        } else {
            s
        }
    }
}

/// The decoder caps for an image allowed up to `max_pixels`.
pub fn decode_limits(max_pixels: u64) -> DecodeLimits {
    let side = u32::try_from(max_pixels).unwrap_or(u32::MAX);
    let mut limits = DecodeLimits::default();
    limits.max_image_width = Some(side);
    limits.max_image_height = Some(side);
    limits.max_alloc = Some(
        max_pixels
            .saturating_mul(WIDEST_PIXEL)
            .saturating_add(DECODER_SLACK),
    );
    limits
}

/// Decodes the first frame and turns it upright. The caller has checked the header already.
pub fn decode(bytes: &[u8], format: ImageFormat, max_pixels: u64) -> Result<Frame> {
    let mut r = reader(bytes, format);
    r.limits(decode_limits(max_pixels));
    let describe = |e: image::ImageError| decode_error(format, e);
    let mut decoder = r.into_decoder().map_err(describe)?;
    let orientation = decoder
        .orientation()
        .unwrap_or(image::metadata::Orientation::NoTransforms);
    // Metadata is optional: a damaged EXIF or XMP block never fails the picture.
    let exif = decoder.exif_metadata().ok().flatten();
    let xmp = decoder.xmp_metadata().ok().flatten();
    let mut image = DynamicImage::from_decoder(decoder).map_err(describe)?;
    let reoriented = orientation != image::metadata::Orientation::NoTransforms;
    image.apply_orientation(orientation);
    Ok(Frame {
        image,
        reoriented,
        exif,
        xmp,
    })
}

/// The user-facing error for a failed decode.
pub fn decode_error(format: ImageFormat, e: image::ImageError) -> Error {
    let name = format_name(format).to_uppercase();
    match e {
        image::ImageError::Limits(_) => Error::limit(format!(
            "The {name} image needs more memory to decode than the configured limits allow."
        ))
        .with_detail(e),
        image::ImageError::Unsupported(_) => Error::unsupported(format!(
            "The {name} image uses a feature quire cannot decode."
        ))
        .with_detail(e),
        _ => Error::malformed(format!(
            "The {name} image is damaged and could not be decoded."
        ))
        .with_detail(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn megapixel_wording() {
        let e = check_pixels(12_000, 9_000, 50_000_000).unwrap_err();
        assert_eq!(
            e.message(),
            "The image is 12000 x 9000 pixels (108 megapixels), over the limit of 50 megapixels."
        );
        assert_eq!(megapixels(2_500_000), "2.5");
        assert_eq!(megapixels(1_000_000), "1");
        assert_eq!(megapixels(10), "0.1");
        assert!(check_pixels(100, 100, 10_000).is_ok());
    }
}
