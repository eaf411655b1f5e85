//! Conversions in a child process: the same binary, run as `quire __convert-child`.
//!
//! Why a process per conversion: a converter that aborts, overflows its stack, loops inside a
//! C library or allocates without bound cannot be stopped safely inside a thread. In a child it
//! fails only its own job, and the kernel enforces the limits:
//! - memory: `RLIMIT_AS` (`CONVERSION_MAX_MEMORY`, address space) set in the child before
//!   `exec`; an allocation past it fails and Rust aborts the child;
//! - time: the child gets a cooperative deadline (the converter's `ctx.check()` turns it into a
//!   clean timeout error); the parent kills the child if it is still running shortly after
//!   `CONVERSION_TIMEOUT`;
//! - orphans: `PR_SET_PDEATHSIG` kills the child when its worker dies (`kill -9` of a worker
//!   leaves no conversion running; the job is reclaimed and run again elsewhere).
//!
//! Protocol: the parent writes one JSON [`ChildSpec`] on stdin. The child writes lines on
//! stdout: `progress <done> <total>` (throttled) and finally `done <metadata JSON>` or
//! `error <{"kind","message"} JSON>`. The output goes to the temporary path of the spec; the
//! worker moves it into place once the attempt is confirmed. Anything the child writes to
//! stderr (a panic message, "memory allocation failed") is used to explain a crash.

use crate::config::Config;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

/// The hidden subcommand name (cli.rs `Command::ConvertChild`).
pub const CHILD_SUBCOMMAND: &str = "__convert-child";

/// Extra time the parent allows past `CONVERSION_TIMEOUT` for a cooperative stop.
const KILL_GRACE: Duration = Duration::from_secs(2);

/// One conversion for the child.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChildSpec {
    pub input: PathBuf,
    pub output: PathBuf,
    pub file_name: String,
    /// `md` or `json`.
    pub format: String,
    pub ocr_provider: Option<String>,
    pub timeout_secs: u64,
    pub config: Config,
    /// Honour the fault-injection inputs (debug builds only; see `faults`).
    #[serde(default)]
    pub test_faults: bool,
}

/// How the child ended.
#[derive(Debug, Clone, PartialEq)]
pub enum ChildOutcome {
    Done(Map<String, Value>),
    Failed { kind: String, message: String },
}

