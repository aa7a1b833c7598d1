//! One message = one line: `KEY` + `TS` + `BLOB` + `\n`. Pure encode/decode on bytes.

use std::fmt;

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};

use crate::format::b85;
use crate::format::key::{Key, KeyType};
use crate::format::payload::{Payload, TypedPayload, BYTES_MAGIC, MULTIPART, TYPED_MAGIC};

/// 0.2.3's limit on a whole line, newline included.
pub const MAX_LINE_BYTES: usize = 4096;
/// Encoded timestamp width.
pub const TS_CHARS: usize = 10;
/// Larger payloads are inflated by zlib, which checks the 64 MiB limit as it goes.
const FAST_INFLATE_LIMIT: usize = 1 << 20;
/// Inflated payloads larger than this are refused (a 4 KB line inflates to ~3.4 MB at most).
const MAX_INFLATED: usize = 64 << 20;

/// Why a complete line is not a valid message.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Corrupt {
    /// Too short to hold a key and a timestamp.
    TooShort {
        /// The line's length in bytes, newline excluded.
        len: usize,
        /// Characters of the key and timestamp: the shortest valid line.
        min: usize,
    },
    /// The timestamp or payload characters are not valid base85.
    NotBase85 {
        /// `timestamp` or `payload`.
        field: &'static str,
        /// What the base85 decoder found (see [`b85::B85Error`]).
        detail: String,
    },
    /// The key characters do not decode to a key of the topic's type (why).
    BadKey(String),
    /// The payload is not a complete raw DEFLATE stream, or inflates past
    /// 64 MiB (zlib's reason, or ours).
    Inflate(String),
    /// The payload starts with one of the markers 0xF8 to 0xFA, which 0.2.3
    /// reserves for multipart messages and never writes (the marker).
    Multipart(u8),
    /// The payload starts with a marker 0.2.3 does not define: 0xFD to 0xFF
    /// (the marker).
    UnknownMagic(u8),
    /// A text payload, or a typed payload's JSON, that is not valid UTF-8.
    NotUtf8,
    /// A typed payload without a type id, or whose fields are not JSON in the
    /// dialect Python reads (the parser's reason).
    BadTypedJson(String),
    /// A line without its `\n` that can never be completed, because a later file exists.
    TornTail {
        /// Bytes after the file's last newline.
        len: usize,
    },
    /// A line longer than any reader accepts (no newline within the limit).
    Overlong {
        /// The line's length in bytes, newline excluded.
        len: usize,
    },
    /// The end part of a large message whose message cannot be put together
    /// (a part missing, deleted by retention, or damaged; a size past the
    /// topic's limit): what is wrong.
    BrokenMessage(String),
    /// A free key's id that names no key of the topic's key table (why).
    UnknownKey {
        /// The id (the byte its entry would start at in `keys.twk`).
        id: u64,
        /// What was found there.
        reason: String,
    },
}

impl fmt::Display for Corrupt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Corrupt::TooShort { len, min } => write!(f, "line of {len} bytes is shorter than the {min} of key and timestamp"),
            Corrupt::NotBase85 { field, detail } => write!(f, "{field} is not base85: {detail}"),
            Corrupt::BadKey(d) => write!(f, "bad key: {d}"),
            Corrupt::Inflate(d) => write!(f, "payload is not valid raw DEFLATE: {d}"),
            Corrupt::Multipart(b) => write!(f, "multipart payload (marker 0x{b:02x}) is reserved and not supported"),
            Corrupt::UnknownMagic(b) => write!(f, "payload starts with unknown marker 0x{b:02x}"),
            Corrupt::NotUtf8 => write!(f, "text payload is not valid UTF-8"),
            Corrupt::BadTypedJson(d) => write!(f, "typed payload is not valid JSON: {d}"),
            Corrupt::TornTail { len } => write!(f, "{len} bytes without a final newline (torn by a crash), and a later file exists"),
            Corrupt::Overlong { len } => write!(f, "over {len} bytes without a newline"),
            Corrupt::BrokenMessage(why) => write!(f, "the end of a large message that cannot be put together: {why}"),
            Corrupt::UnknownKey { id, reason } => write!(f, "key id {id} names no key in the topic's key table (keys.twk): {reason}"),
        }
    }
}

