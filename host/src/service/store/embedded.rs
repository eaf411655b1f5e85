//! The embedded store: redb (a pure-Rust, ACID, copy-on-write B-tree file) under `DATA_DIR`.
//!
//! Why redb: durable commits (fsync) with crash safety, no server, no C dependency, and a small
//! API. One process owns the file (redb locks it), which matches "one `quire serve` needs
//! nothing else"; scale-out uses Redis.
//!
//! Writes go through one writer thread that applies every operation waiting in its channel in
//! a single transaction and commits once (group commit): each commit costs an fsync, and
//! batching them is what lets a small disk keep up with hundreds of job changes a second.
//! Every operation still sees the effects of the ones before it in the batch, so each is atomic
//! with respect to the others exactly as if it had its own transaction.

use super::{lost_worker_message, Claimed, Delivery, Finish, Reclaimed, StoreError, StoreResult};
use crate::service::job::{millis, Job, Status, MAX_ATTEMPTS};
use chrono::{DateTime, Utc};
use redb::{Database, ReadableTable, ReadableTableMetadata, TableDefinition, WriteTransaction};
use serde_json::Value;
use std::path::Path;
use std::sync::{mpsc, Arc};
use tokio::sync::oneshot;

/// id -> JSON of [`Job`].
const JOBS: TableDefinition<&str, &[u8]> = TableDefinition::new("jobs");
/// sequence -> id; the pending queue (front = smallest key).
const QUEUE: TableDefinition<i64, &str> = TableDefinition::new("queue");
/// id -> lease end (ms) of a processing job.
const LEASES: TableDefinition<&str, i64> = TableDefinition::new("leases");
/// id -> (due ms, sends made) of a webhook delivery.
const HOOKS: TableDefinition<&str, (i64, u32)> = TableDefinition::new("hooks");
/// (end ms, id) of finished jobs, for retention.
const FINISHED: TableDefinition<(i64, &str), ()> = TableDefinition::new("finished");
/// id -> lease end (ms) of a webhook delivery being sent now (its `HOOKS` due time is the same
/// lease); lets a restart tell deliveries in flight from scheduled retries.
const HOOK_LEASES: TableDefinition<&str, i64> = TableDefinition::new("hook_leases");
/// id -> claims of a webhook delivery that ended with nothing recorded (the sender stopped
/// mid-send: its lease ran out, or the process died and the store was reopened).
const HOOK_UNRECORDED: TableDefinition<&str, u32> = TableDefinition::new("hook_unrecorded");
/// id -> the upload of a job that has not ended (small uploads only; see [`INLINE_INPUT_MAX`]).
const INPUTS: TableDefinition<&str, &[u8]> = TableDefinition::new("inputs");

/// (owner, created ms, id) of jobs created with an API key, for listing a tenant's jobs.
const OWNED: TableDefinition<(&str, i64, &str), ()> = TableDefinition::new("owned");

/// Uploads up to this size are kept in the store with their job until it ends. Measured
/// (32 clients sending 10 KB files): the file create + rename + fsync per upload, not the
/// commit, was what held `POST /api/v1/jobs` back. The bound keeps one buffered upload small.
pub const INLINE_INPUT_MAX: usize = 64 * 1024;

type Reply = Box<dyn FnOnce(StoreResult<()>) + Send>;
type Op = Box<dyn FnOnce(&WriteTransaction) -> (bool, Reply) + Send>;

#[derive(Clone)]
pub struct EmbeddedStore {
    db: Arc<Database>,
    ops: mpsc::Sender<Op>,
    /// Job passwords, in this process's memory only (never in the redb file): the embedded
    /// store has one process, which runs the job too. Lost on restart (see `secrets.rs`).
    secrets: Arc<std::sync::Mutex<std::collections::HashMap<String, String>>>,
}

fn err(e: impl std::fmt::Display) -> StoreError {
    StoreError::Failed(format!("embedded store: {e}"))
}

