//! Job-completion webhooks (decisions.md "Webhooks").
//!
//! Deliveries are queued in the store when a job ends, in the same atomic step, and sent by a
//! dispatcher separate from the conversion workers: a restart does not lose a pending
//! delivery, and a failing receiver never re-runs a conversion. Each send:
//! - POSTs the payload (plus `error_message` when failed) as JSON with
//!   `User-Agent: quire/<version>`; success is any 2xx within `WEBHOOK_TIMEOUT`;
//! - is signed as in Standard Webhooks when `WEBHOOK_SECRET` is set (`webhook-id` stays the same
//!   across retries);
//! - resolves the target and checks every address first: link-local and cloud-metadata
//!   addresses are always refused, private and loopback ones when `WEBHOOK_BLOCK_PRIVATE=true`;
//!   the connection is pinned to the checked addresses (no DNS rebinding) and redirects are
//!   not followed.
//!
//! Failures are retried `WEBHOOK_MAX_RETRIES` times with exponential backoff
//! (`WEBHOOK_BACKOFF_SECONDS` × 2ⁿ), or after `Retry-After` on 429/503. The outcome lands in
//! the job's `metadata.webhook` (never the URL: a `DEFAULT_WEBHOOK_URL` is not shown to clients).

use super::job::{timestamp, Job, Status};
use super::store::Delivery;
use super::Shared;
use base64::Engine as _;
use chrono::Utc;
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{watch, Semaphore};

/// Sends in flight per process.
const CONCURRENCY: usize = 16;
const IDLE_POLL: Duration = Duration::from_millis(200);
const MAX_DELAY: Duration = Duration::from_secs(3600);

