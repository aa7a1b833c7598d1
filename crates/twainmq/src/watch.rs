//! Watching a store folder: file events mapped to what changed (topic data,
//! the topic list, a group log), coalesced so a burst of appends is one event.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

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
    _thread: std::thread::JoinHandle<()>,
}

impl std::fmt::Debug for StoreWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StoreWatcher")
    }
}

impl StoreWatcher {
    /// Watch `root` recursively and call `on_change` with what changed, at most
    /// once per `latency` (the first event of a burst waits `latency` for the rest).
    ///
    /// # Errors
    /// [`Error::Io`] when the platform's watcher cannot be set up.
    pub fn new(root: &Path, latency: Duration, on_change: impl Fn(StoreChange) + Send + 'static) -> Result<StoreWatcher> {
        let (tx, rx) = mpsc::channel::<notify::Result<notify::Event>>();
        let mut watcher = notify::recommended_watcher(tx).map_err(|e| Error::io("watch", root, std::io::Error::other(e)))?;
        watcher.watch(root, RecursiveMode::Recursive).map_err(|e| Error::io("watch", root, std::io::Error::other(e)))?;
        let err_path = root.to_path_buf();
        let root: PathBuf = root.to_path_buf();
        let thread = std::thread::Builder::new()
            .name("twainmq-watch".into())
            .spawn(move || {
                // Canonical form too: events may name paths through a resolved root.
                let canon = std::fs::canonicalize(&root).unwrap_or_else(|_| root.clone());
                while let Ok(first) = rx.recv() {
                    let mut change = StoreChange::default();
                    let mut add = |ev: notify::Result<notify::Event>| {
                        if let Ok(ev) = ev {
                            // Opening or reading a file is not a change (and our own reads
                            // would otherwise report themselves forever).
                            if matches!(ev.kind, notify::EventKind::Access(_)) {
                                return;
                            }
                            let cr = matches!(ev.kind, notify::EventKind::Create(_) | notify::EventKind::Remove(_))
                                || matches!(ev.kind, notify::EventKind::Modify(notify::event::ModifyKind::Name(_)));
                            for p in &ev.paths {
                                change.add_path(&root, p, cr);
                                change.add_path(&canon, p, cr);
                            }
                        }
                    };
                    add(first);
                    let deadline = Instant::now() + latency;
                    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
                        match rx.recv_timeout(left) {
                            Ok(ev) => add(ev),
                            Err(mpsc::RecvTimeoutError::Timeout) => break,
                            Err(mpsc::RecvTimeoutError::Disconnected) => return,
                        }
                    }
                    if !change.is_empty() {
                        on_change(change);
                    }
                }
            })
            .map_err(|e| Error::io("start watcher for", &err_path, e))?;
        Ok(StoreWatcher { _watcher: watcher, _thread: thread })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
