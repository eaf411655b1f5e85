//! The job service: `quire serve` (HTTP API + in-process workers) and `quire worker`
//! (workers only, against Redis).
//!
//! Map:
//! - [`api`], [`upload`], [`errors`], [`openapi`]: HTTP (axum), the streamed upload, the error
//!   shapes of the interface, the OpenAPI document and `/docs`;
//! - [`job`]: the job record and its public view;
//! - [`store`]: the job store and queue (embedded redb or Redis), with leases and fencing;
//! - [`worker`]: claim → convert in a child ([`isolate`]) → finish; reclaimer, heartbeat;
//! - [`webui`]: the web page at `/` (static files compiled in);
//! - [`webhook`]: the delivery dispatcher; [`retention`]: the sweeper; [`metrics`];
//! - [`events`]: live progress (SSE); [`auth`]: API keys, tenants, the per-key rate limit;
//!   [`backpressure`]: `MAX_QUEUED_JOBS`;
//! - [`storage`]: uploads and results in the local folders or an S3-compatible bucket.
//!
//! Every background loop takes a shutdown signal; SIGTERM stops intake, lets running jobs
//! finish within `SHUTDOWN_GRACE_SECONDS` and hands back the rest.

pub mod api;
pub mod auth;
pub mod backpressure;
pub mod errors;
pub mod events;
mod faults;
pub mod http;
pub mod isolate;
pub mod job;
pub mod metrics;
pub mod openapi;
pub mod options;
pub mod outputs;
pub mod page_count;
pub mod retention;
pub mod storage;
pub mod store;
pub mod upload;
pub mod webhook;
pub mod webui;
pub mod worker;

pub use isolate::run_isolated_child;

use crate::config::{Config, LogFormat};
use crate::registry::Registry;
use anyhow::Context as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;
use std::time::Instant;
use store::Store;
use tokio::sync::{watch, Notify};
use tokio::task::JoinHandle;

/// Settings that are not configuration: how this process runs conversions.
#[derive(Debug, Clone)]
pub struct Options {
    /// The binary that runs `__convert-child` (normally this one).
    pub child_exe: PathBuf,
    /// Let conversion children honour fault-injection inputs (debug builds only).
    pub test_faults: bool,
    /// Conversion workers in this process (`None`: `WORKERS`).
    pub workers: Option<usize>,
}

impl Options {
    pub fn from_env() -> anyhow::Result<Options> {
        Ok(Options {
            child_exe: std::env::current_exe().context("cannot locate the quire binary")?,
            test_faults: false,
            workers: None,
        })
    }
}

/// What every handler and background task shares.
pub struct Shared {
    pub config: Config,
    pub options: Options,
    pub store: Store,
    /// Where uploads and results live between hosts (`STORAGE_URL`).
    pub storage: storage::Storage,
    pub registry: Registry,
    pub metrics: metrics::Metrics,
    pub wake_workers: Notify,
    pub wake_webhooks: Notify,
    /// Worker loops running in this process.
    pub workers: AtomicUsize,
    /// Workers converting now.
    pub busy: AtomicUsize,
    pub started: Instant,
    /// Identifies this process in worker heartbeats.
    pub process_id: String,
    /// Conversions running in this process, by job id; notifying one cancels it.
    pub running: std::sync::Mutex<std::collections::HashMap<String, Arc<Notify>>>,
    /// API keys (hashes only) and the per-key rate limit.
    pub auth: auth::Auth,
    /// Live-progress subscribers of this process.
    pub events: events::Hub,
}

impl Shared {
    /// Cancels the conversion of job `id` if it runs in this process (a DELETE): its child is
    /// killed and the worker removes what it wrote. Other processes notice by polling.
    pub fn cancel_local(&self, id: &str) -> bool {
        let running = self.running.lock().unwrap_or_else(|p| p.into_inner());
        match running.get(id) {
            Some(cancel) => {
                cancel.notify_one();
                true
            }
            None => false,
        }
    }
}