/// Claims due deliveries and sends them until `shutdown`; then waits for sends in flight.
pub async fn run_dispatcher(shared: Arc<Shared>, mut shutdown: watch::Receiver<bool>) {
    let permits = Arc::new(Semaphore::new(CONCURRENCY));
    loop {
        if *shutdown.borrow() {
            break;
        }
        let Ok(permit) = permits.clone().acquire_owned().await else {
            break;
        };
        let now = Utc::now().timestamp_millis();
        let lease = Duration::from_secs(shared.config.webhook_timeout) + Duration::from_secs(60);
        match shared
            .store
            .claim_delivery(now, now + lease.as_millis() as i64)
            .await
        {
            Ok(Some(delivery)) => {
                let shared = shared.clone();
                tokio::spawn(async move {
                    deliver(&shared, delivery).await;
                    drop(permit);
                });
            }
            Ok(None) => {
                drop(permit);
                tokio::select! {
                    _ = shared.wake_webhooks.notified() => {}
                    _ = tokio::time::sleep(IDLE_POLL) => {}
                    _ = shutdown.changed() => {}
                }
            }
            Err(e) => {
                drop(permit);
                tracing::warn!(error = %e, "cannot claim a webhook delivery; retrying in 0.5 s");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
    }
    // Let sends in flight end (bounded by the webhook timeout); unfinished ones are re-sent
    // by another process once their lease ends.
    let wait = Duration::from_secs(
        shared
            .config
            .webhook_timeout
            .min(shared.config.shutdown_grace_seconds),
    );
    let _ = tokio::time::timeout(wait, permits.acquire_many(CONCURRENCY as u32)).await;
}

/// The payload of the interface, plus `error_message` for failed jobs.
pub fn payload(job: &Job) -> Value {
    let view = job.view();
    let mut metadata = view.metadata.unwrap_or_default();
    metadata.remove("webhook");
    let mut p = json!({
        "job_id": job.spec.id,
        "status": job.state.status,
        "progress": job.state.progress,
        "created_at": view.created_at,
        "updated_at": view.updated_at,
        "completed_at": view.completed_at.unwrap_or_else(|| timestamp(job.state.updated_at)),
        "result_url": job.spec.result_url,
        "metadata": metadata,
    });
    if job.state.status == Status::Failed {
        p["error_message"] = json!(job.state.error_message.clone().unwrap_or_default());
    }
    p
}

enum Sent {
    Delivered(u16),
    Refused(String),
    Failed {
        error: String,
        status: Option<u16>,
        retry_after: Option<Duration>,
    },
}

/// One send of a claimed delivery and the record of its outcome. Between the receiver's answer
/// and the record there is no other await: a sender killed in that window (the receiver has the
/// notification, the store does not know) is the at-least-once case, and the next claim after
/// the lease reports it as `unrecorded`.
async fn deliver(shared: &Shared, delivery: Delivery) {
    let store = &shared.store;
    // The job was read by the claim itself (one round trip before the send).
    let Some(job) = delivery.job else {
        let _ = store.end_delivery(&delivery.job_id, &json!({})).await;
        return;
    };
    let Some(url) = job.spec.notify_url.clone() else {
        let _ = store.end_delivery(&delivery.job_id, &json!({})).await;
        return;
    };
    if delivery.unrecorded > 0 {
        shared.metrics.webhook("resent_unrecorded");
        tracing::warn!(
            job = %job.spec.id,
            unrecorded = delivery.unrecorded,
            "webhook sent again after its sender stopped before recording an answer; the receiver may get it twice"
        );
    }
    let attempt = delivery.sent + 1;
    let body = payload(&job).to_string();
    let sent = send(shared, &url, &job.spec.id, body).await;
    let now = Utc::now();
    let max_sends = shared.config.webhook_max_retries + 1;
    let (outcome, retry_in) = match &sent {
        Sent::Delivered(status) => (
            json!({"delivered": true, "attempts": attempt, "status_code": status,
                   "delivered_at": timestamp(now)}),
            None,
        ),
        Sent::Refused(reason) => (
            json!({"delivered": false, "attempts": attempt, "error": reason}),
            None,
        ),
        Sent::Failed {
            error,
            status,
            retry_after,
        } => {
            let mut o = json!({"delivered": false, "attempts": attempt, "error": error});
            if let Some(s) = status {
                o["status_code"] = json!(s);
            }
            if attempt < max_sends {
                let backoff = Duration::from_secs_f64(
                    shared.config.webhook_backoff_seconds * 2f64.powi(attempt as i32 - 1),
                );
                let delay = retry_after.unwrap_or(backoff).min(MAX_DELAY);
                let at = now + chrono::Duration::from_std(delay).unwrap_or_default();
                o["next_attempt_at"] = json!(timestamp(at));
                (o, Some(at.timestamp_millis()))
            } else {
                o["gave_up"] = json!(true);
                (o, None)
            }
        }
    };
    let result = match retry_in {
        Some(due) => {
            store
                .retry_delivery(&job.spec.id, attempt, due, &outcome)
                .await
        }
        None => store.end_delivery(&job.spec.id, &outcome).await,
    };
    // Counting and logging come after the record, so they do not widen the window above.
    match &sent {
        Sent::Delivered(_) => shared.metrics.webhook("delivered"),
        Sent::Refused(reason) => {
            shared.metrics.webhook("refused");
            tracing::warn!(job = %job.spec.id, reason = %reason, "webhook target refused");
        }
        Sent::Failed { error, .. } => {
            tracing::warn!(job = %job.spec.id, attempt, error = %error, "webhook send failed");
            shared.metrics.webhook(if retry_in.is_some() {
                "retried"
            } else {
                "gave_up"
            });
        }
    }
    if let Err(e) = result {
        tracing::warn!(job = %job.spec.id, error = %e, "cannot record the webhook outcome");
    }
}

async fn send(shared: &Shared, url: &str, job_id: &str, body: String) -> Sent {
    let config = &shared.config;
    let parsed = match reqwest::Url::parse(url) {
        Ok(u) if matches!(u.scheme(), "http" | "https") => u,
        _ => return Sent::Refused("the webhook URL is not a valid http(s) URL".into()),
    };
    let Some(host) = parsed.host_str().map(str::to_string) else {
        return Sent::Refused("the webhook URL has no host".into());
    };
    let port = parsed.port_or_known_default().unwrap_or(80);
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let addrs: Vec<SocketAddr> = match bare.parse::<IpAddr>() {
        Ok(ip) => vec![SocketAddr::new(ip, port)],
        Err(_) => match tokio::net::lookup_host((bare, port)).await {
            Ok(a) => a.collect(),
            Err(e) => {
                return Sent::Failed {
                    error: format!("cannot resolve the webhook host: {e}"),
                    status: None,
                    retry_after: None,
                }
            }
        },
    };
    if addrs.is_empty() {
        return Sent::Failed {
            error: "the webhook host has no address".into(),
            status: None,
            retry_after: None,
        };
    }
    for a in &addrs {
        if let Some(reason) = forbidden(a.ip(), config.webhook_block_private) {
            return Sent::Refused(format!("the webhook target resolves to {reason}"));
        }
    }
    let mut builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(config.webhook_timeout))
        .user_agent(concat!("quire/", env!("CARGO_PKG_VERSION")));
    if bare.parse::<IpAddr>().is_err() {
        builder = builder.resolve_to_addrs(bare, &addrs);
    }
    let client = match builder.build() {
        Ok(c) => c,
        Err(e) => {
            return Sent::Failed {
                error: format!("cannot prepare the request: {e}"),
                status: None,
                retry_after: None,
            }
        }
    };
    let mut request = client
        .post(parsed)
        .header(reqwest::header::CONTENT_TYPE, "application/json");
    if let Some(secret) = &config.webhook_secret {
        let msg_id = format!("msg_{job_id}");
        let ts = Utc::now().timestamp();
        request = request
            .header("webhook-id", &msg_id)
            .header("webhook-timestamp", ts.to_string())
            .header(
                "webhook-signature",
                sign(secret, &msg_id, ts, body.as_bytes()),
            );
    }
    match request.body(body).send().await {
        Ok(response) => {
            let status = response.status();
            if status.is_success() {
                return Sent::Delivered(status.as_u16());
            }
            let retry_after = if status.as_u16() == 429 || status.as_u16() == 503 {
                response
                    .headers()
                    .get(reqwest::header::RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .and_then(parse_retry_after)
            } else {
                None
            };
            Sent::Failed {
                error: format!("the receiver answered HTTP {}", status.as_u16()),
                status: Some(status.as_u16()),
                retry_after,
            }
        }
        Err(e) => Sent::Failed {
            error: if e.is_timeout() {
                format!("no answer within {} seconds", config.webhook_timeout)
            } else if e.is_connect() {
                "cannot connect to the receiver".into()
            } else {
                "the request failed".into()
            },
            status: None,
            retry_after: None,
        },
    }
}

/// `v1,<base64 HMAC-SHA256(key, "{id}.{timestamp}.{body}")>`; a `whsec_` secret is base64.
pub fn sign(secret: &str, msg_id: &str, timestamp: i64, body: &[u8]) -> String {
    let key = match secret.strip_prefix("whsec_") {
        Some(b64) => base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap_or_else(|_| secret.as_bytes().to_vec()),
        None => secret.as_bytes().to_vec(),
    };
    let mut mac = match Hmac::<Sha256>::new_from_slice(&key) {
        Ok(m) => m,
        Err(_) => return String::new(),
    };
    mac.update(msg_id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    let sig = base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes());
    format!("v1,{sig}")
}

/// Seconds, or an HTTP date.
fn parse_retry_after(value: &str) -> Option<Duration> {
    if let Ok(secs) = value.trim().parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = chrono::DateTime::parse_from_rfc2822(value.trim()).ok()?;
    let delta = at.with_timezone(&Utc) - Utc::now();
    Some(delta.to_std().unwrap_or_default())
}

/// Why an address may not receive webhooks, if it may not.
pub fn forbidden(ip: IpAddr, block_private: bool) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => forbidden_v4(v4, block_private),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return forbidden_v4(v4, block_private);
            }
            forbidden_v6(v6, block_private)
        }
    }
}

