//! Partial and damaged lines are never returned as messages, and never stall a reader.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::PathBuf;

use twainmq::{Error, KeyType, StartFrom, Store, TopicSpec};

fn setup() -> (tempfile::TempDir, Store, PathBuf) {
    let dir = tempfile::tempdir().expect("tmp");
    let store = Store::open(dir.path()).expect("open");
    store.create_topic("t", &TopicSpec::new(KeyType::U8, 1)).expect("create");
    store.producer("t").expect("p").send_text(1u8, "first").expect("send");
    let file = dir.path().join("t").join(format!("0-{}_0.tmf", store.today()));
    assert!(file.exists());
    (dir, store, file)
}

fn append(path: &PathBuf, bytes: &[u8]) {
    OpenOptions::new().append(true).open(path).expect("open").write_all(bytes).expect("write");
}

/// Partition 0 of topic `t` read from its start: the messages' texts, and how many damaged lines were skipped.
fn texts_and_damaged_lines(store: &Store) -> (Vec<String>, usize) {
    let mut r = store.partition_reader("t", 0, StartFrom::Start).expect("reader");
    let mut texts = Vec::new();
    let mut damaged = 0;
    loop {
        match r.poll() {
            Ok(Some(m)) => texts.push(m.text().unwrap_or_default().to_string()),
            Ok(None) => return (texts, damaged),
            Err(Error::CorruptLine { .. }) => damaged += 1,
            Err(e) => panic!("{e}"),
        }
    }
}

fn line_for(text: &str) -> Vec<u8> {
    let mut codec = twainmq::internals::line::Codec::default();
    let mut line = Vec::new();
    codec.encode_line(KeyType::U8, &1u8.into(), 1.0, text.as_bytes(), &mut line).expect("encode");
    line
}

#[test]
fn a_line_being_written_is_not_returned_until_its_newline_lands() {
    let (_d, store, file) = setup();
    let mut r = store.partition_reader("t", 0, StartFrom::Start).expect("reader");
    assert_eq!(r.poll().expect("poll").expect("first").text(), Some("first"));
    let line = line_for("second");
    let (head, tail) = line.split_at(7);
    append(&file, head);
    for _ in 0..3 {
        assert!(r.poll().expect("poll").is_none(), "partial line returned");
    }
    append(&file, tail);
    let m = r.poll().expect("poll").expect("second");
    assert_eq!((m.offset, m.text()), (1, Some("second")));
}

#[test]
fn corrupt_lines_are_reported_with_their_place_and_skipped() {
    let (_d, store, file) = setup();
    append(&file, b"this is not a message\n");
    append(&file, b"\xff\xfe\x00garbage\n");
    append(&file, &line_for("after"));
    let mut r = store.partition_reader("t", 0, StartFrom::Start).expect("reader");
    assert_eq!(r.poll().expect("poll").expect("first").offset, 0);
    for (offset, line) in [(1u64, 2u64), (2, 3)] {
        match r.poll() {
            Err(Error::CorruptLine { offset: o, line: l, path, .. }) => {
                assert_eq!((o, l), (offset, line));
                assert_eq!(path, file);
            }
            other => panic!("expected a corrupt line, got {other:?}"),
        }
    }
    let m = r.poll().expect("poll").expect("after");
    assert_eq!((m.offset, m.text()), (3, Some("after")));
    assert!(r.poll().expect("poll").is_none());
    // The consumer surfaces the same and goes on.
    let mut c = store.consumer("t", StartFrom::Start).expect("consumer");
    let mut ok = 0;
    let mut bad = 0;
    for _ in 0..10 {
        match c.poll() {
            Ok(Some(_)) => ok += 1,
            Ok(None) => break,
            Err(_) => bad += 1,
        }
    }
    assert_eq!((ok, bad), (2, 2));
}

#[test]
fn a_torn_tail_before_a_later_file_is_reported_and_the_next_file_is_read() {
    let (d, store, file) = setup();
    append(&file, &line_for("torn")[..9]);
    let next = d.path().join("t").join("0-20991231_2.tmf");
    std::fs::write(&next, line_for("next day")).expect("write");
    let mut r = store.partition_reader("t", 0, StartFrom::Start).expect("reader");
    assert_eq!(r.poll().expect("poll").expect("first").offset, 0);
    match r.poll() {
        Err(Error::CorruptLine { offset: 1, problem: twainmq::internals::line::Corrupt::TornTail { len: 9 }, .. }) => {}
        other => panic!("expected a torn tail, got {other:?}"),
    }
    let m = r.poll().expect("poll").expect("next day");
    assert_eq!((m.offset, m.text()), (2, Some("next day")));
    // The producer counts the torn line, as 0.2.3 does, when it starts a file.
    assert_eq!(twainmq::internals::LineIndex::default().count(&file).expect("count").python_lines(), 2);
}

#[test]
fn an_overlong_garbage_line_is_skipped_without_unbounded_memory() {
    let (_d, store, file) = setup();
    append(&file, &vec![b'x'; 3 << 20]);
    append(&file, b"\n");
    append(&file, &line_for("after"));
    let mut r = store.partition_reader("t", 0, StartFrom::Start).expect("reader");
    assert!(r.poll().expect("poll").is_some());
    assert!(matches!(r.poll(), Err(Error::CorruptLine { offset: 1, problem: twainmq::internals::line::Corrupt::Overlong { .. }, .. })));
    assert_eq!(r.poll().expect("poll").expect("after").text(), Some("after"));
}

