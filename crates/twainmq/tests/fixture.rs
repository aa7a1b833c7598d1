//! The store written by twainmq 0.2.3, read through the engine, equals `expected.json`.

mod common;

use serde_json::{json, Value};
use std::path::Path;

use twainmq::{StartFrom, Store};

fn read_all(store: &Store, topic: &str, partitions: u32) -> Value {
    let mut out = serde_json::Map::new();
    for p in 0..partitions {
        let mut r = store.partition_reader(topic, p, StartFrom::Start).expect("reader");
        let mut msgs = Vec::new();
        while let Some(m) = r.poll().expect("no corrupt lines in the fixture") {
            let j = serde_json::to_value(m.to_json()).expect("json");
            msgs.push(json!({"offset": j["offset"], "key": j["key"], "timestamp": j["timestamp"], "payload": j["payload"]}));
        }
        out.insert(p.to_string(), Value::Array(msgs));
    }
    Value::Object(out)
}

fn check_topic(store: &Store, topic: &str, expected: &Value) {
    let config = store.topic_config(topic).expect("config");
    let want = &expected["config"];
    assert_eq!(config.key_type.width(), want["key_width"].as_i64().expect("width"), "{topic}");
    assert_eq!(u64::from(config.partitions), want["partitions"].as_u64().expect("partitions"), "{topic}");
    let types: serde_json::Map<String, Value> = config.message_types.iter().map(|(n, i)| (n.clone(), json!(i))).collect();
    assert_eq!(Value::Object(types), want["message_types"], "{topic}");
    let mut files: Vec<String> = std::fs::read_dir(store.root().join(topic))
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    // 0.2.3 touched empty day files after `expected.json` was taken: those may be extra.
    let want_files: Vec<String> = serde_json::from_value(expected["files"].clone()).expect("files");
    for f in &want_files {
        assert!(files.contains(f), "{topic}: {f} missing");
    }
    for f in files.iter().filter(|f| !want_files.contains(f)) {
        let len = std::fs::metadata(store.root().join(topic).join(f)).expect("meta").len();
        assert_eq!(len, 0, "{topic}: unexpected non-empty file {f}");
    }
    let got = read_all(store, topic, config.partitions);
    for (p, msgs) in expected["partitions"].as_object().expect("partitions") {
        let got_msgs = got[p].as_array().expect("array");
        let want_msgs = msgs.as_array().expect("array");
        assert_eq!(got_msgs.len(), want_msgs.len(), "{topic}/{p} message count");
        for (g, w) in got_msgs.iter().zip(want_msgs) {
            assert_eq!(g, w, "{topic}/{p}");
        }
    }
    // Describe agrees with what was read.
    let d = store.describe_topic(topic).expect("describe");
    for pd in &d.partition_details {
        let n = expected["partitions"][pd.partition.to_string()].as_array().map_or(0, Vec::len) as u64;
        assert_eq!(pd.end - pd.start, n, "{topic}/{} describe", pd.partition);
    }
}

#[test]
fn every_fixture_topic_reads_as_expected() {
    let tmp = common::fixture_store();
    let store = Store::open(tmp.path()).expect("open");
    let expected = common::load_json("expected.json");
    for (topic, want) in expected["topics"].as_object().expect("topics") {
        check_topic(&store, topic, want);
    }
    let mut listed = store.list_topics().expect("list");
    listed.sort();
    let mut want: Vec<String> = serde_json::from_value(expected["list_topics"].clone()).expect("list");
    want.sort();
    assert_eq!(listed, want);
}

#[test]
fn fixture_group_logs_read_as_expected() {
    let tmp = common::fixture_store();
    let store = Store::open(tmp.path()).expect("open");
    let expected = common::load_json("expected.json");
    let groups = expected["groups"].as_object().expect("groups");
    assert!(!groups.is_empty());
    for (group, want) in groups {
        check_topic(&store, &format!("--group--{group}"), want);
    }
    assert_eq!(store.list_groups().expect("groups"), vec!["tail".to_string(), "workers".to_string()]);
}

#[test]
fn fixture_configs_are_rewritten_byte_for_byte() {
    let dir = common::fixture_dir().join("store");
    for e in std::fs::read_dir(&dir).expect("dir") {
        let path = e.expect("entry").path();
        if path.extension().is_some_and(|x| x == "twc") {
            let bytes = std::fs::read(&path).expect("read");
            let c = twainmq::TopicConfig::parse(&bytes).expect("parse");
            assert_eq!(c.to_bytes(), bytes, "{}", path.display());
        }
    }
}