/// A decoded line before its type id is given a name.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The message's key.
    pub key: Key,
    /// UNIX time in seconds, exactly as stored.
    pub timestamp: f64,
    /// The payload; a typed one has no `class` yet (the topic config names it).
    pub payload: Payload,
}

/// Reusable deflate/inflate state: creating zlib streams per message is the
/// dominant cost for small messages, so producers and readers keep one.
pub struct Codec {
    fast: crate::format::deflate::FastDeflate,
    /// Deflate with zlib at level 6, byte-identical to 0.2.3, instead of the fast encoder.
    exact: bool,
    compress: Compress,
    decompress: Decompress,
    scratch: Vec<u8>,
    /// The fast inflater's output, kept at its largest length so that it is
    /// not zeroed again for every message (`scratch` holds zlib's).
    fast_out: Vec<u8>,
    raw: Vec<u8>,
    /// The last timestamp encoded and its 10 characters: a batch shares one.
    last_ts: Option<(u64, [u8; TS_CHARS])>,
}

impl Default for Codec {
    fn default() -> Self {
        Codec {
            fast: crate::format::deflate::FastDeflate::default(),
            exact: false,
            compress: Compress::new_with_window_bits(Compression::new(6), false, 15),
            decompress: Decompress::new_with_window_bits(false, 15),
            scratch: Vec::with_capacity(4096),
            fast_out: Vec::new(),
            raw: Vec::with_capacity(4096),
            last_ts: None,
        }
    }
}

impl fmt::Debug for Codec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Codec")
    }
}

/// Encode a UNIX time in seconds as 10 base85 characters.
pub fn encode_timestamp(ts: f64, out: &mut Vec<u8>) {
    b85::encode_into(&ts.to_bits().to_be_bytes(), out);
}

/// Decode 10 base85 characters as a UNIX time.
///
/// # Errors
/// When the characters are not base85.
pub fn decode_timestamp(text: &[u8]) -> Result<f64, b85::B85Error> {
    b85::decode_u64(text).map(f64::from_bits)
}

impl Codec {
    /// A codec whose lines are byte-identical to 0.2.3's (zlib level 6; about
    /// ten times slower for small messages than the default encoder).
    pub fn exact() -> Codec {
        Codec { exact: true, ..Codec::default() }
    }

    /// Switch between 0.2.3's exact bytes and the fast encoder.
    pub fn set_exact(&mut self, exact: bool) {
        self.exact = exact;
    }

    /// Whether lines are deflated byte-identically to 0.2.3 (see [`Codec::exact`]).
    pub fn is_exact(&self) -> bool {
        self.exact
    }

    /// Append a whole line (`KEY TS BLOB \n`) to `out`. `payload` is the raw
    /// payload bytes (text, or a magic byte and its body).
    ///
    /// # Errors
    /// The key's problem when it does not fit `key_type`.
    pub fn encode_line(
        &mut self,
        key_type: KeyType,
        key: &Key,
        timestamp: f64,
        payload: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), crate::format::key::KeyError> {
        key_type.encode_into(key, out)?;
        let bits = timestamp.to_bits();
        match self.last_ts {
            Some((b, chars)) if b == bits => out.extend_from_slice(&chars),
            _ => {
                let at = out.len();
                encode_timestamp(timestamp, out);
                let mut chars = [0u8; TS_CHARS];
                chars.copy_from_slice(&out[at..]);
                self.last_ts = Some((bits, chars));
            }
        }
        self.deflate(payload);
        b85::encode_into(&self.scratch, out);
        out.push(b'\n');
        Ok(())
    }

    fn deflate(&mut self, data: &[u8]) {
        if self.exact || data.len() > crate::format::deflate::MAX_INPUT {
            self.deflate_zlib(data);
        } else {
            self.scratch.clear();
            self.fast.compress(data, &mut self.scratch);
        }
    }

