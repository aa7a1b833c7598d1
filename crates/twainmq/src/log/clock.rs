//! Time source, injectable so tests can cross UTC midnight on demand.

use std::fmt::Debug;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

/// Current UNIX time in microseconds (0.2.3's resolution).
pub trait Clock: Send + Sync + Debug {
    /// Microseconds since the UNIX epoch (negative before it).
    fn now_micros(&self) -> i64;
}

/// The system clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_micros(&self) -> i64 {
        system_micros()
    }
}

/// Microseconds since the UNIX epoch, straight from the system time (chrono's
/// `Utc::now` also computes a calendar date, which producers do not need).
fn system_micros() -> i64 {
    match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_micros()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_micros()).unwrap_or(i64::MAX),
    }
}

/// A clock that only moves when told: for tests of day rollover.
#[derive(Debug, Default, Clone)]
pub struct ManualClock(Arc<AtomicI64>);

impl ManualClock {
    /// A clock showing `micros` (UNIX microseconds) until set or advanced;
    /// clones share it.
    pub fn new(micros: i64) -> Self {
        ManualClock(Arc::new(AtomicI64::new(micros)))
    }
    /// Show `micros` from now on.
    pub fn set(&self, micros: i64) {
        self.0.store(micros, Ordering::SeqCst);
    }
    /// Move by `micros` (backward if negative).
    pub fn advance(&self, micros: i64) {
        self.0.fetch_add(micros, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_micros(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// The system clock shifted by a fixed amount: a test seam for crossing UTC
/// midnight in real processes (the CLI reads `TWAINMQ_CLOCK_OFFSET_SECS`).
#[derive(Debug, Clone, Copy)]
pub struct OffsetClock(pub i64);

impl Clock for OffsetClock {
    fn now_micros(&self) -> i64 {
        system_micros() + self.0
    }
}

/// The timestamp 0.2.3 writes for a time: `datetime.timestamp()`, microseconds / 1e6.
pub fn micros_to_unix(micros: i64) -> f64 {
    micros as f64 / 1e6
}
