//! Message keys: fixed-width unsigned integers or NUL-padded UTF-8 strings
//! (0.2.3's key types), and the free keys of the format's next version (any
//! text, any bytes, or none), which lines hold as ids into the topic's key
//! table (docs/FORMAT.md, Part 3).

use std::fmt;

use crate::format::b85;

mod value;
pub use value::Key;

/// The largest `charN` width a topic can be created with: wider keys would
/// leave no room in a 4096-byte line for the timestamp and a payload.
pub const MAX_CHAR_WIDTH: u16 = 3257;

/// The longest free key (a `text`, `bytes` or `any` topic's), in bytes: its
/// entry in the key table is one line of at most about 82 KB.
pub const MAX_FREE_KEY_BYTES: usize = 65_536;

/// A topic's key type, stored in its config as `key_width`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyType {
    /// Integer keys 0 to 255: one byte, 2 base85 characters (`key_width` 1).
    U8,
    /// Integer keys 0 to 65,535: two bytes, 3 characters (`key_width` 2).
    U16,
    /// Integer keys 0 to 2^32 - 1: four bytes, 5 characters (`key_width` 4).
    U32,
    /// Integer keys 0 to 2^64 - 1: eight bytes, 10 characters (`key_width` 8).
    U64,
    /// A UTF-8 string of at most this many bytes, NUL-padded on disk.
    Char(u16),
    /// Free text keys: any UTF-8 string of up to [`MAX_FREE_KEY_BYTES`]
    /// bytes, the empty one included (the format's next version: the topic's
    /// `key_width` is 0, so 0.2.3 refuses it; lines hold key-table ids).
    Text,
    /// Free bytes keys: any bytes, up to [`MAX_FREE_KEY_BYTES`] (text given
    /// for a key is taken as its UTF-8 bytes).
    Bytes,
    /// Any key at all: text, bytes, or none ([`Key::Null`], Kafka's null key).
    Any,
}

/// Why a key cannot be encoded for a key type (see [`crate::Error`] for the
/// variants callers see, which add the topic).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyError {
    OutOfRange { max: u64 },
    TooLong { bytes: usize, max: usize },
    WrongKind { reason: &'static str },
}

impl KeyType {
    /// Parse `u8`, `u16`, `u32`, `u64`, `charN`, or the free key types
    /// `text`, `bytes` and `any`.
    pub fn parse(text: &str) -> Option<KeyType> {
        match text {
            "u8" => Some(KeyType::U8),
            "u16" => Some(KeyType::U16),
            "u32" => Some(KeyType::U32),
            "u64" => Some(KeyType::U64),
            "text" => Some(KeyType::Text),
            "bytes" => Some(KeyType::Bytes),
            "any" => Some(KeyType::Any),
            _ => {
                let digits = text.strip_prefix("char")?;
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                let n: u16 = digits.parse().ok()?;
                (1..=MAX_CHAR_WIDTH).contains(&n).then_some(KeyType::Char(n))
            }
        }
    }

    /// The `key_width` value of a topic config: bytes for integers, minus the
    /// length for strings, 0 for free keys (which 0.2.3 refuses, as its
    /// `find_key_char_width` foresees). A topic of the format's next version
    /// with large messages has `key_width` 0 whatever its key type (see
    /// [`crate::TopicConfig::is_extended`]).
    pub fn width(self) -> i64 {
        match self {
            KeyType::U8 => 1,
            KeyType::U16 => 2,
            KeyType::U32 => 4,
            KeyType::U64 => 8,
            KeyType::Char(n) => -i64::from(n),
            KeyType::Text | KeyType::Bytes | KeyType::Any => 0,
        }
    }

    /// Whether keys are free (`text`, `bytes`, `any`): held in the topic's
    /// key table, each line naming its key by id.
    pub fn is_free(self) -> bool {
        matches!(self, KeyType::Text | KeyType::Bytes | KeyType::Any)
    }

