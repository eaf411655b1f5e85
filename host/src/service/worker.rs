//! Conversion workers: claim a job, run it in a child process, keep the lease alive, report
//! progress, finish it (fenced by the attempt number), and drain on shutdown.
//!
//! Also here: the reclaimer (jobs whose worker died go back to the queue) and the heartbeat
//! that lets `/api/v1/ready` see `quire worker` processes on Redis.

use super::isolate::{self, ChildOutcome, ChildSpec};
use super::job::{millis, Job, Status};
use super::store::{Claimed, Finish, Reclaimed};
use super::Shared;
use chrono::Utc;
use serde_json::{json, Map, Value};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// Where a job's files live. The names derive from the job id only, never from client input.
pub fn upload_path(shared: &Shared, id: &str) -> PathBuf {
    shared.config.upload_dir.join(id)
}

pub fn output_path(shared: &Shared, job: &Job) -> PathBuf {
    shared.config.output_dir.join(format!(
        "{}.{}",
        job.spec.id,
        job.spec.output_format.extension()
    ))
}

fn temp_output_path(shared: &Shared, id: &str, attempt: u32) -> PathBuf {
    shared.config.output_dir.join(format!("{id}.{attempt}.tmp"))
}

/// How often an idle worker looks at the queue when nothing wakes it (other processes'
/// jobs on Redis, reclaimed jobs).
const IDLE_POLL: Duration = Duration::from_millis(100);

/// How often a worker on Redis checks that its job still exists (a DELETE in another
/// process cancels it) and is still its attempt.
const CANCEL_POLL: Duration = Duration::from_millis(300);

/// How long a worker waits before retrying the store after an error.
const STORE_RETRY: Duration = Duration::from_millis(500);

/// How long a finished attempt keeps trying to record its end while the store is unavailable
/// (its output is ready; running it again would waste the work).
const FINISH_PERSISTENCE: Duration = Duration::from_secs(120);

/// Runs `count` worker loops until `shutdown` turns true, then drains.
pub async fn run_pool(shared: Arc<Shared>, count: usize, shutdown: watch::Receiver<bool>) {
    let mut tasks = Vec::new();
    for n in 0..count {
        let shared = shared.clone();
        let shutdown = shutdown.clone();
        tasks.push(tokio::spawn(async move {
            worker_loop(shared, n, shutdown).await
        }));
    }
    for t in tasks {
        let _ = t.await;
    }
}

async fn worker_loop(shared: Arc<Shared>, n: usize, mut shutdown: watch::Receiver<bool>) {
    shared.workers.fetch_add(1, Ordering::SeqCst);
    let mut slot = isolate::Slot::new(shared.options.child_exe.clone());
    tracing::debug!(worker = n, "worker started");
    loop {
        if *shutdown.borrow() {
            break;
        }
        let now = Utc::now();
        let lease_until = millis(now) + lease(&shared).as_millis() as i64;
        match shared.store.claim(now, lease_until).await {
            Ok(Some(claimed)) => {
                shared.job_changed(&claimed.job.spec.id);
                shared.busy.fetch_add(1, Ordering::SeqCst);
                run_job(&shared, &mut slot, claimed, shutdown.clone()).await;
                shared.busy.fetch_sub(1, Ordering::SeqCst);
            }
            Ok(None) => {
                tokio::select! {
                    _ = shared.wake_workers.notified() => {}
                    _ = tokio::time::sleep(IDLE_POLL) => {}
                    _ = shutdown.changed() => {}
                }
            }
            Err(e) => {
                if e.is_unavailable() {
                    tracing::warn!(error = %e, "cannot claim a job; retrying in 0.5 s");
                } else {
                    tracing::error!(error = %e, "cannot claim a job; retrying in 0.5 s");
                }
                tokio::select! {
                    _ = tokio::time::sleep(STORE_RETRY) => {}
                    _ = shutdown.changed() => {}
                }
            }
        }
    }
    shared.workers.fetch_sub(1, Ordering::SeqCst);
    tracing::debug!(worker = n, "worker stopped");
}

fn lease(shared: &Shared) -> Duration {
    Duration::from_secs(shared.config.job_lease_seconds)
}

