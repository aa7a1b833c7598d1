//! The group logs a store has read, kept so that a refresh reads only the
//! records written since the last one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::open::group_topic_reader;
use super::records::Record;
use super::state::{Event, GroupLog, TornLine, MAX_TORN_KEPT};
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
/// Lines 0.2.3 cannot read (torn records) are noted in `log.torn` for a
/// member of ours to mend ([`mend_torn`]).
pub(crate) fn read_all(reader: &mut PartitionReader, log: &mut GroupLog, mut f: impl FnMut(u32, &Event)) -> Result<()> {
    let mut last_ts = log.last_record_at.unwrap_or(0.0);
    let note = |log: &mut GroupLog, torn: TornLine| {
        log.breaking_023 += 1;
        if log.torn.len() < MAX_TORN_KEPT {
            log.torn.push(torn);
        }
    };
    loop {
        match reader.poll() {
            Ok(Some(m)) => {
                last_ts = m.timestamp;
                let key = match m.key {
                    crate::format::key::Key::Int(k) => u32::try_from(k).unwrap_or(u32::MAX),
                    _ => continue,
                };
                match Record::from_message(&m) {
                    Some(r) => {
                        let ev = log.apply(key, m.offset, m.timestamp, &r);
                        f(key, &ev);
                    }
                    None if matches!(&m.payload, crate::format::payload::Payload::Text(t) if crate::format::mend::is_stand_in_text(t)) => {
                        log.mended += 1;
                    }
                    None => {
                        log.unreadable += 1;
                        tracing::warn!(group_offset = m.offset, "group record of unknown shape skipped");
                    }
                }
            }
            Ok(None) => return Ok(()),
            Err(Error::CorruptLine { problem: crate::format::line::Corrupt::TornTail { len }, path, offset, .. }) => {
                log.unreadable += 1;
                tracing::warn!(group_offset = offset, file = %path.display(), "torn group record before a later file skipped");
                note(log, TornLine::Tail { path, len: len as u64 });
            }
            Err(e @ Error::CorruptLine { .. }) => {
                let line = reader.last_line_at();
                match line {
                    // A stand-in whose payload our base85 refuses (a dangling last character 0.2.3 drops).
                    Some((_, _, bytes)) if crate::format::mend::stand_in(&bytes, 0.0).is_some_and(|s| s == bytes) => log.mended += 1,
                    Some((path, pos, bytes)) if !crate::format::mend::python_reads_group_line(&bytes) => {
                        log.unreadable += 1;
                        tracing::warn!(error = %e, "damaged group record skipped");
                        note(log, TornLine::Line { path, pos, bytes, fallback_ts: last_ts });
                    }
                    _ => {
                        log.unreadable += 1;
                        tracing::warn!(error = %e, "damaged group record skipped");
                    }
                }
            }
            Err(e) => return Err(e),
        }
    }
}

/// Mend the lines 0.2.3 cannot read that the fold noted in `log.torn`: each
/// becomes, at its own length, a record 0.2.3 reads and passes over
/// (`log::torn::mend_line`), or a torn tail before a later file is ended
/// first. Called by writers of the group log only (our members): a read of
/// a store writes nothing. A line that could not be mended (a read-only
/// store, a copy-on-write file system out of space) or is too short to mend
/// (under 18 bytes) is said once and left: the next member to read the log
/// tries again, and `twainmq check` names it.
pub(crate) fn mend_torn(log: &mut GroupLog) {
    let torn = std::mem::take(&mut log.torn);
    for t in torn {
        let done = match &t {
            TornLine::Line { path, pos, bytes, fallback_ts } => {
                if bytes.len() < crate::format::mend::MIN_STAND_IN {
                    tracing::warn!(file = %path.display(), pos, len = bytes.len(), "a torn group record is too short to make readable to 0.2.3 (its members die joining the group): see `twainmq check`");
                    continue;
                }
                crate::log::torn::mend_line(path, *pos, bytes, *fallback_ts)
            }
            TornLine::Tail { path, len } => crate::log::torn::end_and_mend_group_tail(path, None, Some(*len)),
        };
        match done {
            Ok(mended) => {
                if mended {
                    log.breaking_023 = log.breaking_023.saturating_sub(1);
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "a torn group record could not be made readable to 0.2.3 members (they die joining the group while it is there); the next member of ours to read the log tries again, and `twainmq check` names it");
            }
        }
    }
}
