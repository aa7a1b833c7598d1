//! The group logs a store has read, kept so that a refresh reads only the
//! records written since the last one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::records::Record;
use super::setup::group_topic_reader;
use super::state::{Event, GroupLog};
use crate::error::{Error, Result};
use crate::format::name;
use crate::log::dir::LogDir;
use crate::log::reader::PartitionReader;
use crate::sys::identity::FileIdentity;

/// Each group's log reader and the state folded from it so far, with the
/// identity of the group's config file when it was opened: a group deleted and
/// made again (by another process) has a new config, and is then read afresh.
pub(crate) type GroupLogs = Arc<Mutex<HashMap<String, (PartitionReader, GroupLog, FileIdentity)>>>;

/// The group layer's view of a store: its log, and the cache of group logs.
#[derive(Debug, Clone)]
pub(crate) struct Groups {
    pub(crate) log: LogDir,
    pub(crate) cache: GroupLogs,
}

impl Groups {
    pub(crate) fn new(log: LogDir, cache: GroupLogs) -> Groups {
        Groups { log, cache }
    }

    /// Drop what is cached of `group` (its log is being deleted).
    pub(crate) fn forget(&self, group: &str) {
        self.cache.lock().unwrap_or_else(|p| p.into_inner()).remove(group);
    }
}

/// Read a group's whole log.
///
/// # Errors
/// [`Error::GroupNotFound`], [`GroupError::NotAGroup`], I/O errors.
pub(crate) fn read_log(g: &Groups, group: &str) -> Result<GroupLog> {
    name::validate_group(group)?;
    // Folded incrementally: the store keeps each group's reader and state, so a
    // refresh reads only the records written since the last one.
    let cache = &g.cache;
    let mut map = cache.lock().unwrap_or_else(|p| p.into_inner());
    let identity = FileIdentity::at(&g.log.config_path(&name::group_topic(group)));
    let (mut reader, mut log) = match map.remove(group) {
        Some((reader, log, seen)) if Some(seen) == identity => (reader, log),
        _ => (group_topic_reader(&g.log, group)?, GroupLog::default()),
    };
    read_all(&mut reader, &mut log, |_, _| {})?;
    let out = log.clone();
    if let Some(identity) = identity {
        map.insert(group.to_string(), (reader, log, identity));
    }
    Ok(out)
}

/// Read every new record of the group log into `log`, calling `f` for each.
pub(crate) fn read_all(reader: &mut PartitionReader, log: &mut GroupLog, mut f: impl FnMut(u32, &Event)) -> Result<()> {
    loop {
        match reader.poll() {
            Ok(Some(m)) => {
                let key = match m.key {
                    crate::format::key::Key::Int(k) => u32::try_from(k).unwrap_or(u32::MAX),
                    _ => continue,
                };
                match Record::from_message(&m) {
                    Some(r) => {
                        let ev = log.apply(key, m.offset, m.timestamp, &r);
                        f(key, &ev);
                    }
                    None => {
                        log.unreadable += 1;
                        tracing::warn!(group_offset = m.offset, "group record of unknown shape skipped");
                    }
                }
            }
            Ok(None) => return Ok(()),
            Err(e @ Error::CorruptLine { .. }) => {
                log.unreadable += 1;
                tracing::warn!(error = %e, "damaged group record skipped");
            }
            Err(e) => return Err(e),
        }
    }
}
