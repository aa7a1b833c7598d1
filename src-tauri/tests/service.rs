//! The commands' logic on real stores: what the webview gets back.

use std::sync::atomic::AtomicBool;

use twainmq::{KeyType, Store, TopicSpec};
use twainmq_desktop::service;
use twainmq_desktop::transport::{
    Commit, Count, ErrorCode, FilterCheck, Handle, KeyKind, KeyText, MemberStatus, NewTopic, Offset, PayloadKind, ProduceKind,
    ProducePayload, ResetTarget, Row, SearchEvent, SearchFinish, SearchQuery, TimelineAnchor,
};

fn fixture() -> (tempfile::TempDir, Store) {
    let tmp = tempfile::tempdir().expect("tmp");
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/twainmq-0.2.3/store");
    copy(&src, tmp.path());
    for t in ["empty", "events", "names", "sensors", "tiny", "typed", "bigmsgs"] {
        std::fs::create_dir_all(tmp.path().join(t)).expect("mkdir");
    }
    let store = Store::open(tmp.path()).expect("open");
    (tmp, store)
}

fn copy(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("dir") {
        let e = e.expect("entry");
        if e.file_type().expect("type").is_dir() {
            copy(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).expect("copy");
        }
    }
}

fn text(p: &str) -> ProducePayload {
    ProducePayload { kind: ProduceKind::Text, body: p.into(), class: None }
}

fn key(k: &str) -> KeyText {
    KeyText(k.into())
}

fn at(o: u64) -> Offset {
    Offset(o)
}

#[test]
fn store_info_lists_topics_and_groups_with_counts() {
    let (_d, store) = fixture();
    let info = service::store_info(&store).expect("info");
    let names: Vec<&str> = info.topics.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, vec!["bigmsgs", "empty", "events", "names", "sensors", "tiny", "typed"]);
    let events = info.topics.iter().find(|t| t.name == "events").expect("events");
    assert_eq!((events.key_type.as_str(), events.partitions, events.messages), ("u16", 4, Count(240)));
    let groups: Vec<&str> = info.groups.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(groups, vec!["tail", "workers"]);
    assert_eq!(info.groups[1].topic.as_deref(), Some("events"));
}

#[test]
fn pages_carry_offsets_as_strings_and_u64_keys_exactly() {
    let (_d, store) = fixture();
    let page = service::read_page(&store, "sensors", 0, at(0), 5).expect("page");
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
    let page = service::read_page(&store, "events", 2, at(50), 100).expect("page");
    assert_eq!(page.end, Offset(56));
    assert_eq!(page.rows.len(), 6);
    assert!(service::read_page(&store, "events", 9, at(0), 5).is_err());
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
    let page = service::read_page(&store, "tiny", 0, at(0), 3).expect("page");
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
    let page = service::read_page(&store, "typed", 1, at(0), 1).expect("page");
    let Row::Message(m) = &page.rows[0] else { panic!("message") };
    assert_eq!(m.class.as_deref(), Some("Event"));
    assert!(m.fields_json.as_deref().expect("json").starts_with("{\"id\":1,"));
    assert!(m.fields_pretty.as_deref().expect("pretty").starts_with("{\n  \"id\": 1,"));
}

fn run(store: &Store, q: &SearchQuery, cancel: bool) -> (Vec<SearchEvent>, Option<Vec<twainmq::scan::HitRef>>) {
    let mut events = Vec::new();
    let mut hits = Vec::new();
    let ran = service::search(store, "events", q, &AtomicBool::new(cancel), &mut |ev| events.push(ev), &mut |h| hits.extend_from_slice(h));
    (events, ran.then_some(hits))
}

fn q(text: Option<&str>) -> SearchQuery {
    SearchQuery {
        key: None,
        text: text.map(Into::into),
        regex: false,
        case_sensitive: false,
        partitions: None,
        since: None,
        until: None,
        filter: None,
    }
}

