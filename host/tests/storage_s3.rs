//! Uploads and results in an S3-compatible object store (issue 16), black-box over HTTP,
//! against a real S3 server: moto in server mode (`moto_server`, installed by
//! `scripts/setup.sh --test`), started once for this test binary on a free port. Each test
//! has its own bucket; what the bucket holds is read back over S3's own HTTP API (object
//! listing, incomplete multipart uploads), not through quire.
//!
//! A separate test binary: the S3 credentials come from the standard AWS variables, set here
//! once for the process.
#![cfg(feature = "storage-s3")]

#[allow(dead_code)]
#[path = "service/support.rs"]
mod support;

use quire::config::Config;
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use support::{files_in, StoreKind, TestServer};

/// The moto server of this process: its endpoint. The server runs from a thread that lives
/// as long as the process and dies with it (`PR_SET_PDEATHSIG`).
fn moto() -> &'static str {
    static ENDPOINT: OnceLock<String> = OnceLock::new();
    ENDPOINT.get_or_init(|| {
        // Set before any server of this binary reads them, the same values for every test.
        std::env::set_var("AWS_ACCESS_KEY_ID", "quire-test");
        std::env::set_var("AWS_SECRET_ACCESS_KEY", "quire-test-secret");
        std::env::set_var("AWS_REGION", "us-east-1");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("free port")
            .port();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::os::unix::process::CommandExt;
            let mut cmd = std::process::Command::new("moto_server");
            cmd.args(["-H", "127.0.0.1", "-p", &port.to_string()])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            // SAFETY: prctl is async-signal-safe; it only sets this child's parent-death signal.
            unsafe {
                cmd.pre_exec(|| {
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                    Ok(())
                });
            }
            let child = cmd.spawn();
            let ok = child.is_ok();
            let _ = tx.send(child.map(|_| ()).map_err(|e| e.to_string()));
            if ok {
                loop {
                    std::thread::park();
                }
            }
        });
        if let Err(e) = rx.recv().expect("moto thread") {
            panic!("cannot start moto_server ({e}): run scripts/setup.sh --test, which installs moto[server] from PyPI");
        }
        let endpoint = format!("http://127.0.0.1:{port}");
        let start = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "moto_server did not listen within 30 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        // One request answered before any test's: moto loads its S3 backend on the first
        // request, and the first run of the suite once saw a concurrent first request fail.
        while !warm_up(port) {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "moto_server did not answer within 30 s"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        endpoint
    })
}

