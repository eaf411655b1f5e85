//! Prometheus metrics in the text exposition format, kept in process memory.
//!
//! A handful of counters and one histogram do not justify a metrics framework: jobs by
//! outcome, conversion time by converter, webhook outcomes, HTTP requests by status class;
//! queue depth is read from the store at scrape time. Each process (`serve`, `worker`)
//! exposes what it did itself; `quire worker` has no HTTP listener, so scale-out deployments
//! scrape the `serve` processes and read the queue depth there.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Upper bounds (seconds) of the conversion-time histogram buckets.
const BUCKETS: [f64; 10] = [0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 15.0, 60.0];

#[derive(Default)]
struct Histogram {
    counts: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

#[derive(Default)]
struct Inner {
    jobs_created: u64,
    jobs: BTreeMap<String, u64>,
    conversions: BTreeMap<String, Histogram>,
    webhooks: BTreeMap<String, u64>,
    http: BTreeMap<String, u64>,
    reclaimed: u64,
    refused: BTreeMap<String, u64>,
}

#[derive(Default)]
pub struct Metrics {
    inner: Mutex<Inner>,
    /// Live-progress streams open now, and events sent on them (`service::events`).
    streams_open: AtomicU64,
    stream_events: AtomicU64,
    /// `MAX_QUEUED_JOBS` (0: unlimited).
    max_queued_jobs: AtomicU64,
}

impl Metrics {
    fn with<R>(&self, f: impl FnOnce(&mut Inner) -> R) -> R {
        let mut guard = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut guard)
    }

    /// `MAX_QUEUED_JOBS`, shown beside the queue depth.
    pub fn set_max_queued_jobs(&self, max: Option<u64>) {
        self.max_queued_jobs
            .store(max.unwrap_or(0), Ordering::Relaxed);
    }

    pub fn stream_opened(&self) {
        self.streams_open.fetch_add(1, Ordering::Relaxed);
    }

    pub fn stream_closed(&self) {
        self.streams_open.fetch_sub(1, Ordering::Relaxed);
    }

    pub fn stream_event(&self) {
        self.stream_events.fetch_add(1, Ordering::Relaxed);
    }

    /// Live-progress streams open now.
    pub fn streams_open(&self) -> u64 {
        self.streams_open.load(Ordering::Relaxed)
    }

    /// A job refused with 429 (`queue_full`).
    pub fn job_refused(&self, reason: &str) {
        self.with(|m| *m.refused.entry(reason.to_string()).or_default() += 1);
    }

    pub fn job_created(&self) {
        self.with(|m| m.jobs_created += 1);
    }

    /// A job reached a final state (`completed`, `failed`).
    pub fn job_finished(&self, outcome: &str) {
        self.with(|m| *m.jobs.entry(outcome.to_string()).or_default() += 1);
    }

    pub fn job_reclaimed(&self) {
        self.with(|m| m.reclaimed += 1);
    }

    pub fn conversion(&self, converter: &str, seconds: f64) {
        self.with(|m| {
            let h = m.conversions.entry(converter.to_string()).or_default();
            h.count += 1;
            h.sum += seconds;
            for (i, bound) in BUCKETS.iter().enumerate() {
                if seconds <= *bound {
                    h.counts[i] += 1;
                }
            }
        });
    }

    /// A webhook delivery ended: `delivered`, `gave_up`, `refused`; or a send was retried
    /// (`retried`), or a delivery is sent again after a sender that never recorded an answer
    /// (`resent_unrecorded`).
    pub fn webhook(&self, outcome: &str) {
        self.with(|m| *m.webhooks.entry(outcome.to_string()).or_default() += 1);
    }

    pub fn http_response(&self, status: u16) {
        let class = format!("{}xx", status / 100);
        self.with(|m| *m.http.entry(class).or_default() += 1);
    }

