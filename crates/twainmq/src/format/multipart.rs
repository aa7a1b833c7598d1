//! Large messages (the format's next version, docs/FORMAT.md Part 3): a
//! payload deflated once into one stream, the stream cut into parts, each part
//! one whole line within 0.2.3's 4,096-byte limit, its payload marked with
//! the bytes 0.2.3 reserved for it: `0xF8` start, `0xF9` continue, `0xFA` end.
//!
//! ```text
//! start:    F8 | id u64 | parts u32 | stream bytes u64 | payload bytes u64 | kind u8 | chunk
//! continue: F9 | id u64 | index u32 | previous part: day u32, first u64, byte u64 | chunk
//! end:      FA | id u64 | index u32 | previous part: day u32, first u64, byte u64 | chunk
//! ```
//!
//! All integers big-endian. `id` is random per message; `index` counts from 0
//! (the start); a message has at least two parts. The previous part is named
//! by its file (the day and first offset in the file's name) and the byte its
//! line starts at, so a reader at any part can walk back to the start without
//! reading the lines between. A part line's blob is a raw deflate stream of
//! stored blocks (the chunk is compressed already). Pure bytes, no I/O.

use crate::format::b85;
use crate::format::line::{MAX_LINE_BYTES, TS_CHARS};

/// Marks a message's first part.
pub const START: u8 = 0xF8;
/// Marks a middle part.
pub const CONTINUE: u8 = 0xF9;
/// Marks a message's last part: the message's offset and time are its line's.
pub const END: u8 = 0xFA;

/// Bytes before a start part's chunk.
pub const START_HEADER: usize = 1 + 8 + 4 + 8 + 8 + 1;
/// Bytes before a continue or end part's chunk.
pub const LINK_HEADER: usize = 1 + 8 + 4 + 4 + 8 + 8;
/// A stored deflate block's header.
const STORED_HEADER: usize = 5;

/// The default largest payload of a topic with large messages: Kafka's default (1 MiB).
pub const DEFAULT_MAX_MESSAGE_BYTES: u64 = 1 << 20;
/// The largest payload any topic may allow: 64 MiB.
pub const MAX_MESSAGE_BYTES_LIMIT: u64 = 64 << 20;
/// Fewest chunk bytes a part line must have room for: a topic whose keys
/// leave less is refused large messages (a 64 MiB message would take over
/// 65,000 lines).
pub const MIN_CHUNK: usize = 1024;

/// What a payload is, in a start part (the assembled payload must agree).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// UTF-8 text.
    Text = 0,
    /// Bytes (the payload starts with 0xFC).
    Bytes = 1,
    /// A typed message (0xFB, type id, JSON).
    Typed = 2,
}

impl Kind {
    /// The kind of a raw payload (its first byte).
    pub fn of(raw: &[u8]) -> Kind {
        match raw.first() {
            Some(&crate::format::payload::BYTES_MAGIC) => Kind::Bytes,
            Some(&crate::format::payload::TYPED_MAGIC) => Kind::Typed,
            _ => Kind::Text,
        }
    }

    fn from_u8(b: u8) -> Option<Kind> {
        match b {
            0 => Some(Kind::Text),
            1 => Some(Kind::Bytes),
            2 => Some(Kind::Typed),
            _ => None,
        }
    }
}

/// Where a part's line is: its file (by the day and first offset in its
/// name) and the byte its line starts at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PartAt {
    /// The day in the file's name, `YYYYMMDD`.
    pub day: u32,
    /// The first offset in the file's name.
    pub first: u64,
    /// The byte of the file the line starts at.
    pub pos: u64,
}

/// A decoded part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// The message's id.
    pub id: u64,
    /// Which part: 0 for the start.
    pub index: u32,
    /// What only the start part says (None for the others).
    pub start: Option<StartInfo>,
    /// The previous part (None for the start).
    pub prev: Option<PartAt>,
    /// Whether this is the end part.
    pub end: bool,
    /// This part's piece of the deflated stream.
    pub chunk: Vec<u8>,
}

