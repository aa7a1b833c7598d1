//! Waking blocked readers when a topic's files change, instead of sleeping in a loop.

use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};

/// Upper bound on one wait: file systems without change events (network
/// shares) are still polled this often.
const SAFETY_POLL: Duration = Duration::from_millis(50);

type Signal = Arc<(Mutex<u64>, Condvar)>;

/// Counts change events in some folders; waiters block until the count moves.
pub(crate) struct Wake {
    signal: Signal,
    _watcher: Option<notify::RecommendedWatcher>,
}

impl std::fmt::Debug for Wake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Wake")
    }
}

impl Wake {
    /// Watch `dirs` (not recursively). Without a working watcher, waits fall back to short sleeps.
    pub(crate) fn new(dirs: &[PathBuf]) -> Wake {
        let signal: Signal = Arc::new((Mutex::new(0), Condvar::new()));
        let s = signal.clone();
        let watcher = notify::recommended_watcher(move |_res: notify::Result<notify::Event>| {
            let (count, cv) = &*s;
            *count.lock().unwrap_or_else(|p| p.into_inner()) += 1;
            cv.notify_all();
        });
        let watcher = match watcher {
            Ok(mut w) => {
                for d in dirs {
                    if let Err(e) = w.watch(d, RecursiveMode::NonRecursive) {
                        tracing::debug!(dir = %d.display(), error = %e, "no change events; polling instead");
                    }
                }
                Some(w)
            }
            Err(e) => {
                tracing::debug!(error = %e, "no file watcher; polling instead");
                None
            }
        };
        Wake { signal, _watcher: watcher }
    }

    /// The current change count: take it before checking for data, then wait on it.
    pub(crate) fn seq(&self) -> u64 {
        *self.signal.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Block until the count differs from `seen`, `deadline` passes, or the safety interval elapses.
    pub(crate) fn wait(&self, seen: u64, deadline: Instant) {
        let (count, cv) = &*self.signal;
        let now = Instant::now();
        let until = deadline.min(now + SAFETY_POLL);
        let mut guard = count.lock().unwrap_or_else(|p| p.into_inner());
        while *guard == seen {
            let now = Instant::now();
            if now >= until {
                return;
            }
            guard = match cv.wait_timeout(guard, until - now) {
                Ok((g, _)) => g,
                Err(p) => p.into_inner().0,
            };
        }
    }
}
