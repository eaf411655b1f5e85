//! The Redis store: job hashes, a pending list and sorted sets for leases, webhook schedules,
//! finished jobs and worker heartbeats. Every state change is one Lua script (see `lua/`, each
//! documented at its top) or a MULTI block, so concurrent `quire serve` / `quire worker`
//! processes never see half a change.
//!
//! Layout under the key prefix `P` (`REDIS_KEY_PREFIX`, default `quire:`):
//! - `P job:<id>`: hash with `spec` (JSON, immutable), `status`, `progress`, `attempts`,
//!   `updated_at`, `completed_at`, `error_message`, `metadata` (JSON), `webhook` (JSON),
//!   `notify` ("1" when a webhook target exists), `hook_sent`, `hook_claims`. Expires `FILE_TTL_HOURS` after
//!   the job ends.
//!   `owner` (the tenant, when API keys are on), `event_seq` (raised by each job-events
//!   message: every script that changes what GET shows of a job publishes the change itself,
//!   `lua/announce.lua`).
//! - `P owner:<tenant>`: zset id -> created ms, the tenant's jobs (entries of expired jobs
//!   are dropped when a listing meets them); `P events`: the pub/sub channel of job changes.
//! - `P queue`: list of pending ids (front = next); `P leases`: zset id -> lease end ms;
//!   `P hooks`: zset id -> next delivery ms; `P finished`: zset id -> end ms (retention of
//!   files); `P workers`: zset worker -> last heartbeat ms.
//! - `P input:<id>`: the upload of a job that has not ended, when it is small
//!   ([`INLINE_INPUT_MAX`]); `P secret:<id>`: its password (`secrets.rs`).
//!
//! Times come from the caller's clock (ms since the epoch), as in the embedded store.

use super::link::Link;
use super::{lost_worker_message, Claimed, Delivery, Finish, Reclaimed, StoreError, StoreResult};
use crate::service::job::{timestamp, Job, JobSpec, JobState, Status, MAX_ATTEMPTS};
use chrono::{DateTime, Utc};
use redis::{AsyncCommands, Script, Value as RValue};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// Uploads up to this size travel with their job in Redis (`P input:<id>`, written by the
/// script that creates the job) instead of through `UPLOAD_DIR` or the object store. With an
/// object store this saves a PUT by the API and a GET by the worker per small job (measured
/// in ARCHITECTURE.md, issue 16); with a shared folder, a file created, synced and renamed.
/// The cost is Redis memory: at most this much per job waiting or running, so
/// `MAX_QUEUED_JOBS` bounds it (10,000 queued jobs: at most 640 MiB).
pub const INLINE_INPUT_MAX: usize = 64 * 1024;

/// A script that changes what GET shows of a job, with `lua/announce.lua` in front: it
/// publishes the change itself (its last ARGV is the events channel).
macro_rules! announcing {
    ($path:literal) => {
        concat!(include_str!("lua/announce.lua"), include_str!($path))
    };
}

struct Scripts {
    claim: Script,
    renew: Script,
    progress: Script,
    finish: Script,
    release: Script,
    reclaim: Script,
    claim_delivery: Script,
    retry_delivery: Script,
    end_delivery: Script,
    delete: Script,
    create: Script,
}

#[derive(Clone)]
pub struct RedisStore {
    link: Arc<Link>,
    prefix: String,
    retention_ms: i64,
    scripts: Arc<Scripts>,
}

impl RedisStore {
    pub async fn connect(url: &str, prefix: &str, retention: Duration) -> StoreResult<RedisStore> {
        let link = Arc::new(Link::connect(url).await?);
        Ok(RedisStore {
            link,
            prefix: prefix.to_string(),
            retention_ms: retention.as_millis().min(i64::MAX as u128) as i64,
            scripts: Arc::new(Scripts {
                claim: Script::new(announcing!("lua/claim.lua")),
                renew: Script::new(include_str!("lua/renew.lua")),
                progress: Script::new(announcing!("lua/progress.lua")),
                finish: Script::new(announcing!("lua/finish.lua")),
                release: Script::new(announcing!("lua/release.lua")),
                reclaim: Script::new(announcing!("lua/reclaim.lua")),
                claim_delivery: Script::new(include_str!("lua/claim_delivery.lua")),
                retry_delivery: Script::new(include_str!("lua/retry_delivery.lua")),
                end_delivery: Script::new(include_str!("lua/end_delivery.lua")),
                delete: Script::new(announcing!("lua/delete.lua")),
                create: Script::new(include_str!("lua/create.lua")),
            }),
        })
    }

