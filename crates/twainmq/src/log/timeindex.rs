//! The time index: beside each file's seek marks (one every [`STRIDE`] lines),
//! the largest timestamp of each block of lines, so that "the first line at or
//! after time T" is found in O(log n) however out of order producers' clocks
//! put the timestamps: the running maximum over blocks never decreases, so a
//! binary search finds the first block holding a line at or after T, and at
//! most one block is read. Kept in the line index (and so in its cache file,
//! outside the store), extended as the file grows.

use std::io::{BufRead, Seek, SeekFrom};
use std::path::Path;

use crate::error::{Error, Result};
use crate::format::line::{decode_timestamp, TS_CHARS};
use crate::log::index::{LineIndex, STRIDE};

/// A file's time index as of one look: seek marks and the running maximum.
#[derive(Debug, Clone, Default)]
pub(crate) struct TimeBlocks {
    /// `marks[k]`: byte position of line `k * STRIDE`.
    marks: Vec<u64>,
    /// `reach[k]`: the largest timestamp of lines `0 .. (k + 1) * STRIDE` (non-decreasing).
    reach: Vec<f64>,
    /// `floor[k]`: the smallest timestamp of the lines from `k * STRIDE` to the end (non-decreasing).
    floor: Vec<f64>,
}

impl TimeBlocks {
    /// The largest timestamp of the blocks before block `k` (`-inf` for none).
    pub(crate) fn reach_before(&self, k: usize) -> f64 {
        k.checked_sub(1).and_then(|j| self.reach.get(j).or(self.reach.last())).copied().unwrap_or(f64::NEG_INFINITY)
    }

    /// The byte position of block `k`'s first line.
    pub(crate) fn mark(&self, k: usize) -> Option<u64> {
        self.marks.get(k).copied()
    }

    /// The line number from which every line is after `t` (the file's end
    /// when none is): a scan for lines at or before `t` can stop there.
    pub(crate) fn all_after(&self, t: f64) -> u64 {
        let k = self.floor.partition_point(|f| *f <= t);
        k as u64 * STRIDE
    }

    /// Where the first line at or after `t` can be: the byte position and line
    /// number of the start of the first block holding a timestamp `>= t`.
    pub(crate) fn block_reaching(&self, t: f64) -> Option<(u64, u64)> {
        let k = self.reach.partition_point(|r| *r < t);
        let pos = *self.marks.get(k)?;
        (k < self.reach.len()).then_some((pos, k as u64 * STRIDE))
    }
}

/// The timestamp of a whole line (without its newline), whose key takes `kc` characters.
pub(crate) fn line_timestamp(line: &[u8], kc: usize) -> Option<f64> {
    decode_timestamp(line.get(kc..kc + TS_CHARS)?).ok()
}

