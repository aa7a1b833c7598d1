//! The export, import, copy and retention conditions [`Error::Transfer`](crate::Error::Transfer) carries.

/// Failures of moving messages in and out of a store (export, import, copy)
/// and of retention, carried by [`Error::Transfer`](crate::Error::Transfer).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransferError {
    /// An input line (of a JSONL or CSV file being imported) that is not a
    /// message of the target topic. Lines are counted from 1; for CSV, the
    /// header is line 1.
    #[error("line {line}: {problem}")]
    BadLine {
        /// The line's number, from 1.
        line: u64,
        /// What is wrong with it and what a good line looks like.
        problem: String,
    },
    /// An import stopped before the end of its input: the messages of every
    /// input line before `line` are in the topic and, of the lines from `line`
    /// on, those of `landed_after` only (a batch that failed in some
    /// partitions after others had taken their part of it, where the file
    /// system could not reserve the batch's space first); `written` in all.
    #[error(
        "import stopped at input line {line}: {cause}. {} written: those of every line before it{}",
        messages(*written),
        landed_after_text(*line, landed_after)
    )]
    ImportStopped {
        /// The first input line whose message is not in the topic: every line
        /// before it is.
        line: u64,
        /// Messages of the input now in the topic.
        written: u64,
        /// Input lines after `line` whose messages are in the topic anyway, in order.
        landed_after: Vec<u64>,
        /// Of `written`, how many each partition got, by partition.
        partitions: Vec<u64>,
        /// Why it stopped.
        cause: Box<crate::error::Error>,
    },
    /// A copy stopped before the end of its selection: `written` messages are
    /// in the target, in the order they were read.
    #[error("copy stopped with {} written to {target:?}: {cause}", messages(*written))]
    CopyStopped {
        /// The target topic.
        target: String,
        /// Messages now in the target.
        written: u64,
        /// Why it stopped.
        cause: Box<crate::error::Error>,
    },
    /// A copy whose target is the topic it reads: it would read its own writes.
    #[error("cannot copy topic {topic:?} into itself: copy into another topic (or another store)")]
    CopyIntoItself {
        /// The topic.
        topic: String,
    },
    /// A message read that the target topic cannot take as it is (a typed
    /// message whose class the source names none for, a key of another kind).
    #[error("message {partition}/{offset} of {topic:?} cannot be copied: {problem}")]
    Uncopyable {
        /// The source topic.
        topic: String,
        /// Where the message is.
        partition: u32,
        /// Its offset.
        offset: u64,
        /// Why.
        problem: String,
    },
    /// A copy between topics whose keys are of different kinds (integers and
    /// strings): keys are kept, so they must fit the target's kind.
    #[error("cannot copy topic {source_topic:?} ({source_type} keys) into {target_topic:?} ({target_type} keys): keys are kept, so both need integer keys or both string keys; create the target with --key-type {source_type}")]
    KeyTypesDiffer {
        /// The topic read.
        source_topic: String,
        /// Its key type.
        source_type: crate::format::key::KeyType,
        /// The target topic.
        target_topic: String,
        /// Its key type.
        target_type: crate::format::key::KeyType,
    },
    /// A retention setting that is not a positive number of days or bytes.
    #[error("invalid retention for topic {topic:?}: {problem}")]
    InvalidRetention {
        /// The topic.
        topic: String,
        /// What is wrong and what is accepted.
        problem: String,
    },
    /// Exporting to a store folder that already holds the topic, or to a file that is not a regular file.
    #[error("cannot export to {path}: {problem}")]
    BadTarget {
        /// The target path.
        path: std::path::PathBuf,
        /// What is wrong and what to do.
        problem: String,
    },
    /// An export that was written whole but could not be renamed over its
    /// target (on Windows: the target is open in another program, such as a
    /// spreadsheet): the finished export is kept where it is, and this says where.
    #[error("the export is complete in {finished}, but it could not take the place of {target}: {cause}. Close the program that has {target} open and rename the file yourself, or export again to another name")]
    ExportNotPlaced {
        /// The finished export.
        finished: std::path::PathBuf,
        /// The file it was meant to replace.
        target: std::path::PathBuf,
        /// Why the rename failed.
        cause: String,
    },
}

/// The end of [`TransferError::ImportStopped`]'s message: what to resume from.
fn landed_after_text(line: u64, after: &[u64]) -> String {
    if after.is_empty() {
        return format!(", and nothing from it on: resume from line {line}");
    }
    // Runs of consecutive lines, the first few.
    let mut runs: Vec<(u64, u64)> = Vec::new();
    for &l in after {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == l => *end = l,
            _ => runs.push((l, l)),
        }
    }
    let shown: Vec<String> = runs.iter().take(8).map(|(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") }).collect();
    let more = if runs.len() > 8 { ", ... (--json lists them all)" } else { "" };
    format!(
        ", and of {} lines after it that landed anyway (lines {}{more}): resuming from line {line} writes those again, so leave them out of the rest",
        after.len(),
        shown.join(", ")
    )
}

impl TransferError {
    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            TransferError::BadLine { .. } => "bad_input_line",
            TransferError::ImportStopped { .. } => "import_stopped",
            TransferError::CopyStopped { .. } => "copy_stopped",
            TransferError::CopyIntoItself { .. } => "copy_into_itself",
            TransferError::Uncopyable { .. } => "uncopyable_message",
            TransferError::KeyTypesDiffer { .. } => "key_types_differ",
            TransferError::InvalidRetention { .. } => "invalid_retention",
            TransferError::BadTarget { .. } => "bad_export_target",
            TransferError::ExportNotPlaced { .. } => "export_not_placed",
        }
    }
}

/// `n` messages, in words: "1 message", "2 messages".
fn messages(n: u64) -> String {
    if n == 1 {
        "1 message".to_string()
    } else {
        format!("{n} messages")
    }
}
