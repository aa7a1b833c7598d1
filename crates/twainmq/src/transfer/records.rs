//! Input and output records: a message as a JSONL line (the shape of
//! `consume --json`, or `{"key","payload"}` as `produce --jsonl` takes) or a
//! CSV row, and back. Pure text work: no I/O here.

use serde_json::value::RawValue;

use crate::format::config::TopicConfig;
use crate::format::key::{Key, KeyType};
use crate::format::message::Message;
use crate::format::payload::{Outgoing, Payload};

/// One message to send, as read from an input line.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Its key, checked to be of the topic's key type.
    pub key: Key,
    /// Its payload.
    pub payload: Outgoing,
    /// Its timestamp (UNIX seconds) when the line had one.
    pub timestamp: Option<f64>,
}

/// A JSONL line: `{"key", "payload"}`, or a whole `consume --json` object.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonlLine<'a> {
    #[serde(borrow)]
    key: &'a RawValue,
    payload: PayloadIn,
    /// UNIX seconds, or an RFC 3339 time (as CSV takes, and `export`'s CSV writes).
    #[serde(default, deserialize_with = "time_in")]
    timestamp: Option<f64>,
    // Where the message was: read and left (the target's partitioner decides).
    #[serde(default, rename = "partition")]
    _partition: Option<u64>,
    #[serde(default, rename = "offset")]
    _offset: Option<u64>,
}

/// A line's timestamp: a number of UNIX seconds, or an RFC 3339 string.
fn time_in<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum Time<'a> {
        Seconds(f64),
        #[serde(borrow)]
        Text(std::borrow::Cow<'a, str>),
    }
    match <Option<Time<'de>> as serde::Deserialize>::deserialize(d)? {
        None => Ok(None),
        Some(Time::Seconds(t)) => Ok(Some(t)),
        Some(Time::Text(t)) => parse_time(&t).map(Some).map_err(serde::de::Error::custom),
    }
}

/// A payload read in the same pass as its line: a bare string (text), or
/// the shape of [`crate::format::payload::PayloadJson`], as
/// [`Outgoing::from_json`] reads it (the same fields refused), without
/// reading the payload's text twice.
struct PayloadIn(Result<Outgoing, String>);

impl<'de> serde::Deserialize<'de> for PayloadIn {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = PayloadIn;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a payload: a string, or {\"type\":\"str\",\"value\":..}, {\"type\":\"bytes\",\"hex\":..} or {\"type\":\"dataclass\",\"class\":..,\"fields\":{..}}")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<PayloadIn, E> {
                Ok(PayloadIn(Ok(Outgoing::Text(v.to_string()))))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<PayloadIn, E> {
                Ok(PayloadIn(Ok(Outgoing::Text(v))))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<PayloadIn, A::Error> {
                let (mut kind, mut value, mut hex, mut class, mut fields) =
                    (None::<std::borrow::Cow<'de, str>>, None::<String>, None::<std::borrow::Cow<'de, str>>, None::<String>, None);
                while let Some(k) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    match &*k {
                        "type" => kind = Some(map.next_value()?),
                        "value" => value = Some(map.next_value()?),
                        "hex" => hex = Some(map.next_value()?),
                        "class" => class = map.next_value()?,
                        "type_id" => {
                            map.next_value::<Option<u16>>()?;
                        }
                        "fields" => fields = Some(map.next_value::<&'de RawValue>()?),
                        other => {
                            return Err(serde::de::Error::unknown_field(other, &["type", "value", "hex", "class", "type_id", "fields"]));
                        }
                    }
                }
                let out = match kind.as_deref() {
                    Some("str") => value.map(Outgoing::Text).ok_or_else(|| "a \"str\" payload needs a \"value\" string".to_string()),
                    Some("bytes") => match hex {
                        Some(h) => hex::decode(h.trim()).map(Outgoing::Bytes).map_err(|e| format!("\"hex\" is not valid hex: {e}")),
                        None => Err("a \"bytes\" payload needs a \"hex\" string".into()),
                    },
                    Some("dataclass") => match (class, fields) {
                        (Some(c), Some(f)) => Outgoing::typed_json(c, f.get()),
                        (None, _) => Err("a \"dataclass\" payload needs a \"class\"".into()),
                        (_, None) => Err("a \"dataclass\" payload needs \"fields\"".into()),
                    },
                    Some(other) => Err(format!("unknown payload type {other:?}: a payload is {{\"type\":\"str\",\"value\":..}}, {{\"type\":\"bytes\",\"hex\":..}} or {{\"type\":\"dataclass\",\"class\":..,\"fields\":{{..}}}}")),
                    None => Err("the payload has no \"type\"".into()),
                };
                Ok(PayloadIn(out))
            }
        }
        d.deserialize_any(V)
    }
}

