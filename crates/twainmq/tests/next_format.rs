//! The format's next version (docs/FORMAT.md, Part 3): large messages and free
//! keys, through the engine. 0.2.3's own reactions to such topics are pinned in
//! tests/interop/test_next_format.py; runs across processes, kills and file
//! systems in tests/torture/test_next_format.py.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use twainmq::{Clock, Error, Key, KeyType, Message, Outgoing, Payload, StartFrom, Store, TopicSpec};

const MIB: u64 = 1 << 20;

fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("tmp");
    let store = Store::open(dir.path()).expect("open");
    (dir, store)
}

fn drain(c: &mut twainmq::Consumer) -> Vec<Message> {
    let mut out = Vec::new();
    loop {
        match c.poll() {
            Ok(Some(m)) => out.push(m),
            Ok(None) => return out,
            Err(e @ Error::CorruptLine { .. }) => {
                eprintln!("skipped: {e}");
                continue;
            }
            Err(e) => panic!("poll: {e}"),
        }
    }
}

fn read_partition(store: &Store, topic: &str, p: u32, from: u64) -> Vec<Message> {
    let mut r = store.partition_reader(topic, p, StartFrom::Offset(from)).expect("reader");
    let mut out = Vec::new();
    loop {
        match r.poll() {
            Ok(Some(m)) => out.push(m),
            Ok(None) => return out,
            Err(Error::CorruptLine { .. }) => continue,
            Err(e) => panic!("poll: {e}"),
        }
    }
}

/// A payload of `n` bytes that deflate shrinks some, not all (random words).
fn text_of(n: usize, seed: u64) -> String {
    let words = ["alpha", "beta", "gamma", "delta", "{\"id\":", "42}", "lorem", "ipsum", "ключ", "🔑"];
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut s = String::with_capacity(n + 8);
    while s.len() < n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        s.push_str(words[(x % words.len() as u64) as usize]);
        s.push(char::from(b'a' + (x >> 40) as u8 % 26));
    }
    while s.len() > n {
        s.pop();
    }
    s
}

fn bytes_of(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

fn lines_of(dir: &std::path::Path, topic: &str) -> Vec<Vec<u8>> {
    let mut names: Vec<_> = std::fs::read_dir(dir.join(topic))
        .expect("ls")
        .map(|e| e.expect("e").path())
        .filter(|p| p.extension().is_some_and(|e| e == "tmf"))
        .collect();
    names.sort();
    names
        .iter()
        .flat_map(|p| std::fs::read(p).expect("read").split_inclusive(|b| *b == b'\n').map(<[u8]>::to_vec).collect::<Vec<_>>())
        .collect()
}

#[test]
fn messages_of_every_size_and_kind_round_trip_and_every_line_stays_within_4096_bytes() {
    let (dir, store) = store();
    let max = MIB + MIB / 2;
    let spec = TopicSpec::new(KeyType::Any, 1).with_types(["Doc"]).with_large_messages(max);
    store.create_topic("big", &spec).expect("create");
    let mut p = store.producer("big").expect("producer");
    let sizes = [0usize, 1, 100, 3_000, 4_095, 4_096, 5_000, 65_535, 65_536, 200_000, 1 << 20, max as usize];
    let mut sent: Vec<(Key, Outgoing)> = Vec::new();
    for (i, &n) in sizes.iter().enumerate() {
        let seed = i as u64 + 1;
        sent.push((Key::Str(format!("text-{n}")), Outgoing::Text(text_of(n, seed))));
        sent.push((Key::Bytes(vec![0, (i % 256) as u8]), Outgoing::Bytes(bytes_of(n, seed))));
        // A typed message's JSON of about n bytes (the limit counts its JSON).
        let json = format!("{{\"s\":{}}}", serde_json::to_string(&text_of(n.saturating_sub(8), seed)).expect("json"));
        if json.len() as u64 <= max {
            sent.push((Key::Null, Outgoing::Typed { class: "Doc".into(), json }));
        }
    }
    for (k, o) in &sent {
        p.send(k, o).unwrap_or_else(|e| panic!("send {} {:?}: {e}", k, o_kind(o)));
    }
    p.flush().expect("flush");
    let got = drain(&mut store.consumer("big", StartFrom::Start).expect("consumer"));
    assert_eq!(got.len(), sent.len());
    for (m, (k, o)) in got.iter().zip(&sent) {
        assert_eq!(&m.key, k);
        match (&m.payload, o) {
            (Payload::Text(a), Outgoing::Text(b)) => assert!(a == b, "text of {} bytes", b.len()),
            (Payload::Bytes(a), Outgoing::Bytes(b)) => assert!(a == b, "bytes of {}", b.len()),
            (Payload::Typed(t), Outgoing::Typed { class, json }) => {
                assert_eq!(t.class.as_deref(), Some(class.as_str()));
                assert!(&t.json == json);
            }
            (a, b) => panic!("{} came back as {}", o_kind(b), a.kind()),
        }
    }
    // Offsets grow and skip the lines of earlier parts; no line is over 4096 bytes.
    assert!(got.windows(2).all(|w| w[0].offset < w[1].offset));
    let lines = lines_of(dir.path(), "big");
    assert!(lines.iter().all(|l| l.len() <= 4096 && l.ends_with(b"\n")));
    assert!(lines.len() > sent.len() + 100, "large messages took several lines");
    assert_eq!(got.last().map(|m| m.offset + 1), Some(lines.len() as u64), "a message's offset is its end part's line");
    // One byte over the limit is refused, naming it; nothing is written.
    let before = lines.len();
    let over = p.send_bytes(Key::Null, &vec![1u8; max as usize + 1]).expect_err("over the limit");
    assert!(matches!(over, Error::MessageTooLarge { len, max: m, .. } if len == max + 1 && m == max), "{over}");
    assert_eq!(lines_of(dir.path(), "big").len(), before);
    assert!(twainmq::check::check_store(&store).expect("check").is_empty());
}

fn o_kind(o: &Outgoing) -> &'static str {
    match o {
        Outgoing::Text(_) => "text",
        Outgoing::Bytes(_) => "bytes",
        Outgoing::Typed { .. } => "typed",
    }
}

