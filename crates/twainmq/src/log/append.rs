//! Appending lines to a partition's day files: one O_APPEND `write` per
//! chunk of whole lines on a descriptor kept open; the day rollover agreed
//! with other producers under `flock`; torn tails left by crashed writers
//! ended; files deleted or topics replaced under us noticed after each write.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use crate::error::{Error, Result};
use crate::format::newline::{self, ChunkLines, LineEndCounter};
use crate::log::dir::{LogDir, TopicIncarnation};
use crate::log::files::{self, Day, PartitionFile};
use crate::log::torn::{byte_at_retrying, take_back, terminate_torn_tail};

mod active;
use active::{newer_file_exists, ActiveFile};
mod offsets;

/// Where a message landed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// The partition it went to.
    pub partition: u32,
    /// The file it was appended to.
    pub path: Arc<Path>,
    /// Offset of that file's first line.
    pub file_first: u64,
    /// Byte position of the line in the file, with [`crate::Producer::with_offsets`].
    pub byte_pos: Option<u64>,
}

/// How long before the end of the day its file is named for a producer takes
/// the rollover lock around each append (see [`crate::Producer`]): our producers
/// whose clocks are apart by less than this never give an offset twice.
pub const ROLLOVER_GUARD_SECS: i64 = 30;

/// How often a file near its rollover is counted ahead.
const PRECOUNT_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// How often a producer looks at its topic by path (its folder and config)
/// besides the check of its file's handle after each write. The handle tells
/// a deleted file at once on a local disk; this catches what a handle cannot
/// show: a network file system's file deleted from another machine, a delete
/// left pending under Wine. Readers do the same (`reader.rs`).
pub(crate) const TOPIC_RECHECK: std::time::Duration = std::time::Duration::from_secs(1);
const TOPIC_RECHECK_MICROS: i64 = 1_000_000;

/// A producer asks its file's handle whether the file is still in the store
/// at least every this many writes...
pub(crate) const LINK_CHECK_WRITES: u32 = 64;
/// ... and whenever this long has passed since it last did (UNIX micros, by
/// the producer's clock): a producer sending less often than this checks
/// every write, so a send is reported only once its message is in the store;
/// one sending faster learns of a delete within this time.
pub(crate) const LINK_CHECK_MICROS: i64 = 100;

/// The files a producer appends to: one active day file per partition.
pub(crate) struct Appender {
    log: LogDir,
    topic: String,
    active: Vec<Option<ActiveFile>>,
    /// The topic's folder and config when the producer was opened: a topic
    /// deleted and made again has others (0.2.3 rewrites a config it left
    /// behind in place, but makes a new folder), and then nothing more is
    /// written for the old one.
    incarnation: Option<TopicIncarnation>,
    /// On a network file system: lock each append (O_APPEND alone is not atomic there).
    lock_appends: bool,
    /// Record each write's byte position (for `resolve_offset`).
    pub(crate) locate: bool,
    /// Reserve each write's space before making it (batches): on a full disk
    /// the reservation fails and nothing of the write lands, where a write
    /// alone could land half a line.
    reserve: bool,
    /// When the topic was last looked at by path ([`TOPIC_RECHECK`]), UNIX
    /// micros by the producer's clock.
    topic_checked: i64,
    /// A consumer group's log: every write reserves its space first (0.2.3
    /// reads the whole log at each join and dies on a torn record), and a
    /// torn tail is ended as a record 0.2.3 reads (`torn::end_and_mend_group_tail`).
    group_log: bool,
    /// Lines of the last batch that landed, per partition ([`Appender::batch_landed`]).
    batch_landed: Vec<u64>,
}

impl Appender {
    /// The topic's folder.
    pub(crate) fn dir(&self) -> PathBuf {
        self.log.topic_dir(&self.topic)
    }