    /// The key type of a config's `key_width`. Reads any string width 0.2.3
    /// could have written, even ones too wide to create today.
    pub fn from_width(width: i64) -> Option<KeyType> {
        match width {
            1 => Some(KeyType::U8),
            2 => Some(KeyType::U16),
            4 => Some(KeyType::U32),
            8 => Some(KeyType::U64),
            w if w < 0 => u16::try_from(-w).ok().map(KeyType::Char),
            _ => None,
        }
    }

    /// Bytes of the key before encoding (free keys: their 8-byte key-table id).
    pub fn byte_len(self) -> usize {
        match self {
            KeyType::U8 => 1,
            KeyType::U16 => 2,
            KeyType::U32 => 4,
            KeyType::U64 | KeyType::Text | KeyType::Bytes | KeyType::Any => 8,
            KeyType::Char(n) => usize::from(n),
        }
    }

    /// Characters of the encoded key at the start of every line.
    pub fn encoded_len(self) -> usize {
        b85::encoded_len(self.byte_len())
    }

    /// The largest integer key, or `None` for string keys.
    pub fn max_int(self) -> Option<u64> {
        match self {
            KeyType::U8 => Some(u64::from(u8::MAX)),
            KeyType::U16 => Some(u64::from(u16::MAX)),
            KeyType::U32 => Some(u64::from(u32::MAX)),
            KeyType::U64 => Some(u64::MAX),
            KeyType::Char(_) | KeyType::Text | KeyType::Bytes | KeyType::Any => None,
        }
    }

    /// Whether keys are integers (`uN`) rather than strings (`charN`) or free keys.
    pub fn is_int(self) -> bool {
        matches!(self, KeyType::U8 | KeyType::U16 | KeyType::U32 | KeyType::U64)
    }

    /// `key` as this free key type holds it: a `text` topic takes text (and
    /// an integer as its decimal text, as `charN` topics do; bytes that are
    /// UTF-8 as that text), a `bytes` topic takes bytes (and text as its UTF-8
    /// bytes), an `any` topic takes every kind (an integer as its decimal
    /// text). Only `any` takes [`Key::Null`]. Keys of fixed key types are
    /// returned as they are (their encoding checks them).
    ///
    /// # Errors
    /// Why the key does not fit: too long, or of a kind the topic does not take.
    pub fn accept(self, key: Key) -> Result<Key, KeyError> {
        let key = match (self, key) {
            (KeyType::Text | KeyType::Any, Key::Int(v)) => Key::Str(v.to_string()),
            (KeyType::Text, Key::Bytes(b)) => {
                match String::from_utf8(b) {
                    Ok(s) => Key::Str(s),
                    Err(_) => return Err(KeyError::WrongKind {
                        reason:
                            "this topic's keys are text, and these bytes are not UTF-8: give text, or use a topic of key type bytes or any",
                    }),
                }
            }
            (KeyType::Bytes, Key::Str(s)) => Key::Bytes(s.into_bytes()),
            (KeyType::Bytes, Key::Int(_)) => {
                return Err(KeyError::WrongKind { reason: "this topic's keys are bytes: give bytes (or text, taken as its UTF-8 bytes)" })
            }
            (KeyType::Text | KeyType::Bytes, Key::Null) => {
                return Err(KeyError::WrongKind { reason: "a message without a key needs a topic of key type any" })
            }
            (kt, Key::Null) if !kt.is_free() => {
                return Err(KeyError::WrongKind {
                    reason: "0.2.3's key types have no null key: give a key, or use a topic of key type any",
                })
            }
            (kt, Key::Bytes(_)) if !kt.is_free() => {
                return Err(KeyError::WrongKind { reason: "0.2.3's key types have no bytes keys: use a topic of key type bytes or any" })
            }
            (_, k) => k,
        };
        if self.is_free() {
            let len = key.free_bytes().map_or(0, <[u8]>::len);
            if len > MAX_FREE_KEY_BYTES {
                return Err(KeyError::TooLong { bytes: len, max: MAX_FREE_KEY_BYTES });
            }
        }
        Ok(key)
    }

