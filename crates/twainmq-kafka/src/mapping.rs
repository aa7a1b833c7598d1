//! How a TwainMQ message becomes a Kafka record and back (docs/KAFKA.md,
//! "The mapping"). Pure: no I/O. Everything a store line holds goes across,
//! and what Kafka's milliseconds lose travels in a header:
//!
//! - key: an integer key is its big-endian bytes at the topic's width (1, 2, 4
//!   or 8: what Kafka's `ShortSerializer`, `IntegerSerializer` and
//!   `LongSerializer` write for 2, 4 and 8 bytes), a string key its UTF-8
//!   bytes without the store's NUL padding (`StringSerializer`'s);
//! - value: a text message's UTF-8 bytes, a bytes message's bytes, a typed
//!   message's JSON fields, with the kind in `twainmq.kind` and the type name in `twainmq.type`;
//! - timestamp: the record's `CreateTime` is the f64 seconds rounded to the
//!   millisecond, and `twainmq.ts` holds the f64's exact bits;
//! - origin: `twainmq.origin` says where the record was first written (source,
//!   topic, partition, offset): resuming, offset translation and loop
//!   prevention all read it.

use twainmq::{Key, KeyType, Message, Outgoing, Payload};

/// The header with the record's origin: `SOURCE:TOPIC:PARTITION:OFFSET`.
pub const ORIGIN: &str = "twainmq.origin";
/// The header with the exact timestamp: the f64's bits, 16 hex digits.
pub const TIMESTAMP: &str = "twainmq.ts";
/// The header with the payload's kind: `str`, `bytes` or `dataclass`.
pub const KIND: &str = "twainmq.kind";
/// The header with a typed message's type name.
pub const TYPE: &str = "twainmq.type";
/// The header with the source topic's key type (`u16`, `char8`, ...).
pub const KEY_TYPE: &str = "twainmq.key";
/// Every header of ours starts so; other headers are the record's own.
pub const PREFIX: &str = "twainmq.";

/// Where a record was first written: a store's or a cluster's id, a topic,
/// a partition and an offset there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// `store-<hex>` for a store, `kafka-<cluster id>` for a cluster.
    pub source: String,
    /// The topic there.
    pub topic: String,
    /// The partition there.
    pub partition: u32,
    /// The offset there.
    pub offset: u64,
}

impl Origin {
    /// The header's value.
    pub fn encode(&self) -> String {
        format!("{}:{}:{}:{}", self.source, self.topic, self.partition, self.offset)
    }

    /// Read a header's value. Topic names hold no `:`, so the fields are
    /// taken from the right: a source id may hold one.
    pub fn decode(bytes: &[u8]) -> Option<Origin> {
        let text = std::str::from_utf8(bytes).ok()?;
        let mut it = text.rsplitn(4, ':');
        let offset = it.next()?.parse().ok()?;
        let partition = it.next()?.parse().ok()?;
        let topic = it.next()?.to_string();
        let source = it.next()?.to_string();
        if source.is_empty() || topic.is_empty() {
            return None;
        }
        Some(Origin { source, topic, partition, offset })
    }
}

/// A record on its way to Kafka: key, value, timestamp and headers.
#[derive(Debug, Clone, PartialEq)]
pub struct OutRecord {
    /// The key's bytes; `None` for the null key of a free-key topic.
    pub key: Option<Vec<u8>>,
    /// The value's bytes.
    pub value: Vec<u8>,
    /// Kafka's `CreateTime`, milliseconds.
    pub timestamp_ms: i64,
    /// Headers, ours only.
    pub headers: Vec<(&'static str, Vec<u8>)>,
}

/// Why a message or record cannot go across as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unfit {
    /// The key cannot be a key of the target topic.
    Key(String),
    /// The value cannot be a message of the target topic.
    Value(String),
    /// The record has something a store line cannot hold.
    Other(String),
}

impl std::fmt::Display for Unfit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unfit::Key(s) | Unfit::Value(s) | Unfit::Other(s) => f.write_str(s),
        }
    }
}

