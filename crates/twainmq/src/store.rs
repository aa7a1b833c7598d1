//! A store: a folder of topics.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use serde::Serialize;

use crate::clock::{Clock, SystemClock};
use crate::config::{validate_type_name, TopicConfig, MAX_PARTITIONS};
use crate::consumer::{Consumer, StartFrom};
use crate::error::{Error, Result};
use crate::files::{self, Day, PartitionFile};
use crate::key::KeyType;
use crate::name;
use crate::producer::Producer;
use crate::reader::PartitionReader;

/// What a new topic looks like. Defaults match 0.2.3: `u16` keys, 1 partition, no types.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicSpec {
    pub key_type: KeyType,
    pub partitions: u32,
    pub message_types: Vec<String>,
}

impl Default for TopicSpec {
    fn default() -> Self {
        TopicSpec { key_type: KeyType::U16, partitions: 1, message_types: Vec::new() }
    }
}

impl TopicSpec {
    pub fn new(key_type: KeyType, partitions: u32) -> Self {
        TopicSpec { key_type, partitions, message_types: Vec::new() }
    }
    pub fn with_types<S: Into<String>>(mut self, types: impl IntoIterator<Item = S>) -> Self {
        self.message_types = types.into_iter().map(Into::into).collect();
        self
    }
}

/// A TwainMQ store rooted at a folder.
///
/// # Examples
/// ```
/// use twainmq::{Store, TopicSpec, KeyType, StartFrom};
/// let dir = tempfile::tempdir()?;
/// let store = Store::open(dir.path())?;
/// store.create_topic("events", &TopicSpec::new(KeyType::U16, 4))?;
/// let mut producer = store.producer("events")?;
/// producer.send_text(42u16, "hello")?;
/// let mut consumer = store.consumer("events", StartFrom::Start)?;
/// let msg = consumer.poll()?.expect("one message");
/// assert_eq!(msg.text(), Some("hello"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
    clock: Arc<dyn Clock>,
    index: crate::index::LineIndex,
    groups: GroupLogs,
}

/// Each group's log reader and the state folded from it so far, with the
/// identity of the group's config file when it was opened: a group deleted and
/// made again (by another process) has a new config, and is then read afresh.
pub(crate) type GroupLogs =
    Arc<std::sync::Mutex<std::collections::HashMap<String, (PartitionReader, crate::group::GroupLog, crate::fsinfo::FileIdentity)>>>;

/// Per-file facts for describe.
#[derive(Debug, Clone, Serialize)]
pub struct FileInfo {
    pub name: String,
    pub day: String,
    pub first: u64,
    /// Complete lines.
    pub lines: u64,
    /// Bytes after the last newline (a line being written or torn by a crash).
    pub partial_bytes: u64,
    pub bytes: u64,
    /// Last modification, UNIX seconds.
    pub modified: Option<f64>,
}

/// Per-partition facts for describe.
#[derive(Debug, Clone, Serialize)]
pub struct PartitionInfo {
    pub partition: u32,
    /// Offset of the first line still on disk.
    pub start: u64,
    /// Offset the next message will get.
    pub end: u64,
    pub bytes: u64,
    pub files: Vec<FileInfo>,
}

/// What `describe` reports about a topic.
#[derive(Debug, Clone, Serialize)]
pub struct TopicDescription {
    pub name: String,
    pub key_type: KeyType,
    pub partitions: u32,
    pub message_types: serde_json::Map<String, serde_json::Value>,
    pub messages: u64,
    pub bytes: u64,
    /// Latest modification of any partition file, UNIX seconds.
    pub last_write: Option<f64>,
    pub partition_details: Vec<PartitionInfo>,
    /// Entries in the topic folder that are not partition files (0.2.3 may misread them).
    pub unknown_files: Vec<String>,
    /// Keys of the config that 0.2.3 does not know.
    pub extra_config: serde_json::Map<String, serde_json::Value>,
}

/// Which topic of a name a store holds: appends leave it as it is; deleting
/// the topic and making it again (by any process, 0.2.3 included) gives
/// another. Readers stop with [`Error::TopicDeleted`] when it changes under
/// them; a viewer compares it to tell the topic it showed from a new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopicIncarnation {
    folder: Option<crate::fsinfo::FileIdentity>,
    config: Option<crate::fsinfo::FileIdentity>,
}

