//! `twainmq`: the command-line tool over the TwainMQ engine.
//!
//! Laid out as ripgrep is: this file only dispatches. `args` holds every
//! command-line type, each command group has its module (`topics`, `produce`,
//! `consume`, `groups`, `check`, `bench`), and every command's output is a
//! typed value that `render` writes as text or JSON. The tools that benchmarks
//! and tests use are not here: they are `twainmq-dev` (crates/twainmq-dev),
//! which is never shipped.

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

mod args;
mod bench;
mod check;
mod consume;
mod flags;
mod groups;
mod mirror;
mod produce;
mod render;
mod report;
mod retention;
mod search;
mod topics;
mod transfer;

use anyhow::{anyhow, Result};
use clap::Parser;
use twainmq::Store;

use args::{Cli, Command};

fn main() -> ExitCode {
    // An empty TWAINMQ_STORE is that variable's problem: clap would call it a
    // missing value of --store. Taken out here, before any thread starts, and
    // named if no --store is given.
    let empty_store_env = std::env::var_os("TWAINMQ_STORE").is_some_and(|v| v.is_empty());
    if empty_store_env {
        std::env::remove_var("TWAINMQ_STORE");
    }
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("TWAINMQ_LOG").unwrap_or_else(|_| "warn,krafka=error".into()))
        .with_writer(io::stderr)
        .with_ansi(io::IsTerminal::is_terminal(&io::stderr()))
        .with_target(false)
        .init();
    match run(Cli::parse(), empty_store_env) {
        Ok(code) => code,
        Err(e) => {
            // A reader that went away (`| head`) ends us quietly, as it does `cat`.
            if is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Whether `e` is, or was caused by, a write to a pipe whose reader is gone.
pub(crate) fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<io::Error>().is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe))
}

fn run(cli: Cli, empty_store_env: bool) -> Result<ExitCode> {
    // The commands that need no store, or make one, come before opening it.
    // bench runs in a private store of its own, never in the one given.
    if let Command::Bench(args) = &cli.command {
        return bench::command(cli.store.as_deref(), args).map(|()| ExitCode::SUCCESS);
    }
    let root = cli.store.ok_or_else(|| {
        if empty_store_env {
            anyhow!(
                "TWAINMQ_STORE is set but empty: set it to the store's folder (export TWAINMQ_STORE=/path/to/store), or pass --store DIR"
            )
        } else {
            anyhow!("no store given: pass --store DIR or set TWAINMQ_STORE")
        }
    })?;
    let mut store = Store::open(&root)?;
    if let Some(dir) = index_cache_dir() {
        if store.contains_path(&dir) {
            // (A relative path is taken from where the command runs: inside the store, it lands there.)
            eprintln!(
                "twainmq: warning: the index cache {} is inside the store, where 0.2.3 would take its files for the store's own: it is not used. Set TWAINMQ_INDEX_CACHE to a folder outside the store (or off)",
                dir.display()
            );
        } else {
            store = store.with_index_cache(dir);
        }
    }
    // Test seam: shift this process's clock (to cross UTC midnight in torture tests).
    if let Some(offset) = std::env::var("TWAINMQ_CLOCK_OFFSET_SECS").ok().and_then(|v| v.trim().parse::<f64>().ok()) {
        store = store.with_clock(std::sync::Arc::new(twainmq::OffsetClock((offset * 1e6) as i64)));
    }
    // Every command returns here, its exit code included (none calls
    // `process::exit`), so what it counted is saved below whatever the outcome.
    let result = dispatch(&store, cli.command);
    // What was counted this run (files of a large store) is kept for the next.
    if store.index_scanned_bytes() > 0 {
        if let Err(e) = store.save_index() {
            tracing::warn!(error = %e, "could not keep the line index for the next run");
        }
    }
    result
}

/// Where line indexes are kept between runs: `$TWAINMQ_INDEX_CACHE` (`off`
/// for nowhere), else the user's cache folder.
fn index_cache_dir() -> Option<PathBuf> {
    match std::env::var_os("TWAINMQ_INDEX_CACHE") {
        Some(v) if v == "off" || v.is_empty() => None,
        Some(v) => Some(PathBuf::from(v)),
        // The platform's cache folder ($XDG_CACHE_HOME or ~/.cache, ~/Library/Caches, %LOCALAPPDATA%).
        None => dirs::cache_dir().map(|d| d.join("twainmq").join("line-index")),
    }
}

fn dispatch(store: &Store, command: Command) -> Result<ExitCode> {
    let done = |r: Result<()>| r.map(|()| ExitCode::SUCCESS);
    match command {
        Command::Topics(cmd) => done(topics::run(store, cmd)),
        Command::Produce(args) => done(produce::run(store, args)),
        Command::Consume(args) => done(consume::run(store, args)),
        Command::Search(args) => done(search::run(store, &args)),
        Command::Groups(cmd) => groups::run(store, cmd),
        Command::Export(args) => done(transfer::export(store, &args)),
        Command::Import(args) => done(transfer::import(store, &args)),
        Command::Copy(args) => done(transfer::copy(store, &args)),
        Command::Mirror(args) => mirror::run(store, &args),
        Command::Retention(cmd) => done(retention::run(store, cmd)),
        Command::Check { topic, json } => check::run(store, topic.as_deref(), json),
        // Handled in `run` before a store is opened.
        Command::Bench(_) => Ok(ExitCode::SUCCESS),
        Command::BenchFollow { topic, count } => done(bench::follow(store, &topic, count)),
    }
}
