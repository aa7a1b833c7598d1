//! A message key's value (Key): its kinds, JSON form, conversions, and its
//! text parsed by a topic's key type.

#[allow(clippy::wildcard_imports)]
use super::*;

/// A message key: an integer for `uN` topics, a string for `charN` and
/// `text` topics, bytes for `bytes` topics, and on `any` topics text, bytes or
/// none.
///
/// As JSON (`consume --json`, `export`, `import`) an integer key is a number,
/// a string key a string, a bytes key `{"hex": "00ff"}` and the null key
/// `null`, so every key reads back as the kind it was.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Key {
    /// An integer key, for `uN` topics; at most the type's [`KeyType::max_int`].
    /// Sent to a `charN` topic, it is taken as its decimal text.
    Int(u64),
    /// A string key, for `charN` topics: UTF-8 of at most N bytes, not ending
    /// in NUL (NUL pads keys on disk, so trailing NULs do not read back). For
    /// `text` and `any` topics any UTF-8 of up to [`MAX_FREE_KEY_BYTES`].
    Str(String),
    /// A bytes key, for `bytes` and `any` topics (Kafka's keys are bytes).
    Bytes(Vec<u8>),
    /// No key, for `any` topics (Kafka's null key): producers spread such
    /// messages over the partitions in turn.
    Null,
}

impl Key {
    /// The bytes a free key is made of (text's UTF-8), `None` for integers and the null key.
    pub fn free_bytes(&self) -> Option<&[u8]> {
        match self {
            Key::Str(s) => Some(s.as_bytes()),
            Key::Bytes(b) => Some(b),
            Key::Int(_) | Key::Null => None,
        }
    }

    /// The kind's name: `int`, `str`, `bytes` or `null`.
    pub fn kind(&self) -> &'static str {
        match self {
            Key::Int(_) => "int",
            Key::Str(_) => "str",
            Key::Bytes(_) => "bytes",
            Key::Null => "null",
        }
    }
}

impl serde::Serialize for Key {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            Key::Int(v) => s.serialize_u64(*v),
            Key::Str(t) => s.serialize_str(t),
            Key::Bytes(b) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("hex", &hex::encode(b))?;
                m.end()
            }
            Key::Null => s.serialize_none(),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Key {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Hex {
            hex: String,
        }
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Shape {
            Int(u64),
            Str(String),
            Hex(Hex),
            Null(()),
        }
        Ok(match Shape::deserialize(d)? {
            Shape::Int(v) => Key::Int(v),
            Shape::Str(s) => Key::Str(s),
            Shape::Hex(h) => Key::Bytes(hex::decode(h.hex.trim()).map_err(serde::de::Error::custom)?),
            Shape::Null(()) => Key::Null,
        })
    }
}

impl Key {
    /// Parse command-line text as a key of `key_type`: an integer for `uN`,
    /// the text itself for `charN`, `text` and `any`, its UTF-8 bytes for `bytes`.
    pub fn parse(text: &str, key_type: KeyType) -> Result<Key, KeyError> {
        if key_type == KeyType::Bytes {
            return Ok(Key::Bytes(text.as_bytes().to_vec()));
        }
        if key_type.is_int() {
            let t = text.trim();
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err(KeyError::WrongKind { reason: "this topic has integer keys: give a whole number of 0 or more" });
            }
            match t.parse::<u64>() {
                Ok(v) => Ok(Key::Int(v)),
                Err(_) => Err(KeyError::OutOfRange { max: key_type.max_int().unwrap_or(u64::MAX) }),
            }
        } else {
            Ok(Key::Str(text.to_string()))
        }
    }
}

impl fmt::Display for Key {
    /// Integers in decimal, strings as they are, bytes as `0x` and lower-case
    /// hex, the null key as `null` (shown to people; JSON keeps the kinds apart).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Key::Int(v) => write!(f, "{v}"),
            Key::Str(s) => f.write_str(s),
            Key::Bytes(b) => write!(f, "0x{}", hex::encode(b)),
            Key::Null => f.write_str("null"),
        }
    }
}

impl From<u64> for Key {
    fn from(v: u64) -> Key {
        Key::Int(v)
    }
}
impl From<u32> for Key {
    fn from(v: u32) -> Key {
        Key::Int(v.into())
    }
}
impl From<u16> for Key {
    fn from(v: u16) -> Key {
        Key::Int(v.into())
    }
}
impl From<u8> for Key {
    fn from(v: u8) -> Key {
        Key::Int(v.into())
    }
}
impl From<&str> for Key {
    fn from(v: &str) -> Key {
        Key::Str(v.to_string())
    }
}
impl From<String> for Key {
    fn from(v: String) -> Key {
        Key::Str(v)
    }
}
impl From<&[u8]> for Key {
    fn from(v: &[u8]) -> Key {
        Key::Bytes(v.to_vec())
    }
}
impl From<Vec<u8>> for Key {
    fn from(v: Vec<u8>) -> Key {
        Key::Bytes(v)
    }
}
impl From<Option<Key>> for Key {
    /// `None` is the null key.
    fn from(v: Option<Key>) -> Key {
        v.unwrap_or(Key::Null)
    }
}
