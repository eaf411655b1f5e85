//! The HTTP API (axum): routes, handlers and the middleware around them.

use super::errors::{detail, ApiError, ErrorDetail, ValidationErrors};
use super::job::{download_name, timestamp, Job, JobSpec, JobView};
use super::upload::{read_form, OcrPolicy, Upload};
use super::{openapi, retention, webui, worker, Shared};
use axum::body::Body;
use axum::extract::{FromRequest, Multipart, Path, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use chrono::Utc;
use futures::FutureExt;
use serde::Serialize;
use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use tower_http::cors::{AllowOrigin, Any, CorsLayer};

/// The listener of a `quire worker` process (`WORKER_METRICS_PORT`): its metrics and liveness.
pub fn worker_router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/metrics", get(metrics))
        .route("/health", get(health))
        .with_state(shared)
}

/// The whole application.
pub fn router(shared: Arc<Shared>) -> Router {
    let prefix = shared.config.api_prefix.clone();
    let api = Router::new()
        .route(
            "/jobs",
            post(create_job)
                .layer(axum::extract::DefaultBodyLimit::disable())
                .get(super::auth::list_jobs),
        )
        .route("/jobs/{job_id}", get(get_job).delete(delete_job))
        .route("/jobs/{job_id}/events", get(super::events::job_events))
        .route("/jobs/{job_id}/result", get(get_result))
        .route("/jobs/{job_id}/images/{name}", get(get_image))
        .route("/health", get(health))
        .route("/ready", get(ready))
        .route("/formats", get(formats))
        .route("/openapi.json", get(openapi::openapi_json));
    Router::new()
        .nest(&prefix, api)
        // MCP over Streamable HTTP (issue 15). The API-key check wraps this router too.
        .merge(crate::mcp::router(shared.clone()))
        .route("/docs", get(openapi::docs_page))
        .route("/metrics", get(metrics))
        .merge(webui::routes())
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(
            shared.clone(),
            super::auth::api_guard,
        ))
        .layer(middleware::from_fn_with_state(shared.clone(), observe))
        .layer(cors(&shared.config))
        .layer(tower_http::trace::TraceLayer::new_for_http())
        .with_state(shared)
}

fn cors(config: &crate::config::Config) -> CorsLayer {
    let layer = CorsLayer::new()
        .allow_methods([Method::GET, Method::POST, Method::DELETE, Method::OPTIONS])
        .allow_headers(Any)
        .expose_headers([header::LOCATION, header::CONTENT_DISPOSITION])
        .max_age(Duration::from_secs(600));
    match config.allowed_origin_list() {
        None => layer.allow_origin(Any),
        Some(list) => {
            let values: Vec<HeaderValue> = list
                .iter()
                .filter_map(|o| HeaderValue::from_str(o.trim_end_matches('/')).ok())
                .collect();
            layer.allow_origin(AllowOrigin::list(values))
        }
    }
}

