//! The groups' lag over a named span, lag checks against alert thresholds, every reset mode
//! through the wire's request, offsets files (export / import) and deleting a group, on real stores.

use std::collections::BTreeMap;
use std::sync::Arc;

use twainmq::{ManualClock, StartFrom, Store};
use twainmq_desktop::groups::service as groups;
use twainmq_desktop::groups::wire_lag::{HistorySpan, LagAlertThresholds, LagMarkKind};
use twainmq_desktop::groups::wire_reset::{ResetRequest, ResetTarget};
use twainmq_desktop::messages::service as messages;
use twainmq_desktop::messages::wire::{KeyInput, ProduceKind, ProducePayload};
use twainmq_desktop::topics::service as topics;
use twainmq_desktop::topics::wire::NewTopic;
use twainmq_desktop::wire::{Commit, Count, Delta, ErrorCode, Offset};

/// 2026-11-30 00:00 UTC.
const T0: f64 = 1_796_000_000.0;

fn micros(t: f64) -> i64 {
    (t * 1e6) as i64
}

/// A store on a manual clock with topic `jobs` (2 partitions) and group `g` on it.
fn store() -> (tempfile::TempDir, Store, ManualClock) {
    let tmp = tempfile::tempdir().expect("tmp");
    let clock = ManualClock::new(micros(T0));
    let store = Store::open_or_create(tmp.path()).expect("store").with_clock(Arc::new(clock.clone()));
    let t = NewTopic { name: "jobs".into(), key_type: "u16".into(), partitions: 2, message_types: vec![], max_message_bytes: None };
    topics::create_topic(&store, &t).expect("topic");
    store.ensure_group("jobs", "g", StartFrom::Start).expect("group");
    (tmp, store, clock)
}

fn produce(store: &Store, key: &str, n: usize) {
    let body = ProducePayload { kind: ProduceKind::Text, body: "x".into(), class: None, file: None };
    for _ in 0..n {
        messages::produce(store, "jobs", &KeyInput::Text { text: key.into() }, &body).expect("produce");
    }
}

fn request(to: ResetTarget, dry_run: bool) -> ResetRequest {
    ResetRequest {
        to,
        offset: None,
        time: None,
        shift: None,
        ago_secs: None,
        other_group: None,
        offsets: None,
        file_group: None,
        file_topic: None,
        partitions: None,
        dry_run,
        topic: None,
    }
}

fn committed(store: &Store, group: &str) -> Vec<Option<Commit>> {
    groups::describe_group(store, group, None).expect("describe").partitions.into_iter().map(|p| p.committed).collect()
}

/// Messages on both partitions (keys 0 and 1 land on different ones here, checked).
fn both_partitions(store: &Store, per_key: usize) {
    produce(store, "0", per_key);
    produce(store, "1", per_key);
    let ends: Vec<Offset> = groups::describe_group(store, "g", None).expect("d").partitions.iter().map(|p| p.end).collect();
    assert!(ends.iter().all(|e| e.get() > 0), "both partitions got messages: {ends:?}");
}

#[test]
fn the_history_of_a_day_sums_its_partitions_and_marks_resets() {
    let (_d, store, clock) = store();
    // Traffic along a day, and a reset to the end at noon.
    for hour in 0..24 {
        clock.set(micros(T0 + f64::from(hour) * 3600.0));
        both_partitions(&store, 2);
        if hour == 12 {
            groups::reset_group(&store, "g", &request(ResetTarget::Latest, false)).expect("reset");
        }
    }
    clock.set(micros(T0 + 86_400.0));
    let h = groups::lag_history(&store, "g", HistorySpan::Day, store.now_secs()).expect("history");
    assert_eq!((h.from, h.to, h.span), (T0, T0 + 86_400.0, HistorySpan::Day));
    assert_eq!(h.total.len(), groups::HISTORY_BUCKETS as usize);
    assert_eq!(h.partitions.len(), 2);
    for (i, pt) in h.total.iter().enumerate() {
        let sum: u64 = h.partitions.iter().map(|p| p.points[i].lag.get()).sum();
        assert_eq!(pt.lag.get(), sum, "point {i}");
    }
    // Before noon the lag grows (nothing committed), after the reset it starts over.
    let at = |t: f64| h.total.iter().find(|p| p.at >= t).expect("a point").lag.get();
    assert!(at(T0 + 11.9 * 3600.0) > at(T0 + 2.0 * 3600.0));
    assert!(at(T0 + 12.2 * 3600.0) < at(T0 + 11.9 * 3600.0), "the reset dropped the lag");
    assert_eq!(h.total.last().expect("last").lag.get(), 4 * 11, "the 11 hours after the reset, 4 messages each");
    let resets: Vec<_> = h.marks.iter().filter(|m| m.kind == LagMarkKind::Reset).collect();
    assert_eq!(resets.len(), 1, "{:?}", h.marks);
    assert_eq!(resets[0].at, T0 + 12.0 * 3600.0);

    // An hour is the last hour; "all" starts at the group's first record (here: its creation, no join: the last hour before it).
    let hour = groups::lag_history(&store, "g", HistorySpan::Hour, store.now_secs()).expect("hour");
    assert_eq!(hour.from, T0 + 86_400.0 - 3600.0);
    assert_eq!(
        groups::lag_history(&store, "nope", HistorySpan::Day, store.now_secs()).expect_err("no group").code,
        ErrorCode::GroupNotFound
    );
}

