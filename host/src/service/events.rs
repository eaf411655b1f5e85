//! Live progress: `GET /api/v1/jobs/{id}/events`, Server-Sent Events (an addition to the
//! contract).
//!
//! Each event is `event: job`, `id: <state id>`, `data: <the Job exactly as GET returns it>`:
//! one on every status change and on progress changes, the last when the job ends, then the
//! stream closes. A client that reconnects with `Last-Event-ID` gets the next state it has not
//! seen (the state it names is not sent again; if that was the final one the answer is 204,
//! which also tells a browser's `EventSource` to stop reconnecting). Comments keep an idle
//! stream alive well inside `HTTP_IDLE_TIMEOUT`.
//!
//! How a change reaches a subscriber:
//! - A [`Topic`] per watched job holds the job's latest state in a `tokio::sync::watch`
//!   channel: a subscriber that reads slower than the job changes skips intermediate states
//!   (coalescing) and can never see them out of order; its memory is one shared state, however
//!   slow it is (the state's JSON is encoded once per change, for every subscriber).
//! - Embedded store: whoever changes a job in this process (worker, reclaimer, DELETE) calls
//!   [`Shared::job_changed`]; if the job is watched, its topic re-reads the record. Reads of
//!   one topic are serialised, so each sees a state at least as new as the one before.
//! - Redis: the script that changes the job (claim, progress, release, finish, reclaim,
//!   delete; run by any `quire serve` or `quire worker` process) also bumps the job's
//!   `event_seq` and PUBLISHes the job's fields with it on one channel (`<prefix>events`,
//!   `lua/announce.lua`): the message carries exactly the state that change made, in the same
//!   round trip, so no state a reader of the store could see is skipped for lack of a message
//!   (a separate publish after the change read whatever the job had become by then and cost a
//!   round trip per change). Every API process keeps one subscription. A state is taken only with
//!   a higher `event_seq` than the last one (or the same one, from a fresh read), so a message
//!   that arrives after a newer read is dropped. Pub/sub rather than streams: the job hash is
//!   the truth and a message only carries a copy of it, so nothing needs to be kept, trimmed or
//!   expired in Redis; what a subscription misses while its connection is down is recovered by
//!   re-reading every watched job when it comes back (and every [`REFRESH_EVERY`] in any case).

use super::auth::Caller;
use super::errors::{ApiError, ErrorDetail};
use super::job::{millis, Job};
use super::Shared;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;

/// Every watched job is re-read this often, whatever notifications say.
pub const REFRESH_EVERY: Duration = Duration::from_secs(5);

/// What a subscriber may be sent.
#[derive(Clone, Debug)]
enum Snapshot {
    /// Not read yet.
    Unknown,
    /// The job was deleted (or expired): the stream ends without a final event.
    Gone,
    State(Arc<State_>),
}

#[derive(Debug)]
struct State_ {
    /// The Redis `event_seq` of the state (0 on the embedded store).
    seq: u64,
    /// Came from a read of the store (not a notification message).
    from_read: bool,
    /// The SSE `id`: names the state (updated_at, attempt, status, progress).
    event_id: String,
    /// The Job as GET returns it.
    json: Arc<str>,
    is_final: bool,
}

impl State_ {
    fn of(job: &Job, seq: u64, from_read: bool) -> State_ {
        let view = job.view();
        State_ {
            seq,
            from_read,
            event_id: format!(
                "{}-{}-{}-{}",
                millis(job.state.updated_at),
                job.state.attempts,
                job.state.status.as_str(),
                job.state.progress
            ),
            json: serde_json::to_string(&view).unwrap_or_default().into(),
            is_final: job.state.status.is_final(),
        }
    }
}

struct Topic {
    tx: watch::Sender<Snapshot>,
    /// Serialises this topic's reads of the store.
    reading: tokio::sync::Mutex<()>,
}

impl Topic {
    /// Takes `next` if it is newer than what the topic holds; true when subscribers are woken.
    fn offer(&self, next: Snapshot) -> bool {
        self.tx.send_if_modified(|current| {
            let take = match (&*current, &next) {
                (_, Snapshot::Unknown) | (Snapshot::Gone, _) => false,
                (Snapshot::Unknown, _) | (_, Snapshot::Gone) => true,
                (Snapshot::State(old), Snapshot::State(new)) => {
                    (new.seq > old.seq || (new.seq == old.seq && new.from_read))
                        && new.event_id != old.event_id
                }
            };
            if take {
                *current = next.clone();
            }
            take
        })
    }
}

