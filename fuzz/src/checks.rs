//! The checks behind every fuzz target, each against a simple model.
//!
//! This one file is shared by the fuzz targets (`fuzz/fuzz_targets/*.rs`) and by
//! the corpus replay in `crates/twainmq/tests/fuzz_regressions.rs`, which
//! includes it with `#[path]`, so `cargo test` runs exactly the checks the
//! fuzzer ran on exactly the same bytes. It therefore uses only what the
//! engine's tests can use: `twainmq`, `serde_json`, `flate2` and `std`.
//!
//! Every check takes the raw fuzz input and panics on a failure. Structured
//! targets read their input with [`Source`], a small byte reader in the style
//! of `arbitrary::Unstructured` (kept here rather than taken from `arbitrary`
//! so that the replay needs no extra dependency of the engine crate).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use flate2::{Decompress, FlushDecompress, Status};
use twainmq::group::{Event, GroupLog};
use twainmq::internals::b85::{self, B85Error};
use twainmq::internals::deflate::FastDeflate;
use twainmq::internals::line::{Codec, Corrupt};
use twainmq::internals::pyjson::{python_compact, python_pretty};
use twainmq::internals::{self as group, Offer, Record};
use twainmq::{Key, KeyType, Message, Outgoing, Payload, TopicConfig, TypedPayload};

/// A target's check of one input.
pub type Check = fn(&[u8]);

/// Every target: its name (the folder of its corpus) and its check.
pub const TARGETS: [(&str, Check); 7] = [
    ("line_decode", line_decode),
    ("line_roundtrip", line_roundtrip),
    ("b85_deflate", b85_deflate),
    ("config_parse", config_parse),
    ("pyjson", pyjson),
    ("group_log", group_log),
    ("assign", assign),
];

// ---------------------------------------------------------------------------
// Reading structured input.

/// Reads values off the front of the fuzz input; past its end every read gives zeros.
pub struct Source<'a> {
    data: &'a [u8],
}

impl<'a> Source<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Source { data }
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn u8(&mut self) -> u8 {
        match self.data.split_first() {
            Some((b, rest)) => {
                self.data = rest;
                *b
            }
            None => 0,
        }
    }

    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    pub fn u64(&mut self) -> u64 {
        u64::from(self.u32()) | (u64::from(self.u32()) << 32)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n <= 256 {
            usize::from(self.u8()) % n
        } else {
            usize::from(self.u16()) % n
        }
    }

    /// Up to `n` bytes (fewer at the end of the input).
    pub fn bytes(&mut self, n: usize) -> &'a [u8] {
        let (head, rest) = self.data.split_at(n.min(self.data.len()));
        self.data = rest;
        head
    }

    /// A length-prefixed byte string of at most `max` bytes.
    pub fn byte_string(&mut self, max: usize) -> &'a [u8] {
        let n = self.below(max + 1);
        self.bytes(n)
    }
}

// ---------------------------------------------------------------------------
// Reference models, written from docs/FORMAT.md and Python's sources, independently
// of the engine's code.

/// Python's `base64.b85decode`, except that a length of 5k+1 is an error (the
/// engine's documented choice: no input encodes to it; Python silently drops
/// that last character).
pub fn ref_b85_decode(text: &[u8]) -> Result<Vec<u8>, B85Error> {
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
    if text.len() % 5 == 1 {
        return Err(B85Error::BadLength { len: text.len() });
    }
    let padding = (5 - text.len() % 5) % 5;
    let mut padded = text.to_vec();
    padded.extend(std::iter::repeat_n(b'~', padding));
    let mut out = Vec::new();
    for (h, chunk) in padded.chunks(5).enumerate() {
        let mut acc: u64 = 0;
        for (j, c) in chunk.iter().enumerate() {
            let Some(d) = ALPHABET.iter().position(|a| a == c) else {
                return Err(B85Error::BadChar { index: h * 5 + j, byte: *c });
            };
            acc = acc * 85 + d as u64;
        }
        let word = u32::try_from(acc).map_err(|_| B85Error::Overflow { index: h * 5 })?;
        out.extend_from_slice(&word.to_be_bytes());
    }
    out.truncate(out.len() - padding);
    Ok(out)
}

/// Python's `base64.b85encode`.
pub fn ref_b85_encode(data: &[u8]) -> Vec<u8> {
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
    let padding = (4 - data.len() % 4) % 4;
    let mut padded = data.to_vec();
    padded.extend(std::iter::repeat_n(0u8, padding));
    let mut out = Vec::new();
    for word in padded.chunks(4) {
        let mut v = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        let mut digits = [0u8; 5];
        for d in digits.iter_mut().rev() {
            *d = ALPHABET[(v % 85) as usize];
            v /= 85;
        }
        out.extend_from_slice(&digits);
    }
    out.truncate(out.len() - padding);
    out
}

/// One-shot raw inflate into a buffer large enough for any stream of this size
/// (DEFLATE expands at most 1032:1). Trailing bytes after the end are ignored, as zlib does.
pub fn ref_inflate(data: &[u8]) -> Option<Vec<u8>> {
    let mut d = Decompress::new(false);
    let mut out = Vec::with_capacity(data.len() * 1032 + 1024);
    match d.decompress_vec(data, &mut out, FlushDecompress::Finish) {
        Ok(Status::StreamEnd) => Some(out),
        _ => None,
    }
}

/// How a line can be bad, as the reference decoder names it.
fn corrupt_kind(c: &Corrupt) -> &'static str {
    match c {
        Corrupt::TooShort { .. } => "TooShort",
        Corrupt::BadKey(_) => "BadKey",
        Corrupt::NotBase85 { field: "timestamp", .. } => "NotBase85(timestamp)",
        Corrupt::NotBase85 { .. } => "NotBase85(payload)",
        Corrupt::Inflate(_) => "Inflate",
        Corrupt::Multipart(_) => "Multipart",
        Corrupt::UnknownMagic(_) => "UnknownMagic",
        Corrupt::NotUtf8 => "NotUtf8",
        Corrupt::BadTypedJson(_) => "BadTypedJson",
        _ => "other",
    }
}

