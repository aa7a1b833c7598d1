//! The line index kept between runs: the cache file (read on first use, written
//! whole and renamed into place), and the checks an entry from it must pass
//! before it is taken (same file, its first and last bytes, lines at its marks).

#[allow(clippy::wildcard_imports)]
use super::*;

/// Entries read from the cache file, each used (once checked against the file
/// on disk) the first time its file is counted. The file is read on first use,
/// so a command that counts nothing does not pay for parsing it.
#[derive(Debug)]
pub(super) struct Cache {
    path: PathBuf,
    saved: std::sync::OnceLock<Mutex<HashMap<PathBuf, FileIndex>>>,
}

impl Cache {
    fn saved(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, FileIndex>> {
        self.saved
            .get_or_init(|| {
                Mutex::new(
                    // A regular file only (a FIFO at the cache's path would block the read forever).
                    crate::sys::open::open_regular(&self.path, false)
                        .ok()
                        .and_then(|f| {
                            let mut bytes = Vec::new();
                            f.take(1 << 30).read_to_end(&mut bytes).ok().map(|_| bytes)
                        })
                        .and_then(|b| serde_json::from_slice::<CacheFile>(&b).ok())
                        .filter(|c| c.version == CACHE_VERSION)
                        .map(|c| c.files)
                        .unwrap_or_default(),
                )
            })
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }
}

#[derive(serde::Serialize, serde::Deserialize)]
struct CacheFile {
    version: u32,
    files: HashMap<PathBuf, FileIndex>,
}

/// FNV-1a, 64 bits: stable across builds (std's hasher is not promised to be).
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

/// FNV-1a of the first `len` bytes of `f` (`len` at most [`HEAD_CHECK`]).
pub(super) fn head_hash(f: &mut File, len: u64) -> std::io::Result<u64> {
    let mut buf = [0u8; 64];
    debug_assert_eq!(buf.len() as u64, HEAD_CHECK);
    let buf = buf.get_mut(..usize::try_from(len).map_err(std::io::Error::other)?).ok_or_else(|| std::io::Error::other("head too long"))?;
    f.seek(SeekFrom::Start(0))?;
    f.read_exact(buf)?;
    Ok(fnv1a(buf))
}

/// Seek marks looked at when a cached entry is taken.
const MARK_CHECKS: usize = 16;

/// Whether a line starts at each of up to [`MARK_CHECKS`] of `marks` spread
/// evenly (the byte before the mark ends a line).
pub(super) fn marks_hold(f: &mut File, marks: &[u64]) -> bool {
    let checked: Vec<u64> = if marks.len() <= MARK_CHECKS {
        marks.to_vec()
    } else {
        (0..MARK_CHECKS).map(|i| marks[i * (marks.len() - 1) / (MARK_CHECKS - 1)]).collect()
    };
    checked.into_iter().filter(|m| *m > 0).all(|m| {
        let mut b = [0u8; 1];
        f.seek(SeekFrom::Start(m - 1)).is_ok() && f.read_exact(&mut b).is_ok() && newline::is_line_end(b[0])
    })
}

/// FNV-1a of the bytes of `f` in `[end - TAIL_CHECK, end)`.
pub(super) fn tail_hash(f: &mut File, end: u64) -> std::io::Result<u64> {
    let start = end.saturating_sub(TAIL_CHECK);
    // end - start <= TAIL_CHECK (64), so the conversion never fails.
    let mut buf = vec![0u8; usize::try_from(end - start).map_err(std::io::Error::other)?];
    f.seek(SeekFrom::Start(start))?;
    f.read_exact(&mut buf)?;
    Ok(fnv1a(&buf))
}

impl LineIndex {
    /// An index kept between runs in `cache_file` (outside the store): entries
    /// in it are taken once checked against the files (same file, no shorter,
    /// same bytes before where the entry ends); [`LineIndex::save`] writes it.
    /// A missing, unreadable or older-format cache file is as good as empty.
    pub fn with_cache_file(cache_file: PathBuf) -> Self {
        LineIndex { cache: Some(Arc::new(Cache { path: cache_file, saved: Default::default() })), ..LineIndex::default() }
    }

