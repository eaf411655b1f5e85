//! Live progress over Server-Sent Events (`GET /api/v1/jobs/{id}/events`), on both stores and
//! across processes on Redis. The acceptance sizes (100 subscribers on one job, 500 on
//! different jobs, server RSS) are `#[ignore]`d measurements run by
//! `scripts/measure/serving.sh`; the tests here are smaller versions of the same checks.

use crate::both_stores;
use crate::faults::{remote, spawn};
use crate::support::*;
use serde_json::Value;
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(60);

/// One event of a stream.
#[derive(Debug, Clone)]
pub struct Ev {
    pub event: String,
    pub id: String,
    pub data: Value,
}

/// What one subscriber got: the status, the events, and whether the server closed the stream.
#[derive(Debug)]
pub struct Followed {
    pub status: u16,
    pub events: Vec<Ev>,
    pub closed: bool,
    pub comments: usize,
}

/// Follows a job's event stream until the server closes it (or `timeout`).
pub async fn follow(
    client: &reqwest::Client,
    base: &str,
    id: &str,
    headers: &[(&str, &str)],
    timeout: Duration,
) -> Followed {
    let mut req = client.get(format!("{base}/api/v1/jobs/{id}/events"));
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let mut r = req.send().await.expect("request");
    let status = r.status().as_u16();
    let mut out = Followed {
        status,
        events: Vec::new(),
        closed: false,
        comments: 0,
    };
    if status != 200 {
        return out;
    }
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    let deadline = tokio::time::Instant::now() + timeout;
    let mut buf = String::new();
    loop {
        let chunk = match tokio::time::timeout_at(deadline, r.chunk()).await {
            Ok(Ok(Some(c))) => c,
            Ok(Ok(None)) => {
                out.closed = true;
                break;
            }
            Ok(Err(_)) | Err(_) => break,
        };
        buf.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buf.find("\n\n") {
            let block: String = buf.drain(..end + 2).collect();
            let (mut event, mut ev_id, mut data) = (String::new(), String::new(), String::new());
            let mut comment = false;
            for line in block.lines() {
                if line.starts_with(':') {
                    comment = true;
                } else if let Some(v) = line.strip_prefix("event:") {
                    event = v.trim().to_string();
                } else if let Some(v) = line.strip_prefix("id:") {
                    ev_id = v.trim().to_string();
                } else if let Some(v) = line.strip_prefix("data:") {
                    data.push_str(v.strip_prefix(' ').unwrap_or(v));
                }
            }
            if !data.is_empty() {
                out.events.push(Ev {
                    event,
                    id: ev_id,
                    data: serde_json::from_str(&data).expect("event data is JSON"),
                });
            } else if comment {
                out.comments += 1;
            }
        }
    }
    out
}

fn rank(status: &str) -> u8 {
    match status {
        "pending" => 0,
        "processing" => 1,
        _ => 2,
    }
}

/// A state as (status rank, progress).
fn state(job: &Value) -> (u8, u64) {
    (
        rank(job["status"].as_str().unwrap_or("")),
        job["progress"].as_u64().unwrap_or(0),
    )
}