/// Progress of a conversion as a job percentage: 5 once processing, up to 99 with work done;
/// 100 is set only by completion.
fn percent(done: u64, total: u64) -> u8 {
    if total == 0 {
        return 5;
    }
    let share = (done.min(total) as f64) / (total as f64);
    (5.0 + share * 90.0).floor().clamp(5.0, 99.0) as u8
}

async fn run_job(
    shared: &Arc<Shared>,
    slot: &mut isolate::Slot,
    claimed: Claimed,
    mut shutdown: watch::Receiver<bool>,
) {
    let Claimed { job, attempt } = claimed;
    let id = job.spec.id.clone();
    let started = Instant::now();
    let input = upload_path(shared, &id);
    let temp = temp_output_path(shared, &id, attempt);
    let store = &shared.store;
    let mut inline = None;
    if job.spec.input_in_store {
        match store.input(&id).await {
            Ok(Some(bytes)) => inline = Some(Arc::<[u8]>::from(bytes)),
            Ok(None) => {}
            Err(e) => {
                tracing::error!(job = %id, error = %e, "cannot read the job's upload from the store; handing the job back");
                if let Ok(true) = store.release(&id, attempt, Utc::now()).await {
                    shared.job_changed(&id);
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
                return;
            }
        }
    }
    // With an object store the input comes from it into this host's UPLOAD_DIR, removed
    // when the attempt ends whatever happens.
    let _scratch_input = match shared.storage.is_remote() && inline.is_none() {
        false => None,
        true => match shared.storage.fetch_input(&id, &input).await {
            Ok(_) => Some(ScratchFile(input.clone())),
            Err(e) => {
                tracing::error!(job = %id, error = %e, "cannot fetch the job's upload from the object store; handing the job back");
                if let Ok(true) = store.release(&id, attempt, Utc::now()).await {
                    shared.job_changed(&id);
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
                return;
            }
        },
    };
    if inline.is_none() && !input.is_file() {
        let finish = failure(
            &job,
            attempt,
            "The uploaded file is no longer available.",
            "internal",
            started,
        );
        finish_job(shared, &id, attempt, finish).await;
        return;
    }
    // The password, kept apart from the record (`Store::put_secret`), read for each attempt.
    let password = if job.spec.options.password {
        match store.secret(&id).await {
            Ok(Some(p)) => Some(super::options::Password(p)),
            Ok(None) => {
                let finish = failure(
                    &job,
                    attempt,
                    "The password of this job is no longer kept (the service restarted before the job ran, or it waited longer than FILE_TTL_HOURS); submit the file again with its password.",
                    "encrypted",
                    started,
                );
                finish_job(shared, &id, attempt, finish).await;
                return;
            }
            Err(e) => {
                tracing::error!(job = %id, error = %e, "cannot read the job's password from the store; handing the job back");
                let _ = store.release(&id, attempt, Utc::now()).await;
                tokio::time::sleep(Duration::from_secs(1)).await;
                return;
            }
        }
    } else {
        None
    };
    let referenced = job.spec.options.image_output() == crate::render::ImageOutput::Referenced;
    let temp_images = super::outputs::temp_images_dir(shared, &id, attempt);
    let spec = ChildSpec {
        password,
        options: job.spec.options.clone(),
        images_dir: referenced.then(|| temp_images.clone()),
        input,
        inline,
        output: temp.clone(),
        file_name: job.spec.file_name.clone(),
        format: job.spec.output_format.as_str().to_string(),
        chunking: job.spec.chunking.clone(),
        ocr_provider: if job.spec.use_ocr {
            job.spec.ocr_provider.clone()
        } else {
            None
        },
        timeout_secs: shared.config.conversion_timeout,
        config: shared.config.clone(),
        test_faults: shared.options.test_faults,
    };
    let cancel = Arc::new(tokio::sync::Notify::new());
    let _registered = Registered::new(shared, &id, cancel.clone());
    let (progress_tx, mut progress_rx) = watch::channel(5u8);
    let mut conversion = Box::pin(slot.run_cancellable(
        &spec,
        move |done, total| {
            let p = percent(done, total);
            progress_tx.send_if_modified(|old| {
                if p > *old {
                    *old = p;
                    true
                } else {
                    false
                }
            });
        },
        &cancel,
    ));
    // On Redis a DELETE may come from another process: look for the job now and then.
    let remote = matches!(store, super::store::Store::Redis(_));
    let mut poll = tokio::time::interval(CANCEL_POLL);
    let renew_every = lease(shared) / 3;
    let mut renew =
        tokio::time::interval_at(tokio::time::Instant::now() + renew_every, renew_every);
    // Short conversions write no progress at all: the first write waits 250 ms.
    let mut last_progress_write = Instant::now();
    let mut drain_deadline: Option<tokio::time::Instant> = None;
    let outcome = loop {
        let drain_sleep = async {
            match drain_deadline {
                Some(d) => tokio::time::sleep_until(d).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            outcome = &mut conversion => break Some(outcome),
            _ = renew.tick() => {
                let until = millis(Utc::now()) + lease(shared).as_millis() as i64;
                match store.renew(&id, attempt, until).await {
                    Ok(true) => {}
                    Ok(false) => {
                        tracing::warn!(job = %id, attempt, "lease lost (job reclaimed or deleted); stopping this attempt");
                        break None;
                    }
                    Err(e) => tracing::warn!(job = %id, error = %e, "cannot renew the lease"),
                }
            }
            _ = poll.tick(), if remote => {
                match store.get(&id).await {
                    Ok(None) => {
                        tracing::info!(job = %id, "job deleted while converting; cancelling");
                        cancel.notify_one();
                    }
                    Ok(Some(now)) if now.state.status != Status::Processing || now.state.attempts != attempt => {
                        tracing::warn!(job = %id, attempt, "attempt superseded; stopping it");
                        break None;
                    }
                    _ => {}
                }
            }
            changed = progress_rx.changed() => {
                if changed.is_ok() && last_progress_write.elapsed() >= Duration::from_millis(250) {
                    last_progress_write = Instant::now();
                    let p = *progress_rx.borrow_and_update();
                    if let Ok(true) = store.progress(&id, attempt, p, Utc::now()).await {
                        shared.job_changed(&id);
                    }
                }
            }
            _ = shutdown.changed(), if drain_deadline.is_none() => {
                if *shutdown.borrow() {
                    drain_deadline = Some(tokio::time::Instant::now()
                        + Duration::from_secs(shared.config.shutdown_grace_seconds));
                }
            }
            _ = drain_sleep => {
                tracing::info!(job = %id, "shutting down: handing the job back to the queue");
                if let Ok(true) = store.release(&id, attempt, Utc::now()).await {
                    shared.job_changed(&id);
                }
                let _ = std::fs::remove_file(&temp);
                shared.wake_workers.notify_one();
                return;
            }
        }
    };
    // Dropping `conversion` kills the child if it is still running.
    drop(conversion);
    let Some(outcome) = outcome else {
        let _ = std::fs::remove_file(&temp);
        let _ = std::fs::remove_dir_all(&temp_images);
        return;
    };
    if !matches!(outcome, ChildOutcome::Done(_)) {
        let _ = std::fs::remove_dir_all(&temp_images);
    }
    let finish = match outcome {
        ChildOutcome::Done(mut metadata) => {
            // No lease check first: if this attempt was superseded, the newer one converts the
            // same input with the same converter, so replacing its file is harmless, and the
            // fenced `finish` below refuses to record this attempt.
            let final_path = output_path(shared, &job);
            let images_placed = !referenced || {
                let dir = super::outputs::images_dir(shared, &id);
                let _ = std::fs::remove_dir_all(&dir);
                std::fs::create_dir_all(&temp_images)
                    .and_then(|_| std::fs::rename(&temp_images, &dir))
                    .is_ok()
            };
            let mut moved = if images_placed {
                std::fs::rename(&temp, &final_path)
            } else {
                Err(std::io::Error::other(
                    "the images could not be moved into place",
                ))
            };
            if moved.is_ok() && shared.storage.is_remote() {
                moved = store_output(shared, &job, attempt, &final_path, referenced).await;
            }
            if let Err(e) = moved {
                let _ = std::fs::remove_dir_all(&temp_images);
                tracing::error!(job = %id, error = %e, "cannot move the output into place");
                let _ = std::fs::remove_file(&temp);
                failure(
                    &job,
                    attempt,
                    "The converted file could not be saved.",
                    "internal",
                    started,
                )
            } else {
                let converter = metadata
                    .get("converter")
                    .and_then(Value::as_str)
                    .unwrap_or("unknown")
                    .to_string();
                shared
                    .metrics
                    .conversion(&converter, started.elapsed().as_secs_f64());
                metadata.insert("attempts".into(), json!(attempt));
                metadata.insert(
                    "elapsed_ms".into(),
                    json!(started.elapsed().as_millis() as u64),
                );
                Finish {
                    status: Status::Completed,
                    error_message: None,
                    metadata,
                    at: Utc::now(),
                }
            }
        }
        ChildOutcome::Failed { kind, message } => {
            let _ = std::fs::remove_file(&temp);
            failure(&job, attempt, &message, &kind, started)
        }
        ChildOutcome::Cancelled => {
            // The job was deleted; its child has exited, so nothing more gets written.
            let _ = store.drop_secret(&id).await;
            super::retention::remove_files(shared, &id).await;
            tracing::info!(job = %id, attempt, "job cancelled");
            return;
        }
    };
    finish_job(shared, &id, attempt, finish).await;
}

/// Sends a result placed at `final_path` (and its images) to the object store, then removes
/// the local copies: on this host they were only scratch.
async fn store_output(
    shared: &Shared,
    job: &Job,
    attempt: u32,
    final_path: &std::path::Path,
    referenced: bool,
) -> std::io::Result<()> {
    let id = &job.spec.id;
    let images = super::outputs::images_dir(shared, id);
    let name = super::job::download_name(&job.spec.file_name, job.spec.output_format);
    // The object store client gives up after a few retries (~15 s, or at once when the
    // network is down); a store that is away for longer, but less than STORE_RESULT_FOR,
    // must not fail a job whose conversion is done. The lease is renewed all along (a large
    // result, or a store that is away, can take longer than a lease), so no other worker
    // takes the job meanwhile.
    let storing = async {
        let deadline = Instant::now() + STORE_RESULT_FOR;
        let mut wait = Duration::from_millis(500);
        loop {
            let sent = shared
                .storage
                .put_output(
                    id,
                    job.spec.output_format.extension(),
                    final_path,
                    referenced.then_some(images.as_path()),
                    job.spec.output_format.content_type(),
                    &super::api::content_disposition(&name),
                )
                .await;
            match sent {
                Err(e)
                    if super::storage::is_remote_error(&e) && Instant::now() + wait < deadline =>
                {
                    tracing::warn!(job = %id, error = %e, "cannot store the result yet; retrying in {wait:?}");
                    tokio::time::sleep(wait).await;
                    wait = (wait * 2).min(Duration::from_secs(5));
                }
                other => return other,
            }
        }
    };
    tokio::pin!(storing);
    let renew_every = lease(shared) / 3;
    let mut renew =
        tokio::time::interval_at(tokio::time::Instant::now() + renew_every, renew_every);
    let sent = loop {
        tokio::select! {
            sent = &mut storing => break sent,
            _ = renew.tick() => {
                let until = millis(Utc::now()) + lease(shared).as_millis() as i64;
                if let Ok(false) = shared.store.renew(id, attempt, until).await {
                    break Err(std::io::Error::other(
                        "the attempt was superseded while its result was being stored",
                    ));
                }
            }
        }
    };
    let _ = std::fs::remove_file(final_path);
    let _ = std::fs::remove_dir_all(&images);
    if sent.is_err() {
        // A partly stored output (images without the result) is not left behind.
        let _ = shared.storage.remove_output(id).await;
    }
    sent
}

/// How long a finished conversion's result keeps being offered to an unreachable object store
/// before the job fails ("The converted file could not be saved.").
const STORE_RESULT_FOR: Duration = Duration::from_secs(120);

/// A local file removed when dropped (an input fetched from the object store).
struct ScratchFile(PathBuf);

impl Drop for ScratchFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A running conversion in [`Shared::running`], removed when the attempt ends.
struct Registered<'a> {
    shared: &'a Shared,
    id: String,
}

impl<'a> Registered<'a> {
    fn new(shared: &'a Shared, id: &str, cancel: Arc<tokio::sync::Notify>) -> Self {
        shared
            .running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.to_string(), cancel);
        Registered {
            shared,
            id: id.to_string(),
        }
    }
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        self.shared
            .running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.id);
    }
}

