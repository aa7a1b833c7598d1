//! The store the UI is shown, built the same on every run: the 0.2.3 fixture
//! copied, plus topics and groups made with a pinned clock; and the helpers
//! every part of the recording uses.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Value};
use twainmq::group::{self, GroupMember, GroupOptions};
use twainmq::{Key, KeyType, ManualClock, Outgoing, StartFrom, Store, TopicSpec};
use twainmq_desktop::messages::service as messages;
use twainmq_desktop::messages::wire::Row;
use twainmq_desktop::wire::{ErrorDto, Offset};

/// 2026-11-28 00:00 UTC: the generated topics' first messages.
pub(crate) const T0: f64 = 1_795_824_000.0;
/// 2026-12-01 00:00 UTC, the day after the fixture's last: "now" in the recording.
pub(crate) const NOW: f64 = 1_796_083_200.0;

/// The first offset of the `ledger` topic's only file: beyond 2^53, as a long-lived log's are.
pub const LEDGER_START: u64 = 1 << 62;

pub(crate) type Res<T> = Result<T, String>;

pub(crate) fn err<E: std::fmt::Display>(what: &str) -> impl FnOnce(E) -> String + '_ {
    move |e| format!("{what}: {e}")
}

pub(crate) fn dto(what: &str) -> impl FnOnce(ErrorDto) -> String + '_ {
    move |e| format!("{what}: {} ({:?})", e.message, e.code)
}

/// A command's answer as the webview sees it: `{status: "ok", data}` or `{status: "error", error}`.
pub(crate) fn answer<T: Serialize>(r: &Result<T, ErrorDto>) -> Value {
    match r {
        Ok(v) => json!({ "status": "ok", "data": v }),
        Err(e) => json!({ "status": "error", "error": e }),
    }
}

pub(crate) fn value<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// A folder removed when dropped.
pub(crate) struct TempDir(pub(crate) PathBuf);

