//! Deliberate differences from 0.2.3 that no other suite pins (docs/FORMAT.md,
//! "Deliberate differences from 0.2.3", lists each with the test that pins it).

use std::time::{Duration, Instant};

use twainmq::{KeyType, StartFrom, Store, TopicSpec};

/// 0.2.3's reader, positioned at offset 0 before the partition's first file
/// exists, jumps to the end of that file once it appears, losing what was
/// written meanwhile. Ours starts at the first file's first line.
#[test]
fn a_reader_waiting_before_any_file_exists_reads_from_the_first_line() {
    let dir = tempfile::tempdir().expect("tmp");
    let store = Store::open(dir.path()).expect("open");
    store.create_topic("t", &TopicSpec::new(KeyType::U8, 1)).expect("create");
    let mut reader = store.partition_reader("t", 0, StartFrom::Start).expect("reader");
    assert!(reader.poll().expect("poll").is_none(), "no file yet");
    let mut producer = store.producer("t").expect("producer");
    for text in ["one", "two", "three"] {
        producer.send_text(1u8, text).expect("send");
    }
    let mut got = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(5);
    while got.len() < 3 && Instant::now() < deadline {
        match reader.poll().expect("poll") {
            Some(m) => got.push((m.offset, m.text().map(str::to_string))),
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    }
    assert_eq!(got, [(0, Some("one".into())), (1, Some("two".into())), (2, Some("three".into()))]);
}