#[test]
fn search_sessions_count_every_hit_and_read_them_by_index() {
    let (_d, store) = fixture();
    let (events, hits) = run(&store, &q(Some("gamma")), false);
    let hits = hits.expect("hits");
    let Some(SearchEvent::Done { hits: h, scanned, total, finish }) = events.last().cloned() else { panic!("{events:?}") };
    assert!(hits.len() > 10);
    assert_eq!(h, Count(hits.len() as u64));
    assert_eq!((scanned, total, finish), (Count(240), Count(240), SearchFinish::Done));
    // Rows by index, in timeline order, every one a hit.
    let page = service::search_rows(&store, "events", &hits[3..8], Count(3), hits.len() as u64).expect("rows");
    assert_eq!(page.hits, Count(hits.len() as u64));
    assert_eq!(page.rows.len(), 5);
    assert!(page.rows.iter().all(|r| r.text.as_deref().is_some_and(|t| t.contains("gamma"))));
    assert!(page.rows.windows(2).all(|w| w[0].timestamp <= w[1].timestamp));
    let tail =
        service::search_rows(&store, "events", &hits[hits.len() - 2..], Count(hits.len() as u64 - 2), hits.len() as u64).expect("rows");
    assert_eq!(tail.rows.len(), 2);
    // Regex and key, a CEL filter, a time range, cancel, bad regex, bad filter.
    let rk = SearchQuery { key: Some(key("28977")), text: Some("^alpha #\\d+".into()), regex: true, case_sensitive: true, ..q(None) };
    assert_eq!(run(&store, &rk, false).1.expect("hits").len(), 1);
    let f = SearchQuery { filter: Some("partition == 2 && text.contains(\"gamma\")".into()), ..q(None) };
    let fh = run(&store, &f, false).1.expect("hits");
    assert!(!fh.is_empty() && fh.iter().all(|h| h.partition == 2));
    let mid = hits[hits.len() / 2].timestamp;
    let ranged = run(&store, &SearchQuery { since: Some(mid), ..q(Some("gamma")) }, false).1.expect("hits");
    assert!(ranged.len() < hits.len() && ranged.iter().all(|h| h.timestamp >= mid));
    let (events, _) = run(&store, &q(None), true);
    assert!(matches!(events.last(), Some(SearchEvent::Done { finish: SearchFinish::Cancelled, .. })), "{events:?}");
    let (events, hits) = run(&store, &SearchQuery { text: Some("(".into()), regex: true, ..q(None) }, false);
    assert!(hits.is_none());
    assert!(matches!(events.last(), Some(SearchEvent::Failed { error }) if error.code == ErrorCode::InvalidRegex), "{events:?}");
    let (events, _) = run(&store, &SearchQuery { filter: Some("value.qty >".into()), ..q(None) }, false);
    assert!(matches!(events.last(), Some(SearchEvent::Failed { error }) if error.code == ErrorCode::InvalidFilter), "{events:?}");
}

#[test]
fn filters_are_checked_with_their_place() {
    assert!(matches!(service::check_filter("key in [1, 2]"), FilterCheck::Valid { .. }));
    match service::check_filter("value.a == 1 &&\n  nosuch") {
        FilterCheck::Invalid { line, column, reason } => {
            assert_eq!(line, 2, "{reason}");
            assert!(column >= 3, "{column} {reason}");
        }
        v => panic!("{v:?}"),
    }
    match service::check_filter("value.country == \"DE\" && value.amount > 1") {
        FilterCheck::Valid { fields } => assert_eq!(fields, ["country", "amount"]),
        v => panic!("{v:?}"),
    }
}

