//! Export, import and copy in-process: lossless round trips for every key
//! type and payload kind, bad lines, kept timestamps, cancel, snapshots.

use std::io::Cursor;
use std::sync::atomic::AtomicBool;

use twainmq::scan::{Finish, Query};
use twainmq::transfer::{self, CopyOptions, ExportFormat, ImportFormat, ImportOptions, PayloadColumn, Resume, Selection};
use twainmq::{Error, Key, KeyType, Outgoing, Store, TopicSpec, TransferError};

fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("tmp");
    let store = Store::open(dir.path()).expect("open");
    (dir, store)
}

fn messages() -> Vec<Outgoing> {
    vec![
        Outgoing::Text("plain".into()),
        Outgoing::Text("a \"quoted\", text\nwith\r\nbreaks and ünï 😀".into()),
        Outgoing::Text(String::new()),
        Outgoing::Bytes((0..=255u8).collect()),
        Outgoing::Bytes(vec![0xff, 0xfe, b'\n', b',', b'"']),
        Outgoing::Typed { class: "Box".into(), json: r#"{"big":18446744073709551616,"n":NaN,"i":-Infinity,"s":"NaN"}"#.into() },
        Outgoing::typed_json("Box", r#"{"nested":[1,[2,{"x":"\u00e9"}]],"f":1.5e300}"#).expect("json"),
    ]
}

fn keys(kt: KeyType) -> Vec<Key> {
    match kt {
        KeyType::Char(_) => vec![Key::Str(String::new()), Key::Str("abc".into()), Key::Str("日本".into())],
        KeyType::U64 => vec![Key::Int(0), Key::Int(u64::MAX), Key::Int(1 << 53 | 1)],
        _ => vec![Key::Int(0), Key::Int(1), Key::Int(kt.max_int().unwrap_or(1))],
    }
}

fn fill(store: &Store, topic: &str, kt: KeyType) -> usize {
    store.create_topic(topic, &TopicSpec::new(kt, 3).with_types(["Box"])).expect("create");
    let mut p = store.producer(topic).expect("producer");
    let mut n = 0;
    for (i, m) in messages().iter().enumerate() {
        for k in keys(kt) {
            p.send(&k, m).expect("send");
            n += 1;
            let _ = i;
        }
    }
    n
}

/// Key, timestamp and payload of each message of the topic, sorted.
fn essence(store: &Store, topic: &str) -> Vec<String> {
    let mut out = Vec::new();
    let stop = AtomicBool::new(false);
    transfer::export(store, &Selection::topic(topic), ExportFormat::Jsonl, &mut out, &stop, &mut |_| {}).expect("export");
    let mut lines: Vec<String> = String::from_utf8(out)
        .expect("utf8")
        .lines()
        .map(|l| {
            // Drop partition and offset: a round trip re-partitions.
            let rest = l.split_once(",\"key\":").expect("key").1;
            rest.to_string()
        })
        .collect();
    lines.sort();
    lines
}

fn export(store: &Store, topic: &str, format: ExportFormat) -> Vec<u8> {
    let mut out = Vec::new();
    let r = transfer::export(store, &Selection::topic(topic), format, &mut out, &AtomicBool::new(false), &mut |_| {}).expect("export");
    assert_eq!(r.finish, Finish::Done);
    out
}

fn import(store: &Store, topic: &str, input: &[u8], opts: &ImportOptions) -> twainmq::Result<transfer::ImportReport> {
    transfer::import(store, topic, &mut Cursor::new(input), opts, &AtomicBool::new(false), &mut |_| {}, &mut |_| {})
}

fn opts(format: ImportFormat) -> ImportOptions {
    ImportOptions { format, dry_run: false, keep_timestamps: true, skip_bad: false, resume: None }
}

#[test]
fn jsonl_and_csv_round_trips_keep_every_key_type_and_payload_kind() {
    let (_d, store) = store();
    for kt in [KeyType::U8, KeyType::U16, KeyType::U32, KeyType::U64, KeyType::Char(8)] {
        let src = format!("src-{kt}");
        let n = fill(&store, &src, kt);
        for (format, name, fmt) in [(ExportFormat::Jsonl, "jsonl", ImportFormat::Jsonl), (ExportFormat::Csv, "csv", ImportFormat::csv())] {
            let dst = format!("dst-{kt}-{name}");
            store.create_topic(&dst, &TopicSpec::new(kt, 2).with_types(["Other", "Box"])).expect("create");
            let file = export(&store, &src, format);
            let r = import(&store, &dst, &file, &opts(fmt)).expect("import");
            assert_eq!(r.messages, n as u64, "{dst}");
            assert_eq!(r.partitions.iter().sum::<u64>(), n as u64);
            assert_eq!(essence(&store, &dst), essence(&store, &src), "{dst}");
        }
    }
}

#[test]
fn without_keep_timestamps_messages_are_stamped_now() {
    let (_d, store) = store();
    fill(&store, "a", KeyType::U16);
    store.create_topic("b", &TopicSpec::new(KeyType::U16, 1).with_types(["Box"])).expect("create");
    let file = export(&store, "a", ExportFormat::Jsonl);
    std::thread::sleep(std::time::Duration::from_millis(20));
    let t0 = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("now").as_secs_f64();
    let o = ImportOptions { keep_timestamps: false, ..opts(ImportFormat::Jsonl) };
    import(&store, "b", &file, &o).expect("import");
    let mut c = store.consumer("b", twainmq::StartFrom::Start).expect("consumer");
    while let Some(m) = c.poll().expect("poll") {
        assert!(m.timestamp >= t0 - 0.001, "{} < {t0}", m.timestamp);
    }
}

#[test]
fn a_bad_line_stops_with_everything_before_it_written_and_names_it() {
    let (_d, store) = store();
    store.create_topic("t", &TopicSpec::new(KeyType::U8, 2)).expect("create");
    // Incompressible bytes (xorshift): no line holds 6,000 of them.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let noise: Vec<u8> = (0..6000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x.to_le_bytes()[0]
        })
        .collect();
    let big = hex::encode(noise);
    let lines = [
        r#"{"key": 1, "payload": "a"}"#.to_string(),
        r#"{"key": 2, "payload": "b"}"#.to_string(),
        format!(r#"{{"key": 3, "payload": {{"type": "bytes", "hex": "{big}"}}}}"#),
        r#"{"key": 4, "payload": "d"}"#.to_string(),
    ];
    let input = lines.join("\n");
    let o = ImportOptions { keep_timestamps: false, ..opts(ImportFormat::Jsonl) };
    let e = import(&store, "t", input.as_bytes(), &o).expect_err("stops");
    match e {
        Error::Transfer(TransferError::ImportStopped { line, written, landed_after, cause, .. }) => {
            assert_eq!((line, written), (3, 2));
            assert!(landed_after.is_empty(), "a bad line stops with a true prefix written");
            assert!(cause.to_string().contains("4096"), "{cause}");
        }
        other => panic!("{other}"),
    }
    assert_eq!(store.end_offsets("t").expect("ends").iter().sum::<u64>(), 2);
    // With skip_bad: the others all go, the bad one reported.
    let mut skipped = Vec::new();
    let o = ImportOptions { skip_bad: true, ..o };
    let r = transfer::import(&store, "t", &mut Cursor::new(input), &o, &AtomicBool::new(false), &mut |_| {}, &mut |s| skipped.push(s.line))
        .expect("import");
    assert_eq!((r.messages, skipped), (3, vec![3]));
}

/// Every message's text in the topic, in offset order per partition, partitions in turn.
fn all_texts(store: &Store, topic: &str) -> Vec<String> {
    let mut c = store.consumer(topic, twainmq::StartFrom::Start).expect("consumer");
    let mut out = Vec::new();
    while let Some(m) = c.poll().expect("poll") {
        out.push(m.text().unwrap_or_default().to_string());
    }
    out.sort();
    out
}

/// A retry after a stop must not write what landed: the dry run says how much goes
/// before the first bad line, and a resume from the stop writes each line once,
/// those that landed after the stop included.
#[test]
fn an_import_resumed_from_its_stop_writes_every_line_once() {
    let (_d, store) = store();
    store.create_topic("t", &TopicSpec::new(KeyType::U8, 3)).expect("create");
    let mut lines: Vec<String> = (1..=12).map(|i| format!(r#"{{"key": {i}, "payload": "m{i}"}}"#)).collect();
    lines[4] = "not json".into(); // line 5
    lines[8] = r#"{"key": 999, "payload": "no u8"}"#.into(); // line 9
    let input = lines.join("\n");
    let o = ImportOptions { keep_timestamps: false, ..opts(ImportFormat::Jsonl) };

    let dry = import(&store, "t", input.as_bytes(), &ImportOptions { dry_run: true, ..o.clone() }).expect("dry run");
    assert_eq!((dry.messages, dry.bad_lines, dry.messages_before_first_bad), (10, 2, Some(4)), "4 go before line 5 stops it");

    let stop = |e: Error| match e {
        Error::Transfer(TransferError::ImportStopped { line, written, landed_after, .. }) => (line, written, landed_after),
        other => panic!("{other}"),
    };
    let (line, written, landed) = stop(import(&store, "t", input.as_bytes(), &o).expect_err("stops at line 5"));
    assert_eq!((line, written), (5, 4));
    // What landed after the stop in another run (a full disk on a file system that cannot
    // reserve a batch): lines 7 and 11 are in the topic already.
    for l in [7, 11] {
        import(&store, "t", format!("{}\n", lines[l - 1]).as_bytes(), &o).expect("one line");
    }
    let landed: Vec<u64> = landed.into_iter().chain([11, 7]).collect();

    // Resumed, bad lines skipped: lines 6, 8, 10 and 12 go; 7 and 11 are passed over.
    let resume = Resume { line, landed_after: landed };
    let r = import(&store, "t", input.as_bytes(), &ImportOptions { skip_bad: true, resume: Some(resume.clone()), ..o.clone() })
        .expect("resumed");
    assert_eq!((r.messages, r.bad_lines, r.passed_over), (4, 2, 6), "line 5 is bad (skipped now), 9 too");
    let want: Vec<String> = {
        let mut w: Vec<String> = (1..=12).filter(|i| ![5, 9].contains(i)).map(|i| format!("m{i}")).collect();
        w.sort();
        w
    };
    assert_eq!(all_texts(&store, "t"), want, "every good line once");

    // Resumed without skipping: stops at line 9, and hands on line 11, which landed before.
    let (_d2, again) = self::store();
    again.create_topic("t", &TopicSpec::new(KeyType::U8, 3)).expect("create");
    let first: String = lines[..4].join("\n");
    import(&again, "t", first.as_bytes(), &o).expect("lines 1-4");
    import(&again, "t", format!("{}\n", lines[10]).as_bytes(), &o).expect("line 11");
    let e = import(&again, "t", input.as_bytes(), &ImportOptions { resume: Some(Resume { line: 5, landed_after: vec![11] }), ..o.clone() });
    let (line, written, landed) = stop(e.expect_err("line 5 stops it at once"));
    assert_eq!((line, written, &landed), (5, 0, &vec![11]));
    let e = import(&again, "t", input.as_bytes(), &ImportOptions { resume: Some(Resume { line: 6, landed_after: landed }), ..o.clone() });
    let (line, written, landed) = stop(e.expect_err("line 9 stops it"));
    assert_eq!((line, written, landed), (9, 3, vec![11]), "lines 6-8 written; line 11 is still in the topic");
}

#[test]
fn keep_timestamps_needs_one_on_every_line_and_a_sane_one() {
    let (_d, store) = store();
    store.create_topic("t", &TopicSpec::new(KeyType::U8, 1)).expect("create");
    for (line, word) in [
        (r#"{"key": 1, "payload": "a"}"#, "no timestamp"),
        (r#"{"key": 1, "payload": "a", "timestamp": -5}"#, "1970"),
        (r#"{"key": 1, "payload": "a", "timestamp": 1e300}"#, "1970"),
    ] {
        let e = import(&store, "t", line.as_bytes(), &opts(ImportFormat::Jsonl)).expect_err(line);
        assert!(e.to_string().contains(word), "{line}: {e}");
    }
    assert_eq!(store.end_offsets("t").expect("ends"), vec![0]);
}

#[test]
fn csv_columns_and_payload_kinds_are_chosen() {
    let (_d, store) = store();
    store.create_topic("t", &TopicSpec::new(KeyType::Char(4), 1).with_types(["Box"])).expect("create");
    let input = "id,body\nab,00ff\ncd,zz\n";
    let o = |kind| ImportOptions {
        format: ImportFormat::Csv { key: "id".into(), payload: "body".into(), kind, timestamp: "timestamp".into() },
        dry_run: true,
        keep_timestamps: false,
        skip_bad: true,
        resume: None,
    };
    let r = import(&store, "t", input.as_bytes(), &o(PayloadColumn::Hex)).expect("dry run");
    assert_eq!((r.messages, r.bad_lines, r.first_bad.map(|b| b.line)), (1, 1, Some(3)));
    let r = import(&store, "t", input.as_bytes(), &o(PayloadColumn::Text)).expect("dry run");
    assert_eq!((r.messages, r.bad_lines), (2, 0));
    let r = import(&store, "t", b"id,body\nab,{\"v\":1}\nab,[1]\n", &o(PayloadColumn::Typed("Box".into()))).expect("dry run");
    assert_eq!((r.messages, r.bad_lines), (1, 1));
    let e = import(&store, "t", input.as_bytes(), &ImportOptions { format: ImportFormat::csv(), ..o(PayloadColumn::Auto) })
        .expect_err("no key column");
    assert!(e.to_string().contains("\"key\""), "{e}");
    assert_eq!(store.end_offsets("t").expect("ends"), vec![0], "dry runs write nothing");
}

#[test]
fn a_query_selection_exports_only_its_matches_in_timeline_order() {
    let (_d, store) = store();
    fill(&store, "t", KeyType::U16);
    let sel = Selection { topic: "t".into(), query: Query { text: Some("quoted".into()), ..Query::default() }, picked: None };
    let mut out = Vec::new();
    let r = transfer::export(&store, &sel, ExportFormat::Jsonl, &mut out, &AtomicBool::new(false), &mut |_| {}).expect("export");
    assert_eq!(r.messages, 3);
    let picked = Selection { topic: "t".into(), query: Query::default(), picked: Some(vec![(0, 0)]) };
    let r = transfer::export(&store, &picked, ExportFormat::Csv, &mut Vec::new(), &AtomicBool::new(false), &mut |_| {}).expect("export");
    assert_eq!(r.messages, u64::from(store.end_offsets("t").expect("ends")[0] > 0));
    let r = transfer::export(&store, &Selection::topic("t"), ExportFormat::Jsonl, &mut Vec::new(), &AtomicBool::new(true), &mut |_| {})
        .expect("export");
    assert_eq!(r.finish, Finish::Cancelled);
}

#[test]
fn copy_keeps_keys_and_payloads_and_refuses_itself_and_classes_the_target_lacks() {
    let (_d, store) = store();
    let n = fill(&store, "a", KeyType::U32);
    store.create_topic("b", &TopicSpec::new(KeyType::U32, 5).with_types(["Box"])).expect("create");
    let o = CopyOptions { keep_timestamps: true, rate: None };
    let r = transfer::copy(&store, &Selection::topic("a"), &store, "b", &o, &AtomicBool::new(false), &mut |_| {}).expect("copy");
    assert_eq!(r.messages, n as u64);
    assert_eq!(essence(&store, "b"), essence(&store, "a"));
    let e = transfer::copy(&store, &Selection::topic("a"), &store, "a", &o, &AtomicBool::new(false), &mut |_| {}).expect_err("itself");
    assert!(matches!(e, Error::Transfer(TransferError::CopyIntoItself { .. })), "{e}");
    // A target without the class: the messages before the first typed one go, then it stops.
    store.create_topic("c", &TopicSpec::new(KeyType::U32, 1)).expect("create");
    let e = transfer::copy(&store, &Selection::topic("a"), &store, "c", &o, &AtomicBool::new(false), &mut |_| {}).expect_err("class");
    let Error::Transfer(TransferError::CopyStopped { written, .. }) = e else { panic!("{e}") };
    assert_eq!(store.end_offsets("c").expect("ends")[0], written);
    assert!(written > 0 && written < n as u64);
    // Keys of another kind: refused before anything is read.
    store.create_topic("s", &TopicSpec::new(KeyType::Char(8), 1).with_types(["Box"])).expect("create");
    let e = transfer::copy(&store, &Selection::topic("a"), &store, "s", &o, &AtomicBool::new(false), &mut |_| {}).expect_err("kinds");
    assert_eq!(e.code(), "key_types_differ");
    assert_eq!(store.end_offsets("s").expect("ends"), vec![0]);
    // Keys of a narrower type: refused message by message, those before sent.
    store.create_topic("d", &TopicSpec::new(KeyType::U8, 1).with_types(["Box"])).expect("create");
    let e = transfer::copy(&store, &Selection::topic("a"), &store, "d", &o, &AtomicBool::new(false), &mut |_| {}).expect_err("keys");
    assert!(e.to_string().contains("the largest u8 key is 255"), "{e}");
}

#[test]
fn export_stops_at_the_end_the_topic_had_when_it_began() {
    let (_d, store) = store();
    store.create_topic("t", &TopicSpec::new(KeyType::U8, 2)).expect("create");
    let mut p = store.producer("t").expect("producer");
    for i in 0..10_000u32 {
        p.send_text(Key::Int(u64::from(i % 256)), "x").expect("send");
    }
    let mut writer = store.producer("t").expect("producer");
    let mut out = Vec::new();
    let r = transfer::export(&store, &Selection::topic("t"), ExportFormat::Jsonl, &mut out, &AtomicBool::new(false), &mut |_| {
        // A producer appending while the export runs.
        writer.send_text(Key::Int(1), "late").expect("send");
    })
    .expect("export");
    assert_eq!(r.messages, 10_000);
    assert!(!String::from_utf8(out).expect("utf8").contains("late"));
}

fn plain(format: ImportFormat) -> ImportOptions {
    ImportOptions { format, dry_run: false, keep_timestamps: false, skip_bad: false, resume: None }
}

/// An unterminated quote would swallow every row after it into one cell: it is
/// a bad line where the quote opened, and nothing of it is written.
#[test]
fn a_csv_quote_never_closed_is_a_bad_line_not_a_swallowed_file() {
    let (_d, store) = store();
    store.create_topic("t", &TopicSpec::new(KeyType::U32, 1)).expect("create");
    let input = b"key,payload\n0,ok\n1,\"abc\n2,def\n3,ghi\n";
    let e = import(&store, "t", input, &plain(ImportFormat::csv())).expect_err("an unclosed quote");
    let text = e.to_string();
    assert!(text.contains("line 3") && text.contains("never closed"), "{text}");
    assert_eq!(store.end_offsets("t").expect("end"), vec![1], "the row before it, nothing after");
    let skip = ImportOptions { skip_bad: true, ..plain(ImportFormat::csv()) };
    let r = import(&store, "t", input, &skip).expect("skipping");
    assert_eq!((r.messages, r.bad_lines), (1, 1));
    // Quotes that close, doubled quotes and cells over several lines still read.
    let fine = b"key,payload\n1,\"a \"\"b\"\", c\nd\"\n2,\"\"\n3,x\"y\n";
    let r = import(&store, "t", fine, &plain(ImportFormat::csv())).expect("fine");
    assert_eq!((r.messages, r.bad_lines), (3, 0));
}

/// A reader of `len` bytes of `byte` after `head`, counting what was read.
struct Endless {
    head: Vec<u8>,
    byte: u8,
    left: u64,
    read: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl std::io::Read for Endless {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = if !self.head.is_empty() {
            let n = self.head.len().min(buf.len());
            buf[..n].copy_from_slice(&self.head[..n]);
            self.head.drain(..n);
            n
        } else {
            let n = buf.len().min(usize::try_from(self.left).unwrap_or(usize::MAX));
            buf[..n].fill(self.byte);
            self.left -= n as u64;
            n
        };
        self.read.fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(n)
    }
}

/// A CSV row with an endless cell (/dev/zero as CSV) stops at the row limit,
/// as a JSONL line does, having read little past it: memory stays bounded.
#[test]
fn an_endless_csv_cell_stops_at_the_row_limit() {
    let (_d, store) = store();
    store.create_topic("t", &TopicSpec::new(KeyType::U32, 1)).expect("create");
    for head in [&b"key,payload\n1,"[..], b"key,payload\n1,\""] {
        let read = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let input = Endless { head: head.to_vec(), byte: b'a', left: 1 << 30, read: read.clone() };
        let mut input = std::io::BufReader::new(input);
        let e = transfer::import(&store, "t", &mut input, &plain(ImportFormat::csv()), &AtomicBool::new(false), &mut |_| {}, &mut |_| {})
            .expect_err("over the limit");
        assert!(e.to_string().contains("64 MiB"), "{e}");
        let got = read.load(std::sync::atomic::Ordering::Relaxed);
        assert!(got < (65 << 20), "read {got} bytes: it stopped at the limit");
    }
}

/// A cancel (SIGTERM) while lines are read ahead: every line read is taken
/// and written before the import stops, and it says so; nothing read is dropped.
#[test]
fn a_cancelled_jsonl_import_writes_every_line_it_read() {
    let (_d, store) = store();
    store.create_topic("t", &TopicSpec::new(KeyType::U32, 2)).expect("create");
    let text: String = (0..20_000).map(|i| format!("{{\"key\": {i}, \"payload\": \"m{i}\"}}\n")).collect();
    let cancel = std::sync::Arc::new(AtomicBool::new(false));
    // The input's reader: after 9,000 lines' bytes a cancel comes (and the
    // input then ends, as `open_input`'s does).
    struct CancelAt {
        bytes: Vec<u8>,
        at: usize,
        pos: usize,
        cancel: std::sync::Arc<AtomicBool>,
    }
    impl std::io::Read for CancelAt {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.cancel.load(std::sync::atomic::Ordering::Relaxed) {
                return Ok(0);
            }
            let end = (self.pos + buf.len().min(997)).min(self.bytes.len());
            let n = end - self.pos;
            buf[..n].copy_from_slice(&self.bytes[self.pos..end]);
            self.pos = end;
            if self.pos >= self.at {
                self.cancel.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            Ok(n)
        }
    }
    let at = text.match_indices('\n').nth(8_999).map(|(i, _)| i + 1).expect("9,000 lines");
    let mut input = std::io::BufReader::new(CancelAt { bytes: text.into_bytes(), at, pos: 0, cancel: cancel.clone() });
    let r = transfer::import(&store, "t", &mut input, &plain(ImportFormat::Jsonl), &cancel, &mut |_| {}, &mut |_| {}).expect("import");
    assert_eq!(r.finish, Finish::Cancelled);
    let written: u64 = store.end_offsets("t").expect("end").iter().sum();
    assert_eq!(written, r.messages);
    assert_eq!(r.messages, r.lines, "every line read was written");
    assert!(r.lines >= 9_000, "{}", r.lines);
}

/// A file saved with a byte-order mark (as Windows editors do) imports, as
/// CSV does; JSONL timestamps may be RFC 3339, as CSV's are.
#[test]
fn jsonl_takes_a_byte_order_mark_and_rfc_3339_timestamps() {
    let (_d, store) = store();
    store.create_topic("t", &TopicSpec::new(KeyType::U32, 1)).expect("create");
    let input = "\u{feff}{\"key\": 1, \"payload\": \"a\", \"timestamp\": \"2026-11-30T12:00:00.5Z\"}\n{\"key\": 2, \"payload\": \"b\", \"timestamp\": 1796040000.25}\n";
    let r = import(&store, "t", input.as_bytes(), &opts(ImportFormat::Jsonl)).expect("import");
    assert_eq!((r.messages, r.bad_lines), (2, 0));
    let mut c = store.consumer("t", twainmq::StartFrom::Start).expect("consumer");
    let a = c.poll().expect("poll").expect("a");
    assert_eq!((a.text(), a.timestamp), (Some("a"), 1_796_040_000.5));
    let b = c.poll().expect("poll").expect("b");
    assert_eq!(b.timestamp, 1_796_040_000.25);
    let e = import(&store, "t", b"{\"key\": 3, \"payload\": \"c\", \"timestamp\": \"yesterday\"}\n", &opts(ImportFormat::Jsonl))
        .expect_err("bad");
    assert!(e.to_string().contains("RFC 3339"), "{e}");
}

/// The entries under `root`, as relative paths, sorted.
fn tree(root: &std::path::Path) -> Vec<String> {
    fn walk(dir: &std::path::Path, root: &std::path::Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).expect("list").flatten() {
            out.push(e.path().strip_prefix(root).expect("under").to_string_lossy().into_owned());
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                walk(&e.path(), root, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

/// A store written inside a store is taken for a topic folder (or, named like
/// a day file inside a topic's folder, for a partition file 0.2.3 producers
/// then stumble on): exporting as a store into the source store, or into any
/// store's folder below its root, is refused as a file export there is, and
/// nothing is made. An existing store's own folder, or a folder outside any
/// store, is a target.
#[test]
fn an_export_as_a_store_inside_a_store_is_refused_and_nothing_is_made() {
    let (d, store) = store();
    fill(&store, "t", KeyType::U16);
    let other = tempfile::tempdir().expect("tmp");
    Store::open(other.path()).expect("open").create_topic("u", &TopicSpec::default()).expect("create");
    let today = store.today().to_string();
    let before = tree(d.path());
    let before_other = tree(other.path());
    let stop = AtomicBool::new(false);
    for root in [
        d.path().join("sub"),
        d.path().to_path_buf(),
        d.path().join("t"),
        d.path().join("t").join(format!("0-{today}_999.tmf")),
        other.path().join("sub"),
        other.path().join("u").join("deeper"),
    ] {
        let e = transfer::export_to_store(&store, &Selection::topic("t"), &root, "t", &stop, &mut |_| {}).expect_err("refused");
        assert_eq!(e.code(), "bad_export_target", "{}: {e}", root.display());
        assert!(e.to_string().contains("outside"), "{e}");
        assert_eq!(tree(d.path()), before, "{}: nothing made in the store", root.display());
        assert_eq!(tree(other.path()), before_other, "{}: nothing made in the other store", root.display());
    }
    // Into the other store's own folder (a new topic there), and a new folder outside: fine.
    transfer::export_to_store(&store, &Selection::topic("t"), other.path(), "t", &stop, &mut |_| {}).expect("into an existing store");
    let fresh = tempfile::tempdir().expect("tmp");
    let r =
        transfer::export_to_store(&store, &Selection::topic("t"), &fresh.path().join("new"), "t", &stop, &mut |_| {}).expect("new store");
    assert_eq!(r.messages as usize, messages().len() * 3);
}

/// A CSV row must have as many cells as the header: an unquoted comma in a
/// payload (`1,Hello, world`) splits it, and taking the first part would write
/// "Hello" and drop the rest. Such a row, and one short of cells, is a bad
/// line that names the row and the counts; a dry run reports it too.
#[test]
fn a_csv_row_with_more_or_fewer_cells_than_the_header_is_a_bad_line() {
    let (_d, store) = store();
    store.create_topic("t", &TopicSpec::new(KeyType::U32, 1)).expect("create");
    let input = b"key,payload\n0,fine\n1,Hello, world\n2\n3,\"Hello, quoted\"\n";
    let dry = ImportOptions { dry_run: true, ..plain(ImportFormat::csv()) };
    let mut skipped = Vec::new();
    let r = transfer::import(&store, "t", &mut Cursor::new(&input[..]), &dry, &AtomicBool::new(false), &mut |_| {}, &mut |s| {
        skipped.push((s.line, s.problem.clone()))
    })
    .expect("dry run");
    assert_eq!((r.messages, r.bad_lines), (2, 2), "{skipped:?}");
    assert_eq!(skipped.iter().map(|s| s.0).collect::<Vec<_>>(), vec![3, 4]);
    let (more, fewer) = (&skipped[0].1, &skipped[1].1);
    assert!(more.contains("3 cells") && more.contains("header has 2") && more.contains("Hello") && more.contains(" world"), "{more}");
    assert!(more.contains("quote"), "says how to put a comma in a cell: {more}");
    assert!(fewer.contains("1 cell") && fewer.contains("header has 2"), "{fewer}");
    assert_eq!(store.end_offsets("t").expect("ends"), vec![0], "a dry run writes nothing");

    let e = import(&store, "t", input, &plain(ImportFormat::csv())).expect_err("stops at the row");
    match e {
        Error::Transfer(TransferError::ImportStopped { line, written, .. }) => assert_eq!((line, written), (3, 1)),
        other => panic!("{other}"),
    }
    let mut c = store.consumer("t", twainmq::StartFrom::Start).expect("consumer");
    assert_eq!(c.poll().expect("poll").map(|m| m.payload), Some(twainmq::Payload::Text("fine".into())));
    assert!(c.poll().expect("poll").is_none(), "nothing of the split row was written");
}

/// `copy --rate N` sends at most N messages in any second, from the first one
/// on and after a stall (a slow disk, a stopped process, a slow progress
/// handler): time not used for sending is not saved up for a burst. Another
/// thread counts the target's messages; a pair of counts is compared only
/// when both fall within one second for sure (each count taken between two
/// clock readings), so a busy machine can only skip pairs, never fail one.
#[test]
fn copy_at_a_rate_never_sends_more_than_the_rate_in_any_second() {
    const RATE: u64 = 200;
    const MESSAGES: u64 = 700;
    let (dir, store) = store();
    store.create_topic("src", &TopicSpec::new(KeyType::U32, 2)).expect("create");
    let mut p = store.producer("src").expect("producer");
    let batch: Vec<(Key, Outgoing)> = (0..MESSAGES).map(|i| (Key::Int(i), Outgoing::Text(format!("m{i}")))).collect();
    p.send_batch(&batch).expect("send");
    drop(p);
    store.create_topic("dst", &TopicSpec::new(KeyType::U32, 1)).expect("create");
    let done = std::sync::Arc::new(AtomicBool::new(false));
    let counter = {
        let (root, done) = (dir.path().to_path_buf(), done.clone());
        std::thread::spawn(move || {
            let store = Store::open(&root).expect("open");
            let mut samples = Vec::new();
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let before = std::time::Instant::now();
                let n: u64 = store.end_offsets("dst").expect("ends").iter().sum();
                samples.push((before, n, std::time::Instant::now()));
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            samples
        })
    };
    let started = std::time::Instant::now();
    let mut stalled = false;
    let o = CopyOptions { keep_timestamps: false, rate: Some(RATE) };
    let r = transfer::copy(&store, &Selection::topic("src"), &store, "dst", &o, &AtomicBool::new(false), &mut |_| {
        // A stall once under way: a second in which nothing is sent.
        if !stalled && started.elapsed() > std::time::Duration::from_millis(300) {
            stalled = true;
            std::thread::sleep(std::time::Duration::from_secs(1));
        }
    })
    .expect("copy");
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let samples = counter.join().expect("counter");
    assert_eq!(r.messages, MESSAGES);
    assert!(stalled);
    // Rounding and the batch the copy sends at once: a few messages over the rate, no more.
    let allowed = RATE + 5;
    let mut worst = 0;
    for (i, &(before_i, ni, _)) in samples.iter().enumerate() {
        // Messages sent between the two reads, which both happened within
        // [before_i, after_j]: a span of at most a second.
        for &(_, nj, after_j) in &samples[i + 1..] {
            if after_j.duration_since(before_i) > std::time::Duration::from_secs(1) {
                break;
            }
            worst = worst.max(nj - ni);
        }
    }
    // From the start: the copy's first second (begun before the first count).
    let first_second = samples.iter().take_while(|s| s.2.duration_since(started) <= std::time::Duration::from_secs(1)).map(|s| s.1).max();
    assert!(first_second.unwrap_or(0) <= allowed, "{first_second:?} messages in the first second at a rate of {RATE}");
    assert!(worst <= allowed, "{worst} messages in one second at a rate of {RATE}");
}
