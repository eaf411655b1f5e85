//! API keys (an addition to the contract, off by default as it requires) and the per-key rate
//! limit.
//!
//! With `API_KEYS` and/or `API_KEYS_FILE` set, every `/api/v1` route except health and
//! readiness needs `Authorization: Bearer <key>` or `X-API-Key: <key>`; anything else gets
//! 401 `{"detail": "..."}` with `WWW-Authenticate: Bearer`. The keys are held only as SHA-256
//! hashes (the configuration's copy is dropped at start-up, so no key reaches a conversion
//! child or a log); a presented key is hashed and compared with every held hash in constant
//! time. The tenant of a request is a second, domain-separated hash of its key
//! ([`Caller::tenant`]): a job records the tenant that created it and is shown to that tenant
//! only (another key gets 404, as for an unknown job).
//!
//! Reusable pieces, for any route that must sit behind the keys:
//! - [`require_api_key`]: a middleware (`axum::middleware::from_fn_with_state(shared,
//!   auth::require_api_key)`) that answers 401/429 or lets the request through with its
//!   [`Caller`] in the request extensions;
//! - [`Caller`]: an extractor that yields the caller (and, used alone, performs the same
//!   check, failing closed with 401 when keys are on).
//!
//! [`api_guard`] is the first applied to the whole application: every path under `API_PREFIX`
//! but `/health` and `/ready`.

use super::errors::{detail, ApiError, ErrorDetail, FieldError};
use super::job::{JobView, Status};
use super::Shared;
use crate::config::{Config, ConfigError};
use axum::extract::{FromRequestParts, Query, Request, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use subtle::ConstantTimeEq;

/// The shortest key accepted: shorter ones are guessable.
pub const MIN_KEY_LEN: usize = 16;

/// The held keys (hashes only) and the per-key rate limit.
pub struct Auth {
    hashes: Vec<[u8; 32]>,
    limiter: Option<RateLimiter>,
}

/// Shows how many keys, never their hashes.
impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Auth")
            .field("keys", &self.hashes.len())
            .field(
                "rate_limit_per_minute",
                &self.limiter.as_ref().map(|l| l.per_minute),
            )
            .finish()
    }
}