/// The watched jobs of this process.
pub struct Hub {
    topics: Mutex<HashMap<String, Arc<Topic>>>,
    stop: watch::Sender<bool>,
}

impl Default for Hub {
    fn default() -> Self {
        Hub {
            topics: Mutex::default(),
            stop: watch::channel(false).0,
        }
    }
}

impl Hub {
    fn topics(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Topic>>> {
        self.topics.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn topic(&self, id: &str) -> Option<Arc<Topic>> {
        self.topics().get(id).cloned()
    }

    /// A receiver of job `id`'s states; the topic is made on first use.
    fn subscribe(&self, id: &str) -> (Arc<Topic>, watch::Receiver<Snapshot>) {
        let mut topics = self.topics();
        let topic = topics
            .entry(id.to_string())
            .or_insert_with(|| {
                Arc::new(Topic {
                    tx: watch::channel(Snapshot::Unknown).0,
                    reading: tokio::sync::Mutex::new(()),
                })
            })
            .clone();
        let rx = topic.tx.subscribe();
        (topic, rx)
    }

    /// Drops the topic of `id` once nobody watches it.
    fn release(&self, id: &str, topic: &Arc<Topic>) {
        let mut topics = self.topics();
        if topic.tx.receiver_count() == 0 {
            if let Some(t) = topics.get(id) {
                if Arc::ptr_eq(t, topic) {
                    topics.remove(id);
                }
            }
        }
    }

    /// Jobs watched now.
    pub fn watched(&self) -> usize {
        self.topics().len()
    }

    /// Ends every stream (shutdown: open streams must not hold the HTTP drain).
    pub fn close(&self) {
        let _ = self.stop.send(true);
    }
}

/// Re-reads job `id` for its topic, if it is watched.
async fn refresh(shared: &Shared, id: &str) {
    let Some(topic) = shared.events.topic(id) else {
        return;
    };
    let _reading = topic.reading.lock().await;
    match shared.store.get_for_events(id).await {
        Ok(Some((job, seq))) => {
            topic.offer(Snapshot::State(Arc::new(State_::of(&job, seq, true))));
        }
        Ok(None) => {
            topic.offer(Snapshot::Gone);
        }
        Err(e) => tracing::debug!(job = %id, error = %e, "cannot read a watched job"),
    }
}

impl Shared {
    /// Job `id` changed (status, progress, deletion): tell its subscribers in this process.
    /// On Redis the change's own script has published it to every API process already.
    pub fn job_changed(self: &Arc<Self>, id: &str) {
        if let super::store::Store::Embedded(_) = &self.store {
            if self.events.topic(id).is_some() {
                let shared = self.clone();
                let id = id.to_string();
                tokio::spawn(async move { refresh(&shared, &id).await });
            }
        }
    }
}

/// A message of the Redis channel, for this process's topics.
fn on_message(shared: &Shared, payload: &[u8]) {
    let Some((id, rest)) = super::store::redis::split_event(payload) else {
        return;
    };
    let Some(topic) = shared.events.topic(id) else {
        return;
    };
    match super::store::redis::decode_event(rest) {
        Ok(Some((job, seq))) => {
            topic.offer(Snapshot::State(Arc::new(State_::of(&job, seq, false))));
        }
        Ok(None) => {
            topic.offer(Snapshot::Gone);
        }
        Err(e) => tracing::warn!(job = %id, error = %e, "unreadable job event"),
    }
}

fn refresh_all(shared: &Arc<Shared>) {
    let ids: Vec<String> = shared.events.topics().keys().cloned().collect();
    for id in ids {
        let shared = shared.clone();
        tokio::spawn(async move { refresh(&shared, &id).await });
    }
}

/// The events' background work in an API process, until shutdown: the periodic re-read of
/// watched jobs and, on Redis, the subscription to the events channel (reconnected after an
/// outage, with every watched job re-read then).
pub async fn run(shared: Arc<Shared>, mut shutdown: watch::Receiver<bool>) {
    let listener = match &shared.store {
        super::store::Store::Redis(_) => {
            let shared = shared.clone();
            let shutdown = shutdown.clone();
            Some(tokio::spawn(listen(shared, shutdown)))
        }
        super::store::Store::Embedded(_) => None,
    };
    loop {
        tokio::select! {
            _ = tokio::time::sleep(REFRESH_EVERY) => refresh_all(&shared),
            _ = shutdown.changed() => {}
        }
        if *shutdown.borrow() {
            break;
        }
    }
    shared.events.close();
    if let Some(l) = listener {
        let _ = l.await;
    }
}

async fn listen(shared: Arc<Shared>, mut shutdown: watch::Receiver<bool>) {
    let super::store::Store::Redis(store) = &shared.store else {
        return;
    };
    let mut first = true;
    while !*shutdown.borrow() {
        let subscribed =
            tokio::time::timeout(Duration::from_secs(2), store.subscribe_events()).await;
        let mut pubsub = match subscribed {
            Ok(Ok(p)) => p,
            Ok(Err(e)) => {
                tracing::debug!(error = %e, "cannot subscribe to job events; retrying");
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(500)) => {}
                    _ = shutdown.changed() => {}
                }
                continue;
            }
            Err(_) => continue,
        };
        if !first {
            tracing::info!("job events subscription restored; re-reading watched jobs");
        }
        first = false;
        // Whatever was published while not subscribed is read from the store instead.
        refresh_all(&shared);
        let mut messages = pubsub.on_message();
        loop {
            tokio::select! {
                msg = messages.next() => match msg {
                    Some(msg) => on_message(&shared, msg.get_payload_bytes()),
                    None => break,
                },
                _ = shutdown.changed() => {
                    if *shutdown.borrow() {
                        return;
                    }
                }
            }
        }
        tracing::warn!("lost the job events subscription; reconnecting");
    }
}

