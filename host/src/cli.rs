//! The `quire` command line: `serve`, `worker`, `convert`, `plugins`.
//!
//! `convert` and `plugins` run the library pipeline in this process; `serve` and `worker` hand
//! over to the service module.

use crate::config::Config;
use crate::pipeline::{ConvertControl, ConvertRequest, Engine, OutputFormat, RenderRequest};
use crate::registry::Registry;
use clap::{Parser, Subcommand, ValueEnum};
use quire_plugin_api::JobOptions;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

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

// Parsed once at start-up and matched once: the size of the `convert` arguments costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP API with an in-process worker pool.
    Serve,
    /// Run workers only, against a shared Redis (`REDIS_URL`) and shared storage.
    Worker,
    /// Convert files: one to stdout or -o, several beside their inputs or into -o DIR.
    Convert(ConvertArgs),
    /// Serve the Model Context Protocol on stdin/stdout (tools: convert, list_formats), for
    /// an MCP client that starts quire itself. Files are read by path only under
    /// MCP_ALLOWED_DIRS (default: the working directory).
    Mcp,
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
    /// Retrieval chunks as JSON (`.chunks.json`); see --max-tokens and the options below it.
    Chunks,
}

#[derive(Debug, clap::Args)]
#[command(after_help = "\
One file is written to standard output unless -o is given. Several files are each written to a \
file named after the input with the format's extension (report.pdf -> report.md), beside the input \
or in the folder -o names (created when missing). A name that would clash with an input or with \
another result of the same run keeps the input's extension (notes.md -> notes.md.md).

Exit status: 0 when every file was converted; 1 when a conversion or a write failed; 2 when an \
input could not be read or the arguments are wrong. Each failure is named on standard error.")]
pub struct ConvertArgs {
    /// The documents to convert; `-` reads one from standard input (alone).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
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
    /// OCR provider: provider_one (Tesseract), provider_three (AI vision), provider_two (PP-OCR).
    #[arg(long, default_value = "provider_one")]
    pub ocr_provider: String,
    /// Where to write: for one file, the output file or a folder that exists; for several
    /// files, a folder (created when missing).
    #[arg(long, short = 'o', value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// How images appear: embedded (base64), referenced (files in an `images` folder beside
    /// the output, linked as images/<name>; needs an output file), placeholder
    /// (`<!-- image: alt -->`) or none.
    #[arg(long, value_enum, default_value = "embedded")]
    pub image_mode: ImageModeArg,
    /// Pages of a PDF or slides of a presentation to convert: 1-3,7 (5- runs to the end).
    #[arg(long, value_name = "RANGES")]
    pub pages: Option<String>,
    /// The password of an encrypted PDF, DOCX, XLSX or PPTX. Other users of this machine can
    /// see a command line: prefer --password-file.
    #[arg(long, conflicts_with = "password_file")]
    pub password: Option<String>,
    /// A file whose first line is the password.
    #[arg(long, value_name = "FILE")]
    pub password_file: Option<PathBuf>,
    /// OCR every page, even one with a text layer (needs --ocr).
    #[arg(long, requires = "ocr")]
    pub force_ocr: bool,
    /// OCR languages, comma-separated as OCR_LANGUAGE takes them (en,de); needs --ocr.
    #[arg(long, value_name = "CODES", requires = "ocr")]
    pub ocr_language: Option<String>,
    #[command(flatten)]
    pub chunks: crate::chunk_cli::ChunkArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ImageModeArg {
    Embedded,
    Referenced,
    Placeholder,
    None,
}

impl ImageModeArg {
    fn output(self) -> crate::render::ImageOutput {
        use crate::render::ImageOutput as O;
        match self {
            ImageModeArg::Embedded => O::Embedded,
            ImageModeArg::Referenced => O::Referenced,
            ImageModeArg::Placeholder => O::Placeholder,
            ImageModeArg::None => O::None,
        }
    }
}

/// The per-job options of the command line (issue 14), checked before anything is converted.
fn job_options(args: &ConvertArgs, dests: &[Dest]) -> Result<JobOptions, UsageError> {
    let pages = match &args.pages {
        None => None,
        Some(p) => Some(
            quire_plugin_api::PageRanges::parse(p)
                .map_err(|e| UsageError(format!("--pages {p}: {e}")))?,
        ),
    };
    let password = match (&args.password, &args.password_file) {
        (Some(p), _) => Some(p.clone()),
        (None, Some(path)) => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                UsageError(format!(
                    "cannot read the password file {}: {e}",
                    path.display()
                ))
            })?;
            Some(text.lines().next().unwrap_or_default().to_string())
        }
        (None, None) => None,
    };
    let ocr_languages = match &args.ocr_language {
        None => None,
        Some(l) => Some(
            crate::service::options::normalise_languages(l)
                .map_err(|e| UsageError(format!("--ocr-language: {e}")))?,
        ),
    };
    if args.image_mode == ImageModeArg::Referenced {
        // The images go to `images/` beside each result: one result per folder.
        let mut folders = Vec::new();
        for dest in dests {
            let Dest::File(path) = dest else {
                return Err(UsageError(
                    "--image-mode referenced writes the images beside the output file; name one with -o".into(),
                ));
            };
            let folder = identity(&path.parent().unwrap_or(Path::new(".")).join("images"));
            if folders.contains(&folder) {
                return Err(UsageError(
                    "--image-mode referenced writes each result's images to images/ beside it; convert files whose results share a folder one at a time".into(),
                ));
            }
            folders.push(folder);
        }
    }
    Ok(JobOptions {
        pages,
        password,
        force_ocr: args.force_ocr,
        ocr_languages,
    })
}