impl Auth {
    /// Reads `API_KEYS` and `API_KEYS_FILE`. An unreadable file, an empty list or a key that is
    /// too short stops start-up with a message naming the setting (never the key).
    pub fn from_config(config: &Config) -> Result<Auth, ConfigError> {
        let mut keys: Vec<(String, &'static str)> = Vec::new();
        if let Some(list) = &config.api_keys {
            keys.extend(
                list.split(',')
                    .map(str::trim)
                    .filter(|k| !k.is_empty())
                    .map(|k| (k.to_string(), "API_KEYS")),
            );
        }
        if let Some(path) = &config.api_keys_file {
            let text = std::fs::read_to_string(path).map_err(|e| {
                ConfigError(format!(
                    "invalid setting API_KEYS_FILE: cannot read {}: {e}",
                    path.display()
                ))
            })?;
            keys.extend(
                text.lines()
                    .map(|l| l.split('#').next().unwrap_or("").trim())
                    .filter(|k| !k.is_empty())
                    .map(|k| (k.to_string(), "API_KEYS_FILE")),
            );
        }
        let configured = config.api_keys.is_some() || config.api_keys_file.is_some();
        if configured && keys.is_empty() {
            return Err(ConfigError(
                "invalid setting API_KEYS / API_KEYS_FILE: expected at least one key, got none"
                    .into(),
            ));
        }
        for (n, (key, setting)) in keys.iter().enumerate() {
            if key.chars().count() < MIN_KEY_LEN || key.chars().any(char::is_whitespace) {
                return Err(ConfigError(format!(
                    "invalid setting {setting}: key {} is shorter than {MIN_KEY_LEN} characters or holds a space",
                    n + 1
                )));
            }
        }
        let mut hashes: Vec<[u8; 32]> = keys.iter().map(|(k, _)| key_hash(k)).collect();
        hashes.sort_unstable();
        hashes.dedup();
        let limiter = match (hashes.is_empty(), config.rate_limit_per_key) {
            (false, Some(per_minute)) => Some(RateLimiter::new(per_minute)),
            _ => None,
        };
        Ok(Auth { hashes, limiter })
    }

    /// Whether API keys are on.
    pub fn enabled(&self) -> bool {
        !self.hashes.is_empty()
    }

    /// Held keys (for the start-up log line; never the keys).
    pub fn key_count(&self) -> usize {
        self.hashes.len()
    }

    /// The caller of a request with these headers; `Err` is the answer to send.
    fn check(&self, headers: &HeaderMap) -> Result<Caller, Refusal> {
        if !self.enabled() {
            return Ok(Caller { tenant: None });
        }
        let Some(key) = presented_key(headers) else {
            return Err(Refusal::NoKey);
        };
        let presented = key_hash(key);
        // Every held hash is compared, each in constant time: no early exit tells which or how
        // many bytes matched.
        let mut found = subtle::Choice::from(0u8);
        for held in &self.hashes {
            found |= presented.ct_eq(held);
        }
        if !bool::from(found) {
            return Err(Refusal::WrongKey);
        }
        let tenant = tenant_of(key);
        if let Some(limiter) = &self.limiter {
            if let Err(wait) = limiter.take(&tenant) {
                return Err(Refusal::RateLimited {
                    per_minute: limiter.per_minute,
                    wait,
                });
            }
        }
        Ok(Caller {
            tenant: Some(tenant),
        })
    }
}

/// Why a request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    NoKey,
    WrongKey,
    RateLimited { per_minute: u32, wait: u64 },
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        match self {
            Refusal::NoKey => unauthorized(
                "Not authenticated: send an API key as `Authorization: Bearer <key>` or `X-API-Key: <key>`",
            ),
            Refusal::WrongKey => unauthorized("Invalid API key"),
            Refusal::RateLimited { per_minute, wait } => {
                let mut r = detail(
                    StatusCode::TOO_MANY_REQUESTS,
                    format!("Rate limit exceeded: at most {per_minute} requests per minute per API key"),
                );
                r.headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from(wait));
                r
            }
        }
    }
}

fn key_hash(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

/// The tenant id recorded with a job: a hash of the key under its own domain, so the job store
/// holds neither the key nor the hash the service compares keys with.
fn tenant_of(key: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"quire tenant\0");
    h.update(key.as_bytes());
    let digest = h.finalize();
    digest[..16].iter().map(|b| format!("{b:02x}")).collect()
}

fn presented_key(headers: &HeaderMap) -> Option<&str> {
    if let Some(v) = headers.get(header::AUTHORIZATION) {
        let v = v.to_str().ok()?.trim();
        let (scheme, rest) = v.split_once(' ')?;
        return scheme
            .eq_ignore_ascii_case("bearer")
            .then(|| rest.trim())
            .filter(|k| !k.is_empty());
    }
    headers
        .get("x-api-key")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|k| !k.is_empty())
}

fn unauthorized(text: &str) -> Response {
    let mut r = detail(StatusCode::UNAUTHORIZED, text);
    r.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"quire\""),
    );
    r
}

/// Who is calling: `tenant` is `None` when API keys are off (everyone sees every job).
#[derive(Debug, Clone)]
pub struct Caller {
    pub tenant: Option<String>,
}

impl Caller {
    /// Whether the caller may see (read, download, delete, follow) a job: with keys on, only
    /// the tenant that created it; a job made while keys were off belongs to no tenant.
    pub fn may_see(&self, job: &super::job::Job) -> bool {
        match &self.tenant {
            None => true,
            Some(t) => job.owner.as_deref() == Some(t.as_str()),
        }
    }
}

