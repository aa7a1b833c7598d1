//! Finding the first message at or after a time in a partition, by the line
//! index's seek marks.

use crate::error::{Error, Result};
use crate::log::dir::LogDir;
use crate::log::files;

/// The first offset in a partition whose timestamp is at or after `t`.
///
/// Decodes only timestamps. Within a file it binary-searches the sparse
/// index's marks, then reads at most one stride of lines, so it is exact and
/// fast when timestamps grow with offsets (one producer, or producers with
/// synchronised clocks); with out-of-order timestamps it finds a first
/// crossing. Day files wholly before `t`'s day are skipped.
///
/// # Errors
/// I/O errors.
pub(crate) fn offset_at_time(log: &LogDir, topic: &str, partition: u32, t: f64) -> Result<Option<u64>> {
    use std::io::{Read, Seek, SeekFrom};
    let config = log.topic_config(topic)?;
    let pfiles = files::list_partition(&log.topic_dir(topic), partition)?;
    // `as` saturates (NaN gives 0). The day only lets files of earlier days be
    // skipped; a time past chrono's range gets year 0 (or 1970), before every file.
    #[allow(clippy::cast_possible_truncation)]
    let micros = (t * 1e6) as i64;
    let day = files::Day::from_unix_micros(micros);
    let kc = config.key_type.encoded_len();
    let ts_end = kc + crate::format::line::TS_CHARS;
    let index = log.index();
    for (i, f) in pfiles.iter().enumerate() {
        // A file is done once the next file started before t's day (one day of slack for clock skew).
        if let Some(next) = pfiles.get(i + 1) {
            if next.day.date().zip(day.date()).is_some_and(|(n, d)| n < d.pred_opt().unwrap_or(d)) {
                continue;
            }
        }
        let mut file = match std::fs::File::open(&f.path) {
            Ok(h) => h,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io("read", &f.path, e)),
        };
        let marks = index.marks(&f.path)?;
        let mut head = vec![0u8; ts_end];
        let mut ts_at = |pos: u64| -> Option<f64> {
            file.seek(SeekFrom::Start(pos)).ok()?;
            file.read_exact(&mut head).ok()?;
            crate::format::line::decode_timestamp(&head[kc..]).ok()
        };
        // The last mark whose line is before t (marks[0] is the file's first line).
        let (mut lo, mut hi) = (0usize, marks.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if ts_at(marks[mid]).is_some_and(|ts| ts < t) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let k = lo.saturating_sub(1);
        let start = marks.get(k).copied().unwrap_or(0);
        file.seek(SeekFrom::Start(start)).map_err(|e| Error::io("read", &f.path, e))?;
        // Usually within one stride of the mark; to the end when timestamps are out of order.
        let mut reader = std::io::BufReader::with_capacity(1 << 16, &mut file);
        let mut line = Vec::with_capacity(256);
        let mut line_no = k as u64 * crate::log::index::STRIDE;
        loop {
            line.clear();
            let n = std::io::BufRead::read_until(&mut reader, b'\n', &mut line).map_err(|e| Error::io("read", &f.path, e))?;
            if n == 0 || line.last() != Some(&b'\n') {
                break;
            }
            if line.len() > ts_end {
                if let Ok(ts) = crate::format::line::decode_timestamp(&line[kc..ts_end]) {
                    if ts >= t {
                        return Ok(Some(f.first + line_no));
                    }
                }
            }
            line_no += 1;
        }
    }
    Ok(None)
}
