//! quire's PDF converter, built on PDFium.
//!
//! PDFium (through `pdfium-render`, bound at run time to the `libpdfium.so` that
//! `scripts/setup.sh` installs) decodes fonts, encodings and images and recovers damaged
//! cross-reference tables; everything about *layout* is ours: lines from character
//! positions, columns by XY-cut, paragraphs, headings, lists, running headers and footers.
//! Engine choice and measurements: see the crate README.
//!
//! Pipeline per document: open (empty password if needed) → per page: characters → runs,
//! images, links, scanned-page check and OCR → running headers/footers across pages →
//! per page: reading order → lines → blocks.

mod aligned;
mod blocks;
mod chars;
mod content;
mod convert;
mod engine;
pub mod flatten;
mod furniture;
mod geom;
mod glyphs;
mod images;
mod inflate;
mod layout;
mod meta;
mod scan;
mod tables;
#[cfg(test)]
mod testkit;
mod unicode_map;

use quire_plugin_api::{
    register_converter, Context, Converter, ConverterDescriptor, Document, ImageRules, Input,
    PluginConfig, Result,
};
use std::path::PathBuf;

pub use meta::pdf_date;

/// The PDF converter: knows where PDFium lives; binds it at the first conversion.
#[derive(Debug, Clone)]
pub struct PdfConverter {
    library: PathBuf,
    /// The configured image box: images far over it are scaled down from their raw pixels
    /// before they are encoded (see `images::Budget::fit`).
    images: ImageRules,
}

impl PdfConverter {
    pub fn new(config: &PluginConfig) -> PdfConverter {
        PdfConverter {
            library: engine::library_path(&config.runtime_dir),
            images: config.images.clone(),
        }
    }

    /// Whether the PDFium library can be loaded.
    pub fn engine_available(&self) -> bool {
        engine::available(&self.library)
    }
}

impl Converter for PdfConverter {
    fn convert(&self, input: &Input<'_>, ctx: &mut Context<'_>) -> Result<Document> {
        inflate::check(input.bytes, ctx.limits.max_inflated_bytes)?;
        convert::convert(&self.library, &self.images, input, ctx)
    }
}

/// Fails when the PDFium library is not where the configuration says, so readiness reports
/// the PDF converter as down (with the path) instead of every PDF job failing later.
fn factory(config: &PluginConfig) -> Result<Box<dyn Converter>> {
    let converter = PdfConverter::new(config);
    if !converter.library.is_file() {
        return Err(quire_plugin_api::Error::internal(format!(
            "The PDF engine (PDFium) is not installed: there is no {}.",
            converter.library.display()
        )));
    }
    Ok(Box::new(converter))
}

pub const DESCRIPTOR: ConverterDescriptor = ConverterDescriptor {
    id: "pdf",
    name: "PDF Document (PDFium)",
    crate_name: env!("CARGO_PKG_NAME"),
    mime_types: &["application/pdf"],
    extensions: &["pdf"],
    factory,
};

register_converter!(DESCRIPTOR);

/// Layout debugging: the runs of every page with their boxes.
#[doc(hidden)]
pub fn debug_runs(config: &PluginConfig, bytes: &[u8]) -> Result<Vec<String>> {
    convert::debug_runs(&engine::library_path(&config.runtime_dir), bytes)
}

/// Fast text path against PDFium, page by page (development).
#[doc(hidden)]
pub fn debug_fastpath(config: &PluginConfig, bytes: &[u8]) -> Result<Vec<String>> {
    convert::debug_fastpath(&engine::library_path(&config.runtime_dir), bytes)
}
