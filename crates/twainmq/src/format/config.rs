//! Topic config files (`<topic>.twc`): read tolerantly, written as 0.2.3 writes them.
//! A topic of the format's next version (free keys, large messages) has
//! `key_width` 0, which every 0.2.3 producer and consumer refuses at open, and
//! says what it is in the extra key `"extensions"` (docs/FORMAT.md, Part 3).

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::format::key::KeyType;

/// Most partitions a topic can be created with.
pub const MAX_PARTITIONS: u32 = 10_000;

/// The key type a topic gets when none is named: 0.2.3's `create_topic(key_type=None)` takes
/// `"u16"` (its docstring and code), and the CLI and the app offer the same.
pub const DEFAULT_KEY_TYPE: &str = "u16";

/// The partition count a topic gets when none is named: 0.2.3's `create_topic(partitions=1)`.
pub const DEFAULT_PARTITIONS: u32 = 1;

/// Most partitions a topic read from disk may have. 0.2.3 takes any count;
/// past this one a config is refused as corrupt, since every reader sizes its
/// tables by the count (4,000,000,000 would ask for tens of GB).
pub const MAX_READ_PARTITIONS: u32 = 100_000;

/// Largest config file read: a real one is under a kilobyte per message type.
pub(crate) const MAX_CONFIG_BYTES: u64 = 4 << 20;

/// The extra config key of a topic of the format's next version: an object
/// naming its real `key_type` and, for large messages, its `max_message_bytes`.
/// An engine that finds a member it does not know there refuses the topic.
pub const EXTENSIONS_KEY: &str = "extensions";

/// Why a config cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ConfigProblem {
    /// It is not a config (why).
    Corrupt(String),
    /// It uses a feature of a newer TwainMQ (which).
    Newer(String),
}

/// A topic's configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicConfig {
    /// The key type, stored as `key_width` (see [`KeyType::width`]).
    pub key_type: KeyType,
    /// Partition count: 1 to 100,000 for a config read from disk (more is
    /// refused as corrupt), at most [`MAX_PARTITIONS`] for a topic created here.
    pub partitions: u32,
    /// Type names and ids, in file order.
    pub message_types: Vec<(String, u16)>,
    /// Large messages (the format's next version): the largest payload a
    /// message may carry, in bytes, up to
    /// [`MAX_MESSAGE_BYTES_LIMIT`](crate::limits::MAX_MESSAGE_BYTES_LIMIT);
    /// `None`: one line of at most 4,096 bytes, as in 0.2.3.
    pub max_message_bytes: Option<u64>,
    /// Keys 0.2.3 does not know (e.g. a group's `topic`): kept and written back.
    pub extra: Map<String, Value>,
}

impl TopicConfig {
    /// A config with message types numbered 0, 1, ... in the given order, as 0.2.3 numbers them.
    /// Ids are 16 bits: names past the 65,536th all get 65535 (creating a
    /// topic refuses more than 65,535 types, so it never gets there).
    pub fn new(key_type: KeyType, partitions: u32, message_types: &[String]) -> Self {
        TopicConfig {
            key_type,
            partitions,
            message_types: message_types.iter().enumerate().map(|(i, n)| (n.clone(), u16::try_from(i).unwrap_or(u16::MAX))).collect(),
            max_message_bytes: None,
            extra: Map::new(),
        }
    }

    /// Whether the topic is of the format's next version (free keys or large
    /// messages): its config has `key_width` 0, so 0.2.3 refuses it at open.
    pub fn is_extended(&self) -> bool {
        self.key_type.is_free() || self.max_message_bytes.is_some()
    }

    /// The id of a type name.
    pub fn type_id(&self, name: &str) -> Option<u16> {
        self.message_types.iter().find(|(n, _)| n == name).map(|(_, id)| *id)
    }

    /// The name of a type id.
    pub fn type_name(&self, id: u16) -> Option<&str> {
        self.message_types.iter().find(|(_, i)| *i == id).map(|(n, _)| n.as_str())
    }

