//! The engine's error type: one enum, structured fields, messages that say what to do.

use std::path::PathBuf;

use crate::format::key::KeyType;

/// Why a topic or group name was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NameProblem {
    /// The name is empty.
    Empty,
    /// The name is longer than the limit (in bytes).
    TooLong { len: usize, max: usize },
    /// A character outside `A-Z a-z 0-9 _ . -`.
    BadChar { ch: char, index: usize },
    /// `.` or `..`, which would escape the store folder.
    DotName,
    /// A topic name starting with `--group--`, reserved for consumer groups.
    GroupPrefix,
    /// A new name ending in `.twc` (in any case): its folder would be taken
    /// for the config of the topic named without the suffix.
    ConfigSuffix,
    /// A new name of the form `.NAME.twc.tmp-N`, the store's temporary config files.
    TempName,
}

impl std::fmt::Display for NameProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NameProblem::Empty => write!(f, "it is empty"),
            NameProblem::TooLong { len, max } => write!(f, "it is {len} bytes long, over the limit of {max}"),
            NameProblem::BadChar { ch, index } => write!(f, "character {ch:?} at position {index} is not allowed"),
            NameProblem::DotName => write!(f, "\".\" and \"..\" name folders outside the topic"),
            NameProblem::GroupPrefix => write!(f, "names starting with \"--group--\" are reserved for consumer groups"),
            NameProblem::ConfigSuffix => write!(
                f,
                "a new name may not end in \".twc\" (in any case): its folder would look like the config file of the topic named without it. Drop or change the suffix"
            ),
            NameProblem::TempName => write!(
                f,
                "names starting with \".\" and containing \".twc.tmp\" are the store's temporary files. Pick another name"
            ),
        }
    }
}

