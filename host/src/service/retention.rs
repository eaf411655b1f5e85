//! Retention: `FILE_TTL_HOURS` after a job ends, its upload, its output and its record go.
//!
//! The store lists finished jobs by end time (Redis also expires the record itself); the
//! sweeper removes their files and the record. A second pass removes files nobody owns any
//! more (a result of a job deleted mid-conversion, a temporary file of a killed worker) once
//! they are older than the retention period.

use super::job::millis;
use super::Shared;
use chrono::Utc;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use tokio::sync::watch;

/// Runs the sweeper until shutdown: every quarter of the retention period, at most a minute.
pub async fn run_sweeper(shared: Arc<Shared>, mut shutdown: watch::Receiver<bool>) {
    let every =
        (shared.config.file_ttl() / 4).clamp(Duration::from_millis(500), Duration::from_secs(60));
    loop {
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = shutdown.changed() => {}
        }
        if *shutdown.borrow() {
            break;
        }
        if let Err(e) = sweep(&shared).await {
            tracing::warn!(error = %e, "retention sweep failed");
        }
    }
}

/// One pass; returns the number of jobs removed.
pub async fn sweep(shared: &Shared) -> Result<usize, super::store::StoreError> {
    let ttl = chrono::Duration::from_std(shared.config.file_ttl()).unwrap_or(chrono::Duration::MAX);
    let before = millis(Utc::now() - ttl);
    let mut removed = 0;
    loop {
        let ids = shared.store.expired(before, 500).await?;
        if ids.is_empty() {
            break;
        }
        for id in &ids {
            let _ = shared.store.drop_secret(id).await;
            remove_files(shared, id).await;
            shared.store.delete(id).await?;
            removed += 1;
        }
        if ids.len() < 500 {
            break;
        }
    }
    sweep_orphans(shared).await;
    if removed > 0 {
        tracing::info!(removed, "retention: expired jobs removed");
    }
    Ok(removed)
}

/// Removes every file named after job `id` (upload, outputs, temporaries), and its objects
/// when they live in an object store.
pub async fn remove_files(shared: &Shared, id: &str) {
    if let Err(e) = shared.storage.remove(id).await {
        tracing::warn!(job = %id, error = %e, "cannot remove the job's objects; the orphan sweep retries");
    }
    remove_local_files(shared, id);
}

fn remove_local_files(shared: &Shared, id: &str) {
    let _ = std::fs::remove_file(shared.config.upload_dir.join(id));
    for dir in [&shared.config.output_dir, &shared.config.upload_dir] {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with(id) && name[id.len()..].starts_with('.') {
                // `<id>.images` of a `referenced` result is a folder.
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    let _ = std::fs::remove_dir_all(entry.path());
                } else {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
    }
}

async fn sweep_orphans(shared: &Shared) {
    let ttl = shared.config.file_ttl();
    // Objects of jobs nobody owns any more (their record expired in Redis, or a removal
    // failed): the whole job prefix goes once its objects are older than the retention period.
    match shared.storage.old_jobs(ttl).await {
        Ok(ids) => {
            for id in ids {
                if let Ok(None) = shared.store.get(&id).await {
                    if let Err(e) = shared.storage.remove(&id).await {
                        tracing::warn!(job = %id, error = %e, "cannot remove orphaned objects");
                    }
                }
            }
        }
        Err(e) => tracing::warn!(error = %e, "cannot list the object store for orphans"),
    }
    for dir in [
        shared.config.upload_dir.clone(),
        shared.config.output_dir.clone(),
    ] {
        for (path, name) in old_files(&dir, ttl) {
            let temporary = name.ends_with(".tmp") || name.ends_with(".part");
            let id = name.split('.').next().unwrap_or_default();
            let remove = match shared.store.get(id).await {
                // Nobody owns it: a job deleted mid-conversion, or never created.
                Ok(None) => true,
                // Old temporaries belong to dead attempts or aborted uploads; a live job's
                // own files stay however old they are (a long queue is not an expiry).
                Ok(Some(_)) => temporary,
                Err(_) => false,
            };
            if remove {
                if path.is_dir() {
                    let _ = std::fs::remove_dir_all(&path);
                } else {
                    let _ = std::fs::remove_file(&path);
                }
            }
        }
    }
}

fn old_files(dir: &Path, ttl: Duration) -> Vec<(std::path::PathBuf, String)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let now = SystemTime::now();
    entries
        .flatten()
        .filter_map(|e| {
            let meta = e.metadata().ok()?;
            let age = now.duration_since(meta.modified().ok()?).ok()?;
            ((meta.is_file() || meta.is_dir()) && age > ttl)
                .then(|| (e.path(), e.file_name().to_string_lossy().into_owned()))
        })
        .collect()
}
