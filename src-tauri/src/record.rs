//! The recorder behind the UI's test backend (`ui/src/lib/mockBackend.ts`):
//! it builds a store with the real engine, asks the real service functions
//! what the UI asks, and writes their answers to a JSON file the mock replays.
//! The mock then implements no engine rule of its own (assignment, encoding,
//! validation, partitioning): what it shows, the engine said.
//!
//! The store is the 0.2.3 fixture, copied (never written in place), plus
//! topics and groups made here with a pinned clock, so the recording is the
//! same on every run: `twainmq-desktop --record-ui-fixture OUT.json [FIXTURE]`
//! writes it, and a test checks that the committed one is current.
//!
//! What varies by machine is taken out: file modification times are set from
//! each file's day, incarnation tokens (inode numbers) become `incarnation-n`, and
//! the temporary folder becomes a fixed display path.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Map, Value};
use twainmq::group::{self, GroupMember, GroupOptions};
use twainmq::{Key, KeyType, ManualClock, Outgoing, StartFrom, Store, TopicSpec};

use crate::service;
use crate::transport::*;

mod transfer;

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

/// 2026-11-28 00:00 UTC: the generated topics' first messages.
const T0: f64 = 1_795_824_000.0;
/// 2026-12-01 00:00 UTC, the day after the fixture's last: "now" in the recording.
const NOW: f64 = 1_796_083_200.0;

/// The first offset of the `ledger` topic's only file: beyond 2^53, as a long-lived log's are.
pub const LEDGER_START: u64 = 1 << 62;

type Res<T> = Result<T, String>;

fn err<E: std::fmt::Display>(what: &str) -> impl FnOnce(E) -> String + '_ {
    move |e| format!("{what}: {e}")
}

fn dto(what: &str) -> impl FnOnce(ErrorDto) -> String + '_ {
    move |e| format!("{what}: {} ({:?})", e.message, e.code)
}

/// A command's answer as the webview sees it: `{status: "ok", data}` or `{status: "error", error}`.
fn answer<T: Serialize>(r: &Result<T, ErrorDto>) -> Value {
    match r {
        Ok(v) => json!({ "status": "ok", "data": v }),
        Err(e) => json!({ "status": "error", "error": e }),
    }
}

fn value<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// A folder removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Res<TempDir> {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!("twainmq-record-{}-{}-{name}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
        std::fs::create_dir_all(&dir).map_err(err("a temporary folder"))?;
        Ok(TempDir(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn copy_dir(from: &Path, to: &Path) -> Res<()> {
    std::fs::create_dir_all(to).map_err(err("mkdir"))?;
    for e in std::fs::read_dir(from).map_err(err("read the fixture"))? {
        let e = e.map_err(err("read the fixture"))?;
        if e.file_type().map_err(err("file type"))?.is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()))?;
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).map_err(err("copy the fixture"))?;
        }
    }
    Ok(())
}

/// Every partition file's modification time: the end of its day (from its
/// name), or a minute before "now" for today's; other files a minute before now.
fn fix_mtimes(dir: &Path) -> Res<()> {
    for e in std::fs::read_dir(dir).map_err(err("list"))? {
        let e = e.map_err(err("list"))?;
        let path = e.path();
        if e.file_type().map_err(err("file type"))?.is_dir() {
            fix_mtimes(&path)?;
            continue;
        }
        let name = e.file_name().to_string_lossy().into_owned();
        let day_end = name
            .split(['-', '_'])
            .nth(1)
            .and_then(|d| chrono::NaiveDate::parse_from_str(d, "%Y%m%d").ok())
            .and_then(|d| d.and_hms_opt(23, 59, 0))
            .map(|t| t.and_utc().timestamp() as f64);
        let t = day_end.unwrap_or(NOW).min(NOW - 60.0);
        let when = std::time::UNIX_EPOCH + Duration::from_secs_f64(t);
        std::fs::File::options().append(true).open(&path).and_then(|f| f.set_modified(when)).map_err(err("set a modification time"))?;
    }
    Ok(())
}

/// The fixture's own store (`tests/fixtures/twainmq-0.2.3/store`).
pub fn default_fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/twainmq-0.2.3/store")
}

/// A small deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next() % items.len() as u64) as usize]
    }
}

fn micros(t: f64) -> i64 {
    (t * 1e6).round() as i64
}

/// Options of the scripted group members: rounds only when the script says,
/// no heartbeat on its own, so what they write depends on nothing but the script.
fn member_options(window_ms: u64) -> GroupOptions {
    GroupOptions {
        window: Duration::from_millis(window_ms),
        start_from: StartFrom::Start,
        auto_round: None,
        heartbeat_every: Duration::from_secs(24 * 3600),
        ..GroupOptions::default()
    }
}

/// A built store: the fixture's copy and what is made here, with two live
/// members of `billing` the scenes can drive.
struct Scene {
    root: PathBuf,
    store: Store,
    clock: ManualClock,
    billing: Vec<GroupMember>,
    /// Last: removed after the members are gone.
    _dir: TempDir,
}

