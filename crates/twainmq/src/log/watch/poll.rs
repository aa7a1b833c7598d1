//! A cheap poll of a store beside the `notify` backend's events, for what
//! those events miss: ReadDirectoryChangesW reports nothing while a process
//! appends through a handle it keeps open (our producers and 0.2.3's do), and
//! often nothing on SMB shares; FSEvents reports nothing a remote machine
//! wrote to a share; and neither reliably reports the watched folder's own
//! removal. Once a second ([`POLL_EVERY`]) it looks at the store's root (its
//! identity and, when its modification time moved, its entries) and at the
//! newest file of each partition of the topics and groups: their sizes, and
//! their folders' modification times (a new day file). A topic or group seen
//! to change within the last minute is looked at on every tick; the others in
//! turn, at most [`BUDGET`] file-system queries a tick in all, so a store of
//! thousands of idle topics costs a bounded, small amount.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant, SystemTime};

use super::{Change, Sink};
use crate::log::files::PartitionFile;
use crate::sys::identity::FileIdentity;

/// How often the store is looked at: within the 2 s a screen may lag.
pub(super) const POLL_EVERY: Duration = Duration::from_secs(1);
/// File-system queries a tick at most (a stat costs tens of microseconds on
/// Windows): busy topics first, idle ones in turn.
pub(super) const BUDGET: usize = 1_000;
/// A folder that changed within this long is looked at on every tick.
const HOT_FOR: Duration = Duration::from_secs(60);

/// What the poll knows of one topic's or group's folder.
#[derive(Default)]
struct Folder {
    mtime: Option<SystemTime>,
    /// The newest file of each partition, and its size when last looked at.
    newest: Vec<(PathBuf, Option<u64>)>,
    changed_at: Option<Instant>,
}

/// The poll's view of a store, advanced one tick at a time.
pub(super) struct StorePoll {
    root: PathBuf,
    root_id: Option<FileIdentity>,
    root_mtime: Option<SystemTime>,
    entries: BTreeSet<OsString>,
    folders: BTreeMap<String, Folder>,
    /// Where the turn of idle folders goes on from.
    cursor: Option<String>,
}

/// What one tick found.
pub(super) enum Tick {
    /// These changes (none, often).
    Changes(Vec<(OsString, bool)>, Vec<String>),
    /// The store's folder is gone or another folder took its path.
    RootGone,
}