    /// Parse a `.twc` file's bytes.
    ///
    /// # Errors
    /// A description of the first problem found.
    pub fn parse(bytes: &[u8]) -> std::result::Result<TopicConfig, String> {
        TopicConfig::parse_checked(bytes).map_err(|p| match p {
            ConfigProblem::Corrupt(r) => r,
            ConfigProblem::Newer(what) => format!("it uses {what}, which this version of TwainMQ does not know (a newer one wrote it)"),
        })
    }

    /// As [`TopicConfig::parse`], telling a config of a newer TwainMQ from a corrupt one.
    pub(crate) fn parse_checked(bytes: &[u8]) -> std::result::Result<TopicConfig, ConfigProblem> {
        let corrupt = ConfigProblem::Corrupt;
        let value: Value = serde_json::from_slice(bytes).map_err(|e| corrupt(format!("not valid JSON ({e})")))?;
        let Value::Object(mut map) = value else {
            return Err(corrupt("not a JSON object".into()));
        };
        let width = map
            .shift_remove("key_width")
            .ok_or("no \"key_width\"")
            .and_then(|v| int_of(&v).ok_or("\"key_width\" is not an integer"))
            .map_err(|e| corrupt(e.into()))?;
        let extensions = map.shift_remove(EXTENSIONS_KEY);
        let (key_type, max_message_bytes) = match (width, extensions) {
            (0, Some(ext)) => parse_extensions(&ext)?,
            (0, None) => {
                return Err(corrupt("\"key_width\" is 0 but there is no \"extensions\" saying what the keys are".into()));
            }
            (w, Some(_)) => {
                return Err(corrupt(format!(
                    "it has \"extensions\" but \"key_width\" {w}: a topic of the format's next version has key_width 0, so that 0.2.3 refuses it"
                )))
            }
            (w, None) => {
                (KeyType::from_width(w).ok_or_else(|| corrupt(format!("\"key_width\" {w} is not 1, 2, 4, 8 or negative")))?, None)
            }
        };
        let partitions = map
            .shift_remove("partitions")
            .ok_or("no \"partitions\"")
            .and_then(|v| int_of(&v).ok_or("\"partitions\" is not an integer"))
            .map_err(|e| corrupt(e.into()))?;
        let partitions = u32::try_from(partitions)
            .ok()
            .filter(|p| *p >= 1)
            .ok_or_else(|| corrupt(format!("\"partitions\" {partitions} is not a positive count")))?;
        if partitions > MAX_READ_PARTITIONS {
            return Err(corrupt(format!(
                "\"partitions\" is {partitions}, more than TwainMQ reads ({MAX_READ_PARTITIONS}; topics are created with at most {MAX_PARTITIONS})"
            )));
        }
        let mut message_types = Vec::new();
        match map.shift_remove("message_types") {
            Some(Value::Object(types)) => {
                for (name, id) in types {
                    let id = int_of(&id)
                        .and_then(|i| u16::try_from(i).ok())
                        .ok_or_else(|| corrupt(format!("message type {name:?} has id {id}, not 0 to 65535")))?;
                    message_types.push((name, id));
                }
            }
            Some(other) => return Err(corrupt(format!("\"message_types\" is {other}, not an object"))),
            None => return Err(corrupt("no \"message_types\"".into())),
        }
        Ok(TopicConfig { key_type, partitions, message_types, max_message_bytes, extra: map })
    }

    /// The file's bytes, formatted like 0.2.3's `json.dump(config, f, indent=0)`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut map = Map::new();
        let width = if self.is_extended() { 0 } else { self.key_type.width() };
        map.insert("key_width".into(), width.into());
        map.insert("partitions".into(), self.partitions.into());
        let types: Map<String, Value> = self.message_types.iter().map(|(n, i)| (n.clone(), Value::from(*i))).collect();
        map.insert("message_types".into(), Value::Object(types));
        if self.is_extended() {
            let mut ext = Map::new();
            ext.insert("key_type".into(), self.key_type.to_string().into());
            if let Some(n) = self.max_message_bytes {
                ext.insert("max_message_bytes".into(), n.into());
            }
            map.insert(EXTENSIONS_KEY.into(), Value::Object(ext));
        }
        for (k, v) in &self.extra {
            map.insert(k.clone(), v.clone());
        }
        // A map of JSON values always serialises.
        crate::format::pyjson::to_indent0(&Value::Object(map)).unwrap_or_default()
    }
}