/// A watch on one job's topic for a waiter inside the server (not a stream: not counted).
struct Watch {
    shared: Arc<Shared>,
    id: String,
    topic: Arc<Topic>,
    rx: Option<watch::Receiver<Snapshot>>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        drop(self.rx.take());
        self.shared.events.release(&self.id, &self.topic);
    }
}

/// Waits until job `id` has ended (`Some(true)`), is gone (`Some(false)`), or `deadline`
/// has passed (`None`), woken by the job's changes as an events stream is (the MCP
/// `convert` tool's wait; before, it read the store every 100 ms).
pub async fn until_final(
    shared: &Arc<Shared>,
    id: &str,
    deadline: tokio::time::Instant,
) -> Option<bool> {
    let (topic, rx) = shared.events.subscribe(id);
    let mut w = Watch {
        shared: shared.clone(),
        id: id.to_string(),
        topic,
        rx: Some(rx),
    };
    refresh(shared, id).await;
    let rx = w.rx.as_mut()?;
    loop {
        match &*rx.borrow_and_update() {
            Snapshot::State(s) if s.is_final => return Some(true),
            Snapshot::Gone => return Some(false),
            _ => {}
        }
        tokio::select! {
            changed = rx.changed() => if changed.is_err() { return None },
            _ = tokio::time::sleep_until(deadline) => return None,
        }
    }
}

/// One open stream: counted in `/metrics`, its topic dropped with its last subscriber.
struct Subscription {
    shared: Arc<Shared>,
    id: String,
    topic: Arc<Topic>,
    rx: Option<watch::Receiver<Snapshot>>,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        drop(self.rx.take());
        self.shared.events.release(&self.id, &self.topic);
        self.shared.metrics.stream_closed();
    }
}

/// Comments keep a stream alive: at most every 15 s, and well inside the idle timeout.
fn keep_alive_every(shared: &Shared) -> Duration {
    let idle = Duration::from_secs(shared.config.http_idle_timeout);
    (idle / 3).clamp(Duration::from_millis(500), Duration::from_secs(15))
}

#[utoipa::path(get, path = "/api/v1/jobs/{job_id}/events", tag = "jobs",
    params(
        ("job_id" = String, Path, description = "Job id"),
        ("Last-Event-ID" = Option<String>, Header, description = "The `id` of the last event received: that state is not sent again"),
    ),
    responses(
        (status = 200, description = "Server-Sent Events: `event: job`, `id`, `data:` the Job as GET returns it; on every status change and on progress changes (intermediate values may be coalesced for a slow reader, never reordered); the last one when the job ends, then the stream closes; comment lines keep it alive",
            content_type = "text/event-stream", body = String),
        (status = 204, description = "The job had ended and `Last-Event-ID` names its final state: nothing more will come"),
        (status = 401, description = "No or a wrong API key (API keys on)", body = ErrorDetail),
        (status = 404, description = "Unknown job", body = ErrorDetail),
        (status = 503, description = "The job store is unavailable; retry after `Retry-After` seconds", body = ErrorDetail, headers(("Retry-After" = u64, description = "Seconds to wait")))))]
