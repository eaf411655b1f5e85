//! The conversion pipeline without the server: detect → convert → normalise images → render.
//!
//! [`Engine`] is what the CLI, the isolated worker child and the tests call. It builds each
//! converter and OCR provider once, on first use, from the registry's descriptors. A panic in
//! a converter is caught here and becomes an internal error for that conversion; the service
//! additionally runs each conversion in a child process, so aborts, stack overflows and
//! runaway memory are contained too.

use crate::detect::{self, Detected};
use crate::images;
use crate::registry::Registry;
use crate::render::chunks::ChunkOptions;
pub use crate::render::OutputFormat;
use crate::render::{self, RenderOptions};
use quire_plugin_api::{
    Context, Converter, Document, EmbeddedConverter, Error, Input, JobOptions, Limits, OcrProvider,
    PluginConfig, Result,
};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// What the error message of a conversion whose converter panicked says (the panic itself
/// goes to the log through the panic hook).
pub const PANIC_MESSAGE: &str = "converter failed unexpectedly on this file";

/// One conversion to run.
#[derive(Debug, Clone, Copy)]
pub struct ConvertRequest<'a> {
    pub bytes: &'a [u8],
    /// The client's file name (only its extension is consulted, for text types).
    pub file_name: &'a str,
    pub format: OutputFormat,
    /// The OCR provider id when the job asked for OCR.
    pub ocr_provider: Option<&'a str>,
}

/// How the caller controls a running conversion.
#[derive(Default)]
pub struct ConvertControl<'a> {
    pub deadline: Option<Instant>,
    pub cancel: Option<&'a AtomicBool>,
    /// Receives units done / total (pages, slides, sheets, images) as the converter reports.
    pub progress: Option<&'a mut dyn FnMut(u64, u64)>,
}

/// A finished conversion.
#[derive(Debug, Clone)]
pub struct ConvertOutcome {
    pub output: Vec<u8>,
    pub content_type: &'static str,
    pub converter_id: &'static str,
    pub mime: &'static str,
    /// Facts about the run for the job's `metadata` (decisions.md "Job lifecycle").
    pub metadata: Map<String, Value>,
}

/// A converted document before rendering, with the facts about the run.
#[derive(Debug, Clone)]
pub struct Converted {
    pub document: Document,
    pub detected: Detected,
    pub converter_id: &'static str,
    pub warnings: Vec<String>,
    pub ocr_images: u32,
}