#[test]
fn free_keys_of_every_kind_round_trip_and_partition_as_0_2_3_partitions_strings() {
    let (_d, store) = store();
    store.create_topic("keys", &TopicSpec::new(KeyType::Any, 7)).expect("create");
    let mut p = store.producer("keys").expect("producer");
    let keys = vec![
        Key::Str(String::new()),
        Key::Str("ключ 🔑 ✓".into()),
        Key::Str("k".repeat(1000)),
        Key::Bytes(vec![]),
        Key::Bytes((0..=255).collect()),
        Key::Bytes(vec![0xAB; 1000]),
        Key::Str("x".repeat(twainmq::limits::MAX_FREE_KEY_BYTES)),
        Key::Null,
    ];
    for (i, k) in keys.iter().enumerate() {
        let d = p.send_text(k.clone(), &format!("m{i}")).expect("send");
        if *k != Key::Null {
            assert_eq!(d.partition, twainmq::partition_for(k, 7), "{k}");
        }
        // A text key goes where a charN topic sends it; bytes where the text of those bytes goes.
        if let Key::Str(s) = k {
            assert_eq!(twainmq::partition_for(k, 7), twainmq::partition_for(&Key::Bytes(s.as_bytes().to_vec()), 7));
        }
    }
    // The same key again reuses its id: the table grows by no entry.
    let table = store.root().join("keys").join("keys.twk");
    let len = std::fs::metadata(&table).expect("table").len();
    for k in &keys {
        p.send_text(k.clone(), "again").expect("send");
    }
    assert_eq!(std::fs::metadata(&table).expect("table").len(), len);
    let got = drain(&mut store.consumer("keys", StartFrom::Start).expect("consumer"));
    let mut seen: BTreeMap<String, Key> = BTreeMap::new();
    for m in &got {
        seen.insert(m.text().expect("text").to_string(), m.key.clone());
    }
    for (i, k) in keys.iter().enumerate() {
        assert_eq!(seen.get(&format!("m{i}")), Some(k));
    }
    // One byte too long is refused, and so are kinds the key type does not take.
    let too_long = p.send_text(Key::Str("x".repeat(twainmq::limits::MAX_FREE_KEY_BYTES + 1)), "x").expect_err("long");
    assert!(matches!(too_long, Error::KeyTooLong { .. }), "{too_long}");
    store.create_topic("texts", &TopicSpec::new(KeyType::Text, 1)).expect("create");
    let mut t = store.producer("texts").expect("producer");
    assert!(matches!(t.send_text(Key::Null, "x"), Err(Error::KeyWrongKind { .. })));
    assert!(matches!(t.send_text(Key::Bytes(vec![0xff]), "x"), Err(Error::KeyWrongKind { .. })));
    t.send_text(Key::Int(12), "an integer is its decimal text").expect("int");
    store.create_topic("raw", &TopicSpec::new(KeyType::Bytes, 1)).expect("create");
    let mut b = store.producer("raw").expect("producer");
    b.send_text(Key::Str("abc".into()), "text is its UTF-8 bytes").expect("text");
    let m = drain(&mut store.consumer("raw", StartFrom::Start).expect("c"));
    assert_eq!(m[0].key, Key::Bytes(b"abc".to_vec()));
    let m = drain(&mut store.consumer("texts", StartFrom::Start).expect("c"));
    assert_eq!(m[0].key, Key::Str("12".into()));
    // Null keys go round the partitions.
    let parts: std::collections::BTreeSet<u32> = (0..7).map(|_| p.send_text(Key::Null, "n").expect("null").partition).collect();
    assert_eq!(parts.len(), 7);
}