impl Shared {
    async fn new(mut config: Config, options: Options) -> anyhow::Result<Arc<Shared>> {
        let auth = auth::Auth::from_config(&config).map_err(|e| anyhow::anyhow!("{e}"))?;
        // From here on the keys exist only as hashes: the configuration (which conversion
        // children receive) no longer holds them.
        config.api_keys = None;
        if auth.enabled() {
            tracing::info!(keys = auth.key_count(), "API keys are on");
        }
        for (name, dir) in [
            ("UPLOAD_DIR", &config.upload_dir),
            ("OUTPUT_DIR", &config.output_dir),
        ] {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {name} {}", dir.display()))?;
        }
        let storage = storage::Storage::open(&config)?;
        let registry = Registry::from_inventory().context("the plugin registry is inconsistent")?;
        let store = Store::open(&config)
            .await
            .map_err(|e| anyhow::anyhow!("cannot open the job store: {e}"))?;
        let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "host".into());
        let metrics = metrics::Metrics::default();
        metrics.set_max_queued_jobs(config.max_queued_jobs);
        Ok(Arc::new(Shared {
            config,
            options,
            store,
            storage,
            registry,
            metrics,
            wake_workers: Notify::new(),
            wake_webhooks: Notify::new(),
            workers: AtomicUsize::new(0),
            busy: AtomicUsize::new(0),
            started: Instant::now(),
            process_id: format!("{host}:{}:{}", std::process::id(), uuid::Uuid::new_v4()),
            running: Default::default(),
            auth,
            events: events::Hub::default(),
        }))
    }
}

/// A running service (HTTP + workers + background loops), for `quire serve` and tests.
pub struct Server {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
    http: JoinHandle<std::io::Result<()>>,
}

impl Server {
    /// The bound address (useful with `PORT=0`).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// Stops intake, drains workers and background loops, and waits for them.
    pub async fn shutdown(self) -> anyhow::Result<()> {
        let _ = self.shutdown.send(true);
        self.wait().await
    }

    async fn wait(self) -> anyhow::Result<()> {
        let http = self.http.await;
        for t in self.tasks {
            let _ = t.await;
        }
        match http {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(anyhow::anyhow!("HTTP server failed: {e}")),
            Err(e) => Err(anyhow::anyhow!("HTTP server task failed: {e}")),
        }
    }
}

/// Starts the HTTP API on `HOST:PORT` with the in-process workers and background loops.
pub async fn start(config: Config, options: Options) -> anyhow::Result<Server> {
    let workers = options.workers.unwrap_or_else(|| config.worker_count());
    let bind = format!("{}:{}", config.host, config.port);
    let shared = Shared::new(config, options).await?;
    let listener = tokio::net::TcpListener::bind(&bind)
        .await
        .with_context(|| format!("cannot listen on {bind} (HOST/PORT)"))?;
    let addr = listener.local_addr()?;
    let (tx, rx) = watch::channel(false);
    let mut tasks = background(&shared, workers, &rx);
    tasks.push(tokio::spawn(events::run(shared.clone(), rx.clone())));
    let app = api::router(shared.clone());
    let mut http_rx = rx.clone();
    let limits = http::Limits::from_config(&shared.config);
    let http = tokio::spawn(http::serve(listener, app, limits, async move {
        let _ = http_rx.wait_for(|stop| *stop).await;
    }));
    tracing::info!(
        store = shared.store.kind(),
        workers,
        "quire {} listening on http://{addr}",
        env!("CARGO_PKG_VERSION")
    );
    log_readiness(&shared);
    Ok(Server {
        addr,
        shared,
        shutdown: tx,
        tasks,
        http,
    })
}

fn background(
    shared: &Arc<Shared>,
    workers: usize,
    rx: &watch::Receiver<bool>,
) -> Vec<JoinHandle<()>> {
    let mut tasks = Vec::new();
    if workers > 0 {
        tasks.push(tokio::spawn(worker::run_pool(
            shared.clone(),
            workers,
            rx.clone(),
        )));
        tasks.push(tokio::spawn(worker::run_heartbeat(
            shared.clone(),
            rx.clone(),
        )));
    }
    tasks.push(tokio::spawn(worker::run_reclaimer(
        shared.clone(),
        rx.clone(),
    )));
    tasks.push(tokio::spawn(webhook::run_dispatcher(
        shared.clone(),
        rx.clone(),
    )));
    tasks.push(tokio::spawn(retention::run_sweeper(
        shared.clone(),
        rx.clone(),
    )));
    tasks
}

/// `quire serve` in an existing runtime: runs until SIGTERM / Ctrl-C, then drains.
pub async fn serve(config: Config) -> anyhow::Result<()> {
    let stop = shutdown_signal();
    let server = start(config, Options::from_env()?).await?;
    stop.await;
    tracing::info!("shutting down: draining workers");
    server.shutdown().await
}

