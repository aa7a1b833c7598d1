//! A store: a folder of topics and the consumer groups that read them. The
//! public face of the engine: names are validated here, then the log layer
//! ([`crate::log`]) and the group layer ([`crate::group`]) do the work.

mod groups;
mod retention;
mod summary;
mod timeline;
mod topics;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::format::config::TopicConfig;
use crate::format::name;
use crate::group::{GroupLogs, Groups};
use crate::log::clock::Clock;
use crate::log::consumer::Consumer;
use crate::log::cursor::StartFrom;
use crate::log::dir::{LogDir, TopicIncarnation, TopicSpec};
use crate::log::files::Day;
use crate::log::producer::Producer;
use crate::log::reader::PartitionReader;

pub use retention::{PlannedFile, Retention, RetentionPlan, UnknownGroup, RETENTION_KEY};
pub use summary::{GroupState, GroupSummary, TopicSummary, TopicTotals};
pub use timeline::TimelinePage;
pub use topics::{FileInfo, PartitionInfo, TopicDescription};

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
    log: LogDir,
    groups: GroupLogs,
}

impl Store {
    /// Open the store in the existing folder `root`.
    ///
    /// # Errors
    /// [`Error::StoreNotFound`] when nothing is at `root`, [`Error::StoreNotAFolder`]
    /// when something other than a folder is.
    pub fn open(root: impl AsRef<Path>) -> Result<Store> {
        let root = root.as_ref();
        if !root.is_dir() {
            // Through links, as is_dir: a link to a store's folder opens it.
            return Err(match fs::metadata(root) {
                Ok(m) => Error::StoreNotAFolder { path: root.to_path_buf(), found: crate::sys::open::kind_name(&m.file_type()) },
                Err(_) => Error::StoreNotFound { path: root.to_path_buf() },
            });
        }
        Ok(Store { log: LogDir::new(root.to_path_buf()), groups: GroupLogs::default() })
    }

