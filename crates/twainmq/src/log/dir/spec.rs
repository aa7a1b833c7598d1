//! What a new topic looks like: TopicSpec, its key type, partitions, message
//! classes (numbered as we or as 0.2.3 number them) and large messages.

#[allow(clippy::wildcard_imports)]
use super::*;

/// What a new topic looks like. Defaults match 0.2.3: `u16` keys, 1 partition, no types.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicSpec {
    /// The type of the topic's keys.
    pub key_type: KeyType,
    /// How many partitions (1 to [`MAX_PARTITIONS`]).
    pub partitions: u32,
    /// The names of its typed-message classes, in type-id order.
    pub message_types: Vec<String>,
    /// Each name's type id when not its place in `message_types` (see
    /// [`TopicSpec::with_types_as_023_numbers_them`]).
    pub(super) type_ids: Option<Vec<u16>>,
    /// Large messages (the format's next version, which 0.2.3 refuses to
    /// open): the largest payload a message may have, in bytes, 1 to
    /// [`MAX_MESSAGE_BYTES_LIMIT`](crate::limits::MAX_MESSAGE_BYTES_LIMIT);
    /// `None` (the default): one line of at most 4,096 bytes, as 0.2.3 writes.
    pub max_message_bytes: Option<u64>,
}

impl Default for TopicSpec {
    fn default() -> Self {
        TopicSpec { key_type: KeyType::U16, partitions: 1, message_types: Vec::new(), type_ids: None, max_message_bytes: None }
    }
}

impl TopicSpec {
    /// A topic of `partitions` partitions keyed by `key_type`, without message types.
    pub fn new(key_type: KeyType, partitions: u32) -> Self {
        TopicSpec { key_type, partitions, message_types: Vec::new(), type_ids: None, max_message_bytes: None }
    }

    /// The same, with large messages of up to `max_bytes` each (see
    /// [`TopicSpec::max_message_bytes`]; [`DEFAULT_MAX_MESSAGE_BYTES`](crate::limits::DEFAULT_MAX_MESSAGE_BYTES) is Kafka's 1 MiB).
    ///
    /// # Examples
    /// ```
    /// use twainmq::{Key, KeyType, StartFrom, Store, TopicSpec};
    /// let dir = tempfile::tempdir()?;
    /// let store = Store::open(dir.path())?;
    /// let spec = TopicSpec::new(KeyType::Any, 2).with_large_messages(twainmq::limits::DEFAULT_MAX_MESSAGE_BYTES);
    /// store.create_topic("kafka-like", &spec)?;
    /// let mut producer = store.producer("kafka-like")?;
    /// let big = vec![7u8; 300_000];
    /// producer.send_bytes(Key::Bytes(vec![0, 1]), &big)?;
    /// producer.send_text(Key::Null, "no key")?;
    /// let mut consumer = store.consumer("kafka-like", StartFrom::Start)?;
    /// let mut keys = Vec::new();
    /// while let Some(m) = consumer.poll()? {
    ///     keys.push(m.key);
    /// }
    /// keys.sort();
    /// assert_eq!(keys, [Key::Bytes(vec![0, 1]), Key::Null]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_large_messages(mut self, max_bytes: u64) -> Self {
        self.max_message_bytes = Some(max_bytes);
        self
    }
    /// The same, declaring these message type names (type ids 0, 1, ...).
    /// A name listed twice is refused when the topic is made.
    pub fn with_types<S: Into<String>>(mut self, types: impl IntoIterator<Item = S>) -> Self {
        self.message_types = types.into_iter().map(Into::into).collect();
        self.type_ids = None;
        self
    }
    /// The same, numbering the names as 0.2.3's `create_topic` does
    /// (`{name: i for i, name in enumerate(types)}`): a name listed more than
    /// once keeps its first place in the config and takes the id of its last
    /// place, so `["A", "B", "A"]` declares `A` as 2 and `B` as 1. The config
    /// is the one 0.2.3 writes for that list, byte for byte.
    pub fn with_types_as_023_numbers_them<S: Into<String>>(mut self, types: impl IntoIterator<Item = S>) -> Self {
        let (mut names, mut ids): (Vec<String>, Vec<u16>) = (Vec::new(), Vec::new());
        for (i, name) in types.into_iter().map(Into::into).enumerate() {
            // Past u16 the topic is refused when it is made (more than 65535 types).
            let id = u16::try_from(i).unwrap_or(u16::MAX);
            match names.iter().position(|n| *n == name) {
                Some(at) => ids[at] = id,
                None => {
                    names.push(name);
                    ids.push(id);
                }
            }
        }
        self.message_types = names;
        self.type_ids = Some(ids);
        self
    }
    /// Each declared name with its type id.
    pub(super) fn numbered_types(&self) -> Vec<(String, u16)> {
        match &self.type_ids {
            Some(ids) => self.message_types.iter().cloned().zip(ids.iter().copied()).collect(),
            None => self.message_types.iter().enumerate().map(|(i, n)| (n.clone(), u16::try_from(i).unwrap_or(u16::MAX))).collect(),
        }
    }
}