/// Polls a job every 20 ms until it ends: the distinct states seen, in order (the truth the
/// streams are held to).
pub async fn poll_states(client: &reqwest::Client, base: &str, id: &str) -> Vec<(u8, u64)> {
    let mut seen: Vec<(u8, u64)> = Vec::new();
    let start = Instant::now();
    loop {
        let job: Value = client
            .get(format!("{base}/api/v1/jobs/{id}"))
            .send()
            .await
            .expect("request")
            .json()
            .await
            .expect("json");
        let s = state(&job);
        if seen.last() != Some(&s) {
            seen.push(s);
        }
        if s.0 == 2 || start.elapsed() > WAIT {
            return seen;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The checks every follower of a job that completes must pass: a 200 stream of `job` events,
/// states strictly increasing (never out of order, never repeated), the last one the
/// completed job exactly as GET returns it, then the server closed the stream; and every state
/// the poller saw from the follower's first state on is among its events.
pub fn check_followed(f: &Followed, final_job: &Value, polled: &[(u8, u64)]) {
    assert_eq!(f.status, 200);
    assert!(
        f.closed,
        "the server did not close the stream: {:?}",
        f.events
    );
    assert!(!f.events.is_empty());
    let states: Vec<(u8, u64)> = f.events.iter().map(|e| state(&e.data)).collect();
    for pair in states.windows(2) {
        assert!(pair[0] < pair[1], "out of order or repeated: {states:?}");
    }
    for e in &f.events {
        assert_eq!(e.event, "job");
        assert!(!e.id.is_empty());
    }
    let last = &f.events.last().unwrap().data;
    assert_eq!(
        last, final_job,
        "the final event is the job as GET returns it"
    );
    let first = states[0];
    for p in polled.iter().filter(|p| **p >= first) {
        assert!(
            states.contains(p),
            "state {p:?} seen by polling is missing from the stream {states:?}"
        );
    }
}

async fn open_streams(s: &TestServer) -> u64 {
    let text = s.get_text(&s.url("/metrics")).await;
    text.lines()
        .find_map(|l| l.strip_prefix("quire_event_streams "))
        .and_then(|v| v.trim().parse().ok())
        .expect("quire_event_streams in /metrics")
}

/// `subscribers` streams on one job that reports progress over `ms` milliseconds.
async fn many_on_one_job(s: &TestServer, subscribers: usize, ms: u64) -> Vec<(u8, u64)> {
    let body = format!("QUIRE-FAULT:slow:{ms}");
    let id = s.create("slow.txt", body.as_bytes(), "md").await;
    let mut tasks = Vec::new();
    for _ in 0..subscribers {
        let (client, base, id) = (s.client.clone(), s.base.clone(), id.clone());
        tasks.push(tokio::spawn(async move {
            follow(&client, &base, &id, &[], WAIT).await
        }));
    }
    let polled = poll_states(&s.client, &s.base, &id).await;
    let mut followed = Vec::new();
    for t in tasks {
        followed.push(t.await.unwrap());
    }
    let final_job = s.job(&id).await;
    assert_eq!(final_job["status"], "completed", "{final_job}");
    for f in &followed {
        check_followed(f, &final_job, &polled);
    }
    let progress: std::collections::BTreeSet<u64> = followed[0]
        .events
        .iter()
        .filter(|e| e.data["status"] == "processing")
        .map(|e| e.data["progress"].as_u64().unwrap())
        .collect();
    assert!(
        progress.len() >= 3,
        "progress changes were not streamed: {progress:?}"
    );
    polled
}

both_stores!(subscribers_follow_a_job_to_its_end, |kind| async move {
    let mut s = TestServer::start_with(kind, |_| {}, 1).await;
    many_on_one_job(&s, 20, 2500).await;
    // Every stream was closed by the server; none is left open.
    let start = Instant::now();
    while open_streams(&s).await != 0 {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "streams stay open"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    s.stop().await;
});

both_stores!(
    streams_of_many_jobs_each_end_with_their_job,
    |kind| async move {
        let mut s = TestServer::start_with(kind, |_| {}, 2).await;
        let mut ids = Vec::new();
        for n in 0..30 {
            ids.push(
                s.create(&format!("n{n}.txt"), format!("job {n}").as_bytes(), "md")
                    .await,
            );
        }
        let mut tasks = Vec::new();
        for id in &ids {
            let (client, base, id) = (s.client.clone(), s.base.clone(), id.clone());
            tasks.push(tokio::spawn(async move {
                follow(&client, &base, &id, &[], WAIT).await
            }));
        }
        for (id, t) in ids.iter().zip(tasks) {
            let f = t.await.unwrap();
            let final_job = s.wait_final(id, WAIT).await;
            check_followed(&f, &final_job, &[]);
            assert_eq!(f.events.last().unwrap().data["id"], id.as_str());
        }
        s.stop().await;
    }
);

both_stores!(
    last_event_id_resumes_and_unknown_jobs_are_404,
    |kind| async move {
        let mut s = TestServer::start_with(kind, |_| {}, 1).await;
        let id = s.create("slow.txt", b"QUIRE-FAULT:slow:1500", "md").await;
        let first = follow(&s.client, &s.base, &id, &[], WAIT).await;
        let final_job = s.job(&id).await;
        check_followed(&first, &final_job, &[]);
        assert!(first.events.len() >= 3, "{:?}", first.events);
        // Resuming from a state before the end: only what came after it (the final state).
        let middle = first.events[first.events.len() - 2].id.clone();
        let resumed = follow(
            &s.client,
            &s.base,
            &id,
            &[("last-event-id", middle.as_str())],
            WAIT,
        )
        .await;
        assert_eq!(resumed.events.len(), 1, "{:?}", resumed.events);
        assert_eq!(resumed.events[0].data, final_job);
        // Resuming from the final state: 204, nothing more will come.
        let last = first.events.last().unwrap().id.clone();
        let done = follow(
            &s.client,
            &s.base,
            &id,
            &[("last-event-id", last.as_str())],
            WAIT,
        )
        .await;
        assert_eq!(done.status, 204);
        let unknown = uuid::Uuid::new_v4().to_string();
        let r = s.get(&format!("/api/v1/jobs/{unknown}/events")).await;
        assert_eq!(r.status(), 404);
        assert_eq!(r.json::<Value>().await.unwrap()["detail"], "Job not found");
        s.stop().await;
    }
);

both_stores!(a_deleted_job_ends_its_stream, |kind| async move {
    let mut s = TestServer::start_with(kind, |_| {}, 1).await;
    let id = s.create("slow.txt", b"QUIRE-FAULT:slow:20000", "md").await;
    wait_job(&s, &id, WAIT, |j| j["status"] == "processing").await;
    let (client, base, sid) = (s.client.clone(), s.base.clone(), id.clone());
    let stream = tokio::spawn(async move { follow(&client, &base, &sid, &[], WAIT).await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = Instant::now();
    let r = s
        .client
        .delete(s.url(&format!("/api/v1/jobs/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    let f = stream.await.unwrap();
    assert!(f.closed);
    assert!(
        started.elapsed() < Duration::from_secs(7),
        "the stream of a deleted job stayed open {:?}",
        started.elapsed()
    );
    assert!(f.events.iter().all(|e| e.data["status"] != "completed"));
    s.stop().await;
});

/// Keep-alive comments come well inside the idle timeout, so a quiet stream stays open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quiet_streams_get_keep_alive_comments() {
    let mut s = TestServer::start_with(StoreKind::Embedded, |c| c.http_idle_timeout = 2, 1).await;
    // The one worker is busy for 4 s: the second job waits, its stream quiet, longer than the
    // 2 s idle timeout.
    let busy = s.create("slow.txt", b"QUIRE-FAULT:slow:4000", "md").await;
    let id = s.create("waiting.txt", b"waiting", "md").await;
    let f = follow(&s.client, &s.base, &id, &[], WAIT).await;
    assert!(f.closed);
    assert!(f.comments >= 2, "{} keep-alive comments", f.comments);
    assert_eq!(f.events[0].data["status"], "pending");
    assert_eq!(s.wait_final(&busy, WAIT).await["status"], "completed");
    assert_eq!(f.events.last().unwrap().data["status"], "completed");
    s.stop().await;
}

/// A subscriber on an API process receives the events of a job run by a `quire worker` in
/// another process (Redis pub/sub).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_cross_processes_on_redis() {
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(StoreKind::Redis, dir.path());
    let prefix = config.redis_key_prefix.clone();
    // The API process runs no workers.
    let mut s = TestServer::start_in(dir, config, 0).await;
    let env = [
        ("REDIS_URL", REDIS_URL.to_string()),
        ("REDIS_KEY_PREFIX", prefix),
        ("WORKERS", "1".to_string()),
    ];
    let _worker = spawn("worker", s.dir.path(), &env);
    many_on_one_job(&s, 5, 2500).await;
    s.stop().await;
}

fn rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// A `quire serve` process (its RSS is the server's) on `kind`, with `workers`.
fn served(
    kind: StoreKind,
    workers: usize,
    extra: &[(&str, String)],
) -> (crate::faults::Proc, TestServer) {
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(kind, dir.path());
    let mut env = vec![("WORKERS", workers.to_string())];
    if kind == StoreKind::Redis {
        env.push(("REDIS_URL", REDIS_URL.to_string()));
        env.push(("REDIS_KEY_PREFIX", config.redis_key_prefix.clone()));
    }
    env.extend(extra.iter().cloned());
    let proc = spawn("serve", dir.path(), &env);
    let s = remote(proc.addr.as_deref().unwrap(), dir, config);
    (proc, s)
}

async fn measure_one_job(kind: StoreKind, across: bool) {
    let (mut proc, mut s, worker) = if across {
        let (proc, s) = served(kind, 0, &[]);
        let env = [
            ("REDIS_URL", REDIS_URL.to_string()),
            ("REDIS_KEY_PREFIX", s.config.redis_key_prefix.clone()),
            ("WORKERS", "1".to_string()),
        ];
        let worker = spawn("worker", s.dir.path(), &env);
        (proc, s, Some(worker))
    } else {
        let (proc, s) = served(kind, 1, &[]);
        (proc, s, None)
    };
    let pid = proc.child.id();
    let before = rss_kb(pid);
    // The control: the same job with one subscriber, so the server's own warm-up (worker
    // child, threads, allocator) is not counted against the 100 streams.
    many_on_one_job(&s, 1, 5000).await;
    let warm = rss_kb(pid);
    let started = Instant::now();
    let polled = many_on_one_job(&s, 100, 5000).await;
    let after = rss_kb(pid);
    eprintln!(
        "sse one job ({kind:?}{}): 100 subscribers, all got every polled state ({} states) in order and the final event; {:.1} s; server RSS {} KB at start, {} KB after the same job with 1 subscriber, {} KB after 100 ({:+} KB for the 100 streams)",
        if across { ", job run by a quire worker process" } else { "" },
        polled.len(),
        started.elapsed().as_secs_f64(),
        before,
        warm,
        after,
        after as i64 - warm as i64
    );
    drop(worker);
    proc.kill9();
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "measurement: scripts/measure/serving.sh"]
async fn measure_sse_100_on_one_job_embedded() {
    measure_one_job(StoreKind::Embedded, false).await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "measurement: scripts/measure/serving.sh"]
async fn measure_sse_100_on_one_job_redis_across_processes() {
    measure_one_job(StoreKind::Redis, true).await;
}

async fn measure_many_jobs(kind: StoreKind) {
    const JOBS: usize = 500;
    let (mut proc, mut s) = served(kind, 8, &[]);
    let pid = proc.child.id();
    let start_rss = rss_kb(pid);
    // The control: 100 of the same jobs without subscribers first, so the server's own
    // warm-up (8 worker children, threads, allocator, store cache) is not counted as streams.
    let mut warmup = Vec::new();
    for n in 0..100 {
        warmup.push(
            s.create(&format!("w{n}.txt"), b"QUIRE-FAULT:slow:1000", "md")
                .await,
        );
    }
    for id in &warmup {
        s.wait_final(id, WAIT).await;
    }
    let before = rss_kb(pid);
    let peak = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(before));
    let peak_open = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let sampler = {
        let (peak, peak_open) = (peak.clone(), peak_open.clone());
        let metrics = s.url("/metrics");
        let client = s.client.clone();
        tokio::spawn(async move {
            loop {
                peak.fetch_max(rss_kb(pid), std::sync::atomic::Ordering::Relaxed);
                if let Ok(r) = client.get(&metrics).send().await {
                    let text = r.text().await.unwrap_or_default();
                    if let Some(n) = text
                        .lines()
                        .find_map(|l| l.strip_prefix("quire_event_streams "))
                        .and_then(|v| v.trim().parse().ok())
                    {
                        peak_open.fetch_max(n, std::sync::atomic::Ordering::Relaxed);
                    }
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
    };
    let started = Instant::now();
    let mut ids = Vec::new();
    let mut tasks = Vec::new();
    // Each job is followed from its creation on.
    for n in 0..JOBS {
        let id = s
            .create(&format!("n{n}.txt"), b"QUIRE-FAULT:slow:1000", "md")
            .await;
        let (client, base, sid) = (s.client.clone(), s.base.clone(), id.clone());
        tasks.push(tokio::spawn(async move {
            follow(&client, &base, &sid, &[], Duration::from_secs(900)).await
        }));
        ids.push(id);
    }
    let mut events = 0;
    let mut progress_values = Vec::new();
    for (id, t) in ids.iter().zip(tasks) {
        let f = t.await.unwrap();
        let final_job = s.wait_final(id, WAIT).await;
        check_followed(&f, &final_job, &[]);
        events += f.events.len();
        progress_values.push(
            f.events
                .iter()
                .filter(|e| e.data["status"] == "processing")
                .count(),
        );
    }
    progress_values.sort_unstable();
    sampler.abort();
    let after = rss_kb(pid);
    eprintln!(
        "sse many jobs ({kind:?}): {JOBS} jobs, one subscriber each from creation, all in order with the final event; {events} events; processing states per stream min {} median {} max {}; up to {} streams open at once; {:.1} s; server RSS {} KB at start, {} KB after 100 jobs without subscribers, peak {} KB ({:+} KB, {:.1} KB per open stream at the peak count), {} KB after",
        progress_values[0],
        progress_values[JOBS / 2],
        progress_values[JOBS - 1],
        peak_open.load(std::sync::atomic::Ordering::Relaxed),
        started.elapsed().as_secs_f64(),
        start_rss,
        before,
        peak.load(std::sync::atomic::Ordering::Relaxed),
        peak.load(std::sync::atomic::Ordering::Relaxed) as i64 - before as i64,
        (peak.load(std::sync::atomic::Ordering::Relaxed) as f64 - before as f64)
            / peak_open.load(std::sync::atomic::Ordering::Relaxed).max(1) as f64,
        after
    );
    proc.kill9();
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "measurement: scripts/measure/serving.sh"]
async fn measure_sse_500_jobs_embedded() {
    measure_many_jobs(StoreKind::Embedded).await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "measurement: scripts/measure/serving.sh"]
async fn measure_sse_500_jobs_redis() {
    measure_many_jobs(StoreKind::Redis).await;
}