    /// Encode `key` in base85 and append it to `out`.
    ///
    /// # Errors
    /// Why the key does not fit this type: out of range, too long, or of the wrong kind.
    pub fn encode_into(self, key: &Key, out: &mut Vec<u8>) -> Result<(), KeyError> {
        match (self, key) {
            (KeyType::Char(n), Key::Str(s)) => {
                let max = usize::from(n);
                if s.len() > max {
                    return Err(KeyError::TooLong { bytes: s.len(), max });
                }
                if s.ends_with('\0') {
                    return Err(KeyError::WrongKind { reason: "a string key cannot end with a NUL character (NUL pads keys on disk)" });
                }
                let mut buf = [0u8; 64];
                if max <= buf.len() {
                    buf[..s.len()].copy_from_slice(s.as_bytes());
                    b85::encode_into(&buf[..max], out);
                } else {
                    let mut v = s.as_bytes().to_vec();
                    v.resize(max, 0);
                    b85::encode_into(&v, out);
                }
                Ok(())
            }
            (KeyType::Char(_), Key::Int(_)) => Ok(KeyType::encode_into(self, &Key::Str(key.to_string()), out)?),
            (_, Key::Int(v)) => {
                let max = self.max_int().unwrap_or(u64::MAX);
                if *v > max {
                    return Err(KeyError::OutOfRange { max });
                }
                let bytes = v.to_be_bytes();
                b85::encode_into(&bytes[8 - self.byte_len()..], out);
                Ok(())
            }
            (KeyType::Text | KeyType::Bytes | KeyType::Any, _) => {
                Err(KeyError::WrongKind { reason: "a free key is written as its key-table id (Producer resolves it)" })
            }
            (_, Key::Str(_)) => Err(KeyError::WrongKind { reason: "this topic has integer keys" }),
            (_, Key::Bytes(_)) => {
                Err(KeyError::WrongKind { reason: "0.2.3's key types have no bytes keys: use a topic of key type bytes or any" })
            }
            (_, Key::Null) => {
                Err(KeyError::WrongKind { reason: "0.2.3's key types have no null key: give a key, or use a topic of key type any" })
            }
        }
    }

    /// Decode an encoded key.
    ///
    /// # Errors
    /// A description of what is wrong with the characters.
    pub fn decode(self, text: &[u8]) -> Result<Key, String> {
        match self {
            KeyType::Char(_) => {
                let mut bytes = b85::decode(text).map_err(|e| format!("key: {e}"))?;
                if bytes.len() != self.byte_len() {
                    return Err(format!("key decodes to {} bytes, expected {}", bytes.len(), self.byte_len()));
                }
                let end = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
                bytes.truncate(end);
                String::from_utf8(bytes).map(Key::Str).map_err(|_| "key is not valid UTF-8".to_string())
            }
            _ => {
                // The widths of one hunk and of two, decoded without the general loop
                // (a key filter decodes every line's key); anything else, or an error,
                // takes the general path below, which says what is wrong.
                let fast = match (self, text.len()) {
                    (KeyType::U32, 5) => b85::decode_u32(text).ok().map(u64::from),
                    (KeyType::U64 | KeyType::Text | KeyType::Bytes | KeyType::Any, 10) => b85::decode_u64(text).ok(),
                    _ => None,
                };
                if let Some(v) = fast {
                    return Ok(Key::Int(v));
                }
                // Integer keys are at most 8 bytes: decode on the stack.
                let mut buf = [0u8; 8];
                let n = b85::decode_to_slice(text, &mut buf).map_err(|e| format!("key: {e}"))?;
                if n != self.byte_len() {
                    return Err(format!("key decodes to {n} bytes, expected {}", self.byte_len()));
                }
                let mut be = [0u8; 8];
                be[8 - n..].copy_from_slice(&buf[..n]);
                Ok(Key::Int(u64::from_be_bytes(be)))
            }
        }
    }
}

impl fmt::Display for KeyType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyType::U8 => f.write_str("u8"),
            KeyType::U16 => f.write_str("u16"),
            KeyType::U32 => f.write_str("u32"),
            KeyType::U64 => f.write_str("u64"),
            KeyType::Char(n) => write!(f, "char{n}"),
            KeyType::Text => f.write_str("text"),
            KeyType::Bytes => f.write_str("bytes"),
            KeyType::Any => f.write_str("any"),
        }
    }
}

