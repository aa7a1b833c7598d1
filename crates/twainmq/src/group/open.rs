//! Opening a group's log for reading: the group's topic, checked to be a
//! group's (its config names the commit and round record types). Below both
//! the log cache and the group's set-up, which read logs this way.

use super::records;
use super::GroupError;
use crate::error::{Error, Result};
use crate::format::name;
use crate::log::consumer::StartFrom;
use crate::log::dir::LogDir;
use crate::log::reader::PartitionReader;

/// A reader of `group`'s log from its start; [`Error::GroupNotFound`] when the
/// group has no config, [`GroupError::NotAGroup`] when its topic is not a group's.
pub(crate) fn group_topic_reader(log: &LogDir, group: &str) -> Result<PartitionReader> {
    let gtopic = name::group_topic(group);
    let config = crate::format::config::TopicConfig::load(&gtopic, &log.config_path(&gtopic)).map_err(|e| match e {
        Error::TopicNotFound { path, .. } => Error::GroupNotFound { group: group.to_string(), path },
        e => e,
    })?;
    if config.type_id(records::COMMIT).is_none() || config.type_id(records::BEGINREBAL).is_none() {
        return Err(GroupError::NotAGroup { topic: gtopic }.into());
    }
    PartitionReader::open(log, &gtopic, &config, 0, StartFrom::Start)
}
