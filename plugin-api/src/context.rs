//! What a conversion may consult while it runs: limits, deadline, progress, OCR, warnings.
//!
//! A conversion is synchronous CPU work. It calls [`Context::check`] between units of work
//! (pages, slides, sheets, images) so a deadline or cancellation stops it cooperatively; the
//! host also enforces a hard wall-clock and memory limit from outside, for code that loops.

use crate::{Document, Error, JobOptions, OcrImage, OcrOutput, OcrProvider, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Hard limits for one conversion. Converters check them before allocating for a thing.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// Pages, slides, sheets or image frames.
    pub max_parts: u32,
    /// Pixels of any one decoded image (width x height).
    pub max_image_pixels: u64,
    /// Images kept per document; the rest are listed as skipped.
    pub max_images: u32,
    /// Bytes inflated from a container (ZIP entries, PDF streams), counted as actually inflated.
    pub max_inflated_bytes: u64,
    /// Entries in a ZIP container.
    pub max_archive_entries: u32,
    /// Inflated / compressed ratio of a ZIP entry above which it is treated as a bomb.
    pub max_compression_ratio: u32,
    /// Nesting depth of XML, JSON and HTML trees.
    pub max_depth: u32,
    /// Cells in one sheet (rows x columns), checked from the declared dimensions first.
    pub max_sheet_cells: u64,
    /// Bytes of rendered output.
    pub max_output_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_parts: 10_000,
            max_image_pixels: 50_000_000,
            max_images: 1_000,
            max_inflated_bytes: 2 << 30,
            max_archive_entries: 20_000,
            max_compression_ratio: 1_000,
            max_depth: 512,
            max_sheet_cells: 50_000_000,
            max_output_bytes: 512 << 20,
        }
    }
}

/// Receives progress as units done out of a total (pages, slides, sheets, images).
pub trait ProgressSink {
    fn report(&mut self, done: u64, total: u64);
}

impl<F: FnMut(u64, u64)> ProgressSink for F {
    fn report(&mut self, done: u64, total: u64) {
        self(done, total)
    }
}

/// An OCR request as the host sees it: the provider plus its identity (for metadata).
pub struct OcrRequest<'a> {
    pub provider_id: &'a str,
    pub provider: &'a dyn OcrProvider,
}

/// Converts a document embedded in another one (a Word `altChunk`'s HTML, RTF or DOCX part).
/// The host provides it: it detects the bytes' type with the upload detector, picks the
/// registered converter and runs it with the context it is handed (the outer job's options,
/// limits, deadline and cancel flag, one level deeper). Plugins call it through
/// [`Context::convert_embedded`], never directly.
pub trait EmbeddedConverter: Sync {
    fn convert(
        &self,
        data: &[u8],
        name_hint: Option<&str>,
        ctx: &mut Context<'_>,
    ) -> Result<Document>;
}

/// How deep embedded documents are converted: the outer document is level 0, a chunk inside
/// it level 1; a chunk at a deeper level than this is not converted.
pub const MAX_EMBED_DEPTH: u32 = 3;

/// The conversion context handed to [`crate::Converter::convert`].
pub struct Context<'a> {
    pub limits: Limits,
    deadline: Option<Instant>,
    cancel: Option<&'a AtomicBool>,
    progress: Option<&'a mut dyn ProgressSink>,
    ocr: Option<OcrRequest<'a>>,
    ocr_images: u32,
    warnings: Vec<String>,
    structured_data: bool,
    options: JobOptions,
    embedded: Option<&'a dyn EmbeddedConverter>,
    embed_depth: u32,
}

impl<'a> Context<'a> {
    /// A context with default limits, no deadline, no progress sink and OCR off.
    pub fn new() -> Self {
        Context {
            limits: Limits::default(),
            deadline: None,
            cancel: None,
            progress: None,
            ocr: None,
            ocr_images: 0,
            warnings: Vec::new(),
            structured_data: true,
            options: JobOptions::default(),
            embedded: None,
            embed_depth: 0,
        }
    }

    /// Offers the conversion of embedded documents ([`Context::convert_embedded`]).
    pub fn with_embedded(mut self, converter: &'a dyn EmbeddedConverter) -> Self {
        self.embedded = Some(converter);
        self
    }

    /// How many documents this conversion is nested in (0 for the uploaded one).
    pub fn embed_depth(&self) -> u32 {
        self.embed_depth
    }

    /// Converts a document embedded in this one with whichever converter the host has for its
    /// type. `None` when the host offers no such conversion (tests, or no hook set). Otherwise
    /// the result of the inner conversion: an error when the type is not supported, the
    /// nesting is deeper than [`MAX_EMBED_DEPTH`], the bytes exceed the job's inflate limit, or
    /// the inner converter failed. The inner conversion runs with this job's options, limits,
    /// deadline, cancel flag and OCR; its warnings are added to this context's.
    pub fn convert_embedded(
        &mut self,
        data: &[u8],
        name_hint: Option<&str>,
    ) -> Option<Result<Document>> {
        let converter = self.embedded?;
        if let Err(e) = self.check() {
            return Some(Err(e));
        }
        if self.embed_depth >= MAX_EMBED_DEPTH {
            return Some(Err(Error::unsupported(format!(
                "documents nested more than {MAX_EMBED_DEPTH} deep are not converted"
            ))));
        }
        if data.len() as u64 > self.limits.max_inflated_bytes {
            return Some(Err(Error::limit(
                "the embedded document is larger than the configured limit",
            )));
        }
        let mut inner = Context {
            limits: self.limits.clone(),
            deadline: self.deadline,
            cancel: self.cancel,
            progress: None,
            ocr: self.ocr.as_ref().map(|o| OcrRequest {
                provider_id: o.provider_id,
                provider: o.provider,
            }),
            ocr_images: 0,
            warnings: Vec::new(),
            structured_data: self.structured_data,
            options: self.options.clone(),
            embedded: Some(converter),
            embed_depth: self.embed_depth + 1,
        };
        let result = converter.convert(data, name_hint, &mut inner);
        self.ocr_images += inner.ocr_images;
        for w in inner.warnings {
            self.warn(w);
        }
        Some(result)
    }

