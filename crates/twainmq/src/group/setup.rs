//! Making a group's log, checking it fits its topic, and finding the topic a
//! group reads.

use super::cache::{read_log, Groups};
use super::records::{Record, TYPES};
use super::state::GroupLog;
use super::GroupError;
use crate::error::{Error, Result};
use crate::format::key::KeyType;
use crate::format::name;
use crate::log::consumer::StartFrom;
use crate::log::dir::{LogDir, TopicSpec};

/// Create the group for `topic` if it does not exist; check it fits `topic` if it does.
pub(crate) fn ensure_group(log: &LogDir, topic: &str, group: &str, partitions: u32, start: StartFrom) -> Result<()> {
    name::validate_group(group)?;
    let gtopic = name::group_topic(group);
    match crate::format::config::TopicConfig::load(&gtopic, &log.config_path(&gtopic)) {
        Ok(config) => {
            // Where names ignore case, group `G`'s config loads as `g`'s: not ours.
            log.refuse_case_twin(&gtopic)?;
            if let Some(recorded) = config.extra.get("topic").and_then(|v| v.as_str()) {
                if recorded != topic {
                    return Err(
                        GroupError::TopicMismatch { group: group.into(), recorded: recorded.into(), requested: topic.into() }.into()
                    );
                }
            }
            Ok(())
        }
        Err(Error::TopicNotFound { .. }) => {
            name::validate_new_group(group)?;
            let spec = TopicSpec::new(KeyType::U32, 1).with_types(TYPES);
            let mut extra = serde_json::Map::new();
            extra.insert("topic".into(), topic.into());
            match log.create_topic(&gtopic, &spec, extra) {
                Ok(_) => {
                    let init = if start == StartFrom::Now { -1 } else { 0 };
                    let offsets = (0..partitions).map(|p| (p, init)).collect();
                    let mut w = log.producer(&gtopic)?;
                    w.send(&crate::format::key::Key::Int(0), &Record::Commit { offsets }.to_outgoing())?;
                    Ok(())
                }
                // Another process is creating it: wait until its config is in place.
                Err(Error::TopicExists { .. }) => {
                    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
                    loop {
                        match crate::format::config::TopicConfig::load(&gtopic, &log.config_path(&gtopic)) {
                            Ok(_) => return Ok(()),
                            Err(Error::TopicNotFound { .. }) if std::time::Instant::now() < deadline => {
                                std::thread::sleep(std::time::Duration::from_millis(5));
                            }
                            Err(e) => return Err(e),
                        }
                    }
                }
                Err(e) => Err(e),
            }
        }
        Err(e) => Err(e),
    }
}

/// Create `group` for `topic` if it does not exist (as a first member would), or
/// check that an existing one fits the topic.
///
/// # Errors
/// Invalid names, a group bound to another topic, I/O errors.
pub(crate) fn ensure(g: &Groups, topic: &str, group: &str, start: StartFrom) -> Result<()> {
    let config = g.log.topic_config(topic)?;
    ensure_group(&g.log, topic, group, config.partitions, start)
}

/// The topic a group reads: recorded in its config, else the only topic whose
/// partition count matches.
///
/// # Errors
/// [`Error::GroupNotFound`], I/O errors.
pub(crate) fn group_topic_of(g: &Groups, group: &str, log: &GroupLog) -> Result<(Option<String>, Vec<String>)> {
    let gtopic = name::group_topic(group);
    let config = crate::format::config::TopicConfig::load(&gtopic, &g.log.config_path(&gtopic))?;
    let recorded = config.extra.get("topic").and_then(|v| v.as_str()).map(str::to_string);
    let mut candidates = Vec::new();
    if let Some(n) = log.partitions_hint {
        for t in g.log.list_topics()? {
            if g.log.topic_config(&t).is_ok_and(|c| c.partitions == n) {
                candidates.push(t);
            }
        }
    }
    let topic = recorded.or_else(|| (candidates.len() == 1).then(|| candidates[0].clone()));
    Ok((topic, candidates))
}

