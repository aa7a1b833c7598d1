//! An in-memory sparse line index of partition files, built by scanning with
//! `memchr` and extended as files grow, so seeks and line counts do not rescan
//! whole files. Nothing is written inside the store (0.2.3 would mistake an
//! index file for a partition file); it can be kept between runs in a cache
//! file outside the store ([`LineIndex::with_cache_file`]), so opening a large
//! store again reads only what was appended since.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};
use crate::format::newline::{self, ChunkLines};
use crate::log::files::LineCount;
use crate::log::heads::Heads;
use crate::sys::identity::FileIdentity;

/// A mark every this many lines.
pub use crate::log::heads::STRIDE;

mod cache;
mod chunk;
mod shrink;
pub(crate) use cache::fnv1a;
use cache::{head_hash, tail_hash, Cache, Cached};
pub(crate) use chunk::read_chunk;
use chunk::CHUNK;
pub use shrink::Shrink;

#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct FileIndex {
    /// Which file at this path the entry describes (None: none yet).
    identity: Option<FileIdentity>,
    /// FNV-1a of the (up to) [`TAIL_CHECK`] bytes before `scanned`: a file
    /// rewritten in place, same inode and no shorter, differs there.
    #[serde(default)]
    tail: u64,
    /// FNV-1a of the file's first `head_len` bytes (up to [`HEAD_CHECK`]):
    /// another file at the path with the same identity (an inode handed on, where
    /// a file system keeps no creation time; Wine's file ids) starts otherwise.
    #[serde(default)]
    head: u64,
    #[serde(default)]
    head_len: u64,
    /// Length and modification time when last counted: a file of the same
    /// length modified since was changed in place (by an editor or a tool),
    /// not appended to.
    #[serde(default)]
    seen_len: u64,
    #[serde(default)]
    seen_modified: Option<std::time::SystemTime>,
    /// Bytes covered: up to and including the last line end seen.
    scanned: u64,
    /// Complete lines in `[0, scanned)`.
    pub(super) lines: u64,
    /// `marks[k]` is the byte position of line `k * STRIDE`.
    pub(super) marks: Vec<u64>,
    /// The time index (`timeindex.rs`): `block_max[k]` is the largest
    /// timestamp among the timed lines of block k (lines `k * STRIDE` to
    /// `(k + 1) * STRIDE - 1`), `-inf` for a block of damaged lines only.
    #[serde(default)]
    pub(super) block_max: Vec<f64>,
    /// The smallest timestamp of each block, likewise (`+inf` for none).
    #[serde(default)]
    pub(super) block_min: Vec<f64>,
    /// Lines timed so far (from the start of the file).
    #[serde(default)]
    pub(super) timed: u64,
    /// Characters of the key before each line's timestamp when it was timed:
    /// an entry timed with another width is timed again.
    #[serde(default)]
    pub(super) timed_key_chars: usize,
}

/// Bytes before the scanned end that a cached entry must still match.
const TAIL_CHECK: u64 = 64;
/// Bytes at the start that an entry must still match.
const HEAD_CHECK: u64 = 64;
/// Format of the cache file; another version is ignored (and replaced on save).
/// 2: lines end at `\r` too (`format/newline.rs`), so entries of version 1
/// for files holding a lone `\r` are wrong.
const CACHE_VERSION: u32 = 2;

/// Shared by every clone of a [`crate::Store`].
#[derive(Debug, Default, Clone)]
pub struct LineIndex {
    files: Arc<Mutex<HashMap<PathBuf, FileIndex>>>,
    cache: Option<Arc<Cache>>,
    /// Files found cut short, oldest first (at most [`shrink::MAX_SHRINKS`]).
    shrinks: Arc<Mutex<Vec<Shrink>>>,
    /// Bytes read to count lines, over the index's life (diagnostics, tests).
    scanned_bytes: Arc<std::sync::atomic::AtomicU64>,
}

