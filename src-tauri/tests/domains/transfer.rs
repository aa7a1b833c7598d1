//! The app's export, import, copy and retention on copies of the 0.2.3 fixture store.

use std::sync::atomic::AtomicBool;

use twainmq::{KeyType, Store, TopicSpec};
use twainmq_desktop::messages::wire::MessageRef;
use twainmq_desktop::transfer::service as transfer;
use twainmq_desktop::transfer::wire::{
    CopyRequest, ExportFormatDto, ExportRequest, ImportFormatDto, ImportRequest, ImportResume, NewStart, RetentionDto, RetentionMode,
    RetentionTrigger, SelectionDto, TransferDone, TransferEvent,
};
use twainmq_desktop::wire::{Count, ErrorCode, Offset};

fn fixture() -> (tempfile::TempDir, Store) {
    let tmp = tempfile::tempdir().expect("tmp");
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/twainmq-0.2.3/store");
    copy(&src, &tmp.path().join("store"));
    let store = Store::open(tmp.path().join("store")).expect("open");
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

fn events_of(f: impl FnOnce(&mut dyn FnMut(TransferEvent))) -> Vec<TransferEvent> {
    let mut out = Vec::new();
    f(&mut |e| out.push(e));
    out
}

fn last_done(evs: &[TransferEvent]) -> &TransferDone {
    match evs.last() {
        Some(TransferEvent::Done { done }) => done,
        other => panic!("the last event is not done: {other:?}"),
    }
}

fn export_req(topic: &str, selection: SelectionDto, format: ExportFormatDto, path: &std::path::Path) -> ExportRequest {
    ExportRequest { topic: topic.into(), selection, format, path: path.display().to_string(), store_topic: None, overwrite: false }
}

fn run_export(store: &Store, req: &ExportRequest) -> Vec<TransferEvent> {
    let sel = transfer::selection(&req.topic, &req.selection).expect("selection");
    events_of(|send| transfer::export(store, req, &sel, &AtomicBool::new(false), send))
}

fn import_req(topic: &str, path: &std::path::Path, dry_run: bool) -> ImportRequest {
    ImportRequest {
        topic: topic.into(),
        path: path.display().to_string(),
        format: ImportFormatDto::Jsonl,
        dry_run,
        keep_timestamps: true,
        skip_bad: false,
        resume: None,
    }
}

/// "Export again" after switching to CSV replaced `hits.jsonl` with CSV, unasked.
/// A file already there is refused and left as it was, unless the request says to replace it.
#[test]
fn an_export_never_replaces_a_file_unasked() {
    let (tmp, store) = fixture();
    let out = tmp.path().join("hits.jsonl");
    std::fs::write(&out, "mine\n").expect("write");
    let mut req = export_req("events", SelectionDto::All { partitions: None }, ExportFormatDto::Csv, &out);
    let evs = run_export(&store, &req);
    match evs.last() {
        Some(TransferEvent::Failed { error, .. }) => {
            assert_eq!(error.code, ErrorCode::TargetExists);
            assert!(error.message.contains("hits.jsonl") && error.message.contains("nothing was written"), "{}", error.message);
        }
        other => panic!("not refused: {other:?}"),
    }
    assert_eq!(std::fs::read_to_string(&out).expect("read"), "mine\n", "the file is as it was");
    assert!(std::fs::read_dir(tmp.path()).expect("ls").flatten().all(|e| !e.file_name().to_string_lossy().contains("partial")));
    req.overwrite = true;
    let done = last_done(&run_export(&store, &req)).clone();
    assert_eq!(done.messages, Count(240));
    assert!(std::fs::read_to_string(&out).expect("read").starts_with("partition,"), "replaced when asked");
}

#[test]
fn an_export_then_a_dry_run_then_an_import_round_trips_a_topic() {
    let (tmp, store) = fixture();
    let out = tmp.path().join("events.jsonl");
    let evs = run_export(&store, &export_req("events", SelectionDto::All { partitions: None }, ExportFormatDto::Jsonl, &out));
    let done = last_done(&evs);
    assert_eq!((done.messages, done.cancelled), (Count(240), false));
    assert_eq!(done.target, out.display().to_string());
    assert_eq!(std::fs::read_to_string(&out).expect("read").lines().count(), 240);

    store.create_topic("copy", &TopicSpec::new(KeyType::U16, 4)).expect("create");
    let dry = events_of(|send| transfer::import(&store, &import_req("copy", &out, true), &AtomicBool::new(false), send));
    let report = last_done(&dry).import.clone().expect("report");
    assert!(report.dry_run);
    assert_eq!(report.messages, Count(240));
    assert_eq!(store.describe_topic("copy").expect("describe").messages, 0, "a dry run writes nothing");
    // The partitions the target's partitioner picks: the source's (same key type and count).
    let source = store.describe_topic("events").expect("describe");
    let want: Vec<Count> = source.partition_details.iter().map(|p| Count(p.end - p.start)).collect();
    assert_eq!(report.partitions, want);

    let wrote = events_of(|send| transfer::import(&store, &import_req("copy", &out, false), &AtomicBool::new(false), send));
    assert_eq!(last_done(&wrote).messages, Count(240));
    assert_eq!(store.describe_topic("copy").expect("describe").messages, 240);
}

#[test]
fn a_bad_line_is_named_in_the_dry_run_and_stops_the_import_with_the_count_written() {
    let (tmp, store) = fixture();
    let file = tmp.path().join("in.jsonl");
    std::fs::write(&file, "{\"key\": 1, \"payload\": \"a\"}\n{\"key\": \"x\", \"payload\": \"b\"}\n{\"key\": 3, \"payload\": \"c\"}\n")
        .expect("write");
    store.create_topic("t", &TopicSpec::new(KeyType::U16, 1)).expect("create");
    let mut req = import_req("t", &file, true);
    req.keep_timestamps = false;
    let dry = events_of(|send| transfer::import(&store, &req, &AtomicBool::new(false), send));
    let report = last_done(&dry).import.clone().expect("report");
    let bad = report.first_bad.expect("a bad line");
    assert_eq!((bad.line, report.bad_lines, report.messages), (Count(2), Count(1), Count(2)));
    assert!(dry.iter().any(|e| matches!(e, TransferEvent::Skipped { bad } if bad.line == Count(2))));

    req.dry_run = false;
    let wrote = events_of(|send| transfer::import(&store, &req, &AtomicBool::new(false), send));
    match wrote.last() {
        Some(TransferEvent::Failed { error, written, .. }) => {
            assert_eq!(*written, Some(Count(1)));
            assert_eq!(error.code, ErrorCode::ImportStopped);
            assert!(error.message.contains("line 2"), "{}", error.message);
        }
        other => panic!("not failed: {other:?}"),
    }
    assert_eq!(store.describe_topic("t").expect("describe").messages, 1);
}

#[test]
fn a_folder_is_refused_as_an_export_target_and_an_import_source() {
    let (tmp, store) = fixture();
    let evs = run_export(&store, &export_req("events", SelectionDto::All { partitions: None }, ExportFormatDto::Csv, tmp.path()));
    match evs.last() {
        Some(TransferEvent::Failed { error, .. }) => assert_eq!(error.code, ErrorCode::BadExportTarget),
        other => panic!("not failed: {other:?}"),
    }
    let e = transfer::check_import(&store, &import_req("events", tmp.path(), true)).expect_err("a folder");
    assert_eq!(e.code, ErrorCode::NotAFile);
    let e = transfer::check_import(&store, &import_req("events", &tmp.path().join("nope.jsonl"), true)).expect_err("missing");
    assert_eq!(e.code, ErrorCode::Io);
}

#[test]
fn picked_rows_export_exactly_those_and_none_picked_is_refused() {
    let (tmp, store) = fixture();
    let out = tmp.path().join("two.csv");
    let messages = vec![MessageRef { partition: 1, offset: Offset(3) }, MessageRef { partition: 0, offset: Offset(0) }];
    let evs = run_export(&store, &export_req("events", SelectionDto::Picked { messages }, ExportFormatDto::Csv, &out));
    assert_eq!(last_done(&evs).messages, Count(2));
    let text = std::fs::read_to_string(&out).expect("read");
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.len(), 3, "a header and two rows: {text}");
    assert!(rows[1].starts_with("1,3,") && rows[2].starts_with("0,0,"), "{text}");
    let e = transfer::selection("events", &SelectionDto::Picked { messages: vec![] }).expect_err("empty");
    assert_eq!(e.code, ErrorCode::EmptySelection);
}

