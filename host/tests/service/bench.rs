//! Benchmarks (not timed tests): `#[ignore]`d, run by `scripts/bench-service.sh` in release
//! mode. Each prints its figures; none asserts a time.
//!
//! - `bench_upload_rss`: server RSS while 8 clients upload 100 MB files at once;
//! - `bench_create_latency`: `POST /api/v1/jobs` latency with a 10 KB file, 32 clients (embedded);
//! - `bench_throughput_{embedded,redis}`: small text jobs completed end to end per second;
//! - `bench_kill_chaos`: `kill -9` of a worker every 1.5 s under load (Redis): no job lost or
//!   stuck, one final record each, webhooks delivered;
//! - `bench_isolation_overhead`: a conversion in a child process vs in-process.

use crate::faults::{remote, spawn, Proc};
use crate::support::*;
use serde_json::Value;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn rss_kb(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

async fn metric(client: &reqwest::Client, base: &str, name: &str) -> u64 {
    let text = client
        .get(format!("{base}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    text.lines()
        .filter(|l| l.starts_with(name))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum::<f64>() as u64
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "benchmark"]
async fn bench_upload_rss() {
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(StoreKind::Embedded, dir.path());
    let mut proc = spawn("serve", dir.path(), &[("WORKERS", "2".into())]);
    let pid = proc.child.id();
    let s = remote(proc.addr.as_deref().unwrap(), dir, config);
    let before = rss_kb(pid, "VmRSS:");
    // One shared 100 MB body (cheap clones), text so it passes detection.
    let line = b"The quick brown fox jumps over the lazy dog. 0123456789 abcdefg\n".to_vec();
    let payload: Vec<u8> = line.iter().copied().cycle().take(100_000_000).collect();
    let (ct, body) = multipart(&[
        FormPart::text("output_format", "md"),
        FormPart::file("file", "big.txt", &payload),
    ]);
    drop(payload);
    let body = axum::body::Bytes::from(body);
    let peak = Arc::new(AtomicUsize::new(0));
    let sampler = {
        let peak = peak.clone();
        tokio::spawn(async move {
            loop {
                let kb = rss_kb(pid, "VmRSS:") as usize;
                peak.fetch_max(kb, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
    };
    let start = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let client = s.client.clone();
        let url = s.url("/api/v1/jobs");
        let ct = ct.clone();
        let body = body.clone();
        tasks.push(tokio::spawn(async move {
            let r = client
                .post(url)
                .header("content-type", ct)
                .body(body)
                .send()
                .await
                .unwrap();
            r.status().as_u16()
        }));
    }
    let mut statuses = Vec::new();
    for t in tasks {
        statuses.push(t.await.unwrap());
    }
    let elapsed = start.elapsed();
    tokio::time::sleep(Duration::from_millis(200)).await;
    sampler.abort();
    println!(
        "BENCH upload_rss: 8 x 100 MB uploads in {:.1} s, statuses {:?}; server RSS before {} MB, peak sampled {} MB, VmHWM {} MB",
        elapsed.as_secs_f64(),
        statuses,
        before / 1024,
        peak.load(Ordering::Relaxed) / 1024,
        rss_kb(pid, "VmHWM:") / 1024
    );
    proc.term();
}

async fn create_latencies(base: &str, clients: usize, per_client: usize) -> Vec<Duration> {
    let body_text: Vec<u8> = b"lorem ipsum dolor sit amet "
        .iter()
        .copied()
        .cycle()
        .take(10 * 1024)
        .collect();
    let (ct, body) = multipart(&[
        FormPart::file("file", "small.txt", &body_text),
        FormPart::text("output_format", "md"),
    ]);
    let body = axum::body::Bytes::from(body);
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let client = reqwest::Client::new();
        let url = format!("{base}/api/v1/jobs");
        let ct = ct.clone();
        let body = body.clone();
        tasks.push(tokio::spawn(async move {
            let mut out = Vec::new();
            for _ in 0..per_client {
                let t = Instant::now();
                let r = client
                    .post(&url)
                    .header("content-type", &ct)
                    .body(body.clone())
                    .send()
                    .await
                    .unwrap();
                assert_eq!(r.status(), 202);
                let _ = r.bytes().await;
                out.push(t.elapsed());
            }
            out
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    all.sort();
    all
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "benchmark"]
async fn bench_create_latency() {
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(StoreKind::Embedded, dir.path());
    let mut env = vec![];
    if let Ok(w) = std::env::var("BENCH_WORKERS") {
        env.push(("WORKERS", w));
    }
    let mut proc = spawn("serve", dir.path(), &env);
    let s = remote(proc.addr.as_deref().unwrap(), dir, config);
    // Warm up.
    create_latencies(&s.base, 4, 10).await;
    let all = create_latencies(&s.base, 32, 150).await;
    println!(
        "BENCH create_latency (embedded, 32 clients, 10 KB, {} requests): p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        all.len(),
        percentile(&all, 0.5).as_secs_f64() * 1e3,
        percentile(&all, 0.9).as_secs_f64() * 1e3,
        percentile(&all, 0.99).as_secs_f64() * 1e3,
        all.last().unwrap().as_secs_f64() * 1e3
    );
    proc.term();
}

async fn throughput(kind: StoreKind) {
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(kind, dir.path());
    let mut env = vec![];
    if kind == StoreKind::Redis {
        env.push(("REDIS_URL", REDIS_URL.to_string()));
        env.push(("REDIS_KEY_PREFIX", config.redis_key_prefix.clone()));
    }
    if let Ok(w) = std::env::var("BENCH_WORKERS") {
        env.push(("WORKERS", w));
    }
    let mut proc = spawn("serve", dir.path(), &env);
    let s = remote(proc.addr.as_deref().unwrap(), dir, config.clone());
    let n_clients = 16;
    let per_client = 60;
    let total = (n_clients * per_client) as u64;
    let start = Instant::now();
    let lat = create_latencies(&s.base, n_clients, per_client).await;
    let submitted = start.elapsed();
    loop {
        let done = metric(&s.client, &s.base, "quire_jobs_finished_total").await;
        if done >= total {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "only {done} of {total} finished"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let elapsed = start.elapsed();
    let failed = metric(
        &s.client,
        &s.base,
        "quire_jobs_finished_total{outcome=\"failed\"",
    )
    .await;
    println!(
        "BENCH throughput ({kind:?}): {total} small text jobs submitted in {:.2} s, all finished in {:.2} s = {:.0} jobs/s end to end ({failed} failed); create p99 {:.1} ms",
        submitted.as_secs_f64(),
        elapsed.as_secs_f64(),
        total as f64 / elapsed.as_secs_f64(),
        percentile(&lat, 0.99).as_secs_f64() * 1e3
    );
    proc.term();
    if kind == StoreKind::Redis {
        redis_cleanup(&config.redis_key_prefix).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "benchmark"]
async fn bench_throughput_embedded() {
    throughput(StoreKind::Embedded).await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "benchmark"]
async fn bench_throughput_redis() {
    throughput(StoreKind::Redis).await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "benchmark"]
async fn bench_kill_chaos() {
    let rx = Receiver::start(Arc::new(|_| (200, None))).await;
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(StoreKind::Redis, dir.path());
    let prefix = config.redis_key_prefix.clone();
    let env = vec![
        ("REDIS_URL", REDIS_URL.to_string()),
        ("REDIS_KEY_PREFIX", prefix.clone()),
        ("WORKERS", "2".to_string()),
    ];
    let mut api_env = env.clone();
    api_env.push(("WORKERS", "0".to_string()));
    let mut api = spawn("serve", dir.path(), &api_env);
    let s = remote(api.addr.as_deref().unwrap(), dir, config);
    let mut workers: Vec<Proc> = (0..2)
        .map(|_| spawn("worker", s.dir.path(), &env))
        .collect();
    let hook = rx.url("/hook");
    let total = 300usize;
    let mut ids = Vec::new();
    let started = Instant::now();
    let mut kills = 0;
    let mut last_kill = Instant::now();
    for i in 0..total {
        // A mix of quick jobs and ones that take a few hundred ms, so kills land mid-job.
        let body = if i % 2 == 0 {
            "QUIRE-FAULT:slow:800".to_string()
        } else {
            format!("document {i}")
        };
        let r = s
            .post_form(&[
                FormPart::file("file", "doc.txt", body.as_bytes()),
                FormPart::text("output_format", "md"),
                FormPart::text("webhook_url", &hook),
            ])
            .await;
        assert_eq!(r.status(), 202);
        ids.push(
            r.json::<Value>().await.unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
        if last_kill.elapsed() > Duration::from_millis(1500) {
            let victim = kills % workers.len();
            workers[victim].kill9();
            workers[victim] = spawn("worker", s.dir.path(), &env);
            kills += 1;
            last_kill = Instant::now();
        }
        tokio::time::sleep(Duration::from_millis(15)).await;
    }
    // Keep killing while the backlog drains.
    let mut finals;
    loop {
        finals = 0;
        let mut statuses = std::collections::BTreeMap::<String, usize>::new();
        for id in &ids {
            let j = s.job(id).await;
            let st = j["status"].as_str().unwrap_or("missing").to_string();
            if st == "completed" || st == "failed" {
                finals += 1;
            }
            *statuses.entry(st).or_default() += 1;
        }
        if finals == total {
            println!("BENCH kill_chaos statuses: {statuses:?}");
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "stuck: {statuses:?}"
        );
        if last_kill.elapsed() > Duration::from_millis(1500) {
            let victim = kills % workers.len();
            workers[victim].kill9();
            workers[victim] = spawn("worker", s.dir.path(), &env);
            kills += 1;
            last_kill = Instant::now();
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    // Every webhook delivered (wait for stragglers).
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut by_job = std::collections::HashMap::<String, usize>::new();
    loop {
        by_job.clear();
        for r in rx.received() {
            *by_job
                .entry(r.json()["job_id"].as_str().unwrap().to_string())
                .or_default() += 1;
        }
        if ids.iter().all(|id| by_job.contains_key(id)) || Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let missing = ids.iter().filter(|id| !by_job.contains_key(*id)).count();
    let duplicates: usize = by_job.values().map(|n| n.saturating_sub(1)).sum();
    let mut attempts = std::collections::BTreeMap::<u64, usize>::new();
    let mut failed = Vec::new();
    for id in &ids {
        let j = s.job(id).await;
        *attempts
            .entry(j["metadata"]["attempts"].as_u64().unwrap_or(0))
            .or_default() += 1;
        if j["status"] == "failed" {
            failed.push(j["error_message"].as_str().unwrap_or_default().to_string());
        }
    }
    println!(
        "BENCH kill_chaos: {total} jobs, {kills} worker kills in {:.0} s; all final: {}; webhooks missing {missing}, duplicate deliveries {duplicates}; attempts histogram {attempts:?}; failed {:?}",
        started.elapsed().as_secs_f64(),
        finals == total,
        failed
    );
    for w in &mut workers {
        w.term();
    }
    api.term();
    redis_cleanup(&prefix).await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "benchmark"]
async fn bench_isolation_overhead() {
    use quire::service::isolate::{run, ChildSpec};
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "A small document.\n\nWith two paragraphs.").unwrap();
    let config = quire::config::Config::default();
    let exe = std::path::PathBuf::from(env!("CARGO_BIN_EXE_quire"));
    let spec = |output: std::path::PathBuf| ChildSpec {
        input: input.clone(),
        inline: None,
        output,
        file_name: "in.txt".into(),
        format: "md".into(),
        chunking: None,
        ocr_provider: None,
        timeout_secs: 30,
        config: config.clone(),
        test_faults: false,
        options: Default::default(),
        password: None,
        images_dir: None,
    };
    let n = 200;
    let start = Instant::now();
    for i in 0..n {
        let spec = spec(dir.path().join(format!("out{i}.md")));
        let outcome = run(&exe, &spec, |_, _| {}).await;
        assert!(
            matches!(outcome, quire::service::isolate::ChildOutcome::Done(_)),
            "{outcome:?}"
        );
    }
    let child = start.elapsed() / n;
    // The workers' way: one long-lived child serving jobs in turn.
    let mut slot = quire::service::isolate::Slot::new(exe.clone());
    let start = Instant::now();
    for i in 0..n {
        let spec = spec(dir.path().join(format!("slot{i}.md")));
        let outcome = slot.run(&spec, |_, _| {}).await;
        assert!(
            matches!(outcome, quire::service::isolate::ChildOutcome::Done(_)),
            "{outcome:?}"
        );
    }
    let pooled = start.elapsed() / n;
    let engine = quire::pipeline::Engine::new(
        quire::registry::Registry::from_inventory().unwrap(),
        config.plugin_config(),
    );
    let bytes = std::fs::read(&input).unwrap();
    let start = Instant::now();
    for _ in 0..n {
        let req = quire::pipeline::ConvertRequest {
            bytes: &bytes,
            file_name: "in.txt",
            format: quire::pipeline::OutputFormat::Markdown,
            ocr_provider: None,
        };
        engine
            .convert(&req, &mut quire::pipeline::ConvertControl::default())
            .unwrap();
    }
    let inproc = start.elapsed() / n;
    println!(
        "BENCH isolation_overhead: fresh child per job {:.2} ms, reused child (worker slot) {:.3} ms, in-process {:.3} ms per conversion",
        child.as_secs_f64() * 1e3,
        pooled.as_secs_f64() * 1e3,
        inproc.as_secs_f64() * 1e3,
    );
}
