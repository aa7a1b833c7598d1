//! Finding the first message at or after a time in a partition, by the time index.

use std::io::{Seek, SeekFrom};

use crate::error::{Error, Result};
use crate::log::cursor::read_line;
use crate::log::dir::LogDir;
use crate::log::files;
use crate::log::heads::line_timestamp;

/// The first offset in a partition whose timestamp is at or after `t`: exact
/// whatever order the producers' clocks put the timestamps in.
///
/// Decodes only timestamps. Each file's time index (`timeindex.rs`) says
/// whether it holds a line at or after `t` and in which block the first one
/// is, so at most one block of lines is read (after the index is built or
/// brought up to date, which reads what was appended since). Files whose
/// successor started more than a day before `t`'s day are skipped without a
/// look (a producer's clock a day off would be needed to put a later time
/// there).
///
/// # Errors
/// I/O errors.
pub(crate) fn offset_at_time(log: &LogDir, topic: &str, partition: u32, t: f64) -> Result<Option<u64>> {
    let config = log.topic_config(topic)?;
    let pfiles = files::list_partition(&log.topic_dir(topic), partition)?;
    // `as` saturates (NaN gives 0). The day only lets files of earlier days be
    // skipped; a time past chrono's range gets year 0 (or 1970), before every file.
    #[allow(clippy::cast_possible_truncation)]
    let micros = (t * 1e6) as i64;
    let day = files::Day::from_unix_micros(micros);
    let kc = config.key_type.encoded_len();
    let index = log.index();
    for (i, f) in pfiles.iter().enumerate() {
        if let Some(next) = pfiles.get(i + 1) {
            if next.day.date().zip(day.date()).is_some_and(|(n, d)| n < d.pred_opt().unwrap_or(d)) {
                continue;
            }
        }
        let Some((start, line0)) = index.times(&f.path, kc)?.block_reaching(t) else { continue };
        let mut file = match crate::sys::open::open_regular(&f.path, false) {
            Ok(h) => h,
            Err(Error::Io { cause, .. }) if cause.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        file.seek(SeekFrom::Start(start)).map_err(|e| Error::io("read", &f.path, e))?;
        let mut reader = std::io::BufReader::with_capacity(1 << 16, file);
        let mut line = Vec::with_capacity(256);
        let mut line_no = line0;
        while read_line(&mut reader, &mut line).map_err(|e| Error::io("read", &f.path, e))? {
            if line_timestamp(&line, kc).is_some_and(|ts| ts >= t) {
                return Ok(Some(f.first + line_no));
            }
            line_no += 1;
        }
    }
    Ok(None)
}

/// A block of a file, as the counter sees it: its lines, its largest and
/// smallest timestamp, and the byte position of its first line.
type Block = (u64, f64, f64, u64);

/// Counts a partition's messages stamped before a time, for many times:
/// the time index decides every block all of whose messages are before or
/// all after the time; a block that straddles it is read once (its lines'
/// timestamps kept, sorted) and counted by a binary search. A count, unlike
/// "the first offset at or after t", is not thrown off by a message stamped
/// far from its neighbours (a clock a year off): it moves the count by one.
pub(crate) struct StampCounter {
    /// Per file, per block: its line count and (largest, smallest) timestamp.
    files: Vec<(std::path::PathBuf, Vec<Block>)>,
    kc: usize,
    /// Straddling blocks read so far, by (file, block): their sorted timestamps.
    read: std::collections::HashMap<(usize, usize), Vec<f64>>,
}

impl StampCounter {
    /// The counter over `pfiles`, one partition's files in order (from a listing of the whole
    /// topic folder: a caller counting every partition lists the folder once, not once each);
    /// `kc` as [`crate::log::heads::line_timestamp`] takes it.
    ///
    /// # Errors
    /// I/O errors.
    pub(crate) fn of_files(log: &LogDir, kc: usize, pfiles: Vec<files::PartitionFile>) -> Result<StampCounter> {
        let index = log.index();
        let mut files = Vec::new();
        for f in pfiles {
            let lines = index.count(&f.path)?.complete;
            let times = index.times(&f.path, kc)?;
            let blocks = times
                .blocks()
                .iter()
                .enumerate()
                .map(|(k, &(max, min))| {
                    let first = k as u64 * crate::log::index::STRIDE;
                    let n = lines.saturating_sub(first).min(crate::log::index::STRIDE);
                    (n, max, min, times.mark(k).unwrap_or(0))
                })
                .collect();
            files.push((f.path, blocks));
        }
        Ok(StampCounter { files, kc, read: std::collections::HashMap::new() })
    }

    /// Messages stamped before `t` (a line whose timestamp cannot be read
    /// counts as stamped as the line before it: it holds an offset all the same).
    ///
    /// # Errors
    /// I/O errors reading a straddling block.
    pub(crate) fn stamped_before(&mut self, t: f64) -> Result<u64> {
        let mut count = 0u64;
        for fi in 0..self.files.len() {
            for bi in 0..self.files[fi].1.len() {
                let (n, max, min, pos) = self.files[fi].1[bi];
                if max < t {
                    count += n;
                } else if min < t {
                    if !self.read.contains_key(&(fi, bi)) {
                        let stamps = self.block_stamps(fi, pos, n)?;
                        self.read.insert((fi, bi), stamps);
                    }
                    let stamps = self.read.get(&(fi, bi)).map_or(&[][..], Vec::as_slice);
                    count += stamps.partition_point(|s| *s < t) as u64;
                }
            }
        }
        Ok(count)
    }

    /// The sorted timestamps of the `n` lines from byte `pos` of file `fi`.
    fn block_stamps(&self, fi: usize, pos: u64, n: u64) -> Result<Vec<f64>> {
        let path = &self.files[fi].0;
        let file = match crate::sys::open::open_regular(path, false) {
            Ok(f) => f,
            Err(Error::Io { cause, .. }) if cause.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut reader = std::io::BufReader::with_capacity(1 << 16, file);
        reader.seek(SeekFrom::Start(pos)).map_err(|e| Error::io("read", path, e))?;
        let mut out = Vec::with_capacity(usize::try_from(n).unwrap_or(0));
        let mut line = Vec::with_capacity(256);
        for _ in 0..n {
            if !read_line(&mut reader, &mut line).map_err(|e| Error::io("read", path, e))? {
                break;
            }
            // A damaged line still holds its offset: it takes the place of the line before it.
            let ts = line_timestamp(&line, self.kc).unwrap_or(out.last().copied().unwrap_or(f64::NEG_INFINITY));
            out.push(ts);
        }
        out.sort_by(f64::total_cmp);
        Ok(out)
    }
}

/// Where a scan for messages stamped at or before `until` can stop in a
/// partition: the first offset from which every message is stamped after it
/// (the partition's end when there is none). Exact whatever the clocks, by the
/// time index's block minimums.
///
/// # Errors
/// I/O errors.
pub(crate) fn end_for_until(log: &LogDir, topic: &str, partition: u32, until: f64) -> Result<u64> {
    let config = log.topic_config(topic)?;
    let pfiles = files::list_partition(&log.topic_dir(topic), partition)?;
    let kc = config.key_type.encoded_len();
    let index = log.index();
    let mut end = log.partition_end(&pfiles)?;
    for f in pfiles.iter().rev() {
        let lines = index.count(&f.path)?.complete;
        let cut = index.times(&f.path, kc)?.all_after(until).min(lines);
        end = f.first.saturating_add(cut);
        if cut > 0 {
            break;
        }
    }
    Ok(end)
}

/// The largest timestamp of a partition's messages before `offset`
/// (`-inf` when there is none): where the timeline places the message at
/// `offset` depends on it (`log/timeline.rs`). From the time index, reading at
/// most one block of lines.
///
/// # Errors
/// I/O errors.
pub(crate) fn max_before(log: &LogDir, topic: &str, partition: u32, offset: u64) -> Result<f64> {
    let config = log.topic_config(topic)?;
    let pfiles = files::list_partition(&log.topic_dir(topic), partition)?;
    let kc = config.key_type.encoded_len();
    let index = log.index();
    let mut top = f64::NEG_INFINITY;
    for f in &pfiles {
        if f.first >= offset {
            break;
        }
        let tb = index.times(&f.path, kc)?;
        let line = offset - f.first;
        let k = usize::try_from(line / crate::log::index::STRIDE).unwrap_or(usize::MAX);
        top = top.max(tb.reach_before(k));
        let Some(start) = tb.mark(k) else { continue };
        // The lines of block k before `offset`.
        let mut file = match crate::sys::open::open_regular(&f.path, false) {
            Ok(h) => h,
            Err(Error::Io { cause, .. }) if cause.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        file.seek(SeekFrom::Start(start)).map_err(|e| Error::io("read", &f.path, e))?;
        let mut reader = std::io::BufReader::with_capacity(1 << 16, file);
        let mut buf = Vec::with_capacity(256);
        for _ in (k as u64 * crate::log::index::STRIDE)..line {
            if !read_line(&mut reader, &mut buf).map_err(|e| Error::io("read", &f.path, e))? {
                break;
            }
            if let Some(ts) = line_timestamp(&buf, kc) {
                top = top.max(ts);
            }
        }
    }
    Ok(top)
}

/// Bring the line index (and with `timed`, the time index) of every file of
/// `partitions` up to date, the files shared among the cores: what a cold
/// timeline page or search would otherwise count one file after another.
/// Cheap when the indexes are current (each file is looked at, not read).
///
/// # Errors
/// I/O errors (a file that went away counts as empty).
pub(crate) fn warm(log: &LogDir, topic: &str, partitions: &[u32], timed: bool) -> Result<()> {
    let config = log.topic_config(topic)?;
    let listing = files::list_topic_dir(&log.topic_dir(topic), config.partitions)?;
    let paths: Vec<&std::path::Path> =
        partitions.iter().filter_map(|&p| listing.partitions.get(p as usize)).flatten().map(|f| f.path.as_path()).collect();
    let kc = config.key_type.encoded_len();
    let index = log.index();
    let one = |path: &std::path::Path| if timed { index.times(path, kc).map(drop) } else { index.count(path).map(drop) };
    let workers = std::thread::available_parallelism().map_or(1, std::num::NonZero::get).min(paths.len());
    if workers <= 1 {
        return paths.iter().try_for_each(|p| one(p));
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| -> Result<()> {
                    while let Some(p) = paths.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) {
                        one(p)?;
                    }
                    Ok(())
                })
            })
            .collect();
        // A worker that panicked is a bug; its files are simply counted later, on this thread.
        handles.into_iter().filter_map(|h| h.join().ok()).collect::<Result<Vec<()>>>().map(drop)
    })
}
