//! API keys: every route with no key, a wrong key, another tenant's key and the right key;
//! the tenant's job list; the per-key rate limit; keys off by default; keys never logged.

use crate::both_stores;
use crate::support::*;
use reqwest::Method;
use serde_json::Value;
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(30);
const KEY_A: &str = "tenant-a-key-0123456789abcdef";
const KEY_B: &str = "tenant-b-key-0123456789abcdef";
const WRONG: &str = "not-a-key-0123456789abcdef-xx";

async fn with_keys(kind: StoreKind, tweak: impl FnOnce(&mut quire::config::Config)) -> TestServer {
    TestServer::start_with(
        kind,
        |c| {
            c.api_keys = Some(format!("{KEY_A},{KEY_B}"));
            tweak(c);
        },
        1,
    )
    .await
}

/// How a request carries its key.
#[derive(Clone, Copy, Debug)]
enum Key<'a> {
    None,
    Bearer(&'a str),
    Header(&'a str),
}

fn send(s: &TestServer, method: Method, path: &str, key: Key<'_>) -> reqwest::RequestBuilder {
    let r = s.client.request(method, s.url(path));
    match key {
        Key::Bearer(k) => r.header("authorization", format!("Bearer {k}")),
        Key::Header(k) => r.header("x-api-key", k),
        Key::None => r,
    }
}

fn form(name: &str, body: &[u8]) -> (String, Vec<u8>) {
    multipart(&[
        FormPart::file("file", name, body),
        FormPart::text("output_format", "md"),
    ])
}

async fn create_as(s: &TestServer, key: &str, name: &str, body: &[u8]) -> String {
    let (ct, bytes) = form(name, body);
    let r = send(s, Method::POST, "/api/v1/jobs", Key::Bearer(key))
        .header("content-type", ct)
        .body(bytes)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    r.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string()
}

async fn final_as(s: &TestServer, key: &str, id: &str) -> Value {
    let start = Instant::now();
    loop {
        let job: Value = send(
            s,
            Method::GET,
            &format!("/api/v1/jobs/{id}"),
            Key::Bearer(key),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
        if matches!(job["status"].as_str(), Some("completed") | Some("failed")) {
            return job;
        }
        assert!(start.elapsed() < WAIT, "{job}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn request(s: &TestServer, method: &Method, path: &str, key: Key<'_>) -> reqwest::Response {
    let mut r = send(s, method.clone(), path, key);
    if *method == Method::POST {
        let (ct, bytes) = form("posted.txt", b"posted text");
        r = r.header("content-type", ct).body(bytes);
    }
    r.send().await.unwrap()
}

both_stores!(every_route_needs_the_right_key, |kind| async move {
    let mut s = with_keys(kind, |_| {}).await;
    let mine = create_as(&s, KEY_A, "mine.txt", b"a document of tenant A").await;
    let victim = create_as(&s, KEY_A, "victim.txt", b"to be deleted").await;
    final_as(&s, KEY_A, &mine).await;
    final_as(&s, KEY_A, &victim).await;
    // (method, path, status with the right key, whether another tenant gets 404)
    let routes: Vec<(Method, String, u16, bool)> = vec![
        (Method::POST, "/api/v1/jobs".into(), 202, false),
        (Method::GET, "/api/v1/jobs".into(), 200, false),
        (Method::GET, format!("/api/v1/jobs/{mine}"), 200, true),
        (
            Method::GET,
            format!("/api/v1/jobs/{mine}/result"),
            200,
            true,
        ),
        (
            Method::GET,
            format!("/api/v1/jobs/{mine}/events"),
            200,
            true,
        ),
        (
            Method::GET,
            format!("/api/v1/jobs/{mine}/result?bundle=zip"),
            200,
            true,
        ),
        // A text job has no images: the right key reaches the image lookup (404 for the name),
        // another tenant's key does not get that far ("Job not found").
        (
            Method::GET,
            format!("/api/v1/jobs/{mine}/images/picture.png"),
            404,
            true,
        ),
        (Method::GET, "/api/v1/formats".into(), 200, false),
        (Method::GET, "/api/v1/openapi.json".into(), 200, false),
        (Method::DELETE, format!("/api/v1/jobs/{victim}"), 204, true),
    ];
    for (method, path, ok, private) in &routes {
        let what = format!("{method} {path}");
        for key in [Key::None, Key::Bearer(WRONG), Key::Header(WRONG)] {
            let r = request(&s, method, path, key).await;
            assert_eq!(r.status(), 401, "{what} with {key:?}");
            assert!(
                r.headers()["www-authenticate"]
                    .to_str()
                    .unwrap()
                    .starts_with("Bearer"),
                "{what}"
            );
            let body: Value = r.json().await.unwrap();
            assert!(body["detail"].is_string(), "{what}: {body}");
        }
        let other = request(&s, method, path, Key::Header(KEY_B)).await;
        if *private {
            assert_eq!(other.status(), 404, "{what} with another tenant's key");
            let body: Value = other.json().await.unwrap();
            assert_eq!(body["detail"], "Job not found", "{what}");
        } else {
            assert_eq!(
                other.status().as_u16(),
                *ok,
                "{what} with another tenant's key"
            );
        }
        // The right key, both ways (DELETE once: the second time the job is gone).
        let keys: &[Key] = if *method == Method::DELETE {
            &[Key::Header(KEY_A)]
        } else {
            &[Key::Bearer(KEY_A), Key::Header(KEY_A)]
        };
        for key in keys {
            let r = request(&s, method, path, *key).await;
            assert_eq!(
                r.status().as_u16(),
                *ok,
                "{what} with the right key ({key:?})"
            );
        }
    }
    // What the key decides about another tenant's job did not change it.
    let job: Value = send(
        &s,
        Method::GET,
        &format!("/api/v1/jobs/{mine}"),
        Key::Bearer(KEY_A),
    )
    .send()
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert_eq!(job["status"], "completed");
    assert_eq!(
        request(
            &s,
            &Method::GET,
            &format!("/api/v1/jobs/{victim}"),
            Key::Bearer(KEY_A)
        )
        .await
        .status(),
        404
    );
    // Health and readiness need no key; neither do /docs, /metrics and the web page (which
    // must load to ask for a key) outside the API.
    for path in [
        "/api/v1/health",
        "/api/v1/ready",
        "/docs",
        "/metrics",
        "/",
        "/ui/app.js",
        "/ui/docs.js",
    ] {
        let r = request(&s, &Method::GET, path, Key::None).await;
        assert_eq!(r.status(), 200, "{path}");
    }
    // /docs lets a person enter a key, and sends it with every request it makes.
    let docs = s.get_text(&s.url("/docs")).await;
    assert!(docs.contains("id=\"apikey\""), "{docs}");
    let script = s.get_text(&s.url("/ui/docs.js")).await;
    assert!(
        script.contains("headers.set('X-API-Key', apiKey)")
            && script.contains("getElementById('keyform')")
    );
    // An unknown path under the API asks for a key before saying it does not exist.
    let r = request(&s, &Method::GET, "/api/v1/nothing-here", Key::None).await;
    assert_eq!(r.status(), 401);
    s.stop().await;
});

both_stores!(
    a_tenant_lists_its_own_jobs_newest_first,
    |kind| async move {
        let mut s = with_keys(kind, |_| {}).await;
        let mut mine = Vec::new();
        for n in 0..5 {
            mine.push(create_as(&s, KEY_A, &format!("a{n}.txt"), b"text of A").await);
            tokio::time::sleep(Duration::from_millis(3)).await;
        }
        let failing = create_as(&s, KEY_A, "bad.txt", b"QUIRE-FAULT:panic").await;
        let theirs = create_as(&s, KEY_B, "b.txt", b"text of B").await;
        for id in mine.iter().chain([&failing]) {
            final_as(&s, KEY_A, id).await;
        }
        final_as(&s, KEY_B, &theirs).await;
        let list = |key: &'static str, query: String| {
            let s = &s;
            async move {
                let r = send(
                    s,
                    Method::GET,
                    &format!("/api/v1/jobs{query}"),
                    Key::Bearer(key),
                )
                .send()
                .await
                .unwrap();
                (r.status().as_u16(), r.json::<Value>().await.unwrap())
            }
        };
        // Pages of 2, newest first, following next_cursor to the end.
        let mut seen = Vec::new();
        let mut query = "?limit=2".to_string();
        loop {
            let (status, page) = list(KEY_A, query.clone()).await;
            assert_eq!(status, 200, "{page}");
            let jobs = page["jobs"].as_array().unwrap();
            assert!(jobs.len() <= 2);
            seen.extend(jobs.iter().map(|j| j["id"].as_str().unwrap().to_string()));
            match page["next_cursor"].as_str() {
                Some(c) => query = format!("?limit=2&cursor={c}"),
                None => break,
            }
        }
        let mut expected: Vec<String> = mine.clone();
        expected.push(failing.clone());
        expected.reverse();
        assert_eq!(seen, expected, "all of A's jobs, newest first, none of B's");
        let (_, failed) = list(KEY_A, "?status=failed".into()).await;
        let failed: Vec<&str> = failed["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["id"].as_str().unwrap())
            .collect();
        assert_eq!(failed, vec![failing.as_str()]);
        let (_, completed) = list(KEY_A, "?status=completed&limit=100".into()).await;
        assert_eq!(completed["jobs"].as_array().unwrap().len(), 5);
        assert!(completed.get("next_cursor").is_none(), "{completed}");
        let (_, b) = list(KEY_B, String::new()).await;
        assert_eq!(b["jobs"].as_array().unwrap().len(), 1);
        assert_eq!(b["jobs"][0]["id"], theirs.as_str());
        // Each listed job is the job as GET returns it.
        let one: Value = send(
            &s,
            Method::GET,
            &format!("/api/v1/jobs/{theirs}"),
            Key::Bearer(KEY_B),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
        assert_eq!(b["jobs"][0], one);
        for (query, field) in [
            ("?status=done", "status"),
            ("?limit=0", "limit"),
            ("?limit=101", "limit"),
            ("?cursor=nonsense", "cursor"),
        ] {
            let (status, body) = list(KEY_A, query.into()).await;
            assert_eq!(status, 422, "{query}");
            assert_eq!(
                body["detail"][0]["loc"],
                serde_json::json!(["query", field])
            );
        }
        // A deleted job leaves the list.
        let r = request(
            &s,
            &Method::DELETE,
            &format!("/api/v1/jobs/{}", mine[0]),
            Key::Bearer(KEY_A),
        )
        .await;
        assert_eq!(r.status(), 204);
        let (_, all) = list(KEY_A, "?limit=100".into()).await;
        assert_eq!(all["jobs"].as_array().unwrap().len(), 5);
        s.stop().await;
    }
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_are_off_by_default_and_listing_is_405() {
    let mut s = TestServer::start(StoreKind::Embedded).await;
    // A key sent to a server without keys changes nothing.
    let r = request(&s, &Method::GET, "/api/v1/formats", Key::Bearer(WRONG)).await;
    assert_eq!(r.status(), 200);
    let r = request(&s, &Method::GET, "/api/v1/jobs", Key::None).await;
    assert_eq!(r.status(), 405);
    assert_eq!(
        r.json::<Value>().await.unwrap(),
        serde_json::json!({"detail": "Method Not Allowed"})
    );
    let id = s.create("a.txt", b"no keys", "md").await;
    assert_eq!(s.wait_final(&id, WAIT).await["status"], "completed");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rate_limit_applies_per_key() {
    let mut s = with_keys(StoreKind::Embedded, |c| c.rate_limit_per_key = Some(5)).await;
    for n in 0..5 {
        let r = request(&s, &Method::GET, "/api/v1/formats", Key::Bearer(KEY_A)).await;
        assert_eq!(r.status(), 200, "request {n}");
    }
    let r = request(&s, &Method::GET, "/api/v1/formats", Key::Bearer(KEY_A)).await;
    assert_eq!(r.status(), 429);
    let wait: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=12).contains(&wait), "Retry-After {wait}");
    assert!(r.json::<Value>().await.unwrap()["detail"]
        .as_str()
        .unwrap()
        .contains("5 requests per minute"));
    // Another key has its own budget; health needs no key and counts against none.
    let r = request(&s, &Method::GET, "/api/v1/formats", Key::Header(KEY_B)).await;
    assert_eq!(r.status(), 200);
    let r = request(&s, &Method::GET, "/api/v1/health", Key::None).await;
    assert_eq!(r.status(), 200);
    s.stop().await;
}

/// A `quire serve` process with keys on and debug logging: its whole output holds neither
/// the right key nor a wrong one after requests with both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_never_reach_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let log = dir.path().join("serve.log");
    let keys = dir.path().join("keys");
    std::fs::write(&keys, format!("# tenants\n{KEY_A}\n{KEY_B}  # second\n")).unwrap();
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_quire"));
    for k in quire::config::SETTINGS {
        cmd.env_remove(k);
    }
    cmd.arg("serve")
        .current_dir(dir.path())
        .env_remove("QUIRE_CONFIG")
        .env_remove("RUST_LOG")
        .env("HOST", "127.0.0.1")
        .env("PORT", port.to_string())
        .env("UPLOAD_DIR", dir.path().join("uploads"))
        .env("OUTPUT_DIR", dir.path().join("outputs"))
        .env("DATA_DIR", dir.path().join("data"))
        .env("WORKERS", "1")
        .env("LOG_LEVEL", "debug")
        .env("API_KEYS_FILE", &keys)
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(std::process::Stdio::null());
    let mut child = cmd.spawn().unwrap();
    let config = test_config(StoreKind::Embedded, dir.path());
    let s = crate::faults::remote(&format!("127.0.0.1:{port}"), dir, config);
    let start = Instant::now();
    while s.client.get(s.url("/api/v1/health")).send().await.is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "serve did not start"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let id = create_as(&s, KEY_A, "a.txt", b"logged?").await;
    final_as(&s, KEY_A, &id).await;
    for key in [Key::Bearer(WRONG), Key::Header(KEY_B), Key::Header(WRONG)] {
        request(&s, &Method::GET, &format!("/api/v1/jobs/{id}"), key).await;
    }
    let _ = child.kill();
    let _ = child.wait();
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("API keys are on"), "{text}");
    assert!(text.lines().count() > 10, "little was logged: {text}");
    for key in [KEY_A, KEY_B, WRONG] {
        assert!(!text.contains(key), "a key reached the log");
    }
}