/// A key's bytes in Kafka: `None` is Kafka's null key (a free-key topic's [`Key::Null`]).
pub fn key_bytes(key: &Key, key_type: KeyType) -> Option<Vec<u8>> {
    Some(match key {
        Key::Int(v) if key_type.is_int() => v.to_be_bytes()[8 - key_type.byte_len()..].to_vec(),
        Key::Int(v) => v.to_string().into_bytes(),
        Key::Str(s) => s.clone().into_bytes(),
        Key::Bytes(b) => b.clone(),
        Key::Null => return None,
    })
}

/// The `twainmq.key` header of a key: the topic's key type, except in a
/// free-key topic, where it is the key's own kind (`text` or `bytes`; `any`
/// for the null key), so that a text key and a bytes key of the same bytes
/// come back as what they were.
pub fn key_header(key: &Key, key_type: KeyType) -> String {
    if !key_type.is_free() {
        return key_type.to_string();
    }
    match key {
        Key::Str(_) | Key::Int(_) => KeyType::Text.to_string(),
        Key::Bytes(_) => KeyType::Bytes.to_string(),
        Key::Null => KeyType::Any.to_string(),
    }
}

/// Kafka's milliseconds for our seconds (rounded; 0 for what is before 1970 or not a number).
pub fn millis(ts: f64) -> i64 {
    let ms = (ts * 1000.0).round();
    if (0.0..9.0e15).contains(&ms) {
        ms as i64
    } else {
        0
    }
}

/// The exact timestamp's header value.
pub fn ts_header(ts: f64) -> Vec<u8> {
    format!("{:016x}", ts.to_bits()).into_bytes()
}

/// Read a `twainmq.ts` header.
pub fn parse_ts_header(bytes: &[u8]) -> Option<f64> {
    if bytes.len() != 16 {
        return None;
    }
    let text = std::str::from_utf8(bytes).ok()?;
    let ts = f64::from_bits(u64::from_str_radix(text, 16).ok()?);
    ts.is_finite().then_some(ts)
}

/// A stored message as a Kafka record, with its origin.
///
/// # Errors
/// [`Unfit::Value`] for a typed message whose type id the topic does not name.
pub fn to_record(m: &Message, key_type: KeyType, origin: &Origin) -> Result<OutRecord, Unfit> {
    let (kind, value, class): (&str, Vec<u8>, Option<&str>) = match &m.payload {
        Payload::Text(s) => ("str", s.as_bytes().to_vec(), None),
        Payload::Bytes(b) => ("bytes", b.clone(), None),
        Payload::Typed(t) => match &t.class {
            Some(c) => ("dataclass", t.json.as_bytes().to_vec(), Some(c.as_str())),
            None => {
                return Err(Unfit::Value(format!(
                "a typed message of type id {} that the topic's config does not name: add the type to the topic, or leave the message out",
                t.type_id
            )))
            }
        },
    };
    let mut headers = Vec::with_capacity(5);
    headers.push((ORIGIN, origin.encode().into_bytes()));
    headers.push((TIMESTAMP, ts_header(m.timestamp)));
    headers.push((KIND, kind.as_bytes().to_vec()));
    if let Some(c) = class {
        headers.push((TYPE, c.as_bytes().to_vec()));
    }
    headers.push((KEY_TYPE, key_header(&m.key, key_type).into_bytes()));
    Ok(OutRecord { key: key_bytes(&m.key, key_type), value, timestamp_ms: millis(m.timestamp), headers })
}

/// What to make of a value that came without `twainmq.kind` (a record some
/// other Kafka producer wrote).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ForeignValues {
    /// Text when it is UTF-8, bytes otherwise.
    #[default]
    Auto,
    /// Always text (a value that is not UTF-8 is refused).
    Text,
    /// Always bytes.
    Bytes,
}

/// How foreign records are taken.
#[derive(Debug, Clone, Copy, Default)]
pub struct InOptions {
    /// The kind of values without `twainmq.kind`.
    pub values: ForeignValues,
    /// Headers other than ours are dropped instead of refused (a store line holds none).
    pub drop_headers: bool,
}