impl FromRequestParts<Arc<Shared>> for Caller {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut Parts,
        shared: &Arc<Shared>,
    ) -> Result<Self, Self::Rejection> {
        if let Some(caller) = parts.extensions.get::<Caller>() {
            return Ok(caller.clone());
        }
        // Not behind `require_api_key`: check here (fails closed when keys are on).
        let caller = shared
            .auth
            .check(&parts.headers)
            .map_err(IntoResponse::into_response)?;
        parts.extensions.insert(caller.clone());
        Ok(caller)
    }
}

/// Middleware: 401 without a valid key (when keys are on), 429 past the per-key rate limit;
/// otherwise the request goes on with its [`Caller`] in the extensions.
pub async fn require_api_key(
    State(shared): State<Arc<Shared>>,
    mut req: Request,
    next: Next,
) -> Response {
    match shared.auth.check(req.headers()) {
        Ok(caller) => {
            req.extensions_mut().insert(caller);
            next.run(req).await
        }
        Err(refusal) => refusal.into_response(),
    }
}

/// Middleware over the whole application: [`require_api_key`] for every path under
/// `API_PREFIX` except health and readiness, and for `/mcp`.
pub async fn api_guard(State(shared): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    if !shared.auth.enabled() {
        return next.run(req).await;
    }
    let prefix = shared.config.api_prefix.as_str();
    let path = req.uri().path();
    let protected = match path.strip_prefix(prefix) {
        Some(rest) => {
            (rest.is_empty() || rest.starts_with('/')) && !matches!(rest, "/health" | "/ready")
        }
        None => false,
    };
    // MCP over HTTP (`crate::mcp`) creates and reads jobs like the API: the same keys.
    let protected = protected || path == "/mcp" || path.starts_with("/mcp/");
    if protected {
        require_api_key(State(shared), req, next).await
    } else {
        next.run(req).await
    }
}

/// A token bucket per tenant: `per_minute` tokens, refilled continuously.
struct RateLimiter {
    per_minute: u32,
    buckets: Mutex<HashMap<String, (f64, Instant)>>,
}

impl RateLimiter {
    fn new(per_minute: u32) -> RateLimiter {
        RateLimiter {
            per_minute,
            buckets: Mutex::default(),
        }
    }

    /// Takes one token, or answers how many seconds until one is there. The map holds one entry
    /// per valid key at most (only authenticated tenants reach it).
    fn take(&self, tenant: &str) -> Result<(), u64> {
        let capacity = f64::from(self.per_minute);
        let per_sec = capacity / 60.0;
        let now = Instant::now();
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        let (tokens, at) = buckets.entry(tenant.to_string()).or_insert((capacity, now));
        *tokens = (*tokens + now.duration_since(*at).as_secs_f64() * per_sec).min(capacity);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            Ok(())
        } else {
            Err(((1.0 - *tokens) / per_sec).ceil().max(1.0) as u64)
        }
    }
}

/// Query of `GET /api/v1/jobs`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Only jobs in this status.
    #[param(value_type = Option<Status>)]
    pub status: Option<String>,
    /// Jobs per page, 1 to 100 (default 20).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// One page of the caller's jobs, newest first.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct JobList {
    pub jobs: Vec<JobView>,
    /// Pass as `cursor` for the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

fn query_error(field: &str, msg: &str, input: &str) -> ApiError {
    ApiError::Invalid(vec![FieldError {
        loc: vec!["query".into(), field.into()],
        msg: msg.into(),
        kind: "value_error".into(),
        input: Some(input.into()),
    }])
}