#[test]
fn csv_columns_are_the_header_row() {
    let (tmp, _store) = fixture();
    let f = tmp.path().join("a.csv");
    std::fs::write(&f, "id,\"body, text\",when\n1,x,2\n").expect("write");
    assert_eq!(transfer::csv_columns(&f.display().to_string()).expect("cols"), vec!["id", "body, text", "when"]);
}

#[test]
fn a_copy_keeps_keys_and_a_mismatched_target_is_refused() {
    let (_tmp, store) = fixture();
    store.create_topic("again", &TopicSpec::new(KeyType::U32, 2)).expect("create");
    let req = CopyRequest {
        topic: "events".into(),
        selection: SelectionDto::All { partitions: Some(vec![0]) },
        target_store: None,
        target_topic: "again".into(),
        keep_timestamps: true,
        rate: None,
    };
    let target = transfer::copy_target(&store, &req).expect("target");
    let sel = transfer::selection("events", &req.selection).expect("sel");
    let evs = events_of(|send| transfer::copy(&store, &target, &req, &sel, &AtomicBool::new(false), send));
    let p0 = store.describe_topic("events").expect("d").partition_details[0].end;
    assert_eq!(last_done(&evs).messages, Count(p0));
    assert_eq!(store.describe_topic("again").expect("d").messages, p0);

    let strings = CopyRequest { target_topic: "names".into(), ..req };
    let evs = events_of(|send| transfer::copy(&store, &store, &strings, &sel, &AtomicBool::new(false), send));
    match evs.last() {
        Some(TransferEvent::Failed { error, .. }) => assert_eq!(error.code, ErrorCode::KeyTypesDiffer),
        other => panic!("not failed: {other:?}"),
    }
}

