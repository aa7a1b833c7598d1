//! A live group member, interoperable with 0.2.3 members of the same group.
//! How it takes part in rounds (offers, confirms, heartbeats) is in `rounds.rs`.

mod rounds;

use std::time::{Duration, Instant};

use super::cache::{mend_torn, read_all};
use super::open::group_topic_reader;
use super::options::GroupOptions;
use super::records::Record;
use super::setup::ensure_group;
use super::state::{Event, GroupLog};
use super::GroupError;
use crate::error::Result;
use crate::format::message::Message;
use crate::log::consumer::{Consumer, StartFrom};
use crate::log::dir::LogDir;
use crate::log::producer::Producer;
use crate::log::reader::PartitionReader;
use crate::log::watch::Wake;

/// A member of a consumer group: joins, takes part in rounds, reads the
/// partitions assigned to it, commits.
///
/// # Examples
/// ```no_run
/// use std::time::Duration;
/// use twainmq::{Store, group::{GroupMember, GroupOptions}};
/// let store = Store::open("/data/store")?;
/// let opts = GroupOptions { window: Duration::from_secs(3), ..Default::default() };
/// let mut member = GroupMember::join(&store, "events", "workers", opts)?;
/// while let Some(msg) = member.poll_timeout(Duration::from_secs(1))? {
///     println!("{} {}", msg.offset, msg.key);
///     member.commit()?;
/// }
/// member.close()?;
/// # Ok::<(), twainmq::Error>(())
/// ```
pub struct GroupMember {
    dir: LogDir,
    topic: String,
    group: String,
    partitions: u32,
    id: u32,
    opts: GroupOptions,
    log: GroupLog,
    reader: PartitionReader,
    writer: Producer,
    consumer: Consumer,
    assigned: Vec<u32>,
    wrote_end: bool,
    last_heartbeat: Option<Instant>,
    last_round: Instant,
    /// When this member last opened a round because it was left out of one.
    last_rejoin: Option<Instant>,
    closed: bool,
    wake: Option<Wake>,
}

impl std::fmt::Debug for GroupMember {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupMember")
            .field("group", &self.group)
            .field("id", &self.id)
            .field("assigned", &self.assigned)
            .finish_non_exhaustive()
    }
}

fn now_secs(dir: &LogDir) -> f64 {
    dir.clock().now_micros() as f64 / 1e6
}