/// Around every request: a panic in a handler becomes a 500, the status is counted, and one
/// access-log line is written at INFO (target `quire::access`): method, the route's path
/// template (`/api/v1/jobs/{job_id}`, never the concrete path or query string, so neither ids
/// nor anything a client put in a URL reaches the log), status and duration. No header or
/// body is logged.
async fn observe(State(shared): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    let started = std::time::Instant::now();
    let method = req.method().clone();
    let path = req
        .extensions()
        .get::<axum::extract::MatchedPath>()
        .map(|p| p.as_str().to_string())
        .unwrap_or_else(|| "(no route)".to_string());
    let response = match AssertUnwindSafe(next.run(req)).catch_unwind().await {
        Ok(r) => r,
        Err(panic) => {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            ApiError::Internal(format!("handler panicked: {what}")).into_response()
        }
    };
    let status = response.status().as_u16();
    shared.metrics.http_response(status);
    let duration_ms = (started.elapsed().as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0;
    tracing::info!(target: "quire::access", method = %method, path = %path, status, duration_ms,
        "request");
    response
}

async fn not_found() -> Response {
    detail(StatusCode::NOT_FOUND, "Not Found")
}

async fn method_not_allowed() -> Response {
    detail(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed")
}

/// The multipart form of `POST /api/v1/jobs` (for the OpenAPI document).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct CreateJobForm {
    /// The document to convert.
    #[schema(value_type = String, format = Binary)]
    file: Vec<u8>,
    /// `md` or `json`.
    #[schema(value_type = crate::render::OutputFormat)]
    output_format: String,
    /// A http(s) URL that receives the completion notification.
    webhook_url: Option<String>,
    /// true/false, 1/0, yes/no, on/off. Default false.
    use_ocr: Option<bool>,
    /// provider_one (default), provider_two or provider_three.
    ocr_provider: Option<String>,
    /// How images appear: `embedded` (default, base64), `referenced` (`images/<name>` links;
    /// files at `/jobs/{id}/images/{name}` and in `/jobs/{id}/result?bundle=zip`),
    /// `placeholder` (`<!-- image: alt -->`) or `none`. JSON output keeps its `images` map
    /// only when `embedded`.
    #[schema(value_type = Option<crate::render::ImageOutput>)]
    image_mode: Option<String>,
    /// Pages of a PDF or slides of a presentation to convert, `1-3,7` (`5-`: to the end);
    /// other types answer 422. The job fails when none of them exists.
    pages: Option<String>,
    /// The password of an encrypted PDF, DOCX, XLSX or PPTX. Never echoed, logged or kept
    /// after the job ends.
    #[schema(format = Password)]
    password: Option<String>,
    /// OCR every page, even one with a text layer (which is then ignored); needs use_ocr.
    force_ocr: Option<bool>,
    /// OCR languages for this job, comma-separated as OCR_LANGUAGE takes them (`en,de`);
    /// needs use_ocr. 422 when the provider cannot read one.
    ocr_language: Option<String>,
}

#[utoipa::path(post, path = "/api/v1/jobs", tag = "jobs",
    request_body(content = CreateJobForm, content_type = "multipart/form-data"),
    responses(
        (status = 202, description = "Job created; `Location` names it", body = JobView),
        (status = 400, description = "The body is not a readable multipart form, or has too many parts", body = ErrorDetail),
        (status = 413, description = "File over MAX_FILE_SIZE", body = ErrorDetail),
        (status = 415, description = "Unsupported or undetectable file type", body = ErrorDetail),
        (status = 422, description = "Missing or invalid field", body = ValidationErrors),
        (status = 408, description = "The upload was slower than HTTP_MIN_UPLOAD_RATE; the connection is closed", body = ErrorDetail),
        (status = 503, description = "The job store is unavailable; retry after `Retry-After` seconds", body = ErrorDetail, headers(("Retry-After" = u64, description = "Seconds to wait"))),
    ))]
pub async fn create_job(
    State(shared): State<Arc<Shared>>,
    caller: super::auth::Caller,
    headers: HeaderMap,
    req: Request,
) -> Result<Response, ApiError> {
    let config = &shared.config;
    super::backpressure::admit(&shared).await?;
    let multipart = Multipart::from_request(req, &()).await.ok();
    let id = uuid::Uuid::new_v4().to_string();
    let dest = super::upload::Destination {
        storage: &shared.storage,
        id: &id,
        part_path: config.upload_dir.join(format!("{id}.part")),
    };
    let built: Vec<&str> = shared
        .registry
        .ocr_providers()
        .iter()
        .map(|p| p.id)
        .collect();
    let tokenizers = config.chunk_tokenizer_files().unwrap_or_default();
    let policy = OcrPolicy {
        built: &built,
        provider_three_key: config.ocr_provider_three_api_key.is_some(),
        tokenizers: &tokenizers,
    };
    let inline_max = shared.store.inline_input_limit();
    let form = read_form(multipart, dest, config.max_file_size, inline_max, &policy).await?;
    let checked = async {
        let local = match &form.file {
            Upload::Memory(bytes) => {
                return supported(&shared, crate::detect::detect(bytes, &form.file_name))
            }
            Upload::Stored {
                head, local: None, ..
            } => return supported(&shared, crate::detect::detect(head, &form.file_name)),
            Upload::Disk(file)
            | Upload::Stored {
                local: Some(file), ..
            } => file.path().to_path_buf(),
        };
        let file_name = form.file_name.clone();
        let detected =
            tokio::task::spawn_blocking(move || crate::detect::detect_file(&local, &file_name))
                .await
                .map_err(ApiError::internal)??;
        supported(&shared, detected)
    }
    .await;
    let checked = match checked {
        Ok(detected) => super::options::check_for_type(&shared, &form, detected.mime)
            .await
            .map(|()| detected),
        Err(e) => Err(e),
    };
    let detected = match checked {
        Ok(d) => d,
        Err(e) => {
            form.file.discard().await;
            return Err(e);
        }
    };
    let now = Utc::now();
    let base = base_url(config, &headers);
    let spec = JobSpec {
        id: id.clone(),
        file_name: form.file_name,
        output_format: form.output_format,
        chunking: form.chunking,
        use_ocr: form.use_ocr,
        ocr_provider: form.ocr_provider,
        notify_url: form
            .webhook_url
            .clone()
            .or_else(|| config.default_webhook_url.clone()),
        webhook_url: form.webhook_url,
        result_url: format!("{base}{}/jobs/{id}/result", config.api_prefix),
        created_at: now,
        input_bytes: form.size,
        mime: detected.mime.to_string(),
        input_in_store: false,
        options: form.options,
    };
    let mut job = Job::new(spec);
    job.owner = caller.tenant;
    // The password goes to its own record first (a worker may claim the job at once).
    if let Some(password) = &form.password {
        if let Err(e) = shared.store.put_secret(&id, &password.0).await {
            form.file.discard().await;
            return Err(e.into());
        }
    }
    let input = match form.file {
        Upload::Memory(bytes) => NewInput::Inline(bytes),
        // The local copy some types needed for the checks goes now (`local`'s guard).
        Upload::Stored { upload, .. } => NewInput::Stored(upload),
        Upload::Disk(file) => match file.keep(&worker::upload_path(&shared, &id)).await {
            Ok(()) => NewInput::Kept,
            Err(e) => {
                let _ = shared.store.drop_secret(&id).await;
                return Err(e.into());
            }
        },
    };
    enqueue(&shared, &mut job, input).await?;
    let location = format!("{}/jobs/{id}", config.api_prefix);
    Ok((
        StatusCode::ACCEPTED,
        [(header::LOCATION, location)],
        Json(job.view()),
    )
        .into_response())
}

