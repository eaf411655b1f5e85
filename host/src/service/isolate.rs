//! Conversions in a child process: the same binary, run as `quire __convert-child`.
//!
//! Why a process per conversion: a converter that aborts, overflows its stack, loops inside a
//! C library or allocates without bound cannot be stopped safely inside a thread. In a child it
//! fails only its own job, and the kernel enforces the limits:
//! - memory: `RLIMIT_AS` (`CONVERSION_MAX_MEMORY`, address space), set by the child on itself
//!   before it reads any input; an allocation past it fails and Rust aborts the child;
//! - time: the child gets a cooperative deadline (the converter's `ctx.check()` turns it into a
//!   clean timeout error); the parent kills the child if it is still running shortly after
//!   `CONVERSION_TIMEOUT`;
//! - orphans: `PR_SET_PDEATHSIG` kills the child when its worker dies (`kill -9` of a worker
//!   leaves no conversion running; the job is reclaimed and run again elsewhere).
//!
//! Protocol: the parent writes one line of JSON on stdin, `{"spec": <ChildSpec>, "inline_len": n}`,
//! followed by `n` raw bytes when the upload travels with it (small uploads the store keeps;
//! otherwise the child reads the file at `spec.input`). The child writes lines on
//! stdout: `progress <done> <total>` (throttled) and finally `done <metadata JSON>` or
//! `error <{"kind","message"} JSON>`. The output goes to the temporary path of the spec; the
//! worker moves it into place and records the end of the attempt (fenced by its number). Anything the child writes to
//! stderr (a panic message, "memory allocation failed") is used to explain a crash.

use crate::config::Config;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

/// The hidden subcommand name (cli.rs `Command::ConvertChild`).
pub const CHILD_SUBCOMMAND: &str = "__convert-child";

/// Extra time the parent allows past `CONVERSION_TIMEOUT` for a cooperative stop.
const KILL_GRACE: Duration = Duration::from_secs(2);

/// One conversion for the child.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChildSpec {
    /// The upload on disk; unused when `inline` is set.
    pub input: PathBuf,
    /// The upload itself, sent on the child's stdin after the spec line (not part of the JSON).
    #[serde(skip)]
    pub inline: Option<Arc<[u8]>>,
    pub output: PathBuf,
    pub file_name: String,
    /// `md`, `json` or `chunks`.
    pub format: String,
    /// The chunk options of a chunks job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunking: Option<crate::render::chunks::ChunkOptions>,
    pub ocr_provider: Option<String>,
    pub timeout_secs: u64,
    pub config: Config,
    /// Honour the fault-injection inputs (debug builds only; see `faults`).
    #[serde(default)]
    pub test_faults: bool,
    /// The job's options (issue 14).
    #[serde(default)]
    pub options: super::options::Chosen,
    /// The job's password, if it gave one: it travels in this spec line on the child's stdin,
    /// the channel of the upload itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<super::options::Password>,
    /// Where a `referenced` job's images go (a temporary folder the worker moves into place).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub images_dir: Option<PathBuf>,
}

/// The first line of a request on the child's stdin.
#[derive(Serialize, Deserialize)]
struct Request<S> {
    spec: S,
    /// Bytes of upload that follow the line.
    #[serde(default)]
    inline_len: Option<usize>,
}

/// How the child ended.
#[derive(Debug, Clone, PartialEq)]
pub enum ChildOutcome {
    Done(Map<String, Value>),
    Failed {
        kind: String,
        message: String,
    },
    /// Stopped by [`Slot::run_cancellable`]'s signal: the child was killed and has exited, so
    /// it can write nothing more.
    Cancelled,
}

/// Runs one conversion in a fresh child process (a one-job [`Slot`]).
pub async fn run(exe: &Path, spec: &ChildSpec, progress: impl FnMut(u64, u64)) -> ChildOutcome {
    Slot::new(exe.to_path_buf()).run(spec, progress).await
}

/// Conversions a child runs before it is replaced (bounds leaks in native libraries).
const JOBS_PER_CHILD: u32 = 200;