/// The fixture's `tiny` has files of 2026-11-27 to 30 and no group; `events`
/// the same days, read by the group `workers`. Today is later than all of them.
#[test]
fn a_retention_preview_names_what_goes_and_deletes_nothing() {
    let (_tmp, store) = fixture();
    let days = |d: u64| Some(RetentionDto { days: Some(Count(d)), bytes_per_partition: None });
    let plan = transfer::retention_preview(&store, "tiny", days(1), false).expect("preview");
    assert!(!plan.applied);
    // Every file but the newest is over a day old: three go, the newest stays.
    assert_eq!((plan.files_gone, plan.messages_gone), (3, Count(11)));
    assert_eq!(plan.new_starts, vec![NewStart { partition: 0, first: Offset(11) }], "0.2.3 readers start at the file left");
    assert_eq!(store.describe_topic("tiny").expect("d").messages, 11, "a preview deletes nothing");
    let e = transfer::apply_retention(&store, "tiny", false).expect_err("no saved setting");
    assert_eq!(e.code, ErrorCode::InvalidRetention);

    assert_eq!(transfer::set_retention(&store, "tiny", days(1)).expect("set"), days(1));
    assert_eq!(transfer::topic_retention(&store, "tiny").expect("get"), days(1));
    let plans = transfer::auto_retention(&store);
    assert_eq!(plans.iter().map(|p| p.topic.as_str()).collect::<Vec<_>>(), vec!["tiny"], "only topics with a setting");
    assert!(plans[0].applied);
    assert_eq!(store.describe_topic("tiny").expect("d").messages, 0, "the newest file (empty) stays");
    assert!(transfer::auto_retention(&store).is_empty(), "nothing more to remove");
}

