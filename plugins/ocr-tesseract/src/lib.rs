//! provider_one: Tesseract OCR through the system libtesseract (Debian packages).
//!
//! Binding: libtesseract's C API loaded with `dlopen` on first use (see [`capi`]): linking it
//! made every `quire` process map ~57 shared libraries at start-up, OCR or not. (Before
//! 2026-11-25 the `tesseract` crate linked it through bindgen; `tesseract-rs` downloads
//! Tesseract sources in its default build and fails without network.) See [`engine`] for the
//! thread model, the OpenMP set-up and how a page's orientation is decided.
//!
//! Input images are decoded here with the `image` crate under a pixel cap, turned upright by
//! their EXIF orientation, flattened onto white (text drawn on a transparent background would
//! otherwise vanish into black) and handed to Tesseract as 8-bit gray pixels.

mod capi;
mod engine;
mod lang;

use engine::{EngineKey, GrayPage};
use image::{DynamicImage, ImageDecoder, ImageReader, Limits as DecodeLimits};
use quire_plugin_api::{
    register_ocr_provider, Error, Limits, OcrImage, OcrOutput, OcrProvider, OcrProviderDescriptor,
    PluginConfig, Readiness, Result,
};
use std::io::Cursor;

pub const DESCRIPTOR: OcrProviderDescriptor = OcrProviderDescriptor {
    id: "provider_one",
    name: "Tesseract",
    crate_name: env!("CARGO_PKG_NAME"),
    readiness,
    factory,
};

register_ocr_provider!(DESCRIPTOR);

/// Ready when libtesseract loads (it is loaded here on the first readiness check, not at
/// process start) and the language data for every configured language is installed; the
/// library's version is reported.
fn readiness(config: &PluginConfig) -> Readiness {
    let key = match resolve(config) {
        Ok(key) => key,
        Err(e) => return Readiness::not_ready(e.message().to_owned()),
    };
    match capi::api() {
        Ok(api) => Readiness::ready(format!(
            "Tesseract {} with {} from {}",
            api.version(),
            key.languages,
            key.datapath.display()
        )),
        Err(reason) => Readiness::not_ready(reason),
    }
}

fn factory(config: &PluginConfig) -> Result<Box<dyn OcrProvider>> {
    Ok(Box::new(TesseractProvider::new(config)?))
}

/// The engine settings for a configuration, or why Tesseract cannot serve it.
fn resolve(config: &PluginConfig) -> Result<EngineKey> {
    let languages = lang::tesseract_languages(&config.ocr.language).map_err(Error::internal)?;
    let datapath = lang::find_tessdata(&languages).map_err(|missing| {
        Error::internal(format!(
            "Tesseract language data '{missing}' is not installed (apt-get install {}); installed: {}.",
            lang::debian_package(&missing),
            lang::installed_list()
        ))
    })?;
    let osd = lang::has_osd(&datapath);
    Ok(EngineKey {
        datapath,
        languages: languages.join("+"),
        osd,
    })
}

/// Tesseract as an [`OcrProvider`]. Cheap to share: engines live per thread (see [`engine`]).
pub struct TesseractProvider {
    key: EngineKey,
    max_pixels: u64,
}

impl TesseractProvider {
    /// A provider for a configuration; fails when the language data or the library is
    /// missing.
    pub fn new(config: &PluginConfig) -> Result<Self> {
        capi::api().map_err(|reason| {
            Error::internal("Tesseract is not installed on this server.").with_detail(reason)
        })?;
        Ok(TesseractProvider {
            key: resolve(config)?,
            max_pixels: Limits::default().max_image_pixels,
        })
    }
}

impl OcrProvider for TesseractProvider {
    fn recognize(&self, image: &OcrImage<'_>) -> Result<OcrOutput> {
        let gray = decode_gray(image.data, self.max_pixels)?;
        let page = GrayPage {
            pixels: gray.as_raw(),
            width: gray.width(),
            height: gray.height(),
            dpi: image.dpi,
        };
        let out = engine::recognize(&self.key, &page).map_err(|detail| {
            Error::internal("Tesseract could not read the image.").with_detail(detail)
        })?;
        Ok(OcrOutput {
            text: tidy(&out.text),
            confidence: (out.confidence >= 0).then(|| out.confidence.min(100) as f32 / 100.0),
        })
    }