impl Drop for Scene {
    fn drop(&mut self) {
        // Gone without a word: nothing is written after the recording.
        for m in std::mem::take(&mut self.billing) {
            m.abandon();
        }
    }
}

impl Scene {
    fn at(&self, t: f64) {
        self.clock.set(micros(t));
    }
    fn advance(&self, secs: f64) {
        self.clock.advance(micros(secs));
    }
    fn now(&self) -> f64 {
        use twainmq::Clock;
        self.clock.now_micros() as f64 / 1e6
    }
    fn settle(&self) -> Res<()> {
        fix_mtimes(&self.root)
    }
    fn heartbeat(&mut self) -> Res<()> {
        for m in &mut self.billing {
            m.heartbeat().map_err(err("heartbeat"))?;
        }
        Ok(())
    }
}

/// Poll `n` messages (or what there is) and commit them.
fn consume(m: &mut GroupMember, n: usize) -> Res<()> {
    for _ in 0..n {
        match m.poll() {
            Ok(Some(_)) | Err(twainmq::Error::CorruptLine { .. }) => {}
            Ok(None) => break,
            Err(e) => return Err(format!("poll: {e}")),
        }
    }
    m.commit().map_err(err("commit"))
}

/// The store the UI is shown. Everything here is deterministic.
fn build(fixture: &Path) -> Res<Scene> {
    let dir = TempDir::new("store")?;
    let root = dir.0.clone();
    copy_dir(fixture, &root)?;
    // Git keeps no empty folders: every topic's folder is made again.
    for e in std::fs::read_dir(&root).map_err(err("list"))? {
        let name = e.map_err(err("list"))?.file_name().to_string_lossy().into_owned();
        if let Some(topic) = name.strip_suffix(".twc") {
            std::fs::create_dir_all(root.join(topic)).map_err(err("mkdir"))?;
        }
    }
    // What a store in use has that the fixture has not: an old file gone (a
    // partition that no longer starts at 0) and a file that is not the engine's.
    std::fs::remove_file(root.join("sensors/1-20261127_0.tmf")).map_err(err("drop an old file"))?;
    std::fs::write(root.join("sensors/notes.txt"), "calibrated 2026-11-26\n").map_err(err("write"))?;

    let clock = ManualClock::new(micros(T0));
    let store = Store::open(&root).map_err(err("open the copy"))?.with_clock(Arc::new(clock.clone()));
    let mut scene = Scene { root, store, clock, billing: Vec::new(), _dir: dir };
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let s = &scene.store;
    let e = |what: &'static str| err::<twainmq::Error>(what);

    // orders: typed messages over three days, a damaged line and an unfinished one.
    s.create_topic("orders", &TopicSpec::new(KeyType::U32, ORDERS_PARTITIONS).with_types(["Order", "Refund"]))
        .map_err(e("create orders"))?;
    let mut p = s.producer("orders").map_err(e("producer"))?;
    let items = ["lamp", "desk", "chair", "monitor", "cable", "keyboard", "headset"];
    let reasons = ["damaged", "late", "wrong size"];
    for i in 0..400u64 {
        scene.at(T0 + i as f64 * 604.8);
        let key = Key::Int(1 + rng.next() % 5000);
        let out = if i == 4 {
            Outgoing::typed_json(
                "Order",
                r#"{"id":123456789012345678901234567890,"item":"lamp","qty":1,"price":19.90,"note":"an id past 2^64"}"#,
            )?
        } else if i % 11 == 0 {
            Outgoing::typed("Refund", &json!({"order": i.saturating_sub(3), "reason": rng.pick(&reasons)})).map_err(err("json"))?
        } else {
            let cents = 300 + rng.next() % 40_000;
            let v = json!({"id": i, "item": rng.pick(&items), "qty": 1 + rng.next() % 5, "price": cents as f64 / 100.0});
            Outgoing::typed("Order", &v).map_err(err("json"))?
        };
        p.send(&key, &out).map_err(e("send"))?;
    }
    drop(p);

    // firehose: one partition of short text lines, a second apart.
    s.create_topic("firehose", &TopicSpec::new(KeyType::U64, 1)).map_err(e("create firehose"))?;
    let mut p = s.producer("firehose").map_err(e("producer"))?;
    let levels = ["info", "info", "info", "debug", "warn", "error"];
    for i in 0..FIREHOSE {
        scene.at(NOW - 4.0 * 3600.0 + i as f64 * 1.5);
        let key = Key::Int(i.wrapping_mul(2_654_435_761).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let text = format!("event #{i} level={} user={}", rng.pick(&levels), rng.next() % 977);
        p.send(&key, &Outgoing::Text(text)).map_err(e("send"))?;
    }
    drop(p);

    // chat: text with string keys, markup and JSON that are just text.
    s.create_topic("chat", &TopicSpec::new(KeyType::Char(12), 2)).map_err(e("create chat"))?;
    let mut p = s.producer("chat").map_err(e("producer"))?;
    let who = ["ada", "grace", "linus", "ken", "barbara"];
    let lines = [
        "hello",
        "ship it",
        "who broke main?",
        "lunch?",
        "<img src=x onerror=alert(1)>",
        r#"{"user":"ada","id":18446744073709551615,"tags":["a","b"],"ok":true}"#,
        r#"{"user":"grace","count":3,"nested":{"list":[1,2.50,3]}}"#,
        "multi\nline\tmessage",
        "ünïcödé ✓ 日本語",
    ];
    for i in 0..60usize {
        scene.at(T0 + 3600.0 + i as f64 * 3700.0);
        p.send_text(*rng.pick(&who), lines[(i * 5) % lines.len()]).map_err(e("send"))?;
    }
    drop(p);

    // ledger: offsets past 2^53 (its only file starts at 2^62).
    s.create_topic("ledger", &TopicSpec::new(KeyType::U64, 1)).map_err(e("create ledger"))?;
    let mut p = s.producer("ledger").map_err(e("producer"))?;
    for i in 0..3u64 {
        scene.at(NOW - 5000.0 + i as f64 * 1000.0);
        p.send_text(i + 1, &format!("entry {i}")).map_err(e("send"))?;
    }
    drop(p);
    let ledger = scene.root.join("ledger");
    for f in std::fs::read_dir(&ledger).map_err(err("list"))? {
        let path = f.map_err(err("list"))?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if let Some(stem) = name.strip_suffix("_0.tmf") {
            std::fs::rename(&path, ledger.join(format!("{stem}_{LEDGER_START}.tmf"))).map_err(err("rename"))?;
        }
    }

    // broken: a config that cannot be read.
    std::fs::write(scene.root.join("broken.twc"), "{\"key_width\": \"wide\",").map_err(err("write"))?;

    // A damaged line in orders P1 (at offset 7) and an unfinished last line in
    // a partition the recorded produce does not write to.
    damage(&scene.root.join("orders"), 1, 7)?;
    let produced_to = twainmq::partition_for(&Key::Int(PRODUCED_ORDER_KEY), ORDERS_PARTITIONS);
    let unfinished = (2..ORDERS_PARTITIONS).find(|p| *p != produced_to).unwrap_or(0);
    let last = last_file(&scene.root.join("orders"), unfinished)?;
    let mut bytes = std::fs::read(&last).map_err(err("read"))?;
    bytes.extend_from_slice(b"0rr$y");
    std::fs::write(&last, bytes).map_err(err("write"))?;

    // billing: two members (Python processes, say) that split orders and committed.
    scene.at(NOW - 3.0 * 3600.0);
    let m1 = GroupMember::join(&scene.store, "orders", "billing", member_options(5000)).map_err(err("join billing"))?;
    scene.billing.push(m1);
    scene.advance(6.0);
    scene.heartbeat()?;
    consume(&mut scene.billing[0], 120)?;
    scene.advance(600.0);
    let m2 = GroupMember::join(&scene.store, "orders", "billing", member_options(5000)).map_err(err("join billing"))?;
    scene.billing.push(m2);
    scene.heartbeat()?;
    scene.advance(6.0);
    scene.heartbeat()?;
    scene.advance(900.0);
    consume(&mut scene.billing[0], 60)?;
    consume(&mut scene.billing[1], 200)?;
    scene.advance(1800.0);
    scene.heartbeat()?;

    // idle: a group nobody is in, with one commit; auditors: one on the ledger.
    scene.store.ensure_group("orders", "idle", StartFrom::Start).map_err(e("idle"))?;
    scene.store.reset_group_on("idle", None, group::ResetTo::Offset(10), Some(&[0]), false).map_err(e("idle commit"))?;
    scene.store.ensure_group("ledger", "auditors", StartFrom::Start).map_err(e("auditors"))?;
    scene.store.reset_group_on("auditors", None, group::ResetTo::Offset(LEDGER_START + 1), None, false).map_err(e("auditors commit"))?;

    scene.at(NOW);
    scene.settle()?;
    Ok(scene)
}

/// Messages in `firehose`.
const FIREHOSE: u64 = 1500;
/// Partitions of `orders`: not 4, the count of the fixture's `events`, so that
/// the fixture's 0.2.3 groups (which record no topic) still tell theirs.
const ORDERS_PARTITIONS: u32 = 5;
/// The key of the typed message the produce test sends to `orders`.
const PRODUCED_ORDER_KEY: u64 = 4_294_967_295;

/// The last partition file of `partition` in a topic folder.
fn last_file(topic_dir: &Path, partition: u32) -> Res<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(topic_dir)
        .map_err(err("list"))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(&format!("{partition}-"))))
        .collect();
    files.sort_by_key(|p| {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        name.rsplit('_').next().and_then(|f| f.trim_end_matches(".tmf").parse::<u64>().ok()).unwrap_or(0)
    });
    files.pop().ok_or_else(|| format!("no file of partition {partition} in {}", topic_dir.display()))
}