/// Whether moto answers a bucket listing with 200.
fn warm_up(port: u16) -> bool {
    use std::io::{Read, Write};
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let request = format!("GET / HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    let mut answer = String::new();
    stream.write_all(request.as_bytes()).is_ok()
        && stream.read_to_string(&mut answer).is_ok()
        && answer.starts_with("HTTP/1.")
        && answer.contains(" 200 ")
}

/// A fresh bucket on the moto server.
async fn bucket() -> String {
    let name = format!("quire-{}", &uuid::Uuid::new_v4().simple().to_string()[..16]);
    let r = reqwest::Client::new()
        .put(format!("{}/{name}", moto()))
        .send()
        .await
        .expect("create bucket");
    assert!(r.status().is_success(), "create bucket: {}", r.status());
    name
}

/// Object keys under `prefix`, from S3's ListObjectsV2.
async fn objects(bucket: &str, prefix: &str) -> Vec<(String, u64)> {
    let body = reqwest::get(format!("{}/{bucket}?list-type=2&prefix={prefix}", moto()))
        .await
        .expect("list")
        .text()
        .await
        .expect("list body");
    body.split("<Contents>")
        .skip(1)
        .map(|c| {
            let key = between(c, "<Key>", "</Key>");
            let size = between(c, "<Size>", "</Size>").parse().unwrap_or(0);
            (key, size)
        })
        .collect()
}

/// Incomplete multipart uploads in the bucket, from S3's ListMultipartUploads.
async fn incomplete_uploads(bucket: &str) -> usize {
    let body = reqwest::get(format!("{}/{bucket}?uploads", moto()))
        .await
        .expect("list uploads")
        .text()
        .await
        .expect("body");
    assert!(body.contains("ListMultipartUploadsResult"), "{body}");
    body.matches("<Upload>").count()
}

fn between(s: &str, a: &str, b: &str) -> String {
    s.split_once(a)
        .and_then(|(_, r)| r.split_once(b))
        .map(|(v, _)| v.to_string())
        .unwrap_or_default()
}

/// A service on the embedded store whose files live in `bucket` on moto, with `tweak` applied
/// after the storage settings, and `workers` conversion workers.
async fn on_bucket(bucket: &str, workers: usize, tweak: impl FnOnce(&mut Config)) -> TestServer {
    TestServer::start_with(
        StoreKind::Embedded,
        |c| {
            s3_config(c, bucket);
            tweak(c);
        },
        workers,
    )
    .await
}

fn s3_config(config: &mut Config, bucket: &str) {
    config.storage_url = Some(format!("s3://{bucket}/pfx"));
    config.s3_endpoint = Some(moto().to_string());
    config.s3_force_path_style = true;
}

/// Markdown larger than the store's inline limit (64 KiB), so it goes through the bucket.
fn big_markdown(title: &str) -> Vec<u8> {
    let mut doc = format!("# {title}\n\n");
    for i in 0..3000 {
        doc.push_str(&format!("Paragraph {i} of the scaled-out document.\n\n"));
    }
    doc.into_bytes()
}

async fn final_job(s: &TestServer, id: &str) -> serde_json::Value {
    let job = s.wait_final(id, Duration::from_secs(60)).await;
    assert_eq!(job["status"], "completed", "{job}");
    job
}

/// An API process and a worker process with no folder in common, sharing only Redis and the
/// bucket: the job is submitted to one, converted by the other, and served by the first.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn api_and_worker_hosts_share_only_redis_and_the_bucket() {
    let bucket = bucket().await;
    let prefix = support::unique_prefix();
    let tweak = |c: &mut Config| {
        s3_config(c, &bucket);
        c.redis_key_prefix = prefix.clone();
    };
    let mut api = TestServer::start_with(StoreKind::Redis, tweak, 0).await;
    let mut worker = TestServer::start_with(StoreKind::Redis, tweak, 2).await;
    assert_ne!(api.config.upload_dir, worker.config.upload_dir);

    let doc = big_markdown("Scaled out");
    let id = api.create("report.md", &doc, "md").await;
    // Nothing of the upload stays on the API host: it is in the bucket.
    assert!(files_in(&api.config.upload_dir).is_empty());
    final_job(&api, &id).await;

    let r = api.get(&format!("/api/v1/jobs/{id}/result")).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "text/markdown; charset=utf-8");
    assert_eq!(
        r.headers()["content-disposition"],
        "attachment; filename=\"report.md\""
    );
    let body = r.text().await.unwrap();
    assert!(body.starts_with("# Scaled out"), "{}", &body[..80]);
    assert!(body.contains("Paragraph 2999 of the scaled-out document."));

    let keys: Vec<String> = objects(&bucket, "pfx/")
        .await
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(
        keys,
        vec![
            format!("pfx/jobs/{id}/input"),
            format!("pfx/jobs/{id}/result.md")
        ]
    );
    // The worker host keeps no copy either once the job is done.
    for dir in [&worker.config.upload_dir, &worker.config.output_dir] {
        let left: Vec<String> = files_in(dir)
            .into_iter()
            .filter(|f| !f.starts_with(".ready"))
            .collect();
        assert!(left.is_empty(), "left on the worker host: {left:?}");
    }

    // The API host, with no worker of its own, is ready: it sees the worker host's heartbeat
    // and reaches the bucket. Readiness is polled for a while: moto, shared by every test
    // here and streaming their uploads, has been seen to miss the 2 s bucket probe once.
    let deadline = Instant::now() + Duration::from_secs(15);
    let ready = loop {
        let r = api
            .client
            .get(api.url("/api/v1/ready"))
            .send()
            .await
            .unwrap();
        let status = r.status();
        let body: serde_json::Value = r.json().await.unwrap_or_default();
        if status == 200 {
            break body;
        }
        assert!(Instant::now() < deadline, "not ready ({status}): {body}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    assert_eq!(ready["services"]["storage"], true, "{ready}");

    // DELETE removes the objects.
    let r = api
        .client
        .delete(api.url(&format!("/api/v1/jobs/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    assert!(objects(&bucket, "pfx/").await.is_empty());
    worker.stop().await;
    api.stop().await;
}

/// A completed job whose result object has gone answers the contract's 404.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_missing_result_object_is_the_contracts_404() {
    let bucket = bucket().await;
    let mut s = on_bucket(&bucket, 1, |_| {}).await;
    let id = s.create("a.md", &big_markdown("Gone"), "md").await;
    final_job(&s, &id).await;
    // The object goes behind the service's back (moto refuses an unsigned DELETE of an
    // object written with credentials).
    let shared = s.server.as_ref().unwrap().shared().clone();
    shared.storage.remove_output(&id).await.unwrap();
    assert_eq!(
        objects(&bucket, "pfx/").await,
        vec![(
            format!("pfx/jobs/{id}/input"),
            big_markdown("Gone").len() as u64
        )]
    );
    let r = s.get(&format!("/api/v1/jobs/{id}/result")).await;
    assert_eq!(r.status(), 404);
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(v["detail"], "Result file not found");
    s.stop().await;
}

/// `S3_PRESIGNED_RESULTS=true`: a 307 to a presigned URL that answers with the contract's
/// Content-Type and Content-Disposition (signed into the URL as `response-content-*`, and
/// stored with the object).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn presigned_results_redirect_with_the_same_headers() {
    let bucket = bucket().await;
    let mut s = on_bucket(&bucket, 1, |c| {
        c.s3_presigned_results = true;
    })
    .await;
    let id = s
        .create("Résumé v2.md", &big_markdown("Signed"), "md")
        .await;
    final_job(&s, &id).await;
    let no_redirect = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let r = no_redirect
        .get(s.url(&format!("/api/v1/jobs/{id}/result")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 307);
    let location = r.headers()["location"].to_str().unwrap().to_string();
    assert!(location.contains("X-Amz-Signature="), "{location}");
    // The contract's headers are signed into the URL as response overrides, not only kept
    // with the object.
    let query: std::collections::HashMap<String, String> = reqwest::Url::parse(&location)
        .unwrap()
        .query_pairs()
        .into_owned()
        .collect();
    assert_eq!(
        query["response-content-disposition"],
        quire::service::api::content_disposition("Résumé v2.md")
    );
    assert_eq!(
        query["response-content-type"],
        "text/markdown; charset=utf-8"
    );
    let direct = reqwest::get(&location).await.unwrap();
    assert_eq!(direct.status(), 200);
    assert_eq!(
        direct.headers()["content-type"],
        "text/markdown; charset=utf-8"
    );
    let expected = quire::service::api::content_disposition("Résumé v2.md");
    assert_eq!(direct.headers()["content-disposition"], expected.as_str());
    assert!(direct.text().await.unwrap().starts_with("# Signed"));
    // A missing object is still the contract's 404, not a redirect to S3's error.
    let r = no_redirect
        .get(s.url(&format!("/api/v1/jobs/{}/result", uuid::Uuid::new_v4())))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    s.stop().await;
}

/// Retention removes the objects of expired jobs.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn retention_removes_the_objects() {
    let bucket = bucket().await;
    let mut s = on_bucket(&bucket, 1, |c| {
        c.file_ttl_hours = 1.0 / 3600.0;
    })
    .await;
    let id = s.create("a.md", &big_markdown("Expires"), "md").await;
    final_job(&s, &id).await;
    let start = Instant::now();
    while !objects(&bucket, "pfx/").await.is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "objects not removed: {:?}",
            objects(&bucket, "pfx/").await
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let r = s.get(&format!("/api/v1/jobs/{id}")).await;
    assert_eq!(r.status(), 404);
    s.stop().await;
}

/// Objects of jobs whose record is gone (expired in Redis, or a failed removal) are swept
/// once they are older than the retention period.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn orphaned_objects_are_swept() {
    let bucket = bucket().await;
    let orphan = uuid::Uuid::new_v4();
    let r = reqwest::Client::new()
        .put(format!("{}/{bucket}/pfx/jobs/{orphan}/result.md", moto()))
        .body("left over")
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    let mut s = on_bucket(&bucket, 0, |c| {
        c.file_ttl_hours = 1.0 / 3600.0;
    })
    .await;
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let shared = s.server.as_ref().unwrap().shared().clone();
    quire::service::retention::sweep(&shared).await.unwrap();
    assert!(objects(&bucket, "pfx/").await.is_empty());
    s.stop().await;
}

/// A large upload goes as a multipart upload and leaves no incomplete one; refused and
/// aborted uploads leave neither an object nor an incomplete upload.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn large_refused_and_aborted_uploads_leave_no_debris() {
    let bucket = bucket().await;
    let mut s = on_bucket(&bucket, 0, |c| {
        c.max_file_size = 30 << 20;
    })
    .await;
    // 20 MB: three parts of the multipart upload.
    let big: Vec<u8> = b"line of text\n".repeat((20 << 20) / 13);
    let id = s.create("big.txt", &big, "md").await;
    let listed = objects(&bucket, "pfx/").await;
    assert_eq!(
        listed,
        vec![(format!("pfx/jobs/{id}/input"), big.len() as u64)]
    );
    assert_eq!(incomplete_uploads(&bucket).await, 0);

    // Over MAX_FILE_SIZE: 413, nothing stored.
    let r = s
        .post_form(&[
            support::FormPart::file("file", "huge.txt", &vec![b'a'; 31 << 20]),
            support::FormPart::text("output_format", "md"),
        ])
        .await;
    assert_eq!(r.status(), 413);

    assert_eq!(incomplete_uploads(&bucket).await, 0);

    // A client that goes away mid-body: its multipart upload is aborted once the server
    // notices (the request's task is dropped; the abort runs on its own).
    let stream = support::partial_upload(&s.base, 25_000_000, 12_000_000).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    drop(stream);
    let start = Instant::now();
    while !files_in(&s.config.upload_dir).is_empty() || incomplete_uploads(&bucket).await != 0 {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "partial upload left behind: {:?}, {} incomplete",
            files_in(&s.config.upload_dir),
            incomplete_uploads(&bucket).await
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(objects(&bucket, "pfx/").await.len(), 1);
    s.stop().await;
}

/// `/ready` reports an object store that does not answer as `services.storage: false`.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn ready_reports_an_unreachable_store() {
    moto();
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut s = TestServer::start_with(
        StoreKind::Embedded,
        |c| {
            c.storage_url = Some("s3://nowhere/pfx".into());
            c.s3_endpoint = Some(format!("http://127.0.0.1:{closed}"));
            c.s3_force_path_style = true;
        },
        1,
    )
    .await;
    let r = s.client.get(s.url("/api/v1/ready")).send().await.unwrap();
    assert_eq!(r.status(), 503);
    let v: serde_json::Value = r.json().await.unwrap();
    assert_eq!(v["services"]["storage"], false, "{v}");
    assert!(v["problems"].to_string().contains("object store"), "{v}");
    s.stop().await;
}

