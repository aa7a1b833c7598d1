//! Topic config files (`<topic>.twc`): read tolerantly, written as 0.2.3 writes them.

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
            extra: Map::new(),
        }
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
        let value: Value = serde_json::from_slice(bytes).map_err(|e| format!("not valid JSON ({e})"))?;
        let Value::Object(mut map) = value else {
            return Err("not a JSON object".into());
        };
        let width =
            map.shift_remove("key_width").ok_or("no \"key_width\"").and_then(|v| int_of(&v).ok_or("\"key_width\" is not an integer"))?;
        let key_type = KeyType::from_width(width).ok_or_else(|| format!("\"key_width\" {width} is not 1, 2, 4, 8 or negative"))?;
        let partitions =
            map.shift_remove("partitions").ok_or("no \"partitions\"").and_then(|v| int_of(&v).ok_or("\"partitions\" is not an integer"))?;
        let partitions = u32::try_from(partitions)
            .ok()
            .filter(|p| *p >= 1)
            .ok_or_else(|| format!("\"partitions\" {partitions} is not a positive count"))?;
        if partitions > MAX_READ_PARTITIONS {
            return Err(format!(
                "\"partitions\" is {partitions}, more than TwainMQ reads ({MAX_READ_PARTITIONS}; topics are created with at most {MAX_PARTITIONS})"
            ));
        }
        let mut message_types = Vec::new();
        match map.shift_remove("message_types") {
            Some(Value::Object(types)) => {
                for (name, id) in types {
                    let id = int_of(&id)
                        .and_then(|i| u16::try_from(i).ok())
                        .ok_or_else(|| format!("message type {name:?} has id {id}, not 0 to 65535"))?;
                    message_types.push((name, id));
                }
            }
            Some(other) => return Err(format!("\"message_types\" is {other}, not an object")),
            None => return Err("no \"message_types\"".into()),
        }
        Ok(TopicConfig { key_type, partitions, message_types, extra: map })
    }

    /// The file's bytes, formatted like 0.2.3's `json.dump(config, f, indent=0)`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut map = Map::new();
        map.insert("key_width".into(), self.key_type.width().into());
        map.insert("partitions".into(), self.partitions.into());
        let types: Map<String, Value> = self.message_types.iter().map(|(n, i)| (n.clone(), Value::from(*i))).collect();
        map.insert("message_types".into(), Value::Object(types));
        for (k, v) in &self.extra {
            map.insert(k.clone(), v.clone());
        }
        // A map of JSON values always serialises.
        crate::format::pyjson::to_indent0(&Value::Object(map)).unwrap_or_default()
    }
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
    fn rejects_corrupt_configs() {
        for bad in [
            &b""[..],
            b"[]",
            b"{\"key_width\": 2, \"partitions\": 1",
            br#"{"partitions": 1, "message_types": {}}"#,
            br#"{"key_width": 3, "partitions": 1, "message_types": {}}"#,
            br#"{"key_width": 0, "partitions": 1, "message_types": {}}"#,
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
