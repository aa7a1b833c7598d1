//! A partition's active day file: which one a write goes to (a later day's,
//! today's, or a new one made under the rollover locks), opened and checked
//! against what others wrote to it; and whether a newer file has appeared.

#[allow(clippy::wildcard_imports)]
use super::*;

pub(super) struct ActiveFile {
    pub(super) first: u64,
    /// The day in the file's name.
    pub(super) day: Day,
    pub(super) path: Arc<Path>,
    pub(super) file: File,
    /// Lines counted in `[0, counted_pos)`, for resolving offsets incrementally.
    pub(super) counted_pos: u64,
    pub(super) counted_lines: u64,
    /// Where our last write ended: when the next one starts there, the byte
    /// before it is our own newline and needs no check.
    pub(super) our_end: Option<u64>,
    /// For reading the byte before a write (opened on first need).
    pub(super) reader: Option<File>,
    /// The topic folder's modification time when we last listed it and found
    /// no newer file, and when that listing was made: while the time is the
    /// same (and the listing came well after it), no file was added since.
    pub(super) dir_seen: Option<(std::time::SystemTime, std::time::SystemTime)>,
    /// When the file's lines were last counted ahead of a rollover.
    pub(super) precounted: Option<Instant>,
    /// From this time (UNIX micros) appends hold the rollover lock: the end of
    /// the file's day less [`ROLLOVER_GUARD_SECS`].
    pub(super) guard_from: i64,
    /// The end of the file's day (UNIX micros): a write from then on goes to a later file.
    pub(super) day_end: i64,
    /// Writes since the handle was last asked whether the file is still linked, and when (UNIX micros).
    pub(super) writes_since_check: u32,
    pub(super) checked_at: i64,
    /// Our lines written since the last check, taken to land from
    /// `window_from` on: looked for, whole, when the file turns out longer.
    pub(super) window: Vec<u8>,
    pub(super) window_from: u64,
}

impl ActiveFile {
    /// Another writer wrote between our last check and this write, which
    /// starts at `upto`: find each of our lines since the check (`window`),
    /// whole, in the bytes from `window_from` to `upto`, and write again those
    /// that are not (glued to a line the other writer tore). They land after
    /// this write, so they come after our later messages: the one case where
    /// our own messages change order, as it is the one where they would
    /// otherwise be lost.
    pub(super) fn verify(&mut self, upto: u64) -> std::io::Result<bool> {
        if self.reader.is_none() {
            self.reader = Some(crate::sys::open::open_regular(&self.path, false).map_err(std::io::Error::other)?);
        }
        let r = self.reader.as_mut().ok_or_else(|| std::io::Error::other("no reader"))?;
        let len = usize::try_from(upto.saturating_sub(self.window_from)).map_err(std::io::Error::other)?;
        let mut region = vec![0u8; len];
        r.seek(SeekFrom::Start(self.window_from))?;
        r.read_exact(&mut region)?;
        // The region's whole lines (it starts where a line of ours ended), split
        // as readers split them: ours end in `\n`, another writer's may end in
        // `\r\n` or `\r`, and a line of ours after those is whole all the same.
        let mut whole: std::collections::HashMap<&[u8], u32> = std::collections::HashMap::new();
        for (s, e) in ChunkLines::new(&region, true) {
            // Ours end in `\n` alone: a line ended otherwise is not one of ours.
            if region.get(e) == Some(&b'\n') {
                *whole.entry(&region[s..e]).or_default() += 1;
            }
        }
        let mut lost = Vec::new();
        let mut at = 0;
        for nl in memchr::memchr_iter(b'\n', &self.window) {
            let line = &self.window[at..nl];
            match whole.get_mut(line) {
                Some(n) if *n > 0 => *n -= 1,
                _ => lost.extend_from_slice(&self.window[at..=nl]),
            }
            at = nl + 1;
        }
        if lost.is_empty() {
            return Ok(false);
        }
        tracing::warn!(file = %self.path.display(), "messages landed after a line torn by another writer; writing them again on lines of their own");
        (&self.file).write_all(&lost)?;
        Ok(true)
    }

    pub(super) fn byte_at(&mut self, pos: u64) -> std::io::Result<u8> {
        if self.reader.is_none() {
            self.reader = Some(crate::sys::open::open_regular(&self.path, false).map_err(std::io::Error::other)?);
        }
        let r = self.reader.as_ref().ok_or_else(|| std::io::Error::other("no reader"))?;
        byte_at_retrying(r, pos)?
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::UnexpectedEof, format!("the file is shorter than {pos} bytes")))
    }
}

/// A topic folder listing is trusted to be current from its modification time
/// only this long after that time (coarse timestamps on some file systems).
const DIR_MTIME_SLACK: std::time::Duration = std::time::Duration::from_secs(3);

impl Appender {
    /// The file of `partition` to append to on `day` (by our clock): the
    /// partition's file of a later day if there is one (another producer's clock
    /// is ahead: appending there keeps offsets in file order), else today's, else
    /// a new one, made under the rollover locks.
    pub(super) fn open_active(&self, partition: u32, day: Day) -> Result<ActiveFile> {
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
        let _dir_lock = crate::sys::lock::lock_folder(&dir, &self.log.config_path(&self.topic)).map_err(|e| Error::io("lock", &dir, e))?;
        let files = files::list_partition(&dir, partition)?;
        if let Some((path, first, fday)) = self.pick_existing(&files, partition, day) {
            return self.open_file(path, first, fday);
        }
        // No file of ours for the day: an entry 0.2.3 takes for the day's file
        // (a folder, a link, a damaged name, a stray copy) would be a second
        // file for the day beside the one we would make.
        if let Some(path) = files::entries_for_day(&dir, partition, day)?.into_iter().next() {
            if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
                return Err(Error::SymlinkRefused { path });
            }
            return Err(Error::DayEntryInTheWay { path, partition, day: day.to_string() });
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
    pub(super) fn pick_existing(&self, files: &[PartitionFile], partition: u32, day: Day) -> Option<(PathBuf, u64, Day)> {
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
    pub(super) fn open_file(&self, path: PathBuf, first: u64, day: Day) -> Result<ActiveFile> {
        let day_end =
            day.date().and_then(|d| d.succ_opt()).and_then(|d| d.and_hms_opt(0, 0, 0)).map_or(i64::MAX, |t| t.and_utc().timestamp_micros());
        let mut file = crate::sys::open::open_regular(&path, true)?;
        terminate_torn_tail(&mut file, &path, self.group_log)?;
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
            day_end,
            // Asked at the first write.
            writes_since_check: LINK_CHECK_WRITES,
            checked_at: i64::MIN,
            window: Vec::new(),
            window_from: 0,
        })
    }
}

/// Whether `partition` has a file after `active` in reading order. Listing the
/// folder is skipped while its modification time shows nothing was added since
/// the last listing (trusted only on a local file system, and only for a
/// listing made well after that time).
pub(super) fn newer_file_exists(
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
