//! Encoding messages into lines: the key, timestamp and payload of each as
//! 0.2.3 writes them, checked against the topic's config and the line limit;
//! large batches split over two threads, with a back-off when the second
//! thread waits for a core. No I/O: the appender writes what this makes.

use std::time::Instant;

use crate::error::{Error, Result};
use crate::format::config::TopicConfig;
use crate::format::key::{Key, KeyError, KeyType};
use crate::format::line::{Codec, MAX_LINE_BYTES};
use crate::format::payload::Outgoing;
use crate::log::clock::micros_to_unix;

/// A line's key: a key of the topic's (fixed) key type, or the key-table id
/// of a free key (written as a `u64`, 10 characters).
#[derive(Clone, Copy)]
pub(crate) enum LineKey<'a> {
    Key(&'a Key),
    Id(u64),
}

/// A payload borrowed for encoding, with its type resolved to an id.
#[derive(Clone, Copy)]
pub(crate) enum PayloadRef<'a> {
    Text(&'a str),
    Bytes(&'a [u8]),
    Typed { type_id: u16, json: &'a str },
}

/// Large batches encoded on one thread after the second thread was late (doubling up to the max).
/// The helper threads that encode the second half of large batches, shared by
/// every producer in the process and started on first use: a thread kept
/// waiting costs a wake-up per batch, where a new one cost 60-90 µs to start.
/// None where no thread can be had; batches are then encoded on the caller's.
fn encode_pool() -> Option<&'static rayon_core::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon_core::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        let helpers = std::thread::available_parallelism().map_or(1, |n| n.get().saturating_sub(1).max(1));
        rayon_core::ThreadPoolBuilder::new()
            .num_threads(helpers)
            .thread_name(|i| format!("twainmq-encode-{i}"))
            .build()
            .map_err(|e| tracing::warn!(error = %e, "no helper thread for encoding batches: one thread encodes them"))
            .ok()
    })
    .as_ref()
}

const PARALLEL_BACKOFF_START: u32 = 4;
const PARALLEL_BACKOFF_MAX: u32 = 1024;

/// What encoding a line needs from its producer; shared by the batch threads.
pub(crate) struct EncodeCtx<'a> {
    pub(crate) topic: &'a str,
    pub(crate) config: &'a TopicConfig,
    pub(crate) exact: bool,
}

impl EncodeCtx<'_> {
    /// The raw payload's length as the topic's size limit counts it (the
    /// text's UTF-8, the bytes, a typed message's JSON).
    pub(crate) fn check_size(&self, payload: PayloadRef<'_>) -> Result<()> {
        let Some(max) = self.config.max_message_bytes else { return Ok(()) };
        let len = match payload {
            PayloadRef::Text(s) => s.len(),
            PayloadRef::Bytes(b) => b.len(),
            PayloadRef::Typed { json, .. } => json.len(),
        };
        if len as u64 > max {
            return Err(Error::MessageTooLarge { topic: self.topic.to_string(), len: len as u64, max });
        }
        Ok(())
    }

    pub(crate) fn resolve<'a>(&self, payload: &'a Outgoing) -> Result<PayloadRef<'a>> {
        Ok(match payload {
            Outgoing::Text(s) => PayloadRef::Text(s),
            Outgoing::Bytes(b) => PayloadRef::Bytes(b),
            Outgoing::Typed { class, json } => {
                let type_id = self.config.type_id(class).ok_or_else(|| Error::UnknownMessageType {
                    topic: self.topic.to_string(),
                    name: class.clone(),
                    known: self.config.message_types.iter().map(|(n, _)| n.clone()).collect(),
                })?;
                PayloadRef::Typed { type_id, json }
            }
        })
    }

    pub(crate) fn key_error(&self, key: &Key, e: KeyError) -> Error {
        let (topic, key_type, key_s) = (self.topic.to_string(), self.config.key_type, key.to_string());
        match e {
            KeyError::OutOfRange { max } => Error::KeyOutOfRange { topic, key: key_s, key_type, max },
            KeyError::TooLong { bytes, max } => Error::KeyTooLong { topic, key: key_s, key_type, bytes, max },
            KeyError::WrongKind { reason } => Error::KeyWrongKind { topic, key: key_s, key_type, reason },
        }
    }
}

/// A codec and its scratch space: one per encoding thread.
#[derive(Default)]
pub(crate) struct LineEncoder {
    pub(crate) codec: Codec,
    raw: Vec<u8>,
}