impl EmbeddedStore {
    /// Opens (or creates) `DATA_DIR/quire.redb` and starts the writer thread.
    pub async fn open(data_dir: &Path) -> StoreResult<EmbeddedStore> {
        let dir = data_dir.to_path_buf();
        let db = tokio::task::spawn_blocking(move || -> StoreResult<Database> {
            std::fs::create_dir_all(&dir)
                .map_err(|e| err(format!("cannot create DATA_DIR {}: {e}", dir.display())))?;
            let db = Database::create(dir.join("quire.redb")).map_err(err)?;
            let txn = db.begin_write().map_err(err)?;
            txn.open_table(JOBS).map_err(err)?;
            txn.open_table(QUEUE).map_err(err)?;
            txn.open_table(LEASES).map_err(err)?;
            txn.open_table(HOOKS).map_err(err)?;
            txn.open_table(FINISHED).map_err(err)?;
            txn.open_table(INPUTS).map_err(err)?;
            txn.open_table(HOOK_LEASES).map_err(err)?;
            txn.open_table(HOOK_UNRECORDED).map_err(err)?;
            txn.open_table(OWNED).map_err(err)?;
            txn.commit().map_err(err)?;
            Ok(db)
        })
        .await
        .map_err(err)??;
        let db = Arc::new(db);
        let (tx, rx) = mpsc::channel::<Op>();
        let writer_db = db.clone();
        std::thread::Builder::new()
            .name("quire-store-writer".into())
            .spawn(move || writer_loop(&writer_db, rx))
            .map_err(err)?;
        let store = EmbeddedStore {
            db,
            ops: tx,
            secrets: Arc::default(),
        };
        store.recover().await?;
        Ok(store)
    }