/// What a start part says of its message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StartInfo {
    /// How many parts it has (2 or more).
    pub parts: u32,
    /// Bytes of the deflated stream (the chunks together).
    pub stream_len: u64,
    /// Bytes of the payload the stream inflates to.
    pub payload_len: u64,
    /// The payload's kind.
    pub kind: Kind,
}

/// Characters a line's blob may have after a key of `key_chars` characters.
fn blob_chars(key_chars: usize) -> usize {
    // The whole line, newline included, is at most MAX_LINE_BYTES.
    MAX_LINE_BYTES.saturating_sub(1 + key_chars + TS_CHARS)
}

/// Chunk bytes a continue or end part of a topic whose keys take
/// `key_chars` characters holds (a start part holds 3 more).
pub fn chunk_capacity(key_chars: usize) -> usize {
    // b85 of k bytes takes ceil(5k/4) characters.
    let raw = blob_chars(key_chars) * 4 / 5;
    raw.saturating_sub(STORED_HEADER + LINK_HEADER)
}

/// How a stream of `stream_len` bytes is cut for keys of `key_chars`
/// characters: the chunk lengths, in order (at least two).
pub fn cut(stream_len: usize, key_chars: usize) -> Vec<usize> {
    let link = chunk_capacity(key_chars).max(1);
    let first = (link + LINK_HEADER - START_HEADER).max(1);
    let mut out = Vec::with_capacity(stream_len / link + 2);
    let mut left = stream_len;
    let take = left.min(first);
    out.push(take);
    left -= take;
    loop {
        let take = left.min(link);
        out.push(take);
        left -= take;
        if left == 0 {
            return out;
        }
    }
}

/// The payload of a start part.
pub fn start_payload(id: u64, info: &StartInfo, chunk: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.push(START);
    out.extend_from_slice(&id.to_be_bytes());
    out.extend_from_slice(&info.parts.to_be_bytes());
    out.extend_from_slice(&info.stream_len.to_be_bytes());
    out.extend_from_slice(&info.payload_len.to_be_bytes());
    out.push(info.kind as u8);
    out.extend_from_slice(chunk);
}

/// The payload of a continue part (or, with `end`, the end part).
pub fn link_payload(id: u64, index: u32, prev: PartAt, end: bool, chunk: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.push(if end { END } else { CONTINUE });
    out.extend_from_slice(&id.to_be_bytes());
    out.extend_from_slice(&index.to_be_bytes());
    out.extend_from_slice(&prev.day.to_be_bytes());
    out.extend_from_slice(&prev.first.to_be_bytes());
    out.extend_from_slice(&prev.pos.to_be_bytes());
    out.extend_from_slice(chunk);
}

/// Whether a line's blob (its characters after the key and timestamp) is a
/// part's, and which marker, from its first 10 characters alone: a stored
/// block whose data starts with 0xF8 to 0xFA. (A part written another way is
/// still found when the line is decoded: this only spares plain lines that.)
pub fn peek(blob: &[u8]) -> Option<u8> {
    let head = blob.get(..10)?;
    let raw = b85::decode_u64(head).ok()?.to_be_bytes();
    let stored_block = raw[0] & 0b110 == 0;
    let len = u16::from_le_bytes([raw[1], raw[2]]);
    let nlen = u16::from_le_bytes([raw[3], raw[4]]);
    (stored_block && len == !nlen && len > 0 && (START..=END).contains(&raw[5])).then_some(raw[5])
}

