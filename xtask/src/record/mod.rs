//! The recorder behind the UI's test backend (`ui/src/backend/mock.ts`):
//! it builds a store with the real engine, asks the real service functions
//! what the UI asks, and writes their answers to a JSON file the mock replays.
//! The mock then implements no engine rule of its own (assignment, encoding,
//! validation, partitioning): what it shows, the engine said.
//!
//! The store is the 0.2.3 fixture, copied (never written in place), plus
//! topics and groups made here with a pinned clock, so the recording is the
//! same on every run: `cargo xtask ui-fixture [OUT.json [FIXTURE]]` writes it,
//! and a test checks that the committed one is current.
//!
//! What varies by machine is taken out: file modification times are set from
//! each file's day, incarnation tokens (inode numbers) become `incarnation-n`, and
//! the temporary folder becomes a fixed display path.

use std::path::Path;

use serde_json::{json, Map, Value};
use twainmq::{Key, KeyType, Outgoing, Store, TopicSpec};
use twainmq_desktop::groups::service as group_service;
use twainmq_desktop::groups::wire_reset::ResetTarget;
use twainmq_desktop::messages::service as messages;
use twainmq_desktop::messages::wire::{KeyInput, ProduceKind, ProducePayload, Produced, Row, MAX_PAYLOAD_SLICE, PAYLOAD_PREVIEW_BYTES};
use twainmq_desktop::search::service as search;
use twainmq_desktop::search::wire::SearchQuery;
use twainmq_desktop::store::service as store_service;
use twainmq_desktop::topics::service as topic_service;
use twainmq_desktop::topics::wire::NewTopic;
use twainmq_desktop::wire::{Bytes as WireBytes, Commit, ErrorDto, KeyText, Offset};

use self::groups::{admin_resets, describe, record_demos, record_group_admin, reset};
use self::scene::{answer, build, delete_files, dto, err, first_timestamp, value, Res, TempDir, BLOBS_LARGE_KEY, FIREHOSE, NOW, T0};
use self::text::{to_text, Normalizer};
use self::topics::{cel, query, record_search, record_topic};

mod groups;
mod scene;
mod text;
mod topics;
mod transfer;

pub use self::scene::{default_fixture, LEDGER_START};
pub use self::text::to_text as recording_text;

/// In the recording, so the bundle check can tell that recorded data was bundled.
pub const MARKER: &str = "__TWAINMQ_RECORDED_DATA__";

/// Where the recorded store says it is.
pub const ROOT: &str = "/home/you/twainmq/demo-store";
/// A second, empty store the welcome screen can open.
pub const OTHER_ROOT: &str = "/data/pipeline";
/// A folder that is not there.
pub const MISSING_ROOT: &str = "/mnt/usb/old-store";
/// A folder of other files with a store one level down (opening it names that one).
pub const NOT_A_STORE_ROOT: &str = "/home/me/projects";
/// A file where a store's folder was expected (an export, dropped by mistake).
pub const FILE_ROOT: &str = "/home/me/orders.jsonl";

