//! Member status (live / stale / gone) and group state (stable / rebalancing /
//! stuck / empty), inferred from group logs: synthetic logs folded record by
//! record at chosen times (0.2.3's records, members killed mid-round), and our
//! own members on a store with a manual clock.

use std::sync::Arc;
use std::time::Duration;

use twainmq::group::{GroupLog, GroupOptions, GroupPhase, MemberStatus};
use twainmq::internals::Record;
use twainmq::{KeyType, ManualClock, StartFrom, Store, TopicSpec};

const T0: f64 = 1_800_000_000.0;
const ALL: [u32; 4] = [0, 1, 2, 3];

/// A synthetic group log: records applied in order, each at a time.
struct Log {
    log: GroupLog,
    next: u64,
}

impl Log {
    /// A group made by 0.2.3: its first record, the initial commit under key 0.
    fn new() -> Log {
        let mut l = Log { log: GroupLog::default(), next: 0 };
        l.put(0, T0, Record::Commit { offsets: ALL.iter().map(|p| (*p, 0)).collect() });
        l
    }
    fn put(&mut self, key: u32, at: f64, r: Record) -> u64 {
        let offset = self.next;
        self.log.apply(key, offset, at, &r);
        self.next += 1;
        offset
    }
    /// A 0.2.3 member joins at `at` (random tag, no mark), opens a round of `window` s and offers.
    fn join_023(&mut self, id: u32, at: f64, window: f64, own: &[u32]) {
        self.put(id, at, Record::Joined { tag: 0x1234_5678_9abc_def0 ^ u64::from(id), client: None });
        self.put(id, at, Record::BeginRound { ends_at: at + window });
        self.put(id, at, Record::Offer { own: own.to_vec(), partitions: ALL.to_vec() });
    }
    fn offer(&mut self, id: u32, at: f64, own: &[u32]) {
        self.put(id, at, Record::Offer { own: own.to_vec(), partitions: ALL.to_vec() });
    }
    fn end_and_confirm(&mut self, ender: u32, at: f64) {
        self.put(ender, at, Record::EndRound);
        let a = self.log.last_completed().expect("ended").assignment.clone();
        for (id, parts) in a {
            self.put(id, at, Record::Confirm { partitions: parts });
        }
    }
    fn status(&self, id: u32, now: f64) -> (MemberStatus, String) {
        let l = self.log.liveness(now);
        let m = l.members.iter().chain(&l.former).find(|m| m.id == id).unwrap_or_else(|| panic!("member {id} not listed: {l:?}"));
        (m.status, m.reason.clone())
    }
    fn state(&self, now: f64) -> GroupPhase {
        self.log.liveness(now).state
    }
}

#[test]
fn a_023_member_goes_live_stale_gone_as_its_records_age_and_a_commit_revives_it() {
    let mut l = Log::new();
    assert_eq!(l.state(T0), GroupPhase::Empty, "no member yet");
    l.join_023(1, T0 + 1.0, 5.0, &[]);
    assert_eq!(l.state(T0 + 2.0), GroupPhase::Rebalancing);
    assert_eq!(l.status(1, T0 + 2.0).0, MemberStatus::Live);
    l.end_and_confirm(1, T0 + 6.5);
    assert_eq!(l.state(T0 + 7.0), GroupPhase::Stable);
    let live = l.log.liveness(T0 + 7.0);
    assert_eq!((live.live_count(), live.members[0].partitions.clone()), (1, ALL.to_vec()));
    assert!(!live.members[0].follows_resets, "a 0.2.3 tag carries no mark");
    // Live for 3 windows, but at least 30 s; gone after 10 windows, at least 600 s.
    assert_eq!(l.status(1, T0 + 6.5 + 30.0).0, MemberStatus::Live);
    let (s, why) = l.status(1, T0 + 6.5 + 31.0);
    assert_eq!(s, MemberStatus::Stale);
    assert!(why.contains("no heartbeat"), "{why}");
    assert_eq!(l.state(T0 + 40.0), GroupPhase::Empty, "a group of stale members has no live member");
    assert_eq!(l.status(1, T0 + 6.5 + 599.0).0, MemberStatus::Stale);
    assert_eq!(l.status(1, T0 + 6.5 + 601.0).0, MemberStatus::Gone);
    // Its commit is a record: live again.
    l.put(1, T0 + 700.0, Record::Commit { offsets: vec![(0, 3)] });
    assert_eq!(l.status(1, T0 + 701.0).0, MemberStatus::Live);
    assert_eq!(l.state(T0 + 701.0), GroupPhase::Stable);
    // A record stamped ahead of now (a skewed clock) counts as just written.
    assert_eq!(l.status(1, T0 + 600.0).0, MemberStatus::Live);
}