/// Jobs refused by `MAX_QUEUED_JOBS` after their upload reached the bucket leave no object:
/// eight submissions at once all pass the early check on an empty queue, one is created.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn refused_jobs_leave_no_object() {
    let bucket = bucket().await;
    let s = on_bucket(&bucket, 0, |c| {
        c.max_queued_jobs = Some(1);
    })
    .await;
    let doc = big_markdown("Queued");
    let s = std::sync::Arc::new(s);
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let (s, doc) = (s.clone(), doc.clone());
        tasks.push(tokio::spawn(async move {
            let r = s
                .post_form(&[
                    support::FormPart::file("file", "b.md", &doc),
                    support::FormPart::text("output_format", "md"),
                ])
                .await;
            let status = r.status().as_u16();
            let v: serde_json::Value = r.json().await.unwrap();
            (status, v["id"].as_str().map(str::to_string))
        }));
    }
    let mut created = Vec::new();
    for t in tasks {
        match t.await.unwrap() {
            (202, Some(id)) => created.push((format!("pfx/jobs/{id}/input"), doc.len() as u64)),
            (429, _) => {}
            other => panic!("unexpected answer {other:?}"),
        }
    }
    assert_eq!(created.len(), 1);
    assert_eq!(objects(&bucket, "pfx/").await, created);
    assert!(files_in(&s.config.upload_dir).is_empty());
    let mut s = std::sync::Arc::try_unwrap(s).ok().expect("sole owner");
    s.stop().await;
}

