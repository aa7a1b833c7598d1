//! Other platforms: the `notify` crate (FSEvents, ReadDirectoryChangesW,
//! kqueue), its events mapped to the same [`Change`]s as on Linux, with a
//! cheap poll beside a store's watch for what those events miss (`poll.rs`:
//! appends through a handle kept open on Windows, shares, the root's removal).
//! A watcher error or an overflow (notify's "rescan") reports every folder as
//! changed (`Lost`) and the watch as no longer live: the poll goes on, but the
//! view must say it may have missed something. Its tests also run on Linux
//! (notify's inotify backend there), so the mapping is checked on every
//! machine, not only on the platforms that use it.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use notify::{RecursiveMode, Watcher};

use super::{Change, Scope, Sink};
use crate::error::{Error, Result};

pub(super) struct Watch {
    _watcher: notify::RecommendedWatcher,
    /// Cleared when the store's root goes, or events were lost.
    live: Arc<AtomicBool>,
    /// The store's poll (none for a list of folders: their waiters poll anyway).
    _poll: Option<super::poll::Poller>,
}

/// Opening or reading a file is not a change (and our own reads would
/// otherwise report themselves forever).
fn is_change(kind: &notify::EventKind) -> bool {
    !matches!(kind, notify::EventKind::Access(_))
}

fn created_or_removed(kind: &notify::EventKind) -> bool {
    matches!(kind, notify::EventKind::Create(_) | notify::EventKind::Remove(_))
        || matches!(kind, notify::EventKind::Modify(notify::event::ModifyKind::Name(_)))
}

impl Watch {
    pub(super) fn start(scope: Scope, sink: Arc<dyn Sink>) -> Result<Watch> {
        let watch_err = |path: &Path, e: notify::Error| Error::io("watch", path, std::io::Error::other(e));
        let live = Arc::new(AtomicBool::new(true));
        match scope {
            Scope::Store(root) => {
                // Canonical form too: events may name paths through a resolved root.
                let canon = std::fs::canonicalize(&root).unwrap_or_else(|_| root.clone());
                let (r, c) = (root.clone(), canon);
                let gone = Arc::clone(&live);
                let sink_events = Arc::clone(&sink);
                let fold = move |ev: notify::Result<notify::Event>| {
                    let sink = &sink_events;
                    let ev = match ev {
                        Ok(ev) if !ev.need_rescan() => ev,
                        // The watcher failed, or its buffer overflowed: anything may have changed.
                        other => {
                            if let Err(e) = &other {
                                tracing::warn!(error = %e, "the store's file watcher failed; changes are polled");
                            } else {
                                tracing::warn!("the store's file watcher lost events (overflow); changes are polled");
                            }
                            gone.store(false, Ordering::Release);
                            sink.changes(&[Change::Lost]);
                            return;
                        }
                    };
                    if !is_change(&ev.kind) {
                        return;
                    }
                    let cr = created_or_removed(&ev.kind);
                    if ev.paths.iter().any(|p| p == &r || p == &c) && matches!(ev.kind, notify::EventKind::Remove(_)) {
                        gone.store(false, Ordering::Release);
                        sink.changes(&[Change::RootGone]);
                        return;
                    }
                    let batch: Vec<Change<'_>> = ev.paths.iter().filter_map(|p| relative(&r, &c, p, cr)).collect();
                    if !batch.is_empty() {
                        sink.changes(&batch);
                    }
                };
                let mut watcher = notify::recommended_watcher(fold).map_err(|e| watch_err(&root, e))?;
                watcher.watch(&root, RecursiveMode::Recursive).map_err(|e| watch_err(&root, e))?;
                let poll =
                    super::poll::Poller::start(&root, sink, Arc::clone(&live)).map_err(|e| Error::io("start watcher for", &root, e))?;
                Ok(Watch { _watcher: watcher, live, _poll: Some(poll) })
            }
            Scope::Folders(dirs) => {
                let names: Vec<(PathBuf, Arc<str>)> = dirs.iter().map(|d| (d.clone(), Arc::from(d.to_string_lossy().as_ref()))).collect();
                let fold = move |ev: notify::Result<notify::Event>| {
                    let Ok(ev) = ev else { return };
                    if !is_change(&ev.kind) {
                        return;
                    }
                    let batch: Vec<Change<'_>> = ev
                        .paths
                        .iter()
                        .filter_map(|p| names.iter().find(|(d, _)| p.starts_with(d)).map(|(_, n)| Change::InFolder(Arc::clone(n))))
                        .collect();
                    if !batch.is_empty() {
                        sink.changes(&batch);
                    }
                };
                let first = dirs.first().cloned().unwrap_or_default();
                let mut watcher = notify::recommended_watcher(fold).map_err(|e| watch_err(&first, e))?;
                for d in &dirs {
                    if let Err(e) = watcher.watch(d, RecursiveMode::NonRecursive) {
                        tracing::debug!(dir = %d.display(), error = %e, "no change events; polling instead");
                    }
                }
                Ok(Watch { _watcher: watcher, live, _poll: None })
            }
        }
    }

    /// False once the store's root was removed, the watcher failed or lost
    /// events (the poll goes on, but something may have been missed).
    pub(super) fn is_live(&self) -> bool {
        self.live.load(Ordering::Acquire)
    }
}

