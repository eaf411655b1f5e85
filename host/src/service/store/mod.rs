//! The job store and queue: one interface, two implementations.
//!
//! - [`embedded::EmbeddedStore`] (no `REDIS_URL`): redb files under `DATA_DIR`; one process.
//! - [`redis::RedisStore`] (`REDIS_URL`): shared by any number of `quire serve` / `quire worker`
//!   processes; every state change is one Lua script, so it is atomic.
//!
//! Semantics (both): at-least-once. [`Store::claim`] moves the oldest pending job to
//! `processing`, counts the attempt and grants a lease; the attempt number is the fencing token
//! every later write must present ([`Store::renew`], [`Store::progress`], [`Store::finish`]), so a
//! worker that lost its lease cannot overwrite a newer attempt. [`Store::reclaim`] puts jobs whose
//! lease ran out back in the queue, or fails them after [`MAX_ATTEMPTS`](super::job::MAX_ATTEMPTS).
//! Finishing a job with a notification target enqueues its webhook delivery in the same atomic
//! step; deliveries have their own schedule and lease, separate from conversions.
//!
//! The enum (rather than `dyn Trait`) keeps the async methods plain `async fn`s.

pub mod embedded;
mod link;
pub mod redis;

use super::job::{Job, Status};
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use std::fmt;

/// A store failure. The text is never shown to clients.
#[derive(Debug, Clone)]
pub enum StoreError {
    /// I/O, a corrupt record, a refused command: unexpected (the API answers 500).
    Failed(String),
    /// The store cannot be reached now (Redis down, restarting or not answering in time): a
    /// temporary outage, answered with 503 and `Retry-After`, and retried by background loops.
    Unavailable(String),
}

impl StoreError {
    pub fn is_unavailable(&self) -> bool {
        matches!(self, StoreError::Unavailable(_))
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Failed(m) => f.write_str(m),
            StoreError::Unavailable(m) => write!(f, "store unavailable: {m}"),
        }
    }
}

impl std::error::Error for StoreError {}

impl From<::redis::RedisError> for StoreError {
    fn from(e: ::redis::RedisError) -> Self {
        if link::is_outage(&e) {
            StoreError::Unavailable(format!("redis: {e}"))
        } else {
            StoreError::Failed(format!("redis: {e}"))
        }
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> Self {
        StoreError::Failed(format!("corrupt record: {e}"))
    }
}

pub type StoreResult<T> = Result<T, StoreError>;

/// A job handed to a worker.
#[derive(Debug, Clone)]
pub struct Claimed {
    pub job: Job,
    /// The fencing token: this claim's attempt number (1-based).
    pub attempt: u32,
}

/// How an attempt ended.
#[derive(Debug, Clone)]
pub struct Finish {
    pub status: Status,
    pub error_message: Option<String>,
    pub metadata: Map<String, Value>,
    pub at: DateTime<Utc>,
}

/// What [`Store::reclaim`] did with one job whose lease had run out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reclaimed {
    Requeued(String),
    Failed(String),
}

/// A webhook delivery due now, claimed for sending.
#[derive(Debug, Clone)]
pub struct Delivery {
    pub job_id: String,
    /// Sends already made (0 for the first).
    pub sent: u32,
    /// Earlier claims of this delivery that ended with nothing recorded: their sender stopped
    /// (killed, or cut off past the lease) while sending, so the receiver may already have had
    /// one of them. Sending again is the at-least-once step; this tells it apart from a retry.
    pub unrecorded: u32,
    /// The job as it was at the claim, read in the same step (`None`: the job is gone).
    pub job: Option<Job>,
}

/// The message of a job whose workers kept disappearing.
pub fn lost_worker_message() -> String {
    format!(
        "The conversion was interrupted {} times because the worker running it stopped; giving up.",
        super::job::MAX_ATTEMPTS
    )
}

/// The metadata of a job failed by [`Store::reclaim`]: what a worker records for a failed
/// attempt (the Redis store builds the same object in `reclaim.lua`).
pub fn lost_worker_metadata(job: &Job) -> Map<String, Value> {
    let mut metadata = job.state.metadata.clone().unwrap_or_default();
    metadata.insert("detected_mime".into(), job.spec.mime.clone().into());
    metadata.insert("input_bytes".into(), job.spec.input_bytes.into());
    metadata.insert("error_kind".into(), "worker_lost".into());
    metadata.insert("attempts".into(), job.state.attempts.into());
    metadata
}

#[derive(Clone)]
pub enum Store {
    Embedded(embedded::EmbeddedStore),
    Redis(Box<redis::RedisStore>),
}

