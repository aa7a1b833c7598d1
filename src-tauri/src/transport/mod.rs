//! Types that cross to the webview, each with the conversion from the engine's
//! type beside it. Offsets, counts and u64 keys travel as decimal strings (see
//! [`wire`]): a JS number would silently round them above 2^53.

pub mod about;
pub mod groups;
pub mod transfer;
pub mod window;
pub mod wire;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use specta::Type;
use twainmq::group;
use twainmq::scan;
use twainmq::{FileInfo, Key, Message, Outgoing, PartitionInfo, Payload, TopicDescription};

pub use about::About;
pub use groups::*;
pub use transfer::*;
pub use window::*;
pub use wire::*;

/// Every command error: a stable code to branch on and a message to show.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct ErrorDto {
    pub code: ErrorCode,
    pub message: String,
}

impl From<twainmq::Error> for ErrorDto {
    fn from(e: twainmq::Error) -> Self {
        ErrorDto { code: ErrorCode::of_engine(e.code()), message: e.to_string() }
    }
}

impl ErrorDto {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ErrorDto { code, message: message.into() }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct TopicSummary {
    pub name: String,
    /// `u8`, `u16`, `u32`, `u64` or `charN`; empty when the config cannot be read.
    pub key_type: String,
    pub partitions: u32,
    pub message_types: Vec<String>,
    pub messages: Count,
    pub bytes: Bytes,
    /// UNIX seconds of the latest partition file modification (a file time).
    pub last_write: Option<f64>,
    /// UNIX seconds of the newest message (its own timestamp): what "last write" shows.
    pub last_message: Option<f64>,
    /// Set when the topic's config cannot be read.
    pub error: Option<String>,
}

impl From<&TopicDescription> for TopicSummary {
    fn from(d: &TopicDescription) -> Self {
        TopicSummary {
            name: d.name.clone(),
            key_type: d.key_type.to_string(),
            partitions: d.partitions,
            message_types: d.message_types.keys().cloned().collect(),
            messages: d.messages.into(),
            bytes: d.bytes.into(),
            last_write: d.last_write,
            last_message: d.last_message,
            error: None,
        }
    }
}

impl TopicSummary {
    /// A topic that cannot be described (its config is unreadable, say).
    pub fn unreadable(name: &str, e: &twainmq::Error) -> Self {
        TopicSummary {
            name: name.to_string(),
            key_type: String::new(),
            partitions: 0,
            message_types: Vec::new(),
            messages: Count(0),
            bytes: Bytes(0),
            last_write: None,
            last_message: None,
            error: Some(e.to_string()),
        }
    }
}

/// The engine's listing row, as the sidebar shows it: counts zero and the
/// reason in `error` when the config or the files cannot be read.
impl From<twainmq::TopicSummary> for TopicSummary {
    fn from(s: twainmq::TopicSummary) -> Self {
        let (totals, error) = match s.totals {
            Some(Ok(t)) => (Some(t), None),
            Some(Err(e)) => (None, Some(e)),
            None => (None, None),
        };
        match s.config {
            Ok(c) => TopicSummary {
                name: s.name,
                key_type: c.key_type.to_string(),
                partitions: c.partitions,
                message_types: c.message_types.iter().map(|(n, _)| n.clone()).collect(),
                messages: Count(totals.map_or(0, |t| t.messages)),
                bytes: Bytes(totals.map_or(0, |t| t.bytes)),
                last_write: totals.and_then(|t| t.last_write),
                last_message: totals.and_then(|t| t.last_message),
                error,
            },
            Err(error) => TopicSummary {
                name: s.name,
                key_type: String::new(),
                partitions: 0,
                message_types: Vec::new(),
                messages: Count(0),
                bytes: Bytes(0),
                last_write: None,
                last_message: None,
                error: Some(error),
            },
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct GroupSummary {
    pub name: String,
    pub topic: Option<String>,
    /// Members placed in the group by the log's records, live or not.
    pub members: u32,
    /// Those of them live (inferred from the log: 0.2.3 has no heartbeat).
    pub live_members: u32,
    pub state: GroupPhaseDto,
    pub lag: Count,
}

/// A group's state, inferred from its log (docs/FORMAT.md, "Member liveness and group state").
#[derive(Debug, Clone, Copy, Serialize, Deserialize, Type, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum GroupPhaseDto {
    Stable,
    Rebalancing,
    Stuck,
    Empty,
    /// The group log could not be read.
    Unknown,
}

impl From<group::GroupPhase> for GroupPhaseDto {
    fn from(p: group::GroupPhase) -> Self {
        match p {
            group::GroupPhase::Stable => GroupPhaseDto::Stable,
            group::GroupPhase::Rebalancing => GroupPhaseDto::Rebalancing,
            group::GroupPhase::Stuck => GroupPhaseDto::Stuck,
            group::GroupPhase::Empty => GroupPhaseDto::Empty,
        }
    }
}

fn count32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl From<&group::GroupDescription> for GroupSummary {
    fn from(d: &group::GroupDescription) -> Self {
        GroupSummary {
            name: d.group.clone(),
            topic: d.topic.clone(),
            members: count32(d.members.len()),
            live_members: count32(d.live_members),
            state: d.state.into(),
            lag: d.partitions.iter().map(|p| p.lag).sum::<u64>().into(),
        }
    }
}

impl From<twainmq::GroupSummary> for GroupSummary {
    fn from(g: twainmq::GroupSummary) -> Self {
        match g.state {
            Ok(s) => GroupSummary {
                name: g.name,
                topic: s.topic,
                members: count32(s.members),
                live_members: count32(s.live_members),
                state: s.phase.into(),
                lag: Count(s.lag),
            },
            Err(_) => GroupSummary::unreadable(&g.name),
        }
    }
}

impl GroupSummary {
    /// A group that cannot be described.
    pub fn unreadable(name: &str) -> Self {
        GroupSummary { name: name.to_string(), topic: None, members: 0, live_members: 0, state: GroupPhaseDto::Unknown, lag: Count(0) }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct StoreInfo {
    pub root: String,
    pub topics: Vec<TopicSummary>,
    pub groups: Vec<GroupSummary>,
    /// File watching is on: changes appear without refreshing.
    pub watching: bool,
}

/// Where a line is on disk, and its raw text.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct RawLine {
    pub file: String,
    /// 1-based line number in `file`.
    pub line: LineNo,
    /// The line as stored (ASCII for well-formed lines), without its newline.
    pub raw: String,
}

impl From<(&std::path::Path, u64, &[u8])> for RawLine {
    fn from((path, line, raw): (&std::path::Path, u64, &[u8])) -> Self {
        RawLine { file: file_name(path), line: line.into(), raw: String::from_utf8_lossy(raw).into_owned() }
    }
}

fn file_name(path: &std::path::Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct FileDetail {
    pub name: String,
    pub day: String,
    pub first: Offset,
    pub lines: Count,
    pub partial_bytes: Bytes,
    pub bytes: Bytes,
    pub modified: Option<f64>,
}

impl From<&FileInfo> for FileDetail {
    fn from(f: &FileInfo) -> Self {
        FileDetail {
            name: f.name.clone(),
            day: f.day.clone(),
            first: f.first.into(),
            lines: f.lines.into(),
            partial_bytes: f.partial_bytes.into(),
            bytes: f.bytes.into(),
            modified: f.modified,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct PartitionDetail {
    pub partition: u32,
    pub start: Offset,
    pub end: Offset,
    pub bytes: Bytes,
    /// UNIX seconds of the newest message's timestamp (None: no message).
    pub last_message: Option<f64>,
    pub files: Vec<FileDetail>,
}

impl From<&PartitionInfo> for PartitionDetail {
    fn from(p: &PartitionInfo) -> Self {
        PartitionDetail {
            partition: p.partition,
            start: p.start.into(),
            end: p.end.into(),
            bytes: p.bytes.into(),
            last_message: p.last_message,
            files: p.files.iter().map(FileDetail::from).collect(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct TopicDetail {
    pub summary: TopicSummary,
    pub partitions: Vec<PartitionDetail>,
    pub unknown_files: Vec<String>,
    /// Which topic of this name this is: an opaque token of its folder and
    /// config file that changes when the topic is deleted and made again, or
    /// its folder deleted (by any process), never on appends.
    pub incarnation: Option<Incarnation>,
}

impl TopicDetail {
    pub fn new(d: &TopicDescription, incarnation: Option<Incarnation>) -> Self {
        TopicDetail {
            summary: TopicSummary::from(d),
            partitions: d.partition_details.iter().map(PartitionDetail::from).collect(),
            unknown_files: d.unknown_files.clone(),
            incarnation,
        }
    }
}

/// One message as the table and detail pane show it.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct MessageRow {
    pub partition: u32,
    pub offset: Offset,
    pub key: KeyText,
    pub key_kind: KeyKind,
    /// UNIX seconds.
    pub timestamp: f64,
    pub kind: PayloadKind,
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
            Key::Int(v) => (v.to_string(), KeyKind::Int),
            Key::Str(s) => (s.clone(), KeyKind::Str),
            // Free keys (the format's next version) as text until the app shows key kinds.
            Key::Bytes(b) => (format!("0x{}", to_hex(b)), KeyKind::Str),
            Key::Null => ("null".to_string(), KeyKind::Str),
        };
        let (kind, text, hex, class, type_id, fields_json, size) = match &m.payload {
            Payload::Text(s) => (PayloadKind::Str, Some(s.clone()), None, None, None, None, s.len()),
            Payload::Bytes(b) => (PayloadKind::Bytes, None, Some(to_hex(b)), None, None, None, b.len()),
            Payload::Typed(t) => {
                (PayloadKind::Dataclass, None, None, t.class.clone(), Some(u32::from(t.type_id)), Some(t.json.clone()), t.json.len())
            }
        };
        let fields_pretty = fields_json.as_deref().and_then(|j| crate::engine::python_pretty(j).ok());
        MessageRow {
            partition: m.partition,
            offset: m.offset.into(),
            key: KeyText(key),
            key_kind,
            timestamp: m.timestamp,
            kind,
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
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct DamagedRow {
    pub partition: u32,
    pub offset: Offset,
    pub file: String,
    pub line: LineNo,
    pub problem: String,
}

impl DamagedRow {
    /// The row of a damaged line, from the reader's error (`None`: another error).
    pub fn of(e: &twainmq::Error) -> Option<DamagedRow> {
        match e {
            twainmq::Error::CorruptLine { partition, offset, path, line, problem, .. } => Some(DamagedRow {
                partition: *partition,
                offset: (*offset).into(),
                file: file_name(path),
                line: (*line).into(),
                problem: problem.to_string(),
            }),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
#[serde(tag = "row")]
pub enum Row {
    #[serde(rename = "message")]
    Message(MessageRow),
    #[serde(rename = "damaged")]
    Damaged(DamagedRow),
}

/// A page of one partition.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct Page {
    pub partition: u32,
    pub rows: Vec<Row>,
    /// Offset after the last row.
    pub next: Offset,
    /// The partition's end offset when read.
    pub end: Offset,
    /// The topic's incarnation the rows come from (see [`TopicDetail::incarnation`]):
    /// a page of another incarnation than the one shown is not of that topic.
    pub incarnation: Option<Incarnation>,
}

/// What deleting a topic removed.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct DeletedTopic {
    pub topic: String,
    /// The consumer groups that read it, deleted with it (their commits would
    /// otherwise apply to a topic made again under the same name).
    pub groups: Vec<String>,
}

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

/// Where a page of a topic's timeline (its partitions merged by timestamp) starts.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
#[serde(tag = "at", rename_all = "snake_case")]
pub enum TimelineAnchor {
    /// The oldest message on disk.
    Start,
    /// The end: nothing yet (a page after it is empty until messages come).
    End,
    /// The first message at or after a UNIX time, across the partitions.
    Time { unix: f64 },
    /// A cut of the timeline: one offset per partition (a page's `begin` or `end`).
    At { offsets: Vec<Offset> },
    /// About the message at this place on the timeline (0: the oldest), for a
    /// scroll bar dragged far: found by time, so the page's `base` says where it really is.
    Index { index: Count },
}

/// A page of a timeline, and the cuts of the pages beside it.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct TimelinePageDto {
    /// The partitions merged, in the order of the offset lists below.
    pub partitions: Vec<u32>,
    /// Oldest first.
    pub rows: Vec<MessageRow>,
    /// Per partition: where the page begins (the `before` of the page before it).
    pub begin: Vec<Offset>,
    /// Per partition: after the page's last message (where the page after it begins).
    pub end: Vec<Offset>,
    /// Per partition: the first offset on disk.
    pub first: Vec<Offset>,
    /// The place of the page's first row on the timeline: lines before `begin` (damaged ones too).
    pub base: Count,
    /// Lines on the timeline when read, from `first` to each partition's end.
    pub total: Count,
    pub incarnation: Option<Incarnation>,
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

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct ProducePayload {
    pub kind: ProduceKind,
    pub body: String,
    /// The message type of a typed (`json`) message.
    pub class: Option<String>,
}

impl TryFrom<&ProducePayload> for Outgoing {
    type Error = ErrorDto;
    fn try_from(p: &ProducePayload) -> Result<Self, ErrorDto> {
        match p.kind {
            ProduceKind::Text => Ok(Outgoing::Text(p.body.clone())),
            ProduceKind::Hex => {
                let clean: String = p.body.chars().filter(|c| !c.is_whitespace()).collect();
                hex::decode(&clean)
                    .map(Outgoing::Bytes)
                    .map_err(|_| ErrorDto::new(ErrorCode::InvalidHex, "the payload is not valid hex: use pairs of 0-9 a-f"))
            }
            ProduceKind::Json => {
                let class =
                    p.class.clone().ok_or_else(|| ErrorDto::new(ErrorCode::MissingClass, "pick the message type of a typed message"))?;
                Outgoing::typed_json(class, &p.body)
                    .map_err(|e| ErrorDto::new(ErrorCode::InvalidJson, format!("the payload is not valid JSON: {e}")))
            }
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct Produced {
    pub partition: u32,
    pub offset: Option<Offset>,
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct NewTopic {
    pub name: String,
    /// `u8`, `u16`, `u32`, `u64` or `charN`.
    pub key_type: String,
    pub partitions: u32,
    pub message_types: Vec<String>,
}

/// Pushed when files in the open store change (from the file watcher).
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq, tauri_specta::Event)]
pub struct StoreChanged {
    pub topics: Vec<String>,
    pub groups: Vec<String>,
    pub structure: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct MemberDto {
    pub id: u32,
    pub partitions: Vec<u32>,
    pub joined_at: Option<f64>,
    /// When it last wrote a record: members write in every round and on every commit.
    pub last_seen_at: Option<f64>,
    /// Live, stale or gone: inferred from the group log (0.2.3 has no heartbeat).
    pub status: MemberStatusDto,
    /// Why, in words.
    pub status_reason: String,
    /// One of ours (TwainMQ Desktop or CLI): it moves to an admin reset; a 0.2.3 member overwrites it.
    pub follows_resets: bool,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, Type, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum MemberStatusDto {
    Live,
    Stale,
    Gone,
}

impl From<group::MemberStatus> for MemberStatusDto {
    fn from(s: group::MemberStatus) -> Self {
        match s {
            group::MemberStatus::Live => MemberStatusDto::Live,
            group::MemberStatus::Stale => MemberStatusDto::Stale,
            group::MemberStatus::Gone => MemberStatusDto::Gone,
        }
    }
}

impl From<&group::MemberView> for MemberDto {
    fn from(m: &group::MemberView) -> Self {
        MemberDto {
            id: m.id,
            partitions: m.partitions.clone(),
            joined_at: m.joined_at,
            last_seen_at: m.last_seen_at,
            status: m.status.into(),
            status_reason: m.status_reason.clone(),
            follows_resets: m.follows_resets,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct PartitionProgressDto {
    pub partition: u32,
    /// Latest commit ("-1": the end when taken), if any.
    pub committed: Option<Commit>,
    pub end: Offset,
    pub lag: Count,
    /// UNIX seconds of the oldest message not yet committed.
    pub oldest_unconsumed_at: Option<f64>,
    pub owner: Option<u32>,
}

impl From<&group::PartitionProgress> for PartitionProgressDto {
    fn from(p: &group::PartitionProgress) -> Self {
        PartitionProgressDto {
            partition: p.partition,
            committed: p.committed.map(Commit),
            end: p.end.into(),
            lag: p.lag.into(),
            oldest_unconsumed_at: p.oldest_unconsumed_at,
            owner: p.owner,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct OfferDto {
    pub id: u32,
    pub own: Vec<u32>,
    pub partitions: Vec<u32>,
    pub at: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct RoundDto {
    /// Where the round's record is in the group's log.
    pub begin_offset: Offset,
    pub started_by: u32,
    pub started_at: f64,
    pub ends_at: f64,
    pub offers: Vec<OfferDto>,
    pub ended_at: Option<f64>,
    pub ended_by: Option<u32>,
    pub superseded: bool,
    /// Member id (as text) to partitions.
    pub assignment: BTreeMap<String, Vec<u32>>,
    pub confirms: BTreeMap<String, Vec<u32>>,
}

impl From<&group::RoundView> for RoundDto {
    fn from(r: &group::RoundView) -> Self {
        let by_member = |m: &BTreeMap<u32, Vec<u32>>| m.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        RoundDto {
            begin_offset: r.begin_offset.into(),
            started_by: r.started_by,
            started_at: r.started_at,
            ends_at: r.ends_at,
            offers: r
                .offers
                .iter()
                .map(|o| OfferDto { id: o.id, own: o.own.clone(), partitions: o.partitions.clone(), at: o.at })
                .collect(),
            ended_at: r.ended_at,
            ended_by: r.ended_by,
            superseded: r.superseded,
            assignment: by_member(&r.assignment),
            confirms: by_member(&r.confirms),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct GroupDetail {
    pub name: String,
    pub topic: Option<String>,
    pub topic_candidates: Vec<String>,
    /// Stable, rebalancing, stuck or empty, inferred from the log at `now`.
    pub state: GroupPhaseDto,
    pub state_reason: String,
    /// How many of `members` are live.
    pub live_members: u32,
    pub members: Vec<MemberDto>,
    /// Members the log shows that have left or are gone, most recently seen first.
    pub former_members: Vec<MemberDto>,
    pub partitions: Vec<PartitionProgressDto>,
    pub open_round: Option<RoundDto>,
    /// Newest first.
    pub rounds: Vec<RoundDto>,
    pub records: Count,
    pub last_record_at: Option<f64>,
    /// UNIX seconds now, by the backend's clock (for countdowns).
    pub now: f64,
}

impl GroupDetail {
    /// The group as described at `now` (UNIX seconds).
    pub fn new(d: &group::GroupDescription, now: f64) -> Self {
        GroupDetail {
            name: d.group.clone(),
            topic: d.topic.clone(),
            topic_candidates: d.topic_candidates.clone(),
            state: d.state.into(),
            state_reason: d.state_reason.clone(),
            live_members: count32(d.live_members),
            members: d.members.iter().map(MemberDto::from).collect(),
            former_members: d.former_members.iter().map(MemberDto::from).collect(),
            partitions: d.partitions.iter().map(PartitionProgressDto::from).collect(),
            open_round: d.open_round.as_ref().map(RoundDto::from),
            rounds: d.rounds.iter().rev().map(RoundDto::from).collect(),
            records: d.records.into(),
            last_record_at: d.last_record_at,
            now,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct ResetRequest {
    pub to: ResetTarget,
    /// For `offset`.
    pub offset: Option<Offset>,
    /// UNIX seconds, for `time`.
    pub time: Option<f64>,
    /// Messages to move by, for `shift`.
    pub shift: Option<Delta>,
    /// Seconds before now, for `ago`.
    pub ago_secs: Option<f64>,
    /// The group whose commits to copy, for `group`.
    pub other_group: Option<String>,
    /// `"<partition>"` to offset (`-1`: the end), for `offsets`.
    pub offsets: Option<BTreeMap<String, Commit>>,
    /// The group and topic an offsets file names (`offsets` from a file `groups export`
    /// wrote): a file of another topic is refused, one of another group is said in the plan.
    pub file_group: Option<String>,
    pub file_topic: Option<String>,
    /// All partitions when absent.
    pub partitions: Option<Vec<u32>>,
    pub dry_run: bool,
    /// The group's topic, for a 0.2.3 group that several topics could belong to.
    pub topic: Option<String>,
}

impl TryFrom<&ResetRequest> for group::ResetTo {
    type Error = ErrorDto;
    fn try_from(r: &ResetRequest) -> Result<Self, ErrorDto> {
        Ok(match r.to {
            ResetTarget::Earliest => group::ResetTo::Earliest,
            ResetTarget::Latest => group::ResetTo::Latest,
            ResetTarget::Offset => group::ResetTo::Offset(
                r.offset.ok_or_else(|| ErrorDto::new(ErrorCode::InvalidOffset, "a reset to an offset needs the offset"))?.get(),
            ),
            ResetTarget::Time => {
                group::ResetTo::Time(r.time.ok_or_else(|| ErrorDto::new(ErrorCode::InvalidReset, "a reset to a time needs the time"))?)
            }
            ResetTarget::Shift => group::ResetTo::Shift(
                r.shift.ok_or_else(|| ErrorDto::new(ErrorCode::InvalidReset, "a shift needs the number of messages, e.g. -100"))?.get(),
            ),
            ResetTarget::Ago => {
                let secs = r.ago_secs.filter(|s| s.is_finite() && *s >= 0.0).ok_or_else(|| {
                    ErrorDto::new(ErrorCode::InvalidReset, "a reset by duration needs a duration of zero seconds or more, e.g. 30m")
                })?;
                group::ResetTo::Ago(secs)
            }
            ResetTarget::Group => {
                let other = r
                    .other_group
                    .as_deref()
                    .ok_or_else(|| ErrorDto::new(ErrorCode::InvalidReset, "a reset to another group's offsets needs that group's name"))?;
                group::ResetTo::Group(other.to_string())
            }
            ResetTarget::Offsets if r.file_group.is_some() || r.file_topic.is_some() => group::ResetTo::File(group::OffsetsFile {
                group: r.file_group.clone(),
                topic: r.file_topic.clone(),
                offsets: offsets_of(r.offsets.as_ref())?,
            }),
            ResetTarget::Offsets => group::ResetTo::Offsets(offsets_of(r.offsets.as_ref())?),
        })
    }
}

/// The offsets of an import, checked as an offsets file is (partitions are
/// numbers, offsets are -1 or more, at least one).
fn offsets_of(m: Option<&BTreeMap<String, Commit>>) -> Result<BTreeMap<u32, i64>, ErrorDto> {
    let bad = |m: String| ErrorDto::new(ErrorCode::InvalidOffsets, m);
    let m = m.ok_or_else(|| bad("an import needs the offsets: open a file `twainmq groups export` wrote".into()))?;
    let mut out = BTreeMap::new();
    for (p, o) in m {
        let part = p.parse::<u32>().map_err(|_| bad(format!("{p:?} is not a partition number")))?;
        if o.get() < -1 {
            return Err(bad(format!("partition {p}: {o} is not an offset (a whole number, or -1 for the end)")));
        }
        out.insert(part, o.get());
    }
    if out.is_empty() {
        return Err(bad("the offsets name no partition".into()));
    }
    Ok(out)
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct ResetRowDto {
    pub partition: u32,
    pub before: Option<Commit>,
    pub after: Offset,
    pub start: Offset,
    pub end: Offset,
    /// The offset the request named for this partition (an offset, a file's), when it lay
    /// outside the partition's start..end and `after` is where it was moved to.
    pub clamped_from: Option<Offset>,
}

impl From<&group::ResetRow> for ResetRowDto {
    fn from(r: &group::ResetRow) -> Self {
        ResetRowDto {
            partition: r.partition,
            before: r.before.map(Commit),
            after: r.after.into(),
            start: r.start.into(),
            end: r.end.into(),
            clamped_from: None,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct ResetPlanDto {
    pub group: String,
    pub topic: String,
    pub rows: Vec<ResetRowDto>,
    /// Members holding partitions now, by the last round (live or not).
    pub live_members: Vec<u32>,
    /// Our members holding reset partitions: those running move to the reset.
    pub following: Vec<u32>,
    /// 0.2.3 members holding reset partitions: those running overwrite it with their next commit.
    pub overwriting: Vec<u32>,
    pub applied: bool,
    /// The other group whose offsets these are (another group's, or a file exported from one).
    pub from_group: Option<String>,
}

impl From<group::ResetPlan> for ResetPlanDto {
    fn from(p: group::ResetPlan) -> Self {
        ResetPlanDto {
            rows: p.rows.iter().map(ResetRowDto::from).collect(),
            group: p.group,
            topic: p.topic,
            live_members: p.live_members,
            following: p.following,
            overwriting: p.overwriting,
            applied: p.applied,
            from_group: p.from_group,
        }
    }
}

/// A member running inside the app for the balancing demo.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct DemoMember {
    pub handle: Handle,
    /// Its id in the group (0 until it has joined).
    pub member_id: u32,
    pub topic: String,
    pub group: String,
    pub window_ms: u32,
    /// Messages a second it processes at most (0: no limit).
    pub rate: u32,
    pub status: MemberStatus,
    /// Why a `failed` member stopped.
    pub problem: Option<String>,
    pub partitions: Vec<u32>,
    pub consumed: Count,
    /// Messages consumed in each of the last seconds, oldest first.
    pub per_second: Vec<u32>,
}
