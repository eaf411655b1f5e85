//! Webhooks against a real HTTP receiver: payload and headers, Standard Webhooks signature,
//! retries with backoff and Retry-After, giving up, the default URL, address checks, no
//! redirects.

use crate::support::*;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(30);

fn always(status: u16) -> Script {
    Arc::new(move |_| (status, None))
}

async fn create_with_hook(s: &TestServer, body: &[u8], hook: &str) -> String {
    let r = s
        .post_form(&[
            FormPart::file("file", "doc.txt", body),
            FormPart::text("output_format", "md"),
            FormPart::text("webhook_url", hook),
        ])
        .await;
    assert_eq!(r.status(), 202);
    r.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string()
}

async fn webhook_outcome(s: &TestServer, id: &str, check: impl Fn(&Value) -> bool) -> Value {
    let job = wait_job(s, id, WAIT, |j| check(&j["metadata"]["webhook"])).await;
    job["metadata"]["webhook"].clone()
}

fn verify(secret: &[u8], r: &Received) -> bool {
    let id = r.header("webhook-id");
    let ts = r.header("webhook-timestamp");
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(secret).unwrap();
    mac.update(format!("{id}.{ts}.").as_bytes());
    mac.update(&r.body);
    let expected = base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes());
    r.header("webhook-signature")
        .split(' ')
        .any(|s| s == format!("v1,{expected}"))
}

