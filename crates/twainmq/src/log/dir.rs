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
use crate::log::files::{self, Day, PartitionFile};
use crate::log::index::LineIndex;
use crate::sys::identity::FileIdentity;

mod spec;
pub use spec::TopicSpec;

/// Which topic of a name a store holds: appends and settings changes (a
/// config rewritten, by us, 0.2.3 or by hand) leave it as it is; deleting the
/// topic and making it again (by any process, 0.2.3 included) gives another.
/// It is the identity of the topic's folder (every maker of a topic makes a
/// new folder; 0.2.3 may leave the old config and rewrite it in place) and
/// whether its config is there. Readers stop with [`Error::TopicDeleted`]
/// when it changes under them; a viewer compares it to tell the topic it
/// showed from a new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopicIncarnation {
    folder: Option<FileIdentity>,
    config: bool,
}

impl std::fmt::Display for TopicIncarnation {
    /// An opaque token, equal for equal incarnations.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let folder = self.folder.map_or_else(|| "-".to_string(), |i| i.to_string());
        write!(f, "d:{folder}/c:{}", u8::from(self.config))
    }
}

impl TopicIncarnation {
    /// The incarnation of the topic whose folder and config are at these
    /// paths; `None` when neither is there.
    pub(crate) fn at(folder: &Path, config: &Path) -> Option<TopicIncarnation> {
        let folder = FileIdentity::at(folder);
        let config = fs::symlink_metadata(config).is_ok();
        (folder.is_some() || config).then_some(TopicIncarnation { folder, config })
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
        check_usable(topic)?;
        Ok(TopicIncarnation::at(&self.topic_dir(topic), &self.config_path(topic)))
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
        if let Some(max) = spec.max_message_bytes {
            let limit = crate::format::multipart::MAX_MESSAGE_BYTES_LIMIT;
            if !(1..=limit).contains(&max) {
                return Err(Error::InvalidTopicOption {
                    option: "max_message_bytes",
                    reason: format!("{max} is not 1 to {limit} (64 MiB)"),
                });
            }
            crate::format::config::large_messages_fit(spec.key_type)
                .map_err(|reason| Error::InvalidTopicOption { option: "max_message_bytes", reason })?;
        }
        for (i, t) in spec.message_types.iter().enumerate() {
            validate_type_name(t)?;
            if spec.message_types[..i].contains(t) {
                return Err(Error::InvalidMessageTypeName { name: t.clone(), reason: "it is listed twice" });
            }
        }
        // Type ids are 0 to 65534 (0.2.3's list of at most 65535 names).
        let too_many = match &spec.type_ids {
            Some(ids) => ids.contains(&u16::MAX),
            None => spec.message_types.len() > usize::from(u16::MAX),
        };
        if too_many {
            return Err(Error::InvalidMessageTypeName { name: String::new(), reason: "a topic has at most 65535 message types" });
        }
        let dir = self.topic_dir(topic);
        let cfg_path = self.config_path(topic);
        // First: where names ignore case, the twin's config "exists" under this name.
        self.refuse_case_twin(topic)?;
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
        let mut config = TopicConfig::new(spec.key_type, spec.partitions, &[]);
        config.message_types = spec.numbered_types();
        config.max_message_bytes = spec.max_message_bytes;
        config.extra = extra;
        if spec.key_type.is_free() {
            // The key table exists before the config that makes the topic appear:
            // a producer never finds a topic with free keys and no table.
            if let Err(e) = crate::log::keys::create(&crate::log::keys::path_in(&dir)) {
                let _ = fs::remove_dir(&dir);
                return Err(e);
            }
        }
        // Write under a name 0.2.3 ignores (not `*.twc`), then rename: readers never see half a config.
        let tmp = self.root.join(format!(".{topic}.twc.tmp-{}", std::process::id()));
        let write = fs::write(&tmp, config.to_bytes())
            .map_err(|e| Error::io("write", &tmp, e))
            .and_then(|()| fs::rename(&tmp, &cfg_path).map_err(|e| Error::io("rename into place", &cfg_path, e)));
        if let Err(e) = write {
            let _ = fs::remove_file(&tmp);
            let _ = fs::remove_file(crate::log::keys::path_in(&dir));
            let _ = fs::remove_dir(&dir);
            return Err(e);
        }
        Ok(config)
    }

    /// Refuse `topic` (or a group log) when the store has no entry of exactly
    /// that name but has a topic's, group's or folder's equal to it but for
    /// case: on disks that ignore case (NTFS, APFS) the two would be one folder
    /// and one config, elsewhere two.
    pub(crate) fn refuse_case_twin(&self, topic: &str) -> Result<()> {
        let entries = fs::read_dir(&self.root).map_err(|e| Error::io("list", &self.root, e))?;
        let mut twin = None;
        for entry in entries {
            let entry = entry.map_err(|e| Error::io("list", &self.root, e))?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let stem = name.strip_suffix(".twc").unwrap_or(name);
            if stem == topic {
                return Ok(());
            }
            if twin.is_none() && stem.eq_ignore_ascii_case(topic) {
                twin = Some(stem.to_string());
            }
        }
        let Some(existing) = twin else { return Ok(()) };
        let problem = |existing: &str| crate::error::NameProblem::CaseTwin { existing: existing.to_string() };
        Err(match (topic.strip_prefix(name::GROUP_PREFIX), existing.strip_prefix(name::GROUP_PREFIX)) {
            (Some(group), Some(existing)) => Error::InvalidGroupName { name: group.to_string(), problem: problem(existing) },
            _ => Error::InvalidTopicName { name: topic.to_string(), problem: problem(&existing) },
        })
    }

