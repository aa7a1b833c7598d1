//! Watching a store folder: file events mapped to what changed (topic data,
//! the topic list, a group log), coalesced so a burst of appends is one event.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use notify::{RecursiveMode, Watcher};

use crate::error::{Error, Result};
use crate::name::GROUP_PREFIX;

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
    pub fn add_path(&mut self, root: &Path, path: &Path, created_or_removed: bool) {
        let Ok(rel) = path.strip_prefix(root) else { return };
        let mut parts = rel.components();
        let Some(first) = parts.next().and_then(|c| c.as_os_str().to_str()) else { return };
        let in_folder = parts.next().is_some();
        let (name, is_config) = match first.strip_suffix(".twc") {
            Some(stem) if !in_folder => (stem, true),
            _ => (first, false),
        };
        if name.starts_with('.') {
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
}

/// A live watch on a store: changes arrive on the callback's thread within `latency`.
pub struct StoreWatcher {
    _watcher: notify::RecommendedWatcher,
    shared: Arc<Shared>,
    _thread: std::thread::JoinHandle<()>,
}

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
        let fold = {
            let (shared, root) = (shared.clone(), root.clone());
            move |ev: notify::Result<notify::Event>| {
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
                if !p.dirty && !p.change.is_empty() {
                    p.dirty = true;
                    shared.wake.notify_one();
                }
            }
        };
        let mut watcher = notify::recommended_watcher(fold).map_err(|e| Error::io("watch", &root, std::io::Error::other(e)))?;
        watcher.watch(&root, RecursiveMode::Recursive).map_err(|e| Error::io("watch", &root, std::io::Error::other(e)))?;
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
        Ok(StoreWatcher { _watcher: watcher, shared, _thread: thread })
    }
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
