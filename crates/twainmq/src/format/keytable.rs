//! The key table of a topic with free keys (docs/FORMAT.md, Part 3): the file
//! `keys.twk` in the topic's folder, a header line, then one entry a line:
//! base85 of a kind byte (`t` text, `b` bytes), the key's bytes and the
//! CRC-32 of those (big-endian). A key's id is the byte its entry starts at,
//! so a reader finds any key by one read, and ids never change; no entry
//! starts at byte 0, so id 0 is the null key. Pure bytes, no I/O.

use crate::format::b85;
use crate::format::key::{Key, MAX_FREE_KEY_BYTES};

/// The key table's file name, in the topic's folder. Not a partition file's
/// name for 0.2.3 (it matches files by the text before the first `-`) nor
/// for us.
pub const FILE_NAME: &str = "keys.twk";

/// The table's first line.
pub const HEADER: &[u8] = b"twainmq key table 1\n";

/// The id of the null key.
pub const NULL_ID: u64 = 0;

const TEXT: u8 = b't';
const BYTES: u8 = b'b';

/// The longest entry line, newline included.
pub const MAX_ENTRY: usize = b85::encoded_len(1 + MAX_FREE_KEY_BYTES + 4) + 1;

/// The entry line (newline included) of a text or bytes key; `None` for
/// integer and null keys, which have none.
pub fn entry(key: &Key) -> Option<Vec<u8>> {
    let (kind, bytes) = match key {
        Key::Str(s) => (TEXT, s.as_bytes()),
        Key::Bytes(b) => (BYTES, b.as_slice()),
        Key::Int(_) | Key::Null => return None,
    };
    let mut raw = Vec::with_capacity(bytes.len() + 5);
    raw.push(kind);
    raw.extend_from_slice(bytes);
    let crc = crc32(&raw);
    raw.extend_from_slice(&crc.to_be_bytes());
    let mut line = Vec::with_capacity(b85::encoded_len(raw.len()) + 1);
    b85::encode_into(&raw, &mut line);
    line.push(b'\n');
    Some(line)
}

/// The key of an entry line (without its newline).
///
/// # Errors
/// What is wrong with it: not base85, too short, a bad checksum (a record
/// torn by a crash and ended by the next writer), an unknown kind, text that
/// is not UTF-8.
pub fn parse(line: &[u8]) -> Result<Key, String> {
    let raw = b85::decode(line).map_err(|e| format!("not base85: {e}"))?;
    if raw.len() < 5 {
        return Err(format!("an entry of {} bytes is too short", raw.len()));
    }
    let (body, sum) = raw.split_at(raw.len() - 4);
    let sum = u32::from_be_bytes([sum[0], sum[1], sum[2], sum[3]]);
    if crc32(body) != sum {
        return Err("its checksum does not match (a record torn by a crash)".into());
    }
    let bytes = &body[1..];
    match body[0] {
        TEXT => std::str::from_utf8(bytes).map(|s| Key::Str(s.to_string())).map_err(|_| "a text key that is not UTF-8".to_string()),
        BYTES => Ok(Key::Bytes(bytes.to_vec())),
        k => Err(format!("unknown key kind 0x{k:02x}")),
    }
}

fn crc32(data: &[u8]) -> u32 {
    let mut c = flate2::Crc::new();
    c.update(data);
    c.sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_torn_ones_are_refused() {
        for key in [Key::Str(String::new()), Key::Str("ключ 🔑".into()), Key::Bytes(vec![0, 255, 10]), Key::Str("x".repeat(1000))] {
            let line = entry(&key).expect("an entry");
            assert_eq!(line.last(), Some(&b'\n'));
            assert!(!line[..line.len() - 1].contains(&b'\n'));
            assert_eq!(parse(&line[..line.len() - 1]), Ok(key.clone()));
            for cut in 1..line.len() - 1 {
                assert!(parse(&line[..cut]).is_err(), "{key:?} cut at {cut}");
            }
        }
        assert_eq!(entry(&Key::Null), None);
        const { assert!(MAX_ENTRY > 80_000 && MAX_ENTRY < 90_000) };
    }
}