/// Why a part's payload is not one.
pub fn parse(payload: &[u8]) -> Result<Part, String> {
    let marker = *payload.first().ok_or("empty part")?;
    let be64 = |at: usize| payload.get(at..at + 8).and_then(|b| b.try_into().ok()).map(u64::from_be_bytes);
    let be32 = |at: usize| payload.get(at..at + 4).and_then(|b| b.try_into().ok()).map(u32::from_be_bytes);
    let short = || format!("a part of {} bytes is shorter than its header", payload.len());
    let id = be64(1).ok_or_else(short)?;
    match marker {
        START => {
            let parts = be32(9).ok_or_else(short)?;
            let stream_len = be64(13).ok_or_else(short)?;
            let payload_len = be64(21).ok_or_else(short)?;
            let kind = payload.get(29).copied().ok_or_else(short)?;
            let kind = Kind::from_u8(kind).ok_or_else(|| format!("a start part names payload kind {kind}, which is none"))?;
            if parts < 2 {
                return Err(format!("a start part says its message has {parts} parts (at least 2)"));
            }
            Ok(Part {
                id,
                index: 0,
                start: Some(StartInfo { parts, stream_len, payload_len, kind }),
                prev: None,
                end: false,
                chunk: payload[START_HEADER..].to_vec(),
            })
        }
        CONTINUE | END => {
            let index = be32(9).ok_or_else(short)?;
            let day = be32(13).ok_or_else(short)?;
            let first = be64(17).ok_or_else(short)?;
            let pos = be64(25).ok_or_else(short)?;
            if index == 0 {
                return Err("a continue or end part has index 0 (the start's)".into());
            }
            Ok(Part {
                id,
                index,
                start: None,
                prev: Some(PartAt { day, first, pos }),
                end: marker == END,
                chunk: payload[LINK_HEADER..].to_vec(),
            })
        }
        other => Err(format!("marker 0x{other:02x} is not a part's")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::deflate::stored;

    #[test]
    fn parts_round_trip_and_fill_their_lines() {
        let info = StartInfo { parts: 3, stream_len: 10, payload_len: 99, kind: Kind::Typed };
        let mut out = Vec::new();
        start_payload(7, &info, b"abc", &mut out);
        let p = parse(&out).expect("start");
        assert_eq!((p.id, p.index, p.start, p.prev, p.end, p.chunk.as_slice()), (7, 0, Some(info), None, false, &b"abc"[..]));
        let at = PartAt { day: 20_261_231, first: 5, pos: 4096 };
        link_payload(7, 2, at, true, b"xy", &mut out);
        let p = parse(&out).expect("end");
        assert_eq!((p.index, p.prev, p.end, p.chunk.as_slice()), (2, Some(at), true, &b"xy"[..]));
        // A part of full size makes a line of at most 4,096 bytes, newline included.
        for kc in [2, 5, 10, 400] {
            let cap = chunk_capacity(kc);
            link_payload(1, 1, at, false, &vec![0xAB; cap], &mut out);
            let mut st = Vec::new();
            stored(&out, &mut st);
            assert!(kc + TS_CHARS + b85::encoded_len(st.len()) < MAX_LINE_BYTES, "kc {kc}");
            link_payload(1, 1, at, false, &vec![0xAB; cap + 4], &mut out);
            stored(&out, &mut st);
            assert!(kc + TS_CHARS + b85::encoded_len(st.len()) >= MAX_LINE_BYTES, "kc {kc}: room left unused");
        }
    }

    #[test]
    fn cuts_cover_the_stream_in_at_least_two_parts() {
        for len in [0, 1, 3000, 3300, 10_000, 1 << 20] {
            let parts = cut(len, 10);
            assert!(parts.len() >= 2);
            assert_eq!(parts.iter().sum::<usize>(), len);
            assert!(parts[1..].iter().all(|&n| n <= chunk_capacity(10)));
        }
    }

    #[test]
    fn peek_finds_parts_and_nothing_else() {
        let mut out = Vec::new();
        let mut st = Vec::new();
        for marker in [START, CONTINUE] {
            if marker == START {
                start_payload(1, &StartInfo { parts: 2, stream_len: 1, payload_len: 1, kind: Kind::Text }, b"z", &mut out);
            } else {
                link_payload(1, 1, PartAt { day: 1, first: 0, pos: 0 }, false, b"z", &mut out);
            }
            stored(&out, &mut st);
            assert_eq!(peek(b85::encode(&st).as_bytes()), Some(marker));
        }
        stored(b"plain text", &mut st);
        assert_eq!(peek(b85::encode(&st).as_bytes()), None);
        let mut fast = Vec::new();
        crate::format::deflate::FastDeflate::default().compress(&[0xF8; 40], &mut fast);
        assert_eq!(peek(b85::encode(&fast).as_bytes()), None, "compressed blocks are not peeked");
    }
}