/// Make the message at `offset` (in the partition's first file) a line that is not one.
fn damage(topic_dir: &Path, partition: u32, offset: usize) -> Res<()> {
    let first = topic_dir.join(
        std::fs::read_dir(topic_dir)
            .map_err(err("list"))?
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .find(|n| n.starts_with(&format!("{partition}-")) && n.ends_with("_0.tmf"))
            .ok_or("no first file")?,
    );
    let text = std::fs::read(&first).map_err(err("read"))?;
    let mut out = Vec::new();
    for (i, line) in text.split_inclusive(|b| *b == b'\n').enumerate() {
        out.extend_from_slice(if i == offset { b"~~ not a message ~~\n" } else { line });
    }
    std::fs::write(&first, out).map_err(err("write"))
}

/// Replaces what differs between machines and runs in recorded values.
#[derive(Default)]
struct Normalizer {
    /// Temporary folders, to [`ROOT`] or another display path (in order: a
    /// folder inside another comes first).
    roots: Vec<(String, String)>,
    /// Incarnation token to `incarnation-n`, in the order first seen.
    incarnations: BTreeMap<String, String>,
}

impl Normalizer {
    fn root(&mut self, dir: &Path, shown: &str) {
        self.roots.push((dir.display().to_string(), shown.to_string()));
    }

