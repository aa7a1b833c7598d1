//! The arguments of `export`, `import` and `copy`.

#[allow(clippy::wildcard_imports)]
use super::*;

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