    /// Raw DEFLATE at level 6, as `zlib.compress(.., level=6, wbits=-15)`.
    fn deflate_zlib(&mut self, data: &[u8]) {
        self.compress.reset();
        self.scratch.clear();
        self.scratch.reserve(data.len() + data.len() / 1000 + 64);
        loop {
            let before_in = taken(self.compress.total_in(), data.len());
            // Deflate into spare capacity; grow if it ran out before finishing.
            let status = self.compress.compress_vec(&data[before_in..], &mut self.scratch, FlushCompress::Finish);
            match status {
                Ok(Status::StreamEnd) => break,
                Ok(_) => self.scratch.reserve(self.scratch.capacity().max(64)),
                // zlib only fails on misuse (a stream-state bug), never on data.
                Err(_) => {
                    self.compress.reset();
                    self.scratch.clear();
                }
            }
        }
    }

    /// Encode a payload to raw bytes: text as UTF-8, bytes after 0xFC, typed after 0xFB and the id.
    pub fn payload_bytes(payload: &Payload, out: &mut Vec<u8>) {
        match payload {
            Payload::Text(s) => out.extend_from_slice(s.as_bytes()),
            Payload::Bytes(b) => {
                out.push(BYTES_MAGIC);
                out.extend_from_slice(b);
            }
            Payload::Typed(t) => {
                out.push(TYPED_MAGIC);
                out.extend_from_slice(&t.type_id.to_be_bytes());
                out.extend_from_slice(t.json.as_bytes());
            }
        }
    }

    /// Decode one line (without its `\n`).
    ///
    /// # Errors
    /// [`Corrupt`] saying what is wrong with the line.
    pub fn decode_line(&mut self, key_type: KeyType, line: &[u8]) -> Result<Record, Corrupt> {
        let (key, timestamp, inflated) = self.decode_head_and_inflate(key_type, line)?;
        let payload = match inflated {
            Some(n) => decode_payload(&self.fast_out[..n])?,
            None => decode_payload(&self.scratch)?,
        };
        Ok(Record { key, timestamp, payload })
    }

    /// Decode one line (without its `\n`) to its key (a free key type's as
    /// its id, [`Key::Int`]), timestamp and raw payload bytes, uninterpreted.
    ///
    /// # Errors
    /// [`Corrupt`] saying what is wrong with the line.
    pub fn decode_raw(&mut self, key_type: KeyType, line: &[u8]) -> Result<(Key, f64, &[u8]), Corrupt> {
        let (key, timestamp, inflated) = self.decode_head_and_inflate(key_type, line)?;
        Ok(match inflated {
            Some(n) => (key, timestamp, &self.fast_out[..n]),
            None => (key, timestamp, &self.scratch[..]),
        })
    }

    /// The key and timestamp of a line, and its payload inflated as
    /// [`Codec::inflate`] leaves it (`Some(n)`: in `fast_out[..n]`; `None`: in
    /// `scratch`). Inlined into both callers: it is every read's hot path.
    #[inline(always)]
    fn decode_head_and_inflate(&mut self, key_type: KeyType, line: &[u8]) -> Result<(Key, f64, Option<usize>), Corrupt> {
        let kc = key_type.encoded_len();
        let min = kc + TS_CHARS;
        if line.len() < min {
            return Err(Corrupt::TooShort { len: line.len(), min });
        }
        let key = key_type.decode(&line[..kc]).map_err(Corrupt::BadKey)?;
        let timestamp = decode_timestamp(&line[kc..min]).map_err(|e| Corrupt::NotBase85 { field: "timestamp", detail: e.to_string() })?;
        self.raw.clear();
        b85::decode_into(&line[min..], &mut self.raw).map_err(|e| Corrupt::NotBase85 { field: "payload", detail: e.to_string() })?;
        Ok((key, timestamp, self.inflate()?))
    }

    /// Append a whole line whose blob is `payload` in stored deflate blocks
    /// (a large message's part: its chunk is compressed already), its key
    /// already encoded as `key_chars`.
    pub fn encode_stored_line(&mut self, key_chars: &[u8], timestamp: f64, payload: &[u8], out: &mut Vec<u8>) {
        out.extend_from_slice(key_chars);
        encode_timestamp(timestamp, out);
        crate::format::deflate::stored(payload, &mut self.scratch);
        b85::encode_into(&self.scratch, out);
        out.push(b'\n');
    }