impl TempDir {
    pub(crate) fn new(name: &str) -> Res<TempDir> {
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

pub(crate) fn copy_dir(from: &Path, to: &Path) -> Res<()> {
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
pub(crate) fn fix_mtimes(dir: &Path) -> Res<()> {
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
pub(crate) struct Rng(u64);
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

pub(crate) fn micros(t: f64) -> i64 {
    (t * 1e6).round() as i64
}

/// Options of the scripted group members: rounds only when the script says,
/// no heartbeat on its own, so what they write depends on nothing but the script.
pub(crate) fn member_options(window_ms: u64) -> GroupOptions {
    GroupOptions {
        window: Duration::from_millis(window_ms),
        start_from: StartFrom::Start,
        auto_round: None,
        heartbeat_every: Duration::from_secs(24 * 3600),
        // A fixed host and pid: the recording is the same on every machine and run.
        client: Some(group::ClientInfo {
            program: "twainmq-cli".into(),
            version: "0.1.0".into(),
            host: Some("build-host".into()),
            pid: Some(4242),
        }),
        ..GroupOptions::default()
    }
}

/// A built store: the fixture's copy and what is made here, with two live
/// members of `billing` the scenes can drive.
pub(crate) struct Scene {
    pub(crate) root: PathBuf,
    pub(crate) store: Store,
    pub(crate) clock: ManualClock,
    pub(crate) billing: Vec<GroupMember>,
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
    pub(crate) fn at(&self, t: f64) {
        self.clock.set(micros(t));
    }
    pub(crate) fn advance(&self, secs: f64) {
        self.clock.advance(micros(secs));
    }
    pub(crate) fn now(&self) -> f64 {
        use twainmq::Clock;
        self.clock.now_micros() as f64 / 1e6
    }
    pub(crate) fn settle(&self) -> Res<()> {
        fix_mtimes(&self.root)
    }
    pub(crate) fn heartbeat(&mut self) -> Res<()> {
        for m in &mut self.billing {
            m.heartbeat().map_err(err("heartbeat"))?;
        }
        Ok(())
    }
}

/// Poll `n` messages (or what there is) and commit them.
pub(crate) fn consume(m: &mut GroupMember, n: usize) -> Res<()> {
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
pub(crate) fn build(fixture: &Path) -> Res<Scene> {
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

    // blobs: the format's next version, as a Kafka topic copied here has it: keys of every kind
    // (text, bytes, none, the empty text), JSON and binary payloads, and a large message.
    s.create_topic("blobs", &TopicSpec::new(KeyType::Any, 1).with_large_messages(BLOBS_MAX_BYTES)).map_err(e("create blobs"))?;
    let mut p = s.producer("blobs").map_err(e("producer"))?;
    for (i, (key, out)) in blobs(&mut rng).into_iter().enumerate() {
        scene.at(NOW - 7200.0 + i as f64 * 60.0);
        p.send(&key, &out).map_err(e("send"))?;
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

/// The largest message `blobs` takes.
pub(crate) const BLOBS_MAX_BYTES: u64 = 1 << 20;
/// The key of `blobs`' large message.
pub(crate) const BLOBS_LARGE_KEY: &str = "report";

/// The messages of `blobs`, in order: a large text message (about 150 KB of lines) among small ones.
fn blobs(rng: &mut Rng) -> Vec<(Key, Outgoing)> {
    let words = ["alpha", "beta", "gamma", "delta", "order", "shipped", "lamp", "desk", "retry", "timeout", "ok", "user"];
    let mut report = String::new();
    for line in 0..3000 {
        report.push_str(&format!("line {line:04}:"));
        for _ in 0..6 {
            report.push(' ');
            let word: &&str = rng.pick(&words);
            report.push_str(word);
            report.push_str(&(rng.next() % 1000).to_string());
        }
        report.push('\n');
    }
    vec![
        (Key::Str("user-42".into()), Outgoing::Text(r#"{"user":"ada","items":[{"sku":"A-1","qty":2}],"total":19.5,"paid":true}"#.into())),
        (
            Key::Bytes(vec![0xde, 0xad, 0xbe, 0xef]),
            Outgoing::Bytes(vec![0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0xff, 0xfe]),
        ),
        (Key::Null, Outgoing::Text("a message without a key".into())),
        (Key::Str(String::new()), Outgoing::Text("the empty key".into())),
        (Key::Str(BLOBS_LARGE_KEY.into()), Outgoing::Text(report)),
        (Key::Bytes(vec![0]), Outgoing::Text("after the large one".into())),
    ]
}

/// Messages in `firehose`.
pub(crate) const FIREHOSE: u64 = 1500;
/// Partitions of `orders`: not 4, the count of the fixture's `events`, so that
/// the fixture's 0.2.3 groups (which record no topic) still tell theirs.
pub(crate) const ORDERS_PARTITIONS: u32 = 5;
/// The key of the typed message the produce test sends to `orders`.
pub(crate) const PRODUCED_ORDER_KEY: u64 = 4_294_967_295;

/// The last partition file of `partition` in a topic folder.
pub(crate) fn last_file(topic_dir: &Path, partition: u32) -> Res<PathBuf> {
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
pub(crate) fn damage(topic_dir: &Path, partition: u32, offset: usize) -> Res<()> {
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

/// Delete a topic's files as another process would (its groups stay).
pub(crate) fn delete_files(root: &Path, topic: &str) -> Res<()> {
    let dir = root.join(topic);
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(err("delete a topic"))?;
    }
    std::fs::remove_file(root.join(format!("{topic}.twc"))).map_err(err("delete a topic"))
}

pub(crate) fn first_timestamp(store: &Store, topic: &str, partition: u32) -> Res<f64> {
    let page = messages::read_page(store, topic, partition, Offset(0), 1).map_err(dto("first message"))?;
    match page.rows.first() {
        Some(Row::Message(m)) => Ok(m.timestamp),
        _ => Err(format!("{topic} P{partition} has no first message")),
    }
}
