//! The bridge's errors: one enum, structured fields, messages that say what
//! went wrong, where, and what to do.

use std::path::PathBuf;

/// Every way a mirror can fail.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The store side failed (names, configs, reads, writes).
    #[error(transparent)]
    Store(#[from] twainmq::Error),

    /// A `kafka://` address or a security setting that cannot be used.
    #[error("{what}: {problem}")]
    Config {
        /// The setting.
        what: String,
        /// What is wrong with it and what to give instead.
        problem: String,
    },

    /// The cluster could not be reached, or answered with an error.
    #[error("Kafka at {broker}: {op} failed: {cause}{}", hint_text(.hint))]
    Kafka {
        /// The bootstrap address.
        broker: String,
        /// What was being done (`connect`, `create topic t`, `produce to t/0`, ...).
        op: String,
        /// The client's or broker's error.
        cause: String,
        /// Whether trying again later may succeed (a broker down or restarting).
        retriable: bool,
        /// What to do about it, when the error says.
        hint: Option<&'static str>,
    },

    /// A consumer group changed (reset, deleted) while it has members.
    #[error("consumer group {group} has {members} member{} now: Kafka changes a group's offsets or deletes it only while no consumer is in it (a live one would overwrite a reset with its next commit). Stop its consumers, wait for their session to end, and try again", if *.members == 1 { "" } else { "s" })]
    GroupBusy {
        /// The group.
        group: String,
        /// How many members it has.
        members: usize,
    },

    /// A consumer group the cluster does not have.
    #[error("{place} has no consumer group {group:?}")]
    GroupMissing {
        /// `Kafka at HOST:PORT`.
        place: String,
        /// The group.
        group: String,
    },

    /// A topic to mirror from does not exist.
    #[error("{place} has no topic {topic:?}")]
    TopicMissing {
        /// `the store DIR` or `Kafka at HOST:PORT`.
        place: String,
        /// The topic.
        topic: String,
    },

    /// The target topic exists with another partition count: partition i goes to
    /// partition i, so the counts must be equal.
    #[error("{source_name} has {source_partitions} partitions but {target_name} has {target_partitions}: a mirror takes partition i to partition i, so both need the same count (mirror into a new topic with --as NAME, or recreate the target with {source_partitions})")]
    PartitionMismatch {
        /// The source topic, with its place.
        source_name: String,
        /// Its partition count.
        source_partitions: u32,
        /// The target topic, with its place.
        target_name: String,
        /// Its partition count.
        target_partitions: u32,
    },

    /// A record or message that the target topic cannot hold as it is.
    #[error("{place} topic {topic:?} partition {partition} offset {offset} cannot be mirrored: {reason}")]
    Unfit {
        /// Where the record is (`Kafka at HOST:PORT`, `the store DIR`).
        place: String,
        /// Its topic.
        topic: String,
        /// Its partition.
        partition: u32,
        /// Its offset.
        offset: u64,
        /// What does not fit, and what would take it.
        reason: String,
    },

    /// Another mirror writes to the same target.
    #[error("{target} already has a mirror writing to it ({how}): two mirrors on one target would write records twice. Stop the other one first")]
    TargetBusy {
        /// The target topic, with its place.
        target: String,
        /// How that was seen.
        how: String,
    },

    /// The target changed under the mirror in a way it cannot account for.
    #[error("{target}: {problem}")]
    TargetMoved {
        /// The target topic, with its place.
        target: String,
        /// What was seen.
        problem: String,
    },

    /// The mirror's journal in the store could not be read or written.
    #[error("the mirror journal {}: {cause}", path.display())]
    Journal {
        /// The file.
        path: PathBuf,
        /// The I/O or parse error.
        cause: std::io::Error,
    },
}

fn hint_text(hint: &Option<&'static str>) -> String {
    hint.map(|h| format!(" ({h})")).unwrap_or_default()
}

impl Error {
    pub(crate) fn journal(path: &std::path::Path, cause: std::io::Error) -> Error {
        Error::Journal { path: path.to_path_buf(), cause }
    }

    /// Whether trying again later may succeed: the cluster was unreachable,
    /// restarting or slow. A `--follow` mirror retries these with back-off;
    /// everything else stops it.
    pub fn is_retriable(&self) -> bool {
        matches!(self, Error::Kafka { retriable: true, .. })
    }

    /// A stable code for scripts (`--json`).
    pub fn code(&self) -> &'static str {
        match self {
            Error::Store(e) => e.code(),
            Error::Config { .. } => "config",
            Error::Kafka { .. } => "kafka",
            Error::TopicMissing { .. } => "topic_missing",
            Error::PartitionMismatch { .. } => "partition_mismatch",
            Error::Unfit { .. } => "unfit_record",
            Error::TargetBusy { .. } => "target_busy",
            Error::TargetMoved { .. } => "target_moved",
            Error::Journal { .. } => "journal",
            Error::GroupBusy { .. } => "group_busy",
            Error::GroupMissing { .. } => "group_missing",
        }
    }
}

/// The bridge's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
