//! Retention and purge: old day files go, the newest file of a partition and
//! files with unconsumed messages stay (unless forced), readers still read
//! what is left and producers go on with the next offsets.

use std::sync::Arc;

use twainmq::group::ResetTo;
use twainmq::{Key, KeyType, ManualClock, Retention, StartFrom, Store, TopicSpec};

const DAY: i64 = 86_400_000_000;
/// 2026-11-20T12:00:00Z in microseconds.
const NOON: i64 = 1_795_780_800_000_000;

/// A topic of one partition with 10 messages on each of 4 days; the store's clock on the last day.
fn four_days() -> (tempfile::TempDir, Store, ManualClock) {
    let dir = tempfile::tempdir().expect("tmp");
    let clock = ManualClock::new(NOON);
    let store = Store::open(dir.path()).expect("open").with_clock(Arc::new(clock.clone()));
    store.create_topic("t", &TopicSpec::new(KeyType::U8, 1)).expect("create");
    let mut p = store.producer("t").expect("producer");
    for day in 0..4 {
        for i in 0..10 {
            p.send_text(Key::Int(1), &format!("day {day} #{i}")).expect("send");
        }
        if day < 3 {
            clock.advance(DAY);
        }
    }
    (dir, store, clock)
}

fn files(store: &Store) -> Vec<(String, u64)> {
    let d = store.describe_topic("t").expect("describe");
    d.partition_details[0].files.iter().map(|f| (f.name.clone(), f.first)).collect()
}

fn texts(store: &Store) -> Vec<String> {
    let mut c = store.consumer("t", StartFrom::Start).expect("consumer");
    let mut out = Vec::new();
    while let Some(m) = c.poll().expect("poll") {
        out.push(format!("{} {}", m.offset, m.text().unwrap_or_default()));
    }
    out
}

#[test]
fn days_retention_deletes_old_files_but_never_the_newest() {
    let (_d, store, clock) = four_days();
    assert_eq!(files(&store).len(), 4);
    store.set_retention("t", Some(Retention { days: Some(1), bytes_per_partition: None })).expect("set");
    assert_eq!(store.retention("t").expect("get"), Some(Retention { days: Some(1), bytes_per_partition: None }));
    let plan = store.apply_retention("t", true, false).expect("dry run");
    assert!(!plan.applied);
    assert_eq!(plan.files.iter().map(|f| f.first).collect::<Vec<_>>(), vec![0, 10], "days 0 and 1 are more than a day old");
    assert_eq!(plan.totals().1, 20);
    assert_eq!(files(&store).len(), 4, "a dry run deletes nothing");
    store.apply_retention("t", false, false).expect("apply");
    assert_eq!(files(&store).iter().map(|f| f.1).collect::<Vec<_>>(), vec![20, 30]);
    let left = texts(&store);
    assert_eq!(left.first().map(String::as_str), Some("20 day 2 #0"));
    assert_eq!(left.len(), 20);
    // Years later, still never the newest file.
    clock.advance(1000 * DAY);
    store.apply_retention("t", false, false).expect("apply");
    assert_eq!(files(&store).iter().map(|f| f.1).collect::<Vec<_>>(), vec![30]);
    // And the producer goes on with the next offset.
    store.producer("t").expect("producer").send_text(Key::Int(1), "after").expect("send");
    assert_eq!(texts(&store).last().map(String::as_str), Some("40 after"));
}

#[test]
fn bytes_retention_keeps_the_newest_files_under_the_limit() {
    let (_d, store, _clock) = four_days();
    let sizes: Vec<u64> = store.describe_topic("t").expect("d").partition_details[0].files.iter().map(|f| f.bytes).collect();
    let limit = sizes[2] + sizes[3];
    store.set_retention("t", Some(Retention { days: None, bytes_per_partition: Some(limit) })).expect("set");
    store.apply_retention("t", false, false).expect("apply");
    assert_eq!(files(&store).iter().map(|f| f.1).collect::<Vec<_>>(), vec![20, 30]);
}

