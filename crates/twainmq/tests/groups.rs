//! Consumer groups in-process: the fixture's logs, live members, commits, resets.

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use twainmq::group::{GroupMember, GroupOptions, ResetTo};
use twainmq::{Key, KeyType, StartFrom, Store, TopicSpec};

fn opts(window_ms: u64) -> GroupOptions {
    GroupOptions { window: Duration::from_millis(window_ms), ..GroupOptions::default() }
}

fn setup(messages: u32) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("tmp");
    let store = Store::open(dir.path()).expect("open");
    store.create_topic("ev", &TopicSpec::new(KeyType::U32, 4)).expect("create");
    let mut p = store.producer("ev").expect("producer");
    for i in 0..messages {
        p.send_text(i, &format!("m{i}")).expect("send");
    }
    (dir, store)
}

/// Poll several members round-robin until `until` holds or time runs out; returns what each read.
fn run_until(members: &mut [&mut GroupMember], secs: f64, mut until: impl FnMut(&[&mut GroupMember]) -> bool) -> Vec<Vec<(u32, u64)>> {
    let mut seen = vec![Vec::new(); members.len()];
    let deadline = Instant::now() + Duration::from_secs_f64(secs);
    while Instant::now() < deadline {
        for (i, m) in members.iter_mut().enumerate() {
            while let Some(msg) = m.poll().expect("poll") {
                seen[i].push((msg.partition, msg.offset));
            }
        }
        if until(members) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    seen
}

#[test]
fn fixture_group_logs_decode_to_the_right_state() {
    let tmp = common::fixture_store();
    let store = Store::open(tmp.path()).expect("open");
    let expected = common::load_json("expected.json");
    // Commits: the latest per partition, folded independently from expected.json.
    let mut want_commits = BTreeMap::new();
    for rec in expected["groups"]["workers"]["partitions"]["0"].as_array().expect("records") {
        if rec["payload"]["class"] == "~~TWAIN~~COMMIT" {
            for pair in rec["payload"]["fields"]["partition_offsets"].as_array().expect("pairs") {
                want_commits.insert(pair[0].as_u64().expect("p") as u32, pair[1].as_i64().expect("o"));
            }
        }
    }
    let log = store.group_log("workers").expect("log");
    assert_eq!(log.commits, want_commits);
    // After member 2 left, the last round gave everything back to member 1.
    let want: Vec<u32> = serde_json::from_value(expected["assignment_after_leave"]["c1"].clone()).expect("c1");
    assert_eq!(log.members(), BTreeMap::from([(1, want)]));
    assert!(log.open_round().is_none());
    // The middle round split the partitions as both members confirmed.
    let split = log.rounds.iter().find(|r| r.assignment.len() == 2).expect("a two-member round");
    assert_eq!(split.assignment[&1], vec![0, 2]);
    assert_eq!(split.assignment[&2], vec![1, 3]);
    assert_eq!(split.confirms, split.assignment);
    let d = store.describe_group("workers").expect("describe");
    assert_eq!(d.topic.as_deref(), Some("events"));
    assert_eq!(d.lag["0"], 56 - 7);
    // `tail` was created with start_from "now": -1 commits, zero lag.
    let tail = store.describe_group("tail").expect("describe");
    assert!(tail.committed.values().all(|o| *o == -1));
    assert!(tail.lag.values().all(|l| *l == 0));
}

#[test]
fn two_members_split_then_one_dies_and_the_other_takes_everything() {
    let (_d, store) = setup(400);
    let mut a = GroupMember::join(&store, "ev", "g", opts(300)).expect("join a");
    let mut b = GroupMember::join(&store, "ev", "g", opts(300)).expect("join b");
    assert_ne!(a.id(), b.id());
    let seen = run_until(&mut [&mut a, &mut b], 10.0, |ms| ms.iter().all(|m| !m.assignment().is_empty() && m.round_open_until().is_none()));
    let (pa, pb) = (a.assignment().to_vec(), b.assignment().to_vec());
    let mut all: Vec<u32> = pa.iter().chain(&pb).copied().collect();
    all.sort();
    assert_eq!(all, vec![0, 1, 2, 3], "each partition owned exactly once: {pa:?} {pb:?}");
    assert_eq!(pa.len(), 2);
    let seen = run_until(&mut [&mut a, &mut b], 2.0, |_| false).into_iter().zip(seen).map(|(x, y)| [x, y].concat()).collect::<Vec<_>>();
    assert_eq!(seen[0].len() + seen[1].len(), 400, "every message read once");
    a.commit().expect("commit");
    b.commit().expect("commit");
    // b dies without a word; a new round moves its partitions to a.
    b.abandon();
    let mut p = store.producer("ev").expect("producer");
    for i in 400..500u32 {
        p.send_text(i, "late").expect("send");
    }
    a.trigger_round().expect("round");
    let more = run_until(&mut [&mut a], 10.0, |ms| ms[0].assignment().len() == 4 && ms[0].round_open_until().is_none());
    assert_eq!(a.assignment(), &[0, 1, 2, 3]);
    let more = [more.concat(), run_until(&mut [&mut a], 1.0, |_| false).concat()].concat();
    assert_eq!(more.len(), 100, "only the new messages: b's committed range is not read again");
    a.close().expect("close");
    // A member joining later resumes from the commits: nothing left.
    let mut c = GroupMember::join(&store, "ev", "g", opts(200)).expect("join c");
    let rest = run_until(&mut [&mut c], 5.0, |ms| ms[0].assignment().len() == 4 && ms[0].round_open_until().is_none());
    let rest = [rest.concat(), run_until(&mut [&mut c], 0.5, |_| false).concat()].concat();
    assert!(rest.is_empty(), "resumed from commits, read {rest:?}");
    c.close().expect("close");
}

#[test]
fn a_group_started_now_begins_at_the_end() {
    let (_d, store) = setup(50);
    let o = GroupOptions { start_from: StartFrom::Now, ..opts(200) };
    let mut m = GroupMember::join(&store, "ev", "fresh", o).expect("join");
    run_until(&mut [&mut m], 5.0, |ms| ms[0].assignment().len() == 4);
    let mut p = store.producer("ev").expect("producer");
    p.send_text(7u32, "new").expect("send");
    let seen = run_until(&mut [&mut m], 1.0, |_| false).concat();
    assert_eq!(seen.len(), 1, "only the message written after joining");
    let log = store.group_log("fresh").expect("log");
    assert_eq!(log.commits.values().copied().collect::<Vec<_>>(), vec![-1, -1, -1, -1]);
    // The group records its topic; joining it for another topic is refused.
    store.create_topic("other", &TopicSpec::new(KeyType::U32, 4)).expect("create");
    let err = GroupMember::join(&store, "other", "fresh", opts(100)).expect_err("wrong topic");
    assert_eq!(err.code(), "group_topic_mismatch");
    m.close().expect("close");
}

#[test]
fn resets_to_each_target_and_dry_run() {
    let (_d, store) = setup(200);
    let mut m = GroupMember::join(&store, "ev", "r", opts(100)).expect("join");
    run_until(&mut [&mut m], 5.0, |ms| ms[0].assignment().len() == 4 && ms[0].round_open_until().is_none());
    run_until(&mut [&mut m], 0.3, |_| false);
    m.close().expect("close");
    let ends = store.end_offsets("ev").expect("ends");
    let commits = |s: &Store| s.group_log("r").expect("log").commits;
    assert_eq!(commits(&store).values().map(|o| *o as u64).collect::<Vec<_>>(), ends);

    let plan = store.reset_group("r", ResetTo::Earliest, None, true).expect("dry run");
    assert!(plan.rows.iter().all(|r| r.after == 0 && r.before == Some(r.end as i64)));
    assert_eq!(commits(&store).values().map(|o| *o as u64).collect::<Vec<_>>(), ends, "dry run wrote nothing");

    store.reset_group("r", ResetTo::Earliest, None, false).expect("reset");
    assert!(commits(&store).values().all(|o| *o == 0));
    store.reset_group("r", ResetTo::Offset(5), Some(&[2]), false).expect("reset");
    assert_eq!(commits(&store)[&2], 5);
    assert_eq!(commits(&store)[&1], 0);
    store.reset_group("r", ResetTo::Latest, Some(&[1]), false).expect("reset");
    assert_eq!(commits(&store)[&1] as u64, ends[1]);
    let err = store.reset_group("r", ResetTo::Latest, Some(&[9]), false).expect_err("no partition 9");
    assert_eq!(err.code(), "partition_out_of_range");

    // Time: the first message at or after t.
    let mut r = store.partition_reader("ev", 3, StartFrom::Start).expect("reader");
    let msgs: Vec<_> = std::iter::from_fn(|| r.poll().expect("poll")).collect();
    let t = msgs[10].timestamp;
    store.reset_group("r", ResetTo::Time(t), Some(&[3]), false).expect("reset");
    let first_at = msgs.iter().position(|m| m.timestamp >= t).expect("some") as i64;
    assert_eq!(commits(&store)[&3], first_at);
    store.reset_group("r", ResetTo::Time(4e9), Some(&[3]), false).expect("reset");
    assert_eq!(commits(&store)[&3] as u64, ends[3]);

    // A member joining now starts where the reset says.
    let mut m = GroupMember::join(&store, "ev", "r", opts(100)).expect("join");
    let seen = run_until(&mut [&mut m], 5.0, |ms| ms[0].assignment().len() == 4 && ms[0].round_open_until().is_none());
    let seen = [seen.concat(), run_until(&mut [&mut m], 0.5, |_| false).concat()].concat();
    let from2: Vec<u64> = seen.iter().filter(|(p, _)| *p == 2).map(|(_, o)| *o).collect();
    assert_eq!(from2.first(), Some(&5));
    assert!(seen.iter().all(|(p, _)| *p != 1 && *p != 3), "partitions 1 and 3 were reset to their end");
    m.close().expect("close");

    assert!(ResetTo::parse("time:2026-11-29T12:00:00Z").is_ok());
    assert!(ResetTo::parse("offset:x").is_err());
    assert!(ResetTo::parse("sideways").is_err());
    let _ = Key::Int(0);
}

#[test]
#[cfg_attr(
    windows,
    ignore = "real Windows only (the release workflow runs it): it removes by hand a folder whose files this process holds open; Windows' POSIX deletes allow that, Wine's classic deletes leave the names until closed (remove_dir_all: directory not empty)"
)]
fn a_group_deleted_and_made_again_by_another_process_is_read_afresh() {
    let (d, store) = setup(50);
    store.ensure_group("ev", "g", StartFrom::Start).expect("ensure");
    for to in [ResetTo::Offset(5), ResetTo::Offset(9), ResetTo::Latest] {
        store.reset_group("g", to, None, false).expect("reset");
    }
    let before = store.group_log("g").expect("log");
    assert_eq!(before.records, 4);
    assert!(before.commits.values().all(|&c| c >= 9), "{:?}", before.commits);

    // Another process removes the group (as 0.2.3's users do, by hand) and a
    // new one of the same name starts at the end: fewer records, other commits.
    std::fs::remove_file(d.path().join("--group--g.twc")).expect("rm config");
    std::fs::remove_dir_all(d.path().join("--group--g")).expect("rm dir");
    let other = Store::open(d.path()).expect("open again");
    other.ensure_group("ev", "g", StartFrom::Now).expect("ensure again");
    let after = store.group_log("g").expect("log after");
    assert_eq!(after.records, 1, "the old group's records are gone");
    assert_eq!(after.commits.values().copied().collect::<Vec<_>>(), vec![-1, -1, -1, -1]);
}

