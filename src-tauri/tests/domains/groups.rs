//! The groups' service on real stores: descriptions and dry-run resets, and the demo members.

use twainmq::Store;
use twainmq_desktop::groups::members::Members;
use twainmq_desktop::groups::service as groups;
use twainmq_desktop::groups::wire::{DemoMember, MemberStatus};
use twainmq_desktop::groups::wire_reset::{ResetRequest, ResetTarget};
use twainmq_desktop::messages::service as messages;
use twainmq_desktop::topics::service as topics;
use twainmq_desktop::topics::wire::NewTopic;
use twainmq_desktop::wire::{Commit, Count, ErrorCode, Handle, Offset};

use crate::common::{fixture, key_text, text};

#[test]
fn groups_are_described_and_reset_through_dry_runs() {
    let (_d, store) = fixture();
    let g = groups::describe_group(&store, "workers", None).expect("describe");
    assert_eq!(g.topic.as_deref(), Some("events"));
    assert_eq!(g.members.len(), 1);
    assert_eq!(g.members[0].partitions, vec![0, 1, 2, 3]);
    assert_eq!(g.partitions[0].committed, Some(Commit(7)));
    assert_eq!(g.partitions[0].lag, Count(49));
    assert!(g.partitions[0].oldest_unconsumed_at.is_some());
    assert!(g.rounds.len() >= 3 && g.rounds[0].started_at >= g.rounds[g.rounds.len() - 1].started_at, "newest first");
    let req = |to: ResetTarget, dry: bool| ResetRequest {
        to,
        offset: Some(Offset(3)),
        time: None,
        shift: None,
        ago_secs: None,
        other_group: None,
        offsets: None,
        file_group: None,
        file_topic: None,
        partitions: Some(vec![0, 2]),
        dry_run: dry,
        topic: None,
    };
    let plan = groups::reset_group(&store, "workers", &req(ResetTarget::Offset, true)).expect("dry run");
    assert!(!plan.applied);
    assert_eq!(
        plan.rows.iter().map(|r| (r.partition, r.before, r.after)).collect::<Vec<_>>(),
        vec![(0, Some(Commit(7)), Offset(3)), (2, Some(Commit(25)), Offset(3))]
    );
    assert_eq!(plan.live_members, vec![1]);
    assert_eq!(
        groups::describe_group(&store, "workers", None).expect("d").partitions[0].committed,
        Some(Commit(7)),
        "dry run wrote nothing"
    );
    let plan = groups::reset_group(&store, "workers", &req(ResetTarget::Offset, false)).expect("apply");
    assert!(plan.applied);
    assert_eq!(groups::describe_group(&store, "workers", None).expect("d").partitions[2].committed, Some(Commit(3)));
    let no_time = ResetRequest { time: None, ..req(ResetTarget::Time, true) };
    assert_eq!(groups::reset_group(&store, "workers", &no_time).expect_err("bad").code, "invalid_reset");
    let no_offset = ResetRequest { offset: None, ..req(ResetTarget::Offset, true) };
    assert_eq!(groups::reset_group(&store, "workers", &no_offset).expect_err("bad").code, "invalid_offset");
    assert!(serde_json::from_str::<ResetTarget>("\"sideways\"").is_err(), "not a reset target");
    assert_eq!(groups::describe_group(&store, "nope", None).expect_err("missing").code, "group_not_found");
}