/// The payload the raw (inflated) bytes stand for, per docs/FORMAT.md. Typed JSON
/// validity is the engine's `python_compact` (the `pyjson` target checks that
/// against its own model).
pub fn ref_payload(raw: &[u8]) -> Result<Payload, &'static str> {
    match raw.first() {
        Some(0xFC) => Ok(Payload::Bytes(raw[1..].to_vec())),
        Some(0xFB) => {
            if raw.len() < 3 {
                return Err("BadTypedJson");
            }
            let json = std::str::from_utf8(&raw[3..]).map_err(|_| "NotUtf8")?;
            if python_compact(json).is_err() {
                return Err("BadTypedJson");
            }
            Ok(Payload::Typed(TypedPayload { type_id: u16::from_be_bytes([raw[1], raw[2]]), class: None, json: json.to_string() }))
        }
        Some(0xF8..=0xFA) => Err("Multipart"),
        Some(0xFD..=0xFF) => Err("UnknownMagic"),
        _ => String::from_utf8(raw.to_vec()).map(Payload::Text).map_err(|_| "NotUtf8"),
    }
}

fn key_bytes(kt: KeyType) -> usize {
    match kt {
        KeyType::U8 => 1,
        KeyType::U16 => 2,
        KeyType::U32 => 4,
        // Free keys: a line holds their 8-byte key-table id.
        KeyType::U64 | KeyType::Text | KeyType::Bytes | KeyType::Any => 8,
        KeyType::Char(n) => usize::from(n),
    }
}

/// A decoded line: key, timestamp bits, payload.
pub type RefRecord = (Key, u64, Payload);

/// Decode `KEY TS BLOB` (no newline) per docs/FORMAT.md.
pub fn ref_decode_line(kt: KeyType, line: &[u8]) -> Result<RefRecord, &'static str> {
    let kc = (key_bytes(kt) * 5).div_ceil(4);
    if line.len() < kc + 10 {
        return Err("TooShort");
    }
    let kb = ref_b85_decode(&line[..kc]).map_err(|_| "BadKey")?;
    let key = match kt {
        KeyType::Char(_) => {
            let end = kb.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
            Key::Str(String::from_utf8(kb[..end].to_vec()).map_err(|_| "BadKey")?)
        }
        _ => Key::Int(kb.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b))),
    };
    let ts = ref_b85_decode(&line[kc..kc + 10]).map_err(|_| "NotBase85(timestamp)")?;
    let ts = u64::from_be_bytes(ts.try_into().map_err(|_| "NotBase85(timestamp)")?);
    let blob = ref_b85_decode(&line[kc + 10..]).map_err(|_| "NotBase85(payload)")?;
    let raw = ref_inflate(&blob).ok_or("Inflate")?;
    Ok((key, ts, ref_payload(&raw)?))
}

// ---------------------------------------------------------------------------
// Target 1a: arbitrary bytes as a line.

const LINE_KEY_TYPES: [KeyType; 8] =
    [KeyType::U8, KeyType::U16, KeyType::U32, KeyType::U64, KeyType::Char(1), KeyType::Char(5), KeyType::Char(8), KeyType::Char(33)];

fn assert_record(got: &twainmq::internals::line::Record, want: &RefRecord, what: &dyn std::fmt::Display) {
    assert_eq!(got.key, want.0, "{what}: key");
    assert_eq!(got.timestamp.to_bits(), want.1, "{what}: timestamp bits");
    assert_eq!(got.payload, want.2, "{what}: payload");
}

/// Encode a record with `codec`, check the line's shape, and decode it back.
fn reencode(codec: &mut Codec, kt: KeyType, key: &Key, ts: f64, raw: &[u8]) -> (Vec<u8>, twainmq::internals::line::Record) {
    let mut line = Vec::new();
    codec.encode_line(kt, key, ts, raw, &mut line).expect("a key that decoded re-encodes");
    let (last, body) = line.split_last().expect("a line");
    assert_eq!(*last, b'\n', "a line ends with a newline");
    assert!(body.iter().all(u8::is_ascii_graphic), "a line is printable ASCII: {body:?}");
    let rec =
        codec.decode_line(kt, body).unwrap_or_else(|e| panic!("an encoded line decodes (exact: {}): {e} in {body:?}", codec.is_exact()));
    (body.to_vec(), rec)
}

thread_local! {
    /// A fast and an exact codec, kept across inputs as producers and readers keep theirs
    /// (a fresh zlib stream per input would dominate the fuzzing time).
    static CODECS: RefCell<(Codec, Codec)> = RefCell::new((Codec::default(), Codec::exact()));
}

/// Any bytes as a line, for each key type: never panics; agrees with the
/// reference decoder; a decoded record re-encodes (fast and exact) to a line
/// that decodes to the same record.
pub fn line_decode(data: &[u8]) {
    CODECS.with_borrow_mut(|(fast, exact)| line_decode_with(fast, exact, data));
}

