//! A topic's key table (`keys.twk`, docs/FORMAT.md Part 3) on disk: producers
//! find or add the id of each free key, readers find the key of each id.
//!
//! Growth: a key is added under an exclusive lock of the table (`flock`;
//! `LockFileEx` on Windows), after reading what other producers added since
//! this one last looked, so one key never gets two ids; the entry goes out in
//! one `O_APPEND` write before any message names its id, so no id in a line is
//! ever missing from the table (a crash after the entry leaves an entry no
//! line uses, which the next producer of that key finds). A record torn by a
//! crash is ended with a newline by the next writer and never read as a key.

use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::format::key::Key;
use crate::format::keytable::{self, HEADER, MAX_ENTRY, NULL_ID};

/// Keys a reader keeps (then it starts again): a topic of millions of keys
/// costs a read per new id, never memory without bound.
const READER_CACHE: usize = 1 << 16;
/// Bytes read at once around an id (entries added together are read together).
const WINDOW: usize = 64 << 10;
/// How long a read that finds the table shorter than an id is retried (on
/// ntfs-3g a file's size can be seen before its bytes).
const SHORT_READ_RETRY: Duration = Duration::from_secs(1);

/// The path of a topic's key table, in its folder.
pub(crate) fn path_in(topic_dir: &Path) -> PathBuf {
    topic_dir.join(keytable::FILE_NAME)
}

/// Write a new, empty key table (its header) at `path`: only when a topic is made.
///
/// # Errors
/// I/O errors, and an existing file (a table is never made twice).
pub(crate) fn create(path: &Path) -> Result<()> {
    let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(path).map_err(|e| Error::io("create", path, e))?;
    f.write_all(HEADER).map_err(|e| Error::io("write", path, e))
}

/// One table, as a producer or a reader uses it.
#[derive(Debug)]
pub(crate) struct KeyTable {
    path: PathBuf,
    reader: Option<File>,
    /// A producer's append handle (opened at its first new key).
    appender: Option<File>,
    /// A reader's window: bytes of the table from `win_pos`.
    window: Vec<u8>,
    win_pos: u64,
    /// Ids resolved (readers).
    keys: HashMap<u64, Key>,
    /// Every entry read so far (producers): a key's id.
    ids: HashMap<Key, u64>,
    /// Bytes of the table read into `ids`: up to the end of its last whole line.
    loaded: u64,
    /// The table's length when a read last waited in vain for an entry's
    /// bytes: while it stays so, no read waits again (a damaged line naming
    /// ids past the end costs no second each).
    waited_at_len: Option<u64>,
}

impl KeyTable {
    pub(crate) fn new(topic_dir: &Path) -> KeyTable {
        KeyTable {
            path: path_in(topic_dir),
            reader: None,
            appender: None,
            window: Vec::new(),
            win_pos: 0,
            keys: HashMap::new(),
            ids: HashMap::new(),
            loaded: 0,
            waited_at_len: None,
        }
    }

    fn missing(&self, cause: std::io::Error) -> Error {
        Error::io("open the key table", &self.path, cause)
    }

    fn reader(&mut self) -> Result<&File> {
        if self.reader.is_none() {
            self.reader = Some(crate::sys::open::open_regular(&self.path, false)?);
        }
        self.reader.as_ref().ok_or_else(|| Error::io("open", &self.path, std::io::Error::other("no reader")))
    }

    /// The id of `key` (a free key), if the table holds it, reading what was
    /// added since the last look.
    fn known(&mut self, key: &Key) -> Result<Option<u64>> {
        if let Some(id) = self.ids.get(key) {
            return Ok(Some(*id));
        }
        self.catch_up()?;
        Ok(self.ids.get(key).copied())
    }

    /// Read the entries added since `loaded` (whole lines only).
    fn catch_up(&mut self) -> Result<()> {
        if self.loaded == 0 {
            self.loaded = HEADER.len() as u64;
        }
        let path = self.path.clone();
        let from = self.loaded;
        let file = self.reader()?;
        let mut data = Vec::new();
        let mut buf = vec![0u8; 1 << 16];
        let mut at = from;
        loop {
            let n = crate::sys::open::read_at(file, &mut buf, at).map_err(|e| Error::io("read", &path, e))?;
            if n == 0 {
                break;
            }
            data.extend_from_slice(&buf[..n]);
            at += n as u64;
        }
        let mut start = 0;
        for nl in memchr::memchr_iter(b'\n', &data) {
            // A damaged entry (a torn record, ended by the next writer) is no key.
            if let Ok(key) = keytable::parse(&data[start..nl]) {
                self.ids.entry(key).or_insert(from + start as u64);
            }
            start = nl + 1;
        }
        self.loaded = from + start as u64;
        Ok(())
    }

