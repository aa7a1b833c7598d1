//! The arguments of `search`, and the selection `export` and `copy` take too.

#[allow(clippy::wildcard_imports)]
use super::*;

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