/// `GET /api/v1/jobs`: the caller's jobs, newest first, paged, optionally of one status.
/// Available only when API keys are on (405 otherwise, as without this addition).
#[utoipa::path(get, path = "/api/v1/jobs", tag = "jobs",
    params(ListQuery),
    responses(
        (status = 200, description = "The caller's jobs, newest first (API keys on)", body = JobList),
        (status = 401, description = "No or a wrong API key", body = ErrorDetail),
        (status = 405, description = "API keys are off: there is no tenant to list jobs for", body = ErrorDetail),
        (status = 422, description = "Invalid query parameter", body = super::errors::ValidationErrors),
        (status = 429, description = "Per-key rate limit exceeded", body = ErrorDetail, headers(("Retry-After" = u64, description = "Seconds to wait"))),
        (status = 503, description = "The job store is unavailable; retry after `Retry-After` seconds", body = ErrorDetail, headers(("Retry-After" = u64, description = "Seconds to wait")))))]
pub async fn list_jobs(
    State(shared): State<Arc<Shared>>,
    caller: Caller,
    Query(q): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let Some(tenant) = caller.tenant else {
        return Ok(detail(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed"));
    };
    let status = match q.get("status").map(String::as_str) {
        None | Some("") => None,
        Some(s) => Some(Status::parse(s).ok_or_else(|| {
            query_error(
                "status",
                "Input should be 'pending', 'processing', 'completed' or 'failed'",
                s,
            )
        })?),
    };
    let limit = match q.get("limit").map(String::as_str) {
        None | Some("") => 20,
        Some(s) => match s.parse::<usize>() {
            Ok(n) if (1..=100).contains(&n) => n,
            _ => {
                return Err(query_error(
                    "limit",
                    "Input should be a whole number from 1 to 100",
                    s,
                ))
            }
        },
    };
    let cursor = match q.get("cursor").map(String::as_str) {
        None | Some("") => None,
        Some(s) => Some(
            parse_cursor(s)
                .ok_or_else(|| query_error("cursor", "Input should be a next_cursor value", s))?,
        ),
    };
    let (jobs, next) = shared
        .store
        .list_owned(&tenant, cursor, status, limit)
        .await?;
    Ok(Json(JobList {
        jobs: jobs.iter().map(|j| j.view()).collect(),
        next_cursor: next.map(|(ms, id)| format!("{ms}.{id}")),
    })
    .into_response())
}

/// The OpenAPI document's part of the keys: the two ways to send one (optional: keys are off
/// unless configured), 401 on every operation that needs a key, 429 (per-key rate limit, and
/// `MAX_QUEUED_JOBS` on create) where it can happen. (Patched as JSON, like `exact_forms`.)
pub fn document(mut v: serde_json::Value, prefix: &str) -> serde_json::Value {
    use serde_json::json;
    v["components"]["securitySchemes"] = json!({
        "bearer": {"type": "http", "scheme": "bearer",
            "description": "An API key (only when the server sets API_KEYS or API_KEYS_FILE)."},
        "api_key": {"type": "apiKey", "in": "header", "name": "X-API-Key",
            "description": "The same API key, in its own header."}
    });
    v["security"] = json!([{}, {"bearer": []}, {"api_key": []}]);
    let error =
        json!({"application/json": {"schema": {"$ref": "#/components/schemas/ErrorDetail"}}});
    let retry = json!({"Retry-After": {"description": "Seconds to wait", "schema": {"type": "integer", "minimum": 0}}});
    let open = [format!("{prefix}/health"), format!("{prefix}/ready")];
    if let Some(paths) = v["paths"].as_object_mut() {
        for (path, item) in paths.iter_mut() {
            let Some(ops) = item.as_object_mut() else {
                continue;
            };
            for (method, op) in ops.iter_mut() {
                if open.contains(path) || !path.starts_with(prefix) {
                    op["security"] = json!([{}]);
                    continue;
                }
                let responses = &mut op["responses"];
                if responses.get("401").is_none() {
                    responses["401"] = json!({
                        "description": "No or a wrong API key (only when API keys are on)",
                        "headers": {"WWW-Authenticate": {"schema": {"type": "string"}}},
                        "content": error.clone()
                    });
                }
                if responses.get("429").is_none() {
                    let why = if path == &format!("{prefix}/jobs") && method == "post" {
                        "MAX_QUEUED_JOBS jobs are waiting (nothing was stored), or the per-key rate limit was exceeded"
                    } else {
                        "The per-key rate limit was exceeded (only when API keys are on)"
                    };
                    responses["429"] = json!({
                        "description": why,
                        "headers": retry.clone(),
                        "content": error.clone()
                    });
                }
            }
        }
    }
    v
}

fn parse_cursor(s: &str) -> Option<(i64, String)> {
    let (ms, id) = s.split_once('.')?;
    let ms = ms.parse().ok()?;
    uuid::Uuid::parse_str(id).ok()?;
    Some((ms, id.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auth(keys: &str, rate: Option<u32>) -> Result<Auth, ConfigError> {
        Auth::from_config(&Config {
            api_keys: Some(keys.into()),
            rate_limit_per_key: rate,
            ..Config::default()
        })
    }

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(
                axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        h
    }

    #[test]
    fn keys_are_off_by_default_and_checked_when_on() {
        let off = Auth::from_config(&Config::default()).unwrap();
        assert!(!off.enabled());
        assert!(off.check(&HeaderMap::new()).unwrap().tenant.is_none());
        let on = auth("aaaaaaaaaaaaaaaa1, bbbbbbbbbbbbbbbb2", None).unwrap();
        assert_eq!(on.key_count(), 2);
        assert_eq!(on.check(&HeaderMap::new()).unwrap_err(), Refusal::NoKey);
        let wrong = headers(&[("authorization", "Bearer aaaaaaaaaaaaaaaa3")]);
        assert_eq!(on.check(&wrong).unwrap_err(), Refusal::WrongKey);
        let a = on
            .check(&headers(&[("authorization", "bearer aaaaaaaaaaaaaaaa1")]))
            .unwrap();
        let a2 = on
            .check(&headers(&[("x-api-key", "aaaaaaaaaaaaaaaa1")]))
            .unwrap();
        let b = on
            .check(&headers(&[("x-api-key", "bbbbbbbbbbbbbbbb2")]))
            .unwrap();
        assert_eq!(a.tenant, a2.tenant);
        assert_ne!(a.tenant, b.tenant);
        // The tenant id is not the hash the keys are held as.
        let held: String = key_hash("aaaaaaaaaaaaaaaa1")
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert!(!held.starts_with(a.tenant.as_deref().unwrap()));
    }

    #[test]
    fn bad_key_settings_stop_start_up_without_showing_the_key() {
        let e = auth("tiny-key", None).unwrap_err();
        assert!(e.0.contains("API_KEYS") && !e.0.contains("tiny-key"), "{e}");
        let e = auth(" , ", None).unwrap_err();
        assert!(e.0.contains("at least one key"), "{e}");
        let e = Auth::from_config(&Config {
            api_keys_file: Some("/nonexistent/quire-keys".into()),
            ..Config::default()
        })
        .unwrap_err();
        assert!(e.0.contains("API_KEYS_FILE"), "{e}");
    }

    #[test]
    fn the_rate_limit_refuses_past_the_budget_with_a_wait() {
        let on = auth("aaaaaaaaaaaaaaaa1,bbbbbbbbbbbbbbbb2", Some(3)).unwrap();
        let a = headers(&[("x-api-key", "aaaaaaaaaaaaaaaa1")]);
        for _ in 0..3 {
            assert!(on.check(&a).is_ok());
        }
        let refused = on.check(&a).unwrap_err().into_response();
        assert_eq!(refused.status(), 429);
        let wait: u64 = refused.headers()["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!((1..=20).contains(&wait), "{wait}");
        // Another key has its own budget.
        assert!(on
            .check(&headers(&[("x-api-key", "bbbbbbbbbbbbbbbb2")]))
            .is_ok());
    }
}
