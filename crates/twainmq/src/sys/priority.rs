//! Giving a long scan's threads a lower CPU priority than a program's
//! interactive ones.

/// Lower the calling thread's priority (never raise it): below every normal
/// thread, so that on a busy machine the threads that answer a user (an app's
/// event loop, its renderer) run first, while on an idle one the scan still
/// has every core. Linux: nice 4 (threads started afterwards inherit it);
/// Windows: below normal (threads started afterwards do not: workers call
/// [`follow`]); macOS: nothing (a priority there is the whole process's), and
/// the result says so. Returns whether the thread now runs at background priority.
pub(crate) fn lower_this_thread() -> bool {
    super::imp::lower_this_thread()
}

/// Whether the calling thread runs at background priority.
pub(crate) fn is_lowered() -> bool {
    super::imp::is_lowered()
}

/// In a worker started by a thread that `was_lowered`: lower this one too
/// (where threads inherit their priority, it already is).
pub(crate) fn follow(was_lowered: bool) {
    if was_lowered && !is_lowered() {
        lower_this_thread();
    }
}

#[cfg(test)]
mod tests {
    /// Whether the tests run at normal priority: under `nice` (a whole
    /// `make test` run niced, say) every thread already counts as lowered, so
    /// what these tests compare does not exist.
    #[cfg(any(target_os = "linux", windows))]
    fn runs_at_normal_priority() -> bool {
        if super::is_lowered() {
            eprintln!("skipped: the test process already runs at background priority (under nice?)");
            return false;
        }
        true
    }

    /// Linux, where the priority is inherited, and Windows, where workers follow.
    #[cfg(any(target_os = "linux", windows))]
    #[test]
    fn lowers_the_thread_and_the_workers_that_follow_it_not_the_others() {
        if !runs_at_normal_priority() {
            return;
        }
        let (mine, worker, plain) = std::thread::spawn(|| {
            assert!(super::lower_this_thread());
            let mine = super::is_lowered();
            let lowered = super::is_lowered();
            let worker = std::thread::spawn(move || {
                super::follow(lowered);
                super::is_lowered()
            })
            .join()
            .expect("worker");
            let plain = std::thread::spawn(|| {
                super::follow(false);
                super::is_lowered()
            })
            .join()
            .expect("plain");
            (mine, worker, plain)
        })
        .join()
        .expect("thread");
        assert!(mine && worker, "the thread and its worker are lowered");
        // On Linux a thread started by a lowered one inherits its priority; on
        // Windows it does not, unless it follows.
        assert_eq!(plain, cfg!(target_os = "linux"));
        // This thread (and so the process's others) kept its priority.
        assert!(!super::is_lowered());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn linux_lowers_to_nice_4() {
        if !runs_at_normal_priority() {
            return;
        }
        let nice = std::thread::spawn(|| {
            super::lower_this_thread();
            rustix::process::getpriority_process(None).expect("priority")
        })
        .join()
        .expect("thread");
        assert_eq!(nice, super::super::imp::background_nice());
    }
}