#[test]
fn the_timeline_of_a_topic_merges_its_partitions_by_time() {
    let (_d, store) = fixture();
    let end = service::timeline_before(&store, "events", None, None, 10).expect("end");
    assert_eq!(end.rows.len(), 10);
    assert_eq!(end.total, Count(240));
    assert_eq!(end.base, Count(230));
    assert!(end.rows.windows(2).all(|w| w[0].timestamp <= w[1].timestamp));
    let newest = end.rows.iter().map(|r| r.timestamp).fold(f64::MIN, f64::max);
    let start = service::timeline_after(&store, "events", None, &TimelineAnchor::Start, 500).expect("start");
    assert_eq!(start.rows.len(), 240);
    assert_eq!(start.rows.last().map(|r| r.timestamp), Some(newest));
    let parts: std::collections::BTreeSet<u32> = start.rows.iter().map(|r| r.partition).collect();
    assert_eq!(parts.len(), 4);
    // The page before a page ends where it begins.
    let before = service::timeline_before(&store, "events", None, Some(&end.begin), 20).expect("before");
    assert_eq!(before.end, end.begin);
    assert_eq!(before.base, Count(210));
    assert_eq!(start.rows[210..240], [before.rows.clone(), end.rows.clone()].concat()[..]);
    // A time, and a place found by time.
    let t = start.rows[100].timestamp;
    let at = service::timeline_after(&store, "events", None, &TimelineAnchor::Time { unix: t }, 3).expect("time");
    assert!(at.rows[0].timestamp >= t);
    let near = service::timeline_after(&store, "events", None, &TimelineAnchor::Index { index: Count(120) }, 3).expect("index");
    assert!(near.base.get().abs_diff(120) <= 8, "{:?}", near.base);
    assert_eq!(near.rows[0], start.rows[near.base.get() as usize]);
    // Fields seen in the newest messages.
    let fields = service::topic_fields(&store, "events").expect("fields");
    assert!(fields.iter().all(|f| f.starts_with("value.")), "{fields:?}");
}

