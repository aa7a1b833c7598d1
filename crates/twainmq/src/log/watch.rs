//! Watching a store folder: file events mapped to what changed (topic data,
//! the topic list, a group log), coalesced so a burst of appends is one event.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

#[cfg(not(target_os = "linux"))]
use notify::{RecursiveMode, Watcher};

use crate::error::{Error, Result};
use crate::format::name::GROUP_PREFIX;

/// What changed in a store during one coalescing window.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoreChange {
    /// Topics whose data or config changed.
    pub topics: BTreeSet<String>,
    /// Groups whose log changed.
    pub groups: BTreeSet<String>,
    /// Topics or groups appeared or disappeared.
    pub structure: bool,
}

impl StoreChange {
    pub fn is_empty(&self) -> bool {
        self.topics.is_empty() && self.groups.is_empty() && !self.structure
    }

    /// Fold in the change a path implies.
    /// (Topics may start with `.`, as 0.2.3 allows: only our temporary
    /// config files, `.{topic}.twc.tmp-{pid}`, are skipped.)
    pub fn add_path(&mut self, root: &Path, path: &Path, created_or_removed: bool) {
        let Ok(rel) = path.strip_prefix(root) else { return };
        let mut parts = rel.components();
        let Some(first) = parts.next().and_then(|c| c.as_os_str().to_str()) else { return };
        let in_folder = parts.next().is_some();
        let (name, is_config) = match first.strip_suffix(".twc") {
            Some(stem) if !in_folder => (stem, true),
            _ => (first, false),
        };
        if is_temp_config(name) {
            return; // our own temporary files
        }
        match name.strip_prefix(GROUP_PREFIX) {
            Some(group) => {
                self.groups.insert(group.to_string());
            }
            None => {
                self.topics.insert(name.to_string());
            }
        }
        if is_config || (!in_folder && created_or_removed) {
            self.structure = true;
        }
    }

    /// Fold in a change inside the folder `name` (a topic's or a group's data):
    /// no allocation when it is already noted, as for every append of a burst.
    pub fn add_folder(&mut self, name: &str) {
        if is_temp_config(name) {
            return;
        }
        match name.strip_prefix(GROUP_PREFIX) {
            Some(group) if !self.groups.contains(group) => {
                self.groups.insert(group.to_string());
            }
            None if !self.topics.contains(name) => {
                self.topics.insert(name.to_string());
            }
            _ => {}
        }
    }
}

/// A live watch on a store: changes arrive on the callback's thread within `latency`.
pub struct StoreWatcher {
    backend: Backend,
    shared: Arc<Shared>,
    _thread: std::thread::JoinHandle<()>,
}

#[cfg(target_os = "linux")]
type Backend = linux::InotifyWatch;
#[cfg(not(target_os = "linux"))]
type Backend = notify::RecommendedWatcher;

/// Events are folded into `pending` on the watcher's own thread as they come,
/// and the delivering thread is woken once per window, not once per event: a
/// log written at 100k appends/s is 100k events/s.
struct Shared {
    pending: Mutex<Pending>,
    wake: Condvar,
}

#[derive(Default)]
struct Pending {
    change: StoreChange,
    /// A change is waiting for its window to end.
    dirty: bool,
    /// The last path folded in this window: appends name the same file again and again.
    last: Option<PathBuf>,
    closed: bool,
}

impl std::fmt::Debug for StoreWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StoreWatcher")
    }
}

impl Drop for StoreWatcher {
    fn drop(&mut self) {
        self.shared.pending.lock().unwrap_or_else(|p| p.into_inner()).closed = true;
        self.shared.wake.notify_all();
        // Then `backend` drops, which stops its reader.
    }
}