/// Runs one conversion in a child process; `progress` receives (done, total) as they arrive.
pub async fn run(exe: &Path, spec: &ChildSpec, mut progress: impl FnMut(u64, u64)) -> ChildOutcome {
    let started = Instant::now();
    let max_memory = spec.config.conversion_max_memory;
    let mut cmd = tokio::process::Command::new(exe);
    cmd.arg(CHILD_SUBCOMMAND)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // glibc reserves 64 MiB of address space per malloc arena; keep that out of RLIMIT_AS.
        .env("MALLOC_ARENA_MAX", "2")
        .kill_on_drop(true);
    // SAFETY: the closure runs between fork and exec and calls only async-signal-safe
    // functions (setrlimit, prctl, getppid), touching no locks or allocations.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: max_memory as libc::rlim_t,
                rlim_max: max_memory as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            #[cfg(target_os = "linux")]
            {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            }
            Ok(())
        });
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            tracing::error!(error = %e, exe = %exe.display(), "cannot start the conversion process");
            return internal("The conversion could not be started.");
        }
    };
    let payload = match serde_json::to_vec(spec) {
        Ok(p) => p,
        Err(_) => return internal("The conversion could not be started."),
    };
    if let Some(mut stdin) = child.stdin.take() {
        // A child that dies before reading its spec is diagnosed from its exit status below.
        let _ = stdin.write_all(&payload).await;
        let _ = stdin.shutdown().await;
    }
    let stderr_task = child.stderr.take().map(|mut stderr| {
        tokio::spawn(async move {
            // Keep the tail only: enough to explain a crash, bounded whatever the child prints.
            let mut tail: Vec<u8> = Vec::new();
            let mut buf = [0u8; 4096];
            loop {
                match stderr.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        tail.extend_from_slice(&buf[..n]);
                        if tail.len() > 16 * 1024 {
                            tail.drain(..tail.len() - 8 * 1024);
                        }
                    }
                }
            }
            String::from_utf8_lossy(&tail).into_owned()
        })
    });
    let Some(stdout) = child.stdout.take() else {
        return internal("The conversion could not be started.");
    };
    let deadline =
        tokio::time::Instant::now() + Duration::from_secs(spec.timeout_secs) + KILL_GRACE;
    let mut lines = BufReader::new(stdout).lines();
    let mut last: Option<ChildOutcome> = None;
    let mut timed_out = false;
    loop {
        match tokio::time::timeout_at(deadline, lines.next_line()).await {
            Err(_) => {
                timed_out = true;
                let _ = child.start_kill();
                break;
            }
            Ok(Ok(Some(line))) => {
                if let Some(rest) = line.strip_prefix("progress ") {
                    let mut it = rest.split(' ').filter_map(|n| n.parse::<u64>().ok());
                    if let (Some(d), Some(t)) = (it.next(), it.next()) {
                        progress(d, t);
                    }
                } else if let Some(rest) = line.strip_prefix("done ") {
                    let metadata =
                        serde_json::from_str::<Map<String, Value>>(rest).unwrap_or_default();
                    last = Some(ChildOutcome::Done(metadata));
                } else if let Some(rest) = line.strip_prefix("error ") {
                    last = Some(match serde_json::from_str::<Value>(rest) {
                        Ok(v) => ChildOutcome::Failed {
                            kind: v["kind"].as_str().unwrap_or("internal").to_string(),
                            message: v["message"]
                                .as_str()
                                .unwrap_or("The conversion failed.")
                                .to_string(),
                        },
                        Err(_) => ChildOutcome::Failed {
                            kind: "internal".into(),
                            message: "The conversion failed.".into(),
                        },
                    });
                }
            }
            Ok(_) => break,
        }
    }
    let status = match tokio::time::timeout_at(deadline + KILL_GRACE, child.wait()).await {
        Ok(Ok(s)) => Some(s),
        _ => {
            timed_out = true;
            let _ = child.start_kill();
            child.wait().await.ok()
        }
    };
    let stderr = match stderr_task {
        Some(t) => t.await.unwrap_or_default(),
        None => String::new(),
    };
    if timed_out {
        return ChildOutcome::Failed {
            kind: "timeout".into(),
            message: timeout_message(spec.timeout_secs),
        };
    }
    if let Some(outcome) = last {
        if status.is_some_and(|s| s.success()) {
            return outcome;
        }
        if let ChildOutcome::Failed { .. } = outcome {
            return outcome;
        }
    }
    let message = explain_crash(status, &stderr, max_memory);
    tracing::warn!(
        elapsed_ms = started.elapsed().as_millis() as u64,
        status = ?status,
        stderr = %stderr.trim(),
        "conversion process ended without a result"
    );
    message
}

fn internal(message: &str) -> ChildOutcome {
    ChildOutcome::Failed {
        kind: "internal".into(),
        message: message.into(),
    }
}

fn timeout_message(secs: u64) -> String {
    format!("The conversion took longer than the limit of {secs} seconds and was stopped.")
}

