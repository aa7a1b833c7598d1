//! The one place this crate names engine items below the crate root (other
//! than the `twainmq::group` and `twainmq::scan` modules):
//! when the engine's modules move, only these paths change.
//!
//! The limits here are also exported to the webview as constants of the
//! generated bindings ([`limits`]), so its live validation uses the engine's
//! numbers rather than copies of them.

pub use twainmq::demo::seed as seed_demo;
pub use twainmq::json::python_pretty;
pub use twainmq::limits::{
    DEFAULT_KEY_TYPE, DEFAULT_PARTITIONS, GROUP_PREFIX, MAX_CHAR_WIDTH, MAX_GROUP_NAME, MAX_LINE_BYTES, MAX_PARTITIONS, MAX_TOPIC_NAME,
};
pub use twainmq::names::{group_topic, validate_group, validate_topic};

use std::collections::BTreeMap;

use twainmq::KeyType;

/// The constants the bindings carry, by name. Integers beyond 2^53 (the
/// largest u64 key) are decimal strings, as everywhere on the wire.
pub fn limits() -> Vec<(&'static str, serde_json::Value)> {
    let key_int_max: BTreeMap<String, String> = [KeyType::U8, KeyType::U16, KeyType::U32, KeyType::U64]
        .into_iter()
        .filter_map(|k| k.max_int().map(|m| (k.to_string(), m.to_string())))
        .collect();
    vec![
        ("MAX_TOPIC_NAME", MAX_TOPIC_NAME.into()),
        ("MAX_GROUP_NAME", MAX_GROUP_NAME.into()),
        ("GROUP_PREFIX", GROUP_PREFIX.into()),
        ("MAX_PARTITIONS", MAX_PARTITIONS.into()),
        ("MAX_CHAR_WIDTH", MAX_CHAR_WIDTH.into()),
        ("MAX_LINE_BYTES", MAX_LINE_BYTES.into()),
        ("KEY_INT_MAX", serde_json::to_value(key_int_max).unwrap_or_default()),
        ("MAX_PAGE", crate::service::MAX_PAGE.into()),
        // New Topic's defaults: 0.2.3's create_topic and the CLI's `topics create`.
        ("DEFAULT_KEY_TYPE", DEFAULT_KEY_TYPE.into()),
        ("DEFAULT_PARTITIONS", DEFAULT_PARTITIONS.into()),
    ]
}