/// One worker's conversion child, kept alive between jobs.
///
/// Starting the binary costs several milliseconds (dynamic linking of the OCR and PDF
/// libraries), more than a small conversion; a child therefore serves jobs one after another
/// over its stdin/stdout. Isolation is unchanged: a child that crashes, overruns its limits or
/// must be cancelled is killed and the next job gets a fresh one. Dropping a [`Slot`] (or a
/// `run` future in flight) kills its child.
pub struct Slot {
    exe: PathBuf,
    live: Option<Live>,
}

struct Live {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    stderr_tail: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    stderr_task: tokio::task::JoinHandle<()>,
    jobs: u32,
}

impl Slot {
    pub fn new(exe: PathBuf) -> Slot {
        Slot { exe, live: None }
    }

    fn spawn(&self) -> std::io::Result<Live> {
        // The child applies its own limits (`apply_memory_limit`, `apply_death_signal`) as its
        // first act: with no `pre_exec` hook, std spawns through posix_spawn (vfork-like),
        // much cheaper than fork+exec of a multi-threaded server.
        let mut cmd = tokio::process::Command::new(&self.exe);
        cmd.arg(CHILD_SUBCOMMAND)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // glibc reserves 64 MiB of address space per malloc arena; keep that out of RLIMIT_AS.
            .env("MALLOC_ARENA_MAX", "2")
            .kill_on_drop(true);
        let mut child = cmd.spawn()?;
        let missing = || std::io::Error::other("child pipes missing");
        let stdin = child.stdin.take().ok_or_else(missing)?;
        let stdout = child.stdout.take().ok_or_else(missing)?;
        let mut stderr = child.stderr.take().ok_or_else(missing)?;
        let stderr_tail: std::sync::Arc<std::sync::Mutex<Vec<u8>>> = Default::default();
        let tail = stderr_tail.clone();
        let stderr_task = tokio::spawn(async move {
            // Keep the tail only: enough to explain a crash, bounded whatever the child prints.
            let mut buf = [0u8; 4096];
            loop {
                match stderr.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        let mut t = tail.lock().unwrap_or_else(|p| p.into_inner());
                        t.extend_from_slice(&buf[..n]);
                        if t.len() > 16 * 1024 {
                            let cut = t.len() - 8 * 1024;
                            t.drain(..cut);
                        }
                    }
                }
            }
        });
        Ok(Live {
            child,
            stdin,
            lines: BufReader::new(stdout).lines(),
            stderr_tail,
            stderr_task,
            jobs: 0,
        })
    }

    /// Runs one conversion; `progress` receives (done, total) as they arrive.
    pub async fn run(&mut self, spec: &ChildSpec, progress: impl FnMut(u64, u64)) -> ChildOutcome {
        self.run_cancellable(spec, progress, &tokio::sync::Notify::new())
            .await
    }

    /// [`Slot::run`] that stops when `cancel` is notified (a permit stored before the call
    /// counts): the child is killed and reaped before this returns [`ChildOutcome::Cancelled`].
    pub async fn run_cancellable(
        &mut self,
        spec: &ChildSpec,
        mut progress: impl FnMut(u64, u64),
        cancel: &tokio::sync::Notify,
    ) -> ChildOutcome {
        let started = Instant::now();
        let max_memory = spec.config.conversion_max_memory;
        let request = Request {
            spec,
            inline_len: spec.inline.as_ref().map(|b| b.len()),
        };
        let mut payload = match serde_json::to_vec(&request) {
            Ok(p) => p,
            Err(_) => return internal("The conversion could not be started."),
        };
        payload.push(b'\n');
        if let Some(bytes) = &spec.inline {
            payload.extend_from_slice(bytes);
        }
        // Reuse the child when it is alive; a write failure means it died idle: start another.
        let mut live = None;
        for _ in 0..2 {
            let mut candidate = match self.live.take() {
                Some(l) => l,
                None => match self.spawn() {
                    Ok(l) => l,
                    Err(e) => {
                        tracing::error!(error = %e, exe = %self.exe.display(), "cannot start the conversion process");
                        return internal("The conversion could not be started.");
                    }
                },
            };
            candidate
                .stderr_tail
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clear();
            if candidate.stdin.write_all(&payload).await.is_ok()
                && candidate.stdin.flush().await.is_ok()
            {
                live = Some(candidate);
                break;
            }
        }
        let Some(mut live) = live else {
            return internal("The conversion could not be started.");
        };
        let deadline =
            tokio::time::Instant::now() + Duration::from_secs(spec.timeout_secs) + KILL_GRACE;
        let mut outcome: Option<ChildOutcome> = None;
        let mut timed_out = false;
        loop {
            let next = tokio::select! {
                biased;
                _ = cancel.notified() => {
                    let _ = live.child.start_kill();
                    let _ = live.child.wait().await;
                    return ChildOutcome::Cancelled;
                }
                next = tokio::time::timeout_at(deadline, live.lines.next_line()) => next,
            };
            match next {
                Err(_) => {
                    timed_out = true;
                    break;
                }
                Ok(Ok(Some(line))) => {
                    if let Some(rest) = line.strip_prefix("progress ") {
                        let mut it = rest.split(' ').filter_map(|n| n.parse::<u64>().ok());
                        if let (Some(d), Some(t)) = (it.next(), it.next()) {
                            progress(d, t);
                        }
                    } else if let Some(rest) = line.strip_prefix("done ") {
                        outcome = Some(ChildOutcome::Done(
                            serde_json::from_str::<Map<String, Value>>(rest).unwrap_or_default(),
                        ));
                        break;
                    } else if let Some(rest) = line.strip_prefix("error ") {
                        outcome = Some(parse_error(rest));
                        break;
                    }
                }
                // End of output: the child died mid-job.
                Ok(_) => break,
            }
        }
        if let Some(outcome) = outcome {
            live.jobs += 1;
            match retire_reason(&live, &outcome, spec.config.conversion_child_max_rss) {
                None => self.live = Some(live),
                Some(reason) => {
                    tracing::debug!(reason, "replacing the conversion process");
                    drop(live.stdin);
                    if tokio::time::timeout(Duration::from_secs(5), live.child.wait())
                        .await
                        .is_err()
                    {
                        let _ = live.child.start_kill();
                        let _ = live.child.wait().await;
                    }
                }
            }
            return outcome;
        }
        if timed_out {
            let _ = live.child.start_kill();
            let _ = live.child.wait().await;
            return ChildOutcome::Failed {
                kind: "timeout".into(),
                message: timeout_message(spec.timeout_secs),
            };
        }
        let status = match tokio::time::timeout(Duration::from_secs(5), live.child.wait()).await {
            Ok(Ok(s)) => Some(s),
            _ => {
                let _ = live.child.start_kill();
                live.child.wait().await.ok()
            }
        };
        let _ = tokio::time::timeout(Duration::from_secs(2), &mut live.stderr_task).await;
        let stderr =
            String::from_utf8_lossy(&live.stderr_tail.lock().unwrap_or_else(|p| p.into_inner()))
                .into_owned();
        tracing::warn!(
            elapsed_ms = started.elapsed().as_millis() as u64,
            status = ?status,
            stderr = %stderr.trim(),
            "conversion process ended without a result"
        );
        explain_crash(status, &stderr, max_memory)
    }
}