    /// Keeps a job's password until [`EmbeddedStore::drop_secret`] (memory only).
    pub fn put_secret(&self, id: &str, secret: &str) {
        self.secrets
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.to_string(), secret.to_string());
    }

    pub fn secret(&self, id: &str) -> Option<String> {
        self.secrets
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(id)
            .cloned()
    }

    pub fn drop_secret(&self, id: &str) {
        self.secrets
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id);
    }

    /// Takes over what the previous process left in flight. redb's file lock means this
    /// process is the only one with the store open, so every lease in it belongs to a process
    /// that is gone: its jobs go back to the front of the queue now (counted as a lost worker,
    /// as the reclaimer would after the lease), and its webhook deliveries are due now.
    async fn recover(&self) -> StoreResult<()> {
        let now = Utc::now();
        let now_ms = millis(now);
        let deliveries = self
            .write(move |txn| {
                let mut leases = txn.open_table(LEASES).map_err(err)?;
                let ids: Vec<String> = leases
                    .iter()
                    .map_err(err)?
                    .map(|e| e.map(|(id, _)| id.value().to_string()))
                    .collect::<Result<_, _>>()
                    .map_err(err)?;
                for id in &ids {
                    leases.insert(id.as_str(), i64::MIN).map_err(err)?;
                }
                let mut hook_leases = txn.open_table(HOOK_LEASES).map_err(err)?;
                let in_flight: Vec<String> = hook_leases
                    .iter()
                    .map_err(err)?
                    .map(|e| e.map(|(id, _)| id.value().to_string()))
                    .collect::<Result<_, _>>()
                    .map_err(err)?;
                let mut hooks = txn.open_table(HOOKS).map_err(err)?;
                let mut unrecorded = txn.open_table(HOOK_UNRECORDED).map_err(err)?;
                for id in &in_flight {
                    hook_leases.remove(id.as_str()).map_err(err)?;
                    let n = unrecorded
                        .get(id.as_str())
                        .map_err(err)?
                        .map_or(0, |v| v.value());
                    unrecorded.insert(id.as_str(), n + 1).map_err(err)?;
                    let sent = hooks.get(id.as_str()).map_err(err)?.map(|v| v.value().1);
                    if let Some(sent) = sent {
                        hooks.insert(id.as_str(), (now_ms, sent)).map_err(err)?;
                    }
                }
                Ok(in_flight.len())
            })
            .await?;
        let jobs = self.reclaim(now).await?;
        if !jobs.is_empty() || deliveries > 0 {
            tracing::warn!(
                jobs = jobs.len(),
                deliveries,
                "resuming work the previous process left unfinished"
            );
        }
        Ok(())
    }

    async fn write<R, F>(&self, f: F) -> StoreResult<R>
    where
        R: Send + 'static,
        F: FnOnce(&WriteTransaction) -> StoreResult<R> + Send + 'static,
    {
        let (tx, rx) = oneshot::channel::<StoreResult<R>>();
        let op: Op = Box::new(move |txn| {
            let out = f(txn);
            let failed = out.is_err();
            let reply: Reply = Box::new(move |commit| {
                let _ = tx.send(commit.and(out));
            });
            (failed, reply)
        });
        self.ops
            .send(op)
            .map_err(|_| err("the writer thread has stopped"))?;
        rx.await
            .map_err(|_| err("the writer thread dropped a reply"))?
    }

    async fn read<R, F>(&self, f: F) -> StoreResult<R>
    where
        R: Send + 'static,
        F: FnOnce(&redb::ReadTransaction) -> StoreResult<R> + Send + 'static,
    {
        let db = self.db.clone();
        tokio::task::spawn_blocking(move || {
            let txn = db.begin_read().map_err(err)?;
            f(&txn)
        })
        .await
        .map_err(err)?
    }

    pub async fn ping(&self) -> StoreResult<()> {
        self.read(|txn| {
            txn.open_table(JOBS).map_err(err)?;
            Ok(())
        })
        .await
    }

    pub async fn create(&self, job: &Job, input: Option<Vec<u8>>) -> StoreResult<()> {
        let bytes = serde_json::to_vec(job)?;
        let id = job.spec.id.clone();
        self.write(move |txn| {
            txn.open_table(JOBS)
                .map_err(err)?
                .insert(id.as_str(), bytes.as_slice())
                .map_err(err)?;
            if let Some(input) = input {
                txn.open_table(INPUTS)
                    .map_err(err)?
                    .insert(id.as_str(), input.as_slice())
                    .map_err(err)?;
            }
            push(txn, &id, false)
        })
        .await
    }

    pub async fn create_bounded(
        &self,
        job: &Job,
        input: Option<Vec<u8>>,
        max_queued: Option<u64>,
    ) -> StoreResult<bool> {
        let bytes = serde_json::to_vec(job)?;
        let id = job.spec.id.clone();
        let owner = job.owner.clone();
        let created = millis(job.spec.created_at);
        self.write(move |txn| {
            if let Some(max) = max_queued {
                if txn.open_table(QUEUE).map_err(err)?.len().map_err(err)? >= max {
                    return Ok(false);
                }
            }
            txn.open_table(JOBS)
                .map_err(err)?
                .insert(id.as_str(), bytes.as_slice())
                .map_err(err)?;
            if let Some(input) = input {
                txn.open_table(INPUTS)
                    .map_err(err)?
                    .insert(id.as_str(), input.as_slice())
                    .map_err(err)?;
            }
            if let Some(owner) = &owner {
                txn.open_table(OWNED)
                    .map_err(err)?
                    .insert((owner.as_str(), created, id.as_str()), ())
                    .map_err(err)?;
            }
            push(txn, &id, false)?;
            Ok(true)
        })
        .await
    }

    pub async fn finished_since(&self, since_ms: i64) -> StoreResult<u64> {
        self.read(move |txn| {
            let table = txn.open_table(FINISHED).map_err(err)?;
            let mut n = 0;
            for entry in table.range((since_ms, "")..).map_err(err)? {
                entry.map_err(err)?;
                n += 1;
            }
            Ok(n)
        })
        .await
    }

    pub async fn list_owned(
        &self,
        owner: &str,
        before: Option<(i64, String)>,
        status: Option<Status>,
        limit: usize,
    ) -> StoreResult<(Vec<Job>, Option<(i64, String)>)> {
        let owner = owner.to_string();
        self.read(move |txn| {
            let owned = txn.open_table(OWNED).map_err(err)?;
            let jobs = txn.open_table(JOBS).map_err(err)?;
            let bounded = before.is_some();
            let (end_ms, end_id) = before.unwrap_or((i64::MAX, String::new()));
            let start = (owner.as_str(), i64::MIN, "");
            let range = if bounded {
                owned.range(start..(owner.as_str(), end_ms, end_id.as_str()))
            } else {
                owned.range(start..(owner.as_str(), i64::MAX, ""))
            }
            .map_err(err)?;
            let mut out = Vec::new();
            let mut next = None;
            for entry in range.rev() {
                let (key, _) = entry.map_err(err)?;
                let (_, created, id) = key.value();
                let Some(value) = jobs.get(id).map_err(err)? else {
                    continue;
                };
                let job: Job = serde_json::from_slice(value.value())?;
                if status.is_some_and(|s| s != job.state.status) {
                    continue;
                }
                out.push(job);
                if out.len() == limit {
                    next = Some((created, id.to_string()));
                    break;
                }
            }
            Ok((out, next))
        })
        .await
    }

    pub async fn input(&self, id: &str) -> StoreResult<Option<Vec<u8>>> {
        let id = id.to_string();
        self.read(move |txn| {
            let table = txn.open_table(INPUTS).map_err(err)?;
            let value = table.get(id.as_str()).map_err(err)?;
            Ok(value.map(|v| v.value().to_vec()))
        })
        .await
    }

    pub async fn get(&self, id: &str) -> StoreResult<Option<Job>> {
        let id = id.to_string();
        self.read(move |txn| {
            let table = txn.open_table(JOBS).map_err(err)?;
            let value = table.get(id.as_str()).map_err(err)?;
            match value {
                Some(v) => Ok(Some(serde_json::from_slice(v.value())?)),
                None => Ok(None),
            }
        })
        .await
    }

    pub async fn delete(&self, id: &str) -> StoreResult<Option<Job>> {
        let id = id.to_string();
        self.write(move |txn| {
            let Some(job) = load(txn, &id)? else {
                return Ok(None);
            };
            txn.open_table(JOBS)
                .map_err(err)?
                .remove(id.as_str())
                .map_err(err)?;
            txn.open_table(LEASES)
                .map_err(err)?
                .remove(id.as_str())
                .map_err(err)?;
            txn.open_table(HOOKS)
                .map_err(err)?
                .remove(id.as_str())
                .map_err(err)?;
            txn.open_table(HOOK_LEASES)
                .map_err(err)?
                .remove(id.as_str())
                .map_err(err)?;
            txn.open_table(HOOK_UNRECORDED)
                .map_err(err)?
                .remove(id.as_str())
                .map_err(err)?;
            txn.open_table(INPUTS)
                .map_err(err)?
                .remove(id.as_str())
                .map_err(err)?;
            if let Some(owner) = &job.owner {
                txn.open_table(OWNED)
                    .map_err(err)?
                    .remove((owner.as_str(), millis(job.spec.created_at), id.as_str()))
                    .map_err(err)?;
            }
            if let Some(done) = job.state.completed_at {
                txn.open_table(FINISHED)
                    .map_err(err)?
                    .remove((millis(done), id.as_str()))
                    .map_err(err)?;
            }
            // A queue entry of a deleted job is skipped by `claim`.
            Ok(Some(job))
        })
        .await
    }

    pub async fn claim(
        &self,
        now: DateTime<Utc>,
        lease_until_ms: i64,
    ) -> StoreResult<Option<Claimed>> {
        self.write(move |txn| loop {
            let popped = {
                let mut queue = txn.open_table(QUEUE).map_err(err)?;
                let entry = queue.pop_first().map_err(err)?;
                entry.map(|(_, id)| id.value().to_string())
            };
            let Some(id) = popped else { return Ok(None) };
            let Some(mut job) = load(txn, &id)? else {
                continue;
            };
            if job.state.status != Status::Pending {
                continue;
            }
            job.state.status = Status::Processing;
            job.state.attempts += 1;
            job.state.updated_at = now;
            if job.state.metadata.is_none() {
                job.state.metadata = Some(Default::default());
            }
            save(txn, &job)?;
            txn.open_table(LEASES)
                .map_err(err)?
                .insert(id.as_str(), lease_until_ms)
                .map_err(err)?;
            let attempt = job.state.attempts;
            return Ok(Some(Claimed { job, attempt }));
        })
        .await
    }

    pub async fn renew(&self, id: &str, attempt: u32, lease_until_ms: i64) -> StoreResult<bool> {
        let id = id.to_string();
        self.write(move |txn| {
            if current(txn, &id, attempt)?.is_none() {
                return Ok(false);
            }
            txn.open_table(LEASES)
                .map_err(err)?
                .insert(id.as_str(), lease_until_ms)
                .map_err(err)?;
            Ok(true)
        })
        .await
    }

    pub async fn progress(
        &self,
        id: &str,
        attempt: u32,
        percent: u8,
        now: DateTime<Utc>,
    ) -> StoreResult<bool> {
        let id = id.to_string();
        self.write(move |txn| {
            let Some(mut job) = current(txn, &id, attempt)? else {
                return Ok(false);
            };
            if percent > job.state.progress {
                job.state.progress = percent;
                job.state.updated_at = now;
                save(txn, &job)?;
            }
            Ok(true)
        })
        .await
    }

    pub async fn finish(&self, id: &str, attempt: u32, finish: &Finish) -> StoreResult<bool> {
        let id = id.to_string();
        let finish = finish.clone();
        self.write(move |txn| {
            let Some(mut job) = current(txn, &id, attempt)? else {
                // A replay of the finish that already ended this attempt changes nothing and
                // succeeds (as on Redis, where the reply to the first can be lost).
                return Ok(load(txn, &id)?.is_some_and(|j| replayed(&j, attempt, &finish)));
            };
            end_job(txn, &mut job, finish)?;
            Ok(true)
        })
        .await
    }

    pub async fn release(&self, id: &str, attempt: u32, now: DateTime<Utc>) -> StoreResult<bool> {
        let id = id.to_string();
        self.write(move |txn| {
            let Some(mut job) = current(txn, &id, attempt)? else {
                return Ok(false);
            };
            job.state.status = Status::Pending;
            job.state.attempts = job.state.attempts.saturating_sub(1);
            job.state.updated_at = now;
            save(txn, &job)?;
            txn.open_table(LEASES)
                .map_err(err)?
                .remove(id.as_str())
                .map_err(err)?;
            push(txn, &id, true)?;
            Ok(true)
        })
        .await
    }

    pub async fn reclaim(&self, now: DateTime<Utc>) -> StoreResult<Vec<Reclaimed>> {
        let now_ms = millis(now);
        self.write(move |txn| {
            let expired: Vec<String> = {
                let leases = txn.open_table(LEASES).map_err(err)?;
                let mut out = Vec::new();
                for entry in leases.iter().map_err(err)? {
                    let (id, until) = entry.map_err(err)?;
                    if until.value() < now_ms {
                        out.push(id.value().to_string());
                    }
                }
                out
            };
            let mut events = Vec::new();
            for id in expired {
                txn.open_table(LEASES)
                    .map_err(err)?
                    .remove(id.as_str())
                    .map_err(err)?;
                let Some(mut job) = load(txn, &id)? else {
                    continue;
                };
                if job.state.status != Status::Processing {
                    continue;
                }
                if job.state.attempts >= MAX_ATTEMPTS {
                    let metadata = super::lost_worker_metadata(&job);
                    end_job(
                        txn,
                        &mut job,
                        Finish {
                            status: Status::Failed,
                            error_message: Some(lost_worker_message()),
                            metadata,
                            at: now,
                        },
                    )?;
                    events.push(Reclaimed::Failed(id));
                } else {
                    job.state.status = Status::Pending;
                    job.state.updated_at = now;
                    save(txn, &job)?;
                    push(txn, &id, true)?;
                    events.push(Reclaimed::Requeued(id));
                }
            }
            Ok(events)
        })
        .await
    }

    pub async fn queue_depth(&self) -> StoreResult<u64> {
        self.read(|txn| txn.open_table(QUEUE).map_err(err)?.len().map_err(err))
            .await
    }

    pub async fn claim_delivery(
        &self,
        now_ms: i64,
        lease_until_ms: i64,
    ) -> StoreResult<Option<Delivery>> {
        self.write(move |txn| {
            let mut hooks = txn.open_table(HOOKS).map_err(err)?;
            let mut best: Option<(String, i64, u32)> = None;
            for entry in hooks.iter().map_err(err)? {
                let (id, v) = entry.map_err(err)?;
                let (due, sent) = v.value();
                if due <= now_ms && best.as_ref().is_none_or(|b| due < b.1) {
                    best = Some((id.value().to_string(), due, sent));
                }
            }
            let Some((id, _, sent)) = best else {
                return Ok(None);
            };
            hooks
                .insert(id.as_str(), (lease_until_ms, sent))
                .map_err(err)?;
            drop(hooks);
            // A lease still held here ran out: the last claim's sender stopped mid-send.
            let lapsed = txn
                .open_table(HOOK_LEASES)
                .map_err(err)?
                .insert(id.as_str(), lease_until_ms)
                .map_err(err)?
                .is_some();
            let mut counts = txn.open_table(HOOK_UNRECORDED).map_err(err)?;
            let mut unrecorded = counts
                .get(id.as_str())
                .map_err(err)?
                .map_or(0, |v| v.value());
            if lapsed {
                unrecorded += 1;
                counts.insert(id.as_str(), unrecorded).map_err(err)?;
            }
            drop(counts);
            let job = load(txn, &id)?;
            Ok(Some(Delivery {
                job_id: id,
                sent,
                unrecorded,
                job,
            }))
        })
        .await
    }

    pub async fn retry_delivery(
        &self,
        job_id: &str,
        sent: u32,
        due_ms: i64,
        outcome: &Value,
    ) -> StoreResult<()> {
        let id = job_id.to_string();
        let outcome = outcome.clone();
        self.write(move |txn| {
            txn.open_table(HOOK_LEASES)
                .map_err(err)?
                .remove(id.as_str())
                .map_err(err)?;
            let Some(mut job) = load(txn, &id)? else {
                txn.open_table(HOOKS)
                    .map_err(err)?
                    .remove(id.as_str())
                    .map_err(err)?;
                txn.open_table(HOOK_UNRECORDED)
                    .map_err(err)?
                    .remove(id.as_str())
                    .map_err(err)?;
                return Ok(());
            };
            txn.open_table(HOOKS)
                .map_err(err)?
                .insert(id.as_str(), (due_ms, sent))
                .map_err(err)?;
            job.state.webhook = Some(outcome);
            save(txn, &job)
        })
        .await
    }

    pub async fn end_delivery(&self, job_id: &str, outcome: &Value) -> StoreResult<()> {
        let id = job_id.to_string();
        let outcome = outcome.clone();
        self.write(move |txn| {
            txn.open_table(HOOKS)
                .map_err(err)?
                .remove(id.as_str())
                .map_err(err)?;
            txn.open_table(HOOK_LEASES)
                .map_err(err)?
                .remove(id.as_str())
                .map_err(err)?;
            txn.open_table(HOOK_UNRECORDED)
                .map_err(err)?
                .remove(id.as_str())
                .map_err(err)?;
            if let Some(mut job) = load(txn, &id)? {
                job.state.webhook = Some(outcome);
                save(txn, &job)?;
            }
            Ok(())
        })
        .await
    }

    pub async fn pending_deliveries(&self) -> StoreResult<u64> {
        self.read(|txn| txn.open_table(HOOKS).map_err(err)?.len().map_err(err))
            .await
    }

    pub async fn expired(&self, before_ms: i64, limit: usize) -> StoreResult<Vec<String>> {
        self.read(move |txn| {
            let table = txn.open_table(FINISHED).map_err(err)?;
            let mut out = Vec::new();
            for entry in table.range((i64::MIN, "")..(before_ms, "")).map_err(err)? {
                let (key, _) = entry.map_err(err)?;
                out.push(key.value().1.to_string());
                if out.len() >= limit {
                    break;
                }
            }
            Ok(out)
        })
        .await
    }

    /// One process owns the embedded store; its workers are counted in-process.
    pub async fn heartbeat(&self, _worker: &str, _now_ms: i64) -> StoreResult<()> {
        Ok(())
    }

    pub async fn live_workers(&self, _since_ms: i64) -> StoreResult<u64> {
        Ok(0)
    }
}

