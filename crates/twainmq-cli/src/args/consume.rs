//! The arguments of `consume`.

#[allow(clippy::wildcard_imports)]
use super::*;

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
