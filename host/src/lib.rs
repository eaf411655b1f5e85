//! quire's host: everything around the plugins.
//!
//! Pipeline: upload → [`detect`] → convert (a plugin from the [`registry`] → document model) →
//! [`images`] normalisation → [`render`] (Markdown or JSON, in one place) → store → notify.
//! [`pipeline`] ties the library stages together for the CLI, the worker and the tests; the
//! `service` module owns HTTP, job stores, workers and webhooks.
//!
//! Architecture invariant: plugins never see HTTP, Redis, threads or the job model; only this
//! crate does.

pub mod chunk_cli;
pub mod cli;
pub mod config;
pub mod decrypt;
pub mod detect;
pub mod images;
pub mod mcp;
pub mod metafile;
pub mod pipeline;
pub mod registry;
pub mod render;
pub mod runtime;
pub mod service;

/// Every plugin crate, named once so the linker keeps its `inventory` registrations.
/// A plugin that is a dependency but never named here would silently vanish from the registry.
/// [`registry::LINKED_PLUGIN_CRATES`] lists the same crates for the start-up check.
mod linked_plugins {
    #[cfg(feature = "ocr-ppocr")]
    use quire_ocr_ppocr as _;
    #[cfg(feature = "ocr-tesseract")]
    use quire_ocr_tesseract as _;
    #[cfg(feature = "ocr-vision")]
    use quire_ocr_vision as _;
    #[cfg(feature = "docx")]
    use quire_plugin_docx as _;
    #[cfg(feature = "html")]
    use quire_plugin_html as _;
    #[cfg(feature = "image")]
    use quire_plugin_image as _;
    #[cfg(feature = "json")]
    use quire_plugin_json as _;
    #[cfg(feature = "markdown")]
    use quire_plugin_markdown as _;
    #[cfg(feature = "pdf")]
    use quire_plugin_pdf as _;
    #[cfg(feature = "pptx")]
    use quire_plugin_pptx as _;
    #[cfg(feature = "rtf")]
    use quire_plugin_rtf as _;
    #[cfg(feature = "spreadsheet")]
    use quire_plugin_spreadsheet as _;
    #[cfg(feature = "text")]
    use quire_plugin_text as _;
    #[cfg(feature = "xml")]
    use quire_plugin_xml as _;
}
