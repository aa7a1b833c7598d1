//! The time index: beside each file's seek marks (one every [`STRIDE`] lines),
//! the largest timestamp of each block of lines, so that "the first line at or
//! after time T" is found in O(log n) however out of order producers' clocks
//! put the timestamps: the running maximum over blocks never decreases, so a
//! binary search finds the first block holding a line at or after T, and at
//! most one block is read. Kept in the line index (and so in its cache file,
//! outside the store), extended as the file grows.

use std::io::{Seek, SeekFrom};
use std::path::Path;

use crate::error::{Error, Result};
use crate::format::newline::ChunkLines;
/// Where callers have long found it.
pub(crate) use crate::log::heads::line_timestamp;
use crate::log::heads::{Heads, STRIDE};
use crate::log::index::LineIndex;

/// A file's time index as of one look: seek marks and the running maximum.
#[derive(Debug, Clone, Default)]
pub(crate) struct TimeBlocks {
    /// `marks[k]`: byte position of line `k * STRIDE`.
    marks: Vec<u64>,
    /// `reach[k]`: the largest timestamp of lines `0 .. (k + 1) * STRIDE` (non-decreasing).
    reach: Vec<f64>,
    /// `floor[k]`: the smallest timestamp of the lines from `k * STRIDE` to the end (non-decreasing).
    floor: Vec<f64>,
    /// Each block's own largest and smallest timestamp.
    blocks: Vec<(f64, f64)>,
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

    /// The largest timestamp in the file (None: no readable line).
    pub(crate) fn newest(&self) -> Option<f64> {
        self.reach.last().copied().filter(|t| t.is_finite())
    }

    /// The line number from which every line is after `t` (the file's end
    /// when none is): a scan for lines at or before `t` can stop there.
    pub(crate) fn all_after(&self, t: f64) -> u64 {
        let k = self.floor.partition_point(|f| *f <= t);
        k as u64 * STRIDE
    }

    /// Each block's (largest, smallest) timestamp (`-inf`, `+inf` for none readable).
    pub(crate) fn blocks(&self) -> &[(f64, f64)] {
        &self.blocks
    }

    /// Where the first line at or after `t` can be: the byte position and line
    /// number of the start of the first block holding a timestamp `>= t`.
    pub(crate) fn block_reaching(&self, t: f64) -> Option<(u64, u64)> {
        let k = self.reach.partition_point(|r| *r < t);
        let pos = *self.marks.get(k)?;
        (k < self.reach.len()).then_some((pos, k as u64 * STRIDE))
    }
}

