//! Types that cross to the webview. Offsets, counts and u64 keys travel as
//! decimal strings: a JS number would silently round them above 2^53.

use serde::{Deserialize, Serialize};
use specta::Type;
use twainmq::{Key, Message, Payload};

/// Every command error: a stable code to branch on and a message to show.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct ErrorDto {
    pub code: String,
    pub message: String,
}

impl From<twainmq::Error> for ErrorDto {
    fn from(e: twainmq::Error) -> Self {
        ErrorDto { code: e.code().to_string(), message: e.to_string() }
    }
}

impl ErrorDto {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        ErrorDto { code: code.to_string(), message: message.into() }
    }
}

#[derive(Debug, Clone, Serialize, Type)]
pub struct TopicSummary {
    pub name: String,
    pub key_type: String,
    pub partitions: u32,
    pub message_types: Vec<String>,
    pub messages: String,
    pub bytes: String,
    /// UNIX seconds of the last write.
    pub last_write: Option<f64>,
    /// Set when the topic's config cannot be read.
    pub error: Option<String>,
}

impl From<twainmq::TopicSummary> for TopicSummary {
    fn from(s: twainmq::TopicSummary) -> Self {
        let none = twainmq::TopicTotals { messages: 0, bytes: 0, last_write: None };
        let (totals, error) = match s.totals {
            Some(Ok(t)) => (t, None),
            Some(Err(e)) => (none, Some(e)),
            None => (none, None),
        };
        match s.config {
            Ok(c) => TopicSummary {
                name: s.name,
                key_type: c.key_type.to_string(),
                partitions: c.partitions,
                message_types: c.message_types.iter().map(|(n, _)| n.clone()).collect(),
                messages: totals.messages.to_string(),
                bytes: totals.bytes.to_string(),
                last_write: totals.last_write,
                error,
            },
            Err(error) => TopicSummary {
                name: s.name,
                key_type: String::new(),
                partitions: 0,
                message_types: Vec::new(),
                messages: "0".into(),
                bytes: "0".into(),
                last_write: None,
                error: Some(error),
            },
        }
    }
}

#[derive(Debug, Clone, Serialize, Type)]
pub struct GroupSummary {
    pub name: String,
    pub topic: Option<String>,
    pub members: u32,
    pub lag: String,
}

impl From<twainmq::GroupSummary> for GroupSummary {
    fn from(g: twainmq::GroupSummary) -> Self {
        match g.state {
            Ok(s) => {
                GroupSummary { name: g.name, topic: s.topic, members: u32::try_from(s.members).unwrap_or(u32::MAX), lag: s.lag.to_string() }
            }
            Err(_) => GroupSummary { name: g.name, topic: None, members: 0, lag: "0".into() },
        }
    }
}

#[derive(Debug, Clone, Serialize, Type)]
pub struct StoreInfo {
    pub root: String,
    pub topics: Vec<TopicSummary>,
    pub groups: Vec<GroupSummary>,
    /// File watching is on: changes appear without refreshing.
    pub watching: bool,
}

/// Where a line is on disk, and its raw text.
#[derive(Debug, Clone, Serialize, Type, PartialEq)]
pub struct RawLine {
    pub file: String,
    /// 1-based line number in `file`.
    pub line: String,
    /// The line as stored (ASCII for well-formed lines), without its newline.
    pub raw: String,
}

#[derive(Debug, Clone, Serialize, Type)]
pub struct FileDetail {
    pub name: String,
    pub day: String,
    pub first: String,
    pub lines: String,
    pub partial_bytes: String,
    pub bytes: String,
    pub modified: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Type)]
pub struct PartitionDetail {
    pub partition: u32,
    pub start: String,
    pub end: String,
    pub bytes: String,
    pub files: Vec<FileDetail>,
}

#[derive(Debug, Clone, Serialize, Type)]
pub struct TopicDetail {
    pub summary: TopicSummary,
    pub partitions: Vec<PartitionDetail>,
    pub unknown_files: Vec<String>,
    /// Which topic of this name this is: an opaque token of its folder and
    /// config file that changes when the topic is deleted and made again, or
    /// its folder deleted (by any process), never on appends.
    pub incarnation: Option<String>,
}

