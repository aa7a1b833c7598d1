//! Every command-line type: the commands, their flags and their parsers (the
//! numeric ones are in `flags`). Nothing here opens a store: an argument that
//! clap refuses is refused before anything is read or written.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use crate::flags;

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

#[derive(Subcommand, Debug)]
pub(crate) enum GroupsCmd {
    /// List the store's consumer groups.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Members, assignment, committed offsets, lag and rounds of a group.
    Describe {
        group: String,
        #[arg(long)]
        json: bool,
    },
    /// Move committed offsets: 0.2.3 members honour them when they next take a partition,
    /// our live members move at once. Every mode has a dry run.
    Reset {
        group: String,
        /// earliest, latest, offset:N, time:RFC3339, shift:±N (e.g. shift:-100),
        /// ago:DURATION (e.g. ago:30m), group:OTHER (its offsets) or file:PATH (as export writes).
        #[arg(long, allow_hyphen_values = true)]
        to: String,
        /// Only this partition (repeatable).
        #[arg(long)]
        partition: Vec<u32>,
        /// Show the before/after table without writing.
        #[arg(long)]
        dry_run: bool,
        #[arg(long)]
        json: bool,
    },
    /// Open a round: live members re-split the partitions; dead members' partitions move.
    Rebalance {
        group: String,
        /// How long the round stays open for offers, in seconds (more than 0, at most a day).
        #[arg(long, value_name = "SECONDS", default_value = "60", value_parser = flags::window_secs, allow_negative_numbers = true)]
        window: Duration,
        #[arg(long)]
        json: bool,
    },
    /// Print the group's committed offsets as JSON, for `groups import` (or `reset --to file:PATH`).
    Export {
        group: String,
        /// (Always JSON; accepted like every groups command.)
        #[arg(long)]
        json: bool,
    },
    /// Commit the offsets of a file `groups export` wrote (a reset; --dry-run shows it first).
    Import {
        group: String,
        /// The offsets file, or - for standard input.
        file: PathBuf,
        /// Only this partition (repeatable).
        #[arg(long)]
        partition: Vec<u32>,
        #[arg(long)]
        dry_run: bool,
        #[arg(long)]
        json: bool,
    },
    /// Delete a group: its members, rounds and committed offsets. Without --yes, says what
    /// would be deleted and deletes nothing. Refused while the group's log shows live members
    /// (a running 0.2.3 member crashes when its group is deleted), unless --members-stopped.
    Delete {
        group: String,
        /// Confirm the deletion.
        #[arg(long)]
        yes: bool,
        /// Delete even though the log shows live members: you stopped them (liveness is
        /// inferred from their last records, so a member stopped a moment ago still looks live).
        #[arg(long)]
        members_stopped: bool,
        #[arg(long)]
        json: bool,
    },
    /// Lag per partition; exits 1 when a partition is over --max-lag or --max-age, naming it.
    Lag {
        group: String,
        /// Over when more than N messages are not yet committed.
        #[arg(long, value_name = "N")]
        max_lag: Option<u64>,
        /// Over when the oldest message not yet committed is older than this (30s, 10m, 2h, 1d).
        #[arg(long, value_name = "DURATION", value_parser = flags::duration)]
        max_age: Option<f64>,
        /// The lag of every partition over this last span (1h, 1d, 1w), from the files.
        #[arg(long, value_name = "DURATION", value_parser = flags::duration)]
        history: Option<f64>,
        /// Points per partition in --history (1 to 10,000).
        #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        buckets: u32,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand, Debug)]
pub(crate) enum TopicsCmd {
    /// List the store's topics.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Create a topic.
    Create {
        name: String,
        /// u8, u16, u32, u64 or charN (0.2.3's); or free keys: text (any string), bytes, or
        /// any (text, bytes or none): the format's next version, which 0.2.3 refuses to open.
        #[arg(long, default_value = twainmq::limits::DEFAULT_KEY_TYPE)]
        key_type: String,
        #[arg(long, default_value_t = u64::from(twainmq::limits::DEFAULT_PARTITIONS))]
        partitions: u64,
        /// Comma-separated names of typed messages (ids 0, 1, ... in this order).
        #[arg(long, value_delimiter = ',')]
        message_types: Vec<String>,
        /// Allow messages larger than one 4,096-byte line (up to 1 MiB each unless
        /// --max-message-bytes says): the format's next version, which 0.2.3 refuses to open.
        #[arg(long)]
        large_messages: bool,
        /// The largest message, in bytes (1 to 67108864, 64 MiB; implies --large-messages).
        #[arg(long, value_name = "BYTES")]
        max_message_bytes: Option<u64>,
    },
    /// Show a topic's partitions, files and offsets.
    Describe {
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Empty a topic without deleting it: its day files go (all, or those whose messages are
    /// all before --before), the newest file of each partition is emptied in place of going.
    /// Without --yes, says what would go and deletes nothing.
    Purge {
        name: String,
        /// Only files whose last message is before this RFC 3339 time.
        #[arg(long, value_parser = flags::rfc3339, conflicts_with = "all", required_unless_present = "all")]
        before: Option<f64>,
        /// Every message.
        #[arg(long)]
        all: bool,
        /// Also when groups have not consumed them.
        #[arg(long)]
        force: bool,
        /// Confirm.
        #[arg(long)]
        yes: bool,
    },
    /// Delete a topic, all its messages and the consumer groups that read it.
    /// Without --yes, says what would be deleted and deletes nothing.
    Delete {
        name: String,
        /// Confirm the deletion.
        #[arg(long)]
        yes: bool,
    },
}

#[derive(Args, Debug)]
pub(crate) struct ProduceArgs {
    pub(crate) topic: String,
    /// The message key (an integer for uN topics, a string for charN, text and any
    /// topics, its UTF-8 bytes for bytes topics).
    #[arg(long, required_unless_present_any = ["jsonl", "batch", "key_hex", "no_key"], conflicts_with_all = ["jsonl", "key_hex", "no_key"])]
    pub(crate) key: Option<String>,
    /// The key as hex: a bytes key (topics of key type bytes or any).
    #[arg(long, value_name = "HEX", conflicts_with_all = ["jsonl", "no_key"])]
    pub(crate) key_hex: Option<String>,
    /// No key (Kafka's null key; topics of key type any): such messages go round the partitions.
    #[arg(long, conflicts_with = "jsonl")]
    pub(crate) no_key: bool,
    /// MESSAGE (or the file) is hex, sent as a bytes message.
    #[arg(long, conflicts_with_all = ["jsonl", "bytes"])]
    pub(crate) bytes_hex: bool,
    /// Send the file's (or MESSAGE's) bytes as a bytes message, as they are.
    #[arg(long, conflicts_with = "jsonl")]
    pub(crate) bytes: bool,
    /// Take the message from this file, or from standard input with -, of any size the
    /// topic allows (a text message unless --bytes or --bytes-hex).
    #[arg(long, value_name = "PATH", conflicts_with_all = ["jsonl", "message"])]
    pub(crate) value_file: Option<PathBuf>,
    /// Read `{"key": K, "payload": P}` objects from standard input, one a line.
    #[arg(long)]
    pub(crate) jsonl: bool,
    /// Print where each message landed as JSON.
    #[arg(long)]
    pub(crate) json: bool,
    /// With --jsonl: send the lines already read in as one batch (a write per
    /// partition, not per message), several times faster from a fast pipe.
    /// Without it, each message is in the file before the next line is read,
    /// so a killed producer leaves exactly a prefix of its input; with it, the
    /// batch in flight may be written in some partitions and not in others
    /// (each partition still holds a prefix of what it was given).
    #[arg(long, conflicts_with_all = ["json", "key", "message", "bytes_hex"])]
    pub(crate) batch: bool,
    /// The message text (or hex with --bytes-hex).
    #[arg(required_unless_present_any = ["jsonl", "batch", "value_file"], conflicts_with = "jsonl")]
    pub(crate) message: Option<String>,
}

#[derive(Args, Debug)]
pub(crate) struct BenchArgs {
    #[arg(long, default_value_t = 200_000)]
    pub(crate) messages: u64,
    #[arg(long, default_value_t = 100)]
    pub(crate) payload_bytes: usize,
    #[arg(long, default_value_t = 4)]
    pub(crate) partitions: u32,
    /// Messages per send_batch call for the batched produce run.
    #[arg(long, default_value_t = 1000)]
    pub(crate) batch: usize,
    /// Messages per second for the write-to-read latency run.
    #[arg(long, default_value_t = 10_000)]
    pub(crate) latency_rate: u64,
    /// Also time seeks, time jumps and describe in a one-partition topic of this many messages.
    #[arg(long, default_value_t = 0)]
    pub(crate) seek_messages: u64,
    /// Where the private temporary store is made (default: the system's
    /// temporary folder); pick a folder on the disk to measure. Never the store.
    #[arg(long, value_name = "DIR")]
    pub(crate) dir: Option<PathBuf>,
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Args, Debug)]
pub(crate) struct ConsumeArgs {
    pub(crate) topic: String,
    /// start, now, or an offset.
    #[arg(long, default_value = "start")]
    pub(crate) from: String,
    /// Only this partition.
    #[arg(long)]
    pub(crate) partition: Option<u32>,
    /// Stop after this many messages.
    #[arg(long)]
    pub(crate) max: Option<u64>,
    /// Keep waiting for new messages instead of stopping at the end of the log.
    #[arg(long)]
    pub(crate) follow: bool,
    /// Stop after this many seconds (0 to 10 years).
    #[arg(long = "for", value_name = "SECONDS", value_parser = flags::for_secs, allow_negative_numbers = true)]
    pub(crate) for_secs: Option<Duration>,
    /// One JSON object a line.
    #[arg(long)]
    pub(crate) json: bool,
    /// Print the topic as one timeline: its partitions merged by message timestamp
    /// (--from then takes start, now or an RFC 3339 time).
    #[arg(long)]
    pub(crate) by_time: bool,
    /// Join this consumer group: read only the partitions assigned to this member, commit progress.
    #[arg(long)]
    pub(crate) group: Option<String>,
    /// Seconds a rebalance round stays open (with --group; more than 0, at most a day; 0.2.3 uses 60).
    #[arg(long, value_name = "SECONDS", default_value = "60", value_parser = flags::window_secs, allow_negative_numbers = true)]
    pub(crate) rebalance_window: Duration,
    /// Commit after every N messages written out (with --group; 1 or more). Also on a
    /// clean exit (end of log, --max, --for, SIGINT, SIGTERM), never after a failed write.
    #[arg(long, value_name = "N", default_value = "100", value_parser = flags::commit_every, allow_negative_numbers = true)]
    pub(crate) commit_every: u64,
    /// Start a round every SECONDS so dead members' partitions move (with --group; 0.1 to a day).
    #[arg(long, value_name = "SECONDS", value_parser = flags::auto_round_secs, allow_negative_numbers = true)]
    pub(crate) auto_round: Option<Duration>,
}

#[derive(Args, Debug)]
pub(crate) struct SearchArgs {
    pub(crate) topic: String,
    #[command(flatten)]
    pub(crate) select: SelectArgs,
    /// Print only the number of matches.
    #[arg(long)]
    pub(crate) count: bool,
    /// Print at most N matches (the first N in timeline order).
    #[arg(long, value_name = "N")]
    pub(crate) limit: Option<u64>,
    /// One JSON object a line, as consume --json prints them.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Which messages `search`, `export` and `copy` take: all conditions must hold; none: the whole topic.
#[derive(Args, Debug, Clone)]
pub(crate) struct SelectArgs {
    /// A CEL filter (as `search --where`, docs/QUERY.md).
    #[arg(long = "where", value_name = "EXPR")]
    pub(crate) filter: Option<String>,
    /// Text the payload contains (case-insensitive unless --case-sensitive).
    #[arg(long)]
    pub(crate) text: Option<String>,
    /// A regular expression the payload matches.
    #[arg(long, conflicts_with = "text")]
    pub(crate) regex: Option<String>,
    /// Match --text or --regex with case as given.
    #[arg(long)]
    pub(crate) case_sensitive: bool,
    /// Only messages with this key.
    #[arg(long)]
    pub(crate) key: Option<String>,
    /// Only this partition (repeat for several).
    #[arg(long = "partition")]
    pub(crate) partitions: Vec<u32>,
    /// Only messages stamped at or after this RFC 3339 time (2026-11-30T12:00:00Z).
    #[arg(long, value_parser = flags::rfc3339)]
    pub(crate) since: Option<f64>,
    /// Only messages stamped at or before this RFC 3339 time.
    #[arg(long, value_parser = flags::rfc3339)]
    pub(crate) until: Option<f64>,
}

#[derive(Args, Debug)]
pub(crate) struct ExportArgs {
    pub(crate) topic: String,
    #[command(flatten)]
    pub(crate) select: SelectArgs,
    /// jsonl (as consume --json prints), csv (a header row, then partition, offset, timestamp,
    /// key, kind, class, payload), or store (a new store folder, --output, that 0.2.3 opens).
    #[arg(long, default_value = "jsonl", value_parser = ["jsonl", "csv", "store"])]
    pub(crate) format: String,
    /// The file to write (standard output when not given); for --format store, the store's folder.
    #[arg(long, short)]
    pub(crate) output: Option<PathBuf>,
    /// With --format store: the topic's name there (default: the same name).
    #[arg(long)]
    pub(crate) as_topic: Option<String>,
}

#[derive(Args, Debug)]
pub(crate) struct ImportArgs {
    pub(crate) topic: String,
    /// The file to read (- for standard input).
    pub(crate) file: PathBuf,
    /// jsonl or csv (default: csv for a .csv file, else jsonl).
    #[arg(long, value_parser = ["jsonl", "csv"])]
    pub(crate) format: Option<String>,
    /// Read and check every line, and say how many messages would go to which partitions; write nothing.
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Keep the file's timestamps (every line needs one) instead of stamping now.
    #[arg(long)]
    pub(crate) keep_timestamps: bool,
    /// Report each bad line on stderr and go on (else the first bad line stops the import,
    /// everything before it written).
    #[arg(long)]
    pub(crate) skip_bad: bool,
    /// CSV: the key's column.
    #[arg(long, default_value = "key")]
    pub(crate) key_column: String,
    /// CSV: the payload's column.
    #[arg(long, default_value = "payload")]
    pub(crate) payload_column: String,
    /// CSV: what the payload column holds: auto (export's kind and class columns; text
    /// without them), text, json (sent as text), hex (bytes) or typed:CLASS (the fields).
    #[arg(long, default_value = "auto")]
    pub(crate) payload_kind: String,
    /// CSV: the timestamp's column (RFC 3339 or UNIX seconds), for --keep-timestamps.
    #[arg(long, default_value = "timestamp")]
    pub(crate) timestamp_column: String,
    /// Print the report as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Args, Debug)]
pub(crate) struct CopyArgs {
    pub(crate) topic: String,
    /// The target: TOPIC in this store, or STORE:TOPIC (a store folder, then the topic).
    #[arg(long)]
    pub(crate) to: String,
    #[command(flatten)]
    pub(crate) select: SelectArgs,
    /// Keep the messages' timestamps instead of stamping them now.
    #[arg(long)]
    pub(crate) keep_timestamps: bool,
    /// At most N messages a second, in any second (sent in bursts of N/50).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) rate: Option<u64>,
}

/// `twainmq mirror`. Secrets come from a file or an environment variable, never from the
/// command line (other users can read a process's arguments).
#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("way").required(true).args(["to", "from"])))]
pub(crate) struct MirrorArgs {
    /// Topics to mirror; SOURCE:TARGET mirrors SOURCE into a topic named TARGET.
    #[arg(required = true, value_name = "TOPIC")]
    pub(crate) topics: Vec<String>,
    /// Mirror the store's topics to this cluster: kafka://HOST:PORT[,HOST:PORT...].
    #[arg(long, value_name = "URL")]
    pub(crate) to: Option<String>,
    /// Mirror this cluster's topics into the store: kafka://HOST:PORT[,HOST:PORT...].
    #[arg(long, value_name = "URL")]
    pub(crate) from: Option<String>,
    /// The target topic's name (one TOPIC only; SOURCE:TARGET does the same for several).
    #[arg(long = "as", value_name = "NAME")]
    pub(crate) as_name: Option<String>,
    /// Keep going: new messages go across as they are written, until Ctrl-C or SIGTERM.
    #[arg(long)]
    pub(crate) follow: bool,
    /// Also translate consumer groups' committed offsets (groups of the same name, written
    /// only while the target group has no live member, only forward).
    #[arg(long)]
    pub(crate) groups: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    pub(crate) json: bool,
    /// Talk TLS to the cluster (implied by the --tls-* options).
    #[arg(long)]
    pub(crate) tls: bool,
    /// CA certificates to trust (PEM) instead of the built-in web roots.
    #[arg(long, value_name = "FILE")]
    pub(crate) tls_ca: Option<PathBuf>,
    /// A client certificate (PEM), for mutual TLS (with --tls-key).
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub(crate) tls_cert: Option<PathBuf>,
    /// The client certificate's key (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub(crate) tls_key: Option<PathBuf>,
    /// SASL mechanism: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512.
    #[arg(long, value_name = "MECHANISM", requires = "sasl_username")]
    pub(crate) sasl_mechanism: Option<String>,
    /// SASL user name.
    #[arg(long, value_name = "NAME", requires = "sasl_mechanism")]
    pub(crate) sasl_username: Option<String>,
    /// A file whose first line is the SASL password.
    #[arg(long, value_name = "FILE", conflicts_with = "sasl_password_env")]
    pub(crate) sasl_password_file: Option<PathBuf>,
    /// An environment variable holding the SASL password.
    #[arg(long, value_name = "VAR")]
    pub(crate) sasl_password_env: Option<String>,
    /// --from: the key type of a store topic made for a Kafka topic that carries no TwainMQ
    /// config: any (every Kafka key, the null key included), text, bytes, or 0.2.3's u8, u16,
    /// u32, u64, charN (integer keys are N-byte big-endian in Kafka). text, bytes and any are
    /// the format's next version, which 0.2.3 refuses to open.
    #[arg(long, value_name = "TYPE")]
    pub(crate) key_type: Option<String>,
    /// --from: a store topic made for a Kafka topic takes values over one 4,096-byte line (up
    /// to 1 MiB, Kafka's default, unless --max-message-bytes says): the format's next version.
    #[arg(long)]
    pub(crate) large_messages: bool,
    /// --from: the largest value such a topic takes, in bytes (1 to 67108864; implies
    /// --large-messages).
    #[arg(long, value_name = "BYTES")]
    pub(crate) max_message_bytes: Option<u64>,
    /// --from: that topic's typed messages' names, comma-separated.
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    pub(crate) message_types: Vec<String>,
    /// --from: what a value other producers wrote is (no twainmq.kind header): auto (text when
    /// UTF-8, else bytes), text or bytes.
    #[arg(long, value_name = "KIND", default_value = "auto")]
    pub(crate) values: String,
    /// --from: mirror records that carry headers of their own without them (a TwainMQ message
    /// has none); without it such a record stops the mirror, named.
    #[arg(long)]
    pub(crate) drop_headers: bool,
    /// How long a request to the cluster may take before it counts as failed.
    #[arg(long, value_name = "SECONDS", default_value = "5", value_parser = flags::kafka_timeout_secs)]
    pub(crate) timeout: Duration,
    /// --to: how long a mirror that died holds the target (its membership in the consumer group
    /// twainmq-mirror.TOPIC): a restarted mirror waits at most this long.
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = flags::kafka_timeout_secs)]
    pub(crate) lease_timeout: Duration,
}

#[derive(Subcommand, Debug)]
pub(crate) enum RetentionCmd {
    /// Show a topic's retention setting.
    Show {
        topic: String,
        #[arg(long)]
        json: bool,
    },
    /// Set a topic's retention: day files older than DAYS go, and the oldest go while a
    /// partition holds more than BYTES. A limit not given stays as it was; 0 removes it
    /// (both gone: the setting is removed).
    Set {
        topic: String,
        #[arg(long)]
        days: Option<u64>,
        #[arg(long)]
        bytes: Option<u64>,
    },
    /// Delete the files retention lets go, in one topic or every topic with a setting
    /// (for cron). Always lists what goes; never the newest file of a partition, never a file
    /// with messages a group has not committed past, unless --force.
    Apply {
        topic: Option<String>,
        /// List what would go, delete nothing.
        #[arg(long)]
        dry_run: bool,
        /// Also delete files holding messages a group has not consumed.
        #[arg(long)]
        force: bool,
        #[arg(long)]
        json: bool,
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
