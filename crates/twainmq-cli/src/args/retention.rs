//! The arguments of `retention`: show, set, apply.

#[allow(clippy::wildcard_imports)]
use super::*;

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
