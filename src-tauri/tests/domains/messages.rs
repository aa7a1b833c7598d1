//! The messages' service on the fixture: pages, damaged lines, typed rows, the timeline, produce, time jumps, raw lines.

use twainmq_desktop::messages::service as messages;
use twainmq_desktop::messages::wire::{
    self as messages_wire, KeyInput, KeyKind, MessageRef, PayloadKind, ProduceKind, ProducePayload, Row, TimelineAnchor,
};
use twainmq_desktop::search::service as search;
use twainmq_desktop::topics::service as topics_service;
use twainmq_desktop::wire::{Bytes as WireBytes, Count, ErrorCode, Offset};

use crate::common::{at, fixture, key_text, text};

#[test]
fn pages_carry_offsets_as_strings_and_u64_keys_exactly() {
    let (_d, store) = fixture();
    let page = messages::read_page(&store, "sensors", 0, at(0), 5).expect("page");
    assert_eq!(page.rows.len(), 5);
    let Row::Message(first) = &page.rows[0] else { panic!("message row") };
    assert_eq!(first.offset, Offset(0));
    assert_eq!((first.kind, first.key_kind), (PayloadKind::Bytes, KeyKind::Int));
    assert_eq!(first.key, "14542731574252009633");
    assert_eq!(page.next, Offset(5));
    // On the wire: decimal strings and the same words as ever.
    let json = serde_json::to_value(&page.rows[0]).expect("json");
    assert_eq!(
        (&json["offset"], &json["key"], &json["kind"], &json["key_kind"]),
        (&"0".into(), &"14542731574252009633".into(), &"bytes".into(), &"int".into())
    );
    let page = messages::read_page(&store, "events", 2, at(50), 100).expect("page");
    assert_eq!(page.end, Offset(56));
    assert_eq!(page.rows.len(), 6);
    assert!(messages::read_page(&store, "events", 9, at(0), 5).is_err());
    // An offset that is not one is refused before any command runs.
    for bad in ["-1", "1.5", " 3", ""] {
        assert!(serde_json::from_value::<Offset>(bad.into()).is_err(), "{bad:?}");
    }
}