fn mtime(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

fn size(path: &Path) -> Option<u64> {
    std::fs::metadata(path).map(|m| m.len()).ok()
}

impl StorePoll {
    /// Start from the store as it is now (nothing is reported for it).
    pub(super) fn new(root: &Path) -> StorePoll {
        let mut p = StorePoll {
            root: root.to_path_buf(),
            root_id: FileIdentity::at(root),
            root_mtime: None,
            entries: BTreeSet::new(),
            folders: BTreeMap::new(),
            cursor: None,
        };
        let _ = p.tick(usize::MAX);
        p
    }

    /// Look at the store once, within `budget` queries.
    pub(super) fn tick(&mut self, budget: usize) -> Tick {
        let id = FileIdentity::at(&self.root);
        if id.is_none() || id != self.root_id {
            return Tick::RootGone;
        }
        let mut entries_changed = Vec::new();
        let root_mtime = mtime(&self.root);
        if root_mtime != self.root_mtime || root_mtime.is_none() {
            self.root_mtime = root_mtime;
            let now: BTreeSet<OsString> =
                std::fs::read_dir(&self.root).map(|d| d.flatten().map(|e| e.file_name()).collect()).unwrap_or_default();
            for gone in self.entries.difference(&now) {
                entries_changed.push((gone.clone(), true));
            }
            for new in now.difference(&self.entries) {
                entries_changed.push((new.clone(), true));
            }
            self.entries = now;
            let folders: BTreeSet<String> = self
                .entries
                .iter()
                .filter_map(|e| e.to_str())
                .filter(|n| !n.starts_with('.') || !n.contains(".deleted-"))
                .filter(|n| self.root.join(n).is_dir())
                .map(str::to_string)
                .collect();
            self.folders.retain(|n, _| folders.contains(n));
            for f in folders {
                self.folders.entry(f).or_default();
            }
        }
        let mut changed = Vec::new();
        let mut spent = 0usize;
        let now = Instant::now();
        // Busy folders first, every tick.
        let hot: Vec<String> =
            self.folders.iter().filter(|(_, f)| f.changed_at.is_some_and(|t| now - t < HOT_FOR)).map(|(n, _)| n.clone()).collect();
        for name in &hot {
            spent += self.look(name, &mut changed);
        }
        // Then the others in turn, from where the last tick stopped.
        let order: Vec<String> = {
            let start = self.cursor.clone().unwrap_or_default();
            let after = self.folders.range::<String, _>((std::ops::Bound::Excluded(start.clone()), std::ops::Bound::Unbounded));
            let before = self.folders.range::<String, _>(..=start);
            after.chain(before).map(|(n, _)| n.clone()).filter(|n| !hot.contains(n)).collect()
        };
        for name in order {
            if spent >= budget {
                break;
            }
            spent += self.look(&name, &mut changed);
            self.cursor = Some(name);
        }
        Tick::Changes(entries_changed, changed)
    }

    /// Look at one folder: its modification time (a file made or removed),
    /// then its partitions' newest files' sizes. Returns the queries made.
    fn look(&mut self, name: &str, changed: &mut Vec<String>) -> usize {
        let dir = self.root.join(name);
        let Some(folder) = self.folders.get_mut(name) else { return 0 };
        let mut spent = 1;
        let m = mtime(&dir);
        let mut moved = false;
        if m != folder.mtime {
            moved = folder.mtime.is_some();
            folder.mtime = m;
            let mut newest: BTreeMap<u32, PartitionFile> = BTreeMap::new();
            if let Ok(entries) = std::fs::read_dir(&dir) {
                for e in entries.flatten() {
                    let path = e.path();
                    let Some(f) = e.file_name().to_str().and_then(PartitionFile::parse_name).map(|(partition, day, first)| PartitionFile {
                        path: path.clone(),
                        partition,
                        day,
                        first,
                    }) else {
                        continue;
                    };
                    match newest.get(&f.partition) {
                        Some(n) if n.order_key() >= f.order_key() => {}
                        _ => {
                            newest.insert(f.partition, f);
                        }
                    }
                }
            }
            let sizes: BTreeMap<PathBuf, Option<u64>> = folder.newest.drain(..).collect();
            folder.newest = newest
                .into_values()
                .map(|f| {
                    let known = sizes.get(&f.path).copied().flatten();
                    (f.path, known)
                })
                .collect();
        }
        for (path, known) in &mut folder.newest {
            spent += 1;
            let now = size(path);
            if now != *known {
                moved |= known.is_some() || now.is_some();
                *known = now;
            }
        }
        if moved {
            folder.changed_at = Some(Instant::now());
            changed.push(name.to_string());
        }
        spent
    }
}

/// The poll's thread: stops when dropped.
pub(super) struct Poller {
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Poller {
    /// Poll `root` every [`POLL_EVERY`], reporting to `sink`; when the root
    /// goes, report it, clear `live`, and stop.
    pub(super) fn start(root: &Path, sink: Arc<dyn Sink>, live: Arc<AtomicBool>) -> std::io::Result<Poller> {
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let s = Arc::clone(&stop);
        // The store as it is when the watch starts (not when the thread does):
        // what changes after `start` returns is reported.
        let mut poll = StorePoll::new(root);
        let thread = std::thread::Builder::new().name("twainmq-poll".into()).spawn(move || loop {
            {
                let (lock, cv) = &*s;
                let stopped = lock.lock().unwrap_or_else(|p| p.into_inner());
                let (stopped, _) = cv.wait_timeout_while(stopped, POLL_EVERY, |s| !*s).unwrap_or_else(|p| p.into_inner());
                if *stopped {
                    return;
                }
            }
            match poll.tick(BUDGET) {
                Tick::RootGone => {
                    live.store(false, Ordering::Release);
                    sink.changes(&[Change::RootGone]);
                    return;
                }
                Tick::Changes(entries, folders) => {
                    let mut batch: Vec<Change<'_>> =
                        entries.iter().map(|(name, cr)| Change::Entry { name: name.as_os_str(), created_or_removed: *cr }).collect();
                    batch.extend(folders.iter().map(|f| Change::InFolder(Arc::from(f.as_str()))));
                    if !batch.is_empty() {
                        sink.changes(&batch);
                    }
                }
            }
        })?;
        Ok(Poller { stop, thread: Some(thread) })
    }
}

impl Drop for Poller {
    fn drop(&mut self) {
        let (lock, cv) = &*self.stop;
        *lock.lock().unwrap_or_else(|p| p.into_inner()) = true;
        cv.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changes(t: Tick) -> (Vec<String>, Vec<String>) {
        match t {
            Tick::Changes(e, f) => (e.iter().map(|(n, _)| n.to_string_lossy().into_owned()).collect(), f),
            Tick::RootGone => panic!("root gone"),
        }
    }

    #[test]
    fn appends_through_an_open_handle_new_files_and_entries_are_seen() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = dir.path();
        std::fs::create_dir(root.join("t")).expect("folder");
        std::fs::write(root.join("t.twc"), b"{}").expect("config");
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(root.join("t/0-20261203_0.tmf")).expect("file");
        let mut poll = StorePoll::new(root);
        assert_eq!(changes(poll.tick(BUDGET)), (vec![], vec![]), "nothing changed");
        std::io::Write::write_all(&mut f, b"x\n").expect("append");
        assert_eq!(changes(poll.tick(BUDGET)).1, vec!["t".to_string()], "an append through a handle kept open");
        assert_eq!(changes(poll.tick(BUDGET)).1, Vec::<String>::new());
        // A new partition file (the folder's time moves; allow a coarse clock).
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(root.join("t/1-20261203_0.tmf"), b"y\n").expect("file");
        assert_eq!(changes(poll.tick(BUDGET)).1, vec!["t".to_string()]);
        // A new topic: an entry of the root.
        std::thread::sleep(Duration::from_millis(20));
        std::fs::create_dir(root.join("u")).expect("folder");
        let (entries, _) = changes(poll.tick(BUDGET));
        assert_eq!(entries, vec!["u".to_string()]);
    }

    #[test]
    fn a_budget_takes_idle_folders_in_turn_and_busy_ones_every_tick() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = dir.path();
        let mut files = Vec::new();
        for t in 0..10 {
            std::fs::create_dir(root.join(format!("t{t}"))).expect("folder");
            let p = root.join(format!("t{t}/0-20261203_0.tmf"));
            std::fs::write(&p, b"x\n").expect("file");
            files.push(p);
        }
        let mut poll = StorePoll::new(root);
        let append = |p: &Path| {
            let mut f = std::fs::OpenOptions::new().append(true).open(p).expect("open");
            std::io::Write::write_all(&mut f, b"y\n").expect("append");
        };
        // Every folder grows; with room for 2 folders (2 queries each) a tick,
        // all ten are seen within five ticks.
        for p in &files {
            append(p);
        }
        let mut seen = BTreeSet::new();
        for _ in 0..5 {
            seen.extend(changes(poll.tick(4)).1);
        }
        assert_eq!(seen.len(), 10, "{seen:?}");
        // t3 is busy now: it is looked at on every tick, whatever the budget.
        for _ in 0..3 {
            append(&files[3]);
            assert!(changes(poll.tick(0)).1.contains(&"t3".to_string()));
        }
    }

    #[test]
    fn the_root_removed_is_gone() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = dir.path().join("store");
        std::fs::create_dir(&root).expect("folder");
        let mut poll = StorePoll::new(&root);
        std::fs::remove_dir(&root).expect("rm");
        assert!(matches!(poll.tick(BUDGET), Tick::RootGone));
    }
}