/// A TCP relay in front of moto that can be cut like a network partition: while it is down
/// every new connection is dropped at once, and cutting it also ends the connections it is
/// carrying (the object store client keeps pooled ones).
struct Relay {
    endpoint: String,
    up: std::sync::Arc<std::sync::atomic::AtomicBool>,
    cut: tokio::sync::watch::Sender<u64>,
}

impl Relay {
    async fn start() -> Relay {
        use std::sync::atomic::Ordering;
        let target = moto().trim_start_matches("http://").to_string();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        let up = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let (cut, cuts) = tokio::sync::watch::channel(0u64);
        let open = up.clone();
        tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                if !open.load(Ordering::SeqCst) {
                    continue;
                }
                let (target, mut cuts) = (target.clone(), cuts.clone());
                // Only a cut after this connection was made ends it.
                cuts.borrow_and_update();
                tokio::spawn(async move {
                    let Ok(mut outbound) = tokio::net::TcpStream::connect(&target).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                        _ = cuts.changed() => {}
                    }
                });
            }
        });
        Relay { endpoint, up, cut }
    }

    fn set_up(&self, up: bool) {
        self.up.store(up, std::sync::atomic::Ordering::SeqCst);
        if !up {
            self.cut.send_modify(|n| *n += 1);
        }
    }
}

