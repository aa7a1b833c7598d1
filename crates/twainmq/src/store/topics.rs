//! Describing a topic: its partitions, files, line counts and offsets.

use std::fs;
use std::path::Path;
use std::time::SystemTime;

use serde::Serialize;

use super::Store;
use crate::error::Result;
use crate::format::key::KeyType;
use crate::log::files;

/// Per-file facts for describe.
#[derive(Debug, Clone, Serialize)]
pub struct FileInfo {
    /// The file's name, `<partition>-<YYYYMMDD>_<first>.tmf`.
    pub name: String,
    /// The UTC day in its name, `YYYYMMDD`.
    pub day: String,
    /// Offset of its first line, from its name.
    pub first: u64,
    /// Complete lines.
    pub lines: u64,
    /// Bytes after the last newline (a line being written or torn by a crash).
    pub partial_bytes: u64,
    /// The file's size in bytes.
    pub bytes: u64,
    /// Last modification, UNIX seconds.
    pub modified: Option<f64>,
}

/// Per-partition facts for describe.
#[derive(Debug, Clone, Serialize)]
pub struct PartitionInfo {
    /// The partition.
    pub partition: u32,
    /// Offset of the first line still on disk.
    pub start: u64,
    /// Offset the next message will get.
    pub end: u64,
    /// Size of its files together, in bytes.
    pub bytes: u64,
    /// The newest message's timestamp (the largest in its newest file holding
    /// messages: producers' clocks may disagree), UNIX seconds; None when empty.
    pub last_message: Option<f64>,
    /// Its files, in reading order.
    pub files: Vec<FileInfo>,
}

/// What `describe` reports about a topic.
#[derive(Debug, Clone, Serialize)]
pub struct TopicDescription {
    /// The topic's name.
    pub name: String,
    /// Its key type.
    pub key_type: KeyType,
    /// Its partition count.
    pub partitions: u32,
    /// Type name to type id, in the config's order.
    pub message_types: serde_json::Map<String, serde_json::Value>,
    /// Complete lines in all its partition files (damaged ones included).
    pub messages: u64,
    /// Size of all its partition files, in bytes.
    pub bytes: u64,
    /// Latest modification of any partition file, UNIX seconds (a file time: copying
    /// or touching a file moves it; see `last_message` for the messages' own time).
    pub last_write: Option<f64>,
    /// The newest message's timestamp over every partition, UNIX seconds.
    pub last_message: Option<f64>,
    /// Each partition, in order.
    pub partition_details: Vec<PartitionInfo>,
    /// Entries in the topic folder that are not partition files (0.2.3 may misread them).
    pub unknown_files: Vec<String>,
    /// Keys of the config that 0.2.3 does not know.
    pub extra_config: serde_json::Map<String, serde_json::Value>,
    /// Large messages (the format's next version): the topic's largest
    /// payload in bytes. Then `messages` counts lines, and a large message
    /// takes several (its offset is its last line's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_message_bytes: Option<u64>,
}

fn unix_secs(t: SystemTime) -> Option<f64> {
    t.duration_since(SystemTime::UNIX_EPOCH).ok().map(|d| d.as_secs_f64())
}

fn file_name(p: &Path) -> String {
    p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The newest message's timestamp of a partition: the largest timestamp of its
/// newest file that holds complete lines (through the time index, which reads
/// only what was appended since the last look).
fn newest_message(
    store: &Store,
    config: &crate::format::config::TopicConfig,
    pfiles: &[files::PartitionFile],
    infos: &[FileInfo],
) -> Result<Option<f64>> {
    let kc = config.key_type.encoded_len();
    for (f, info) in pfiles.iter().zip(infos).rev() {
        if info.lines == 0 {
            continue;
        }
        if let Some(t) = store.log().index().times(&f.path, kc)?.newest() {
            return Ok(Some(t));
        }
    }
    Ok(None)
}

impl Store {
    /// Files, line counts and offsets of every partition.
    ///
    /// # Errors
    /// [`Error::TopicNotFound`](crate::Error::TopicNotFound),
    /// [`Error::CorruptConfig`](crate::Error::CorruptConfig), [`Error::Io`](crate::Error::Io).
    pub fn describe_topic(&self, topic: &str) -> Result<TopicDescription> {
        let config = self.topic_config(topic)?;
        let dir = self.topic_dir(topic);
        let listing = files::list_topic_dir(&dir, config.partitions)?;
        let mut details = Vec::with_capacity(listing.partitions.len());
        let (mut messages, mut bytes, mut last_write, mut topic_last) = (0u64, 0u64, None::<f64>, None::<f64>);
        // The listing has one entry per partition, 0 to config.partitions - 1.
        for (p, pfiles) in (0..config.partitions).zip(&listing.partitions) {
            let mut infos = Vec::with_capacity(pfiles.len());
            for f in pfiles {
                let count = self.log().index().count(&f.path)?;
                let modified = fs::metadata(&f.path).ok().and_then(|m| m.modified().ok()).and_then(unix_secs);
                if let Some(m) = modified {
                    last_write = Some(last_write.map_or(m, |l: f64| l.max(m)));
                }
                infos.push(FileInfo {
                    name: file_name(&f.path),
                    day: f.day.to_string(),
                    first: f.first,
                    lines: count.complete,
                    partial_bytes: count.partial_bytes,
                    bytes: count.bytes,
                    modified,
                });
            }
            let start = infos.first().map_or(0, |f| f.first);
            let end = infos.last().map_or(0, |f| f.first.saturating_add(f.lines));
            let pbytes: u64 = infos.iter().map(|f| f.bytes).sum();
            let last_message = newest_message(self, &config, pfiles, &infos)?;
            if let Some(t) = last_message {
                topic_last = Some(topic_last.map_or(t, |l: f64| l.max(t)));
            }
            messages += infos.iter().map(|f| f.lines).sum::<u64>();
            bytes += pbytes;
            details.push(PartitionInfo { partition: p, start, end, bytes: pbytes, last_message, files: infos });
        }
        Ok(TopicDescription {
            name: topic.to_string(),
            key_type: config.key_type,
            partitions: config.partitions,
            message_types: config.message_types.iter().map(|(n, i)| (n.clone(), (*i).into())).collect(),
            messages,
            bytes,
            last_write,
            last_message: topic_last,
            partition_details: details,
            unknown_files: listing.unknown.iter().map(|p| file_name(p)).collect(),
            extra_config: config.extra.clone(),
            max_message_bytes: config.max_message_bytes,
        })
    }
}
