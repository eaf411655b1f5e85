//! provider_three against a local server speaking the chat-completions API: retries on 429
//! (with Retry-After) and 500, slow replies, a rejected key, the request cap, and the request's
//! headers and body shape. Never a real external service.

use base64::Engine as _;
use quire_ocr_vision::VisionProvider;
use quire_plugin_api::{ErrorKind, OcrConfig, OcrImage, OcrProvider};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

struct Reply {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: String,
    delay: Duration,
}

fn reply(status: u16, body: &str) -> Reply {
    Reply {
        status,
        headers: Vec::new(),
        body: body.to_owned(),
        delay: Duration::ZERO,
    }
}

fn ok(text: &str) -> Reply {
    let body = serde_json::json!({
        "id": "x", "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]
    });
    reply(200, &body.to_string())
}

#[derive(Debug, Clone)]
struct Seen {
    request_line: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Serves the replies in order (one per connection, each on its own thread so a slow reply
/// does not hold up the next), then 500s. Returns the base URL and the requests seen.
fn serve(replies: Vec<Reply>) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let queue = Arc::new(Mutex::new(
        replies
            .into_iter()
            .collect::<std::collections::VecDeque<_>>(),
    ));
    let seen2 = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let seen = seen2.clone();
            let queue = queue.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request_line = String::new();
                reader.read_line(&mut request_line).unwrap();
                let mut headers = Vec::new();
                loop {
                    let mut line = String::new();
                    reader.read_line(&mut line).unwrap();
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    let (k, v) = line.split_once(':').unwrap();
                    headers.push((k.trim().to_owned(), v.trim().to_owned()));
                }
                let len = headers
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
                    .map(|(_, v)| v.parse::<usize>().unwrap())
                    .unwrap_or(0);
                let mut body = vec![0; len];
                reader.read_exact(&mut body).unwrap();
                seen.lock().unwrap().push(Seen {
                    request_line: request_line.trim_end().to_owned(),
                    headers,
                    body,
                });
                let r = queue
                    .lock()
                    .unwrap()
                    .pop_front()
                    .unwrap_or_else(|| reply(500, "{}"));
                std::thread::sleep(r.delay);
                let mut out = format!(
                    "HTTP/1.1 {} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
                    r.status,
                    r.body.len()
                );
                for (k, v) in &r.headers {
                    out.push_str(&format!("{k}: {v}\r\n"));
                }
                out.push_str("\r\n");
                out.push_str(&r.body);
                let _ = stream.write_all(out.as_bytes());
            });
        }
    });
    (base, seen)
}

fn provider(base: &str, timeout: u64, cap: u32) -> VisionProvider {
    let config = OcrConfig {
        vision_api_key: Some("sk-test-key".into()),
        vision_base_url: base.into(),
        vision_model: "test-model".into(),
        vision_timeout_secs: timeout,
        vision_max_requests_per_job: cap,
        ..OcrConfig::default()
    };
    VisionProvider::new(&config)
        .unwrap()
        .with_backoff(Duration::from_millis(20))
}

fn png() -> Vec<u8> {
    let img = image::DynamicImage::new_rgb8(12, 8);
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

fn ask(p: &VisionProvider, data: &[u8]) -> quire_plugin_api::Result<String> {
    p.recognize(&OcrImage {
        data,
        mime: "image/png",
        dpi: None,
    })
    .map(|o| o.text)
}

#[test]
fn retries_429_after_retry_after_and_sends_the_right_request() {
    let mut busy = reply(429, r#"{"error":{"message":"rate limited"}}"#);
    busy.headers.push(("Retry-After", "1".into()));
    let (base, seen) = serve(vec![busy, ok("# Title\n\nHello world")]);
    let p = provider(&base, 10, 50);
    let image = png();
    let start = Instant::now();
    assert_eq!(ask(&p, &image).unwrap(), "# Title\n\nHello world");
    assert!(
        start.elapsed() >= Duration::from_secs(1),
        "Retry-After honoured"
    );
    assert_eq!(p.requests_sent(), 2);

    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    let req = &seen[1];
    assert_eq!(req.request_line, "POST /v1/chat/completions HTTP/1.1");
    assert_eq!(req.header("authorization"), Some("Bearer sk-test-key"));
    assert!(req
        .header("content-type")
        .unwrap()
        .starts_with("application/json"));
    let body: serde_json::Value = serde_json::from_slice(&req.body).unwrap();
    assert_eq!(body["model"], "test-model");
    let content = &body["messages"][0]["content"];
    assert_eq!(body["messages"][0]["role"], "user");
    assert_eq!(content[0]["type"], "text");
    assert!(content[0]["text"].as_str().unwrap().contains("Markdown"));
    assert_eq!(content[1]["type"], "image_url");
    let url = content[1]["image_url"]["url"].as_str().unwrap();
    let b64 = url
        .strip_prefix("data:image/png;base64,")
        .expect("a PNG data URL");
    let sent = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap();
    assert_eq!(sent, image);
}

#[test]
fn retries_server_errors_then_succeeds() {
    let (base, seen) = serve(vec![
        reply(500, "{}"),
        reply(502, "bad gateway"),
        ok("text"),
    ]);
    let p = provider(&base, 10, 50);
    assert_eq!(ask(&p, &png()).unwrap(), "text");
    assert_eq!(seen.lock().unwrap().len(), 3);
}

#[test]
fn gives_up_after_four_attempts_as_temporary() {
    let (base, seen) = serve((0..6).map(|_| reply(503, "{}")).collect());
    let p = provider(&base, 10, 50);
    let err = ask(&p, &png()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Temporary);
    assert!(err.detail().unwrap().contains("503"));
    assert_eq!(seen.lock().unwrap().len(), 4);
}

#[test]
fn rejected_key_is_not_retried() {
    let (base, seen) = serve(vec![reply(401, r#"{"error":"bad key"}"#), ok("never")]);
    let p = provider(&base, 10, 50);
    let err = ask(&p, &png()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Internal);
    assert_eq!(err.message(), "The AI vision service rejected the API key.");
    assert!(!format!("{err:?}").contains("sk-test-key"));
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[test]
fn bad_request_is_not_retried() {
    let (base, seen) = serve(vec![
        reply(400, r#"{"error":"image too small"}"#),
        ok("never"),
    ]);
    let err = ask(&provider(&base, 10, 50), &png()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Internal);
    assert!(err.detail().unwrap().contains("image too small"));
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[test]
fn slow_replies_time_out_and_are_retried() {
    let slow = || Reply {
        delay: Duration::from_secs(3),
        ..ok("late")
    };
    let (base, seen) = serve(vec![slow(), ok("in time")]);
    let p = provider(&base, 1, 50);
    let start = Instant::now();
    assert_eq!(ask(&p, &png()).unwrap(), "in time");
    assert!(
        start.elapsed() < Duration::from_millis(2900),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(seen.lock().unwrap().len(), 2);

    let (base, _) = serve((0..4).map(|_| slow()).collect());
    let err = ask(&provider(&base, 1, 50), &png()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Temporary);
}

#[test]
fn request_cap_per_job() {
    let (base, seen) = serve(vec![ok("a"), reply(500, "{}"), ok("b")]);
    let p = provider(&base, 10, 2);
    assert_eq!(ask(&p, &png()).unwrap(), "a");
    let err = ask(&p, &png()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded);
    assert!(err.message().contains("cap of 2 requests"));
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[test]
fn connection_refused_is_temporary() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let p = provider(&format!("http://127.0.0.1:{port}/v1"), 2, 50);
    let err = ask(&p, &png()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Temporary);
    assert_eq!(p.requests_sent(), 4);
}