    /// Inflate `raw`: into `fast_out[..n]` (`Some(n)`) or into `scratch` (`None`).
    /// (Inlined, as it was into its one caller before large messages made two.)
    #[inline(always)]
    fn inflate(&mut self) -> Result<Option<usize>, Corrupt> {
        // Fixed-Huffman and stored streams (most messages) skip zlib's per-call set-up.
        let len = self.raw.len();
        self.raw.extend_from_slice(&[0; crate::format::inflate::PADDING]);
        let fast = crate::format::inflate::fixed_or_stored_in(&self.raw, len, &mut self.fast_out, FAST_INFLATE_LIMIT);
        self.raw.truncate(len);
        if fast.is_some() {
            return Ok(fast);
        }
        self.decompress.reset(false);
        self.scratch.clear();
        self.scratch.reserve(self.raw.len() * 4 + 64);
        loop {
            let (in_before, out_before) = (self.decompress.total_in(), self.decompress.total_out());
            let consumed = taken(in_before, self.raw.len());
            let status = self
                .decompress
                .decompress_vec(&self.raw[consumed..], &mut self.scratch, FlushDecompress::Finish)
                .map_err(|e| Corrupt::Inflate(e.to_string()))?;
            if status == Status::StreamEnd {
                return Ok(None);
            }
            if self.scratch.len() >= MAX_INFLATED {
                return Err(Corrupt::Inflate("inflates past 64 MiB".into()));
            }
            let progressed = self.decompress.total_in() != in_before || self.decompress.total_out() != out_before;
            let out_full = self.scratch.len() == self.scratch.capacity();
            if !out_full && (!progressed || taken(self.decompress.total_in(), self.raw.len()) >= self.raw.len()) {
                return Err(Corrupt::Inflate("the stream ends early".into()));
            }
            self.scratch.reserve(self.scratch.capacity().max(256));
        }
    }
}

/// How much of an input of `len` bytes a zlib stream has consumed, from its
/// `total_in` since the last reset: never more than `len` (zlib reads only
/// the input it is given), so the clamp only keeps slicing in bounds.
fn taken(total_in: u64, len: usize) -> usize {
    usize::try_from(total_in).map_or(len, |n| n.min(len))
}

/// Interpret raw payload bytes.
///
/// # Errors
/// [`Corrupt`] for reserved or unknown markers, bad UTF-8 or bad JSON.
pub fn decode_payload(raw: &[u8]) -> Result<Payload, Corrupt> {
    match raw.first() {
        Some(&BYTES_MAGIC) => Ok(Payload::Bytes(raw[1..].to_vec())),
        Some(&TYPED_MAGIC) => {
            if raw.len() < 3 {
                return Err(Corrupt::BadTypedJson("no type id".into()));
            }
            let type_id = u16::from_be_bytes([raw[1], raw[2]]);
            let json = std::str::from_utf8(&raw[3..]).map_err(|_| Corrupt::NotUtf8)?;
            crate::format::pyjson::python_compact(json).map_err(Corrupt::BadTypedJson)?;
            Ok(Payload::Typed(TypedPayload { type_id, class: None, json: json.to_string() }))
        }
        Some(b) if MULTIPART.contains(b) => Err(Corrupt::Multipart(*b)),
        Some(&b) if b >= 0xF8 => Err(Corrupt::UnknownMagic(b)),
        _ => std::str::from_utf8(raw).map(|s| Payload::Text(s.to_string())).map_err(|_| Corrupt::NotUtf8),
    }
}

