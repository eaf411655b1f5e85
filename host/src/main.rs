//! The `quire` binary: parses the command line and hands over to the library.

use clap::Parser;
use quire::cli::{self, Cli, Command};
use quire::config::Config;

fn main() {
    // The service's conversion child (`quire __convert-child`) is not a command a person
    // runs, so it is kept out of clap: no help line, no "did you mean" suggestion.
    let child = std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == quire::service::isolate::CHILD_SUBCOMMAND);
    if child {
        std::process::exit(quire::service::run_isolated_child());
    }
    let cli = Cli::parse();
    let config = match Config::load() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("quire: {e}");
            std::process::exit(2);
        }
    };
    let code = match &cli.command {
        Command::Convert(args) => {
            quit_quietly_on_closed_pipe();
            cli::convert(args, &config)
        }
        Command::Plugins { json } => {
            quit_quietly_on_closed_pipe();
            cli::plugins(*json, &config)
        }
        Command::Serve => quire::service::run_serve(config),
        Command::Mcp => quire::mcp::run_stdio(config),
        Command::Worker => quire::service::run_worker(config),
    };
    match code {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("quire: {e:#}");
            std::process::exit(1);
        }
    }
}

/// A command-line tool whose reader went away (`quire plugins | head`) ends quietly, as
/// `cat` does, instead of panicking on the failed write. Only for the one-shot commands: the
/// servers keep Rust's default (SIGPIPE ignored, a write error per socket).
fn quit_quietly_on_closed_pipe() {
    // SAFETY: restoring a signal's default disposition before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
