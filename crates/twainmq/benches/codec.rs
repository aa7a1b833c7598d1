//! Codec micro-benchmarks: keys, timestamps, blobs (both encoders), lines, partitioner.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use twainmq::internals::line::{decode_timestamp, encode_timestamp, Codec};
use twainmq::{partition_for, Key, KeyType};

fn bench(c: &mut Criterion) {
    let payload = b"message 12345 abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghij";
    let mut out = Vec::with_capacity(4096);
    c.bench_function("key u64 encode", |b| {
        b.iter(|| {
            out.clear();
            KeyType::U64.encode_into(black_box(&Key::Int(11_805_601_705_697_281_889)), &mut out).ok();
        })
    });
    c.bench_function("key u64 decode", |b| b.iter(|| KeyType::U64.decode(black_box(b"qt)y)+tmkQ")).ok()));
    c.bench_function("timestamp encode", |b| {
        b.iter(|| {
            out.clear();
            encode_timestamp(black_box(1_796_016_478.803_225), &mut out);
        })
    });
    c.bench_function("timestamp decode", |b| b.iter(|| decode_timestamp(black_box(b"LE1{P?rU=$")).ok()));
    for (name, mut codec) in [("fast", Codec::default()), ("zlib exact", Codec::exact())] {
        c.bench_function(&format!("line encode 100 B ({name})"), |b| {
            b.iter(|| {
                out.clear();
                codec.encode_line(KeyType::U32, &Key::Int(7), 1.5, black_box(payload), &mut out).ok();
            })
        });
    }
    // A less repetitive payload: a JSON event of about 100 bytes.
    let json = br#"{"id":918273,"user":"alice@example.com","event":"checkout","cart":[12,7,93],"total":41.5,"ok":true}"#;
    let mut codec = Codec::default();
    c.bench_function("line encode 100 B JSON (fast)", |b| {
        b.iter(|| {
            out.clear();
            codec.encode_line(KeyType::U32, &Key::Int(7), 1.5, black_box(json), &mut out).ok();
        })
    });
    for (name, body) in [("", &payload[..]), (" JSON", &json[..])] {
        for (enc, mut codec) in [("fast", Codec::default()), ("zlib", Codec::exact())] {
            let mut line = Vec::new();
            codec.encode_line(KeyType::U32, &Key::Int(7), 1.5, body, &mut line).ok();
            line.pop();
            c.bench_function(&format!("line decode 100 B{name} ({enc}-encoded)"), |b| {
                b.iter(|| codec.decode_line(KeyType::U32, black_box(&line)).ok())
            });
        }
    }
    let mut deflated = Vec::new();
    twainmq::internals::deflate::FastDeflate::default().compress(json, &mut deflated);
    let mut fast = twainmq::internals::deflate::FastDeflate::default();
    c.bench_function("deflate 100 B JSON (fast)", |b| {
        b.iter(|| {
            out.clear();
            fast.compress(black_box(json), &mut out);
        })
    });
    c.bench_function("base85 encode 100 B", |b| {
        b.iter(|| {
            out.clear();
            twainmq::internals::b85::encode_into(black_box(json), &mut out);
        })
    });
    let text = twainmq::internals::b85::encode(json);
    c.bench_function("base85 decode 125 chars", |b| {
        b.iter(|| {
            out.clear();
            twainmq::internals::b85::decode_into(black_box(text.as_bytes()), &mut out).ok();
        })
    });
    c.bench_function("partitioner u64", |b| b.iter(|| partition_for(black_box(&Key::Int(11_805_601_705_697_281_889)), 12)));
    let long = Key::Str("a rather long string key, 40 bytes long.".into());
    c.bench_function("partitioner 40-byte string", |b| b.iter(|| partition_for(black_box(&long), 12)));
}

criterion_group!(benches, bench);
criterion_main!(benches);