/// [`decode_payload`] of bytes it may keep: a text or bytes payload takes
/// them as they are, without a copy (a large message's payload is megabytes).
///
/// # Errors
/// As [`decode_payload`].
pub fn decode_payload_owned(mut raw: Vec<u8>) -> Result<Payload, Corrupt> {
    match raw.first() {
        Some(&BYTES_MAGIC) => {
            raw.remove(0);
            Ok(Payload::Bytes(raw))
        }
        Some(&b) if b >= 0xF8 || b == TYPED_MAGIC => decode_payload(&raw),
        _ => String::from_utf8(raw).map(Payload::Text).map_err(|_| Corrupt::NotUtf8),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn owned_payloads_decode_as_borrowed_ones_do() {
        for raw in [&b""[..], b"text", b"\xfcbytes", b"\xfb\x00\x01{\"a\":1}", b"\xf8x", b"\xff", b"\xc3"] {
            assert_eq!(decode_payload_owned(raw.to_vec()), decode_payload(raw), "{raw:?}");
        }
    }

    fn roundtrip(kt: KeyType, key: Key, ts: f64, payload: Payload) {
        let mut codec = Codec::default();
        let mut raw = Vec::new();
        Codec::payload_bytes(&payload, &mut raw);
        let mut line = Vec::new();
        codec.encode_line(kt, &key, ts, &raw, &mut line).expect("encodes");
        assert_eq!(line.last(), Some(&b'\n'));
        assert!(line[..line.len() - 1].iter().all(|b| b.is_ascii_graphic()));
        let rec = codec.decode_line(kt, &line[..line.len() - 1]).expect("decodes");
        assert_eq!(rec.key, key);
        assert_eq!(rec.timestamp.to_bits(), ts.to_bits());
        assert_eq!(rec.payload, payload);
    }

    #[test]
    fn corrupt_lines_are_reported() {
        let mut c = Codec::default();
        assert!(matches!(c.decode_line(KeyType::U16, b"abc"), Err(Corrupt::TooShort { .. })));
        assert!(matches!(c.decode_line(KeyType::U16, b"000LE6H9^@WiP\"\"\""), Err(Corrupt::NotBase85 { .. })));
        assert!(matches!(c.decode_line(KeyType::U16, b"000LE6H9^@WiP0000"), Err(Corrupt::Inflate(_))));
        let mut line = Vec::new();
        c.encode_line(KeyType::U8, &Key::Int(1), 0.0, &[0xF9, 1], &mut line).expect("enc");
        assert_eq!(c.decode_line(KeyType::U8, &line[..line.len() - 1]), Err(Corrupt::Multipart(0xF9)));
        line.clear();
        c.encode_line(KeyType::U8, &Key::Int(1), 0.0, &[0xC3], &mut line).expect("enc");
        assert_eq!(c.decode_line(KeyType::U8, &line[..line.len() - 1]), Err(Corrupt::NotUtf8));
    }

    proptest! {
        #[test]
        fn text_lines_round_trip(s in "\\PC{0,300}", k in any::<u16>(), ts in -1e10f64..1e10) {
            roundtrip(KeyType::U16, Key::Int(k.into()), ts, Payload::Text(s));
        }

        #[test]
        fn bytes_lines_round_trip(b in proptest::collection::vec(any::<u8>(), 0..500), k in "[a-z]{0,8}") {
            roundtrip(KeyType::Char(8), Key::Str(k), 1.5, Payload::Bytes(b));
        }

        #[test]
        fn typed_lines_round_trip(id in any::<u16>(), n in any::<i64>(), s in "\\PC{0,40}") {
            let fields = serde_json::json!({"n": n, "s": s, "l": [1, 2.5, null, true]});
            let json = String::from_utf8(crate::format::pyjson::to_compact(&fields).expect("json")).expect("ascii");
            roundtrip(KeyType::U64, Key::Int(7), 2.0, Payload::Typed(TypedPayload { type_id: id, class: None, json }));
        }

        #[test]
        fn decoding_garbage_never_panics(line in proptest::collection::vec(any::<u8>(), 0..200)) {
            let mut c = Codec::default();
            let _ = c.decode_line(KeyType::U16, &line);
        }

        #[test]
        fn decoding_base85_garbage_never_panics(line in "[0-9A-Za-z!#$%&()*+;<=>?@^_`{|}~-]{0,120}") {
            let mut c = Codec::default();
            let _ = c.decode_line(KeyType::U32, line.as_bytes());
        }
    }
}
