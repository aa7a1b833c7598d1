//! Giving a long scan's threads a lower CPU priority than a program's
//! interactive ones.

/// The nice value a background scan runs at: below every normal thread, so
/// that on a busy machine the threads that answer a user (an app's event loop,
/// its renderer) run first, while on an idle one the scan still has every core.
pub(crate) const BACKGROUND_NICE: i32 = 4;

/// Lower the calling thread's priority to [`BACKGROUND_NICE`] (never raise
/// it). On Linux a priority belongs to a thread, and threads it starts
/// afterwards inherit it; elsewhere this does nothing. Returns whether the
/// thread now runs at background priority.
pub(crate) fn lower_this_thread() -> bool {
    #[cfg(target_os = "linux")]
    {
        // `None` is "the caller": on Linux, the calling thread only.
        match rustix::process::getpriority_process(None) {
            Ok(now) if now >= BACKGROUND_NICE => true,
            Ok(_) => rustix::process::setpriority_process(None, BACKGROUND_NICE).is_ok(),
            Err(_) => false,
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_os = "linux")]
    #[test]
    fn lowers_the_thread_and_the_threads_it_starts_not_the_others() {
        let before = rustix::process::getpriority_process(None).expect("priority");
        let (mine, child) = std::thread::spawn(|| {
            assert!(super::lower_this_thread());
            let mine = rustix::process::getpriority_process(None).expect("priority");
            let child = std::thread::spawn(|| rustix::process::getpriority_process(None).expect("priority")).join().expect("child");
            (mine, child)
        })
        .join()
        .expect("thread");
        assert_eq!((mine, child), (super::BACKGROUND_NICE, super::BACKGROUND_NICE));
        // This thread (and so the process's others) kept its priority.
        assert_eq!(rustix::process::getpriority_process(None).expect("priority"), before);
    }
}