    /// Write what the index knows to its cache file (whole, then renamed over
    /// the old one, so a reader never sees half of it). Does nothing for an
    /// index without one.
    ///
    /// # Errors
    /// [`Error::Io`] when the cache file cannot be written.
    pub fn save(&self) -> Result<()> {
        let Some(cache) = &self.cache else { return Ok(()) };
        // Entries of files deleted since are dropped, so the cache does not grow
        // with every topic that ever was.
        let mut files: HashMap<PathBuf, FileIndex> =
            cache.saved().iter().filter(|(k, _)| k.exists()).map(|(k, v)| (k.clone(), v.clone())).collect();
        files.extend(
            self.files
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .iter()
                .filter(|(k, e)| e.identity.is_some() && k.exists())
                .map(|(k, v)| (k.clone(), v.clone())),
        );
        let bytes = serde_json::to_vec(&CacheFile { version: CACHE_VERSION, files })
            .map_err(|e| Error::io("write", &cache.path, std::io::Error::other(e)))?;
        if let Some(dir) = cache.path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::io("create folder", dir, e))?;
        }
        let tmp = cache.path.with_extension(format!("tmp-{}", std::process::id()));
        std::fs::write(&tmp, bytes).map_err(|e| Error::io("write", &tmp, e))?;
        std::fs::rename(&tmp, &cache.path).map_err(|e| Error::io("write", &cache.path, e))
    }
}

/// What the cache file knew of a file.
pub(super) enum Cached {
    /// An entry that still describes the file.
    Current(FileIndex),
    /// The same file, shorter than its complete lines then: cut short since.
    Shrank { lines: u64, bytes: u64 },
    /// Nothing usable (no entry, or another file, or changed in place).
    None,
}