macro_rules! dispatch {
    ($self:ident, $s:ident => $e:expr) => {
        match $self {
            Store::Embedded($s) => $e,
            Store::Redis($s) => $e,
        }
    };
}

impl Store {
    /// Opens the store the configuration asks for.
    pub async fn open(config: &crate::config::Config) -> StoreResult<Store> {
        match &config.redis_url {
            Some(url) => Ok(Store::Redis(Box::new(
                redis::RedisStore::connect(url, &config.redis_key_prefix, config.file_ttl())
                    .await?,
            ))),
            None => Ok(Store::Embedded(
                embedded::EmbeddedStore::open(&config.data_dir).await?,
            )),
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Store::Embedded(_) => "embedded",
            Store::Redis(_) => "redis",
        }
    }

    /// A connection test.
    pub async fn ping(&self) -> StoreResult<()> {
        dispatch!(self, s => s.ping().await)
    }

    /// The largest upload this store keeps itself, with the job record (0: none).
    ///
    /// The embedded store commits a small upload in the same transaction as its record, so a
    /// job costs one group-committed fsync and no file. Redis keeps it under its own key,
    /// written by the script that creates the job ([`redis::INLINE_INPUT_MAX`] says why and
    /// what it costs).
    pub fn inline_input_limit(&self) -> usize {
        match self {
            Store::Embedded(_) => embedded::INLINE_INPUT_MAX,
            Store::Redis(_) => redis::INLINE_INPUT_MAX,
        }
    }

    /// Stores a new pending job and queues it; `input` is the upload when the store keeps it
    /// (at most [`Store::inline_input_limit`] bytes; the job's `input_in_store` is set).
    pub async fn create(&self, job: &Job, input: Option<Vec<u8>>) -> StoreResult<()> {
        match self {
            Store::Embedded(s) => s.create(job, input).await,
            Store::Redis(s) => s.create(job, input).await,
        }
    }

    /// [`Store::create`] unless `max_queued` jobs already wait (checked in the same atomic step
    /// as the insert, so concurrent creates never pass the bound); false when refused, with
    /// nothing stored. Queue entries of jobs deleted while pending still count until a worker
    /// drops them, so the bound errs on the safe side.
    pub async fn create_bounded(
        &self,
        job: &Job,
        input: Option<Vec<u8>>,
        max_queued: Option<u64>,
    ) -> StoreResult<bool> {
        match self {
            Store::Embedded(s) => s.create_bounded(job, input, max_queued).await,
            Store::Redis(s) => s.create_bounded(job, input, max_queued).await,
        }
    }

    /// Jobs that ended at or after `since_ms` (the recent completion rate).
    pub async fn finished_since(&self, since_ms: i64) -> StoreResult<u64> {
        dispatch!(self, s => s.finished_since(since_ms).await)
    }

    /// The jobs of `owner`, newest first: at most `limit` created before `before` (created ms,
    /// id; exclusive), of `status` when given, and the cursor of the next page when the page is
    /// full.
    pub async fn list_owned(
        &self,
        owner: &str,
        before: Option<(i64, String)>,
        status: Option<Status>,
        limit: usize,
    ) -> StoreResult<(Vec<Job>, Option<(i64, String)>)> {
        dispatch!(self, s => s.list_owned(owner, before, status, limit).await)
    }

    /// A job with its event sequence number (`service::events`; 0 on the embedded store).
    pub async fn get_for_events(&self, id: &str) -> StoreResult<Option<(Job, u64)>> {
        match self {
            Store::Embedded(s) => Ok(s.get(id).await?.map(|j| (j, 0))),
            Store::Redis(s) => s.get_with_seq(id).await,
        }
    }

    /// The upload of a job whose `input_in_store` is set, until the job ends.
    pub async fn input(&self, id: &str) -> StoreResult<Option<Vec<u8>>> {
        match self {
            Store::Embedded(s) => s.input(id).await,
            Store::Redis(s) => s.input(id).await,
        }
    }

    /// Keeps a job's password apart from its record until [`Store::drop_secret`]: in memory
    /// on the embedded store, under its own key with an expiry on Redis (see `secrets.rs`).
    pub async fn put_secret(&self, id: &str, secret: &str) -> StoreResult<()> {
        match self {
            Store::Embedded(s) => {
                s.put_secret(id, secret);
                Ok(())
            }
            Store::Redis(s) => s.put_secret(id, secret).await,
        }
    }

    /// The password kept for a job, if any is still kept.
    pub async fn secret(&self, id: &str) -> StoreResult<Option<String>> {
        match self {
            Store::Embedded(s) => Ok(s.secret(id)),
            Store::Redis(s) => s.secret(id).await,
        }
    }