#[test]
fn extended_configs_have_key_width_0_and_plain_ones_stay_0_2_3s() {
    let (dir, store) = store();
    store.create_topic("any", &TopicSpec::new(KeyType::Any, 2)).expect("any");
    store.create_topic("large", &TopicSpec::new(KeyType::U32, 2).with_large_messages(MIB)).expect("large");
    store.create_topic("plain", &TopicSpec::new(KeyType::U32, 2)).expect("plain");
    let read = |t: &str| std::fs::read_to_string(dir.path().join(format!("{t}.twc"))).expect("twc");
    assert_eq!(
        read("any"),
        "{\n\"key_width\": 0,\n\"partitions\": 2,\n\"message_types\": {},\n\"extensions\": {\n\"key_type\": \"any\"\n}\n}"
    );
    assert_eq!(
        read("large"),
        "{\n\"key_width\": 0,\n\"partitions\": 2,\n\"message_types\": {},\n\"extensions\": {\n\"key_type\": \"u32\",\n\"max_message_bytes\": 1048576\n}\n}"
    );
    assert_eq!(read("plain"), "{\n\"key_width\": 4,\n\"partitions\": 2,\n\"message_types\": {}\n}");
    assert!(dir.path().join("any").join("keys.twk").is_file());
    assert!(!dir.path().join("large").join("keys.twk").exists());
    // Listings take the key table for no partition file and no topic.
    assert_eq!(store.list_topics().expect("list"), ["any", "large", "plain"]);
    assert!(store.describe_topic("any").expect("describe").unknown_files.is_empty());
    // Options out of range are refused before anything is made.
    for bad in [0, twainmq::limits::MAX_MESSAGE_BYTES_LIMIT + 1] {
        let e = store.create_topic("bad", &TopicSpec::new(KeyType::Any, 1).with_large_messages(bad)).expect_err("refused");
        assert!(matches!(e, Error::InvalidTopicOption { .. }), "{e}");
    }
    let e = store.create_topic("wide", &TopicSpec::new(KeyType::Char(3000), 1).with_large_messages(MIB)).expect_err("too wide");
    assert!(e.to_string().contains("char2"), "{e}");
    assert!(!dir.path().join("bad").exists() && !dir.path().join("wide").exists());
    // A config of a newer TwainMQ is refused as such, not as corrupt.
    std::fs::write(
        dir.path().join("newer.twc"),
        br#"{"key_width": 0, "partitions": 1, "message_types": {}, "extensions": {"key_type": "any", "compaction": true}}"#,
    )
    .expect("write");
    assert!(matches!(store.consumer("newer", StartFrom::Start), Err(Error::NewerFormat { .. })));
}

#[test]
fn a_plain_topic_refuses_long_messages_as_0_2_3_does() {
    let (_d, store) = store();
    store.create_topic("plain", &TopicSpec::new(KeyType::U16, 1)).expect("create");
    let mut p = store.producer("plain").expect("producer");
    let e = p.send_bytes(1u16, &bytes_of(5000, 3)).expect_err("too long");
    assert!(matches!(e, Error::MessageTooLong { max: 4096, .. }), "{e}");
    assert!(matches!(p.send_text(Key::Null, "x"), Err(Error::KeyWrongKind { .. })));
    assert!(matches!(p.send_text(Key::Bytes(vec![1]), "x"), Err(Error::KeyWrongKind { .. })));
}

