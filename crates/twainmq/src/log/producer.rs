//! The producer: messages in, lines out. It picks each message's partition,
//! has `encode` make the lines and `append` write them.

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::format::config::TopicConfig;
use crate::format::key::Key;
use crate::format::line::MAX_LINE_BYTES;
use crate::format::partitioner::partition_for;
use crate::format::payload::{Outgoing, TypedMessage};
use crate::log::append::{Appender, Delivery};
use crate::log::clock::Clock;
use crate::log::dir::LogDir;
use crate::log::encode::{EncodeCtx, Encoders, LineKey, PayloadRef};
use crate::log::keys::KeyTable;

mod extended;
use extended::Large;

/// A custom partitioner: `(key, partitions) -> partition`.
pub type Partitioner = Box<dyn FnMut(&Key, u32) -> u32 + Send>;

/// Appends messages to a topic.
///
/// Each line goes out in a single `write` on a file opened with `O_APPEND`
/// (`FILE_APPEND_DATA` on Windows), so producers in other processes, 0.2.3's
/// included, never interleave inside a line. The file descriptor of each
/// partition's day file stays open until the UTC day changes.
///
/// The day rollover is an agreement between our producers (docs/FORMAT.md):
/// a new day's file, whose first offset is the previous file's line count, is
/// made only under an exclusive `flock` of that previous file (and of the
/// topic folder, which orders two makers); an append to a file within
/// [`ROLLOVER_GUARD_SECS`](crate::limits::ROLLOVER_GUARD_SECS) of the end of its day holds a shared lock on it and
/// first checks that no later file exists (joining it if one does). So no
/// line of ours lands in a file after the next file was counted, whatever the
/// producers' clocks say, as long as they are less than the guard apart.
///
/// A message is reported sent only once it is in the store: after each write
/// the file is checked to still be linked (not deleted with its topic); a
/// file deleted alone is replaced and the write made again, a deleted or
/// replaced topic is [`Error::TopicDeleted`].
pub struct Producer {
    appender: Appender,
    topic: String,
    config: TopicConfig,
    partitioner: Option<Partitioner>,
    clock: Arc<dyn Clock>,
    encoders: Encoders,
    exact: bool,
    line: Vec<u8>,
    /// Per-partition buffers reused by `send_batch`, one set per encoding thread.
    batch_bufs: Vec<Vec<u8>>,
    batch_bufs2: Vec<Vec<u8>>,
    batch_parts: Vec<u32>,
    /// Called after the first write of a new UTC day (retention), and the day of the last write.
    rollover_hook: Option<Box<dyn FnMut() + Send>>,
    last_day: Option<i64>,
    /// A topic with free keys: its key table, where each new key gets its id.
    keys: Option<KeyTable>,
    /// The partition the next message without a key goes to (they go round the partitions).
    next_null: u32,
    /// A topic with large messages: what sending one needs.
    large: Option<Large>,
    /// The topic is of the format's next version (free keys or large messages).
    extended: bool,
}

impl std::fmt::Debug for Producer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Producer").field("topic", &self.topic).finish_non_exhaustive()
    }
}

impl LogDir {
    /// A producer for a topic or group log (names not checked for being writable).
    pub(crate) fn producer(&self, topic: &str) -> Result<Producer> {
        Producer::open(self, topic)
    }
}

impl Producer {
    pub(crate) fn open(log: &LogDir, topic: &str) -> Result<Producer> {
        let config = log.topic_config(topic)?;
        let appender = Appender::open(log, topic, config.partitions)?;
        let keys = config.key_type.is_free().then(|| KeyTable::new(&log.topic_dir(topic)));
        let large = config.max_message_bytes.map(|_| Large { stream: Vec::new(), part: Vec::new(), line: Vec::new() });
        // Messages without a key start at a random partition, so producers do not all start at 0.
        let next_null = rand::random::<u32>() % config.partitions.max(1);
        Ok(Producer {
            keys,
            next_null,
            large,
            extended: config.is_extended(),
            appender,
            topic: topic.to_string(),
            config,
            partitioner: None,
            clock: log.clock(),
            encoders: Encoders::new(std::thread::available_parallelism().is_ok_and(|n| n.get() > 1)),
            exact: false,
            line: Vec::with_capacity(MAX_LINE_BYTES),
            batch_bufs: Vec::new(),
            batch_bufs2: Vec::new(),
            batch_parts: Vec::new(),
            rollover_hook: None,
            last_day: None,
        })
    }

