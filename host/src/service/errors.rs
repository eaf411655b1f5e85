//! Every error answer of the API, in the interface's shapes: `{"detail": "..."}`, or for 422
//! the FastAPI-style `{"detail": [{"loc", "msg", "type"}]}`.
//!
//! Causes of 500s go to the log, never to the client.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use serde_json::{json, Value};

/// `{"detail": "..."}`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ErrorDetail {
    pub detail: String,
}

/// One invalid field of a 422 answer.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct FieldError {
    /// Where: `["body", "<field>"]`.
    #[schema(value_type = Vec<String>)]
    pub loc: Vec<Value>,
    pub msg: String,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The value sent (null when the field is missing).
    #[schema(value_type = Option<String>, nullable = true)]
    pub input: Option<Value>,
}

impl FieldError {
    pub fn new(
        field: &str,
        kind: &str,
        msg: impl Into<String>,
        input: Option<Value>,
    ) -> FieldError {
        FieldError {
            loc: vec![json!("body"), json!(field)],
            msg: msg.into(),
            kind: kind.into(),
            input,
        }
    }

    /// Whether the error is about the named form field.
    pub fn is_about(&self, field: &str) -> bool {
        self.loc.get(1).and_then(|v| v.as_str()) == Some(field)
    }

    pub fn missing(field: &str) -> FieldError {
        FieldError::new(field, "missing", "Field required", Some(Value::Null))
    }
}

/// `{"detail": [FieldError...]}`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ValidationErrors {
    pub detail: Vec<FieldError>,
}

#[derive(Debug)]
pub enum ApiError {
    /// 404 with this text.
    NotFound(&'static str),
    /// 400 with this text.
    BadRequest(String),
    /// 413; the configured maximum in bytes.
    TooLarge(u64),
    /// 415 with the full text.
    Unsupported(String),
    /// 422.
    Invalid(Vec<FieldError>),
    /// 429 with this text and `Retry-After` seconds (`MAX_QUEUED_JOBS`).
    TooManyRequests(String, u64),
    /// 503 with `Retry-After`: the job store is unreachable for now; the cause is logged here.
    StoreUnavailable(String),
    /// 500; the cause is logged here.
    Internal(String),
}

/// The `detail` of a 503 for a job-store outage (`../shared/spec/decisions.md`).
pub const STORE_UNAVAILABLE: &str = "The job store is unavailable; retry later";

/// Seconds a client is asked to wait after a 503 for a store outage.
pub const STORE_RETRY_AFTER_SECS: u64 = 2;

impl ApiError {
    pub fn internal(cause: impl std::fmt::Display) -> ApiError {
        ApiError::Internal(cause.to_string())
    }
}

impl From<super::store::StoreError> for ApiError {
    fn from(e: super::store::StoreError) -> Self {
        if e.is_unavailable() {
            ApiError::StoreUnavailable(e.to_string())
        } else {
            ApiError::Internal(e.to_string())
        }
    }
}

impl From<std::io::Error> for ApiError {
    fn from(e: std::io::Error) -> Self {
        ApiError::Internal(format!("i/o: {e}"))
    }
}

/// "100MB" for the default; the number follows `MAX_FILE_SIZE`.
pub fn size_text(bytes: u64) -> String {
    const MB: u64 = 1024 * 1024;
    if bytes.is_multiple_of(MB) {
        format!("{}MB", bytes / MB)
    } else if bytes >= MB {
        format!("{:.1}MB", bytes as f64 / MB as f64)
    } else {
        format!("{bytes} bytes")
    }
}

pub fn detail(status: StatusCode, text: impl Into<String>) -> Response {
    (
        status,
        Json(ErrorDetail {
            detail: text.into(),
        }),
    )
        .into_response()
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        match self {
            ApiError::NotFound(text) => detail(StatusCode::NOT_FOUND, text),
            ApiError::BadRequest(text) => detail(StatusCode::BAD_REQUEST, text),
            ApiError::TooLarge(max) => detail(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("File too large. Maximum size is {}", size_text(max)),
            ),
            ApiError::Unsupported(text) => detail(StatusCode::UNSUPPORTED_MEDIA_TYPE, text),
            ApiError::Invalid(errors) => (
                StatusCode::UNPROCESSABLE_ENTITY,
                Json(ValidationErrors { detail: errors }),
            )
                .into_response(),
            ApiError::TooManyRequests(text, wait) => {
                let mut response = detail(StatusCode::TOO_MANY_REQUESTS, text);
                response.headers_mut().insert(
                    axum::http::header::RETRY_AFTER,
                    axum::http::HeaderValue::from(wait),
                );
                response
            }
            ApiError::StoreUnavailable(cause) => {
                tracing::warn!(cause = %cause, "job store unavailable; answering 503");
                let mut response = detail(StatusCode::SERVICE_UNAVAILABLE, STORE_UNAVAILABLE);
                response.headers_mut().insert(
                    axum::http::header::RETRY_AFTER,
                    axum::http::HeaderValue::from(STORE_RETRY_AFTER_SECS),
                );
                response
            }
            ApiError::Internal(cause) => {
                tracing::error!(cause = %cause, "internal server error");
                detail(StatusCode::INTERNAL_SERVER_ERROR, "Internal server error")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::size_text;

    #[test]
    fn sizes_read_like_the_contract() {
        assert_eq!(size_text(104_857_600), "100MB");
        assert_eq!(size_text(1_572_864), "1.5MB");
        assert_eq!(size_text(1000), "1000 bytes");
    }
}
