//! Backpressure (an addition to the contract): with `MAX_QUEUED_JOBS` set, `POST /api/v1/jobs`
//! answers 429 with `Retry-After` once that many jobs wait for a worker, and stores nothing.
//!
//! The bound is checked twice: before the upload is read (a full queue costs the client no
//! upload and the server no disk), and again in the store's create itself, atomically with the
//! insert (`Store::create_bounded`), so concurrent creates can never pass it. `Retry-After` is
//! the time the workers took, at the rate jobs ended over the last minute (all processes, read
//! from the store), to free one place: `ceil((queued - max + 1) / rate)`, from 1 to 600 s, or 60 s
//! when no job ended in the last minute.

use super::errors::ApiError;
use super::job::{millis, Job};
use super::Shared;
use chrono::Utc;

/// The window of the completion rate.
const RATE_WINDOW_MS: i64 = 60_000;

/// Refuses a create before its upload is read when the queue is already full.
pub async fn admit(shared: &Shared) -> Result<(), ApiError> {
    let Some(max) = shared.config.max_queued_jobs else {
        return Ok(());
    };
    let depth = shared.store.queue_depth().await?;
    if depth >= max {
        return Err(refusal(shared, depth, max).await);
    }
    Ok(())
}

/// Stores and queues a new job within `MAX_QUEUED_JOBS`; a refusal stores nothing.
pub async fn create(shared: &Shared, job: &Job, input: Option<Vec<u8>>) -> Result<(), ApiError> {
    let max = shared.config.max_queued_jobs;
    if shared.store.create_bounded(job, input, max).await? {
        return Ok(());
    }
    let max = max.unwrap_or(u64::MAX);
    let depth = shared.store.queue_depth().await.unwrap_or(max);
    Err(refusal(shared, depth.max(max), max).await)
}

async fn refusal(shared: &Shared, depth: u64, max: u64) -> ApiError {
    shared.metrics.job_refused("queue_full");
    let since = millis(Utc::now()) - RATE_WINDOW_MS;
    let ended = shared.store.finished_since(since).await.unwrap_or(0);
    let wait = retry_after(depth, max, ended);
    ApiError::TooManyRequests(
        format!("Too many jobs are waiting ({depth} of at most {max}); retry in {wait} s"),
        wait,
    )
}

/// Seconds until one place is free, at `ended` jobs per [`RATE_WINDOW_MS`].
pub fn retry_after(depth: u64, max: u64, ended: u64) -> u64 {
    if ended == 0 {
        return 60;
    }
    let excess = depth.saturating_sub(max) + 1;
    let per_sec = ended as f64 / (RATE_WINDOW_MS as f64 / 1000.0);
    ((excess as f64 / per_sec).ceil() as u64).clamp(1, 600)
}

#[cfg(test)]
mod tests {
    use super::retry_after;

    #[test]
    fn retry_after_follows_the_completion_rate() {
        // 120 jobs a minute = 2 a second: one place is free in half a second -> 1 s.
        assert_eq!(retry_after(50, 50, 120), 1);
        // 6 a minute, 5 over the bound: 6 places needed at 0.1/s.
        assert_eq!(retry_after(55, 50, 6), 60);
        assert_eq!(retry_after(50, 50, 6), 10);
        // Nothing ended lately: a minute.
        assert_eq!(retry_after(50, 50, 0), 60);
        // Never more than 10 minutes.
        assert_eq!(retry_after(5000, 50, 1), 600);
    }
}