/// Two producers' large messages into one partition at once: their parts
/// interleave, each message comes back whole at its end part's offset, and a
/// reader starting at any offset X gets exactly the messages whose end is at
/// or after X (a commit of a message's offset + 1 never splits one).
#[test]
fn interleaved_parts_come_back_whole_from_any_starting_offset() {
    let (_d, store) = store();
    store.create_topic("mix", &TopicSpec::new(KeyType::Text, 1).with_large_messages(MIB)).expect("create");
    let writers: Vec<_> = (0..3u64)
        .map(|w| {
            let store = store.clone();
            std::thread::spawn(move || {
                let mut p = store.producer("mix").expect("producer");
                for i in 0..25u64 {
                    let n = if i % 3 == 0 { 40 } else { 20_000 + (i as usize * 7919) % 60_000 };
                    p.send_bytes(Key::Str(format!("w{w}")), &bytes_of(n, w * 1000 + i + 1)).expect("send");
                }
            })
        })
        .collect();
    for w in writers {
        w.join().expect("writer");
    }
    let all = read_partition(&store, "mix", 0, 0);
    let sent = |w: u64, i: usize| {
        let n = if i.is_multiple_of(3) { 40 } else { 20_000 + (i * 7919) % 60_000 };
        Payload::Bytes(bytes_of(n, w * 1000 + i as u64 + 1))
    };
    let wine = twainmq::internals::under_wine();
    // Every payload sent, made once (making one costs as much as comparing many).
    let sent_all: Vec<Vec<Payload>> = (0..3u64).map(|w| (0..25).map(|i| sent(w, i)).collect()).collect();
    if !wine {
        assert_eq!(all.len(), 75);
    }
    for w in 0..3u64 {
        let mine: Vec<&Message> = all.iter().filter(|m| m.key == Key::Str(format!("w{w}"))).collect();
        if wine {
            // Wine's appends are not atomic, even between threads (docs/PLATFORMS.md):
            // a line overwritten by another writer's loses its message there, and what
            // is left of it can even decode as a message of garbage (lines carry no
            // checksum: the format's limit, docs/FORMAT.md "Writing"), which no Linux
            // or Windows writer can make. So under Wine: the messages read that are
            // ones this writer sent come in its order; the others are counted.
            let mut next = 0;
            let mut garbled = 0;
            for m in &mine {
                let own = &sent_all[w as usize];
                match (next..25).find(|i| m.payload == own[*i]) {
                    Some(i) => next = i + 1,
                    None => {
                        assert!(own[..next].iter().all(|p| m.payload != *p), "writer {w}: a message read out of order");
                        garbled += 1;
                    }
                }
            }
            assert!(garbled * 5 < mine.len().max(1), "writer {w}: {garbled} of {} messages garbled", mine.len());
            eprintln!("under Wine: writer {w}: {} of 25 messages read back, {garbled} garbled (Wine's appends race)", mine.len());
        } else {
            assert_eq!(mine.len(), 25);
            for (i, m) in mine.iter().enumerate() {
                assert_eq!(m.payload, sent(w, i), "writer {w} message {i}: whole, in order");
            }
        }
    }
    // Under Wine a garbled message (above) is made of damaged lines, which a read
    // from another offset may take apart otherwise: only the messages sent count there.
    let counts = |m: &Message| !wine || sent_all.iter().flatten().any(|p| m.payload == *p);
    let end = store.end_offsets("mix").expect("ends")[0];
    for x in (0..=end).step_by(7) {
        let from_x = read_partition(&store, "mix", 0, x);
        let expected: Vec<u64> = all.iter().filter(|m| counts(m)).map(|m| m.offset).filter(|o| *o >= x).collect();
        assert_eq!(from_x.iter().filter(|m| counts(m)).map(|m| m.offset).collect::<Vec<_>>(), expected, "from offset {x}");
    }
    // A consumer's position after a message is its offset + 1, which a commit takes.
    let mut c = store.consumer("mix", StartFrom::Start).expect("consumer");
    let first_large = loop {
        let m = c.poll().expect("poll").expect("a message");
        if matches!(&m.payload, Payload::Bytes(b) if b.len() > 4096) {
            break m;
        }
    };
    assert_eq!(c.positions(), [(0, first_large.offset + 1)]);
}

