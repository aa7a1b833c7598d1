//! Linux: inotify read directly. A store's watch (the app's view, which folds
//! changes into windows of tens of milliseconds anyway) reads on a thread of
//! its own at most every [`BATCH_PAUSE`], so the events of a busy log gather
//! in the kernel's queue (a few hundred a read). A follower or group member
//! waiting for new lines blocks on an inotify descriptor of its own
//! ([`Waiter`]), since there each wake-up is write-to-read latency (a pause
//! made p50 1 ms, from 21 µs; a reader thread between them doubled it). An
//! event inside a watched folder is reported by the folder's name without
//! building its path.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask, Watches};

use super::{Change, Scope, Sink};
use crate::error::{Error, Result};

/// Pause between a store watch's reads: events of a busy log are read a few
/// hundred at a time. (None for followers: see the module doc.)
const BATCH_PAUSE: Duration = Duration::from_millis(2);

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

pub(super) struct Watch {
    watches: Watches,
    /// The watches whose removal ends the reader: the root's for a store (the
    /// others follow it), every folder's for a list.
    stop: Vec<WatchDescriptor>,
    closed: Arc<AtomicBool>,
    /// Set when the reader thread has returned: after a failed read, when the
    /// store folder itself went away, or when every watched folder did.
    pub(super) reader_done: Arc<AtomicBool>,
}

impl Watch {
    pub(super) fn start(scope: Scope, sink: Arc<dyn Sink>) -> Result<Watch> {
        let scope_path = match &scope {
            Scope::Store(root) => root.clone(),
            Scope::Folders(dirs) => dirs.first().cloned().unwrap_or_default(),
        };
        let inotify = Inotify::init().map_err(|e| Error::io("watch", &scope_path, e))?;
        let mut watches = inotify.watches();
        let pause = match scope {
            Scope::Store(_) => BATCH_PAUSE,
            Scope::Folders(_) => Duration::ZERO,
        };
        let (folders, stop) = match scope {
            Scope::Store(root) => {
                let io = |e| Error::io("watch", &root, e);
                let root_wd = watches.add(&root, root_mask()).map_err(io)?;
                let mut folders = Folders::new(Some((root.clone(), root_wd.get_watch_descriptor_id())));
                for entry in std::fs::read_dir(&root).map_err(io)?.flatten() {
                    if entry.file_type().is_ok_and(|t| t.is_dir()) {
                        folders.watch_in_root(&mut watches, &entry.file_name());
                    }
                }
                (folders, vec![root_wd])
            }
            Scope::Folders(dirs) => {
                let mut folders = Folders::new(None);
                let mut stop = Vec::new();
                for dir in dirs {
                    match watches.add(&dir, folder_mask()) {
                        Ok(wd) => {
                            folders.names.insert(wd.get_watch_descriptor_id(), Arc::from(dir.to_string_lossy().as_ref()));
                            stop.push(wd);
                        }
                        Err(e) => tracing::debug!(dir = %dir.display(), error = %e, "no change events; polling instead"),
                    }
                }
                (folders, stop)
            }
        };
        let closed = Arc::new(AtomicBool::new(false));
        let reader_done = Arc::new(AtomicBool::new(stop.is_empty()));
        if !stop.is_empty() {
            let (watches, closed, done) = (watches.clone(), closed.clone(), reader_done.clone());
            std::thread::Builder::new()
                .name("twainmq-inotify".into())
                .spawn(move || {
                    read_loop(inotify, watches, folders, &*sink, &closed, pause);
                    done.store(true, Ordering::Release);
                })
                .map_err(|e| Error::io("start watcher for", &scope_path, e))?;
        }
        Ok(Watch { watches, stop, closed, reader_done })
    }

    pub(super) fn is_live(&self) -> bool {
        !self.reader_done.load(Ordering::Acquire)
    }
}

impl Drop for Watch {
    /// Removing the watches wakes the reader with their last events, after
    /// which it stops (and closes the inotify descriptor).
    fn drop(&mut self) {
        self.closed.store(true, Ordering::Release);
        for wd in self.stop.drain(..) {
            let _ = self.watches.remove(wd);
        }
    }
}