    /// The exposition text; `queue_depth` and `deliveries` come from the store.
    pub fn render(
        &self,
        queue_depth: Option<u64>,
        deliveries: Option<u64>,
        busy: usize,
        workers: usize,
    ) -> String {
        let mut out = String::new();
        self.with(|m| {
            let _ = writeln!(
                out,
                "# HELP quire_jobs_created_total Jobs accepted by this process."
            );
            let _ = writeln!(out, "# TYPE quire_jobs_created_total counter");
            let _ = writeln!(out, "quire_jobs_created_total {}", m.jobs_created);
            let _ = writeln!(
                out,
                "# HELP quire_jobs_finished_total Jobs finished by this process, by outcome."
            );
            let _ = writeln!(out, "# TYPE quire_jobs_finished_total counter");
            for outcome in ["completed", "failed"] {
                let n = m.jobs.get(outcome).copied().unwrap_or(0);
                let _ = writeln!(
                    out,
                    "quire_jobs_finished_total{{outcome=\"{outcome}\"}} {n}"
                );
            }
            let _ = writeln!(
                out,
                "# HELP quire_jobs_reclaimed_total Jobs whose worker was lost, requeued or failed."
            );
            let _ = writeln!(out, "# TYPE quire_jobs_reclaimed_total counter");
            let _ = writeln!(out, "quire_jobs_reclaimed_total {}", m.reclaimed);
            let _ = writeln!(
                out,
                "# HELP quire_conversion_seconds Conversion wall time, by converter."
            );
            let _ = writeln!(out, "# TYPE quire_conversion_seconds histogram");
            for (converter, h) in &m.conversions {
                let c = escape(converter);
                for (i, bound) in BUCKETS.iter().enumerate() {
                    let _ = writeln!(
                        out,
                        "quire_conversion_seconds_bucket{{converter=\"{c}\",le=\"{bound}\"}} {}",
                        h.counts[i]
                    );
                }
                let _ = writeln!(
                    out,
                    "quire_conversion_seconds_bucket{{converter=\"{c}\",le=\"+Inf\"}} {}",
                    h.count
                );
                let _ = writeln!(
                    out,
                    "quire_conversion_seconds_sum{{converter=\"{c}\"}} {}",
                    h.sum
                );
                let _ = writeln!(
                    out,
                    "quire_conversion_seconds_count{{converter=\"{c}\"}} {}",
                    h.count
                );
            }
            let _ = writeln!(
                out,
                "# HELP quire_webhook_deliveries_total Webhook sends, by outcome."
            );
            let _ = writeln!(out, "# TYPE quire_webhook_deliveries_total counter");
            for (outcome, n) in &m.webhooks {
                let _ = writeln!(
                    out,
                    "quire_webhook_deliveries_total{{outcome=\"{}\"}} {n}",
                    escape(outcome)
                );
            }
            let _ = writeln!(
                out,
                "# HELP quire_http_responses_total HTTP responses, by status class."
            );
            let _ = writeln!(out, "# TYPE quire_http_responses_total counter");
            for (class, n) in &m.http {
                let _ = writeln!(out, "quire_http_responses_total{{class=\"{class}\"}} {n}");
            }
        });
        let _ = writeln!(out, "# HELP quire_queue_depth Jobs waiting for a worker.");
        let _ = writeln!(out, "# TYPE quire_queue_depth gauge");
        if let Some(depth) = queue_depth {
            let _ = writeln!(out, "quire_queue_depth {depth}");
        }
        let _ = writeln!(
            out,
            "# HELP quire_webhook_queue_depth Webhook deliveries waiting or in flight."
        );
        let _ = writeln!(out, "# TYPE quire_webhook_queue_depth gauge");
        if let Some(n) = deliveries {
            let _ = writeln!(out, "quire_webhook_queue_depth {n}");
        }
        let _ = writeln!(
            out,
            "# HELP quire_workers Conversion workers in this process."
        );
        let _ = writeln!(out, "# TYPE quire_workers gauge");
        let _ = writeln!(out, "quire_workers {workers}");
        let _ = writeln!(out, "# HELP quire_workers_busy Workers converting now.");
        let _ = writeln!(out, "# TYPE quire_workers_busy gauge");
        let _ = writeln!(out, "quire_workers_busy {busy}");
        let max = self.max_queued_jobs.load(Ordering::Relaxed);
        if max > 0 {
            let _ = writeln!(
                out,
                "# HELP quire_max_queued_jobs Jobs allowed to wait (MAX_QUEUED_JOBS); more are refused with 429."
            );
            let _ = writeln!(out, "# TYPE quire_max_queued_jobs gauge");
            let _ = writeln!(out, "quire_max_queued_jobs {max}");
        }
        let _ = writeln!(
            out,
            "# HELP quire_jobs_refused_total Job creations refused with 429, by reason."
        );
        let _ = writeln!(out, "# TYPE quire_jobs_refused_total counter");
        let refused = self.with(|m| m.refused.get("queue_full").copied().unwrap_or(0));
        let _ = writeln!(
            out,
            "quire_jobs_refused_total{{reason=\"queue_full\"}} {refused}"
        );
        let _ = writeln!(
            out,
            "# HELP quire_event_streams Live-progress (SSE) streams open now."
        );
        let _ = writeln!(out, "# TYPE quire_event_streams gauge");
        let _ = writeln!(out, "quire_event_streams {}", self.streams_open());
        let _ = writeln!(
            out,
            "# HELP quire_event_stream_events_total Job events sent on live-progress streams."
        );
        let _ = writeln!(out, "# TYPE quire_event_stream_events_total counter");
        let _ = writeln!(
            out,
            "quire_event_stream_events_total {}",
            self.stream_events.load(Ordering::Relaxed)
        );
        out
    }
}

fn escape(label: &str) -> String {
    label
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}