    /// Open the store in `root`, refusing a folder that holds no store: what an
    /// app opening a folder someone picked wants (a folder opened by mistake
    /// must not look like a live, empty store). A store is a folder with at
    /// least one `*.twc` (a topic's config or a consumer group's log); make one
    /// elsewhere on request with [`Store::open_or_create`].
    ///
    /// # Errors
    /// [`Error::StoreNotFound`] or [`Error::StoreNotAFolder`] as [`Store::open`], [`Error::EmptyFolder`] when it
    /// holds nothing, [`Error::NotAStore`] when it holds files but no `*.twc`, [`Error::Io`]
    /// when it cannot be listed.
    pub fn open_existing(root: impl AsRef<Path>) -> Result<Store> {
        let store = Store::open(root)?;
        if !store.log.twc_stems()?.is_empty() {
            return Ok(store);
        }
        let root = store.root();
        let entries = fs::read_dir(root).map_err(|e| Error::io("list", root, e))?;
        let mut any = false;
        let mut dirs = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| Error::io("list", root, e))?;
            any = true;
            // Only real folders (never through a link).
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                dirs.push(entry.path());
            }
        }
        if !any {
            return Err(Error::EmptyFolder { path: root.to_path_buf() });
        }
        // One level down, the first few (by name) of the first 64 folders: a hint, not a search.
        dirs.sort();
        let stores: Vec<PathBuf> =
            dirs.into_iter().take(64).filter(|d| LogDir::new(d.clone()).twc_stems().is_ok_and(|s| !s.is_empty())).take(3).collect();
        Err(Error::NotAStore { path: root.to_path_buf(), stores })
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
    #[must_use]
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Store {
        self.log.set_clock(clock);
        self
    }

    /// The store's folder.
    pub fn root(&self) -> &Path {
        self.log.root()
    }

    /// Why this process cannot write to the store, if it cannot: its folder is
    /// read-only to it (permissions, a read-only mount). Asked of the system,
    /// nothing written; `None` when it may write, or cannot tell (Windows ACLs
    /// show only at the first write, whose own error then says so).
    pub fn write_denied(&self) -> Option<String> {
        crate::sys::dir_writable(self.root()).err().map(|e| {
            format!("this store's folder {} cannot be written by this user ({e}): it is open for reading only", self.root().display())
        })
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
    #[must_use]
    pub fn with_index_cache(mut self, dir: impl AsRef<Path>) -> Store {
        let dir = dir.as_ref();
        let root = fs::canonicalize(self.root()).unwrap_or_else(|_| self.root().to_path_buf());
        if crate::sys::identity::is_within(dir, &root) {
            tracing::warn!(cache = %dir.display(), store = %root.display(), "an index cache inside the store is not used: it would add files 0.2.3 reads as its own");
            return self;
        }
        let name = format!("index-{:016x}.json", crate::log::index::fnv1a(root.as_os_str().as_encoded_bytes()));
        self.log.set_index(crate::log::index::LineIndex::with_cache_file(dir.join(name)));
        self
    }

    /// Whether `path` (which need not exist) is the store's folder or inside
    /// it, however it is spelt: compared by identity, so a link, a bind mount
    /// or another spelling of the folder counts. Nothing of ours is written there.
    pub fn contains_path(&self, path: &Path) -> bool {
        crate::sys::identity::is_within(path, self.root())
    }

    /// The log layer's view of this store (for the whole-log operations).
    pub(crate) fn log(&self) -> &LogDir {
        &self.log
    }

    /// The group layer's view of this store.
    pub(crate) fn groups(&self) -> Groups {
        Groups::new(self.log.clone(), self.groups.clone())
    }

    /// Write the line index to the cache set by [`Store::with_index_cache`]
    /// (nothing without one).
    ///
    /// # Errors
    /// [`Error::Io`] when the cache file cannot be written.
    pub fn save_index(&self) -> Result<()> {
        self.log.index().save()
    }

    /// Partition files found cut short since this store was opened (or since
    /// the index cache last counted them, in an earlier run): what each held
    /// and holds now, oldest first. A file is looked at when something counts
    /// its lines (a describe, a listing, a read).
    pub fn shrunk_files(&self) -> Vec<crate::log::index::Shrink> {
        self.log.index().shrinks()
    }

    /// Bytes read so far to count lines and place seek marks (diagnostics:
    /// with a current index cache, opening a store again reads next to none).
    pub fn index_scanned_bytes(&self) -> u64 {
        self.log.index().scanned_bytes()
    }

    /// Topic names (the stems of `*.twc`, groups excluded), sorted.
    ///
    /// # Errors
    /// [`Error::Io`] when the folder cannot be listed.
    pub fn list_topics(&self) -> Result<Vec<String>> {
        self.log.list_topics()
    }

    /// Consumer group names, sorted.
    ///
    /// # Errors
    /// [`Error::Io`] when the folder cannot be listed.
    pub fn list_groups(&self) -> Result<Vec<String>> {
        self.log.list_groups()
    }

    /// Whether a topic (its config or its folder) exists.
    ///
    /// # Errors
    /// [`Error::InvalidTopicName`] for a name no topic can have.
    pub fn topic_exists(&self, topic: &str) -> Result<bool> {
        name::validate_readable(topic)?;
        Ok(self.log.config_path(topic).exists() || self.log.topic_dir(topic).exists())
    }

    /// The incarnation of a topic (or group log, by its topic name): `None`
    /// when neither its config nor its folder exists. Links are not followed.
    ///
    /// # Errors
    /// [`Error::InvalidTopicName`] for a name no topic can have.
    pub fn topic_incarnation(&self, topic: &str) -> Result<Option<TopicIncarnation>> {
        self.log.topic_incarnation(topic)
    }

    /// Create a topic.
    ///
    /// # Errors
    /// Invalid names, key types, partition counts or type names; [`Error::TopicExists`].
    pub fn create_topic(&self, topic: &str, spec: &TopicSpec) -> Result<TopicConfig> {
        name::validate_new_topic(topic)?;
        self.log.create_topic(topic, spec, serde_json::Map::new())
    }

    /// The config of a topic.
    ///
    /// # Errors
    /// [`Error::TopicNotFound`], [`Error::CorruptConfig`].
    pub fn topic_config(&self, topic: &str) -> Result<TopicConfig> {
        self.log.topic_config(topic)
    }

    /// Delete a topic: its config and its folder, then the consumer groups
    /// that read it ([`Store::groups_reading`], which lists them
    /// beforehand), so their commits never apply to a topic made again under
    /// the same name. Never follows a link out of the store. Returns the
    /// groups deleted.
    ///
    /// # Errors
    /// [`Error::TopicNotFound`], [`Error::SymlinkRefused`], [`Error::Io`].
    pub fn delete_topic(&self, topic: &str) -> Result<Vec<String>> {
        name::validate_topic(topic)?;
        let groups = self.groups_reading(topic)?;
        self.log.delete_topic(topic)?;
        for g in &groups {
            self.groups().forget(g);
            match self.log.delete_topic(&name::group_topic(g)) {
                Ok(()) | Err(Error::TopicNotFound { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(groups)
    }

    /// A producer for a topic. It deletes nothing: a topic's retention is
    /// applied only when asked ([`Store::apply_retention`]: `twainmq retention
    /// apply`, the app's Retention tab, or the app when its setting for the
    /// store says so), never as a side effect of writing (docs/FORMAT.md,
    /// "Retention and purge").
    ///
    /// # Errors
    /// [`Error::TopicNotFound`], [`Error::CorruptConfig`], invalid names.
    pub fn producer(&self, topic: &str) -> Result<Producer> {
        name::validate_topic(topic)?;
        self.log.producer(topic)
    }

    /// A reader of one partition.
    ///
    /// # Errors
    /// [`Error::TopicNotFound`], [`Error::PartitionOutOfRange`], ...
    pub fn partition_reader(&self, topic: &str, partition: u32, from: StartFrom) -> Result<PartitionReader> {
        self.log.partition_reader(topic, partition, from)
    }

    /// A consumer of all partitions of a topic, polling them round-robin.
    ///
    /// # Errors
    /// [`Error::TopicNotFound`], [`Error::CorruptConfig`], [`Error::Io`].
    pub fn consumer(&self, topic: &str, from: StartFrom) -> Result<Consumer> {
        let config = self.topic_config(topic)?;
        let partitions: Vec<u32> = (0..config.partitions).collect();
        self.log.consumer_of(topic, &partitions, from)
    }

    /// A consumer of some partitions of a topic.
    ///
    /// # Errors
    /// As [`Store::consumer`], and [`Error::PartitionOutOfRange`].
    pub fn consumer_of(&self, topic: &str, partitions: &[u32], from: StartFrom) -> Result<Consumer> {
        self.log.consumer_of(topic, partitions, from)
    }

    /// The UTC day now, by this store's clock.
    pub fn today(&self) -> Day {
        self.log.today()
    }

    /// End offset (next offset to be written) of each partition.
    ///
    /// # Errors
    /// [`Error::TopicNotFound`], [`Error::Io`].
    pub fn end_offsets(&self, topic: &str) -> Result<Vec<u64>> {
        self.log.end_offsets(topic)
    }

    pub(crate) fn topic_dir(&self, topic: &str) -> PathBuf {
        self.log.topic_dir(topic)
    }

    pub(crate) fn config_path(&self, topic: &str) -> PathBuf {
        self.log.config_path(topic)
    }

    /// The line index shared by this store's readers.
    pub(crate) fn index(&self) -> &crate::log::index::LineIndex {
        self.log.index()
    }
}