/// A clock that moves a second each time it is read, from just before midnight.
#[derive(Debug)]
struct Ticking(AtomicI64);

impl Clock for Ticking {
    fn now_micros(&self) -> i64 {
        self.0.fetch_add(50_000, Ordering::Relaxed)
    }
}

#[test]
fn a_message_whose_parts_cross_midnight_spans_two_day_files_and_reads_whole() {
    let dir = tempfile::tempdir().expect("tmp");
    // 2026-11-29T23:59:59Z.
    let clock = Arc::new(Ticking(AtomicI64::new(1_795_996_799_000_000)));
    let store = Store::open(dir.path()).expect("open").with_clock(clock);
    store.create_topic("night", &TopicSpec::new(KeyType::U8, 1).with_large_messages(MIB)).expect("create");
    let mut p = store.producer("night").expect("producer");
    let body = bytes_of(300_000, 9);
    p.send_bytes(1u8, &body).expect("send");
    p.send_text(2u8, "after").expect("send");
    let files = store.describe_topic("night").expect("describe").partition_details[0].files.len();
    assert!(files >= 2, "the parts went into {files} day file(s)");
    let got = read_partition(&store, "night", 0, 0);
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].payload, Payload::Bytes(body));
    // From the second file's first offset: the message ends there, so it is read whole.
    let second = store.describe_topic("night").expect("d").partition_details[0].files[1].first;
    let from_second = read_partition(&store, "night", 0, second);
    assert_eq!(from_second.len(), 2);
    assert!(twainmq::check::check_store(&store).expect("check").is_empty());
}

#[test]
fn a_torn_message_is_never_delivered_is_named_by_check_and_blocks_nothing() {
    let (dir, store) = store();
    store.create_topic("torn", &TopicSpec::new(KeyType::U16, 1).with_large_messages(MIB)).expect("create");
    let mut p = store.producer("torn").expect("producer");
    p.send_text(1u16, "before").expect("send");
    p.send_bytes(2u16, &bytes_of(50_000, 5)).expect("send");
    drop(p);
    // As a crash leaves it: the end part never written (cut the file before it).
    let file = std::fs::read_dir(dir.path().join("torn")).expect("ls").next().expect("a file").expect("entry").path();
    let data = std::fs::read(&file).expect("read");
    let last_nl = data[..data.len() - 1].iter().rposition(|b| *b == b'\n').expect("lines");
    std::fs::write(&file, &data[..=last_nl]).expect("cut");
    let mut p = store.producer("torn").expect("producer");
    p.send_text(3u16, "after").expect("send");
    p.send_bytes(4u16, &bytes_of(30_000, 6)).expect("send");
    let got = read_partition(&store, "torn", 0, 0);
    let keys: Vec<Key> = got.iter().map(|m| m.key.clone()).collect();
    assert_eq!(keys, [Key::Int(1), Key::Int(3), Key::Int(4)], "the torn message is skipped, nothing else");
    let problems = twainmq::check::check_store(&store).expect("check");
    assert_eq!(problems.iter().map(|p| p.kind).collect::<Vec<_>>(), ["torn_message"], "{problems:#?}");
    assert_eq!(problems[0].offset, Some(1), "named at its start part");
    // A middle part damaged: the message's end is reported broken, the rest is read.
    let data = std::fs::read(&file).expect("read");
    let lines: Vec<&[u8]> = data.split_inclusive(|b| *b == b'\n').collect();
    let n = lines.len();
    let mut broken = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if i == n - 3 {
            broken.extend(std::iter::repeat_n(b'#', l.len() - 1));
            broken.push(b'\n');
        } else {
            broken.extend_from_slice(l);
        }
    }
    std::fs::write(&file, &broken).expect("damage");
    let got = read_partition(&store, "torn", 0, 0);
    assert_eq!(got.iter().map(|m| m.key.clone()).collect::<Vec<_>>(), [Key::Int(1), Key::Int(3)]);
    let kinds: Vec<&str> = twainmq::check::check_store(&store).expect("check").iter().map(|p| p.kind).collect();
    assert!(kinds.contains(&"broken_message") && kinds.contains(&"damaged_line"), "{kinds:?}");
}

