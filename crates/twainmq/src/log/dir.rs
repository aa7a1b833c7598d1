//! The store folder as the log layer sees it: where each topic's config and
//! folder are, the line index shared by its readers, and the clock that dates
//! messages and day files. Nothing here knows of consumer groups; names are
//! checked only for being readable (nothing that escapes the folder).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::format::config::{validate_type_name, TopicConfig, MAX_PARTITIONS};
use crate::format::key::{KeyType, MAX_CHAR_WIDTH};
use crate::format::name::{self, validate_readable};
use crate::log::clock::{Clock, SystemClock};
use crate::log::consumer::{Consumer, StartFrom};
use crate::log::files::{self, Day, PartitionFile};
use crate::log::index::LineIndex;
use crate::log::producer::Producer;
use crate::log::reader::PartitionReader;
use crate::sys::identity::FileIdentity;

/// What a new topic looks like. Defaults match 0.2.3: `u16` keys, 1 partition, no types.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicSpec {
    /// The type of the topic's keys.
    pub key_type: KeyType,
    /// How many partitions (1 to [`MAX_PARTITIONS`]).
    pub partitions: u32,
    /// The names of its typed-message classes, in type-id order.
    pub message_types: Vec<String>,
}

impl Default for TopicSpec {
    fn default() -> Self {
        TopicSpec { key_type: KeyType::U16, partitions: 1, message_types: Vec::new() }
    }
}

impl TopicSpec {
    /// A topic of `partitions` partitions keyed by `key_type`, without message types.
    pub fn new(key_type: KeyType, partitions: u32) -> Self {
        TopicSpec { key_type, partitions, message_types: Vec::new() }
    }
    /// The same, declaring these message type names (type ids 0, 1, ...).
    pub fn with_types<S: Into<String>>(mut self, types: impl IntoIterator<Item = S>) -> Self {
        self.message_types = types.into_iter().map(Into::into).collect();
        self
    }
}

/// Which topic of a name a store holds: appends leave it as it is; deleting
/// the topic and making it again (by any process, 0.2.3 included) gives
/// another. Readers stop with [`Error::TopicDeleted`] when it changes under
/// them; a viewer compares it to tell the topic it showed from a new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopicIncarnation {
    folder: Option<FileIdentity>,
    config: Option<FileIdentity>,
}

impl std::fmt::Display for TopicIncarnation {
    /// An opaque token, equal for equal incarnations.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let part = |i: &Option<FileIdentity>| i.map_or_else(|| "-".to_string(), |i| i.to_string());
        write!(f, "d:{}/c:{}", part(&self.folder), part(&self.config))
    }
}

/// The log of one store folder. Cheap to clone: producers, readers and group
/// members each keep one.
#[derive(Debug, Clone)]
pub(crate) struct LogDir {
    root: PathBuf,
    clock: Arc<dyn Clock>,
    index: LineIndex,
}

impl LogDir {
    pub(crate) fn new(root: PathBuf) -> LogDir {
        LogDir { root, clock: Arc::new(SystemClock), index: LineIndex::default() }
    }

    pub(crate) fn set_clock(&mut self, clock: Arc<dyn Clock>) {
        self.clock = clock;
    }

    pub(crate) fn set_index(&mut self, index: LineIndex) {
        self.index = index;
    }

    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// The line index shared by this store's readers.
    pub(crate) fn index(&self) -> &LineIndex {
        &self.index
    }

    pub(crate) fn clock(&self) -> Arc<dyn Clock> {
        self.clock.clone()
    }

    pub(crate) fn config_path(&self, topic: &str) -> PathBuf {
        self.root.join(format!("{topic}.twc"))
    }

    pub(crate) fn topic_dir(&self, topic: &str) -> PathBuf {
        self.root.join(topic)
    }