#[test]
fn a_member_killed_mid_round_goes_stale_then_gone_when_the_round_ends_without_it() {
    let mut l = Log::new();
    l.join_023(1, T0, 5.0, &[]);
    l.end_and_confirm(1, T0 + 5.5);
    l.join_023(2, T0 + 10.0, 5.0, &[]);
    l.offer(1, T0 + 10.0, &ALL);
    l.end_and_confirm(1, T0 + 15.5);
    assert_eq!(l.log.members().get(&2).map(Vec::len), Some(2));
    // Member 3 joins and opens a round; 1 offers, 2 was killed and never does.
    l.join_023(3, T0 + 20.0, 60.0, &[]);
    l.offer(1, T0 + 20.0, &[0, 2]);
    assert_eq!(l.state(T0 + 25.0), GroupPhase::Rebalancing);
    assert_eq!(l.status(2, T0 + 25.0).0, MemberStatus::Live, "within the grace a member may still be offering");
    let (s, why) = l.status(2, T0 + 31.0);
    assert_eq!(s, MemberStatus::Stale, "{why}");
    assert!(why.contains("made no offer"), "{why}");
    l.end_and_confirm(3, T0 + 80.5);
    assert_eq!(l.state(T0 + 81.0), GroupPhase::Stable);
    let live = l.log.liveness(T0 + 81.0);
    assert!(live.members.iter().all(|m| m.id != 2), "2 holds nothing now");
    let (s, why) = l.status(2, T0 + 81.0);
    assert_eq!(s, MemberStatus::Gone);
    assert!(why.contains("gave it no partition"), "{why}");
}

#[test]
fn every_member_killed_mid_round_leaves_the_group_stuck_with_no_live_member() {
    let mut l = Log::new();
    l.join_023(1, T0, 5.0, &[]);
    l.end_and_confirm(1, T0 + 5.5);
    l.join_023(2, T0 + 10.0, 5.0, &[]);
    l.offer(1, T0 + 10.0, &ALL);
    // Both die before the round's end (T0 + 15): nobody writes ENDREBAL.
    assert_eq!(l.state(T0 + 15.0 + 9.0), GroupPhase::Rebalancing, "within the grace");
    let live = l.log.liveness(T0 + 15.0 + 11.0);
    assert_eq!(live.state, GroupPhase::Stuck, "{live:?}");
    assert!(live.reason.contains("next member to join"), "{}", live.reason);
    assert_eq!(live.live_count(), 0, "a live member would have ended it: {live:?}");
    assert!(live.members.iter().all(|m| m.status == MemberStatus::Stale && m.reason.contains("did not end it")), "{live:?}");
    // A new member's round replaces the stuck one.
    l.join_023(3, T0 + 100.0, 5.0, &[]);
    assert_eq!(l.state(T0 + 101.0), GroupPhase::Rebalancing);
    l.end_and_confirm(3, T0 + 105.5);
    assert_eq!(l.state(T0 + 106.0), GroupPhase::Stable);
    assert_eq!(l.log.members().get(&3).cloned(), Some(ALL.to_vec()));
}