    fn value(&mut self, v: Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.text(s)),
            Value::Array(a) => Value::Array(a.into_iter().map(|x| self.value(x)).collect()),
            Value::Object(o) => {
                let mut out = Map::new();
                for (k, x) in o {
                    let x = match (k.as_str(), x) {
                        ("incarnation", Value::String(token)) => Value::String(self.incarnation(&token)),
                        (_, x) => self.value(x),
                    };
                    out.insert(k, x);
                }
                Value::Object(out)
            }
            other => other,
        }
    }

    fn text(&self, mut s: String) -> String {
        for (from, to) in &self.roots {
            if s.contains(from.as_str()) {
                s = s.replace(from.as_str(), to);
            }
        }
        s
    }

    fn incarnation(&mut self, token: &str) -> String {
        let n = self.incarnations.len() + 1;
        self.incarnations.entry(token.to_string()).or_insert_with(|| format!("incarnation-{n}")).clone()
    }
}

/// Everything recorded of one topic: its description, every row, raw lines and time lookups.
fn record_topic(store: &Store, topic: &str, sample_every: usize) -> Res<Value> {
    let detail = service::describe_topic(store, topic);
    let mut partitions = Vec::new();
    let mut raw = Map::new();
    let mut times = Vec::new();
    if let Ok(d) = &detail {
        for p in &d.partitions {
            let mut rows = Vec::new();
            let mut from = p.start;
            let (next, end) = loop {
                let page = service::read_page(store, topic, p.partition, from, service::MAX_PAGE).map_err(dto("read a page"))?;
                let done = page.rows.is_empty() || page.next >= page.end;
                rows.extend(page.rows);
                from = page.next;
                if done {
                    break (page.next, page.end);
                }
            };
            for (i, row) in rows.iter().enumerate() {
                let (offset, ts) = match row {
                    Row::Message(m) => (m.offset, Some(m.timestamp)),
                    Row::Damaged(d) => (d.offset, None),
                };
                let sampled = i % sample_every == 0 || i + 1 == rows.len() || i < 100;
                if sampled {
                    let line = service::raw_line(store, topic, p.partition, offset).map_err(dto("raw line"))?;
                    raw.insert(format!("{}:{}", p.partition, offset), value(&line));
                }
                if let (Some(ts), true) = (ts, i % sample_every == 0 || i + 1 == rows.len()) {
                    let o = service::offset_at_time(store, topic, p.partition, ts).map_err(dto("offset at time"))?;
                    times.push(json!([p.partition, ts, o]));
                }
            }
            // Past the last message: no offset.
            let after = rows.iter().rev().find_map(|r| if let Row::Message(m) = r { Some(m.timestamp) } else { None }).unwrap_or(T0) + 1.0;
            let o = service::offset_at_time(store, topic, p.partition, after).map_err(dto("offset at time"))?;
            times.push(json!([p.partition, after, o]));
            partitions.push(json!({ "partition": p.partition, "rows": rows, "next": next, "end": end }));
        }
    }
    // A topic of several partitions is also shown as one timeline.
    let timeline = match &detail {
        Ok(d) if d.partitions.len() > 1 => record_timeline(store, topic)?,
        _ => Value::Null,
    };
    Ok(json!({
        "detail": answer(&detail),
        "timeline": timeline,
        "partitions": partitions,
        "raw_lines": raw,
        "times": times,
        "groups": answer(&service::topic_groups(store, topic)),
        "fields": answer(&service::topic_fields(store, topic)),
    }))
}

