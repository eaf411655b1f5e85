//! The `quire` command line: `serve`, `worker`, `convert`, `plugins`.
//!
//! `convert` and `plugins` run the library pipeline in this process; `serve` and `worker` hand
//! over to the service module.

use crate::config::Config;
use crate::pipeline::{ConvertControl, ConvertRequest, Engine, OutputFormat, RenderRequest};
use crate::registry::Registry;
use clap::{Parser, Subcommand, ValueEnum};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "quire",
    version,
    about = "Document conversion to Markdown and structured JSON"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP API with an in-process worker pool.
    Serve,
    /// Run workers only, against a shared Redis (`REDIS_URL`) and shared storage.
    Worker,
    /// Convert one file and write the result to stdout or a file.
    Convert(ConvertArgs),
    /// List the registered converters and OCR providers with their readiness.
    Plugins {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FormatArg {
    Md,
    Json,
}

#[derive(Debug, clap::Args)]
pub struct ConvertArgs {
    /// The document to convert; `-` reads it from standard input.
    pub file: PathBuf,
    /// The file name to detect the type by when reading standard input (`report.csv`);
    /// without it the content decides.
    #[arg(long)]
    pub name: Option<String>,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value = "md")]
    pub format: FormatArg,
    /// Read images and scanned pages with OCR.
    #[arg(long)]
    pub ocr: bool,
    /// OCR provider: provider_one (Tesseract), provider_two (PP-OCR), provider_three (AI vision).
    #[arg(long, default_value = "provider_one")]
    pub ocr_provider: String,
    /// Write the result here instead of stdout.
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
}

/// Builds the engine from configuration (config.toml and environment) over every plugin.
pub fn engine(config: &Config) -> anyhow::Result<Engine> {
    let registry = Registry::from_inventory()?;
    Ok(Engine::new(registry, config.plugin_config()))
}

/// `quire convert`.
pub fn convert(args: &ConvertArgs, config: &Config) -> anyhow::Result<i32> {
    let engine = engine(config)?;
    let from_stdin = args.file.as_os_str() == "-";
    let read = if from_stdin {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut b).map(|_| b)
    } else {
        std::fs::read(&args.file)
    };
    let bytes = match read {
        Ok(b) => b,
        Err(e) => {
            let what = if from_stdin {
                "standard input".to_string()
            } else {
                args.file.display().to_string()
            };
            eprintln!("quire: cannot read {what}: {e}");
            return Ok(2);
        }
    };
    let file_name = match (&args.name, from_stdin) {
        (Some(name), _) => name.clone(),
        (None, true) => "stdin".to_string(),
        (None, false) => args
            .file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
    };
    let format = match args.format {
        FormatArg::Md => OutputFormat::Markdown,
        FormatArg::Json => OutputFormat::Json,
    };
    let request = ConvertRequest {
        bytes: &bytes,
        file_name: &file_name,
        format,
        ocr_provider: args.ocr.then_some(args.ocr_provider.as_str()),
    };
    let show_progress = std::io::stderr().is_terminal();
    let mut bar = |done: u64, total: u64| {
        if show_progress && total > 1 {
            let width = 30;
            let filled = (done * width / total.max(1)) as usize;
            eprint!(
                "\r[{}{}] {done}/{total}",
                "#".repeat(filled),
                " ".repeat(width as usize - filled)
            );
            let _ = std::io::stderr().flush();
        }
    };
    let mut control = ConvertControl {
        progress: Some(&mut bar),
        ..ConvertControl::default()
    };
    let started = std::time::Instant::now();
    let result = engine.convert_document(&request, &mut control);
    if show_progress {
        eprint!("\r\x1b[K");
    }
    let converted = match result {
        Ok(c) => c,
        Err(e) => {
            eprintln!("quire: {}", e.message());
            return Ok(1);
        }
    };
    let render = RenderRequest {
        file_name: &file_name,
        format,
        ocr_provider: args.ocr.then_some(args.ocr_provider.as_str()),
        input_bytes: bytes.len(),
    };
    // The document holds all that rendering needs: the input goes before the output is
    // written, which streams to its destination instead of being built whole.
    drop(bytes);
    let result = match &args.output {
        Some(path) => {
            let mut out = match std::fs::File::create(path) {
                Ok(f) => Recording::new(std::io::BufWriter::with_capacity(1 << 16, f)),
                Err(e) => {
                    eprintln!("quire: cannot write {}: {e}", path.display());
                    return Ok(1);
                }
            };
            let result = engine.render_to(&converted, &render, started, &mut out);
            let flushed = out.flush();
            if let Some(e) = out.error.take().or(flushed.err()) {
                eprintln!("quire: cannot write {}: {e}", path.display());
                let _ = std::fs::remove_file(path);
                return Ok(1);
            }
            if result.is_err() {
                let _ = std::fs::remove_file(path);
            }
            result
        }
        None => {
            let mut out = Recording::new(std::io::stdout().lock());
            let result = engine.render_to(&converted, &render, started, &mut out);
            out.flush()?;
            if let Some(e) = out.error.take() {
                return Err(e.into());
            }
            result
        }
    };
    match result {
        Ok(outcome) => {
            if let Some(w) = outcome.metadata.get("warnings").and_then(|w| w.as_array()) {
                for warning in w {
                    eprintln!("quire: warning: {}", warning.as_str().unwrap_or_default());
                }
            }
            Ok(0)
        }
        Err(e) => {
            eprintln!("quire: {}", e.message());
            Ok(1)
        }
    }
}