#[test]
fn producers_racing_on_the_key_table_give_one_id_per_key() {
    let (dir, store) = store();
    store.create_topic("race", &TopicSpec::new(KeyType::Any, 3)).expect("create");
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let store = store.clone();
            std::thread::spawn(move || {
                let mut p = store.producer("race").expect("producer");
                for i in 0..300u32 {
                    let k = (i * 7 + t) % 200;
                    let key = if k % 2 == 0 { Key::Str(format!("key-{k}")) } else { Key::Bytes(k.to_be_bytes().to_vec()) };
                    p.send_text(key, &format!("{t}:{i}")).expect("send");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("thread");
    }
    let table = std::fs::read(dir.path().join("race").join("keys.twk")).expect("table");
    let entries = table.split(|b| *b == b'\n').filter(|l| !l.is_empty()).count() - 1;
    assert_eq!(entries, 200, "one entry per key");
    let got = drain(&mut store.consumer("race", StartFrom::Start).expect("c"));
    let distinct: std::collections::BTreeSet<&Key> = got.iter().map(|m| &m.key).collect();
    if twainmq::internals::under_wine() {
        // Wine's appends are not atomic, even between threads (docs/PLATFORMS.md:
        // two writers land at one end and one overwrites the other), so lines of
        // the topic's files can be lost there; the key table, grown under its
        // lock, is not: every message read names a key of the 200 by its id.
        eprintln!("under Wine: {} of 2400 messages read back (Wine's appends race)", got.len());
        assert!(got.len() <= 2400 && !got.is_empty());
        let sent: std::collections::BTreeSet<Key> =
            (0..200u32).map(|k| if k % 2 == 0 { Key::Str(format!("key-{k}")) } else { Key::Bytes(k.to_be_bytes().to_vec()) }).collect();
        assert!(distinct.iter().all(|k| sent.contains(*k)), "a message read with a key never sent");
    } else {
        assert_eq!(got.len(), 2400);
        assert_eq!(distinct.len(), 200);
    }
}

#[test]
fn search_filters_export_import_and_copy_see_whole_messages_and_their_keys() {
    let (_dir, store) = store();
    store.create_topic("src", &TopicSpec::new(KeyType::Any, 3).with_large_messages(MIB)).expect("create");
    let mut p = store.producer("src").expect("producer");
    let needle_body = format!("{}NEEDLE-IN-THE-MIDDLE{}", text_of(100_000, 1), text_of(100_000, 2));
    p.send_text(Key::Str("doc".into()), &needle_body).expect("big");
    p.send_bytes(Key::Bytes(vec![0, 1]), &bytes_of(70_000, 3)).expect("bytes");
    p.send_text(Key::Null, "small").expect("small");
    p.flush().expect("flush");
    // Text search matches inside the whole message, not a part.
    let q = twainmq::scan::Query { text: Some("NEEDLE-IN-THE-MIDDLE".into()), ..Default::default() };
    let (_, hits) = twainmq::scan::find(&store, "src", &q, &Default::default(), |_| {}).expect("find");
    assert_eq!(hits.len(), 1);
    let found = twainmq::scan::read_hits(&store, "src", &hits.ordered()).expect("read");
    assert_eq!(found[0].text(), Some(needle_body.as_str()));
    // A key search finds the key's messages.
    let q = twainmq::scan::Query { key: Some("doc".into()), ..Default::default() };
    assert_eq!(twainmq::scan::find(&store, "src", &q, &Default::default(), |_| {}).expect("find").1.len(), 1);
    let q = twainmq::scan::Query { filter: Some(twainmq::Filter::compile("size > 60000").expect("filter")), ..Default::default() };
    assert_eq!(twainmq::scan::find(&store, "src", &q, &Default::default(), |_| {}).expect("find").1.len(), 2);
    // Export to JSONL and import into another topic: the same messages, keys of the same kinds.
    let out_dir = tempfile::tempdir().expect("tmp");
    let file = out_dir.path().join("out.jsonl");
    let sel = twainmq::transfer::Selection::topic("src");
    twainmq::transfer::export_file(&store, &sel, twainmq::transfer::ExportFormat::Jsonl, &file, &Default::default(), &mut |_| {})
        .expect("export");
    let text = std::fs::read_to_string(&file).expect("jsonl");
    assert!(text.contains(r#""key":{"hex":"0001"}"#) && text.contains(r#""key":null"#), "keys keep their kind");
    store.create_topic("dst", &TopicSpec::new(KeyType::Any, 2).with_large_messages(MIB)).expect("create");
    let opts = twainmq::transfer::ImportOptions {
        format: twainmq::transfer::ImportFormat::Jsonl,
        dry_run: false,
        keep_timestamps: true,
        skip_bad: false,
        resume: None,
    };
    let mut input = std::io::BufReader::new(std::fs::File::open(&file).expect("open"));
    let r = twainmq::transfer::import(&store, "dst", &mut input, &opts, &Default::default(), &mut |_| {}, &mut |_| {}).expect("import");
    assert_eq!(r.messages, 3);
    store.create_topic("copy", &TopicSpec::new(KeyType::Any, 5).with_large_messages(MIB)).expect("create");
    twainmq::transfer::copy(&store, &sel, &store, "copy", &Default::default(), &Default::default(), &mut |_| {}).expect("copy");
    let norm = |t: &str| {
        let mut v: Vec<(Key, Payload)> =
            drain(&mut store.consumer(t, StartFrom::Start).expect("c")).into_iter().map(|m| (m.key, m.payload)).collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    };
    assert_eq!(norm("dst"), norm("src"));
    assert_eq!(norm("copy"), norm("src"));
    // A large message cannot go into a plain topic: refused, naming the limit.
    store.create_topic("plain", &TopicSpec::new(KeyType::Text, 1)).expect("create");
    let e = twainmq::transfer::copy(&store, &sel, &store, "plain", &Default::default(), &Default::default(), &mut |_| {})
        .expect_err("too long");
    assert!(e.to_string().contains("4096"), "{e}");
}

#[test]
fn the_timeline_and_time_seeks_deliver_large_messages_at_their_end() {
    let (_d, store) = store();
    store.create_topic("tl", &TopicSpec::new(KeyType::Text, 2).with_large_messages(MIB)).expect("create");
    let mut p = store.producer("tl").expect("producer");
    for i in 0..6u32 {
        p.send_text(Key::Str(format!("k{i}")), &text_of(if i % 2 == 0 { 30_000 } else { 10 }, u64::from(i))).expect("send");
    }
    let mut tl = store.timeline("tl", None, &twainmq::TimelineStart::Start).expect("timeline");
    let mut n = 0;
    while let Some(m) = tl.poll().expect("poll") {
        assert!(m.text().is_some());
        n += 1;
    }
    assert_eq!(n, 6);
    let page = store.timeline_page_before("tl", None, None, 100).expect("page");
    assert_eq!(page.messages.len(), 6);
}

/// A group member commits what it was handed: after a large message, its
/// offset + 1, so the next member (or the same group after a restart) goes on
/// with the next message, never with a part of the one before.
#[test]
fn a_group_commits_whole_messages_and_the_next_member_goes_on_after_them() {
    use std::time::{Duration, Instant};
    use twainmq::group::{GroupMember, GroupOptions};
    let (_d, store) = store();
    store.create_topic("g", &TopicSpec::new(KeyType::Any, 1).with_large_messages(MIB)).expect("create");
    let mut p = store.producer("g").expect("producer");
    let bodies: Vec<Vec<u8>> = (0..6).map(|i| bytes_of(if i % 2 == 0 { 60_000 } else { 30 }, i + 1)).collect();
    for b in &bodies {
        p.send_bytes(Key::Null, b).expect("send");
    }
    let opts = GroupOptions { window: Duration::from_millis(200), ..GroupOptions::default() };
    let mut first = GroupMember::join(&store, "g", "readers", opts.clone()).expect("join");
    let mut got = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while got.len() < 3 && Instant::now() < deadline {
        while got.len() < 3 {
            match first.poll().expect("poll") {
                Some(m) => got.push(m),
                None => break,
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(got.len(), 3);
    let committed_at = got[2].offset + 1;
    assert_eq!(first.positions(), [(0, committed_at)]);
    first.close().expect("close commits");
    let mut second = GroupMember::join(&store, "g", "readers", opts).expect("join again");
    let deadline = Instant::now() + Duration::from_secs(20);
    while got.len() < 6 && Instant::now() < deadline {
        while let Some(m) = second.poll().expect("poll") {
            got.push(m);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let payloads: Vec<Payload> = got.iter().map(|m| m.payload.clone()).collect();
    assert_eq!(payloads, bodies.into_iter().map(Payload::Bytes).collect::<Vec<_>>(), "every message once, whole, in order");
    assert!(got[3].offset >= committed_at);
}