/// A search's events, without the progress ones (they come by the clock), and
/// every hit's row in the session's order.
fn record_search(store: &Store, topic: &str, query: &SearchQuery) -> Res<Value> {
    let mut events = Vec::new();
    let mut hits = Vec::new();
    let ran = service::search(
        store,
        topic,
        query,
        &AtomicBool::new(false),
        &mut |e| {
            if !matches!(e, SearchEvent::Progress { .. }) {
                events.push(e);
            }
        },
        &mut |h| hits.extend_from_slice(h),
    );
    let mut rows = Vec::new();
    if ran {
        for page in hits.chunks(service::MAX_PAGE as usize) {
            let from = Count(rows.len() as u64);
            rows.extend(service::search_rows(store, topic, page, from, hits.len() as u64).map_err(dto("search rows"))?.rows);
        }
    }
    Ok(json!({ "topic": topic, "query": query, "events": events, "rows": rows }))
}

fn query(text: &str, regex: bool) -> SearchQuery {
    SearchQuery {
        key: None,
        text: Some(text.into()),
        regex,
        case_sensitive: false,
        partitions: None,
        since: None,
        until: None,
        filter: None,
    }
}

fn cel(filter: &str) -> SearchQuery {
    SearchQuery { text: None, filter: Some(filter.into()), ..query("", false) }
}

/// A topic's whole timeline, as `[partition, offset]` in order (the rows are
/// the partitions' recorded ones), the cuts' sums, and where sampled times land.
fn record_timeline(store: &Store, topic: &str) -> Res<Value> {
    let mut order: Vec<(u32, u64, f64)> = Vec::new();
    let mut start = TimelineAnchor::Start;
    let first = loop {
        let page = service::timeline_after(store, topic, None, &start, service::MAX_PAGE).map_err(dto("timeline"))?;
        order.extend(page.rows.iter().map(|r| (r.partition, r.offset.get(), r.timestamp)));
        if page.rows.is_empty() {
            break page;
        }
        start = TimelineAnchor::At { offsets: page.end.clone() };
    };
    // Where the first message at or after a time is: at every tenth message's time, and past the last
    // (the mock answers a time between with the next one sampled).
    let mut times = Vec::new();
    let mut ts: Vec<f64> = order.iter().step_by(10).map(|m| m.2).collect();
    ts.push(order.iter().map(|m| m.2).fold(T0, f64::max) + 1.0);
    for t in ts {
        let page = service::timeline_after(store, topic, None, &TimelineAnchor::Time { unix: t }, 1).map_err(dto("timeline at a time"))?;
        times.push(json!([t, page.begin]));
    }
    // Pages the mock cuts from the order above, as the engine cuts them.
    let checks = [
        ("before", None, 7u32),
        ("after", Some(TimelineAnchor::Start), 9),
        ("after", Some(TimelineAnchor::Time { unix: order.get(order.len() / 20 * 10).map_or(T0, |m| m.2) }), 6),
        ("after", Some(TimelineAnchor::Index { index: Count(order.len() as u64 / 3) }), 5),
    ];
    let mut page_checks = Vec::new();
    for (dir, anchor, limit) in checks {
        let r = match &anchor {
            None => service::timeline_before(store, topic, None, None, limit),
            Some(a) => service::timeline_after(store, topic, None, a, limit),
        };
        page_checks.push(json!({"dir": dir, "anchor": anchor, "limit": limit, "answer": answer(&r)}));
        // And the page before the one just read.
        if let Ok(p) = &r {
            let before = service::timeline_before(store, topic, None, Some(&p.begin), limit);
            page_checks.push(json!({"dir": "before", "before": p.begin, "limit": limit, "answer": answer(&before)}));
        }
    }
    Ok(json!({
        "partitions": first.partitions,
        "first": first.first,
        "order": order.iter().map(|m| json!([m.0, Offset(m.1)])).collect::<Vec<_>>(),
        "times": times,
        "checks": page_checks,
    }))
}

/// Issue 15's reset modes, dry runs on `billing`: shift, by duration, another group's offsets, offsets from a file.
fn groups15_resets() -> Vec<(&'static str, ResetRequest)> {
    let mut shift = reset(ResetTarget::Shift, None, None, None, true);
    shift.shift = Some(Delta(-5));
    let mut ago = reset(ResetTarget::Ago, None, None, None, true);
    ago.ago_secs = Some(3600.0);
    let mut other = reset(ResetTarget::Group, None, None, None, true);
    other.other_group = Some("idle".into());
    let mut file = reset(ResetTarget::Offsets, None, None, None, true);
    file.offsets = Some(BTreeMap::from([("0".to_string(), Commit(5)), ("1".to_string(), Commit(-1))]));
    // As the dialog sends a file `groups export` wrote from billing.
    file.file_group = Some("billing".into());
    file.file_topic = Some("orders".into());
    vec![("billing", shift), ("billing", ago), ("billing", other), ("billing", file)]
}