impl LineIndex {
    /// The cached entry for `path`, if there is one and it still describes the
    /// file: same identity, no shorter, not modified unless grown, the same
    /// bytes at its start and before its end, and a line starting at each of
    /// up to [`MARK_CHECKS`] of its seek marks spread over the file. A file
    /// rewritten in place (same inode and birth time, longer, its last bytes
    /// the same) has its lines elsewhere: a count or a seek through the old
    /// entry would be wrong, so it is counted afresh.
    pub(super) fn cached_entry(&self, path: &Path, f: &mut File, meta: &std::fs::Metadata, identity: Option<FileIdentity>) -> Cached {
        let Some(saved) = self.cache.as_ref().and_then(|c| c.saved().remove(path)) else { return Cached::None };
        let len = meta.len();
        if saved.identity.is_some() && saved.identity == identity && saved.scanned > len {
            // Counted in an earlier run, the same file is shorter now.
            return Cached::Shrank { lines: saved.lines, bytes: saved.scanned };
        }
        let current = saved.identity.is_some()
            && saved.identity == identity
            && saved.scanned <= len
            && (len > saved.seen_len || meta.modified().ok() == saved.seen_modified)
            && tail_hash(f, saved.scanned).is_ok_and(|h| h == saved.tail)
            && saved.head_len > 0
            && head_hash(f, saved.head_len).is_ok_and(|h| h == saved.head)
            && marks_hold(f, &saved.marks);
        if current {
            Cached::Current(saved)
        } else {
            Cached::None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn lines(f: &mut std::fs::File, range: std::ops::Range<u64>) {
        let text: String = range.map(|i| format!("line {i}\n")).collect();
        f.write_all(text.as_bytes()).expect("write");
    }

    #[test]
    fn a_cached_index_is_taken_when_current_and_extended_by_what_was_appended() {
        let dir = tempfile::tempdir().expect("tmp");
        let (p, cache) = (dir.path().join("f"), dir.path().join("cache").join("index.json"));
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&p).expect("open");
        lines(&mut f, 0..5000);
        let first = LineIndex::with_cache_file(cache.clone());
        assert_eq!(first.count(&p).expect("count").complete, 5000);
        first.save().expect("save");
        let len = std::fs::metadata(&p).expect("meta").len();
        assert_eq!(first.scanned_bytes(), len);

        // A new run: nothing read again.
        let second = LineIndex::with_cache_file(cache.clone());
        assert_eq!(second.count(&p).expect("count").complete, 5000);
        assert_eq!(second.scanned_bytes(), 0);
        assert_eq!(second.locate(&p, 4100).expect("locate"), first.locate(&p, 4100).expect("locate"));

        // Appended since: only the new bytes are read.
        lines(&mut f, 5000..5100);
        let third = LineIndex::with_cache_file(cache.clone());
        assert_eq!(third.count(&p).expect("count").complete, 5100);
        assert_eq!(third.scanned_bytes(), std::fs::metadata(&p).expect("meta").len() - len);
    }

    #[test]
    fn a_cached_index_is_dropped_for_a_file_that_changed_under_it() {
        let dir = tempfile::tempdir().expect("tmp");
        let (p, cache) = (dir.path().join("f"), dir.path().join("index.json"));
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&p).expect("open");
        lines(&mut f, 0..3000);
        let idx = LineIndex::with_cache_file(cache.clone());
        idx.count(&p).expect("count");
        idx.save().expect("save");

        // Rewritten in place (same file): longer lines, so a stale entry would miscount.
        let text: String = (0..2500).map(|i| format!("rewritten line {i}\n")).collect();
        std::fs::OpenOptions::new().write(true).open(&p).expect("open").write_all(text.as_bytes()).expect("write");
        let fresh = LineIndex::default().count(&p).expect("count").complete;
        assert_eq!(LineIndex::with_cache_file(cache.clone()).count(&p).expect("count").complete, fresh);

        // Rewritten in place, longer, with the same first bytes and the same bytes
        // before the old end (what the cache checked), its lines elsewhere between.
        {
            let old = std::fs::read(&p).expect("read");
            let idx = LineIndex::with_cache_file(cache.clone());
            let old_lines = idx.count(&p).expect("count").complete;
            idx.save().expect("save");
            let (head, tail) = (&old[..200], &old[old.len() - 200..]);
            let mut new = head.to_vec();
            while new.len() + 200 < old.len() {
                new.extend_from_slice(b"a much longer line in the middle of the file\n");
            }
            new.truncate(old.len() - 200);
            new.extend_from_slice(tail);
            new.extend_from_slice(b"and one more line\n");
            std::fs::OpenOptions::new().write(true).open(&p).expect("open").write_all(&new).expect("write");
            let fresh = LineIndex::default().count(&p).expect("count").complete;
            assert_ne!(fresh, old_lines + 1, "the middle has other lines");
            assert_eq!(LineIndex::with_cache_file(cache.clone()).count(&p).expect("count").complete, fresh);
        }

        // Changed in place without growing: one newline made a space, far from the end.
        let idx = LineIndex::with_cache_file(cache.clone());
        let before = idx.count(&p).expect("count").complete;
        idx.save().expect("save");
        std::thread::sleep(std::time::Duration::from_millis(20)); // a later modification time
        let mut bytes = std::fs::read(&p).expect("read");
        let nl = bytes.iter().position(|b| *b == b'\n').expect("a newline");
        bytes[nl] = b' ';
        std::fs::OpenOptions::new().write(true).open(&p).expect("open").write_all(&bytes).expect("write");
        assert_eq!(LineIndex::with_cache_file(cache.clone()).count(&p).expect("count").complete, before - 1);

        // Deleted and made again, longer than before (the handle that wrote it
        // closed first: Wine keeps a deleted file's name while a handle holds it).
        drop(f);
        // Under Wine a file's id is
        // its inode, which ext4 hands to the next file made, and Wine keeps no
        // creation time: the new file has the old one's identity there (NTFS
        // ids carry a sequence number; Linux has the birth time).
        std::fs::remove_file(&p).expect("rm");
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&p).expect("open");
        lines(&mut f, 0..4000);
        if !crate::sys::under_wine() {
            assert_eq!(LineIndex::with_cache_file(cache.clone()).count(&p).expect("count").complete, 4000);
        }

        // A damaged or foreign cache file counts as empty.
        for junk in [&b"{not json"[..], br#"{"version": 99, "files": {}}"#] {
            std::fs::write(&cache, junk).expect("write");
            let idx = LineIndex::with_cache_file(cache.clone());
            assert_eq!(idx.count(&p).expect("count").complete, 4000);
            idx.save().expect("save over it");
        }
    }
}