#[test]
fn lag_checks_say_which_partitions_are_over_and_why() {
    let (_d, store, clock) = store();
    both_partitions(&store, 3);
    clock.advance(micros(600.0));
    let t = |lag: Option<u64>, age: Option<f64>| LagAlertThresholds { max_lag: lag.map(Count), max_age_secs: age };
    let within = groups::lag_check(&store, "g", &t(Some(3), Some(601.0))).expect("check");
    assert!(within.over.is_empty(), "{within:?}");
    assert_eq!(within.total_lag, Count(6));
    assert_eq!(within.oldest_age_secs, Some(600.0));
    let over = groups::lag_check(&store, "g", &t(Some(2), None)).expect("check");
    assert_eq!(over.over.iter().map(|b| (b.partition, b.over.clone())).collect::<Vec<_>>().len(), 2);
    assert!(over.over.iter().all(|b| b.over == vec!["max_lag".to_string()] && b.lag == Count(3)));
    let old = groups::lag_check(&store, "g", &t(None, Some(599.0))).expect("check");
    assert!(old.over.iter().all(|b| b.over == vec!["max_age".to_string()]) && old.over.len() == 2);
    // No thresholds: never over. A negative age is refused, saying why.
    assert!(groups::lag_check(&store, "g", &t(None, None)).expect("check").over.is_empty());
    let bad = groups::lag_check(&store, "g", &t(None, Some(-1.0))).expect_err("negative");
    assert_eq!(bad.code, ErrorCode::InvalidThreshold);
    // Committed up to the end: within again.
    groups::reset_group(&store, "g", &request(ResetTarget::Latest, false)).expect("reset");
    assert!(groups::lag_check(&store, "g", &t(Some(0), Some(0.0))).expect("check").over.is_empty());
}

#[test]
fn every_reset_mode_travels_and_missing_fields_say_what_is_needed() {
    let (_d, store, clock) = store();
    both_partitions(&store, 10);
    clock.advance(micros(3600.0));
    both_partitions(&store, 5);
    groups::reset_group(&store, "g", &request(ResetTarget::Offset, false)).expect_err("offset needs the offset");
    let mut r = request(ResetTarget::Latest, false);
    groups::reset_group(&store, "g", &r).expect("latest");
    let ends = committed(&store, "g");

    // Shift back 4 (a dry run changes nothing, then applied).
    r = request(ResetTarget::Shift, true);
    r.shift = Some(Delta(-4));
    let plan = groups::reset_group(&store, "g", &r).expect("shift dry run");
    assert!(!plan.applied && plan.rows.iter().all(|row| row.after.get() + 4 == row.end.get()));
    assert_eq!(committed(&store, "g"), ends, "a dry run writes nothing");
    r.dry_run = false;
    groups::reset_group(&store, "g", &r).expect("shift");
    let shifted: Vec<i64> = committed(&store, "g").iter().map(|c| c.expect("commit").get()).collect();
    assert_eq!(shifted, ends.iter().map(|c| c.expect("c").get() - 4).collect::<Vec<_>>());

    // 30 minutes ago: the messages of the last hour's batch only.
    r = request(ResetTarget::Ago, false);
    r.ago_secs = Some(1800.0);
    let plan = groups::reset_group(&store, "g", &r).expect("ago");
    assert!(plan.rows.iter().all(|row| row.end.get() - row.after.get() == 5), "{plan:?}");

    // Another group's offsets, and an import of offsets (checked like a file).
    store.ensure_group("jobs", "other", StartFrom::Start).expect("other");
    let mut at3 = request(ResetTarget::Offset, false);
    at3.offset = Some(Offset(3));
    groups::reset_group(&store, "other", &at3).expect("other at 3");
    r = request(ResetTarget::Group, false);
    groups::reset_group(&store, "g", &r).expect_err("needs the group");
    r.other_group = Some("other".into());
    groups::reset_group(&store, "g", &r).expect("group");
    assert_eq!(committed(&store, "g"), vec![Some(Commit(3)); 2]);
    assert_eq!(committed(&store, "other"), vec![Some(Commit(3)); 2]);
    r = request(ResetTarget::Offsets, false);
    assert_eq!(groups::reset_group(&store, "g", &r).expect_err("no offsets").code, ErrorCode::InvalidOffsets);
    for bad in [BTreeMap::from([("x".to_string(), Commit(1))]), BTreeMap::from([("0".to_string(), Commit(-2))]), BTreeMap::new()] {
        r.offsets = Some(bad);
        assert_eq!(groups::reset_group(&store, "g", &r).expect_err("bad").code, ErrorCode::InvalidOffsets);
    }
    r.offsets = Some(BTreeMap::from([("1".to_string(), Commit(2))]));
    groups::reset_group(&store, "g", &r).expect("offsets");
    assert_eq!(committed(&store, "g")[1], Some(Commit(2)));
    r.offsets = Some(BTreeMap::from([("7".to_string(), Commit(2))]));
    assert_eq!(groups::reset_group(&store, "g", &r).expect_err("no partition 7").code, ErrorCode::PartitionOutOfRange);
}