#[test]
fn a_member_that_opened_a_round_and_made_no_offer_left() {
    let mut l = Log::new();
    l.join_023(1, T0, 5.0, &[]);
    l.end_and_confirm(1, T0 + 5.5);
    l.join_023(2, T0 + 10.0, 5.0, &[]);
    l.offer(1, T0 + 10.0, &ALL);
    l.end_and_confirm(1, T0 + 15.5);
    // Member 2 leaves as ours do: a round it opens and takes no part in.
    l.put(2, T0 + 20.0, Record::BeginRound { ends_at: T0 + 25.0 });
    l.offer(1, T0 + 20.0, &[0, 2]);
    assert_eq!(l.status(2, T0 + 21.0).0, MemberStatus::Live, "it may still offer");
    let (s, why) = l.status(2, T0 + 31.0);
    assert_eq!(s, MemberStatus::Gone);
    assert!(why.starts_with("left"), "{why}");
    l.end_and_confirm(1, T0 + 25.5);
    assert_eq!(l.status(2, T0 + 26.0).0, MemberStatus::Gone);
    assert_eq!(l.log.liveness(T0 + 26.0).members.len(), 1);
    // The last member leaving: a round of no window, ended at once.
    l.put(1, T0 + 30.0, Record::BeginRound { ends_at: T0 + 30.0 });
    l.put(1, T0 + 30.0, Record::EndRound);
    let live = l.log.liveness(T0 + 30.5);
    assert_eq!((live.state, live.members.len()), (GroupPhase::Empty, 0));
    assert!(live.former.iter().all(|m| m.status == MemberStatus::Gone && m.reason.starts_with("left")), "{live:?}");
    assert_eq!(live.thresholds.window_secs, 5.0, "the empty round does not make the window 0");
}

fn store_at(t: f64) -> (tempfile::TempDir, Store, ManualClock) {
    let dir = tempfile::tempdir().expect("tmp");
    let clock = ManualClock::new((t * 1e6) as i64);
    let store = Store::open(dir.path()).expect("open").with_clock(Arc::new(clock.clone()));
    store.create_topic("t", &TopicSpec::new(KeyType::U16, 4)).expect("topic");
    store.ensure_group("t", "g", StartFrom::Start).expect("group");
    (dir, store, clock)
}

#[test]
fn our_members_are_marked_and_their_clean_leave_shows_them_gone_and_the_group_empty() {
    let (_dir, store, clock) = store_at(T0);
    let opts = GroupOptions { window: Duration::from_secs(5), ..Default::default() };
    let mut a = store.join_group("t", "g", opts.clone()).expect("join");
    clock.advance(6_000_000);
    a.heartbeat().expect("ends the round");
    assert_eq!(a.assignment(), ALL);
    let d = store.describe_group("g").expect("describe");
    assert_eq!((d.state, d.live_members), (GroupPhase::Stable, 1), "{d:?}");
    assert!(d.members[0].follows_resets, "our JOINED tag carries the mark");
    let s = &store.group_summaries().expect("summaries")[0];
    let st = s.state.as_ref().expect("readable");
    assert_eq!((st.members, st.live_members, st.phase), (1, 1, GroupPhase::Stable));
    a.close().expect("leave");
    let d = store.describe_group("g").expect("describe");
    assert_eq!((d.state, d.live_members, d.members.len()), (GroupPhase::Empty, 0, 0), "{d:?}");
    assert_eq!(d.former_members[0].status, MemberStatus::Gone);
    assert!(d.former_members[0].status_reason.starts_with("left"), "{:?}", d.former_members);
    // An abandoned member (a crash) stays in the group, goes stale, then gone; the state is empty.
    let mut b = store.join_group("t", "g", opts).expect("join");
    clock.advance(6_000_000);
    b.heartbeat().expect("ends the round");
    b.abandon();
    clock.advance(31_000_000);
    let d = store.describe_group("g").expect("describe");
    assert_eq!((d.state, d.members[0].status), (GroupPhase::Empty, MemberStatus::Stale), "{d:?}");
    clock.advance(600_000_000);
    assert_eq!(store.describe_group("g").expect("describe").members[0].status, MemberStatus::Gone);
}