    /// Encode large batches (512 messages or more) on two threads when the
    /// machine has a second core (the default); `false` keeps all work on the
    /// calling thread.
    pub fn with_parallel_batches(mut self, on: bool) -> Self {
        self.encoders.parallel = on && std::thread::available_parallelism().is_ok_and(|n| n.get() > 1);
        self
    }

    /// Replace 0.2.3's partitioner with `f(key, partitions)`.
    pub fn with_partitioner(mut self, f: impl FnMut(&Key, u32) -> u32 + Send + 'static) -> Self {
        self.partitioner = Some(Box::new(f));
        self
    }

    /// Call `hook` after the first write of each new UTC day (by this
    /// producer's clock) but the first day it writes on. The store sets none:
    /// writing never deletes anything (retention is applied only when asked).
    pub fn with_rollover_hook(mut self, hook: impl FnMut() + Send + 'static) -> Self {
        self.rollover_hook = Some(Box::new(hook));
        self
    }

    /// After a write stamped `now`: on a new day, the rollover hook.
    fn after_write(&mut self, now: i64) {
        // The UTC day's number (a division: a calendar date per send cost more than the write's bookkeeping).
        let day = now.div_euclid(86_400_000_000);
        if self.last_day.replace(day).is_some_and(|d| d != day) {
            if let Some(hook) = self.rollover_hook.as_mut() {
                hook();
            }
        }
    }

    /// The topic this producer writes to.
    pub fn topic(&self) -> &str {
        &self.topic
    }

    /// Record each message's byte position so [`Producer::resolve_offset`] can
    /// find its offset (one extra `lseek` per send).
    pub fn with_offsets(mut self, on: bool) -> Self {
        self.appender.locate = on;
        self
    }

    /// Write lines byte-identical to 0.2.3's (zlib level 6) instead of using
    /// the faster encoder. Both are read by every reader, 0.2.3's included.
    pub fn with_exact_bytes(mut self, exact: bool) -> Self {
        self.exact = exact;
        self.encoders.set_exact(exact);
        self
    }

    /// The topic's config as it was when the producer was opened.
    pub fn config(&self) -> &TopicConfig {
        &self.config
    }

    /// Send a text message.
    ///
    /// # Errors
    /// Key errors, [`Error::MessageTooLong`], I/O errors.
    pub fn send_text(&mut self, key: impl Into<Key>, text: &str) -> Result<Delivery> {
        self.send_ref(&key.into(), PayloadRef::Text(text))
    }

    /// Send a bytes message.
    ///
    /// # Errors
    /// Key errors, [`Error::MessageTooLong`], I/O errors.
    pub fn send_bytes(&mut self, key: impl Into<Key>, bytes: &[u8]) -> Result<Delivery> {
        self.send_ref(&key.into(), PayloadRef::Bytes(bytes))
    }

    /// Send a typed message under its `TYPE_NAME`, which the topic must declare.
    ///
    /// # Errors
    /// [`Error::UnknownMessageType`], [`Error::TypedEncode`], key and size errors.
    pub fn send_typed<T: TypedMessage>(&mut self, key: impl Into<Key>, msg: &T) -> Result<Delivery> {
        let out = Outgoing::typed(T::TYPE_NAME, msg).map_err(|cause| Error::TypedEncode { name: T::TYPE_NAME.to_string(), cause })?;
        self.send(&key.into(), &out)
    }

    /// Send any outgoing payload.
    ///
    /// # Errors
    /// Key, type, size and I/O errors; the store is unchanged on error.
    pub fn send(&mut self, key: &Key, payload: &Outgoing) -> Result<Delivery> {
        let payload = self.ctx().resolve(payload)?;
        self.send_ref(key, payload)
    }

    /// Check that `payload` under `key` would be sent (its key, its type, its
    /// line within [`MAX_LINE_BYTES`]) without writing anything; returns the
    /// partition it would go to.
    ///
    /// # Errors
    /// As [`Producer::send`] for the message itself; no I/O is done.
    pub fn check(&mut self, key: &Key, payload: &Outgoing) -> Result<u32> {
        let payload = self.ctx().resolve(payload)?;
        let now = self.clock.now_micros();
        if !self.config.is_extended() {
            return self.encode(LineKey::Key(key), key, payload, now);
        }
        let accepted = self.accept_key(key)?;
        self.ctx().check_size(payload)?;
        // A free key's id does not change a line's length: 0 stands for it (nothing is added to the table).
        let line_key = if self.config.key_type.is_free() { LineKey::Id(0) } else { LineKey::Key(&accepted) };
        let next_null = self.next_null;
        let encoded = self.encode(line_key, &accepted, payload, now);
        self.next_null = next_null;
        match encoded {
            Err(Error::MessageTooLong { .. }) if self.large.is_some() => Ok(self.partition_peek(&accepted)),
            other => other,
        }
    }