    /// The stems of every `*.twc` in the folder (topics and group logs), sorted.
    pub(crate) fn twc_stems(&self) -> Result<Vec<String>> {
        let entries = fs::read_dir(&self.root).map_err(|e| Error::io("list", &self.root, e))?;
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| Error::io("list", &self.root, e))?;
            if let Some(stem) = entry.file_name().to_str().and_then(|n| n.strip_suffix(".twc")) {
                names.push(stem.to_string());
            }
        }
        names.sort();
        Ok(names)
    }

    /// Topic names (the stems of `*.twc`, groups excluded), sorted.
    pub(crate) fn list_topics(&self) -> Result<Vec<String>> {
        Ok(self.twc_stems()?.into_iter().filter(|n| !n.starts_with(name::GROUP_PREFIX)).collect())
    }

    /// Consumer group names (stems of `--group--*.twc` without the prefix), sorted.
    pub(crate) fn list_groups(&self) -> Result<Vec<String>> {
        Ok(self.twc_stems()?.into_iter().filter_map(|n| n.strip_prefix(name::GROUP_PREFIX).map(str::to_string)).collect())
    }

    pub(crate) fn topic_incarnation(&self, topic: &str) -> Result<Option<TopicIncarnation>> {
        validate_readable(topic)?;
        let folder = FileIdentity::at(&self.topic_dir(topic));
        let config = FileIdentity::at(&self.config_path(topic));
        Ok((folder.is_some() || config.is_some()).then_some(TopicIncarnation { folder, config }))
    }

    /// Create a topic (or group log) named `topic`, already validated, with
    /// `extra` config keys.
    pub(crate) fn create_topic(
        &self,
        topic: &str,
        spec: &TopicSpec,
        extra: serde_json::Map<String, serde_json::Value>,
    ) -> Result<TopicConfig> {
        if spec.partitions == 0 || spec.partitions > MAX_PARTITIONS {
            return Err(Error::InvalidPartitionCount { partitions: spec.partitions.into(), max: MAX_PARTITIONS });
        }
        if let KeyType::Char(n) = spec.key_type {
            if n == 0 || n > MAX_CHAR_WIDTH {
                return Err(Error::InvalidKeyType { key_type: spec.key_type.to_string(), max_char: MAX_CHAR_WIDTH });
            }
        }
        for (i, t) in spec.message_types.iter().enumerate() {
            validate_type_name(t)?;
            if spec.message_types[..i].contains(t) {
                return Err(Error::InvalidMessageTypeName { name: t.clone(), reason: "it is listed twice" });
            }
        }
        if spec.message_types.len() > usize::from(u16::MAX) {
            return Err(Error::InvalidMessageTypeName { name: String::new(), reason: "a topic has at most 65535 message types" });
        }
        let dir = self.topic_dir(topic);
        let cfg_path = self.config_path(topic);
        if cfg_path.exists() {
            return Err(Error::TopicExists { topic: topic.to_string(), root: self.root.clone() });
        }
        // Folder first, as 0.2.3 does: its `create_topic` treats an existing folder as an existing topic.
        match fs::create_dir(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(Error::TopicExists { topic: topic.to_string(), root: self.root.clone() })
            }
            Err(e) => return Err(Error::io("create folder", &dir, e)),
        }
        let mut config = TopicConfig::new(spec.key_type, spec.partitions, &spec.message_types);
        config.extra = extra;
        // Write under a name 0.2.3 ignores (not `*.twc`), then rename: readers never see half a config.
        let tmp = self.root.join(format!(".{topic}.twc.tmp-{}", std::process::id()));
        let write = fs::write(&tmp, config.to_bytes())
            .map_err(|e| Error::io("write", &tmp, e))
            .and_then(|()| fs::rename(&tmp, &cfg_path).map_err(|e| Error::io("rename into place", &cfg_path, e)));
        if let Err(e) = write {
            let _ = fs::remove_file(&tmp);
            let _ = fs::remove_dir(&dir);
            return Err(e);
        }
        Ok(config)
    }

    /// The config of a topic or group log.
    pub(crate) fn topic_config(&self, topic: &str) -> Result<TopicConfig> {
        validate_readable(topic)?;
        TopicConfig::load(topic, &self.config_path(topic))
    }

    /// Delete a topic's (or group log's) config and folder; never follows a
    /// link out of the store, and refuses before removing anything.
    pub(crate) fn delete_topic(&self, topic: &str) -> Result<()> {
        let cfg = self.config_path(topic);
        let dir = self.topic_dir(topic);
        let cfg_meta = fs::symlink_metadata(&cfg).ok();
        let dir_meta = fs::symlink_metadata(&dir).ok();
        if cfg_meta.is_none() && dir_meta.is_none() {
            return Err(Error::TopicNotFound { topic: topic.to_string(), path: cfg });
        }
        if let Some(m) = &dir_meta {
            if m.file_type().is_symlink() {
                return Err(Error::SymlinkRefused { path: dir });
            }
            // Checked before anything is removed, so a refused delete changes nothing.
            if !m.file_type().is_dir() {
                return Err(Error::NotAFile { path: dir, kind: crate::sys::open::kind_name(&m.file_type()) });
            }
        }
        // Config first: the topic leaves every listing before its data goes.
        if cfg_meta.is_some() {
            fs::remove_file(&cfg).map_err(|e| Error::io("delete", &cfg, e))?;
        }
        if dir_meta.is_some() {
            // `remove_dir_all` removes links inside the folder without following them.
            fs::remove_dir_all(&dir).map_err(|e| Error::io("delete", &dir, e))?;
        }
        Ok(())
    }

    /// A producer for a topic or group log (names not checked for being writable).
    pub(crate) fn producer(&self, topic: &str) -> Result<Producer> {
        Producer::open(self, topic)
    }

    pub(crate) fn partition_reader(&self, topic: &str, partition: u32, from: StartFrom) -> Result<PartitionReader> {
        let config = self.topic_config(topic)?;
        PartitionReader::open(self, topic, &config, partition, from)
    }

    pub(crate) fn consumer_of(&self, topic: &str, partitions: &[u32], from: StartFrom) -> Result<Consumer> {
        let config = self.topic_config(topic)?;
        Consumer::open(self, topic, &config, partitions, from)
    }

    /// The UTC day now, by this log's clock.
    pub(crate) fn today(&self) -> Day {
        Day::from_unix_micros(self.clock.now_micros())
    }

    /// End offset (next offset to be written) of each partition.
    pub(crate) fn end_offsets(&self, topic: &str) -> Result<Vec<u64>> {
        let config = self.topic_config(topic)?;
        let listing = files::list_topic_dir(&self.topic_dir(topic), config.partitions)?;
        listing.partitions.iter().map(|f| self.partition_end(f)).collect()
    }

    /// End offset of a partition from its files: the last file's first + its complete lines.
    pub(crate) fn partition_end(&self, files: &[PartitionFile]) -> Result<u64> {
        self.index.end_of(files)
    }
}