/// Every way an engine operation can fail.
///
/// Variants carry the topic, partition, offset or path involved so callers
/// can branch on them and show a precise message.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("invalid topic name {name:?}: {problem}. Use 1-200 characters from A-Z a-z 0-9 _ . - (not \".\" or \"..\", not starting with \"--group--\", not ending in \".twc\")")]
    InvalidTopicName { name: String, problem: NameProblem },

    #[error("invalid consumer group name {name:?}: {problem}. Use 1-191 characters from A-Z a-z 0-9 _ . -")]
    InvalidGroupName { name: String, problem: NameProblem },

    #[error("invalid key type {key_type:?}: use u8, u16, u32, u64 or charN with N from 1 to {max_char}")]
    InvalidKeyType { key_type: String, max_char: u16 },

    #[error("invalid partition count {partitions}: a topic needs from 1 to {max} partitions")]
    InvalidPartitionCount { partitions: u64, max: u32 },

    #[error("invalid message type name {name:?}: {reason}")]
    InvalidMessageTypeName { name: String, reason: &'static str },

    #[error("there is no folder at {path}: create it first, or check the path (a store is a folder)")]
    StoreNotFound { path: PathBuf },

    #[error("topic {topic:?} already exists in {root}: pick another name, or delete it first")]
    TopicExists { topic: String, root: PathBuf },

    #[error("topic {topic:?} does not exist: no config file at {path}. Create it first (twainmq topics create {topic})")]
    TopicNotFound { topic: String, path: PathBuf },

    #[error("consumer group {group:?} does not exist: no config file at {path}")]
    GroupNotFound { group: String, path: PathBuf },

    #[error("the config file {path} of topic {topic:?} is corrupt: {reason}. Restore it from a backup, or rewrite it as {{\"key_width\": 2, \"partitions\": 1, \"message_types\": {{}}}} with the topic's real values")]
    CorruptConfig { topic: String, path: PathBuf, reason: String },

    #[error("key {key} does not fit key type {key_type} of topic {topic:?}: the largest {key_type} key is {max}")]
    KeyOutOfRange { topic: String, key: String, key_type: KeyType, max: u64 },

    #[error("key {key:?} is {bytes} bytes in UTF-8, too long for key type {key_type} of topic {topic:?} (at most {max} bytes)")]
    KeyTooLong { topic: String, key: String, key_type: KeyType, bytes: usize, max: usize },

    #[error("key {key:?} is not valid for key type {key_type} of topic {topic:?}: {reason}")]
    KeyWrongKind { topic: String, key: String, key_type: KeyType, reason: &'static str },

    #[error("message type {name:?} is not declared by topic {topic:?} (declared: {known:?}). Create the topic with --message-types {name}, or send one of the declared types")]
    UnknownMessageType { topic: String, name: String, known: Vec<String> },

    #[error(
        "message is {len} bytes as a line, over the {max}-byte limit of topic {topic:?}: shorten it or split it into several messages"
    )]
    MessageTooLong { topic: String, len: usize, max: usize },

    #[error("partition {partition} does not exist in topic {topic:?}, which has {partitions} (0 to {last})", last = partitions.saturating_sub(1))]
    PartitionOutOfRange { topic: String, partition: u32, partitions: u32 },

    #[error("topic {topic:?}, partition {partition}, offset {offset} ({path}, line {line}): {problem}. The line is skipped; run `twainmq check` to list every damaged line")]
    CorruptLine { topic: String, partition: u32, offset: u64, path: PathBuf, line: u64, problem: crate::format::line::Corrupt },

    #[error("message at topic {topic:?}, partition {partition}, offset {offset} is a {found}, not {expected}")]
    WrongPayloadKind { topic: String, partition: u32, offset: u64, expected: String, found: String },

    #[error("typed message {name:?} could not be encoded as JSON: {cause}")]
    TypedEncode { name: String, cause: serde_json::Error },

    #[error("message at topic {topic:?}, partition {partition}, offset {offset} could not be decoded as {name}: {cause}")]
    TypedDecode { topic: String, partition: u32, offset: u64, name: String, cause: serde_json::Error },

    #[error("partitioner returned partition {partition} for topic {topic:?}, which has {partitions}: a partitioner must return 0 to {last}", last = partitions.saturating_sub(1))]
    BadPartitioner { topic: String, partition: u32, partitions: u32 },

    #[error("{path} is a symbolic link: TwainMQ never deletes or writes through links. Remove the link by hand if that is what you want")]
    SymlinkRefused { path: PathBuf },

    #[error("short write to {path}: {written} of {len} bytes. The disk may be full; free space and retry")]
    ShortWrite { path: PathBuf, written: usize, len: usize },

    #[error("invalid regular expression {pattern:?}: {reason}")]
    InvalidRegex { pattern: String, reason: String },

    #[error("topic {topic:?} was deleted or replaced by another process while in use ({path} is no longer its file): nothing more is written to or read from the old files. Start again to use the topic as it is now")]
    TopicDeleted { topic: String, path: PathBuf },

    #[error("{path} is not a regular file ({kind}): TwainMQ reads and writes only regular files. Move it out of the store")]
    NotAFile { path: PathBuf, kind: &'static str },

    #[error(transparent)]
    Group(#[from] GroupError),

    // The cause is part of the message (so the app shows it) and deliberately not
    // a chained `source`, which the CLI would print a second time.
    #[error("could not {op} {path}: {cause}")]
    Io { op: &'static str, path: PathBuf, cause: std::io::Error },
}

impl Error {
    /// A stable machine-readable code for this error, e.g. for the app's `{code, message}`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::InvalidTopicName { .. } => "invalid_topic_name",
            Error::InvalidGroupName { .. } => "invalid_group_name",
            Error::InvalidKeyType { .. } => "invalid_key_type",
            Error::InvalidPartitionCount { .. } => "invalid_partition_count",
            Error::InvalidMessageTypeName { .. } => "invalid_message_type_name",
            Error::StoreNotFound { .. } => "store_not_found",
            Error::TopicExists { .. } => "topic_exists",
            Error::TopicNotFound { .. } => "topic_not_found",
            Error::GroupNotFound { .. } => "group_not_found",
            Error::CorruptConfig { .. } => "corrupt_config",
            Error::KeyOutOfRange { .. } => "key_out_of_range",
            Error::KeyTooLong { .. } => "key_too_long",
            Error::KeyWrongKind { .. } => "key_wrong_kind",
            Error::UnknownMessageType { .. } => "unknown_message_type",
            Error::MessageTooLong { .. } => "message_too_long",
            Error::PartitionOutOfRange { .. } => "partition_out_of_range",
            Error::CorruptLine { .. } => "corrupt_line",
            Error::WrongPayloadKind { .. } => "wrong_payload_kind",
            Error::TypedEncode { .. } => "typed_encode",
            Error::TypedDecode { .. } => "typed_decode",
            Error::BadPartitioner { .. } => "bad_partitioner",
            Error::SymlinkRefused { .. } => "symlink_refused",
            Error::ShortWrite { .. } => "short_write",
            Error::InvalidRegex { .. } => "invalid_regex",
            Error::TopicDeleted { .. } => "topic_deleted",
            Error::NotAFile { .. } => "not_a_file",
            Error::Group(g) => match g {
                GroupError::TopicMismatch { .. } => "group_topic_mismatch",
                GroupError::PartitionMismatch { .. } => "group_partition_mismatch",
                GroupError::NotAGroup { .. } => "not_a_group",
                GroupError::JoinFailed { .. } => "group_join_failed",
                GroupError::UnknownTopic { .. } => "group_unknown_topic",
                GroupError::NoSuchPartition { .. } => "partition_out_of_range",
            },
            Error::Io { .. } => "io",
        }
    }

    /// Whether this error refuses a message for what it is (its key, type,
    /// length or partition) rather than reporting a failure to write it:
    /// [`crate::Producer::send_batch`] writes nothing when it returns such an error.
    pub fn is_invalid_message(&self) -> bool {
        matches!(
            self,
            Error::KeyOutOfRange { .. }
                | Error::KeyTooLong { .. }
                | Error::KeyWrongKind { .. }
                | Error::UnknownMessageType { .. }
                | Error::MessageTooLong { .. }
                | Error::BadPartitioner { .. }
                | Error::TypedEncode { .. }
                | Error::WrongPayloadKind { .. }
        )
    }

    pub(crate) fn io(op: &'static str, path: impl Into<PathBuf>, cause: std::io::Error) -> Self {
        Error::Io { op, path: path.into(), cause }
    }
}

