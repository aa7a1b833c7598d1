//! Producing and consuming through the engine: partitions, offsets, day files, typed messages.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use twainmq::{partition_for, Key, KeyType, ManualClock, Outgoing, Payload, StartFrom, Store, TopicSpec, TypedMessage};

const DAY: i64 = 86_400_000_000;
/// 2026-11-29T23:59:59Z in microseconds.
const BEFORE_MIDNIGHT: i64 = 1_795_996_799_000_000;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Event {
    id: u64,
    text: String,
    tags: Vec<String>,
}
impl TypedMessage for Event {
    const TYPE_NAME: &'static str = "Event";
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Unlisted {
    x: u8,
}
impl TypedMessage for Unlisted {
    const TYPE_NAME: &'static str = "Unlisted";
}

fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("tmp");
    let store = Store::open(dir.path()).expect("open");
    (dir, store)
}

fn drain(c: &mut twainmq::Consumer) -> Vec<twainmq::Message> {
    let mut out = Vec::new();
    while let Some(m) = c.poll().expect("poll") {
        out.push(m);
    }
    out
}

#[test]
fn messages_land_in_the_partition_0_2_3_picks_with_dense_offsets() {
    let (_d, store) = store();
    store.create_topic("t", &TopicSpec::new(KeyType::U32, 5)).expect("create");
    let mut p = store.producer("t").expect("producer");
    for i in 0..500u32 {
        let key = i.wrapping_mul(2_654_435_761);
        let d = p.send_text(key, &format!("m{i}")).expect("send");
        assert_eq!(d.partition, partition_for(&Key::from(key), 5));
    }
    let mut c = store.consumer("t", StartFrom::Start).expect("consumer");
    let msgs = drain(&mut c);
    assert_eq!(msgs.len(), 500);
    let mut next = [0u64; 5];
    for m in &msgs {
        assert_eq!(m.partition, partition_for(&m.key, 5));
        assert_eq!(m.offset, next[m.partition as usize], "dense offsets");
        next[m.partition as usize] += 1;
    }
    // Round-robin: the first five messages come from five different partitions.
    let mut first: Vec<u32> = msgs[..5].iter().map(|m| m.partition).collect();
    first.sort();
    assert_eq!(first, vec![0, 1, 2, 3, 4]);
    let d = store.describe_topic("t").expect("describe");
    assert_eq!(d.messages, 500);
    assert_eq!(d.partition_details.iter().map(|p| p.end).collect::<Vec<_>>(), next.to_vec());
}

#[test]
fn resolve_offset_finds_each_messages_offset() {
    let (_d, store) = store();
    store.create_topic("t", &TopicSpec::new(KeyType::U8, 1)).expect("create");
    let mut a = store.producer("t").expect("producer").with_offsets(true);
    let mut b = store.producer("t").expect("producer").with_offsets(true);
    for i in 0..20u64 {
        let p = if i % 3 == 0 { &mut b } else { &mut a };
        let d = p.send_text(1u8, "x").expect("send");
        assert_eq!(p.resolve_offset(&d).expect("offset"), i);
    }
}