/// What stands for Python's non-standard numbers while serde reads a line
/// (it reads no `NaN`): a string no real field holds in practice, put back
/// in the fields' text afterwards.
const NAN_MARK: &str = "\"\\u0000twainmq:NaN\\u0000\"";
const INF_MARK: &str = "\"\\u0000twainmq:Infinity\\u0000\"";
const NEG_INF_MARK: &str = "\"\\u0000twainmq:-Infinity\\u0000\"";

/// `text` with `NaN`, `Infinity` and `-Infinity` outside strings replaced by the marks.
fn mark_python_numbers(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 32);
    let (mut in_str, mut escaped) = (false, false);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if in_str {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => {}
            }
        } else if c == '"' {
            in_str = true;
        } else if let Some(r) = rest.strip_prefix("NaN") {
            out.push_str(NAN_MARK);
            rest = r;
            continue;
        } else if let Some(r) = rest.strip_prefix("-Infinity") {
            out.push_str(NEG_INF_MARK);
            rest = r;
            continue;
        } else if let Some(r) = rest.strip_prefix("Infinity") {
            out.push_str(INF_MARK);
            rest = r;
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

fn unmark(text: &str) -> String {
    text.replace(NAN_MARK, "NaN").replace(NEG_INF_MARK, "-Infinity").replace(INF_MARK, "Infinity")
}

/// A key from JSON as written, for a topic of `key_type`: a number for `uN`
/// topics (its digits, so 2^64 is refused as such, never rounded), a string
/// for `charN` topics.
fn json_key(raw: &RawValue, config: &TopicConfig) -> Result<Key, String> {
    let text = raw.get().trim();
    let key_type = config.key_type;
    if key_type.is_free() {
        // Free keys keep their kind in JSON: a string, {"hex": ...} for bytes, null for none.
        let key = match serde_json::from_str::<Key>(text) {
            Ok(Key::Int(_)) | Err(_) => {
                return Err(format!(
                    "the key {text} is not one a {key_type} topic takes: give a JSON string (text), {{\"hex\": \"00ff\"}} (bytes) or null (no key)"
                ))
            }
            Ok(k) => k,
        };
        return check_key(key, key_type);
    }
    if let Some(s) = text.starts_with('"').then(|| serde_json::from_str::<String>(text).ok()).flatten() {
        if key_type.is_int() {
            return Err(format!("the key {text} is a string, but the topic has {key_type} (integer) keys: give it as a JSON number"));
        }
        return check_key(Key::Str(s), key_type);
    }
    if text.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
        if !key_type.is_int() {
            return Err(format!("the key {text} is a number, but the topic has {key_type} (string) keys: give it as a JSON string"));
        }
        return key_from_text(text, key_type);
    }
    Err(format!("\"key\" must be a number or a string, not {text}"))
}

/// Text (a CSV cell, a JSON number's digits) as a key of `key_type`.
pub(crate) fn key_from_text(text: &str, key_type: KeyType) -> Result<Key, String> {
    if key_type.is_free() {
        // As `export` writes a free key (JSON: "text", {"hex": ..}, null), else the text itself.
        let key = match serde_json::from_str::<Key>(text.trim()) {
            Ok(k @ (Key::Str(_) | Key::Bytes(_) | Key::Null)) => k,
            _ => Key::Str(text.to_string()),
        };
        return check_key(key, key_type);
    }
    let key = Key::parse(text, key_type).map_err(|e| key_problem(text, key_type, &e))?;
    check_key(key, key_type)
}