/// An OCR provider id and the languages it was built for.
type LanguageKey = (&'static str, String);

/// Converters and OCR providers, built once per process.
pub struct Engine {
    registry: Registry,
    config: PluginConfig,
    limits: Limits,
    render: RenderOptions,
    converters: Mutex<HashMap<&'static str, Arc<dyn Converter>>>,
    providers: Mutex<HashMap<&'static str, Arc<dyn OcrProvider>>>,
    /// Providers built for a job's own `ocr_language`, by (id, languages).
    language_providers: Mutex<HashMap<LanguageKey, Arc<dyn OcrProvider>>>,
}

impl Engine {
    pub fn new(registry: Registry, config: PluginConfig) -> Engine {
        let render = RenderOptions {
            sample_rows: config.spreadsheet_sample_rows,
            ..RenderOptions::default()
        };
        Engine {
            registry,
            config,
            limits: Limits::default(),
            render,
            converters: Mutex::new(HashMap::new()),
            providers: Mutex::new(HashMap::new()),
            language_providers: Mutex::new(HashMap::new()),
        }
    }

    /// An engine over every plugin linked into this binary, with default settings.
    pub fn from_inventory() -> std::result::Result<Engine, crate::registry::RegistryError> {
        Ok(Engine::new(
            Registry::from_inventory()?,
            PluginConfig::default(),
        ))
    }

    pub fn with_limits(mut self, limits: Limits) -> Engine {
        self.limits = limits;
        self
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    pub fn config(&self) -> &PluginConfig {
        &self.config
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Detects the type and finds its converter, or says why the file cannot be converted.
    pub fn detect(&self, bytes: &[u8], file_name: &str) -> Result<Detected> {
        let detected = detect::detect(bytes, file_name).map_err(|e| self.unsupported(&e.what))?;
        self.check_supported(detected)
    }

    /// Checks that a detected type has a converter in this build.
    pub fn check_supported(&self, detected: Detected) -> Result<Detected> {
        self.registry
            .converter_for(detected.mime)
            .map_err(|e| Error::unsupported(format!("{e}.")))?;
        Ok(detected)
    }

    /// The interface's 415 text: "Unsupported file type: <what>. Supported: <list>".
    pub fn unsupported(&self, what: &str) -> Error {
        Error::unsupported(format!(
            "Unsupported file type: {what}. Supported: {}",
            self.registry.supported_summary()
        ))
    }

    /// Converts a document embedded in another (see [`EmbeddedConverter`]): the same detector
    /// and registry as for uploads, the context the outer converter's hook built.
    fn convert_embedded(
        &self,
        data: &[u8],
        name_hint: Option<&str>,
        ctx: &mut Context<'_>,
    ) -> Result<Document> {
        let file_name = name_hint.unwrap_or("");
        let detected = detect::detect(data, file_name)
            .map_err(|e| Error::unsupported(format!("unsupported type: {}", e.what)))?;
        if detected.encrypted {
            return Err(Error::encrypted(format!(
                "the embedded {} file is password-protected",
                detected.label
            )));
        }
        let descriptor = self.registry.converter_for(detected.mime).map_err(|_| {
            Error::unsupported(format!("no converter for {} in this build", detected.label))
        })?;
        let converter = self.converter(descriptor.id, descriptor.factory)?;
        let input = Input {
            bytes: data,
            file_name,
            mime: detected.mime,
        };
        match catch_unwind(AssertUnwindSafe(|| converter.convert(&input, ctx))) {
            Ok(r) => r,
            Err(_) => Err(Error::internal(format!(
                "the {} {PANIC_MESSAGE}",
                descriptor.name
            ))),
        }
    }

    fn converter(
        &self,
        id: &'static str,
        factory: fn(&PluginConfig) -> Result<Box<dyn Converter>>,
    ) -> Result<Arc<dyn Converter>> {
        let mut cache = self.converters.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(c) = cache.get(id) {
            return Ok(c.clone());
        }
        let built: Arc<dyn Converter> = Arc::from(factory(&self.config)?);
        cache.insert(id, built.clone());
        Ok(built)
    }

    /// The OCR provider with this id, built on first use; fails when it is not ready.
    pub fn ocr_provider(&self, id: &str) -> Result<(&'static str, Arc<dyn OcrProvider>)> {
        let descriptor = self
            .registry
            .ocr_provider(id)
            .map_err(|e| Error::unsupported(format!("{e}.")))?;
        let mut cache = self.providers.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = cache.get(descriptor.id) {
            return Ok((descriptor.id, p.clone()));
        }
        let readiness = (descriptor.readiness)(&self.config);
        if !readiness.ready {
            return Err(Error::internal(format!(
                "OCR provider {} is not available: {}",
                descriptor.id, readiness.detail
            )));
        }
        let built: Arc<dyn OcrProvider> = Arc::from((descriptor.factory)(&self.config)?);
        cache.insert(descriptor.id, built.clone());
        Ok((descriptor.id, built))
    }

    /// The OCR provider with this id reading `languages` (`OCR_LANGUAGE` syntax) instead of
    /// the server's setting: built once per (id, languages) from the configuration with the
    /// language replaced, so a provider applies it exactly as it applies `OCR_LANGUAGE`.
    pub fn ocr_provider_for(
        &self,
        id: &str,
        languages: Option<&str>,
    ) -> Result<(&'static str, Arc<dyn OcrProvider>)> {
        let Some(languages) = languages.filter(|l| *l != self.config.ocr.language) else {
            return self.ocr_provider(id);
        };
        let descriptor = self
            .registry
            .ocr_provider(id)
            .map_err(|e| Error::unsupported(format!("{e}.")))?;
        let key = (descriptor.id, languages.to_string());
        let mut cache = self
            .language_providers
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(p) = cache.get(&key) {
            return Ok((descriptor.id, p.clone()));
        }
        let mut config = self.config.clone();
        config.ocr.language = languages.to_string();
        let readiness = (descriptor.readiness)(&config);
        if !readiness.ready {
            return Err(Error::unsupported(format!(
                "OCR provider {} cannot read the languages {languages}: {}",
                descriptor.id, readiness.detail
            )));
        }
        let built: Arc<dyn OcrProvider> = Arc::from((descriptor.factory)(&config)?);
        cache.insert(key, built.clone());
        Ok((descriptor.id, built))
    }

    /// Converts to the document model and applies the image rules (no rendering).
    pub fn convert_document(
        &self,
        req: &ConvertRequest<'_>,
        control: &mut ConvertControl<'_>,
    ) -> Result<Converted> {
        self.convert_document_with(req, control, &JobOptions::default())
    }

    /// [`Engine::convert_document`] with the job's options (pages, password, force_ocr, OCR
    /// languages), which the converter reads from its context.
    pub fn convert_document_with(
        &self,
        req: &ConvertRequest<'_>,
        control: &mut ConvertControl<'_>,
        options: &JobOptions,
    ) -> Result<Converted> {
        let decrypted;
        let mut req = *req;
        let mut detected = self.detect(req.bytes, req.file_name)?;
        if detected.encrypted {
            if let Some(password) = options.password.as_deref() {
                decrypted = crate::decrypt::ooxml(req.bytes, password, detected.label)?;
                req.bytes = &decrypted;
                detected = self.detect(req.bytes, req.file_name)?;
            }
        }
        let req = &req;
        if detected.encrypted {
            return Err(Error::encrypted(format!(
                "The {} file is password-protected (encrypted); remove the password and try again.",
                detected.label
            )));
        }
        let descriptor = self
            .registry
            .converter_for(detected.mime)
            .map_err(|e| Error::unsupported(format!("{e}.")))?;
        let converter = self.converter(descriptor.id, descriptor.factory)?;
        let ocr = match req.ocr_provider {
            Some(id) => Some(self.ocr_provider_for(id, options.ocr_languages.as_deref())?),
            None => None,
        };
        let mut ctx = Context::new()
            .with_options(options.clone())
            .with_limits(self.limits.clone())
            .with_structured_data(req.format == OutputFormat::Json);
        if let Some(deadline) = control.deadline {
            ctx = ctx.with_deadline(deadline);
        }
        if let Some(cancel) = control.cancel {
            ctx = ctx.with_cancel(cancel);
        }
        let mut forward = |done: u64, total: u64| {
            if let Some(p) = control.progress.as_deref_mut() {
                p(done, total);
            }
        };
        ctx = ctx.with_progress(&mut forward);
        if let Some((id, provider)) = &ocr {
            ctx = ctx.with_ocr(id, provider.as_ref());
        }
        let embedded = Embedded { engine: self };
        ctx = ctx.with_embedded(&embedded);
        let input = Input {
            bytes: req.bytes,
            file_name: req.file_name,
            mime: detected.mime,
        };
        let result = catch_unwind(AssertUnwindSafe(|| converter.convert(&input, &mut ctx)));
        let mut document = match result {
            Ok(r) => r?,
            Err(_) => {
                return Err(Error::internal(format!(
                    "The {} {PANIC_MESSAGE}.",
                    descriptor.name
                )))
            }
        };
        let warnings = ctx.take_warnings();
        let ocr_images = ctx.ocr_image_count();
        drop(ctx);
        images::normalize_document(
            &mut document,
            &self.config.images,
            self.limits.max_image_pixels,
            self.limits.max_images,
        );
        Ok(Converted {
            document,
            detected,
            converter_id: descriptor.id,
            warnings,
            ocr_images,
        })
    }

    /// Runs the whole pipeline and renders the output.
    pub fn convert(
        &self,
        req: &ConvertRequest<'_>,
        control: &mut ConvertControl<'_>,
    ) -> Result<ConvertOutcome> {
        let mut output = Vec::new();
        let mut outcome = self.convert_to(req, control, &mut output)?;
        outcome.output = output;
        Ok(outcome)
    }

    /// Runs the whole pipeline and writes the output to `sink` as it is rendered, never
    /// holding all of it (the returned outcome's `output` is empty). On an error, part of the
    /// output may have been written already.
    pub fn convert_to(
        &self,
        req: &ConvertRequest<'_>,
        control: &mut ConvertControl<'_>,
        sink: &mut dyn Write,
    ) -> Result<ConvertOutcome> {
        self.convert_to_with(req, None, control, sink)
    }

    /// [`Engine::convert_to`] with the options of a chunks job (`None`: the defaults).
    pub fn convert_to_with(
        &self,
        req: &ConvertRequest<'_>,
        chunking: Option<&ChunkOptions>,
        control: &mut ConvertControl<'_>,
        sink: &mut dyn Write,
    ) -> Result<ConvertOutcome> {
        let started = Instant::now();
        let converted = self.convert_document(req, control)?;
        let render = RenderRequest {
            chunking,
            ..RenderRequest::of(req)
        };
        self.render_to(&converted, &render, started, sink)
    }

    /// Renders a converted document to `sink` (the second half of [`Engine::convert_to`], for
    /// a caller that frees the input between the two). Output beyond the limit is counted but
    /// not written, and the conversion then fails.
    pub fn render_to(
        &self,
        converted: &Converted,
        req: &RenderRequest<'_>,
        started: Instant,
        sink: &mut dyn Write,
    ) -> Result<ConvertOutcome> {
        let mut out = Limited {
            inner: sink,
            written: 0,
            limit: self.limits.max_output_bytes,
        };
        let mut opts = RenderOptions {
            images: req.images,
            ..self.render.clone()
        };
        if req.format == OutputFormat::Chunks {
            let chunks = req.chunking.cloned().unwrap_or_default();
            // A tokenizer file that cannot be loaded is the server's problem, said as such.
            render::tokenize::counter(&chunks.tokenizer).map_err(Error::internal)?;
            opts.chunks = chunks;
        }
        render::render_to(
            &converted.document,
            req.file_name,
            req.format,
            &opts,
            &mut out,
        )
        .map_err(|e| {
            Error::internal("The converted output could not be written.").with_detail(e)
        })?;
        if out.written > self.limits.max_output_bytes {
            return Err(Error::limit(format!(
                "The converted output would be {} MB, over the limit of {} MB.",
                out.written >> 20,
                self.limits.max_output_bytes >> 20
            )));
        }
        let mut metadata = run_metadata(converted, req.ocr_provider);
        metadata.insert("input_bytes".into(), json!(req.input_bytes));
        metadata.insert("output_bytes".into(), json!(out.written));
        metadata.insert(
            "duration_ms".into(),
            json!(started.elapsed().as_millis() as u64),
        );
        Ok(ConvertOutcome {
            output: Vec::new(),
            content_type: req.format.content_type(),
            converter_id: converted.converter_id,
            mime: converted.detected.mime,
            metadata,
        })
    }
}

/// What rendering needs to know of the request (the input itself may be gone by then).
#[derive(Debug, Clone, Copy)]
pub struct RenderRequest<'a> {
    pub file_name: &'a str,
    pub format: OutputFormat,
    pub ocr_provider: Option<&'a str>,
    pub input_bytes: usize,
    /// The job's `image_mode`.
    pub images: render::ImageOutput,
    /// The chunk options of a chunks job (`None`: the defaults).
    pub chunking: Option<&'a ChunkOptions>,
}

impl<'a> RenderRequest<'a> {
    pub fn of(req: &ConvertRequest<'a>) -> RenderRequest<'a> {
        RenderRequest {
            file_name: req.file_name,
            format: req.format,
            ocr_provider: req.ocr_provider,
            input_bytes: req.bytes.len(),
            images: render::ImageOutput::Embedded,
            chunking: None,
        }
    }
}

/// A writer that passes at most `limit` bytes on and counts all of them.
struct Limited<'a> {
    inner: &'a mut dyn Write,
    written: u64,
    limit: u64,
}

impl Write for Limited<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        let total = self.written + buf.len() as u64;
        if total <= self.limit {
            self.inner.write_all(buf)?;
        }
        self.written = total;
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

fn run_metadata(c: &Converted, ocr_provider: Option<&str>) -> Map<String, Value> {
    use quire_plugin_api::DocumentKind as K;
    let mut m = Map::new();
    m.insert("detected_mime".into(), json!(c.detected.mime));
    m.insert("converter".into(), json!(c.converter_id));
    let count_key = match c.document.kind {
        K::Paged => "pages",
        K::Presentation => "slides",
        K::Spreadsheet => "sheets",
        K::Image => "frames",
        K::Flowing | K::StructuredData => "sections",
    };
    m.insert(count_key.into(), json!(c.document.parts.len()));
    if let Some(id) = ocr_provider {
        m.insert("ocr_provider".into(), json!(id));
        m.insert("ocr_images".into(), json!(c.ocr_images));
    }
    let skipped: Vec<String> = c
        .document
        .images()
        .iter()
        .filter_map(|i| {
            i.skipped
                .as_ref()
                .map(|r| format!("Image {} was not embedded: {r}", i.name))
        })
        .collect();
    let mut warnings = c.warnings.clone();
    warnings.extend(skipped.into_iter().take(50));
    if !warnings.is_empty() {
        m.insert("warnings".into(), json!(warnings));
    }
    m
}

/// The host's [`EmbeddedConverter`]: the engine's own detector and converters.
struct Embedded<'e> {
    engine: &'e Engine,
}

impl EmbeddedConverter for Embedded<'_> {
    fn convert(
        &self,
        data: &[u8],
        name_hint: Option<&str>,
        ctx: &mut Context<'_>,
    ) -> Result<Document> {
        self.engine.convert_embedded(data, name_hint, ctx)
    }
}