fn line_decode_with(fast: &mut Codec, exact: &mut Codec, data: &[u8]) {
    for kt in LINE_KEY_TYPES {
        let got = fast.decode_line(kt, data);
        let want = ref_decode_line(kt, data);
        let rec = match (got, want) {
            (Ok(g), Ok(w)) => {
                assert_record(&g, &w, &format_args!("decode_line({kt}) vs reference"));
                g
            }
            (Err(g), Err(w)) => {
                assert_eq!(corrupt_kind(&g), w, "decode_line({kt}) fails for another reason than the reference: {g}");
                continue;
            }
            (g, w) => panic!("decode_line({kt}) of {data:?}: engine {g:?}, reference {w:?}"),
        };
        let want = (rec.key.clone(), rec.timestamp.to_bits(), rec.payload.clone());
        let mut raw = Vec::new();
        Codec::payload_bytes(&rec.payload, &mut raw);
        let kc = kt.encoded_len();
        for codec in [&mut *fast, &mut *exact] {
            let (line, again) = reencode(codec, kt, &rec.key, rec.timestamp, &raw);
            assert_record(&again, &want, &format_args!("re-encoded {kt} line (exact: {})", codec.is_exact()));
            // Whole 5-character hunks have one spelling: the timestamp, and keys of 4k bytes, come back as they were.
            assert_eq!(line[kc..kc + 10], data[kc..kc + 10], "timestamp characters");
            if key_bytes(kt).is_multiple_of(4) {
                assert_eq!(line[..kc], data[..kc], "key characters");
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Target 1b: structured (key type, key, timestamp, payload) -> encode -> decode.

/// Optional white space between JSON tokens.
fn ws(s: &mut Source, out: &mut String) {
    const WS: [&str; 5] = ["", " ", "\n", "\t", " \r\n  "];
    if s.u8() & 3 == 0 {
        out.push_str(WS[s.below(WS.len())]);
    }
}

/// Valid JSON in Python's dialect, with varied spelling (white space, escapes,
/// exponents, big integers, NaN), appended to `out`.
pub fn gen_json(s: &mut Source, out: &mut String, depth: usize) {
    ws(s, out);
    match s.below(if depth >= 5 { 6 } else { 8 }) {
        0 => out.push_str(["null", "true", "false"][s.below(3)]),
        1 => out.push_str(["NaN", "Infinity", "-Infinity", "-0", "0", "1e400", "-1E-400"][s.below(7)]),
        2 => gen_json_string(s, out),
        3 => {
            let v = s.u64();
            if s.u8() & 1 == 1 {
                out.push('-');
            }
            out.push_str(&v.to_string());
        }
        4 => {
            // A number assembled from its parts: int, fraction, exponent; or a very big integer.
            if s.u8() & 1 == 1 {
                out.push('-');
            }
            let int = s.u32();
            out.push_str(&int.to_string());
            let form = s.u8();
            if int != 0 && form & 8 == 8 {
                for _ in 0..s.below(40) {
                    out.push(char::from(b'0' + s.u8() % 10));
                }
            }
            if form & 1 == 1 {
                out.push('.');
                out.push_str(&format!("{:0w$}", s.u32(), w = s.below(12) + 1));
            }
            if form & 2 == 2 {
                out.push(if form & 4 == 4 { 'e' } else { 'E' });
                out.push_str(["", "+", "-"][s.below(3)]);
                out.push_str(&s.u16().to_string());
            }
        }
        5 => out.push_str(&twainmq::internals::pyjson::python_float_repr(f64::from_bits(s.u64()))),
        6 => {
            out.push('[');
            let n = s.below(5);
            for i in 0..n {
                if i > 0 {
                    ws(s, out);
                    out.push(',');
                }
                gen_json(s, out, depth + 1);
            }
            ws(s, out);
            out.push(']');
        }
        _ => {
            out.push('{');
            let n = s.below(5);
            for i in 0..n {
                if i > 0 {
                    ws(s, out);
                    out.push(',');
                }
                ws(s, out);
                gen_json_string(s, out);
                ws(s, out);
                out.push(':');
                gen_json(s, out, depth + 1);
            }
            ws(s, out);
            out.push('}');
        }
    }
    ws(s, out);
}

/// A JSON string literal mixing plain ASCII, short escapes, `\u` escapes (lone
/// surrogates included) and raw non-ASCII characters.
pub fn gen_json_string(s: &mut Source, out: &mut String) {
    out.push('"');
    for _ in 0..s.below(10) {
        match s.below(5) {
            0 | 1 => {
                let c = char::from(0x20 + s.u8() % 0x5f);
                if c == '"' || c == '\\' {
                    out.push('\\');
                }
                out.push(c);
            }
            2 => out.push_str(["\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t"][s.below(8)]),
            3 => {
                let unit = match s.below(4) {
                    0 => 0xD800 + s.u16() % 0x800,
                    1 => s.u16() % 0x80,
                    _ => s.u16(),
                };
                out.push_str(&if s.u8() & 1 == 1 { format!("\\u{unit:04X}") } else { format!("\\u{unit:04x}") });
            }
            _ => out.push(char::from_u32(0x7F + s.u32() % (0x11_0000 - 0x7F)).unwrap_or('\u{FFFD}')),
        }
    }
    out.push('"');
}

/// A key for `kt` and the key decoding gives back, or `None` when encoding must refuse it.
fn gen_key(s: &mut Source, kt: KeyType) -> (Key, Option<Key>) {
    let mode = s.u8();
    match kt {
        KeyType::Char(n) => {
            if mode & 1 == 1 {
                let v = s.u64() >> (mode >> 2);
                let text = v.to_string();
                let ok = text.len() <= usize::from(n);
                (Key::Int(v), ok.then_some(Key::Str(text)))
            } else {
                let text = String::from_utf8_lossy(s.byte_string(usize::from(n) + 2)).into_owned();
                let ok = text.len() <= usize::from(n) && !text.ends_with('\0');
                (Key::Str(text.clone()), ok.then_some(Key::Str(text)))
            }
        }
        _ => {
            if mode & 3 == 3 {
                return (Key::Str("7".into()), None);
            }
            let max = u64::MAX >> (64 - 8 * key_bytes(kt));
            let v = s.u64();
            let v = if mode & 1 == 1 || max == u64::MAX { v } else { v % (max + 1) };
            (Key::Int(v), (v <= max).then_some(Key::Int(v)))
        }
    }
}

/// Raw payload bytes and the payload (or failure kind) they decode to.
fn gen_payload(s: &mut Source) -> (Vec<u8>, Result<Payload, &'static str>) {
    match s.below(4) {
        0 => {
            let text = String::from_utf8_lossy(s.byte_string(600)).into_owned();
            (text.as_bytes().to_vec(), Ok(Payload::Text(text)))
        }
        1 => {
            let mut body = s.byte_string(600).to_vec();
            // Now and then past the fast encoder's input limit, which falls back to zlib.
            if s.u8() == 0xFF && !body.is_empty() {
                while body.len() <= twainmq::internals::deflate::MAX_INPUT {
                    body.extend_from_within(..body.len().min(4096));
                }
            }
            let mut raw = vec![0xFC];
            raw.extend_from_slice(&body);
            (raw, Ok(Payload::Bytes(body)))
        }
        2 => {
            let type_id = s.u16();
            let mut json = String::new();
            gen_json(s, &mut json, 0);
            let mut raw = vec![0xFB];
            raw.extend_from_slice(&type_id.to_be_bytes());
            raw.extend_from_slice(json.as_bytes());
            (raw, Ok(Payload::Typed(TypedPayload { type_id, class: None, json })))
        }
        _ => {
            let raw = s.byte_string(300).to_vec();
            let want = ref_payload(&raw);
            (raw, want)
        }
    }
}

/// A structured message: encoding refuses exactly the keys that do not fit,
/// and an encoded line decodes (with either codec, and with the reference
/// decoder) to exactly what was encoded.
pub fn line_roundtrip(data: &[u8]) {
    CODECS.with_borrow_mut(|(fast, exact)| line_roundtrip_with(fast, exact, data));
}

fn line_roundtrip_with(fast: &mut Codec, exact_codec: &mut Codec, data: &[u8]) {
    let mut s = Source::new(data);
    let kt = match s.below(6) {
        0 => KeyType::U8,
        1 => KeyType::U16,
        2 => KeyType::U32,
        3 => KeyType::U64,
        4 => KeyType::Char(1 + s.below(64) as u16),
        _ => KeyType::Char(1 + s.u16() % twainmq::limits::MAX_CHAR_WIDTH),
    };
    let (key, want_key) = gen_key(&mut s, kt);
    let ts = f64::from_bits(s.u64());
    let exact = s.u8() & 1 == 1;
    let (raw, want_payload) = gen_payload(&mut s);

    let (codec, other) = if exact { (exact_codec, fast) } else { (fast, exact_codec) };
    let mut line = Vec::new();
    let encoded = codec.encode_line(kt, &key, ts, &raw, &mut line);
    let Some(want_key) = want_key else {
        assert!(encoded.is_err(), "{kt} key {key:?} should be refused, got line {line:?}");
        return;
    };
    encoded.unwrap_or_else(|e| panic!("{kt} key {key:?} should encode: {e:?}"));
    let (last, body) = line.split_last().expect("a line");
    assert_eq!(*last, b'\n');
    assert!(body.iter().all(u8::is_ascii_graphic), "a line is printable ASCII");
    let kc = kt.encoded_len();
    assert_eq!(kc, (key_bytes(kt) * 5).div_ceil(4), "{kt} key width");
    assert_eq!(&body[kc..kc + 10], &ref_b85_encode(&ts.to_bits().to_be_bytes())[..], "timestamp characters");

    let want_ref = want_payload.clone().map(|p| (want_key.clone(), ts.to_bits(), p));
    assert_eq!(ref_decode_line(kt, body), want_ref, "reference decoder on the encoded line");
    for decoder in [codec, other] {
        match (decoder.decode_line(kt, body), &want_payload) {
            (Ok(rec), Ok(p)) => assert_record(&rec, &(want_key.clone(), ts.to_bits(), p.clone()), &"structured round trip"),
            (Err(e), Err(kind)) => assert_eq!(corrupt_kind(&e), *kind, "failure kind for raw payload {raw:?}"),
            (got, want) => panic!("raw payload {raw:?}: decoded {got:?}, expected {want:?}"),
        }
    }
}

// ---------------------------------------------------------------------------
// Target 2: base85 and the fast deflate encoder.

fn check_deflate(enc: &mut FastDeflate, data: &[u8]) {
    let mut out = vec![0xAA];
    enc.compress(data, &mut out);
    let stream = &out[1..];
    let mut d = Decompress::new(false);
    let mut back = Vec::with_capacity(data.len() + 64);
    let status = d.decompress_vec(stream, &mut back, FlushDecompress::Finish);
    assert!(matches!(status, Ok(Status::StreamEnd)), "FastDeflate output of {} bytes is one complete stream: {status:?}", data.len());
    assert_eq!(d.total_in(), stream.len() as u64, "nothing after the end of the stream");
    assert!(back == data, "FastDeflate output inflates to its input ({} bytes)", data.len());
    let blocks = data.len().div_ceil(65535).max(1);
    assert!(stream.len() <= data.len() + 5 * blocks, "{} bytes deflate to {}: more than stored blocks", data.len(), stream.len());
}

/// base85 decoding agrees with Python's (so never panics), encoding agrees
/// with Python's and round-trips; FastDeflate output inflates to its input.
pub fn b85_deflate(data: &[u8]) {
    // Decoding arbitrary text.
    let got = b85::decode(data);
    assert_eq!(got, ref_b85_decode(data), "b85 decode of {data:?}");
    if let Ok(bytes) = &got {
        let text = b85::encode(bytes);
        assert_eq!(b85::decode(text.as_bytes()).as_ref(), Ok(bytes), "re-encoded text decodes to the same bytes");
    }
    // Encoding arbitrary bytes.
    let text = b85::encode(data);
    assert_eq!(text.as_bytes(), &ref_b85_encode(data)[..], "b85 encode of {data:?}");
    assert_eq!(text.len(), b85::encoded_len(data.len()));
    let mut out = b"prefix".to_vec();
    b85::decode_into(text.as_bytes(), &mut out).expect("own encoding decodes");
    assert_eq!(&out[6..], data, "decode_into appends the decoded bytes");

    // Deflate: a fresh encoder, then the same one again on related inputs.
    let mut enc = FastDeflate::default();
    check_deflate(&mut enc, data);
    if let Some((_, tail)) = data.split_first() {
        check_deflate(&mut enc, tail);
    }
    check_deflate(&mut enc, data);
    if data.first() == Some(&0xFF) && data.len() > 1 {
        // Past the encoder's input limit: stored blocks.
        let mut big = data.to_vec();
        while big.len() <= twainmq::internals::deflate::MAX_INPUT {
            big.extend_from_within(..);
        }
        check_deflate(&mut enc, &big);
    }
}

// ---------------------------------------------------------------------------
// Target 3: topic configs.

/// Parsing never panics; a parsed config writes out to bytes that parse back
/// to it, and agrees with the file's JSON (type names in order, extra keys kept).
pub fn config_parse(data: &[u8]) {
    let Ok(c) = TopicConfig::parse(data) else { return };
    let json: serde_json::Value = serde_json::from_slice(data).expect("a parsed config is JSON");
    let obj = json.as_object().expect("a parsed config is an object");
    let names: Vec<&String> = obj["message_types"].as_object().expect("message_types").keys().collect();
    assert_eq!(c.message_types.iter().map(|(n, _)| n).collect::<Vec<_>>(), names, "type names in file order");
    let mut extra = obj.clone();
    for k in ["key_width", "partitions", "message_types"] {
        extra.shift_remove(k);
    }
    assert_eq!(c.extra, extra, "extra keys kept");
    assert!(c.partitions >= 1);

    let bytes = c.to_bytes();
    assert!(bytes.iter().all(|b| *b == b'\n' || (0x20..0x7f).contains(b)), "configs are written as ASCII");
    let head = format!("{{\n\"key_width\": {},\n\"partitions\": {},\n\"message_types\": ", c.key_type.width(), c.partitions);
    assert!(bytes.starts_with(head.as_bytes()), "written as json.dump(indent=0): {}", String::from_utf8_lossy(&bytes));
    let again = TopicConfig::parse(&bytes).unwrap_or_else(|e| panic!("to_bytes output parses: {e}: {}", String::from_utf8_lossy(&bytes)));
    assert_eq!(again, c, "parse(to_bytes(c)) == c");
    assert_eq!(again.to_bytes(), bytes, "to_bytes is stable");
    let order: Vec<&String> = obj.keys().filter(|k| c.extra.contains_key(*k)).collect();
    assert_eq!(c.extra.keys().collect::<Vec<_>>(), order, "extra keys in file order");
}

// ---------------------------------------------------------------------------
// Target 4: Python-dialect JSON.

/// A JSON value as Python's `json.loads` sees it; numbers keep their spelling
/// (the engine promises to keep them exactly), strings are code points (lone
/// surrogates included).
#[derive(Debug, Clone, PartialEq)]
pub enum PyJson {
    Const(&'static str),
    Number(String),
    Str(Vec<u32>),
    Array(Vec<PyJson>),
    Object(Vec<(Vec<u32>, PyJson)>),
}

/// Nesting the engine accepts (Python's own limit is its recursion limit, about 1000).
pub const PY_MAX_DEPTH: usize = 512;

/// A straightforward reading of CPython's `_json` scanner (`json.loads` with
/// default arguments): strict strings, `NaN`/`Infinity`/`-Infinity`.
pub fn ref_json_parse(text: &str) -> Result<PyJson, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut p = RefJson { c: &chars, i: 0 };
    p.ws();
    let v = p.value(1)?;
    p.ws();
    if p.i != chars.len() {
        return Err(format!("extra data at {}", p.i));
    }
    Ok(v)
}

struct RefJson<'a> {
    c: &'a [char],
    i: usize,
}

impl RefJson<'_> {
    fn peek(&self) -> Option<char> {
        self.c.get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r')) {
            self.i += 1;
        }
    }

    fn word(&mut self, w: &str) -> bool {
        let n = w.chars().count();
        if self.c.len() >= self.i + n && self.c[self.i..self.i + n].iter().copied().eq(w.chars()) {
            self.i += n;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<PyJson, String> {
        if depth > PY_MAX_DEPTH {
            return Err("too deep".into());
        }
        for (w, v) in
            [("null", "null"), ("true", "true"), ("false", "false"), ("NaN", "NaN"), ("Infinity", "Infinity"), ("-Infinity", "-Infinity")]
        {
            if self.word(w) {
                return Ok(PyJson::Const(v));
            }
        }
        match self.peek() {
            Some('"') => self.string().map(PyJson::Str),
            Some('[') => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.peek() == Some(']') {
                    self.i += 1;
                    return Ok(PyJson::Array(items));
                }
                loop {
                    self.ws();
                    items.push(self.value(depth + 1)?);
                    self.ws();
                    match self.peek() {
                        Some(']') => {
                            self.i += 1;
                            return Ok(PyJson::Array(items));
                        }
                        Some(',') => self.i += 1,
                        _ => return Err(format!("expecting ',' delimiter at {}", self.i)),
                    }
                }
            }
            Some('{') => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.peek() == Some('}') {
                    self.i += 1;
                    return Ok(PyJson::Object(items));
                }
                loop {
                    self.ws();
                    if self.peek() != Some('"') {
                        return Err(format!("expecting property name at {}", self.i));
                    }
                    let k = self.string()?;
                    self.ws();
                    if self.peek() != Some(':') {
                        return Err(format!("expecting ':' at {}", self.i));
                    }
                    self.i += 1;
                    self.ws();
                    let v = self.value(depth + 1)?;
                    items.push((k, v));
                    self.ws();
                    match self.peek() {
                        Some('}') => {
                            self.i += 1;
                            return Ok(PyJson::Object(items));
                        }
                        Some(',') => self.i += 1,
                        _ => return Err(format!("expecting ',' delimiter at {}", self.i)),
                    }
                }
            }
            _ => self.number(),
        }
    }

    /// `_match_number_unicode`: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?
    fn number(&mut self) -> Result<PyJson, String> {
        let start = self.i;
        let digit = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit());
        if self.peek() == Some('-') {
            self.i += 1;
        }
        match self.peek() {
            Some('0') => self.i += 1,
            Some('1'..='9') => {
                while digit(self.peek()) {
                    self.i += 1;
                }
            }
            _ => return Err(format!("expecting value at {start}")),
        }
        if self.peek() == Some('.') && digit(self.c.get(self.i + 1).copied()) {
            self.i += 1;
            while digit(self.peek()) {
                self.i += 1;
            }
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            let e = self.i;
            self.i += 1;
            if matches!(self.peek(), Some('+' | '-')) {
                self.i += 1;
            }
            let d = self.i;
            while digit(self.peek()) {
                self.i += 1;
            }
            if self.i == d {
                self.i = e; // backtrack: not an exponent
            }
        }
        Ok(PyJson::Number(self.c[start..self.i].iter().collect()))
    }

    fn hex4(&self, at: usize) -> Option<u32> {
        let h = self.c.get(at..at + 4)?;
        h.iter().try_fold(0u32, |acc, c| c.to_digit(16).map(|d| acc * 16 + d))
    }

    /// `scanstring_unicode` with strict=True.
    fn string(&mut self) -> Result<Vec<u32>, String> {
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let Some(c) = self.peek() else { return Err("unterminated string".into()) };
            self.i += 1;
            match c {
                '"' => return Ok(out),
                '\\' => {
                    let Some(e) = self.peek() else { return Err("unterminated string".into()) };
                    self.i += 1;
                    let simple = match e {
                        '"' => '"',
                        '\\' => '\\',
                        '/' => '/',
                        'b' => '\u{8}',
                        'f' => '\u{c}',
                        'n' => '\n',
                        'r' => '\r',
                        't' => '\t',
                        'u' => {
                            let Some(mut unit) = self.hex4(self.i) else { return Err(format!("invalid \\uXXXX escape at {}", self.i)) };
                            self.i += 4;
                            if (0xD800..0xDC00).contains(&unit) && self.c.get(self.i) == Some(&'\\') && self.c.get(self.i + 1) == Some(&'u')
                            {
                                let Some(low) = self.hex4(self.i + 2) else { return Err(format!("invalid \\uXXXX escape at {}", self.i)) };
                                if (0xDC00..0xE000).contains(&low) {
                                    unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                                    self.i += 6;
                                }
                            }
                            out.push(unit);
                            continue;
                        }
                        _ => return Err(format!("invalid \\escape at {}", self.i)),
                    };
                    out.push(u32::from(simple));
                }
                c if u32::from(c) < 0x20 => return Err("invalid control character".into()),
                c => out.push(u32::from(c)),
            }
        }
    }
}