fn check_key(key: Key, key_type: KeyType) -> Result<Key, String> {
    let shown = key.to_string();
    let key = key_type.accept(key).map_err(|e| key_problem(&shown, key_type, &e))?;
    if key_type.is_free() {
        return Ok(key);
    }
    let mut scratch = Vec::new();
    match key_type.encode_into(&key, &mut scratch) {
        Ok(()) => Ok(key),
        Err(e) => Err(key_problem(&key.to_string(), key_type, &e)),
    }
}

fn key_problem(text: &str, key_type: KeyType, e: &crate::format::key::KeyError) -> String {
    use crate::format::key::KeyError;
    match e {
        KeyError::OutOfRange { max } => format!("the key {text} is out of range for {key_type} keys (0 to {max})"),
        KeyError::TooLong { bytes, max } => format!("the key {text:?} is {bytes} bytes, more than {key_type} keys hold ({max})"),
        KeyError::WrongKind { reason } => format!("the key {text:?} does not fit {key_type} keys: {reason}"),
    }
}

/// The record of a JSONL line, `None` for a blank line. Errors say what is
/// wrong with the line (the caller adds its number).
pub(crate) fn parse_jsonl(bytes: &[u8], config: &TopicConfig) -> Result<Option<Record>, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let byte = bytes.get(at).map_or(String::new(), |b| format!(" (0x{b:02x})"));
        format!(
            "the line is not UTF-8 text: byte {}{byte} is not valid UTF-8. JSON lines must be UTF-8; send binary payloads as {{\"type\": \"bytes\", \"hex\": ...}}",
            at + 1
        )
    })?;
    // A byte-order mark (editors on Windows write one) starts the file's first line.
    let text = text.trim_start_matches('\u{feff}').trim();
    if text.is_empty() {
        return Ok(None);
    }
    const SHAPE: &str = "not a {\"key\": K, \"payload\": P} object (or a line of `consume --json` / `export`)";
    let parsed = match serde_json::from_str::<JsonlLine<'_>>(text) {
        Ok(line) => record_of(line, config, None),
        Err(e) if !(text.contains("NaN") || text.contains("Infinity")) => return Err(format!("{SHAPE}: {e}")),
        // Typed fields as 0.2.3 writes them may hold NaN and Infinity.
        Err(_) => {
            let marked = mark_python_numbers(text);
            let line = serde_json::from_str::<JsonlLine<'_>>(&marked).map_err(|e| format!("{SHAPE}: {e}"))?;
            record_of(line, config, Some(()))
        }
    };
    parsed.map(Some)
}

fn record_of(line: JsonlLine<'_>, config: &TopicConfig, marked: Option<()>) -> Result<Record, String> {
    let key = json_key(line.key, config)?;
    let payload = match (marked, line.payload.0?) {
        (Some(()), Outgoing::Typed { class, json }) => Outgoing::Typed { class, json: unmark(&json) },
        (_, other) => other,
    };
    if let Outgoing::Typed { class, .. } = &payload {
        if config.type_id(class).is_none() {
            return Err(unknown_class(class, config));
        }
    }
    Ok(Record { key, payload, timestamp: line.timestamp })
}

pub(crate) fn unknown_class(class: &str, config: &TopicConfig) -> String {
    let known: Vec<&str> = config.message_types.iter().map(|(n, _)| n.as_str()).collect();
    if known.is_empty() {
        format!("typed message class {class:?}: the topic declares no message types")
    } else {
        format!("typed message class {class:?} is not one the topic declares ({})", known.join(", "))
    }
}

/// The CSV header `export` writes.
pub fn csv_header() -> [&'static str; 7] {
    ["partition", "offset", "timestamp", "key", "kind", "class", "payload"]
}

/// A message as the CSV row `export` writes: partition, offset, timestamp
/// (RFC 3339, to the microsecond, as 0.2.3 stamps), key, kind (`str`,
/// `bytes`, `dataclass`), class (typed messages; the type id when the topic
/// names none for it) and payload (the text, the bytes as hex, the fields'
/// JSON as stored).
pub fn message_csv_row(m: &Message) -> [String; 7] {
    csv_row(m, matches!(m.key, Key::Bytes(_) | Key::Null))
}

