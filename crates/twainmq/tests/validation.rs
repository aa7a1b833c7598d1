//! Every validation error at engine level: a distinct variant, a message that
//! says what to do, and the store left exactly as it was.

use std::collections::BTreeMap;
use std::path::Path;

use twainmq::{Error, Key, KeyType, NameProblem, Outgoing, Store, TopicSpec};

fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).expect("dir") {
            let p = e.expect("entry").path();
            let rel = p.strip_prefix(root).expect("rel").to_string_lossy().into_owned();
            if p.is_dir() {
                out.insert(format!("{rel}/"), Vec::new());
                walk(&p, root, out);
            } else {
                out.insert(rel, std::fs::read(&p).expect("read"));
            }
        }
    }
    walk(root, root, &mut out);
    out
}

fn setup() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("tmp");
    let store = Store::open(dir.path()).expect("open");
    store.create_topic("u8t", &TopicSpec::new(KeyType::U8, 2)).expect("create");
    store.create_topic("c8", &TopicSpec::new(KeyType::Char(8), 1).with_types(["Event"])).expect("create");
    store.create_topic("u64t", &TopicSpec::new(KeyType::U64, 1)).expect("create");
    store.producer("u8t").expect("p").send_text(1u8, "x").expect("send");
    (dir, store)
}

#[test]
fn bad_topic_names_are_refused_with_the_reason() {
    let (d, store) = setup();
    let before = snapshot(d.path());
    let long = "x".repeat(300);
    type Check = fn(&NameProblem) -> bool;
    let cases: Vec<(&str, Check)> = vec![
        ("..", |p| *p == NameProblem::DotName),
        (".", |p| *p == NameProblem::DotName),
        ("a/b", |p| matches!(p, NameProblem::BadChar { ch: '/', .. })),
        ("a\\b", |p| matches!(p, NameProblem::BadChar { ch: '\\', .. })),
        ("", |p| *p == NameProblem::Empty),
        ("ünï", |p| matches!(p, NameProblem::BadChar { ch: 'ü', .. })),
        (&long, |p| matches!(p, NameProblem::TooLong { len: 300, .. })),
        ("--group--x", |p| *p == NameProblem::GroupPrefix),
        ("../../etc", |p| matches!(p, NameProblem::BadChar { ch: '/', .. })),
        ("a\0b", |p| matches!(p, NameProblem::BadChar { ch: '\0', .. })),
    ];
    for (name, check) in cases {
        for result in [
            store.create_topic(name, &TopicSpec::default()).map(|_| ()),
            store.delete_topic(name).map(|_| ()),
            store.producer(name).map(|_| ()),
        ] {
            match result {
                Err(Error::InvalidTopicName { problem, .. }) => assert!(check(&problem), "{name:?}: {problem:?}"),
                other => panic!("{name:?}: {other:?}"),
            }
        }
    }
    assert_eq!(snapshot(d.path()), before);
}

#[test]
fn bad_specs_are_refused() {
    let (d, store) = setup();
    let before = snapshot(d.path());
    assert!(matches!(store.create_topic("a", &TopicSpec::new(KeyType::U8, 0)), Err(Error::InvalidPartitionCount { .. })));
    assert!(matches!(store.create_topic("a", &TopicSpec::new(KeyType::U8, 100_000)), Err(Error::InvalidPartitionCount { .. })));
    assert!(matches!(store.create_topic("a", &TopicSpec::new(KeyType::Char(0), 1)), Err(Error::InvalidKeyType { .. })));
    assert!(matches!(store.create_topic("a", &TopicSpec::default().with_types(["A", "A"])), Err(Error::InvalidMessageTypeName { .. })));
    assert!(matches!(store.create_topic("a", &TopicSpec::default().with_types([""])), Err(Error::InvalidMessageTypeName { .. })));
    assert!(matches!(store.create_topic("u8t", &TopicSpec::default()), Err(Error::TopicExists { .. })));
    assert_eq!(snapshot(d.path()), before);
}

