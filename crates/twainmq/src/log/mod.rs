//! The log layer: partitions as folders of day files, one message a line.
//! Above the format and platform layers; knows nothing of consumer groups.
//!
//! `files` (partition file names and listings) -> `index` (line counts and
//! seek marks) -> `cursor` (lines of one file) -> `reader` (one partition), `consumer` (several) and `seek`
//! (by time); `encode` (messages to lines, in parallel for batches) and
//! `append` (day files, rollover, locks) with `torn` (ending lines torn by crashes) under `producer`; `dir`
//! (the store folder: configs, topics, the clock); `watch` (change events: one watcher for the app, followers and members);
//! `keys` (a topic's key table) and `assemble` (large messages put together) for the format's next version.

pub(crate) mod append;
pub(crate) mod assemble;
pub(crate) mod clock;
pub(crate) mod consumer;
pub(crate) mod cursor;
pub(crate) mod dir;
pub(crate) mod encode;
pub(crate) mod files;
pub(crate) mod heads;
pub(crate) mod index;
pub(crate) mod keys;
pub(crate) mod producer;
pub(crate) mod reader;
pub(crate) mod seek;
pub(crate) mod timeindex;
pub(crate) mod timeline;
pub(crate) mod torn;
pub(crate) mod watch;
