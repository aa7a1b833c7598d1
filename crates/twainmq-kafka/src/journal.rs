//! What a mirror into a store keeps beside the store's topics: the store's id,
//! a lock per target topic, and a journal per target topic saying which of its
//! offsets came from which Kafka records (docs/KAFKA.md, "Resuming" and "Two
//! mirrors"). A store line has no headers, so this is where the origin of a
//! mirrored message is kept.
//!
//! Everything is in the folder [`DIR`] at the store's root: a name no topic
//! can have (`~` is not in a topic name), which 0.2.3 never lists (it reads
//! `*.twc` at the root and the partition files in topic folders).
//!
//! The journal is JSON lines, each appended with one `write`:
//! - `pending` before a batch is written: the partition's end then, the
//!   batch's source offsets with each message's fingerprint, and the next
//!   source offset after the batch;
//! - `landed` once it is in the store: runs of (target offset, source offset,
//!   count) and the next source offset to read.
//!
//! A mirror killed between the two finds the batch's lines by their
//! fingerprints from the recorded end (other producers' lines may be among
//! them) and records what landed: so nothing is written twice and nothing is
//! skipped.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use twainmq::{StartFrom, Store};

use crate::error::{Error, Result};
use crate::mapping::{fingerprint, FingerprintPayload};

/// The folder at a store's root that mirrors keep their journals, locks and
/// the store's id in.
pub const DIR: &str = "~twainmq-mirror";

/// One source partition's records in a target partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Run {
    /// The first target offset.
    pub target: u64,
    /// The first source offset.
    pub source: u64,
    /// How many, consecutive on both sides.
    pub count: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Pending {
    from: String,
    topic: String,
    p: u32,
    /// The target partition's end when the batch was about to be written.
    end: u64,
    /// `[source offset, fingerprint]` of each message of the batch, in order.
    records: Vec<(u64, String)>,
    /// The next source offset once the batch is in.
    next: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Landed {
    from: String,
    topic: String,
    p: u32,
    runs: Vec<Run>,
    next: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Entry {
    Pending(Pending),
    Landed(Landed),
}

/// Where one source partition stands in the target: the runs that landed,
/// the next source offset, and a batch whose landing is not yet recorded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceState {
    /// Runs in target order, merged where consecutive on both sides.
    pub runs: Vec<Run>,
    /// The next source offset to mirror (`None`: nothing recorded yet).
    pub next: Option<u64>,
    pending: Option<Pending>,
}

impl SourceState {
    fn land(&mut self, runs: &[Run], next: u64) {
        for r in runs {
            if r.count == 0 {
                continue;
            }
            match self.runs.last_mut() {
                Some(l) if l.target + l.count == r.target && l.source + l.count == r.source => l.count += r.count,
                _ => self.runs.push(*r),
            }
        }
        self.next = Some(next);
        self.pending = None;
    }

    /// Whether target offset `t` holds a record of this source.
    pub fn holds_target(&self, t: u64) -> bool {
        let i = self.runs.partition_point(|r| r.target + r.count <= t);
        self.runs.get(i).is_some_and(|r| r.target <= t)
    }

    /// The fingerprints of a batch whose landing is not recorded yet.
    pub fn pending_fingerprints(&self) -> impl Iterator<Item = &str> {
        self.pending.iter().flat_map(|p| p.records.iter().map(|(_, f)| f.as_str()))
    }

    /// The target offset just after the last record mirrored from a source
    /// offset below `source` (a group that committed `source` has consumed
    /// those): where its commit goes in the target, never past its true
    /// position. `None` when no such record was mirrored.
    pub fn target_after_source_below(&self, source: u64) -> Option<u64> {
        let mut best = None;
        for r in &self.runs {
            if r.source >= source {
                continue;
            }
            let k = (source - r.source).min(r.count);
            let t = r.target + k;
            best = Some(best.map_or(t, |b: u64| b.max(t)));
        }
        best
    }
}

/// Identifies one source partition: the source's id, its topic, the partition.
pub type SourceKey = (String, String, u32);

/// A target topic's journal, read whole.
#[derive(Debug, Default, Clone)]
pub struct Journal {
    /// Per source partition.
    pub sources: BTreeMap<SourceKey, SourceState>,
    /// The journal's length when read (a reader looks again when it grows).
    pub len: u64,
}

/// The paths of a target topic's journal and lock.
fn paths(store: &Store, topic: &str) -> (PathBuf, PathBuf) {
    let dir = store.root().join(DIR);
    (dir.join(format!("{topic}.journal")), dir.join(format!("{topic}.lock")))
}

/// The store's id (`store-` and 32 hex digits), made on first use.
///
/// # Errors
/// [`Error::Journal`] when the folder or file cannot be made or read.
pub fn store_id(store: &Store) -> Result<String> {
    let dir = store.root().join(DIR);
    fs::create_dir_all(&dir).map_err(|e| Error::journal(&dir, e))?;
    let path = dir.join("store-id");
    let read = |path: &Path| fs::read_to_string(path).map(|s| s.trim().to_string());
    match read(&path) {
        Ok(id) if id.starts_with("store-") && id.len() > 6 => return Ok(id),
        Ok(_) | Err(_) => {}
    }
    let id = format!("store-{:032x}", rand::random::<u128>());
    // Made beside and linked in: two first users agree on whichever lands first.
    let tmp = dir.join(format!("store-id.{:x}.tmp", rand::random::<u64>()));
    fs::write(&tmp, &id).map_err(|e| Error::journal(&tmp, e))?;
    let linked = fs::hard_link(&tmp, &path);
    let _ = fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok(id),
        Err(_) => read(&path).map_err(|e| Error::journal(&path, e)),
    }
}

