//! The Model Context Protocol server: `quire mcp` over stdio, and Streamable HTTP at `/mcp` on
//! `quire serve` (built on the official Rust SDK, `rmcp`).
//!
//! Tools: `convert` (a document given as base64 content or as a path under `MCP_ALLOWED_DIRS`,
//! to Markdown, JSON or chunks, with the job options), `list_formats` (converters, OCR
//! providers and tokenizers with their readiness) and, on the server, `create_job`, `get_job`
//! and `get_job_result`. Conversions keep the limits and the isolation of HTTP jobs: over stdio
//! each runs in a conversion child (`service::isolate`) under `CONVERSION_TIMEOUT` and
//! `CONVERSION_MAX_MEMORY`; on the server `convert` is a job like any other, queued to the
//! workers, and waited for.
//!
//! A failure the caller can act on (an unreadable or unsupported file, a bad option) is a tool
//! result with `isError: true` and a message for people, as the protocol asks; protocol errors
//! are left to the SDK.

use crate::config::Config;
use crate::registry::Registry;
use crate::render::chunks::ChunkOptions;
use crate::render::OutputFormat;
use crate::service::auth::Caller;
use crate::service::isolate::{self, ChildOutcome, ChildSpec};
use crate::service::job::{Job, JobSpec};
use crate::service::Shared;
use base64::Engine as _;
use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{tool, tool_handler, tool_router, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// What `convert` and `create_job` take.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct ConvertParams {
    /// The document's bytes, base64-encoded (standard alphabet). Give this or `path`.
    #[serde(default)]
    pub content_base64: Option<String>,
    /// A file under one of the server's allowed folders (`MCP_ALLOWED_DIRS`). Give this or
    /// `content_base64`.
    #[serde(default)]
    pub path: Option<String>,
    /// The document's file name; its extension decides text types (`notes.csv`). Defaults to
    /// the path's file name, or "document".
    #[serde(default)]
    pub file_name: Option<String>,
    /// `md` (Markdown, the default), `json` (structured JSON) or `chunks` (retrieval chunks).
    #[serde(default)]
    pub output_format: Option<String>,
    /// Read images and scanned pages with OCR.
    #[serde(default)]
    pub use_ocr: Option<bool>,
    /// `provider_one` (Tesseract, the default), `provider_two` (PP-OCR) or `provider_three`.
    #[serde(default)]
    pub ocr_provider: Option<String>,
    /// Chunks: the most tokens a chunk may hold (default 512).
    #[serde(default)]
    pub max_tokens: Option<u64>,
    /// Chunks: tokens repeated from the previous chunk's end (default 0).
    #[serde(default)]
    pub overlap_tokens: Option<u64>,
    /// Chunks: `cl100k` (default), `o200k`, or a tokenizer the server names.
    #[serde(default)]
    pub tokenizer: Option<String>,
    /// Chunks: prefix each chunk's text with its headings (default true).
    #[serde(default)]
    pub include_heading_path: Option<bool>,
}

/// A job id.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct JobParams {
    /// The job's id (from `create_job`).
    pub job_id: String,
}

/// Where conversions run.
#[derive(Clone)]
enum Backend {
    /// `quire mcp`: each conversion in a conversion child of this process.
    Local { config: Arc<Config>, exe: PathBuf },
    /// `/mcp` on `quire serve`: conversions are jobs of the service.
    Service(Arc<Shared>),
}

/// The MCP server.
#[derive(Clone)]
pub struct QuireMcp {
    backend: Backend,
    allowed_dirs: Arc<Vec<PathBuf>>,
    tool_router: ToolRouter<QuireMcp>,
}

/// A validated conversion request.
struct Request {
    bytes: Vec<u8>,
    file_name: String,
    format: OutputFormat,
    ocr_provider: Option<String>,
    chunking: Option<ChunkOptions>,
}

fn failure(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.into())])
}