impl serde::Serialize for KeyType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_key_types() {
        assert_eq!(KeyType::parse("u16"), Some(KeyType::U16));
        assert_eq!(KeyType::parse("char8"), Some(KeyType::Char(8)));
        for bad in ["char0", "char", "char-1", "u128", "U16", "char99999", "char+3"] {
            assert_eq!(KeyType::parse(bad), None, "{bad}");
        }
        assert_eq!(KeyType::from_width(-8), Some(KeyType::Char(8)));
        assert_eq!(KeyType::from_width(3), None);
        assert_eq!(KeyType::from_width(0), None);
    }

    #[test]
    fn encoded_widths_match_format() {
        assert_eq!(KeyType::U8.encoded_len(), 2);
        assert_eq!(KeyType::U16.encoded_len(), 3);
        assert_eq!(KeyType::U32.encoded_len(), 5);
        assert_eq!(KeyType::U64.encoded_len(), 10);
        assert_eq!(KeyType::Char(8).encoded_len(), 10);
    }

    #[test]
    fn rejects_bad_keys() {
        let mut out = Vec::new();
        assert_eq!(KeyType::U8.encode_into(&Key::Int(256), &mut out), Err(KeyError::OutOfRange { max: 255 }));
        assert!(matches!(KeyType::Char(8).encode_into(&Key::from("123456789"), &mut out), Err(KeyError::TooLong { bytes: 9, max: 8 })));
        assert!(matches!(KeyType::U16.encode_into(&Key::from("a"), &mut out), Err(KeyError::WrongKind { .. })));
        assert!(matches!(KeyType::Char(4).encode_into(&Key::from("a\0"), &mut out), Err(KeyError::WrongKind { .. })));
        assert!(matches!(Key::parse("-1", KeyType::U8), Err(KeyError::WrongKind { .. })));
        assert!(matches!(Key::parse("99999999999999999999999", KeyType::U64), Err(KeyError::OutOfRange { .. })));
    }

    proptest! {
        #[test]
        fn int_keys_round_trip(v in any::<u64>()) {
            for kt in [KeyType::U8, KeyType::U16, KeyType::U32, KeyType::U64] {
                let mut out = Vec::new();
                match kt.encode_into(&Key::Int(v), &mut out) {
                    Ok(()) => {
                        prop_assert_eq!(out.len(), kt.encoded_len());
                        prop_assert_eq!(kt.decode(&out).expect("decodes"), Key::Int(v));
                    }
                    Err(_) => prop_assert!(v > kt.max_int().expect("int type")),
                }
            }
        }

        /// The one- and two-hunk fast paths say what the general decoder says,
        /// of any 5 or 10 characters (digits, overflowing hunks, bad bytes).
        #[test]
        fn int_keys_decode_as_the_general_decoder_does(text in proptest::collection::vec(prop_oneof![Just(b'~'), Just(b'0'), Just(b'|'), any::<u8>()], 5..=5), twice in any::<bool>()) {
            let text = if twice { [text.clone(), text.iter().rev().copied().collect()].concat() } else { text };
            let kt = if twice { KeyType::U64 } else { KeyType::U32 };
            let general = b85::decode(&text).ok().filter(|b| b.len() == kt.byte_len()).map(|b| {
                let mut be = [0u8; 8];
                be[8 - b.len()..].copy_from_slice(&b);
                Key::Int(u64::from_be_bytes(be))
            });
            prop_assert_eq!(kt.decode(&text).ok(), general);
        }

        #[test]
        fn string_keys_round_trip(s in "[^\u{0}]{0,12}", n in 1u16..40) {
            let kt = KeyType::Char(n);
            let mut out = Vec::new();
            match kt.encode_into(&Key::Str(s.clone()), &mut out) {
                Ok(()) => {
                    prop_assert_eq!(out.len(), kt.encoded_len());
                    prop_assert_eq!(kt.decode(&out).expect("decodes"), Key::Str(s));
                }
                Err(_) => prop_assert!(s.len() > usize::from(n)),
            }
        }
    }
}
