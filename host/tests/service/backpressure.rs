//! Backpressure: with `MAX_QUEUED_JOBS`, no more jobs than that ever wait, every refusal is a
//! 429 with `Retry-After` and stores nothing, and every accepted job completes.

use crate::both_stores;
use crate::support::*;
use serde_json::Value;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(120);

both_stores!(
    a_full_queue_answers_429_and_loses_nothing,
    |kind| async move {
        const MAX: u64 = 50;
        const SUBMISSIONS: usize = 200;
        let mut s = TestServer::start_with(kind, |c| c.max_queued_jobs = Some(MAX), 1).await;
        let shared = s.server.as_ref().unwrap().shared().clone();
        // The queue as the store holds it, sampled all along.
        let deepest = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let sampler = {
            let (deepest, stop, shared) = (deepest.clone(), stop.clone(), shared.clone());
            tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    if let Ok(d) = shared.store.queue_depth().await {
                        deepest.fetch_max(d, Ordering::Relaxed);
                    }
                    tokio::time::sleep(Duration::from_millis(2)).await;
                }
            })
        };
        let (ct, body) = multipart(&[
            FormPart::file("file", "slowish.txt", b"QUIRE-FAULT:slow:40"),
            FormPart::text("output_format", "md"),
        ]);
        let body = bytes::Bytes::from(body);
        let mut tasks = Vec::new();
        for _ in 0..SUBMISSIONS {
            let (client, url, ct, body) = (
                s.client.clone(),
                s.url("/api/v1/jobs"),
                ct.clone(),
                body.clone(),
            );
            tasks.push(tokio::spawn(async move {
                let r = client
                    .post(url)
                    .header("content-type", ct)
                    .body(body)
                    .send()
                    .await
                    .unwrap();
                let status = r.status().as_u16();
                let retry = r
                    .headers()
                    .get("retry-after")
                    .map(|v| v.to_str().unwrap().to_string());
                let body: Value = r.json().await.unwrap();
                (status, retry, body)
            }));
        }
        let mut accepted = Vec::new();
        let mut refused = 0;
        for t in tasks {
            let (status, retry, body) = t.await.unwrap();
            match status {
                202 => accepted.push(body["id"].as_str().unwrap().to_string()),
                429 => {
                    refused += 1;
                    let wait: u64 = retry
                        .expect("Retry-After on every 429")
                        .parse()
                        .expect("Retry-After is seconds");
                    assert!((1..=600).contains(&wait), "Retry-After {wait}");
                    assert!(
                        body["detail"].as_str().unwrap().contains("waiting"),
                        "{body}"
                    );
                }
                other => panic!("unexpected status {other}: {body}"),
            }
        }
        assert!(
            refused > 0,
            "the queue never filled: the test proves nothing"
        );
        assert!(
            accepted.len() as u64 >= MAX,
            "only {} accepted",
            accepted.len()
        );
        // Readiness and metrics report the bound.
        let ready = s.get_json(&s.url("/api/v1/ready")).await;
        assert_eq!(ready["max_queued_jobs"], MAX);
        assert!(ready["queue_depth"].as_u64().unwrap() <= MAX);
        let metrics = s.get_text(&s.url("/metrics")).await;
        assert!(
            metrics.contains(&format!("quire_max_queued_jobs {MAX}")),
            "{metrics}"
        );
        assert!(
            metrics.contains(&format!(
                "quire_jobs_refused_total{{reason=\"queue_full\"}} {refused}"
            )),
            "{metrics}"
        );
        for id in &accepted {
            let job = s.wait_final(id, WAIT).await;
            assert_eq!(job["status"], "completed", "{job}");
        }
        stop.store(true, Ordering::Relaxed);
        sampler.await.unwrap();
        let deepest = deepest.load(Ordering::Relaxed);
        assert!(deepest <= MAX, "{deepest} jobs waited at once");
        eprintln!(
        "backpressure ({kind:?}): MAX_QUEUED_JOBS={MAX}, {SUBMISSIONS} submissions: {} accepted and completed, {refused} refused with 429 + Retry-After, deepest queue {deepest}",
        accepted.len()
    );
        // Nothing of a refused job was stored: every upload file belongs to an accepted job.
        for f in files_in(&s.config.upload_dir) {
            assert!(
                accepted.iter().any(|id| f.starts_with(id.as_str())),
                "stray upload {f}"
            );
        }
        s.stop().await;
    }
);