    fn key(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }

    fn job_prefix(&self) -> String {
        self.key("job:")
    }

    fn job_key(&self, id: &str) -> String {
        format!("{}job:{id}", self.prefix)
    }

    /// `P input:<id>`: the upload of a job that has not ended, when it is at most
    /// [`INLINE_INPUT_MAX`] bytes; written with the job (`create.lua`), removed by its end
    /// (`finish.lua`, `delete.lua`, a failure in `reclaim.lua`), with `FILE_TTL_HOURS` as a
    /// backstop expiry.
    fn input_key(&self, id: &str) -> String {
        format!("{}input:{id}", self.prefix)
    }

    pub async fn input(&self, id: &str) -> StoreResult<Option<Vec<u8>>> {
        let key = self.input_key(id);
        self.link
            .run(|mut con| {
                let key = key.clone();
                async move { con.get(key).await }
            })
            .await
    }

    /// `P secret:<id>`: a job's password, apart from its record (never a field of it), with
    /// `FILE_TTL_HOURS` as a backstop expiry; deleted when the job ends (`secrets.rs`).
    fn secret_key(&self, id: &str) -> String {
        format!("{}secret:{id}", self.prefix)
    }

    pub async fn put_secret(&self, id: &str, secret: &str) -> StoreResult<()> {
        let key = self.secret_key(id);
        let ttl = self.retention_ms.max(1000) as u64;
        self.link
            .run(|mut con| {
                let key = key.clone();
                async move {
                    redis::cmd("SET")
                        .arg(key)
                        .arg(secret)
                        .arg("PX")
                        .arg(ttl)
                        .query_async::<()>(&mut con)
                        .await
                }
            })
            .await?;
        Ok(())
    }

    pub async fn secret(&self, id: &str) -> StoreResult<Option<String>> {
        let key = self.secret_key(id);
        let value: Option<String> = self
            .link
            .run(|mut con| {
                let key = key.clone();
                async move { con.get(key).await }
            })
            .await?;
        Ok(value)
    }

    pub async fn drop_secret(&self, id: &str) -> StoreResult<()> {
        let key = self.secret_key(id);
        self.link
            .run(|mut con| {
                let key = key.clone();
                async move { con.del::<_, ()>(key).await }
            })
            .await?;
        Ok(())
    }

    pub async fn ping(&self) -> StoreResult<()> {
        let _: String = self
            .link
            .run(|mut con| async move { redis::cmd("PING").query_async(&mut con).await })
            .await?;
        Ok(())
    }

    pub async fn create(&self, job: &Job, input: Option<Vec<u8>>) -> StoreResult<()> {
        let spec = serde_json::to_string(&job.spec)?;
        let notify = if job.spec.notify_url.is_some() {
            "1"
        } else {
            "0"
        };
        let mut pipe = redis::pipe();
        pipe.atomic()
            .hset_multiple(
                self.job_key(&job.spec.id),
                &[
                    ("spec", spec.as_str()),
                    ("status", job.state.status.as_str()),
                    ("progress", &job.state.progress.to_string()),
                    ("attempts", &job.state.attempts.to_string()),
                    ("updated_at", &timestamp(job.state.updated_at)),
                    ("notify", notify),
                ],
            )
            .ignore()
            .rpush(self.key("queue"), &job.spec.id)
            .ignore();
        if let Some(bytes) = &input {
            pipe.cmd("SET")
                .arg(self.input_key(&job.spec.id))
                .arg(&bytes[..])
                .arg("PX")
                .arg(self.retention_ms.max(1000))
                .ignore();
        }
        let pipe = &pipe;
        self.link
            .run(|mut con| async move { pipe.query_async::<()>(&mut con).await })
            .await
    }

    pub async fn get(&self, id: &str) -> StoreResult<Option<Job>> {
        let fields: Vec<(String, String)> = self
            .link
            .run(|mut con| async move { con.hgetall(self.job_key(id)).await })
            .await?;
        decode(&fields)
    }