    /// Tells converters whether `Document.data` will be used (JSON output). Default true.
    pub fn with_structured_data(mut self, wanted: bool) -> Self {
        self.structured_data = wanted;
        self
    }

    /// Whether the caller uses `Document.data`; a converter may skip building the tree when not
    /// (Markdown output renders the blocks only).
    pub fn wants_structured_data(&self) -> bool {
        self.structured_data
    }

    /// The job's options (pages, password, force_ocr, OCR languages).
    pub fn with_options(mut self, options: JobOptions) -> Self {
        self.options = options;
        self
    }

    /// What the client chose for this job; the defaults when nothing.
    pub fn options(&self) -> &JobOptions {
        &self.options
    }

    /// Whether every page is to be read by OCR (the job asked for it and OCR is on).
    pub fn force_ocr(&self) -> bool {
        self.options.force_ocr && self.ocr.is_some()
    }

    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    pub fn with_deadline(mut self, deadline: Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }

    pub fn with_cancel(mut self, flag: &'a AtomicBool) -> Self {
        self.cancel = Some(flag);
        self
    }

    pub fn with_progress(mut self, sink: &'a mut dyn ProgressSink) -> Self {
        self.progress = Some(sink);
        self
    }

    pub fn with_ocr(mut self, provider_id: &'a str, provider: &'a dyn OcrProvider) -> Self {
        self.ocr = Some(OcrRequest {
            provider_id,
            provider,
        });
        self
    }

    /// Fails with a timeout error once the deadline has passed or the job was cancelled.
    /// Call it between units of work.
    pub fn check(&self) -> Result<()> {
        if let Some(flag) = self.cancel {
            if flag.load(Ordering::Relaxed) {
                return Err(Error::timeout("The conversion was cancelled."));
            }
        }
        if let Some(deadline) = self.deadline {
            if Instant::now() >= deadline {
                return Err(Error::timeout(
                    "The conversion took longer than the configured time limit.",
                ));
            }
        }
        Ok(())
    }

    /// Reports `done` of `total` units finished.
    pub fn progress(&mut self, done: u64, total: u64) {
        if let Some(sink) = self.progress.as_deref_mut() {
            sink.report(done.min(total), total);
        }
    }

    /// Whether the job asked for OCR.
    pub fn ocr_enabled(&self) -> bool {
        self.ocr.is_some()
    }

    /// The id of the OCR provider in use, if OCR is on.
    pub fn ocr_provider_id(&self) -> Option<&str> {
        self.ocr.as_ref().map(|o| o.provider_id)
    }

    /// Whether the job's OCR provider turns sideways and upside-down pages upright itself
    /// (see [`crate::OcrProvider::reads_any_orientation`]); false when OCR is off.
    pub fn ocr_reads_any_orientation(&self) -> bool {
        self.ocr
            .as_ref()
            .is_some_and(|o| o.provider.reads_any_orientation())
    }

    /// Reads the text in an image with the job's OCR provider. `None` when OCR is off.
    pub fn ocr(&mut self, image: &OcrImage<'_>) -> Option<Result<OcrOutput>> {
        let request = self.ocr.as_ref()?;
        if let Err(e) = self.check() {
            return Some(Err(e));
        }
        self.ocr_images += 1;
        Some(request.provider.recognize(image))
    }

    /// Images sent to OCR so far.
    pub fn ocr_image_count(&self) -> u32 {
        self.ocr_images
    }

    /// Records something the user should know (a page that could not be read, an image skipped).
    pub fn warn(&mut self, message: impl Into<String>) {
        if self.warnings.len() < 100 {
            self.warnings.push(message.into());
        }
    }

    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }
}

impl Default for Context<'_> {
    fn default() -> Self {
        Context::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn deadline_and_cancel_stop_work() {
        let ctx = Context::new().with_deadline(Instant::now() - Duration::from_millis(1));
        assert_eq!(ctx.check().unwrap_err().kind(), crate::ErrorKind::Timeout);
        let flag = AtomicBool::new(false);
        let ctx = Context::new().with_cancel(&flag);
        assert!(ctx.check().is_ok());
        flag.store(true, Ordering::Relaxed);
        assert!(ctx.check().is_err());
    }

    #[test]
    fn progress_is_clamped_to_total() {
        let mut seen = Vec::new();
        let mut sink = |d, t| seen.push((d, t));
        let mut ctx = Context::new().with_progress(&mut sink);
        ctx.progress(3, 2);
        drop(ctx);
        assert_eq!(seen, vec![(2, 2)]);
    }
}
