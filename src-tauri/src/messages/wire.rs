//! The messages' wire types: rows of a partition or of a topic's timeline
//! (damaged lines in place), raw lines, and what Produce sends and learns.
//! Each with the conversion from the engine's type beside it.

use serde::{Deserialize, Serialize};
use specta::Type;
use twainmq::{Key, Message, Outgoing, Payload};

use crate::wire::{Bytes as WireBytes, Count, ErrorCode, ErrorDto, Incarnation, KeyText, LineNo, Offset};

/// What kind of key a message has, and so what its `key` text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum KeyKind {
    /// An integer (`uN` topics): `key` is its decimal digits.
    Int,
    /// Text (`charN`, `text` and `any` topics): `key` is the text itself.
    Str,
    /// Bytes (`bytes` and `any` topics): `key` is their hex, two digits a byte.
    Bytes,
    /// No key at all (Kafka's null key, `any` topics): `key` is empty.
    Null,
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

/// A payload of at most this many bytes travels whole in a row; a larger one
/// (a large message, or a plain line that inflates far) as its first
/// [`ROW_PREVIEW_BYTES`], the row `truncated`: a page of rows stays small
/// whatever its messages hold, and the rest is read on demand
/// ([`PayloadSlice`], `message_payload`).
pub const ROW_WHOLE_BYTES: usize = 16 * 1024;
/// The bytes of a truncated row's payload it carries: what the table shows and
/// the detail pane shows at once.
pub const ROW_PREVIEW_BYTES: usize = 2 * 1024;

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
    /// The same, indented, with characters instead of \u escapes: for display (whole rows only).
    pub fields_pretty: Option<String>,
    /// Payload size in bytes (text: UTF-8 bytes; typed: its JSON's), of the whole payload.
    pub size: u32,
    /// `text`, `hex` or `fields_json` hold only the payload's first bytes (up to
    /// [`ROW_PREVIEW_BYTES`]; text cut at a character): the payload is over
    /// [`ROW_WHOLE_BYTES`]. Its whole is read with `message_payload` or saved.
    pub truncated: bool,
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

/// The first `max` bytes of `s`, cut where a character starts.
fn text_prefix(s: &str, max: usize) -> &str {
    let mut end = max.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

impl From<&Message> for MessageRow {
    fn from(m: &Message) -> Self {
        let (key, key_kind) = match &m.key {
            Key::Int(v) => (v.to_string(), KeyKind::Int),
            Key::Str(s) => (s.clone(), KeyKind::Str),
            Key::Bytes(b) => (to_hex(b), KeyKind::Bytes),
            Key::Null => (String::new(), KeyKind::Null),
        };
        let size = match &m.payload {
            Payload::Text(s) => s.len(),
            Payload::Bytes(b) => b.len(),
            Payload::Typed(t) => t.json.len(),
        };
        let truncated = size > ROW_WHOLE_BYTES;
        let keep = if truncated { ROW_PREVIEW_BYTES } else { size };
        let (kind, text, hex, class, type_id, fields_json) = match &m.payload {
            Payload::Text(s) => (PayloadKind::Str, Some(text_prefix(s, keep).to_string()), None, None, None, None),
            Payload::Bytes(b) => (PayloadKind::Bytes, None, Some(to_hex(&b[..keep])), None, None, None),
            Payload::Typed(t) => (
                PayloadKind::Dataclass,
                None,
                None,
                t.class.clone(),
                Some(u32::from(t.type_id)),
                Some(text_prefix(&t.json, keep).to_string()),
            ),
        };
        let fields_pretty = if truncated { None } else { fields_json.as_deref().and_then(|j| crate::engine::python_pretty(j).ok()) };
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
            truncated,
            kafka: None,
        }
    }
}

/// Most bytes of a payload one `message_payload` answer carries.
pub const MAX_PAYLOAD_SLICE: u32 = 1 << 20;
/// The first bytes of a truncated row's payload the detail pane asks for at once: a screenful
/// many times over, read and drawn in a frame or two whatever the payload's size.
pub const PAYLOAD_PREVIEW_BYTES: u32 = 64 * 1024;