impl GroupMember {
    /// Join as [`GroupMember::join`] does (the store checks the names first).
    pub(crate) fn join_log(dir: &LogDir, topic: &str, group: &str, opts: GroupOptions) -> Result<GroupMember> {
        let config = dir.topic_config(topic)?;
        crate::format::name::validate_topic(topic)?;
        ensure_group(dir, topic, group, config.partitions, opts.start_from)?;
        let gtopic = crate::format::name::group_topic(group);
        let mut reader = group_topic_reader(dir, group)?;
        let mut writer = dir.producer(&gtopic)?;
        let mut log = GroupLog::default();
        read_all(&mut reader, &mut log, |_, _| {})?;
        // Before anything of ours lands: a torn record in the log kills every
        // 0.2.3 member that joins (it reads the whole log); make it one it reads.
        mend_torn(&mut log);
        if let Some(n) = log.partitions_hint {
            if n > config.partitions {
                return Err(GroupError::PartitionMismatch {
                    group: group.to_string(),
                    topic: topic.to_string(),
                    group_partitions: n,
                    topic_partitions: config.partitions,
                }
                .into());
            }
        }
        let mut attempts = 0;
        let id = loop {
            attempts += 1;
            // 0.2.3 takes the largest id seen plus one; past u32::MAX (a hostile or
            // damaged log) that would repeat an id, so take the lowest one unused.
            let id = match log.max_key.map_or(Some(1), |k| k.checked_add(1)) {
                Some(id) => id.max(1),
                None => (1..u32::MAX).find(|id| !log.joins.contains_key(id) && !log.last_seen.contains_key(id)).unwrap_or(u32::MAX),
            };
            let tag = super::records::our_tag(rand::random());
            writer.send(&crate::format::key::Key::Int(id.into()), &Record::Joined { tag, client: opts.client.clone() }.to_outgoing())?;
            // The first JOINED after our position decides: ours, or someone else's (then retry).
            let deadline = Instant::now() + Duration::from_secs(30);
            let mut first_joined = None;
            while first_joined.is_none() {
                read_all(&mut reader, &mut log, |_, ev| {
                    if let (None, Event::Joined { tag: t, .. }) = (first_joined, ev) {
                        first_joined = Some(*t);
                    }
                })?;
                if first_joined.is_none() {
                    if Instant::now() > deadline {
                        return Err(GroupError::JoinFailed { group: group.to_string(), attempts }.into());
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
            }
            if first_joined == Some(tag) {
                break id;
            }
            if let Some(theirs) = first_joined {
                writer.send(&crate::format::key::Key::Int(id.into()), &Record::AbortJoin { tag: theirs }.to_outgoing())?;
            }
            if attempts >= opts.join_attempts {
                return Err(GroupError::JoinFailed { group: group.to_string(), attempts }.into());
            }
            std::thread::sleep(Duration::from_millis(u64::from(rand::random::<u8>() % 100)));
        };
        // A torn tail our first write ended (see `log::torn`) was read since.
        mend_torn(&mut log);
        let consumer = dir.consumer_of(topic, &[], StartFrom::Start)?;
        let mut member = GroupMember {
            dir: dir.clone(),
            topic: topic.to_string(),
            group: group.to_string(),
            partitions: config.partitions,
            id,
            opts,
            log,
            reader,
            writer,
            consumer,
            assigned: Vec::new(),
            wrote_end: false,
            last_heartbeat: None,
            last_round: Instant::now(),
            last_rejoin: None,
            closed: false,
            wake: None,
        };
        member.trigger_round()?;
        Ok(member)
    }

    /// This member's id in the group (the key of its records).
    pub fn id(&self) -> u32 {
        self.id
    }
    /// The group this member belongs to.
    pub fn group(&self) -> &str {
        &self.group
    }
    /// The topic the group reads.
    pub fn topic(&self) -> &str {
        &self.topic
    }

    /// The partitions this member reads now.
    pub fn assignment(&self) -> &[u32] {
        &self.assigned
    }

    /// The group's state as this member has read it.
    pub fn log(&self) -> &GroupLog {
        &self.log
    }

    /// When the open round ends (UNIX seconds), if a round is open.
    pub fn round_open_until(&self) -> Option<f64> {
        self.log.open_round().map(|r| r.ends_at)
    }

    /// Next offset per assigned partition.
    pub fn positions(&self) -> Vec<(u32, u64)> {
        self.consumer.positions()
    }

    /// The next message from an assigned partition, without blocking.
    ///
    /// # Errors
    /// [`crate::Error::CorruptLine`] (skipped; poll again) and I/O errors.
    pub fn poll(&mut self) -> Result<Option<Message>> {
        self.maybe_heartbeat()?;
        self.consumer.poll()
    }

    /// Wait up to `timeout` for the next message, heartbeating meanwhile.
    ///
    /// # Errors
    /// As [`GroupMember::poll`].
    pub fn poll_timeout(&mut self, timeout: Duration) -> Result<Option<Message>> {
        let deadline = crate::log::watch::deadline_after(timeout);
        loop {
            let seen = self.wake.as_ref().map(Wake::seq);
            if let Some(m) = self.poll()? {
                return Ok(Some(m));
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            match (seen, &self.wake) {
                // Also wake for an open round's end, which no file event announces.
                (Some(seen), Some(w)) => {
                    let round_end = self.round_open_until().map(|t| {
                        let left = (t - now_secs(&self.dir)).max(0.0) + 0.001;
                        now + Duration::from_secs_f64(left.min(3600.0))
                    });
                    w.wait(seen, round_end.map_or(deadline, |r| r.min(deadline)));
                }
                _ => {
                    let dirs = [self.dir.topic_dir(&self.topic), self.dir.topic_dir(&crate::format::name::group_topic(&self.group))];
                    self.wake = Some(Wake::new(&dirs));
                }
            }
        }
    }

    /// Move the read position of an assigned partition (to skip a message,
    /// or read some again); the next commit commits it. Kept until the
    /// partition moves to another member.
    ///
    /// # Errors
    /// [`crate::Error::PartitionOutOfRange`] when this member does not hold
    /// `partition`; I/O errors.
    pub fn seek(&mut self, partition: u32, from: StartFrom) -> Result<()> {
        self.consumer.seek(partition, from)
    }

    /// Hand `message` out again (see [`Consumer::put_back`]): the next poll
    /// returns it first and no commit covers it until then. Dropped if its
    /// partition has moved to another member meanwhile.
    pub fn put_back(&mut self, message: Message) {
        self.consumer.put_back(message);
    }

    /// Commit the read position of every assigned partition.
    ///
    /// # Errors
    /// I/O errors.
    pub fn commit(&mut self) -> Result<()> {
        let parts = self.assigned.clone();
        self.commit_partitions(&parts)
    }

    /// Commit the read position of some assigned partitions.
    ///
    /// # Errors
    /// I/O errors.
    pub fn commit_partitions(&mut self, partitions: &[u32]) -> Result<()> {
        // A reset written since our last heartbeat moves us first, so this commit cannot undo it.
        self.process()?;
        let offsets: Vec<(u32, i64)> = self
            .consumer
            .positions()
            .into_iter()
            .filter(|(p, _)| partitions.contains(p))
            .map(|(p, o)| (p, i64::try_from(o).unwrap_or(i64::MAX)))
            .collect();
        if offsets.is_empty() {
            return Ok(());
        }
        self.send(&Record::Commit { offsets })
    }

    /// Leave: commit (if configured) and open a round so others take our partitions.
    ///
    /// # Errors
    /// I/O errors.
    pub fn close(mut self) -> Result<()> {
        self.leave(self.opts.commit_on_close)
    }

    /// Leave cleanly (open a round so others take our partitions) without
    /// committing: for a caller that could not deliver what it polled (its
    /// output failed), so those messages are read again by whoever takes the
    /// partitions, never skipped.
    ///
    /// # Errors
    /// I/O errors.
    pub fn close_without_commit(mut self) -> Result<()> {
        self.leave(false)
    }

    fn leave(&mut self, commit: bool) -> Result<()> {
        if self.closed {
            return Ok(());
        }
        self.closed = true;
        if commit {
            self.commit()?;
        }
        // Open a round if we hold partitions, or offered in a round still open
        // (it would otherwise assign partitions to us after we are gone).
        if self.opts.rebalance_on_leave && (!self.assigned.is_empty() || self.log.open_round().is_some()) {
            // Catch up first: someone may have joined since our last heartbeat.
            self.process()?;
            let others = self.log.members().keys().any(|id| *id != self.id);
            if others {
                let ends_at = now_secs(&self.dir) + self.opts.window.as_secs_f64();
                self.send(&Record::BeginRound { ends_at })?;
            } else {
                // The last member: a round of no offers, ended at once, leaves the group
                // idle with nobody holding partitions (rather than a round nobody ends).
                self.send(&Record::BeginRound { ends_at: now_secs(&self.dir) })?;
                self.send(&Record::EndRound)?;
            }
        }
        Ok(())
    }

    /// Stop without committing or telling anyone, as a crashed process would.
    pub fn abandon(mut self) {
        self.closed = true;
    }
}

impl Drop for GroupMember {
    /// A member dropped without [`GroupMember::close`] (an early return on an
    /// error, a panic) leaves without committing: the caller may not have
    /// handled what it polled, and a commit must cover only what was delivered.
    fn drop(&mut self) {
        if let Err(e) = self.leave(false) {
            tracing::warn!(group = %self.group, id = self.id, error = %e, "could not leave the group cleanly");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::format::key::{Key, KeyType};
    use crate::log::clock::{Clock, ManualClock};
    use crate::log::dir::TopicSpec;

    const ALL: [u32; 4] = [0, 1, 2, 3];

    fn dir_at(t_micros: i64) -> (tempfile::TempDir, LogDir, ManualClock) {
        let tmp = tempfile::tempdir().expect("tmp");
        let clock = ManualClock::new(t_micros);
        let mut dir = LogDir::new(tmp.path().to_path_buf());
        dir.set_clock(Arc::new(clock.clone()));
        dir.create_topic("t", &TopicSpec::new(KeyType::U16, 4), serde_json::Map::new()).expect("topic");
        (tmp, dir, clock)
    }

    /// The group log as a fresh reader sees it.
    fn read(dir: &LogDir) -> GroupLog {
        let mut log = GroupLog::default();
        read_all(&mut group_topic_reader(dir, "g").expect("reader"), &mut log, |_, _| {}).expect("read");
        log
    }

    /// The race, written by "another member" (records only): member 9 joins and
    /// opens a round, and an `ENDREBAL` meant for an earlier round lands right
    /// after its offer, before our member read any of it.
    fn race(dir: &LogDir, clock: &ManualClock, tag: u64) {
        let now = clock.now_micros() as f64 / 1e6;
        let mut p = dir.producer(&crate::format::name::group_topic("g")).expect("the group log");
        for (key, r) in [
            (9u32, Record::Joined { tag, client: None }),
            (9, Record::BeginRound { ends_at: now + 0.1 }),
            (9, Record::Offer { own: vec![], partitions: ALL.to_vec() }),
            (7, Record::EndRound),
        ] {
            p.send(&Key::Int(key.into()), &r.to_outgoing()).expect("send");
        }
    }

    #[test]
    fn a_member_left_out_of_a_round_by_a_stale_end_opens_another_at_most_once_a_while() {
        let (_tmp, dir, clock) = dir_at(1_800_000_000_000_000);
        // A 100 ms window: such rounds at most once a second.
        let opts = GroupOptions { window: Duration::from_millis(100), ..GroupOptions::default() };
        let mut a = GroupMember::join_log(&dir, "t", "g", opts).expect("join");
        clock.advance(200_000);
        a.heartbeat().expect("ends the round");
        assert_eq!(a.assignment(), ALL);

        race(&dir, &clock, 1);
        a.heartbeat().expect("reads the race");
        // Member 9's round ended with its offer alone: `a` holds nothing, and opens a round at once.
        let log = read(&dir);
        assert_eq!(log.last_completed().expect("ended").assignment.keys().copied().collect::<Vec<_>>(), vec![9]);
        assert!(a.assignment().is_empty());
        assert_eq!(log.open_round().map(|r| r.started_by), Some(a.id()), "a round opened by the member left out");
        // Member 9 never offers again: the new round gives `a` everything back.
        clock.advance(200_000);
        a.heartbeat().expect("ends its round");
        assert_eq!(a.assignment(), ALL);

        // Left out again at once: no round (it opened one less than a second ago).
        race(&dir, &clock, 2);
        a.heartbeat().expect("reads the race");
        assert!(a.assignment().is_empty());
        assert!(read(&dir).open_round().is_none(), "no round opened within the second");
        // A second later, left out again: it opens one.
        std::thread::sleep(Duration::from_millis(1100));
        race(&dir, &clock, 3);
        a.heartbeat().expect("reads the race");
        assert_eq!(read(&dir).open_round().map(|r| r.started_by), Some(a.id()));
        clock.advance(200_000);
        a.heartbeat().expect("ends its round");
        assert_eq!(a.assignment(), ALL);
        a.abandon();
    }

    /// A window at the limit of `Duration` (a caller's mistake, or a huge
    /// setting): left out of a round, the member still opens one, no overflow.
    #[test]
    fn a_member_with_the_longest_window_left_out_of_a_round_does_not_overflow() {
        let (_tmp, dir, clock) = dir_at(1_800_000_000_000_000);
        let opts = GroupOptions { window: Duration::MAX, ..GroupOptions::default() };
        let mut a = GroupMember::join_log(&dir, "t", "g", opts).expect("join");
        race(&dir, &clock, 1);
        a.heartbeat().expect("reads the race");
        assert!(a.assignment().is_empty());
        assert_eq!(read(&dir).open_round().map(|r| r.started_by), Some(a.id()));
        a.abandon();
    }
}