    /// The id of `key` if the table holds it (nothing is added).
    ///
    /// # Errors
    /// A missing table, I/O errors.
    pub(crate) fn find(&mut self, key: &Key) -> Result<Option<u64>> {
        if *key == Key::Null {
            return Ok(Some(NULL_ID));
        }
        self.known(key)
    }

    /// The id of `key`, added to the table if it is not there yet. The null
    /// key's is 0 and is in no table.
    ///
    /// # Errors
    /// A missing or damaged table, I/O errors.
    pub(crate) fn id_of(&mut self, key: &Key) -> Result<u64> {
        if *key == Key::Null {
            return Ok(NULL_ID);
        }
        if let Some(id) = self.known(key)? {
            return Ok(id);
        }
        let Some(entry) = keytable::entry(key) else {
            return Err(Error::io("add a key to", &self.path, std::io::Error::other("only text and bytes keys have entries")));
        };
        // Between producers: the lock, then everything added meanwhile, then ours.
        if self.appender.is_none() {
            self.appender = Some(crate::sys::open::open_regular(&self.path, true)?);
        }
        let appender = self.appender.take().ok_or_else(|| Error::io("open", &self.path, std::io::Error::other("no handle")))?;
        let added = self.add_locked(&appender, key, &entry);
        self.appender = Some(appender);
        added
    }

    /// Add `key` (its `entry` line) holding the table's lock through `appender`.
    fn add_locked(&mut self, appender: &File, key: &Key, entry: &[u8]) -> Result<u64> {
        let _held = crate::sys::lock::lock(appender, crate::sys::lock::Mode::Exclusive).map_err(|e| Error::io("lock", &self.path, e))?;
        self.catch_up()?;
        if let Some(id) = self.ids.get(key) {
            return Ok(*id);
        }
        let len = appender.metadata().map_err(|e| Error::io("read", &self.path, e))?.len();
        let mut appender = appender;
        if len < HEADER.len() as u64 {
            return Err(self.missing(std::io::Error::other(
                "the key table has no header: it was deleted or emptied, so the ids the topic's lines hold name nothing",
            )));
        }
        if len > self.loaded {
            // Bytes after the last newline: a record torn by a crashed writer (no
            // writer is mid-write while we hold the lock). End it, so ours starts a line.
            appender.write_all(b"\n").map_err(|e| Error::io("append to", &self.path, e))?;
        }
        let pos = len + u64::from(len > self.loaded);
        let written = appender.write(entry).map_err(|e| Error::io("append to", &self.path, e))?;
        if written != entry.len() {
            // A full disk: the part written is cut off again (we hold the lock, so nothing
            // came after it); left, it is a torn record its CRC keeps from being read.
            let taken_back = crate::log::torn::take_back(appender, &self.path, written);
            return Err(Error::ShortWrite { path: self.path.clone(), written, len: entry.len(), taken_back });
        }
        // Our write began where the file ended under the lock: the id is that byte.
        self.loaded = pos + entry.len() as u64;
        self.ids.insert(key.clone(), pos);
        Ok(pos)
    }