/// The watched folders: watch id to folder name (a topic's or a group's in a
/// store; the path, for a list of folders).
struct Folders {
    /// The store's root and its watch id; `None` for a list of folders.
    root: Option<(PathBuf, i32)>,
    names: HashMap<i32, Arc<str>>,
}

impl Folders {
    fn new(root: Option<(PathBuf, i32)>) -> Folders {
        Folders { root, names: HashMap::new() }
    }

    fn watch_in_root(&mut self, watches: &mut Watches, name: &OsStr) {
        let (Some((root, _)), Some(name)) = (&self.root, name.to_str()) else { return };
        // A folder that vanished before its watch was added needs none.
        if let Ok(wd) = watches.add(root.join(name), folder_mask()) {
            self.names.insert(wd.get_watch_descriptor_id(), Arc::from(name));
        }
    }

    /// Report one event into `out`; false once the reader should stop (the
    /// root is gone or unwatched; for a list, every folder's watch is gone).
    fn fold<'a>(&mut self, watches: &mut Watches, out: &mut Vec<Change<'a>>, id: i32, mask: EventMask, name: Option<&'a OsStr>) -> bool {
        if mask.contains(EventMask::Q_OVERFLOW) {
            out.extend(self.names.values().map(|n| Change::InFolder(Arc::clone(n))));
            out.push(Change::Lost);
            return true;
        }
        if let Some((_, root_id)) = &self.root {
            if id == *root_id {
                if mask.intersects(EventMask::IGNORED | EventMask::DELETE_SELF | EventMask::MOVE_SELF) {
                    out.push(Change::RootGone);
                    return !mask.contains(EventMask::IGNORED);
                }
                let Some(name) = name else { return true };
                let created = mask.intersects(EventMask::CREATE | EventMask::MOVED_TO);
                if created && mask.contains(EventMask::ISDIR) {
                    self.watch_in_root(watches, name);
                }
                let created_or_removed = created || mask.intersects(EventMask::DELETE | EventMask::MOVED_FROM);
                out.push(Change::Entry { name, created_or_removed });
                return true;
            }
        }
        if mask.contains(EventMask::IGNORED) {
            self.names.remove(&id);
            return self.root.is_some() || !self.names.is_empty();
        }
        if let Some(folder) = self.names.get(&id) {
            out.push(Change::InFolder(Arc::clone(folder)));
        }
        true
    }
}

/// Waiting for a change in some folders on the waiting thread itself (a
/// follower's or a group member's): it blocks in `poll(2)` on its own inotify
/// descriptor, and the kernel wakes it. A reader thread that then wakes the
/// waiter, as [`Watch`] does for the app's store watch, costs a second
/// wake-up per append: on a 2-core VM that was half the write-to-read latency
/// (p99 121-152 µs with it; engine round 3, item 19).
pub(super) struct Waiter {
    /// None when no folder could be watched: waits are then sleeps.
    inotify: Option<Inotify>,
    buf: Vec<u8>,
    /// Reads of the event queue that returned events.
    changes: u64,
}

impl Waiter {
    /// Watch `dirs`, each on its own (not what is in their subfolders).
    pub(super) fn new(dirs: &[PathBuf]) -> Waiter {
        let inotify = Inotify::init().map_err(|e| tracing::debug!(error = %e, "no change events; polling instead")).ok();
        let inotify = inotify.filter(|i| {
            let mut any = false;
            for dir in dirs {
                match i.watches().add(dir, folder_mask()) {
                    Ok(_) => any = true,
                    Err(e) => tracing::debug!(dir = %dir.display(), error = %e, "no change events; polling instead"),
                }
            }
            any
        });
        Waiter { inotify, buf: vec![0; 16 << 10], changes: 0 }
    }

    /// How many times events were taken: it moves after any change.
    pub(super) fn changes(&self) -> u64 {
        self.changes
    }

