//! The connection to Redis: every command answers within [`OP_TIMEOUT`], and a lost
//! connection is replaced by the next command once Redis answers again.
//!
//! Why not redis-rs's `ConnectionManager`: measured on a `kill -9` and restart of Redis, it took
//! 104–113 s to notice the new server, and commands issued during the outage waited up to 118 s
//! (its reconnect backoff and response timeout stack up). Here a command that meets a dropped
//! connection, a refused connect, a `LOADING` server or no answer in time fails at once as
//! [`StoreError::Unavailable`] (the API answers 503) and forgets the connection; the next command
//! connects anew (at most one connect at a time, and no more often than every
//! [`RECONNECT_EVERY`], so an outage does not turn into a connect storm). The background loops
//! (workers, webhooks, reclaimer) retry every half second, so service resumes within about a
//! second of Redis being back.

use super::{StoreError, StoreResult};
use redis::aio::MultiplexedConnection;
use redis::{ErrorKind, RedisError};
use std::future::Future;
use std::time::{Duration, Instant};

/// The longest a store command may take, connect included, before it counts as an outage.
pub const OP_TIMEOUT: Duration = Duration::from_millis(1500);
/// The longest a connect may take.
const CONNECT_TIMEOUT: Duration = Duration::from_millis(1000);
/// The least time between two failed connects.
const RECONNECT_EVERY: Duration = Duration::from_millis(200);

pub struct Link {
    client: redis::Client,
    state: tokio::sync::Mutex<State>,
}

#[derive(Default)]
struct State {
    con: Option<MultiplexedConnection>,
    /// Counts connections made, so a failure forgets only the connection it happened on.
    generation: u64,
    last_failed_connect: Option<Instant>,
}

/// Errors that mean "Redis is not reachable now", as opposed to a refused command.
pub fn is_outage(e: &RedisError) -> bool {
    e.is_io_error()
        || e.is_connection_dropped()
        || e.is_connection_refusal()
        || e.is_timeout()
        || matches!(
            e.kind(),
            ErrorKind::BusyLoadingError
                | ErrorKind::TryAgain
                | ErrorKind::MasterDown
                | ErrorKind::ClusterDown
        )
}

fn unavailable(what: impl std::fmt::Display) -> StoreError {
    StoreError::Unavailable(format!("redis: {what}"))
}

impl Link {
    /// Connects once (start-up needs Redis); later outages are handled per command.
    pub async fn connect(url: &str) -> StoreResult<Link> {
        let client = redis::Client::open(url)?;
        let link = Link {
            client,
            state: Default::default(),
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match link.connection().await {
                Ok(_) => return Ok(link),
                Err(e) if Instant::now() >= deadline => return Err(e),
                Err(_) => tokio::time::sleep(RECONNECT_EVERY).await,
            }
        }
    }

    /// The client, for connections of their own (the job-events subscription).
    pub fn client(&self) -> &redis::Client {
        &self.client
    }

    async fn connection(&self) -> StoreResult<(MultiplexedConnection, u64)> {
        let mut state = self.state.lock().await;
        if let Some(con) = &state.con {
            return Ok((con.clone(), state.generation));
        }
        if let Some(at) = state.last_failed_connect {
            if at.elapsed() < RECONNECT_EVERY {
                return Err(unavailable("not connected (reconnecting)"));
            }
        }
        let config = redis::AsyncConnectionConfig::new()
            .set_connection_timeout(CONNECT_TIMEOUT)
            .set_response_timeout(OP_TIMEOUT);
        let connect = self
            .client
            .get_multiplexed_async_connection_with_config(&config);
        match tokio::time::timeout(CONNECT_TIMEOUT, connect).await {
            Ok(Ok(con)) => {
                state.generation += 1;
                state.con = Some(con.clone());
                state.last_failed_connect = None;
                if state.generation > 1 {
                    tracing::info!("reconnected to Redis");
                }
                Ok((con, state.generation))
            }
            Ok(Err(e)) => {
                state.last_failed_connect = Some(Instant::now());
                Err(unavailable(format!("cannot connect: {e}")))
            }
            Err(_) => {
                state.last_failed_connect = Some(Instant::now());
                Err(unavailable("cannot connect: no answer within 1 s"))
            }
        }
    }

    async fn forget(&self, generation: Option<u64>) {
        let mut state = self.state.lock().await;
        if generation.is_none_or(|g| g == state.generation) && state.con.take().is_some() {
            tracing::warn!("lost the connection to Redis; reconnecting");
        }
    }

    /// Runs one command (or script, or pipeline) on the shared connection, within [`OP_TIMEOUT`].
    pub async fn run<T, F, Fut>(&self, command: F) -> StoreResult<T>
    where
        F: FnOnce(MultiplexedConnection) -> Fut,
        Fut: Future<Output = Result<T, RedisError>>,
    {
        let attempt = async {
            let (con, generation) = self.connection().await?;
            match command(con).await {
                Ok(v) => Ok(v),
                Err(e) if is_outage(&e) => {
                    self.forget(Some(generation)).await;
                    Err(unavailable(e))
                }
                Err(e) => Err(e.into()),
            }
        };
        match tokio::time::timeout(OP_TIMEOUT, attempt).await {
            Ok(result) => result,
            Err(_) => {
                self.forget(None).await;
                Err(unavailable("no answer within 1.5 s"))
            }
        }
    }
}