#[test]
fn produce_reports_partition_and_offset_and_validates() {
    let (_d, store) = fixture();
    let p = service::produce(&store, "events", &key("42"), &text("<img src=x onerror=alert(1)>")).expect("produce");
    assert_eq!(p.partition, twainmq::partition_for(&twainmq::Key::Int(42), 4));
    let end = store.end_offsets("events").expect("ends")[p.partition as usize];
    assert_eq!(p.offset, Some(Offset(end - 1)));
    let page = service::read_page(&store, "events", p.partition, p.offset.expect("offset"), 1).expect("page");
    let Row::Message(m) = &page.rows[0] else { panic!("message") };
    assert_eq!(m.text.as_deref(), Some("<img src=x onerror=alert(1)>"));
    assert_eq!(service::produce(&store, "events", &key("65536"), &text("x")).expect_err("range").code, "key_out_of_range");
    let typed = ProducePayload {
        kind: ProduceKind::Json,
        body: r#"{"id": 18446744073709551616, "text": "t", "tags": []}"#.into(),
        class: Some("Event".into()),
    };
    let p = service::produce(&store, "typed", &key("7"), &typed).expect("typed");
    let page = service::read_page(&store, "typed", p.partition, p.offset.expect("offset"), 1).expect("page");
    let Row::Message(m) = &page.rows[0] else { panic!("message") };
    assert_eq!(m.fields_json.as_deref(), Some(r#"{"id":18446744073709551616,"text":"t","tags":[]}"#));
    let bad = ProducePayload { kind: ProduceKind::Json, body: "{".into(), class: Some("Event".into()) };
    assert_eq!(service::produce(&store, "typed", &key("7"), &bad).expect_err("json").code, "invalid_json");
    let hex = ProducePayload { kind: ProduceKind::Hex, body: "00 ff 10".into(), class: None };
    assert!(service::produce(&store, "sensors", &key("18446744073709551615"), &hex).is_ok());
    assert_eq!(
        service::produce(&store, "sensors", &key("1"), &ProducePayload { body: "0g".into(), ..hex }).expect_err("hex").code,
        "invalid_hex"
    );
}

#[test]
fn create_and_delete_topics_with_confirmation() {
    let (d, store) = fixture();
    let t = NewTopic { name: "fresh".into(), key_type: "char4".into(), partitions: 3, message_types: vec!["A".into(), " ".into()] };
    let s = service::create_topic(&store, &t).expect("create");
    assert_eq!((s.key_type.as_str(), s.partitions, s.message_types.clone()), ("char4", 3, vec!["A".to_string()]));
    assert_eq!(service::create_topic(&store, &t).expect_err("exists").code, "topic_exists");
    assert_eq!(service::create_topic(&store, &NewTopic { name: "..".into(), ..t.clone() }).expect_err("name").code, "invalid_topic_name");
    assert_eq!(service::create_topic(&store, &NewTopic { key_type: "u7".into(), ..t }).expect_err("kt").code, "invalid_key_type");
    assert_eq!(service::delete_topic(&store, "fresh", "fres").expect_err("confirm").code, "confirmation_mismatch");
    assert!(d.path().join("fresh.twc").exists());
    service::delete_topic(&store, "fresh", "fresh").expect("delete");
    assert!(!d.path().join("fresh.twc").exists() && !d.path().join("fresh").exists());
    // No command reaches outside the store: names that escape are refused before any file is touched.
    for evil in ["../x", "..", "/etc", "a\\b"] {
        assert!(service::delete_topic(&store, evil, evil).is_err());
        assert!(service::describe_topic(&store, evil).is_err());
        assert!(service::read_page(&store, evil, 0, at(0), 1).is_err());
    }
    let _ = (KeyType::U8, TopicSpec::default());
}

#[test]
fn time_jumps_find_the_first_message_at_or_after() {
    let (_d, store) = fixture();
    let page = service::read_page(&store, "events", 1, at(0), 100).expect("page");
    let Row::Message(m) = &page.rows[30] else { panic!("message") };
    let o = service::offset_at_time(&store, "events", 1, m.timestamp).expect("time");
    assert_eq!(o, Some(Offset(30)));
    assert_eq!(service::offset_at_time(&store, "events", 1, 4e9).expect("time"), None);
}

#[test]
fn committed_bindings_are_current() {
    let committed = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/lib/bindings.ts");
    let tmp = tempfile::tempdir().expect("tmp");
    let fresh = tmp.path().join("bindings.ts");
    twainmq_desktop::export_bindings(&fresh).expect("export");
    let want = std::fs::read_to_string(&fresh).expect("fresh");
    let have = std::fs::read_to_string(&committed).unwrap_or_default();
    assert!(have == want, "ui/src/lib/bindings.ts is stale: run `make bindings` and commit it");
}

#[test]
fn recorded_ui_backend_is_current() {
    let committed = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/lib/recorded/store.json");
    let fresh = twainmq_desktop::record::record(&twainmq_desktop::record::default_fixture()).expect("record");
    let have = std::fs::read_to_string(&committed).unwrap_or_default();
    assert!(
        have == twainmq_desktop::record::to_text(&fresh),
        "ui/src/lib/recorded/store.json is stale: run `target/debug/twainmq-desktop --record-ui-fixture ui/src/lib/recorded/store.json` and commit it"
    );
    // What the UI's tests lean on is there: the fixture's 0.2.3 groups, and what was made here.
    assert_eq!(fresh["groups"]["workers"]["data"]["topic"], "events");
    assert_eq!(fresh["topics"]["ledger"]["detail"]["data"]["partitions"][0]["start"], twainmq_desktop::record::LEDGER_START.to_string());
    assert_eq!(fresh["marker"], twainmq_desktop::record::MARKER);
}

#[test]
fn groups_are_described_and_reset_through_dry_runs() {
    let (_d, store) = fixture();
    let g = service::describe_group(&store, "workers", None).expect("describe");
    assert_eq!(g.topic.as_deref(), Some("events"));
    assert_eq!(g.members.len(), 1);
    assert_eq!(g.members[0].partitions, vec![0, 1, 2, 3]);
    assert_eq!(g.partitions[0].committed, Some(Commit(7)));
    assert_eq!(g.partitions[0].lag, Count(49));
    assert!(g.partitions[0].oldest_unconsumed_at.is_some());
    assert!(g.rounds.len() >= 3 && g.rounds[0].started_at >= g.rounds[g.rounds.len() - 1].started_at, "newest first");
    let req = |to: ResetTarget, dry: bool| twainmq_desktop::transport::ResetRequest {
        to,
        offset: Some(Offset(3)),
        time: None,
        shift: None,
        ago_secs: None,
        other_group: None,
        offsets: None,
        file_group: None,
        file_topic: None,
        partitions: Some(vec![0, 2]),
        dry_run: dry,
        topic: None,
    };
    let plan = service::reset_group(&store, "workers", &req(ResetTarget::Offset, true)).expect("dry run");
    assert!(!plan.applied);
    assert_eq!(
        plan.rows.iter().map(|r| (r.partition, r.before, r.after)).collect::<Vec<_>>(),
        vec![(0, Some(Commit(7)), Offset(3)), (2, Some(Commit(25)), Offset(3))]
    );
    assert_eq!(plan.live_members, vec![1]);
    assert_eq!(
        service::describe_group(&store, "workers", None).expect("d").partitions[0].committed,
        Some(Commit(7)),
        "dry run wrote nothing"
    );
    let plan = service::reset_group(&store, "workers", &req(ResetTarget::Offset, false)).expect("apply");
    assert!(plan.applied);
    assert_eq!(service::describe_group(&store, "workers", None).expect("d").partitions[2].committed, Some(Commit(3)));
    let no_time = twainmq_desktop::transport::ResetRequest { time: None, ..req(ResetTarget::Time, true) };
    assert_eq!(service::reset_group(&store, "workers", &no_time).expect_err("bad").code, "invalid_reset");
    let no_offset = twainmq_desktop::transport::ResetRequest { offset: None, ..req(ResetTarget::Offset, true) };
    assert_eq!(service::reset_group(&store, "workers", &no_offset).expect_err("bad").code, "invalid_offset");
    assert!(serde_json::from_str::<ResetTarget>("\"sideways\"").is_err(), "not a reset target");
    assert_eq!(service::describe_group(&store, "nope", None).expect_err("missing").code, "group_not_found");
}

/// Issue 24 item 6: demo members joined real groups with live external consumers, unasked, and
/// took their partitions. A group with members this app did not start is refused, saying what
/// the demo would do; a group of the demo's own (or its own members) is not.
#[test]
fn demo_members_stay_out_of_groups_with_other_members_unless_asked() {
    let (_d, store) = fixture();
    let members = twainmq_desktop::members::Members::default();
    members.check_group_free(&store, "fresh").expect("a group that does not exist yet is free");
    let opts = twainmq::group::GroupOptions { window: std::time::Duration::from_millis(200), ..Default::default() };
    let mut outside = twainmq::group::GroupMember::join(&store, "events", "real", opts).expect("an outside consumer joins");
    let _ = outside.poll();
    let e = members.check_group_free(&store, "real").expect_err("refused");
    assert_eq!(e.code, twainmq_desktop::transport::ErrorCode::GroupInUse);
    assert!(e.message.contains(&format!("m{}", outside.id())) && e.message.contains("never process"), "{}", e.message);
    // Our own members do not make a group busy.
    let h = members.start(&store, "events", "demo", 300, 0).expect("start");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while members.list().iter().any(|m| m.member_id == 0) {
        assert!(std::time::Instant::now() < deadline, "never joined");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    members.check_group_free(&store, "demo").expect("only our member is in it");
    // Killed, it is still in the log (stale until its silence makes it gone), and still ours:
    // listed, or cleared from the list.
    members.stop(h, true).expect("kill");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while members.list().iter().any(|m| m.status == twainmq_desktop::transport::MemberStatus::Running) {
        assert!(std::time::Instant::now() < deadline, "never killed");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(store.describe_group("demo").expect("d").members.iter().any(|m| m.status != twainmq::group::MemberStatus::Gone));
    members.check_group_free(&store, "demo").expect("a killed member of ours is ours");
    members.clear_stopped();
    members.check_group_free(&store, "demo").expect("and so once cleared from the list");
    drop(outside);
}

#[test]
fn demo_members_split_partitions_and_take_over_when_one_is_killed() {
    let (_d, store) = fixture();
    let members = twainmq_desktop::members::Members::default();
    let a = members.start(&store, "events", "demo", 300, 0).expect("a");
    let b = members.start(&store, "events", "demo", 300, 0).expect("b");
    let settled = |want: usize| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let list = members.list();
            let mut parts: Vec<u32> = list.iter().flat_map(|m| m.partitions.clone()).collect();
            parts.sort();
            let holders = list.iter().filter(|m| !m.partitions.is_empty()).count();
            if parts == vec![0, 1, 2, 3] && holders == want {
                return list;
            }
            assert!(std::time::Instant::now() < deadline, "never settled on {want} members: {list:?}");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    };
    let list = settled(2);
    assert!(list.iter().all(|m| m.partitions.len() == 2 && m.status == MemberStatus::Running));
    members.stop(b, true).expect("kill");
    // The survivor's periodic round moves the dead member's partitions to it.
    let list = settled(1);
    let survivor = list.iter().find(|m| m.handle == a).expect("a");
    assert_eq!(survivor.partitions, vec![0, 1, 2, 3]);
    assert_eq!(list.iter().find(|m| m.handle == b).expect("b").status, MemberStatus::Killed);
    members.stop_all();
    assert!(members.list().iter().all(|m| m.partitions.is_empty()));
}

#[test]
fn raw_lines_come_with_their_file_and_line() {
    let (_d, store) = fixture();
    let raw = service::raw_line(&store, "events", 0, at(22)).expect("raw").expect("line 22");
    assert_eq!((raw.file.as_str(), raw.line.get()), ("0-20261128_21.tmf", 2));
    let on_disk = std::fs::read_to_string(store.root().join("events/0-20261128_21.tmf")).expect("read");
    assert_eq!(raw.raw, on_disk.lines().nth(1).expect("line"));
    assert_eq!(service::raw_line(&store, "events", 0, at(9999)).expect("raw"), None);
}

/// A partition file whose lines end in CRLF (a Windows checkout, FTP in ASCII
/// mode) shows each raw line as 0.2.3 reads it: the same line, number and
/// text as before the conversion, without the `\r`.
#[test]
fn raw_lines_of_a_crlf_file_are_the_lines_without_their_cr() {
    let (_d, store) = fixture();
    let before = service::raw_line(&store, "events", 0, at(22)).expect("raw").expect("line 22");
    let path = store.root().join("events/0-20261128_21.tmf");
    let text = std::fs::read_to_string(&path).expect("read");
    std::fs::write(&path, text.replace('\n', "\r\n")).expect("write");
    let crlf = Store::open(store.root()).expect("open again");
    let after = service::raw_line(&crlf, "events", 0, at(22)).expect("raw").expect("line 22");
    assert_eq!(after, before);
    assert!(!after.raw.contains('\r'));
}

/// Wait up to `secs` for `cond`, saying what never happened.
fn wait_for<T>(what: &str, secs: u64, mut cond: impl FnMut() -> Option<T>) -> T {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        if let Some(v) = cond() {
            return v;
        }
        assert!(std::time::Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

fn member(members: &twainmq_desktop::members::Members, handle: Handle) -> twainmq_desktop::transport::DemoMember {
    members.list().into_iter().find(|m| m.handle == handle).expect("member listed")
}

/// Committed offsets of a group, per partition (None: no commit).
fn committed(store: &Store, group: &str, topic: &str) -> Vec<Option<Commit>> {
    service::describe_group(store, group, Some(topic)).expect("describe group").partitions.into_iter().map(|p| p.committed).collect()
}

#[test]
fn deleting_a_topic_lists_and_deletes_the_groups_that_read_it() {
    let (d, store) = fixture();
    // A group of ours on a topic made here, and the fixture's 0.2.3 groups.
    let t = NewTopic { name: "jobs".into(), key_type: "u16".into(), partitions: 3, message_types: vec![] };
    service::create_topic(&store, &t).expect("create");
    store.ensure_group("jobs", "runners", twainmq::StartFrom::Start).expect("group");
    assert_eq!(service::topic_groups(&store, "jobs").expect("groups"), vec!["runners".to_string()]);
    let reading_events = service::topic_groups(&store, "events").expect("groups");
    assert!(reading_events.contains(&"workers".to_string()), "{reading_events:?}");
    assert!(!reading_events.contains(&"runners".to_string()));
    assert_eq!(service::topic_groups(&store, "../x").expect_err("name").code, "invalid_topic_name");

    // The command says what went, and the group list no longer has it.
    let deleted = service::delete_topic(&store, "jobs", "jobs").expect("delete");
    assert_eq!(deleted, twainmq_desktop::transport::DeletedTopic { topic: "jobs".into(), groups: vec!["runners".into()] });
    let info = service::store_info(&store).expect("info");
    assert!(!info.groups.iter().any(|g| g.name == "runners"));
    assert!(info.groups.iter().any(|g| g.name == "workers"), "groups of other topics stay");
    assert!(!d.path().join("--group--runners.twc").exists() && !d.path().join("--group--runners").exists());

    // Made again under the same name, the topic has no group with old commits.
    service::create_topic(&store, &t).expect("create again");
    assert_eq!(service::topic_groups(&store, "jobs").expect("groups"), Vec::<String>::new());
    assert_eq!(service::describe_group(&store, "runners", None).expect_err("gone").code, "group_not_found");
}

#[test]
fn details_and_pages_name_the_incarnation_of_their_topic() {
    let (d, store) = fixture();
    let detail = service::describe_topic(&store, "events").expect("describe");
    let first = detail.incarnation.clone().expect("an incarnation");
    let page = service::read_page(&store, "events", 0, at(0), 10).expect("page");
    assert_eq!(page.incarnation.as_ref(), Some(&first));
    // Appends are the same topic.
    service::produce(&store, "events", &key("1"), &text("more")).expect("produce");
    assert_eq!(service::describe_topic(&store, "events").expect("d").incarnation.as_ref(), Some(&first));

    // Deleted and made again, again and again (a file system may hand the freed
    // inode to the next folder): each time another incarnation, in pages too.
    let mut seen = vec![first];
    for partitions in [4, 2, 4, 4, 1, 4] {
        service::delete_topic(&store, "events", "events").expect("delete");
        let t = NewTopic { name: "events".into(), key_type: "u16".into(), partitions, message_types: vec![] };
        service::create_topic(&store, &t).expect("create");
        let now = service::describe_topic(&store, "events").expect("d");
        let inc = now.incarnation.clone().expect("an incarnation");
        assert!(!seen.contains(&inc), "{inc:?} was seen before: {seen:?}");
        assert_eq!(now.partitions.len(), partitions as usize);
        assert_eq!(service::read_page(&store, "events", 0, at(0), 10).expect("page").incarnation.as_ref(), Some(&inc));
        seen.push(inc);
    }

    // 0.2.3 deletes the folder and leaves the config; its create makes a new folder.
    let before = service::describe_topic(&store, "events").expect("d").incarnation;
    std::fs::remove_dir_all(d.path().join("events")).expect("rm");
    let folderless = service::describe_topic(&store, "events").expect("d").incarnation;
    std::fs::create_dir(d.path().join("events")).expect("mkdir");
    let remade = service::describe_topic(&store, "events").expect("d").incarnation;
    assert!(before != folderless && folderless != remade && before != remade, "{before:?} {folderless:?} {remade:?}");

    // A deleted topic says so.
    service::delete_topic(&store, "events", "events").expect("delete");
    assert_eq!(service::describe_topic(&store, "events").expect_err("gone").code, "topic_not_found");
    assert_eq!(service::read_page(&store, "events", 0, at(0), 1).expect_err("gone").code, "topic_not_found");
}

#[test]
fn a_demo_member_whose_topic_is_deleted_stops_without_committing() {
    let (d, store) = fixture();
    let members = twainmq_desktop::members::Members::default();
    // 20 msg/s: the member is still reading the topic's 240 messages when it goes.
    let h = members.start(&store, "events", "demo", 300, 20).expect("start");
    wait_for("the member to read some messages", 30, || {
        let m = member(&members, h);
        (m.status == MemberStatus::Running && m.consumed.get() >= 10).then_some(())
    });
    // Deleted as 0.2.3 deletes a topic: its folder goes, its config and the group stay.
    std::fs::remove_dir_all(d.path().join("events")).expect("rm");
    let before = committed(&store, "demo", "events");
    let m = wait_for("the member to stop", 10, || {
        let m = member(&members, h);
        (m.status != MemberStatus::Running).then_some(m)
    });
    let problem = m.problem.clone().unwrap_or_default();
    assert!(
        m.status == MemberStatus::Failed
            && problem.starts_with("topic \"events\" was deleted or made again by another process")
            && problem.contains("without committing"),
        "{m:?}"
    );
    assert!(m.partitions.is_empty());
    let consumed = m.consumed;
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(member(&members, h).consumed, consumed, "it reads nothing more");
    assert_eq!(committed(&store, "demo", "events"), before, "no commit after the topic went");
    members.stop(h, false).expect("stop a stopped member");
    assert_eq!(committed(&store, "demo", "events"), before, "stopping it afterwards commits nothing either");
}

#[test]
fn a_demo_member_whose_topic_and_group_are_deleted_stops_and_writes_nothing_more() {
    let (d, store) = fixture();
    let members = twainmq_desktop::members::Members::default();
    let h = members.start(&store, "events", "demo", 300, 20).expect("start");
    wait_for("the member to read", 30, || (member(&members, h).consumed.get() >= 5).then_some(()));
    let deleted = service::delete_topic(&store, "events", "events").expect("delete");
    assert!(deleted.groups.contains(&"demo".to_string()), "{deleted:?}");
    let m = wait_for("the member to stop", 10, || {
        let m = member(&members, h);
        (m.status != MemberStatus::Running).then_some(m)
    });
    let problem = m.problem.clone().unwrap_or_default();
    assert_eq!(m.status, MemberStatus::Failed, "{m:?}");
    assert!(problem.starts_with("group \"demo\" was deleted") || problem.starts_with("topic \"events\" was deleted"), "{problem}");
    assert!(problem.contains("without committing"), "{problem}");
    // Nothing was written into the deleted group: it is not there again.
    std::thread::sleep(std::time::Duration::from_millis(400));
    assert!(!d.path().join("--group--demo").exists() && !d.path().join("--group--demo.twc").exists());
    assert!(!store.list_groups().expect("groups").contains(&"demo".to_string()));

    // Made again, the topic's new group starts at its start: nothing skipped.
    let t = NewTopic { name: "events".into(), key_type: "u16".into(), partitions: 4, message_types: vec![] };
    service::create_topic(&store, &t).expect("create");
    for i in 0..10 {
        service::produce(&store, "events", &key(&i.to_string()), &text("new")).expect("produce");
    }
    let h2 = members.start(&store, "events", "demo", 300, 0).expect("start again");
    wait_for("the new member to read the new topic", 30, || (member(&members, h2).consumed == Count(10)).then_some(()));
    members.stop_all();
}

#[test]
fn stopping_a_demo_member_commits_exactly_what_it_read() {
    let (_d, store) = fixture();
    let members = twainmq_desktop::members::Members::default();
    // 40 msg/s and commits every 50: stopped before its first periodic commit.
    let h = members.start(&store, "events", "demo", 300, 40).expect("start");
    wait_for("the member to read", 30, || (member(&members, h).consumed.get() >= 20).then_some(()));
    members.stop(h, false).expect("stop");
    let m = member(&members, h);
    assert_eq!(m.status, MemberStatus::Stopped);
    let consumed = m.consumed.get();
    assert!(consumed < 240, "still reading when stopped: {consumed}");
    let sum: i64 = committed(&store, "demo", "events").iter().map(|c| c.map_or(0, Commit::get)).sum();
    assert_eq!(u64::try_from(sum).expect("positive"), consumed, "the commit covers what it read, no more, no less");
}
