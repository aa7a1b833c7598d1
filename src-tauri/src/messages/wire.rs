//! The messages' wire types: rows of a partition or of a topic's timeline
//! (damaged lines in place), raw lines, and what Produce sends and learns.
//! Each with the conversion from the engine's type beside it.

use serde::{Deserialize, Serialize};
use specta::Type;
use twainmq::{Key, Message, Outgoing, Payload};

use crate::wire::{Count, ErrorCode, ErrorDto, Incarnation, KeyText, LineNo, Offset};

/// What kind of key a message has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum KeyKind {
    Int,
    Str,
}

/// What a message's payload is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum PayloadKind {
    /// Text (`text`).
    Str,
    /// Raw bytes (`hex`).
    Bytes,
    /// A typed message: a class and its fields (`fields_json`).
    Dataclass,
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
    /// What only a Kafka record has (a row of a cluster window); absent for a store's message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[specta(optional)]
    pub kafka: Option<KafkaExtras>,
}

/// What a Kafka record has beyond a store message: its key may be null or
/// binary, its value null (a tombstone), and it has headers.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct KafkaExtras {
    /// The null key (the row's `key` is then empty).
    pub key_null: bool,
    /// The key's bytes are not UTF-8: the row's `key` is `0x` and their hex.
    pub key_binary: bool,
    pub key_size: u32,
    /// A tombstone: no value at all (not an empty one).
    pub value_null: bool,
    /// In wire order, duplicates kept.
    pub headers: Vec<RecordHeader>,
}

/// A record's header: its value as text when UTF-8, always as hex, or null.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct RecordHeader {
    pub name: String,
    pub text: Option<String>,
    pub hex: Option<String>,
    pub null: bool,
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
            kafka: None,
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

fn file_name(path: &std::path::Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
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

/// What the person sends in the Produce tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum ProduceKind {
    Text,
    /// A typed message of the payload's `class`, its fields as JSON.
    Json,
    Hex,
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

/// One message, by its place.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, Type, PartialEq)]
pub struct MessageRef {
    pub partition: u32,
    pub offset: Offset,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_keep_todays_words() {
        assert_eq!(serde_json::to_string(&PayloadKind::Dataclass).expect("ser"), "\"dataclass\"");
        assert_eq!(serde_json::to_string(&KeyKind::Int).expect("ser"), "\"int\"");
        assert_eq!(serde_json::to_string(&ProduceKind::Hex).expect("ser"), "\"hex\"");
    }
}