fn forbidden_v4(ip: Ipv4Addr, block_private: bool) -> Option<&'static str> {
    let o = ip.octets();
    if ip.is_link_local() {
        return Some("a link-local address (cloud metadata range)");
    }
    if o == [100, 100, 100, 200] || o == [192, 0, 0, 192] {
        return Some("a cloud metadata address");
    }
    if ip.is_unspecified() || ip.is_broadcast() || ip.is_multicast() || o[0] == 0 {
        return Some("an address that is not a single host");
    }
    if block_private {
        if ip.is_loopback() {
            return Some("a loopback address");
        }
        if ip.is_private() || (o[0] == 100 && (o[1] & 0xC0) == 64) {
            return Some("a private address");
        }
    }
    None
}

fn forbidden_v6(ip: Ipv6Addr, block_private: bool) -> Option<&'static str> {
    let s = ip.segments();
    if (s[0] & 0xffc0) == 0xfe80 {
        return Some("a link-local address");
    }
    if s == [0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254] {
        return Some("a cloud metadata address");
    }
    if ip.is_unspecified() || ip.is_multicast() {
        return Some("an address that is not a single host");
    }
    if block_private {
        if ip.is_loopback() {
            return Some("a loopback address");
        }
        if (s[0] & 0xfe00) == 0xfc00 {
            return Some("a private address");
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_policy() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        assert!(forbidden(ip("169.254.169.254"), false).is_some());
        assert!(forbidden(ip("fe80::1"), false).is_some());
        assert!(forbidden(ip("::ffff:169.254.169.254"), false).is_some());
        assert!(forbidden(ip("fd00:ec2::254"), false).is_some());
        assert!(forbidden(ip("127.0.0.1"), false).is_none());
        assert!(forbidden(ip("127.0.0.1"), true).is_some());
        assert!(forbidden(ip("10.1.2.3"), true).is_some());
        assert!(forbidden(ip("192.168.0.1"), true).is_some());
        assert!(forbidden(ip("100.64.0.1"), true).is_some());
        assert!(forbidden(ip("::1"), true).is_some());
        assert!(forbidden(ip("fd12::1"), true).is_some());
        assert!(forbidden(ip("93.184.216.34"), true).is_none());
        assert!(forbidden(ip("2606:2800:220:1::1"), true).is_none());
    }

    #[test]
    fn signature_matches_the_standard_webhooks_example() {
        // From the Standard Webhooks specification's reference test vector.
        let sig = sign(
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1614265330,
            br#"{"test": 2432232314}"#,
        );
        assert_eq!(sig, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    #[test]
    fn retry_after_accepts_seconds() {
        assert_eq!(parse_retry_after("3"), Some(Duration::from_secs(3)));
        assert_eq!(parse_retry_after("soon"), None);
    }
}