    /// Forgets a job's password (its end, cancellation, deletion, expiry).
    pub async fn drop_secret(&self, id: &str) -> StoreResult<()> {
        match self {
            Store::Embedded(s) => {
                s.drop_secret(id);
                Ok(())
            }
            Store::Redis(s) => s.drop_secret(id).await,
        }
    }

    pub async fn get(&self, id: &str) -> StoreResult<Option<Job>> {
        dispatch!(self, s => s.get(id).await)
    }

    /// Removes a job, its queue entry, lease and pending delivery. Returns the removed job.
    pub async fn delete(&self, id: &str) -> StoreResult<Option<Job>> {
        dispatch!(self, s => s.delete(id).await)
    }

    /// Takes the oldest pending job: status `processing`, attempt counted, lease until `lease_until`.
    pub async fn claim(
        &self,
        now: DateTime<Utc>,
        lease_until_ms: i64,
    ) -> StoreResult<Option<Claimed>> {
        dispatch!(self, s => s.claim(now, lease_until_ms).await)
    }

    /// Extends the lease of attempt `attempt`; false when the attempt is no longer current.
    pub async fn renew(&self, id: &str, attempt: u32, lease_until_ms: i64) -> StoreResult<bool> {
        dispatch!(self, s => s.renew(id, attempt, lease_until_ms).await)
    }

    /// Raises progress (never lowers it); false when the attempt is no longer current.
    pub async fn progress(
        &self,
        id: &str,
        attempt: u32,
        percent: u8,
        now: DateTime<Utc>,
    ) -> StoreResult<bool> {
        dispatch!(self, s => s.progress(id, attempt, percent.min(99), now).await)
    }

    /// Ends attempt `attempt` (fenced) and enqueues the webhook delivery when the job has a target.
    pub async fn finish(&self, id: &str, attempt: u32, finish: &Finish) -> StoreResult<bool> {
        dispatch!(self, s => s.finish(id, attempt, finish).await)
    }

    /// Hands a job back to the queue (worker shutting down); the attempt is not counted.
    pub async fn release(&self, id: &str, attempt: u32, now: DateTime<Utc>) -> StoreResult<bool> {
        dispatch!(self, s => s.release(id, attempt, now).await)
    }

    /// Requeues (or, after the last attempt, fails) jobs whose lease ended before `now`.
    pub async fn reclaim(&self, now: DateTime<Utc>) -> StoreResult<Vec<Reclaimed>> {
        dispatch!(self, s => s.reclaim(now).await)
    }

    /// Jobs waiting to be claimed.
    pub async fn queue_depth(&self) -> StoreResult<u64> {
        dispatch!(self, s => s.queue_depth().await)
    }

    /// Takes a webhook delivery that is due, leasing it until `lease_until_ms`.
    pub async fn claim_delivery(
        &self,
        now_ms: i64,
        lease_until_ms: i64,
    ) -> StoreResult<Option<Delivery>> {
        dispatch!(self, s => s.claim_delivery(now_ms, lease_until_ms).await)
    }

    /// Schedules the next send of a delivery.
    pub async fn retry_delivery(
        &self,
        job_id: &str,
        sent: u32,
        due_ms: i64,
        outcome: &Value,
    ) -> StoreResult<()> {
        dispatch!(self, s => s.retry_delivery(job_id, sent, due_ms, outcome).await)
    }

    /// Ends a delivery (delivered or given up) and records the outcome in the job.
    pub async fn end_delivery(&self, job_id: &str, outcome: &Value) -> StoreResult<()> {
        dispatch!(self, s => s.end_delivery(job_id, outcome).await)
    }

    /// Deliveries waiting or in flight.
    pub async fn pending_deliveries(&self) -> StoreResult<u64> {
        dispatch!(self, s => s.pending_deliveries().await)
    }

    /// Finished jobs whose end is older than `before_ms` (retention), at most `limit`.
    pub async fn expired(&self, before_ms: i64, limit: usize) -> StoreResult<Vec<String>> {
        dispatch!(self, s => s.expired(before_ms, limit).await)
    }

    /// Records that a worker process is alive (for readiness across processes).
    pub async fn heartbeat(&self, worker: &str, now_ms: i64) -> StoreResult<()> {
        dispatch!(self, s => s.heartbeat(worker, now_ms).await)
    }

    /// Worker processes seen since `since_ms`.
    pub async fn live_workers(&self, since_ms: i64) -> StoreResult<u64> {
        dispatch!(self, s => s.live_workers(since_ms).await)
    }
}