fn failure(job: &Job, attempt: u32, message: &str, kind: &str, started: Instant) -> Finish {
    let mut metadata: Map<String, Value> = job.state.metadata.clone().unwrap_or_default();
    metadata.insert("detected_mime".into(), json!(job.spec.mime));
    metadata.insert("input_bytes".into(), json!(job.spec.input_bytes));
    metadata.insert("error_kind".into(), json!(kind));
    metadata.insert("attempts".into(), json!(attempt));
    metadata.insert(
        "elapsed_ms".into(),
        json!(started.elapsed().as_millis() as u64),
    );
    Finish {
        status: Status::Failed,
        error_message: Some(message.to_string()),
        metadata,
        at: Utc::now(),
    }
}

/// The end of a job in the log: its converter, pages and duration; a failure at WARN with
/// its kind and message (an operator filters failures by level).
fn log_finish(id: &str, attempt: u32, finish: &Finish) {
    let m = &finish.metadata;
    let converter = m.get("converter").and_then(Value::as_str).unwrap_or("-");
    let mime = m
        .get("detected_mime")
        .and_then(Value::as_str)
        .unwrap_or("-");
    let pages = m
        .get("num_pages")
        .or_else(|| m.get("total_pages"))
        .and_then(Value::as_u64);
    let elapsed_ms = m.get("elapsed_ms").and_then(Value::as_u64).unwrap_or(0);
    match &finish.error_message {
        None => tracing::info!(job = %id, attempt, converter, mime, pages, elapsed_ms,
            status = finish.status.as_str(), "job finished"),
        Some(error) => {
            let kind = m.get("error_kind").and_then(Value::as_str).unwrap_or("-");
            tracing::warn!(job = %id, attempt, converter, mime, elapsed_ms, error_kind = kind,
                error = %error, status = finish.status.as_str(), "job failed");
        }
    }
}