impl StoreWatcher {
    /// Watch `root` recursively and call `on_change` with what changed, at most
    /// once per `latency` (the first event of a burst waits `latency` for the rest).
    ///
    /// # Errors
    /// [`Error::Io`] when the platform's watcher cannot be set up.
    pub fn new(root: &Path, latency: Duration, on_change: impl Fn(StoreChange) + Send + 'static) -> Result<StoreWatcher> {
        let shared = Arc::new(Shared { pending: Mutex::new(Pending::default()), wake: Condvar::new() });
        let root: PathBuf = root.to_path_buf();
        // Canonical form too: events may name paths through a resolved root.
        let canon = std::fs::canonicalize(&root).unwrap_or_else(|_| root.clone());
        let backend = watch_backend(&root, &canon, shared.clone())?;
        let deliver = shared.clone();
        let thread = std::thread::Builder::new()
            .name("twainmq-watch".into())
            .spawn(move || loop {
                {
                    let mut p = deliver.pending.lock().unwrap_or_else(|p| p.into_inner());
                    while !p.dirty && !p.closed {
                        p = deliver.wake.wait(p).unwrap_or_else(|p| p.into_inner());
                    }
                    if p.closed {
                        return;
                    }
                }
                // Let the rest of the burst arrive.
                std::thread::sleep(latency);
                let change = {
                    let mut p = deliver.pending.lock().unwrap_or_else(|p| p.into_inner());
                    if p.closed {
                        return;
                    }
                    p.dirty = false;
                    p.last = None;
                    std::mem::take(&mut p.change)
                };
                if !change.is_empty() {
                    on_change(change);
                }
            })
            .map_err(|e| Error::io("start watcher for", &root, e))?;
        Ok(StoreWatcher { backend, shared, _thread: thread })
    }

    /// Whether changes are still being watched for: false once the watch
    /// failed or the store's folder was deleted or moved away (then nothing
    /// more will be reported, and a view should say it is no longer live).
    pub fn is_live(&self) -> bool {
        #[cfg(target_os = "linux")]
        return self.backend.is_live();
        #[cfg(not(target_os = "linux"))]
        {
            let _ = &self.backend; // notify reports its failures per event
            true
        }
    }
}

/// Mark the pending change dirty and wake the delivering thread, once per window.
fn mark(shared: &Shared, p: &mut Pending) {
    if !p.dirty && !p.change.is_empty() {
        p.dirty = true;
        shared.wake.notify_one();
    }
}

#[cfg(not(target_os = "linux"))]
fn watch_backend(root: &Path, canon: &Path, shared: Arc<Shared>) -> Result<Backend> {
    let (root, canon) = (root.to_path_buf(), canon.to_path_buf());
    let fold = move |ev: notify::Result<notify::Event>| {
        let Ok(ev) = ev else { return };
        // Opening or reading a file is not a change (and our own reads
        // would otherwise report themselves forever).
        if matches!(ev.kind, notify::EventKind::Access(_)) {
            return;
        }
        let cr = matches!(ev.kind, notify::EventKind::Create(_) | notify::EventKind::Remove(_))
            || matches!(ev.kind, notify::EventKind::Modify(notify::event::ModifyKind::Name(_)));
        let mut p = shared.pending.lock().unwrap_or_else(|p| p.into_inner());
        for path in &ev.paths {
            if !cr && p.dirty && p.last.as_deref() == Some(path.as_path()) {
                continue; // already folded in this window
            }
            p.change.add_path(&root, path, cr);
            p.change.add_path(&canon, path, cr);
            p.last = Some(path.clone());
        }
        mark(&shared, &mut p);
    };
    let mut watcher = notify::recommended_watcher(fold).map_err(|e| Error::io("watch", &root, std::io::Error::other(e)))?;
    watcher.watch(&root, RecursiveMode::Recursive).map_err(|e| Error::io("watch", &root, std::io::Error::other(e)))?;
    Ok(watcher)
}

#[cfg(target_os = "linux")]
fn watch_backend(root: &Path, _canon: &Path, shared: Arc<Shared>) -> Result<Backend> {
    linux::InotifyWatch::start(root, shared)
}