/// Read a target topic's journal (empty if none). A line cut short by a crash
/// at the end is ignored: it was the last thing written, before its batch.
///
/// # Errors
/// [`Error::Journal`] when it cannot be read, or a whole line is not an entry.
pub fn read(store: &Store, topic: &str) -> Result<Journal> {
    let (path, _) = paths(store, topic);
    let bytes = match fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Journal::default()),
        Err(e) => return Err(Error::journal(&path, e)),
    };
    let mut j = Journal { len: bytes.len() as u64, ..Journal::default() };
    for (i, line) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
        let Some(line) = line.strip_suffix(b"\n") else { break };
        let entry: Entry = serde_json::from_slice(line)
            .map_err(|e| Error::journal(&path, std::io::Error::new(std::io::ErrorKind::InvalidData, format!("line {}: {e}", i + 1))))?;
        match entry {
            Entry::Pending(p) => {
                let key = (p.from.clone(), p.topic.clone(), p.p);
                j.sources.entry(key).or_default().pending = Some(p);
            }
            Entry::Landed(l) => j.sources.entry((l.from.clone(), l.topic.clone(), l.p)).or_default().land(&l.runs, l.next),
        }
    }
    Ok(j)
}

/// A mirror's hold on a target topic of a store: the topic's lock, held until
/// dropped (the OS lets it go when the process dies), and its journal open
/// for appending.
#[derive(Debug)]
pub struct Writer {
    _lock: File,
    file: File,
    path: PathBuf,
    /// What the journal says, kept up to date with what this writer appends.
    pub journal: Journal,
    from: String,
    topic: String,
}

impl Writer {
    /// Take the lock of `topic`'s journal in `store` for a mirror from
    /// `from` (a cluster's id) of Kafka topic `source_topic`; finish what a
    /// mirror killed mid-batch left (its lines found by fingerprint); compact
    /// the journal.
    ///
    /// # Errors
    /// [`Error::TargetBusy`] when another mirror holds the lock;
    /// [`Error::Journal`]; store errors while reading the target back.
    pub fn open(store: &Store, topic: &str, from: &str, source_topic: &str) -> Result<Writer> {
        let (path, lock_path) = paths(store, topic);
        let dir = store.root().join(DIR);
        fs::create_dir_all(&dir).map_err(|e| Error::journal(&dir, e))?;
        let lock =
            OpenOptions::new().create(true).truncate(false).write(true).open(&lock_path).map_err(|e| Error::journal(&lock_path, e))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                return Err(Error::TargetBusy {
                    target: format!("store topic {topic}"),
                    how: format!("another mirror holds {}", lock_path.display()),
                })
            }
            Err(fs::TryLockError::Error(e)) => return Err(Error::journal(&lock_path, e)),
        }
        let mut journal = read(store, topic)?;
        // Batches whose landing was not recorded: find their lines.
        let mut settled = Vec::new();
        for (key, state) in &journal.sources {
            if let Some(p) = &state.pending {
                settled.push((key.clone(), settle(store, topic, p)?));
            }
        }
        for (key, (runs, next)) in settled {
            if let Some(s) = journal.sources.get_mut(&key) {
                s.land(&runs, next);
            }
        }
        // Compact: one landed entry per source partition, written beside and renamed over.
        let tmp = dir.join(format!("{topic}.journal.tmp"));
        let mut text = Vec::new();
        for ((f, t, p), s) in &journal.sources {
            let Some(next) = s.next else { continue };
            let e = Entry::Landed(Landed { from: f.clone(), topic: t.clone(), p: *p, runs: s.runs.clone(), next });
            serde_json::to_writer(&mut text, &e).map_err(|e| Error::journal(&tmp, e.into()))?;
            text.push(b'\n');
        }
        fs::write(&tmp, &text).map_err(|e| Error::journal(&tmp, e))?;
        fs::rename(&tmp, &path).map_err(|e| Error::journal(&path, e))?;
        journal.len = text.len() as u64;
        let file = OpenOptions::new().append(true).create(true).open(&path).map_err(|e| Error::journal(&path, e))?;
        Ok(Writer { _lock: lock, file, path, journal, from: from.to_string(), topic: source_topic.to_string() })
    }

    /// Where source partition `p` stands.
    pub fn state(&self, p: u32) -> Option<&SourceState> {
        self.journal.sources.get(&(self.from.clone(), self.topic.clone(), p))
    }

    fn append(&mut self, e: &Entry) -> Result<()> {
        let mut line = serde_json::to_vec(e).map_err(|e| Error::journal(&self.path, e.into()))?;
        line.push(b'\n');
        self.file.write_all(&line).map_err(|e| Error::journal(&self.path, e))?;
        self.journal.len += line.len() as u64;
        Ok(())
    }

    /// Record that a batch is about to be written to partition `p`, whose end is `end`.
    ///
    /// # Errors
    /// [`Error::Journal`].
    pub fn pending(&mut self, p: u32, end: u64, records: Vec<(u64, u64)>, next: u64) -> Result<()> {
        let pending = Pending {
            from: self.from.clone(),
            topic: self.topic.clone(),
            p,
            end,
            records: records.into_iter().map(|(o, f)| (o, format!("{f:016x}"))).collect(),
            next,
        };
        self.append(&Entry::Pending(pending.clone()))?;
        self.journal.sources.entry((self.from.clone(), self.topic.clone(), p)).or_default().pending = Some(pending);
        Ok(())
    }

    /// Find where the batch recorded as pending for `p` landed, and record it.
    /// Returns the runs.
    ///
    /// # Errors
    /// [`Error::Journal`], store read errors.
    pub fn landed(&mut self, store: &Store, target_topic: &str, p: u32) -> Result<Vec<Run>> {
        let key = (self.from.clone(), self.topic.clone(), p);
        let Some(pending) = self.journal.sources.get(&key).and_then(|s| s.pending.clone()) else { return Ok(Vec::new()) };
        let (runs, next) = settle(store, target_topic, &pending)?;
        self.record_landed(p, runs.clone(), next)?;
        Ok(runs)
    }

    /// Record runs that landed (or none, to move `next` past skipped records).
    ///
    /// # Errors
    /// [`Error::Journal`].
    pub fn record_landed(&mut self, p: u32, runs: Vec<Run>, next: u64) -> Result<()> {
        let l = Landed { from: self.from.clone(), topic: self.topic.clone(), p, runs, next };
        self.append(&Entry::Landed(l.clone()))?;
        self.journal.sources.entry((self.from.clone(), self.topic.clone(), p)).or_default().land(&l.runs, l.next);
        Ok(())
    }
}