/// Why a child that reported a result must not serve another job, if it must not.
fn retire_reason(live: &Live, outcome: &ChildOutcome, max_rss: u64) -> Option<&'static str> {
    if live.jobs >= JOBS_PER_CHILD {
        return Some("job count");
    }
    // A conversion stopped by its deadline was interrupted wherever it was (inside an OCR
    // engine, a PDF page): nothing it left behind is trusted for the next job.
    if matches!(outcome, ChildOutcome::Failed { kind, .. } if kind == "timeout") {
        return Some("timed out");
    }
    // A child that once grew large keeps most of that memory while idle (allocators rarely
    // return it); a fresh one starts small.
    if live
        .child
        .id()
        .and_then(peak_rss)
        .is_some_and(|peak| peak > max_rss)
    {
        return Some("memory");
    }
    None
}

/// The peak resident set of a process (`VmHWM`), in bytes.
pub fn peak_rss(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn parse_error(rest: &str) -> ChildOutcome {
    match serde_json::from_str::<Value>(rest) {
        Ok(v) => ChildOutcome::Failed {
            kind: v["kind"].as_str().unwrap_or("internal").to_string(),
            message: v["message"]
                .as_str()
                .unwrap_or("The conversion failed.")
                .to_string(),
        },
        Err(_) => internal("The conversion failed."),
    }
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

/// The child side: `quire __convert-child`. Serves one [`ChildSpec`] per stdin line until
/// stdin closes. Returns the process exit code.
pub fn run_isolated_child() -> i32 {
    use std::io::{BufRead, Read};
    // A panic's message is what the parent reads from stderr to explain a crash; a
    // backtrace (RUST_BACKTRACE in the service's environment) adds nothing the parent uses
    // and symbolising it took a debug child over 3 s, past short conversion deadlines.
    std::panic::set_hook(Box::new(|info| eprintln!("{info}")));
    let parent = std::os::unix::process::parent_id();
    apply_death_signal(parent);
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut engine: Option<crate::pipeline::Engine> = None;
    let mut input = stdin.lock();
    loop {
        let mut line = String::new();
        match input.read_line(&mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(_) => return 2,
        }
        if line.trim().is_empty() {
            continue;
        }
        let spec = match serde_json::from_str::<Request<ChildSpec>>(&line) {
            Ok(Request { spec, inline_len }) => {
                let mut spec = spec;
                if let Some(n) = inline_len {
                    let mut bytes = vec![0u8; n];
                    if input.read_exact(&mut bytes).is_err() {
                        eprintln!("quire: the upload sent with the conversion spec is truncated");
                        return 2;
                    }
                    spec.inline = Some(bytes.into());
                }
                spec
            }
            Err(e) => {
                eprintln!("quire: bad conversion spec: {e}");
                return 2;
            }
        };
        if engine.is_none() {
            if let Err(e) = apply_memory_limit(spec.config.conversion_max_memory) {
                eprintln!("quire: cannot apply the memory limit: {e}");
                return 2;
            }
            match crate::registry::Registry::from_inventory() {
                Ok(r) => {
                    let limits = quire_plugin_api::Limits {
                        max_inflated_bytes: spec.config.max_decompressed_size,
                        ..Default::default()
                    };
                    engine = Some(
                        crate::pipeline::Engine::new(r, spec.config.plugin_config())
                            .with_limits(limits),
                    )
                }
                Err(e) => {
                    eprintln!("quire: the plugin registry is inconsistent: {e}");
                    return 2;
                }
            }
        }
        let Some(engine) = engine.as_ref() else {
            return 2;
        };
        let (result, panicked) = convert_in_child(engine, &spec, &mut out);
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
        if panicked {
            // State touched by a panicking converter is not trusted for the next job.
            return 0;
        }
    }
    0
}

/// `CONVERSION_MAX_MEMORY` as the address-space limit of this process: an allocation past it
/// fails, and Rust aborts with "memory allocation of N bytes failed", which the parent reports.
fn apply_memory_limit(bytes: u64) -> std::io::Result<()> {
    let limit = libc::rlimit {
        rlim_cur: bytes as libc::rlim_t,
        rlim_max: bytes as libc::rlim_t,
    };
    // SAFETY: setrlimit with a valid, fully initialised struct.
    if unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Dies with the worker that started it: a `kill -9` of a worker leaves no conversion running.
fn apply_death_signal(parent: u32) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl(PR_SET_PDEATHSIG) takes a signal number and has no memory effects.
        unsafe {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        }
        // The parent may have died before the call above; then nobody will signal us.
        if std::os::unix::process::parent_id() != parent {
            std::process::exit(1);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = parent;
}

/// One conversion; the flag says whether a converter panicked (the child then exits).
fn convert_in_child(
    engine: &crate::pipeline::Engine,
    spec: &ChildSpec,
    out: &mut dyn Write,
) -> (Result<Map<String, Value>, quire_plugin_api::Error>, bool) {
    match convert_one(engine, spec, out) {
        Ok(Ok(m)) => (Ok(m), false),
        Ok(Err(e)) => (Err(e), false),
        Err(e) => (Err(e), true),
    }
}

/// `Err` for a panic, `Ok(result)` otherwise.
fn convert_one(
    engine: &crate::pipeline::Engine,
    spec: &ChildSpec,
    out: &mut dyn Write,
) -> Result<Result<Map<String, Value>, quire_plugin_api::Error>, quire_plugin_api::Error> {
    use crate::pipeline::{ConvertControl, ConvertRequest, OutputFormat, RenderRequest};
    use quire_plugin_api::Error;

    let deadline = Instant::now() + Duration::from_secs(spec.timeout_secs);
    let read;
    let bytes: &[u8] = match &spec.inline {
        Some(b) => b,
        None => match std::fs::read(&spec.input) {
            Ok(b) => {
                read = b;
                &read
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Err(Error::internal(
                    "The uploaded file is no longer available.",
                )))
            }
            Err(e) if e.kind() == std::io::ErrorKind::OutOfMemory => {
                return Ok(Err(Error::limit(format!(
                    "The file does not fit in the conversion's memory limit of {} MB.",
                    spec.config.conversion_max_memory >> 20
                ))))
            }
            Err(e) => {
                return Ok(Err(
                    Error::internal("The uploaded file could not be read.").with_detail(e)
                ))
            }
        },
    };
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
        super::faults::maybe_inject(bytes, &mut report);
    }
    let Some(format) = OutputFormat::parse(&spec.format) else {
        return Ok(Err(Error::internal("Unknown output format.")));
    };
    let request = ConvertRequest {
        bytes,
        file_name: &spec.file_name,
        format,
        ocr_provider: spec.ocr_provider.as_deref(),
    };
    let mut control = ConvertControl {
        deadline: Some(deadline),
        cancel: None,
        progress: Some(&mut report),
    };
    let saving = |e: std::io::Error| {
        Error::internal("The converted file could not be saved.").with_detail(e)
    };
    let file = match std::fs::File::create(&spec.output) {
        Ok(f) => f,
        Err(e) => return Ok(Err(saving(e))),
    };
    // The output streams to the file as it is rendered instead of being built whole first.
    let mut file = std::io::BufWriter::with_capacity(1 << 16, file);
    let options = spec
        .options
        .job_options(spec.password.as_ref().map(|p| p.0.clone()));
    let images = spec.options.image_output();
    if format == OutputFormat::Chunks {
        // The tokenizer loads beside the conversion (once per child).
        let tokenizer = spec.chunking.as_ref().map(|c| &c.tokenizer);
        crate::render::tokenize::preload(tokenizer.unwrap_or(&Default::default()));
    }
    let converted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let started = Instant::now();
        let converted = engine.convert_document_with(&request, &mut control, &options)?;
        let mut render = RenderRequest::of(&request);
        render.images = images;
        render.chunking = spec.chunking.as_ref();
        let mut outcome = engine.render_to(&converted, &render, started, &mut file)?;
        if let (crate::render::ImageOutput::Referenced, Some(dir)) = (images, &spec.images_dir) {
            let written = crate::render::files::write_images(&converted.document, dir)
                .map_err(|e| Error::internal("The images could not be saved.").with_detail(e))?;
            outcome
                .metadata
                .insert("images_written".into(), json!(written));
        }
        Ok(outcome)
    }))
    .map_err(|_| Error::internal("The converter failed unexpectedly while reading this file."))?;
    Ok(converted.and_then(|outcome| {
        let file = file.into_inner().map_err(|e| saving(e.into_error()))?;
        file.sync_all().map_err(saving)?;
        Ok(outcome.metadata)
    }))
}