/// Python-dialect JSON: `python_compact` agrees with the reference reading on
/// what is valid and on what it means; its output is ASCII, compact and a
/// fixed point; `python_pretty` means the same; serde_json agrees where it reads the text.
pub fn pyjson(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let text = text.as_ref();
    let got = python_compact(text);
    let want = ref_json_parse(text);
    let (compact, tree) = match (got, want) {
        (Ok(c), Ok(t)) => (c, t),
        (Err(_), Err(_)) => {
            assert!(python_pretty(text).is_err(), "python_pretty accepts what python_compact refuses: {text:?}");
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
                panic!("python_compact refuses standard JSON {text:?} (serde_json: {v})");
            }
            return;
        }
        (g, w) => panic!("python_compact({text:?}) = {g:?}, but the reference reading gives {w:?}"),
    };
    assert!(compact.bytes().all(|b| (0x20..0x7f).contains(&b)), "compact output is printable ASCII: {compact:?}");
    assert_eq!(ref_json_parse(&compact).as_ref(), Ok(&tree), "compact output {compact:?} means what {text:?} means");
    assert_eq!(python_compact(&compact).as_deref(), Ok(compact.as_str()), "compact is a fixed point");
    let pretty = python_pretty(text).unwrap_or_else(|e| panic!("python_pretty refuses what python_compact accepts: {e}: {text:?}"));
    assert_eq!(ref_json_parse(&pretty).as_ref(), Ok(&tree), "pretty output {pretty:?} means what {text:?} means");
    assert_eq!(python_compact(&pretty).as_deref(), Ok(compact.as_str()), "pretty {pretty:?} compacts back to compact {compact:?}");
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
        let back: serde_json::Value =
            serde_json::from_str(&compact).unwrap_or_else(|e| panic!("serde_json refuses compact {compact:?}: {e}"));
        assert_eq!(back, v, "compact {compact:?} is the same value to serde_json as {text:?}");
    }
}