    pub async fn delete(&self, id: &str) -> StoreResult<Option<Job>> {
        let fields: Vec<String> = self
            .link
            .run(|mut con| async move {
                self.scripts
                    .delete
                    .key(self.job_key(id))
                    .key(self.key("leases"))
                    .key(self.key("hooks"))
                    .key(self.key("finished"))
                    .key(self.input_key(id))
                    .arg(id)
                    .arg(self.key("owner:"))
                    .arg(self.key("events"))
                    .invoke_async(&mut con)
                    .await
            })
            .await?;
        decode(&pairs(fields))
    }

    pub async fn create_bounded(
        &self,
        job: &Job,
        input: Option<Vec<u8>>,
        max_queued: Option<u64>,
    ) -> StoreResult<bool> {
        let spec = serde_json::to_string(&job.spec)?;
        let notify = if job.spec.notify_url.is_some() {
            "1"
        } else {
            "0"
        };
        let mut fields: Vec<(&str, String)> = vec![
            ("spec", spec),
            ("status", job.state.status.as_str().to_string()),
            ("progress", job.state.progress.to_string()),
            ("attempts", job.state.attempts.to_string()),
            ("updated_at", timestamp(job.state.updated_at)),
            ("notify", notify.to_string()),
        ];
        if let Some(owner) = &job.owner {
            fields.push(("owner", owner.clone()));
        }
        let owner_key = self.key(&format!("owner:{}", job.owner.as_deref().unwrap_or("")));
        let created: i64 = self
            .link
            .run(|mut con| async move {
                let mut call = self.scripts.create.prepare_invoke();
                call.key(self.job_key(&job.spec.id))
                    .key(self.key("queue"))
                    .key(&owner_key)
                    .key(self.input_key(&job.spec.id))
                    .arg(max_queued.unwrap_or(0))
                    .arg(&job.spec.id)
                    .arg(job.spec.created_at.timestamp_millis())
                    .arg(if job.owner.is_some() { "1" } else { "0" })
                    .arg(if input.is_some() { "1" } else { "0" })
                    .arg(input.as_deref().unwrap_or_default())
                    .arg(self.retention_ms.max(1000));
                for (k, v) in &fields {
                    call.arg(*k).arg(v);
                }
                call.invoke_async(&mut con).await
            })
            .await?;
        Ok(created == 1)
    }

    pub async fn finished_since(&self, since_ms: i64) -> StoreResult<u64> {
        self.link
            .run(|mut con| async move { con.zcount(self.key("finished"), since_ms, "+inf").await })
            .await
    }

    pub async fn list_owned(
        &self,
        owner: &str,
        before: Option<(i64, String)>,
        status: Option<Status>,
        limit: usize,
    ) -> StoreResult<(Vec<Job>, Option<(i64, String)>)> {
        const BATCH: usize = 200;
        let index = self.key(&format!("owner:{owner}"));
        let max = before
            .as_ref()
            .map(|(ms, _)| ms.to_string())
            .unwrap_or_else(|| "+inf".into());
        let mut out = Vec::new();
        let mut offset = 0usize;
        loop {
            let (index, max) = (&index, &max);
            let page: Vec<(String, f64)> = self
                .link
                .run(|mut con| async move {
                    redis::cmd("ZREVRANGEBYSCORE")
                        .arg(index)
                        .arg(max)
                        .arg("-inf")
                        .arg("WITHSCORES")
                        .arg("LIMIT")
                        .arg(offset)
                        .arg(BATCH)
                        .query_async(&mut con)
                        .await
                })
                .await?;
            let fetched = page.len();
            offset += fetched;
            let page: Vec<(String, i64)> = page
                .into_iter()
                .map(|(id, score)| (id, score as i64))
                .filter(|(id, ms)| match &before {
                    // Same millisecond as the cursor: only ids after it in the order.
                    Some((cms, cid)) => ms < cms || (ms == cms && id < cid),
                    None => true,
                })
                .collect();
            let mut pipe = redis::pipe();
            for (id, _) in &page {
                pipe.hgetall(self.job_key(id));
            }
            let records: Vec<Vec<(String, String)>> = if page.is_empty() {
                Vec::new()
            } else {
                let pipe = &pipe;
                self.link
                    .run(|mut con| async move { pipe.query_async(&mut con).await })
                    .await?
            };
            let mut gone = Vec::new();
            for ((id, ms), fields) in page.iter().zip(records) {
                let Some(job) = decode(&fields)? else {
                    gone.push(id.clone());
                    continue;
                };
                if status.is_some_and(|s| s != job.state.status) {
                    continue;
                }
                out.push(job);
                if out.len() == limit {
                    self.forget_owned(index, gone).await;
                    return Ok((out, Some((*ms, id.clone()))));
                }
            }
            self.forget_owned(index, gone).await;
            if fetched < BATCH {
                return Ok((out, None));
            }
        }
    }