/// The object store away for a few seconds when a conversion ends (longer than the store
/// client's own retries, shorter than the worker keeps trying): the result is stored once the
/// store is back and the job completes; before, the job failed for good ("The converted file
/// could not be saved.").
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_result_waits_for_an_object_store_that_is_briefly_away() {
    let bucket = bucket().await;
    let relay = Relay::start().await;
    let endpoint = relay.endpoint.clone();
    let mut s = on_bucket(&bucket, 1, |c| {
        c.s3_endpoint = Some(endpoint.clone());
    })
    .await;
    // Small: the input stays in the job store, only the result goes to the bucket.
    let id = s.create("slow.txt", b"QUIRE-FAULT:slow:1500", "md").await;
    relay.set_up(false);
    tokio::time::sleep(Duration::from_secs(6)).await;
    assert_eq!(
        s.job(&id).await["status"],
        "processing",
        "{}",
        s.job(&id).await
    );
    relay.set_up(true);
    final_job(&s, &id).await;
    let r = s.get(&format!("/api/v1/jobs/{id}/result")).await;
    assert_eq!(r.status(), 200);
    assert!(r.text().await.unwrap().contains("QUIRE-FAULT"));
    assert_eq!(
        objects(&bucket, "pfx/")
            .await
            .into_iter()
            .map(|(k, _)| k)
            .collect::<Vec<_>>(),
        vec![format!("pfx/jobs/{id}/result.md")]
    );
    s.stop().await;
}