#[test]
fn our_live_member_moves_to_a_reset_and_its_next_commit_keeps_it() {
    let (_dir, store, clock) = store_at(T0);
    let mut p = store.producer("t").expect("producer");
    for k in 0..40u16 {
        p.send_text(k, "x").expect("send");
    }
    let opts = GroupOptions { window: Duration::from_secs(5), ..Default::default() };
    let mut a = store.join_group("t", "g", opts).expect("join");
    clock.advance(6_000_000);
    a.heartbeat().expect("ends the round");
    let mut read = 0;
    while a.poll().expect("poll").is_some() {
        read += 1;
    }
    assert_eq!(read, 40);
    a.commit().expect("commit");
    let ends = store.end_offsets("t").expect("ends");
    let committed = |s: &Store| s.describe_group("g").expect("describe").partitions.iter().map(|p| p.committed).collect::<Vec<_>>();
    assert_eq!(committed(&store), ends.iter().map(|e| Some(i64::try_from(*e).expect("small"))).collect::<Vec<_>>());

    let plan = store.reset_group("g", twainmq::group::ResetTo::Shift(-3), Some(&[0, 1]), false).expect("reset");
    assert_eq!((plan.following.clone(), plan.overwriting.clone()), (vec![a.id()], vec![]), "{plan:?}");
    // A commit before any poll reads the reset first: it commits the reset, not its old position.
    a.commit().expect("commit");
    let after = committed(&store);
    for p in 0..2 {
        assert_eq!(after[p], Some(i64::try_from(ends[p]).expect("small") - 3), "partition {p}: {after:?}");
    }
    // And it reads those 3 messages of partitions 0 and 1 again.
    let mut again = Vec::new();
    while let Some(m) = a.poll().expect("poll") {
        again.push((m.partition, m.offset));
    }
    again.sort_unstable();
    let want: Vec<(u32, u64)> = (0..2u32).flat_map(|p| (ends[p as usize] - 3..ends[p as usize]).map(move |o| (p, o))).collect();
    assert_eq!(again, want);
    a.close().expect("close");
}

#[test]
fn lag_thresholds_name_the_partitions_over_them_and_a_skewed_stamp_is_no_age() {
    use twainmq::group::LagThresholds;
    let (_dir, store, clock) = store_at(T0);
    let mut p = store.producer("t").expect("producer");
    for k in 0..40u16 {
        p.send_text(k, "x").expect("send");
    }
    clock.advance(100_000_000);
    let d = store.describe_group("g").expect("describe");
    let lags: Vec<u64> = d.partitions.iter().map(|p| p.lag).collect();
    let max = *lags.iter().max().expect("partitions");
    let over = |t: LagThresholds, now: f64| -> Vec<u32> {
        d.lag_against(&t, now).into_iter().filter(|b| !b.over.is_empty()).map(|b| b.partition).collect()
    };
    let now = store.now_secs();
    assert_eq!(over(LagThresholds::default(), now), Vec::<u32>::new());
    assert_eq!(over(LagThresholds { max_lag: Some(max), max_age_secs: None }, now), Vec::<u32>::new());
    let want: Vec<u32> = (0..4).filter(|p| lags[*p as usize] > max - 1).collect();
    assert_eq!(over(LagThresholds { max_lag: Some(max - 1), max_age_secs: None }, now), want);
    assert_eq!(over(LagThresholds { max_lag: None, max_age_secs: Some(99.0) }, now), vec![0, 1, 2, 3]);
    assert_eq!(over(LagThresholds { max_lag: None, max_age_secs: Some(101.0) }, now), Vec::<u32>::new());
    // A reader whose clock is behind the producer's: the messages are no age at all, never negative.
    let b = d.lag_against(&LagThresholds { max_lag: None, max_age_secs: Some(0.0) }, T0 - 50.0);
    assert!(b.iter().all(|b| b.age_secs == Some(0.0) && b.over.is_empty()), "{b:?}");
}