#[test]
fn unknown_type_ids_decode_generically() {
    let (_d, store, file) = setup();
    let mut raw = vec![0xFB, 0x00, 0x09];
    raw.extend_from_slice(br#"{"a":1}"#);
    let mut codec = twainmq::internals::line::Codec::default();
    let mut line = Vec::new();
    codec.encode_line(KeyType::U8, &2u8.into(), 1.0, &raw, &mut line).expect("encode");
    append(&file, &line);
    let mut r = store.partition_reader("t", 0, StartFrom::Offset(1)).expect("reader");
    let m = r.poll().expect("poll").expect("typed");
    match m.payload {
        twainmq::Payload::Typed(t) => assert_eq!((t.type_id, t.class, t.json.as_str()), (9, None, r#"{"a":1}"#)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_torn_tail_never_swallows_the_next_message() {
    let (_d, store, file) = setup();
    // A producer crashed in the middle of a line.
    append(&file, &line_for("torn by a crash")[..11]);
    let mut p = store.producer("t").expect("producer");
    p.send_text(1u8, "next message").expect("send");
    let mut r = store.partition_reader("t", 0, StartFrom::Start).expect("reader");
    assert_eq!(r.poll().expect("poll").expect("first").text(), Some("first"));
    assert!(matches!(r.poll(), Err(Error::CorruptLine { offset: 1, .. })), "the torn fragment is a damaged line");
    let m = r.poll().expect("poll").expect("the next message survives");
    assert_eq!((m.offset, m.text()), (2, Some("next message")));
    // A check lists nothing but the damaged line.
    let problems = twainmq::check::check_topic(&store, "t").expect("check");
    assert_eq!(problems.iter().map(|p| (p.kind, p.line)).collect::<Vec<_>>(), vec![("damaged_line", Some(2))]);
}

#[test]
fn check_reports_each_problem_with_its_place() {
    let (d, store, file) = setup();
    append(&file, b"garbage\n");
    std::fs::write(d.path().join("t").join("notes.txt"), b"x").expect("write");
    std::fs::write(d.path().join("t").join("0-20000101_50.tmf"), b"").expect("write");
    let problems = twainmq::check::check_topic(&store, "t").expect("check");
    let kinds: Vec<&str> = problems.iter().map(|p| p.kind).collect();
    assert!(kinds.contains(&"unknown_file"), "{problems:?}");
    assert!(kinds.contains(&"offset_gap") || kinds.contains(&"offset_overlap"), "{problems:?}");
    let damaged = problems.iter().find(|p| p.kind == "damaged_line").expect("damaged line");
    assert_eq!((damaged.line, damaged.offset), (Some(2), Some(1)));
    std::fs::write(d.path().join("t.twc"), b"{").expect("write");
    assert_eq!(twainmq::check::check_topic(&store, "t").expect("check")[0].kind, "corrupt_config");
}

#[test]
fn a_torn_line_left_by_another_writer_does_not_swallow_a_live_producers_next_message() {
    let (_d, store, file) = setup();
    // A fixed clock: the glued line's payload is a misaligned run of our line's
    // bytes (its timestamp's among them), which raw deflate, having no
    // checksum, now and then accepts as a message of garbage (the format's
    // limit, docs/FORMAT.md "Writing"). At this time it does not.
    let clock = twainmq::ManualClock::new(1_796_083_200_123_456);
    let store = store.with_clock(std::sync::Arc::new(clock));
    let mut p = store.producer("t").expect("producer");
    p.send_text(1u8, "live-1").expect("send");
    // Another writer's short write (a full disk, a crash) while ours is open.
    append(&file, &line_for("half a line")[..9]);
    p.send_text(1u8, "live-2").expect("send");
    p.send_text(1u8, "live-3").expect("send");
    // The producer learns of the other writer at its next check (a clock
    // 100 us on, 64 sends, or a flush, as here: the clock is fixed), and
    // writes live-2, glued to the torn line, again.
    p.flush().expect("flush");
    let (texts, damaged) = texts_and_damaged_lines(&store);
    // live-2 comes after live-3: written again at the check, after what was sent since
    // (the one case where a producer's own messages change order: else it was lost).
    assert_eq!(texts, vec!["first", "live-1", "live-3", "live-2"]);
    assert_eq!(damaged, 1, "the glued line is one damaged line");
}

#[test]
fn a_batch_landing_after_another_writers_torn_line_stores_each_message_once() {
    let (_d, store, file) = setup();
    let clock = twainmq::ManualClock::new(1_796_083_200_123_456);
    let store = store.with_clock(std::sync::Arc::new(clock));
    let mut p = store.producer("t").expect("producer");
    let batch = |texts: &[&str]| -> Vec<(twainmq::Key, twainmq::Outgoing)> {
        texts.iter().map(|t| (twainmq::Key::from(1u8), twainmq::Outgoing::Text((*t).to_string()))).collect()
    };
    p.send_batch(&batch(&["a-1", "a-2"])).expect("first batch");
    // Another writer killed inside its write: part of a line, no newline.
    append(&file, &line_for("half a line")[..9]);
    // Only the batch's first line is glued to that fragment; the others are
    // whole. The first is written again, the others not (they were once
    // written twice: every message of the write after the first).
    p.send_batch(&batch(&["b-1", "b-2", "b-3", "b-4"])).expect("second batch");
    p.flush().expect("flush");
    let (texts, damaged) = texts_and_damaged_lines(&store);
    assert_eq!(texts, vec!["first", "a-1", "a-2", "b-2", "b-3", "b-4", "b-1"]);
    assert_eq!(damaged, 1, "the glued line is one damaged line");
}