async fn finish_job(shared: &Arc<Shared>, id: &str, attempt: u32, finish: Finish) {
    let give_up = Instant::now() + FINISH_PERSISTENCE;
    let recorded = loop {
        match shared.store.finish(id, attempt, &finish).await {
            Err(e) if e.is_unavailable() && Instant::now() < give_up => {
                tracing::warn!(job = %id, error = %e, "cannot record the job's end yet; retrying");
                tokio::time::sleep(STORE_RETRY).await;
            }
            other => break other,
        }
    };
    match recorded {
        Ok(true) => {
            shared.job_changed(id);
            // The job has ended: its password is forgotten now.
            if let Err(e) = shared.store.drop_secret(id).await {
                tracing::warn!(job = %id, error = %e, "cannot remove the job's password record; it expires with FILE_TTL_HOURS");
            }
            shared.metrics.job_finished(finish.status.as_str());
            shared.wake_webhooks.notify_one();
            log_finish(id, attempt, &finish);
        }
        Ok(false) => {
            // Deleted while converting (the output may have been moved into place after the
            // DELETE removed the files): nothing of it may stay.
            if let Ok(None) = shared.store.get(id).await {
                let _ = shared.store.drop_secret(id).await;
                super::retention::remove_files(shared, id).await;
                tracing::info!(job = %id, attempt, "job deleted while converting; its files removed");
            } else {
                tracing::warn!(job = %id, attempt, "attempt superseded; its result was not recorded")
            }
        }
        Err(e) => {
            tracing::error!(job = %id, error = %e, "cannot record the job's end; the lease will expire and it will run again")
        }
    }
}