/// The detected type when this server converts it; otherwise the 415 that says what it does
/// convert (uploads and MCP jobs alike).
pub fn supported(
    shared: &Shared,
    detected: Result<crate::detect::Detected, crate::detect::DetectError>,
) -> Result<crate::detect::Detected, ApiError> {
    let summary = shared.registry.supported_summary();
    match detected {
        Ok(d) if shared.registry.supports(d.mime) => Ok(d),
        Ok(d) => Err(ApiError::Unsupported(format!(
            "Unsupported file type: {} (its converter is not built into this server). Supported: {summary}",
            d.label
        ))),
        Err(e) => Err(ApiError::Unsupported(format!(
            "Unsupported file type: {}. Supported: {summary}",
            e.what
        ))),
    }
}

/// Where a new job's input is.
pub enum NewInput {
    /// In memory: stored with the record (one commit, one fsync, no file).
    Inline(Vec<u8>),
    /// Already at `worker::upload_path`.
    Kept,
    /// Already in the object store, streamed there as it arrived.
    Stored(super::storage::InputUpload),
}

/// Records a new job (under `MAX_QUEUED_JOBS`) and wakes a worker. On a refusal nothing of
/// the job is left: neither its upload file nor its password record.
pub async fn enqueue(shared: &Arc<Shared>, job: &mut Job, input: NewInput) -> Result<(), ApiError> {
    let id = job.spec.id.clone();
    let created = match input {
        NewInput::Inline(bytes) => {
            job.spec.input_in_store = true;
            super::backpressure::create(shared, job, Some(bytes)).await
        }
        NewInput::Kept => {
            let created = match put_input(shared, &id).await {
                Ok(()) => super::backpressure::create(shared, job, None).await,
                Err(e) => Err(e),
            };
            if created.is_err() {
                let _ = std::fs::remove_file(worker::upload_path(shared, &id));
                if shared.storage.is_remote() {
                    let _ = shared.storage.remove(&id).await;
                }
            }
            created
        }
        NewInput::Stored(upload) => {
            let created = super::backpressure::create(shared, job, None).await;
            match created {
                Ok(()) => upload.keep(),
                Err(_) => upload.discard().await,
            }
            created
        }
    };
    if let Err(e) = created {
        let _ = shared.store.drop_secret(&id).await;
        return Err(e);
    }
    shared.metrics.job_created();
    shared.wake_workers.notify_one();
    tracing::info!(job = %id, mime = %job.spec.mime, bytes = job.spec.input_bytes, "job created");
    Ok(())
}