fn success(text: String) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// The folders of `MCP_ALLOWED_DIRS` (`:`-separated), or `default` when unset; each resolved
/// to its real path (a folder that does not exist is left out).
pub fn allowed_dirs(config: &Config, default: Vec<PathBuf>) -> Vec<PathBuf> {
    let dirs: Vec<PathBuf> = match &config.mcp_allowed_dirs {
        Some(list) => std::env::split_paths(list)
            .filter(|p| !p.as_os_str().is_empty())
            .collect(),
        None => default,
    };
    dirs.into_iter()
        .filter_map(|d| std::fs::canonicalize(d).ok())
        .collect()
}

impl QuireMcp {
    /// The stdio server: conversions in children of `exe`, paths under the working directory
    /// unless `MCP_ALLOWED_DIRS` says otherwise.
    pub fn local(config: Config, exe: PathBuf) -> QuireMcp {
        let cwd = std::env::current_dir().into_iter().collect();
        let allowed = allowed_dirs(&config, cwd);
        let mut tool_router = Self::tool_router();
        for name in ["create_job", "get_job", "get_job_result"] {
            tool_router.remove_route(name);
        }
        QuireMcp {
            backend: Backend::Local {
                config: Arc::new(config),
                exe,
            },
            allowed_dirs: Arc::new(allowed),
            tool_router,
        }
    }

    /// The server's `/mcp`: conversions are jobs; paths only under `MCP_ALLOWED_DIRS`.
    pub fn service(shared: Arc<Shared>) -> QuireMcp {
        let allowed = allowed_dirs(&shared.config, Vec::new());
        QuireMcp {
            backend: Backend::Service(shared),
            allowed_dirs: Arc::new(allowed),
            tool_router: Self::tool_router(),
        }
    }

    fn config(&self) -> &Config {
        match &self.backend {
            Backend::Local { config, .. } => config,
            Backend::Service(shared) => &shared.config,
        }
    }

