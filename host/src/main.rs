//! The `quire` binary: parses the command line and hands over to the library.

use clap::Parser;
use quire::cli::{self, Cli, Command};
use quire::config::Config;

fn main() {
    let cli = Cli::parse();
    let config = match Config::load() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("quire: {e}");
            std::process::exit(2);
        }
    };
    let code = match &cli.command {
        Command::Convert(args) => cli::convert(args, &config),
        Command::Plugins { json } => cli::plugins(*json, &config),
        Command::Serve => quire::service::run_serve(config),
        Command::Worker => quire::service::run_worker(config),
        Command::ConvertChild => Ok(quire::service::run_isolated_child()),
    };
    match code {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("quire: {e:#}");
            std::process::exit(1);
        }
    }
}