/// Requeues jobs of dead workers, every half lease, until shutdown.
pub async fn run_reclaimer(shared: Arc<Shared>, mut shutdown: watch::Receiver<bool>) {
    let every = (lease(&shared) / 2).max(Duration::from_millis(500));
    loop {
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = shutdown.changed() => {}
        }
        if *shutdown.borrow() {
            break;
        }
        match shared.store.reclaim(Utc::now()).await {
            Ok(events) => {
                for e in &events {
                    shared.metrics.job_reclaimed();
                    match e {
                        Reclaimed::Requeued(id) | Reclaimed::Failed(id) => shared.job_changed(id),
                    }
                    match e {
                        Reclaimed::Requeued(id) => {
                            tracing::warn!(job = %id, "worker lost; job requeued");
                            shared.wake_workers.notify_one();
                        }
                        Reclaimed::Failed(id) => {
                            tracing::warn!(job = %id, "worker lost on the last attempt; job failed");
                            let _ = shared.store.drop_secret(id).await;
                            shared.metrics.job_finished("failed");
                            shared.wake_webhooks.notify_one();
                        }
                    }
                }
            }
            Err(e) => tracing::warn!(error = %e, "reclaim failed"),
        }
    }
}

/// Announces this process's workers to the store every few seconds (Redis readiness).
pub async fn run_heartbeat(shared: Arc<Shared>, mut shutdown: watch::Receiver<bool>) {
    loop {
        if shared.workers.load(Ordering::SeqCst) > 0 {
            if let Err(e) = shared
                .store
                .heartbeat(&shared.process_id, millis(Utc::now()))
                .await
            {
                tracing::debug!(error = %e, "heartbeat failed");
            }
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_secs(5)) => {}
            _ = shutdown.changed() => {}
        }
        if *shutdown.borrow() {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::percent;

    /// What `log_finish` writes for a finish, as the service's text log would show it.
    fn logged(finish: &super::Finish) -> String {
        use std::sync::{Arc, Mutex};
        let buf = Arc::new(Mutex::new(Vec::<u8>::new()));
        let sink = buf.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_max_level(tracing::Level::TRACE)
            .with_writer(move || SinkWriter(sink.clone()))
            .finish();
        tracing::subscriber::with_default(subscriber, || super::log_finish("j1", 1, finish));
        let out = String::from_utf8(buf.lock().unwrap().clone()).unwrap();
        out
    }

    struct SinkWriter(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl std::io::Write for SinkWriter {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn finish(error: Option<&str>) -> super::Finish {
        let mut metadata = serde_json::Map::new();
        metadata.insert("converter".into(), serde_json::json!("pdf"));
        metadata.insert("detected_mime".into(), serde_json::json!("application/pdf"));
        metadata.insert("num_pages".into(), serde_json::json!(3));
        metadata.insert("elapsed_ms".into(), serde_json::json!(42));
        if error.is_some() {
            metadata.insert("error_kind".into(), serde_json::json!("malformed"));
        }
        super::Finish {
            status: if error.is_some() {
                super::Status::Failed
            } else {
                super::Status::Completed
            },
            error_message: error.map(str::to_string),
            metadata,
            at: chrono::Utc::now(),
        }
    }

    #[test]
    fn a_finished_job_logs_its_converter_pages_and_duration() {
        let line = logged(&finish(None));
        assert!(line.contains(" INFO "), "{line}");
        for part in [
            "converter=\"pdf\"",
            "pages=3",
            "elapsed_ms=42",
            "job finished",
        ] {
            assert!(line.contains(part), "{part} missing: {line}");
        }
        assert!(!line.contains("error"), "no empty error on success: {line}");
    }

    #[test]
    fn a_failed_job_logs_at_warn_with_its_kind() {
        let line = logged(&finish(Some("The file is damaged.")));
        assert!(line.contains(" WARN "), "{line}");
        for part in [
            "error_kind=\"malformed\"",
            "The file is damaged.",
            "job failed",
        ] {
            assert!(line.contains(part), "{part} missing: {line}");
        }
    }

    #[test]
    fn progress_maps_into_5_to_99() {
        assert_eq!(percent(0, 0), 5);
        assert_eq!(percent(0, 10), 5);
        assert_eq!(percent(5, 10), 50);
        assert_eq!(percent(10, 10), 95);
        assert_eq!(percent(20, 10), 95);
    }
}
