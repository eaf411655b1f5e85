//! Black-box tests of the job service through real HTTP, against a server on port 0, for both
//! stores (embedded redb and a real Redis at 127.0.0.1:6379), with a real webhook receiver
//! and real conversion child processes (`CARGO_BIN_EXE_quire`).
//!
//! One test binary (cargo builds `tests/service/main.rs` as the `service` target).

mod support;

mod api;
mod backpressure;
mod bench;
mod bombs;
mod events;
mod faults;
mod keys;
mod options;
mod outage;
mod recovery;
mod slow_clients;
mod store;
mod webhooks;
mod webui;