#[test]
fn files_a_group_has_not_consumed_stay_unless_forced() {
    let (_tmp, store) = fixture();
    let r = Some(RetentionDto { days: Some(Count(1)), bytes_per_partition: None });
    let kept = transfer::retention_preview(&store, "events", r, false).expect("preview");
    let forced = transfer::retention_preview(&store, "events", r, true).expect("preview");
    assert!(kept.groups_holding.contains(&"workers".to_string()), "{kept:?}");
    assert!(kept.groups_losing.is_empty());
    assert!(forced.groups_losing.contains(&"workers".to_string()), "{forced:?}");
    assert!(forced.messages_gone.get() > kept.messages_gone.get());
}

#[test]
fn a_purge_needs_the_topic_name_typed() {
    let (_tmp, store) = fixture();
    let before = store.describe_topic("events").expect("d").messages;
    let preview = transfer::purge_topic(&store, "events", None, false, true, "").expect("preview");
    assert!(!preview.applied && preview.files_gone > 0);
    let e = transfer::purge_topic(&store, "events", None, true, true, "event").expect_err("mistyped");
    assert_eq!(e.code, ErrorCode::ConfirmationMismatch);
    assert_eq!(store.describe_topic("events").expect("d").messages, before);
    let done = transfer::purge_topic(&store, "events", None, true, true, "events").expect("purge");
    assert!(done.applied);
    assert_eq!(store.describe_topic("events").expect("d").messages, 0);
}

/// The engine's retention plan names groups whose state cannot be read (their config missing or
/// damaged: they hold every file unless forced); the preview the app shows says so too.
#[test]
fn a_retention_preview_names_groups_whose_state_cannot_be_read() {
    let (tmp, store) = fixture();
    store.ensure_group("events", "ours", twainmq::StartFrom::Start).expect("group");
    std::fs::remove_file(tmp.path().join("store/--group--ours.twc")).expect("delete its config");
    let plan = transfer::retention_preview(&store, "events", Some(RetentionDto { days: Some(Count(1)), bytes_per_partition: None }), false)
        .expect("preview");
    assert_eq!(plan.unknown_groups.len(), 1, "{plan:?}");
    assert_eq!(plan.unknown_groups[0].group, "ours");
    assert!(!plan.unknown_groups[0].why.is_empty());
}

/// Opening a store to look at old data must not delete it: the app asks first unless the
/// store's setting says otherwise, and a question deletes nothing.
#[test]
fn retention_is_asked_about_by_default_and_the_setting_is_kept_per_store() {
    let (tmp, store) = fixture();
    let settings = tmp.path().join("config/store-settings.json");
    let root = store.root().display().to_string();
    assert_eq!(transfer::retention_mode(Some(&settings), &root), RetentionMode::Ask, "no setting: ask");
    assert_eq!(transfer::retention_mode(None, &root), RetentionMode::Ask);
    transfer::set_retention(&store, "tiny", Some(RetentionDto { days: Some(Count(1)), bytes_per_partition: None })).expect("set");
    let due = transfer::due_retention(&store);
    assert_eq!((due.len(), due[0].files_gone, due[0].applied), (1, 3, false));
    assert_eq!(store.describe_topic("tiny").expect("d").messages, 11, "asking deletes nothing");

    assert_eq!(transfer::set_retention_mode(&settings, &root, RetentionMode::Automatically).expect("set"), RetentionMode::Automatically);
    assert_eq!(transfer::retention_mode(Some(&settings), "/another/store"), RetentionMode::Ask, "per store");
    transfer::set_retention_mode(&settings, "/another/store", RetentionMode::Never).expect("set");
    assert_eq!(transfer::retention_mode(Some(&settings), &root), RetentionMode::Automatically, "the other store's setting is its own");
    std::fs::write(&settings, b"{not json").expect("damage");
    assert_eq!(transfer::retention_mode(Some(&settings), &root), RetentionMode::Ask, "an unreadable file: ask");
}