fn writer_loop(db: &Database, rx: mpsc::Receiver<Op>) {
    while let Ok(first) = rx.recv() {
        let mut batch = vec![first];
        while batch.len() < 512 {
            match rx.try_recv() {
                Ok(op) => batch.push(op),
                Err(_) => break,
            }
        }
        let txn = match db.begin_write() {
            Ok(t) => t,
            Err(e) => {
                let message = format!("embedded store: {e}");
                for op in batch {
                    // Ops need a transaction to run; answer each with the error instead.
                    drop(op);
                    tracing::error!("{message}");
                }
                continue;
            }
        };
        let mut replies = Vec::with_capacity(batch.len());
        let mut any_failed = false;
        for op in batch {
            let (failed, reply) = op(&txn);
            any_failed |= failed;
            replies.push(reply);
        }
        let commit = if any_failed {
            // An operation failed half-way (a storage error): keep none of the batch.
            let _ = txn.abort();
            Err(err("a storage error aborted the transaction"))
        } else {
            txn.commit().map_err(err)
        };
        for reply in replies {
            let result = match &commit {
                Ok(()) => Ok(()),
                Err(e) => Err(e.clone()),
            };
            reply(result);
        }
    }
}

fn load(txn: &WriteTransaction, id: &str) -> StoreResult<Option<Job>> {
    let table = txn.open_table(JOBS).map_err(err)?;
    let value = table.get(id).map_err(err)?;
    match value {
        Some(v) => Ok(Some(serde_json::from_slice(v.value())?)),
        None => Ok(None),
    }
}

