//! Topics and groups as a listing shows them: the one place the CLI's
//! `topics list` / `groups list` and the app's sidebar get their rows from,
//! so both say the same thing about a store.

use super::Store;
use crate::error::Error;
use crate::format::config::TopicConfig;
use crate::group::GroupPhase;

/// A topic's row in a listing. A topic whose config or files cannot be read
/// is a row too, with the reason, never the end of the listing.
#[derive(Debug, Clone)]
pub struct TopicSummary {
    /// The topic's name.
    pub name: String,
    /// Its config, or why it could not be read.
    pub config: Result<TopicConfig, String>,
    /// Message and byte counts when asked for (`None` otherwise), or why the
    /// files could not be counted.
    pub totals: Option<Result<TopicTotals, String>>,
}

/// What a topic's files hold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TopicTotals {
    /// Complete lines in every partition file (messages, damaged lines included).
    pub messages: u64,
    /// Bytes in every partition file.
    pub bytes: u64,
    /// The latest modification time of any partition file, UNIX seconds (a file time).
    pub last_write: Option<f64>,
    /// The newest message's timestamp, UNIX seconds (see [`crate::PartitionInfo::last_message`]).
    pub last_message: Option<f64>,
}

/// A consumer group's row in a listing.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupSummary {
    /// The group's name.
    pub name: String,
    /// What its log says, or why it could not be read.
    pub state: Result<GroupState, String>,
}

/// A readable group's facts, as its log shows them.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupState {
    /// The topic it reads: recorded in its config, else the only topic of its partition count.
    pub topic: Option<String>,
    /// Members in the group now, as the log's records place them (live or not).
    pub members: usize,
    /// How many of them are live (inferred from the log, by the store's clock).
    pub live_members: usize,
    /// Stable, rebalancing, stuck or empty (see [`crate::group::GroupPhase`]).
    pub phase: GroupPhase,
    /// Why the group is in that state.
    pub phase_reason: String,
    /// A round of reassignment is open.
    pub round_open: bool,
    /// Messages not yet committed, over every partition of its topic (0 when the topic is unknown).
    pub lag: u64,
}

impl Store {
    /// `topic` as a listing shows it; with `totals`, its files counted too
    /// (through the line index: after the first time, only what was appended).
    pub fn topic_summary(&self, topic: &str, totals: bool) -> TopicSummary {
        let config = self.topic_config(topic).map_err(|e| e.to_string());
        let totals = match (&config, totals) {
            (Ok(_), true) => Some(
                self.describe_topic(topic)
                    .map(|d| TopicTotals { messages: d.messages, bytes: d.bytes, last_write: d.last_write, last_message: d.last_message })
                    .map_err(|e| e.to_string()),
            ),
            _ => None,
        };
        TopicSummary { name: topic.to_string(), config, totals }
    }

    /// Every topic of the store, sorted by name (see [`Store::topic_summary`]).
    ///
    /// # Errors
    /// [`Error::Io`] when the store's folder cannot be listed.
    pub fn topic_summaries(&self, totals: bool) -> Result<Vec<TopicSummary>, Error> {
        Ok(self.list_topics()?.iter().map(|t| self.topic_summary(t, totals)).collect())
    }

    /// `group` as a listing shows it.
    pub fn group_summary(&self, group: &str) -> GroupSummary {
        let state = self
            .describe_group(group)
            .map(|d| GroupState {
                topic: d.topic,
                members: d.members.len(),
                live_members: d.live_members,
                phase: d.state,
                phase_reason: d.state_reason,
                round_open: d.open_round.is_some(),
                lag: d.partitions.iter().map(|p| p.lag).sum(),
            })
            .map_err(|e| e.to_string());
        GroupSummary { name: group.to_string(), state }
    }

    /// Every consumer group of the store, sorted by name.
    ///
    /// # Errors
    /// [`Error::Io`] when the store's folder cannot be listed.
    pub fn group_summaries(&self) -> Result<Vec<GroupSummary>, Error> {
        Ok(self.list_groups()?.iter().map(|g| self.group_summary(g)).collect())
    }
}

#[cfg(test)]
mod tests {
    use crate::{KeyType, StartFrom, Store, TopicSpec};

    #[test]
    fn summaries_count_files_say_why_a_row_is_unreadable_and_sum_lag() {
        let dir = tempfile::tempdir().expect("tmp");
        let store = Store::open(dir.path()).expect("open");
        store.create_topic("t", &TopicSpec::new(KeyType::U8, 2)).expect("create");
        let mut p = store.producer("t").expect("producer");
        for k in 0..10u8 {
            p.send_text(k, "x").expect("send");
        }
        store.ensure_group("t", "g", StartFrom::Start).expect("group");
        std::fs::write(dir.path().join("bad.twc"), b"{not json").expect("write");

        let topics = store.topic_summaries(true).expect("topics");
        let names: Vec<&str> = topics.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["bad", "t"]);
        assert!(topics[0].config.as_ref().is_err_and(|e| e.contains("corrupt")), "{:?}", topics[0].config);
        assert!(topics[0].totals.is_none(), "an unreadable config is not counted");
        let totals = topics[1].totals.clone().expect("asked").expect("counted");
        assert_eq!(totals.messages, 10);
        assert!(totals.bytes > 0 && totals.last_write.is_some());
        assert!(store.topic_summary("t", false).totals.is_none(), "counted without being asked");

        let groups = store.group_summaries().expect("groups");
        let g = groups[0].state.as_ref().expect("readable");
        assert_eq!((groups[0].name.as_str(), g.topic.as_deref(), g.lag, g.members), ("g", Some("t"), 10, 0));
        assert_eq!((g.live_members, g.phase), (0, crate::group::GroupPhase::Empty));
    }
}