#[test]
fn damaged_lines_appear_in_place() {
    let (d, store) = fixture();
    let f = d.path().join("tiny").join("0-20261127_0.tmf");
    let mut bytes = std::fs::read(&f).expect("read");
    let first_nl = bytes.iter().position(|b| *b == b'\n').expect("line");
    bytes.splice(first_nl + 1..first_nl + 1, b"garbage line\n".iter().copied());
    std::fs::write(&f, bytes).expect("write");
    let page = messages::read_page(&store, "tiny", 0, at(0), 3).expect("page");
    assert!(matches!(page.rows[0], Row::Message(_)));
    match &page.rows[1] {
        Row::Damaged(d) => {
            assert_eq!((d.offset, d.line.get(), d.file.as_str()), (Offset(1), 2, "0-20261127_0.tmf"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn typed_rows_have_exact_and_pretty_fields() {
    let (_d, store) = fixture();
    let page = messages::read_page(&store, "typed", 1, at(0), 1).expect("page");
    let Row::Message(m) = &page.rows[0] else { panic!("message") };
    assert_eq!(m.class.as_deref(), Some("Event"));
    assert!(m.fields_json.as_deref().expect("json").starts_with("{\"id\":1,"));
    assert!(m.fields_pretty.as_deref().expect("pretty").starts_with("{\n  \"id\": 1,"));
}

#[test]
fn the_timeline_of_a_topic_merges_its_partitions_by_time() {
    let (_d, store) = fixture();
    let end = messages::timeline_before(&store, "events", None, None, 10).expect("end");
    assert_eq!(end.rows.len(), 10);
    assert_eq!(end.total, Count(240));
    assert_eq!(end.base, Count(230));
    assert!(end.rows.windows(2).all(|w| w[0].timestamp <= w[1].timestamp));
    let newest = end.rows.iter().map(|r| r.timestamp).fold(f64::MIN, f64::max);
    let start = messages::timeline_after(&store, "events", None, &TimelineAnchor::Start, 500).expect("start");
    assert_eq!(start.rows.len(), 240);
    assert_eq!(start.rows.last().map(|r| r.timestamp), Some(newest));
    let parts: std::collections::BTreeSet<u32> = start.rows.iter().map(|r| r.partition).collect();
    assert_eq!(parts.len(), 4);
    // The page before a page ends where it begins.
    let before = messages::timeline_before(&store, "events", None, Some(&end.begin), 20).expect("before");
    assert_eq!(before.end, end.begin);
    assert_eq!(before.base, Count(210));
    assert_eq!(start.rows[210..240], [before.rows.clone(), end.rows.clone()].concat()[..]);
    // A time, and a place found by time.
    let t = start.rows[100].timestamp;
    let at = messages::timeline_after(&store, "events", None, &TimelineAnchor::Time { unix: t }, 3).expect("time");
    assert!(at.rows[0].timestamp >= t);
    let near = messages::timeline_after(&store, "events", None, &TimelineAnchor::Index { index: Count(120) }, 3).expect("index");
    assert!(near.base.get().abs_diff(120) <= 8, "{:?}", near.base);
    assert_eq!(near.rows[0], start.rows[near.base.get() as usize]);
    // Fields seen in the newest messages.
    let fields = search::topic_fields(&store, "events").expect("fields");
    assert!(fields.iter().all(|f| f.starts_with("value.")), "{fields:?}");
}

#[test]
fn produce_reports_partition_and_offset_and_validates() {
    let (_d, store) = fixture();
    let p = messages::produce(&store, "events", &key_text("42"), &text("<img src=x onerror=alert(1)>")).expect("produce");
    assert_eq!(p.partition, twainmq::partition_for(&twainmq::Key::Int(42), 4));
    let end = store.end_offsets("events").expect("ends")[p.partition as usize];
    assert_eq!(p.offset, Some(Offset(end - 1)));
    let page = messages::read_page(&store, "events", p.partition, p.offset.expect("offset"), 1).expect("page");
    let Row::Message(m) = &page.rows[0] else { panic!("message") };
    assert_eq!(m.text.as_deref(), Some("<img src=x onerror=alert(1)>"));
    assert_eq!(messages::produce(&store, "events", &key_text("65536"), &text("x")).expect_err("range").code, "key_out_of_range");
    let typed = ProducePayload {
        kind: ProduceKind::Json,
        body: r#"{"id": 18446744073709551616, "text": "t", "tags": []}"#.into(),
        class: Some("Event".into()),
        file: None,
    };
    let p = messages::produce(&store, "typed", &key_text("7"), &typed).expect("typed");
    let page = messages::read_page(&store, "typed", p.partition, p.offset.expect("offset"), 1).expect("page");
    let Row::Message(m) = &page.rows[0] else { panic!("message") };
    assert_eq!(m.fields_json.as_deref(), Some(r#"{"id":18446744073709551616,"text":"t","tags":[]}"#));
    let bad = ProducePayload { kind: ProduceKind::Json, body: "{".into(), class: Some("Event".into()), file: None };
    assert_eq!(messages::produce(&store, "typed", &key_text("7"), &bad).expect_err("json").code, "invalid_json");
    let hex = ProducePayload { kind: ProduceKind::Hex, body: "00 ff 10".into(), class: None, file: None };
    assert!(messages::produce(&store, "sensors", &key_text("18446744073709551615"), &hex).is_ok());
    assert_eq!(
        messages::produce(&store, "sensors", &key_text("1"), &ProducePayload { body: "0g".into(), ..hex }).expect_err("hex").code,
        "invalid_hex"
    );
}

#[test]
fn time_jumps_find_the_first_message_at_or_after() {
    let (_d, store) = fixture();
    let page = messages::read_page(&store, "events", 1, at(0), 100).expect("page");
    let Row::Message(m) = &page.rows[30] else { panic!("message") };
    let o = messages::offset_at_time(&store, "events", 1, m.timestamp).expect("time");
    assert_eq!(o, Some(Offset(30)));
    assert_eq!(messages::offset_at_time(&store, "events", 1, 4e9).expect("time"), None);
}

#[test]
fn raw_lines_come_with_their_file_and_line() {
    let (_d, store) = fixture();
    let raw = messages::raw_line(&store, "events", 0, at(22)).expect("raw").expect("line 22");
    assert_eq!((raw.file.as_str(), raw.line.get()), ("0-20261128_21.tmf", 2));
    let on_disk = std::fs::read_to_string(store.root().join("events/0-20261128_21.tmf")).expect("read");
    assert_eq!(raw.raw, on_disk.lines().nth(1).expect("line"));
    assert_eq!(messages::raw_line(&store, "events", 0, at(9999)).expect("raw"), None);
}

/// A partition file whose lines end in CRLF (a Windows checkout, FTP in ASCII
/// mode) shows each raw line as 0.2.3 reads it: the same line, number and
/// text as before the conversion, without the `\r`.
#[test]
fn raw_lines_of_a_crlf_file_are_the_lines_without_their_cr() {
    let (_d, store) = fixture();
    let before = messages::raw_line(&store, "events", 0, at(22)).expect("raw").expect("line 22");
    let path = store.root().join("events/0-20261128_21.tmf");
    let text = std::fs::read_to_string(&path).expect("read");
    std::fs::write(&path, text.replace('\n', "\r\n")).expect("write");
    let crlf = twainmq::Store::open(store.root()).expect("open again");
    let after = messages::raw_line(&crlf, "events", 0, at(22)).expect("raw").expect("line 22");
    assert_eq!(after, before);
    assert!(!after.raw.contains('\r'));
}

#[test]
fn raw_lines_of_several_messages_come_in_their_order_and_a_missing_one_is_left_out() {
    let (_d, store) = fixture();
    let refs = [(0, 22), (1, 3), (0, 9999), (0, 21)].map(|(partition, offset)| MessageRef { partition, offset: at(offset) });
    let lines = messages::raw_lines(&store, "events", &refs).expect("raw lines");
    let one = |p: u32, o: u64| messages::raw_line(&store, "events", p, at(o)).expect("raw").expect("there");
    assert_eq!(lines, vec![one(0, 22), one(1, 3), one(0, 21)], "in the order asked, the one past the end left out");
    assert_eq!(messages::raw_lines(&store, "events", &[]).expect("none"), vec![]);
    let bad = messages::raw_lines(&store, "../events", &refs[..1]).expect_err("a name that escapes the store");
    assert_eq!(bad.code, ErrorCode::InvalidTopicName);
}

/// A store with `big`, a topic of the format's next version (any keys, large messages up to
/// 16 MiB, one partition): a small message, a large one of random bytes, another small one.
fn large_topic(payload_bytes: usize) -> (tempfile::TempDir, twainmq::Store, Vec<u8>) {
    let dir = tempfile::tempdir().expect("tmp");
    let store = twainmq::Store::open_or_create(dir.path()).expect("store");
    store.create_topic("big", &twainmq::TopicSpec::new(twainmq::KeyType::Any, 1).with_large_messages(16 << 20)).expect("create");
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let big: Vec<u8> = (0..payload_bytes)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let mut p = store.producer("big").expect("producer");
    p.send(&twainmq::Key::Str("first".into()), &twainmq::Outgoing::Text("small".into())).expect("send");
    p.send(&twainmq::Key::Bytes(vec![0, 0xff]), &twainmq::Outgoing::Bytes(big.clone())).expect("send");
    p.send(&twainmq::Key::Null, &twainmq::Outgoing::Text("{\"after\": true}".into())).expect("send");
    (dir, store, big)
}

/// Every offset of a partition with large messages has its row: the lines of a large message's
/// parts are `part` rows, the message one row at its last part's offset, its payload cut to a
/// preview (never megabytes in a page), whatever page bounds cut through it.
#[test]
fn a_large_message_is_one_truncated_row_at_its_last_part_and_its_parts_are_rows() {
    let (_d, store, big) = large_topic(300_000);
    let end = store.end_offsets("big").expect("ends")[0];
    assert!(end > 50, "a large message of random bytes takes many lines: {end}");
    let page = messages::read_page(&store, "big", 0, at(0), messages::MAX_PAGE).expect("page");
    assert_eq!(page.rows.len() as u64, end, "one row an offset");
    assert!(page.rows.iter().enumerate().all(|(i, r)| r.offset() == i as u64));
    let Row::Message(m) = &page.rows[end as usize - 2] else { panic!("the large message: {:?}", page.rows[end as usize - 2]) };
    assert_eq!((m.size as usize, m.truncated, m.kind), (big.len(), true, PayloadKind::Bytes));
    assert_eq!(m.hex.as_deref().map(str::len), Some(2 * messages_wire::ROW_PREVIEW_BYTES));
    assert_eq!((m.key.0.as_str(), m.key_kind), ("00ff", KeyKind::Bytes));
    for r in &page.rows[1..end as usize - 2] {
        let Row::Part(p) = r else { panic!("a part: {r:?}") };
        assert_eq!(p.next_message, Some(m.offset));
    }
    let Row::Message(last) = &page.rows[end as usize - 1] else { panic!("the last message") };
    assert_eq!((last.key_kind, last.key.0.as_str(), last.truncated), (KeyKind::Null, "", false));
    // A page that ends inside the parts has their rows and no more; the next one goes on from there.
    let a = messages::read_page(&store, "big", 0, at(0), 10).expect("page");
    assert_eq!((a.rows.len(), a.next), (10, Offset(10)));
    assert!(matches!(a.rows[9], Row::Part(_)));
    let b = messages::read_page(&store, "big", 0, a.next, 500).expect("page");
    assert_eq!(b.rows.first().map(Row::offset), Some(10));
    assert_eq!(b.rows.len() as u64, end - 10);
    // On the wire: the part rows say what they are.
    assert_eq!(serde_json::to_value(&a.rows[5]).expect("json")["row"], "part");
}

/// A payload of any size is read in slices and saved to a file whole; the offset of a part
/// holds no message, and a topic made again since is not the row's.
#[test]
fn payload_slices_and_a_saved_file_give_back_the_whole_payload() {
    let (d, store, big) = large_topic(2_500_000);
    let end = store.end_offsets("big").expect("ends")[0];
    let offset = Offset(end - 2);
    let inc = topics_service::topic_incarnation(&store, "big");
    let mut got = Vec::new();
    let mut from = WireBytes(0);
    loop {
        let s = messages::message_payload(&store, "big", 0, offset, inc.as_ref(), from, u32::MAX).expect("slice");
        assert_eq!((s.kind, s.size.get(), s.from), (PayloadKind::Bytes, big.len() as u64, from));
        assert!(s.next.get() - s.from.get() <= u64::from(messages_wire::MAX_PAYLOAD_SLICE));
        got.extend(hex::decode(s.hex.expect("hex")).expect("hex"));
        from = s.next;
        if s.next == s.size {
            break;
        }
    }
    assert_eq!(got, big);
    let out = tempfile::tempdir().expect("out");
    let path = out.path().join("payload.bin");
    let saved = messages::save_payload(&store, "big", 0, offset, inc.as_ref(), path.to_str().expect("utf-8")).expect("save");
    assert_eq!(saved.bytes.get(), big.len() as u64);
    assert_eq!(std::fs::read(&path).expect("read"), big);
    let text = messages::message_payload(&store, "big", 0, Offset(0), inc.as_ref(), WireBytes(1), 3).expect("slice");
    assert_eq!(text.text.as_deref(), Some("mal"));
    // Not a message: the offset of a part; nothing written inside the store; a relative path.
    let e = messages::message_payload(&store, "big", 0, Offset(3), inc.as_ref(), WireBytes(0), 10).expect_err("a part");
    assert_eq!(e.code, ErrorCode::NoMessage, "{}", e.message);
    let inside = d.path().join("big").join("payload.bin");
    let e = messages::save_payload(&store, "big", 0, offset, inc.as_ref(), inside.to_str().expect("utf-8")).expect_err("inside");
    assert_eq!(e.code, ErrorCode::BadExportTarget, "{}", e.message);
    assert!(!inside.exists());
    assert!(messages::save_payload(&store, "big", 0, offset, inc.as_ref(), "payload.bin").is_err());
    // The topic deleted and made again: a row read before is not of this topic.
    if twainmq::internals::under_wine() {
        // Under Wine a folder's file id is its inode, which ext4 may hand straight to the
        // topic's new folder (NTFS ids hold a sequence number that changes when a record is
        // reused): the new topic may then have the old one's incarnation, and the row reads.
        eprintln!("not shown under Wine: a row of a topic made again is refused (Wine's file ids are reused inodes)");
        return;
    }
    store.delete_topic("big").expect("delete");
    store.create_topic("big", &twainmq::TopicSpec::new(twainmq::KeyType::Any, 1).with_large_messages(1 << 20)).expect("create");
    store.producer("big").expect("producer").send(&twainmq::Key::Null, &twainmq::Outgoing::Text("new".into())).expect("send");
    let e = messages::message_payload(&store, "big", 0, Offset(0), inc.as_ref(), WireBytes(0), 10).expect_err("replaced");
    assert_eq!(e.code, ErrorCode::TopicDeleted, "{}", e.message);
}

/// Keys as the Produce tab gives them: text, hex or none, each read back as its kind; a kind
/// the topic does not take is refused with the engine's reason.
#[test]
fn keys_are_sent_as_text_hex_or_none_and_read_back_as_their_kind() {
    let (_d, store, _) = large_topic(10);
    let sent = [
        (KeyInput::Text { text: "naïve".into() }, KeyKind::Str, "naïve"),
        (KeyInput::Text { text: String::new() }, KeyKind::Str, ""),
        (KeyInput::Hex { hex: "00 FF 7f".into() }, KeyKind::Bytes, "00ff7f"),
        (KeyInput::NoKey, KeyKind::Null, ""),
    ];
    for (key, kind, shown) in sent {
        let p = messages::produce(&store, "big", &key, &text("k")).expect("produce");
        let page = messages::read_page(&store, "big", p.partition, p.offset.expect("offset"), 1).expect("page");
        let Row::Message(m) = &page.rows[0] else { panic!("message") };
        assert_eq!((m.key_kind, m.key.0.as_str()), (kind, shown), "{key:?}");
    }
    let (_f, fixture_store) = fixture();
    let e = messages::produce(&fixture_store, "events", &KeyInput::NoKey, &text("x")).expect_err("no key on u16");
    assert_eq!(e.code, ErrorCode::KeyWrongKind, "{}", e.message);
    let e = messages::produce(&store, "big", &KeyInput::Hex { hex: "0g".into() }, &text("x")).expect_err("bad hex");
    assert_eq!(e.code, ErrorCode::InvalidHex);
}

/// A file's contents as the message: bytes as they are, text checked as UTF-8; a folder, a
/// file over every topic's limit and a topic's own limit are refused, nothing sent.
#[test]
fn a_file_is_sent_as_a_message_of_any_size_the_topic_takes() {
    let (_d, store, big) = large_topic(1_200_000);
    let files = tempfile::tempdir().expect("files");
    let path = files.path().join("value.bin");
    std::fs::write(&path, &big).expect("write");
    let file =
        |kind, path: &std::path::Path| ProducePayload { kind, body: String::new(), class: None, file: Some(path.display().to_string()) };
    let p = messages::produce(&store, "big", &KeyInput::NoKey, &file(ProduceKind::Bytes, &path)).expect("produce");
    let offset = p.offset.expect("offset");
    let s = messages::message_payload(&store, "big", p.partition, offset, None, WireBytes(0), u32::MAX).expect("slice");
    assert_eq!(s.size.get(), big.len() as u64);
    let e = messages::produce(&store, "big", &KeyInput::NoKey, &file(ProduceKind::Text, &path)).expect_err("not text");
    assert_eq!(e.code, ErrorCode::InvalidText, "{}", e.message);
    let e = messages::produce(&store, "big", &KeyInput::NoKey, &file(ProduceKind::Bytes, files.path())).expect_err("a folder");
    assert_eq!(e.code, ErrorCode::NotAFile, "{}", e.message);
    let before = store.end_offsets("big").expect("ends");
    let huge = files.path().join("huge.bin");
    std::fs::File::create(&huge).and_then(|f| f.set_len((64 << 20) + 1)).expect("sparse");
    let e = messages::produce(&store, "big", &KeyInput::NoKey, &file(ProduceKind::Bytes, &huge)).expect_err("too large");
    assert_eq!(e.code, ErrorCode::MessageTooLong, "{}", e.message);
    let (_f, plain) = fixture();
    let e = messages::produce(&plain, "events", &key_text("1"), &file(ProduceKind::Bytes, &path)).expect_err("plain topic");
    assert_eq!(e.code, ErrorCode::MessageTooLong, "{}", e.message);
    assert_eq!(store.end_offsets("big").expect("ends"), before, "nothing sent");
}

/// A plain topic's line can inflate far past 4 KiB: such a row is cut to a preview too.
#[test]
fn a_row_of_a_long_compressible_payload_is_a_preview() {
    let (_d, store) = fixture();
    let long = "the same words again and again, ".repeat(2000);
    let p = messages::produce(&store, "events", &key_text("1"), &text(&long)).expect("produce");
    let page = messages::read_page(&store, "events", p.partition, p.offset.expect("offset"), 1).expect("page");
    let Row::Message(m) = &page.rows[0] else { panic!("message") };
    assert_eq!((m.size as usize, m.truncated), (long.len(), true));
    assert_eq!(m.text.as_deref(), Some(&long[..messages_wire::ROW_PREVIEW_BYTES]));
    let short = messages::read_page(&store, "events", 0, at(0), 1).expect("page");
    let Row::Message(m) = &short.rows[0] else { panic!("message") };
    assert!(!m.truncated);
}

#[test]
fn a_page_asked_from_before_a_partitions_first_file_starts_at_its_first_line() {
    // Retention took sensors P1's first file: its offsets are gone, not parts of a large
    // message, and get no row.
    let (d, store) = fixture();
    let first = std::fs::read_dir(d.path().join("sensors"))
        .expect("dir")
        .map(|e| e.expect("entry").path())
        .find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("1-") && n.to_string_lossy().ends_with("_0.tmf")))
        .expect("P1's first file");
    std::fs::remove_file(&first).expect("rm");
    let start = store.describe_topic("sensors").expect("describe").partition_details[1].start;
    assert!(start > 0);
    let page = messages::read_page(&store, "sensors", 1, at(0), 5).expect("page");
    assert!(matches!(page.rows.first(), Some(Row::Message(m)) if m.offset == at(start)), "{:?}", page.rows.first());
    assert!(page.rows.iter().all(|r| !matches!(r, Row::Part(_))), "{:?}", page.rows);
}