fn save(txn: &WriteTransaction, job: &Job) -> StoreResult<()> {
    let bytes = serde_json::to_vec(job)?;
    txn.open_table(JOBS)
        .map_err(err)?
        .insert(job.spec.id.as_str(), bytes.as_slice())
        .map_err(err)?;
    Ok(())
}

/// The job when `attempt` is its current, still-processing attempt (the fence).
/// Whether `job` was ended by this very finish of `attempt` (same status, same end time).
fn replayed(job: &Job, attempt: u32, finish: &Finish) -> bool {
    job.state.attempts == attempt
        && job.state.status == finish.status
        && job.state.completed_at.map(crate::service::job::timestamp)
            == Some(crate::service::job::timestamp(finish.at))
}

fn current(txn: &WriteTransaction, id: &str, attempt: u32) -> StoreResult<Option<Job>> {
    Ok(load(txn, id)?
        .filter(|j| j.state.status == Status::Processing && j.state.attempts == attempt))
}

fn push(txn: &WriteTransaction, id: &str, front: bool) -> StoreResult<()> {
    let mut queue = txn.open_table(QUEUE).map_err(err)?;
    let key = if front {
        queue
            .first()
            .map_err(err)?
            .map(|(k, _)| k.value() - 1)
            .unwrap_or(0)
    } else {
        queue
            .last()
            .map_err(err)?
            .map(|(k, _)| k.value() + 1)
            .unwrap_or(0)
    };
    queue.insert(key, id).map_err(err)?;
    Ok(())
}

fn end_job(txn: &WriteTransaction, job: &mut Job, finish: Finish) -> StoreResult<()> {
    let id = job.spec.id.clone();
    job.state.status = finish.status;
    if finish.status == Status::Completed {
        job.state.progress = 100;
    }
    job.state.error_message = finish.error_message;
    job.state.metadata = Some(finish.metadata);
    job.state.updated_at = finish.at;
    job.state.completed_at = Some(finish.at);
    save(txn, job)?;
    txn.open_table(LEASES)
        .map_err(err)?
        .remove(id.as_str())
        .map_err(err)?;
    // An ended job never runs again: its kept upload goes with the attempt's end.
    txn.open_table(INPUTS)
        .map_err(err)?
        .remove(id.as_str())
        .map_err(err)?;
    txn.open_table(FINISHED)
        .map_err(err)?
        .insert((millis(finish.at), id.as_str()), ())
        .map_err(err)?;
    if job.spec.notify_url.is_some() {
        txn.open_table(HOOKS)
            .map_err(err)?
            .insert(id.as_str(), (millis(finish.at), 0))
            .map_err(err)?;
    }
    Ok(())
}
