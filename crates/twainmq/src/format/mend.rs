//! Torn records in a group log: whether 0.2.3 can read a line of one, and a
//! line of the same length that it reads and passes over.
//!
//! 0.2.3 reads a group's whole log each time a member joins and decodes every
//! line (`readline()[:-1]`, then the key, the timestamp, base85, raw inflate,
//! the payload), so one line it cannot decode stops every 0.2.3 member from
//! joining that group. A line torn by a full disk or a crash is such a line,
//! also once ended with a newline. The log is append-only for everyone else,
//! but a whole line can be overwritten in place at its own length without
//! moving any offset: [`stand_in`] gives the bytes (see docs/FORMAT.md,
//! "Torn records in a group log").

use crate::format::b85;

/// Characters of a group log's key: group logs are `u32`-keyed.
pub const KEY_CHARS: usize = 5;
/// The shortest line 0.2.3 decodes: the key, the timestamp (10 characters)
/// and 3 characters of base85 for the shortest raw deflate stream (2 bytes: a
/// final fixed-Huffman block holding only its end).
pub const MIN_STAND_IN: usize = KEY_CHARS + 10 + 3;

/// The text a stand-in carries, cut to its room and padded with `.`.
const STAND_IN_TEXT: &[u8] = b"torn group record, made readable by twainmq";

/// The text of a stand-in with `len` bytes of text.
fn stand_in_text(len: usize) -> Vec<u8> {
    (0..len).map(|i| STAND_IN_TEXT.get(i).copied().unwrap_or(b'.')).collect()
}

/// Whether a text payload read from a group log is a stand-in's.
pub fn is_stand_in_text(text: &str) -> bool {
    text.as_bytes() == stand_in_text(text.len()).as_slice()
}

/// Python's `base64.b85decode`: the text padded with `~` to whole hunks of 5,
/// each hunk's value at most `u32::MAX`, as many bytes dropped at the end as
/// characters were padded. `None` where Python raises.
pub fn python_b85decode(text: &[u8]) -> Option<Vec<u8>> {
    const ALPHABET: &[u8; 85] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
    let padding = (5 - text.len() % 5) % 5;
    let mut out = Vec::with_capacity((text.len() + padding) / 5 * 4);
    let padded = text.iter().copied().chain(std::iter::repeat_n(b'~', padding)).collect::<Vec<u8>>();
    for hunk in padded.chunks(5) {
        let mut acc: u64 = 0;
        for c in hunk {
            let digit = ALPHABET.iter().position(|a| a == c)?;
            acc = acc * 85 + digit as u64;
        }
        let v = u32::try_from(acc).ok()?;
        out.extend_from_slice(&v.to_be_bytes());
    }
    out.truncate(out.len() - padding);
    Some(out)
}

/// Whether `datetime.fromtimestamp(ts, tz=timezone.utc)` takes `ts`: a finite
/// number of seconds within years 1 to 9999 (a second kept off each end for
/// Python's rounding).
fn python_takes_timestamp(ts: f64) -> bool {
    ts.is_finite() && (-62_135_596_799.0..=253_402_300_798.0).contains(&ts)
}

/// Python's `zlib.decompress(raw, wbits=-15)`: a complete raw deflate stream
/// (bytes after its end are ignored). `None` where Python raises.
fn python_inflate(raw: &[u8]) -> Option<Vec<u8>> {
    let mut d = flate2::Decompress::new(false);
    let mut out = Vec::with_capacity(raw.len() * 4 + 64);
    loop {
        let consumed = usize::try_from(d.total_in()).ok()?.min(raw.len());
        let before = (d.total_in(), d.total_out());
        match d.decompress_vec(&raw[consumed..], &mut out, flate2::FlushDecompress::Finish) {
            Ok(flate2::Status::StreamEnd) => return Some(out),
            Ok(_) => {}
            Err(_) => return None,
        }
        if out.len() == out.capacity() {
            // A 4 KiB line inflates to a few MiB at most: past 64 MiB it is no line of a group log.
            if out.len() >= 64 << 20 {
                return None;
            }
            out.reserve(out.capacity());
        } else if (d.total_in(), d.total_out()) == before || usize::try_from(d.total_in()).ok()? >= raw.len() {
            // The input ran out before the stream's end.
            return None;
        }
    }
}

