//! The HTTP listener: hyper under limits a slow, idle or hoarding client cannot outlast.
//!
//! `axum::serve` sets no read timeouts: 1,100 connections sending one header line a second
//! were all held for over a minute, and a body trickled at 100 B/s was accepted. Here:
//! - headers: a request's head must arrive within `HTTP_HEADER_TIMEOUT` (hyper's HTTP/1 header
//!   timer; it also bounds how long an idle keep-alive connection waits for its next request);
//! - idle: a connection that moves no byte in either direction for `HTTP_IDLE_TIMEOUT` is
//!   closed (HTTP/1 and HTTP/2 alike, whatever the request is waiting for);
//! - uploads: a request body must bring at least `HTTP_MIN_UPLOAD_RATE` bytes a second,
//!   measured over [`RATE_WINDOW`] windows while the handler is reading it; a slower one is
//!   answered 408 and the connection closed;
//! - connections: at most `HTTP_MAX_CONNECTIONS` open at once; further ones wait in the
//!   kernel's listen queue until one closes.

use crate::config::Config;
use axum::body::Body;
use axum::http::{header, HeaderValue, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tower::ServiceExt;

/// The window over which an upload's rate is measured.
pub const RATE_WINDOW: Duration = Duration::from_secs(5);

/// The limits, from the configuration.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
    /// Bytes per second; 0 = no minimum.
    pub min_upload_rate: u64,
    pub max_connections: usize,
}

impl Limits {
    pub fn from_config(config: &Config) -> Limits {
        Limits {
            header_timeout: Duration::from_secs(config.http_header_timeout),
            idle_timeout: Duration::from_secs(config.http_idle_timeout),
            min_upload_rate: config.http_min_upload_rate,
            max_connections: config.http_max_connections.max(1),
        }
    }
}

/// Serves `app` on `listener` until `shutdown` resolves, then lets open requests finish.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    builder
        .http2()
        .timer(TokioTimer::new())
        .keep_alive_interval(Some(limits.idle_timeout / 2))
        .keep_alive_timeout(limits.header_timeout);
    let builder = Arc::new(builder);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let slots = Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            p = slots.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
            _ = &mut shutdown => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of file descriptors and the like: wait instead of spinning.
                    tracing::warn!(error = %e, "cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let (io, activity) = IdleIo::new(stream);
        let app = app.clone();
        let service = hyper::service::service_fn(move |req: Request<hyper::body::Incoming>| {
            with_min_upload_rate(app.clone(), req, limits.min_upload_rate)
        });
        let conn = builder
            .serve_connection_with_upgrades(TokioIo::new(io), service)
            .into_owned();
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            tokio::select! {
                _ = conn => {}
                _ = idle(activity, limits) => {
                    tracing::debug!("closing an idle connection");
                }
            }
            drop(permit);
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// Resolves once the connection has moved no byte for the idle timeout, or sent nothing at
/// all within the header timeout (hyper's header timer starts only with the first byte).
async fn idle(activity: Arc<Activity>, limits: Limits) {
    let epoch = epoch();
    loop {
        let since = Duration::from_millis(activity.last.load(Ordering::Relaxed));
        let timeout = if activity.read_any.load(Ordering::Relaxed) {
            limits.idle_timeout
        } else {
            limits.header_timeout.min(limits.idle_timeout)
        };
        let due = since + timeout;
        let now = epoch.elapsed();
        if now >= due {
            return;
        }
        tokio::time::sleep(due - now).await;
    }
}

fn epoch() -> Instant {
    static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

fn now_ms() -> u64 {
    epoch().elapsed().as_millis() as u64
}

/// When a connection last moved a byte, and whether the client sent any.
struct Activity {
    last: AtomicU64,
    read_any: AtomicBool,
}

impl Activity {
    fn touch(&self) {
        self.last.store(now_ms(), Ordering::Relaxed);
    }
}

/// A TCP stream that records its [`Activity`].
struct IdleIo {
    stream: TcpStream,
    activity: Arc<Activity>,
}

impl IdleIo {
    fn new(stream: TcpStream) -> (IdleIo, Arc<Activity>) {
        let activity = Arc::new(Activity {
            last: AtomicU64::new(now_ms()),
            read_any: AtomicBool::new(false),
        });
        (
            IdleIo {
                stream,
                activity: activity.clone(),
            },
            activity,
        )
    }
}

impl AsyncRead for IdleIo {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let poll = Pin::new(&mut this.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            this.activity.touch();
            this.activity.read_any.store(true, Ordering::Relaxed);
        }
        poll
    }
}

impl AsyncWrite for IdleIo {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.stream).poll_write(cx, buf);
        if matches!(poll, Poll::Ready(Ok(n)) if n > 0) {
            this.activity.touch();
        }
        poll
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        if matches!(poll, Poll::Ready(Ok(n)) if n > 0) {
            this.activity.touch();
        }
        poll
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

/// Runs one request with its body under the minimum rate; a body that fell below it gets 408
/// and `Connection: close`, whatever the handler answered.
async fn with_min_upload_rate(
    app: Router,
    req: Request<hyper::body::Incoming>,
    min_rate: u64,
) -> Result<Response, std::convert::Infallible> {
    let too_slow = Arc::new(AtomicBool::new(false));
    let req = if min_rate > 0 {
        let flag = too_slow.clone();
        req.map(|b| Body::new(MinRate::new(Body::new(b), min_rate, flag)))
    } else {
        req.map(Body::new)
    };
    let response = app.oneshot(req).await?;
    if !too_slow.load(Ordering::SeqCst) {
        return Ok(response);
    }
    tracing::info!(min_rate, "upload slower than the minimum rate; closing");
    let mut response = super::errors::detail(
        StatusCode::REQUEST_TIMEOUT,
        format!(
            "The upload was too slow (under {min_rate} bytes per second); the connection is closed."
        ),
    )
    .into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    Ok(response)
}

/// A request body that fails when fewer than `min_rate` × [`RATE_WINDOW`] bytes arrive in a
/// window while it is being read.
struct MinRate {
    inner: Body,
    min_per_window: u64,
    window_bytes: u64,
    window_end: Pin<Box<tokio::time::Sleep>>,
    too_slow: Arc<AtomicBool>,
}

impl MinRate {
    fn new(inner: Body, min_rate: u64, too_slow: Arc<AtomicBool>) -> MinRate {
        MinRate {
            inner,
            min_per_window: min_rate.saturating_mul(RATE_WINDOW.as_secs()),
            window_bytes: 0,
            window_end: Box::pin(tokio::time::sleep(RATE_WINDOW)),
            too_slow,
        }
    }

    /// At a window's end: fails when the window brought too little, else starts the next.
    fn roll(&mut self) -> Result<(), axum::Error> {
        if self.window_bytes < self.min_per_window {
            self.too_slow.store(true, Ordering::SeqCst);
            return Err(axum::Error::new(
                "the upload is slower than the minimum rate",
            ));
        }
        self.window_bytes = 0;
        let next = tokio::time::Instant::now() + RATE_WINDOW;
        self.window_end.as_mut().reset(next);
        Ok(())
    }
}

impl http_body::Body for MinRate {
    type Data = bytes::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    this.window_bytes += data.len() as u64;
                }
                if this.window_end.as_mut().poll(cx).is_ready() {
                    if let Err(e) = this.roll() {
                        return Poll::Ready(Some(Err(e)));
                    }
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Pending => {
                while this.window_end.as_mut().poll(cx).is_ready() {
                    if let Err(e) = this.roll() {
                        return Poll::Ready(Some(Err(e)));
                    }
                }
                Poll::Pending
            }
            other => other,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}