/// Linux: inotify read directly, in batches. An append is an event; at 200k
/// appends a second, waking on each one (as a general-purpose watcher does)
/// cost the watching process 70% of a core and every writer a wake-up per
/// write. Reading at most every [`linux::BATCH_PAUSE`] lets events gather in
/// the kernel's queue, and an event inside a topic folder is folded without
/// building its path. A store is two levels deep: the root (configs, topic
/// and group folders) and one folder per topic or group.
#[cfg(target_os = "linux")]
mod linux {
    use std::collections::HashMap;
    use std::ffi::OsStr;
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask, Watches};

    use super::{mark, Shared, StoreChange};
    use crate::error::{Error, Result};

    /// Pause between reads: events of a busy log are read a few hundred at a time.
    pub(super) const BATCH_PAUSE: Duration = Duration::from_millis(2);

    /// Every change to what a folder holds; reads (open, access, close after
    /// reading) are left out, or our own reads would report themselves.
    fn changes() -> WatchMask {
        WatchMask::CREATE
            | WatchMask::DELETE
            | WatchMask::MOVED_FROM
            | WatchMask::MOVED_TO
            | WatchMask::MODIFY
            | WatchMask::ATTRIB
            | WatchMask::CLOSE_WRITE
    }

    fn root_mask() -> WatchMask {
        changes() | WatchMask::DELETE_SELF | WatchMask::MOVE_SELF
    }

    fn folder_mask() -> WatchMask {
        changes() | WatchMask::ONLYDIR
    }

    pub struct InotifyWatch {
        watches: Watches,
        root_wd: WatchDescriptor,
        /// Set when the reader thread has returned: after a failed read, or
        /// when the store folder itself went away.
        pub(super) reader_done: Arc<AtomicBool>,
    }

    impl InotifyWatch {
        pub(super) fn start(root: &Path, shared: Arc<Shared>) -> Result<InotifyWatch> {
            let io = |e| Error::io("watch", root, e);
            let inotify = Inotify::init().map_err(io)?;
            let mut watches = inotify.watches();
            let root_wd = watches.add(root, root_mask()).map_err(io)?;
            let mut state = Folders::new(root, root_wd.get_watch_descriptor_id());
            for entry in std::fs::read_dir(root).map_err(io)?.flatten() {
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    state.watch(&mut watches, &entry.file_name());
                }
            }
            let reader_watches = watches.clone();
            let reader_done = Arc::new(AtomicBool::new(false));
            let done = reader_done.clone();
            std::thread::Builder::new()
                .name("twainmq-inotify".into())
                .spawn(move || {
                    read_loop(inotify, reader_watches, state, &shared);
                    done.store(true, Ordering::Release);
                })
                .map_err(|e| Error::io("start watcher for", root, e))?;
            Ok(InotifyWatch { watches, root_wd, reader_done })
        }

        pub(super) fn is_live(&self) -> bool {
            !self.reader_done.load(Ordering::Acquire)
        }
    }

    impl Drop for InotifyWatch {
        /// Removing the root's watch wakes the reader with the root's last
        /// event, after which it stops (and closes the inotify descriptor).
        fn drop(&mut self) {
            let _ = self.watches.remove(self.root_wd.clone());
        }
    }

    /// The watched folders: watch id to folder name (a topic's or a group's).
    pub(super) struct Folders {
        root: PathBuf,
        root_id: i32,
        names: HashMap<i32, String>,
    }

    impl Folders {
        pub(super) fn new(root: &Path, root_id: i32) -> Folders {
            Folders { root: root.to_path_buf(), root_id, names: HashMap::new() }
        }

        pub(super) fn watch(&mut self, watches: &mut Watches, name: &OsStr) {
            let Some(name) = name.to_str() else { return };
            // A folder that vanished before its watch was added needs none.
            if let Ok(wd) = watches.add(self.root.join(name), folder_mask()) {
                self.names.insert(wd.get_watch_descriptor_id(), name.to_string());
            }
        }

        /// Fold one event into `change`; false once the root is gone (or unwatched).
        pub(super) fn fold(
            &mut self,
            watches: &mut Watches,
            change: &mut StoreChange,
            id: i32,
            mask: EventMask,
            name: Option<&OsStr>,
        ) -> bool {
            if mask.contains(EventMask::Q_OVERFLOW) {
                // Events were lost: everything may have changed.
                for folder in self.names.values() {
                    change.add_folder(folder);
                }
                change.structure = true;
                return true;
            }
            if id == self.root_id {
                if mask.intersects(EventMask::IGNORED | EventMask::DELETE_SELF | EventMask::MOVE_SELF) {
                    change.structure = true;
                    return !mask.contains(EventMask::IGNORED);
                }
                let Some(name) = name else { return true };
                let created = mask.intersects(EventMask::CREATE | EventMask::MOVED_TO);
                if created && mask.contains(EventMask::ISDIR) {
                    self.watch(watches, name);
                }
                let cr = created || mask.intersects(EventMask::DELETE | EventMask::MOVED_FROM);
                change.add_path(&self.root, &self.root.join(name), cr);
                return true;
            }
            if mask.contains(EventMask::IGNORED) {
                self.names.remove(&id);
            } else if let Some(folder) = self.names.get(&id) {
                change.add_folder(folder);
            }
            true
        }
    }

    fn read_loop(mut inotify: Inotify, mut watches: Watches, mut folders: Folders, shared: &Shared) {
        let mut buf = vec![0u8; 64 << 10];
        loop {
            let events = match inotify.read_events_blocking(&mut buf) {
                Ok(events) => events,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    tracing::warn!(error = %e, "live updates stopped: the folder watch failed");
                    return;
                }
            };
            let mut p = shared.pending.lock().unwrap_or_else(|p| p.into_inner());
            let mut live = !p.closed;
            for ev in events {
                live &= folders.fold(&mut watches, &mut p.change, ev.wd.get_watch_descriptor_id(), ev.mask, ev.name);
            }
            mark(shared, &mut p);
            drop(p);
            if !live {
                return;
            }
            std::thread::sleep(BATCH_PAUSE);
        }
    }
}