/// The fields 0.2.3's dataclass of each group record type needs (ids 0 to 6
/// in the group topic's `message_types`).
const FIELDS: [&[&str]; 7] = [&["tag"], &["tag"], &["own", "partitions"], &["partitions"], &["timestamp"], &[], &["partition_offsets"]];

/// Whether 0.2.3 decodes `line` (a line of a group log, without its `\n`) as
/// it reads the log when a member joins: `False` where its read raises. Cases
/// this model cannot tell for sure (JSON in UTF-16, a byte-order mark,
/// Python's `NaN` in fields) count as read: a line is only ever mended when
/// 0.2.3 surely fails on it.
pub fn python_reads_group_line(line: &[u8]) -> bool {
    // The file is read as UTF-8 text with universal newlines: "\r\n" ends a
    // line as "\n" does, a lone "\r" ends one too.
    let Ok(text) = std::str::from_utf8(line) else { return false };
    let line = text.strip_suffix('\r').unwrap_or(text).as_bytes();
    if line.contains(&b'\r') {
        return false;
    }
    if line.is_empty() {
        // `readline()[:-1] == ""` is taken for the end of the log: the join's
        // first read stops there.
        return false;
    }
    if python_b85decode(&line[..line.len().min(KEY_CHARS)]).is_none() {
        return false;
    }
    let ts = python_b85decode(&line[line.len().min(KEY_CHARS)..line.len().min(KEY_CHARS + 10)]);
    match ts.and_then(|b| <[u8; 8]>::try_from(b.as_slice()).ok()) {
        Some(b) if python_takes_timestamp(f64::from_be_bytes(b)) => {}
        _ => return false,
    }
    let Some(raw) = python_b85decode(&line[line.len().min(KEY_CHARS + 10)..]) else { return false };
    let Some(payload) = python_inflate(&raw) else { return false };
    match payload.first() {
        Some(&crate::format::payload::BYTES_MAGIC) => true,
        Some(&crate::format::payload::TYPED_MAGIC) => {
            // int.from_bytes(decoded[1:3]) of whatever is there, looked up among the seven types.
            let id = payload.get(1..payload.len().min(3)).unwrap_or_default().iter().fold(0usize, |a, b| a * 256 + usize::from(*b));
            let Some(fields) = FIELDS.get(id) else { return false };
            let json = payload.get(3..).unwrap_or_default();
            if json.starts_with(&[0xEF, 0xBB, 0xBF])
                || json.starts_with(&[0xFE, 0xFF])
                || json.starts_with(&[0xFF, 0xFE])
                || json.iter().take(4).any(|b| *b == 0)
            {
                // Another encoding json.loads detects: not one a torn record takes.
                return true;
            }
            let Ok(json) = std::str::from_utf8(json) else { return false };
            if crate::format::pyjson::python_compact(json).is_err() {
                return false;
            }
            match serde_json::from_str::<serde_json::Value>(json) {
                Ok(serde_json::Value::Object(map)) => fields.iter().all(|f| map.contains_key(*f)),
                // `data[name]` of a list, a number, ...
                Ok(_) => fields.is_empty(),
                // Python's NaN or Infinity: not what a torn record holds.
                Err(_) => true,
            }
        }
        _ => std::str::from_utf8(&payload).is_ok(),
    }
}

/// Fixed-Huffman codes, written least significant bit first.
struct Bits {
    out: Vec<u8>,
    acc: u32,
    n: u32,
}