#[test]
fn a_member_that_stops_committing_while_messages_wait_is_stale_by_its_own_rhythm() {
    let mut l = Log::new();
    l.join_023(1, T0 + 1.0, 5.0, &[]);
    l.end_and_confirm(1, T0 + 6.5);
    // It commits every second, as a busy 0.2.3 consumer does, then is killed (kill -9).
    for s in 0..10 {
        l.put(1, T0 + 7.0 + f64::from(s), Record::Commit { offsets: vec![(0, i64::from(s)), (1, i64::from(s))] });
    }
    let last = T0 + 16.0;
    let now = last + 13.0;
    // Messages wait in partition 1 since just after its last commit.
    let waiting: twainmq::group::Waiting = [(1u32, last + 0.5)].into_iter().collect();
    let live = l.log.liveness_with_waiting(now, &waiting);
    let m = &live.members[0];
    assert_eq!(m.status, MemberStatus::Stale, "{m:?}");
    assert!(m.reason.contains("no commit for 13 s, it committed every 1 s before"), "{}", m.reason);
    assert_eq!(live.state, GroupPhase::Empty, "its partitions have no live reader: {live:?}");
    // Judged by silence alone (no partition read), 13 s is within the live window.
    assert_eq!(l.status(1, now).0, MemberStatus::Live);
    // Nothing to read: a member may well not commit, and is not judged by its rhythm.
    assert_eq!(l.log.liveness_with_waiting(now, &Default::default()).members[0].status, MemberStatus::Live);
    // Messages that arrived a moment ago: it has not had the time to read them.
    let fresh: twainmq::group::Waiting = [(1u32, now - 2.0)].into_iter().collect();
    assert_eq!(l.log.liveness_with_waiting(now, &fresh).members[0].status, MemberStatus::Live);
}

#[test]
fn rounds_opened_faster_than_their_window_are_diagnosed_not_counted_down() {
    let mut l = Log::new();
    // A program restarted every 5 s: each start joins with a new id and opens a 60 s round.
    for i in 0..16u32 {
        l.join_023(i + 1, T0 + 1.0 + 5.0 * f64::from(i), 60.0, &[]);
    }
    let now = T0 + 80.0;
    let live = l.log.liveness(now);
    assert_eq!(live.state, GroupPhase::Rebalancing);
    let churn = live.round_churn.clone().expect("churn diagnosed");
    assert_eq!((churn.superseded, churn.every_secs, churn.window_secs), (15, 5.0, 60.0), "{churn:?}");
    assert_eq!(churn.by_joins, 16, "{churn:?}");
    assert!(live.reason.starts_with("no round can end: 15 rounds in a row were replaced"), "{}", live.reason);
    assert!(live.reason.contains("keeps restarting"), "{}", live.reason);
    // Members started together replace each other's rounds only for a moment: no churn.
    let mut l = Log::new();
    for i in 0..4u32 {
        l.join_023(i + 1, T0 + 1.0 + f64::from(i) * 0.2, 60.0, &[]);
    }
    let live = l.log.liveness(T0 + 30.0);
    assert_eq!(live.round_churn, None, "{live:?}");
    assert!(live.reason.contains("is open for offers"), "{}", live.reason);
}

#[test]
fn our_members_say_which_program_they_are_and_where_they_run() {
    let (_dir, store, clock) = store_at(T0);
    let client = twainmq::group::ClientInfo::this_process("twainmq-cli", "9.9.9");
    let opts = GroupOptions { window: Duration::from_secs(5), client: Some(client.clone()), ..Default::default() };
    let mut a = store.join_group("t", "g", opts).expect("join");
    clock.advance(6_000_000);
    a.heartbeat().expect("ends the round");
    let d = store.describe_group("g").expect("describe");
    let m = &d.members[0];
    assert_eq!(m.client.as_ref(), Some(&client));
    assert_eq!(client.pid, Some(std::process::id()));
    let host = client.host.clone().expect("a host name");
    assert_eq!(m.client_label(), format!("twainmq CLI 9.9.9 on {host}, pid {}", std::process::id()));
    a.close().expect("leave");
    // A 0.2.3 member writes its tag alone: it is named as 0.2.3.
    let mut l = Log::new();
    l.join_023(1, T0 + 1.0, 5.0, &[]);
    l.end_and_confirm(1, T0 + 6.5);
    assert_eq!(l.log.liveness(T0 + 7.0).members[0].client, None);
}