/// One message as the table and detail pane show it.
#[derive(Debug, Clone, Serialize, Type, PartialEq)]
pub struct MessageRow {
    pub partition: u32,
    pub offset: String,
    pub key: String,
    /// `int` or `str`.
    pub key_kind: String,
    /// UNIX seconds.
    pub timestamp: f64,
    /// `str`, `bytes` or `dataclass`.
    pub kind: String,
    pub text: Option<String>,
    pub hex: Option<String>,
    pub class: Option<String>,
    pub type_id: Option<u32>,
    /// Typed fields as compact JSON, exactly as stored (integers of any size, NaN).
    pub fields_json: Option<String>,
    /// The same, indented, with characters instead of \u escapes: for display.
    pub fields_pretty: Option<String>,
    /// Payload size in bytes (text: UTF-8 bytes).
    pub size: u32,
}

impl From<&Message> for MessageRow {
    fn from(m: &Message) -> Self {
        let (key, key_kind) = match &m.key {
            Key::Int(v) => (v.to_string(), "int"),
            Key::Str(s) => (s.clone(), "str"),
        };
        let (kind, text, hex, class, type_id, fields_json, size) = match &m.payload {
            Payload::Text(s) => ("str", Some(s.clone()), None, None, None, None, s.len()),
            Payload::Bytes(b) => ("bytes", None, Some(to_hex(b)), None, None, None, b.len()),
            Payload::Typed(t) => ("dataclass", None, None, t.class.clone(), Some(u32::from(t.type_id)), Some(t.json.clone()), t.json.len()),
        };
        let fields_pretty = fields_json.as_deref().and_then(|j| twainmq::internals::pyjson::python_pretty(j).ok());
        MessageRow {
            partition: m.partition,
            offset: m.offset.to_string(),
            key,
            key_kind: key_kind.into(),
            timestamp: m.timestamp,
            kind: kind.into(),
            text,
            hex,
            class,
            type_id,
            fields_json,
            fields_pretty,
            size: u32::try_from(size).unwrap_or(u32::MAX),
        }
    }
}

fn to_hex(b: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    b.iter().flat_map(|x| [HEX[usize::from(x >> 4)] as char, HEX[usize::from(x & 15)] as char]).collect()
}

/// A line that is not a message, shown in place so nothing vanishes silently.
#[derive(Debug, Clone, Serialize, Type, PartialEq)]
pub struct DamagedRow {
    pub partition: u32,
    pub offset: String,
    pub file: String,
    pub line: String,
    pub problem: String,
}

#[derive(Debug, Clone, Serialize, Type, PartialEq)]
#[serde(tag = "row")]
pub enum Row {
    #[serde(rename = "message")]
    Message(MessageRow),
    #[serde(rename = "damaged")]
    Damaged(DamagedRow),
}

/// A page of one partition.
#[derive(Debug, Clone, Serialize, Type)]
pub struct Page {
    pub partition: u32,
    pub rows: Vec<Row>,
    /// Offset after the last row.
    pub next: String,
    /// The partition's end offset when read.
    pub end: String,
    /// The topic's incarnation the rows come from (see [`TopicDetail::incarnation`]):
    /// a page of another incarnation than the one shown is not of that topic.
    pub incarnation: Option<String>,
}

/// What deleting a topic removed.
#[derive(Debug, Clone, Serialize, Type, PartialEq)]
pub struct DeletedTopic {
    pub topic: String,
    /// The consumer groups that read it, deleted with it (their commits would
    /// otherwise apply to a topic made again under the same name).
    pub groups: Vec<String>,
}

#[derive(Debug, Clone, Deserialize, Type)]
pub struct SearchQuery {
    pub key: Option<String>,
    pub text: Option<String>,
    pub regex: bool,
    pub case_sensitive: bool,
    pub partitions: Option<Vec<u32>>,
    /// Most hits to return.
    pub limit: u32,
}

#[derive(Debug, Clone, Serialize, Type)]
#[serde(tag = "event")]
pub enum SearchEvent {
    #[serde(rename = "hits")]
    Hits { rows: Vec<MessageRow> },
    #[serde(rename = "progress")]
    Progress { scanned: String, total: String, hits: String },
    #[serde(rename = "done")]
    Done { scanned: String, hits: String, finish: String },
    #[serde(rename = "failed")]
    Failed { error: ErrorDto },
}

#[derive(Debug, Clone, Deserialize, Type)]
pub struct ProducePayload {
    /// `text`, `json` (a typed message of `class`) or `hex`.
    pub kind: String,
    pub body: String,
    pub class: Option<String>,
}