impl Bits {
    fn put(&mut self, value: u32, bits: u32) {
        self.acc |= value << self.n;
        self.n += bits;
        while self.n >= 8 {
            self.out.push((self.acc & 0xFF) as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    /// A Huffman code: its bits go most significant first.
    fn code(&mut self, code: u32, bits: u32) {
        let reversed = code.reverse_bits() >> (32 - bits);
        self.put(reversed, bits);
    }

    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.out.push((self.acc & 0xFF) as u8);
        }
        self.out
    }
}

/// A raw deflate stream of exactly `len` bytes (at least 2) that inflates to
/// `len - 2` bytes of the stand-in text: one final fixed-Huffman block of
/// literals (ASCII below 144: 8 bits each), then its end (7 bits).
fn literal_stream(len: usize) -> Vec<u8> {
    let text = stand_in_text(len.saturating_sub(2));
    let mut bits = Bits { out: Vec::with_capacity(len), acc: 0, n: 0 };
    // BFINAL = 1, BTYPE = 01 (fixed Huffman).
    bits.put(1, 1);
    bits.put(1, 2);
    for &c in &text {
        bits.code(0x30 + u32::from(c), 8);
    }
    bits.code(0, 7);
    bits.finish()
}

/// A line of exactly `line.len()` bytes (at least [`MIN_STAND_IN`]) that
/// 0.2.3 reads as a text message and its group code passes over: the damaged
/// line's key when 0.2.3 reads it as one below 2^31 (else 0), its timestamp
/// when 0.2.3 reads that (else `fallback_ts`), and a text payload
/// ([`is_stand_in_text`]) filling the rest. `None` when the line is too short.
pub fn stand_in(line: &[u8], fallback_ts: f64) -> Option<Vec<u8>> {
    if line.len() < MIN_STAND_IN {
        return None;
    }
    let mut out = Vec::with_capacity(line.len());
    let key = &line[..KEY_CHARS];
    let key_ok =
        python_b85decode(key).and_then(|b| <[u8; 4]>::try_from(b.as_slice()).ok()).is_some_and(|b| u32::from_be_bytes(b) < 1 << 31);
    out.extend_from_slice(if key_ok { key } else { b"00000" });
    let ts = &line[KEY_CHARS..KEY_CHARS + 10];
    let ts_ok = python_b85decode(ts)
        .and_then(|b| <[u8; 8]>::try_from(b.as_slice()).ok())
        .is_some_and(|b| python_takes_timestamp(f64::from_be_bytes(b)));
    if ts_ok {
        out.extend_from_slice(ts);
    } else {
        let fallback = if python_takes_timestamp(fallback_ts) { fallback_ts } else { 0.0 };
        b85::encode_into(&fallback.to_bits().to_be_bytes(), &mut out);
    }
    // n characters of base85 hold 4 bytes a whole hunk and r - 1 bytes in a
    // last hunk of r characters; a last hunk of one character holds none (0.2.3
    // decodes and drops it: it must not overflow, and '0' does not).
    let n = line.len() - out.len();
    let (hunks, rest) = (n / 5, n % 5);
    let bytes = hunks * 4 + rest.saturating_sub(1);
    b85::encode_into(&literal_stream(bytes), &mut out);
    if rest == 1 {
        out.push(b'0');
    }
    debug_assert_eq!(out.len(), line.len());
    (out.len() == line.len() && python_reads_group_line(&out)).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_b85decode_pads_with_tildes_and_drops_what_it_padded() {
        assert_eq!(python_b85decode(b""), Some(Vec::new()));
        assert_eq!(python_b85decode(b"0000000"), Some(vec![0; 5]));
        // One dangling character decodes to nothing, unless it overflows.
        assert_eq!(python_b85decode(b"000000"), Some(vec![0; 4]));
        assert_eq!(python_b85decode(b"00000~"), None);
        assert_eq!(python_b85decode(b"|NsC0"), Some(vec![0xFF; 4]));
        assert_eq!(python_b85decode(b"|NsC1"), None);
        assert_eq!(python_b85decode(b"00\"00"), None);
        assert_eq!(python_b85decode(b"NNE"), Some(b"Hi".to_vec()));
    }

    #[test]
    fn lines_we_write_are_read_and_torn_ones_are_not() {
        let mut codec = crate::format::line::Codec::default();
        let mut raw = vec![crate::format::payload::TYPED_MAGIC, 0, 6];
        raw.extend_from_slice(br#"{"partition_offsets":[[0,123456],[1,7]]}"#);
        let mut line = Vec::new();
        codec
            .encode_line(crate::format::key::KeyType::U32, &crate::format::key::Key::Int(3), 1_796_000_000.25, &raw, &mut line)
            .expect("encode");
        line.pop();
        assert!(python_reads_group_line(&line));
        let mut crlf = line.clone();
        crlf.push(b'\r');
        assert!(python_reads_group_line(&crlf), "\\r\\n ends a line in text mode");
        for cut in 0..line.len() {
            assert!(!python_reads_group_line(&line[..cut]), "cut at {cut} of {}", line.len());
        }
        // A type id 0.2.3 does not know, and a record without its field.
        for (id, json) in [(7u8, "{\"tag\":1}"), (0, "{\"tog\":1}"), (6, "[1]")] {
            let mut raw = vec![crate::format::payload::TYPED_MAGIC, 0, id];
            raw.extend_from_slice(json.as_bytes());
            let mut l = Vec::new();
            codec.encode_line(crate::format::key::KeyType::U32, &crate::format::key::Key::Int(3), 1.0, &raw, &mut l).expect("encode");
            l.pop();
            assert!(!python_reads_group_line(&l), "{id} {json}");
        }
    }

    #[test]
    fn a_stand_in_of_every_length_is_read_and_keeps_what_it_can() {
        let mut codec = crate::format::line::Codec::default();
        let mut whole = Vec::new();
        let payload = [crate::format::payload::TYPED_MAGIC, 0, 6, b'{', b'"', b'p', b'a', b'r'];
        codec
            .encode_line(crate::format::key::KeyType::U32, &crate::format::key::Key::Int(9), 1_796_000_000.5, &payload, &mut whole)
            .expect("encode");
        for len in 0..400 {
            // A torn line: the real record's first bytes, then whatever followed (another line glued).
            let torn: Vec<u8> = whole.iter().copied().filter(|b| *b != b'\n').chain(std::iter::repeat(b'x')).take(len).collect();
            let Some(s) = stand_in(&torn, 5.0) else {
                assert!(len < MIN_STAND_IN, "{len}");
                continue;
            };
            assert_eq!(s.len(), len);
            assert!(python_reads_group_line(&s), "{len}: {}", String::from_utf8_lossy(&s));
            assert_eq!(&s[..5], &whole[..5], "{len}: the key kept");
            assert_eq!(&s[5..15], &whole[5..15], "{len}: the timestamp kept");
            // We read it as the stand-in text it is (a dangling last character aside, which our
            // base85 refuses: then it is a damaged line to us, and still read by 0.2.3).
            match codec.decode_line(crate::format::key::KeyType::U32, &s) {
                Ok(rec) => {
                    let crate::format::payload::Payload::Text(t) = rec.payload else { panic!("{len}: text") };
                    assert!(is_stand_in_text(&t), "{len}: {t:?}");
                    assert_eq!(rec.timestamp, 1_796_000_000.5);
                }
                Err(e) => assert_eq!((len - 15) % 5, 1, "{len}: {e}"),
            }
        }
        // A key and a timestamp 0.2.3 cannot read are replaced.
        let garbage = b"~~~~~~~~~~~~~~~~~~~~~~~~~".to_vec();
        let s = stand_in(&garbage, 1_800_000_000.0).expect("long enough");
        assert!(python_reads_group_line(&s));
        assert_eq!(&s[..5], b"00000");
        assert_eq!(crate::format::line::decode_timestamp(&s[5..15]).expect("ts"), 1_800_000_000.0);
        assert!(!is_stand_in_text("hello") && is_stand_in_text("") && is_stand_in_text("torn"));
    }
}