impl LineIndex {
    /// Bring the time index of `path` up to date (its lines' keys take `kc`
    /// characters) and return it. Reads only lines not timed before.
    ///
    /// # Errors
    /// I/O errors.
    pub(crate) fn times(&self, path: &Path, kc: usize) -> Result<TimeBlocks> {
        // Lines not counted yet are timed as they are counted (one read of them).
        self.count_timing(path, Some(kc))?;
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
            let mut n = block as u64 * STRIDE;
            // Read in large chunks and look only at each line's head (its key and
            // timestamp) right after each newline: about as fast as counting.
            let mut heads = Heads::new(Some(kc));
            let mut buf = vec![0u8; (1 << 18) + 1];
            let mut pos = start;
            'read: while n < lines {
                match crate::sys::open::next_data(&f, pos) {
                    Some(d) => {
                        if d != pos {
                            heads.broken();
                            pos = d;
                        }
                        f.seek(SeekFrom::Start(pos)).map_err(|e| Error::io("read", path, e))?;
                    }
                    None => break,
                }
                // 0: the file was cut short under us: time what is there.
                let got = crate::log::index::read_chunk(&mut f, &mut buf).map_err(|e| Error::io("read", path, e))?;
                if got == 0 {
                    break;
                }
                let chunk = &buf[..got];
                let mut ends = ChunkLines::new(chunk, true);
                for (s, e) in ends.by_ref() {
                    heads.line_ends(&chunk[s..e], n, &mut block_max, &mut block_min);
                    n += 1;
                    if n >= lines {
                        break 'read;
                    }
                }
                heads.take(&chunk[ends.rest()..]);
                pos += got as u64;
            }
            let (saved_max, saved_min) = (block_max.clone(), block_min.clone());
            self.with(path, |e| {
                if e.timed_key_chars == kc {
                    (e.block_max, e.block_min, e.timed) = (saved_max, saved_min, n);
                }
            });
        }
        let blocks: Vec<(f64, f64)> = block_max.iter().copied().zip(block_min.iter().copied()).collect();
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
        Ok(TimeBlocks { marks, reach, floor, blocks })
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
    fn lines_across_read_chunks_are_timed_like_the_others() {
        // Over 1 MiB of lines: some cross a boundary of the 256 KiB reads, in their head too.
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("0-20261201_0.tmf");
        let times: Vec<f64> = (0..120_000u32).map(|i| 5000.0 + f64::from(i % 7919) - f64::from(i % 13) * 3.0).collect();
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&path).expect("open");
        let mut codec = Codec::default();
        for (i, t) in times.iter().enumerate() {
            let mut line = Vec::new();
            let body = "x".repeat(i % 61);
            codec.encode_line(KeyType::U8, &Key::Int(1), *t, body.as_bytes(), &mut line).expect("encode");
            f.write_all(&line).expect("write");
        }
        assert!(f.metadata().expect("meta").len() > 1 << 20, "at least four reads");
        // Timed as it is counted (one read), and counted first then timed (the second read).
        for counted_first in [false, true] {
            let index = LineIndex::default();
            if counted_first {
                index.count(&path).expect("count");
            }
            let tb = index.times(&path, KeyType::U8.encoded_len()).expect("times");
            for t in [0.0, 5000.0, 6234.5, 9000.0, 12_000.0, 12_918.0, 12_919.0] {
                let got = tb.block_reaching(t).map(|(_, line0)| {
                    let l0 = usize::try_from(line0).expect("small");
                    l0 + first_at_or_after(&times[l0..], t).expect("in the block or after")
                });
                assert_eq!(got, first_at_or_after(&times, t), "t = {t}, counted first: {counted_first}");
                let cut = usize::try_from(tb.all_after(t)).expect("small").min(times.len());
                assert!(times[cut..].iter().all(|x| *x > t), "t = {t}, counted first: {counted_first}");
            }
        }
    }

    /// The blocks of a file timed while it is counted (one read) equal those
    /// of a file counted first and timed after (two reads), as the file grows
    /// by whole and partial lines, across read chunks, with clocks out of order.
    #[test]
    fn timing_while_counting_gives_the_blocks_of_timing_after_counting() {
        let dir = tempfile::tempdir().expect("tmp");
        let (one, two) = (dir.path().join("one.tmf"), dir.path().join("two.tmf"));
        let (a, b) = (LineIndex::default(), LineIndex::default());
        let mut seed = 7u64;
        let mut all = Vec::new();
        for round in 0..4 {
            let times: Vec<f64> = (0..1500 + round * 700)
                .map(|_| {
                    seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    (seed >> 44) as f64
                })
                .collect();
            all.extend_from_slice(&times);
            write_lines(&one, &times);
            write_lines(&two, &times);
            // A line being written (no newline yet) at the end of both.
            for p in [&one, &two] {
                std::fs::OpenOptions::new().append(true).open(p).expect("open").write_all(b"0000").expect("write");
            }
            b.count(&two).expect("count");
            let (ta, tb) = (a.times(&one, 2).expect("times"), b.times(&two, 2).expect("times"));
            assert_eq!((&ta.reach, &ta.floor, &ta.marks), (&tb.reach, &tb.floor, &tb.marks), "round {round}");
            assert_eq!(a.with(&one, |e| (e.timed, e.lines)), (all.len() as u64, all.len() as u64));
            // Finish the partial line as a damaged one, as a torn write leaves it.
            for p in [&one, &two] {
                std::fs::OpenOptions::new().append(true).open(p).expect("open").write_all(b"\n").expect("write");
            }
            all.push(f64::NAN);
        }
        let ta = a.times(&one, 2).expect("times");
        for t in [0.0, 1e5, 5e5, 1e6] {
            let want = first_at_or_after(&all, t).map(|i| i as u64 / STRIDE * STRIDE);
            assert_eq!(ta.block_reaching(t).map(|(_, l)| l), want, "t = {t}");
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
