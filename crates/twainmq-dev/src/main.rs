//! `twainmq-dev`: the development tools over the engine that `make bench`,
//! `make run` and the test suites use. Never shipped: the packages and the
//! installer hold `twainmq` (the user's command, `twainmq bench` included)
//! and the app only, and `scripts/check-bundle.sh` checks that none of these
//! commands is in them.

use std::path::PathBuf;
use std::process::ExitCode;

mod bench_large;
mod bench_search;
mod bench_transfer;
mod hooks;

use anyhow::{anyhow, Result};
use clap::{Parser, Subcommand};
use twainmq::Store;

#[derive(Parser, Debug)]
#[command(name = "twainmq-dev", about = "Development tools over the TwainMQ engine (benchmarks, test hooks, the demo store)")]
struct Cli {
    /// The store folder (default: $TWAINMQ_STORE).
    #[arg(long, global = true, env = "TWAINMQ_STORE", value_name = "DIR")]
    store: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// For `make bench`: export, import and copy speed on a temporary topic of 100-byte messages, as JSON.
    BenchTransfer {
        #[arg(long, default_value_t = 1_000_000)]
        messages: u64,
        #[arg(long, default_value_t = 4)]
        partitions: u32,
        /// Which step: produce (fill the topic), export, import, copy.
        #[arg(long)]
        step: String,
        /// The JSONL file exported to and imported from.
        #[arg(long)]
        file: PathBuf,
    },
    /// For `make bench`: large messages of one size (the format's next version), one step a
    /// process: produce, floor (the same bytes, one write a message), consume, clean; as JSON.
    BenchLarge {
        #[arg(long, default_value_t = 1000)]
        messages: u64,
        /// Payload bytes of each message.
        #[arg(long, default_value_t = 1_000_000)]
        size: usize,
        #[arg(long)]
        step: String,
    },
    /// For `make kafka-bench`: the mirror's speed each way beside krafka directly, and the
    /// --follow latency, against a broker, as JSON.
    BenchMirror {
        /// The broker: kafka://HOST:PORT.
        #[arg(long)]
        kafka: String,
        #[arg(long, default_value_t = 200_000)]
        messages: u64,
        #[arg(long, default_value_t = 4)]
        partitions: u32,
        #[arg(long, default_value_t = 100)]
        payload_bytes: usize,
        /// Names of the topics made (store and cluster).
        #[arg(long, default_value = "bench")]
        prefix: String,
    },
    /// For `make bench`: search speed on a temporary topic of 100-byte JSON messages, as JSON.
    BenchSearch {
        #[arg(long, default_value_t = 1_000_000)]
        messages: u64,
        #[arg(long, default_value_t = 4)]
        partitions: u32,
    },
    /// For tests: read offer sets `[[id, {"own": [..], "partitions": [..]}], ..]`, one a line
    /// on stdin, and print each assignment `{"<id>": [partitions]}`.
    AssignStdin,
    /// Create the demo store (topics with text, bytes and typed messages, a group) in --store.
    SeedDemo,
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    if let Command::AssignStdin = cli.command {
        return hooks::assign_stdin().map(|()| ExitCode::SUCCESS);
    }
    let root = cli.store.ok_or_else(|| anyhow!("no store given: pass --store DIR or set TWAINMQ_STORE"))?;
    if let Command::SeedDemo = cli.command {
        return hooks::seed_demo(&root).map(|()| ExitCode::SUCCESS);
    }
    let mut store = Store::open(&root)?;
    // As `twainmq` does (a benchmark's steps run one a process, each finding the line
    // indexes the one before kept): $TWAINMQ_INDEX_CACHE, `off` for none, else the user's cache.
    let cache = match std::env::var_os("TWAINMQ_INDEX_CACHE") {
        Some(v) if v == "off" || v.is_empty() => None,
        Some(v) => Some(PathBuf::from(v)),
        None => dirs::cache_dir().map(|d| d.join("twainmq").join("line-index")),
    };
    if let Some(dir) = cache.filter(|d| !store.contains_path(d)) {
        store = store.with_index_cache(dir);
    }
    let result = dispatch(&store, cli.command);
    if store.index_scanned_bytes() > 0 {
        if let Err(e) = store.save_index() {
            eprintln!("twainmq-dev: could not keep the line index for the next run: {e}");
        }
    }
    result
}

fn dispatch(store: &Store, command: Command) -> Result<ExitCode> {
    let done = |r: Result<()>| r.map(|()| ExitCode::SUCCESS);
    match command {
        Command::BenchTransfer { messages, partitions, step, file } => {
            done(bench_transfer::command(store, messages, partitions, &step, &file))
        }
        Command::BenchLarge { messages, size, step } => done(bench_large::command(store, messages, size, &step)),
        Command::BenchMirror { kafka, messages, partitions, payload_bytes, prefix } => {
            let ep = twainmq_kafka::Endpoint::parse(&kafka)?;
            let report = twainmq_kafka::bench::run(store, &ep, &prefix, messages, partitions, payload_bytes)?;
            println!("{}", serde_json::to_string(&report)?);
            Ok(ExitCode::SUCCESS)
        }
        Command::BenchSearch { messages, partitions } => done(bench_search::command(store, messages, partitions)),
        Command::AssignStdin | Command::SeedDemo => Ok(ExitCode::SUCCESS),
    }
}