/// With an object store (`STORAGE_URL`) the upload at `worker::upload_path` goes to it and
/// the local copy is removed; on a failure it is removed too (and the store has no object).
async fn put_input(shared: &Shared, id: &str) -> Result<(), ApiError> {
    if !shared.storage.is_remote() {
        return Ok(());
    }
    let local = worker::upload_path(shared, id);
    let sent = shared.storage.put_input(id, &local).await;
    let _ = tokio::fs::remove_file(&local).await;
    sent.map_err(|e| {
        tracing::error!(job = %id, error = %e, "cannot store the upload in the object store");
        ApiError::StoreUnavailable(format!("object store: {e}"))
    })
}

/// `PUBLIC_BASE_URL`, or the scheme and host of this request.
fn base_url(config: &crate::config::Config, headers: &HeaderMap) -> String {
    if let Some(base) = &config.public_base_url {
        return base.trim_end_matches('/').to_string();
    }
    let header_text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.split(',').next().unwrap_or("").trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let scheme = match header_text("x-forwarded-proto").as_deref() {
        Some("https") => "https",
        _ => "http",
    };
    let host = header_text("x-forwarded-host")
        .or_else(|| header_text("host"))
        .filter(|h| {
            h.chars()
                .all(|c| c.is_ascii_alphanumeric() || ".-:[]_".contains(c))
        })
        .unwrap_or_else(|| "localhost".into());
    format!("{scheme}://{host}")
}

/// The job, if it exists and the caller may see it (with API keys on, another tenant's job is
/// "not found" too).
async fn load(shared: &Shared, id: &str, caller: &super::auth::Caller) -> Result<Job, ApiError> {
    if uuid::Uuid::parse_str(id).is_err() {
        return Err(ApiError::NotFound("Job not found"));
    }
    shared
        .store
        .get(id)
        .await?
        .filter(|job| caller.may_see(job))
        .ok_or(ApiError::NotFound("Job not found"))
}

#[utoipa::path(get, path = "/api/v1/jobs/{job_id}", tag = "jobs",
    params(("job_id" = String, Path, description = "Job id")),
    responses((status = 200, body = JobView), (status = 404, body = ErrorDetail),
        (status = 503, description = "The job store is unavailable; retry after `Retry-After` seconds", body = ErrorDetail, headers(("Retry-After" = u64, description = "Seconds to wait")))))]
pub async fn get_job(
    State(shared): State<Arc<Shared>>,
    caller: super::auth::Caller,
    Path(job_id): Path<String>,
) -> Result<Json<JobView>, ApiError> {
    Ok(Json(load(&shared, &job_id, &caller).await?.view()))
}

#[utoipa::path(delete, path = "/api/v1/jobs/{job_id}", tag = "jobs",
    params(("job_id" = String, Path, description = "Job id")),
    responses((status = 204, description = "Job and its files removed; a running conversion is stopped"), (status = 404, body = ErrorDetail),
        (status = 503, description = "The job store is unavailable; retry after `Retry-After` seconds", body = ErrorDetail, headers(("Retry-After" = u64, description = "Seconds to wait")))))]
pub async fn delete_job(
    State(shared): State<Arc<Shared>>,
    caller: super::auth::Caller,
    Path(job_id): Path<String>,
) -> Result<StatusCode, ApiError> {
    if uuid::Uuid::parse_str(&job_id).is_err() {
        return Err(ApiError::NotFound("Job not found"));
    }
    if caller.tenant.is_some() {
        load(&shared, &job_id, &caller).await?;
    }
    match shared.store.delete(&job_id).await? {
        Some(_) => {
            shared.job_changed(&job_id);
            // A conversion in this process stops now; one elsewhere (Redis) within a poll.
            shared.cancel_local(&job_id);
            let _ = shared.store.drop_secret(&job_id).await;
            retention::remove_files(&shared, &job_id).await;
            tracing::info!(job = %job_id, "job deleted");
            Ok(StatusCode::NO_CONTENT)
        }
        None => Err(ApiError::NotFound("Job not found")),
    }
}

#[utoipa::path(get, path = "/api/v1/jobs/{job_id}/result", tag = "jobs",
    params(("job_id" = String, Path, description = "Job id"),
        ("bundle" = Option<String>, Query, description = "`zip`: the result and its images (`images/<name>`) as one zip archive")),
    responses(
        (status = 200, description = "The converted file (or with `bundle=zip`, an `application/zip` archive of it and its images)", content_type = "text/markdown; charset=utf-8", body = String),
        (status = 400, description = "Job not completed, or failed", body = ErrorDetail),
        (status = 404, description = "Unknown job, or result file gone", body = ErrorDetail),
        (status = 503, description = "The job store is unavailable; retry after `Retry-After` seconds", body = ErrorDetail, headers(("Retry-After" = u64, description = "Seconds to wait")))))]