/// The key type and largest message of an `"extensions"` object.
fn parse_extensions(ext: &Value) -> std::result::Result<(KeyType, Option<u64>), ConfigProblem> {
    let Value::Object(ext) = ext else {
        return Err(ConfigProblem::Corrupt(format!("\"{EXTENSIONS_KEY}\" is {ext}, not an object")));
    };
    let mut key_type = None;
    let mut max = None;
    for (name, v) in ext {
        match name.as_str() {
            "key_type" => {
                let text = v.as_str().unwrap_or_default();
                key_type = Some(
                    KeyType::parse(text)
                        .or_else(|| text.strip_prefix("char").and_then(|n| n.parse::<u16>().ok()).filter(|n| *n > 0).map(KeyType::Char))
                        .ok_or_else(|| ConfigProblem::Newer(format!("key type {v}")))?,
                );
            }
            "max_message_bytes" => {
                let n = v.as_u64().filter(|n| (1..=crate::format::multipart::MAX_MESSAGE_BYTES_LIMIT).contains(n)).ok_or_else(|| {
                    ConfigProblem::Corrupt(format!(
                        "\"max_message_bytes\" is {v}, not 1 to {}",
                        crate::format::multipart::MAX_MESSAGE_BYTES_LIMIT
                    ))
                })?;
                max = Some(n);
            }
            other => return Err(ConfigProblem::Newer(format!("the extension {other:?}"))),
        }
    }
    let key_type = key_type.ok_or_else(|| ConfigProblem::Corrupt(format!("\"{EXTENSIONS_KEY}\" names no \"key_type\"")))?;
    if max.is_some() {
        large_messages_fit(key_type).map_err(ConfigProblem::Corrupt)?;
    }
    Ok((key_type, max))
}

/// Whether a topic of `key_type` can have large messages: its keys must leave
/// each part line room for [`MIN_CHUNK`](crate::format::multipart::MIN_CHUNK)
/// bytes of the message.
pub(crate) fn large_messages_fit(key_type: KeyType) -> std::result::Result<(), String> {
    use crate::format::multipart::{chunk_capacity, MIN_CHUNK};
    if chunk_capacity(key_type.encoded_len()) >= MIN_CHUNK {
        return Ok(());
    }
    let widest =
        (1..=crate::format::key::MAX_CHAR_WIDTH).rev().find(|n| chunk_capacity(KeyType::Char(*n).encoded_len()) >= MIN_CHUNK).unwrap_or(1);
    Err(format!(
        "{key_type} keys leave a line too little room for the parts of large messages: use keys of at most char{widest}, or a free key type (text, bytes, any)"
    ))
}