    /// Drops index entries of jobs that expired (best effort: a listing skips them anyway).
    async fn forget_owned(&self, index: &str, gone: Vec<String>) {
        if gone.is_empty() {
            return;
        }
        let _: StoreResult<i64> = self
            .link
            .run(|mut con| async move { con.zrem(index, gone).await })
            .await;
    }

    pub async fn get_with_seq(&self, id: &str) -> StoreResult<Option<(Job, u64)>> {
        let fields: Vec<(String, String)> = self
            .link
            .run(|mut con| async move { con.hgetall(self.job_key(id)).await })
            .await?;
        Ok(decode(&fields)?.map(|job| (job, event_seq(&fields))))
    }

    /// A dedicated connection subscribed to the job-events channel.
    pub async fn subscribe_events(&self) -> StoreResult<redis::aio::PubSub> {
        let mut pubsub = self.link.client().get_async_pubsub().await?;
        pubsub.subscribe(self.key("events")).await?;
        Ok(pubsub)
    }

    pub async fn claim(
        &self,
        now: DateTime<Utc>,
        lease_until_ms: i64,
    ) -> StoreResult<Option<Claimed>> {
        let reply: RValue = self
            .link
            .run(|mut con| async move {
                self.scripts
                    .claim
                    .key(self.key("queue"))
                    .key(self.key("leases"))
                    .arg(self.job_prefix())
                    .arg(timestamp(now))
                    .arg(lease_until_ms)
                    .arg(self.key("events"))
                    .invoke_async(&mut con)
                    .await
            })
            .await?;
        let items = match reply {
            RValue::Array(items) => items,
            _ => return Ok(None),
        };
        let mut iter = items.into_iter();
        let attempt: u32 = match iter.next() {
            Some(v) => redis::from_redis_value(&v)?,
            None => return Ok(None),
        };
        let rest: Vec<String> = iter
            .map(|v| redis::from_redis_value(&v))
            .collect::<Result<_, _>>()?;
        match decode(&pairs(rest))? {
            Some(job) => Ok(Some(Claimed { job, attempt })),
            None => Err(StoreError::Failed(
                "redis: claimed a job without a record".into(),
            )),
        }
    }

    pub async fn renew(&self, id: &str, attempt: u32, lease_until_ms: i64) -> StoreResult<bool> {
        let ok: i64 = self
            .link
            .run(|mut con| async move {
                self.scripts
                    .renew
                    .key(self.job_key(id))
                    .key(self.key("leases"))
                    .arg(attempt)
                    .arg(lease_until_ms)
                    .arg(id)
                    .invoke_async(&mut con)
                    .await
            })
            .await?;
        Ok(ok == 1)
    }

    pub async fn progress(
        &self,
        id: &str,
        attempt: u32,
        percent: u8,
        now: DateTime<Utc>,
    ) -> StoreResult<bool> {
        let ok: i64 = self
            .link
            .run(|mut con| async move {
                self.scripts
                    .progress
                    .key(self.job_key(id))
                    .arg(attempt)
                    .arg(percent)
                    .arg(timestamp(now))
                    .arg(id)
                    .arg(self.key("events"))
                    .invoke_async(&mut con)
                    .await
            })
            .await?;
        Ok(ok == 1)
    }

