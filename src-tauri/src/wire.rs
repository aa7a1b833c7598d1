//! What every domain's wire types are made of: the error every command gives,
//! and numbers that must not become JS numbers.
//!
//! Offsets, counts, sizes and line numbers are `u64`; a JS number rounds them
//! above 2^53. Each travels as a decimal string under a TypeScript name of its
//! own (`export type Offset = string`), so a signature says what a string is.
//! Parsing one that is not a decimal number fails; an input the person types
//! (a key, a reset offset) stays text the service checks.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use specta::Type;

/// Every command error: a stable code to branch on and a message to show.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct ErrorDto {
    pub code: ErrorCode,
    pub message: String,
}

impl From<twainmq::Error> for ErrorDto {
    fn from(e: twainmq::Error) -> Self {
        ErrorDto { code: ErrorCode::of_engine(e.code()), message: e.to_string() }
    }
}

impl ErrorDto {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ErrorDto { code, message: message.into() }
    }
}

/// A count that must fit the wire's `u32` (members, partitions): saturated, never wrapped.
pub fn count32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

macro_rules! decimal {
    ($(#[$doc:meta])* $name:ident($int:ty)) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Type)]
        pub struct $name(#[specta(type = String)] pub $int);

        impl $name {
            pub const fn get(self) -> $int {
                self.0
            }
        }

        impl From<$int> for $name {
            fn from(v: $int) -> Self {
                $name(v)
            }
        }

        impl From<$name> for $int {
            fn from(v: $name) -> Self {
                v.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }

        impl FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                // Digits only (and a sign for signed ones): no spaces, no "+", no "1e3".
                let digits = s.strip_prefix('-').unwrap_or(s);
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(format!("{s:?} is not a decimal {}", stringify!($int)));
                }
                s.parse().map($name).map_err(|_| format!("{s:?} is out of range for {}", stringify!($int)))
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = std::borrow::Cow::<'de, str>::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

decimal! {
    /// A position in a partition (or in a group's log): the first message is at
    /// the partition's start, the next one written gets its end.
    Offset(u64)
}

decimal! {
    /// A number of messages, lines or hits.
    Count(u64)
}

decimal! {
    /// A size in bytes.
    Bytes(u64)
}

decimal! {
    /// A 1-based line number in a partition file.
    LineNo(u64)
}

decimal! {
    /// A committed offset as the group log holds it: `-1` is 0.2.3's "the end
    /// when a member takes the partition".
    Commit(i64)
}

decimal! {
    /// A signed number of messages (a reset's shift).
    Delta(i64)
}

decimal! {
    /// A demo member's handle in this app.
    Handle(u64)
}

/// A message key as text: an integer key's decimal digits (up to 2^64 - 1),
/// or a string key itself.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize, Type)]
#[serde(transparent)]
pub struct KeyText(pub String);

/// Which topic of a name a page or description is of: an opaque token that
/// changes when the topic is deleted and made again.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(transparent)]
pub struct Incarnation(pub String);

impl KeyText {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for KeyText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for KeyText {
    fn from(s: &str) -> Self {
        KeyText(s.to_string())
    }
}

impl PartialEq<&str> for KeyText {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl Incarnation {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Every error code a command (or the webview's backend layer) gives. `other`: an
/// engine error this version of the app has no name for (the message says what);
/// `ipc`, `no_backend` and `preview` come from the webview's side (no answer, no
/// backend, nothing recorded for the browser preview).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    // The engine's (`twainmq::Error::code`).
    InvalidTopicName,
    InvalidGroupName,
    InvalidKeyType,
    InvalidPartitionCount,
    InvalidMessageTypeName,
    StoreNotFound,
    /// A file (or a FIFO, ...) where a store's folder was expected.
    StoreNotAFolder,
    EmptyFolder,
    NotAStore,
    TopicExists,
    TopicNotFound,
    GroupNotFound,
    CorruptConfig,
    KeyOutOfRange,
    KeyTooLong,
    KeyWrongKind,
    UnknownMessageType,
    MessageTooLong,
    PartitionOutOfRange,
    CorruptLine,
    WrongPayloadKind,
    TypedEncode,
    TypedDecode,
    BadPartitioner,
    SymlinkRefused,
    ShortWrite,
    InvalidRegex,
    InvalidFilter,
    // Also the app's: a topic deleted or made again while it was read.
    TopicDeleted,
    NotAFile,
    /// Another process holds a file the operation had to delete or replace (Windows).
    FileInUse,
    GroupTopicMismatch,
    GroupPartitionMismatch,
    NotAGroup,
    GroupJoinFailed,
    GroupUnknownTopic,
    /// An offsets file (or an import's offsets) that is not what `groups export` writes.
    InvalidOffsets,
    /// A reset to another group's offsets, of another topic.
    GroupOtherTopic,
    /// A lag history over an empty or reversed span, or too many points.
    InvalidSpan,
    BadTimestamp,
    BadInputLine,
    ImportStopped,
    CopyStopped,
    CopyIntoItself,
    UncopyableMessage,
    KeyTypesDiffer,
    InvalidRetention,
    BadExportTarget,
    /// A finished export kept beside its target, which could not be replaced.
    ExportNotPlaced,
    Io,
    // The app's.
    InvalidOffset,
    InvalidHex,
    /// Text that must be UTF-8 and is not (a file sent as a text message).
    InvalidText,
    /// No message at the offset asked for (a part of a large message, a damaged line, gone since).
    NoMessage,
    MissingClass,
    InvalidJson,
    InvalidReset,
    /// A lag alert threshold that is not a count or a duration of zero or more.
    InvalidThreshold,
    ConfirmationMismatch,
    NoStore,
    NoDemo,
    NoSuchMember,
    /// A demo member asked for beyond the most a window runs.
    DemoLimit,
    /// The search session asked for is gone (replaced by a newer search, or the store closed).
    NoSearch,
    /// An export or copy of picked rows with none picked.
    EmptySelection,
    /// An export to a file that is already there, not confirmed (`ExportRequest::overwrite`).
    TargetExists,
    /// A demo member asked for in a group that members this app did not start are in (not confirmed).
    GroupInUse,
    /// A group deleted while its log shows live members, not said to be stopped.
    MembersLive,
    /// The open store's folder is gone (deleted, moved, its share disconnected).
    StoreGone,
    /// Something this app does not do on a Kafka cluster yet (the message says what).
    NotOnCluster,
    /// A Kafka cluster's error (the message names the broker and the call).
    Kafka,
    /// Connection settings that cannot be used (the message says which and why).
    InvalidConnection,
    /// A write asked of a connection opened read-only (safe browse).
    ReadOnlyConnection,
    Internal,
    // An engine error this version of the app has no name for (the message says what).
    Other,
    // The webview's backend layer (never sent by this process).
    // The backend did not answer, or refused the call before running it.
    Ipc,
    // No backend: a plain browser without `?mock`.
    NoBackend,
    // The browser preview has no recording for this request (it replays recorded answers).
    Preview,
}

impl ErrorCode {
    /// The code of an engine error code's text; [`ErrorCode::Other`] for one this app does not know.
    pub fn of_engine(code: &str) -> ErrorCode {
        ErrorCode::deserialize(serde::de::value::StrDeserializer::<serde::de::value::Error>::new(code)).unwrap_or(ErrorCode::Other)
    }
}

impl PartialEq<&str> for ErrorCode {
    fn eq(&self, other: &&str) -> bool {
        serde_json::to_value(self).ok().and_then(|v| v.as_str().map(|s| s == *other)).unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_travel_as_exact_strings() {
        let big = Offset(u64::MAX);
        assert_eq!(serde_json::to_string(&big).expect("ser"), "\"18446744073709551615\"");
        assert_eq!(serde_json::from_str::<Offset>("\"18446744073709551615\"").expect("de"), big);
        assert_eq!(serde_json::to_string(&Commit(-1)).expect("ser"), "\"-1\"");
        for bad in ["\"-1\"", "\"1.5\"", "\" 1\"", "\"+1\"", "\"\"", "\"18446744073709551616\"", "7"] {
            assert!(serde_json::from_str::<Offset>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn error_codes_keep_todays_words() {
        assert_eq!(serde_json::to_string(&ErrorCode::InvalidOffset).expect("ser"), "\"invalid_offset\"");
        assert_eq!(ErrorCode::of_engine("group_topic_mismatch"), ErrorCode::GroupTopicMismatch);
        assert_eq!(ErrorCode::of_engine("something_new"), ErrorCode::Other);
    }
}