impl LineIndex {
    /// Bytes read to count lines so far.
    pub fn scanned_bytes(&self) -> u64 {
        self.scanned_bytes.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub(super) fn with<T>(&self, path: &Path, f: impl FnOnce(&mut FileIndex) -> T) -> T {
        let mut map = self.files.lock().unwrap_or_else(|p| p.into_inner());
        f(map.entry(path.to_path_buf()).or_default())
    }

    /// Bring a file's entry up to date and return its line count.
    ///
    /// # Errors
    /// I/O errors; a missing file counts as empty.
    pub fn count(&self, path: &Path) -> Result<LineCount> {
        self.count_timing(path, None)
    }

    /// As [`LineIndex::count`]; with `Some(kc)` (the key's characters before
    /// each line's timestamp), the lines counted are timed in the same pass
    /// when the time index is current up to where counting starts (so that a
    /// cold time index costs one read of the file, not two).
    pub(crate) fn count_timing(&self, path: &Path, timing: Option<usize>) -> Result<LineCount> {
        let mut entry = self.with(path, |e| e.clone());
        let mut f = match crate::sys::open::open_regular(path, false) {
            Ok(f) => f,
            Err(Error::Io { cause, .. }) if cause.kind() == std::io::ErrorKind::NotFound => {
                self.with(path, |e| *e = FileIndex::default());
                return Ok(LineCount::default());
            }
            Err(e) => return Err(e),
        };
        let meta = f.metadata().map_err(|e| Error::io("read", path, e))?;
        let identity = FileIdentity::of(&f);
        // (lines, bytes) the same file had before it was found shorter.
        let mut shrank_from = None;
        if entry.identity.is_none() {
            match self.cached_entry(path, &mut f, &meta, identity) {
                Cached::Current(cached) => entry = cached,
                Cached::Shrank { lines, bytes } => shrank_from = Some((lines, bytes)),
                Cached::None => {}
            }
        }
        if entry.identity.is_some() && entry.identity == identity && meta.len() < entry.scanned {
            shrank_from = Some((entry.lines, entry.scanned));
        }
        // Another file at the path starts otherwise, even with the same identity.
        let head_differs =
            entry.scanned > 0 && (entry.head_len == 0 || head_hash(&mut f, entry.head_len).map_or(true, |h| h != entry.head));
        if meta.len() < entry.scanned || entry.identity != identity || head_differs {
            // Truncated, or another file now (another process deleted the
            // topic and made it again): start again.
            entry = FileIndex { identity, ..FileIndex::default() };
        }
        if entry.marks.is_empty() {
            entry.marks.push(0);
        }
        // Timing as we count: only when the time index covers exactly the lines counted so far.
        // (A partial last block goes on filling: its maximum and minimum only grow and shrink.)
        let timing = timing.filter(|&kc| {
            entry.timed == entry.lines
                && (entry.timed_key_chars == kc || entry.lines == 0)
                && entry.block_max.len() == entry.block_min.len()
                && entry.block_max.len() as u64 == entry.lines.div_ceil(STRIDE)
        });
        let mut head = Heads::new(timing);
        if let Some(kc) = timing {
            entry.timed_key_chars = kc;
        }
        f.seek(SeekFrom::Start(entry.scanned)).map_err(|e| Error::io("read", path, e))?;
        let mut buf = vec![0u8; CHUNK + 1];
        let mut pos = entry.scanned;
        let start = pos;
        loop {
            // Skip holes of a sparse file (a 64 GiB file of nothing is counted at once).
            match crate::sys::open::next_data(&f, pos) {
                Some(d) => {
                    if d != pos {
                        head.broken();
                        pos = d;
                    }
                    f.seek(SeekFrom::Start(pos)).map_err(|e| Error::io("read", path, e))?;
                }
                None => {
                    pos = pos.max(f.metadata().map_err(|e| Error::io("read", path, e))?.len());
                    break;
                }
            }
            let n = read_chunk(&mut f, &mut buf).map_err(|e| Error::io("read", path, e))?;
            if n == 0 {
                break;
            }
            let chunk = &buf[..n];
            let mut lines = ChunkLines::new(chunk, true);
            while let Some((s, e)) = lines.next() {
                head.line_ends(&chunk[s..e], entry.lines, &mut entry.block_max, &mut entry.block_min);
                entry.lines += 1;
                let next_line_at = pos + lines.rest() as u64;
                if entry.lines.is_multiple_of(STRIDE) {
                    entry.marks.push(next_line_at);
                }
                entry.scanned = next_line_at;
            }
            head.take(&chunk[lines.rest()..]);
            pos += n as u64;
        }
        if timing.is_some() {
            entry.timed = entry.lines;
        }
        let read = pos - start;
        self.scanned_bytes.fetch_add(read, std::sync::atomic::Ordering::Relaxed);
        if self.cache.is_some() && read > 0 && entry.scanned > 0 {
            entry.tail = tail_hash(&mut f, entry.scanned).map_err(|e| Error::io("read", path, e))?;
        }
        let head_len = entry.scanned.min(HEAD_CHECK);
        if entry.head_len != head_len {
            entry.head = head_hash(&mut f, head_len).map_err(|e| Error::io("read", path, e))?;
            entry.head_len = head_len;
        }
        (entry.seen_len, entry.seen_modified) = (pos, meta.modified().ok());
        let count = LineCount { complete: entry.lines, partial_bytes: pos - entry.scanned, bytes: pos };
        if let Some((lines_before, bytes_before)) = shrank_from.filter(|(lines, _)| *lines > entry.lines) {
            self.note_shrink(Shrink { path: path.to_path_buf(), lines_before, lines_after: entry.lines, bytes_before, bytes_after: pos });
        }
        self.with(path, |e| *e = entry);
        Ok(count)
    }

    /// The byte position of the nearest indexed line at or before `line`, and that line's number.
    ///
    /// # Errors
    /// I/O errors while bringing the entry up to date.
    pub fn locate(&self, path: &Path, line: u64) -> Result<(u64, u64)> {
        let known = self.with(path, |e| e.lines);
        if known < line {
            self.count(path)?;
        }
        Ok(self.with(path, |e| {
            let k = (line / STRIDE).min(e.marks.len().saturating_sub(1) as u64);
            (e.marks.get(k as usize).copied().unwrap_or(0), k * STRIDE)
        }))
    }

    /// End offset of a partition from its files: the last file's first + its complete lines.
    ///
    /// # Errors
    /// I/O errors.
    pub fn end_of(&self, files: &[crate::log::files::PartitionFile]) -> Result<u64> {
        match files.last() {
            None => Ok(0),
            Some(f) => Ok(f.first.saturating_add(self.count(&f.path)?.complete)),
        }
    }

    /// Byte positions of every mark (for sampling timestamps).
    pub fn marks(&self, path: &Path) -> Result<Vec<u64>> {
        self.count(path)?;
        Ok(self.with(path, |e| e.marks.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn counts_and_locates_as_the_file_grows() {
        let dir = tempfile::tempdir().expect("tmp");
        let p = dir.path().join("f");
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&p).expect("open");
        let idx = LineIndex::default();
        let mut starts = Vec::new();
        let mut pos = 0u64;
        for i in 0..5000u64 {
            let line = format!("line {i}\n");
            starts.push(pos);
            pos += line.len() as u64;
            f.write_all(line.as_bytes()).expect("write");
            if i % 1777 == 0 {
                assert_eq!(idx.count(&p).expect("count").complete, i + 1);
            }
        }
        f.write_all(b"partial").expect("write");
        let c = idx.count(&p).expect("count");
        assert_eq!((c.complete, c.partial_bytes), (5000, 7));
        for line in [0, 1, 1023, 1024, 3000, 4999] {
            let (at, n) = idx.locate(&p, line).expect("locate");
            assert!(n <= line && line - n < STRIDE);
            assert_eq!(at, starts[usize::try_from(n).expect("a line number")]);
        }
        // A torn last line counts as a line for 0.2.3 (its `readlines`), not for readers.
        assert_eq!(c.python_lines(), 5001);
        // Replaced by a shorter file: rebuilt.
        std::fs::write(&p, b"a\nb\n").expect("write");
        assert_eq!(idx.count(&p).expect("count").complete, 2);
    }

    /// Lines of text ending in `\n`, `\r\n` or `\r` at random, sized so
    /// that line ends fall on every byte of the reads' edges (the count reads
    /// 256 KiB at a time, the cursor 64 KiB): the count, the seek marks, the
    /// cursor and `read_line` all split them as 0.2.3 does.
    #[test]
    fn lines_ending_in_cr_lf_or_crlf_split_alike_across_read_edges() {
        use crate::log::cursor::{Cursor, Next};
        use crate::log::files::{Day, PartitionFile};
        let dir = tempfile::tempdir().expect("tmp");
        let p = dir.path().join("0-20261201_0.tmf");
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let (mut bytes, mut texts, mut starts) = (Vec::new(), Vec::new(), Vec::new());
        while bytes.len() < 700_000 {
            starts.push(bytes.len() as u64);
            let text = format!("line {} {}", texts.len(), "x".repeat(usize::try_from(rnd(300)).expect("small")));
            bytes.extend_from_slice(text.as_bytes());
            bytes.extend_from_slice([&b"\n"[..], b"\r\n", b"\r"][usize::try_from(rnd(3)).expect("small")]);
            texts.push(text);
        }
        // A `\r\n` astride the count's first read edge, a lone `\r` at the second one (the first read took the `\n` too).
        for (at, end) in [(CHUNK - 1, &b"\r\n"[..]), (2 * CHUNK, b"\rz")] {
            let line = starts.iter().rposition(|s| usize::try_from(*s).expect("small") <= at - 5).expect("a line");
            let cut = usize::try_from(starts[line]).expect("small");
            bytes.truncate(cut);
            texts.truncate(line);
            starts.truncate(line);
            starts.push(cut as u64);
            let text = "y".repeat(at - cut);
            bytes.extend_from_slice(text.as_bytes());
            bytes.extend_from_slice(end);
            texts.push(text);
            if end == b"\rz" {
                bytes.pop();
            }
            while bytes.len() < at + 100_000 {
                starts.push(bytes.len() as u64);
                let text = format!("after {}", texts.len());
                bytes.extend_from_slice(text.as_bytes());
                bytes.extend_from_slice(b"\r\n");
                texts.push(text);
            }
        }
        // Ending in a lone `\r`: a line end at the end of the file.
        starts.push(bytes.len() as u64);
        bytes.extend_from_slice(b"last\r");
        texts.push("last".into());
        std::fs::write(&p, &bytes).expect("write");

        let idx = LineIndex::default();
        let c = idx.count(&p).expect("count");
        assert_eq!((c.complete, c.partial_bytes), (texts.len() as u64, 0));
        for line in [0, 1, STRIDE, 3 * STRIDE + 5, texts.len() as u64 - 1] {
            let (at, n) = idx.locate(&p, line).expect("locate");
            assert_eq!(at, starts[usize::try_from(n).expect("small")], "mark of line {n}");
        }
        let file = PartitionFile { partition: 0, day: Day(20261201), first: 0, path: p.clone() };
        let mut cur = Cursor::open(file).expect("open");
        let mut got = Vec::new();
        loop {
            match cur.next().expect("next") {
                Next::Line(s, e) => got.push(String::from_utf8(cur.buf[s..e].to_vec()).expect("utf8")),
                Next::Overlong(n) => panic!("overlong {n}"),
                Next::Eof(n) => {
                    assert_eq!(n, 0);
                    break;
                }
            }
        }
        assert_eq!(got, texts);
        let mut r = std::io::BufReader::with_capacity(4093, File::open(&p).expect("open"));
        let (mut line, mut got) = (Vec::new(), Vec::new());
        while crate::log::cursor::read_line(&mut r, &mut line).expect("read") {
            got.push(String::from_utf8(line.clone()).expect("utf8"));
        }
        assert_eq!(got, texts);
    }
}