/// The groups that read `topic`: those whose config records it, and those
/// 0.2.3 made (no recorded topic) for which it is the only topic of their
/// partition count. Deleting the topic deletes them too, as Kafka drops a
/// deleted topic's committed offsets: their commits would otherwise apply to
/// a topic made again under the same name. Groups that cannot be read are
/// left out.
///
/// # Errors
/// [`Error::Io`] when the store cannot be listed.
pub(crate) fn groups_reading(g: &Groups, topic: &str) -> Result<Vec<String>> {
    groups_of(g, topic, false)
}

/// The groups that may read `topic`: those of [`groups_reading`], and also
/// those 0.2.3 made (no recorded topic) for which `topic` is one of several
/// topics of their partition count. Retention keeps what any of them has not
/// committed past: a group whose topic cannot be told is not taken to read
/// none (which would let its unconsumed messages go unforced).
///
/// # Errors
/// [`Error::Io`] when the store cannot be listed.
pub(crate) fn groups_maybe_reading(g: &Groups, topic: &str) -> Result<Vec<String>> {
    groups_of(g, topic, true)
}

/// The groups recorded as reading `topic`, or inferred to; with `ambiguous`,
/// also the 0.2.3 groups for which it is one candidate of several.
fn groups_of(g: &Groups, topic: &str, ambiguous: bool) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for group in g.log.list_groups()? {
        if name::validate_group(&group).is_err() {
            continue;
        }
        let gtopic = name::group_topic(&group);
        let Ok(config) = crate::format::config::TopicConfig::load(&gtopic, &g.log.config_path(&gtopic)) else { continue };
        let reads = match config.extra.get("topic").and_then(|v| v.as_str()) {
            Some(recorded) => recorded == topic,
            None => read_log(g, &group).and_then(|log| group_topic_of(g, &group, &log)).is_ok_and(|(found, candidates)| {
                found.as_deref() == Some(topic) || (ambiguous && found.is_none() && candidates.iter().any(|c| c == topic))
            }),
        };
        if reads {
            out.push(group);
        }
    }
    Ok(out)
}

/// Groups whose log is in the store but whose config is missing or cannot be
/// read (damaged, edited, a config of another kind): which topic they read
/// and what they consumed cannot be told, so they may read any topic and may
/// still need anything. Each with why.
///
/// # Errors
/// I/O errors listing the store.
pub(crate) fn groups_unknown(g: &Groups) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut names: std::collections::BTreeSet<String> = g.log.list_groups()?.into_iter().collect();
    // A group's folder with no config beside it: the log is there, its config is not.
    let root = g.log.root();
    let entries = std::fs::read_dir(root).map_err(|e| Error::io("list", root, e))?;
    for entry in entries.flatten() {
        if let Some(group) = entry.file_name().to_str().and_then(|n| n.strip_prefix(name::GROUP_PREFIX)) {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                names.insert(group.to_string());
            }
        }
    }
    for group in names {
        if name::validate_group(&group).is_err() {
            continue;
        }
        let gtopic = name::group_topic(&group);
        match crate::format::config::TopicConfig::load(&gtopic, &g.log.config_path(&gtopic)) {
            Ok(_) => {
                if let Err(e) = read_log(g, &group) {
                    out.push((group, format!("its log cannot be read ({e})")));
                }
            }
            Err(Error::TopicNotFound { .. }) => out.push((group, "its config is missing".to_string())),
            Err(e) => out.push((group, format!("its config cannot be read ({e})"))),
        }
    }
    Ok(out)
}

/// `topic`, the topic of `group`, checked as a topic name: a config edited by
/// hand may record anything, and nothing is read through a name like `../x`.
///
/// # Errors
/// [`GroupError::InvalidRecordedTopic`].
pub(crate) fn checked_topic(group: &str, topic: String) -> Result<String> {
    match name::validate_topic(&topic) {
        Ok(()) => Ok(topic),
        Err(e) => Err(GroupError::InvalidRecordedTopic { group: group.into(), topic, problem: e.to_string() }.into()),
    }
}
