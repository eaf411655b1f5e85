//! A Redis outage under load: the test runs its own `redis-server` (append-only file, fsync
//! per write) on a free port, kills it with SIGKILL while clients create and poll jobs, and
//! starts it again on the same files. During the outage every API answer comes within 2 s
//! (503 with `Retry-After` for store commands); after it, the API and the workers are back
//! within 2 s, and every job that was accepted completes.

use crate::support::*;
use serde_json::Value;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

struct RedisServer {
    port: u16,
    dir: std::path::PathBuf,
    child: Option<Child>,
}

impl RedisServer {
    fn start(dir: &std::path::Path) -> RedisServer {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut r = RedisServer {
            port,
            dir: dir.to_path_buf(),
            child: None,
        };
        r.launch();
        r
    }

    fn launch(&mut self) {
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args([
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--save",
                "",
            ])
            .arg("--dir")
            .arg(&self.dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server (apt install redis-server)");
        self.child = Some(child);
        let start = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "redis did not start"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn kill9(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill9();
    }
}

#[derive(Debug, Clone)]
struct Call {
    at: Instant,
    took: Duration,
    status: u16,
    retry_after: bool,
    detail: String,
    created: Option<String>,
}

async fn create(client: &reqwest::Client, base: &str, n: usize) -> Call {
    let body = format!("outage test document {n}");
    let (ct, body) = multipart(&[
        FormPart::file("file", "load.txt", body.as_bytes()),
        FormPart::text("output_format", "md"),
    ]);
    let at = Instant::now();
    let r = client
        .post(format!("{base}/api/v1/jobs"))
        .header("content-type", ct)
        .body(body)
        .send()
        .await
        .expect("the API answers");
    let status = r.status().as_u16();
    let retry_after = r.headers().contains_key("retry-after");
    let v: Value = r.json().await.unwrap_or(Value::Null);
    Call {
        at,
        took: at.elapsed(),
        status,
        retry_after,
        detail: v["detail"].as_str().unwrap_or_default().to_string(),
        created: (status == 202).then(|| v["id"].as_str().unwrap().to_string()),
    }
}

async fn get(client: &reqwest::Client, url: &str) -> Call {
    let at = Instant::now();
    let r = client.get(url).send().await.expect("the API answers");
    let status = r.status().as_u16();
    let retry_after = r.headers().contains_key("retry-after");
    let v: Value = r.json().await.unwrap_or(Value::Null);
    Call {
        at,
        took: at.elapsed(),
        status,
        retry_after,
        detail: v["detail"].as_str().unwrap_or_default().to_string(),
        created: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_kill_and_restart_under_load_loses_nothing() {
    let data = tempfile::tempdir().unwrap();
    let mut redis = RedisServer::start(data.path());
    let dir = tempfile::tempdir().unwrap();
    let mut config = test_config(StoreKind::Redis, dir.path());
    config.redis_url = Some(redis.url());
    let mut s = TestServer::start_in(dir, config, 2).await;
    let base = s.base.clone();

    // Load: two clients creating jobs and polling the last one they made.
    let calls: Arc<Mutex<Vec<Call>>> = Arc::default();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut clients = Vec::new();
    for c in 0..2 {
        let (calls, stop, base) = (calls.clone(), stop.clone(), base.clone());
        clients.push(tokio::spawn(async move {
            let client = reqwest::Client::new();
            let mut n = 0;
            let mut last: Option<String> = None;
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                n += 1;
                let call = create(&client, &base, c * 100_000 + n).await;
                if let Some(id) = &call.created {
                    last = Some(id.clone());
                }
                calls.lock().unwrap().push(call);
                if let Some(id) = &last {
                    let call = get(&client, &format!("{base}/api/v1/jobs/{id}")).await;
                    calls.lock().unwrap().push(call);
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }));
    }
    tokio::time::sleep(Duration::from_secs(1)).await;

    redis.kill9();
    let down = Instant::now();
    // Readiness during the outage: answered fast, and not ready.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let ready = get(&s.client, &s.url("/api/v1/ready")).await;
    assert_eq!(ready.status, 503, "{ready:?}");
    assert!(ready.took < Duration::from_secs(2), "{ready:?}");
    tokio::time::sleep(Duration::from_millis(2500)).await;

    redis.launch();
    let up = Instant::now();
    // The API: the first accepted job after the restart.
    let api_back = loop {
        let call = create(&s.client, &base, 999_999).await;
        if call.status == 202 {
            calls.lock().unwrap().push(call);
            break up.elapsed();
        }
        assert!(up.elapsed() < Duration::from_secs(10), "{call:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    // The workers: a job created now is converted.
    let probe = s.create("probe.txt", b"after the restart", "md").await;
    let job = s.wait_final(&probe, Duration::from_secs(10)).await;
    assert_eq!(job["status"], "completed", "{job}");
    let workers_back = up.elapsed();
    tokio::time::sleep(Duration::from_millis(500)).await;
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    for c in clients {
        c.await.unwrap();
    }

    let calls = calls.lock().unwrap().clone();
    let during: Vec<&Call> = calls.iter().filter(|c| c.at >= down && c.at < up).collect();
    let slowest = calls.iter().map(|c| c.took).max().unwrap();
    let unavailable = during.iter().filter(|c| c.status == 503).count();
    eprintln!(
        "redis outage: {} calls during the outage ({unavailable} answered 503), slowest answer of the whole run {slowest:?}; /ready took {:?}; API back {api_back:?} and workers back {workers_back:?} after the restart",
        during.len(),
        ready.took
    );
    assert!(!during.is_empty() && unavailable > 0);
    for c in &calls {
        assert!(
            c.took < Duration::from_secs(2),
            "an answer took too long: {c:?}"
        );
        assert!(
            matches!(c.status, 200 | 202 | 503),
            "only success or 503 expected: {c:?}"
        );
        if c.status == 503 {
            assert!(c.retry_after, "{c:?}");
            assert_eq!(c.detail, "The job store is unavailable; retry later");
        }
    }
    assert!(
        api_back < Duration::from_secs(2),
        "API back after {api_back:?}"
    );
    assert!(
        workers_back < Duration::from_secs(5),
        "workers back after {workers_back:?}"
    );

    // Nothing accepted is lost.
    let accepted: Vec<String> = calls.iter().filter_map(|c| c.created.clone()).collect();
    let mut completed = 0;
    for id in &accepted {
        let job = s.wait_final(id, Duration::from_secs(60)).await;
        assert_eq!(job["status"], "completed", "{job}");
        completed += 1;
    }
    eprintln!(
        "redis outage: {} jobs accepted, {completed} completed, 0 lost",
        accepted.len()
    );
    s.stop().await;
}
