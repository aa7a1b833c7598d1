//! Message filters: every variable and documented example, compile errors
//! with their positions, the fixture store's messages, and the plan against
//! `cel`'s interpreter (the reference) on random messages and expressions.

mod common;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use twainmq::{Error, Filter, Key, Message, Payload, StartFrom, Store, TypedPayload};

fn msg(partition: u32, offset: u64, key: impl Into<Key>, timestamp: f64, payload: Payload) -> Message {
    Message { topic: Arc::from("t"), partition, offset, key: key.into(), timestamp, payload }
}

fn text(s: &str) -> Payload {
    Payload::Text(s.to_string())
}

fn typed(class: Option<&str>, json: &str) -> Payload {
    Payload::Typed(TypedPayload { type_id: 3, class: class.map(str::to_string), json: json.to_string() })
}

/// 2026-11-30T12:00:00Z
const NOON: f64 = 1_796_040_000.0;

fn order() -> Message {
    msg(1, 150, 2u64, NOON + 0.25, text(r#"{"country":"DE","amount":120,"items":[1,2,3],"note":"timeout on port 9"}"#))
}

fn compile(expr: &str) -> Filter {
    Filter::compile(expr).unwrap_or_else(|e| panic!("{expr}: {e}"))
}

// ---------------------------------------------------------------- the reference

fn env() -> Arc<cel::Env> {
    static ENV: OnceLock<Arc<cel::Env>> = OnceLock::new();
    ENV.get_or_init(|| Arc::new(cel::Env::stdlib())).clone()
}

fn json_to_cel(v: &serde_json::Value) -> cel::Value {
    match v {
        serde_json::Value::Null => cel::Value::Null,
        serde_json::Value::Bool(b) => cel::Value::Bool(*b),
        serde_json::Value::Number(n) => n
            .as_i64()
            .map(cel::Value::Int)
            .or_else(|| n.as_u64().map(cel::Value::UInt))
            .unwrap_or_else(|| cel::Value::Float(n.as_f64().unwrap_or(f64::NAN))),
        serde_json::Value::String(s) => cel::Value::String(Arc::new(s.clone())),
        serde_json::Value::Array(a) => cel::Value::List(Arc::new(a.iter().map(json_to_cel).collect())),
        serde_json::Value::Object(o) => {
            let m: HashMap<String, cel::Value> = o.iter().map(|(k, v)| (k.clone(), json_to_cel(v))).collect();
            cel::Value::Map(m.into())
        }
    }
}

/// The variables of `m`, built here from the documented meaning, not by the engine.
fn variables(m: &Message) -> Vec<(&'static str, cel::Value)> {
    let int = |v: u64| i64::try_from(v).map_or(cel::Value::UInt(v), cel::Value::Int);
    let s = |v: &str| cel::Value::String(Arc::new(v.to_string()));
    let (kind, class, txt, json, size) = match &m.payload {
        Payload::Text(t) => ("str", None, t.clone(), Some(t.as_str()), t.len()),
        Payload::Bytes(b) => ("bytes", None, hex::encode(b), None, b.len()),
        Payload::Typed(t) => ("dataclass", t.class.as_deref(), t.json.clone(), Some(t.json.as_str()), t.json.len()),
    };
    let value = json.and_then(|j| serde_json::from_str::<serde_json::Value>(j).ok()).map_or(cel::Value::Null, |v| json_to_cel(&v));
    vec![
        (
            "key",
            match &m.key {
                Key::Int(i) => int(*i),
                Key::Str(k) => s(k),
                Key::Bytes(b) => cel::Value::Bytes(std::sync::Arc::new(b.clone())),
                Key::Null => cel::Value::Null,
            },
        ),
        ("partition", cel::Value::Int(i64::from(m.partition))),
        ("offset", int(m.offset)),
        ("timestamp", m.time().map_or(cel::Value::Null, |t| cel::Value::Timestamp(t.fixed_offset()))),
        ("kind", s(kind)),
        ("class", class.map_or(cel::Value::Null, s)),
        ("text", s(&txt)),
        ("value", value),
        ("size", cel::Value::Int(i64::try_from(size).expect("size"))),
    ]
}

/// The interpreter's verdict: true only when the expression evaluates to `true`.
fn reference(expr: &str, m: &Message) -> bool {
    let program = cel::Program::compile(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
    let mut ctx = cel::Context::with_env(env());
    for (name, value) in variables(m) {
        ctx.add_variable_from_value(name, value);
    }
    program.execute(&ctx) == Ok(cel::Value::Bool(true))
}

/// The filter agrees with the interpreter on `m`, and `on_head` with `matches`.
fn check(f: &Filter, m: &Message) -> bool {
    let got = f.matches(m);
    assert_eq!(got, reference(f.source(), m), "{} on {m:?}", f.source());
    if let Some(head) = f.on_head(m.partition, m.offset, &m.key, m.timestamp) {
        assert_eq!(head, got, "on_head of {} on {m:?}", f.source());
    }
    if !f.needs_payload() {
        assert!(f.on_head(m.partition, m.offset, &m.key, m.timestamp).is_some(), "{}", f.source());
    }
    got
}

// ---------------------------------------------------------------- variables and examples

#[test]
fn the_documented_examples() {
    let m = order();
    let bytes = msg(0, 1, 9u64, NOON, Payload::Bytes(vec![0xde, 0xad, 0xbe, 0xef, 0, 1, 2, 3, 4, 5, 6]));
    let typed = msg(0, 2, 9u64, NOON, typed(Some("Order"), r#"{"country":"FR","amount":5,"items":[]}"#));
    for (expr, want) in [
        (r#"value.country == "DE" && value.amount > 100"#, [true, false, false]),
        ("key in [1, 2, 3]", [true, false, false]),
        (r#"timestamp > timestamp("2026-11-30T00:00:00Z")"#, [true, true, true]),
        (r#"text.contains("timeout")"#, [true, false, false]),
        (r#"kind == "bytes" && size > 10"#, [false, true, false]),
        (r#"class == "Order""#, [false, false, true]),
        ("has(value.country)", [true, false, true]),
        ("value.items.size() > 2", [true, false, false]),
        ("!(partition in [0, 1])", [false, false, false]),
        ("timestamp.getHours() == 12", [true, true, true]),
    ] {
        let f = compile(expr);
        for (m, want) in [&m, &bytes, &typed].into_iter().zip(want) {
            assert_eq!(check(&f, m), want, "{expr} on {m:?}");
        }
    }
}

#[test]
fn every_example_of_the_user_doc() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/QUERY.md")).expect("docs/QUERY.md");
    let examples =
        doc.split("## Examples").nth(1).and_then(|s| s.split("```cel\n").nth(1)).and_then(|s| s.split("```").next()).expect("a cel block");
    let msgs = [
        order(),
        msg(0, 1000, "sensor-7", NOON, Payload::Bytes(vec![0xfc, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9])),
        msg(2, 3, 1u64, NOON, typed(Some("Refund"), r#"{"total":99.5,"tags":["urgent","prio-1"],"items":[{"sku":"A-1"}]}"#)),
        msg(0, 7, 3u64, NOON - 3600.0 * 5.0, text(r#"{"customer":{"address":{"city":"Berlin"}},"content-type":"json","amount":151}"#)),
        msg(1, 9, 4u64, NOON, typed(Some("Order"), r#"{"country":"FR","discount":null}"#)),
    ];
    let mut lines = 0;
    let mut unmatched = Vec::new();
    for line in examples.lines().filter(|l| !l.trim().is_empty()) {
        let f = compile(line);
        if !msgs.iter().any(|m| check(&f, m)) {
            unmatched.push(line);
        }
        lines += 1;
    }
    assert!(lines >= 20);
    assert!(unmatched.is_empty(), "these match none of the sample messages: {unmatched:#?}");
    // Claims the doc makes elsewhere.
    assert!(check(&compile(r#"timestamp.getHours("Europe/Berlin") == 13"#), &order()));
    assert!(check(&compile(r#"timestamp - timestamp("2026-11-30T11:30:00Z") < duration("1h")"#), &order()));
    assert!(!check(&compile(r#"!(value.country == "DE")"#), &msgs[3]));
    assert!(check(&compile(r#"!has(value.country) || value.country != "DE""#), &msgs[3]));
}

#[test]
fn every_variable() {
    let m = order();
    for expr in [
        "key == 2",
        "key == 2u",
        "key == 2.0",
        "partition == 1",
        "offset > 100",
        "offset == 150u",
        r#"timestamp == timestamp("2026-11-30T12:00:00.25Z")"#,
        r#"kind == "str""#,
        "class == null",
        r#"text.startsWith("{\"country\"")"#,
        r#"value.note.endsWith("port 9")"#,
        "value.items[0] == 1",
        r#"value["country"] == "DE""#,
        "size == 72",
        "size(text) == 72",
        "value.amount + 1 == 121",
    ] {
        assert!(check(&compile(expr), &m), "{expr}");
    }
    let big = msg(0, u64::MAX, u64::MAX, NOON, text("plain words"));
    for expr in ["key == 18446744073709551615u", "key > 9223372036854775807", "offset > 0", "value == null", "text == \"plain words\""] {
        assert!(check(&compile(expr), &big), "{expr}");
    }
    let named = msg(0, 0, "sensor-7", NOON, Payload::Bytes(vec![0xAB, 0x01]));
    for expr in
        [r#"key == "sensor-7""#, r#"key.startsWith("sensor")"#, r#"text == "ab01""#, "size == 2", "value == null", r#"kind == "bytes""#]
    {
        assert!(check(&compile(expr), &named), "{expr}");
    }
    let anon = msg(0, 0, 1u64, NOON, typed(None, r#"{"x":1}"#));
    for expr in ["class == null", r#"kind == "dataclass""#, "value.x == 1", r#"text == "{\"x\":1}""#] {
        assert!(check(&compile(expr), &anon), "{expr}");
    }
}

#[test]
fn value_is_json_text_or_typed_fields_or_null() {
    for (payload, expr) in [
        (text("42"), "value == 42"),
        (text(r#""DE""#), r#"value == "DE""#),
        (text("[1,2]"), "value.size() == 2"),
        (text("{not json"), "value == null"),
        (text(""), "value == null"),
        (typed(Some("R"), r#"{"v":NaN,"w":Infinity,"big":123456789012345678901234567890}"#), "value.big > 1e29 && value.w > 1e308"),
        (typed(Some("R"), r#"{"v":NaN}"#), "has(value.v) && value.v != value.v"),
        (text(r#"{"a":{"b":{"c":[{"d":true}]}}}"#), "value.a.b.c[0].d"),
        (text(r#"{"s":"caf\u00e9 \"q\""}"#), r#"value.s == "café \"q\"""#),
        (text(r#"{"a":1,"a":2}"#), "value.a == 2"),
    ] {
        let m = msg(0, 0, 1u64, NOON, payload);
        assert!(compile(expr).matches(&m), "{expr} on {m:?}");
    }
}

#[test]
fn errors_and_type_mismatches_are_no_match() {
    let m = order();
    for expr in [
        "value.missing == 1",
        "value.country > 1",
        "value.items.x == 1",
        "value.amount.contains(\"1\")",
        "!(value.missing == 1)",
        "value.missing == 1 || false",
        "value.country",
        "value.items[10] == 1",
        "has(value.items.x)",
        "value.country.matches(\"^D\") && value.note == 1",
    ] {
        assert!(!check(&compile(expr), &m), "{expr}");
    }
    // An error on one side of `||` that the other side decides true is true.
    for expr in ["value.missing == 1 || key == 2", "key == 2 || value.missing == 1", "!(value.missing == 1 && false)"] {
        assert!(check(&compile(expr), &m), "{expr}");
    }
}

#[test]
fn on_head_decides_what_the_head_decides() {
    let k = Key::Int(2);
    assert_eq!(compile("key in [1, 2, 3]").on_head(0, 0, &k, NOON), Some(true));
    assert_eq!(compile("key in [1, 3]").on_head(0, 0, &k, NOON), Some(false));
    assert_eq!(compile(r#"key == 2 && value.a == "x""#).on_head(0, 0, &k, NOON), None);
    assert_eq!(compile(r#"key == 3 && value.a == "x""#).on_head(0, 0, &k, NOON), Some(false));
    assert_eq!(compile(r#"key == 2 || value.a == "x""#).on_head(0, 0, &k, NOON), Some(true));
    assert_eq!(compile(r#"!(key == 2 || value.a == "x")"#).on_head(0, 0, &k, NOON), Some(false));
    assert_eq!(compile("offset % 2 == 0 && partition == 0").on_head(0, 4, &k, NOON), Some(true));
    assert_eq!(compile("timestamp.getHours() == 11").on_head(0, 4, &k, NOON), Some(false));
    for (expr, needs) in [
        ("key == 1", false),
        ("timestamp < timestamp(\"2030-01-01T00:00:00Z\")", false),
        ("size > 1", true),
        ("kind == \"str\"", true),
        ("value.a == 1", true),
        ("int(key) + offset > 3", false),
    ] {
        assert_eq!(compile(expr).needs_payload(), needs, "{expr}");
    }
}

#[test]
fn value_fields_for_completion() {
    assert_eq!(compile(r#"value.country == "DE" && value.amount > 100"#).value_fields(), ["country", "amount"]);
    assert_eq!(
        compile(r#"has(value.a.b) || value.items[0].name == "x" || value["odd key"] == 1 || value.n * 2 > 3 || value.a.b == 1"#)
            .value_fields(),
        ["a.b", "items[0].name", "[\"odd key\"]", "n"]
    );
    assert!(compile("key == 1").value_fields().is_empty());
}

// ---------------------------------------------------------------- errors

fn error(expr: &str) -> (u32, u32, String) {
    match Filter::compile(expr) {
        Err(e @ Error::InvalidFilter { line, column, .. }) => {
            assert_eq!(e.code(), "invalid_filter");
            (line, column, e.to_string())
        }
        other => panic!("{expr}: {other:?}"),
    }
}

#[test]
fn compile_errors_say_where() {
    let (line, column, message) = error("value.country == ");
    assert_eq!((line, column), (1, 18));
    assert!(message.starts_with("invalid filter at 1:18: Syntax error: "), "{message}");
    assert!(message.ends_with(r#"e.g. value.country == "DE" && value.amount > 100"#), "{message}");

    let (line, column, message) = error("key == 1 && foo == 1");
    assert_eq!((line, column), (1, 13));
    assert!(message.contains("unknown variable `foo`"), "{message}");

    let (line, column, message) = error("text == \"abc");
    assert_eq!((line, column), (1, 9));
    assert!(message.contains("not closed"), "{message}");

    assert_eq!(error("key == 1 &&\n  nope(1)").0, 2);
    assert!(error("text.frobnicate()").2.contains("unknown function `.frobnicate()`"));
    assert!(error("foo.bar(1)").2.contains("unknown variable `foo`"));
    assert!(error("'ü' == 1 && bar").1 == 13);
}

#[test]
fn compile_errors_for_what_can_never_work() {
    for (expr, says) in [
        (r#"timestamp > "2026-11-30""#, "timestamp(\"2026-11-30T00:00:00Z\")"),
        ("kind == 1", "never equal"),
        ("partition.contains(\"1\")", "works on strings"),
        ("text", "not a condition"),
        ("1 + 1", "not a condition"),
        (r#"timestamp > timestamp("yesterday")"#, "always fails"),
        (r#"text.matches("(")"#, "invalid regular expression"),
        ("key.x == 1", "only `value` does"),
        ("has(text.x)", "has() tests the fields of `value`"),
        ("size(partition) > 1", "size() measures"),
        ("key in 5", "list or a map"),
        ("key == 1 / 0", "always fails"),
        ("text.lowerAscii() == \"a\"", "unknown function `.lowerAscii()`"),
        ("vålue == 1", "Syntax error"),
    ] {
        let (_, _, message) = error(expr);
        assert!(message.contains(says), "{expr}: {message}");
    }
}

#[test]
fn limits() {
    let deep = format!("{}key == 1{}", "!(".repeat(40), ")".repeat(40));
    assert!(error(&deep).2.contains("nests too deeply"));
    let parens = format!("{}key == 1{}", "(".repeat(500), ")".repeat(500));
    assert!(error(&parens).2.contains("nests too deeply"));
    let chain = format!("value{} == 1", ".a".repeat(5000));
    assert!(error(&chain).2.contains("nests too deeply"));
    let long = format!("key == 1{}", " || key == 1".repeat(2000));
    assert!(error(&long).2.contains("over the limit"));
    // A run of `!` (the parser folds it into one node) is as many levels.
    for (run, text) in [(33, "!"), (16_000, "!"), (40, "- "), (33, "! ")] {
        let expr = format!("{}true", text.repeat(run));
        assert!(error(&expr).2.contains("nests too deeply"), "{run} x {text:?}");
    }
    assert!(compile(&format!("{}true", "!".repeat(32))).matches(&order()));
    // A duration past the span of any message's time fails on every message: refused,
    // as the same constant alone is.
    for too_long in [
        r#"timestamp - duration("876000000h") < timestamp("2026-01-01T00:00:00Z")"#,
        r#"timestamp - (duration("50000000h") + duration("50000000h")) < timestamp("2026-01-01T00:00:00Z")"#,
    ] {
        let message = error(too_long).2;
        assert!(message.contains("longer than the span") || message.contains("always fails"), "{too_long}: {message}");
    }
    assert!(compile(r#"timestamp - duration("8760h") < timestamp("2026-12-31T00:00:00Z")"#).matches(&order()));
    assert!(
        compile(r#"text != "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!" && key != -1"#).matches(&order()),
        "in a string, or `!=`, it is no run"
    );
    // Long but flat: a list of a thousand keys, a chain of a thousand `||`.
    let keys: Vec<String> = (0..1000).map(|k| k.to_string()).collect();
    assert!(compile(&format!("key in [{}]", keys.join(", "))).matches(&order()));
    let ors: Vec<String> = (0..1000).map(|k| format!("key == {k}")).collect();
    assert!(check(&compile(&ors.join(" || ")), &order()));
}

/// A pattern read from the message is compiled once, not per message (20,000
/// messages took over 120 s), and matches as the interpreter's `matches` does.
#[test]
fn a_pattern_from_the_message_is_compiled_once_per_pattern() {
    let f = compile("text.matches(text)");
    let g = compile(r#"value.name.matches(value.re)"#);
    let started = std::time::Instant::now();
    let mut hits = 0;
    for i in 0..20_000 {
        let text = format!("order {i} ok");
        if f.matches(&Message {
            topic: "t".into(),
            partition: 0,
            offset: i,
            key: Key::Int(1),
            timestamp: NOON,
            payload: Payload::Text(text),
        }) {
            hits += 1;
        }
    }
    assert_eq!(hits, 20_000, "a text matches itself as a pattern (no metacharacters here)");
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "{:?}", started.elapsed());
    let typed = |name: &str, re: &str| Message {
        topic: "t".into(),
        partition: 0,
        offset: 0,
        key: Key::Int(1),
        timestamp: NOON,
        payload: Payload::Typed(TypedPayload { type_id: 0, class: Some("E".into()), json: format!(r#"{{"name":{name:?},"re":{re:?}}}"#) }),
    };
    assert!(g.matches(&typed("abc", "^a.c$")));
    assert!(!g.matches(&typed("abd", "^a.c$")));
    assert!(!g.matches(&typed("abc", "(")), "an invalid pattern fails that message, as the interpreter's does");
    assert!(!g.matches(&typed("abc", "a")) || g.matches(&typed("xabc", "a")));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn garbage_never_panics(s in "\\PC{0,60}") {
        let _ = Filter::compile(&s);
    }

    #[test]
    fn token_soup_never_panics(tokens in prop::collection::vec(prop::sample::select(vec![
        "value", "key", "text", ".", "a", "(", ")", "[", "]", "{", "}", ",", ":", "==", "<", "&&", "||", "!", "?", "-", "+",
        "in", "has", "size", "1", "2u", "1.5", "\"s\"", "'", "\"", "b\"x\"", "r\"x\"", "true", "null", "exists", "x", "timestamp",
        "matches", "contains", "\n", " ", "//", "`", "\\",
    ]), 0..30)) {
        let s: String = tokens.concat();
        if let Ok(f) = Filter::compile(&s) {
            let _ = f.matches(&order());
            let _ = f.on_head(0, 0, &Key::Int(1), NOON);
        }
    }
}

// ---------------------------------------------------------------- the fixture store

#[test]
fn every_fixture_payload_kind_and_key_type() {
    let tmp = common::fixture_store();
    let store = Store::open(tmp.path()).expect("open");
    let exprs: Vec<Filter> = [
        r#"kind == "str""#,
        r#"kind == "bytes" && size > 20"#,
        r#"class == "Reading" && value.ok"#,
        r#"class == "Event" && value.tags.size() > 1"#,
        r#"value.sensor == "s2" || value.value > 40.0"#,
        r##"text.contains("#1") || text.startsWith("f8")"##,
        r#"key in [0, 1, 186, 28977] || key == "cy" || key > 4000000000"#,
        "partition == 1 && offset < 3",
        r#"timestamp > timestamp("2026-11-28T20:00:00Z")"#,
        "has(value.tags) && !has(value.sensor)",
        r#"text.matches("^(alpha|gamma) #")"#,
        "size(key) == 2 || key % 2u == 0u",
        "value.tags.exists(t, t == \"gamma\")",
        "value == null",
    ]
    .into_iter()
    .map(compile)
    .collect();
    let expected = common::load_json("expected.json");
    let mut seen = HashMap::new();
    for topic in expected["topics"].as_object().expect("topics").keys() {
        let mut consumer = store.consumer(topic, StartFrom::Start).expect("consumer");
        let mut n = 0;
        while let Some(m) = consumer.poll().expect("no corrupt lines") {
            n += 1;
            for f in &exprs {
                if check(f, &m) {
                    *seen.entry(f.source().to_string()).or_insert(0) += 1;
                }
            }
        }
        let want: usize = expected["topics"][topic]["partitions"]
            .as_object()
            .expect("partitions")
            .values()
            .map(|p| p.as_array().map_or(0, Vec::len))
            .sum();
        assert_eq!(n, want, "{topic}");
    }
    // Each filter picks something out of the fixture (and so exercises its kind of payload and key).
    for f in &exprs {
        assert!(seen.get(f.source()).is_some_and(|&n| n > 0), "{} matched nothing", f.source());
    }
    // Counts taken from expected.json itself.
    let mut classes = HashMap::new();
    for p in expected["topics"]["typed"]["partitions"].as_object().expect("typed").values() {
        for m in p.as_array().expect("msgs") {
            *classes.entry(m["payload"]["class"].as_str().expect("class").to_string()).or_insert(0) += 1;
        }
    }
    let mut consumer = store.consumer("typed", StartFrom::Start).expect("consumer");
    let event = compile(r#"class == "Event""#);
    let mut events = 0;
    while let Some(m) = consumer.poll().expect("poll") {
        events += usize::from(event.matches(&m));
    }
    assert_eq!(events, classes["Event"]);
}

// ---------------------------------------------------------------- the plan against the interpreter

const FIELDS: [&str; 8] = ["country", "amount", "items", "ok", "n", "s", "a", "nested"];

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value as J;
    let leaf = prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::from),
        (-3i64..150).prop_map(J::from),
        prop_oneof![Just(u64::MAX), Just(1u64 << 63), Just(i64::MAX as u64)].prop_map(J::from),
        prop_oneof![Just(-0.5f64), Just(1.5), Just(2.0), Just(100.25), Just(1e300)].prop_map(J::from),
        prop::sample::select(vec!["DE", "FR", "", "a", "timeout", "d\"e", "caf\u{e9}", "a\\b", "DEU"]).prop_map(J::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(J::Array),
            prop::collection::vec((prop::sample::select(FIELDS.to_vec()), inner), 0..5)
                .prop_map(|kv| J::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}

fn json_object() -> impl Strategy<Value = String> {
    (prop::collection::vec((prop::sample::select(FIELDS.to_vec()), json_value()), 0..6), any::<bool>()).prop_map(|(kv, pretty)| {
        let v = serde_json::Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect());
        if pretty { serde_json::to_string_pretty(&v) } else { serde_json::to_string(&v) }.expect("json")
    })
}

fn message() -> impl Strategy<Value = Message> {
    let key = prop_oneof![
        (0u64..5).prop_map(Key::Int),
        Just(Key::Int(u64::MAX)),
        Just(Key::Int(1 << 63)),
        prop::sample::select(vec!["a", "DE", "k1", ""]).prop_map(Key::from),
    ];
    let payload = prop_oneof![
        3 => json_object().prop_map(Payload::Text),
        1 => json_value().prop_map(|v| Payload::Text(v.to_string())),
        1 => prop::sample::select(vec!["timeout on 7", "plain", "", "DE"]).prop_map(|s| Payload::Text(s.to_string())),
        1 => prop::collection::vec(any::<u8>(), 0..16).prop_map(Payload::Bytes),
        2 => (prop::option::of(prop::sample::select(vec!["Order", "Event"])), json_object())
            .prop_map(|(c, j)| Payload::Typed(TypedPayload { type_id: 1, class: c.map(str::to_string), json: j })),
    ];
    let ts = prop_oneof![Just(NOON), (-200_000i64..200_000).prop_map(|d| NOON + d as f64 * 1.5), Just(NOON + 0.000_000_4)];
    (0u32..4, prop_oneof![0u64..300, Just(u64::MAX)], key, ts, payload).prop_map(|(p, o, k, t, pl)| msg(p, o, k, t, pl))
}

fn operand() -> impl Strategy<Value = String> {
    let vars = prop::sample::select(vec!["key", "partition", "offset", "timestamp", "kind", "class", "text", "value", "size"]);
    let paths = prop::sample::select(vec![
        "value.country",
        "value.amount",
        "value.items",
        "value.items[0]",
        "value.items[1]",
        "value.ok",
        "value.n",
        "value.s",
        "value.a",
        "value.a.n",
        "value.nested.items",
        "value.a.a.country",
        "value[\"country\"]",
        "value.nested[\"ok\"]",
    ]);
    let lits = prop::sample::select(vec![
        "0",
        "1",
        "2",
        "-1",
        "100",
        "3u",
        "18446744073709551615u",
        "9223372036854775807",
        "1.5",
        "2.0",
        "1e300",
        "\"DE\"",
        "\"a\"",
        "\"\"",
        "\"timeout\"",
        "\"str\"",
        "\"bytes\"",
        "\"dataclass\"",
        "\"Order\"",
        "true",
        "false",
        "null",
        "b\"ab\"",
        "timestamp(\"2026-11-30T12:00:00Z\")",
        "timestamp(\"2026-11-29T00:00:00Z\")",
        "[1, 2, 3]",
        "[\"DE\", \"FR\"]",
        "[]",
        "{\"a\": 1}",
        "[1, \"DE\", null, 1.5]",
        "duration(\"1h\")",
    ]);
    prop_oneof![
        2 => vars.prop_map(str::to_string),
        3 => paths.prop_map(str::to_string),
        3 => lits.prop_map(str::to_string),
        1 => prop::sample::select(vec!["value.items", "text", "value", "value.s", "key", "value.a"]).prop_map(|x| format!("size({x})")),
        1 => prop::sample::select(vec!["value.items", "value.country", "value.nested"]).prop_map(|x| format!("{x}.size()")),
        1 => prop::sample::select(vec!["value.n + 1", "value.amount * 2", "offset % 3", "timestamp.getHours()", "int(key)", "string(key)", "type(value.n)", "(value.ok ? 1 : 2)"]).prop_map(str::to_string),
    ]
}

/// Operands likely to be strings.
fn str_operand() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "text",
        "key",
        "class",
        "kind",
        "value.country",
        "value.s",
        "value.a",
        "value.items[0]",
        "value[\"s\"]",
        "\"DE\"",
        "\"e\"",
        "\"\"",
        "\"time\"",
        "\"\\\"\"",
        "string(key)",
        "value.nested.s",
    ])
    .prop_map(str::to_string)
}

fn literal() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "0",
        "1",
        "2",
        "100",
        "-1",
        "3u",
        "1.5",
        "100.25",
        "\"DE\"",
        "\"FR\"",
        "\"a\"",
        "\"\"",
        "true",
        "false",
        "null",
        "timestamp(\"2026-11-30T12:00:00Z\")",
        "[1, 2, 3]",
        "[\"DE\", \"FR\"]",
        "18446744073709551615u",
        "\"d\\\"e\"",
        "\"a\\\\b\"",
        "\"caf\u{e9}\"",
        "\"caf\\u00e9\"",
        "\"timeout\"",
    ])
    .prop_map(str::to_string)
}

fn predicate() -> impl Strategy<Value = String> {
    let cmp = prop::sample::select(vec!["==", "!=", "<", "<=", ">", ">="]);
    let str_op = prop::sample::select(vec!["contains", "startsWith", "endsWith"]);
    let container = prop::sample::select(vec![
        "[1, 2, 3]",
        "[\"DE\", \"FR\", 2]",
        "[]",
        "value.items",
        "value",
        "value.a",
        "value.nested.items",
        "{\"DE\": 1}",
        "[null, 1.5, true]",
    ]);
    prop_oneof![
        3 => (operand(), cmp.clone(), operand()).prop_map(|(a, op, b)| format!("{a} {op} {b}")),
        4 => (operand(), cmp, literal()).prop_map(|(a, op, b)| format!("{a} {op} {b}")),
        3 => (operand(), container).prop_map(|(a, b)| format!("{a} in {b}")),
        3 => (str_operand(), str_op, str_operand()).prop_map(|(a, op, b)| format!("{a}.{op}({b})")),
        1 => (str_operand(), prop::sample::select(vec!["\"^D\"", "\"t.*t\"", "\"[0-9]\"", "\"\"", "\"(?i)de\""])).prop_map(|(a, re)| format!("{a}.matches({re})")),
        2 => prop::sample::select(vec!["value.country", "value.a.n", "value.items.x", "value.nested.ok", "value.items[0].a", "value.s", "value.a.a.country", "value[\"ok\"].x"]).prop_map(|p| format!("has({p})")),
        2 => prop::sample::select(vec!["value.ok", "value.a", "value.nested.ok", "value", "value.items[1]", "true", "false"]).prop_map(str::to_string),
        1 => prop::sample::select(vec![
            "value.items.exists(x, x == 1)",
            "value.items.all(x, x > 0)",
            "[1, 2].exists(x, x == key)",
            "value.a.exists(k, k == \"n\")",
            "offset % 2 == 0",
            "timestamp.getMinutes() < 30",
        ]).prop_map(str::to_string),
    ]
}

fn expression() -> impl Strategy<Value = String> {
    predicate().prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) && ({b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) || ({b})")),
            inner.clone().prop_map(|a| format!("!({a})")),
            (inner.clone(), inner.clone(), inner).prop_map(|(c, a, b)| format!("({c}) ? ({a}) : ({b})")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// What the compile-time checks refuse can never be true (`a != b` of
    /// kinds that are never equal is refused too, as it can never be false).
    #[test]
    fn refused_tests_are_never_true(pred in predicate(), msgs in prop::collection::vec(message(), 1..6)) {
        if Filter::compile(&pred).is_err() {
            let claim = if pred.contains(" != ") { format!("!({pred})") } else { pred.clone() };
            for m in &msgs {
                prop_assert!(!reference(&claim, m), "{} is refused but {} is true on {:?}", pred, claim, m);
            }
        }
    }

    /// String tests on `value`, which the JSON prefilter may answer before any parse.
    #[test]
    fn string_tests_agree_with_the_interpreter(
        tests in prop::collection::vec((
            prop::sample::select(vec!["value.s", "value.country", "value.a.s", "value", "value.items[0]", "value.nested.country"]),
            prop::sample::select(vec!["==", "contains", "startsWith", "endsWith"]),
            prop::sample::select(vec!["DE", "FR", "", "a", "timeout", "d\\\"e", "caf\u{e9}", "a\\\\b", "DEU", "e"]),
        ), 1..3),
        others in prop::option::of(prop::sample::select(vec!["key == 1", "kind == \"str\"", "has(value.a)"])),
        msgs in prop::collection::vec(message(), 1..8),
    ) {
        let mut parts: Vec<String> = tests
            .into_iter()
            .map(|(path, op, lit)| if op == "==" { format!("{path} == \"{lit}\"") } else { format!("{path}.{op}(\"{lit}\")") })
            .collect();
        parts.extend(others.map(str::to_string));
        let f = compile(&parts.join(" && "));
        for m in &msgs {
            check(&f, m);
        }
    }

    #[test]
    fn plan_agrees_with_the_interpreter(expr in expression(), msgs in prop::collection::vec(message(), 1..6)) {
        // Filters the compile-time checks refuse (types that can never match...) are not compared.
        if let Ok(f) = Filter::compile(&expr) {
            for m in &msgs {
                check(&f, m);
            }
        }
    }
}

#[test]
fn a_broad_fixed_list_agrees_with_the_interpreter() {
    let exprs = [
        r#"value.country == "DE" && value.amount > 100"#,
        r#"value.country != "DE" || !has(value.amount)"#,
        r#"value.items.size() > 2 && 1 in value.items"#,
        r#""DE" in value.items || "country" in value"#,
        r#"value.s.contains("a") || value.s.startsWith("c") || value.s.endsWith("b")"#,
        r#"value.ok ? value.n > 1 : value.n < 1"#,
        r#"value.a.n == 1 || value.a.a.country == "DE""#,
        r#"value == null || size(value) == 0"#,
        r#"text.matches("time") && kind != "bytes""#,
        r#"value.amount >= 100.25 && value.amount <= 1e300"#,
        r#"value.items == [1, 2, 3] || value.a == {"n": 1}"#,
        r#"value.nested.items[0] == null"#,
        r#"(value.n + 1) * 2 > 4 || key == 2"#,
        r#"class in ["Order", "Event"] && value.ok == true"#,
        r#"timestamp >= timestamp("2026-11-30T12:00:00Z") && value.country == "DE""#,
    ];
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let msgs: Vec<Message> = (0..300).map(|_| message().new_tree(&mut runner).expect("message").current()).collect();
    let mut matched = 0;
    for expr in exprs {
        let f = compile(expr);
        for m in &msgs {
            matched += usize::from(check(&f, m));
        }
    }
    assert!(matched > 100, "only {matched} matches: the messages do not exercise the filters");
}
