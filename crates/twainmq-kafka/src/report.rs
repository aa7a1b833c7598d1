//! What a mirror tells while it runs and when it ends.

use serde::Serialize;

/// Which way a mirror goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// From the store to the cluster.
    ToKafka,
    /// From the cluster into the store.
    FromKafka,
}

/// A group's committed offsets as they went across.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct GroupSync {
    /// The group (the same name on both sides).
    pub group: String,
    /// `[partition, source offset, target offset]` of each commit written.
    pub written: Vec<(u32, i64, i64)>,
    /// Why nothing (or not everything) was written, when so.
    pub note: Option<String>,
}

/// One topic's mirror.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct TopicReport {
    /// The source topic.
    pub source: String,
    /// The target topic.
    pub target: String,
    /// Its partitions (the same on both sides).
    pub partitions: u32,
    /// Whether the target topic was created by this run.
    pub created: bool,
    /// Where each source partition started this run (the next offset to mirror,
    /// found from the target).
    pub resumed_from: Vec<u64>,
    /// Records written to the target this run.
    pub mirrored: u64,
    /// Records not written because they came from the target in the first
    /// place (two-way mirroring does not loop).
    pub skipped_from_target: u64,
    /// Key and value bytes written.
    pub bytes: u64,
    /// Consumer groups whose offsets went across.
    pub groups: Vec<GroupSync>,
    /// Times the cluster failed and the mirror started again (`--follow`).
    pub retries: u64,
}

/// What `mirror` did.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Summary {
    /// Which way.
    pub direction: Direction,
    /// The cluster's bootstrap address.
    pub broker: String,
    /// Per topic.
    pub topics: Vec<TopicReport>,
    /// Seconds from start to end.
    pub seconds: f64,
    /// Whether it was stopped (Ctrl-C, SIGTERM) rather than done.
    pub interrupted: bool,
}

/// What a running mirror reports.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Progress {
    /// A topic's mirror started: where each partition resumes.
    Started {
        /// The source topic.
        topic: String,
        /// The next source offset of each partition.
        from: Vec<u64>,
        /// Whether the target was created.
        created: bool,
    },
    /// Records written so far for a topic, and how many the source had left
    /// when last looked at (`None` while following).
    Mirrored {
        /// The source topic.
        topic: String,
        /// Written this run.
        mirrored: u64,
        /// Left to write, when known.
        left: Option<u64>,
    },
    /// The cluster failed; the mirror starts again after a pause (`--follow`).
    Retrying {
        /// The source topic.
        topic: String,
        /// Why.
        reason: String,
        /// After how long.
        after_secs: f64,
    },
    /// Waiting for a mirror that stopped to let go of the target.
    Waiting {
        /// The target.
        target: String,
        /// For what.
        reason: String,
    },
}