/// Whether `name` is one of our temporary config files, `.{topic}.twc.tmp-{pid}`.
fn is_temp_config(name: &str) -> bool {
    name.starts_with('.') && name.contains(".twc.tmp-")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn paths_map_to_topics_groups_and_structure() {
        let root = Path::new("/s");
        let mut c = StoreChange::default();
        c.add_path(root, Path::new("/s/events/0-20261129_0.tmf"), false);
        assert!(c.topics.contains("events") && !c.structure);
        c.add_path(root, Path::new("/s/--group--w/0-20261129_0.tmf"), false);
        assert!(c.groups.contains("w"));
        c.add_path(root, Path::new("/s/new.twc"), true);
        assert!(c.topics.contains("new") && c.structure);
        let mut c = StoreChange::default();
        c.add_path(root, Path::new("/s/.x.twc.tmp-1"), true);
        c.add_path(root, Path::new("/elsewhere/x"), true);
        assert!(c.is_empty());
    }

    #[test]
    fn reading_is_not_a_change() {
        let dir = tempfile::tempdir().expect("tmp");
        let store = crate::Store::open(dir.path()).expect("open");
        store.create_topic("t", &crate::TopicSpec::default()).expect("create");
        store.producer("t").expect("p").send_text(1u16, "x").expect("send");
        let (tx, rx) = mpsc::channel();
        let _w = StoreWatcher::new(dir.path(), Duration::from_millis(20), move |c| {
            let _ = tx.send(c);
        })
        .expect("watch");
        for _ in 0..5 {
            let mut c = store.consumer("t", crate::StartFrom::Start).expect("consumer");
            while c.poll().expect("poll").is_some() {}
            store.describe_topic("t").expect("describe");
        }
        assert!(rx.recv_timeout(Duration::from_millis(300)).is_err(), "reads reported as changes");
    }

    #[test]
    fn appends_arrive_as_one_change() {
        let dir = tempfile::tempdir().expect("tmp");
        let store = crate::Store::open(dir.path()).expect("open");
        store.create_topic("t", &crate::TopicSpec::default()).expect("create");
        let (tx, rx) = mpsc::channel();
        let _w = StoreWatcher::new(dir.path(), Duration::from_millis(30), move |c| {
            let _ = tx.send(c);
        })
        .expect("watch");
        let mut p = store.producer("t").expect("producer");
        for i in 0..20u16 {
            p.send_text(i, "x").expect("send");
        }
        let c = rx.recv_timeout(Duration::from_secs(5)).expect("a change");
        assert!(c.topics.contains("t"), "{c:?}");
    }

    /// Collect changes until `done` holds for what arrived (or 5 s pass).
    fn until(rx: &mpsc::Receiver<StoreChange>, done: impl Fn(&StoreChange) -> bool) -> StoreChange {
        let mut all = StoreChange::default();
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while !done(&all) {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let Ok(c) = rx.recv_timeout(left) else { break };
            all.topics.extend(c.topics);
            all.groups.extend(c.groups);
            all.structure |= c.structure;
        }
        all
    }

    #[test]
    fn topics_and_groups_made_after_the_watch_starts_are_watched_too() {
        let dir = tempfile::tempdir().expect("tmp");
        let store = crate::Store::open(dir.path()).expect("open");
        let (tx, rx) = mpsc::channel();
        let _w = StoreWatcher::new(dir.path(), Duration::from_millis(20), move |c| {
            let _ = tx.send(c);
        })
        .expect("watch");
        store.create_topic("late", &crate::TopicSpec::new(crate::KeyType::U32, 2)).expect("create");
        let c = until(&rx, |c| c.structure && c.topics.contains("late"));
        assert!(c.structure && c.topics.contains("late"), "{c:?}");
        // Let the folder's watch be in place, then append: reported as data.
        std::thread::sleep(Duration::from_millis(50));
        while rx.try_recv().is_ok() {}
        store.producer("late").expect("producer").send_text(5u32, "x").expect("send");
        let c = until(&rx, |c| c.topics.contains("late"));
        assert!(c.topics.contains("late"), "{c:?}");
        store.ensure_group("late", "g", crate::StartFrom::Start).expect("group");
        let c = until(&rx, |c| c.groups.contains("g"));
        assert!(c.groups.contains("g"), "{c:?}");
        while rx.recv_timeout(Duration::from_millis(100)).is_ok() {}
        store.delete_topic("late").expect("delete");
        let c = until(&rx, |c| c.structure);
        assert!(c.structure && c.topics.contains("late"), "{c:?}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_reader_thread_ends_with_the_watcher() {
        use std::sync::atomic::Ordering;
        let dir = tempfile::tempdir().expect("tmp");
        let w = StoreWatcher::new(dir.path(), Duration::from_millis(20), |_| {}).expect("watch");
        let done = w.backend.reader_done.clone();
        std::thread::sleep(Duration::from_millis(50));
        assert!(!done.load(Ordering::Acquire), "the reader stopped while watching");
        drop(w);
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while !done.load(Ordering::Acquire) && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(done.load(Ordering::Acquire), "the inotify reader outlived its watcher");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_watch_on_a_store_folder_deleted_says_it_is_no_longer_live() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = dir.path().join("store");
        std::fs::create_dir(&root).expect("dir");
        let (tx, rx) = mpsc::channel();
        let w = StoreWatcher::new(&root, Duration::from_millis(20), move |c| {
            let _ = tx.send(c);
        })
        .expect("watch");
        assert!(w.is_live());
        std::fs::remove_dir(&root).expect("rm");
        let c = until(&rx, |c| c.structure);
        assert!(c.structure, "{c:?}");
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while w.is_live() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!w.is_live());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_lost_event_queue_marks_everything_changed() {
        let dir = tempfile::tempdir().expect("tmp");
        std::fs::create_dir(dir.path().join("t")).expect("dir");
        std::fs::create_dir(dir.path().join("--group--g")).expect("dir");
        let inotify = inotify::Inotify::init().expect("inotify");
        let mut watches = inotify.watches();
        let mut folders = linux::Folders::new(dir.path(), -7);
        for name in ["t", "--group--g"] {
            folders.watch(&mut watches, std::ffi::OsStr::new(name));
        }
        let mut c = StoreChange::default();
        assert!(folders.fold(&mut watches, &mut c, -1, inotify::EventMask::Q_OVERFLOW, None));
        assert!(c.structure && c.topics.contains("t") && c.groups.contains("g"), "{c:?}");
        // The root's watch gone: the reader is told to stop.
        assert!(!folders.fold(&mut watches, &mut StoreChange::default(), -7, inotify::EventMask::IGNORED, None));
    }

    #[test]
    fn a_window_folds_every_topic_and_later_windows_still_report() {
        let dir = tempfile::tempdir().expect("tmp");
        let store = crate::Store::open(dir.path()).expect("open");
        store.create_topic("a", &crate::TopicSpec::default()).expect("create");
        store.create_topic("b", &crate::TopicSpec::default()).expect("create");
        let (tx, rx) = mpsc::channel();
        let _w = StoreWatcher::new(dir.path(), Duration::from_millis(100), move |c| {
            let _ = tx.send(c);
        })
        .expect("watch");
        let (mut a, mut b) = (store.producer("a").expect("producer"), store.producer("b").expect("producer"));
        for i in 0..200u16 {
            a.send_text(i, "x").expect("send");
        }
        b.send_text(1u16, "y").expect("send");
        let mut seen = BTreeSet::new();
        while seen.len() < 2 {
            seen.extend(rx.recv_timeout(Duration::from_secs(5)).expect("a change").topics);
        }
        assert_eq!(seen, BTreeSet::from(["a".to_string(), "b".to_string()]));
        // The same file again, in a later window, is reported again.
        while rx.recv_timeout(Duration::from_millis(300)).is_ok() {}
        a.send_text(7u16, "z").expect("send");
        let c = rx.recv_timeout(Duration::from_secs(5)).expect("a later change");
        assert!(c.topics.contains("a"), "{c:?}");
    }
}