/// Consumer-group failures: the group layer's own conditions, carried by
/// [`Error::Group`]. Defined here, in the leaf module every layer imports,
/// so that the one [`Error`] can carry them without the base importing the
/// group layer; the group layer re-exports it as `group::GroupError`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GroupError {
    #[error("group {group:?} belongs to topic {recorded:?}, not {requested:?}: use another group name for {requested:?}")]
    TopicMismatch { group: String, recorded: String, requested: String },
    #[error("group {group:?} covers {group_partitions} partitions but topic {topic:?} has {topic_partitions}: it was made for another topic; use another group name")]
    PartitionMismatch { group: String, topic: String, group_partitions: u32, topic_partitions: u32 },
    #[error("topic {topic:?} is not a consumer group log (its message types are not the seven group records)")]
    NotAGroup { topic: String },
    #[error("could not join group {group:?} after {attempts} attempts (other members kept taking the same id): retry")]
    JoinFailed { group: String, attempts: u32 },
    #[error("group {group:?} is not bound to a topic and no topic matches its {partitions} partitions: pass the topic explicitly")]
    UnknownTopic { group: String, partitions: u32 },
    #[error("partition {partition} is not in group {group:?}'s topic {topic:?}, which has {partitions}")]
    NoSuchPartition { group: String, topic: String, partition: u32, partitions: u32 },
}

/// The engine's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