#[test]
fn every_payload_kind_round_trips() {
    let (_d, store) = store();
    store.create_topic("t", &TopicSpec::new(KeyType::Char(8), 2).with_types(["Event", "Reading"])).expect("create");
    let mut p = store.producer("t").expect("producer");
    let ev = Event { id: u64::MAX, text: "ünï 😀 <b>".into(), tags: vec!["a".into()] };
    p.send_typed("k1", &ev).expect("typed");
    p.send_text("k2", "").expect("empty text");
    p.send_bytes("k3", &[]).expect("empty bytes");
    p.send_bytes("", &(0..=255).collect::<Vec<u8>>()).expect("bytes");
    p.send(&Key::from("12345678"), &Outgoing::typed("Reading", &serde_json::json!({"v": 1.25})).expect("json")).expect("generic");
    let err = p.send_typed("k", &Unlisted { x: 1 }).expect_err("not declared");
    assert_eq!(err.code(), "unknown_message_type");
    let msgs = drain(&mut store.consumer("t", StartFrom::Start).expect("consumer"));
    assert_eq!(msgs.len(), 5);
    let typed = msgs.iter().find(|m| m.key == Key::from("k1")).expect("k1");
    assert_eq!(typed.decode::<Event>().expect("decode"), ev);
    assert_eq!(typed.decode::<Unlisted>().expect_err("wrong type").code(), "wrong_payload_kind");
    let reading = msgs.iter().find(|m| m.key == Key::from("12345678")).expect("reading");
    match &reading.payload {
        Payload::Typed(t) => {
            assert_eq!(t.class.as_deref(), Some("Reading"));
            assert_eq!(t.type_id, 1);
            assert_eq!(t.fields(), Some(serde_json::json!({"v": 1.25})));
            assert_eq!(t.json, r#"{"v":1.25}"#);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(msgs.iter().find(|m| m.key == Key::from("")).expect("bytes").payload, Payload::Bytes((0..=255).collect()));
}

#[test]
fn days_roll_over_at_utc_midnight_and_readers_follow_without_a_date_change() {
    let (_d, store) = store();
    let clock = ManualClock::new(BEFORE_MIDNIGHT);
    let store = store.with_clock(Arc::new(clock.clone()));
    store.create_topic("t", &TopicSpec::new(KeyType::U8, 1)).expect("create");
    let mut p = store.producer("t").expect("producer");
    // A reader opened before anything exists reads from offset 0 once it appears.
    let mut r = store.partition_reader("t", 0, StartFrom::Start).expect("reader");
    assert!(r.poll().expect("poll").is_none());
    for i in 0..3 {
        p.send_text(0u8, &format!("day1-{i}")).expect("send");
    }
    clock.advance(2_000_000);
    for i in 0..2 {
        p.send_text(0u8, &format!("day2-{i}")).expect("send");
    }
    clock.advance(DAY);
    p.send_text(0u8, "day3-0").expect("send");
    let names: Vec<String> = store.describe_topic("t").expect("d").partition_details[0].files.iter().map(|f| f.name.clone()).collect();
    assert_eq!(names, vec!["0-20261129_0.tmf", "0-20261130_3.tmf", "0-20261201_5.tmf"]);
    let texts: Vec<(u64, String)> =
        std::iter::from_fn(|| r.poll().expect("poll")).map(|m| (m.offset, m.text().expect("text").to_string())).collect();
    assert_eq!(texts.iter().map(|t| t.0).collect::<Vec<_>>(), vec![0, 1, 2, 3, 4, 5]);
    assert_eq!(texts[3].1, "day2-0");
    // Seeking picks the right file.
    let mut r = store.partition_reader("t", 0, StartFrom::Offset(4)).expect("reader");
    assert_eq!(r.poll().expect("poll").expect("msg").text(), Some("day2-1"));
    // A new producer on the same day appends to the same day file.
    let mut p2 = store.producer("t").expect("producer").with_offsets(true);
    let d = p2.send_text(0u8, "day3-1").expect("send");
    assert!(d.path.ends_with("0-20261201_5.tmf"));
    assert!(store.producer("t").expect("p").send_text(0u8, "x").expect("send").byte_pos.is_none(), "no lseek unless asked");
    assert_eq!(p2.resolve_offset(&d).expect("offset"), 6);
}

#[test]
fn start_from_now_and_from_offset() {
    let (_d, store) = store();
    store.create_topic("t", &TopicSpec::new(KeyType::U16, 2)).expect("create");
    let mut p = store.producer("t").expect("producer");
    for i in 0..10u16 {
        p.send_text(i, "old").expect("send");
    }
    let mut now = store.consumer("t", StartFrom::Now).expect("consumer");
    assert!(now.poll().expect("poll").is_none());
    p.send_text(3u16, "new").expect("send");
    let m = now.poll().expect("poll").expect("new message");
    assert_eq!(m.text(), Some("new"));
    assert!(now.poll().expect("poll").is_none());
    let mut from = store.consumer_of("t", &[m.partition], StartFrom::Offset(m.offset)).expect("consumer");
    assert_eq!(from.poll().expect("poll").expect("msg").text(), Some("new"));
    // An offset past the end waits there.
    let mut far = store.consumer_of("t", &[0], StartFrom::Offset(1000)).expect("consumer");
    assert!(far.poll().expect("poll").is_none());
}

#[test]
fn batches_append_whole_lines_per_partition() {
    let (_d, store) = store();
    store.create_topic("t", &TopicSpec::new(KeyType::U32, 3)).expect("create");
    let mut p = store.producer("t").expect("producer");
    let batch: Vec<(Key, Outgoing)> = (0..5000u32).map(|i| (Key::from(i), Outgoing::Text(format!("message number {i}")))).collect();
    assert_eq!(p.send_batch(&batch).expect("batch"), 5000);
    let msgs = drain(&mut store.consumer("t", StartFrom::Start).expect("consumer"));
    assert_eq!(msgs.len(), 5000);
    for m in &msgs {
        let Key::Int(i) = m.key else { panic!("int key") };
        assert_eq!(m.text().expect("text"), format!("message number {i}"));
        assert_eq!(m.partition, partition_for(&m.key, 3));
    }
}

#[test]
fn custom_partitioner_is_used_and_checked() {
    let (_d, store) = store();
    store.create_topic("t", &TopicSpec::new(KeyType::U16, 4)).expect("create");
    let mut p = store.producer("t").expect("producer").with_partitioner(|k, _| match k {
        Key::Int(v) => (*v % 10) as u32,
        _ => 0,
    });
    assert_eq!(p.send_text(3u16, "x").expect("send").partition, 3);
    let err = p.send_text(7u16, "x").expect_err("out of range");
    assert_eq!(err.code(), "bad_partitioner");
}

#[test]
fn delete_removes_config_and_folder() {
    let (d, store) = store();
    store.create_topic("t", &TopicSpec::default()).expect("create");
    store.producer("t").expect("p").send_text(1u16, "x").expect("send");
    assert!(store.topic_exists("t").expect("exists"));
    store.delete_topic("t").expect("delete");
    assert!(!store.topic_exists("t").expect("exists"));
    assert!(!d.path().join("t.twc").exists() && !d.path().join("t").exists());
    assert_eq!(store.delete_topic("t").expect_err("gone").code(), "topic_not_found");
}

#[cfg(unix)]
#[test]
fn delete_never_follows_a_link_out_of_the_store() {
    let (d, store) = store();
    let outside = tempfile::tempdir().expect("tmp");
    std::fs::write(outside.path().join("precious"), b"keep").expect("write");
    std::os::unix::fs::symlink(outside.path(), d.path().join("evil")).expect("link");
    std::fs::write(d.path().join("evil.twc"), br#"{"key_width": 2, "partitions": 1, "message_types": {}}"#).expect("twc");
    assert_eq!(store.delete_topic("evil").expect_err("link").code(), "symlink_refused");
    assert!(outside.path().join("precious").exists());
    // A link inside a real topic folder is removed, not followed.
    store.create_topic("t", &TopicSpec::default()).expect("create");
    std::os::unix::fs::symlink(outside.path(), d.path().join("t").join("0-20261129_0.tmf")).expect("link");
    store.delete_topic("t").expect("delete");
    assert!(outside.path().join("precious").exists());
}

#[cfg(unix)]
#[test]
fn producers_never_write_through_a_link() {
    let (d, store) = store();
    let outside = tempfile::tempdir().expect("tmp");
    store.create_topic("t", &TopicSpec::new(KeyType::U8, 1)).expect("create");
    let name = format!("0-{}_0.tmf", store.today());
    std::os::unix::fs::symlink(outside.path().join("target"), d.path().join("t").join(name)).expect("link");
    let err = store.producer("t").expect("p").send_text(1u8, "x").expect_err("link");
    assert_eq!(err.code(), "symlink_refused");
    assert!(!outside.path().join("target").exists());
}

#[test]
fn a_file_dated_after_today_is_appended_to_so_offsets_stay_in_order() {
    let (d, store) = store();
    store.create_topic("t", &TopicSpec::new(KeyType::U8, 1)).expect("create");
    let mut p = store.producer("t").expect("producer");
    p.send_text(0u8, "today").expect("send");
    // Another machine, a day ahead, started tomorrow's file.
    let tomorrow = twainmq::Day::from_unix_micros(chrono::Utc::now().timestamp_micros() + DAY);
    std::fs::write(d.path().join("t").join(format!("0-{tomorrow}_1.tmf")), b"").expect("write");
    let mut p = store.producer("t").expect("producer").with_offsets(true);
    let sent = p.send_text(0u8, "after").expect("send");
    assert_eq!(p.resolve_offset(&sent).expect("offset"), 1);
    let mut r = store.partition_reader("t", 0, StartFrom::Offset(1)).expect("reader");
    assert_eq!(r.poll().expect("poll").expect("msg").text(), Some("after"));
}

#[test]
fn deep_seeks_and_time_jumps_land_exactly() {
    let (_d, store) = store();
    let clock = ManualClock::new(BEFORE_MIDNIGHT - 10_000_000_000);
    let store = store.with_clock(Arc::new(clock.clone()));
    store.create_topic("t", &TopicSpec::new(KeyType::U8, 1)).expect("create");
    let mut p = store.producer("t").expect("producer");
    for i in 0..10_000u32 {
        clock.advance(1000);
        p.send_text(0u8, &format!("m{i}")).expect("send");
    }
    for offset in [0u64, 1, 1023, 1024, 1025, 5000, 9999] {
        let mut r = store.partition_reader("t", 0, StartFrom::Offset(offset)).expect("reader");
        let m = r.poll().expect("poll").expect("message");
        assert_eq!((m.offset, m.text().map(str::to_string)), (offset, Some(format!("m{offset}"))));
    }
    let mut r = store.partition_reader("t", 0, StartFrom::Offset(0)).expect("reader");
    let all: Vec<f64> = std::iter::from_fn(|| r.poll().expect("poll")).map(|m| m.timestamp).collect();
    for offset in [0usize, 1, 1500, 4096, 9999] {
        assert_eq!(twainmq::scan::offset_at_time(&store, "t", 0, all[offset]).expect("time"), Some(offset as u64));
        // Between two messages: the later one.
        if offset > 0 {
            let between = (all[offset - 1] + all[offset]) / 2.0;
            assert_eq!(twainmq::scan::offset_at_time(&store, "t", 0, between).expect("time"), Some(offset as u64));
        }
    }
    assert_eq!(twainmq::scan::offset_at_time(&store, "t", 0, all[9999] + 1.0).expect("time"), None);
}

#[test]
fn a_producer_behind_midnight_joins_a_file_another_already_started() {
    let (_d, store) = store();
    let early = ManualClock::new(BEFORE_MIDNIGHT + 500_000); // 23:59:59.5
    let late = ManualClock::new(BEFORE_MIDNIGHT + 1_200_000); // 00:00:00.2, the next day
    let a_store = store.clone().with_clock(Arc::new(early.clone()));
    let b_store = store.with_clock(Arc::new(late));
    a_store.create_topic("t", &TopicSpec::new(KeyType::U8, 1)).expect("create");
    let mut a = a_store.producer("t").expect("a");
    let mut b = b_store.producer("t").expect("b");
    a.send_text(0u8, "a1").expect("send");
    b.send_text(0u8, "b1").expect("send"); // starts tomorrow's file at offset 1
    early.advance(10_000);
    let d = a.send_text(0u8, "a2").expect("send"); // still yesterday by a's clock
    assert!(d.path.ends_with("0-20261130_1.tmf"), "a2 joined the newer file: {}", d.path.display());
    let mut r = a_store.partition_reader("t", 0, StartFrom::Start).expect("reader");
    let got: Vec<(u64, String)> =
        std::iter::from_fn(|| r.poll().expect("poll")).map(|m| (m.offset, m.text().unwrap_or("").to_string())).collect();
    assert_eq!(got, vec![(0, "a1".into()), (1, "b1".into()), (2, "a2".into())]);
    assert!(twainmq::check::check_topic(&a_store, "t").expect("check").is_empty());
}

#[cfg(unix)]
#[test]
fn producers_refuse_a_topic_folder_that_is_a_link_and_check_flags_linked_files() {
    let (d, store) = store();
    let outside = tempfile::tempdir().expect("tmp");
    std::os::unix::fs::symlink(outside.path(), d.path().join("v")).expect("link");
    std::fs::write(d.path().join("v.twc"), br#"{"key_width": 2, "partitions": 1, "message_types": {}}"#).expect("twc");
    assert_eq!(store.producer("v").expect_err("link").code(), "symlink_refused");
    assert_eq!(std::fs::read_dir(outside.path()).expect("dir").count(), 0, "nothing written outside the store");
    store.create_topic("t", &TopicSpec::new(KeyType::U8, 1)).expect("create");
    std::fs::write(outside.path().join("f"), b"").expect("write");
    std::os::unix::fs::symlink(outside.path().join("f"), d.path().join("t").join("0-20000101_0.tmf")).expect("link");
    let problems = twainmq::check::check_topic(&store, "t").expect("check");
    assert!(problems.iter().any(|p| p.kind == "symlink"), "{problems:?}");
}

#[test]
fn large_batches_on_two_threads_write_the_same_bytes_in_order() {
    let dir = tempfile::tempdir().expect("tmp");
    let store = Store::open(dir.path()).expect("open").with_clock(Arc::new(ManualClock::new(BEFORE_MIDNIGHT - DAY)));
    let batch: Vec<(Key, Outgoing)> = (0..3000u32).map(|i| (Key::from(i % 97), Outgoing::Text(format!("seq {i} of the batch")))).collect();
    for (topic, parallel) in [("one", false), ("two", true)] {
        store.create_topic(topic, &TopicSpec::new(KeyType::U32, 4)).expect("create");
        let mut p = store.producer(topic).expect("producer").with_parallel_batches(parallel);
        assert_eq!(p.send_batch(&batch).expect("batch"), 3000);
        assert_eq!(p.send_batch(&batch[..10]).expect("small batch"), 10);
    }
    // Same lines, same order, whichever thread encoded them.
    for part in 0..4 {
        let files = |t: &str| {
            let mut v: Vec<_> = std::fs::read_dir(dir.path().join(t))
                .expect("dir")
                .map(|e| e.expect("entry").path())
                .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(&format!("{part}-"))))
                .collect();
            v.sort();
            v.iter().map(|p| std::fs::read(p).expect("read")).collect::<Vec<_>>()
        };
        let (one, two) = (files("one"), files("two"));
        assert!(!one.is_empty());
        assert_eq!(one, two, "partition {part}");
    }
    // Within each partition, messages are in batch order.
    let msgs = drain(&mut store.consumer("two", StartFrom::Start).expect("consumer"));
    assert_eq!(msgs.len(), 3010);
    let mut last = [-1i64; 4];
    for m in msgs.iter().take_while(|m| m.offset < 700) {
        let seq: i64 = m.text().expect("text").split(' ').nth(1).expect("seq").parse().expect("number");
        assert!(seq > last[m.partition as usize] || seq < 10, "partition {} went back to {seq}", m.partition);
        last[m.partition as usize] = seq;
    }
}

#[test]
fn a_bad_message_anywhere_in_a_large_batch_writes_nothing() {
    let (_d, store) = store();
    store.create_topic("t", &TopicSpec::new(KeyType::U8, 2)).expect("create");
    let mut p = store.producer("t").expect("producer").with_parallel_batches(true);
    let mut batch: Vec<(Key, Outgoing)> = (0..1000u32).map(|i| (Key::from(i % 200), Outgoing::Text(format!("m{i}")))).collect();
    // A bad key in the second half (the other thread's) ...
    batch[900] = (Key::from(300u32), Outgoing::Text("too big a key".into()));
    assert_eq!(p.send_batch(&batch).expect_err("bad key").code(), "key_out_of_range");
    // ... and an unknown type in the first: the first in message order is reported.
    batch[10] = (Key::from(1u32), Outgoing::Typed { class: "Nope".into(), json: "{}".into() });
    assert_eq!(p.send_batch(&batch).expect_err("unknown type").code(), "unknown_message_type");
    assert!(drain(&mut store.consumer("t", StartFrom::Start).expect("consumer")).is_empty());
}

#[test]
fn a_topic_deleted_and_made_again_by_another_process_is_indexed_afresh() {
    let (dir, store) = store();
    store.create_topic("t", &TopicSpec::new(KeyType::U32, 1)).expect("create");
    let mut p = store.producer("t").expect("producer");
    for i in 0..10u32 {
        p.send_text(i, &format!("old {i}")).expect("send");
    }
    assert_eq!(store.end_offsets("t").expect("end"), vec![10]);
    drop(p);

    // Another process deletes the topic and fills a new one of the same name:
    // same file names, longer files, other lines.
    std::fs::remove_file(dir.path().join("t.twc")).expect("rm config");
    std::fs::remove_dir_all(dir.path().join("t")).expect("rm dir");
    let other = Store::open(dir.path()).expect("open again");
    other.create_topic("t", &TopicSpec::new(KeyType::U32, 1)).expect("create again");
    let batch: Vec<(Key, Outgoing)> = (0..3000u32).map(|i| (Key::Int(i.into()), Outgoing::Text(format!("new message {i}")))).collect();
    other.producer("t").expect("producer").send_batch(&batch).expect("send");

    assert_eq!(store.end_offsets("t").expect("end"), vec![3000]);
    let mut c = store.consumer_of("t", &[0], StartFrom::Offset(2500)).expect("consumer");
    let m = c.poll().expect("poll").expect("a message");
    assert_eq!((m.offset, m.text()), (2500, Some("new message 2500")));
}

#[test]
fn an_index_cache_outside_the_store_spares_the_rescan_and_none_goes_inside() {
    let (dir, store) = store();
    let cache = tempfile::tempdir().expect("cache");
    store.create_topic("t", &TopicSpec::new(KeyType::U32, 3)).expect("create");
    let batch: Vec<(Key, Outgoing)> = (0..20_000u32).map(|i| (Key::Int(i.into()), Outgoing::Text(format!("message {i}")))).collect();
    store.producer("t").expect("producer").send_batch(&batch).expect("send");
    let listing = |p: &std::path::Path| {
        let mut v: Vec<_> = std::fs::read_dir(p).expect("dir").map(|e| e.expect("entry").file_name()).collect();
        v.sort();
        v
    };
    let before = listing(dir.path());

    let first = Store::open(dir.path()).expect("open").with_index_cache(cache.path());
    let d1 = first.describe_topic("t").expect("describe");
    assert!(first.index_scanned_bytes() >= d1.bytes);
    first.save_index().expect("save");
    assert_eq!(listing(dir.path()), before, "nothing written inside the store");
    assert_eq!(listing(cache.path()).len(), 1, "one cache file for the store");

    let second = Store::open(dir.path()).expect("open").with_index_cache(cache.path());
    let d2 = second.describe_topic("t").expect("describe");
    assert_eq!((d2.messages, d2.bytes), (d1.messages, d1.bytes));
    assert_eq!(second.index_scanned_bytes(), 0, "the cached counts were taken");
    let mut c = second.consumer_of("t", &[1], StartFrom::Offset(5000)).expect("consumer");
    assert_eq!(c.poll().expect("poll").expect("message").offset, 5000);

    // A cache folder inside the store is not used.
    let inside = Store::open(dir.path()).expect("open").with_index_cache(dir.path().join("cache"));
    inside.describe_topic("t").expect("describe");
    inside.save_index().expect("save");
    assert_eq!(listing(dir.path()), before);
}

/// A caller that could not deliver a polled message (the Python package,
/// when its dataclass is not registered) puts it back: it comes first again,
/// and until then the positions a commit would use stand at it.
#[test]
fn a_message_put_back_comes_again_and_positions_stay_before_it() {
    let (_d, store) = store();
    store.create_topic("t", &TopicSpec::new(KeyType::U16, 2)).expect("create");
    let mut p = store.producer("t").expect("producer");
    for i in 0..6u16 {
        p.send_text(i, &format!("m{i}")).expect("send");
    }
    let mut c = store.consumer("t", StartFrom::Start).expect("consumer");
    let first = c.poll().expect("poll").expect("a message");
    let (part, off) = (first.partition, first.offset);
    c.put_back(first.clone());
    assert!(c.positions().contains(&(part, off)), "the position is back at the message put back: {:?}", c.positions());
    assert_eq!(c.poll().expect("poll").expect("again"), first);
    assert!(c.positions().contains(&(part, off + 1)));
    // Everything else still comes exactly once.
    let rest = drain(&mut c);
    assert_eq!(rest.len(), 5);
    assert!(!rest.contains(&first));
}

/// 0.2.3's consumer polls partition 1 first; `start_after(0)` gives that order.
#[test]
fn start_after_sets_which_partition_is_polled_first() {
    let (_d, store) = store();
    store.create_topic("t", &TopicSpec::new(KeyType::U16, 3)).expect("create");
    let mut p = store.producer("t").expect("producer");
    for k in 0..30u16 {
        p.send_text(k, "x").expect("send");
    }
    let mut c = store.consumer("t", StartFrom::Start).expect("consumer");
    assert_eq!(c.poll().expect("poll").expect("msg").partition, 0);
    let mut c = store.consumer("t", StartFrom::Start).expect("consumer");
    c.start_after(0);
    let order: Vec<u32> = (0..4).map(|_| c.poll().expect("poll").expect("msg").partition).collect();
    assert_eq!(order, vec![1, 2, 0, 1]);
}

/// A partition file cut short in place (same file, fewer lines) is named with what it held
/// and holds, in the run that saw it whole and in a later run through the index cache; a
/// file deleted, replaced or only appended to is no shrink.
#[test]
fn a_file_cut_short_is_named_with_its_lines_before_and_after() {
    let (dir, store) = store();
    let cache = tempfile::tempdir().expect("cache");
    let store = store.with_index_cache(cache.path());
    store.create_topic("t", &TopicSpec::new(KeyType::U32, 2)).expect("create");
    let batch: Vec<(Key, Outgoing)> = (0..200u32).map(|i| (Key::Int(i.into()), Outgoing::Text(format!("message {i}")))).collect();
    store.producer("t").expect("producer").send_batch(&batch).expect("send");
    let before = store.describe_topic("t").expect("describe");
    let file = |p: usize| before.partition_details[p].files[0].clone();
    let (f0, f1) = (file(0), file(1));
    store.producer("t").expect("producer").send_batch(&batch[..10]).expect("appended: no shrink");
    let whole = store.describe_topic("t").expect("describe");
    assert!(store.shrunk_files().is_empty());
    let lines_of_f0 = whole.partition_details[0].end;
    store.save_index().expect("save");

    // Cut to 30 whole lines and half a line, in place.
    let cut = |name: &str, lines: usize| {
        let path = dir.path().join("t").join(name);
        let bytes = std::fs::read(&path).expect("read");
        let end = bytes.iter().enumerate().filter(|(_, b)| **b == b'\n').nth(lines - 1).map(|(i, _)| i + 1).expect("lines");
        let f = std::fs::OpenOptions::new().write(true).open(&path).expect("open");
        f.set_len((end + 5) as u64).expect("truncate");
    };
    cut(&f0.name, 30);
    let after = store.describe_topic("t").expect("describe");
    let shrinks = store.shrunk_files();
    assert_eq!(shrinks.len(), 1, "{shrinks:?}");
    let s = &shrinks[0];
    assert_eq!(s.path.file_name().and_then(|n| n.to_str()), Some(f0.name.as_str()));
    assert_eq!((s.lines_after, after.partition_details[0].end), (30, 30));
    assert_eq!(s.lines_before, lines_of_f0);
    assert!(s.bytes_after < s.bytes_before);

    // Another run, through the cache: the other partition cut while nothing was open.
    let lines_of_f1 = store.describe_topic("t").expect("describe").partition_details[1].end;
    store.save_index().expect("save");
    cut(&f1.name, 7);
    let later = Store::open(dir.path()).expect("open").with_index_cache(cache.path());
    later.describe_topic("t").expect("describe");
    let shrinks = later.shrunk_files();
    assert_eq!(shrinks.iter().map(|s| (s.lines_before, s.lines_after)).collect::<Vec<_>>(), vec![(lines_of_f1, 7)], "{shrinks:?}");

    // Deleted and made again: another file, not a shrink.
    store.delete_topic("t").expect("delete");
    store.create_topic("t", &TopicSpec::new(KeyType::U32, 2)).expect("create");
    store.producer("t").expect("producer").send_text(Key::Int(1), "new").expect("send");
    store.describe_topic("t").expect("describe");
    assert_eq!(store.shrunk_files().len(), 1, "only the cut");
}