/// Wait up to `secs` for `cond`, saying what never happened.
fn wait_for<T>(what: &str, secs: u64, mut cond: impl FnMut() -> Option<T>) -> T {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        if let Some(v) = cond() {
            return v;
        }
        assert!(std::time::Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

fn member(members: &Members, handle: Handle) -> DemoMember {
    members.list().into_iter().find(|m| m.handle == handle).expect("member listed")
}

/// Committed offsets of a group, per partition (None: no commit).
fn committed(store: &Store, group: &str, topic: &str) -> Vec<Option<Commit>> {
    groups::describe_group(store, group, Some(topic)).expect("describe group").partitions.into_iter().map(|p| p.committed).collect()
}

/// Demo members joined real groups with live external consumers, unasked, and
/// took their partitions. A group with members this app did not start is refused, saying what
/// the demo would do; a group of the demo's own (or its own members) is not.
#[test]
fn demo_members_stay_out_of_groups_with_other_members_unless_asked() {
    let (_d, store) = fixture();
    let members = Members::default();
    members.check_group_free(&store, "fresh").expect("a group that does not exist yet is free");
    let opts = twainmq::group::GroupOptions { window: std::time::Duration::from_millis(200), ..Default::default() };
    let mut outside = twainmq::group::GroupMember::join(&store, "events", "real", opts).expect("an outside consumer joins");
    let _ = outside.poll();
    let e = members.check_group_free(&store, "real").expect_err("refused");
    assert_eq!(e.code, ErrorCode::GroupInUse);
    assert!(e.message.contains(&format!("m{}", outside.id())) && e.message.contains("never process"), "{}", e.message);
    // Our own members do not make a group busy.
    let h = members.start(&store, "events", "demo", 300, 0).expect("start");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while members.list().iter().any(|m| m.member_id == 0) {
        assert!(std::time::Instant::now() < deadline, "never joined");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    members.check_group_free(&store, "demo").expect("only our member is in it");
    // Killed, it is still in the log (stale until its silence makes it gone), and still ours:
    // listed, or cleared from the list.
    members.stop(h, true).expect("kill");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while members.list().iter().any(|m| m.status == MemberStatus::Running) {
        assert!(std::time::Instant::now() < deadline, "never killed");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(store.describe_group("demo").expect("d").members.iter().any(|m| m.status != twainmq::group::MemberStatus::Gone));
    members.check_group_free(&store, "demo").expect("a killed member of ours is ours");
    members.clear_stopped();
    members.check_group_free(&store, "demo").expect("and so once cleared from the list");
    drop(outside);
}

#[test]
fn demo_members_split_partitions_and_take_over_when_one_is_killed() {
    let (_d, store) = fixture();
    let members = Members::default();
    let a = members.start(&store, "events", "demo", 300, 0).expect("a");
    let b = members.start(&store, "events", "demo", 300, 0).expect("b");
    let settled = |want: usize| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let list = members.list();
            let mut parts: Vec<u32> = list.iter().flat_map(|m| m.partitions.clone()).collect();
            parts.sort();
            let holders = list.iter().filter(|m| !m.partitions.is_empty()).count();
            if parts == vec![0, 1, 2, 3] && holders == want {
                return list;
            }
            assert!(std::time::Instant::now() < deadline, "never settled on {want} members: {list:?}");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    };
    let list = settled(2);
    assert!(list.iter().all(|m| m.partitions.len() == 2 && m.status == MemberStatus::Running));
    members.stop(b, true).expect("kill");
    // The survivor's periodic round moves the dead member's partitions to it.
    let list = settled(1);
    let survivor = list.iter().find(|m| m.handle == a).expect("a");
    assert_eq!(survivor.partitions, vec![0, 1, 2, 3]);
    assert_eq!(list.iter().find(|m| m.handle == b).expect("b").status, MemberStatus::Killed);
    members.stop_all();
    assert!(members.list().iter().all(|m| m.partitions.is_empty()));
}

#[test]
#[cfg_attr(
    windows,
    ignore = "real Windows only (the release workflow runs it): it removes by hand a folder whose files this process holds open; Windows' POSIX deletes allow that, Wine's classic deletes leave the names until closed (remove_dir_all: directory not empty)"
)]
fn a_demo_member_whose_topic_is_deleted_stops_without_committing() {
    let (d, store) = fixture();
    let members = Members::default();
    // 20 msg/s: the member is still reading the topic's 240 messages when it goes.
    let h = members.start(&store, "events", "demo", 300, 20).expect("start");
    wait_for("the member to read some messages", 30, || {
        let m = member(&members, h);
        (m.status == MemberStatus::Running && m.consumed.get() >= 10).then_some(())
    });
    // Deleted as 0.2.3 deletes a topic: its folder goes, its config and the group stay.
    std::fs::remove_dir_all(d.path().join("events")).expect("rm");
    let before = committed(&store, "demo", "events");
    let m = wait_for("the member to stop", 10, || {
        let m = member(&members, h);
        (m.status != MemberStatus::Running).then_some(m)
    });
    let problem = m.problem.clone().unwrap_or_default();
    assert!(
        m.status == MemberStatus::Failed
            && problem.starts_with("topic \"events\" was deleted or made again by another process")
            && problem.contains("without committing"),
        "{m:?}"
    );
    assert!(m.partitions.is_empty());
    let consumed = m.consumed;
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(member(&members, h).consumed, consumed, "it reads nothing more");
    assert_eq!(committed(&store, "demo", "events"), before, "no commit after the topic went");
    members.stop(h, false).expect("stop a stopped member");
    assert_eq!(committed(&store, "demo", "events"), before, "stopping it afterwards commits nothing either");
}

#[test]
fn a_demo_member_whose_topic_and_group_are_deleted_stops_and_writes_nothing_more() {
    let (d, store) = fixture();
    let members = Members::default();
    let h = members.start(&store, "events", "demo", 300, 20).expect("start");
    wait_for("the member to read", 30, || (member(&members, h).consumed.get() >= 5).then_some(()));
    let deleted = topics::delete_topic(&store, "events", "events").expect("delete");
    assert!(deleted.groups.contains(&"demo".to_string()), "{deleted:?}");
    let m = wait_for("the member to stop", 10, || {
        let m = member(&members, h);
        (m.status != MemberStatus::Running).then_some(m)
    });
    let problem = m.problem.clone().unwrap_or_default();
    assert_eq!(m.status, MemberStatus::Failed, "{m:?}");
    assert!(problem.starts_with("group \"demo\" was deleted") || problem.starts_with("topic \"events\" was deleted"), "{problem}");
    assert!(problem.contains("without committing"), "{problem}");
    // Nothing was written into the deleted group: it is not there again.
    std::thread::sleep(std::time::Duration::from_millis(400));
    assert!(!d.path().join("--group--demo").exists() && !d.path().join("--group--demo.twc").exists());
    assert!(!store.list_groups().expect("groups").contains(&"demo".to_string()));

    // Made again, the topic's new group starts at its start: nothing skipped.
    let t = NewTopic { name: "events".into(), key_type: "u16".into(), partitions: 4, message_types: vec![], max_message_bytes: None };
    topics::create_topic(&store, &t).expect("create");
    for i in 0..10 {
        messages::produce(&store, "events", &key_text(&i.to_string()), &text("new")).expect("produce");
    }
    let h2 = members.start(&store, "events", "demo", 300, 0).expect("start again");
    wait_for("the new member to read the new topic", 30, || (member(&members, h2).consumed == Count(10)).then_some(()));
    members.stop_all();
}

#[test]
fn stopping_a_demo_member_commits_exactly_what_it_read() {
    let (_d, store) = fixture();
    let members = Members::default();
    // 40 msg/s and commits every 50: stopped before its first periodic commit.
    let h = members.start(&store, "events", "demo", 300, 40).expect("start");
    wait_for("the member to read", 30, || (member(&members, h).consumed.get() >= 20).then_some(()));
    members.stop(h, false).expect("stop");
    let m = member(&members, h);
    assert_eq!(m.status, MemberStatus::Stopped);
    let consumed = m.consumed.get();
    assert!(consumed < 240, "still reading when stopped: {consumed}");
    let sum: i64 = committed(&store, "demo", "events").iter().map(|c| c.map_or(0, Commit::get)).sum();
    assert_eq!(u64::try_from(sum).expect("positive"), consumed, "the commit covers what it read, no more, no less");
}