/// Uploads go to the bucket while the body is still arriving (issue 16): with a client that
/// has sent 16 MB of a 40 MB body and stalls, the bucket already holds a multipart upload with
/// parts, and the API host holds no copy of a text file. Before, the upload was spooled to
/// `UPLOAD_DIR` and sent once the body had ended, so nothing reached the bucket here. The
/// client going away then aborts the multipart upload: no object, no incomplete upload.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn uploads_stream_to_the_bucket_as_they_arrive() {
    let bucket = bucket().await;
    let mut s = on_bucket(&bucket, 0, |c| {
        c.max_file_size = 60 << 20;
    })
    .await;
    let stream = support::partial_upload(&s.base, 40_000_000, 16_000_000).await;
    let start = Instant::now();
    loop {
        let parts = uploaded_parts(&bucket).await;
        if parts >= 2 {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no parts in the bucket while the body arrives (incomplete uploads: {}, parts: {parts})",
            incomplete_uploads(&bucket).await
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(incomplete_uploads(&bucket).await, 1);
    assert!(files_in(&s.config.upload_dir).is_empty());
    drop(stream);
    let start = Instant::now();
    while incomplete_uploads(&bucket).await != 0 {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the multipart upload of a client that went away was not aborted"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(objects(&bucket, "pfx/").await.is_empty());
    s.stop().await;
}

/// Parts of the incomplete multipart uploads in the bucket (ListParts of each).
async fn uploaded_parts(bucket: &str) -> usize {
    let body = reqwest::get(format!("{}/{bucket}?uploads", moto()))
        .await
        .expect("list uploads")
        .text()
        .await
        .expect("body");
    let mut parts = 0;
    for upload in body.split("<Upload>").skip(1) {
        let (key, id) = (
            between(upload, "<Key>", "</Key>"),
            between(upload, "<UploadId>", "</UploadId>"),
        );
        let listed = reqwest::get(format!("{}/{bucket}/{key}?uploadId={id}", moto()))
            .await
            .expect("list parts")
            .text()
            .await
            .expect("body");
        parts += listed.matches("<Part>").count();
    }
    parts
}

/// The upload's checks that read more than the first bytes still work when the file streams
/// to the bucket: a PDF past the inline limit with `pages` naming no page is refused with the
/// page count (the `pages` field after the file, as before it), leaving nothing in the bucket
/// or the upload folder; one naming a page converts.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn streamed_uploads_keep_their_checks() {
    let bucket = bucket().await;
    let mut s = on_bucket(&bucket, 1, |_| {}).await;
    let pdf = quire_testkit::workspace().join("host/tests/fixtures/options/pages.pdf");
    let pdf = support::padded_pdf(&std::fs::read(pdf).unwrap(), 300_000);
    for pages_first in [true, false] {
        let mut form = vec![support::FormPart::text("output_format", "md")];
        let file = support::FormPart::file("file", "three.pdf", &pdf);
        let pages = support::FormPart::text("pages", "4-");
        if pages_first {
            form.extend([pages, file]);
        } else {
            form.extend([file, pages]);
        }
        let r = s.post_form(&form).await;
        assert_eq!(r.status(), 422);
        let v: serde_json::Value = r.json().await.unwrap();
        let msg = v["detail"][0]["msg"].as_str().unwrap_or_default();
        assert!(msg.starts_with("The document has 3 pages"), "{v}");
        assert!(objects(&bucket, "pfx/").await.is_empty());
        assert_eq!(incomplete_uploads(&bucket).await, 0);
        assert!(files_in(&s.config.upload_dir).is_empty());
    }
    let r = s
        .post_form(&[
            support::FormPart::file("file", "three.pdf", &pdf),
            support::FormPart::text("output_format", "md"),
            support::FormPart::text("pages", "3-9"),
        ])
        .await;
    assert_eq!(r.status(), 202);
    let v: serde_json::Value = r.json().await.unwrap();
    let id = v["id"].as_str().unwrap().to_string();
    assert!(files_in(&s.config.upload_dir).is_empty());
    final_job(&s, &id).await;
    let md = s
        .get(&format!("/api/v1/jobs/{id}/result"))
        .await
        .text()
        .await
        .unwrap();
    assert!(md.contains("charlie"), "{md}");
    s.stop().await;
}