/// Bytes `from..next` of a message's payload (text: its UTF-8, cut where characters start;
/// typed: its JSON), so a payload of any size is shown, or copied, a slice at a time.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct PayloadSlice {
    pub kind: PayloadKind,
    /// The whole payload's size in bytes.
    pub size: WireBytes,
    /// Where this slice starts.
    pub from: WireBytes,
    /// Where the next slice starts: `size` after the last.
    pub next: WireBytes,
    /// The slice of a text or typed payload.
    pub text: Option<String>,
    /// The slice of a bytes payload, as hex.
    pub hex: Option<String>,
}

impl PayloadSlice {
    /// Bytes `from..from + len` of `payload` (`len` at most [`MAX_PAYLOAD_SLICE`]; a text's
    /// ends moved back to where characters start, so no character is cut in two).
    pub fn of(payload: &Payload, from: u64, len: u32) -> PayloadSlice {
        let len = len.clamp(1, MAX_PAYLOAD_SLICE) as usize;
        let text_slice = |s: &str| {
            let a = text_prefix(s, usize::try_from(from).unwrap_or(usize::MAX)).len();
            let mut b = text_prefix(s, a.saturating_add(len)).len();
            if b == a && a < s.len() {
                // A slice shorter than the character there: that whole character.
                b = a + s[a..].chars().next().map_or(0, char::len_utf8);
            }
            (a, b, s[a..b].to_string())
        };
        let (kind, size, a, b, text, hex) = match payload {
            Payload::Text(s) => {
                let (a, b, t) = text_slice(s);
                (PayloadKind::Str, s.len(), a, b, Some(t), None)
            }
            Payload::Typed(t) => {
                let (a, b, j) = text_slice(&t.json);
                (PayloadKind::Dataclass, t.json.len(), a, b, Some(j), None)
            }
            Payload::Bytes(bytes) => {
                let a = usize::try_from(from).unwrap_or(usize::MAX).min(bytes.len());
                let b = a.saturating_add(len).min(bytes.len());
                (PayloadKind::Bytes, bytes.len(), a, b, None, Some(to_hex(&bytes[a..b])))
            }
        };
        PayloadSlice { kind, size: WireBytes(size as u64), from: WireBytes(a as u64), next: WireBytes(b as u64), text, hex }
    }
}

/// A payload saved to a file.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct SavedPayload {
    pub path: String,
    /// The bytes written: the payload's own (text as UTF-8, a typed message's JSON).
    pub bytes: WireBytes,
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

/// A line that holds a part of a large message (the format's next version): a
/// large message is shown whole at its last part's offset, and the lines of its
/// other parts (or of a message that never ended) are rows of their own, so a
/// partition's table has a row for each of its offsets.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct PartRow {
    pub partition: u32,
    pub offset: Offset,
    /// The first message after this line on its page (the message a part
    /// belongs to when no other producer's parts came between).
    pub next_message: Option<Offset>,
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
#[serde(tag = "row")]
pub enum Row {
    #[serde(rename = "message")]
    Message(MessageRow),
    #[serde(rename = "damaged")]
    Damaged(DamagedRow),
    #[serde(rename = "part")]
    Part(PartRow),
}