impl LineEncoder {
    /// Append the line for `payload`, stamped `now` (UNIX micros), to `out`;
    /// on error `out` is left as it was.
    pub(crate) fn encode(
        &mut self,
        ctx: &EncodeCtx<'_>,
        key: LineKey<'_>,
        payload: PayloadRef<'_>,
        now: i64,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        self.encode_at(ctx, key, payload, micros_to_unix(now), out)
    }

    /// The raw payload bytes of `payload` (text as is, bytes after 0xFC,
    /// typed after 0xFB and its id), in this encoder's scratch space.
    pub(crate) fn raw<'a>(&'a mut self, payload: PayloadRef<'a>) -> &'a [u8] {
        match payload {
            PayloadRef::Text(s) => s.as_bytes(),
            PayloadRef::Bytes(b) => {
                self.raw.clear();
                self.raw.push(crate::format::payload::BYTES_MAGIC);
                self.raw.extend_from_slice(b);
                &self.raw
            }
            PayloadRef::Typed { type_id, json } => {
                self.raw.clear();
                self.raw.push(crate::format::payload::TYPED_MAGIC);
                self.raw.extend_from_slice(&type_id.to_be_bytes());
                self.raw.extend_from_slice(json.as_bytes());
                &self.raw
            }
        }
    }

    /// As [`LineEncoder::encode`], stamped `ts` (UNIX seconds, written as given).
    pub(crate) fn encode_at(
        &mut self,
        ctx: &EncodeCtx<'_>,
        key: LineKey<'_>,
        payload: PayloadRef<'_>,
        ts: f64,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let id_key;
        let (key, key_type): (&Key, KeyType) = match key {
            LineKey::Key(k) => (k, ctx.config.key_type),
            LineKey::Id(id) => {
                id_key = Key::Int(id);
                (&id_key, KeyType::U64)
            }
        };
        let raw: &[u8] = match payload {
            PayloadRef::Text(s) => s.as_bytes(),
            PayloadRef::Bytes(b) => {
                self.raw.clear();
                self.raw.push(crate::format::payload::BYTES_MAGIC);
                self.raw.extend_from_slice(b);
                &self.raw
            }
            PayloadRef::Typed { type_id, json } => {
                self.raw.clear();
                self.raw.push(crate::format::payload::TYPED_MAGIC);
                self.raw.extend_from_slice(&type_id.to_be_bytes());
                self.raw.extend_from_slice(json.as_bytes());
                &self.raw
            }
        };
        let start = out.len();
        if let Err(e) = self.codec.encode_line(key_type, key, ts, raw, out) {
            out.truncate(start);
            return Err(ctx.key_error(key, e));
        }
        // (A topic of the format's next version sends a line that does not fit as
        // a large message instead, and 0.2.3 writes nothing to it.)
        if out.len() - start > MAX_LINE_BYTES && !self.codec.is_exact() && !ctx.config.is_extended() {
            // The fast encoder compresses less than zlib: whatever 0.2.3 can write, we write too.
            out.truncate(start);
            self.codec.set_exact(true);
            let r = self.codec.encode_line(key_type, key, ts, raw, out);
            self.codec.set_exact(ctx.exact);
            if let Err(e) = r {
                out.truncate(start);
                return Err(ctx.key_error(key, e));
            }
        }
        let len = out.len() - start;
        if len > MAX_LINE_BYTES {
            out.truncate(start);
            return Err(Error::MessageTooLong { topic: ctx.topic.to_string(), len, max: MAX_LINE_BYTES });
        }
        Ok(())
    }

    /// Encode each message onto its partition's buffer, stamped with its
    /// entry of `stamps` (UNIX seconds), or `now` when `stamps` is empty; a
    /// topic with free keys gives each message's key-table id in `ids`.
    pub(crate) fn encode_all(
        &mut self,
        ctx: &EncodeCtx<'_>,
        (messages, parts, stamps, ids): Batch<'_>,
        now: i64,
        bufs: &mut [Vec<u8>],
    ) -> Result<()> {
        let now = micros_to_unix(now);
        for (i, ((key, out), &p)) in messages.iter().zip(parts).enumerate() {
            let payload = ctx.resolve(out)?;
            let ts = stamps.get(i).copied().unwrap_or(now);
            let key = ids.get(i).map_or(LineKey::Key(key), |id| LineKey::Id(*id));
            self.encode_at(ctx, key, payload, ts, &mut bufs[p as usize])?;
        }
        Ok(())
    }
}