    pub async fn finish(&self, id: &str, attempt: u32, finish: &Finish) -> StoreResult<bool> {
        let metadata = serde_json::to_string(&finish.metadata)?;
        let ok: i64 = self
            .link
            .run(|mut con| async move {
                self.scripts
                    .finish
                    .key(self.job_key(id))
                    .key(self.key("leases"))
                    .key(self.key("finished"))
                    .key(self.key("hooks"))
                    .key(self.input_key(id))
                    .arg(attempt)
                    .arg(finish.status.as_str())
                    .arg(finish.error_message.as_deref().unwrap_or(""))
                    .arg(metadata)
                    .arg(timestamp(finish.at))
                    .arg(finish.at.timestamp_millis())
                    .arg(self.retention_ms)
                    .arg(id)
                    .arg(self.key("events"))
                    .invoke_async(&mut con)
                    .await
            })
            .await?;
        Ok(ok == 1)
    }

    pub async fn release(&self, id: &str, attempt: u32, now: DateTime<Utc>) -> StoreResult<bool> {
        let ok: i64 = self
            .link
            .run(|mut con| async move {
                self.scripts
                    .release
                    .key(self.job_key(id))
                    .key(self.key("leases"))
                    .key(self.key("queue"))
                    .arg(attempt)
                    .arg(timestamp(now))
                    .arg(id)
                    .arg(self.key("events"))
                    .invoke_async(&mut con)
                    .await
            })
            .await?;
        Ok(ok == 1)
    }

    pub async fn reclaim(&self, now: DateTime<Utc>) -> StoreResult<Vec<Reclaimed>> {
        let out: Vec<String> = self
            .link
            .run(|mut con| async move {
                self.scripts
                    .reclaim
                    .key(self.key("leases"))
                    .key(self.key("queue"))
                    .key(self.key("finished"))
                    .key(self.key("hooks"))
                    .arg(now.timestamp_millis())
                    .arg(timestamp(now))
                    .arg(self.job_prefix())
                    .arg(MAX_ATTEMPTS)
                    .arg(lost_worker_message())
                    .arg(self.retention_ms)
                    .arg(self.key("input:"))
                    .arg(self.key("events"))
                    .invoke_async(&mut con)
                    .await
            })
            .await?;
        Ok(out
            .into_iter()
            .filter_map(|s| {
                let (tag, id) = s.split_at_checked(1)?;
                match tag {
                    "R" => Some(Reclaimed::Requeued(id.to_string())),
                    "F" => Some(Reclaimed::Failed(id.to_string())),
                    _ => None,
                }
            })
            .collect())
    }

    pub async fn queue_depth(&self) -> StoreResult<u64> {
        self.link
            .run(|mut con| async move { con.llen(self.key("queue")).await })
            .await
    }

    pub async fn claim_delivery(
        &self,
        now_ms: i64,
        lease_until_ms: i64,
    ) -> StoreResult<Option<Delivery>> {
        let reply: Option<(String, u32, u32, Vec<String>)> = self
            .link
            .run(|mut con| async move {
                self.scripts
                    .claim_delivery
                    .key(self.key("hooks"))
                    .arg(now_ms)
                    .arg(lease_until_ms)
                    .arg(self.job_prefix())
                    .invoke_async(&mut con)
                    .await
            })
            .await?;
        let Some((job_id, sent, unrecorded, flat)) = reply else {
            return Ok(None);
        };
        Ok(Some(Delivery {
            job_id,
            sent,
            unrecorded,
            job: decode(&pairs(flat))?,
        }))
    }

    pub async fn retry_delivery(
        &self,
        job_id: &str,
        sent: u32,
        due_ms: i64,
        outcome: &Value,
    ) -> StoreResult<()> {
        let _: i64 = self
            .link
            .run(|mut con| async move {
                self.scripts
                    .retry_delivery
                    .key(self.key("hooks"))
                    .key(self.job_key(job_id))
                    .arg(sent)
                    .arg(due_ms)
                    .arg(outcome.to_string())
                    .arg(job_id)
                    .invoke_async(&mut con)
                    .await
            })
            .await?;
        Ok(())
    }

    pub async fn end_delivery(&self, job_id: &str, outcome: &Value) -> StoreResult<()> {
        let _: i64 = self
            .link
            .run(|mut con| async move {
                self.scripts
                    .end_delivery
                    .key(self.key("hooks"))
                    .key(self.job_key(job_id))
                    .arg(outcome.to_string())
                    .arg(job_id)
                    .invoke_async(&mut con)
                    .await
            })
            .await?;
        Ok(())
    }