/// The change a path under the store's root (or its canonical form) implies.
fn relative<'a>(root: &Path, canon: &Path, path: &'a Path, created_or_removed: bool) -> Option<Change<'a>> {
    let rel = path.strip_prefix(root).or_else(|_| path.strip_prefix(canon)).ok()?;
    let mut parts = rel.components();
    let first: &'a OsStr = parts.next()?.as_os_str();
    if parts.next().is_some() {
        return first.to_str().map(|f| Change::InFolder(Arc::from(f)));
    }
    Some(Change::Entry { name: first, created_or_removed })
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    use super::*;

    /// Each change as text, sent on.
    struct Collect(std::sync::Mutex<mpsc::Sender<String>>);

    impl Sink for Collect {
        fn changes(&self, batch: &[Change<'_>]) {
            let tx = self.0.lock().expect("sink lock");
            for c in batch {
                let text = match c {
                    Change::Entry { name, created_or_removed } => format!("entry {} {created_or_removed}", name.to_string_lossy()),
                    Change::InFolder(f) => format!("in {f}"),
                    Change::Lost => "lost".into(),
                    Change::RootGone => "root gone".into(),
                };
                let _ = tx.send(text);
            }
        }
    }

    fn watch(scope: Scope) -> (Watch, mpsc::Receiver<String>) {
        let (tx, rx) = mpsc::channel();
        (Watch::start(scope, Arc::new(Collect(std::sync::Mutex::new(tx)))).expect("watch"), rx)
    }

    fn wait_for(rx: &mpsc::Receiver<String>, want: &str) -> bool {
        let deadline = Instant::now() + Duration::from_secs(10);
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match rx.recv_timeout(left) {
                Ok(c) if c == want => return true,
                Ok(_) => {}
                Err(_) => return false,
            }
        }
        false
    }

    #[test]
    fn relative_names_a_root_entry_or_the_folder_a_change_is_in() {
        let (root, canon) = (Path::new("/stores/a"), Path::new("/private/stores/a"));
        let name = |c: Option<Change<'_>>| match c {
            Some(Change::Entry { name, created_or_removed }) => format!("entry {} {created_or_removed}", name.to_string_lossy()),
            Some(Change::InFolder(f)) => format!("in {f}"),
            Some(_) => "other".into(),
            None => "none".into(),
        };
        assert_eq!(name(relative(root, canon, Path::new("/stores/a/t.twc"), true)), "entry t.twc true");
        assert_eq!(name(relative(root, canon, Path::new("/stores/a/t/0-2026-12-01_0.tmf"), false)), "in t");
        // FSEvents names paths through the resolved root (/var is /private/var on macOS).
        assert_eq!(name(relative(root, canon, Path::new("/private/stores/a/t/0.tmf"), false)), "in t");
        assert_eq!(name(relative(root, canon, Path::new("/elsewhere/t"), false)), "none");
        assert_eq!(name(relative(root, canon, root, false)), "none");
    }

    #[test]
    fn a_store_watch_reports_configs_and_appends_by_folder() {
        let dir = tempfile::tempdir().expect("tmp");
        std::fs::create_dir(dir.path().join("t")).expect("topic dir");
        let (_w, rx) = watch(Scope::Store(dir.path().to_path_buf()));
        std::fs::write(dir.path().join("t.twc"), "{}").expect("config");
        assert!(wait_for(&rx, "entry t.twc true"), "a new config is a created entry");
        std::fs::write(dir.path().join("t").join("0-2026-12-01_0.tmf"), "line\n").expect("append");
        assert!(wait_for(&rx, "in t"), "an append is a change in its topic's folder");
    }

    /// macOS's temporary folder is reached through a link (/var is /private/var), and
    /// FSEvents names changes by the real path: a root given through a link still works.
    #[cfg(unix)]
    #[test]
    fn a_store_reached_through_a_symbolic_link_reports_its_changes() {
        let dir = tempfile::tempdir().expect("tmp");
        let real = dir.path().join("real");
        std::fs::create_dir_all(real.join("t")).expect("dirs");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).expect("symlink");
        let (_w, rx) = watch(Scope::Store(link.clone()));
        std::fs::write(real.join("t").join("0-2026-12-01_0.tmf"), "line\n").expect("append");
        assert!(wait_for(&rx, "in t"), "a change under the link's target");
    }

    /// Checked where notify reports the watched folder's own removal (inotify's
    /// IN_DELETE_SELF); on macOS and Windows this is left to the platforms job.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_removed_root_is_reported_and_the_watch_is_no_longer_live() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = dir.path().join("store");
        std::fs::create_dir(&root).expect("root");
        let (w, rx) = watch(Scope::Store(root.clone()));
        assert!(w.is_live());
        std::fs::remove_dir(&root).expect("rm");
        assert!(wait_for(&rx, "root gone"), "the root's removal is reported");
        assert!(!w.is_live(), "a watch whose root is gone says so");
    }

    #[test]
    fn a_folder_list_watch_names_the_folder_that_changed() {
        let dir = tempfile::tempdir().expect("tmp");
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir(&a).expect("a");
        std::fs::create_dir(&b).expect("b");
        let (w, rx) = watch(Scope::Folders(vec![a.clone(), b.clone()]));
        std::fs::write(b.join("x"), "1").expect("write");
        assert!(wait_for(&rx, &format!("in {}", b.to_string_lossy())), "the change is named by its folder");
        assert!(w.is_live());
    }
}
