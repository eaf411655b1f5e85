//! Isolation and crash tests: converters that panic, abort, loop, allocate without bound or
//! overflow their stack fail only their own job; `kill -9` of a `quire worker` mid-job and of
//! `quire serve` on the embedded store lose nothing; SIGTERM drains.

use crate::support::*;
use serde_json::Value;
use std::io::BufRead;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(60);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_fault_fails_only_its_own_job() {
    let mut s = TestServer::start_with(
        StoreKind::Embedded,
        |c| {
            c.conversion_timeout = 3;
            c.conversion_max_memory = 256 << 20;
        },
        4,
    )
    .await;
    let cases: [(&str, &[&str]); 6] = [
        ("panic", &["failed unexpectedly"]),
        ("abort", &["crashed"]),
        ("loop", &["longer than the limit of 3 seconds"]),
        ("alloc", &["more memory than the limit of 256 MB"]),
        ("stack", &["stack overflow"]),
        ("exit", &["stopped unexpectedly"]),
    ];
    let mut ids = Vec::new();
    for (name, _) in &cases {
        let body = format!("QUIRE-FAULT:{name}");
        ids.push(
            s.create(&format!("{name}.txt"), body.as_bytes(), "md")
                .await,
        );
    }
    let good = s
        .create("good.txt", b"a perfectly ordinary document", "md")
        .await;
    let job = s.wait_final(&good, WAIT).await;
    assert_eq!(job["status"], "completed", "{job}");
    for ((name, expected), id) in cases.iter().zip(&ids) {
        let job = s.wait_final(id, WAIT).await;
        assert_eq!(job["status"], "failed", "{name}: {job}");
        let msg = job["error_message"].as_str().unwrap();
        assert!(expected.iter().any(|e| msg.contains(e)), "{name}: {msg}");
        assert!(
            !msg.contains('/') && !msg.contains("panicked"),
            "no paths or traces: {msg}"
        );
        assert!(job["completed_at"].is_string());
        // Not retried: a converter fault is the document's, not the worker's.
        assert_eq!(job["metadata"]["attempts"], 1, "{name}");
    }
    let h = s.client.get(s.url("/api/v1/health")).send().await.unwrap();
    assert_eq!(h.status(), 200);
    let after = s.create("after.txt", b"still working", "md").await;
    assert_eq!(s.wait_final(&after, WAIT).await["status"], "completed");
    assert!(files_in(&s.config.output_dir)
        .iter()
        .all(|f| !f.ends_with(".tmp")));
    s.stop().await;
}

/// A `quire serve` / `quire worker` process with settings in its environment.
pub struct Proc {
    pub child: Child,
    pub addr: Option<String>,
}

/// `quire <sub>` in `dir` on a free loopback port, with none of the caller's quire settings,
/// its folders under `dir`, JSON logs at `log_level` on a piped stdout, then `env`.
pub fn quire_command(
    sub: &str,
    dir: &std::path::Path,
    log_level: &str,
    env: &[(&str, String)],
) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_quire"));
    cmd.arg(sub).current_dir(dir).stdout(Stdio::piped());
    for k in quire::config::SETTINGS {
        cmd.env_remove(k);
    }
    cmd.env_remove("QUIRE_CONFIG").env_remove("RUST_LOG");
    cmd.env("HOST", "127.0.0.1")
        .env("PORT", "0")
        .env("UPLOAD_DIR", dir.join("uploads"))
        .env("OUTPUT_DIR", dir.join("outputs"))
        .env("DATA_DIR", dir.join("data"))
        .env("JOB_LEASE_SECONDS", "2")
        .env("LOG_FORMAT", "json")
        .env("LOG_LEVEL", log_level);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