// ---------------------------------------------------------------------------
// Target 6 (used by 5): 0.2.3's assignment, transcribed.

/// `RebalInProgress.get_assignments` of twainmq 0.2.3, line by line. `offers`
/// is the dict in insertion order.
pub fn ref_assign(offers: &[(u32, Offer)]) -> BTreeMap<u32, Vec<u32>> {
    // Step 0: clean ownership lists.
    let cleaned: Vec<(u32, BTreeSet<u32>, Vec<u32>)> = offers
        .iter()
        .map(|(cid, offer)| {
            let allowed: BTreeSet<u32> = offer.partitions.iter().copied().collect();
            let owned: Vec<u32> = offer.own.iter().copied().filter(|p| allowed.contains(p)).collect();
            (*cid, allowed, owned)
        })
        .collect();
    // Step 1: owned first, then by partition id.
    let mut consumer_lists: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for (cid, allowed, owned) in &cleaned {
        let mut owned_sorted = owned.clone();
        owned_sorted.sort();
        let mut new_sorted: Vec<u32> = allowed.iter().copied().filter(|p| !owned.contains(p)).collect();
        new_sorted.sort();
        owned_sorted.extend(new_sorted);
        consumer_lists.insert(*cid, owned_sorted);
    }
    // Step 2: sort consumers by (offered asc, owned desc, id asc); Python's sort is stable.
    let mut sorted_consumers = cleaned.clone();
    sorted_consumers.sort_by_key(|(cid, allowed, owned)| (allowed.len() as i64, -(owned.len() as i64), *cid));
    // Step 3: round robin.
    let mut assigned: BTreeMap<u32, Vec<u32>> = cleaned.iter().map(|(cid, _, _)| (*cid, Vec::new())).collect();
    let mut remaining_lists = consumer_lists.clone();
    let all_partitions: BTreeSet<u32> = cleaned.iter().flat_map(|(_, allowed, _)| allowed.iter().copied()).collect();
    let mut assigned_partitions = BTreeSet::new();
    while assigned_partitions.len() < all_partitions.len() {
        for (cid, _, _) in &sorted_consumers {
            let lst = remaining_lists.get_mut(cid).expect("every consumer has a list");
            while !lst.is_empty() && assigned_partitions.contains(&lst[0]) {
                lst.remove(0);
            }
            if lst.is_empty() {
                continue;
            }
            let p = lst.remove(0);
            assigned.get_mut(cid).expect("every consumer is in assigned").push(p);
            assigned_partitions.insert(p);
        }
    }
    for v in assigned.values_mut() {
        v.sort();
    }
    assigned
}