/// A writer that keeps the first I/O error it met, so the caller can report it as such.
struct Recording<W: Write> {
    inner: W,
    error: Option<std::io::Error>,
}

impl<W: Write> Recording<W> {
    fn new(inner: W) -> Self {
        Recording { inner, error: None }
    }
}

impl<W: Write> Write for Recording<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.inner.write(buf).inspect_err(|e| {
            self.error
                .get_or_insert_with(|| std::io::Error::new(e.kind(), e.to_string()));
        })
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// `quire plugins`.
pub fn plugins(json: bool, config: &Config) -> anyhow::Result<i32> {
    let registry = Registry::from_inventory()?;
    let plugin_config = config.plugin_config();
    let readiness = registry.ocr_readiness(&plugin_config);
    let converter_readiness = registry.converter_readiness(&plugin_config);
    if json {
        let converters: Vec<_> = registry
            .converters()
            .iter()
            .map(|d| {
                let r = &converter_readiness[d.id];
                serde_json::json!({
                    "id": d.id, "name": d.name, "crate": d.crate_name,
                    "mime_types": d.mime_types, "extensions": d.extensions,
                    "ready": r.ready, "detail": r.detail,
                })
            })
            .collect();
        let providers: Vec<_> = crate::registry::OCR_PROVIDER_IDS
            .iter()
            .map(|id| {
                let r = &readiness[*id];
                let built = registry.ocr_provider(id).ok();
                serde_json::json!({
                    "id": id, "name": built.map(|p| p.name), "built_in": built.is_some(),
                    "ready": r.ready, "detail": r.detail,
                })
            })
            .collect();
        let out = serde_json::json!({
            "converters": converters,
            "ocr_providers": providers,
            "runtime_dir": plugin_config.runtime_dir,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(0);
    }
    println!("Converters:");
    for d in registry.converters() {
        let r = &converter_readiness[d.id];
        let state = if r.ready {
            "ready".to_string()
        } else {
            format!("not ready: {}", r.detail)
        };
        println!("  {:<12} {:<28} {state}", d.id, d.name);
        println!("  {:<12} {}", "", d.extensions.join(", "));
        println!("  {:<12} {}", "", d.mime_types.join(", "));
    }
    println!("Runtime files: {}", plugin_config.runtime_dir.display());
    println!("OCR providers:");
    for id in crate::registry::OCR_PROVIDER_IDS {
        let r = &readiness[id];
        let name = registry.ocr_provider(id).map(|p| p.name).unwrap_or("-");
        let state = if r.ready { "ready" } else { "not ready" };
        println!("  {id:<15} {name:<40} {state}: {}", r.detail);
    }
    Ok(0)
}