    /// Block until [`Waiter::changes`] differs from `seen` or `timeout`
    /// passes. The queue is level-triggered: events that came before this
    /// call (after `seen` was taken) end the wait at once, so none is missed.
    pub(super) fn wait(&mut self, seen: u64, timeout: Duration) {
        if self.changes != seen {
            return;
        }
        let Some(inotify) = self.inotify.as_mut() else {
            std::thread::sleep(timeout);
            return;
        };
        // Rounded up to the millisecond poll(2) keeps, so a wait is never a spin.
        let ts = rustix::event::Timespec::try_from(timeout.max(Duration::from_millis(1)))
            .unwrap_or(rustix::event::Timespec { tv_sec: 1, tv_nsec: 0 });
        let mut fds = [rustix::event::PollFd::new(&*inotify, rustix::event::PollFlags::IN)];
        match rustix::event::poll(&mut fds, Some(&ts)) {
            Ok(0) | Err(rustix::io::Errno::INTR) => return,
            Ok(_) => {}
            Err(e) => {
                tracing::debug!(error = %e, "waiting for change events failed; polling instead");
                self.inotify = None;
                return;
            }
        }
        // One read takes what is queued (up to the buffer); more left makes the next wait return at once.
        match inotify.read_events(&mut self.buf) {
            Ok(mut events) => {
                if events.next().is_some() {
                    self.changes += 1;
                }
            }
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted) => {}
            Err(e) => {
                tracing::debug!(error = %e, "reading change events failed; polling instead");
                self.inotify = None;
                self.changes += 1;
            }
        }
    }
}

fn read_loop(mut inotify: Inotify, mut watches: Watches, mut folders: Folders, sink: &dyn Sink, closed: &AtomicBool, pause: Duration) {
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
        let mut batch = Vec::new();
        let mut live = true;
        for ev in events {
            live &= folders.fold(&mut watches, &mut batch, ev.wd.get_watch_descriptor_id(), ev.mask, ev.name);
        }
        if closed.load(Ordering::Acquire) {
            return;
        }
        if !batch.is_empty() {
            sink.changes(&batch);
        }
        if !live {
            return;
        }
        if !pause.is_zero() {
            std::thread::sleep(pause);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lost_event_queue_reports_every_folder() {
        let dir = tempfile::tempdir().expect("tmp");
        std::fs::create_dir(dir.path().join("t")).expect("dir");
        std::fs::create_dir(dir.path().join("--group--g")).expect("dir");
        let inotify = Inotify::init().expect("inotify");
        let mut watches = inotify.watches();
        let mut folders = Folders::new(Some((dir.path().to_path_buf(), -7)));
        for name in ["t", "--group--g"] {
            folders.watch_in_root(&mut watches, OsStr::new(name));
        }
        let mut out = Vec::new();
        assert!(folders.fold(&mut watches, &mut out, -1, EventMask::Q_OVERFLOW, None));
        let mut named: Vec<String> =
            out.iter().filter_map(|c| if let Change::InFolder(n) = c { Some(n.to_string()) } else { None }).collect();
        named.sort();
        assert_eq!(named, ["--group--g", "t"]);
        assert!(matches!(out.last(), Some(Change::Lost)));
        // The root's watch gone: the reader is told to stop.
        assert!(!folders.fold(&mut watches, &mut Vec::new(), -7, EventMask::IGNORED, None));
    }

    #[test]
    fn a_list_of_folders_stops_reading_when_every_folder_is_gone() {
        let mut folders = Folders::new(None);
        folders.names.insert(1, Arc::from("/a"));
        folders.names.insert(2, Arc::from("/b"));
        let inotify = Inotify::init().expect("inotify");
        let mut watches = inotify.watches();
        let mut out = Vec::new();
        assert!(folders.fold(&mut watches, &mut out, 1, EventMask::MODIFY, None));
        assert!(matches!(out.as_slice(), [Change::InFolder(n)] if &**n == "/a"));
        assert!(folders.fold(&mut watches, &mut out, 1, EventMask::IGNORED, None));
        assert!(!folders.fold(&mut watches, &mut out, 2, EventMask::IGNORED, None), "no folder left to watch");
    }
}
