//! A demo store: several topics with text, bytes and typed messages, and a consumer group.

use std::time::Duration;

use serde_json::json;

use crate::error::Result;
use crate::format::key::{Key, KeyType};
use crate::format::payload::Outgoing;
use crate::group::{GroupMember, GroupOptions};
use crate::log::dir::TopicSpec;
use crate::store::Store;

fn typed(class: &str, v: &serde_json::Value) -> Outgoing {
    Outgoing::typed(class, v).unwrap_or(Outgoing::Text(v.to_string()))
}

/// A small deterministic generator (xorshift), so the demo is the same every time.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        // The remainder is below items.len(), a usize.
        #[allow(clippy::cast_possible_truncation)]
        let i = (self.next() % items.len() as u64) as usize;
        &items[i]
    }
}

/// Fill `store` with the demo topics (`orders`, `sensors`, `chat`, `audit`) and
/// a group `billing` on `orders` that has consumed part of it. Does nothing
/// if `orders` already exists.
///
/// # Errors
/// Engine errors from creating topics or writing.
pub fn seed(store: &Store) -> Result<bool> {
    if store.topic_exists("orders")? {
        return Ok(false);
    }
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    store.create_topic("orders", &TopicSpec::new(KeyType::U32, 4).with_types(["Order", "Refund"]))?;
    store.create_topic("sensors", &TopicSpec::new(KeyType::U64, 3))?;
    store.create_topic("chat", &TopicSpec::new(KeyType::Char(12), 2))?;
    store.create_topic("audit", &TopicSpec::new(KeyType::U16, 1))?;

    let items = ["lamp", "desk", "chair", "monitor", "cable", "keyboard", "headset"];
    let mut orders = store.producer("orders")?;
    let batch: Vec<(Key, Outgoing)> = (0..1200u64)
        .map(|i| {
            let key = Key::Int(1 + rng.next() % 5000);
            let payload = if i % 11 == 0 {
                typed("Refund", &json!({"order": i.saturating_sub(3), "reason": rng.pick(&["damaged", "late", "wrong size"])}))
            } else {
                let cents = 300 + rng.next() % 40_000;
                typed("Order", &json!({"id": i, "item": rng.pick(&items), "qty": 1 + rng.next() % 5, "price": cents as f64 / 100.0}))
            };
            (key, payload)
        })
        .collect();
    orders.send_batch(&batch)?;

    let mut sensors = store.producer("sensors")?;
    let ids = [11_805_601_705_697_281_889u64, 42, 7, u64::MAX];
    let batch: Vec<(Key, Outgoing)> = (0..600u32)
        .map(|i| {
            let mut b = i.to_be_bytes().to_vec();
            b.extend_from_slice(&((rng.next() % 4000) as f32 / 100.0 - 5.0).to_be_bytes());
            (Key::Int(*rng.pick(&ids)), Outgoing::Bytes(b))
        })
        .collect();
    sensors.send_batch(&batch)?;

    let mut chat = store.producer("chat")?;
    let who = ["ada", "grace", "linus", "ken", "barbara"];
    let lines = [
        "hello",
        "ship it",
        "who broke main?",
        "lunch?",
        "日本語も大丈夫",
        "<img src=x onerror=alert(1)> is just text",
        "{\"looks\": \"like json\", \"n\": 3}",
        "tab\tinside and \"quotes\"",
    ];
    for _ in 0..240 {
        let line = *rng.pick::<&str>(&lines);
        chat.send_text(rng.pick(&who).to_string(), line)?;
    }
    let mut audit = store.producer("audit")?;
    for i in 0..50u16 {
        audit.send_text(i, &format!("user {} signed in from 10.0.0.{}", rng.pick(&who), i))?;
    }

    // A group that has read part of `orders`.
    let opts = GroupOptions { window: Duration::from_millis(50), rebalance_on_leave: false, ..GroupOptions::default() };
    let mut member = GroupMember::join(store, "orders", "billing", opts)?;
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    let mut read = 0;
    while read < 700 && std::time::Instant::now() < deadline {
        if member.poll()?.is_some() {
            read += 1;
        }
    }
    member.close()?;
    Ok(true)
}