/// Builds the engine from configuration (config.toml and environment) over every plugin.
pub fn engine(config: &Config) -> anyhow::Result<Engine> {
    let registry = Registry::from_inventory()?;
    Ok(Engine::new(registry, config.plugin_config()))
}

/// Where one conversion's result goes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Dest {
    Stdout,
    File(PathBuf),
}

/// A wrong combination of arguments, found before anything is converted (exit status 2).
#[derive(Debug, PartialEq, Eq)]
struct UsageError(String);

fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// The file name a result gets: the input's stem with the format's extension, or the input's
/// whole name with it when `keep_extension` (to avoid a clash).
fn result_name(input: &Path, stdin_name: Option<&str>, ext: &str, keep_extension: bool) -> String {
    let name: PathBuf = match (is_stdin(input), stdin_name) {
        (true, Some(n)) => PathBuf::from(n),
        (true, None) => PathBuf::from("stdin"),
        (false, _) => input.to_path_buf(),
    };
    let base = if keep_extension {
        name.file_name()
    } else {
        name.file_stem()
    };
    let base = base
        .map(|b| b.to_string_lossy().into_owned())
        .filter(|b| !b.is_empty())
        .unwrap_or_else(|| "output".into());
    format!("{base}.{ext}")
}

/// A path compared by its real folder and its name, so `./a.md`, `a.md` and `dir/../a.md`
/// are one file (the file itself need not exist).
fn identity(path: &Path) -> PathBuf {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let parent = parent.canonicalize().unwrap_or(parent);
    match path.file_name() {
        Some(name) => parent.join(name),
        None => parent,
    }
}

