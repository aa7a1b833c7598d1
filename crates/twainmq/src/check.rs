//! Integrity check: every problem in a store, with its file and line.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::format::payload::Payload;
use crate::log::consumer::StartFrom;
use crate::log::files::{self, PartitionFile};
use crate::store::Store;

mod commits;
mod config;
mod names;
use commits::check_commits;
use config::config_compat;
pub use names::check_names;
use names::name_problems;

/// One thing wrong in a store.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Problem {
    /// The topic it is in (a group's is `--group--<group>`); empty for the
    /// store as a whole (`network_filesystem`).
    pub topic: String,
    /// The partition, when it is in one (for a group's commits: of the
    /// group's topic).
    pub partition: Option<u32>,
    /// The file's name (not its path), when it is in one.
    pub file: Option<String>,
    /// 1-based line in `file`.
    pub line: Option<u64>,
    /// The offset it is about: a damaged line's or message's, or a commit's.
    pub offset: Option<u64>,
    /// A stable code: `corrupt_config`, `unknown_file`, `symlink`, `not_a_file`,
    /// `damaged_name`, `damaged_line`, `unfinished_line`, `offset_gap`,
    /// `offset_overlap`, `duplicate_day`, `unknown_type_id`, `network_filesystem`,
    /// `commit_past_end`, `commit_unknown_partition`, `commit_out_of_range`,
    /// `unreadable_group_records`, `config_not_for_023`, `unreadable_topic`,
    /// `unreadable_group`, `unreadable_partition`, `windows_name` (a topic or
    /// group Windows cannot hold: a device name or a trailing dot),
    /// `case_twin` (two topics or groups whose names differ only in case);
    /// for topics of the format's next version (docs/FORMAT.md, Part 3):
    /// `torn_message` (a large message started and never ended: torn by a
    /// crash, or being written now), `broken_message` (a large message's end
    /// whose earlier parts are missing or damaged), `unknown_key_id` (a line
    /// naming a key id its key table does not hold), `key_table_missing`,
    /// `damaged_key_entry`, `unfinished_key_entry` (a record torn at the key
    /// table's end by a crash, or being written now).
    pub kind: &'static str,
    /// What is wrong and what to do about it, for people.
    pub message: String,
}

fn name_of(p: &std::path::Path) -> Option<String> {
    p.file_name().map(|n| n.to_string_lossy().into_owned())
}

/// Check every topic and group of a store.
///
/// # Errors
/// I/O errors listing the store (problems inside topics are returned, not raised).
pub fn check_store(store: &Store) -> Result<Vec<Problem>> {
    let mut out = Vec::new();
    if let crate::sys::kind::FsKind::Network(name) = crate::sys::kind::filesystem_kind(store.root()) {
        out.push(Problem {
            topic: String::new(),
            partition: None,
            file: None,
            line: None,
            offset: None,
            kind: "network_filesystem",
            message: format!("the store is on {name}, where O_APPEND is not atomic between machines: our producers lock each append, 0.2.3's do not, so run 0.2.3 writers on one machine only"),
        });
    }
    let group_names = store.list_groups()?;
    let topics = store.list_topics()?;
    out.extend(name_problems(&topics, &group_names));
    let groups = group_names.iter().map(|g| crate::format::name::group_topic(g));
    for topic in topics.into_iter().chain(groups) {
        if crate::sys::DEVICE_NAMES_ARE_DEVICES && crate::format::name::windows_problem(&topic).is_some() {
            // Reported above; opening its files here would open a device.
            continue;
        }
        // One topic that cannot be read is a problem of that topic; the others are still checked.
        match check_topic(store, &topic) {
            Ok(problems) => out.extend(problems),
            // Deleted since the listing: nothing to check.
            Err(Error::TopicNotFound { .. }) => {}
            Err(e) => out.push(unreadable(&topic, &e)),
        }
    }
    for g in &group_names {
        check_commits(store, g, &mut out);
    }
    Ok(out)
}

fn unreadable(topic: &str, e: &Error) -> Problem {
    Problem {
        topic: topic.to_string(),
        partition: None,
        file: None,
        line: None,
        offset: None,
        kind: if topic.starts_with(crate::format::name::GROUP_PREFIX) { "unreadable_group" } else { "unreadable_topic" },
        message: e.to_string(),
    }
}

