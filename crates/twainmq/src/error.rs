//! The engine's error type: one enum, structured fields, messages that say what to do.

mod group;
mod name;
mod transfer;

use std::path::PathBuf;

pub use group::GroupError;
pub use name::NameProblem;
pub use transfer::TransferError;

use crate::format::key::KeyType;

/// Every way an engine operation can fail.
///
/// Variants carry the topic, partition, offset or path involved so callers
/// can branch on them and show a precise message.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A topic name (given to create, open or delete a topic) breaks the naming rules.
    #[error("invalid topic name {name:?}: {problem}. Use 1-200 characters from A-Z a-z 0-9 _ . - (not \".\" or \"..\", not starting with \"--group--\", not ending in \".twc\")")]
    InvalidTopicName {
        /// The name as given.
        name: String,
        /// Which rule it breaks.
        problem: NameProblem,
    },

    /// A consumer group name breaks the naming rules (those of topic names, and
    /// at most [`crate::limits::MAX_GROUP_NAME`] bytes).
    #[error("invalid consumer group name {name:?}: {problem}. Use 1-191 characters from A-Z a-z 0-9 _ . -")]
    InvalidGroupName {
        /// The name as given.
        name: String,
        /// Which rule it breaks.
        problem: NameProblem,
    },

    /// Creating a topic with a `charN` key type whose N is 0 or over
    /// [`crate::limits::MAX_CHAR_WIDTH`].
    #[error("invalid key type {key_type:?}: use u8, u16, u32, u64 or charN with N from 1 to {max_char} (0.2.3's key types), or text, bytes or any (free keys: 0.2.3 cannot open such a topic)")]
    InvalidKeyType {
        /// The key type as given, e.g. `char0`.
        key_type: String,
        /// The largest N accepted.
        max_char: u16,
    },

    /// Creating a topic with 0 partitions or more than [`crate::limits::MAX_PARTITIONS`].
    #[error("invalid partition count {partitions}: a topic needs from 1 to {max} partitions")]
    InvalidPartitionCount {
        /// The count asked for.
        partitions: u64,
        /// The largest count accepted.
        max: u32,
    },

    /// Creating a topic with a message type name that is empty, over 200 bytes,
    /// contains a control character or comma, has surrounding white space or
    /// is listed twice; or with more than 65,535 types.
    #[error("invalid message type name {name:?}: {reason}")]
    InvalidMessageTypeName {
        /// The type name (empty when the list as a whole is refused).
        name: String,
        /// Which rule it breaks.
        reason: &'static str,
    },

    /// Creating a topic with an option out of range (a large-message limit
    /// past 64 MiB, large messages with keys too wide for their parts).
    #[error("invalid {option}: {reason}")]
    InvalidTopicOption {
        /// The option.
        option: &'static str,
        /// What is wrong with it.
        reason: String,
    },

    /// Opening a store whose folder does not exist (or is not a folder).
    #[error("there is no folder at {path}: create it first, or check the path (a store is a folder)")]
    StoreNotFound {
        /// The store's path as given.
        path: PathBuf,
    },

    /// Opening a store at a path that holds something other than a folder
    /// (a file, a FIFO, ...): not missing, so nothing is to be created there.
    #[error("{path} is {found}, not a folder: a store is a folder; give the store's folder")]
    StoreNotAFolder {
        /// The store's path as given.
        path: PathBuf,
        /// What is there: "a regular file", "a FIFO", ...
        found: &'static str,
    },

    /// [`Store::open_existing`](crate::Store::open_existing) of a folder that is empty: a store
    /// is made there only on request ([`Store::open_or_create`](crate::Store::open_or_create)).
    #[error("{path} is an empty folder, not a TwainMQ store yet: create a store there to start one, or pick the folder that holds the .twc topic files")]
    EmptyFolder {
        /// The folder as given.
        path: PathBuf,
    },

    /// [`Store::open_existing`](crate::Store::open_existing) of a folder that holds files but no
    /// `*.twc` (no topic and no consumer group).
    #[error(
        "{path} holds no TwainMQ store (no .twc topic or group files){}: pick the folder that holds the .twc files",
        hint_stores(stores)
    )]
    NotAStore {
        /// The folder as given.
        path: PathBuf,
        /// Its sub-folders that do hold a store (at most a few), as likely meant instead.
        stores: Vec<PathBuf>,
    },

    /// Creating a topic whose config file or folder already exists (0.2.3 also
    /// takes a lone folder for an existing topic).
    #[error("topic {topic:?} already exists in {root}: pick another name, or delete it first")]
    TopicExists {
        /// The topic's name.
        topic: String,
        /// The store's folder.
        root: PathBuf,
    },

    /// Using a topic that has no config file `<topic>.twc`.
    #[error("topic {topic:?} does not exist: no config file at {path}. Create it first (twainmq topics create {topic})")]
    TopicNotFound {
        /// The topic's name.
        topic: String,
        /// The config file's path that was looked for.
        path: PathBuf,
    },

    /// Writing to a topic whose config is there but whose folder is not (deleted
    /// by hand, or a delete that stopped half-way): its partition files are gone.
    #[error("topic {topic:?} has its config but no folder {path}: its messages are gone. Delete the topic (twainmq topics delete {topic} --yes) and create it again, or make the folder again (mkdir) to go on writing from offset 0")]
    TopicFolderMissing {
        /// The topic's name.
        topic: String,
        /// The folder looked for.
        path: PathBuf,
    },

    /// Describing, resetting or deleting a consumer group that has no log
    /// (no config file `--group--<group>.twc`).
    #[error("consumer group {group:?} does not exist: no config file at {path}")]
    GroupNotFound {
        /// The group's name.
        group: String,
        /// The group log's config file path that was looked for.
        path: PathBuf,
    },

    /// A topic's config file cannot be read as one: not JSON, a key missing or
    /// out of range, or not a regular file.
    #[error("the config file {path} of topic {topic:?} is corrupt: {reason}. Restore it from a backup, or rewrite it as {{\"key_width\": 2, \"partitions\": 1, \"message_types\": {{}}}} with the topic's real values")]
    CorruptConfig {
        /// The topic's name.
        topic: String,
        /// The config file's path.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },

    /// Sending an integer key larger than the topic's `uN` key type holds.
    #[error("key {key} does not fit key type {key_type} of topic {topic:?}: the largest {key_type} key is {max}")]
    KeyOutOfRange {
        /// The topic's name.
        topic: String,
        /// The key, as text.
        key: String,
        /// The topic's key type.
        key_type: KeyType,
        /// The largest key of that type.
        max: u64,
    },

    /// Sending a string key longer, in UTF-8, than the topic's `charN` key type.
    #[error("key {key:?} is {bytes} bytes in UTF-8, too long for key type {key_type} of topic {topic:?} (at most {max} bytes)")]
    KeyTooLong {
        /// The topic's name.
        topic: String,
        /// The key.
        key: String,
        /// The topic's key type.
        key_type: KeyType,
        /// The key's length in UTF-8 bytes.
        bytes: usize,
        /// N, the most bytes a key of that type holds.
        max: usize,
    },

    /// A key of the wrong kind for the topic: a string for integer keys, text
    /// that is not a whole number, or a string key ending in NUL (NUL pads
    /// keys on disk, so it would not read back).
    #[error("key {key:?} is not valid for key type {key_type} of topic {topic:?}: {reason}")]
    KeyWrongKind {
        /// The topic's name.
        topic: String,
        /// The key, as text.
        key: String,
        /// The topic's key type.
        key_type: KeyType,
        /// What is wrong with the key.
        reason: &'static str,
    },

    /// Sending a typed message whose type name the topic's config does not declare.
    #[error("message type {name:?} is not declared by topic {topic:?} (declared: {known:?}). Create the topic with --message-types {name}, or send one of the declared types")]
    UnknownMessageType {
        /// The topic's name.
        topic: String,
        /// The type name sent.
        name: String,
        /// The type names the topic declares, in config order.
        known: Vec<String>,
    },

    /// Sending a message whose encoded line would pass 0.2.3's line limit
    /// ([`crate::limits::MAX_LINE_BYTES`], newline included).
    #[error(
        "message is {len} bytes as a line, over the {max}-byte limit of topic {topic:?}: shorten it or split it into several messages"
    )]
    MessageTooLong {
        /// The topic's name.
        topic: String,
        /// The encoded line's length in bytes, newline included.
        len: usize,
        /// The limit in bytes.
        max: usize,
    },

    /// A message larger than its topic's `max_message_bytes` (a topic with
    /// large messages: the format's next version).
    #[error("message is {len} bytes, over the {max}-byte limit of topic {topic:?} (its max_message_bytes): shorten it, split it, or send it to a topic made with a larger --max-message-bytes (at most 64 MiB)")]
    MessageTooLarge {
        /// The topic.
        topic: String,
        /// The payload's bytes (text's UTF-8, the bytes, a typed message's JSON).
        len: u64,
        /// The topic's limit.
        max: u64,
    },

    /// A topic whose config uses a feature of a newer TwainMQ than this one
    /// (an unknown member of its `"extensions"`): nothing of it is read or written.
    #[error("topic {topic:?} ({path}) uses {feature}, which this version of TwainMQ does not know: it was made by a newer one. Nothing of it is read or written here; use a newer twainmq")]
    NewerFormat {
        /// The topic.
        topic: String,
        /// Its config file.
        path: PathBuf,
        /// What is unknown.
        feature: String,
    },

    /// Reading a partition the topic does not have, or seeking a consumer in a
    /// partition it does not read.
    #[error("partition {partition} does not exist in topic {topic:?}, which has {partitions} (0 to {last})", last = partitions.saturating_sub(1))]
    PartitionOutOfRange {
        /// The topic's name.
        topic: String,
        /// The partition asked for.
        partition: u32,
        /// How many partitions the topic has (for a consumer's seek: how many
        /// it reads).
        partitions: u32,
    },

    /// A complete line of a partition file is not a valid message. The reader
    /// has already moved past it: polling again returns the next line.
    #[error("topic {topic:?}, partition {partition}, offset {offset} ({path}, line {line}): {problem}. The line is skipped; run `twainmq check` to list every damaged line")]
    CorruptLine {
        /// The topic's name.
        topic: String,
        /// The partition.
        partition: u32,
        /// The offset the line occupies.
        offset: u64,
        /// The partition file's path.
        path: PathBuf,
        /// The line's number in that file, from 1.
        line: u64,
        /// What is wrong with the line.
        problem: crate::format::line::Corrupt,
    },

    /// [`crate::Message::decode`] on a message that is not a typed message of
    /// the type asked for.
    #[error("message at topic {topic:?}, partition {partition}, offset {offset} is a {found}, not {expected}")]
    WrongPayloadKind {
        /// The topic's name.
        topic: String,
        /// The message's partition.
        partition: u32,
        /// The message's offset.
        offset: u64,
        /// What was asked for, e.g. `typed message Event`.
        expected: String,
        /// What the message is, e.g. `str` or `typed message Order`.
        found: String,
    },

    /// A value sent as a typed message cannot be written as JSON (e.g. a map
    /// with non-string keys).
    #[error("typed message {name:?} could not be encoded as JSON: {cause}")]
    TypedEncode {
        /// The message type's name.
        name: String,
        /// `serde_json`'s error.
        cause: serde_json::Error,
    },

    /// A typed message's fields do not deserialize into the Rust type asked for.
    #[error("message at topic {topic:?}, partition {partition}, offset {offset} could not be decoded as {name}: {cause}")]
    TypedDecode {
        /// The topic's name.
        topic: String,
        /// The message's partition.
        partition: u32,
        /// The message's offset.
        offset: u64,
        /// The message type's name.
        name: String,
        /// `serde_json`'s error.
        cause: serde_json::Error,
    },

    /// A custom partitioner returned a partition the topic does not have.
    #[error("partitioner returned partition {partition} for topic {topic:?}, which has {partitions}: a partitioner must return 0 to {last}", last = partitions.saturating_sub(1))]
    BadPartitioner {
        /// The topic's name.
        topic: String,
        /// The partition it returned.
        partition: u32,
        /// How many partitions the topic has.
        partitions: u32,
    },

    /// A topic folder, config or partition file is a symbolic link: the engine
    /// never reads, writes or deletes through one (it may lead out of the store).
    #[error("{path} is a symbolic link: TwainMQ never deletes or writes through links. Remove the link by hand if that is what you want")]
    SymlinkRefused {
        /// The link's path.
        path: PathBuf,
    },

    /// An append wrote only part of its bytes (typically a full disk). The
    /// part is cut off again when nothing was appended after it (`taken_back`):
    /// nothing of the write is left. Otherwise the next append ends the
    /// half-written line first, so it is not glued to.
    #[error("short write to {path}: {written} of {len} bytes{}. The disk may be full; free space and retry", if *taken_back { ", taken back: nothing of it is in the file" } else { "" })]
    ShortWrite {
        /// The partition file's path.
        path: PathBuf,
        /// Bytes written.
        written: usize,
        /// Bytes that should have been written.
        len: usize,
        /// Whether the bytes written were cut off again.
        taken_back: bool,
    },

    /// A search's regular expression does not compile (or is too large).
    #[error("invalid regular expression {pattern:?}: {reason}")]
    InvalidRegex {
        /// The pattern as given.
        pattern: String,
        /// The `regex` crate's explanation.
        reason: String,
    },

    /// A message filter (a CEL expression) does not compile: a syntax error,
    /// an unknown variable or function, types that can never match, a
    /// constant part that always fails, or a filter over the limits.
    #[error("invalid filter at {line}:{column}: {reason}. Filters are CEL expressions over key, partition, offset, timestamp, kind, class, text, value and size, e.g. value.country == \"DE\" && value.amount > 100")]
    InvalidFilter {
        /// The filter as given.
        expr: String,
        /// The line of the problem, from 1.
        line: u32,
        /// Its column, from 1, in characters.
        column: u32,
        /// What is wrong there.
        reason: String,
    },

    /// A topic was deleted, or deleted and made again, by another process
    /// while a producer, reader or group member used it; that handle stops
    /// for good (open a new one for the topic as it is now).
    #[error("topic {topic:?} was deleted or replaced by another process while in use ({path} is no longer its file): nothing more is written to or read from the old files. Start again to use the topic as it is now")]
    TopicDeleted {
        /// The topic's name.
        topic: String,
        /// The file or folder found to be no longer the topic's.
        path: PathBuf,
    },

    /// A path where a regular file (or a topic folder) belongs is a FIFO,
    /// socket, device or folder: the engine never opens one.
    #[error("{path} is not a regular file ({kind}): TwainMQ reads and writes only regular files. Move it out of the store")]
    NotAFile {
        /// The entry's path.
        path: PathBuf,
        /// What it is instead, e.g. `a FIFO`, `a folder`.
        kind: &'static str,
    },

    /// A producer would start partition `partition`'s file for `day`, but the
    /// topic folder already holds an entry 0.2.3 takes for that file (a
    /// folder, a link, a name whose offset is out of range, a stray copy such
    /// as `.tmf.bak`): a second file for one day stops 0.2.3's producers and
    /// `consumer(start_from="now")`. Nothing was written.
    #[error("{path} is in the way of partition {partition}'s file for {day}: 0.2.3 takes it for that day's file, and a second file for one day stops 0.2.3's producers and consumers (\"Multiple message files for the same chunk\"). Nothing was written: move it out of the topic folder, then write again")]
    DayEntryInTheWay {
        /// The entry in the way.
        path: PathBuf,
        /// The partition.
        partition: u32,
        /// The UTC day, `YYYYMMDD`.
        day: String,
    },

    /// Another process holds a file open in a way that keeps it from being
    /// deleted or replaced (on Windows: opened without sharing delete, as
    /// 0.2.3 and Python's `open()` do). Retried for a while first; nothing was
    /// changed.
    #[error("could not {op} {path}: another process has it open and does not let it be deleted or replaced (on Windows, 0.2.3 producers and consumers hold their files so). Nothing was changed: stop that process or wait until it moves on, then try again")]
    FileInUse {
        /// What was being done, as a verb: `delete`, `replace`, ...
        op: &'static str,
        /// The file held.
        path: PathBuf,
    },

    /// A consumer-group failure: see [`GroupError`].
    #[error(transparent)]
    Group(#[from] GroupError),

    /// A message timestamp given to keep (an import or copy with
    /// `--keep-timestamps`) that no reader could show.
    #[error("timestamp {timestamp} for topic {topic:?} cannot be written: {problem}")]
    BadTimestamp {
        /// The topic written to.
        topic: String,
        /// The timestamp given (NaN when the count of timestamps was wrong).
        timestamp: f64,
        /// What a timestamp must be.
        problem: &'static str,
    },

    /// An export, import, copy or retention failure: see [`TransferError`].
    #[error(transparent)]
    Transfer(#[from] TransferError),

    /// A file-system operation failed (not found, permission denied, disk full, ...).
    // The cause is part of the message (so the app shows it) and deliberately not
    // a chained `source`, which the CLI would print a second time.
    #[error("could not {op} {path}: {cause}")]
    Io {
        /// What was being done, as a verb: `read`, `write`, `append to`, `list`, ...
        op: &'static str,
        /// The file or folder it was done to.
        path: PathBuf,
        /// The operating system's error.
        cause: std::io::Error,
    },
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
            Error::InvalidTopicOption { .. } => "invalid_topic_option",
            Error::StoreNotFound { .. } => "store_not_found",
            Error::StoreNotAFolder { .. } => "store_not_a_folder",
            Error::EmptyFolder { .. } => "empty_folder",
            Error::NotAStore { .. } => "not_a_store",
            Error::TopicExists { .. } => "topic_exists",
            Error::TopicNotFound { .. } => "topic_not_found",
            Error::GroupNotFound { .. } => "group_not_found",
            Error::CorruptConfig { .. } => "corrupt_config",
            Error::KeyOutOfRange { .. } => "key_out_of_range",
            Error::KeyTooLong { .. } => "key_too_long",
            Error::KeyWrongKind { .. } => "key_wrong_kind",
            Error::UnknownMessageType { .. } => "unknown_message_type",
            Error::MessageTooLong { .. } => "message_too_long",
            Error::MessageTooLarge { .. } => "message_too_large",
            Error::NewerFormat { .. } => "newer_format",
            Error::PartitionOutOfRange { .. } => "partition_out_of_range",
            Error::CorruptLine { .. } => "corrupt_line",
            Error::WrongPayloadKind { .. } => "wrong_payload_kind",
            Error::TypedEncode { .. } => "typed_encode",
            Error::TypedDecode { .. } => "typed_decode",
            Error::BadPartitioner { .. } => "bad_partitioner",
            Error::SymlinkRefused { .. } => "symlink_refused",
            Error::ShortWrite { .. } => "short_write",
            Error::InvalidRegex { .. } => "invalid_regex",
            Error::InvalidFilter { .. } => "invalid_filter",
            Error::TopicDeleted { .. } => "topic_deleted",
            Error::NotAFile { .. } => "not_a_file",
            Error::FileInUse { .. } => "file_in_use",
            Error::TopicFolderMissing { .. } => "topic_folder_missing",
            Error::DayEntryInTheWay { .. } => "day_entry_in_the_way",
            Error::Group(g) => match g {
                GroupError::TopicMismatch { .. } => "group_topic_mismatch",
                GroupError::PartitionMismatch { .. } => "group_partition_mismatch",
                GroupError::NotAGroup { .. } => "not_a_group",
                GroupError::JoinFailed { .. } => "group_join_failed",
                GroupError::UnknownTopic { .. } => "group_unknown_topic",
                GroupError::NoSuchPartition { .. } => "partition_out_of_range",
                GroupError::InvalidOffsets { .. } => "invalid_offsets",
                GroupError::OtherTopic { .. } => "group_other_topic",
                GroupError::InvalidSpan { .. } => "invalid_span",
                GroupError::InvalidRecordedTopic { .. } => "invalid_recorded_topic",
            },
            Error::BadTimestamp { .. } => "bad_timestamp",
            Error::Transfer(t) => t.code(),
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
                | Error::MessageTooLarge { .. }
                | Error::BadPartitioner { .. }
                | Error::TypedEncode { .. }
                | Error::WrongPayloadKind { .. }
                | Error::BadTimestamp { .. }
        )
    }

    pub(crate) fn io(op: &'static str, path: impl Into<PathBuf>, cause: std::io::Error) -> Self {
        Error::Io { op, path: path.into(), cause }
    }
}

/// ", such as …/sub" naming the sub-folders that hold a store, or nothing.
fn hint_stores(stores: &[PathBuf]) -> String {
    if stores.is_empty() {
        return String::new();
    }
    let names: Vec<String> = stores.iter().map(|p| p.display().to_string()).collect();
    format!(
        "; its sub-folder{} {} {}",
        if names.len() == 1 { "" } else { "s" },
        names.join(", "),
        if names.len() == 1 { "holds one" } else { "hold stores" }
    )
}

/// The engine's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