/// A Kafka record's parts, as the mapping reads them.
#[derive(Debug, Clone, Copy)]
pub struct InRecord<'a> {
    /// The key, `None` for a null key.
    pub key: Option<&'a [u8]>,
    /// The value, `None` for a null value (a tombstone).
    pub value: Option<&'a [u8]>,
    /// The record's timestamp, milliseconds (-1: none).
    pub timestamp_ms: i64,
    /// Its headers.
    pub headers: &'a [(String, Option<Vec<u8>>)],
}

impl InRecord<'_> {
    /// The first header named `name` that has a value.
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        self.headers.iter().find(|(k, v)| k == name && v.is_some()).and_then(|(_, v)| v.as_deref())
    }

    /// The record's origin, if it carries one.
    pub fn origin(&self) -> Option<Origin> {
        self.header(ORIGIN).and_then(Origin::decode)
    }
}

/// What a Kafka record becomes in a store topic of `key_type`.
#[derive(Debug, Clone, PartialEq)]
pub struct Incoming {
    /// The key.
    pub key: Key,
    /// The payload.
    pub payload: Outgoing,
    /// The timestamp, UNIX seconds.
    pub timestamp: f64,
}

/// Decode `bytes` as a key written for `source` (a header's key type), or, for
/// a record without one, as the target's own key type.
fn decode_key(bytes: &[u8], source: KeyType) -> Result<Key, Unfit> {
    if source.is_int() {
        let w = source.byte_len();
        if bytes.len() != w {
            let serializer = match w {
                2 => " (what Kafka's ShortSerializer writes)",
                4 => " (what Kafka's IntegerSerializer writes)",
                8 => " (what Kafka's LongSerializer writes)",
                _ => "",
            };
            return Err(Unfit::Key(format!(
                "its key is {} bytes; a {source} topic takes {w}-byte big-endian keys{serializer}. Keys written as text go into a charN topic (--as NAME --key-type charN), and any key into a topic of key type any (--as NAME --key-type any)",
                bytes.len()
            )));
        }
        let mut be = [0u8; 8];
        be[8 - w..].copy_from_slice(bytes);
        return Ok(Key::Int(u64::from_be_bytes(be)));
    }
    match source {
        KeyType::Bytes => return Ok(Key::Bytes(bytes.to_vec())),
        // A key whose kind nobody said (an any-key topic's, or another producer's record):
        // text when it is UTF-8, else bytes; either way its bytes go back to Kafka unchanged.
        KeyType::Any => {
            return Ok(match std::str::from_utf8(bytes) {
                Ok(s) => Key::Str(s.to_string()),
                Err(_) => Key::Bytes(bytes.to_vec()),
            })
        }
        _ => {}
    }
    let s = std::str::from_utf8(bytes).map_err(|_| {
        Unfit::Key("its key is not UTF-8 text, which a string-keyed topic needs: mirror into a topic of key type bytes or any (--as NAME --key-type any)".into())
    })?;
    Ok(Key::Str(s.to_string()))
}

