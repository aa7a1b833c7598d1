//! The search's wire types: what a search looks for, what it says while it
//! runs, the rows of its hits, and whether a filter compiles.

use serde::{Deserialize, Serialize};
use specta::Type;
use twainmq::scan;

use crate::messages::wire::MessageRow;
use crate::wire::{Count, ErrorDto, KeyText};

/// What a search looks for; every condition given must hold.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct SearchQuery {
    /// Only messages with this key (empty: any).
    pub key: Option<KeyText>,
    pub text: Option<String>,
    pub regex: bool,
    pub case_sensitive: bool,
    pub partitions: Option<Vec<u32>>,
    /// Only messages stamped at or after this UNIX time (seconds).
    pub since: Option<f64>,
    /// Only messages stamped at or before this UNIX time (seconds).
    pub until: Option<f64>,
    /// A CEL filter (docs/QUERY.md); compiled before anything is read.
    pub filter: Option<String>,
}

impl TryFrom<&SearchQuery> for scan::Query {
    type Error = ErrorDto;
    fn try_from(q: &SearchQuery) -> Result<Self, ErrorDto> {
        let filter = match q.filter.as_deref().map(str::trim).filter(|f| !f.is_empty()) {
            Some(f) => Some(twainmq::Filter::compile(f)?),
            None => None,
        };
        Ok(scan::Query {
            key: q.key.as_ref().map(|k| k.0.clone()).filter(|k| !k.is_empty()),
            text: q.text.clone().filter(|t| !t.is_empty()),
            regex: q.regex,
            case_sensitive: q.case_sensitive,
            partitions: q.partitions.clone(),
            since: q.since,
            until: q.until,
            filter,
        })
    }
}

/// A search session's id: its hits stay in the backend, read by index ranges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(transparent)]
pub struct SearchId(pub u32);

/// How a search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum SearchFinish {
    /// Every message was looked at.
    Done,
    /// Stopped on request: the hits are those found until then.
    Cancelled,
}

/// What a running search says: progress (at most every 50 ms), then done or failed.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
#[serde(tag = "event")]
pub enum SearchEvent {
    /// `hits` found so far; the first `settled` of them, in timeline order,
    /// can be read already with `search_rows` (nothing still unread comes before them).
    #[serde(rename = "progress")]
    Progress { scanned: Count, total: Count, hits: Count, settled: Count },
    /// The hits are counted and ordered: read them with `search_rows`.
    #[serde(rename = "done")]
    Done { scanned: Count, total: Count, hits: Count, finish: SearchFinish },
    #[serde(rename = "failed")]
    Failed { error: ErrorDto },
}

impl From<(scan::Progress, u64)> for SearchEvent {
    fn from((p, settled): (scan::Progress, u64)) -> Self {
        SearchEvent::Progress { scanned: p.scanned.into(), total: p.total.into(), hits: p.hits.into(), settled: settled.into() }
    }
}

impl From<(scan::Finish, scan::Progress, u64)> for SearchEvent {
    fn from((finish, p, hits): (scan::Finish, scan::Progress, u64)) -> Self {
        SearchEvent::Done { scanned: p.scanned.into(), total: p.total.into(), hits: hits.into(), finish: finish.into() }
    }
}

impl From<scan::Finish> for SearchFinish {
    fn from(f: scan::Finish) -> Self {
        match f {
            scan::Finish::Cancelled => SearchFinish::Cancelled,
            // `find` never stops at a limit: every hit is kept.
            scan::Finish::Done => SearchFinish::Done,
        }
    }
}

/// Rows of a search session, by their place among its hits.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct SearchRows {
    /// The place of the first row among the hits (0: the oldest hit on the timeline).
    pub from: Count,
    /// Hits whose line is no longer there (the topic was cut or replaced since) are left out.
    pub rows: Vec<MessageRow>,
    /// The session's hits readable so far (all of them once it has ended).
    pub hits: Count,
}

/// Whether a CEL filter compiles, and where it does not.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
#[serde(tag = "check", rename_all = "snake_case")]
pub enum FilterCheck {
    /// It compiles; `fields` are the paths under `value` it reads.
    Valid { fields: Vec<String> },
    /// It does not: the place (1-based; the column in characters) and why.
    Invalid { line: u32, column: u32, reason: String },
}

impl From<Result<twainmq::Filter, twainmq::Error>> for FilterCheck {
    fn from(r: Result<twainmq::Filter, twainmq::Error>) -> Self {
        match r {
            Ok(f) => FilterCheck::Valid { fields: f.value_fields() },
            Err(twainmq::Error::InvalidFilter { line, column, reason, .. }) => FilterCheck::Invalid { line, column, reason },
            Err(e) => FilterCheck::Invalid { line: 1, column: 1, reason: e.to_string() },
        }
    }
}

/// A `value` field a filter reads that no message the search looked at has (a typo, or a
/// field of other messages), and the fields of the topic's newest messages that are near it.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct MissingField {
    /// As the filter names it: `value.contry`.
    pub field: String,
    /// Field paths seen in the newest messages, nearest first (`value.country`).
    pub near: Vec<String>,
}