impl LineIndex {
    /// Bring the time index of `path` up to date (its lines' keys take `kc`
    /// characters) and return it. Reads only lines not timed before.
    ///
    /// # Errors
    /// I/O errors.
    pub(crate) fn times(&self, path: &Path, kc: usize) -> Result<TimeBlocks> {
        self.count(path)?;
        let (lines, marks, mut block_max, mut block_min, timed) = self.with(path, |e| {
            if e.timed_key_chars != kc || e.block_min.len() != e.block_max.len() {
                e.block_max.clear();
                e.block_min.clear();
                e.timed = 0;
                e.timed_key_chars = kc;
            }
            (e.lines, e.marks.clone(), e.block_max.clone(), e.block_min.clone(), e.timed)
        });
        if timed < lines {
            // Start again at the block the last look stopped in (it may have been partial).
            let block = usize::try_from(timed / STRIDE).unwrap_or(usize::MAX).min(marks.len().saturating_sub(1));
            block_max.truncate(block);
            block_min.truncate(block);
            let start = marks.get(block).copied().unwrap_or(0);
            let mut f = match crate::sys::open::open_regular(path, false) {
                Ok(f) => f,
                Err(Error::Io { cause, .. }) if cause.kind() == std::io::ErrorKind::NotFound => return Ok(TimeBlocks::default()),
                Err(e) => return Err(e),
            };
            f.seek(SeekFrom::Start(start)).map_err(|e| Error::io("read", path, e))?;
            let mut reader = std::io::BufReader::with_capacity(1 << 16, f);
            let mut line = Vec::with_capacity(256);
            let mut n = block as u64 * STRIDE;
            while n < lines {
                line.clear();
                let got = reader.read_until(b'\n', &mut line).map_err(|e| Error::io("read", path, e))?;
                if got == 0 || line.last() != Some(&b'\n') {
                    break; // the file was cut short under us: time what is there
                }
                let k = usize::try_from(n / STRIDE).unwrap_or(usize::MAX);
                if block_max.len() <= k {
                    block_max.resize(k + 1, f64::NEG_INFINITY);
                    block_min.resize(k + 1, f64::INFINITY);
                }
                if let Some(ts) = line_timestamp(&line[..line.len() - 1], kc) {
                    if ts > block_max[k] {
                        block_max[k] = ts;
                    }
                    if ts < block_min[k] {
                        block_min[k] = ts;
                    }
                }
                n += 1;
            }
            let (saved_max, saved_min) = (block_max.clone(), block_min.clone());
            self.with(path, |e| {
                if e.timed_key_chars == kc {
                    (e.block_max, e.block_min, e.timed) = (saved_max, saved_min, n);
                }
            });
        }
        let mut reach = Vec::with_capacity(block_max.len());
        let mut top = f64::NEG_INFINITY;
        for m in block_max {
            // NaN timestamps never raise the maximum.
            if m > top {
                top = m;
            }
            reach.push(top);
        }
        let mut floor = vec![f64::INFINITY; block_min.len()];
        let mut low = f64::INFINITY;
        for (k, m) in block_min.iter().enumerate().rev() {
            if *m < low {
                low = *m;
            }
            floor[k] = low;
        }
        Ok(TimeBlocks { marks, reach, floor })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::key::{Key, KeyType};
    use crate::format::line::Codec;
    use std::io::Write;

    fn write_lines(path: &Path, times: &[f64]) {
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path).expect("open");
        let mut codec = Codec::default();
        for (i, t) in times.iter().enumerate() {
            let mut line = Vec::new();
            codec.encode_line(KeyType::U8, &Key::Int(1), *t, format!("m{i}").as_bytes(), &mut line).expect("encode");
            f.write_all(&line).expect("write");
        }
    }

    /// The model: the first line with a timestamp at or after t.
    fn first_at_or_after(times: &[f64], t: f64) -> Option<usize> {
        times.iter().position(|x| *x >= t)
    }

    #[test]
    fn finds_the_first_line_at_or_after_a_time_with_clocks_out_of_order() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("0-20261201_0.tmf");
        // Three producers whose clocks disagree by up to 40 s, interleaved.
        let times: Vec<f64> = (0..5000u32).map(|i| 1000.0 + f64::from(i) * 0.01 + f64::from(i % 3) * 20.0).collect();
        write_lines(&path, &times);
        let index = LineIndex::default();
        let kc = KeyType::U8.encoded_len();
        for t in [0.0, 1000.0, 1010.005, 1020.0, 1035.5, 1049.99, 1089.0, 1090.0, 2000.0] {
            let tb = index.times(&path, kc).expect("times");
            let want = first_at_or_after(&times, t);
            let got = tb.block_reaching(t).map(|(_, line0)| {
                let rest = &times[usize::try_from(line0).expect("small")..];
                usize::try_from(line0).expect("small") + first_at_or_after(rest, t).expect("in the block or after")
            });
            assert_eq!(got, want, "t = {t}");
            let cut = usize::try_from(tb.all_after(t)).expect("small").min(times.len());
            assert!(times[cut..].iter().all(|x| *x > t), "a line at or before {t} after the cut at {cut}");
        }
    }

    #[test]
    fn grows_with_the_file_and_reads_only_what_is_new() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("0-20261201_0.tmf");
        let kc = KeyType::U8.encoded_len();
        let index = LineIndex::default();
        write_lines(&path, &(0..3000u32).map(f64::from).collect::<Vec<_>>());
        let tb = index.times(&path, kc).expect("times");
        assert_eq!(tb.block_reaching(2999.0).map(|(_, l)| l), Some(2048));
        assert_eq!(tb.block_reaching(2999.5), None);
        let scanned = index.scanned_bytes();
        write_lines(&path, &[10_000.0, 5.0]);
        let tb = index.times(&path, kc).expect("times");
        assert!(index.scanned_bytes() - scanned < 100, "the index recounted the file");
        assert_eq!(tb.block_reaching(9_000.0).map(|(_, l)| l), Some(2048), "the third block holds line 3000");
        assert_eq!(tb.block_reaching(10_000.5), None);
        // Line 3001 (5.0) is in the third block: nothing can be cut before it for t = 5.
        assert_eq!(tb.all_after(5.0), 3072);
        assert_eq!(tb.all_after(4.0), 1024, "lines 1024 on are all after 4 (the 5.0 at the end too)");
    }
}