impl Row {
    /// The row's offset in its partition.
    pub fn offset(&self) -> u64 {
        match self {
            Row::Message(m) => m.offset.get(),
            Row::Damaged(d) => d.offset.get(),
            Row::Part(p) => p.offset.get(),
        }
    }
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

/// What the person sends in the Produce tab: how its body (or file) is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum ProduceKind {
    Text,
    /// A typed message of the payload's `class`, its fields as JSON.
    Json,
    /// Bytes written as hex digits (spaces between them are ignored).
    Hex,
    /// Bytes as they are: a file's contents (or the body's UTF-8).
    Bytes,
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct ProducePayload {
    pub kind: ProduceKind,
    pub body: String,
    /// The message type of a typed (`json`) message.
    pub class: Option<String>,
    /// A file whose contents are the payload instead of `body`, read as `kind` says: a
    /// message of any size the topic takes (a large message), never typed into a field.
    pub file: Option<String>,
}

impl ProducePayload {
    /// The message `content` (the body's bytes, or the file's) makes, read as `kind` says.
    pub fn outgoing(&self, content: Vec<u8>) -> Result<Outgoing, ErrorDto> {
        let from = if self.file.is_some() { "the file" } else { "the payload" };
        let text = |content: Vec<u8>| {
            String::from_utf8(content).map_err(|_| {
                ErrorDto::new(ErrorCode::InvalidText, format!("{from} is not UTF-8 text: send it as bytes, or pick a text file"))
            })
        };
        match self.kind {
            ProduceKind::Text => text(content).map(Outgoing::Text),
            ProduceKind::Bytes => Ok(Outgoing::Bytes(content)),
            ProduceKind::Hex => {
                let clean: Vec<u8> = content.into_iter().filter(|c| !c.is_ascii_whitespace()).collect();
                hex::decode(&clean)
                    .map(Outgoing::Bytes)
                    .map_err(|_| ErrorDto::new(ErrorCode::InvalidHex, format!("{from} is not valid hex: use pairs of 0-9 a-f")))
            }
            ProduceKind::Json => {
                let class =
                    self.class.clone().ok_or_else(|| ErrorDto::new(ErrorCode::MissingClass, "pick the message type of a typed message"))?;
                Outgoing::typed_json(class, &text(content)?)
                    .map_err(|e| ErrorDto::new(ErrorCode::InvalidJson, format!("{from} is not valid JSON: {e}")))
            }
        }
    }
}

impl TryFrom<&ProducePayload> for Outgoing {
    type Error = ErrorDto;
    fn try_from(p: &ProducePayload) -> Result<Self, ErrorDto> {
        p.outgoing(p.body.clone().into_bytes())
    }
}

/// The key the person gives in the Produce tab.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
#[serde(tag = "as", rename_all = "snake_case")]
pub enum KeyInput {
    /// As text: an integer topic's number, a string topic's text (a `bytes` topic takes its UTF-8).
    Text { text: String },
    /// Bytes, as hex digits (`bytes` and `any` topics; a `text` topic takes bytes that are UTF-8).
    Hex { hex: String },
    /// No key: Kafka's null key (`any` topics only).
    #[serde(rename = "none")]
    NoKey,
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

    #[test]
    fn keys_travel_as_their_kind() {
        let row = |key| {
            let m = Message { topic: "t".into(), partition: 0, offset: 0, key, timestamp: 0.0, payload: Payload::Text(String::new()) };
            let r = MessageRow::from(&m);
            (r.key.0, r.key_kind)
        };
        assert_eq!(row(Key::Bytes(vec![0, 0xff])), ("00ff".to_string(), KeyKind::Bytes));
        assert_eq!(row(Key::Null), (String::new(), KeyKind::Null));
        assert_eq!(row(Key::Str(String::new())), (String::new(), KeyKind::Str));
        assert_eq!(serde_json::to_string(&KeyKind::Null).expect("ser"), "\"null\"");
        let none: KeyInput = serde_json::from_str(r#"{"as":"none"}"#).expect("none");
        assert_eq!(none, KeyInput::NoKey);
    }

    #[test]
    fn slices_of_text_never_cut_a_character() {
        let text = Payload::Text("aé€😀".repeat(1000));
        let mut at = 0;
        let mut whole = String::new();
        loop {
            let s = PayloadSlice::of(&text, at, 7);
            assert!(s.next.get() > at || s.next == s.size, "moves on");
            whole.push_str(s.text.as_deref().expect("text"));
            at = s.next.get();
            if s.next == s.size {
                break;
            }
        }
        let Payload::Text(t) = &text else { unreachable!() };
        assert_eq!(&whole, t);
        let one = PayloadSlice::of(&text, 3, 1);
        assert_eq!(one.text.as_deref(), Some("€"), "a slice shorter than its character takes the character");
        let bytes = PayloadSlice::of(&Payload::Bytes(vec![1, 2, 3]), 1, 5);
        assert_eq!((bytes.hex.as_deref(), bytes.next.get(), bytes.size.get()), (Some("0203"), 3, 3));
    }
}