#[test]
fn fixture_lines_are_re_encoded_byte_for_byte() {
    // Every line 0.2.3 wrote, decoded and encoded again, gives the same bytes.
    let tmp = common::fixture_store();
    let store = Store::open(tmp.path()).expect("open");
    let mut codec = twainmq::internals::line::Codec::exact();
    let mut checked = 0;
    let groups = store.list_groups().expect("groups").into_iter().map(|g| format!("--group--{g}"));
    for topic in store.list_topics().expect("list").into_iter().chain(groups) {
        let config = store.topic_config(&topic).expect("config");
        for e in std::fs::read_dir(tmp.path().join(&topic)).expect("dir") {
            let text = std::fs::read(e.expect("entry").path()).expect("read");
            for line in text.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
                let rec = codec.decode_line(config.key_type, line).expect("decodes");
                let mut raw = Vec::new();
                twainmq::internals::line::Codec::payload_bytes(&rec.payload, &mut raw);
                let mut again = Vec::new();
                codec.encode_line(config.key_type, &rec.key, rec.timestamp, &raw, &mut again).expect("encodes");
                assert_eq!(&again[..again.len() - 1], line, "{topic}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 480, "only {checked} lines checked");
}

/// The fixture store with every line end of its partition files made `ending`:
/// what git's `core.autocrlf=true` (`\r\n`), FTP in ASCII mode or an editor do
/// to a store, or an old Mac's `\r`.
fn converted_fixture(ending: &[u8]) -> tempfile::TempDir {
    let tmp = common::fixture_store();
    for e in std::fs::read_dir(tmp.path()).expect("dir") {
        let dir = e.expect("entry").path();
        if !dir.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&dir).expect("topic dir") {
            let path = f.expect("entry").path();
            let bytes = std::fs::read(&path).expect("read");
            let mut out = Vec::with_capacity(bytes.len() * 2);
            for &b in &bytes {
                if b == b'\n' {
                    out.extend_from_slice(ending);
                } else {
                    out.push(b);
                }
            }
            std::fs::write(&path, out).expect("write");
        }
    }
    tmp
}

/// What a search, an export, the timeline (from the end and from a time),
/// `check` and `groups describe` say about a store, as JSON.
fn everything_said(store: &Store) -> Value {
    use std::sync::atomic::AtomicBool;
    let never = AtomicBool::new(false);
    let mut out = serde_json::Map::new();
    for topic in store.list_topics().expect("list") {
        let mut export = Vec::new();
        twainmq::transfer::export(
            store,
            &twainmq::transfer::Selection::topic(&topic),
            twainmq::transfer::ExportFormat::Jsonl,
            &mut export,
            &never,
            &mut |_| {},
        )
        .expect("export");
        let query = twainmq::scan::Query { text: Some("e".into()), ..Default::default() };
        let (_, hits) = twainmq::scan::find(store, &topic, &query, &never, |_| {}).expect("search");
        let hits: Vec<Value> = hits.ordered().iter().map(|h| json!([h.partition, h.offset, h.timestamp])).collect();
        let msgs =
            |ms: &[twainmq::Message]| -> Vec<Value> { ms.iter().map(|m| serde_json::to_value(m.to_json()).expect("json")).collect() };
        let end = store.timeline_page_before(&topic, None, None, 40).expect("end page");
        let mid = end.messages.first().map_or(0.0, |m| m.timestamp);
        let at = store.timeline_page_after(&topic, None, &twainmq::TimelineStart::Time(mid), 40).expect("time page");
        let described = store.describe_topic(&topic).expect("describe");
        let ends: Vec<Value> = described.partition_details.iter().map(|p| json!([p.start, p.end])).collect();
        out.insert(
            topic,
            json!({"export": String::from_utf8(export).expect("utf8"), "hits": hits, "end": msgs(&end.messages), "at": msgs(&at.messages), "ends": ends}),
        );
    }
    let problems: Vec<Value> = twainmq::check::check_store(store)
        .expect("check")
        .iter()
        .map(|p| json!([p.topic, p.partition, p.file, p.line, p.offset, p.kind]))
        .collect();
    out.insert("check".into(), Value::Array(problems));
    for group in store.list_groups().expect("groups") {
        let d = store.describe_group(&group).expect("describe group");
        out.insert(format!("group {group}"), json!({"committed": d.committed, "lag": d.lag, "members": d.members.len()}));
    }
    Value::Object(out)
}

/// 0.2.3 reads partition files in text mode with universal newlines: a line
/// ends at `\n`, `\r\n` or a lone `\r`. A store converted to CRLF (or CR)
/// reads as the store it was, whole, with the same offsets, in every reader:
/// consumers, group logs, describe, search, export, the timeline and its time
/// index, check, and the line index kept in its cache.
#[test]
fn a_store_converted_to_crlf_or_cr_line_ends_reads_as_the_original() {
    let plain = common::fixture_store();
    let at = |dir: &Path| {
        Store::open(dir)
            .expect("open")
            .with_clock(std::sync::Arc::new(twainmq::ManualClock::new(1_796_054_400_000_000) /* 2026-11-30 16:00 UTC */))
    };
    let want = everything_said(&at(plain.path()));
    let expected = common::load_json("expected.json");
    for ending in [&b"\r\n"[..], b"\r"] {
        let tmp = converted_fixture(ending);
        let store = at(tmp.path());
        for (topic, topic_want) in expected["topics"].as_object().expect("topics") {
            check_topic(&store, topic, topic_want);
        }
        for (group, group_want) in expected["groups"].as_object().expect("groups") {
            check_topic(&store, &format!("--group--{group}"), group_want);
        }
        assert_eq!(everything_said(&store), want, "line ends {ending:?}");
        // The line index, kept in its cache and taken again by a new store: the same counts, nothing read again.
        let cache = tempfile::tempdir().expect("cache");
        let first = at(tmp.path()).with_index_cache(cache.path());
        let ends: Vec<Vec<u64>> = store.list_topics().expect("list").iter().map(|t| first.end_offsets(t).expect("ends")).collect();
        first.save_index().expect("save");
        let again = at(tmp.path()).with_index_cache(cache.path());
        let ends_again: Vec<Vec<u64>> = store.list_topics().expect("list").iter().map(|t| again.end_offsets(t).expect("ends")).collect();
        assert_eq!((ends_again, again.index_scanned_bytes()), (ends, 0), "line ends {ending:?}");
    }
}

/// Our producer appending to a file whose lines end in CRLF writes LF lines
/// (never CRLF), at the offsets 0.2.3 counts; a file that ends in a lone `\r`
/// (a CRLF line cut after its `\r`) ends a line there, as 0.2.3 reads it at
/// the end of a file: our line follows it with nothing added between.
#[test]
fn our_producer_appends_lf_lines_to_a_crlf_file_at_the_offsets_0_2_3_counts() {
    for cut_after_cr in [false, true] {
        let tmp = converted_fixture(b"\r\n");
        // `tiny`'s last file of 2026-11-29 holds lines 8..=10; the empty file of the 30th goes,
        // so a producer on the 29th appends to it.
        std::fs::remove_file(tmp.path().join("tiny/0-20261130_11.tmf")).expect("rm");
        let file = tmp.path().join("tiny/0-20261129_8.tmf");
        if cut_after_cr {
            let bytes = std::fs::read(&file).expect("read");
            assert!(bytes.ends_with(b"\r\n"));
            std::fs::write(&file, &bytes[..bytes.len() - 1]).expect("cut");
        }
        let before = std::fs::read(&file).expect("read");
        let noon_29th = 1_795_953_600_000_000; // 2026-11-29 12:00 UTC
        let store = Store::open(tmp.path()).expect("open").with_clock(std::sync::Arc::new(twainmq::ManualClock::new(noon_29th)));
        let mut p = store.producer("tiny").expect("producer");
        p.send_text(5u64, "after the crlf lines").expect("send");
        p.close().expect("close");
        let after = std::fs::read(&file).expect("read");
        assert_eq!(&after[..before.len()], &before[..], "nothing rewritten");
        let added = &after[before.len()..];
        assert!(added.ends_with(b"\n") && !added.contains(&b'\r') && added.iter().filter(|b| **b == b'\n').count() == 1, "{added:?}");
        let mut c = store.consumer("tiny", StartFrom::Start).expect("consumer");
        let mut got = Vec::new();
        while let Some(m) = c.poll().expect("no damaged line") {
            got.push((m.offset, m.payload));
        }
        assert_eq!(got.len(), 12, "cut after \\r: {cut_after_cr}");
        assert_eq!(got[11], (11, twainmq::Payload::Text("after the crlf lines".into())), "cut after \\r: {cut_after_cr}");
    }
}
