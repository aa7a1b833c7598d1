//! The store's consumer-group operations: names are checked here, then the
//! group layer ([`crate::group`]) reads and writes the group logs.

use std::time::Duration;

use super::Store;
use crate::error::Result;
use crate::format::name;
use crate::group::{self, GroupDescription, GroupLog, GroupMember, GroupOptions, LagHistory, ResetPlan, ResetTo};
use crate::log::cursor::StartFrom;

impl Store {
    /// Read a group's whole log (folded incrementally: the store keeps each
    /// group's reader and state, so a refresh reads only new records).
    ///
    /// # Errors
    /// [`crate::Error::GroupNotFound`], [`crate::GroupError::NotAGroup`], I/O errors.
    pub fn group_log(&self, group: &str) -> Result<GroupLog> {
        group::read_log(&self.groups(), group)
    }

    /// Create `group` for `topic` if it does not exist (as a first member would), or
    /// check that an existing one fits the topic.
    ///
    /// # Errors
    /// Invalid names, a group bound to another topic, I/O errors.
    pub fn ensure_group(&self, topic: &str, group: &str, start: StartFrom) -> Result<()> {
        group::ensure(&self.groups(), topic, group, start)
    }

    /// The topic a group reads (recorded in its config, else the only topic
    /// whose partition count matches), and the topics that could be it.
    ///
    /// # Errors
    /// [`crate::Error::GroupNotFound`], I/O errors.
    pub fn group_topic_of(&self, group: &str, log: &GroupLog) -> Result<(Option<String>, Vec<String>)> {
        name::validate_group(group)?;
        group::group_topic_of(&self.groups(), group, log)
    }

    /// The groups that read `topic`: those whose config records it, and those
    /// 0.2.3 made (no recorded topic) for which it is the only topic of their
    /// partition count. Deleting the topic deletes them too, as Kafka drops a
    /// deleted topic's committed offsets: their commits would otherwise apply to
    /// a topic made again under the same name. Groups that cannot be read are
    /// left out.
    ///
    /// # Errors
    /// [`crate::Error::Io`] when the store cannot be listed.
    pub fn groups_reading(&self, topic: &str) -> Result<Vec<String>> {
        group::groups_reading(&self.groups(), topic)
    }

    /// Describe a group from its log: members, assignment, commits, lag, rounds.
    ///
    /// # Errors
    /// [`crate::Error::GroupNotFound`], I/O errors.
    pub fn describe_group(&self, group: &str) -> Result<GroupDescription> {
        group::describe_on(&self.groups(), group, None)
    }

    /// [`Store::describe_group`], reading `topic` for a group 0.2.3 created
    /// when several topics could be its own.
    ///
    /// # Errors
    /// As [`Store::describe_group`].
    pub fn describe_group_on(&self, group: &str, topic: Option<&str>) -> Result<GroupDescription> {
        group::describe_on(&self.groups(), group, topic)
    }

    /// Open a round in a group from outside it (as key 0), so that the members
    /// re-assign partitions; members that died take no part and lose theirs.
    ///
    /// # Errors
    /// [`crate::Error::GroupNotFound`], I/O errors.
    pub fn trigger_round(&self, group: &str, window: Duration) -> Result<()> {
        group::trigger_round(&self.groups(), group, window)
    }

    /// Reset committed offsets by writing a `COMMIT` record 0.2.3 members honour
    /// when they next take a partition. With `dry_run`, only computes the plan.
    ///
    /// # Errors
    /// [`crate::Error::GroupNotFound`], [`crate::GroupError`], I/O errors.
    pub fn reset_group(&self, group: &str, to: ResetTo, partitions: Option<&[u32]>, dry_run: bool) -> Result<ResetPlan> {
        group::reset_on(&self.groups(), group, None, &to, partitions, dry_run)
    }

    /// [`Store::reset_group`], for a group 0.2.3 created when several topics could be its own.
    ///
    /// # Errors
    /// As [`Store::reset_group`].
    pub fn reset_group_on(
        &self,
        group: &str,
        topic: Option<&str>,
        to: ResetTo,
        partitions: Option<&[u32]>,
        dry_run: bool,
    ) -> Result<ResetPlan> {
        group::reset_on(&self.groups(), group, topic, &to, partitions, dry_run)
    }

    /// The lag of every partition of `group`'s topic at `buckets` moments
    /// spread evenly over `[from, to]` (UNIX seconds, each point at its
    /// bucket's end), with rounds and resets marked: computed from the commit
    /// timestamps in the group log and the partitions' time indexes (no
    /// message is decoded, at most one block of timestamps is read per point).
    ///
    /// # Errors
    /// [`crate::GroupError::InvalidSpan`] (at most [`crate::group::MAX_BUCKETS`]
    /// points), [`crate::Error::GroupNotFound`], [`crate::GroupError::UnknownTopic`], I/O errors.
    pub fn lag_history(&self, group: &str, from: f64, to: f64, buckets: u32) -> Result<LagHistory> {
        let log = group::read_log(&self.groups(), group)?;
        group::lag_history(&self.groups(), group, &log, from, to, buckets)
    }

    /// Now by the store's clock ([`Store::with_clock`]), UNIX seconds: the
    /// moment group statuses and states are inferred at.
    pub fn now_secs(&self) -> f64 {
        self.log.clock().now_micros() as f64 / 1e6
    }

    /// Delete a consumer group: its log (every record: members, rounds,
    /// committed offsets) and its config. Live members of ours stop with
    /// [`crate::Error::TopicDeleted`]; a 0.2.3 member still running would make
    /// it again on its next write. Never follows a link out of the store.
    ///
    /// # Errors
    /// [`crate::Error::GroupNotFound`], [`crate::GroupError::NotAGroup`],
    /// [`crate::Error::SymlinkRefused`], I/O errors.
    pub fn delete_group(&self, group: &str) -> Result<()> {
        // Only a group log is deleted this way, never a topic that merely has the prefix's shape.
        group::read_log(&self.groups(), group)?;
        self.groups().forget(group);
        self.log.delete_topic(&name::group_topic(group))
    }

    /// Join `group` (creating it for `topic` if needed) as a live member: the
    /// same as [`GroupMember::join`].
    ///
    /// # Errors
    /// As [`GroupMember::join`].
    pub fn join_group(&self, topic: &str, group: &str, opts: GroupOptions) -> Result<GroupMember> {
        GroupMember::join(self, topic, group, opts)
    }
}

// The constructor lives with the store, not in the group layer, because it
// takes the public `Store`; the group layer below works on the log alone.
impl GroupMember {
    /// Join `group` (creating it for `topic` if needed) and open a round.
    ///
    /// # Errors
    /// Invalid names, a missing topic, a group bound to another topic or
    /// partition count ([`crate::Error::Group`]), join failures, I/O errors.
    pub fn join(store: &Store, topic: &str, group: &str, opts: GroupOptions) -> Result<GroupMember> {
        GroupMember::join_log(store.log(), topic, group, opts)
    }
}