/// `add_offer`: a dict assignment, so a later offer from the same id replaces the earlier one in place.
pub fn add_offer(offers: &mut Vec<(u32, Offer)>, id: u32, offer: Offer) {
    match offers.iter_mut().find(|(i, _)| *i == id) {
        Some(slot) => slot.1 = offer,
        None => offers.push((id, offer)),
    }
}

/// Every offered partition is assigned exactly once, to the members that offered.
fn assert_covers(offers: &[(u32, Offer)], assignment: &BTreeMap<u32, Vec<u32>>) {
    let ids: BTreeSet<u32> = offers.iter().map(|(id, _)| *id).collect();
    assert_eq!(assignment.keys().copied().collect::<BTreeSet<_>>(), ids, "assignment is to the members that offered");
    let union: BTreeSet<u32> = offers.iter().flat_map(|(_, o)| o.partitions.iter().copied()).collect();
    let mut given: Vec<u32> = assignment.values().flatten().copied().collect();
    given.sort_unstable();
    assert_eq!(given, union.iter().copied().collect::<Vec<_>>(), "each offered partition exactly once: {assignment:?} for {offers:?}");
    for (id, parts) in assignment {
        let offer = &offers.iter().find(|(i, _)| i == id).expect("offered").1;
        assert!(parts.iter().all(|p| offer.partitions.contains(p)), "member {id} got a partition it did not offer");
    }
}

