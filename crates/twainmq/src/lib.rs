//! TwainMQ engine: reads and writes TwainMQ stores byte-compatibly with the
//! Python package `twainmq` 0.2.3, so that Python programs and Rust programs
//! can share one store, and even one consumer group.
//!
//! A store is a folder; a topic is a config file `<topic>.twc` and a folder of
//! day files `<partition>-<YYYYMMDD>_<first offset>.tmf`, one message a line;
//! a consumer group `g` is the topic `--group--g`, a log of its members'
//! records. `docs/FORMAT.md` in the repository is the contract: the format,
//! the group protocol, our extensions and every deliberate difference from
//! 0.2.3, each with the test that pins it.
//!
//! # Layers
//! Each layer imports only from the layers below it:
//! ```text
//!   scan, check, demo,       whole-log operations: search, consistency check, demo data,
//!   transfer                 export, import, copy
//!        |
//!   store/                   Store: the public face; validates names, owns the caches
//!        |
//!   group/                   records, assignment, state, group-log cache, setup,
//!        |                   describe, reset, live members
//!   log/                     file names and listings, line index, reader, consumer,
//!        |                   seek by time, encode + append = producer, the folder, watcher
//!   sys/                     file-system kind, file identity, flock, safe opens
//!        |
//!   format/                  pure bytes: base85, deflate/inflate, Python JSON, keys,
//!        |                   lines, payloads, partitioner, names, config contents
//!   error                    the error vocabulary every layer returns (it names
//!                            format types, so it sits beside format)
//! ```
//! The public API is what this page lists: [`Store`] and what it hands out
//! (producers, consumers, readers, group members), the message and key
//! types, errors, the change watcher, and the `group`, `scan`, `check` and
//! `transfer` namespaces. Everything else is private; the fuzz targets and benchmarks
//! reach internals through [`internals`], which is not a stable API.
//!
//! # Examples
//! ```
//! use twainmq::{Store, TopicSpec, KeyType, StartFrom};
//! let dir = tempfile::tempdir()?;
//! let store = Store::open(dir.path())?;
//! store.create_topic("sensors", &TopicSpec::new(KeyType::U64, 3))?;
//! let mut producer = store.producer("sensors")?;
//! let sent = producer.send_bytes(7u64, b"\x00\x01")?;
//! let mut consumer = store.consumer("sensors", StartFrom::Start)?;
//! let msg = consumer.poll()?.expect("a message");
//! assert_eq!((msg.partition, msg.offset), (sent.partition, 0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]
// Every narrowing or sign-dropping cast is checked or states its invariant.
#![warn(clippy::cast_possible_truncation, clippy::cast_sign_loss)]

mod error;
pub(crate) mod format;
mod log;
mod query;
mod store;
mod sys;

pub mod check;
pub mod demo;
pub mod group;
pub mod scan;
pub mod transfer;

pub use error::{Error, GroupError, NameProblem, Result, TransferError};
pub use format::config::TopicConfig;
pub use format::key::{Key, KeyType};
pub use format::message::{Message, MessageJson};
pub use format::partitioner::partition_for;
pub use format::payload::{Outgoing, Payload, PayloadJson, TypedMessage, TypedPayload};
pub use log::append::Delivery;
pub use log::clock::{Clock, ManualClock, OffsetClock, SystemClock};
pub use log::consumer::Consumer;
pub use log::cursor::StartFrom;
pub use log::dir::{TopicIncarnation, TopicSpec};
pub use log::files::Day;
pub use log::index::Shrink;
pub use log::producer::{Partitioner, Producer};
pub use log::reader::PartitionReader;
pub use log::timeline::{Timeline, TimelineStart};
pub use log::watch::{StoreChange, StoreWatcher};
pub use query::Filter;
pub use store::{FileInfo, GroupState, GroupSummary, PartitionInfo, Store, TimelinePage, TopicDescription, TopicSummary, TopicTotals};
pub use store::{PlannedFile, Retention, RetentionPlan, UnknownGroup, RETENTION_KEY};

