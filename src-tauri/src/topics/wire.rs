//! The topics' wire types: a topic's summary (the sidebar's row), its
//! partitions and files, and what creating and deleting one take and say.
//! Each with the conversion from the engine's type beside it.

use serde::{Deserialize, Serialize};
use specta::Type;
use twainmq::{FileInfo, PartitionInfo, TopicDescription};

use crate::wire::{Bytes, Count, Incarnation, LineNo, Offset};

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct TopicSummary {
    pub name: String,
    /// `u8`, `u16`, `u32`, `u64`, `charN`, or (the format's next version) `text`, `bytes` or
    /// `any`; empty when the config cannot be read.
    pub key_type: String,
    pub partitions: u32,
    pub message_types: Vec<String>,
    /// Large messages (the format's next version): the largest payload a message may have.
    /// Such a topic's offsets count lines, a large message taking several (its offset is its
    /// last's), so `messages` is then a count of lines.
    pub max_message_bytes: Option<Bytes>,
    /// Complete lines in the partition files: messages, damaged lines, and large messages' parts.
    pub messages: Count,
    pub bytes: Bytes,
    /// UNIX seconds of the latest partition file modification (a file time).
    pub last_write: Option<f64>,
    /// UNIX seconds of the newest message (its own timestamp): what "last write" shows.
    pub last_message: Option<f64>,
    /// Set when the topic's config cannot be read.
    pub error: Option<String>,
}

impl From<&TopicDescription> for TopicSummary {
    fn from(d: &TopicDescription) -> Self {
        TopicSummary {
            name: d.name.clone(),
            key_type: d.key_type.to_string(),
            partitions: d.partitions,
            message_types: d.message_types.keys().cloned().collect(),
            max_message_bytes: d.max_message_bytes.map(Bytes),
            messages: d.messages.into(),
            bytes: d.bytes.into(),
            last_write: d.last_write,
            last_message: d.last_message,
            error: None,
        }
    }
}

impl TopicSummary {
    /// A topic that cannot be described (its config is unreadable, say).
    pub fn unreadable(name: &str, e: &twainmq::Error) -> Self {
        TopicSummary {
            name: name.to_string(),
            key_type: String::new(),
            partitions: 0,
            message_types: Vec::new(),
            max_message_bytes: None,
            messages: Count(0),
            bytes: Bytes(0),
            last_write: None,
            last_message: None,
            error: Some(e.to_string()),
        }
    }
}