/// A partition number: mostly small, sometimes anything (u32::MAX included).
fn gen_partition(s: &mut Source) -> u32 {
    match s.u8() {
        b @ 0..=239 => u32::from(b % 16),
        240..=251 => s.u32() % 10_000,
        252..=254 => s.u32(),
        _ => u32::MAX,
    }
}

fn gen_partitions(s: &mut Source, max: usize) -> Vec<u32> {
    let n = s.below(max + 1);
    (0..n).map(|_| gen_partition(s)).collect()
}

/// Offer sets built as 0.2.3 builds them: engine and transcription agree exactly.
pub fn assign(data: &[u8]) {
    let mut s = Source::new(data);
    let mut offers = Vec::new();
    while !s.is_empty() {
        let b = s.u8();
        let id = if b < 0xF0 { u32::from(b % 24) } else { s.u32() };
        let own = gen_partitions(&mut s, 8);
        let partitions = gen_partitions(&mut s, 16);
        add_offer(&mut offers, id, Offer { own, partitions });
    }
    let got = group::assign(&offers);
    assert_eq!(got, ref_assign(&offers), "assignment of {offers:?}");
    assert_covers(&offers, &got);
}

// ---------------------------------------------------------------------------
// Target 5: folding a group log.

/// Partitions per member id.
type Assignment = BTreeMap<u32, Vec<u32>>;

/// What docs/FORMAT.md says a group log means, kept the simple way.
#[derive(Default)]
struct GroupModel {
    open: bool,
    offers: Vec<(u32, Offer)>,
    commits: BTreeMap<u32, i64>,
    max_key: Option<u32>,
    joins: BTreeMap<u32, (u64, u64)>,
    seen: BTreeSet<u32>,
    open_begin: u64,
    /// Last completed round: its BEGINREBAL offset, assignment and confirms.
    completed: Option<(u64, Assignment, Assignment)>,
    partitions_hint: Option<u64>,
    records: u64,
}

/// The partition count partition `p` implies: p + 1, which for u32::MAX cannot
/// be a u32 and is kept at u32::MAX.
fn hint_of(p: u32) -> u64 {
    (u64::from(p) + 1).min(u64::from(u32::MAX))
}

fn gen_record(s: &mut Source, op: u8) -> Record {
    match op & 7 {
        0 => Record::Joined { tag: s.u64(), client: None },
        1 => Record::AbortJoin { tag: s.u64() },
        2 | 7 => Record::Offer { own: gen_partitions(s, 6), partitions: gen_partitions(s, 10) },
        3 => Record::Confirm { partitions: gen_partitions(s, 6) },
        4 => {
            let t = f64::from_bits(s.u64());
            Record::BeginRound { ends_at: if t.is_finite() { t } else { f64::from(s.u32()) } }
        }
        5 => Record::EndRound,
        _ => {
            let n = s.below(6);
            Record::Commit { offsets: (0..n).map(|_| (gen_partition(s), s.u64() as i64 >> s.below(64))).collect() }
        }
    }
}

