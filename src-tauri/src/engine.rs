//! The engine items this crate names below the `twainmq` crate root (other
//! than the `twainmq::group`, `twainmq::scan` and `twainmq::transfer`
//! modules): when the engine's modules move, only these paths change.

pub use twainmq::demo::seed as seed_demo;
pub use twainmq::json::python_pretty;
pub use twainmq::limits::{
    DEFAULT_KEY_TYPE, DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_PARTITIONS, GROUP_PREFIX, MAX_CHAR_WIDTH, MAX_FREE_KEY_BYTES, MAX_GROUP_NAME,
    MAX_LINE_BYTES, MAX_MESSAGE_BYTES_LIMIT, MAX_PARTITIONS, MAX_TOPIC_NAME,
};
pub use twainmq::names::{group_topic, validate_group, validate_topic};