/// The engine's listing row, as the sidebar shows it: counts zero and the
/// reason in `error` when the config or the files cannot be read.
impl From<twainmq::TopicSummary> for TopicSummary {
    fn from(s: twainmq::TopicSummary) -> Self {
        let (totals, error) = match s.totals {
            Some(Ok(t)) => (Some(t), None),
            Some(Err(e)) => (None, Some(e)),
            None => (None, None),
        };
        match s.config {
            Ok(c) => TopicSummary {
                name: s.name,
                key_type: c.key_type.to_string(),
                partitions: c.partitions,
                message_types: c.message_types.iter().map(|(n, _)| n.clone()).collect(),
                max_message_bytes: c.max_message_bytes.map(Bytes),
                messages: Count(totals.map_or(0, |t| t.messages)),
                bytes: Bytes(totals.map_or(0, |t| t.bytes)),
                last_write: totals.and_then(|t| t.last_write),
                last_message: totals.and_then(|t| t.last_message),
                error,
            },
            Err(error) => TopicSummary {
                name: s.name,
                key_type: String::new(),
                partitions: 0,
                message_types: Vec::new(),
                max_message_bytes: None,
                messages: Count(0),
                bytes: Bytes(0),
                last_write: None,
                last_message: None,
                error: Some(error),
            },
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct FileDetail {
    pub name: String,
    pub day: String,
    pub first: Offset,
    pub lines: Count,
    pub partial_bytes: Bytes,
    pub bytes: Bytes,
    pub modified: Option<f64>,
}

impl From<&FileInfo> for FileDetail {
    fn from(f: &FileInfo) -> Self {
        FileDetail {
            name: f.name.clone(),
            day: f.day.clone(),
            first: f.first.into(),
            lines: f.lines.into(),
            partial_bytes: f.partial_bytes.into(),
            bytes: f.bytes.into(),
            modified: f.modified,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct PartitionDetail {
    pub partition: u32,
    pub start: Offset,
    pub end: Offset,
    pub bytes: Bytes,
    /// UNIX seconds of the newest message's timestamp (None: no message).
    pub last_message: Option<f64>,
    pub files: Vec<FileDetail>,
}

impl From<&PartitionInfo> for PartitionDetail {
    fn from(p: &PartitionInfo) -> Self {
        PartitionDetail {
            partition: p.partition,
            start: p.start.into(),
            end: p.end.into(),
            bytes: p.bytes.into(),
            last_message: p.last_message,
            files: p.files.iter().map(FileDetail::from).collect(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct TopicDetail {
    pub summary: TopicSummary,
    pub partitions: Vec<PartitionDetail>,
    pub unknown_files: Vec<String>,
    /// Which topic of this name this is: an opaque token of its folder and
    /// config file that changes when the topic is deleted and made again, or
    /// its folder deleted (by any process), never on appends.
    pub incarnation: Option<Incarnation>,
}

impl TopicDetail {
    pub fn new(d: &TopicDescription, incarnation: Option<Incarnation>) -> Self {
        TopicDetail {
            summary: TopicSummary::from(d),
            partitions: d.partition_details.iter().map(PartitionDetail::from).collect(),
            unknown_files: d.unknown_files.clone(),
            incarnation,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct NewTopic {
    pub name: String,
    /// `u8`, `u16`, `u32`, `u64`, `charN`, or the free key types of the format's next version
    /// (`text`, `bytes`, `any`), which twainmq 0.2.3 cannot open.
    pub key_type: String,
    pub partitions: u32,
    pub message_types: Vec<String>,
    /// Large messages of up to this many bytes (the format's next version, which 0.2.3 cannot
    /// open; at most `MAX_MESSAGE_BYTES_LIMIT`); `None`: one line of at most 4,096 bytes, as 0.2.3 writes.
    pub max_message_bytes: Option<Bytes>,
}

/// What deleting a topic removed.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct DeletedTopic {
    pub topic: String,
    /// The consumer groups that read it, deleted with it (their commits would
    /// otherwise apply to a topic made again under the same name).
    pub groups: Vec<String>,
}

/// One thing wrong in a store, as `twainmq check` finds it (its `kind` codes are the CLI's).
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct ProblemDto {
    /// The topic (a group's is `--group--NAME`); empty for the store as a whole.
    pub topic: String,
    pub partition: Option<u32>,
    /// The file's name, when it is in one.
    pub file: Option<String>,
    /// 1-based line in `file`.
    pub line: Option<LineNo>,
    /// The offset it is about (a damaged line's, a commit's).
    pub offset: Option<Offset>,
    /// `damaged_line`, `unfinished_line`, `windows_name`, `case_twin`, ... (`twainmq check`'s codes).
    pub kind: String,
    /// What is wrong and what to do, for people.
    pub message: String,
}

impl From<&twainmq::check::Problem> for ProblemDto {
    fn from(p: &twainmq::check::Problem) -> Self {
        ProblemDto {
            topic: p.topic.clone(),
            partition: p.partition,
            file: p.file.clone(),
            line: p.line.map(LineNo),
            offset: p.offset.map(Offset),
            kind: p.kind.to_string(),
            message: p.message.clone(),
        }
    }
}

/// A partition file found cut short in place while the app had the store open (or since
/// it last counted it): the messages past its new end are gone.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct ShrinkDto {
    pub topic: String,
    pub partition: u32,
    pub file: String,
    /// Complete lines (messages) it held when counted before, and holds now.
    pub lines_before: Count,
    pub lines_after: Count,
}

impl ShrinkDto {
    /// The shrink of a file of the store at `root`, when it is a topic's partition file.
    pub fn of(root: &std::path::Path, s: &twainmq::Shrink) -> Option<Self> {
        let rel = s.path.strip_prefix(root).ok()?;
        let mut parts = rel.iter();
        let topic = parts.next()?.to_str()?.to_string();
        let file = parts.next()?.to_str()?.to_string();
        if parts.next().is_some() {
            return None;
        }
        let partition = file.split_once('-')?.0.parse().ok()?;
        Some(ShrinkDto { topic, partition, file, lines_before: Count(s.lines_before), lines_after: Count(s.lines_after) })
    }
}