/// Retention of one day, not forced, on `four_days` with g committed at 15:
/// the consumed file 0..10 goes, 10..20 (holding 15..19) stays for g.
fn applies_keeping_what_g_has_not_read(store: &Store) {
    let plan = store.apply_retention("t", false, false).expect("apply");
    assert_eq!(
        plan.files.iter().map(|f| (f.first, f.deleted, f.unconsumed_by.clone())).collect::<Vec<_>>(),
        vec![(0, true, vec![]), (10, false, vec!["g".to_string()])]
    );
    assert_eq!(files(store).iter().map(|f| f.1).collect::<Vec<_>>(), vec![10, 20, 30]);
}

#[test]
fn files_a_group_has_not_consumed_stay_unless_forced() {
    let (_d, store, _clock) = four_days();
    store.ensure_group("t", "g", StartFrom::Start).expect("group");
    store.reset_group("g", ResetTo::Offset(15), None, false).expect("commit 15");
    store.set_retention("t", Some(Retention { days: Some(1), bytes_per_partition: None })).expect("set");
    // File 0..10 is consumed; 10..20 holds 15..19, which g has not read.
    applies_keeping_what_g_has_not_read(&store);
    let plan = store.apply_retention("t", false, true).expect("forced");
    assert_eq!(plan.files.iter().map(|f| (f.first, f.deleted)).collect::<Vec<_>>(), vec![(10, true)]);
    assert_eq!(files(&store).iter().map(|f| f.1).collect::<Vec<_>>(), vec![20, 30]);
}

/// Lag is what a member would read: after a forced retention deleted messages a group had not
/// consumed, they are not counted (issue 24 item 3: lag 890 with 300 messages left).
#[test]
fn lag_counts_only_what_is_left_to_read_after_retention() {
    let (_d, store, clock) = four_days();
    store.ensure_group("t", "g", StartFrom::Start).expect("group");
    store.reset_group("g", ResetTo::Offset(5), None, false).expect("commit 5");
    assert_eq!(store.describe_group("g").expect("describe").partitions[0].lag, 35);
    store.set_retention("t", Some(Retention { days: Some(1), bytes_per_partition: None })).expect("set");
    store.apply_retention("t", false, true).expect("forced");
    assert_eq!(files(&store).iter().map(|f| f.1).collect::<Vec<_>>(), vec![20, 30]);
    let d = store.describe_group("g").expect("describe");
    let p = &d.partitions[0];
    assert_eq!((p.committed, p.end, p.lag), (Some(5), 40, 20), "20 messages are left to read, not 35");
    assert_eq!(d.lag.get("0"), Some(&20));
    // The oldest unconsumed message is the first one left (offset 20, day 2).
    let first_left = store.consumer("t", StartFrom::Start).expect("c").poll().expect("poll").expect("a message").timestamp;
    assert_eq!(p.oldest_unconsumed_at, Some(first_left));
    let summary = store.group_summary("g").state.expect("summary");
    assert_eq!(summary.lag, 20, "the listing's lag is the same");
    // The lag history's latest point agrees (a second on: the last day's messages are stamped
    // at the manual clock's now, and the history counts those stamped before each point).
    clock.advance(1_000_000);
    let now = store.now_secs();
    let h = store.lag_history("g", now - 3600.0, now, 4).expect("history");
    assert_eq!(h.partitions[0].points.last().map(|p| p.lag), Some(20));
    // A purge of everything leaves nothing to read.
    store.purge_topic("t", None, false, true).expect("purge");
    assert_eq!(store.describe_group("g").expect("describe").partitions[0].lag, 0);
}

/// Counts WARN events on this thread (the app's log got one per partition on every refresh of a
/// group after retention: describe opened a reader at the deleted commit to find its timestamp).
#[derive(Default)]
struct Warnings(std::sync::atomic::AtomicUsize);

