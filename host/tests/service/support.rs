//! Test support: a real server on port 0 (in-process, injectable shutdown), a multipart body
//! builder, polling, and a real HTTP webhook receiver.

use quire::config::Config;
use quire::service::{self, Options, Server};
use serde_json::Value;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub const REDIS_URL: &str = "redis://127.0.0.1:6379";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreKind {
    Embedded,
    Redis,
}

/// A fresh configuration: temporary directories, port 0, short leases and backoffs.
pub fn test_config(kind: StoreKind, dir: &std::path::Path) -> Config {
    let mut c = Config {
        host: "127.0.0.1".into(),
        port: 0,
        upload_dir: dir.join("uploads"),
        output_dir: dir.join("outputs"),
        data_dir: dir.join("data"),
        job_lease_seconds: 2,
        shutdown_grace_seconds: 5,
        webhook_backoff_seconds: 0.05,
        webhook_timeout: 5,
        conversion_timeout: 20,
        log_level: "warn".into(),
        // Named, not discovered: the tests do not depend on where the binary was built.
        quire_runtime_dir: quire_testkit::runtime_dir(),
        ..Config::default()
    };
    if kind == StoreKind::Redis {
        c.redis_url = Some(REDIS_URL.into());
        c.redis_key_prefix = unique_prefix();
    }
    c
}

pub fn unique_prefix() -> String {
    format!("quire-test:{}:", uuid::Uuid::new_v4())
}

pub fn options(workers: usize) -> Options {
    Options {
        child_exe: PathBuf::from(env!("CARGO_BIN_EXE_quire")),
        test_faults: true,
        workers: Some(workers),
    }
}

pub struct TestServer {
    pub server: Option<Server>,
    pub base: String,
    pub client: reqwest::Client,
    pub dir: tempfile::TempDir,
    pub config: Config,
}

impl TestServer {
    pub async fn start(kind: StoreKind) -> TestServer {
        Self::start_with(kind, |_| {}, 2).await
    }

    pub async fn start_with(
        kind: StoreKind,
        tweak: impl FnOnce(&mut Config),
        workers: usize,
    ) -> TestServer {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut config = test_config(kind, dir.path());
        tweak(&mut config);
        Self::start_in(dir, config, workers).await
    }