/// A file `groups export` wrote names its group and topic: applied to a group
/// of another topic it is refused; to another group of the same topic it is
/// taken, and the plan says whose offsets they are.
#[test]
fn an_offsets_file_of_another_topic_is_refused_and_of_another_group_named() {
    let (_d, store) = setup(40);
    store.create_topic("other", &TopicSpec::new(KeyType::U32, 4)).expect("create");
    store.ensure_group("ev", "g1", StartFrom::Start).expect("g1");
    store.ensure_group("ev", "g2", StartFrom::Start).expect("g2");
    store.ensure_group("other", "h", StartFrom::Start).expect("h");
    store.reset_group("g1", ResetTo::Offset(3), None, false).expect("reset");
    let file = twainmq::group::parse_offsets_file(br#"{"group": "g1", "topic": "ev", "offsets": {"0": 3, "1": 3, "2": 3, "3": 3}}"#)
        .expect("file");
    let e = store.reset_group("h", ResetTo::File(file.clone()), None, true).expect_err("another topic");
    assert_eq!(e.code(), "group_other_topic", "{e}");
    let plan = store.reset_group("g2", ResetTo::File(file.clone()), None, false).expect("same topic");
    assert_eq!(plan.from_group.as_deref(), Some("g1"));
    assert!(plan.rows.iter().all(|r| r.after == 3));
    let own = store.reset_group("g1", ResetTo::File(file), None, true).expect("its own");
    assert_eq!(own.from_group, None);
}

/// A `COMMIT` of an offset below -1 (written by another program: -1 is the
/// only negative offset the protocol has) is no position: 0.2.3 raises taking
/// the partition, and reading it as "the end" skipped every message after the
/// commit before it. It is passed over (the commit before it stands), and
/// `check` names it with what to do.
#[test]
fn a_commit_below_minus_one_is_passed_over_and_named() {
    let (_d, store) = setup(40);
    store.ensure_group("ev", "g", StartFrom::Start).expect("group");
    let ends = store.end_offsets("ev").expect("ends");
    let p = (0..4u32).find(|p| ends[*p as usize] >= 3).expect("a partition with 3 messages");
    store.reset_group("g", ResetTo::Offset(2), Some(&[p]), false).expect("commit 2");
    // Another program's commit under its own key, appended to the group log.
    let mut raw = vec![0xFB, 0, 6];
    raw.extend_from_slice(format!(r#"{{"partition_offsets":[[{p},-7]]}}"#).as_bytes());
    let mut line = Vec::new();
    twainmq::internals::line::Codec::default().encode_line(KeyType::U32, &Key::Int(9), 1.8e9, &raw, &mut line).expect("line");
    let log_dir = store.root().join("--group--g");
    let file = std::fs::read_dir(&log_dir).expect("list").flatten().map(|e| e.path()).max().expect("the group log file");
    std::io::Write::write_all(&mut std::fs::OpenOptions::new().append(true).open(&file).expect("open"), &line).expect("append");
    assert_eq!(store.group_log("g").expect("log").commits.get(&p), Some(&2), "the commit before it stands");
    let mut m = GroupMember::join(&store, "ev", "g", opts(200)).expect("join");
    let seen = run_until(&mut [&mut m], 5.0, |ms| ms[0].assignment().len() == 4);
    let mine: Vec<u64> = seen.concat().into_iter().filter(|(q, _)| *q == p).map(|(_, o)| o).collect();
    assert_eq!(mine.first(), Some(&2), "read from the commit before it, not the end: {mine:?}");
    m.close().expect("close");
    let problems = twainmq::check::check_store(&store).expect("check");
    let bad: Vec<_> = problems.iter().filter(|q| q.kind == "bad_commit").collect();
    assert_eq!(bad.len(), 1, "{problems:?}");
    assert!(bad[0].message.contains("-7") && bad[0].message.contains("groups reset"), "{}", bad[0].message);
}