impl tracing::Subscriber for Warnings {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, e: &tracing::Event<'_>) {
        if *e.metadata().level() == tracing::Level::WARN {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[test]
fn describing_a_group_behind_retention_warns_of_nothing() {
    let (_d, store, _clock) = four_days();
    store.ensure_group("t", "g", StartFrom::Start).expect("group");
    store.reset_group("g", ResetTo::Offset(5), None, false).expect("commit 5");
    store.set_retention("t", Some(Retention { days: Some(1), bytes_per_partition: None })).expect("set");
    store.apply_retention("t", false, true).expect("forced");
    let warnings = std::sync::Arc::new(Warnings::default());
    tracing::subscriber::with_default(warnings.clone(), || {
        for _ in 0..3 {
            let d = store.describe_group("g").expect("describe");
            assert_eq!(d.partitions[0].lag, 20);
            let _ = store.group_summary("g");
        }
    });
    assert_eq!(warnings.0.load(std::sync::atomic::Ordering::Relaxed), 0, "a normal state after retention is not a warning");
}

#[test]
fn purge_empties_the_topic_and_offsets_go_on() {
    let (_d, store, _clock) = four_days();
    let plan = store.purge_topic("t", None, true, false).expect("dry run");
    assert_eq!(plan.files.len(), 4);
    assert_eq!(files(&store).len(), 4);
    store.purge_topic("t", None, false, false).expect("purge");
    assert!(texts(&store).is_empty());
    assert_eq!(store.end_offsets("t").expect("ends"), vec![40]);
    store.producer("t").expect("producer").send_text(Key::Int(1), "after").expect("send");
    assert_eq!(texts(&store), vec!["40 after".to_string()]);
}

#[test]
fn purge_before_a_time_keeps_later_files() {
    let (_d, store, _clock) = four_days();
    // Before the start of day 2 (noon of day 1 plus 12 h): days 0 and 1 go.
    let before = (NOON + DAY + DAY / 2) as f64 / 1e6;
    store.purge_topic("t", Some(before), false, false).expect("purge");
    assert_eq!(files(&store).iter().map(|f| f.1).collect::<Vec<_>>(), vec![20, 30]);
}

/// Retention deletes only when asked (`retention apply`, the app's Retention tab, or the app
/// when the store's setting says so): a producer that starts a new day deletes nothing, so
/// `produce`, `import` and `copy` never remove old days behind the user's back.
#[test]
fn a_producer_starting_a_new_day_deletes_nothing() {
    let (_d, store, clock) = four_days();
    store.set_retention("t", Some(Retention { days: Some(1), bytes_per_partition: None })).expect("set");
    let mut p = store.producer("t").expect("producer");
    p.send_text(Key::Int(1), "today").expect("send");
    clock.advance(DAY);
    p.send_text(Key::Int(1), "tomorrow").expect("send");
    assert_eq!(
        files(&store).iter().map(|f| f.1).collect::<Vec<_>>(),
        vec![0, 10, 20, 30, 41],
        "every day stays until retention is applied"
    );
    let plan = store.apply_retention("t", false, false).expect("apply");
    assert_eq!(plan.totals().0, 3, "asked, it deletes days 0-2");
}

#[test]
fn bad_retention_settings_are_refused() {
    let (_d, store, _clock) = four_days();
    for r in [Retention { days: Some(0), bytes_per_partition: None }, Retention::default()] {
        let e = store.set_retention("t", Some(r)).expect_err("refused");
        assert_eq!(e.code(), "invalid_retention");
    }
    store.set_retention("t", None).expect("remove");
    assert_eq!(store.retention("t").expect("get"), None);
}

/// A group as 0.2.3 makes it names no topic; with two topics of its partition
/// count its topic cannot be told. Retention of either must keep what it has
/// not committed past (taking it to read neither would delete it unforced).
#[test]
fn a_group_of_unknown_topic_keeps_its_unconsumed_files_in_every_candidate() {
    let (dir, store, _clock) = four_days();
    store.create_topic("u", &TopicSpec::new(KeyType::U8, 1)).expect("second topic, same partitions");
    store.ensure_group("t", "g", StartFrom::Start).expect("group");
    store.reset_group("g", ResetTo::Offset(15), None, false).expect("commit 15");
    // Make it a 0.2.3 group: its config without our "topic" key.
    let cfg = std::fs::read_dir(dir.path())
        .expect("list")
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.extension().is_some_and(|x| x == "twc")
                && p.file_stem().is_some_and(|s| s.to_string_lossy().contains('g') && s != "t" && s != "u")
        })
        .expect("the group's config");
    let mut json: serde_json::Value = serde_json::from_slice(&std::fs::read(&cfg).expect("read")).expect("json");
    assert!(json.as_object_mut().expect("object").remove("topic").is_some(), "our groups record their topic");
    std::fs::write(&cfg, serde_json::to_vec(&json).expect("json")).expect("write");
    assert!(store.groups_reading("t").expect("groups").is_empty(), "its topic is ambiguous now");