    /// Checks the parameters and reads the document (bounded by `MAX_FILE_SIZE`).
    fn request(&self, p: ConvertParams) -> Result<Request, String> {
        let config = self.config();
        let format = match p.output_format.as_deref().map(str::trim) {
            None | Some("") => OutputFormat::Markdown,
            Some(v) => OutputFormat::parse(v)
                .ok_or_else(|| format!("output_format should be md, json or chunks, not {v:?}."))?,
        };
        let ocr_provider = if p.use_ocr.unwrap_or(false) {
            let id = p.ocr_provider.as_deref().unwrap_or("provider_one").trim();
            if !crate::service::upload::OCR_PROVIDERS.contains(&id) {
                return Err(format!(
                    "ocr_provider should be provider_one, provider_two or provider_three, not {id:?}."
                ));
            }
            Some(id.to_owned())
        } else {
            None
        };
        let files = config.chunk_tokenizer_files().map_err(|e| e.to_string())?;
        let raw = |field: &str| -> Option<String> {
            match field {
                "max_tokens" => p.max_tokens.map(|n| n.to_string()),
                "overlap_tokens" => p.overlap_tokens.map(|n| n.to_string()),
                "tokenizer" => p.tokenizer.clone(),
                "include_heading_path" => p.include_heading_path.map(|b| b.to_string()),
                _ => None,
            }
        };
        let chunks = format == OutputFormat::Chunks;
        let chunking = match ChunkOptions::from_fields(&raw, chunks, &files) {
            Ok(o) => chunks.then_some(o),
            Err(errors) => {
                return Err(errors
                    .into_iter()
                    .map(|(field, _, message, _)| format!("{field}: {message}."))
                    .collect::<Vec<_>>()
                    .join(" "))
            }
        };
        let max = config.max_file_size;
        let (bytes, default_name) = match (&p.content_base64, &p.path) {
            (Some(_), Some(_)) => return Err("Give content_base64 or path, not both.".into()),
            (None, None) => return Err("Give the document as content_base64 or as a path.".into()),
            (Some(b64), None) => {
                // Base64 is 4/3 of the bytes: refuse what cannot fit before decoding.
                if (b64.len() as u64) / 4 * 3 > max + 3 {
                    return Err(too_large(max));
                }
                let cleaned: String = b64.chars().filter(|c| !c.is_ascii_whitespace()).collect();
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(cleaned.as_bytes())
                    .map_err(|_| "content_base64 is not valid base64.".to_owned())?;
                (bytes, "document".to_owned())
            }
            (None, Some(path)) => {
                let file = self.allowed_file(path)?;
                let len = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
                if len > max {
                    return Err(too_large(max));
                }
                let bytes = std::fs::read(&file)
                    .map_err(|_| format!("The file {path} could not be read."))?;
                let name = file
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "document".into());
                (bytes, name)
            }
        };
        if bytes.is_empty() {
            return Err("The document is empty.".into());
        }
        if bytes.len() as u64 > max {
            return Err(too_large(max));
        }
        let file_name = p
            .file_name
            .as_deref()
            .map(crate::service::job::client_file_name)
            .filter(|n| !n.is_empty())
            .unwrap_or(default_name);
        Ok(Request {
            bytes,
            file_name,
            format,
            ocr_provider,
            chunking,
        })
    }

    /// `path` resolved (symbolic links followed) to a regular file inside an allowed folder.
    fn allowed_file(&self, path: &str) -> Result<PathBuf, String> {
        if self.allowed_dirs.is_empty() {
            return Err(
                "This server reads no files by path; send the document as content_base64.".into(),
            );
        }
        let given = Path::new(path);
        let candidate = if given.is_absolute() {
            given.to_path_buf()
        } else {
            self.allowed_dirs[0].join(given)
        };
        let not_allowed = || format!("{path} is not a file in the folders this server may read.");
        let real = std::fs::canonicalize(&candidate).map_err(|_| not_allowed())?;
        if !self.allowed_dirs.iter().any(|d| real.starts_with(d)) || !real.is_file() {
            return Err(not_allowed());
        }
        Ok(real)
    }

    /// Runs a conversion in a conversion child (stdio server).
    async fn convert_local(&self, config: &Config, exe: &Path, req: Request) -> CallToolResult {
        let dir = TempDir::new();
        if std::fs::create_dir(&dir.0).is_err() {
            return failure("The conversion could not be started.");
        }
        let output = dir.0.join("output");
        let spec = ChildSpec {
            input: dir.0.join("input"),
            inline: Some(Arc::from(req.bytes.into_boxed_slice())),
            output: output.clone(),
            file_name: req.file_name,
            format: req.format.as_str().to_owned(),
            chunking: req.chunking,
            ocr_provider: req.ocr_provider,
            timeout_secs: config.conversion_timeout,
            config: config.clone(),
            test_faults: false,
            options: Default::default(),
            password: None,
            images_dir: None,
        };
        match isolate::run(exe, &spec, |_, _| {}).await {
            ChildOutcome::Done(_) => match tokio::fs::read(&output).await {
                Ok(bytes) => success(String::from_utf8_lossy(&bytes).into_owned()),
                Err(_) => failure("The converted output could not be read."),
            },
            ChildOutcome::Failed { message, .. } => failure(message),
            ChildOutcome::Cancelled => failure("The conversion was cancelled."),
        }
    }

    fn list(&self) -> Value {
        let config = self.config();
        let registry = match &self.backend {
            Backend::Service(shared) => &shared.registry,
            Backend::Local { .. } => local_registry(),
        };
        let (converters, providers) = config.readiness(registry);
        let formats: Vec<Value> = registry
            .converters()
            .iter()
            .map(|d| {
                let r = &converters[d.id];
                json!({
                    "id": d.id, "name": d.name, "mime_types": d.mime_types,
                    "extensions": d.extensions, "ready": r.ready, "detail": r.detail,
                })
            })
            .collect();
        let ocr: Vec<Value> = crate::registry::OCR_PROVIDER_IDS
            .iter()
            .map(|id| {
                let r = &providers[*id];
                let built = registry.ocr_provider(id).ok();
                json!({
                    "id": id, "name": built.map(|p| p.name), "built_in": built.is_some(),
                    "ready": r.ready, "detail": r.detail,
                })
            })
            .collect();
        let mut tokenizers: Vec<String> = crate::render::tokenize::BUILT_IN
            .iter()
            .map(|s| s.to_string())
            .collect();
        if let Ok(files) = config.chunk_tokenizer_files() {
            tokenizers.extend(files.into_iter().map(|(n, _)| n));
        }
        json!({
            "output_formats": ["md", "json", "chunks"],
            "converters": formats,
            "ocr_providers": ocr,
            "tokenizers": tokenizers,
            "max_file_size": config.max_file_size,
        })
    }
}