/// Record everything the UI's tests and the browser preview ask, as JSON.
///
/// # Errors
/// When the fixture cannot be copied or the engine refuses what the script does.
pub fn record(fixture: &Path) -> Res<Value> {
    let mut norm = Normalizer::default();
    let mut out = Map::new();
    out.insert("marker".into(), MARKER.into());
    out.insert(
        "about".into(),
        "Answers of the real backend, replayed by the UI's test backend (ui/src/backend/mock.ts). Made by xtask/src/record: `cargo xtask ui-fixture`. Do not edit.".into(),
    );
    out.insert("now".into(), NOW.into());
    out.insert("root".into(), ROOT.into());

    // The store as the UI first sees it.
    let scene = build(fixture)?;
    norm.root(&scene.root, ROOT);
    let store = scene.store.clone();
    out.insert("info".into(), answer(&store_service::store_info(&store)));
    // What `twainmq check` finds in the recorded store (its time left out: it is now).
    out.insert(
        "check".into(),
        answer(&store_service::check_store(&store).map(|mut c| {
            c.checked_at = scene::NOW;
            c
        })),
    );
    out.insert("versions".into(), value(&twainmq_desktop::shell::about::about_info()));
    let mut topics = Map::new();
    for t in store.list_topics().map_err(err("list topics"))? {
        let every = if t == "firehose" { 50 } else { 1 };
        topics.insert(t.clone(), record_topic(&store, &t, every)?);
    }
    out.insert("topics".into(), Value::Object(topics));
    let mut groups = Map::new();
    for g in store.list_groups().map_err(err("list groups"))? {
        groups.insert(g.clone(), answer(&group_service::describe_group_at(&store, &g, None, NOW)));
    }
    out.insert("groups".into(), Value::Object(groups));

    // Pages the mock cuts from the rows above, as the engine cuts them: from
    // before a partition's start, across a damaged line, at the tail, past the end, over the limit.
    let checks: Vec<Value> = [("sensors", 1, 0, 500), ("orders", 1, 5, 4), ("firehose", 0, FIREHOSE - 3, 500), ("chat", 0, 9999, 10), ("orders", 0, 3, 0)]
        .into_iter()
        .map(|(t, p, from, limit)| {
            json!({"topic": t, "partition": p, "from": Offset(from), "limit": limit, "answer": answer(&messages::read_page(&store, t, p, Offset(from), limit))})
        })
        .collect();
    out.insert("page_checks".into(), checks.into());
    out.insert("payloads".into(), record_payloads(&store, &mut norm)?);

    let ranged = SearchQuery { since: Some(T0 + 86_400.0), until: Some(T0 + 2.0 * 86_400.0), ..cel("class == \"Order\"") };
    let searches = vec![
        record_search(&store, "firehose", &query("level=error", false))?,
        record_search(&store, "orders", &query("wrong size", false))?,
        record_search(&store, "orders", &query("lamp", false))?,
        record_search(&store, "chat", &query("(unclosed", true))?,
        record_search(&store, "events", &query("gamma", false))?,
        record_search(&store, "orders", &cel("value.qty >= 4 && value.price > 100.0"))?,
        record_search(&store, "orders", &cel("kind == \"dataclass\""))?,
        record_search(&store, "orders", &ranged)?,
        // The same filter over all time: a range applied after it runs it again.
        record_search(&store, "orders", &cel("class == \"Order\""))?,
        record_search(&store, "chat", &SearchQuery { key: Some(KeyText("ada".into())), ..query("", false) })?,
        record_search(&store, "chat", &cel("text.contains(\"ship\")"))?,
    ];
    out.insert("searches".into(), searches.into());

    // The filter box's checks as it is typed: valid ones, and errors with their place.
    let exprs = [
        "value.qty >= 4 && value.price > 100.0",
        "kind == \"dataclass\"",
        "text.contains(\"ship\")",
        "class == \"Order\"",
        "value.qty >",
        "value.qty > 4 &&\n  nosuch == 1",
        "timestamp > \"2026-01-01\"",
        "key in [1, 2, 3]",
    ];
    let checks: Vec<Value> = exprs.iter().map(|e| json!({"expr": e, "answer": value(&search::check_filter(e))})).collect();
    out.insert("filter_checks".into(), checks.into());

    // Resets the tests and the preview ask for (dry runs change nothing).
    let first_order = first_timestamp(&store, "orders", 0)?;
    let dry = [
        ("billing", reset(ResetTarget::Earliest, None, None, None, true)),
        ("billing", reset(ResetTarget::Offset, Some(30), None, None, true)),
        ("billing", reset(ResetTarget::Offset, Some(60), None, Some(vec![0]), true)),
        // Read again on some partitions, skipped on others; and past every partition's end.
        ("billing", reset(ResetTarget::Offset, Some(60), None, None, true)),
        ("billing", reset(ResetTarget::Offset, Some(200), None, None, true)),
        ("billing", reset(ResetTarget::Time, None, Some((first_order + 3600.0).floor()), None, true)),
        ("idle", reset(ResetTarget::Earliest, None, None, None, true)),
        ("workers", reset(ResetTarget::Earliest, None, None, None, true)),
    ];
    let mut resets: Vec<Value> =
        dry.iter().map(|(g, r)| json!({"group": g, "request": r, "answer": answer(&group_service::reset_group(&store, g, r))})).collect();
    resets.extend(
        admin_resets().iter().map(|(g, r)| json!({"group": g, "request": r, "answer": answer(&group_service::reset_group(&store, g, r))})),
    );
    record_group_admin(&store, fixture, &mut norm, &mut out)?;

    // Another process deletes every topic (as 0.2.3 or a person would: the
    // files go, the groups stay): what each command then says of it.
    let s = build(fixture)?;
    norm.root(&s.root, ROOT);
    let names = s.store.list_topics().map_err(err("list topics"))?;
    for name in &names {
        delete_files(&s.root, name)?;
    }
    let gone: Map<String, Value> = names.iter().map(|n| (n.clone(), answer(&topic_service::describe_topic(&s.store, n)))).collect();
    out.insert("gone".into(), Value::Object(gone));

    // And makes some again under the same name.
    let mut remade = Map::new();
    for (name, kt, partitions, messages) in [("chat", KeyType::Char(12), 3, 90), ("firehose", KeyType::U64, 1, 40)] {
        let s = build(fixture)?;
        norm.root(&s.root, ROOT);
        delete_files(&s.root, name)?;
        s.store.create_topic(name, &TopicSpec::new(kt, partitions)).map_err(err("make it again"))?;
        let mut p = s.store.producer(name).map_err(err("producer"))?;
        for i in 0..messages {
            s.advance(7.0);
            let key = if kt.is_int() { Key::Int(i) } else { Key::Str(format!("k{}", i % 7)) };
            p.send(&key, &Outgoing::Text(format!("{name} again #{i}"))).map_err(err("send"))?;
        }
        drop(p);
        s.settle()?;
        let mut t = record_topic(&s.store, name, 1)?;
        t["summary"] = value(&topic_service::topic_summary(&s.store, name));
        remade.insert(name.to_string(), t);
    }
    out.insert("remade".into(), Value::Object(remade));
    out.insert("no_store".into(), answer(&twainmq_desktop::session::AppState::default().store().map(|_| ())));

    // What the app writes: produce, create, delete; each from the store as first seen.
    let mut produced = Vec::new();
    let s = build(fixture)?;
    norm.root(&s.root, ROOT);
    let sends = [
        ("chat", "ada", ProducePayload { kind: ProduceKind::Text, body: "hello from a test".into(), class: None, file: None }),
        (
            "orders",
            "4294967295",
            ProducePayload {
                kind: ProduceKind::Json,
                body: r#"{"id": 98765432109876543210, "price": 1.50}"#.into(),
                class: Some("Order".into()),
                file: None,
            },
        ),
        ("orders", "4294967296", ProducePayload { kind: ProduceKind::Json, body: "{}".into(), class: Some("Order".into()), file: None }),
        ("sensors", "7", ProducePayload { kind: ProduceKind::Hex, body: "00 ff 10 20".into(), class: None, file: None }),
    ];
    for (topic, key, payload) in sends {
        s.advance(1.0);
        let r = messages::produce(&s.store, topic, &KeyInput::Text { text: key.into() }, &payload);
        let row = match &r {
            Ok(Produced { partition, offset: Some(o) }) => {
                messages::read_page(&s.store, topic, *partition, *o, 1).ok().and_then(|p| p.rows.into_iter().next()).map(|r| value(&r))
            }
            _ => None,
        };
        produced.push(json!({"topic": topic, "key": key, "payload": payload, "answer": answer(&r), "row": row}));
    }
    out.insert("produce".into(), produced.into());

    let mut created = Vec::new();
    let s = build(fixture)?;
    norm.root(&s.root, ROOT);
    let new = |name: &str, key_type: &str, partitions: u32| NewTopic {
        name: name.into(),
        key_type: key_type.into(),
        partitions,
        message_types: vec![],
        max_message_bytes: None,
    };
    for t in [
        new("metrics", "u8", 1),
        new("metrics", "char16", 3),
        new("metrics2", "char16", 3),
        new("stormy", "u16", 1),
        new("audit", "u16", 2),
    ] {
        let existed = s.store.topic_exists(&t.name).unwrap_or(false);
        let r = topic_service::create_topic(&s.store, &t);
        s.settle()?;
        let detail = r.as_ref().ok().map(|_| answer(&topic_service::describe_topic(&s.store, &t.name)));
        let groups = r.as_ref().ok().map(|_| answer(&topic_service::topic_groups(&s.store, &t.name)));
        created.push(json!({"request": t, "existed": existed, "answer": answer(&r), "detail": detail, "groups": groups}));
    }
    out.insert("create_topic".into(), created.into());

    let mut deleted = Vec::new();
    for topic in ["chat", "orders", "sensors"] {
        let s = build(fixture)?;
        norm.root(&s.root, ROOT);
        deleted.push(json!({"topic": topic, "confirm": topic, "answer": answer(&topic_service::delete_topic(&s.store, topic, topic))}));
    }
    out.insert("delete_topic".into(), deleted.into());

    // Resets that write, each on the store as first seen: the plan and the group after. The
    // dialog's Confirm commits the offsets its dry run showed (ui/src/groups/resetModes.ts
    // `confirmRequest`): recorded in that form.
    for (g, dry) in [
        ("billing", reset(ResetTarget::Offset, Some(60), None, Some(vec![0]), true)),
        ("billing", reset(ResetTarget::Latest, None, None, Some(vec![0]), true)),
    ] {
        let s = build(fixture)?;
        norm.root(&s.root, ROOT);
        s.advance(1.0);
        let shown = group_service::reset_group(&s.store, g, &dry).map_err(|e| e.message)?;
        let mut r = reset(ResetTarget::Offsets, None, None, Some(shown.rows.iter().map(|r| r.partition).collect()), false);
        r.offsets = Some(
            shown.rows.iter().map(|row| (row.partition.to_string(), Commit(i64::try_from(row.after.get()).unwrap_or(i64::MAX)))).collect(),
        );
        r.topic = Some(shown.topic.clone());
        let a = group_service::reset_group(&s.store, g, &r);
        resets.push(json!({"group": g, "request": r, "answer": answer(&a), "after": value(&describe(&s, g)?)}));
    }
    out.insert("resets".into(), resets.into());

    // Rounds opened from outside: open (every live member offered) and ended.
    let mut rounds = Vec::new();
    for window_ms in [300u32, 800, 2400] {
        let mut s = build(fixture)?;
        norm.root(&s.root, ROOT);
        s.advance(1.0);
        let at = s.now();
        group_service::trigger_round(&s.store, "billing", window_ms).map_err(dto("trigger a round"))?;
        s.heartbeat()?;
        let open = describe(&s, "billing")?;
        s.advance(f64::from(window_ms) / 1000.0 + 0.1);
        s.heartbeat()?;
        s.heartbeat()?;
        let ended = describe(&s, "billing")?;
        rounds.push(json!({"group": "billing", "window_ms": window_ms, "at": at, "open": open, "ended": ended}));
    }
    out.insert("rounds".into(), rounds.into());

    out.insert("demos".into(), record_demos(fixture, &mut norm)?);
    out.insert("transfer".into(), transfer::record(fixture, &mut norm)?);

    // The welcome screen: another store, and one that is not there.
    let other = TempDir::new("other")?;
    let missing = other.0.join("old-store");
    norm.root(&missing, MISSING_ROOT);
    norm.root(&other.0, OTHER_ROOT);
    // Opening an empty folder is refused; "Create a store here" (create_store) makes it one.
    let open_empty = Store::open_existing(&other.0).map(|_| ()).map_err(ErrorDto::from);
    let empty = Store::open_or_create(&other.0).map_err(err("an empty store"))?;
    out.insert("other_stores".into(), json!({ OTHER_ROOT: answer(&store_service::store_info(&empty)) }));
    let open_missing = Store::open_existing(&missing).map(|_| ()).map_err(ErrorDto::from);
    let not_a_store = TempDir::new("projects")?;
    norm.root(&not_a_store.0, NOT_A_STORE_ROOT);
    std::fs::write(not_a_store.0.join("notes.txt"), b"not a store").map_err(err("a folder of other files"))?;
    let sub = Store::open_or_create(not_a_store.0.join("orders-store")).map_err(err("a store one level down"))?;
    sub.create_topic("orders", &twainmq::TopicSpec::new(twainmq::KeyType::U32, 2)).map_err(err("a store one level down"))?;
    let open_other_files = Store::open_existing(&not_a_store.0).map(|_| ()).map_err(ErrorDto::from);
    let a_file = TempDir::new("file")?;
    let file = a_file.0.join("orders.jsonl");
    std::fs::write(&file, b"{}\n").map_err(err("a file"))?;
    norm.root(&file, FILE_ROOT);
    let open_file = Store::open_existing(&file).map(|_| ()).map_err(ErrorDto::from);
    out.insert(
        "open_errors".into(),
        json!({
            MISSING_ROOT: answer(&open_missing),
            OTHER_ROOT: answer(&open_empty),
            NOT_A_STORE_ROOT: answer(&open_other_files),
            FILE_ROOT: answer(&open_file),
        }),
    );

    drop(scene);
    Ok(norm.value(Value::Object(out)))
}

