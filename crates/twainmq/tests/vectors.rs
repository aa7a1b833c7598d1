//! Codec results equal 0.2.3's on every entry of `vectors.json`.

mod common;

use twainmq::internals::line::{decode_timestamp, encode_timestamp, Codec};
use twainmq::{partition_for, Key, KeyType, Outgoing, Payload, TypedPayload};

fn key_of(v: &serde_json::Value) -> Key {
    match v {
        serde_json::Value::String(s) => Key::Str(s.clone()),
        n => Key::Int(n.as_u64().expect("u64 key")),
    }
}

#[test]
fn keys() {
    let v = common::load_json("vectors.json");
    let entries = v["keys"].as_array().expect("keys");
    assert!(entries.len() > 50);
    for e in entries {
        let kt = KeyType::from_width(e["width"].as_i64().expect("width")).expect("key type");
        let key = key_of(&e["key"]);
        let mut out = Vec::new();
        let got = kt.encode_into(&key, &mut out);
        match e.get("encoded") {
            Some(enc) => {
                got.expect("encodes");
                assert_eq!(std::str::from_utf8(&out).expect("ascii"), enc.as_str().expect("str"), "{e}");
                assert_eq!(kt.decode(&out).expect("decodes"), key, "{e}");
            }
            None => {
                assert_eq!(e["error"], "InvalidMessageKeyError");
                assert!(got.is_err(), "{e} should be refused");
            }
        }
    }
}

#[test]
fn timestamps() {
    let v = common::load_json("vectors.json");
    for e in v["timestamps"].as_array().expect("timestamps") {
        let unix = e["unix"].as_f64().expect("f64");
        let mut out = Vec::new();
        encode_timestamp(unix, &mut out);
        assert_eq!(std::str::from_utf8(&out).expect("ascii"), e["encoded"].as_str().expect("str"));
        assert_eq!(decode_timestamp(&out).expect("decodes").to_bits(), unix.to_bits());
    }
}

#[test]
fn partitioner() {
    let v = common::load_json("vectors.json");
    let entries = v["partition"].as_array().expect("partition");
    assert!(entries.len() > 600);
    for e in entries {
        let n = e["partitions"].as_u64().expect("n") as u32;
        assert_eq!(u64::from(partition_for(&key_of(&e["key"]), n)), e["partition"].as_u64().expect("p"), "{e}");
    }
}

#[test]
fn blobs() {
    let v = common::load_json("vectors.json");
    let types = v["message_types_typed_topic"].as_object().expect("types");
    let mut codec = Codec::exact();
    let mut fast = Codec::default();
    for e in v["blobs"].as_array().expect("blobs") {
        let p = &e["payload"];
        let payload = match p["type"].as_str().expect("type") {
            "str" => Payload::Text(p["value"].as_str().expect("value").to_string()),
            "bytes" => Payload::Bytes(hex::decode(p["hex"].as_str().expect("hex")).expect("hex")),
            _ => {
                let class = p["class"].as_str().expect("class");
                let type_id = types[class].as_u64().expect("id") as u16;
                let json = String::from_utf8(twainmq::internals::pyjson::to_compact(&p["fields"]).expect("json")).expect("ascii");
                Payload::Typed(TypedPayload { type_id, class: None, json })
            }
        };
        let mut raw = Vec::new();
        Codec::payload_bytes(&payload, &mut raw);
        let mut line = Vec::new();
        codec.encode_line(KeyType::U8, &Key::Int(0), 0.0, &raw, &mut line).expect("encodes");
        let blob = &line[2 + 10..line.len() - 1];
        assert_eq!(std::str::from_utf8(blob).expect("ascii"), e["encoded"].as_str().expect("str"), "{e}");
        let rec = codec.decode_line(KeyType::U8, &line[..line.len() - 1]).expect("decodes");
        assert_eq!(rec.payload, payload);
        // The fast encoder's lines decode to the same payload.
        let mut line = Vec::new();
        fast.encode_line(KeyType::U8, &Key::Int(0), 0.0, &raw, &mut line).expect("encodes");
        assert_eq!(fast.decode_line(KeyType::U8, &line[..line.len() - 1]).expect("decodes").payload, payload);
        let _ = Outgoing::Text(String::new());
    }
}
