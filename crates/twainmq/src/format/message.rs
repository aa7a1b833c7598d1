//! Messages as readers return them.

use std::sync::Arc;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::format::key::Key;
use crate::format::payload::{Payload, PayloadJson, TypedMessage};

/// One message read from a partition.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// The topic's name (shared by every message a reader returns).
    pub topic: Arc<str>,
    /// The partition it was read from.
    pub partition: u32,
    /// Its offset in the partition: its file's first offset plus its line's
    /// index in that file, from 0, as 0.2.3 counts.
    pub offset: u64,
    /// The key it was sent with.
    pub key: Key,
    /// UNIX time in seconds (UTC), exactly as stored.
    pub timestamp: f64,
    /// What it carries; a typed payload's `class` is the name the topic's
    /// config gives its type id (`None` if it gives none).
    pub payload: Payload,
}

impl Message {
    /// The timestamp as a UTC date-time (`None` if out of chrono's range).
    pub fn time(&self) -> Option<chrono::DateTime<chrono::Utc>> {
        let micros = (self.timestamp * 1e6).round();
        if !micros.is_finite() || micros.abs() > 9.0e18 {
            return None;
        }
        // Whole (rounded) and at most 9.0e18 < 2^63 in magnitude: converts exactly.
        #[allow(clippy::cast_possible_truncation)]
        let micros = micros as i64;
        chrono::DateTime::from_timestamp_micros(micros)
    }

    /// The text of a text message.
    pub fn text(&self) -> Option<&str> {
        match &self.payload {
            Payload::Text(s) => Some(s),
            _ => None,
        }
    }

    /// Decode a typed message as `T`.
    ///
    /// # Errors
    /// [`Error::WrongPayloadKind`] when the message is not a `T::TYPE_NAME`;
    /// [`Error::TypedDecode`] when its fields do not fit `T`.
    pub fn decode<T: TypedMessage>(&self) -> Result<T> {
        let wrong = |found: String| Error::WrongPayloadKind {
            topic: self.topic.to_string(),
            partition: self.partition,
            offset: self.offset,
            expected: format!("typed message {}", T::TYPE_NAME),
            found,
        };
        match &self.payload {
            Payload::Typed(t) if t.class.as_deref() == Some(T::TYPE_NAME) => {
                serde_json::from_str(&t.json).map_err(|cause| Error::TypedDecode {
                    topic: self.topic.to_string(),
                    partition: self.partition,
                    offset: self.offset,
                    name: T::TYPE_NAME.to_string(),
                    cause,
                })
            }
            Payload::Typed(t) => Err(wrong(format!("typed message {}", t.class.as_deref().unwrap_or("of unknown type")))),
            other => Err(wrong(other.kind().to_string())),
        }
    }

    /// The JSON transport shape `{partition, offset, key, timestamp, payload}`.
    pub fn to_json(&self) -> MessageJson {
        MessageJson {
            partition: self.partition,
            offset: self.offset,
            key: self.key.clone(),
            timestamp: self.timestamp,
            payload: PayloadJson::from(&self.payload),
        }
    }
}

/// A message as JSON: the CLI's `consume --json` line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MessageJson {
    /// As [`Message::partition`].
    pub partition: u32,
    /// As [`Message::offset`].
    pub offset: u64,
    /// The key: a JSON number for integer keys, a string for string keys.
    pub key: Key,
    /// UNIX time in seconds, exactly as stored.
    pub timestamp: f64,
    /// The payload in its JSON shape.
    pub payload: PayloadJson,
}
