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
use crate::log::dir::{LogDir, TopicIncarnation};
use crate::log::files::{self, Day, PartitionFile};
use crate::log::torn::{byte_at_retrying, terminate_torn_tail};

const MICROS_PER_DAY: i64 = 86_400_000_000;

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

struct ActiveFile {
    first: u64,
    /// The day in the file's name.
    day: Day,
    path: Arc<Path>,
    file: File,
    /// Lines counted in `[0, counted_pos)`, for resolving offsets incrementally.
    counted_pos: u64,
    counted_lines: u64,
    /// Where our last write ended: when the next one starts there, the byte
    /// before it is our own newline and needs no check.
    our_end: Option<u64>,
    /// For reading the byte before a write (opened on first need).
    reader: Option<File>,
    /// The topic folder's modification time when we last listed it and found
    /// no newer file, and when that listing was made: while the time is the
    /// same (and the listing came well after it), no file was added since.
    dir_seen: Option<(std::time::SystemTime, std::time::SystemTime)>,
    /// When the file's lines were last counted ahead of a rollover.
    precounted: Option<Instant>,
    /// From this time (UNIX micros) appends hold the rollover lock: the end of
    /// the file's day less [`ROLLOVER_GUARD_SECS`].
    guard_from: i64,
}

impl ActiveFile {
    fn byte_at(&mut self, pos: u64) -> std::io::Result<u8> {
        if self.reader.is_none() {
            self.reader = Some(crate::sys::open::open_regular(&self.path, false).map_err(std::io::Error::other)?);
        }
        let r = self.reader.as_ref().ok_or_else(|| std::io::Error::other("no reader"))?;
        byte_at_retrying(r, pos)?
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::UnexpectedEof, format!("the file is shorter than {pos} bytes")))
    }
}

/// How long before the end of the day its file is named for a producer takes
/// the rollover lock around each append (see [`crate::Producer`]): our producers
/// whose clocks are apart by less than this never give an offset twice.
pub const ROLLOVER_GUARD_SECS: i64 = 30;

/// How often a file near its rollover is counted ahead.
const PRECOUNT_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// A topic folder listing is trusted to be current from its modification time
/// only this long after that time (coarse timestamps on some file systems).
const DIR_MTIME_SLACK: std::time::Duration = std::time::Duration::from_secs(3);

