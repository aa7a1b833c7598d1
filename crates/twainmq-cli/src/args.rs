//! Every command-line type: the commands, their flags and their parsers (the
//! numeric ones are in `flags`). Nothing here opens a store: an argument that
//! clap refuses is refused before anything is read or written.
//! Each command family's arguments are in a module of their own (`args/`).

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use crate::flags;

mod bench;
mod consume;
mod groups;
mod mirror;
mod produce;
mod retention;
mod search;
mod topics;
mod transfer;
pub(crate) use bench::BenchArgs;
pub(crate) use consume::ConsumeArgs;
pub(crate) use groups::GroupsCmd;
pub(crate) use mirror::MirrorArgs;
pub(crate) use produce::ProduceArgs;
pub(crate) use retention::RetentionCmd;
pub(crate) use search::{SearchArgs, SelectArgs};
pub(crate) use topics::TopicsCmd;
pub(crate) use transfer::{CopyArgs, ExportArgs, ImportArgs};

/// What `twainmq --version` prints after the name: this build's version (the
/// workspace's, shared with `twainmq-desktop`), the engine's, and the 0.2.3
/// compatibility it implements. Built once: clap takes a `&'static str`.
fn version_line() -> &'static str {
    static LINE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    LINE.get_or_init(|| twainmq::version::describe(env!("CARGO_PKG_VERSION")))
}

#[derive(Parser, Debug)]
#[command(name = "twainmq", version = version_line(), about = "Inspect and use TwainMQ stores (compatible with twainmq 0.2.3)")]
pub(crate) struct Cli {
    /// The store folder (default: $TWAINMQ_STORE).
    #[arg(long, global = true, env = "TWAINMQ_STORE", value_name = "DIR")]
    pub(crate) store: Option<PathBuf>,
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// List, create, describe and delete topics.
    #[command(subcommand)]
    Topics(TopicsCmd),
    /// Write messages to a topic.
    Produce(ProduceArgs),
    /// Read messages from a topic (alone, or as a member of a consumer group).
    Consume(ConsumeArgs),
    /// Find messages: every partition on every core, results in timeline order
    /// (the partitions merged by timestamp), never capped. All conditions must hold.
    Search(SearchArgs),
    /// Write a topic's messages (or a time range, a search's result) to JSONL, CSV or a new store.
    Export(ExportArgs),
    /// Write the messages of a JSONL or CSV file into a topic (check it first with --dry-run).
    Import(ImportArgs),
    /// Send a topic's messages (or a selection) into another topic of this or another store.
    Copy(CopyArgs),
    /// Mirror topics to a Kafka cluster (--to) or from one into the store (--from): every
    /// message's key, payload and exact timestamp; resumes where the target says it stopped.
    Mirror(MirrorArgs),
    /// Delete old day files of topics with a retention setting (never the newest file of a partition).
    #[command(subcommand)]
    Retention(RetentionCmd),
    /// Inspect consumer groups and reset their offsets.
    #[command(subcommand)]
    Groups(GroupsCmd),
    /// Check a store (or one topic) for damaged lines, torn tails, offset gaps and overlaps,
    /// stray files and corrupt configs. Exits 1 when it finds any.
    Check {
        topic: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Measure produce, batched produce, consume and follow latency in a temporary topic.
    Bench(BenchArgs),
    /// For `bench`: follow TOPIC from now in this separate process, print
    /// `ready`, then the write-to-read latency percentiles of COUNT messages as JSON.
    #[command(hide = true)]
    BenchFollow {
        #[arg(long)]
        topic: String,
        #[arg(long)]
        count: usize,
    },
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::Cli;

    #[test]
    fn version_names_the_workspace_version_the_engine_and_the_compatibility() {
        for flag in ["--version", "-V"] {
            let e = Cli::try_parse_from(["twainmq", flag]).expect_err("--version exits");
            assert_eq!(e.kind(), clap::error::ErrorKind::DisplayVersion);
            let text = e.to_string();
            assert_eq!(
                text.trim_end(),
                format!(
                    "twainmq {} (engine {}, reads and writes twainmq 0.2.3 stores)",
                    env!("CARGO_PKG_VERSION"),
                    twainmq::version::ENGINE
                )
            );
        }
    }
}