/// [`message_csv_row`]; with `free_keys` (a topic of key type `text`,
/// `bytes` or `any`) the key cell holds the key as JSON (`"text"`,
/// `{"hex":"00ff"}`, `null`), so a CSV import gives it back of its kind.
pub(crate) fn csv_row(m: &Message, free_keys: bool) -> [String; 7] {
    let time = m.time().map_or_else(|| m.timestamp.to_string(), |t| t.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string());
    let (class, payload) = match &m.payload {
        Payload::Text(s) => (String::new(), s.clone()),
        Payload::Bytes(b) => (String::new(), hex::encode(b)),
        Payload::Typed(t) => (t.class.clone().unwrap_or_else(|| format!("#{}", t.type_id)), t.json.clone()),
    };
    let key = if free_keys { serde_json::to_string(&m.key).unwrap_or_default() } else { m.key.to_string() };
    [m.partition.to_string(), m.offset.to_string(), time, key, m.payload.kind().to_string(), class, payload]
}

/// A CSV time cell: RFC 3339, or UNIX seconds as a number.
pub(crate) fn parse_time(cell: &str) -> Result<f64, String> {
    let cell = cell.trim();
    if let Ok(t) = cell.parse::<f64>() {
        return Ok(t);
    }
    chrono::DateTime::parse_from_rfc3339(cell)
        .map(|d| crate::log::clock::micros_to_unix(d.timestamp_micros()))
        .map_err(|e| format!("the timestamp {cell:?} is not an RFC 3339 time like 2026-11-30T12:00:00.123456Z nor UNIX seconds ({e})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(kt: KeyType) -> TopicConfig {
        TopicConfig::new(kt, 2, &["Box".to_string()])
    }

    #[test]
    fn python_numbers_survive_a_line() {
        let line = br#"{"key": 1, "payload": {"type":"dataclass","class":"Box","fields":{"a":NaN,"b":-Infinity,"s":"NaN Infinity"}}}"#;
        let r = parse_jsonl(line, &config(KeyType::U8)).expect("parses").expect("a record");
        assert_eq!(r.payload, Outgoing::Typed { class: "Box".into(), json: r#"{"a":NaN,"b":-Infinity,"s":"NaN Infinity"}"#.into() });
    }

    #[test]
    fn payloads_read_in_one_pass_as_from_json_reads_them() {
        for p in [
            r#""text""#,
            r#"{"type":"str","value":"a \"q\" \u00e9"}"#,
            r#"{"type":"bytes","hex":"00ff"}"#,
            r#"{"type":"bytes","hex":"0g"}"#,
            r#"{"type":"dataclass","class":"Box","fields":{"v":18446744073709551616}}"#,
            r#"{"type":"dataclass","class":"Box","type_id":3,"fields":{"a":[1,{"b":null}]}}"#,
            r#"{"type":"dataclass","class":"Box","fields":[1]}"#,
            r#"{"type":"str"}"#,
            r#"{"type":"nope"}"#,
            r#"{"type":"str","value":"x","extra":1}"#,
            r#"5"#,
        ] {
            let line = format!(r#"{{"key": 1, "payload": {p}}}"#);
            let ours = parse_jsonl(line.as_bytes(), &config(KeyType::U8)).map(|r| r.map(|r| r.payload));
            let theirs = Outgoing::from_json(p);
            assert_eq!(ours.is_ok(), theirs.is_ok(), "{p}: {ours:?} vs {theirs:?}");
            if let (Ok(o), Ok(t)) = (ours, theirs) {
                assert_eq!(o, Some(t), "{p}");
            }
        }
    }

    #[test]
    fn keys_must_match_the_topic() {
        let c = config(KeyType::U8);
        assert!(parse_jsonl(br#"{"key": "a", "payload": "x"}"#, &c).expect_err("string key").contains("integer"));
        assert!(parse_jsonl(br#"{"key": 256, "payload": "x"}"#, &c).expect_err("too big").contains("out of range"));
        let c = config(KeyType::Char(2));
        assert!(parse_jsonl(br#"{"key": 5, "payload": "x"}"#, &c).expect_err("number key").contains("string"));
        assert!(parse_jsonl(br#"{"key": "abc", "payload": "x"}"#, &c).expect_err("long").contains("bytes"));
        assert!(parse_jsonl(br#"{"key": "ab", "payload": {"type":"dataclass","class":"Nope","fields":{}}}"#, &c)
            .expect_err("class")
            .contains("Nope"));
    }
}