pub fn spawn(sub: &str, dir: &std::path::Path, env: &[(&str, String)]) -> Proc {
    // The fault-injection inputs and quick webhook retries, unless `env` says otherwise.
    let mut all = vec![
        ("WEBHOOK_BACKOFF_SECONDS", "0.05".to_string()),
        ("QUIRE_TEST_FAULTS", "1".to_string()),
    ];
    all.extend(env.iter().cloned());
    let mut cmd = quire_command(sub, dir, "info", &all);
    cmd.stderr(Stdio::inherit());
    let mut child = cmd.spawn().expect("spawn quire");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        let mut sent = false;
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if !sent {
                if let Some(i) = line.find("listening on http://") {
                    let rest = &line[i + "listening on http://".len()..];
                    let addr: String = rest
                        .chars()
                        .take_while(|c| !c.is_whitespace() && *c != '"')
                        .collect();
                    let _ = tx.send(addr);
                    sent = true;
                }
            }
        }
    });
    let announces = sub == "serve" || env.iter().any(|(k, _)| *k == "WORKER_METRICS_PORT");
    let addr = if announces {
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(a) => Some(a),
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("quire {sub} did not announce its address (it needs LOG_LEVEL info)");
            }
        }
    } else {
        None
    };
    Proc { child, addr }
}