#[test]
fn bad_keys_payloads_and_sizes_are_refused() {
    let (d, store) = setup();
    let before = snapshot(d.path());
    let mut u8p = store.producer("u8t").expect("p");
    assert!(matches!(u8p.send_text(256u16, "x"), Err(Error::KeyOutOfRange { max: 255, .. })));
    assert!(matches!(u8p.send_text("a", "x"), Err(Error::KeyWrongKind { .. })));
    assert!(matches!(u8p.parse_key("-1"), Err(Error::KeyWrongKind { .. })));
    assert!(matches!(u8p.parse_key("1e3"), Err(Error::KeyWrongKind { .. })));
    let u64p = store.producer("u64t").expect("p");
    assert!(matches!(u64p.parse_key("18446744073709551616"), Err(Error::KeyOutOfRange { .. })));
    assert!(u64p.parse_key("18446744073709551615").is_ok());
    let mut c8 = store.producer("c8").expect("p");
    assert!(matches!(c8.send_text("123456789", "x"), Err(Error::KeyTooLong { bytes: 9, max: 8, .. })));
    assert!(matches!(c8.send_text("日本語", "x"), Err(Error::KeyTooLong { bytes: 9, .. })));
    assert!(matches!(
        c8.send(&Key::from("k"), &Outgoing::typed("Nope", &serde_json::json!({})).expect("json")),
        Err(Error::UnknownMessageType { .. })
    ));
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let big: Vec<u8> = (0..4000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 56) as u8
        })
        .collect();
    let err = c8.send_bytes("k", &big).expect_err("too long");
    assert!(matches!(err, Error::MessageTooLong { max: 4096, .. }), "{err:?}");
    assert!(err.to_string().contains("4096"));
    assert_eq!(snapshot(d.path()), before);
}

#[test]
fn missing_and_corrupt_configs_are_reported() {
    let (d, store) = setup();
    assert!(matches!(store.producer("nope"), Err(Error::TopicNotFound { .. })));
    assert!(matches!(store.consumer("nope", twainmq::StartFrom::Start), Err(Error::TopicNotFound { .. })));
    std::fs::write(d.path().join("u8t.twc"), b"{not json").expect("write");
    let before = snapshot(d.path());
    let err = store.producer("u8t").expect_err("corrupt");
    assert!(matches!(err, Error::CorruptConfig { .. }), "{err:?}");
    assert!(err.to_string().contains("u8t.twc"));
    assert!(matches!(store.consumer("u8t", twainmq::StartFrom::Start), Err(Error::CorruptConfig { .. })));
    assert!(matches!(store.describe_topic("u8t"), Err(Error::CorruptConfig { .. })));
    assert_eq!(snapshot(d.path()), before);
    assert!(matches!(Store::open(d.path().join("missing")), Err(Error::StoreNotFound { .. })));
}

/// A store path that is a file (or, on Unix, a FIFO) is not called missing: the
/// message says what is there, and nothing is opened (a FIFO would block).
#[test]
fn a_store_path_that_is_not_a_folder_says_what_it_is() {
    let d = tempfile::tempdir().expect("tmp");
    let missing = Store::open(d.path().join("missing")).expect_err("missing");
    assert!(matches!(&missing, Error::StoreNotFound { .. }), "{missing:?}");
    assert!(missing.to_string().contains("create it first"), "{missing}");
    let file = d.path().join("file");
    std::fs::write(&file, b"x").expect("write");
    let err = Store::open(&file).expect_err("a file");
    assert!(matches!(&err, Error::StoreNotAFolder { found: "a regular file", .. }), "{err:?}");
    assert_eq!(err.code(), "store_not_a_folder");
    assert!(err.to_string().contains("is a regular file, not a folder"), "{err}");
    assert!(!err.to_string().contains("create it first"), "{err}");
    #[cfg(unix)]
    {
        let fifo = d.path().join("fifo");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
        let err = Store::open(&fifo).expect_err("a FIFO");
        assert!(matches!(&err, Error::StoreNotAFolder { found: "a FIFO", .. }), "{err:?}");
    }
}

#[test]
fn error_messages_say_what_to_do() {
    let e = Error::KeyOutOfRange { topic: "t".into(), key: "256".into(), key_type: KeyType::U8, max: 255 };
    assert!(e.to_string().contains("largest u8 key is 255"));
    let (_d, store) = setup();
    let e = store.producer("nope").expect_err("missing");
    assert!(e.to_string().contains("twainmq topics create nope"), "{e}");
}