/// A message for a child that ended without reporting a result.
fn explain_crash(
    status: Option<std::process::ExitStatus>,
    stderr: &str,
    max_memory: u64,
) -> ChildOutcome {
    use std::os::unix::process::ExitStatusExt;
    let mb = max_memory >> 20;
    if stderr.contains("memory allocation of")
        || stderr.contains("out of memory")
        || stderr.contains("Cannot allocate memory")
    {
        return ChildOutcome::Failed {
            kind: "limit_exceeded".into(),
            message: format!(
                "The conversion needed more memory than the limit of {mb} MB and was stopped."
            ),
        };
    }
    if stderr.contains("has overflowed its stack") {
        return ChildOutcome::Failed {
            kind: "internal".into(),
            message:
                "The converter crashed on this file (its nesting is too deep: stack overflow)."
                    .into(),
        };
    }
    let signal = status.and_then(|s| s.signal());
    let message = match (signal, status.and_then(|s| s.code())) {
        (Some(libc::SIGKILL), _) => format!(
            "The conversion was stopped by the system, probably for using more memory than allowed ({mb} MB)."
        ),
        (Some(_), _) => "The converter crashed while reading this file.".to_string(),
        (None, Some(101)) => "The converter failed unexpectedly while reading this file.".to_string(),
        (None, _) => "The conversion process stopped unexpectedly.".to_string(),
    };
    ChildOutcome::Failed {
        kind: "internal".into(),
        message,
    }
}

/// The child side: `quire __convert-child`. Returns the process exit code.
pub fn run_isolated_child() -> i32 {
    let mut input = String::new();
    if std::io::stdin().read_to_string(&mut input).is_err() {
        eprintln!("quire: the conversion spec could not be read");
        return 2;
    }
    let spec: ChildSpec = match serde_json::from_str(&input) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("quire: bad conversion spec: {e}");
            return 2;
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let result = convert_in_child(&spec, &mut out);
    let line = match result {
        Ok(metadata) => format!("done {}", Value::Object(metadata)),
        Err(e) => {
            let message = if e.kind() == quire_plugin_api::ErrorKind::Timeout {
                timeout_message(spec.timeout_secs)
            } else {
                e.message().to_string()
            };
            if let Some(detail) = e.detail() {
                eprintln!("quire: conversion error detail: {detail}");
            }
            format!(
                "error {}",
                json!({"kind": e.kind().as_str(), "message": message})
            )
        }
    };
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
    0
}

fn convert_in_child(
    spec: &ChildSpec,
    out: &mut dyn Write,
) -> Result<Map<String, Value>, quire_plugin_api::Error> {
    use crate::pipeline::{ConvertControl, ConvertRequest, Engine, OutputFormat};
    use quire_plugin_api::Error;

    let deadline = Instant::now() + Duration::from_secs(spec.timeout_secs);
    let bytes = std::fs::read(&spec.input)
        .map_err(|_| Error::internal("The uploaded file is no longer available."))?;
    let mut last_report = Instant::now() - Duration::from_secs(1);
    let mut last_done = u64::MAX;
    let mut report = |done: u64, total: u64| {
        // Throttled: at most every 50 ms, but always the last unit.
        let now = Instant::now();
        if done != last_done
            && (done >= total || now.duration_since(last_report) >= Duration::from_millis(50))
        {
            last_report = now;
            last_done = done;
            let _ = writeln!(out, "progress {done} {total}");
            let _ = out.flush();
        }
    };
    if spec.test_faults || std::env::var_os("QUIRE_TEST_FAULTS").is_some() {
        super::faults::maybe_inject(&bytes, &mut report);
    }
    let registry = crate::registry::Registry::from_inventory()
        .map_err(|e| Error::internal("The converters could not be loaded.").with_detail(e))?;
    let engine = Engine::new(registry, spec.config.plugin_config());
    let format = OutputFormat::parse(&spec.format)
        .ok_or_else(|| Error::internal("Unknown output format."))?;
    let request = ConvertRequest {
        bytes: &bytes,
        file_name: &spec.file_name,
        format,
        ocr_provider: spec.ocr_provider.as_deref(),
    };
    let mut control = ConvertControl {
        deadline: Some(deadline),
        cancel: None,
        progress: Some(&mut report),
    };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        engine.convert(&request, &mut control)
    }))
    .map_err(|_| Error::internal("The converter failed unexpectedly while reading this file."))??;
    write_output(&spec.output, &outcome.output)
        .map_err(|e| Error::internal("The converted file could not be saved.").with_detail(e))?;
    Ok(outcome.metadata)
}

fn write_output(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::File::create(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}