/// Decides every destination before anything is converted: a mistake in the arguments is
/// reported without half a batch written, and no result overwrites an input or another result.
fn plan(args: &ConvertArgs, ext: &str) -> Result<Vec<Dest>, UsageError> {
    let files = &args.files;
    if files.len() == 1 {
        let input = &files[0];
        return Ok(vec![match &args.output {
            None => Dest::Stdout,
            Some(out) if out.is_dir() => {
                Dest::File(out.join(result_name(input, args.name.as_deref(), ext, false)))
            }
            Some(out) => {
                if !is_stdin(input) && identity(out) == identity(input) {
                    return Err(UsageError(format!(
                        "-o {} is the input itself; name another file",
                        out.display()
                    )));
                }
                Dest::File(out.clone())
            }
        }]);
    }
    if files.iter().any(|f| is_stdin(f)) {
        return Err(UsageError(
            "standard input (-) can only be converted on its own, not with other files".into(),
        ));
    }
    if args.name.is_some() {
        return Err(UsageError(
            "--name names the document read from standard input; it cannot be used with several files"
                .into(),
        ));
    }
    if let Some(out) = &args.output {
        if out.exists() && !out.is_dir() {
            return Err(UsageError(format!(
                "-o {}: with several files -o names a folder, and this is a file",
                out.display()
            )));
        }
    }
    let folder = |input: &Path| -> PathBuf {
        match &args.output {
            Some(out) => out.clone(),
            None => input
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .map(Path::to_path_buf)
                .unwrap_or_else(|| PathBuf::from(".")),
        }
    };
    let inputs: Vec<PathBuf> = files.iter().map(|f| identity(f)).collect();
    for (i, id) in inputs.iter().enumerate() {
        if inputs[..i].contains(id) {
            return Err(UsageError(format!(
                "{} is given more than once",
                files[i].display()
            )));
        }
    }
    let short: Vec<PathBuf> = files
        .iter()
        .map(|f| folder(f).join(result_name(f, None, ext, false)))
        .collect();
    let short_ids: Vec<PathBuf> = short.iter().map(|p| identity(p)).collect();
    let dests: Vec<PathBuf> = files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let clashes = short_ids.iter().filter(|id| **id == short_ids[i]).count() > 1
                || inputs.contains(&short_ids[i]);
            if clashes {
                folder(f).join(result_name(f, None, ext, true))
            } else {
                short[i].clone()
            }
        })
        .collect();
    let ids: Vec<PathBuf> = dests.iter().map(|p| identity(p)).collect();
    for (i, id) in ids.iter().enumerate() {
        if inputs.contains(id) || ids[..i].contains(id) {
            return Err(UsageError(format!(
                "the result of {} would be written to {}, which is an input or another result",
                files[i].display(),
                dests[i].display()
            )));
        }
    }
    Ok(dests.into_iter().map(Dest::File).collect())
}

/// Streams a result through a temporary file in the same folder and renames it into place
/// once `render` succeeded, so a failed conversion or write never leaves a truncated result
/// where an earlier good one was. The outer error is an I/O failure of the file itself.
fn write_result<T, E>(
    path: &Path,
    render: impl FnOnce(&mut dyn Write) -> Result<T, E>,
) -> std::io::Result<Result<T, E>> {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = folder.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| {
        let file = std::fs::File::create(&tmp)?;
        let mut out = Recording::new(std::io::BufWriter::with_capacity(1 << 16, file));
        let result = render(&mut out);
        let flushed = out.flush();
        if let Some(e) = out.error.take().or(flushed.err()) {
            return Err(e);
        }
        if result.is_ok() {
            std::fs::rename(&tmp, path)?;
        }
        Ok(result)
    })();
    if !matches!(written, Ok(Ok(_))) {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// `quire convert`: one file or several, see [`ConvertArgs`] for where results go.
pub fn convert(args: &ConvertArgs, config: &Config) -> anyhow::Result<i32> {
    let (format, ext) = match args.format {
        FormatArg::Md => (OutputFormat::Markdown, "md"),
        FormatArg::Json => (OutputFormat::Json, "json"),
        FormatArg::Chunks => (OutputFormat::Chunks, "chunks.json"),
    };
    let chunking = match args.chunks.options(format == OutputFormat::Chunks, config) {
        Ok(c) => c,
        Err(message) => {
            eprintln!("quire: {message}");
            return Ok(2);
        }
    };
    if let Some(c) = &chunking {
        // The tokenizer loads beside the engine's set-up and the first conversion.
        crate::render::tokenize::preload(&c.tokenizer);
    }
    let planned = plan(args, ext).and_then(|d| job_options(args, &d).map(|o| (d, o)));
    let (dests, options) = match planned {
        Ok(d) => d,
        Err(UsageError(message)) => {
            eprintln!("quire: {message}");
            return Ok(2);
        }
    };
    if args.files.len() > 1 {
        if let Some(out) = &args.output {
            if let Err(e) = std::fs::create_dir_all(out) {
                eprintln!("quire: cannot create the folder {}: {e}", out.display());
                return Ok(2);
            }
        }
    }
    let engine = engine(config)?;
    let several = args.files.len() > 1;
    let mut status = 0;
    let mut failed: Vec<String> = Vec::new();
    for (input, dest) in args.files.iter().zip(&dests) {
        let run = RunSettings {
            format,
            options: &options,
            chunking: chunking.as_ref(),
            several,
        };
        let code = convert_one(&engine, args, &run, input, dest);
        if code != 0 {
            failed.push(input.display().to_string());
        }
        status = status.max(code);
    }
    if several && !failed.is_empty() {
        eprintln!(
            "quire: {} of {} files failed: {}",
            failed.len(),
            args.files.len(),
            failed.join(", ")
        );
    }
    Ok(status)
}

/// What every file of one `quire convert` run shares.
#[derive(Clone, Copy)]
struct RunSettings<'a> {
    format: OutputFormat,
    options: &'a JobOptions,
    chunking: Option<&'a crate::render::chunks::ChunkOptions>,
    several: bool,
}