    pub async fn start_in(dir: tempfile::TempDir, config: Config, workers: usize) -> TestServer {
        let server = service::start(config.clone(), options(workers))
            .await
            .expect("server starts");
        let base = format!("http://{}", server.addr());
        TestServer {
            server: Some(server),
            base,
            client: reqwest::Client::new(),
            dir,
            config,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The stored record (internal fields included).
    pub async fn shared_job(&self, id: &str) -> quire::service::job::Job {
        let server = self.server.as_ref().expect("running");
        server
            .shared()
            .store
            .get(id)
            .await
            .expect("store")
            .expect("job exists")
    }

    pub async fn stop(&mut self) {
        if let Some(s) = self.server.take() {
            s.shutdown().await.expect("clean shutdown");
        }
        if self.config.redis_url.is_some() {
            redis_cleanup(&self.config.redis_key_prefix).await;
        }
    }

    /// POSTs a multipart form to /api/v1/jobs.
    pub async fn post_form(&self, parts: &[FormPart<'_>]) -> reqwest::Response {
        let (content_type, body) = multipart(parts);
        self.client
            .post(self.url("/api/v1/jobs"))
            .header("content-type", content_type)
            .body(body)
            .send()
            .await
            .expect("request")
    }

    /// Creates a job and returns its id (asserting 202).
    pub async fn create(&self, name: &str, bytes: &[u8], format: &str) -> String {
        let r = self
            .post_form(&[
                FormPart::file("file", name, bytes),
                FormPart::text("output_format", format),
            ])
            .await;
        assert_eq!(
            r.status(),
            202,
            "create failed: {}",
            r.text().await.unwrap_or_default()
        );
        let v: Value = r.json().await.expect("json");
        v["id"].as_str().expect("id").to_string()
    }

    /// GET an absolute URL; the body as text after checking the status is 200.
    pub async fn get_text(&self, url: &str) -> String {
        let r = self.client.get(url).send().await.expect("request");
        assert_eq!(r.status(), 200, "GET {url}");
        r.text().await.expect("body")
    }

    /// GET an absolute URL; the body as JSON after checking the status is 200.
    pub async fn get_json(&self, url: &str) -> Value {
        serde_json::from_str(&self.get_text(url).await).expect("json")
    }

    /// GET a path of this server (`/api/v1/...`), whatever the status.
    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(self.url(path))
            .send()
            .await
            .unwrap_or_else(|e| panic!("GET {path}: {e}"))
    }

    pub async fn job(&self, id: &str) -> Value {
        self.get(&format!("/api/v1/jobs/{id}"))
            .await
            .json()
            .await
            .expect("json")
    }

    /// Polls until the job is completed or failed.
    pub async fn wait_final(&self, id: &str, timeout: Duration) -> Value {
        let start = Instant::now();
        loop {
            let job = self.job(id).await;
            if matches!(job["status"].as_str(), Some("completed") | Some("failed")) {
                return job;
            }
            assert!(
                start.elapsed() < timeout,
                "job {id} did not finish in {timeout:?}: {job}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

pub enum FormPart<'a> {
    Text(&'a str, &'a str),
    File(&'a str, &'a str, &'a [u8]),
}

impl<'a> FormPart<'a> {
    pub fn text(name: &'a str, value: &'a str) -> Self {
        FormPart::Text(name, value)
    }
    pub fn file(name: &'a str, file_name: &'a str, bytes: &'a [u8]) -> Self {
        FormPart::File(name, file_name, bytes)
    }
}

pub fn multipart(parts: &[FormPart<'_>]) -> (String, Vec<u8>) {
    let boundary = format!("----quire{}", uuid::Uuid::new_v4().simple());
    let mut body = Vec::new();
    for part in parts {
        body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        match part {
            FormPart::Text(name, value) => {
                body.extend_from_slice(
                    format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n")
                        .as_bytes(),
                );
            }
            FormPart::File(name, file_name, bytes) => {
                body.extend_from_slice(
                    format!(
                        "Content-Disposition: form-data; name=\"{name}\"; filename=\"{file_name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
                    )
                    .as_bytes(),
                );
                body.extend_from_slice(bytes);
                body.extend_from_slice(b"\r\n");
            }
        }
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// Starts a multipart upload of a file named `big.txt` that declares `declared` bytes and
/// sends `sent` of them; the caller drops the stream to go away mid-body.
pub async fn partial_upload(base: &str, declared: usize, sent: usize) -> tokio::net::TcpStream {
    use tokio::io::AsyncWriteExt;
    let addr = base.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let boundary = "XyZ";
    let head = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.txt\"\r\n\r\n"
    );
    let request = format!(
        "POST /api/v1/jobs HTTP/1.1\r\nHost: {addr}\r\nContent-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {declared}\r\n\r\n{head}"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    stream.write_all(&vec![b'a'; sent]).await.unwrap();
    stream.flush().await.unwrap();
    stream
}

/// Files in a directory (for "nothing left behind" checks).
pub fn files_in(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// One request the receiver saw.
#[derive(Debug, Clone)]
pub struct Received {
    pub at: Instant,
    pub headers: axum::http::HeaderMap,
    pub body: Vec<u8>,
}

impl Received {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("webhook body is JSON")
    }
    pub fn header(&self, name: &str) -> String {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    }
}

/// A real HTTP receiver; `script` gives the status (and optional Retry-After) of the n-th request.
pub struct Receiver {
    pub addr: SocketAddr,
    pub seen: Arc<Mutex<Vec<Received>>>,
    task: tokio::task::JoinHandle<()>,
}

pub type Script = Arc<dyn Fn(usize) -> (u16, Option<&'static str>) + Send + Sync>;

impl Receiver {
    pub async fn start(script: Script) -> Receiver {
        use axum::response::IntoResponse;
        let seen: Arc<Mutex<Vec<Received>>> = Arc::default();
        let state = (seen.clone(), script);
        let app = axum::Router::new()
            .route(
                "/{*path}",
                axum::routing::any(
                    |axum::extract::State((seen, script)): axum::extract::State<(
                        Arc<Mutex<Vec<Received>>>,
                        Script,
                    )>,
                     headers: axum::http::HeaderMap,
                     body: axum::body::Bytes| async move {
                        let n = {
                            let mut s = seen.lock().unwrap();
                            s.push(Received {
                                at: Instant::now(),
                                headers,
                                body: body.to_vec(),
                            });
                            s.len() - 1
                        };
                        let (status, extra) = script(n);
                        let mut response =
                            (axum::http::StatusCode::from_u16(status).unwrap(), "ok")
                                .into_response();
                        if let Some(v) = extra {
                            let name = if (300..400).contains(&status) {
                                "location"
                            } else {
                                "retry-after"
                            };
                            response.headers_mut().insert(name, v.parse().unwrap());
                        }
                        response
                    },
                ),
            )
            .with_state(state);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Receiver { addr, seen, task }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn received(&self) -> Vec<Received> {
        self.seen.lock().unwrap().clone()
    }

    pub async fn wait_for(&self, n: usize, timeout: Duration) -> Vec<Received> {
        let start = Instant::now();
        loop {
            let r = self.received();
            if r.len() >= n {
                return r;
            }
            assert!(
                start.elapsed() < timeout,
                "receiver got {} of {n} requests",
                r.len()
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Waits until `check` holds for the job (polling), returning it.
pub async fn wait_job(
    server: &TestServer,
    id: &str,
    timeout: Duration,
    check: impl Fn(&Value) -> bool,
) -> Value {
    let start = Instant::now();
    loop {
        let job = server.job(id).await;
        if check(&job) {
            return job;
        }
        assert!(
            start.elapsed() < timeout,
            "condition not reached for {id}: {job}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Removes every Redis key under a test prefix.
pub async fn redis_cleanup(prefix: &str) {
    let Ok(client) = redis::Client::open(REDIS_URL) else {
        return;
    };
    let Ok(mut con) = client.get_multiplexed_async_connection().await else {
        return;
    };
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}*"))
        .query_async(&mut con)
        .await
        .unwrap_or_default();
    if !keys.is_empty() {
        let _: Result<(), _> = redis::cmd("DEL").arg(keys).query_async(&mut con).await;
    }
}

/// Declares one test per store: `both_stores!(name, |kind| async move { ... });`.
#[macro_export]
macro_rules! both_stores {
    ($name:ident, $body:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn embedded() {
                ($body)($crate::support::StoreKind::Embedded).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn redis() {
                ($body)($crate::support::StoreKind::Redis).await;
            }
        }
    };
}

/// A PDF file of numbered objects (object 1 the catalog), with its cross-reference table.
pub fn pdf_of_objects(objects: &[Vec<u8>]) -> Vec<u8> {
    let mut pdf = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        pdf.extend_from_slice(body);
        pdf.extend_from_slice(b"\nendobj\n");
    }
    let xref = pdf.len();
    pdf.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for o in offsets {
        pdf.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    pdf.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    pdf
}

/// `pdf` with an incremental update appended: a new object of `pad` bytes and a
/// cross-reference section that points back to the first (`/Prev`). Large enough, it makes
/// the upload go to a file rather than stay in memory.
pub fn padded_pdf(pdf: &[u8], pad: usize) -> Vec<u8> {
    let text = String::from_utf8_lossy(pdf);
    let start = text.rfind("startxref").unwrap();
    let prev: u64 = text[start + 9..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let root = &text[text.rfind("/Root").unwrap() + 5..];
    let root: Vec<&str> = root.split_whitespace().take(2).collect();
    let size: u32 = text[text.rfind("/Size").unwrap() + 5..]
        .trim_start()
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let mut out = pdf.to_vec();
    let at = out.len() + 1;
    out.extend_from_slice(format!("\n{size} 0 obj\n<< /Length {pad} >>\nstream\n").as_bytes());
    out.extend((0..pad).map(|i| b'a' + (i % 26) as u8));
    out.extend_from_slice(b"\nendstream\nendobj\n");
    let xref = out.len();
    out.extend_from_slice(
        format!(
            "xref\n0 1\n0000000000 65535 f\r\n{size} 1\n{at:010} 00000 n\r\ntrailer\n<< /Size {} /Root {} {} R /Prev {prev} >>\nstartxref\n{xref}\n%%EOF\n",
            size + 1,
            root[0],
            root[1]
        )
        .as_bytes(),
    );
    out
}