/// A private folder for one conversion's output, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> TempDir {
        TempDir(std::env::temp_dir().join(format!("quire-mcp-{}", uuid::Uuid::new_v4())))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn too_large(max: u64) -> String {
    format!(
        "The document is larger than the limit of {} MB.",
        max as f64 / 1_048_576.0
    )
}

fn local_registry() -> &'static Registry {
    static REGISTRY: std::sync::OnceLock<Registry> = std::sync::OnceLock::new();
    REGISTRY.get_or_init(|| {
        Registry::from_inventory().expect("the plugin registry was checked at start")
    })
}

#[tool_router]
impl QuireMcp {
    #[tool(
        description = "Convert a document (PDF, DOCX, PPTX, XLSX/XLS/CSV, HTML, Markdown, text, RTF, JSON, XML, images) to Markdown (`md`), structured JSON (`json`) or retrieval chunks (`chunks`: JSON with each chunk's text, heading path, pages/slide/sheet and token count). Give the document as base64 `content_base64` or as a `path` the server may read."
    )]
    async fn convert(
        &self,
        Parameters(p): Parameters<ConvertParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let req = match self.request(p) {
            Ok(r) => r,
            Err(message) => return failure(message),
        };
        match &self.backend {
            Backend::Local { config, exe } => {
                let config = config.clone();
                self.convert_local(&config, exe, req).await
            }
            Backend::Service(shared) => {
                let job = match create(shared, req, &caller(&ctx)).await {
                    Ok(job) => job,
                    Err(message) => return failure(message),
                };
                let deadline = tokio::time::Instant::now()
                    + Duration::from_secs(shared.config.conversion_timeout * 4 + 60);
                // Woken by the job's changes (the events hub), not by reading the store.
                let ended =
                    crate::service::events::until_final(shared, &job.spec.id, deadline).await;
                match ended {
                    Some(true) => match shared.store.get(&job.spec.id).await {
                        Ok(Some(j)) => result(shared, &j).await,
                        Ok(None) => failure("The job was deleted."),
                        Err(_) => failure(format!(
                            "The job store is unavailable; read the result later with get_job_result (job {}).",
                            job.spec.id
                        )),
                    },
                    Some(false) => failure("The job was deleted."),
                    None => failure(format!(
                        "The conversion is still running; read it later with get_job_result (job {}).",
                        job.spec.id
                    )),
                }
            }
        }
    }

    #[tool(
        description = "List the document formats this server converts and the OCR providers, each with its readiness, the output formats and the tokenizers of chunks."
    )]
    async fn list_formats(&self) -> CallToolResult {
        success(serde_json::to_string_pretty(&self.list()).unwrap_or_default())
    }

    #[tool(
        description = "Create a conversion job (same parameters as convert) and return it at once, with its id and status; read it with get_job and get_job_result."
    )]
    async fn create_job(
        &self,
        Parameters(p): Parameters<ConvertParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let Backend::Service(shared) = &self.backend else {
            return failure("Jobs exist only on the server's /mcp.");
        };
        let req = match self.request(p) {
            Ok(r) => r,
            Err(message) => return failure(message),
        };
        match create(shared, req, &caller(&ctx)).await {
            Ok(job) => success(serde_json::to_string_pretty(&job.view()).unwrap_or_default()),
            Err(message) => failure(message),
        }
    }

    #[tool(
        description = "Read a job: its status (pending, processing, completed, failed), progress, error and facts about the run."
    )]
    async fn get_job(
        &self,
        Parameters(p): Parameters<JobParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let Backend::Service(shared) = &self.backend else {
            return failure("Jobs exist only on the server's /mcp.");
        };
        match load(shared, &p.job_id, &caller(&ctx)).await {
            Ok(job) => success(serde_json::to_string_pretty(&job.view()).unwrap_or_default()),
            Err(message) => failure(message),
        }
    }

    #[tool(
        description = "Read the result of a completed job: the Markdown, JSON or chunks it produced."
    )]
    async fn get_job_result(
        &self,
        Parameters(p): Parameters<JobParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let Backend::Service(shared) = &self.backend else {
            return failure("Jobs exist only on the server's /mcp.");
        };
        match load(shared, &p.job_id, &caller(&ctx)).await {
            Ok(job) => result(shared, &job).await,
            Err(message) => failure(message),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for QuireMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_instructions(
            "quire converts documents to Markdown, structured JSON or retrieval chunks. \
             Call list_formats for what it reads, then convert.",
        )
    }
}