/// Converts one input to `dest`; 0 on success, 1 when the conversion or the write failed,
/// 2 when the input could not be read. Every message names the input when there are several.
fn convert_one(
    engine: &Engine,
    args: &ConvertArgs,
    run: &RunSettings<'_>,
    input: &Path,
    dest: &Dest,
) -> i32 {
    let RunSettings {
        format,
        options,
        chunking,
        several,
    } = *run;
    let from_stdin = is_stdin(input);
    let what = if from_stdin {
        "standard input".to_string()
    } else {
        input.display().to_string()
    };
    let prefix = if several {
        format!("quire: {what}: ")
    } else {
        "quire: ".to_string()
    };
    let read = if from_stdin {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut b).map(|_| b)
    } else {
        std::fs::read(input)
    };
    let bytes = match read {
        Ok(b) => b,
        Err(e) => {
            eprintln!("quire: cannot read {what}: {e}");
            return 2;
        }
    };
    let file_name = match (&args.name, from_stdin) {
        (Some(name), _) => name.clone(),
        (None, true) => "stdin".to_string(),
        (None, false) => input
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
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
    let result = engine.convert_document_with(&request, &mut control, options);
    if show_progress {
        eprint!("\r\x1b[K");
    }
    let converted = match result {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{prefix}{}", e.message());
            return 1;
        }
    };
    let render = RenderRequest {
        file_name: &file_name,
        format,
        ocr_provider: args.ocr.then_some(args.ocr_provider.as_str()),
        input_bytes: bytes.len(),
        images: args.image_mode.output(),
        chunking,
    };
    // The document holds all that rendering needs: the input goes before the output is
    // written, which streams to its destination instead of being built whole.
    drop(bytes);
    let result = match dest {
        Dest::File(path) => {
            let written = write_result(path, |out| {
                engine.render_to(&converted, &render, started, out)
            });
            match written {
                Ok(result) => {
                    if result.is_ok() && args.image_mode == ImageModeArg::Referenced {
                        let dir = path
                            .parent()
                            .unwrap_or(Path::new("."))
                            .join(crate::render::files::IMAGE_DIR);
                        if let Err(e) =
                            crate::render::files::write_images(&converted.document, &dir)
                        {
                            eprintln!("{prefix}cannot write the images to {}: {e}", dir.display());
                            return 1;
                        }
                    }
                    if result.is_ok() && several && show_progress {
                        eprintln!("quire: {what} -> {}", path.display());
                    }
                    result
                }
                Err(e) => {
                    eprintln!("{prefix}cannot write {}: {e}", path.display());
                    return 1;
                }
            }
        }
        Dest::Stdout => {
            let mut out = Recording::new(std::io::stdout().lock());
            let result = engine.render_to(&converted, &render, started, &mut out);
            let flushed = out.flush();
            if let Some(e) = out.error.take().or(flushed.err()) {
                eprintln!("quire: cannot write to standard output: {e}");
                return 1;
            }
            result
        }
    };
    match result {
        Ok(outcome) => {
            if let Some(w) = outcome.metadata.get("warnings").and_then(|w| w.as_array()) {
                for warning in w {
                    eprintln!("{prefix}warning: {}", warning.as_str().unwrap_or_default());
                }
            }
            0
        }
        Err(e) => {
            eprintln!("{prefix}{}", e.message());
            1
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
    let (converter_readiness, readiness) = config.readiness(&registry);
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