#[test]
fn exported_offsets_import_back_and_bad_files_are_refused() {
    let (d, store, _clock) = store();
    both_partitions(&store, 6);
    let mut r = request(ResetTarget::Offset, false);
    r.offset = Some(Offset(2));
    groups::reset_group(&store, "g", &r).expect("reset");
    let before = committed(&store, "g");

    let file = d.path().join("out").join("g-offsets.json");
    std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
    groups::export_to(&store, "g", &file).expect("export");
    let text = std::fs::read_to_string(&file).expect("read");
    assert_eq!(text, "{\"group\":\"g\",\"topic\":\"jobs\",\"offsets\":{\"0\":2,\"1\":2}}\n", "the CLI's format");
    let read = groups::read_offsets_file(&file).expect("import");
    assert_eq!((read.group.as_deref(), read.topic.as_deref()), (Some("g"), Some("jobs")));

    groups::reset_group(&store, "g", &request(ResetTarget::Earliest, false)).expect("move away");
    let mut imp = request(ResetTarget::Offsets, true);
    imp.offsets = Some(read.offsets);
    let plan = groups::reset_group(&store, "g", &imp).expect("dry run");
    assert!(plan.rows.iter().all(|row| row.after == Offset(2)));
    imp.dry_run = false;
    groups::reset_group(&store, "g", &imp).expect("apply");
    assert_eq!(committed(&store, "g"), before, "round trip");

    let bad = |name: &str, body: &[u8]| {
        let p = d.path().join(name);
        std::fs::write(&p, body).expect("write");
        groups::read_offsets_file(&p).expect_err(name)
    };
    assert_eq!(bad("a.json", b"not json").code, ErrorCode::InvalidOffsets);
    assert_eq!(bad("b.json", br#"{"offsets":{"0":-2}}"#).code, ErrorCode::InvalidOffsets);
    assert!(bad("c.json", br#"{"offsets":{"x":1}}"#).message.contains("c.json"), "names the file");
    assert_eq!(groups::read_offsets_file(d.path()).expect_err("a folder").code, ErrorCode::NotAFile);
    assert_eq!(groups::read_offsets_file(&d.path().join("missing.json")).expect_err("missing").code, ErrorCode::Io);
}

/// Offsets from a file past a partition's end were clamped without a word, and
/// a file of another topic was applied. The row says what was asked and where it went; a file
/// naming another topic is refused; one of another group is named in the plan.
#[test]
fn offsets_from_a_file_say_when_they_were_clamped_and_whose_they_are() {
    let (_d, store, _clock) = store();
    both_partitions(&store, 6);
    let ends: Vec<Offset> = groups::describe_group(&store, "g", None).expect("d").partitions.iter().map(|p| p.end).collect();
    let mut imp = request(ResetTarget::Offsets, true);
    imp.offsets = Some(BTreeMap::from([("0".to_string(), Commit(900)), ("1".to_string(), Commit(1))]));
    imp.file_group = Some("other".into());
    imp.file_topic = Some("jobs".into());
    let plan = groups::reset_group(&store, "g", &imp).expect("dry run");
    assert_eq!(plan.rows[0].after, ends[0], "past the end: the end");
    assert_eq!(plan.rows[0].clamped_from, Some(Offset(900)), "and the row says so");
    assert_eq!((plan.rows[1].after, plan.rows[1].clamped_from), (Offset(1), None), "within the partition: as asked");
    assert_eq!(plan.from_group.as_deref(), Some("other"));
    imp.file_topic = Some("elsewhere".into());
    assert_eq!(groups::reset_group(&store, "g", &imp).expect_err("another topic").code, ErrorCode::GroupOtherTopic);
    // A single offset past the end says so too.
    let mut one = request(ResetTarget::Offset, true);
    one.offset = Some(Offset(10_000));
    let plan = groups::reset_group(&store, "g", &one).expect("dry run");
    assert!(plan.rows.iter().all(|r| r.clamped_from == Some(Offset(10_000))));
}

#[test]
fn deleting_a_group_needs_its_name_and_says_what_went() {
    let (d, store, _clock) = store();
    both_partitions(&store, 2);
    groups::reset_group(&store, "g", &request(ResetTarget::Latest, false)).expect("reset");
    let preview = groups::delete_preview(&store, "g", &[7]).expect("preview");
    assert_eq!((preview.topic.as_deref(), preview.committed.len(), preview.demo_members), (Some("jobs"), 2, 1));
    assert!(preview.records.get() >= 2);

    let mut stopped = false;
    let wrong = groups::delete_group(&store, "g", "G", false, &[], || {
        stopped = true;
        0
    });
    assert_eq!(wrong.expect_err("mismatch").code, ErrorCode::ConfirmationMismatch);
    assert!(!stopped, "nothing is stopped before the name matches");
    assert!(groups::describe_group(&store, "g", None).is_ok(), "the group stays");

    let gone = groups::delete_group(&store, "g", "g", false, &[7], || 1).expect("delete");
    assert_eq!((gone.group.as_str(), gone.partitions, gone.stopped_demo_members), ("g", 2, 1));
    assert_eq!(groups::describe_group(&store, "g", None).expect_err("gone").code, ErrorCode::GroupNotFound);
    assert!(!d.path().join("--group--g").exists());
    assert!(topics::describe_topic(&store, "jobs").is_ok(), "the topic stays");
    assert_eq!(groups::delete_preview(&store, "g", &[]).expect_err("gone").code, ErrorCode::GroupNotFound);
}

/// Deleting a group under a live member: a running 0.2.3 member crashes (FileNotFoundError at
/// its next commit: tests/interop/test_groups_delete.py), ours stop with an error. Refused,
/// nothing stopped or deleted, until the person says they are stopped; this app's demo members
/// (stopped first) do not hold it back.
#[test]
fn a_group_with_live_members_is_deleted_only_once_they_are_said_to_be_stopped() {
    let (_d, store, _clock) = store();
    both_partitions(&store, 2);
    let mut member = store.join_group("jobs", "g", twainmq::group::GroupOptions::default()).expect("join");
    member.poll().expect("poll");
    let id = member.id();
    let preview = groups::delete_preview(&store, "g", &[]).expect("preview");
    assert_eq!((preview.live_members.clone(), preview.live_twainmq_members.clone()), (vec![id], vec![id]));
    assert!(preview.live_secs >= 30.0);

    let mut stopped = false;
    let e = groups::delete_group(&store, "g", "g", false, &[], || {
        stopped = true;
        0
    })
    .expect_err("refused");
    assert_eq!(e.code, ErrorCode::MembersLive);
    assert!(e.message.contains("FileNotFoundError") && e.message.contains(&id.to_string()), "{}", e.message);
    assert!(!stopped && groups::describe_group(&store, "g", None).is_ok(), "nothing stopped, nothing deleted");

    // The app's own demo member: stopped first, so it holds nothing back.
    assert!(groups::delete_preview(&store, "g", &[id]).expect("preview").live_members.is_empty());
    groups::delete_group(&store, "g", "g", true, &[], || 0).expect("said to be stopped");
    assert_eq!(groups::describe_group(&store, "g", None).expect_err("gone").code, ErrorCode::GroupNotFound);
    drop(member);
}
