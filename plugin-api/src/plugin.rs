//! The two plugin traits and their const descriptors.

use crate::{Context, Document, PluginConfig, Result};

/// The bytes to convert and what the host knows about them.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    pub bytes: &'a [u8],
    /// The client's file name; informational only, never a path.
    pub file_name: &'a str,
    /// The MIME type the host detected from the content.
    pub mime: &'a str,
}

/// A format converter: input bytes to a [`Document`]. Synchronous, CPU-bound, no I/O besides
/// OCR through the context. Built once per process by its descriptor's factory.
pub trait Converter: Send + Sync {
    fn convert(&self, input: &Input<'_>, ctx: &mut Context<'_>) -> Result<Document>;
}

/// A converter as registered with [`crate::register_converter!`].
#[derive(Debug)]
pub struct ConverterDescriptor {
    /// Stable id ("pdf", "docx", "spreadsheet").
    pub id: &'static str,
    /// Human-readable name for `quire plugins` and `/api/v1/formats`.
    pub name: &'static str,
    /// The crate that registered it (`env!("CARGO_PKG_NAME")`), for duplicate reports.
    pub crate_name: &'static str,
    /// MIME types this converter takes, as the host's detector names them.
    pub mime_types: &'static [&'static str],
    /// File extensions (lower case, no dot) for listings.
    pub extensions: &'static [&'static str],
    pub factory: fn(&PluginConfig) -> Result<Box<dyn Converter>>,
}

/// An image handed to OCR: encoded bytes (PNG, JPEG, TIFF, ...) the provider decodes itself.
#[derive(Debug, Clone, Copy)]
pub struct OcrImage<'a> {
    pub data: &'a [u8],
    pub mime: &'a str,
    /// Resolution when known (a rendered PDF page), which helps Tesseract.
    pub dpi: Option<u32>,
}

/// What OCR read.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OcrOutput {
    /// The text in reading order; lines separated by `\n`, paragraphs by a blank line.
    pub text: String,
    /// Mean confidence 0..=1 when the engine reports one.
    pub confidence: Option<f32>,
}

/// An OCR engine. Implementations must be callable from several threads; an engine that is
/// not thread-safe keeps one instance per thread or a pool inside.
pub trait OcrProvider: Send + Sync {
    fn recognize(&self, image: &OcrImage<'_>) -> Result<OcrOutput>;

    /// Whether the provider finds a page's orientation itself and reads pages turned by
    /// 90/180/270 degrees upright. Callers then send each image once instead of trying other
    /// turns when the text looks wrong.
    fn reads_any_orientation(&self) -> bool {
        false
    }
}

/// Whether a provider can serve requests now, and why not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Readiness {
    pub ready: bool,
    /// A short reason, shown by `quire plugins` and in logs ("language data eng missing").
    pub detail: String,
}

impl Readiness {
    pub fn ready(detail: impl Into<String>) -> Self {
        Readiness {
            ready: true,
            detail: detail.into(),
        }
    }

    pub fn not_ready(detail: impl Into<String>) -> Self {
        Readiness {
            ready: false,
            detail: detail.into(),
        }
    }
}

/// An OCR provider as registered with [`crate::register_ocr_provider!`].
#[derive(Debug)]
pub struct OcrProviderDescriptor {
    /// `provider_one`, `provider_two` or `provider_three`.
    pub id: &'static str,
    pub name: &'static str,
    pub crate_name: &'static str,
    /// A cheap check (library loads, models present, key configured); called at start-up and
    /// by `/api/v1/ready`.
    pub readiness: fn(&PluginConfig) -> Readiness,
    pub factory: fn(&PluginConfig) -> Result<Box<dyn OcrProvider>>,
}
