//! The messages' service on the fixture: pages, damaged lines, typed rows, the timeline, produce, time jumps, raw lines.

use twainmq_desktop::messages::service as messages;
use twainmq_desktop::messages::wire::{KeyKind, MessageRef, PayloadKind, ProduceKind, ProducePayload, Row, TimelineAnchor};
use twainmq_desktop::search::service as search;
use twainmq_desktop::wire::{Count, ErrorCode, Offset};

use crate::common::{at, fixture, key, text};

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
    let p = messages::produce(&store, "events", &key("42"), &text("<img src=x onerror=alert(1)>")).expect("produce");
    assert_eq!(p.partition, twainmq::partition_for(&twainmq::Key::Int(42), 4));
    let end = store.end_offsets("events").expect("ends")[p.partition as usize];
    assert_eq!(p.offset, Some(Offset(end - 1)));
    let page = messages::read_page(&store, "events", p.partition, p.offset.expect("offset"), 1).expect("page");
    let Row::Message(m) = &page.rows[0] else { panic!("message") };
    assert_eq!(m.text.as_deref(), Some("<img src=x onerror=alert(1)>"));
    assert_eq!(messages::produce(&store, "events", &key("65536"), &text("x")).expect_err("range").code, "key_out_of_range");
    let typed = ProducePayload {
        kind: ProduceKind::Json,
        body: r#"{"id": 18446744073709551616, "text": "t", "tags": []}"#.into(),
        class: Some("Event".into()),
    };
    let p = messages::produce(&store, "typed", &key("7"), &typed).expect("typed");
    let page = messages::read_page(&store, "typed", p.partition, p.offset.expect("offset"), 1).expect("page");
    let Row::Message(m) = &page.rows[0] else { panic!("message") };
    assert_eq!(m.fields_json.as_deref(), Some(r#"{"id":18446744073709551616,"text":"t","tags":[]}"#));
    let bad = ProducePayload { kind: ProduceKind::Json, body: "{".into(), class: Some("Event".into()) };
    assert_eq!(messages::produce(&store, "typed", &key("7"), &bad).expect_err("json").code, "invalid_json");
    let hex = ProducePayload { kind: ProduceKind::Hex, body: "00 ff 10".into(), class: None };
    assert!(messages::produce(&store, "sensors", &key("18446744073709551615"), &hex).is_ok());
    assert_eq!(
        messages::produce(&store, "sensors", &key("1"), &ProducePayload { body: "0g".into(), ..hex }).expect_err("hex").code,
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