/// Which versions these are: the engine's own, and the release of the Python
/// `twainmq` package whose stores and consumer groups it shares.
pub mod version {
    /// This engine's version. It is the workspace's, so the app and the
    /// `twainmq` command built beside it carry the same one.
    pub const ENGINE: &str = env!("CARGO_PKG_VERSION");

    /// The `twainmq` (Python) release whose on-disk format and group protocol
    /// this engine implements (docs/FORMAT.md): its stores are read and
    /// written byte for byte, and its consumers can share groups with ours.
    /// `tests/requirements.txt` pins the same release as the interop peer.
    pub const COMPATIBLE: &str = "0.2.3";

    /// What a program built on this engine says after its name when asked for
    /// its version: `0.1.0 (engine 0.1.0, reads and writes twainmq 0.2.3 stores)`.
    pub fn describe(program_version: &str) -> String {
        format!("{program_version} (engine {ENGINE}, reads and writes twainmq {COMPATIBLE} stores)")
    }
}

/// Names and limits callers validate against before asking the engine (the
/// app's forms, for one), so that their rules are the engine's.
pub mod limits {
    pub use crate::format::config::{DEFAULT_KEY_TYPE, DEFAULT_PARTITIONS, MAX_PARTITIONS};
    pub use crate::format::key::{MAX_CHAR_WIDTH, MAX_FREE_KEY_BYTES};
    pub use crate::format::line::MAX_LINE_BYTES;
    pub use crate::format::multipart::{DEFAULT_MAX_MESSAGE_BYTES, MAX_MESSAGE_BYTES_LIMIT};
    pub use crate::format::name::{GROUP_PREFIX, MAX_GROUP_NAME, MAX_TOPIC_NAME};
    pub use crate::log::append::ROLLOVER_GUARD_SECS;
}

/// Python's JSON dialect, in which typed messages hold their fields
/// (integers of any size, `NaN`, `Infinity`).
pub mod json {
    pub use crate::format::pyjson::{python_compact, python_pretty};
}

/// Checking names as the engine does.
pub mod names {
    pub use crate::format::name::{group_topic, validate_group, validate_new_group, validate_new_topic, validate_topic, windows_problem};
}

/// Internals for the fuzz targets, benchmarks and tests of this repository:
/// the format layer's codecs and the group protocol's pure parts. Not a
/// stable API: anything here may change in any release.
#[doc(hidden)]
pub mod internals {
    pub use crate::format::{b85, deflate, inflate, line, pyjson};
    pub use crate::group::internals::{assign, Offer, Record, TYPES};
    pub use crate::log::index::LineIndex;

    /// Whether this is a Windows build running under Wine (tests say where
    /// Wine differs from Windows).
    pub fn under_wine() -> bool {
        crate::sys::under_wine()
    }

    /// Hold the lock an appender holds on a partition file near its day's end
    /// (shared), as one of our producers does between its look for a newer
    /// file and its write, until the result is dropped: tests of the rollover
    /// agreement hold it where a producer would.
    ///
    /// # Errors
    /// Opening or locking the file.
    pub fn hold_append_lock(path: &std::path::Path) -> crate::Result<impl Drop> {
        let file = crate::sys::open::open_regular(path, true)?;
        crate::sys::lock::lock_owned(file, crate::sys::lock::Mode::Shared).map_err(|e| crate::Error::Io {
            op: "lock",
            path: path.into(),
            cause: e,
        })
    }

    pub use crate::sys::scratch::ScratchDir;

    /// How often producers and readers look at their topic by path (what a
    /// file handle cannot show: a delete pending under Wine, a network file
    /// system's file deleted from another machine).
    pub const TOPIC_RECHECK: std::time::Duration = crate::log::append::TOPIC_RECHECK;

    /// A producer asks its file's handle whether the file is still in the
    /// store at least every this many single-message writes (and every millisecond).
    pub const LINK_CHECK_WRITES: u32 = crate::log::append::LINK_CHECK_WRITES;

    /// ... and whenever this long has passed since it last asked.
    pub const LINK_CHECK: std::time::Duration = std::time::Duration::from_micros(crate::log::append::LINK_CHECK_MICROS.unsigned_abs());
}
