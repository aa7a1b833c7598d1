//! The arguments of `groups`: list, describe, reset, rebalance and the rest.

#[allow(clippy::wildcard_imports)]
use super::*;

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
