//! An in-memory sparse line index of partition files, built by scanning with
//! `memchr` and extended as files grow, so seeks and line counts do not rescan
//! whole files. Nothing is written inside the store (0.2.3 would mistake an
//! index file for a partition file).

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};
use crate::files::LineCount;
use crate::fsinfo::FileIdentity;

/// A mark every this many lines.
pub const STRIDE: u64 = 1024;

#[derive(Debug, Default, Clone)]
struct FileIndex {
    /// Which file at this path the entry describes (None: none yet).
    identity: Option<FileIdentity>,
    /// Bytes covered: up to and including the last newline seen.
    scanned: u64,
    /// Complete lines in `[0, scanned)`.
    lines: u64,
    /// `marks[k]` is the byte position of line `k * STRIDE`.
    marks: Vec<u64>,
}

/// Shared by every clone of a [`crate::Store`].
#[derive(Debug, Default, Clone)]
pub struct LineIndex {
    files: Arc<Mutex<HashMap<PathBuf, FileIndex>>>,
}

impl LineIndex {
    fn with<T>(&self, path: &Path, f: impl FnOnce(&mut FileIndex) -> T) -> T {
        let mut map = self.files.lock().unwrap_or_else(|p| p.into_inner());
        f(map.entry(path.to_path_buf()).or_default())
    }

    /// Bring a file's entry up to date and return its line count.
    ///
    /// # Errors
    /// I/O errors; a missing file counts as empty.
    pub fn count(&self, path: &Path) -> Result<LineCount> {
        let mut entry = self.with(path, |e| e.clone());
        let mut f = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                self.with(path, |e| *e = FileIndex::default());
                return Ok(LineCount::default());
            }
            Err(e) => return Err(Error::io("read", path, e)),
        };
        let meta = f.metadata().map_err(|e| Error::io("read", path, e))?;
        let identity = Some(FileIdentity::of(&meta));
        if meta.len() < entry.scanned || entry.identity != identity {
            // Truncated, or another file now (another process deleted the
            // topic and made it again): start again.
            entry = FileIndex { identity, ..FileIndex::default() };
        }
        if entry.marks.is_empty() {
            entry.marks.push(0);
        }
        f.seek(SeekFrom::Start(entry.scanned)).map_err(|e| Error::io("read", path, e))?;
        let mut buf = vec![0u8; 1 << 18];
        let mut pos = entry.scanned;
        loop {
            let n = match f.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::io("read", path, e)),
            };
            for i in memchr::memchr_iter(b'\n', &buf[..n]) {
                entry.lines += 1;
                let next_line_at = pos + i as u64 + 1;
                if entry.lines.is_multiple_of(STRIDE) {
                    entry.marks.push(next_line_at);
                }
                entry.scanned = next_line_at;
            }
            pos += n as u64;
        }
        let count = LineCount { complete: entry.lines, partial_bytes: pos - entry.scanned, bytes: pos };
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
    pub fn end_of(&self, files: &[crate::files::PartitionFile]) -> Result<u64> {
        match files.last() {
            None => Ok(0),
            Some(f) => Ok(f.first + self.count(&f.path)?.complete),
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
            assert_eq!(at, starts[n as usize]);
        }
        // A torn last line counts as a line for 0.2.3 (its `readlines`), not for readers.
        assert_eq!(c.python_lines(), 5001);
        // Replaced by a shorter file: rebuilt.
        std::fs::write(&p, b"a\nb\n").expect("write");
        assert_eq!(idx.count(&p).expect("count").complete, 2);
    }
}