    /// The config of a topic or group log.
    pub(crate) fn topic_config(&self, topic: &str) -> Result<TopicConfig> {
        check_usable(topic)?;
        TopicConfig::load(topic, &self.config_path(topic))
    }

    /// Delete a topic's (or group log's) config and folder; never follows a
    /// link out of the store, and refuses before removing anything.
    ///
    /// All or nothing where another process can refuse a delete (Windows:
    /// 0.2.3 holds its files without sharing delete): the config and every
    /// file are claimed first (`sys::remove`), retried with back-off while
    /// one is held, and only once all are claimed is anything deleted, config
    /// first (the topic leaves every listing before its data goes). So a
    /// refused delete leaves the topic whole and usable.
    ///
    /// Where deleted files linger while others hold them open (a classic
    /// delete: FAT, SMB shares, Wine), the emptied folder is renamed out of the
    /// way, to a hidden `.{topic}.deleted-…` that no listing reads, so the name
    /// is free at once; it is removed by a later delete once its holders have
    /// closed it.
    ///
    /// # Errors
    /// [`Error::TopicNotFound`], [`Error::SymlinkRefused`], [`Error::NotAFile`],
    /// [`Error::FileInUse`] (nothing changed), [`Error::Io`].
    pub(crate) fn delete_topic(&self, topic: &str) -> Result<()> {
        check_usable(topic)?;
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
        self.sweep_deleted();
        let mut files = Vec::new();
        if cfg_meta.is_some() {
            files.push(cfg);
        }
        let mut dirs = Vec::new();
        if dir_meta.is_some() {
            entries_deepest_first(&dir, &mut files, &mut dirs)?;
        }
        crate::sys::remove::claim("delete", &files)?.delete("delete")?;
        // Files made in the folder since it was listed (a producer's next day
        // file) are claimed and deleted in turn, a few times at most.
        for _ in 0..4 {
            let mut emptied = true;
            for d in &dirs {
                emptied &= crate::sys::remove::remove_empty_dir(d, std::time::Duration::from_millis(250))?;
            }
            if emptied || dirs.is_empty() {
                return Ok(());
            }
            let (mut more, mut more_dirs) = (Vec::new(), Vec::new());
            entries_deepest_first(&dir, &mut more, &mut more_dirs)?;
            crate::sys::remove::claim("delete", &more)?.delete("delete")?;
            dirs = more_dirs;
        }
        // What stays is deleted but held open by others: free the name.
        let trash = self.root.join(format!(".{topic}.deleted-{}-{}", std::process::id(), crate::sys::remove::unique_number()));
        match fs::rename(&dir, &trash) {
            Ok(()) => {
                tracing::info!(topic, folder = %trash.display(), "the topic's deleted files are held open by other processes: its folder waits, renamed, until they close them")
            }
            Err(e) => {
                tracing::warn!(topic, folder = %dir.display(), error = %e, "the topic's deleted files are held open by other processes: its emptied folder stays until they close them")
            }
        }
        Ok(())
    }

    /// Remove what earlier deletes left renamed (`.{topic}.deleted-…`) once
    /// nothing holds it any more; best effort.
    fn sweep_deleted(&self) {
        let Ok(entries) = fs::read_dir(&self.root) else { return };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if name.starts_with('.') && name.contains(".deleted-") && entry.file_type().is_ok_and(|t| t.is_dir()) {
                let _ = fs::remove_dir_all(entry.path());
            }
        }
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

    /// First offset on disk (the first file's first) of each partition.
    pub(crate) fn start_offsets(&self, topic: &str) -> Result<Vec<u64>> {
        let config = self.topic_config(topic)?;
        let listing = files::list_topic_dir(&self.topic_dir(topic), config.partitions)?;
        Ok(listing.partitions.iter().map(|f| f.first().map_or(0, |x| x.first)).collect())
    }

    /// End offset of a partition from its files: the last file's first + its complete lines.
    pub(crate) fn partition_end(&self, files: &[PartitionFile]) -> Result<u64> {
        self.index.end_of(files)
    }
}

/// Check that `topic` may be read here: [`validate_readable`], and on Windows
/// a name Windows can hold (a topic `CON` made on Linux is reported there,
/// never opened: Windows would open the console device, outside the store).
fn check_usable(topic: &str) -> Result<()> {
    validate_readable(topic)?;
    if crate::sys::DEVICE_NAMES_ARE_DEVICES {
        if let Some(problem) = name::windows_problem(topic) {
            return Err(Error::InvalidTopicName { name: topic.to_string(), problem });
        }
    }
    Ok(())
}

/// The entries under `dir`, never through a link: files (and links, as
/// themselves) into `files`, folders into `dirs`, each folder after what it
/// holds, `dir` last.
fn entries_deepest_first(dir: &Path, files: &mut Vec<PathBuf>, dirs: &mut Vec<PathBuf>) -> Result<()> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io("list", dir, e)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("list", dir, e))?;
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            entries_deepest_first(&path, files, dirs)?;
        } else {
            files.push(path);
        }
    }
    dirs.push(dir.to_path_buf());
    Ok(())
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
        TopicConfig::parse_checked(&bytes).map_err(|p| match p {
            crate::format::config::ConfigProblem::Corrupt(reason) => {
                Error::CorruptConfig { topic: topic.to_string(), path: path.to_path_buf(), reason }
            }
            crate::format::config::ConfigProblem::Newer(feature) => {
                Error::NewerFormat { topic: topic.to_string(), path: path.to_path_buf(), feature }
            }
        })
    }
}