/// "Automatically" says what it removed and where to see it: the retention log, which keeps
/// each run by store, newest first, and drops its older half as it grows.
#[test]
fn what_retention_deletes_goes_to_the_retention_log() {
    let (tmp, store) = fixture();
    let log = tmp.path().join("data/retention-log.jsonl");
    let root = store.root().display().to_string();
    transfer::set_retention(&store, "tiny", Some(RetentionDto { days: Some(Count(1)), bytes_per_partition: None })).expect("set");
    let preview = transfer::due_retention(&store);
    transfer::log_retention(&log, &root, &preview, RetentionTrigger::Asked, 1.0);
    assert!(!log.exists(), "a preview deleted nothing: nothing to log");
    let plans = transfer::auto_retention(&store);
    transfer::log_retention(&log, &root, &plans, RetentionTrigger::Automatically, 100.0);
    transfer::log_retention(&log, "/elsewhere", &plans, RetentionTrigger::Automatically, 200.0);
    let read = transfer::read_retention_log(Some(&log), &root, 10);
    assert_eq!(read.path.as_deref(), Some(log.display().to_string().as_str()));
    assert_eq!(read.entries.len(), 1, "this store's runs only");
    let e = &read.entries[0];
    assert_eq!(
        (e.topic.as_str(), e.trigger, e.messages, e.files.len(), e.at),
        ("tiny", RetentionTrigger::Automatically, Count(11), 3, 100.0)
    );
    assert!(e.files.iter().all(|f| f.starts_with("0/") && f.ends_with(".tmf")), "{:?}", e.files);
    assert!(transfer::read_retention_log(None, &root, 10).entries.is_empty());

    // A log grown past its bound keeps its newest lines, whole.
    let big = "x".repeat(4096);
    let line = format!("{{\"junk\":\"{big}\"}}\n");
    std::fs::write(&log, line.repeat(600)).expect("fill");
    transfer::log_retention(&log, &root, &plans, RetentionTrigger::Automatically, 300.0);
    let len = std::fs::metadata(&log).expect("meta").len();
    assert!(len < 1_100_000, "{len}");
    let read = transfer::read_retention_log(Some(&log), &root, 10);
    assert_eq!(read.entries.iter().map(|e| e.at).collect::<Vec<_>>(), vec![300.0]);
}

/// An import that stopped at a bad line says exactly what is in the topic, and a resume
/// from there writes the rest once: nothing of the first run again.
#[test]
fn an_import_resumed_after_a_stop_writes_nothing_twice() {
    let (tmp, store) = fixture();
    store.create_topic("in", &TopicSpec::new(KeyType::U16, 2)).expect("create");
    let file = tmp.path().join("in.jsonl");
    let lines: Vec<String> =
        (1..=8).map(|i| if i == 4 { "oops".to_string() } else { format!(r#"{{"key": {i}, "payload": "m{i}"}}"#) }).collect();
    std::fs::write(&file, lines.join("\n")).expect("write");
    let mut req = import_req("in", &file, true);
    req.keep_timestamps = false;
    let dry = events_of(|send| transfer::import(&store, &req, &AtomicBool::new(false), send));
    let report = last_done(&dry).import.clone().expect("report");
    assert_eq!((report.messages, report.messages_before_first_bad, report.passed_over), (Count(7), Some(Count(3)), Count(0)));

    req.dry_run = false;
    let evs = events_of(|send| transfer::import(&store, &req, &AtomicBool::new(false), send));
    let stop = match evs.last() {
        Some(TransferEvent::Failed { written, stopped: Some(stop), .. }) => {
            assert_eq!(*written, Some(Count(3)));
            stop.clone()
        }
        other => panic!("not stopped: {other:?}"),
    };
    assert_eq!((stop.line, stop.landed_after.len(), stop.partitions.iter().map(|c| c.get()).sum::<u64>()), (Count(4), 0, 3));

    req.skip_bad = true;
    req.resume = Some(ImportResume { line: stop.line, landed_after: stop.landed_after });
    let evs = events_of(|send| transfer::import(&store, &req, &AtomicBool::new(false), send));
    let done = last_done(&evs);
    let r = done.import.clone().expect("report");
    assert_eq!((done.messages, r.passed_over, r.bad_lines), (Count(4), Count(3), Count(1)));
    assert_eq!(store.describe_topic("in").expect("d").messages, 7, "every good line once");
}