    /// The key of `id` (readers): 0 is the null key.
    ///
    /// # Errors
    /// Why no key is there (as a line's problem), or an I/O error.
    pub(crate) fn key_of(&mut self, id: u64) -> Result<std::result::Result<Key, String>> {
        if id == NULL_ID {
            return Ok(Ok(Key::Null));
        }
        if let Some(k) = self.keys.get(&id) {
            return Ok(Ok(k.clone()));
        }
        if id < HEADER.len() as u64 {
            return Ok(Err("it is inside the table's header".into()));
        }
        let found = match self.read_entry(id) {
            Ok(found) => found,
            Err(Error::Io { cause, .. }) if cause.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Err("the topic has no key table (keys.twk is missing)".into()))
            }
            Err(e) => return Err(e),
        };
        if let Ok(k) = &found {
            if self.keys.len() >= READER_CACHE {
                self.keys.clear();
            }
            self.keys.insert(id, k.clone());
        }
        Ok(found)
    }

    /// Read the entry starting at byte `id`: the byte before it must end a line.
    fn read_entry(&mut self, id: u64) -> Result<std::result::Result<Key, String>> {
        let started = Instant::now();
        loop {
            let in_window = id > self.win_pos && id - self.win_pos <= self.window.len() as u64;
            let rel = usize::try_from(id.saturating_sub(self.win_pos)).unwrap_or(usize::MAX);
            if in_window {
                if let Some(nl) = memchr::memchr(b'\n', &self.window[rel..]) {
                    if self.window[rel - 1] != b'\n' {
                        return Ok(Err("no entry starts there (the byte before it ends no line)".into()));
                    }
                    return Ok(keytable::parse(&self.window[rel..rel + nl]));
                }
            }
            // Read from the byte before `id`, enough for the longest entry.
            let path = self.path.clone();
            let file = self.reader()?;
            let want = WINDOW.max(MAX_ENTRY + 1);
            let mut buf = vec![0u8; want];
            let mut got = 0;
            while got < want {
                let n = crate::sys::open::read_at(file, &mut buf[got..], id - 1 + got as u64).map_err(|e| Error::io("read", &path, e))?;
                if n == 0 {
                    break;
                }
                got += n;
            }
            buf.truncate(got);
            let complete = buf.get(1..).is_some_and(|b| memchr::memchr(b'\n', b).is_some());
            self.window = buf;
            self.win_pos = id - 1;
            if complete || got >= want {
                if !complete {
                    return Ok(Err("the entry there is longer than any key".into()));
                }
                continue;
            }
            // Shorter than the entry: a line naming the id was written after the
            // entry, so its bytes are coming (ntfs-3g shows sizes before bytes).
            let len = self.reader()?.metadata().map(|m| m.len()).ok();
            if started.elapsed() >= SHORT_READ_RETRY || (len.is_some() && len == self.waited_at_len) {
                self.waited_at_len = len;
                return Ok(Err(if got <= 1 { "the table ends before it".into() } else { "the entry there is unfinished".into() }));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// Damaged entries of a key table (the byte each starts at, and why), and the
/// byte an unfinished last record starts at, if there is one.
pub(crate) type TableProblems = (Vec<(u64, String)>, Option<u64>);

/// What `twainmq check` says of a key table: each damaged entry (its byte and
/// why) and whether its last record is unfinished (torn by a crash, or being written).
pub(crate) fn check(topic_dir: &Path) -> Result<TableProblems> {
    let path = path_in(topic_dir);
    let data = {
        let f = crate::sys::open::open_regular(&path, false)?;
        let mut data = Vec::new();
        std::io::Read::read_to_end(&mut &f, &mut data).map_err(|e| Error::io("read", &path, e))?;
        data
    };
    let mut damaged = Vec::new();
    if !data.starts_with(HEADER) {
        damaged.push((0, "the table does not start with its header: it is not a key table TwainMQ wrote".to_string()));
        return Ok((damaged, None));
    }
    let mut start = HEADER.len();
    for nl in memchr::memchr_iter(b'\n', &data[HEADER.len()..]).map(|i| i + HEADER.len()) {
        if let Err(why) = keytable::parse(&data[start..nl]) {
            damaged.push((start as u64, why));
        }
        start = nl + 1;
    }
    let torn = (start < data.len()).then_some(start as u64);
    Ok((damaged, torn))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_get_one_id_each_across_tables_and_torn_records_are_passed_over() {
        let dir = tempfile::tempdir().expect("tmp");
        create(&path_in(dir.path())).expect("create");
        let (mut a, mut b) = (KeyTable::new(dir.path()), KeyTable::new(dir.path()));
        let k1 = Key::Str("one".into());
        let id1 = a.id_of(&k1).expect("add");
        assert_eq!(id1, HEADER.len() as u64);
        assert_eq!(b.id_of(&k1).expect("found"), id1, "the other producer finds it");
        // A crash mid-record leaves a torn tail: the next writer ends it.
        std::fs::OpenOptions::new().append(true).open(path_in(dir.path())).expect("open").write_all(b"4T^").expect("tear");
        let k2 = Key::Bytes(vec![0, 1, 2]);
        let id2 = b.id_of(&k2).expect("add after a torn record");
        assert_eq!(a.id_of(&k2).expect("found"), id2);
        let mut r = KeyTable::new(dir.path());
        assert_eq!(r.key_of(id1).expect("read"), Ok(k1));
        assert_eq!(r.key_of(id2).expect("read"), Ok(k2));
        assert_eq!(r.key_of(0).expect("read"), Ok(Key::Null));
        assert!(r.key_of(id1 + 1).expect("read").is_err(), "no entry starts mid-entry");
        assert!(r.key_of(1 << 40).expect("read").is_err(), "past the end");
        let (damaged, torn) = check(dir.path()).expect("check");
        assert_eq!((damaged.len(), torn), (1, None), "{damaged:?}");
    }
}