/// A Kafka record as a message of a store topic whose keys are `key_type`.
/// The key must fit that type (checked again by the producer, which names
/// the limit); the value's kind comes from `twainmq.kind`, else `opts`.
///
/// # Errors
/// [`Unfit`], saying what does not fit and what would take it.
pub fn from_record(r: &InRecord<'_>, key_type: KeyType, opts: &InOptions) -> Result<Incoming, Unfit> {
    let source_type = match r.header(KEY_TYPE) {
        Some(h) => std::str::from_utf8(h)
            .ok()
            .and_then(KeyType::parse)
            .ok_or_else(|| Unfit::Key(format!("its {KEY_TYPE} header {:?} is not a key type", String::from_utf8_lossy(h))))?,
        None => key_type,
    };
    let mut key = match r.key {
        Some(bytes) => decode_key(bytes, source_type)?,
        None if key_type == KeyType::Any => Key::Null,
        None => {
            return Err(Unfit::Key(format!(
                "it has no key (null), which only a topic of key type any holds (this one's keys are {key_type}): mirror into a new topic with --as NAME --key-type any"
            )))
        }
    };
    // An integer key read from another integer width is the same number; a
    // string key to an integer topic is refused below by the producer's check.
    if let (Key::Int(v), false) = (&key, key_type.is_int()) {
        key = Key::Str(v.to_string());
    }
    if let Some((name, _)) = r.headers.iter().find(|(k, _)| !k.starts_with(PREFIX)) {
        if !opts.drop_headers {
            return Err(Unfit::Other(format!(
                "it has a header {name:?}, which a TwainMQ message cannot hold: --drop-headers mirrors it without its headers"
            )));
        }
    }
    let value = r.value.ok_or_else(|| Unfit::Value("its value is null (a tombstone), which no TwainMQ payload stands for".into()))?;
    let payload = match r.header(KIND) {
        Some(b"str") => Outgoing::Text(text(value)?),
        Some(b"bytes") => Outgoing::Bytes(value.to_vec()),
        Some(b"dataclass") => {
            let class = r.header(TYPE).ok_or_else(|| Unfit::Value(format!("a typed value without its {TYPE} header")))?;
            let class = std::str::from_utf8(class).map_err(|_| Unfit::Value(format!("its {TYPE} header is not UTF-8")))?;
            Outgoing::typed_json(class, &text(value)?).map_err(|e| Unfit::Value(format!("its typed value is not a JSON object: {e}")))?
        }
        Some(other) => {
            return Err(Unfit::Value(format!("its {KIND} header {:?} is not str, bytes or dataclass", String::from_utf8_lossy(other))))
        }
        None => match opts.values {
            ForeignValues::Text => Outgoing::Text(text(value)?),
            ForeignValues::Bytes => Outgoing::Bytes(value.to_vec()),
            ForeignValues::Auto => match std::str::from_utf8(value) {
                Ok(s) => Outgoing::Text(s.to_string()),
                Err(_) => Outgoing::Bytes(value.to_vec()),
            },
        },
    };
    let timestamp = match r.header(TIMESTAMP).and_then(parse_ts_header) {
        Some(ts) => ts,
        None if r.timestamp_ms >= 0 => r.timestamp_ms as f64 / 1000.0,
        None => return Err(Unfit::Other("it has no timestamp (-1), and every TwainMQ message has one".into())),
    };
    Ok(Incoming { key, payload, timestamp })
}

fn text(value: &[u8]) -> Result<String, Unfit> {
    String::from_utf8(value.to_vec()).map_err(|_| Unfit::Value("its value is marked text but is not UTF-8".into()))
}

/// A fingerprint of a message's key, timestamp and payload (FNV-1a, 64 bits):
/// how a mirror recognises its own lines in a store it was writing to when it
/// stopped (docs/KAFKA.md, "Resuming").
pub fn fingerprint(key: &Key, timestamp: f64, payload: FingerprintPayload<'_>) -> u64 {
    let mut h = Fnv::new();
    match key {
        Key::Int(v) => {
            h.eat(b"i");
            h.eat(&v.to_be_bytes());
        }
        Key::Str(s) => {
            h.eat(b"s");
            h.eat(s.as_bytes());
        }
        Key::Bytes(b) => {
            h.eat(b"x");
            h.eat(b);
        }
        Key::Null => h.eat(b"n"),
    }
    h.eat(&timestamp.to_bits().to_be_bytes());
    match payload {
        FingerprintPayload::Text(s) => {
            h.eat(b"t");
            h.eat(s.as_bytes());
        }
        FingerprintPayload::Bytes(b) => {
            h.eat(b"b");
            h.eat(b);
        }
        FingerprintPayload::Typed(class, json) => {
            h.eat(b"d");
            h.eat(class.as_bytes());
            h.eat(b"\0");
            h.eat(json.as_bytes());
        }
    }
    h.0
}