/// The record survives the trip through its typed message (as 0.2.3 would read it back).
fn check_record_message(key: u32, offset: u64, record: &Record) {
    let Outgoing::Typed { class, json } = record.to_outgoing() else { panic!("a group record is a typed message") };
    python_compact(&json).unwrap_or_else(|e| panic!("{class} record JSON {json:?} is valid: {e}"));
    let type_id = group::TYPES.iter().position(|t| *t == class).expect("one of the seven types") as u16;
    let msg = Message {
        topic: Arc::from("--group--fuzz"),
        partition: 0,
        offset,
        key: Key::Int(key.into()),
        timestamp: 0.0,
        payload: Payload::Typed(TypedPayload { type_id, class: Some(class), json }),
    };
    assert_eq!(Record::from_message(&msg).as_ref(), Some(record), "record read back from {msg:?}");
}

/// A sequence of group records folded by `GroupLog::apply`: never panics; each
/// round's assignment is 0.2.3's over that round's offers (BEGINREBAL to the
/// first ENDREBAL) and covers them exactly once; commits, joins, members agree with the model.
pub fn group_log(data: &[u8]) {
    let mut s = Source::new(data);
    let mut log = GroupLog::default();
    let mut m = GroupModel::default();
    let mut offset = 0u64;
    while !s.is_empty() {
        let op = s.u8();
        let key = match op >> 4 {
            k @ 0..=11 => u32::from(k),
            12..=14 => u32::from(s.u8()),
            _ => s.u32(),
        };
        let at = offset as f64 * 0.25;
        let record = gen_record(&mut s, op);
        if offset < 8 {
            // Cheap enough for a few records an input; the rest vary the fold.
            check_record_message(key, offset, &record);
        }

        let ev = log.apply(key, offset, at, &record);

        m.records += 1;
        m.seen.insert(key);
        m.max_key = Some(m.max_key.map_or(key, |k| k.max(key)));
        let want_ev = match &record {
            Record::Joined { tag, .. } => {
                m.joins.entry(key).or_insert((*tag, offset));
                Event::Joined { id: key, tag: *tag }
            }
            Record::AbortJoin { .. } => Event::Other,
            Record::BeginRound { ends_at } => {
                m.open = true;
                m.open_begin = offset;
                m.offers.clear();
                Event::RoundBegan { ends_at: *ends_at }
            }
            Record::Offer { own, partitions } => {
                if m.open {
                    add_offer(&mut m.offers, key, Offer { own: own.clone(), partitions: partitions.clone() });
                    if let Some(n) = partitions.iter().max() {
                        m.partitions_hint = Some(m.partitions_hint.unwrap_or(0).max(hint_of(*n)));
                    }
                }
                Event::Other
            }
            Record::EndRound => {
                if m.open {
                    m.open = false;
                    let assignment = ref_assign(&m.offers);
                    assert_covers(&m.offers, &assignment);
                    m.completed = Some((m.open_begin, assignment.clone(), BTreeMap::new()));
                    m.offers.clear();
                    Event::RoundEnded { assignment }
                } else {
                    Event::Other
                }
            }
            Record::Confirm { partitions } => {
                if let Some((_, _, confirms)) = &mut m.completed {
                    confirms.insert(key, partitions.clone());
                }
                Event::Other
            }
            Record::Commit { offsets } => {
                if m.records == 1 && key == 0 {
                    m.partitions_hint = offsets.iter().map(|(p, _)| hint_of(*p)).max();
                }
                // An offset below -1 is no position (docs/FORMAT.md): passed over.
                let good: Vec<(u32, i64)> = offsets.iter().copied().filter(|(_, o)| *o >= -1).collect();
                for (p, o) in &good {
                    m.commits.insert(*p, *o);
                }
                Event::Committed { offsets: good }
            }
        };
        let what = format_args!("record {offset} ({record:?} by {key})");
        assert_eq!(ev, want_ev, "{what}: event");
        assert_eq!(log.max_key, m.max_key, "{what}: max key");
        assert_eq!(log.records, m.records, "{what}: record count");
        assert_eq!(log.open_round().is_some(), m.open, "{what}: a round is open");
        assert_eq!(log.partitions_hint.map(u64::from), m.partitions_hint, "{what}: partition count hint");
        if matches!(record, Record::EndRound) || s.is_empty() {
            compare_group_state(&log, &m, &what);
        }
        offset += 1;
    }
}

/// Commits, joins, the last completed round and members agree with the model.
fn compare_group_state(log: &GroupLog, m: &GroupModel, what: &dyn std::fmt::Display) {
    assert_eq!(log.commits, m.commits, "{what}: commits");
    let joins: BTreeMap<u32, (u64, u64)> = log.joins.iter().map(|(id, (tag, _, off))| (*id, (*tag, *off))).collect();
    assert_eq!(joins, m.joins, "{what}: joins");
    let last = log.last_completed();
    assert_eq!(
        last.map(|r| (r.begin_offset, &r.assignment, &r.confirms)),
        m.completed.as_ref().map(|(b, a, c)| (*b, a, c)),
        "{what}: last completed round"
    );
    let members = log.members();
    assert!(members.keys().all(|id| m.seen.contains(id)), "{what}: members {members:?} are ids seen in the log");
    let mut want_members = BTreeMap::new();
    let since = match &m.completed {
        Some((begin, assignment, _)) => {
            want_members.extend(assignment.iter().map(|(id, p)| (*id, p.clone())));
            *begin
        }
        None => 0,
    };
    for (id, (_, off)) in &m.joins {
        // Key 0 writes the group's first commit; members' ids start at 1.
        if *off >= since && *id != 0 {
            want_members.entry(*id).or_insert_with(Vec::new);
        }
    }
    assert_eq!(members, want_members, "{what}: members");
}