/// `quire worker` in an existing runtime: workers, reclaimer, webhook dispatcher and
/// retention against Redis, until SIGTERM / Ctrl-C; `/metrics` and `/health` on
/// `WORKER_METRICS_PORT` when it is set.
pub async fn run_workers(config: Config) -> anyhow::Result<()> {
    if config.redis_url.is_none() {
        anyhow::bail!(
            "quire worker needs REDIS_URL: without Redis the job store is embedded in one `quire serve` process"
        );
    }
    let stop = shutdown_signal();
    let options = Options::from_env()?;
    let workers = options.workers.unwrap_or_else(|| config.worker_count());
    let metrics_bind = config
        .worker_metrics_port
        .map(|port| format!("{}:{port}", config.host));
    let shared = Shared::new(config, options).await?;
    let (tx, rx) = watch::channel(false);
    let mut tasks = background(&shared, workers, &rx);
    if let Some(bind) = metrics_bind {
        let listener = tokio::net::TcpListener::bind(&bind)
            .await
            .with_context(|| format!("cannot listen on {bind} (HOST/WORKER_METRICS_PORT)"))?;
        let addr = listener.local_addr()?;
        let app = api::worker_router(shared.clone());
        let limits = http::Limits::from_config(&shared.config);
        let mut stop = rx.clone();
        tasks.push(tokio::spawn(async move {
            let served = http::serve(listener, app, limits, async move {
                let _ = stop.wait_for(|stop| *stop).await;
            })
            .await;
            if let Err(e) = served {
                tracing::error!(error = %e, "the metrics listener failed");
            }
        }));
        tracing::info!("quire worker metrics listening on http://{addr}");
    }
    tracing::info!(
        workers,
        "quire {} worker started",
        env!("CARGO_PKG_VERSION")
    );
    log_readiness(&shared);
    stop.await;
    tracing::info!("shutting down: draining workers");
    let _ = tx.send(true);
    for t in tasks {
        let _ = t.await;
    }
    Ok(())
}

/// Entry point of `quire serve` (builds the runtime and logging).
pub fn run_serve(config: Config) -> anyhow::Result<i32> {
    init_logging(&config);
    runtime()?.block_on(serve(config))?;
    Ok(0)
}

/// Allocations of 1 MiB and more (the 5 MiB part buffers of object-store transfers, large
/// request chunks) are mapped and unmapped one by one rather than carved from malloc's heaps.
/// glibc raises its mmap threshold after the first large block is freed (up to 32 MiB), and
/// from then on such buffers come from per-thread arenas, which keep the memory of freed
/// parts: peak RSS grew with the number of threads that had ever held a part, not with the
/// parts alive. A fixed threshold turns that adjustment off (measured in ARCHITECTURE.md,
/// object storage).
fn large_buffers_from_the_kernel() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes a malloc parameter; called before the runtime's threads.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}

/// Entry point of `quire worker`.
pub fn run_worker(config: Config) -> anyhow::Result<i32> {
    init_logging(&config);
    runtime()?.block_on(run_workers(config))?;
    Ok(0)
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    large_buffers_from_the_kernel();

    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("quire")
        .build()
        .context("cannot start the async runtime")
}

/// Logs to stdout: JSON lines with `LOG_FORMAT=json`, text otherwise; `RUST_LOG` overrides
/// `LOG_LEVEL`.
pub fn init_logging(config: &Config) {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env()
        .or_else(|_| EnvFilter::try_new(&config.log_level))
        .unwrap_or_else(|_| EnvFilter::new("info"));
    // Colours only for a person at a terminal, never into a log file or collector.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stdout());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(ansi);
    let _ = match config.log_format {
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
        LogFormat::Text => builder.try_init(),
    };
}

/// SIGTERM or Ctrl-C. The handlers are registered when this is called, not when the future is
/// first polled: a signal that arrives while start-up is still running (the listener already
/// announced, the readiness line not yet logged) must drain, not kill the process.
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let term = signal(SignalKind::terminate());
        let int = signal(SignalKind::interrupt());
        async move {
            match (term, int) {
                (Ok(mut term), Ok(mut int)) => {
                    tokio::select! {
                        _ = term.recv() => {}
                        _ = int.recv() => {}
                    }
                }
                _ => {
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// The start-up line naming what is ready; a warning when a built-in converter cannot run.
fn log_readiness(shared: &Shared) {
    let runtime_dir = shared.config.runtime_dir();
    let (converters, ocr) = shared.config.readiness(&shared.registry);
    let (line, down) = shared.registry.readiness_summary(&converters, &ocr);
    if down {
        tracing::warn!(runtime_dir = %runtime_dir.display(), "{line}");
    } else {
        tracing::info!(runtime_dir = %runtime_dir.display(), "{line}");
    }
}