/// Issue 15's answers: lag histories of every group over every span, lag
/// checks, delete previews (on `store`, which they leave as it is) and a
/// deletion of `idle` on a store of its own.
fn record_groups15(store: &Store, fixture: &Path, norm: &mut Normalizer, out: &mut Map<String, Value>) -> Res<()> {
    let groups = store.list_groups().map_err(err("list groups"))?;
    let spans = [HistorySpan::Hour, HistorySpan::Day, HistorySpan::Week, HistorySpan::All];
    let mut histories = Vec::new();
    for g in &groups {
        for span in spans {
            histories.push(json!({"group": g, "span": span, "answer": answer(&crate::group_ops::lag_history(store, g, span, NOW))}));
        }
    }
    out.insert("lag_histories".into(), histories.into());
    let checks: Vec<Value> = [
        LagAlertThresholds { max_lag: Some(Count(10)), max_age_secs: None },
        LagAlertThresholds { max_lag: None, max_age_secs: Some(600.0) },
    ]
    .into_iter()
    .map(|t| json!({"group": "billing", "thresholds": t, "answer": answer(&crate::group_ops::lag_check(store, "billing", &t))}))
    .collect();
    out.insert("lag_checks".into(), checks.into());
    let previews: Map<String, Value> = groups.iter().map(|g| (g.clone(), answer(&crate::group_ops::delete_preview(store, g, 0)))).collect();
    out.insert("delete_previews".into(), Value::Object(previews));
    let s = build(fixture)?;
    norm.root(&s.root, ROOT);
    let deleted: Vec<Value> = ["Idle", "idle"]
        .into_iter()
        .map(|confirm| json!({"group": "idle", "confirm": confirm, "answer": answer(&crate::group_ops::delete_group(&s.store, "idle", confirm, || 0))}))
        .collect();
    out.insert("delete_group".into(), deleted.into());
    Ok(())
}

fn reset(to: ResetTarget, offset: Option<u64>, time: Option<f64>, partitions: Option<Vec<u32>>, dry_run: bool) -> ResetRequest {
    ResetRequest {
        to,
        offset: offset.map(Offset),
        time,
        shift: None,
        ago_secs: None,
        other_group: None,
        offsets: None,
        file_group: None,
        file_topic: None,
        partitions,
        dry_run,
        topic: None,
    }
}