/// Check one topic: its config, its folder's entries, file offsets, and every line.
///
/// # Errors
/// Invalid names, [`Error::TopicNotFound`] and I/O errors; a corrupt config
/// is a reported problem.
pub fn check_topic(store: &Store, topic: &str) -> Result<Vec<Problem>> {
    let mut out = Vec::new();
    let problem = |partition: Option<u32>, file: Option<String>, line: Option<u64>, offset: Option<u64>, kind, message: String| Problem {
        topic: topic.to_string(),
        partition,
        file,
        line,
        offset,
        kind,
        message,
    };
    let config = match store.topic_config(topic) {
        Ok(c) => c,
        Err(e @ Error::CorruptConfig { .. }) => {
            out.push(problem(None, Some(format!("{topic}.twc")), None, None, "corrupt_config", e.to_string()));
            return Ok(out);
        }
        // No topic to check (a name given that is none): an error, not a corrupt config.
        Err(e @ Error::TopicNotFound { .. }) => return Err(e),
        Err(e) => return Err(e),
    };
    for reason in config_compat(store, topic, &config) {
        out.push(problem(None, Some(format!("{topic}.twc")), None, None, "config_not_for_023", reason));
    }
    let dir = store.topic_dir(topic);
    if std::fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink()) {
        out.push(problem(
            None,
            None,
            None,
            None,
            "symlink",
            format!("the topic folder {} is a link: TwainMQ never writes or deletes through it", dir.display()),
        ));
        return Ok(out);
    }
    let listing = files::list_topic_dir(&dir, config.partitions)?;
    check_key_table(&config, &dir, listing.key_table.as_deref(), &mut |file, offset, kind, message| {
        out.push(problem(None, file, None, offset, kind, message));
    })?;
    for u in &listing.unknown {
        out.push(problem(
            None,
            name_of(u),
            None,
            None,
            "unknown_file",
            "not a partition file of this topic: 0.2.3 may read it as one (it only looks at the name's start); move it out of the topic folder".into(),
        ));
    }
    for r in &listing.rejected {
        let partition = r.path.file_name().and_then(|n| n.to_str()).and_then(|n| n.split_once('-')).and_then(|(p, _)| p.parse().ok());
        out.push(problem(partition, name_of(&r.path), None, None, r.kind, r.reason.to_string()));
    }
    // The listing has one entry per partition, 0 to config.partitions - 1.
    for (p, pfiles) in (0..config.partitions).zip(&listing.partitions) {
        check_files(store, topic, p, pfiles, &mut out)?;
        let mut reader = match store.partition_reader(topic, p, StartFrom::Start) {
            Ok(r) => r,
            Err(e) => {
                out.push(problem(Some(p), None, None, None, "unreadable_partition", e.to_string()));
                continue;
            }
        };
        loop {
            match reader.poll() {
                Ok(Some(m)) => {
                    if let Payload::Typed(t) = &m.payload {
                        if t.class.is_none() {
                            out.push(problem(
                                Some(p),
                                None,
                                None,
                                Some(m.offset),
                                "unknown_type_id",
                                format!("typed message with type id {} that the config does not name", t.type_id),
                            ));
                        }
                    }
                }
                Ok(None) => break,
                // Reported once, by the file check above.
                Err(Error::CorruptLine { problem: crate::format::line::Corrupt::TornTail { .. }, .. }) => {}
                Err(Error::CorruptLine { offset, path, line, problem: what, .. }) => {
                    let kind = match what {
                        crate::format::line::Corrupt::BrokenMessage(_) => Some("broken_message"),
                        crate::format::line::Corrupt::UnknownKey { .. } => Some("unknown_key_id"),
                        _ => None,
                    };
                    if let Some(kind) = kind {
                        out.push(problem(Some(p), name_of(&path), Some(line), Some(offset), kind, what.to_string()));
                    } else {
                        let group = topic.strip_prefix(crate::format::name::GROUP_PREFIX);
                        let bytes = reader.last_line().map(|(_, _, b)| b.to_vec());
                        match (group, bytes) {
                            // A torn record one of our members mended: a line 0.2.3 reads and passes
                            // over (its last character, which 0.2.3 drops, our base85 refuses).
                            (Some(_), Some(b)) if crate::format::mend::stand_in(&b, 0.0).is_some_and(|s| s == b) => {}
                            (Some(g), Some(b)) if !crate::format::mend::python_reads_group_line(&b) => {
                                let fix = if b.len() >= crate::format::mend::MIN_STAND_IN {
                                    format!("a member of ours (`twainmq consume TOPIC --group {g}`, or the app's) makes it a record 0.2.3 reads and passes over, in place")
                                } else {
                                    format!(
                                        "at {} bytes it is too short to make readable in place: stop the group's members, then `twainmq groups export {g} > offsets.json`, `twainmq groups delete {g} --yes` and `twainmq groups import {g} offsets.json` (the group made again on its topic, from those offsets), and start them",
                                        b.len()
                                    )
                                };
                                out.push(problem(
                                    Some(p),
                                    name_of(&path),
                                    Some(line),
                                    Some(offset),
                                    "torn_group_record",
                                    format!("{what}: every 0.2.3 member dies reading it when it joins group {g:?} (0.2.3 reads the whole log); {fix}"),
                                ));
                            }
                            _ => out.push(problem(Some(p), name_of(&path), Some(line), Some(offset), "damaged_line", what.to_string())),
                        }
                    }
                }
                Err(e) => {
                    out.push(problem(Some(p), None, None, None, "unreadable_partition", e.to_string()));
                    break;
                }
            }
        }
        for u in reader.unfinished_messages() {
            out.push(problem(
                Some(p),
                name_of(&u.path),
                Some(u.line),
                Some(u.offset),
                "torn_message",
                format!(
                    "a large message of {} parts starts here and never ends: torn by a crash (readers skip it; it is never delivered), or being written now",
                    u.parts
                ),
            ));
        }
    }
    Ok(out)
}