/// An integer, also from an integral float or a digit string (0.2.3 applies `int()` to partitions).
fn int_of(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().and_then(integral)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// An integral float as an integer, if it is one below 10^15 in magnitude.
fn integral(f: f64) -> Option<i64> {
    if f.fract() != 0.0 || f.abs() >= 1e15 {
        return None;
    }
    // Whole and below 10^15 < 2^63 in magnitude: converts exactly.
    #[allow(clippy::cast_possible_truncation)]
    let i = f as i64;
    Some(i)
}

/// Check a message type name for a new topic.
///
/// # Errors
/// [`Error::InvalidMessageTypeName`].
pub fn validate_type_name(name: &str) -> Result<()> {
    let reason = if name.is_empty() {
        Some("it is empty")
    } else if name.len() > 200 {
        Some("it is over 200 bytes")
    } else if name.chars().any(|c| c.is_control() || c == ',') {
        Some("it contains a control character or a comma")
    } else if name.trim() != name {
        Some("it starts or ends with white space")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(Error::InvalidMessageTypeName { name: name.to_string(), reason }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_writes_like_python() {
        let text = b"{\n\"key_width\": 4,\n\"partitions\": 2,\n\"message_types\": {\n\"Event\": 0,\n\"Reading\": 1\n}\n}";
        let c = TopicConfig::parse(text).expect("valid");
        assert_eq!(c.key_type, KeyType::U32);
        assert_eq!(c.partitions, 2);
        assert_eq!(c.type_id("Reading"), Some(1));
        assert_eq!(c.type_name(0), Some("Event"));
        assert_eq!(c.to_bytes(), text.to_vec());
    }

    #[test]
    fn keeps_extra_keys() {
        let c = TopicConfig::parse(br#"{"key_width": -8, "partitions": "3", "message_types": {}, "topic": "events", "x": [1]}"#)
            .expect("valid");
        assert_eq!(c.key_type, KeyType::Char(8));
        assert_eq!(c.partitions, 3);
        let again = TopicConfig::parse(&c.to_bytes()).expect("valid");
        assert_eq!(again.extra.get("topic"), Some(&Value::from("events")));
        assert_eq!(again, c);
    }

    #[test]
    fn extended_configs_have_key_width_0_and_round_trip() {
        let mut c = TopicConfig::new(KeyType::Any, 3, &[]);
        c.max_message_bytes = Some(1 << 20);
        let text = String::from_utf8(c.to_bytes()).expect("utf8");
        assert!(text.starts_with("{\n\"key_width\": 0,"), "{text}");
        assert!(text.contains("\"extensions\": {\n\"key_type\": \"any\",\n\"max_message_bytes\": 1048576\n}"), "{text}");
        assert_eq!(TopicConfig::parse(text.as_bytes()), Ok(c));
        let mut large = TopicConfig::new(KeyType::U32, 1, &[]);
        large.max_message_bytes = Some(5000);
        assert_eq!(TopicConfig::parse(&large.to_bytes()).map(|c| (c.key_type, c.max_message_bytes)), Ok((KeyType::U32, Some(5000))));
        let plain = TopicConfig::new(KeyType::Char(7), 1, &[]);
        assert!(!plain.is_extended() && !String::from_utf8_lossy(&plain.to_bytes()).contains("extensions"));
    }

    #[test]
    fn a_newer_extension_is_told_from_corruption() {
        let newer = br#"{"key_width": 0, "partitions": 1, "message_types": {}, "extensions": {"key_type": "any", "compaction": true}}"#;
        assert_eq!(TopicConfig::parse_checked(newer), Err(ConfigProblem::Newer("the extension \"compaction\"".into())));
        let newer_keys = br#"{"key_width": 0, "partitions": 1, "message_types": {}, "extensions": {"key_type": "uuid"}}"#;
        assert!(matches!(TopicConfig::parse_checked(newer_keys), Err(ConfigProblem::Newer(_))));
    }

    #[test]
    fn rejects_corrupt_configs() {
        for bad in [
            &b""[..],
            b"[]",
            b"{\"key_width\": 2, \"partitions\": 1",
            br#"{"partitions": 1, "message_types": {}}"#,
            br#"{"key_width": 3, "partitions": 1, "message_types": {}}"#,
            br#"{"key_width": 0, "partitions": 1, "message_types": {}}"#,
            br#"{"key_width": 2, "partitions": 1, "message_types": {}, "extensions": {"key_type": "any"}}"#,
            br#"{"key_width": 0, "partitions": 1, "message_types": {}, "extensions": {"max_message_bytes": 5}}"#,
            br#"{"key_width": 0, "partitions": 1, "message_types": {}, "extensions": {"key_type": "u8", "max_message_bytes": 0}}"#,
            br#"{"key_width": 2, "partitions": 0, "message_types": {}}"#,
            br#"{"key_width": 2, "partitions": -1, "message_types": {}}"#,
            br#"{"key_width": 2, "partitions": 1, "message_types": []}"#,
            br#"{"key_width": 2, "partitions": 1, "message_types": {"A": 70000}}"#,
            b"\xff\xfe",
        ] {
            assert!(TopicConfig::parse(bad).is_err(), "{:?}", String::from_utf8_lossy(bad));
        }
    }
}