    /// The appender of `topic`, whose folder is checked to be a real folder
    /// (not a link) and whose incarnation is taken now.
    pub(crate) fn open(log: &LogDir, topic: &str, partitions: u32) -> Result<Appender> {
        let incarnation = log.topic_incarnation(topic)?;
        let dir = log.topic_dir(topic);
        if std::fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(Error::SymlinkRefused { path: dir });
        }
        if !dir.is_dir() {
            return Err(if log.config_path(topic).is_file() {
                Error::TopicFolderMissing { topic: topic.to_string(), path: dir }
            } else {
                Error::TopicNotFound { topic: topic.to_string(), path: log.config_path(topic) }
            });
        }
        let kind = crate::sys::kind::filesystem_kind(&dir);
        if let crate::sys::kind::FsKind::Network(name) = kind {
            tracing::warn!(topic, fs = name, "the store is on a network file system, where O_APPEND is not atomic between machines: appends are locked; 0.2.3 writers do not lock, so do not run them on other machines at the same time");
        }
        Ok(Appender {
            log: log.clone(),
            topic: topic.to_string(),
            active: (0..partitions).map(|_| None).collect(),
            incarnation,
            lock_appends: kind.is_network(),
            locate: false,
            reserve: false,
            topic_checked: i64::MIN,
            group_log: topic.starts_with(crate::format::name::GROUP_PREFIX),
            batch_landed: Vec::new(),
        })
    }

    /// Append a batch: `per_partition[p]` is partition p's lines. Every
    /// partition's share is reserved first (where the file system can), so
    /// that a full disk fails the batch before any of it lands: what an
    /// import has written stays a prefix of its input. On an error,
    /// [`Appender::batch_landed`] says how many lines landed in each partition
    /// (a prefix of each partition's share).
    pub(crate) fn append_batch(&mut self, per_partition: &[Vec<u8>], now: i64) -> Result<()> {
        self.batch_landed.clear();
        self.batch_landed.resize(per_partition.len(), 0);
        self.reserve = true;
        let result = self.reserve_batch(per_partition, now).and_then(|()| self.append_chunks(per_partition, now));
        self.reserve = false;
        result
    }

    /// A batch is about to be sent: nothing of it has landed yet.
    pub(crate) fn forget_batch(&mut self) {
        self.batch_landed.clear();
    }

    /// Lines of the last batch that landed in each partition, after it failed
    /// (a prefix of each partition's share; all zero when nothing landed).
    pub(crate) fn batch_landed(&self) -> &[u64] {
        &self.batch_landed
    }

    /// Reserve each partition's share of a batch at the end of its file.
    fn reserve_batch(&mut self, per_partition: &[Vec<u8>], now: i64) -> Result<()> {
        for (p, buf) in (0u32..).zip(per_partition) {
            if buf.is_empty() {
                continue;
            }
            let i = p as usize;
            if self.active.get(i).and_then(Option::as_ref).is_some_and(|a| now >= a.day_end) {
                self.active[i] = None;
            }
            if self.active[i].is_none() {
                match self.open_active(p, Day::from_unix_micros(now)) {
                    Ok(a) => self.active[i] = Some(a),
                    Err(e) => {
                        if matches!(e, Error::TopicDeleted { .. }) {
                            self.drop_files();
                        }
                        return Err(e);
                    }
                }
            }
            let Some(active) = self.active[i].as_ref() else { continue };
            crate::sys::reserve::reserve(&active.file, active.our_end, buf.len())
                .map_err(|e| Error::io("make room to append to", active.path.to_path_buf(), e))?;
        }
        Ok(())
    }

    fn append_chunks(&mut self, per_partition: &[Vec<u8>], now: i64) -> Result<()> {
        const CHUNK: usize = 64 << 10;
        for (p, buf) in (0u32..).zip(per_partition) {
            let mut start = 0;
            while start < buf.len() {
                // Cut at the last newline within CHUNK so every write is whole lines.
                let limit = (start + CHUNK).min(buf.len());
                let end =
                    if limit == buf.len() { limit } else { memchr::memrchr(b'\n', &buf[start..limit]).map_or(limit, |i| start + i + 1) };
                if let Err(e) = self.append(p, now, &buf[start..end]) {
                    // Counted only on a failure (a success costs no pass over the batch):
                    // the partitions before this one took their whole share, this one
                    // the lines before this write (a short write is cut off again or ended).
                    let count = |b: &[u8]| memchr::memchr_iter(b'\n', b).count() as u64;
                    let i = p as usize;
                    for (q, n) in self.batch_landed.iter_mut().enumerate() {
                        *n = match q.cmp(&i) {
                            std::cmp::Ordering::Less => per_partition.get(q).map_or(0, |b| count(b)),
                            std::cmp::Ordering::Equal => count(&buf[..start]),
                            std::cmp::Ordering::Greater => 0,
                        };
                    }
                    return Err(e);
                }
                start = end;
            }
        }
        Ok(())
    }
    pub(crate) fn append(&mut self, partition: u32, now: i64, bytes: &[u8]) -> Result<Delivery> {
        let p = partition as usize;
        // A new UTC day for this partition's file: it moves to the day's file on
        // this write. A clock that went back keeps the file it has: the newest
        // file is where a write of an earlier day goes anyway (`pick_existing`),
        // and reopening it on every flip of a clock about midnight is slow.
        if self.active.get(p).and_then(Option::as_ref).is_some_and(|a| now >= a.day_end) {
            self.active[p] = None;
        }
        // Each pass either writes, or moves to a file that replaces the active
        // one (a later file appeared, or the file was deleted alone); a few
        // passes at most, unless files keep vanishing under us.
        for _ in 0..16 {
            if self.active[p].is_none() {
                match self.open_active(partition, Day::from_unix_micros(now)) {
                    Ok(a) => self.active[p] = Some(a),
                    Err(e) => {
                        if matches!(e, Error::TopicDeleted { .. }) {
                            self.drop_files();
                        }
                        return Err(e);
                    }
                }
            }
            let Some(active) = self.active[p].as_mut() else { continue };
            // Near the end of the file's day, another producer (its clock ahead)
            // may be about to start the next file: hold the file's rollover lock
            // (shared between appenders, exclusive for the one making the next
            // file) and make sure no later file exists before writing here. On a
            // network file system every append is locked, exclusively.
            let near_rollover = now >= active.guard_from;
            let guarded = self.lock_appends || near_rollover;
            let mode = if self.lock_appends { crate::sys::lock::Mode::Exclusive } else { crate::sys::lock::Mode::Shared };
            let held = if guarded {
                Some(crate::sys::lock::lock(&active.file, mode).map_err(|e| Error::io("lock", active.path.to_path_buf(), e))?)
            } else {
                None
            };
            if near_rollover && active.precounted.is_none_or(|t| t.elapsed() >= PRECOUNT_EVERY) {
                // Whoever starts the next file counts this one under the rollover
                // locks, stalling our appenders meanwhile: keep the shared index
                // counted ahead (incrementally), so that count reads a second's
                // appends at most. Best effort: a failure here only costs time later.
                active.precounted = Some(Instant::now());
                let _ = self.log.index().count(&active.path);
            }
            let key = (active.day, active.first);
            if near_rollover
                && newer_file_exists(&self.log.topic_dir(&self.topic), partition, key, &mut active.dir_seen, self.lock_appends)?
            {
                drop(held);
                // Join the later file: open_active picks the partition's newest.
                self.active[p] = None;
                continue;
            }
            if self.reserve || self.group_log {
                crate::sys::reserve::reserve(&active.file, active.our_end, bytes.len())
                    .map_err(|e| Error::io("make room to append to", active.path.to_path_buf(), e))?;
            }
            let written = loop {
                match (&active.file).write(bytes) {
                    Ok(n) => break Ok(n),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => break Err(Error::io("append to", active.path.to_path_buf(), e)),
                }
            };
            drop(held);
            let written = match written {
                Ok(n) => n,
                Err(e) => {
                    active.our_end = None;
                    return Err(e);
                }
            };
            if written != bytes.len() {
                // Half a line is on disk. Cut off again when nothing came after it;
                // otherwise the next write checks for it and ends it first.
                active.our_end = None;
                let taken_back = take_back(&active.file, &active.path, written);
                return Err(Error::ShortWrite { path: active.path.to_path_buf(), written, len: bytes.len(), taken_back });
            }
            // Whether the file is still in the store (its link count, or a pending
            // delete) and how long it is are asked of the handle every
            // LINK_CHECK_WRITES writes or LINK_CHECK_MICROS, whichever comes first
            // (at every write for a batch, for a producer that records positions,
            // and on a network file system, where appends are locked anyway): a
            // delete is rare, and the check and an `lseek` cost half a one-message
            // send. In between, a write is taken to land at our previous end, and
            // its line is kept; at the check, a file longer than our writes made it
            // means another writer wrote in between: each of our lines since the
            // last check is then looked for, whole, in what was written since, and
            // one glued to another writer's torn line is written again (`verify`).
            let due = self.lock_appends
                || self.reserve
                || self.locate
                || active.our_end.is_none()
                || active.writes_since_check >= LINK_CHECK_WRITES
                || now < active.checked_at
                || now.saturating_sub(active.checked_at) >= LINK_CHECK_MICROS;
            let crate::sys::open::FileState { linked, size } = if due {
                active.writes_since_check = 0;
                active.checked_at = now;
                crate::sys::open::file_state(&active.file)
            } else {
                active.writes_since_check += 1;
                // Taken to land at our previous end, and kept to be checked.
                let Some(e) = active.our_end else { continue };
                active.window.extend_from_slice(bytes);
                let end = e.saturating_add(bytes.len() as u64);
                active.our_end = Some(end);
                let byte_pos = None;
                return Ok(Delivery { partition, path: active.path.clone(), file_first: active.first, byte_pos });
            };
            // The handle's word is final on local disks; where it cannot tell
            // (a network file system another machine deleted from, a pending
            // delete under Wine) the topic itself is looked at now and then.
            // (The field, not a method: `active` borrows `self.active`.)
            if linked && (now < self.topic_checked || now.saturating_sub(self.topic_checked) >= TOPIC_RECHECK_MICROS) {
                let path = active.path.to_path_buf();
                if let Err(e) = self.check_topic_is_ours(&path) {
                    self.drop_files();
                    return Err(e);
                }
                self.topic_checked = now;
            }
            let Some(active) = self.active[p].as_mut() else { continue };
            if !linked {
                // The file is gone from the store (deleted with its topic, or alone):
                // what we wrote is not in the store.
                let path = active.path.to_path_buf();
                self.active[p] = None;
                if let Err(e) = self.check_topic_is_ours(&path) {
                    self.drop_files();
                    return Err(e);
                }
                tracing::warn!(file = %path.display(), "the partition file was deleted while the topic stayed: writing to a new file");
                continue;
            }
            let len = bytes.len() as u64;
            // When the size (from the check) is exactly our previous end plus this
            // write, nobody wrote before or after us since the last check: the
            // lines kept are where we took them to be, and no lseek is needed.
            let mut rewrote = false;
            let (mut start, mut end) = match (active.our_end, size) {
                (Some(e), Some(size)) if e.checked_add(len) == Some(size) => (e, size),
                (known, _) => {
                    // With O_APPEND the descriptor's position is the end of our write.
                    let end = active.file.stream_position().map_err(|e| Error::io("locate a write in", active.path.to_path_buf(), e))?;
                    if known.is_some() && !active.window.is_empty() {
                        // Another writer wrote since the last check: our lines since then are looked for.
                        rewrote = active
                            .verify(end.saturating_sub(len))
                            .map_err(|e| Error::io("check the lines written to", active.path.to_path_buf(), e))?;
                    }
                    (end.saturating_sub(len), end)
                }
            };
            active.window.clear();
            if start > 0 && active.our_end != Some(start) {
                // Someone else wrote in between (or this is our first write): if they
                // left a torn line, our first line was glued to it, and its newline
                // ended that line. Write that line again, on a line of its own; readers
                // skip the glued line as damaged. Only the first: the lines after it in
                // this write (a batch's) follow our own newline and are whole, so
                // writing them again would store them twice.
                if !newline::is_line_end(active.byte_at(start - 1).map_err(|e| Error::io("read", active.path.to_path_buf(), e))?) {
                    tracing::warn!(file = %active.path.display(), "a message landed after a line torn by another writer; writing it again on a line of its own");
                    let first_line = memchr::memchr(b'\n', bytes).map_or(bytes, |nl| &bytes[..=nl]);
                    active.file.write_all(first_line).map_err(|e| Error::io("append to", active.path.to_path_buf(), e))?;
                    end = active.file.stream_position().map_err(|e| Error::io("locate a write in", active.path.to_path_buf(), e))?;
                    start = end.saturating_sub(first_line.len() as u64);
                }
            }
            if rewrote {
                // Lines written again after this one: the file's end is past them.
                end = active.file.stream_position().map_err(|e| Error::io("locate a write in", active.path.to_path_buf(), e))?;
            }
            active.our_end = Some(end);
            active.window_from = end;
            let byte_pos = if self.locate { Some(start) } else { None };
            return Ok(Delivery { partition, path: active.path.clone(), file_first: active.first, byte_pos });
        }
        Err(Error::io(
            "append to",
            self.log.topic_dir(&self.topic),
            std::io::Error::other("the partition's files kept being deleted or replaced while writing"),
        ))
    }
    /// Ask each open file whether it is still in the store and how long it is,
    /// and look for our lines written since its last check, writing again any
    /// glued to another writer's torn line (see `append`).
    ///
    /// # Errors
    /// [`Error::TopicDeleted`] when a file was deleted with its topic; I/O errors.
    pub(crate) fn settle(&mut self) -> Result<()> {
        for p in 0..self.active.len() {
            let Some(active) = self.active[p].as_mut() else { continue };
            if active.window.is_empty() {
                continue;
            }
            let crate::sys::open::FileState { linked, size } = crate::sys::open::file_state(&active.file);
            if !linked {
                let path = active.path.to_path_buf();
                self.active[p] = None;
                self.check_topic_is_ours(&path)?;
                continue;
            }
            if size.is_some() && size != active.our_end {
                let upto = size.unwrap_or(0);
                let rewrote = active.verify(upto).map_err(|e| Error::io("check the lines written to", active.path.to_path_buf(), e))?;
                let _ = rewrote;
                active.our_end =
                    Some(active.file.stream_position().map_err(|e| Error::io("locate a write in", active.path.to_path_buf(), e))?);
            }
            active.window.clear();
            active.writes_since_check = 0;
            active.window_from = active.our_end.unwrap_or(0);
        }
        Ok(())
    }

    /// Let go of every file (the topic is gone): a delete waiting for its
    /// folder to empty is not kept waiting by us.
    fn drop_files(&mut self) {
        for a in &mut self.active {
            *a = None;
        }
    }

    /// Fail with [`Error::TopicDeleted`] unless the topic's folder and config
    /// are those this producer was opened with (it was deleted, or deleted and
    /// made again, possibly with another partition count).
    fn check_topic_is_ours(&self, path: &Path) -> Result<()> {
        let now = self.log.topic_incarnation(&self.topic)?;
        if now.is_none() || now != self.incarnation || !self.log.topic_dir(&self.topic).is_dir() {
            return Err(Error::TopicDeleted { topic: self.topic.clone(), path: path.to_path_buf() });
        }
        Ok(())
    }
}

impl Drop for Appender {
    /// What was sent since the last check is made whole (best effort: an
    /// error here has no caller to go to, so it is logged).
    fn drop(&mut self) {
        if let Err(e) = self.settle() {
            tracing::warn!(topic = %self.topic, error = %e, "the last messages sent could not be checked in the store");
        }
    }
}
