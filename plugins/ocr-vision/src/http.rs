//! One chat-completions call with retries: capped exponential backoff on 408/409/429/5xx and
//! connection failures, honouring `Retry-After`; never retrying 400/401/403; at most
//! [`MAX_ATTEMPTS`] requests per image and a cap on requests per provider instance.

use quire_plugin_api::{Error, Result};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, SystemTime};

pub const MAX_ATTEMPTS: u32 = 4;
/// First backoff; doubled per attempt.
const BACKOFF_BASE: Duration = Duration::from_millis(500);
/// No single wait is longer than this, whatever `Retry-After` asks.
const BACKOFF_CAP: Duration = Duration::from_secs(20);

/// Where and how to send.
pub struct Endpoint<'a> {
    pub agent: &'a ureq::Agent,
    pub url: &'a str,
    /// Never logged, never part of an error detail.
    pub key: &'a str,
    /// Requests made so far by this provider instance, and the cap.
    pub sent: &'a AtomicU32,
    pub max_requests: u32,
    /// Base of the backoff (tests shorten it).
    pub backoff: Duration,
}

impl Endpoint<'_> {
    pub fn default_backoff() -> Duration {
        BACKOFF_BASE
    }
}

/// What one attempt gave.
enum Attempt {
    Done(String),
    /// Worth retrying; the server's requested wait if it gave one.
    Retry {
        wait: Option<Duration>,
        why: String,
    },
    Fail(Error),
}

/// POSTs `body` and returns the answer's body text (HTTP 200).
pub fn post_with_retries(endpoint: &Endpoint<'_>, body: &[u8]) -> Result<String> {
    let mut last = String::new();
    for attempt in 0..MAX_ATTEMPTS {
        let previous = endpoint.sent.fetch_add(1, Ordering::SeqCst);
        if previous >= endpoint.max_requests {
            endpoint.sent.fetch_sub(1, Ordering::SeqCst);
            return Err(Error::limit(format!(
                "This job reached its cap of {} requests to the AI vision service.",
                endpoint.max_requests
            )));
        }
        match send_once(endpoint, body) {
            Attempt::Done(text) => return Ok(text),
            Attempt::Fail(e) => return Err(e),
            Attempt::Retry { wait, why } => {
                last = why;
                if attempt + 1 == MAX_ATTEMPTS {
                    break;
                }
                let backoff = endpoint
                    .backoff
                    .saturating_mul(1 << attempt)
                    .min(BACKOFF_CAP);
                let wait = wait.unwrap_or(backoff + jitter(backoff));
                if wait > BACKOFF_CAP {
                    return Err(Error::temporary(format!(
                        "The AI vision service asked to wait {} s before retrying; try again later.",
                        wait.as_secs()
                    ))
                    .with_detail(last));
                }
                std::thread::sleep(wait);
            }
        }
    }
    Err(
        Error::temporary("The AI vision service is unavailable or overloaded; try again later.")
            .with_detail(format!("after {MAX_ATTEMPTS} attempts: {last}")),
    )
}

fn send_once(endpoint: &Endpoint<'_>, body: &[u8]) -> Attempt {
    let response = endpoint
        .agent
        .post(endpoint.url)
        .header("Authorization", format!("Bearer {}", endpoint.key))
        .content_type("application/json")
        .send(body);
    let mut response = match response {
        Ok(r) => r,
        Err(e) => return transport_error(e),
    };
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(parse_retry_after);
    let text = match response.body_mut().read_to_string() {
        Ok(t) => t,
        Err(e) if status == 200 => return transport_error(e),
        Err(_) => String::new(),
    };
    match status {
        200 => Attempt::Done(text),
        401 | 403 => Attempt::Fail(
            Error::internal("The AI vision service rejected the API key.")
                .with_detail(format!("HTTP {status}")),
        ),
        408 | 409 | 429 | 500..=599 => Attempt::Retry {
            wait: retry_after,
            why: format!("HTTP {status}: {}", excerpt(&text)),
        },
        404 => Attempt::Fail(
            Error::internal(
                "The AI vision service does not know this model or address (HTTP 404); check OCR_PROVIDER_THREE_BASE_URL and OCR_PROVIDER_THREE_MODEL.",
            )
            .with_detail(excerpt(&text)),
        ),
        _ => Attempt::Fail(
            Error::internal(format!(
                "The AI vision service refused the request (HTTP {status})."
            ))
            .with_detail(excerpt(&text)),
        ),
    }
}

fn transport_error(e: ureq::Error) -> Attempt {
    match e {
        ureq::Error::Timeout(_)
        | ureq::Error::Io(_)
        | ureq::Error::ConnectionFailed
        | ureq::Error::HostNotFound
        | ureq::Error::Protocol(_) => Attempt::Retry {
            wait: None,
            why: e.to_string(),
        },
        other => Attempt::Fail(
            Error::internal("The AI vision service could not be called.").with_detail(other),
        ),
    }
}

/// `Retry-After` as delay-seconds or an HTTP date.
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(
        when.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// Up to a quarter of the backoff, so parallel jobs do not retry in lockstep.
fn jitter(backoff: Duration) -> Duration {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    backoff.mul_f64(f64::from(nanos % 1000) / 4000.0)
}

/// The start of an error body for the log (servers put the reason there; never the key).
fn excerpt(text: &str) -> String {
    let t: String = text.chars().take(300).collect();
    t.replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_forms() {
        assert_eq!(parse_retry_after("3"), Some(Duration::from_secs(3)));
        assert_eq!(parse_retry_after("0.5"), Some(Duration::from_millis(500)));
        let later = SystemTime::now() + Duration::from_secs(30);
        let d = parse_retry_after(&httpdate::fmt_http_date(later)).unwrap();
        assert!(d <= Duration::from_secs(30) && d >= Duration::from_secs(28));
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon"), None);
    }
}