/// A payload as [`fingerprint`] reads it: from what is sent or what is read.
#[derive(Debug, Clone, Copy)]
pub enum FingerprintPayload<'a> {
    /// Text.
    Text(&'a str),
    /// Bytes.
    Bytes(&'a [u8]),
    /// A typed message: its type name and JSON fields.
    Typed(&'a str, &'a str),
}

impl<'a> FingerprintPayload<'a> {
    /// From a payload to be sent.
    pub fn outgoing(p: &'a Outgoing) -> Self {
        match p {
            Outgoing::Text(s) => FingerprintPayload::Text(s),
            Outgoing::Bytes(b) => FingerprintPayload::Bytes(b),
            Outgoing::Typed { class, json } => FingerprintPayload::Typed(class, json),
        }
    }

    /// From a payload read back.
    pub fn stored(p: &'a Payload) -> Self {
        match p {
            Payload::Text(s) => FingerprintPayload::Text(s),
            Payload::Bytes(b) => FingerprintPayload::Bytes(b),
            Payload::Typed(t) => FingerprintPayload::Typed(t.class.as_deref().unwrap_or(""), &t.json),
        }
    }
}

struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn eat(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn msg(key: Key, ts: f64, payload: Payload) -> Message {
        Message { topic: Arc::from("t"), partition: 0, offset: 0, key, timestamp: ts, payload }
    }

    fn origin() -> Origin {
        Origin { source: "store-ab".into(), topic: "t".into(), partition: 3, offset: 42 }
    }

    fn back(r: &OutRecord, kt: KeyType) -> Incoming {
        let headers: Vec<(String, Option<Vec<u8>>)> = r.headers.iter().map(|(k, v)| (k.to_string(), Some(v.clone()))).collect();
        let rec = InRecord { key: r.key.as_deref(), value: Some(&r.value), timestamp_ms: r.timestamp_ms, headers: &headers };
        from_record(&rec, kt, &InOptions::default()).expect("fits")
    }

    #[test]
    fn every_key_type_goes_to_kafkas_serializer_bytes_and_back() {
        let cases = [
            (KeyType::U8, Key::Int(255), vec![255u8]),
            (KeyType::U16, Key::Int(0x1234), vec![0x12, 0x34]),
            (KeyType::U32, Key::Int(7), vec![0, 0, 0, 7]),
            (KeyType::U64, Key::Int(u64::MAX), vec![255; 8]),
            (KeyType::Char(8), Key::Str("ké".into()), "ké".as_bytes().to_vec()),
            (KeyType::Char(4), Key::Str(String::new()), vec![]),
        ];
        for (kt, key, bytes) in cases {
            let r = to_record(&msg(key.clone(), 1.5, Payload::Text("x".into())), kt, &origin()).expect("fits");
            assert_eq!(r.key, Some(bytes), "{kt}");
            assert_eq!(back(&r, kt).key, key, "{kt}");
        }
    }

    #[test]
    fn timestamps_keep_every_bit_through_the_header_and_round_to_the_millisecond_in_kafka() {
        for ts in [0.0, 1.0005, 1_733_500_000.123_456_7, 1e-300, 253_402_300_799.0] {
            let r = to_record(&msg(Key::Int(1), ts, Payload::Bytes(vec![1])), KeyType::U8, &origin()).expect("fits");
            assert_eq!(back(&r, KeyType::U8).timestamp.to_bits(), ts.to_bits());
            assert_eq!(r.timestamp_ms, (ts * 1000.0).round() as i64);
        }
        assert_eq!(millis(f64::NAN), 0);
        assert_eq!(millis(-5.0), 0);
    }

    #[test]
    fn payload_kinds_go_as_their_bytes_with_the_kind_in_a_header() {
        let typed = Payload::Typed(twainmq::TypedPayload {
            type_id: 3,
            class: Some("Order".into()),
            json: r#"{"n":18446744073709551616,"x":NaN}"#.into(),
        });
        let r = to_record(&msg(Key::Int(1), 2.0, typed), KeyType::U8, &origin()).expect("fits");
        assert_eq!(r.value, br#"{"n":18446744073709551616,"x":NaN}"#);
        assert!(r.headers.contains(&(TYPE, b"Order".to_vec())));
        assert_eq!(
            back(&r, KeyType::U8).payload,
            Outgoing::Typed { class: "Order".into(), json: r#"{"n":18446744073709551616,"x":NaN}"#.into() }
        );
        let r = to_record(&msg(Key::Int(1), 2.0, Payload::Text("héllo".into())), KeyType::U8, &origin()).expect("fits");
        assert_eq!(r.value, "héllo".as_bytes());
        assert_eq!(back(&r, KeyType::U8).payload, Outgoing::Text("héllo".into()));
        // Bytes that happen to be UTF-8 stay bytes: the header says so.
        let r = to_record(&msg(Key::Int(1), 2.0, Payload::Bytes(b"abc".to_vec())), KeyType::U8, &origin()).expect("fits");
        assert_eq!(back(&r, KeyType::U8).payload, Outgoing::Bytes(b"abc".to_vec()));
        let unnamed = Payload::Typed(twainmq::TypedPayload { type_id: 9, class: None, json: "{}".into() });
        assert!(matches!(to_record(&msg(Key::Int(1), 2.0, unnamed), KeyType::U8, &origin()), Err(Unfit::Value(_))));
    }

    #[test]
    fn origins_read_back_from_the_right() {
        let o = Origin { source: "kafka-a:b".into(), topic: "t.x-1".into(), partition: 7, offset: u64::MAX };
        assert_eq!(Origin::decode(o.encode().as_bytes()), Some(o));
        assert_eq!(Origin::decode(b"t:1:2"), None);
        assert_eq!(Origin::decode(b":t:1:2"), None);
        assert_eq!(Origin::decode(b"s:t:x:2"), None);
    }

    #[test]
    fn foreign_records_are_taken_or_refused_saying_why() {
        let none: Vec<(String, Option<Vec<u8>>)> = vec![];
        let rec = |key: Option<&'static [u8]>, value: Option<&'static [u8]>| InRecord { key, value, timestamp_ms: 1500, headers: &[] };
        let opts = InOptions::default();
        let i = from_record(&rec(Some(b"\0\x05"), Some(b"hi")), KeyType::U16, &opts).expect("fits");
        assert_eq!((i.key, i.payload, i.timestamp), (Key::Int(5), Outgoing::Text("hi".into()), 1.5));
        let i = from_record(&rec(Some(b"k"), Some(&[0xff, 0])), KeyType::Char(4), &opts).expect("fits");
        assert_eq!(i.payload, Outgoing::Bytes(vec![0xff, 0]));
        let e = from_record(&rec(None, Some(b"x")), KeyType::U16, &opts).expect_err("null key");
        assert!(e.to_string().contains("--key-type any"), "{e}");
        let e = from_record(&rec(Some(b"42"), Some(b"x")), KeyType::U32, &opts).expect_err("decimal key");
        assert!(e.to_string().contains("4-byte big-endian"), "{e}");
        let e = from_record(&rec(Some(b"\0\0\0\x01"), None), KeyType::U32, &opts).expect_err("tombstone");
        assert!(e.to_string().contains("tombstone"), "{e}");
        let e = from_record(&rec(Some(&[0xff]), Some(b"x")), KeyType::Char(4), &opts).expect_err("binary key");
        assert!(e.to_string().contains("UTF-8"), "{e}");
        let e =
            from_record(&rec(Some(b"k"), Some(&[0xff])), KeyType::Char(4), &InOptions { values: ForeignValues::Text, drop_headers: false })
                .expect_err("not text");
        assert!(e.to_string().contains("not UTF-8"), "{e}");
        let headers = vec![("trace".to_string(), Some(b"1".to_vec()))];
        let r = InRecord { key: Some(b"k"), value: Some(b"v"), timestamp_ms: 1, headers: &headers };
        let e = from_record(&r, KeyType::Char(4), &opts).expect_err("foreign header");
        assert!(e.to_string().contains("--drop-headers"), "{e}");
        assert!(from_record(&r, KeyType::Char(4), &InOptions { drop_headers: true, ..opts }).is_ok());
        let r = InRecord { key: Some(b"k"), value: Some(b"v"), timestamp_ms: -1, headers: &none };
        assert!(from_record(&r, KeyType::Char(4), &opts).is_err());
    }

    #[test]
    fn free_keys_go_as_their_bytes_and_come_back_as_the_kind_they_were() {
        let cases = [
            (KeyType::Any, Key::Str("ké".into()), Some("ké".as_bytes().to_vec())),
            (KeyType::Any, Key::Str(String::new()), Some(vec![])),
            // A bytes key that happens to be UTF-8 stays bytes: the header says so.
            (KeyType::Any, Key::Bytes(b"abc".to_vec()), Some(b"abc".to_vec())),
            (KeyType::Any, Key::Bytes(vec![0xff; 1000]), Some(vec![0xff; 1000])),
            (KeyType::Any, Key::Null, None),
            (KeyType::Text, Key::Str("k".repeat(1000)), Some(b"k".repeat(1000))),
            (KeyType::Bytes, Key::Bytes(vec![0, 1, 2]), Some(vec![0, 1, 2])),
        ];
        for (kt, key, bytes) in cases {
            let r = to_record(&msg(key.clone(), 1.5, Payload::Text("x".into())), kt, &origin()).expect("fits");
            assert_eq!(r.key, bytes, "{kt} {key:?}");
            assert_eq!(back(&r, kt).key, key, "{kt} {key:?}");
        }
    }

    #[test]
    fn foreign_keys_of_any_kind_and_the_null_key_fit_an_any_key_topic() {
        let rec = |key: Option<&'static [u8]>| InRecord { key, value: Some(b"v"), timestamp_ms: 1, headers: &[] };
        let opts = InOptions::default();
        let key = |k: Option<&'static [u8]>, kt: KeyType| from_record(&rec(k), kt, &opts).map(|i| i.key);
        assert_eq!(key(None, KeyType::Any).expect("null"), Key::Null);
        assert_eq!(key(Some(b"user-1"), KeyType::Any).expect("text"), Key::Str("user-1".into()));
        assert_eq!(key(Some(&[0xff, 0]), KeyType::Any).expect("bytes"), Key::Bytes(vec![0xff, 0]));
        assert_eq!(key(Some(&[0xff, 0]), KeyType::Bytes).expect("bytes"), Key::Bytes(vec![0xff, 0]));
        assert_eq!(key(Some(b"abc"), KeyType::Bytes).expect("bytes"), Key::Bytes(b"abc".to_vec()));
        let e = key(Some(&[0xff]), KeyType::Text).expect_err("not text");
        assert!(e.to_string().contains("--key-type any"), "{e}");
        let e = key(None, KeyType::Bytes).expect_err("null into bytes");
        assert!(e.to_string().contains("key type any") && e.to_string().contains("bytes"), "{e}");
    }

    #[test]
    fn an_integer_key_moves_between_widths_by_its_value() {
        let r = to_record(&msg(Key::Int(300), 1.0, Payload::Text("x".into())), KeyType::U16, &origin()).expect("fits");
        assert_eq!(back(&r, KeyType::U64).key, Key::Int(300));
        assert_eq!(back(&r, KeyType::Char(8)).key, Key::Str("300".into()));
    }

    #[test]
    fn fingerprints_tell_apart_what_differs_and_agree_between_sent_and_read() {
        let out = Outgoing::Typed { class: "A".into(), json: "{}".into() };
        let stored = Payload::Typed(twainmq::TypedPayload { type_id: 0, class: Some("A".into()), json: "{}".into() });
        let k = Key::Int(1);
        assert_eq!(fingerprint(&k, 1.0, FingerprintPayload::outgoing(&out)), fingerprint(&k, 1.0, FingerprintPayload::stored(&stored)));
        assert_ne!(fingerprint(&k, 1.0, FingerprintPayload::Text("a")), fingerprint(&k, 1.0, FingerprintPayload::Bytes(b"a")));
        assert_ne!(
            fingerprint(&k, 1.0, FingerprintPayload::Text("a")),
            fingerprint(&Key::Str("1".into()), 1.0, FingerprintPayload::Text("a"))
        );
        assert_ne!(fingerprint(&k, 1.0, FingerprintPayload::Text("a")), fingerprint(&k, 1.000_000_1, FingerprintPayload::Text("a")));
    }
}