impl std::fmt::Display for TopicIncarnation {
    /// An opaque token, equal for equal incarnations.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let part = |i: &Option<crate::fsinfo::FileIdentity>| i.map_or_else(|| "-".to_string(), |i| i.to_string());
        write!(f, "d:{}/c:{}", part(&self.folder), part(&self.config))
    }
}

fn unix_secs(t: SystemTime) -> Option<f64> {
    t.duration_since(SystemTime::UNIX_EPOCH).ok().map(|d| d.as_secs_f64())
}

impl Store {
    /// Open the store in the existing folder `root`.
    ///
    /// # Errors
    /// [`Error::StoreNotFound`] when `root` is not a folder.
    pub fn open(root: impl AsRef<Path>) -> Result<Store> {
        let root = root.as_ref();
        if !root.is_dir() {
            return Err(Error::StoreNotFound { path: root.to_path_buf() });
        }
        Ok(Store { root: root.to_path_buf(), clock: Arc::new(SystemClock), index: Default::default(), groups: Default::default() })
    }

    /// Open the store at `root`, creating the folder (and its parents) if missing.
    ///
    /// # Errors
    /// [`Error::Io`] when the folder cannot be created.
    pub fn open_or_create(root: impl AsRef<Path>) -> Result<Store> {
        let root = root.as_ref();
        fs::create_dir_all(root).map_err(|e| Error::io("create folder", root, e))?;
        Store::open(root)
    }

