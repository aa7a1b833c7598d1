//! Replays the fuzz corpus (`fuzz/corpus/<target>/`) through the fuzz targets'
//! own checks (`fuzz/src/checks.rs`, included below), so `cargo test` keeps
//! what fuzzing established; plus the minimised inputs of what fuzzing found.
//! Fuzzing itself is `scripts/fuzz.sh` (`make fuzz`), not part of `make test`.

#[path = "../../../fuzz/src/checks.rs"]
#[allow(dead_code)]
mod checks;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use twainmq::group::GroupLog;
use twainmq::internals::line::decode_payload;
use twainmq::internals::pyjson::{python_compact, python_pretty};
use twainmq::internals::Record;
use twainmq::{Key, Message, Payload, TopicConfig, TypedPayload};

fn corpus_dir(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus").join(target)
}

/// Run `target`'s check on every file of its corpus; report every failing file.
fn replay(target: &str) {
    let check = checks::TARGETS.iter().find(|(name, _)| *name == target).expect("a fuzz target").1;
    let dir = corpus_dir(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("corpus {}: {e}", dir.display()))
        .map(|e| e.expect("corpus entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "corpus {} is empty", dir.display());
    let mut failed = Vec::new();
    for f in &files {
        let data = match std::fs::read(f) {
            Ok(d) => d,
            // A fuzzer running meanwhile replaces corpus files.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => panic!("{}: {e}", f.display()),
        };
        if let Err(e) = catch_unwind(AssertUnwindSafe(|| check(&data))) {
            let msg = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default();
            failed.push(format!("{}: {msg}", f.display()));
        }
    }
    assert!(failed.is_empty(), "{} of {} {target} corpus inputs fail:\n{}", failed.len(), files.len(), failed.join("\n"));
}

#[test]
fn corpus_line_decode() {
    replay("line_decode");
}

#[test]
fn corpus_line_roundtrip() {
    replay("line_roundtrip");
}

#[test]
fn corpus_b85_deflate() {
    replay("b85_deflate");
}

#[test]
fn corpus_config_parse() {
    replay("config_parse");
}

#[test]
fn corpus_pyjson() {
    replay("pyjson");
}

#[test]
fn corpus_group_log() {
    replay("group_log");
}

#[test]
fn corpus_assign() {
    replay("assign");
}

#[test]
fn every_target_has_a_corpus_test() {
    assert_eq!(checks::TARGETS.len(), 7);
    for (name, _) in checks::TARGETS {
        assert!(corpus_dir(name).is_dir(), "{name}");
    }
}

// ---------------------------------------------------------------------------
// What fuzzing found, minimised. These state the correct behaviour; the fuzz
// checks hold the engine to them.

/// pyjson: a `\u` escape with a plus sign is taken as an escape
/// (`u16::from_str_radix` accepts a leading `+`). Python's `json.loads`
/// refuses `"\u+041"` ("Invalid \uXXXX escape"); the engine returns `"\u0041"`.
#[test]
fn finding_plus_sign_in_unicode_escape_is_refused() {
    let text = r#""\u+041""#;
    assert!(python_compact(text).is_err(), "python_compact({text}) = {:?}", python_compact(text));
    assert!(python_pretty(text).is_err(), "python_pretty({text}) = {:?}", python_pretty(text));
    // So a typed payload 0.2.3 cannot read must be reported corrupt, not decoded.
    let raw = b"\xFB\x00\x00{\"s\":\"\\u+041\"}";
    assert!(decode_payload(raw).is_err(), "decode_payload = {:?}", decode_payload(raw));
}

/// pyjson: `python_compact` keeps a `\u` escape of a printable ASCII character
/// as written, `python_pretty` shows the character, so compacting the pretty
/// form does not give the compact form back: for `"\u006c"`, compact is
/// `"\u006c"` but compact(pretty) is `"l"` (the same string to Python).
#[test]
fn finding_pretty_compacts_back_to_the_same_bytes() {
    let text = r#"{"k":"\u006c"}"#;
    let compact = python_compact(text).expect("valid");
    let pretty = python_pretty(text).expect("valid");
    assert_eq!(python_compact(&pretty).expect("valid"), compact, "pretty form {pretty:?}");
}

/// config: parsing moves unknown keys around (serde_json's `Map::remove` is a
/// `swap_remove` under `preserve_order`), so a config read and written back
/// has its extra keys in another order, and each rewrite changes the file:
/// `{"key_width":1,"partitions":1,"message_types":{},"a":0,"b":0}` keeps `b`
/// before `a`.
#[test]
fn finding_config_keeps_extra_key_order() {
    let text = br#"{"key_width":1,"partitions":1,"message_types":{},"a":0,"b":0}"#;
    let c = TopicConfig::parse(text).expect("valid");
    assert_eq!(c.extra.keys().collect::<Vec<_>>(), ["a", "b"], "extra keys in file order");
    let bytes = c.to_bytes();
    let again = TopicConfig::parse(&bytes).expect("valid").to_bytes();
    assert_eq!(String::from_utf8_lossy(&again), String::from_utf8_lossy(&bytes), "rewriting a config leaves it as it was");
}

fn group_message(key: u32, class: &str, json: &str) -> Message {
    let type_id = twainmq::internals::TYPES.iter().position(|t| *t == class).expect("group type") as u16;
    Message {
        topic: "--group--g".into(),
        partition: 0,
        offset: 0,
        key: Key::Int(key.into()),
        timestamp: 0.0,
        payload: Payload::Typed(TypedPayload { type_id, class: Some(class.into()), json: json.into() }),
    }
}

/// group_log: partition 4294967295 (a valid u32, accepted by `Record::from_message`)
/// in the first COMMIT under key 0, or in an OFFER during a round, overflows
/// `p + 1` where `GroupLog::apply` computes `partitions_hint` (group/state.rs):
/// a panic in debug builds, `Some(0)` in release builds.
#[test]
fn finding_group_log_max_partition_does_not_overflow() {
    let commit = Record::from_message(&group_message(0, "~~TWAIN~~COMMIT", r#"{"partition_offsets":[[4294967295,0]]}"#)).expect("a record");
    let hint = catch_unwind(|| {
        let mut log = GroupLog::default();
        log.apply(0, 0, 0.0, &commit);
        log.partitions_hint
    });
    assert!(matches!(hint, Ok(h) if h != Some(0)), "first commit of partition u32::MAX: {hint:?}");

    let offer =
        Record::from_message(&group_message(1, "~~TWAIN~~REBALOFFER", r#"{"own":[],"partitions":[4294967295]}"#)).expect("a record");
    let hint = catch_unwind(|| {
        let mut log = GroupLog::default();
        log.apply(1, 0, 0.0, &Record::BeginRound { ends_at: 1.0 });
        log.apply(1, 1, 0.0, &offer);
        log.partitions_hint
    });
    assert!(matches!(hint, Ok(h) if h != Some(0)), "offer of partition u32::MAX: {hint:?}");
}

/// group_log: `GroupLog` keeps 200 rounds; after 200 `BEGINREBAL`s with no
/// `ENDREBAL` (each superseding the last), the last completed round falls out
/// of the history, and `members()` forgets every member's partitions (and
/// `last_completed()` is `None`), though that round's assignment still stands.
#[test]
fn finding_members_survive_200_superseded_rounds() {
    let mut log = GroupLog::default();
    log.apply(1, 0, 0.0, &Record::Joined { tag: 1, client: None });
    log.apply(1, 1, 0.0, &Record::BeginRound { ends_at: 1.0 });
    log.apply(1, 2, 0.0, &Record::Offer { own: vec![], partitions: vec![0, 1] });
    log.apply(1, 3, 0.0, &Record::EndRound);
    assert_eq!(log.members().get(&1), Some(&vec![0, 1]));
    for i in 0..200 {
        log.apply(1, 4 + i, 0.0, &Record::BeginRound { ends_at: 1.0 });
    }
    assert_eq!(log.members().get(&1), Some(&vec![0, 1]), "after 200 superseded rounds");
}