/// The key table of a topic with free keys: there, and every entry whole; a
/// key table in a topic without free keys is a stray file.
fn check_key_table(
    config: &crate::format::config::TopicConfig,
    dir: &std::path::Path,
    table: Option<&std::path::Path>,
    push: &mut dyn FnMut(Option<String>, Option<u64>, &'static str, String),
) -> Result<()> {
    let name = crate::format::keytable::FILE_NAME.to_string();
    match (config.key_type.is_free(), table) {
        (false, None) => {}
        (false, Some(_)) => push(
            Some(name),
            None,
            "unknown_file",
            "a key table in a topic whose keys are not free: no reader uses it; move it out of the topic folder".into(),
        ),
        // (No folder at all: 0.2.3's delete_topic removes a topic's folder and leaves its config.)
        (true, None) if !dir.is_dir() => {}
        (true, None) => push(
            Some(name),
            None,
            "key_table_missing",
            "the topic has free keys but no key table: the keys of its messages are lost (lines name keys by id) and producers cannot add keys. Restore keys.twk from a backup".into(),
        ),
        (true, Some(_)) => match crate::log::keys::check(dir) {
            Ok((damaged, torn)) => {
                for (at, why) in damaged {
                    push(Some(name.clone()), None, "damaged_key_entry", format!("the entry at byte {at} is damaged ({why}): no line names it unless the table was changed by hand"));
                }
                if let Some(at) = torn {
                    push(Some(name), None, "unfinished_key_entry", format!("bytes from {at} to the end are no whole entry: a record torn by a crash (the next producer to add a key ends it), or being written now"));
                }
            }
            Err(e) => push(Some(name), None, "key_table_missing", format!("the key table cannot be read: {e}")),
        },
    }
    Ok(())
}

fn check_files(store: &Store, topic: &str, p: u32, pfiles: &[PartitionFile], out: &mut Vec<Problem>) -> Result<()> {
    let mut prev: Option<(&PartitionFile, u64)> = None;
    for (i, f) in pfiles.iter().enumerate() {
        let count = store.index().count(&f.path)?;
        if let Some((pf, end)) = prev {
            let (kind, msg) = if f.first > end {
                (
                    "offset_gap",
                    format!(
                        "starts at offset {} but {} ends at {end}: lines are missing (a deleted or lost file?)",
                        f.first,
                        name_of(&pf.path).unwrap_or_default()
                    ),
                )
            } else if f.first < end {
                ("offset_overlap", format!("starts at offset {} but {} ends at {end}: offsets overlap (a rollover race); seeks read this file's lines for those offsets", f.first, name_of(&pf.path).unwrap_or_default()))
            } else {
                ("", String::new())
            };
            if !kind.is_empty() {
                out.push(Problem {
                    topic: topic.into(),
                    partition: Some(p),
                    file: name_of(&f.path),
                    line: None,
                    offset: Some(f.first),
                    kind,
                    message: msg,
                });
            }
        }
        if pfiles.iter().filter(|o| o.day == f.day).count() > 1 && pfiles.iter().position(|o| o.day == f.day) == Some(i) {
            out.push(Problem {
                topic: topic.into(),
                partition: Some(p),
                file: name_of(&f.path),
                line: None,
                offset: None,
                kind: "duplicate_day",
                message: format!("several files for day {} (0.2.3 producers refuse to write to this partition)", f.day),
            });
        }
        if count.partial_bytes > 0 {
            let last = i + 1 == pfiles.len();
            let message = if last {
                format!(
                    "{} bytes without a final newline: a line being written now, or torn by a crash (readers wait for it)",
                    count.partial_bytes
                )
            } else {
                format!("{} bytes without a final newline, before a later file: torn by a crash (readers skip it)", count.partial_bytes)
            };
            out.push(Problem {
                topic: topic.into(),
                partition: Some(p),
                file: name_of(&f.path),
                line: Some(count.complete + 1),
                offset: Some(f.first.saturating_add(count.complete)),
                kind: "unfinished_line",
                message,
            });
        }
        prev = Some((f, f.first.saturating_add(count.python_lines())));
    }
    Ok(())
}