pub async fn get_result(
    State(shared): State<Arc<Shared>>,
    caller: super::auth::Caller,
    Path(job_id): Path<String>,
    axum::extract::RawQuery(query): axum::extract::RawQuery,
) -> Result<Response, ApiError> {
    let bundle = super::outputs::bundle_param(query.as_deref());
    if let Some(b) = bundle.as_deref().filter(|b| *b != "zip") {
        return Err(ApiError::Invalid(vec![super::errors::FieldError {
            loc: vec!["query".into(), "bundle".into()],
            msg: "Input should be 'zip'".into(),
            kind: "enum".into(),
            input: Some(b.into()),
        }]));
    }
    let job = load(&shared, &job_id, &caller).await?;
    match job.state.status {
        super::job::Status::Completed => {}
        super::job::Status::Failed => {
            return Err(ApiError::BadRequest(format!(
                "Job failed: {}",
                job.state
                    .error_message
                    .as_deref()
                    .unwrap_or("unknown error")
            )))
        }
        _ => return Err(ApiError::BadRequest("Job is not completed yet".into())),
    }
    if bundle.is_some() {
        return super::outputs::bundle(&shared, &job).await;
    }
    let name = download_name(&job.spec.file_name, job.spec.output_format);
    let content_type = job.spec.output_format.content_type();
    if shared.storage.is_remote() {
        let ext = job.spec.output_format.extension();
        let disposition = content_disposition(&name);
        let served = shared
            .storage
            .result(&job.spec.id, ext, content_type, &disposition)
            .await?;
        return super::outputs::from_storage(
            served,
            content_type,
            Some(&name),
            "Result file not found",
        );
    }
    let path = worker::output_path(&shared, &job);
    let file = match tokio::fs::File::open(&path).await {
        Ok(f) => f,
        Err(_) => return Err(ApiError::NotFound("Result file not found")),
    };
    let len = file.metadata().await?.len();
    let body = Body::from_stream(tokio_util::io::ReaderStream::new(file));
    Ok((
        [
            (header::CONTENT_TYPE, content_type.to_string()),
            (header::CONTENT_DISPOSITION, content_disposition(&name)),
            (header::CONTENT_LENGTH, len.to_string()),
        ],
        body,
    )
        .into_response())
}

#[utoipa::path(get, path = "/api/v1/jobs/{job_id}/images/{name}", tag = "jobs",
    params(("job_id" = String, Path, description = "Job id"), ("name" = String, Path, description = "Image file name, as linked from the result (`images/<name>`)")),
    responses(
        (status = 200, description = "An image of a completed job converted with `image_mode=referenced`", content_type = "image/png", body = Vec<u8>),
        (status = 400, description = "Job not completed, or failed", body = ErrorDetail),
        (status = 404, description = "Unknown job or image", body = ErrorDetail),
        (status = 503, description = "The job store is unavailable; retry after `Retry-After` seconds", body = ErrorDetail, headers(("Retry-After" = u64, description = "Seconds to wait")))))]