/// Who calls over HTTP: the [`Caller`] the API-key guard put in the request (`/mcp` is
/// behind the same keys as the API); with keys off, or over stdio, a caller who sees all.
fn caller(ctx: &RequestContext<RoleServer>) -> Caller {
    ctx.extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Caller>().cloned())
        .unwrap_or(Caller { tenant: None })
}

/// A job the caller may see (another tenant's job is "not found", as over the API).
async fn load(shared: &Shared, id: &str, caller: &Caller) -> Result<Job, String> {
    if uuid::Uuid::parse_str(id).is_err() {
        return Err("Job not found.".into());
    }
    match shared.store.get(id).await {
        Ok(Some(job)) if caller.may_see(&job) => Ok(job),
        Ok(Some(_)) => Err("Job not found.".into()),
        Ok(None) => Err("Job not found.".into()),
        Err(_) => Err("The job store is unavailable; try again shortly.".into()),
    }
}

/// A finished job's output, or why there is none.
async fn result(shared: &Shared, job: &Job) -> CallToolResult {
    use crate::service::job::Status;
    match job.state.status {
        Status::Completed => {}
        Status::Failed => {
            return failure(format!(
                "Job failed: {}",
                job.state
                    .error_message
                    .as_deref()
                    .unwrap_or("unknown error")
            ))
        }
        _ => return failure("Job is not completed yet."),
    }
    match tokio::fs::read(crate::service::worker::output_path(shared, job)).await {
        Ok(bytes) => success(String::from_utf8_lossy(&bytes).into_owned()),
        Err(_) => failure("Result file not found."),
    }
}