pub async fn job_events(
    State(shared): State<Arc<Shared>>,
    caller: Caller,
    Path(job_id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    if uuid::Uuid::parse_str(&job_id).is_err() {
        return Err(ApiError::NotFound("Job not found"));
    }
    let job = shared
        .store
        .get(&job_id)
        .await?
        .filter(|j| caller.may_see(j))
        .ok_or(ApiError::NotFound("Job not found"))?;
    let last_id = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .map(|s| s.trim().to_string());
    let (topic, rx) = shared.events.subscribe(&job_id);
    shared.metrics.stream_opened();
    let sub = Subscription {
        shared: shared.clone(),
        id: job_id.clone(),
        topic,
        rx: Some(rx),
    };
    refresh(&shared, &job_id).await;
    let current = sub.rx.as_ref().and_then(|rx| rx.borrow().clone_state());
    if let Some(s) = current {
        if s.is_final && last_id.as_deref() == Some(s.event_id.as_str()) {
            return Ok(StatusCode::NO_CONTENT.into_response());
        }
    }
    if sub
        .rx
        .as_ref()
        .is_some_and(|rx| matches!(*rx.borrow(), Snapshot::Unknown))
    {
        // The store did not answer the first read: start from the record read above.
        sub.topic
            .offer(Snapshot::State(Arc::new(State_::of(&job, 0, true))));
    }
    let stop = shared.events.stop.subscribe();
    let retry = Duration::from_secs(2);
    let stream = futures::stream::unfold(
        (sub, last_id, stop, false, true),
        move |(mut sub, mut last, mut stop, done, first)| async move {
            if done {
                return None;
            }
            loop {
                if *stop.borrow() {
                    return None;
                }
                let rx = sub.rx.as_mut()?;
                let snapshot = rx.borrow_and_update().clone();
                match snapshot {
                    Snapshot::Gone => return None,
                    Snapshot::State(s) if last.as_deref() != Some(s.event_id.as_str()) => {
                        last = Some(s.event_id.clone());
                        let mut event = Event::default()
                            .event("job")
                            .id(s.event_id.clone())
                            .data(&*s.json);
                        if first {
                            event = event.retry(retry);
                        }
                        sub.shared.metrics.stream_event();
                        let finished = s.is_final;
                        return Some((
                            Ok::<_, Infallible>(event),
                            (sub, last, stop, finished, false),
                        ));
                    }
                    _ => {}
                }
                tokio::select! {
                    changed = rx.changed() => if changed.is_err() { return None },
                    _ = stop.changed() => {}
                }
            }
        },
    );
    let mut response = Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(keep_alive_every(&shared)))
        .into_response();
    response
        .headers_mut()
        .insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(response)
}

/// The OpenAPI document's description of one event of the stream (what the derive cannot
/// say): `event: job`, an `id`, `data` the Job as JSON text, and `retry` on the first.
pub fn document(mut v: serde_json::Value, prefix: &str) -> serde_json::Value {
    let path = format!("{prefix}/jobs/{{job_id}}/events");
    v["paths"][&path]["get"]["responses"]["200"]["content"] = serde_json::json!({
        "text/event-stream": {"schema": {
            "type": "object",
            "required": ["event", "id", "data"],
            "properties": {
                "event": {"type": "string", "enum": ["job"]},
                "id": {"type": "string", "description": "Names the state; send it back as Last-Event-ID to resume"},
                "data": {"type": "string", "contentMediaType": "application/json",
                    "contentSchema": {"$ref": "#/components/schemas/JobView"},
                    "description": "The Job exactly as GET /api/v1/jobs/{job_id} returns it"},
                "retry": {"type": "integer", "description": "Reconnection delay (ms), on the first event"}
            }
        }}
    });
    v
}

impl Snapshot {
    fn clone_state(&self) -> Option<Arc<State_>> {
        match self {
            Snapshot::State(s) => Some(s.clone()),
            _ => None,
        }
    }
}