pub async fn get_image(
    State(shared): State<Arc<Shared>>,
    caller: super::auth::Caller,
    Path((job_id, name)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let job = load(&shared, &job_id, &caller).await?;
    match job.state.status {
        super::job::Status::Completed => super::outputs::image(&shared, &job, &name).await,
        super::job::Status::Failed => Err(ApiError::BadRequest(format!(
            "Job failed: {}",
            job.state
                .error_message
                .as_deref()
                .unwrap_or("unknown error")
        ))),
        _ => Err(ApiError::BadRequest("Job is not completed yet".into())),
    }
}

/// `attachment; filename="<ascii>"` plus `filename*=UTF-8''<percent-encoded>` when the name is
/// not plain printable ASCII; quotes, backslashes and control characters never reach the
/// quoted form.
pub fn content_disposition(name: &str) -> String {
    let plain = name
        .chars()
        .all(|c| (' '..='~').contains(&c) && c != '"' && c != '\\');
    let fallback: String = name
        .chars()
        .map(|c| {
            if (' '..='~').contains(&c) && c != '"' && c != '\\' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if plain {
        format!("attachment; filename=\"{fallback}\"")
    } else {
        const SET: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
            .remove(b'-')
            .remove(b'.')
            .remove(b'_')
            .remove(b'~');
        let encoded = percent_encoding::utf8_percent_encode(name, SET);
        format!("attachment; filename=\"{fallback}\"; filename*=UTF-8''{encoded}")
    }
}

/// The health report.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Health {
    /// `healthy`.
    status: String,
    timestamp: String,
    version: String,
    /// Seconds since start.
    uptime: f64,
}

#[utoipa::path(get, path = "/api/v1/health", tag = "service", responses((status = 200, body = Health)))]
pub async fn health(State(shared): State<Arc<Shared>>) -> Json<Health> {
    Json(Health {
        status: "healthy".into(),
        timestamp: timestamp(Utc::now()),
        version: env!("CARGO_PKG_VERSION").into(),
        uptime: shared.started.elapsed().as_secs_f64(),
    })
}

/// Dependency status.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Services {
    store: bool,
    worker: bool,
    storage: bool,
    /// provider id -> available.
    ocr: BTreeMap<String, bool>,
    /// converter id -> can run (an addition to the contract: PDF needs PDFium).
    converters: BTreeMap<String, bool>,
}

/// The readiness report; 503 when `not ready`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Readiness {
    /// `ready` or `not ready`.
    status: String,
    timestamp: String,
    services: Services,
    /// What is down and why, one sentence each (an addition to the contract); empty when all
    /// is well. OCR providers that are not available are listed too, without making the
    /// service not ready.
    problems: Vec<String>,
    /// Jobs waiting for a worker (null when the store does not answer); an addition.
    queue_depth: Option<u64>,
    /// `MAX_QUEUED_JOBS`: beyond it new jobs get 429 (null: unlimited); an addition.
    max_queued_jobs: Option<u64>,
}

#[utoipa::path(get, path = "/api/v1/ready", tag = "service",
    responses((status = 200, body = Readiness), (status = 503, description = "Not ready", body = Readiness)))]
pub async fn ready(State(shared): State<Arc<Shared>>) -> Response {
    let store = matches!(
        tokio::time::timeout(Duration::from_secs(2), shared.store.ping()).await,
        Ok(Ok(()))
    );
    let mut worker = shared.workers.load(Ordering::SeqCst) > 0;
    if !worker && store {
        let since = Utc::now().timestamp_millis() - 15_000;
        worker = matches!(shared.store.live_workers(since).await, Ok(n) if n > 0);
    }
    let dirs = [
        shared.config.upload_dir.clone(),
        shared.config.output_dir.clone(),
    ];
    let min_free = shared.config.max_file_size;
    let storage = tokio::task::spawn_blocking(move || dirs.iter().all(|d| storage_ok(d, min_free)))
        .await
        .unwrap_or(false);
    let remote = shared.storage.ping().await;
    let registry = shared.registry.clone();
    let config = shared.config.clone();
    let (converters, ocr) = tokio::task::spawn_blocking(move || config.readiness(&registry))
        .await
        .unwrap_or_default();
    let converters_ok = converters.values().all(|r| r.ready);
    let mut problems = Vec::new();
    if !store {
        problems.push("The job store does not answer.".to_string());
    }
    if !worker {
        problems.push("No worker is running to take jobs.".to_string());
    }
    if !storage {
        problems.push(
            "The upload or output folder cannot be written, or its disk is nearly full."
                .to_string(),
        );
    }
    if let Err(e) = &remote {
        problems.push(format!(
            "The object store (STORAGE_URL) does not answer: {e}"
        ));
    }
    let storage = storage && remote.is_ok();
    for (id, r) in converters.iter().filter(|(_, r)| !r.ready) {
        problems.push(format!("The {id} converter cannot run: {}", r.detail));
    }
    let built_in: Vec<&str> = shared
        .registry
        .ocr_providers()
        .iter()
        .map(|p| p.id)
        .collect();
    for (id, r) in ocr
        .iter()
        .filter(|(id, r)| !r.ready && built_in.contains(&id.as_str()))
    {
        problems.push(format!("OCR provider {id} is not available: {}", r.detail));
    }
    let is_ready = store && worker && storage && converters_ok;
    let body = Readiness {
        status: if is_ready { "ready" } else { "not ready" }.into(),
        timestamp: timestamp(Utc::now()),
        services: Services {
            store,
            worker,
            storage,
            ocr: ocr.into_iter().map(|(id, r)| (id, r.ready)).collect(),
            converters: converters
                .into_iter()
                .map(|(id, r)| (id, r.ready))
                .collect(),
        },
        problems,
        queue_depth: if store {
            shared.store.queue_depth().await.ok()
        } else {
            None
        },
        max_queued_jobs: shared.config.max_queued_jobs,
    };
    let status = if is_ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, Json(body)).into_response()
}