    store.set_retention("t", Some(Retention { days: Some(1), bytes_per_partition: None })).expect("set");
    applies_keeping_what_g_has_not_read(&store);
}

/// A group whose log is in the store counts whatever its config says: with
/// its config damaged or gone, what it consumed cannot be told, so retention
/// and purge keep every file it might need unless forced, and say why.
#[test]
fn a_group_whose_config_is_damaged_or_gone_holds_every_file_unless_forced() {
    for damage in ["corrupt", "deleted"] {
        let (d, store, _clock) = four_days();
        store.ensure_group("t", "ours", StartFrom::Start).expect("group");
        store.reset_group("ours", ResetTo::Offset(0), None, false).expect("reset to 0");
        let config = d.path().join("--group--ours.twc");
        if damage == "corrupt" {
            std::fs::write(&config, b"{").expect("damage");
        } else {
            std::fs::remove_file(&config).expect("delete");
        }
        store.set_retention("t", Some(Retention { days: Some(1), bytes_per_partition: None })).expect("set");
        let plan = store.apply_retention("t", false, false).expect("apply");
        assert_eq!(plan.totals().0, 0, "{damage}: nothing deleted: {plan:?}");
        assert_eq!(plan.unknown_groups.len(), 1, "{damage}");
        assert_eq!(plan.unknown_groups[0].group, "ours");
        assert!(plan.files.iter().all(|f| !f.deleted && f.unconsumed_by == ["ours"]), "{plan:?}");
        let purge = store.purge_topic("t", Some(f64::MAX), false, false).expect("purge");
        assert_eq!(purge.totals().0, 0, "{damage}: a purge keeps them too");
        assert_eq!(texts(&store).len(), 40, "{damage}: every message is still there");
        // Forced, the files go (and the plan still names the group).
        let forced = store.apply_retention("t", false, true).expect("forced");
        assert_eq!(forced.totals().0, 2, "{damage}");
        assert_eq!(texts(&store).len(), 20);
    }
}

/// A settings change rewrites the topic's config: the topic stays the same
/// topic, so a producer writing across it goes on (it stopped with "deleted or
/// replaced" when the identity was the config's).
#[test]
fn a_retention_setting_changed_under_a_producer_does_not_stop_it() {
    let (d, store, clock) = four_days();
    let before = store.topic_incarnation("t").expect("incarnation");
    let mut p = store.producer("t").expect("producer");
    p.send_text(Key::Int(1), "before").expect("send");
    store.set_retention("t", Some(Retention { days: Some(2), bytes_per_partition: None })).expect("set");
    // As 0.2.3 or a hand would: the config rewritten in place, keys kept.
    let text = std::fs::read_to_string(d.path().join("t.twc")).expect("read");
    std::fs::write(d.path().join("t.twc"), text.replace("\"partitions\"", " \"partitions\"")).expect("rewrite");
    assert_eq!(store.topic_incarnation("t").expect("incarnation"), before, "the same topic");
    // Past a topic recheck, and across midnight.
    std::thread::sleep(twainmq::internals::TOPIC_RECHECK + std::time::Duration::from_millis(100));
    for i in 0..5 {
        p.send_text(Key::Int(1), &format!("after {i}")).expect("still writing");
        clock.advance(DAY / 4);
    }
    assert_eq!(texts(&store).len(), 46);
}