/// The large message of `blobs` as the detail pane reads it (a preview, then the rest a slice
/// at a time) and saves it: to a folder shown as `/home/you/Downloads`, and inside the store (refused).
fn record_payloads(store: &Store, norm: &mut Normalizer) -> Res<Value> {
    let rows = messages::read_page(store, "blobs", 0, Offset(0), messages::MAX_PAGE).map_err(dto("blobs"))?.rows;
    let large = rows
        .iter()
        .find_map(|r| match r {
            Row::Message(m) if m.key.0 == BLOBS_LARGE_KEY => Some(m.offset),
            _ => None,
        })
        .ok_or("no large message in blobs")?;
    let inc = topic_service::topic_incarnation(store, "blobs");
    let mut slices = Vec::new();
    let (mut from, mut len) = (WireBytes(0), PAYLOAD_PREVIEW_BYTES);
    loop {
        let r = messages::message_payload(store, "blobs", 0, large, inc.as_ref(), from, len);
        slices.push(
            json!({"topic": "blobs", "partition": 0, "offset": large, "incarnation": inc, "from": from, "len": len, "answer": answer(&r)}),
        );
        match r {
            Ok(s) if s.next != s.size => (from, len) = (s.next, MAX_PAYLOAD_SLICE),
            _ => break,
        }
    }
    let downloads = TempDir::new("downloads")?;
    norm.root(&downloads.0, "/home/you/Downloads");
    let mut saves = Vec::new();
    for path in [downloads.0.join("report.txt"), store.root().join("report.txt")] {
        let path = path.display().to_string();
        let r = messages::save_payload(store, "blobs", 0, large, inc.as_ref(), &path);
        saves.push(json!({"topic": "blobs", "partition": 0, "offset": large, "incarnation": inc, "path": path, "answer": answer(&r)}));
    }
    Ok(json!({"slices": slices, "saves": saves}))
}

/// Record and write the recording to `out`.
///
/// # Errors
/// See [`record`]; and when `out` cannot be written.
pub fn record_to(fixture: &Path, out: &Path) -> Res<()> {
    let v = record(fixture)?;
    std::fs::write(out, to_text(&v)).map_err(err("write the recording"))
}
