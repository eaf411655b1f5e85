//! The OpenAPI document (generated from the handlers' `#[utoipa::path]` annotations and the
//! response types) and the `/docs` page, a small self-contained HTML file compiled into the
//! binary: no CDN, it reads `openapi.json` and lets a person try each endpoint.

use super::api;
use super::errors::{ErrorDetail, FieldError, ValidationErrors};
use super::job::{JobView, OutputFormat, Status};
use super::Shared;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;
use utoipa::OpenApi;

#[derive(OpenApi)]
#[openapi(
    info(title = "quire", description = "Document conversion to Markdown and structured JSON. \
        Upload a file, poll the job (or receive a webhook), download the result."),
    paths(
        api::create_job,
        super::auth::list_jobs,
        api::get_job,
        super::events::job_events,
        api::delete_job,
        api::get_result,
        api::get_image,
        api::health,
        api::ready,
        api::formats,
        api::metrics,
    ),
    components(schemas(
        JobView, Status, OutputFormat, crate::render::ImageOutput, ErrorDetail, FieldError, ValidationErrors,
        api::CreateJobForm, api::Health, api::Readiness, api::Services, api::Formats,
        api::FormatEntry, api::OcrEntry, super::auth::JobList,
    )),
    tags((name = "jobs", description = "Conversion jobs"), (name = "service", description = "Health and capabilities"))
)]
struct ApiDoc;

/// The document, with paths under the configured `API_PREFIX`.
pub fn document(prefix: &str) -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    doc.info.version = env!("CARGO_PKG_VERSION").to_string();
    if prefix != "/api/v1" {
        let paths = std::mem::take(&mut doc.paths.paths);
        doc.paths.paths = paths
            .into_iter()
            .map(|(path, item)| match path.strip_prefix("/api/v1") {
                Some(rest) => (format!("{prefix}{rest}"), item),
                // `/metrics` is served at the root whatever the prefix.
                None => (path, item),
            })
            .collect();
    }
    doc
}

/// What the derive cannot say, written out: the multipart form of `POST /api/v1/jobs` as the
/// server reads it (every value of a multipart form is text, so `use_ocr` lists the spellings
/// the server accepts, an empty `ocr_provider` means the default, and any other field is
/// refused with 422), and the result's two media types (Markdown or JSON, by
/// the job's `output_format`). Checked against the live server by schemathesis
/// (`scripts/check-openapi.sh`).
/// (Patched as JSON: utoipa's model has no untyped `enum`.)
fn exact_forms(mut v: serde_json::Value, prefix: &str) -> serde_json::Value {
    let mut providers: Vec<&str> = super::upload::OCR_PROVIDERS.to_vec();
    providers.push("");
    v["components"]["schemas"]["CreateJobForm"] = serde_json::json!({
        "type": "object",
        "description": "The multipart form of `POST /api/v1/jobs`. Any other field, or a second \
            `file`, is refused with 422.",
        "required": ["file", "output_format"],
        "additionalProperties": false,
        "properties": {
            "file": {
                "type": "string",
                "format": "binary",
                "minLength": 1,
                "description": "The document to convert (not empty)."
            },
            "output_format": {"$ref": "#/components/schemas/OutputFormat"},
            "use_ocr": {
                "description": "Read images and scanned pages with OCR. Default false. Also \
                    accepted: 1/0, yes/no, on/off, in any case.",
                "type": ["boolean", "integer", "string"],
                "enum": [true, false, 1, 0, "true", "false", "1", "0", "yes", "no", "on", "off"]
            },
            "ocr_provider": {
                "type": "string",
                "enum": providers,
                "description": "provider_one (Tesseract, the default; also when empty), \
                    provider_two (PP-OCR) or provider_three (AI vision, needs the server's API key)."
            },
            "webhook_url": {
                "type": "string",
                "format": "uri",
                "maxLength": 2048,
                "description": "An absolute http(s) URL that receives the completion notification."
            },
            "image_mode": {
                "$ref": "#/components/schemas/ImageOutput",
                "description": "How images appear: embedded (default, base64 as the contract                     says), referenced (links images/<name>; the files at                     /jobs/{job_id}/images/{name} and in /jobs/{job_id}/result?bundle=zip),                     placeholder (an <!-- image: alt --> comment) or none. JSON output keeps                     its images map only when embedded."
            },
            "pages": {
                "type": "string",
                "pattern": "^ *[1-9][0-9]{0,5} *(- *([1-9][0-9]{0,5})? *)?(, *[1-9][0-9]{0,5} *(- *([1-9][0-9]{0,5})? *)?)*$",
                "description": "Pages of a PDF or slides of a presentation, 1-3,7 (5- runs to                     the end); 422 for other types, a range that runs backwards, or (PDF and PPTX                     whose page or slide count can be read at upload) when none of them exists;                     otherwise the job fails then. num_pages/total_pages keep the document's total."
            },
            "password": {
                "type": "string",
                "format": "password",
                "minLength": 1,
                "maxLength": 1024,
                "description": "The password of an encrypted PDF, DOCX, XLSX or PPTX. Never                     echoed, logged or kept after the job ends. 422 for other types."
            },
            "force_ocr": {
                "description": "OCR every page, even one with a text layer (which is then                     ignored). Needs use_ocr=true (422 otherwise). Spellings as use_ocr.",
                "type": ["boolean", "integer", "string"],
                "enum": [true, false, 1, 0, "true", "false", "1", "0", "yes", "no", "on", "off"]
            },
            "ocr_language": {
                "type": "string",
                "pattern": "^ *[A-Za-z_]{2,12} *([,+] *[A-Za-z_]{2,12} *){0,7}$",
                "description": "OCR languages for this job, comma-separated as OCR_LANGUAGE                     takes them (en,de). Needs use_ocr=true; 422 when the provider cannot read                     one (provider_one: its language data is not installed; provider_two: not a                     Latin-script language, Chinese or Japanese). provider_three takes it as a hint."
            }
        }
    });
    crate::render::chunks::openapi_form_fields(&mut v["components"]["schemas"]["CreateJobForm"]);
    let result = format!("{prefix}/jobs/{{job_id}}/result");
    v["paths"][&result]["get"]["responses"]["200"]["content"] = serde_json::json!({
        "text/markdown; charset=utf-8": {"schema": {"type": "string"}},
        "application/json": {"schema": {"type": "object"}},
        "application/zip": {"schema": {"type": "string", "format": "binary"}}
    });
    // `bundle` takes one value; anything else is a 422 naming it.
    if let Some(params) = v["paths"][&result]["get"]["parameters"].as_array_mut() {
        for p in params.iter_mut().filter(|p| p["name"] == "bundle") {
            p["schema"] = serde_json::json!({"type": "string", "enum": ["zip"]});
        }
    }
    v["paths"][&result]["get"]["responses"]["422"] = serde_json::json!({
        "description": "`bundle` is not `zip`",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ValidationErrors"}}}
    });
    v
}

pub async fn openapi_json(State(shared): State<Arc<Shared>>) -> Response {
    let prefix = &shared.config.api_prefix;
    match serde_json::to_value(document(prefix)) {
        Ok(v) => (
            [(header::CONTENT_TYPE, "application/json")],
            super::events::document(
                super::auth::document(exact_forms(v, prefix), prefix),
                prefix,
            )
            .to_string(),
        )
            .into_response(),
        Err(e) => super::errors::ApiError::internal(e).into_response(),
    }
}

pub async fn docs_page(State(shared): State<Arc<Shared>>) -> Response {
    let url = format!("{}/openapi.json", shared.config.api_prefix);
    super::webui::docs_page(&url)
}