#[test]
fn open_existing_refuses_folders_without_a_store_and_says_which() {
    let d = tempfile::tempdir().expect("tmp");
    assert!(matches!(Store::open_existing(d.path().join("missing")), Err(Error::StoreNotFound { .. })));
    let err = Store::open_existing(d.path()).expect_err("empty");
    assert_eq!(err.code(), "empty_folder", "{err}");
    std::fs::write(d.path().join("notes.txt"), b"hi").expect("write");
    let inner = d.path().join("inner");
    Store::open_or_create(&inner).expect("create").create_topic("t", &TopicSpec::new(KeyType::U8, 1)).expect("topic");
    let before = snapshot(d.path());
    let err = Store::open_existing(d.path()).expect_err("not a store");
    assert_eq!(err.code(), "not_a_store", "{err}");
    assert!(matches!(&err, Error::NotAStore { stores, .. } if stores == &vec![inner.clone()]), "{err:?}");
    assert!(err.to_string().contains("inner"), "{err}");
    assert_eq!(snapshot(d.path()), before, "refusing writes nothing");
    let store = Store::open_existing(&inner).expect("a store");
    assert_eq!(store.list_topics().expect("topics"), vec!["t".to_string()]);
}

#[test]
fn last_message_is_the_newest_messages_own_time_not_a_file_time() {
    let d = tempfile::tempdir().expect("tmp");
    // Messages written "in 2020": the files' times are today's.
    let t0 = 1_600_000_000.0;
    let clock = twainmq::ManualClock::new((t0 * 1e6) as i64);
    let store = Store::open(d.path()).expect("open").with_clock(std::sync::Arc::new(clock.clone()));
    store.create_topic("t", &TopicSpec::new(KeyType::U8, 2)).expect("topic");
    let mut p = store.producer("t").expect("producer");
    p.send_text(1u8, "a").expect("send");
    clock.advance(5_000_000);
    p.send_text(1u8, "b").expect("send");
    let desc = store.describe_topic("t").expect("describe");
    let busy = desc.partition_details.iter().find(|x| x.end > 0).expect("a partition with messages");
    assert_eq!(busy.last_message, Some(t0 + 5.0));
    assert!(desc.partition_details.iter().any(|x| x.end == 0 && x.last_message.is_none()), "an empty partition has none");
    assert_eq!(desc.last_message, Some(t0 + 5.0));
    assert!(desc.last_write.is_some_and(|w| w > t0 + 1e6), "the file time is now, not the messages' time");
    let totals = store.topic_summary("t", true).totals.expect("asked").expect("counted");
    assert_eq!(totals.last_message, Some(t0 + 5.0));
}

/// 0.2.3 numbers a topic's message types with `{name: i for i, name in
/// enumerate(types)}`: a name listed twice keeps its first place and takes
/// its last one's id. A list numbered that way makes 0.2.3's config, byte for
/// byte; the plain list refuses the repeat.
#[test]
fn message_types_numbered_as_0_2_3_numbers_a_list_with_repeats() {
    let dir = tempfile::tempdir().expect("tmp");
    let store = Store::open(dir.path()).expect("open");
    let spec = TopicSpec::new(KeyType::U16, 1).with_types_as_023_numbers_them(["A", "B", "A", "C"]);
    let config = store.create_topic("t", &spec).expect("create");
    assert_eq!(config.message_types, vec![("A".to_string(), 2), ("B".to_string(), 1), ("C".to_string(), 3)]);
    // json.dump({"key_width": 2, "partitions": 1, "message_types": {"A": 2, "B": 1, "C": 3}}, f, indent=0)
    let want = "{\n\"key_width\": 2,\n\"partitions\": 1,\n\"message_types\": {\n\"A\": 2,\n\"B\": 1,\n\"C\": 3\n}\n}";
    assert_eq!(std::fs::read_to_string(dir.path().join("t.twc")).expect("read"), want);
    let e = store.create_topic("u", &TopicSpec::new(KeyType::U16, 1).with_types(["A", "A"])).expect_err("listed twice");
    assert!(e.to_string().contains("twice"), "{e}");
}
