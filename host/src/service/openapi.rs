//! The OpenAPI document (generated from the handlers' `#[utoipa::path]` annotations and the
//! response types) and the `/docs` page, a small self-contained HTML file compiled into the
//! binary: no CDN, it reads `openapi.json` and lets a person try each endpoint.

use super::api;
use super::errors::{ErrorDetail, FieldError, ValidationErrors};
use super::job::{JobView, OutputFormat, Status};
use super::Shared;
use axum::extract::State;
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use std::sync::Arc;
use utoipa::OpenApi;

#[derive(OpenApi)]
#[openapi(
    info(title = "quire", description = "Document conversion to Markdown and structured JSON. \
        Upload a file, poll the job (or receive a webhook), download the result."),
    paths(
        api::create_job,
        api::get_job,
        api::delete_job,
        api::get_result,
        api::health,
        api::ready,
        api::formats,
        api::metrics,
    ),
    components(schemas(
        JobView, Status, OutputFormat, ErrorDetail, FieldError, ValidationErrors,
        api::CreateJobForm, api::Health, api::Readiness, api::Services, api::Formats,
        api::FormatEntry, api::OcrEntry,
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

pub async fn openapi_json(State(shared): State<Arc<Shared>>) -> Response {
    let doc = document(&shared.config.api_prefix);
    match doc.to_json() {
        Ok(text) => ([(header::CONTENT_TYPE, "application/json")], text).into_response(),
        Err(e) => super::errors::ApiError::internal(e).into_response(),
    }
}

pub async fn docs_page(State(shared): State<Arc<Shared>>) -> Html<String> {
    let url = format!("{}/openapi.json", shared.config.api_prefix);
    Html(include_str!("docs.html").replace("{{OPENAPI_URL}}", &url))
}