    /// Use `clock` for timestamps and day files (tests cross midnight with [`crate::ManualClock`]).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Store {
        self.clock = clock;
        self
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Keep the line index (line counts and seek marks of every partition
    /// file) between runs, in a file in `dir` named after the store's path, so
    /// opening a large store again reads only what was appended since. `dir`
    /// must be outside the store (0.2.3 would take files inside it for its
    /// own); inside, the index stays in memory. Save it with
    /// [`Store::save_index`].
    ///
    /// # Examples
    /// ```
    /// # let (dir, cache) = (tempfile::tempdir()?, tempfile::tempdir()?);
    /// let store = twainmq::Store::open(dir.path())?.with_index_cache(cache.path());
    /// store.save_index()?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_index_cache(mut self, dir: impl AsRef<Path>) -> Store {
        let dir = dir.as_ref();
        let root = fs::canonicalize(&self.root).unwrap_or_else(|_| self.root.clone());
        if fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf()).starts_with(&root) {
            tracing::warn!(cache = %dir.display(), store = %root.display(), "an index cache inside the store is not used: it would add files 0.2.3 reads as its own");
            return self;
        }
        let name = format!("index-{:016x}.json", crate::index::fnv1a(root.as_os_str().as_encoded_bytes()));
        self.index = crate::index::LineIndex::with_cache_file(dir.join(name));
        self
    }

    /// Write the line index to the cache set by [`Store::with_index_cache`]
    /// (nothing without one).
    ///
    /// # Errors
    /// [`Error::Io`] when the cache file cannot be written.
    pub fn save_index(&self) -> Result<()> {
        self.index.save()
    }

    /// Bytes read so far to count lines and place seek marks (diagnostics:
    /// with a current index cache, opening a store again reads next to none).
    pub fn index_scanned_bytes(&self) -> u64 {
        self.index.scanned_bytes()
    }

    /// The line index shared by this store's readers.
    pub(crate) fn index(&self) -> &crate::index::LineIndex {
        &self.index
    }

    pub(crate) fn group_logs(&self) -> &GroupLogs {
        &self.groups
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

    fn twc_stems(&self) -> Result<Vec<String>> {
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
    ///
    /// # Errors
    /// [`Error::Io`] when the folder cannot be listed.
    pub fn list_topics(&self) -> Result<Vec<String>> {
        Ok(self.twc_stems()?.into_iter().filter(|n| !n.starts_with(name::GROUP_PREFIX)).collect())
    }

    /// Consumer group names, sorted.
    ///
    /// # Errors
    /// [`Error::Io`] when the folder cannot be listed.
    pub fn list_groups(&self) -> Result<Vec<String>> {
        Ok(self.twc_stems()?.into_iter().filter_map(|n| n.strip_prefix(name::GROUP_PREFIX).map(str::to_string)).collect())
    }

    /// Whether a topic (its config or its folder) exists.
    ///
    /// # Errors
    /// [`Error::InvalidTopicName`] for a name no topic can have.
    pub fn topic_exists(&self, topic: &str) -> Result<bool> {
        validate_readable(topic)?;
        Ok(self.config_path(topic).exists() || self.topic_dir(topic).exists())
    }

    /// The incarnation of a topic (or group log, by its topic name): `None`
    /// when neither its config nor its folder exists. Links are not followed.
    ///
    /// # Errors
    /// [`Error::InvalidTopicName`] for a name no topic can have.
    pub fn topic_incarnation(&self, topic: &str) -> Result<Option<TopicIncarnation>> {
        validate_readable(topic)?;
        let folder = crate::fsinfo::FileIdentity::at(&self.topic_dir(topic));
        let config = crate::fsinfo::FileIdentity::at(&self.config_path(topic));
        Ok((folder.is_some() || config.is_some()).then_some(TopicIncarnation { folder, config }))
    }

    /// Create a topic.
    ///
    /// # Errors
    /// Invalid names, key types, partition counts or type names; [`Error::TopicExists`].
    pub fn create_topic(&self, topic: &str, spec: &TopicSpec) -> Result<TopicConfig> {
        name::validate_new_topic(topic)?;
        self.create_topic_unchecked(topic, spec, serde_json::Map::new())
    }

    pub(crate) fn create_topic_unchecked(
        &self,
        topic: &str,
        spec: &TopicSpec,
        extra: serde_json::Map<String, serde_json::Value>,
    ) -> Result<TopicConfig> {
        if spec.partitions == 0 || spec.partitions > MAX_PARTITIONS {
            return Err(Error::InvalidPartitionCount { partitions: spec.partitions.into(), max: MAX_PARTITIONS });
        }
        if let KeyType::Char(n) = spec.key_type {
            if n == 0 || n > crate::key::MAX_CHAR_WIDTH {
                return Err(Error::InvalidKeyType { key_type: spec.key_type.to_string(), max_char: crate::key::MAX_CHAR_WIDTH });
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

    /// The config of a topic.
    ///
    /// # Errors
    /// [`Error::TopicNotFound`], [`Error::CorruptConfig`].
    pub fn topic_config(&self, topic: &str) -> Result<TopicConfig> {
        validate_readable(topic)?;
        TopicConfig::load(topic, &self.config_path(topic))
    }

    /// Files, line counts and offsets of every partition.
    ///
    /// # Errors
    /// [`Error::TopicNotFound`], [`Error::CorruptConfig`], [`Error::Io`].
    pub fn describe_topic(&self, topic: &str) -> Result<TopicDescription> {
        let config = self.topic_config(topic)?;
        let dir = self.topic_dir(topic);
        let listing = files::list_topic_dir(&dir, config.partitions)?;
        let mut details = Vec::with_capacity(listing.partitions.len());
        let (mut messages, mut bytes, mut last_write) = (0u64, 0u64, None::<f64>);
        for (p, pfiles) in listing.partitions.iter().enumerate() {
            let mut infos = Vec::with_capacity(pfiles.len());
            for f in pfiles {
                let count = self.index.count(&f.path)?;
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
            messages += infos.iter().map(|f| f.lines).sum::<u64>();
            bytes += pbytes;
            details.push(PartitionInfo { partition: p as u32, start, end, bytes: pbytes, files: infos });
        }
        Ok(TopicDescription {
            name: topic.to_string(),
            key_type: config.key_type,
            partitions: config.partitions,
            message_types: config.message_types.iter().map(|(n, i)| (n.clone(), (*i).into())).collect(),
            messages,
            bytes,
            last_write,
            partition_details: details,
            unknown_files: listing.unknown.iter().map(|p| file_name(p)).collect(),
            extra_config: config.extra.clone(),
        })
    }

    /// Delete a topic: its config and its folder, then the consumer groups
    /// that read it ([`crate::group::groups_reading`], which lists them
    /// beforehand), so their commits never apply to a topic made again under
    /// the same name. Never follows a link out of the store. Returns the
    /// groups deleted.
    ///
    /// # Errors
    /// [`Error::TopicNotFound`], [`Error::SymlinkRefused`], [`Error::Io`].
    pub fn delete_topic(&self, topic: &str) -> Result<Vec<String>> {
        name::validate_topic(topic)?;
        let groups = crate::group::groups_reading(self, topic)?;
        self.delete_topic_unchecked(topic)?;
        for g in &groups {
            match self.delete_topic_unchecked(&name::group_topic(g)) {
                Ok(()) | Err(Error::TopicNotFound { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(groups)
    }

    pub(crate) fn delete_topic_unchecked(&self, topic: &str) -> Result<()> {
        if let Some(g) = topic.strip_prefix(name::GROUP_PREFIX) {
            self.groups.lock().unwrap_or_else(|p| p.into_inner()).remove(g);
        }
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
                return Err(Error::NotAFile { path: dir, kind: files::kind_name(&m.file_type()) });
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

    /// A producer for a topic.
    ///
    /// # Errors
    /// [`Error::TopicNotFound`], [`Error::CorruptConfig`], invalid names.
    pub fn producer(&self, topic: &str) -> Result<Producer> {
        name::validate_topic(topic)?;
        Producer::open(self, topic)
    }

    pub(crate) fn producer_unchecked(&self, topic: &str) -> Result<Producer> {
        Producer::open(self, topic)
    }

    /// A reader of one partition.
    ///
    /// # Errors
    /// [`Error::TopicNotFound`], [`Error::PartitionOutOfRange`], ...
    pub fn partition_reader(&self, topic: &str, partition: u32, from: StartFrom) -> Result<PartitionReader> {
        let config = self.topic_config(topic)?;
        PartitionReader::open(self, topic, &config, partition, from)
    }

    /// A consumer of all partitions of a topic, polling them round-robin.
    ///
    /// # Errors
    /// [`Error::TopicNotFound`], [`Error::CorruptConfig`], [`Error::Io`].
    pub fn consumer(&self, topic: &str, from: StartFrom) -> Result<Consumer> {
        let config = self.topic_config(topic)?;
        let partitions: Vec<u32> = (0..config.partitions).collect();
        Consumer::open(self, topic, &config, &partitions, from)
    }

    /// A consumer of some partitions of a topic.
    ///
    /// # Errors
    /// As [`Store::consumer`], and [`Error::PartitionOutOfRange`].
    pub fn consumer_of(&self, topic: &str, partitions: &[u32], from: StartFrom) -> Result<Consumer> {
        let config = self.topic_config(topic)?;
        Consumer::open(self, topic, &config, partitions, from)
    }

    /// The UTC day now, by this store's clock.
    pub fn today(&self) -> Day {
        Day::from_unix_micros(self.clock.now_micros())
    }

    /// End offset (next offset to be written) of each partition.
    ///
    /// # Errors
    /// [`Error::TopicNotFound`], [`Error::Io`].
    pub fn end_offsets(&self, topic: &str) -> Result<Vec<u64>> {
        let config = self.topic_config(topic)?;
        let dir = self.topic_dir(topic);
        let listing = files::list_topic_dir(&dir, config.partitions)?;
        listing.partitions.iter().map(|f| self.partition_end(f)).collect()
    }
}

/// Names that may be read: user topics and group topics, nothing that escapes the store.
pub(crate) fn validate_readable(topic: &str) -> Result<()> {
    match name::validate_topic(topic) {
        Err(Error::InvalidTopicName { problem: crate::error::NameProblem::GroupPrefix, .. }) => {
            name::validate_group(&topic[name::GROUP_PREFIX.len()..])
                .map_err(|_| Error::InvalidTopicName { name: topic.to_string(), problem: crate::error::NameProblem::GroupPrefix })
        }
        other => other,
    }
}

impl Store {
    /// End offset of a partition from its files: the last file's first + its complete lines.
    pub(crate) fn partition_end(&self, files: &[PartitionFile]) -> Result<u64> {
        self.index.end_of(files)
    }
}

fn file_name(p: &Path) -> String {
    p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}