    pub async fn pending_deliveries(&self) -> StoreResult<u64> {
        self.link
            .run(|mut con| async move { con.zcard(self.key("hooks")).await })
            .await
    }

    pub async fn expired(&self, before_ms: i64, limit: usize) -> StoreResult<Vec<String>> {
        let ids: Vec<String> = self
            .link
            .run(|mut con| async move {
                redis::cmd("ZRANGEBYSCORE")
                    .arg(self.key("finished"))
                    .arg("-inf")
                    .arg(format!("({before_ms}"))
                    .arg("LIMIT")
                    .arg(0)
                    .arg(limit)
                    .query_async(&mut con)
                    .await
            })
            .await?;
        Ok(ids)
    }

    pub async fn heartbeat(&self, worker: &str, now_ms: i64) -> StoreResult<()> {
        let _: () = self
            .link
            .run(|mut con| async move {
                redis::pipe()
                    .zadd(self.key("workers"), worker, now_ms)
                    .ignore()
                    .cmd("ZREMRANGEBYSCORE")
                    .arg(self.key("workers"))
                    .arg("-inf")
                    .arg(now_ms - 3_600_000)
                    .ignore()
                    .query_async(&mut con)
                    .await
            })
            .await?;
        Ok(())
    }

    pub async fn live_workers(&self, since_ms: i64) -> StoreResult<u64> {
        self.link
            .run(|mut con| async move { con.zcount(self.key("workers"), since_ms, "+inf").await })
            .await
    }
}

/// `<id>` and the rest of a job-events message.
pub fn split_event(payload: &[u8]) -> Option<(&str, &[u8])> {
    let nl = payload.iter().position(|b| *b == b'\n')?;
    let id = std::str::from_utf8(&payload[..nl]).ok()?;
    Some((id, &payload[nl + 1..]))
}

/// The job and its `event_seq` from the rest of a job-events message (`None`: the job is gone).
pub fn decode_event(rest: &[u8]) -> StoreResult<Option<(Job, u64)>> {
    if rest.is_empty() {
        return Ok(None);
    }
    let flat: Vec<String> = serde_json::from_slice(rest)?;
    let fields = pairs(flat);
    Ok(decode(&fields)?.map(|job| (job, event_seq(&fields))))
}

fn event_seq(fields: &[(String, String)]) -> u64 {
    fields
        .iter()
        .find(|(k, _)| k == "event_seq")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0)
}

fn pairs(flat: Vec<String>) -> Vec<(String, String)> {
    let mut out = Vec::with_capacity(flat.len() / 2);
    let mut iter = flat.into_iter();
    while let (Some(k), Some(v)) = (iter.next(), iter.next()) {
        out.push((k, v));
    }
    out
}

fn parse_time(s: &str) -> StoreResult<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| StoreError::Failed(format!("corrupt timestamp {s:?}: {e}")))
}

/// A job from its hash fields; `None` for an empty hash (no such job).
fn decode(fields: &[(String, String)]) -> StoreResult<Option<Job>> {
    if fields.is_empty() {
        return Ok(None);
    }
    let get = |name: &str| {
        fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let Some(spec) = get("spec") else {
        // A hash without a spec is the remnant of a job deleted mid-update.
        return Ok(None);
    };
    let spec: JobSpec = serde_json::from_str(spec)?;
    let status = get("status")
        .and_then(Status::parse)
        .ok_or_else(|| StoreError::Failed("corrupt job status".into()))?;
    let state = JobState {
        status,
        progress: get("progress").and_then(|p| p.parse().ok()).unwrap_or(0),
        attempts: get("attempts").and_then(|p| p.parse().ok()).unwrap_or(0),
        updated_at: match get("updated_at") {
            Some(t) => parse_time(t)?,
            None => spec.created_at,
        },
        completed_at: get("completed_at").map(parse_time).transpose()?,
        error_message: get("error_message").map(str::to_string),
        metadata: get("metadata").map(serde_json::from_str).transpose()?,
        webhook: get("webhook").map(serde_json::from_str).transpose()?,
    };
    let owner = get("owner").map(str::to_string);
    Ok(Some(Job { spec, state, owner }))
}
