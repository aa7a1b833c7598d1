//! The consumer-group conditions [`Error::Group`](crate::Error::Group) carries.

/// Consumer-group failures: the group layer's own conditions, carried by
/// [`Error::Group`](crate::Error::Group). Defined in the error module, the leaf
/// every layer imports, so that the one [`Error`](crate::Error) can carry them
/// without the base importing the group layer; the group layer re-exports it
/// as `group::GroupError`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GroupError {
    /// Joining a group (or creating it) for a topic other than the one its
    /// config records.
    #[error("group {group:?} belongs to topic {recorded:?}, not {requested:?}: use another group name for {requested:?}")]
    TopicMismatch {
        /// The group's name.
        group: String,
        /// The topic recorded in the group's config.
        recorded: String,
        /// The topic asked for.
        requested: String,
    },
    /// Joining a group whose log names more partitions than the topic has: it
    /// was made for another topic (typically by 0.2.3, which records none).
    #[error("group {group:?} covers {group_partitions} partitions but topic {topic:?} has {topic_partitions}: it was made for another topic; use another group name")]
    PartitionMismatch {
        /// The group's name.
        group: String,
        /// The topic asked for.
        topic: String,
        /// Partitions the group's log covers (its highest partition plus 1).
        group_partitions: u32,
        /// Partitions the topic has.
        topic_partitions: u32,
    },
    /// A `--group--` topic whose config does not declare the group record
    /// types, so it is not a group log.
    #[error("topic {topic:?} is not a consumer group log (its message types are not the seven group records)")]
    NotAGroup {
        /// The topic's name, `--group--<group>`.
        topic: String,
    },
    /// Joining a group failed because other members kept taking the same id
    /// (0.2.3 gives up after 3 attempts too).
    #[error("could not join group {group:?} after {attempts} attempts (other members kept taking the same id): retry")]
    JoinFailed {
        /// The group's name.
        group: String,
        /// Attempts made.
        attempts: u32,
    },
    /// A group whose config records no topic (0.2.3 made it) and whose
    /// partition count matches no single topic: the caller must name the topic.
    #[error("group {group:?} is not bound to a topic and no topic matches its {partitions} partitions: pass the topic explicitly")]
    UnknownTopic {
        /// The group's name.
        group: String,
        /// Partitions the group's log covers (0 when its log tells none).
        partitions: u32,
    },
    /// A group reset names a partition its topic does not have.
    #[error("partition {partition} is not in group {group:?}'s topic {topic:?}, which has {partitions}")]
    NoSuchPartition {
        /// The group's name.
        group: String,
        /// The group's topic.
        topic: String,
        /// The partition named.
        partition: u32,
        /// How many partitions the topic has.
        partitions: u32,
    },
    /// An offsets document (`groups import`, a reset from a file) that is not
    /// what `groups export` writes.
    #[error("the offsets document is not usable: {problem}. It must be JSON as `twainmq groups export` writes it: {{\"offsets\": {{\"<partition>\": <offset>, ...}}}}")]
    InvalidOffsets {
        /// What is wrong with it.
        problem: String,
    },
    /// A reset to another group's offsets where that group reads another topic.
    #[error("group {other:?} reads topic {other_topic:?}, not {topic:?} (the topic of {group:?}): its offsets do not apply; copy them from a group of {topic:?}")]
    OtherTopic {
        /// The group being reset.
        group: String,
        /// Its topic.
        topic: String,
        /// The group whose offsets were asked for.
        other: String,
        /// The topic that group reads.
        other_topic: String,
    },
    /// A lag history asked for an empty, reversed or unbounded span, or for
    /// no points or too many.
    #[error("a lag history needs a span from {from} to {to} (UNIX seconds, finite, from before to) and 1 to {max} points, not {buckets}: pass a span such as the last hour")]
    InvalidSpan {
        /// The span's start asked for.
        from: f64,
        /// Its end.
        to: f64,
        /// Points asked for.
        buckets: u32,
        /// Most points a history gives.
        max: u32,
    },
    /// A group whose config records a topic name that is not valid (a config
    /// edited by hand, or a hostile store): nothing is read through it.
    #[error("group {group:?} records topic {topic:?}, which is not a valid topic name ({problem}): its config was not written by twainmq; delete the group or fix its \"topic\" key")]
    InvalidRecordedTopic {
        /// The group's name.
        group: String,
        /// The topic its config records.
        topic: String,
        /// What is wrong with the name.
        problem: String,
    },
}
