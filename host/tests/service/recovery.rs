//! Operations under trouble: DELETE of a running job cancels it (in this process and across
//! processes on Redis), and a restart of `quire serve` on the embedded store resumes what the
//! killed process left in flight at once.

use crate::faults::{remote, spawn};
use crate::support::*;
use serde_json::Value;
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(60);

/// Conversion children (`quire __convert-child`) whose parent is `pid`.
pub fn children_of(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in entries.flatten() {
        let Ok(child) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) else {
            continue;
        };
        // Fields after the parenthesised command name: state, ppid, ...
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
            continue;
        };
        let ppid: u32 = rest
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse().ok())
            .unwrap_or(0);
        let cmdline = std::fs::read(format!("/proc/{child}/cmdline")).unwrap_or_default();
        let state = rest.split_whitespace().next().unwrap_or("");
        if ppid == pid
            && state != "Z"
            && String::from_utf8_lossy(&cmdline).contains("__convert-child")
        {
            out.push(child);
        }
    }
    out
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            s.rsplit_once(')')
                .and_then(|(_, r)| r.split_whitespace().next().map(|st| st != "Z"))
                .unwrap_or(false)
        })
        .unwrap_or(false)
}

/// Waits until `parent` has a conversion child and returns it.
async fn running_child(parent: u32) -> u32 {
    let start = Instant::now();
    loop {
        if let Some(&c) = children_of(parent).first() {
            return c;
        }
        assert!(start.elapsed() < WAIT, "no conversion child appeared");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// DELETE of a running job: 204, the child is gone within 1 s, no file of the job remains,
/// the job is 404, and no webhook is sent.
async fn delete_cancels(s: &TestServer, worker_pid: u32, rx: &Receiver) {
    let r = s
        .post_form(&[
            FormPart::file("file", "slow.txt", b"QUIRE-FAULT:slow:30000"),
            FormPart::text("output_format", "md"),
            FormPart::text("webhook_url", &rx.url("/hook")),
        ])
        .await;
    assert_eq!(r.status(), 202);
    let id = r.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    wait_job(s, &id, WAIT, |j| {
        j["status"] == "processing" && j["progress"].as_u64() > Some(5)
    })
    .await;
    let child = running_child(worker_pid).await;
    let started = Instant::now();
    let r = s
        .client
        .delete(s.url(&format!("/api/v1/jobs/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    while alive(child) {
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "the conversion child {child} still runs 1 s after DELETE"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let gone = started.elapsed();
    eprintln!("DELETE of a running job: child gone after {gone:?}");
    // Whatever the worker does next must not bring anything back.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let r = s.get(&format!("/api/v1/jobs/{id}")).await;
    assert_eq!(r.status(), 404);
    for dir in [&s.config.output_dir, &s.config.upload_dir] {
        let left: Vec<String> = files_in(dir)
            .into_iter()
            .filter(|f| f.starts_with(&id))
            .collect();
        assert!(left.is_empty(), "files of the deleted job remain: {left:?}");
    }
    assert!(rx.received().is_empty(), "no webhook for a deleted job");
    // The worker goes on serving.
    let next = s.create("next.txt", b"after a cancellation", "md").await;
    assert_eq!(s.wait_final(&next, WAIT).await["status"], "completed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delete_of_a_running_job_cancels_it_in_process() {
    let rx = Receiver::start(std::sync::Arc::new(|_| (200, None))).await;
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(StoreKind::Embedded, dir.path());
    // Its own process, so its conversion child is told apart from other tests'.
    // The production lease: an attempt noticing its deletion at lease renewal is too late.
    let env = [
        ("WORKERS", "1".to_string()),
        ("CONVERSION_TIMEOUT", "60".to_string()),
        ("JOB_LEASE_SECONDS", "30".to_string()),
    ];
    let mut serve = spawn("serve", dir.path(), &env);
    let s = remote(serve.addr.as_deref().unwrap(), dir, config);
    delete_cancels(&s, serve.child.id(), &rx).await;
    serve.term();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delete_of_a_running_job_cancels_it_across_processes_on_redis() {
    let rx = Receiver::start(std::sync::Arc::new(|_| (200, None))).await;
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(StoreKind::Redis, dir.path());
    let prefix = config.redis_key_prefix.clone();
    // The API process runs no workers; a `quire worker` process converts.
    let mut s = TestServer::start_in(dir, config, 0).await;
    let env = [
        ("REDIS_URL", REDIS_URL.to_string()),
        ("REDIS_KEY_PREFIX", prefix),
        ("WORKERS", "1".to_string()),
        ("CONVERSION_TIMEOUT", "60".to_string()),
        ("JOB_LEASE_SECONDS", "30".to_string()),
    ];
    let mut worker = spawn("worker", s.dir.path(), &env);
    delete_cancels(&s, worker.child.id(), &rx).await;
    worker.term();
    s.stop().await;
}

/// A receiver whose first request hangs for a long time (a delivery in flight when the server
/// is killed); later ones answer 200 at once.
async fn hanging_receiver() -> (String, std::sync::Arc<std::sync::Mutex<Vec<Instant>>>) {
    let seen: std::sync::Arc<std::sync::Mutex<Vec<Instant>>> = Default::default();
    let log = seen.clone();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move || {
            let log = log.clone();
            async move {
                let n = {
                    let mut l = log.lock().unwrap();
                    l.push(Instant::now());
                    l.len()
                };
                if n == 1 {
                    tokio::time::sleep(Duration::from_secs(600)).await;
                }
                "ok"
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}/hook"), seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_on_the_embedded_store_resumes_interrupted_work_at_once() {
    let (hook, seen) = hanging_receiver().await;
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(StoreKind::Embedded, dir.path());
    // Production leases: without recovery at start the job would wait 30 s and the
    // delivery 90 s.
    let env = [
        ("WORKERS", "1".to_string()),
        ("JOB_LEASE_SECONDS", "30".to_string()),
        ("WEBHOOK_TIMEOUT", "30".to_string()),
    ];
    let mut one = spawn("serve", dir.path(), &env);
    let s = remote(one.addr.as_deref().unwrap(), dir, config.clone());
    let hooked = {
        let r = s
            .post_form(&[
                FormPart::file("file", "hooked.txt", b"delivered after the restart"),
                FormPart::text("output_format", "md"),
                FormPart::text("webhook_url", &hook),
            ])
            .await;
        r.json::<Value>().await.unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(s.wait_final(&hooked, WAIT).await["status"], "completed");
    let start = Instant::now();
    while seen.lock().unwrap().is_empty() {
        assert!(start.elapsed() < WAIT, "the first delivery never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let slow = s.create("slow.txt", b"QUIRE-FAULT:slow:2000", "md").await;
    wait_job(&s, &slow, WAIT, |j| j["status"] == "processing").await;
    // Load: a queue behind the running job.
    let mut queued = Vec::new();
    for n in 0..30 {
        let body = format!("queued document {n}");
        queued.push(s.create("queued.txt", body.as_bytes(), "md").await);
    }
    one.kill9();

    let restarted = Instant::now();
    let restarted_at = chrono::Utc::now();
    let mut two = spawn("serve", s.dir.path(), &env);
    let s = remote(two.addr.as_deref().unwrap(), s.dir, config);
    let job = s.wait_final(&slow, WAIT).await;
    assert_eq!(job["status"], "completed", "{job}");
    assert_eq!(job["metadata"]["attempts"], 2, "{job}");
    // When the second attempt started: its end minus its own duration.
    let ended = chrono::DateTime::parse_from_rfc3339(job["completed_at"].as_str().unwrap())
        .unwrap()
        .with_timezone(&chrono::Utc);
    let ran = chrono::Duration::milliseconds(job["metadata"]["elapsed_ms"].as_i64().unwrap());
    let resumed = (ended - ran - restarted_at).to_std().unwrap_or_default();
    eprintln!("embedded restart: interrupted job running again {resumed:?} after the restart");
    assert!(
        resumed < Duration::from_secs(2),
        "the interrupted job resumed only after {resumed:?}: {job}"
    );
    let start = Instant::now();
    while seen.lock().unwrap().len() < 2 {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "the delivery in flight was not re-sent after the restart"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let resent = seen.lock().unwrap()[1].duration_since(restarted);
    eprintln!("embedded restart: delivery in flight re-sent {resent:?} after the restart");
    assert!(resent < Duration::from_secs(2), "{resent:?}");
    for id in &queued {
        assert_eq!(s.wait_final(id, WAIT).await["status"], "completed");
    }
    two.term();
}

/// A PDF of `pages` pages of text sharing one content stream.
fn many_page_pdf(pages: usize) -> Vec<u8> {
    let mut text = String::from("BT /F1 6 Tf 20 780 Td 7 TL\n");
    for line in 0..100 {
        text.push_str(&format!(
            "(Line {line} of a page of a very long document, with words.) '\n"
        ));
    }
    text.push_str("ET");
    let content = text.as_bytes();
    let kids: Vec<String> = (0..pages).map(|i| format!("{} 0 R", 5 + i)).collect();
    let mut objects: Vec<Vec<u8>> = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        format!(
            "<< /Type /Pages /Kids [{}] /Count {pages} >>",
            kids.join(" ")
        )
        .into_bytes(),
        format!(
            "<< /Length {} >>\nstream\n{}\nendstream",
            content.len(),
            String::from_utf8_lossy(content)
        )
        .into_bytes(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec(),
    ];
    for _ in 0..pages {
        objects.push(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R /Resources << /Font << /F1 4 0 R >> >> >>".to_vec());
    }
    pdf_of_objects(&objects)
}

/// A conversion stopped by its deadline leaves its child behind it: the next job gets a
/// fresh one (a reused child kept whatever the interrupted conversion held).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_out_conversion_does_not_leave_its_child_to_the_next_job() {
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(StoreKind::Embedded, dir.path());
    let runtime = quire_testkit::runtime_dir().display().to_string();
    let env = [
        ("WORKERS", "1".to_string()),
        ("CONVERSION_TIMEOUT", "1".to_string()),
        ("QUIRE_RUNTIME_DIR", runtime),
    ];
    let mut serve = spawn("serve", dir.path(), &env);
    let s = remote(serve.addr.as_deref().unwrap(), dir, config);
    let warm = s.create("warm.txt", b"warm up", "md").await;
    assert_eq!(s.wait_final(&warm, WAIT).await["status"], "completed");
    let before = children_of(serve.child.id());
    assert_eq!(before.len(), 1);
    let id = s.create("long.pdf", &many_page_pdf(9000), "md").await;
    let job = s.wait_final(&id, WAIT).await;
    assert_eq!(job["metadata"]["error_kind"], "timeout", "{job}");
    // Stopped by the child's own deadline check, not killed by the worker 2 s later.
    assert!(
        job["metadata"]["elapsed_ms"].as_u64().unwrap() < 2900,
        "{job}"
    );
    let next = s.create("next.txt", b"the next job", "md").await;
    assert_eq!(s.wait_final(&next, WAIT).await["status"], "completed");
    let after = children_of(serve.child.id());
    assert!(
        !after.contains(&before[0]),
        "the child that timed out ({}) served the next job",
        before[0]
    );
    serve.term();
}

/// A file the conversion cannot load within its memory limit is reported as such, not as
/// "no longer available" (the file is there).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_over_the_memory_limit_is_not_reported_missing() {
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(StoreKind::Embedded, dir.path());
    let env = [
        ("WORKERS", "1".to_string()),
        ("CONVERSION_MAX_MEMORY", (192u64 << 20).to_string()),
    ];
    let mut serve = spawn("serve", dir.path(), &env);
    let s = remote(serve.addr.as_deref().unwrap(), dir, config);
    let id = s.create("huge.txt", &vec![b'a'; 96 << 20], "md").await;
    let job = s.wait_final(&id, WAIT).await;
    let message = job["error_message"].as_str().unwrap_or_default();
    assert_eq!(job["status"], "failed", "{job}");
    assert!(!message.contains("no longer available"), "{message}");
    assert_eq!(job["metadata"]["error_kind"], "limit_exceeded", "{job}");
    serve.term();
}