impl Proc {
    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub fn term(&mut self) -> std::process::ExitStatus {
        // SAFETY: plain kill(2) on our own child's pid.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        self.child.wait().unwrap()
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A client for a server running in another process.
pub fn remote(addr: &str, dir: tempfile::TempDir, config: quire::config::Config) -> TestServer {
    TestServer {
        server: None,
        base: format!("http://{addr}"),
        client: reqwest::Client::new(),
        dir,
        config,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_of_a_worker_mid_job_loses_nothing() {
    let rx = Receiver::start(Arc::new(|_| (200, None))).await;
    let dir = tempfile::tempdir().unwrap();
    let mut config = test_config(StoreKind::Redis, dir.path());
    config.job_lease_seconds = 2;
    let prefix = config.redis_key_prefix.clone();
    // The API process runs no workers; `quire worker` processes do the work.
    let mut s = TestServer::start_in(dir, config.clone(), 0).await;
    let env = [
        ("REDIS_URL", REDIS_URL.to_string()),
        ("REDIS_KEY_PREFIX", prefix.clone()),
        ("WORKERS", "1".to_string()),
    ];
    let mut first = spawn("worker", s.dir.path(), &env);
    let id = {
        let r = s
            .post_form(&[
                FormPart::file("file", "slow.txt", b"QUIRE-FAULT:slow:4000"),
                FormPart::text("output_format", "md"),
                FormPart::text("webhook_url", &rx.url("/hook")),
            ])
            .await;
        r.json::<Value>().await.unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    wait_job(&s, &id, WAIT, |j| {
        j["status"] == "processing" && j["progress"].as_u64() > Some(5)
    })
    .await;
    first.kill9();
    let mut second = spawn("worker", s.dir.path(), &env);
    let job = s.wait_final(&id, WAIT).await;
    assert_eq!(job["status"], "completed", "{job}");
    assert_eq!(job["metadata"]["attempts"], 2);
    let got = rx.wait_for(1, WAIT).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        rx.received().len(),
        1,
        "one final record, one webhook: {got:?}"
    );
    assert_eq!(got[0].json()["status"], "completed");
    let r = s.get(&format!("/api/v1/jobs/{id}/result")).await;
    assert_eq!(r.status(), 200);
    second.term();
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn worker_processes_serve_their_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(StoreKind::Redis, dir.path());
    let prefix = config.redis_key_prefix.clone();
    let mut s = TestServer::start_in(dir, config.clone(), 0).await;
    let env = [
        ("REDIS_URL", REDIS_URL.to_string()),
        ("REDIS_KEY_PREFIX", prefix.clone()),
        ("WORKERS", "1".to_string()),
        ("WORKER_METRICS_PORT", "0".to_string()),
    ];
    let mut worker = spawn("worker", s.dir.path(), &env);
    let metrics = format!("http://{}", worker.addr.clone().unwrap());
    let ok = s
        .create("a.txt", b"converted by a worker process", "md")
        .await;
    let bad = s.create("b.txt", b"QUIRE-FAULT:panic", "md").await;
    assert_eq!(s.wait_final(&ok, WAIT).await["status"], "completed");
    assert_eq!(s.wait_final(&bad, WAIT).await["status"], "failed");
    let text = s.get_text(&format!("{metrics}/metrics")).await;
    for line in [
        "quire_jobs_finished_total{outcome=\"completed\"} 1",
        "quire_jobs_finished_total{outcome=\"failed\"} 1",
        "quire_conversion_seconds_count{converter=\"text\"} 1",
        "quire_workers 1",
        "quire_queue_depth 0",
    ] {
        assert!(text.lines().any(|l| l == line), "{line} missing:\n{text}");
    }
    let h = s.get_json(&format!("{metrics}/health")).await;
    assert_eq!(h["status"], "healthy");
    // The worker's listener has no API.
    let r = s
        .client
        .get(format!("{metrics}/api/v1/jobs/{ok}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    assert!(worker.term().success());
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_of_serve_on_the_embedded_store_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(StoreKind::Embedded, dir.path());
    let env = [
        ("WORKERS", "1".to_string()),
        ("SHUTDOWN_GRACE_SECONDS", "20".to_string()),
    ];
    let mut one = spawn("serve", dir.path(), &env);
    let s = remote(one.addr.as_deref().unwrap(), dir, config.clone());
    let done = s
        .create("done.txt", b"finished before the crash", "md")
        .await;
    assert_eq!(s.wait_final(&done, WAIT).await["status"], "completed");
    let slow = s.create("slow.txt", b"QUIRE-FAULT:slow:3000", "md").await;
    let queued = s
        .create("queued.txt", b"waiting in the queue", "json")
        .await;
    wait_job(&s, &slow, WAIT, |j| j["status"] == "processing").await;
    one.kill9();

    let mut two = spawn("serve", s.dir.path(), &env);
    let s = remote(two.addr.as_deref().unwrap(), s.dir, config.clone());
    let job = s.wait_final(&slow, WAIT).await;
    assert_eq!(job["status"], "completed", "{job}");
    assert_eq!(job["metadata"]["attempts"], 2);
    assert_eq!(s.wait_final(&queued, WAIT).await["status"], "completed");
    let r = s.get(&format!("/api/v1/jobs/{done}/result")).await;
    assert_eq!(r.status(), 200);
    assert!(r
        .text()
        .await
        .unwrap()
        .contains("finished before the crash"));

    // SIGTERM drains: the running job finishes before the process exits.
    let draining = s.create("drain.txt", b"QUIRE-FAULT:slow:1500", "md").await;
    wait_job(&s, &draining, WAIT, |j| j["status"] == "processing").await;
    let started = Instant::now();
    let status = two.term();
    assert!(status.success(), "{status:?}");
    assert!(started.elapsed() < Duration::from_secs(15));
    let mut three = spawn("serve", s.dir.path(), &env);
    let s = remote(three.addr.as_deref().unwrap(), s.dir, config);
    let job = s.job(&draining).await;
    assert_eq!(job["status"], "completed", "drained before exit: {job}");
    assert_eq!(job["metadata"]["attempts"], 1);
    three.term();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_past_the_grace_period_hands_jobs_back() {
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(StoreKind::Embedded, dir.path());
    let env = [
        ("WORKERS", "1".to_string()),
        ("SHUTDOWN_GRACE_SECONDS", "0".to_string()),
    ];
    let mut one = spawn("serve", dir.path(), &env);
    let s = remote(one.addr.as_deref().unwrap(), dir, config.clone());
    let slow = s.create("slow.txt", b"QUIRE-FAULT:slow:5000", "md").await;
    wait_job(&s, &slow, WAIT, |j| j["status"] == "processing").await;
    assert!(one.term().success());
    // Look at the store directly (a server would pick the job up at once).
    let store = quire::service::store::Store::open(&config).await.unwrap();
    let job = store.get(&slow).await.unwrap().unwrap();
    assert_eq!(
        job.state.status,
        quire::service::job::Status::Pending,
        "handed back"
    );
    assert_eq!(job.state.attempts, 0);
    drop(store);
    // The store's writer thread releases the file lock as it winds down.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut three = spawn("serve", s.dir.path(), &[("WORKERS", "1".to_string())]);
    let s3 = remote(three.addr.as_deref().unwrap(), s.dir, config);
    let job = s3.wait_final(&slow, WAIT).await;
    assert_eq!(job["status"], "completed");
    assert_eq!(
        job["metadata"]["attempts"], 1,
        "a hand-back does not count as an attempt"
    );
    three.term();
}