    /// Pages that do not read as upright text go through orientation detection and are read
    /// again turned upright (when `osd.traineddata` is installed; see `engine.rs`).
    fn reads_any_orientation(&self) -> bool {
        self.key.osd
    }
}

/// Decodes an image to upright 8-bit gray on a white background, refusing more than
/// `max_pixels` before any pixel buffer is allocated.
pub fn decode_gray(data: &[u8], max_pixels: u64) -> Result<image::GrayImage> {
    let unreadable = |e: image::ImageError| {
        Error::malformed("The image given to OCR could not be decoded.").with_detail(e)
    };
    let reader = || -> Result<ImageReader<Cursor<&[u8]>>> {
        ImageReader::new(Cursor::new(data))
            .with_guessed_format()
            .map_err(|e| {
                Error::malformed("The image given to OCR could not be read.").with_detail(e)
            })
    };
    let (w, h) = reader()?.into_dimensions().map_err(unreadable)?;
    if u64::from(w) * u64::from(h) > max_pixels {
        return Err(Error::limit(format!(
            "The image is {w} x {h} pixels, too large for OCR (limit {} megapixels).",
            max_pixels / 1_000_000
        )));
    }
    let mut r = reader()?;
    let mut limits = DecodeLimits::default();
    limits.max_alloc = Some(max_pixels.saturating_mul(16).saturating_add(64 << 20));
    r.limits(limits);
    let mut decoder = r.into_decoder().map_err(unreadable)?;
    let orientation = decoder
        .orientation()
        .unwrap_or(image::metadata::Orientation::NoTransforms);
    let mut img = DynamicImage::from_decoder(decoder).map_err(unreadable)?;
    img.apply_orientation(orientation);
    Ok(flatten_to_gray(img))
}

fn flatten_to_gray(img: DynamicImage) -> image::GrayImage {
    if !img.color().has_alpha() {
        return img.into_luma8();
    }
    let rgba = img.into_rgba8();
    let (w, h) = rgba.dimensions();
    let mut gray = image::GrayImage::new(w, h);
    for (out, px) in gray.pixels_mut().zip(rgba.pixels()) {
        let [r, g, b, a] = px.0;
        let luma = (u32::from(r) * 299 + u32::from(g) * 587 + u32::from(b) * 114) / 1000;
        let a = u32::from(a);
        out.0[0] = ((luma * a + 255 * (255 - a)) / 255) as u8;
    }
    gray
}

/// Tesseract's text without the trailing form feed and with lines trimmed on the right.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text
        .trim_matches(|c: char| c == '\u{c}' || c.is_whitespace())
        .lines()
    {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    // Collapse runs of blank lines to one (paragraph separator).
    let mut result = String::with_capacity(out.len());
    let mut blank = 0;
    for line in out.lines() {
        if line.is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        result.push_str(line);
        result.push('\n');
    }
    result.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tidies_tesseract_output() {
        assert_eq!(tidy("a  \nb\n\n\n\nc\n\u{c}"), "a\nb\n\nc");
    }

    #[test]
    fn transparent_background_becomes_white() {
        let img = DynamicImage::ImageRgba8(image::RgbaImage::from_pixel(
            2,
            2,
            image::Rgba([0, 0, 0, 0]),
        ));
        assert_eq!(flatten_to_gray(img).get_pixel(0, 0).0[0], 255);
    }

    #[test]
    fn missing_language_is_reported_with_the_package() {
        let mut config = PluginConfig::default();
        config.ocr.language = "en,xx_missing".into();
        let r = readiness(&config);
        assert!(!r.ready);
        assert_eq!(
            r.detail,
            format!(
                "Tesseract language data 'xx_missing' is not installed (apt-get install tesseract-ocr-xx-missing); installed: {}.",
                lang::installed_list()
            )
        );
        // The test machine has English (setup installs tesseract-ocr-eng).
        assert!(
            lang::installed().contains(&"eng".to_string()),
            "{}",
            r.detail
        );
    }
}