#[derive(Debug, Clone, Serialize, Type)]
pub struct Produced {
    pub partition: u32,
    pub offset: Option<String>,
}

#[derive(Debug, Clone, Deserialize, Type)]
pub struct NewTopic {
    pub name: String,
    pub key_type: String,
    pub partitions: u32,
    pub message_types: Vec<String>,
}

/// Pushed when files in the open store change (from the file watcher).
#[derive(Debug, Clone, Serialize, Deserialize, Type, tauri_specta::Event)]
pub struct StoreChanged {
    pub topics: Vec<String>,
    pub groups: Vec<String>,
    pub structure: bool,
}

#[derive(Debug, Clone, Serialize, Type)]
pub struct MemberDto {
    pub id: u32,
    pub partitions: Vec<u32>,
    pub joined_at: Option<f64>,
    /// When it last wrote a record: members write in every round and on every commit.
    pub last_seen_at: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Type)]
pub struct PartitionProgressDto {
    pub partition: u32,
    /// Latest commit ("-1": the end when taken), if any.
    pub committed: Option<String>,
    pub end: String,
    pub lag: String,
    /// UNIX seconds of the oldest message not yet committed.
    pub oldest_unconsumed_at: Option<f64>,
    pub owner: Option<u32>,
}

#[derive(Debug, Clone, Serialize, Type)]
pub struct OfferDto {
    pub id: u32,
    pub own: Vec<u32>,
    pub partitions: Vec<u32>,
    pub at: f64,
}

#[derive(Debug, Clone, Serialize, Type)]
pub struct RoundDto {
    pub begin_offset: String,
    pub started_by: u32,
    pub started_at: f64,
    pub ends_at: f64,
    pub offers: Vec<OfferDto>,
    pub ended_at: Option<f64>,
    pub ended_by: Option<u32>,
    pub superseded: bool,
    /// Member id (as text) to partitions.
    pub assignment: std::collections::BTreeMap<String, Vec<u32>>,
    pub confirms: std::collections::BTreeMap<String, Vec<u32>>,
}

#[derive(Debug, Clone, Serialize, Type)]
pub struct GroupDetail {
    pub name: String,
    pub topic: Option<String>,
    pub topic_candidates: Vec<String>,
    pub members: Vec<MemberDto>,
    pub partitions: Vec<PartitionProgressDto>,
    pub open_round: Option<RoundDto>,
    /// Newest first.
    pub rounds: Vec<RoundDto>,
    pub records: String,
    pub last_record_at: Option<f64>,
    /// UNIX seconds now, by the backend's clock (for countdowns).
    pub now: f64,
}

#[derive(Debug, Clone, Deserialize, Type)]
pub struct ResetRequest {
    /// `earliest`, `latest`, `offset` or `time`.
    pub to: String,
    pub offset: Option<String>,
    /// UNIX seconds, for `time`.
    pub time: Option<f64>,
    /// All partitions when absent.
    pub partitions: Option<Vec<u32>>,
    pub dry_run: bool,
    /// The group's topic, for a 0.2.3 group that several topics could belong to.
    pub topic: Option<String>,
}

#[derive(Debug, Clone, Serialize, Type)]
pub struct ResetRowDto {
    pub partition: u32,
    pub before: Option<String>,
    pub after: String,
    pub start: String,
    pub end: String,
}

#[derive(Debug, Clone, Serialize, Type)]
pub struct ResetPlanDto {
    pub group: String,
    pub topic: String,
    pub rows: Vec<ResetRowDto>,
    pub live_members: Vec<u32>,
    pub applied: bool,
}

/// A member running inside the app for the balancing demo.
#[derive(Debug, Clone, Serialize, Type)]
pub struct DemoMember {
    pub handle: String,
    /// Its id in the group (0 until it has joined).
    pub member_id: u32,
    pub topic: String,
    pub group: String,
    pub window_ms: u32,
    /// Messages a second it processes at most (0: no limit).
    pub rate: u32,
    /// `joining`, `running`, `stopped`, `killed` or `failed: ...`.
    pub status: String,
    pub partitions: Vec<u32>,
    pub consumed: String,
    /// Messages consumed in each of the last seconds, oldest first.
    pub per_second: Vec<u32>,
}