// Reading a config is I/O, so it is here, beside the folder it is in; parsing
// and writing its bytes is the format layer's (`format/config.rs`).
impl TopicConfig {
    /// Read and parse the config of `topic` at `path`.
    ///
    /// # Errors
    /// [`Error::TopicNotFound`] when the file is missing, [`Error::CorruptConfig`] when unreadable.
    pub(crate) fn load(topic: &str, path: &Path) -> Result<TopicConfig> {
        use std::io::Read;
        let corrupt = |reason: String| Error::CorruptConfig { topic: topic.to_string(), path: path.to_path_buf(), reason };
        // A regular file only (a FIFO would block the read forever), and no bigger than a config can be.
        let file = match crate::sys::open::open_regular(path, false) {
            Ok(f) => f,
            Err(Error::Io { cause, .. }) if cause.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::TopicNotFound { topic: topic.to_string(), path: path.to_path_buf() })
            }
            Err(Error::NotAFile { kind, .. }) => return Err(corrupt(format!("it is {kind}, not a file"))),
            Err(Error::SymlinkRefused { .. }) => {
                return Err(corrupt("it is a symbolic link: TwainMQ reads nothing through links (they may lead out of the store)".into()))
            }
            Err(e) => return Err(e),
        };
        let mut bytes = Vec::new();
        file.take(crate::format::config::MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes).map_err(|e| Error::io("read", path, e))?;
        if bytes.len() as u64 > crate::format::config::MAX_CONFIG_BYTES {
            return Err(corrupt(format!("it is over {} MiB, far more than a config holds", crate::format::config::MAX_CONFIG_BYTES >> 20)));
        }
        TopicConfig::parse(&bytes).map_err(|reason| Error::CorruptConfig { topic: topic.to_string(), path: path.to_path_buf(), reason })
    }
}