fn describe(scene: &Scene, name: &str) -> Res<GroupDetail> {
    service::describe_group_at(&scene.store, name, None, scene.now()).map_err(dto("describe a group"))
}

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
        "Answers of the real backend, replayed by ui/src/lib/mockBackend.ts. Made by src-tauri/src/record.rs: `twainmq-desktop --record-ui-fixture ui/src/lib/recorded/store.json`. Do not edit.".into(),
    );
    out.insert("now".into(), NOW.into());
    out.insert("root".into(), ROOT.into());

    // The store as the UI first sees it.
    let scene = build(fixture)?;
    norm.root(&scene.root, ROOT);
    let store = scene.store.clone();
    out.insert("info".into(), answer(&service::store_info(&store)));
    out.insert("versions".into(), value(&crate::about_commands::about_info()));
    let mut topics = Map::new();
    for t in store.list_topics().map_err(err("list topics"))? {
        let every = if t == "firehose" { 50 } else { 1 };
        topics.insert(t.clone(), record_topic(&store, &t, every)?);
    }
    out.insert("topics".into(), Value::Object(topics));
    let mut groups = Map::new();
    for g in store.list_groups().map_err(err("list groups"))? {
        groups.insert(g.clone(), answer(&service::describe_group_at(&store, &g, None, NOW)));
    }
    out.insert("groups".into(), Value::Object(groups));

    // Pages the mock cuts from the rows above, as the engine cuts them: from
    // before a partition's start, across a damaged line, at the tail, past the end, over the limit.
    let checks: Vec<Value> = [("sensors", 1, 0, 500), ("orders", 1, 5, 4), ("firehose", 0, FIREHOSE - 3, 500), ("chat", 0, 9999, 10), ("orders", 0, 3, 0)]
        .into_iter()
        .map(|(t, p, from, limit)| {
            json!({"topic": t, "partition": p, "from": Offset(from), "limit": limit, "answer": answer(&service::read_page(&store, t, p, Offset(from), limit))})
        })
        .collect();
    out.insert("page_checks".into(), checks.into());

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
        // The same filter over all time: a range applied after it runs it again (issue 24).
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
    let checks: Vec<Value> = exprs.iter().map(|e| json!({"expr": e, "answer": value(&service::check_filter(e))})).collect();
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
        dry.iter().map(|(g, r)| json!({"group": g, "request": r, "answer": answer(&service::reset_group(&store, g, r))})).collect();
    resets.extend(
        groups15_resets().iter().map(|(g, r)| json!({"group": g, "request": r, "answer": answer(&service::reset_group(&store, g, r))})),
    );
    record_groups15(&store, fixture, &mut norm, &mut out)?;

    // Another process deletes every topic (as 0.2.3 or a person would: the
    // files go, the groups stay): what each command then says of it.
    let s = build(fixture)?;
    norm.root(&s.root, ROOT);
    let names = s.store.list_topics().map_err(err("list topics"))?;
    for name in &names {
        delete_files(&s.root, name)?;
    }
    let gone: Map<String, Value> = names.iter().map(|n| (n.clone(), answer(&service::describe_topic(&s.store, n)))).collect();
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
        t["summary"] = value(&service::topic_summary(&s.store, name));
        remade.insert(name.to_string(), t);
    }
    out.insert("remade".into(), Value::Object(remade));
    out.insert("no_store".into(), answer(&crate::state::AppState::default().store().map(|_| ())));

    // What the app writes: produce, create, delete; each from the store as first seen.
    let mut produced = Vec::new();
    let s = build(fixture)?;
    norm.root(&s.root, ROOT);
    let sends = [
        ("chat", "ada", ProducePayload { kind: ProduceKind::Text, body: "hello from a test".into(), class: None }),
        (
            "orders",
            "4294967295",
            ProducePayload {
                kind: ProduceKind::Json,
                body: r#"{"id": 98765432109876543210, "price": 1.50}"#.into(),
                class: Some("Order".into()),
            },
        ),
        ("orders", "4294967296", ProducePayload { kind: ProduceKind::Json, body: "{}".into(), class: Some("Order".into()) }),
        ("sensors", "7", ProducePayload { kind: ProduceKind::Hex, body: "00 ff 10 20".into(), class: None }),
    ];
    for (topic, key, payload) in sends {
        s.advance(1.0);
        let r = service::produce(&s.store, topic, &KeyText(key.into()), &payload);
        let row = match &r {
            Ok(Produced { partition, offset: Some(o) }) => {
                service::read_page(&s.store, topic, *partition, *o, 1).ok().and_then(|p| p.rows.into_iter().next()).map(|r| value(&r))
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
    };
    for t in [
        new("metrics", "u8", 1),
        new("metrics", "char16", 3),
        new("metrics2", "char16", 3),
        new("stormy", "u16", 1),
        new("audit", "u16", 2),
    ] {
        let existed = s.store.topic_exists(&t.name).unwrap_or(false);
        let r = service::create_topic(&s.store, &t);
        s.settle()?;
        let detail = r.as_ref().ok().map(|_| answer(&service::describe_topic(&s.store, &t.name)));
        let groups = r.as_ref().ok().map(|_| answer(&service::topic_groups(&s.store, &t.name)));
        created.push(json!({"request": t, "existed": existed, "answer": answer(&r), "detail": detail, "groups": groups}));
    }
    out.insert("create_topic".into(), created.into());

    let mut deleted = Vec::new();
    for topic in ["chat", "orders", "sensors"] {
        let s = build(fixture)?;
        norm.root(&s.root, ROOT);
        deleted.push(json!({"topic": topic, "confirm": topic, "answer": answer(&service::delete_topic(&s.store, topic, topic))}));
    }
    out.insert("delete_topic".into(), deleted.into());

    // Resets that write, each on the store as first seen: the plan and the group after. The
    // dialog's Confirm commits the offsets its dry run showed (ui/src/lib/resetModes.ts
    // `confirmRequest`): recorded in that form.
    for (g, dry) in [
        ("billing", reset(ResetTarget::Offset, Some(60), None, Some(vec![0]), true)),
        ("billing", reset(ResetTarget::Latest, None, None, Some(vec![0]), true)),
    ] {
        let s = build(fixture)?;
        norm.root(&s.root, ROOT);
        s.advance(1.0);
        let shown = service::reset_group(&s.store, g, &dry).map_err(|e| e.message)?;
        let mut r = reset(ResetTarget::Offsets, None, None, Some(shown.rows.iter().map(|r| r.partition).collect()), false);
        r.offsets = Some(
            shown.rows.iter().map(|row| (row.partition.to_string(), Commit(i64::try_from(row.after.get()).unwrap_or(i64::MAX)))).collect(),
        );
        r.topic = Some(shown.topic.clone());
        let a = service::reset_group(&s.store, g, &r);
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
        service::trigger_round(&s.store, "billing", window_ms).map_err(dto("trigger a round"))?;
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
    out.insert("other_stores".into(), json!({ OTHER_ROOT: answer(&service::store_info(&empty)) }));
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

/// Delete a topic's files as another process would (its groups stay).
fn delete_files(root: &Path, topic: &str) -> Res<()> {
    let dir = root.join(topic);
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(err("delete a topic"))?;
    }
    std::fs::remove_file(root.join(format!("{topic}.twc"))).map_err(err("delete a topic"))
}

fn first_timestamp(store: &Store, topic: &str, partition: u32) -> Res<f64> {
    let page = service::read_page(store, topic, partition, Offset(0), 1).map_err(dto("first message"))?;
    match page.rows.first() {
        Some(Row::Message(m)) => Ok(m.timestamp),
        _ => Err(format!("{topic} P{partition} has no first message")),
    }
}

/// The balancing demo's scenes: members started in the app, as the group log
/// shows them after each step. The mock steps through them as the demo panel
/// starts, kills and stops members.
fn record_demos(fixture: &Path, norm: &mut Normalizer) -> Res<Value> {
    let mut demos = Map::new();

    // Two members on a new group, the second killed, the first stopped.
    let s = build(fixture)?;
    norm.root(&s.root, ROOT);
    let window = 150;
    s.advance(1.0);
    s.store.ensure_group("orders", "pair", StartFrom::Start).map_err(err("ensure"))?;
    let mut a = GroupMember::join(&s.store, "orders", "pair", member_options(window)).map_err(err("join"))?;
    s.advance(0.2);
    a.heartbeat().map_err(err("heartbeat"))?;
    consume(&mut a, 40)?;
    let one = describe(&s, "pair")?;
    s.advance(1.0);
    let mut b = GroupMember::join(&s.store, "orders", "pair", member_options(window)).map_err(err("join"))?;
    a.heartbeat().map_err(err("heartbeat"))?;
    s.advance(0.2);
    a.heartbeat().map_err(err("heartbeat"))?;
    b.heartbeat().map_err(err("heartbeat"))?;
    consume(&mut a, 20)?;
    consume(&mut b, 20)?;
    let two = describe(&s, "pair")?;
    s.advance(1.0);
    b.abandon();
    let killed = describe(&s, "pair")?;
    s.advance(0.8);
    a.trigger_round().map_err(err("round"))?;
    s.advance(0.2);
    a.heartbeat().map_err(err("heartbeat"))?;
    let survivor = describe(&s, "pair")?;
    s.advance(1.0);
    a.close().map_err(err("close"))?;
    let stopped = describe(&s, "pair")?;
    demos.insert(
        "pair".into(),
        json!({
            "topic": "orders",
            "group": "pair",
            "window_ms": window,
            "steps": [
                {"do": "start", "handle": "1", "member_id": 1, "detail": one},
                {"do": "start", "handle": "2", "member_id": 2, "detail": two},
                {"do": "kill", "handle": "2", "detail": killed, "then": survivor},
                {"do": "stop", "handle": "1", "detail": stopped},
            ],
        }),
    );

    // A third member joins billing's two (external) ones.
    let mut s = build(fixture)?;
    norm.root(&s.root, ROOT);
    s.advance(1.0);
    let mut c = GroupMember::join(&s.store, "orders", "billing", member_options(120)).map_err(err("join"))?;
    s.heartbeat()?;
    s.advance(0.2);
    s.heartbeat()?;
    c.heartbeat().map_err(err("heartbeat"))?;
    consume(&mut c, 30)?;
    let three = describe(&s, "billing")?;
    s.advance(1.0);
    c.close().map_err(err("close"))?;
    s.heartbeat()?;
    let left = describe(&s, "billing")?;
    demos.insert(
        "billing".into(),
        json!({
            "topic": "orders",
            "group": "billing",
            "window_ms": 120,
            "steps": [
                {"do": "start", "handle": "1", "member_id": newest_member(&three), "detail": three},
                {"do": "stop", "handle": "1", "detail": left},
            ],
        }),
    );
    Ok(Value::Object(demos))
}

/// The newest member of a described group.
fn newest_member(d: &GroupDetail) -> u32 {
    d.members.iter().map(|m| m.id).max().unwrap_or(0)
}

/// The recording as the committed file holds it: objects one key a line, long
/// arrays one element a line (so a change shows as a few changed lines).
pub fn to_text(v: &Value) -> String {
    let mut s = String::new();
    write(v, 0, &mut s);
    s.push('\n');
    s
}

fn write(v: &Value, depth: usize, out: &mut String) {
    let compact = v.to_string();
    let pad = |d: usize| "  ".repeat(d);
    match v {
        Value::Object(o) if compact.len() > 120 => {
            out.push_str("{\n");
            for (i, (k, x)) in o.iter().enumerate() {
                out.push_str(&pad(depth + 1));
                out.push_str(&Value::String(k.clone()).to_string());
                out.push_str(": ");
                write(x, depth + 1, out);
                if i + 1 < o.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            out.push_str(&pad(depth));
            out.push('}');
        }
        Value::Array(a) if compact.len() > 120 && a.iter().any(|x| x.is_object() || x.is_array()) => {
            out.push_str("[\n");
            for (i, x) in a.iter().enumerate() {
                out.push_str(&pad(depth + 1));
                let one = x.to_string();
                if one.len() <= 1000 {
                    out.push_str(&one);
                } else {
                    write(x, depth + 1, out);
                }
                if i + 1 < a.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            out.push_str(&pad(depth));
            out.push(']');
        }
        _ => out.push_str(&compact),
    }
}

/// Record and write the recording to `out`.
///
/// # Errors
/// See [`record`]; and when `out` cannot be written.
pub fn record_to(fixture: &Path, out: &Path) -> Res<()> {
    let v = record(fixture)?;
    std::fs::write(out, to_text(&v)).map_err(err("write the recording"))
}