/// A directory is usable: it exists, a file can be created in it, and it has room for one
/// upload of the maximum size.
fn storage_ok(dir: &std::path::Path, min_free: u64) -> bool {
    let probe = dir.join(format!(".ready-{}", uuid::Uuid::new_v4()));
    if std::fs::write(&probe, b"ok").is_err() {
        return false;
    }
    let _ = std::fs::remove_file(&probe);
    free_bytes(dir).is_none_or(|free| free >= min_free)
}

fn free_bytes(dir: &std::path::Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: `c` is a valid NUL-terminated path and `stat` a properly sized out-parameter.
    unsafe {
        let mut stat: libc::statvfs = std::mem::zeroed();
        if libc::statvfs(c.as_ptr(), &mut stat) != 0 {
            return None;
        }
        Some(stat.f_bavail as u64 * stat.f_frsize as u64)
    }
}

/// One accepted input type.
#[derive(Serialize, utoipa::ToSchema)]
pub struct FormatEntry {
    converter: String,
    name: String,
    mime_types: Vec<String>,
    extensions: Vec<String>,
}

/// An OCR provider of this build.
#[derive(Serialize, utoipa::ToSchema)]
pub struct OcrEntry {
    id: String,
    name: String,
    ready: bool,
}

/// What this server accepts and produces.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Formats {
    input: Vec<FormatEntry>,
    output: Vec<String>,
    ocr_providers: Vec<OcrEntry>,
    max_file_size: u64,
}

#[utoipa::path(get, path = "/api/v1/formats", tag = "service", responses((status = 200, body = Formats)))]
pub async fn formats(State(shared): State<Arc<Shared>>) -> Json<Formats> {
    let input = shared
        .registry
        .converters()
        .iter()
        .map(|d| FormatEntry {
            converter: d.id.into(),
            name: d.name.into(),
            mime_types: d.mime_types.iter().map(|m| m.to_string()).collect(),
            extensions: d.extensions.iter().map(|e| e.to_string()).collect(),
        })
        .collect();
    let registry = shared.registry.clone();
    let plugin_config = shared.config.plugin_config();
    let ready = tokio::task::spawn_blocking(move || registry.ocr_readiness(&plugin_config))
        .await
        .unwrap_or_default();
    let ocr_providers = shared
        .registry
        .ocr_providers()
        .iter()
        .map(|p| OcrEntry {
            id: p.id.into(),
            name: p.name.into(),
            ready: ready.get(p.id).is_some_and(|r| r.ready),
        })
        .collect();
    Json(Formats {
        input,
        output: vec!["md".into(), "json".into()],
        ocr_providers,
        max_file_size: shared.config.max_file_size,
    })
}

#[utoipa::path(get, path = "/metrics", tag = "service",
    responses((status = 200, description = "Prometheus metrics in the text exposition format", content_type = "text/plain; version=0.0.4", body = String)))]
pub async fn metrics(State(shared): State<Arc<Shared>>) -> Response {
    let depth = shared.store.queue_depth().await.ok();
    let deliveries = shared.store.pending_deliveries().await.ok();
    let text = shared.metrics.render(
        depth,
        deliveries,
        shared.busy.load(Ordering::SeqCst),
        shared.workers.load(Ordering::SeqCst),
    );
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        text,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::content_disposition;

    #[test]
    fn content_disposition_is_safe_for_any_name() {
        assert_eq!(
            content_disposition("Report (final).md"),
            "attachment; filename=\"Report (final).md\""
        );
        assert_eq!(
            content_disposition("a\"b\\c.md"),
            "attachment; filename=\"a_b_c.md\"; filename*=UTF-8''a%22b%5Cc.md"
        );
        assert_eq!(
            content_disposition("Übersicht.md"),
            "attachment; filename=\"_bersicht.md\"; filename*=UTF-8''%C3%9Cbersicht.md"
        );
    }
}