/// Where a pending batch's messages are in the target, found from its
/// recorded end by fingerprint, in order (lines of other producers may be
/// between them). Returns the runs and the next source offset: the batch's
/// `next` when all landed, else the first that did not.
fn settle(store: &Store, topic: &str, p: &Pending) -> Result<(Vec<Run>, u64)> {
    let mut reader = store.partition_reader(topic, p.p, StartFrom::Offset(p.end))?;
    let mut runs: Vec<Run> = Vec::new();
    let mut i = 0;
    while i < p.records.len() {
        let m = match reader.poll() {
            Ok(Some(m)) => m,
            Ok(None) => break,
            // A damaged line is nobody's message: the reader has moved past it.
            Err(twainmq::Error::CorruptLine { .. }) => continue,
            Err(e) => return Err(e.into()),
        };
        let f = format!("{:016x}", fingerprint(&m.key, m.timestamp, FingerprintPayload::stored(&m.payload)));
        if f != p.records[i].1 {
            continue;
        }
        let source = p.records[i].0;
        match runs.last_mut() {
            Some(l) if l.target + l.count == m.offset && l.source + l.count == source => l.count += 1,
            _ => runs.push(Run { target: m.offset, source, count: 1 }),
        }
        i += 1;
    }
    let next = p.records.get(i).map_or(p.next, |r| r.0);
    Ok((runs, next))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_merge_and_translate_never_past_the_true_position() {
        let mut s = SourceState::default();
        s.land(&[Run { target: 10, source: 100, count: 5 }, Run { target: 15, source: 105, count: 2 }], 107);
        // A gap in the source (compaction) and local lines between in the target.
        s.land(&[Run { target: 20, source: 110, count: 3 }], 113);
        assert_eq!(s.runs, vec![Run { target: 10, source: 100, count: 7 }, Run { target: 20, source: 110, count: 3 }]);
        assert_eq!(s.next, Some(113));
        assert!(s.holds_target(10) && s.holds_target(16) && !s.holds_target(17) && s.holds_target(22) && !s.holds_target(23));
        assert_eq!(s.target_after_source_below(100), None);
        assert_eq!(s.target_after_source_below(101), Some(11));
        assert_eq!(s.target_after_source_below(107), Some(17));
        // Committed at a source offset that was never mirrored (in the gap): just after 106.
        assert_eq!(s.target_after_source_below(109), Some(17));
        assert_eq!(s.target_after_source_below(111), Some(21));
        assert_eq!(s.target_after_source_below(1000), Some(23));
    }
}
