//! Waking blocked readers when a topic's files change, instead of sleeping in a loop.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[cfg(target_os = "linux")]
use super::inotify::Waiter;
#[cfg(not(target_os = "linux"))]
use signalled::Waiter;

/// Upper bound on one wait: file systems without change events (network
/// shares) are still polled this often.
const SAFETY_POLL: Duration = Duration::from_millis(50);

/// Counts changes in some folders; waiters block until the count moves.
/// Each platform's waiter has one interface: `new(dirs)`, `changes()`, and
/// `wait(seen, timeout)` (return once `changes()` differs from `seen`, or
/// after `timeout`). On Linux the waiting thread blocks on inotify itself
/// (`inotify.rs`); elsewhere a watch thread signals it (below).
pub(crate) struct Wake {
    waiter: Mutex<Waiter>,
}

impl std::fmt::Debug for Wake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Wake")
    }
}

impl Wake {
    /// Watch `dirs` (not recursively). Without a working watcher, waits fall back to short sleeps.
    pub(crate) fn new(dirs: &[PathBuf]) -> Wake {
        Wake { waiter: Mutex::new(Waiter::new(dirs)) }
    }

    /// The current change count: take it before checking for data, then wait on it.
    pub(crate) fn seq(&self) -> u64 {
        self.waiter.lock().unwrap_or_else(|p| p.into_inner()).changes()
    }

    /// Block until the count differs from `seen`, `deadline` passes, or the safety interval elapses.
    pub(crate) fn wait(&self, seen: u64, deadline: Instant) {
        let until = deadline.min(Instant::now() + SAFETY_POLL);
        // Held while waiting: a Wake belongs to one reader, whose thread alone waits on it.
        let mut waiter = self.waiter.lock().unwrap_or_else(|p| p.into_inner());
        while waiter.changes() == seen {
            let now = Instant::now();
            if now >= until {
                return;
            }
            waiter.wait(seen, until - now);
        }
    }
}

/// Off Linux: a [`FolderWatch`](super::FolderWatch) (the `notify` crate) on a
/// thread of its own counts change batches and wakes the waiter through a
/// condition variable.
#[cfg(not(target_os = "linux"))]
mod signalled {
    use std::path::PathBuf;
    use std::sync::{Arc, Condvar, Mutex};
    use std::time::{Duration, Instant};

    use super::super::{Change, FolderWatch, Scope, Sink};

    /// A count of change batches, and the condition waiters block on.
    #[derive(Default)]
    struct Signal {
        count: Mutex<u64>,
        moved: Condvar,
    }

    impl Sink for Signal {
        fn changes(&self, batch: &[Change<'_>]) {
            if batch.is_empty() {
                return;
            }
            *self.count.lock().unwrap_or_else(|p| p.into_inner()) += 1;
            self.moved.notify_all();
        }
    }

    pub(super) struct Waiter {
        signal: Arc<Signal>,
        _watch: Option<FolderWatch>,
    }

    impl Waiter {
        pub(super) fn new(dirs: &[PathBuf]) -> Waiter {
            let signal = Arc::new(Signal::default());
            let watch = FolderWatch::start(Scope::Folders(dirs.to_vec()), signal.clone())
                .map_err(|e| tracing::debug!(error = %e, "no file watcher; polling instead"))
                .ok();
            Waiter { signal, _watch: watch }
        }

        pub(super) fn changes(&self) -> u64 {
            *self.signal.count.lock().unwrap_or_else(|p| p.into_inner())
        }

        pub(super) fn wait(&mut self, seen: u64, timeout: Duration) {
            let until = Instant::now() + timeout;
            let mut guard = self.signal.count.lock().unwrap_or_else(|p| p.into_inner());
            while *guard == seen {
                let now = Instant::now();
                if now >= until {
                    return;
                }
                guard = match self.signal.moved.wait_timeout(guard, until - now) {
                    Ok((g, _)) => g,
                    Err(p) => p.into_inner().0,
                };
            }
        }
    }
}

/// The moment `timeout` from now. A timeout past what `Instant` can hold
/// (`Duration::MAX`, "wait for ever") waits a century instead of panicking
/// on the overflow.
pub(crate) fn deadline_after(timeout: std::time::Duration) -> Instant {
    const CENTURY: std::time::Duration = std::time::Duration::from_secs(100 * 365 * 86_400);
    let now = Instant::now();
    now.checked_add(timeout).or_else(|| now.checked_add(CENTURY)).unwrap_or(now)
}

/// Call `poll` until it gives a message or `deadline` passes, waiting on the
/// change events of `dir` between calls: the one wait loop of the consumer and
/// the timeline. The watch is made on the first wait and kept in `wake` for the
/// next call; `poll(true)` says a change event (or the safety poll) woke it.
///
/// # Errors
/// What `poll` returns.
pub(crate) fn poll_until<T>(
    wake: &mut Option<Wake>,
    dir: &std::path::Path,
    deadline: Instant,
    mut poll: impl FnMut(bool) -> crate::error::Result<Option<T>>,
) -> crate::error::Result<Option<T>> {
    let mut woke = false;
    loop {
        let seen = wake.as_ref().map(Wake::seq);
        if let Some(m) = poll(woke)? {
            return Ok(Some(m));
        }
        if Instant::now() >= deadline {
            return Ok(None);
        }
        match (seen, wake.as_ref()) {
            (Some(seen), Some(w)) => {
                w.wait(seen, deadline);
                woke = true;
            }
            // Start watching, then look again before the first wait.
            _ => *wake = Some(Wake::new(&[dir.to_path_buf()])),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_append_wakes_a_waiter_long_before_its_deadline() {
        let dir = tempfile::tempdir().expect("tmp");
        let wake = Wake::new(&[dir.path().to_path_buf()]);
        let seen = wake.seq();
        let path = dir.path().join("f");
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            std::fs::write(path, b"x\n").expect("write");
        });
        let started = Instant::now();
        while wake.seq() == seen && started.elapsed() < Duration::from_secs(5) {
            wake.wait(seen, Instant::now() + Duration::from_secs(5));
        }
        writer.join().expect("writer");
        assert_ne!(wake.seq(), seen, "the write was not seen");
        assert!(started.elapsed() < Duration::from_secs(2), "woken only by polling: {:?}", started.elapsed());
    }

    /// A change made after the count was taken but before the wait began
    /// ends the wait at once (not at the safety poll), and moves the count.
    #[test]
    fn a_change_before_the_wait_ends_it_at_once() {
        let dir = tempfile::tempdir().expect("tmp");
        let wake = Wake::new(&[dir.path().to_path_buf()]);
        let seen = wake.seq();
        std::fs::write(dir.path().join("f"), b"x\n").expect("write");
        let started = Instant::now();
        wake.wait(seen, Instant::now() + Duration::from_secs(5));
        assert_ne!(wake.seq(), seen, "the change was not counted");
        assert!(started.elapsed() < SAFETY_POLL / 2, "woken only by the safety poll: {:?}", started.elapsed());
    }

    #[test]
    fn without_a_folder_to_watch_waits_are_short_polls() {
        let wake = Wake::new(&[PathBuf::from("/nonexistent/twainmq-wake-test")]);
        let started = Instant::now();
        wake.wait(wake.seq(), Instant::now() + Duration::from_secs(10));
        assert!(started.elapsed() < Duration::from_secs(1), "a wait without events outlived the safety poll");
    }
}
