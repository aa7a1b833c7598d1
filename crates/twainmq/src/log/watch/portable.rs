//! Other platforms: the `notify` crate (FSEvents, ReadDirectoryChangesW,
//! kqueue), its events mapped to the same [`Change`]s as on Linux.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use notify::{RecursiveMode, Watcher};

use super::{Change, Scope, Sink};
use crate::error::{Error, Result};

pub(super) struct Watch {
    _watcher: notify::RecommendedWatcher,
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
        match scope {
            Scope::Store(root) => {
                // Canonical form too: events may name paths through a resolved root.
                let canon = std::fs::canonicalize(&root).unwrap_or_else(|_| root.clone());
                let (r, c) = (root.clone(), canon);
                let fold = move |ev: notify::Result<notify::Event>| {
                    let Ok(ev) = ev else { return };
                    if !is_change(&ev.kind) {
                        return;
                    }
                    let cr = created_or_removed(&ev.kind);
                    if ev.paths.iter().any(|p| p == &r || p == &c) && matches!(ev.kind, notify::EventKind::Remove(_)) {
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
                Ok(Watch { _watcher: watcher })
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
                Ok(Watch { _watcher: watcher })
            }
        }
    }

    /// notify reports its failures per event.
    pub(super) fn is_live(&self) -> bool {
        true
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
