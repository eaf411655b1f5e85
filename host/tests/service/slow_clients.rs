//! Slow and idle clients (slowloris): half-open header lines, idle connections, a trickled
//! body and a stalled body are closed after the configured timeouts, and a connection limit
//! holds further clients back without refusing them.

use crate::faults::{remote, spawn, Proc};
use crate::support::*;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const HEADER: u64 = 2;
const IDLE: u64 = 3;
/// High enough that the 70 KB fast start does not fill the first 5 s window (100 KB).
const RATE: u64 = 20_000;

/// A `quire serve` process with the limits in its environment.
fn server(max_connections: usize) -> (Proc, TestServer) {
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(StoreKind::Embedded, dir.path());
    let env = [
        ("WORKERS", "1".to_string()),
        ("HTTP_HEADER_TIMEOUT", HEADER.to_string()),
        ("HTTP_IDLE_TIMEOUT", IDLE.to_string()),
        ("HTTP_MIN_UPLOAD_RATE", RATE.to_string()),
        ("HTTP_MAX_CONNECTIONS", max_connections.to_string()),
    ];
    let serve = spawn("serve", dir.path(), &env);
    let s = remote(serve.addr.as_deref().unwrap(), dir, config);
    (serve, s)
}

/// Reads until the server closes the connection; returns what it sent and when it closed.
async fn until_closed(
    stream: &mut TcpStream,
    started: Instant,
    limit: Duration,
) -> (String, Duration) {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(
            limit.saturating_sub(started.elapsed()),
            stream.read(&mut buf),
        )
        .await
        {
            Ok(Ok(0)) | Ok(Err(_)) => {
                return (
                    String::from_utf8_lossy(&got).into_owned(),
                    started.elapsed(),
                )
            }
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
            Err(_) => panic!("the connection was still open after {limit:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_and_idle_clients_are_closed_after_the_configured_timeouts() {
    let (mut serve, s) = server(4096);
    let addr = s.base.trim_start_matches("http://").to_string();

    // 200 slowloris connections: a header line every 500 ms, never the blank line.
    let mut lorises = Vec::new();
    for _ in 0..200 {
        let addr = addr.clone();
        lorises.push(tokio::spawn(async move {
            let started = Instant::now();
            let mut c = TcpStream::connect(&addr).await.unwrap();
            c.write_all(b"POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\n")
                .await
                .unwrap();
            let (mut rd, mut wr) = c.into_split();
            let writer = tokio::spawn(async move {
                for i in 0.. {
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    if wr
                        .write_all(format!("X-Slow-{i}: 1\r\n").as_bytes())
                        .await
                        .is_err()
                    {
                        break;
                    }
                }
            });
            let mut buf = [0u8; 1024];
            let closed = loop {
                match tokio::time::timeout(Duration::from_secs(20), rd.read(&mut buf)).await {
                    Ok(Ok(0)) | Ok(Err(_)) => break started.elapsed(),
                    Ok(Ok(_)) => continue,
                    Err(_) => panic!("a slowloris connection was held for 20 s"),
                }
            };
            writer.abort();
            closed
        }));
    }
    // Meanwhile the service answers.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let t = Instant::now();
    let h = s.client.get(s.url("/api/v1/health")).send().await.unwrap();
    assert_eq!(h.status(), 200);
    assert!(t.elapsed() < Duration::from_secs(1));
    let mut slowest = Duration::ZERO;
    for l in lorises {
        slowest = slowest.max(l.await.unwrap());
    }
    eprintln!("slowloris: 200 half-open header connections all closed by {slowest:?} (header timeout {HEADER} s)");
    assert!(slowest < Duration::from_secs(HEADER + 2));

    let (ct, body) = multipart(&[
        FormPart::text("output_format", "md"),
        FormPart::file("file", "trickle.txt", &vec![b'a'; 200_000]),
    ]);
    // The three run at once to keep the test short.
    let silent = async {
        // A connection that sends nothing.
        let started = Instant::now();
        let mut c = TcpStream::connect(&addr).await.unwrap();
        let (_, closed) = until_closed(&mut c, started, Duration::from_secs(20)).await;
        eprintln!(
            "slowloris: silent connection closed after {closed:?} (header timeout {HEADER} s)"
        );
        assert!(
            closed >= Duration::from_millis(HEADER * 1000 - 100)
                && closed < Duration::from_secs(HEADER + 2)
        );
    };
    let trickled = async {
        // A body trickled at 100 B/s: 408 after one rate window, and no job or file remains.
        let started = Instant::now();
        let mut c = TcpStream::connect(&addr).await.unwrap();
        c.write_all(
            format!(
                "POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: {ct}\r\nContent-Length: {}\r\n\r\n",
                body.len()
            )
            .as_bytes(),
        )
        .await
        .unwrap();
        // A fast start (70 KB, past the inline limit so the upload spills to disk), then a trickle.
        c.write_all(&body[..70_000]).await.unwrap();
        let (mut rd, mut wr) = c.into_split();
        let rest = body[70_000..].to_vec();
        let trickle = tokio::spawn(async move {
            for chunk in rest.chunks(10) {
                if wr.write_all(chunk).await.is_err() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        });
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        let closed = loop {
            match tokio::time::timeout(Duration::from_secs(30), rd.read(&mut buf)).await {
                Ok(Ok(0)) | Ok(Err(_)) => break started.elapsed(),
                Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
                Err(_) => panic!("a trickled upload was held for 30 s"),
            }
        };
        trickle.abort();
        let answer = String::from_utf8_lossy(&got);
        eprintln!("slowloris: body trickled at 100 B/s answered and closed after {closed:?}");
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        // 70 KB and a trickle stay under the 100 KB the first 5 s window needs.
        assert!(closed < Duration::from_secs(5 + 2), "{closed:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(
            files_in(&s.config.upload_dir).is_empty(),
            "{:?}",
            files_in(&s.config.upload_dir)
        );
    };
    let stalled = async {
        // A body that stops: closed after the idle timeout.
        let started = Instant::now();
        let mut c = TcpStream::connect(&addr).await.unwrap();
        c.write_all(
            format!(
                "POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: {ct}\r\nContent-Length: {}\r\n\r\n",
                body.len()
            )
            .as_bytes(),
        )
        .await
        .unwrap();
        c.write_all(&body[..1000]).await.unwrap();
        let (_, closed) = until_closed(&mut c, started, Duration::from_secs(20)).await;
        eprintln!("slowloris: stalled body closed after {closed:?} (idle timeout {IDLE} s)");
        assert!(
            closed >= Duration::from_millis(IDLE * 1000 - 100)
                && closed < Duration::from_secs(IDLE + 2)
        );
    };
    tokio::join!(silent, trickled, stalled);
    serve.term();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_connection_limit_holds_further_clients_back() {
    let (mut serve, s) = server(4);
    let addr = s.base.trim_start_matches("http://").to_string();
    // Four silent connections take every slot until the header timeout closes them.
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(TcpStream::connect(&addr).await.unwrap());
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let t = Instant::now();
    let h = s.client.get(s.url("/api/v1/health")).send().await.unwrap();
    assert_eq!(h.status(), 200);
    let waited = t.elapsed();
    eprintln!("connection limit 4: a fifth client was served after {waited:?}");
    assert!(
        waited >= Duration::from_millis(HEADER * 1000 - 500),
        "{waited:?}"
    );
    drop(held);
    serve.term();
}
