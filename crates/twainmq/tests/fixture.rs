//! The store written by twainmq 0.2.3, read through the engine, equals `expected.json`.

mod common;

use serde_json::{json, Value};
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