/// The days of the partition's files, in file order.
fn days(store: &Store) -> Vec<String> {
    let d = store.describe_topic("t").expect("describe");
    d.partition_details[0].files.iter().map(|f| f.day.clone()).collect()
}

/// 0.2.3 raises `TopicCorruptError` ("Multiple message files for the same
/// chunk") in its producer and in `consumer(start_from="now")` when a
/// partition holds two files for today, so no partition may ever hold two
/// files for one day.
fn assert_one_file_a_day(store: &Store) {
    let mut days = days(store);
    let n = days.len();
    days.sort();
    days.dedup();
    assert_eq!(days.len(), n, "two files for one day: {:?}", files(store));
}

/// A purge of everything that keeps the newest file (a group has not read it)
/// makes no successor: the kept file already carries the partition's next offset.
#[test]
fn a_purge_that_keeps_the_newest_file_makes_no_successor() {
    let (_d, store, _clock) = four_days();
    store.ensure_group("t", "g", StartFrom::Start).expect("group");
    let before = files(&store);
    let plan = store.purge_topic("t", None, false, false).expect("purge");
    assert_eq!(plan.totals().0, 0, "g has read nothing: nothing goes");
    assert!(plan.created.is_empty(), "no successor for a kept file: {:?}", plan.created);
    assert_eq!(files(&store), before);
    assert_one_file_a_day(&store);
    // With g past the first three files, those go and the newest stays, alone for its day.
    store.reset_group("g", ResetTo::Offset(35), None, false).expect("commit 35");
    let plan = store.purge_topic("t", None, false, false).expect("purge");
    assert!(plan.created.is_empty(), "{:?}", plan.created);
    assert_eq!(files(&store).iter().map(|f| f.1).collect::<Vec<_>>(), vec![30]);
    assert_one_file_a_day(&store);
    store.producer("t").expect("producer").send_text(Key::Int(1), "after").expect("send");
    assert_eq!(texts(&store).last().map(String::as_str), Some("40 after"));
}

/// A purge of everything whose newest file is today's: its successor cannot be
/// today's while it is there (two files for one day, for a moment), and no file
/// at all would let a 0.2.3 producer start today's at offset 0. So a file of the
/// day before, named for the end offset, is made first; then today's goes; then
/// today's file is made at the same offset (the name any producer would give it).
#[test]
fn a_purge_of_today_s_file_never_leaves_two_files_for_one_day() {
    let (_d, store, clock) = four_days();
    let today = days(&store).last().cloned().expect("a file");
    let plan = store.purge_topic("t", None, true, false).expect("dry run");
    assert_eq!(plan.created.len(), 2, "{:?}", plan.created);
    store.purge_topic("t", None, false, false).expect("purge");
    assert_eq!(files(&store).iter().map(|f| f.1).collect::<Vec<_>>(), vec![40, 40]);
    let d = days(&store);
    assert!(d[0] < today && d[1] == today, "the day before, then today: {d:?}");
    assert_one_file_a_day(&store);
    store.producer("t").expect("producer").send_text(Key::Int(1), "after").expect("send");
    assert_eq!(texts(&store), vec!["40 after".to_string()]);
    assert_one_file_a_day(&store);
    // A day later the newest file is yesterday's: its successor is today's alone.
    clock.advance(DAY);
    store.purge_topic("t", None, false, false).expect("purge");
    assert_eq!(files(&store).iter().map(|f| f.1).collect::<Vec<_>>(), vec![41]);
    assert!(days(&store)[0] > today, "dated today");
    store.producer("t").expect("producer").send_text(Key::Int(1), "next day").expect("send");
    assert_eq!(texts(&store), vec!["41 next day".to_string()]);
    assert_one_file_a_day(&store);
}