    /// The partition `key` goes to, without moving the round of keyless messages.
    fn partition_peek(&mut self, key: &Key) -> u32 {
        let next_null = self.next_null;
        let p = self.partition_of(key).unwrap_or(0);
        self.next_null = next_null;
        p
    }

    fn ctx(&self) -> EncodeCtx<'_> {
        EncodeCtx { topic: &self.topic, config: &self.config, exact: self.exact }
    }

    /// Parse `text` as a key of this topic's key type (digits for `uN`, the
    /// text itself for `charN`), checked to fit it.
    ///
    /// # Errors
    /// [`Error::KeyOutOfRange`], [`Error::KeyTooLong`], [`Error::KeyWrongKind`].
    pub fn parse_key(&self, text: &str) -> Result<Key> {
        let key = Key::parse(text, self.config.key_type).map_err(|e| self.ctx().key_error(&Key::Str(text.to_string()), e))?;
        self.accept_key(&key)
    }

    /// `key` as this topic takes it, checked: a `text` topic takes an integer
    /// as its decimal text, a `bytes` topic takes text as its UTF-8 bytes
    /// (see [`KeyType::accept`](crate::KeyType::accept)); other key types
    /// take a key that fits them, unchanged.
    ///
    /// # Errors
    /// [`Error::KeyOutOfRange`], [`Error::KeyTooLong`], [`Error::KeyWrongKind`].
    pub fn check_key(&self, key: Key) -> Result<Key> {
        self.accept_key(&key)
    }

    fn partition_of(&mut self, key: &Key) -> Result<u32> {
        let n = self.config.partitions;
        let p = match &mut self.partitioner {
            Some(f) => f(key, n),
            None if *key == Key::Null => {
                // Keyless messages go round the partitions, one after another.
                let p = self.next_null % n.max(1);
                self.next_null = (p + 1) % n.max(1);
                p
            }
            None => partition_for(key, n),
        };
        if p >= n {
            return Err(Error::BadPartitioner { topic: self.topic.clone(), partition: p, partitions: n });
        }
        Ok(p)
    }

    /// Encode the line for `payload` (its key as a line holds it, `line_key`),
    /// stamped `now`, into `self.line`, returning its partition.
    #[inline]
    fn encode(&mut self, line_key: LineKey<'_>, key: &Key, payload: PayloadRef<'_>, now: i64) -> Result<u32> {
        let partition = self.partition_of(key)?;
        let ctx = EncodeCtx { topic: &self.topic, config: &self.config, exact: self.exact };
        self.line.clear();
        self.encoders.enc.encode(&ctx, line_key, payload, now, &mut self.line)?;
        Ok(partition)
    }

    fn send_ref(&mut self, key: &Key, payload: PayloadRef<'_>) -> Result<Delivery> {
        if self.extended {
            return self.send_extended(key, payload);
        }
        let now = self.clock.now_micros();
        let partition = self.encode(LineKey::Key(key), key, payload, now)?;
        let line = std::mem::take(&mut self.line);
        let result = self.appender.append(partition, now, &line);
        self.line = line;
        if result.is_ok() {
            self.after_write(now);
        }
        result
    }

    /// Append `self.line`, encoded at `now`, to `partition`.
    fn write_line(&mut self, partition: u32, now: i64) -> Result<Delivery> {
        let line = std::mem::take(&mut self.line);
        let result = self.appender.append(partition, now, &line);
        self.line = line;
        if result.is_ok() {
            self.after_write(now);
        }
        result
    }

    /// Send many messages, appending each partition's lines with as few `write`s
    /// as possible (one per partition per 64 KiB). Each `write` holds whole
    /// lines, so concurrent readers and writers still see whole lines.
    /// Returns how many were sent. Nothing is written if any message is invalid.
    /// The messages of one batch share one timestamp: the time of the call.
    ///
    /// # Errors
    /// The first invalid message's error ([`Error::is_invalid_message`]): then
    /// nothing was written. Or an error while appending: then each partition
    /// holds a prefix, possibly empty, of the batch's lines for it.
    pub fn send_batch(&mut self, messages: &[(Key, Outgoing)]) -> Result<usize> {
        self.send_batch_stamped(messages, &[])
    }

    /// [`Producer::send_batch`] with each message's timestamp given (UNIX
    /// seconds, written as given: an import or copy keeping the original
    /// times). `stamps` is empty (every message stamped now) or as long as
    /// `messages`. The day file written to is still today's by this
    /// producer's clock, as 0.2.3 and the rollover agreement need: a file's
    /// day says when its lines were written, not what they are stamped.
    ///
    /// # Errors
    /// As [`Producer::send_batch`]; [`Error::BadTimestamp`] (nothing written)
    /// for a stamp that is not a finite number of seconds from 0 on, or when
    /// `stamps` is neither empty nor as long as `messages`.
    pub fn send_batch_stamped(&mut self, messages: &[(Key, Outgoing)], stamps: &[f64]) -> Result<usize> {
        if !stamps.is_empty() && stamps.len() != messages.len() {
            return Err(Error::BadTimestamp {
                topic: self.topic.clone(),
                timestamp: f64::NAN,
                problem: "one timestamp per message is needed",
            });
        }
        if let Some(&t) = stamps.iter().find(|t| !valid_stamp(**t)) {
            return Err(Error::BadTimestamp { topic: self.topic.clone(), timestamp: t, problem: VALID_STAMP });
        }
        if self.extended {
            return self.send_batch_extended(messages, stamps);
        }
        let now = self.clock.now_micros();
        self.appender.forget_batch();
        // Partitions first, here: a custom partitioner runs on this thread only.
        let mut parts = std::mem::take(&mut self.batch_parts);
        parts.clear();
        let chosen = messages.iter().try_for_each(|(key, _)| self.partition_of(key).map(|p| parts.push(p)));
        let n = self.config.partitions as usize;
        let mut bufs = std::mem::take(&mut self.batch_bufs);
        let mut bufs2 = std::mem::take(&mut self.batch_bufs2);
        for b in [&mut bufs, &mut bufs2] {
            b.resize_with(n, Vec::new);
            b.iter_mut().for_each(Vec::clear);
        }
        let result = chosen
            .and_then(|()| {
                let ctx = EncodeCtx { topic: &self.topic, config: &self.config, exact: self.exact };
                let dir = self.appender.dir();
                self.encoders.encode_batch(&ctx, &dir, (messages, &parts, stamps, &[]), now, (&mut bufs, &mut bufs2))
            })
            .and_then(|()| {
                for (b, b2) in bufs.iter_mut().zip(&bufs2) {
                    b.extend_from_slice(b2);
                }
                self.appender.append_batch(&bufs, now)
            });
        // Keep the buffers (and their capacity) for the next batch.
        self.batch_parts = parts;
        self.batch_bufs = bufs;
        self.batch_bufs2 = bufs2;
        if result.is_ok() {
            self.after_write(now);
        }
        result.map(|()| messages.len())
    }

    /// After [`Producer::send_batch`] failed while appending: how many of the
    /// batch's messages landed in each partition, by partition (each a prefix
    /// of the batch's messages for that partition, in batch order). All zero
    /// when it failed before anything was appended (a full disk where the
    /// file system reserves space first fails so).
    pub fn last_batch_landed(&self) -> Vec<u64> {
        let landed = self.appender.batch_landed();
        (0..self.config.partitions as usize).map(|p| landed.get(p).copied().unwrap_or(0)).collect()
    }

    /// The offset of a delivered message, found by counting the lines before it.
    /// Counting resumes where the last call stopped, so resolving every send
    /// only reads what other producers appended in between.
    ///
    /// # Errors
    /// [`Error::Io`]; an error too when the platform gave no byte position.
    pub fn resolve_offset(&mut self, d: &Delivery) -> Result<u64> {
        self.appender.resolve_offset(d)
    }

    /// Make sure every message sent so far is whole in the store: each open
    /// file is asked whether it is still in the store, and a message glued
    /// to another writer's torn line since the last check (see
    /// [`crate::Producer::send`]) is written again. Also done on drop.
    ///
    /// # Errors
    /// [`Error::TopicDeleted`] when a file turned out deleted with its topic
    /// (what was sent to it since the last check is not in the store);
    /// [`Error::Io`].
    pub fn flush(&mut self) -> Result<()> {
        self.appender.settle()
    }

    /// Close the open files, after [`Producer::flush`] (also done on drop).
    ///
    /// # Errors
    /// As [`Producer::flush`].
    pub fn close(mut self) -> Result<()> {
        self.appender.settle()
    }
}

/// What a kept timestamp must be.
const VALID_STAMP: &str = "a timestamp is a finite number of UNIX seconds from 0 (1970) to 253402300799 (the end of 9999)";

/// Whether `t` is a timestamp every reader (0.2.3's `datetime.fromtimestamp` included) can show.
pub(crate) fn valid_stamp(t: f64) -> bool {
    t.is_finite() && (0.0..=253_402_300_799.0).contains(&t)
}