async fn delivered_and_signed(kind: StoreKind) {
    let rx = Receiver::start(always(200)).await;
    let secret_bytes = b"0123456789abcdef0123456789abcdef";
    let secret = format!(
        "whsec_{}",
        base64::engine::general_purpose::STANDARD.encode(secret_bytes)
    );
    let mut s = TestServer::start_with(kind, |c| c.webhook_secret = Some(secret.clone()), 1).await;
    let id = create_with_hook(&s, b"hello hook", &rx.url("/hook")).await;
    let got = rx.wait_for(1, WAIT).await;
    let r = &got[0];
    assert_eq!(r.header("content-type"), "application/json");
    assert_eq!(
        r.header("user-agent"),
        format!("quire/{}", env!("CARGO_PKG_VERSION"))
    );
    assert!(verify(secret_bytes, r), "signature must verify");
    assert_eq!(r.header("webhook-id"), format!("msg_{id}"));
    let p = r.json();
    assert_eq!(p["job_id"], id);
    assert_eq!(p["status"], "completed");
    assert_eq!(p["progress"], 100);
    for f in ["created_at", "updated_at", "completed_at"] {
        assert!(p[f].as_str().unwrap().ends_with('Z'), "{f}");
    }
    assert_eq!(
        p["result_url"],
        format!("{}/api/v1/jobs/{id}/result", s.base)
    );
    assert!(p["metadata"].is_object());
    assert!(p.get("error_message").is_none());
    // The outcome lands in the job.
    let w = webhook_outcome(&s, &id, |w| w["delivered"] == true).await;
    assert_eq!(w["attempts"], 1);
    assert_eq!(w["status_code"], 200);
    // And the result URL works.
    let res = s
        .client
        .get(p["result_url"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(rx.received().len(), 1, "sent exactly once");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delivered_and_signed_embedded() {
    delivered_and_signed(StoreKind::Embedded).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delivered_and_signed_redis() {
    delivered_and_signed(StoreKind::Redis).await;
}

async fn retries_then_succeeds(kind: StoreKind) {
    let rx = Receiver::start(Arc::new(|n| if n < 2 { (500, None) } else { (204, None) })).await;
    let mut s =
        TestServer::start_with(kind, |c| c.webhook_secret = Some("plain-secret".into()), 1).await;
    let id = create_with_hook(&s, b"retry me", &rx.url("/hook")).await;
    let got = rx.wait_for(3, WAIT).await;
    let w = webhook_outcome(&s, &id, |w| w["delivered"] == true).await;
    assert_eq!(w["attempts"], 3);
    // Same message id on every retry; each signature verifies.
    let ids: Vec<String> = got.iter().map(|r| r.header("webhook-id")).collect();
    assert!(ids.iter().all(|i| *i == ids[0]));
    assert!(got.iter().all(|r| verify(b"plain-secret", r)));
    // Backoff: the second retry waits about twice as long as the first (0.05 s, 0.1 s).
    let d1 = got[1].at - got[0].at;
    let d2 = got[2].at - got[1].at;
    assert!(d1 >= Duration::from_millis(40), "{d1:?}");
    assert!(d2 >= Duration::from_millis(90), "{d2:?}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(rx.received().len(), 3);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retries_then_succeeds_embedded() {
    retries_then_succeeds(StoreKind::Embedded).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retries_then_succeeds_redis() {
    retries_then_succeeds(StoreKind::Redis).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gives_up_after_max_retries() {
    let rx = Receiver::start(always(500)).await;
    let mut s = TestServer::start_with(StoreKind::Embedded, |c| c.webhook_max_retries = 2, 1).await;
    let id = create_with_hook(&s, b"never", &rx.url("/hook")).await;
    let w = webhook_outcome(&s, &id, |w| w["gave_up"] == true).await;
    assert_eq!(w["attempts"], 3);
    assert_eq!(w["delivered"], false);
    assert_eq!(w["status_code"], 500);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(rx.received().len(), 3, "1 send + 2 retries");
    // The conversion was not re-run.
    let job = s.job(&id).await;
    assert_eq!(job["metadata"]["attempts"], 1);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retry_after_is_honoured() {
    let rx = Receiver::start(Arc::new(|n| {
        if n == 0 {
            (503, Some("1"))
        } else {
            (200, None)
        }
    }))
    .await;
    let mut s = TestServer::start(StoreKind::Embedded).await;
    let id = create_with_hook(&s, b"later", &rx.url("/hook")).await;
    let got = rx.wait_for(2, WAIT).await;
    assert!(
        got[1].at - got[0].at >= Duration::from_millis(950),
        "{:?}",
        got[1].at - got[0].at
    );
    webhook_outcome(&s, &id, |w| w["delivered"] == true).await;
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn default_url_is_used_and_not_echoed() {
    let rx = Receiver::start(always(200)).await;
    let url = rx.url("/default");
    let mut s = TestServer::start_with(
        StoreKind::Embedded,
        |c| c.default_webhook_url = Some(url.clone()),
        1,
    )
    .await;
    let r = s
        .post_form(&[
            FormPart::file("file", "a.txt", b"x"),
            FormPart::text("output_format", "md"),
        ])
        .await;
    let job: Value = r.json().await.unwrap();
    assert!(job.get("webhook_url").is_none());
    let id = job["id"].as_str().unwrap().to_string();
    let got = rx.wait_for(1, WAIT).await;
    assert_eq!(got[0].json()["job_id"], id);
    let job = wait_job(&s, &id, WAIT, |j| {
        j["metadata"]["webhook"]["delivered"] == true
    })
    .await;
    assert!(job.get("webhook_url").is_none());
    assert!(
        !job.to_string().contains("/default"),
        "the default URL is never shown: {job}"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_jobs_notify_with_error_message() {
    let rx = Receiver::start(always(200)).await;
    let mut s = TestServer::start(StoreKind::Embedded).await;
    let id = create_with_hook(&s, b"QUIRE-FAULT:panic", &rx.url("/hook")).await;
    let got = rx.wait_for(1, WAIT).await;
    let p = got[0].json();
    assert_eq!(p["job_id"], id);
    assert_eq!(p["status"], "failed");
    assert!(p["error_message"].as_str().unwrap().len() > 10);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_targets_are_refused_when_blocked() {
    let rx = Receiver::start(always(200)).await;
    let mut s =
        TestServer::start_with(StoreKind::Embedded, |c| c.webhook_block_private = true, 1).await;
    let id = create_with_hook(&s, b"x", &rx.url("/hook")).await;
    let w = webhook_outcome(&s, &id, |w| w["delivered"] == false).await;
    assert!(w["error"].as_str().unwrap().contains("loopback"), "{w}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(rx.received().is_empty());
    // Metadata addresses are refused even without the block.
    let mut open = TestServer::start(StoreKind::Embedded).await;
    let id = create_with_hook(&open, b"x", "http://169.254.169.254/latest/meta-data").await;
    let w = webhook_outcome(&open, &id, |w| w["delivered"] == false).await;
    assert!(w["error"].as_str().unwrap().contains("link-local"), "{w}");
    s.stop().await;
    open.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redirects_are_not_followed() {
    let rx = Receiver::start(Arc::new(|n| {
        if n == 0 {
            (302, Some("/elsewhere"))
        } else {
            (200, None)
        }
    }))
    .await;
    let mut s = TestServer::start_with(StoreKind::Embedded, |c| c.webhook_max_retries = 0, 1).await;
    let id = create_with_hook(&s, b"x", &rx.url("/hook")).await;
    let w = webhook_outcome(&s, &id, |w| w["gave_up"] == true).await;
    assert_eq!(w["status_code"], 302);
    let got = rx.received();
    assert_eq!(got.len(), 1, "the redirect target was not requested");
    s.stop().await;
}
