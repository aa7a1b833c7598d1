//! Watching a store folder: changes mapped to what changed (topic data, the
//! topic list, a group log), coalesced so a burst of appends is one event.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use super::{Change, FolderWatch, Scope, Sink};
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
    /// Nothing changed.
    pub fn is_empty(&self) -> bool {
        self.topics.is_empty() && self.groups.is_empty() && !self.structure
    }

    /// Fold in the change a path implies.
    /// (Topics may start with `.`, as 0.2.3 allows: only our temporary
    /// config files, `.{topic}.twc.tmp-{pid}`, are skipped.)
    pub fn add_path(&mut self, root: &Path, path: &Path, created_or_removed: bool) {
        let Ok(rel) = path.strip_prefix(root) else { return };
        let mut parts = rel.components();
        let Some(first) = parts.next().map(|c| c.as_os_str()) else { return };
        match (parts.next(), first.to_str()) {
            (Some(_), Some(folder)) => self.add_folder(folder),
            (Some(_), None) => {}
            (None, _) => self.add_entry(first, created_or_removed),
        }
    }

    /// Fold in a change to the entry `name` of the store's root (a config, or
    /// a topic's or group's folder).
    pub(crate) fn add_entry(&mut self, name: &OsStr, created_or_removed: bool) {
        let Some(name) = name.to_str() else { return };
        let (name, is_config) = match name.strip_suffix(".twc") {
            Some(stem) => (stem, true),
            None => (name, false),
        };
        if is_temp_config(name) {
            return; // our own temporary files
        }
        self.add_folder(name);
        if is_config || created_or_removed {
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
    watch: FolderWatch,
    shared: Arc<Shared>,
    _thread: std::thread::JoinHandle<()>,
}

/// Changes are folded into `pending` on the watch's own thread as they come,
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
    closed: bool,
}

impl Sink for Shared {
    fn changes(&self, batch: &[Change<'_>]) {
        let mut p = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        if p.closed {
            return;
        }
        for c in batch {
            match c {
                Change::Entry { name, created_or_removed } => p.change.add_entry(name, *created_or_removed),
                Change::InFolder(folder) => p.change.add_folder(folder),
                Change::Lost | Change::RootGone => p.change.structure = true,
            }
        }
        // Wake the delivering thread once per window.
        if !p.dirty && !p.change.is_empty() {
            p.dirty = true;
            self.wake.notify_one();
        }
    }
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
        // Then `watch` drops, which stops its reader.
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
        let watch = FolderWatch::start(Scope::Store(root.to_path_buf()), shared.clone())?;
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
                    std::mem::take(&mut p.change)
                };
                if !change.is_empty() {
                    on_change(change);
                }
            })
            .map_err(|e| Error::io("start watcher for", root, e))?;
        Ok(StoreWatcher { watch, shared, _thread: thread })
    }

    /// Whether changes are still being watched for: false once the watch
    /// failed or the store's folder was deleted or moved away (then nothing
    /// more will be reported, and a view should say it is no longer live).
    pub fn is_live(&self) -> bool {
        self.watch.is_live()
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
        let done = w.watch.inner.reader_done.clone();
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
