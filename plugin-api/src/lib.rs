//! The contract between quire's host and its plugins.
//!
//! This crate is deliberately small and stable: it knows nothing of HTTP, job queues, Redis,
//! threads or async runtimes. A format plugin depends on this crate alone (plus the parsing
//! libraries it needs) and does three things:
//!
//! 1. implements [`Converter`], turning input bytes into a format-neutral [`Document`];
//! 2. declares a `const` [`ConverterDescriptor`] (id, MIME types, extensions, factory);
//! 3. registers it with [`register_converter!`].
//!
//! An OCR plugin does the same with [`OcrProvider`], [`OcrProviderDescriptor`] and
//! [`register_ocr_provider!`]. The host collects the descriptors at start-up, builds instances
//! once configuration has loaded, and owns every thread, timeout and I/O decision.
//!
//! Rendering (Markdown and JSON) is not a plugin's business: the host renders every
//! [`Document`] in one place, so all formats escape, embed images and mark pages the same way.

mod config;
mod context;
pub mod datauri;
mod error;
pub mod lists;
pub mod model;
mod options;
pub mod pixels;
mod plugin;
pub mod tables;
pub mod text;

pub use config::{ImageRules, OcrConfig, PluginConfig};
pub use context::{Context, EmbeddedConverter, Limits, OcrRequest, ProgressSink, MAX_EMBED_DEPTH};
pub use error::{Error, ErrorKind, Result};
pub use model::*;
pub use options::{JobOptions, PageRanges};
pub use plugin::{
    Converter, ConverterDescriptor, Input, OcrImage, OcrOutput, OcrProvider, OcrProviderDescriptor,
    Readiness,
};

/// Re-exported so plugin crates never name `inventory` themselves: one version, one collect site.
#[doc(hidden)]
pub use inventory as __inventory;

inventory::collect!(ConverterDescriptor);
inventory::collect!(OcrProviderDescriptor);

/// Registers a format converter: `register_converter!(DESCRIPTOR);` where `DESCRIPTOR` is a
/// `const ConverterDescriptor`.
#[macro_export]
macro_rules! register_converter {
    ($descriptor:expr) => {
        $crate::__inventory::submit! { $descriptor }
    };
}

/// Registers an OCR provider: `register_ocr_provider!(DESCRIPTOR);`.
#[macro_export]
macro_rules! register_ocr_provider {
    ($descriptor:expr) => {
        $crate::__inventory::submit! { $descriptor }
    };
}

/// Every converter descriptor linked into this binary, in link order (the host sorts them).
pub fn converter_descriptors() -> impl Iterator<Item = &'static ConverterDescriptor> {
    inventory::iter::<ConverterDescriptor>.into_iter()
}

/// Every OCR provider descriptor linked into this binary, in link order.
pub fn ocr_provider_descriptors() -> impl Iterator<Item = &'static OcrProviderDescriptor> {
    inventory::iter::<OcrProviderDescriptor>.into_iter()
}