/// A batch to encode: the messages, their partitions, their timestamps (or
/// none: now) and their key-table ids (or none: the topic's keys are fixed).
pub(crate) type Batch<'a> = (&'a [(Key, Outgoing)], &'a [u32], &'a [f64], &'a [u64]);

/// The encoders of one producer: one for its thread, one for the helper that
/// takes the second half of a large batch, and when to use the helper.
#[derive(Default)]
pub(crate) struct Encoders {
    pub(crate) enc: LineEncoder,
    /// The second thread's encoder for large batches (kept for its buffers).
    pub(crate) enc2: LineEncoder,
    /// Encode large batches on two threads.
    pub(crate) parallel: bool,
    /// Large batches still to encode on one thread after the second thread
    /// was found waiting for a core, and the next such pause (doubling).
    parallel_skip: u32,
    parallel_backoff: u32,
}

impl Encoders {
    pub(crate) fn new(parallel: bool) -> Encoders {
        Encoders { parallel, parallel_backoff: PARALLEL_BACKOFF_START, ..Encoders::default() }
    }

    pub(crate) fn set_exact(&mut self, exact: bool) {
        self.enc.codec.set_exact(exact);
        self.enc2.codec.set_exact(exact);
    }

    /// Encode `messages` (whose partitions are `parts`, and timestamps
    /// `stamps`, or `now` when it is empty) into per-partition
    /// buffers: the first half into `bufs.0` and, for a large batch on a
    /// machine with a second core, the second half on another thread into
    /// `bufs.1` (each partition's lines stay in order when `bufs.1[p]` follows
    /// `bufs.0[p]`). `dir` (the topic's folder) names the failure of a helper
    /// thread that panicked.
    pub(crate) fn encode_batch(
        &mut self,
        ctx: &EncodeCtx<'_>,
        dir: &std::path::Path,
        (messages, parts, stamps, ids): Batch<'_>,
        now: i64,
        (bufs, bufs2): (&mut [Vec<u8>], &mut [Vec<u8>]),
    ) -> Result<()> {
        const PARALLEL_MIN: usize = 512;
        let large = messages.len() >= PARALLEL_MIN;
        let parallel = self.parallel && large && self.parallel_skip == 0;
        if large && self.parallel_skip > 0 {
            self.parallel_skip -= 1;
        }
        let mid = if parallel { messages.len() / 2 } else { messages.len() };
        let ((msgs_a, msgs_b), (parts_a, parts_b)) = (messages.split_at(mid), parts.split_at(mid));
        let (stamps_a, stamps_b) = stamps.split_at(mid.min(stamps.len()));
        let (ids_a, ids_b) = ids.split_at(mid.min(ids.len()));
        let (a, b) = ((msgs_a, parts_a, stamps_a, ids_a), (msgs_b, parts_b, stamps_b, ids_b));
        if msgs_b.is_empty() {
            return self.enc.encode_all(ctx, a, now, bufs);
        }
        let (enc, enc2) = (&mut self.enc, &mut self.enc2);
        let Some(pool) = encode_pool() else {
            return enc.encode_all(ctx, a, now, bufs).and_then(|()| enc.encode_all(ctx, b, now, bufs));
        };
        let started = Instant::now();
        let mut mine_done = started;
        let mut theirs = None;
        let mine = pool.in_place_scope(|s| {
            s.spawn(|_| {
                let work = std::panic::AssertUnwindSafe(|| enc2.encode_all(ctx, b, now, bufs2));
                theirs = Some(std::panic::catch_unwind(work));
            });
            let mine = enc.encode_all(ctx, a, now, bufs);
            mine_done = Instant::now();
            mine
        });
        // The first error in message order wins.
        let result = mine.and(match theirs {
            Some(Ok(r)) => r,
            _ => Err(Error::io("encode a batch for", dir, std::io::Error::other("the encoding thread panicked"))),
        });
        // Handing half to the helper costs two wake-ups (microseconds), and on a
        // busy machine it may wait for a core while this one waits for it. Two halves
        // on one thread take about twice this one's work: when waiting made the
        // split no faster than that, encode the next batches here, for a stretch
        // that doubles while it keeps happening.
        let (work, waited) = (mine_done - started, mine_done.elapsed());
        if waited > work * 3 / 4 {
            self.parallel_skip = self.parallel_backoff;
            self.parallel_backoff = (self.parallel_backoff * 2).min(PARALLEL_BACKOFF_MAX);
        } else {
            self.parallel_backoff = PARALLEL_BACKOFF_START;
        }
        result
    }
}
