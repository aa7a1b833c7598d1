//! Message filter micro-benchmarks: the plan against the plain `cel`
//! interpreter on 100-byte JSON text payloads, and `on_head` on keys.
//! Each iteration runs over `N` messages (half from Germany, amounts 0-199),
//! so the reported time per element is the cost per message.

use std::collections::HashMap;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use twainmq::{Filter, Key, Message, Payload};

const N: usize = 256;
const EXPR: &str = r#"value.country == "DE" && value.amount > 100"#;

fn messages() -> Vec<Message> {
    (0..N)
        .map(|i| {
            let country = if i % 2 == 0 { "DE" } else { ["FR", "NL", "PL", "AT"][i / 2 % 4] };
            let amount = (i * 37) % 200;
            let mut text = format!(r#"{{"id":{},"country":"{country}","amount":{amount},"items":["a","b"],"note":""#, 10_000 + i);
            text.push_str(&"x".repeat(100usize.saturating_sub(text.len() + 2)));
            text.push_str(r#""}"#);
            assert_eq!(text.len(), 100);
            Message {
                topic: Arc::from("orders"),
                partition: u32::try_from(i % 4).expect("small"),
                offset: i as u64,
                key: Key::Int(i as u64 % 10),
                timestamp: 1_796_040_000.0 + i as f64,
                payload: Payload::Text(text),
            }
        })
        .collect()
}

fn json_to_cel(v: &serde_json::Value) -> cel::Value {
    match v {
        serde_json::Value::Null => cel::Value::Null,
        serde_json::Value::Bool(b) => cel::Value::Bool(*b),
        serde_json::Value::Number(n) => n.as_i64().map_or_else(|| cel::Value::Float(n.as_f64().unwrap_or(f64::NAN)), cel::Value::Int),
        serde_json::Value::String(s) => cel::Value::String(Arc::new(s.clone())),
        serde_json::Value::Array(a) => cel::Value::List(Arc::new(a.iter().map(json_to_cel).collect())),
        serde_json::Value::Object(o) => {
            let m: HashMap<String, cel::Value> = o.iter().map(|(k, v)| (k.clone(), json_to_cel(v))).collect();
            cel::Value::Map(m.into())
        }
    }
}

fn bench(c: &mut Criterion) {
    let msgs = messages();
    let filter = Filter::compile(EXPR).expect("compiles");
    let want = msgs.iter().filter(|m| filter.matches(m)).count();
    assert!(want > 0 && want < N);

    let mut g = c.benchmark_group("filter");
    g.throughput(Throughput::Elements(N as u64));
    g.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));

    g.bench_function("plan matches (value.country == DE && value.amount > 100)", |b| {
        b.iter(|| msgs.iter().filter(|m| filter.matches(black_box(m))).count())
    });

    let germany: Vec<Message> = msgs.iter().step_by(2).cloned().cycle().take(N).collect();
    g.bench_function("plan matches, every payload parsed (all from Germany)", |b| {
        b.iter(|| germany.iter().filter(|m| filter.matches(black_box(m))).count())
    });
    let amount = Filter::compile("value.amount > 100").expect("compiles");
    g.bench_function("plan matches (value.amount > 100: no prefilter, every payload parsed)", |b| {
        b.iter(|| msgs.iter().filter(|m| amount.matches(black_box(m))).count())
    });

    // The interpreter as a filter would use it: parse the payload, bind the variables, execute.
    let env = Arc::new(cel::Env::stdlib());
    let program = cel::Program::compile(EXPR).expect("compiles");
    let run = |m: &Message| {
        let Payload::Text(t) = &m.payload else { return false };
        let value = serde_json::from_str(t).map_or(cel::Value::Null, |v| json_to_cel(&v));
        let mut ctx = cel::Context::with_env(env.clone());
        ctx.add_variable_from_value("value", value);
        program.execute(&ctx) == Ok(cel::Value::Bool(true))
    };
    assert_eq!(msgs.iter().filter(|m| run(m)).count(), want);
    g.bench_function("cel interpreter (same filter, payload parsed and bound per message)", |b| {
        b.iter(|| msgs.iter().filter(|m| run(black_box(m))).count())
    });

    // The interpreter's evaluation alone, the payload parsed and bound beforehand.
    let contexts: Vec<cel::Context> = msgs
        .iter()
        .map(|m| {
            let Payload::Text(t) = &m.payload else { unreachable!() };
            let mut ctx = cel::Context::with_env(env.clone());
            ctx.add_variable_from_value("value", json_to_cel(&serde_json::from_str(t).expect("json")));
            ctx
        })
        .collect();
    g.bench_function("cel interpreter (evaluation only, values bound beforehand)", |b| {
        b.iter(|| contexts.iter().filter(|ctx| program.execute(black_box(ctx)) == Ok(cel::Value::Bool(true))).count())
    });

    let keys = Filter::compile("key in [1, 2, 3]").expect("compiles");
    g.bench_function("plan on_head (key in [1, 2, 3])", |b| {
        b.iter(|| msgs.iter().filter(|m| keys.on_head(m.partition, m.offset, black_box(&m.key), m.timestamp) == Some(true)).count())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