/// The files a producer appends to: one active day file per partition.
pub(crate) struct Appender {
    log: LogDir,
    topic: String,
    active: Vec<Option<ActiveFile>>,
    /// Micros range of the day the active files belong to.
    day_range: (i64, i64),
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
            return Err(Error::TopicNotFound { topic: topic.to_string(), path: dir });
        }
        let kind = crate::sys::kind::filesystem_kind(&dir);
        if let crate::sys::kind::FsKind::Network(name) = kind {
            tracing::warn!(topic, fs = name, "the store is on a network file system, where O_APPEND is not atomic between machines: appends are locked; 0.2.3 writers do not lock, so do not run them on other machines at the same time");
        }
        Ok(Appender {
            log: log.clone(),
            topic: topic.to_string(),
            active: (0..partitions).map(|_| None).collect(),
            day_range: (0, 0),
            incarnation,
            lock_appends: kind.is_network(),
            locate: false,
            reserve: false,
        })
    }

    pub(crate) fn append_batch(&mut self, per_partition: &[Vec<u8>], now: i64) -> Result<()> {
        self.reserve = true;
        let result = self.append_chunks(per_partition, now);
        self.reserve = false;
        result
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
                self.append(p, now, &buf[start..end])?;
                start = end;
            }
        }
        Ok(())
    }
    pub(crate) fn append(&mut self, partition: u32, now: i64, bytes: &[u8]) -> Result<Delivery> {
        if now < self.day_range.0 || now >= self.day_range.1 {
            // A new UTC day: every partition moves to a new file on its next write.
            let day_start = now.div_euclid(MICROS_PER_DAY) * MICROS_PER_DAY;
            self.day_range = (day_start, day_start + MICROS_PER_DAY);
            for a in &mut self.active {
                *a = None;
            }
        }
        let p = partition as usize;
        // Each pass either writes, or moves to a file that replaces the active
        // one (a later file appeared, or the file was deleted alone); a few
        // passes at most, unless files keep vanishing under us.
        for _ in 0..16 {
            if self.active[p].is_none() {
                self.active[p] = Some(self.open_active(partition, Day::from_unix_micros(now))?);
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
            if self.reserve {
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
                // Half a line is on disk: the next write checks for it and ends it first.
                active.our_end = None;
                return Err(Error::ShortWrite { path: active.path.to_path_buf(), written, len: bytes.len() });
            }
            // One fstat tells both whether the file is still in the store (its link
            // count) and, in the common case, where our write ended: when the size
            // is exactly our previous end plus this write, nobody wrote before or
            // after us, so the line starts at our previous end (our own newline
            // precedes it) and no lseek or glue check is needed. It takes the
            // place of the lseek every write paid before.
            let (linked, size) = crate::sys::open::link_and_size(&active.file);
            if !linked {
                // The file is gone from the store (deleted with its topic, or alone):
                // what we wrote is not in the store.
                let path = active.path.to_path_buf();
                self.active[p] = None;
                self.check_topic_is_ours(&path)?;
                tracing::warn!(file = %path.display(), "the partition file was deleted while the topic stayed: writing to a new file");
                continue;
            }
            let len = bytes.len() as u64;
            let (mut start, mut end) = match (active.our_end, size) {
                (Some(e), Some(size)) if e.checked_add(len) == Some(size) => (e, size),
                _ => {
                    // With O_APPEND the descriptor's position is the end of our write.
                    let end = active.file.stream_position().map_err(|e| Error::io("locate a write in", active.path.to_path_buf(), e))?;
                    (end.saturating_sub(len), end)
                }
            };
            if start > 0 && active.our_end != Some(start) {
                // Someone else wrote in between (or this is our first write): if they
                // left a torn line, ours was glued to it, and our newline ended that
                // line. Write ours again, now on a line of its own; readers skip the
                // glued line as damaged.
                if active.byte_at(start - 1).map_err(|e| Error::io("read", active.path.to_path_buf(), e))? != b'\n' {
                    tracing::warn!(file = %active.path.display(), "a message landed after a line torn by another writer; writing it again on a line of its own");
                    active.file.write_all(bytes).map_err(|e| Error::io("append to", active.path.to_path_buf(), e))?;
                    end = active.file.stream_position().map_err(|e| Error::io("locate a write in", active.path.to_path_buf(), e))?;
                    start = end.saturating_sub(bytes.len() as u64);
                }
            }
            active.our_end = Some(end);
            let byte_pos = if self.locate { Some(start) } else { None };
            return Ok(Delivery { partition, path: active.path.clone(), file_first: active.first, byte_pos });
        }
        Err(Error::io(
            "append to",
            self.log.topic_dir(&self.topic),
            std::io::Error::other("the partition's files kept being deleted or replaced while writing"),
        ))
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
    /// The file of `partition` to append to on `day` (by our clock): the
    /// partition's file of a later day if there is one (another producer's clock
    /// is ahead: appending there keeps offsets in file order), else today's, else
    /// a new one, made under the rollover locks.
    fn open_active(&self, partition: u32, day: Day) -> Result<ActiveFile> {
        let dir = self.log.topic_dir(&self.topic);
        self.check_topic_is_ours(&dir)?;
        let files = files::list_partition(&dir, partition)?;
        if let Some((path, first, fday)) = self.pick_existing(&files, partition, day) {
            return self.open_file(path, first, fday);
        }
        // Make the file. Two of our producers making files for this partition
        // take turns on the folder's lock; the one that makes it counts the
        // previous file under that file's exclusive lock, so no append of ours
        // lands there once it is counted (appenders near a rollover hold it shared).
        // Count the previous file first, unlocked: under the locks only what was
        // appended since is read (the locks stall our appenders, the count of a
        // big file does not have to).
        if let Some(prev) = files.iter().max_by_key(|f| (f.day, f.first)) {
            self.log.index().count(&prev.path)?;
        }
        // (Folders are opened and locked like files on Unix only; elsewhere flock is a no-op anyway.)
        #[cfg(unix)]
        let _dir_lock = {
            let handle = std::fs::File::open(&dir).map_err(|e| Error::io("open", &dir, e))?;
            crate::sys::lock::lock_owned(handle, crate::sys::lock::Mode::Exclusive).map_err(|e| Error::io("lock", &dir, e))?
        };
        let files = files::list_partition(&dir, partition)?;
        if let Some((path, first, fday)) = self.pick_existing(&files, partition, day) {
            return self.open_file(path, first, fday);
        }
        // 0.2.3 starts the new file after the latest one's lines, counting a torn last line.
        let (first, _prev_lock) = match files.iter().max_by_key(|f| (f.day, f.first)) {
            Some(prev) => {
                let handle = crate::sys::open::open_regular(&prev.path, false)?;
                let held = crate::sys::lock::lock_owned(handle, crate::sys::lock::Mode::Exclusive)
                    .map_err(|e| Error::io("lock", prev.path.clone(), e))?;
                let lines = self.log.index().count(&prev.path)?.python_lines();
                let first = prev.first.checked_add(lines).filter(|f| *f <= files::MAX_FIRST_OFFSET).ok_or_else(|| {
                    Error::io(
                        "start a new file after",
                        prev.path.clone(),
                        std::io::Error::other("its first offset plus its lines is out of range: the file name is damaged"),
                    )
                })?;
                (first, Some(held))
            }
            None => (0, None),
        };
        let path = dir.join(PartitionFile::file_name(partition, day, first));
        self.open_file(path, first, day)
    }
    /// The existing file to append to, as [`Appender::open_active`] decides.
    fn pick_existing(&self, files: &[PartitionFile], partition: u32, day: Day) -> Option<(PathBuf, u64, Day)> {
        let last = files.iter().max_by_key(|f| (f.day, f.first))?;
        if last.day > day {
            tracing::warn!(topic = %self.topic, partition, file = %last.path.display(), today = %day, "the partition's newest file is dated after today (clock skew?); appending to it");
            return Some((last.path.clone(), last.first, last.day));
        }
        let today: Vec<&PartitionFile> = files.iter().filter(|f| f.day == day).collect();
        if today.len() > 1 {
            tracing::warn!(topic = %self.topic, partition, day = %day, "several files for one day (a rollover race); appending to the one read last");
        }
        today.last().map(|f| (f.path.clone(), f.first, f.day))
    }
    fn open_file(&self, path: PathBuf, first: u64, day: Day) -> Result<ActiveFile> {
        let day_end =
            day.date().and_then(|d| d.succ_opt()).and_then(|d| d.and_hms_opt(0, 0, 0)).map_or(i64::MAX, |t| t.and_utc().timestamp_micros());
        let mut file = crate::sys::open::open_regular(&path, true)?;
        terminate_torn_tail(&mut file, &path)?;
        Ok(ActiveFile {
            first,
            day,
            path: path.into(),
            file,
            counted_pos: 0,
            counted_lines: 0,
            our_end: None,
            reader: None,
            dir_seen: None,
            precounted: None,
            guard_from: day_end.saturating_sub(ROLLOVER_GUARD_SECS * 1_000_000),
        })
    }
    /// The offset of a delivered message, found by counting the lines before it.
    /// Counting resumes where the last call stopped, so resolving every send
    /// only reads what other producers appended in between.
    ///
    /// # Errors
    /// [`Error::Io`]; an error too when the platform gave no byte position.
    pub(crate) fn resolve_offset(&mut self, d: &Delivery) -> Result<u64> {
        let Some(pos) = d.byte_pos else {
            return Err(Error::io(
                "locate the message in",
                d.path.to_path_buf(),
                std::io::Error::other("no position was recorded: open the producer with_offsets(true)"),
            ));
        };
        let reuse = self.active.get_mut(d.partition as usize).and_then(|a| a.as_mut()).filter(|a| a.path == d.path && a.counted_pos <= pos);
        let (mut counted_pos, mut counted_lines) = reuse.as_ref().map_or((0, 0), |a| (a.counted_pos, a.counted_lines));
        let mut f = crate::sys::open::open_regular(&d.path, false)?;
        f.seek(SeekFrom::Start(counted_pos)).map_err(|e| Error::io("read", d.path.to_path_buf(), e))?;
        let mut buf = vec![0u8; 1 << 16];
        while counted_pos < pos {
            // Holes of a sparse file hold no newline: skip them, never read gigabytes of zeros.
            let data = crate::sys::open::next_data(&f, counted_pos).unwrap_or(pos).min(pos);
            if data > counted_pos {
                counted_pos = data;
                f.seek(SeekFrom::Start(counted_pos)).map_err(|e| Error::io("read", d.path.to_path_buf(), e))?;
                continue;
            }
            f.seek(SeekFrom::Start(counted_pos)).map_err(|e| Error::io("read", d.path.to_path_buf(), e))?;
            let want = usize::try_from(pos - counted_pos).unwrap_or(usize::MAX).min(buf.len());
            let n = f.read(&mut buf[..want]).map_err(|e| Error::io("read", d.path.to_path_buf(), e))?;
            if n == 0 {
                break;
            }
            counted_lines += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
            counted_pos += n as u64;
        }
        if let Some(a) = self.active.get_mut(d.partition as usize).and_then(|a| a.as_mut()).filter(|a| a.path == d.path) {
            a.counted_pos = counted_pos;
            a.counted_lines = counted_lines;
        }
        Ok(d.file_first + counted_lines)
    }
}

/// Whether `partition` has a file after `active` in reading order. Listing the
/// folder is skipped while its modification time shows nothing was added since
/// the last listing (trusted only on a local file system, and only for a
/// listing made well after that time).
fn newer_file_exists(
    dir: &Path,
    partition: u32,
    key: (Day, u64),
    dir_seen: &mut Option<(std::time::SystemTime, std::time::SystemTime)>,
    network: bool,
) -> Result<bool> {
    let mtime = std::fs::metadata(dir).and_then(|m| m.modified()).ok();
    if let (false, Some(m), Some((seen, listed_at))) = (network, mtime, *dir_seen) {
        if m == seen && listed_at.duration_since(m).is_ok_and(|d| d >= DIR_MTIME_SLACK) {
            return Ok(false);
        }
    }
    let listed_at = std::time::SystemTime::now();
    // The same order as `pick_existing`'s choice of the newest file.
    let newer = files::list_partition(dir, partition)?.iter().any(|f| (f.day, f.first) > key);
    *dir_seen = if newer { None } else { mtime.map(|m| (m, listed_at)) };
    Ok(newer)
}