/// Creates a job on the service, as `POST /api/v1/jobs` does for an upload.
async fn create(shared: &Arc<Shared>, req: Request, caller: &Caller) -> Result<Job, String> {
    use crate::service::api::{self, NewInput};
    use crate::service::errors::ApiError;
    let mime = api::supported(shared, crate::detect::detect(&req.bytes, &req.file_name))
        .map_err(|e| match e {
            ApiError::Unsupported(message) => message,
            _ => "The file type could not be detected.".to_owned(),
        })?
        .mime;
    if let Some(id) = &req.ocr_provider {
        if shared.registry.ocr_provider(id).is_err() {
            return Err(format!("OCR provider {id} is not built into this server."));
        }
    }
    let config = &shared.config;
    let id = uuid::Uuid::new_v4().to_string();
    let base = config
        .public_base_url
        .clone()
        .unwrap_or_else(|| format!("http://{}:{}", config.host, config.port));
    let spec = JobSpec {
        id: id.clone(),
        file_name: req.file_name,
        output_format: req.format,
        chunking: req.chunking,
        use_ocr: req.ocr_provider.is_some(),
        ocr_provider: Some(req.ocr_provider.unwrap_or_else(|| "provider_one".into())),
        notify_url: config.default_webhook_url.clone(),
        webhook_url: None,
        result_url: format!(
            "{}{}/jobs/{id}/result",
            base.trim_end_matches('/'),
            config.api_prefix
        ),
        created_at: chrono::Utc::now(),
        input_bytes: req.bytes.len() as u64,
        mime: mime.to_string(),
        input_in_store: false,
        options: Default::default(),
    };
    let mut job = Job::new(spec);
    job.owner = caller.tenant.clone();
    let input = if req.bytes.len() <= shared.store.inline_input_limit() {
        NewInput::Inline(req.bytes)
    } else {
        tokio::fs::write(crate::service::worker::upload_path(shared, &id), &req.bytes)
            .await
            .map_err(|_| "The document could not be stored.".to_owned())?;
        NewInput::Kept
    };
    // MAX_QUEUED_JOBS holds here too: a refusal says when to come back.
    api::enqueue(shared, &mut job, input)
        .await
        .map_err(|e| match e {
            ApiError::TooManyRequests(message, _) => message,
            _ => "The job store is unavailable; try again shortly.".to_owned(),
        })?;
    Ok(job)
}

/// `quire mcp`: the MCP server on stdin/stdout until the client closes it. Logs go to stderr
/// (stdout carries the protocol).
pub fn run_stdio(config: Config) -> anyhow::Result<i32> {
    use anyhow::Context as _;
    let exe = std::env::current_exe().context("cannot locate the quire binary")?;
    // Fail now, not on the first call, when the plugins are inconsistent.
    let _ = Registry::from_inventory()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async move {
        let server = QuireMcp::local(config, exe)
            .serve(rmcp::transport::stdio())
            .await
            .context("the MCP session could not start")?;
        server.waiting().await.context("the MCP session failed")?;
        Ok::<_, anyhow::Error>(())
    })?;
    Ok(0)
}

/// `/mcp` on `quire serve`: Streamable HTTP, one stateless exchange per request. The API-key
/// check (when the server has keys) wraps this router in `service::api::router`.
pub fn router<S: Clone + Send + Sync + 'static>(shared: Arc<Shared>) -> axum::Router<S> {
    use rmcp::transport::streamable_http_server::{
        session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
    };
    let config = &shared.config;
    // Keep-alives well inside HTTP_IDLE_TIMEOUT, or the listener closes a quiet stream.
    let keep_alive = Duration::from_secs((config.http_idle_timeout / 3).clamp(1, 15));
    // Base64 makes a document 4/3 larger; JSON-RPC adds a little.
    let body_limit = (config.max_file_size / 3 * 4 + (1 << 20)).min(usize::MAX as u64) as usize;
    let mut http = StreamableHttpServerConfig::default()
        .with_sse_keep_alive(Some(keep_alive))
        .with_json_response(true)
        .with_max_request_body_bytes(body_limit);
    // The rest of the API does not check Host either; with a public base URL, its host too.
    http = match config.public_base_url.as_deref().and_then(host_of) {
        Some(host) => http.with_allowed_hosts([
            "localhost".to_owned(),
            "127.0.0.1".to_owned(),
            "::1".to_owned(),
            host,
        ]),
        None => http.disable_allowed_hosts(),
    };
    let factory_shared = shared.clone();
    let service: StreamableHttpService<QuireMcp, LocalSessionManager> = StreamableHttpService::new(
        move || Ok(QuireMcp::service(factory_shared.clone())),
        Default::default(),
        http,
    );
    axum::Router::new().nest_service("/mcp", service)
}

fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split('/').next()?;
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if host.starts_with('[') {
        host.split(']').next()?.trim_start_matches('[')
    } else {
        host.split(':').next()?
    };
    (!host.is_empty()).then(|| host.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_url_hosts() {
        assert_eq!(
            host_of("https://quire.example.com/x").as_deref(),
            Some("quire.example.com")
        );
        assert_eq!(host_of("http://a.b:8080").as_deref(), Some("a.b"));
        assert_eq!(host_of("http://[::1]:8080/").as_deref(), Some("::1"));
        assert_eq!(host_of("nonsense"), None);
    }

    fn local(dirs: &[&Path]) -> QuireMcp {
        let config = Config {
            mcp_allowed_dirs: Some(
                std::env::join_paths(dirs)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
            ),
            ..Config::default()
        };
        QuireMcp::local(config, PathBuf::from("quire"))
    }

    #[test]
    fn paths_outside_the_allowed_folders_are_refused() {
        let allowed = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        std::fs::write(allowed.path().join("a.txt"), "hello").unwrap();
        std::fs::write(other.path().join("secret.txt"), "no").unwrap();
        let server = local(&[allowed.path()]);
        let p = |path: &str| ConvertParams {
            path: Some(path.to_owned()),
            ..ConvertParams::default()
        };
        let ok = server.request(p("a.txt")).ok().unwrap();
        assert_eq!(
            (ok.bytes.as_slice(), ok.file_name.as_str()),
            (&b"hello"[..], "a.txt")
        );
        let outside = other.path().join("secret.txt");
        for bad in [
            outside.to_str().unwrap(),
            "../secret.txt",
            "/etc/passwd",
            "missing.txt",
        ] {
            let e = server.request(p(bad)).err().unwrap();
            assert!(e.contains("not a file in the folders"), "{bad}: {e}");
            assert!(
                !e.contains(other.path().to_str().unwrap())
                    || bad.contains(other.path().to_str().unwrap())
            );
        }
        // A link inside the folder that points outside is outside.
        std::os::unix::fs::symlink(&outside, allowed.path().join("link.txt")).unwrap();
        assert!(server.request(p("link.txt")).is_err());
        let none = local(&[]);
        let e = none.request(p("a.txt")).err().unwrap();
        assert!(e.contains("content_base64"), "{e}");
    }

    #[test]
    fn parameters_are_checked() {
        let server = local(&[]);
        let b64 = |s: &str| Some(base64::engine::general_purpose::STANDARD.encode(s));
        let e = server
            .request(ConvertParams {
                content_base64: b64("x"),
                max_tokens: Some(100),
                ..ConvertParams::default()
            })
            .err()
            .unwrap();
        assert!(e.contains("only with output_format chunks"), "{e}");
        let r = server
            .request(ConvertParams {
                content_base64: b64("# Title"),
                file_name: Some("../dir/notes.md".into()),
                output_format: Some("chunks".into()),
                max_tokens: Some(100),
                ..ConvertParams::default()
            })
            .ok()
            .unwrap();
        assert_eq!(r.file_name, "notes.md");
        assert_eq!(r.chunking.unwrap().max_tokens, 100);
        for (params, says) in [
            (ConvertParams::default(), "content_base64 or as a path"),
            (
                ConvertParams {
                    content_base64: Some("%%%".into()),
                    ..ConvertParams::default()
                },
                "not valid base64",
            ),
            (
                ConvertParams {
                    content_base64: b64(""),
                    ..ConvertParams::default()
                },
                "empty",
            ),
            (
                ConvertParams {
                    content_base64: b64("x"),
                    output_format: Some("pdf".into()),
                    ..ConvertParams::default()
                },
                "output_format",
            ),
            (
                ConvertParams {
                    content_base64: b64("x"),
                    use_ocr: Some(true),
                    ocr_provider: Some("x".into()),
                    ..ConvertParams::default()
                },
                "ocr_provider",
            ),
        ] {
            let e = server.request(params).err().unwrap();
            assert!(e.contains(says), "{e}");
        }
    }
}
