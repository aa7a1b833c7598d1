//! Producer: one O_APPEND `write` per line on a descriptor kept open, daily UTC files.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use crate::clock::{micros_to_unix, Clock};
use crate::config::TopicConfig;
use crate::error::{Error, Result};
use crate::files::{self, Day, PartitionFile};
use crate::key::{Key, KeyError, KeyType};
use crate::line::{Codec, MAX_LINE_BYTES};
use crate::partitioner::partition_for;
use crate::payload::{Outgoing, TypedMessage};
use crate::store::Store;

/// How long a file must have been still before an unfinished last line is
/// taken for a crash's torn tail rather than a write in progress.
const TORN_QUIET: std::time::Duration = std::time::Duration::from_secs(1);

/// The byte at `pos`, read through `r`. A read can come back short while
/// other processes append (seen on ntfs-3g: the size is known before the
/// bytes can be read), so a short read is retried for up to a second before
/// it counts as an error; `None` when the file is shorter than `pos + 1`.
fn byte_at_retrying(r: &File, pos: u64) -> std::io::Result<Option<u8>> {
    let mut b = [0u8; 1];
    let started = Instant::now();
    let mut pause = std::time::Duration::from_micros(100);
    loop {
        match read_at(r, &mut b, pos) {
            Ok(1) => return Ok(Some(b[0])),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
        if r.metadata()?.len() <= pos {
            return Ok(None);
        }
        if started.elapsed() >= std::time::Duration::from_secs(1) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!("byte {pos} stayed unreadable for a second although the file is longer"),
            ));
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(std::time::Duration::from_millis(20));
    }
}

#[cfg(unix)]
fn read_at(f: &File, buf: &mut [u8], pos: u64) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(f, buf, pos)
}

#[cfg(windows)]
fn read_at(f: &File, buf: &mut [u8], pos: u64) -> std::io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(f, buf, pos)
}

/// If the file ends inside a line left by a crashed writer, end that line, so
/// that our next message is not glued to it (and lost with it). Readers skip
/// the terminated fragment as a damaged line. Best effort: when the tail
/// cannot be read, the check after each write still catches a glued line.
fn terminate_torn_tail(file: &mut File, path: &Path) -> Result<()> {
    let last_byte = |path: &Path| -> Result<Option<(u64, u8)>> {
        let r = match crate::files::open_regular(path, false) {
            Ok(r) => r,
            Err(Error::Io { cause, .. }) if cause.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let len = r.metadata().map_err(|e| Error::io("read", path, e))?.len();
        if len == 0 {
            return Ok(None);
        }
        match byte_at_retrying(&r, len - 1) {
            Ok(b) => Ok(b.map(|b| (len, b))),
            Err(e) => {
                tracing::debug!(file = %path.display(), error = %e, "the file's last byte could not be read; the check after the write covers a torn tail");
                Ok(None)
            }
        }
    };
    let Some((len, b)) = last_byte(path)? else { return Ok(()) };
    if b == b'\n' {
        return Ok(());
    }
    // A write in progress finishes within microseconds; a torn tail stays. Wait for quiet.
    let started = std::time::Instant::now();
    loop {
        let age = std::fs::metadata(path).and_then(|m| m.modified()).ok().and_then(|m| m.elapsed().ok());
        if age.is_none_or(|a| a >= TORN_QUIET) || started.elapsed() >= TORN_QUIET * 2 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    match last_byte(path)? {
        Some((now_len, b)) if now_len == len && b != b'\n' => {
            tracing::warn!(file = %path.display(), "the file ends inside a line torn by a crash; ending that line so new messages are not lost with it");
            file.write_all(b"\n").map_err(|e| Error::io("append to", path, e))
        }
        _ => Ok(()),
    }
}

/// A payload borrowed for encoding, with its type resolved to an id.
#[derive(Clone, Copy)]
enum PayloadRef<'a> {
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
struct EncodeCtx<'a> {
    topic: &'a str,
    config: &'a TopicConfig,
    exact: bool,
}

impl EncodeCtx<'_> {
    fn resolve<'a>(&self, payload: &'a Outgoing) -> Result<PayloadRef<'a>> {
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

    fn key_error(&self, key: &Key, e: KeyError) -> Error {
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
struct LineEncoder {
    codec: Codec,
    raw: Vec<u8>,
}

impl LineEncoder {
    /// Append the line for `payload` to `out`; on error `out` is left as it was.
    fn encode(&mut self, ctx: &EncodeCtx<'_>, key: &Key, payload: PayloadRef<'_>, now: i64, out: &mut Vec<u8>) -> Result<()> {
        let raw: &[u8] = match payload {
            PayloadRef::Text(s) => s.as_bytes(),
            PayloadRef::Bytes(b) => {
                self.raw.clear();
                self.raw.push(crate::payload::BYTES_MAGIC);
                self.raw.extend_from_slice(b);
                &self.raw
            }
            PayloadRef::Typed { type_id, json } => {
                self.raw.clear();
                self.raw.push(crate::payload::TYPED_MAGIC);
                self.raw.extend_from_slice(&type_id.to_be_bytes());
                self.raw.extend_from_slice(json.as_bytes());
                &self.raw
            }
        };
        let start = out.len();
        let key_type: KeyType = ctx.config.key_type;
        let ts = micros_to_unix(now);
        if let Err(e) = self.codec.encode_line(key_type, key, ts, raw, out) {
            out.truncate(start);
            return Err(ctx.key_error(key, e));
        }
        if out.len() - start > MAX_LINE_BYTES && !self.codec.is_exact() {
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

    /// Encode each message onto its partition's buffer.
    fn encode_all(
        &mut self,
        ctx: &EncodeCtx<'_>,
        messages: &[(Key, Outgoing)],
        parts: &[u32],
        now: i64,
        bufs: &mut [Vec<u8>],
    ) -> Result<()> {
        for ((key, out), &p) in messages.iter().zip(parts) {
            let payload = ctx.resolve(out)?;
            self.encode(ctx, key, payload, now, &mut bufs[p as usize])?;
        }
        Ok(())
    }
}

/// A custom partitioner: `(key, partitions) -> partition`.
pub type Partitioner = Box<dyn FnMut(&Key, u32) -> u32 + Send>;

const MICROS_PER_DAY: i64 = 86_400_000_000;

/// Where a message landed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    pub partition: u32,
    /// The file it was appended to.
    pub path: Arc<Path>,
    /// Offset of that file's first line.
    pub file_first: u64,
    /// Byte position of the line in the file, with [`Producer::with_offsets`].
    pub byte_pos: Option<u64>,
}

struct ActiveFile {
    first: u64,
    /// The day in the file's name.
    day: Day,
    path: Arc<Path>,
    file: File,
    /// Lines counted in `[0, counted_pos)`, for resolving offsets incrementally.
    counted_pos: u64,
    counted_lines: u64,
    /// Where our last write ended: when the next one starts there, the byte
    /// before it is our own newline and needs no check.
    our_end: Option<u64>,
    /// For reading the byte before a write (opened on first need).
    reader: Option<File>,
    /// The topic folder's modification time when we last listed it and found
    /// no newer file, and when that listing was made: while the time is the
    /// same (and the listing came well after it), no file was added since.
    dir_seen: Option<(std::time::SystemTime, std::time::SystemTime)>,
    /// When the file's lines were last counted ahead of a rollover.
    precounted: Option<Instant>,
    /// From this time (UNIX micros) appends hold the rollover lock: the end of
    /// the file's day less [`ROLLOVER_GUARD_SECS`].
    guard_from: i64,
}

impl ActiveFile {
    fn byte_at(&mut self, pos: u64) -> std::io::Result<u8> {
        if self.reader.is_none() {
            self.reader = Some(crate::files::open_regular(&self.path, false).map_err(std::io::Error::other)?);
        }
        let r = self.reader.as_ref().ok_or_else(|| std::io::Error::other("no reader"))?;
        byte_at_retrying(r, pos)?
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::UnexpectedEof, format!("the file is shorter than {pos} bytes")))
    }
}

/// How long before the end of the day its file is named for a producer takes
/// the rollover lock around each append (see [`Producer`]): our producers
/// whose clocks are apart by less than this never give an offset twice.
pub const ROLLOVER_GUARD_SECS: i64 = 30;

/// How often a file near its rollover is counted ahead.
const PRECOUNT_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// A topic folder listing is trusted to be current from its modification time
/// only this long after that time (coarse timestamps on some file systems).
const DIR_MTIME_SLACK: std::time::Duration = std::time::Duration::from_secs(3);

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
/// [`ROLLOVER_GUARD_SECS`] of the end of its day holds a shared lock on it and
/// first checks that no later file exists (joining it if one does). So no
/// line of ours lands in a file after the next file was counted, whatever the
/// producers' clocks say, as long as they are less than the guard apart.
///
/// A message is reported sent only once it is in the store: after each write
/// the file is checked to still be linked (not deleted with its topic); a
/// file deleted alone is replaced and the write made again, a deleted or
/// replaced topic is [`Error::TopicDeleted`].
pub struct Producer {
    store: Store,
    topic: String,
    config: TopicConfig,
    partitioner: Option<Partitioner>,
    active: Vec<Option<ActiveFile>>,
    clock: Arc<dyn Clock>,
    /// Micros range of the day the active files belong to.
    day_range: (i64, i64),
    enc: LineEncoder,
    /// The second thread's encoder for large batches (kept for its buffers).
    enc2: LineEncoder,
    /// Encode large batches on two threads.
    parallel: bool,
    /// Large batches still to encode on one thread after the second thread
    /// was found waiting for a core, and the next such pause (doubling).
    parallel_skip: u32,
    parallel_backoff: u32,
    exact: bool,
    locate: bool,
    /// The topic's folder and config when the producer was opened: a topic
    /// deleted and made again has others (0.2.3 rewrites a config it left
    /// behind in place, but makes a new folder), and then nothing more is
    /// written for the old one.
    incarnation: Option<crate::store::TopicIncarnation>,
    /// On a network file system: lock each append (O_APPEND alone is not atomic there).
    lock_appends: bool,
    line: Vec<u8>,
    /// Per-partition buffers reused by `send_batch`, one set per encoding thread.
    batch_bufs: Vec<Vec<u8>>,
    batch_bufs2: Vec<Vec<u8>>,
    batch_parts: Vec<u32>,
}

impl std::fmt::Debug for Producer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Producer").field("topic", &self.topic).finish_non_exhaustive()
    }
}

impl Producer {
    pub(crate) fn open(store: &Store, topic: &str) -> Result<Producer> {
        let incarnation = store.topic_incarnation(topic)?;
        let config = TopicConfig::load(topic, &store.config_path(topic))?;
        let dir = store.topic_dir(topic);
        if std::fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(Error::SymlinkRefused { path: dir });
        }
        if !dir.is_dir() {
            return Err(Error::TopicNotFound { topic: topic.to_string(), path: dir });
        }
        Ok(Producer {
            store: store.clone(),
            topic: topic.to_string(),
            active: (0..config.partitions).map(|_| None).collect(),
            config,
            partitioner: None,
            clock: store.clock(),
            day_range: (0, 0),
            enc: LineEncoder::default(),
            enc2: LineEncoder::default(),
            parallel: std::thread::available_parallelism().is_ok_and(|n| n.get() > 1),
            parallel_skip: 0,
            parallel_backoff: PARALLEL_BACKOFF_START,
            exact: false,
            locate: false,
            incarnation,
            lock_appends: {
                let kind = crate::fsinfo::filesystem_kind(&dir);
                if let crate::fsinfo::FsKind::Network(name) = kind {
                    tracing::warn!(topic, fs = name, "the store is on a network file system, where O_APPEND is not atomic between machines: appends are locked; 0.2.3 writers do not lock, so do not run them on other machines at the same time");
                }
                kind.is_network()
            },
            line: Vec::with_capacity(MAX_LINE_BYTES),
            batch_bufs: Vec::new(),
            batch_bufs2: Vec::new(),
            batch_parts: Vec::new(),
        })
    }

    /// Encode large batches (512 messages or more) on two threads when the
    /// machine has a second core (the default); `false` keeps all work on the
    /// calling thread.
    pub fn with_parallel_batches(mut self, on: bool) -> Self {
        self.parallel = on && std::thread::available_parallelism().is_ok_and(|n| n.get() > 1);
        self
    }

    /// Replace 0.2.3's partitioner with `f(key, partitions)`.
    pub fn with_partitioner(mut self, f: impl FnMut(&Key, u32) -> u32 + Send + 'static) -> Self {
        self.partitioner = Some(Box::new(f));
        self
    }

    pub fn topic(&self) -> &str {
        &self.topic
    }

    /// Record each message's byte position so [`Producer::resolve_offset`] can
    /// find its offset (one extra `lseek` per send).
    pub fn with_offsets(mut self, on: bool) -> Self {
        self.locate = on;
        self
    }

    /// Write lines byte-identical to 0.2.3's (zlib level 6) instead of using
    /// the faster encoder. Both are read by every reader, 0.2.3's included.
    pub fn with_exact_bytes(mut self, exact: bool) -> Self {
        self.exact = exact;
        self.enc.codec.set_exact(exact);
        self.enc2.codec.set_exact(exact);
        self
    }

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

    fn ctx(&self) -> EncodeCtx<'_> {
        EncodeCtx { topic: &self.topic, config: &self.config, exact: self.exact }
    }

    pub fn parse_key(&self, text: &str) -> Result<Key> {
        let key = Key::parse(text, self.config.key_type).map_err(|e| self.ctx().key_error(&Key::Str(text.to_string()), e))?;
        let mut scratch = Vec::new();
        self.config.key_type.encode_into(&key, &mut scratch).map_err(|e| self.ctx().key_error(&key, e))?;
        Ok(key)
    }

    fn partition_of(&mut self, key: &Key) -> Result<u32> {
        let n = self.config.partitions;
        let p = match &mut self.partitioner {
            Some(f) => f(key, n),
            None => partition_for(key, n),
        };
        if p >= n {
            return Err(Error::BadPartitioner { topic: self.topic.clone(), partition: p, partitions: n });
        }
        Ok(p)
    }

    /// Encode the line for `payload`, stamped `now`, into `self.line`, returning its partition.
    fn encode(&mut self, key: &Key, payload: PayloadRef<'_>, now: i64) -> Result<u32> {
        let partition = self.partition_of(key)?;
        let ctx = EncodeCtx { topic: &self.topic, config: &self.config, exact: self.exact };
        self.line.clear();
        self.enc.encode(&ctx, key, payload, now, &mut self.line)?;
        Ok(partition)
    }

    fn send_ref(&mut self, key: &Key, payload: PayloadRef<'_>) -> Result<Delivery> {
        let now = self.clock.now_micros();
        let partition = self.encode(key, payload, now)?;
        let line = std::mem::take(&mut self.line);
        let result = self.append(partition, now, &line);
        self.line = line;
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
        let now = self.clock.now_micros();
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
        let result = chosen.and_then(|()| self.encode_batch(messages, &parts, now, &mut bufs, &mut bufs2)).and_then(|()| {
            for (b, b2) in bufs.iter_mut().zip(&bufs2) {
                b.extend_from_slice(b2);
            }
            self.append_batch(&bufs, now)
        });
        // Keep the buffers (and their capacity) for the next batch.
        self.batch_parts = parts;
        self.batch_bufs = bufs;
        self.batch_bufs2 = bufs2;
        result.map(|()| messages.len())
    }

    /// Encode `messages` into per-partition buffers: the first half into `bufs`
    /// and, for a large batch on a machine with a second core, the second half
    /// on another thread into `bufs2` (each partition's lines stay in order
    /// when `bufs2[p]` follows `bufs[p]`).
    fn encode_batch(
        &mut self,
        messages: &[(Key, Outgoing)],
        parts: &[u32],
        now: i64,
        bufs: &mut [Vec<u8>],
        bufs2: &mut [Vec<u8>],
    ) -> Result<()> {
        const PARALLEL_MIN: usize = 512;
        let ctx = EncodeCtx { topic: &self.topic, config: &self.config, exact: self.exact };
        let large = messages.len() >= PARALLEL_MIN;
        let parallel = self.parallel && large && self.parallel_skip == 0;
        if large && self.parallel_skip > 0 {
            self.parallel_skip -= 1;
        }
        let mid = if parallel { messages.len() / 2 } else { messages.len() };
        let ((msgs_a, msgs_b), (parts_a, parts_b)) = (messages.split_at(mid), parts.split_at(mid));
        if msgs_b.is_empty() {
            return self.enc.encode_all(&ctx, msgs_a, parts_a, now, bufs);
        }
        let (enc, enc2) = (&mut self.enc, &mut self.enc2);
        let Some(pool) = encode_pool() else {
            return enc.encode_all(&ctx, msgs_a, parts_a, now, bufs).and_then(|()| enc.encode_all(&ctx, msgs_b, parts_b, now, bufs));
        };
        let started = Instant::now();
        let mut mine_done = started;
        let mut theirs = None;
        let mine = pool.in_place_scope(|s| {
            s.spawn(|_| {
                let work = std::panic::AssertUnwindSafe(|| enc2.encode_all(&ctx, msgs_b, parts_b, now, bufs2));
                theirs = Some(std::panic::catch_unwind(work));
            });
            let mine = enc.encode_all(&ctx, msgs_a, parts_a, now, bufs);
            mine_done = Instant::now();
            mine
        });
        // The first error in message order wins.
        let result = mine.and(match theirs {
            Some(Ok(r)) => r,
            _ => {
                Err(Error::io("encode a batch for", self.store.topic_dir(ctx.topic), std::io::Error::other("the encoding thread panicked")))
            }
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

    fn append_batch(&mut self, per_partition: &[Vec<u8>], now: i64) -> Result<()> {
        const CHUNK: usize = 64 << 10;
        for (p, buf) in per_partition.iter().enumerate() {
            let mut start = 0;
            while start < buf.len() {
                // Cut at the last newline within CHUNK so every write is whole lines.
                let limit = (start + CHUNK).min(buf.len());
                let end =
                    if limit == buf.len() { limit } else { memchr::memrchr(b'\n', &buf[start..limit]).map_or(limit, |i| start + i + 1) };
                self.append(p as u32, now, &buf[start..end])?;
                start = end;
            }
        }
        Ok(())
    }

    fn append(&mut self, partition: u32, now: i64, bytes: &[u8]) -> Result<Delivery> {
        if now < self.day_range.0 || now >= self.day_range.1 {
            // A new UTC day: every partition moves to a new file on its next write.
            let day_start = now.div_euclid(MICROS_PER_DAY) * MICROS_PER_DAY;
            self.day_range = (day_start, day_start + MICROS_PER_DAY);
            for a in &mut self.active {
                *a = None;
            }
        }
        let p = partition as usize;
        // Each pass either writes, or moves to a file that replaces the active
        // one (a later file appeared, or the file was deleted alone); a few
        // passes at most, unless files keep vanishing under us.
        for _ in 0..16 {
            if self.active[p].is_none() {
                self.active[p] = Some(self.open_active(partition, Day::from_unix_micros(now))?);
            }
            let Some(active) = self.active[p].as_mut() else { continue };
            // Near the end of the file's day, another producer (its clock ahead)
            // may be about to start the next file: hold the file's rollover lock
            // (shared between appenders, exclusive for the one making the next
            // file) and make sure no later file exists before writing here. On a
            // network file system every append is locked, exclusively.
            let near_rollover = now >= active.guard_from;
            let guarded = self.lock_appends || near_rollover;
            let mode = if self.lock_appends { crate::flock::Mode::Exclusive } else { crate::flock::Mode::Shared };
            let held = if guarded {
                Some(crate::flock::lock(&active.file, mode).map_err(|e| Error::io("lock", active.path.to_path_buf(), e))?)
            } else {
                None
            };
            if near_rollover && active.precounted.is_none_or(|t| t.elapsed() >= PRECOUNT_EVERY) {
                // Whoever starts the next file counts this one under the rollover
                // locks, stalling our appenders meanwhile: keep the shared index
                // counted ahead (incrementally), so that count reads a second's
                // appends at most. Best effort: a failure here only costs time later.
                active.precounted = Some(Instant::now());
                let _ = self.store.index().count(&active.path);
            }
            let key = (active.day, active.first);
            if near_rollover
                && newer_file_exists(&self.store.topic_dir(&self.topic), partition, key, &mut active.dir_seen, self.lock_appends)?
            {
                drop(held);
                // Join the later file: open_active picks the partition's newest.
                self.active[p] = None;
                continue;
            }
            let written = loop {
                match (&active.file).write(bytes) {
                    Ok(n) => break Ok(n),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => break Err(Error::io("append to", active.path.to_path_buf(), e)),
                }
            };
            drop(held);
            let written = match written {
                Ok(n) => n,
                Err(e) => {
                    active.our_end = None;
                    return Err(e);
                }
            };
            if written != bytes.len() {
                // Half a line is on disk: the next write checks for it and ends it first.
                active.our_end = None;
                return Err(Error::ShortWrite { path: active.path.to_path_buf(), written, len: bytes.len() });
            }
            // One fstat tells both whether the file is still in the store (its link
            // count) and, in the common case, where our write ended: when the size
            // is exactly our previous end plus this write, nobody wrote before or
            // after us, so the line starts at our previous end (our own newline
            // precedes it) and no lseek or glue check is needed. It takes the
            // place of the lseek every write paid before.
            let (linked, size) = crate::files::link_and_size(&active.file);
            if !linked {
                // The file is gone from the store (deleted with its topic, or alone):
                // what we wrote is not in the store.
                let path = active.path.to_path_buf();
                self.active[p] = None;
                self.check_topic_is_ours(&path)?;
                tracing::warn!(file = %path.display(), "the partition file was deleted while the topic stayed: writing to a new file");
                continue;
            }
            let len = bytes.len() as u64;
            let (mut start, mut end) = match (active.our_end, size) {
                (Some(e), Some(size)) if e.checked_add(len) == Some(size) => (e, size),
                _ => {
                    // With O_APPEND the descriptor's position is the end of our write.
                    let end = active.file.stream_position().map_err(|e| Error::io("locate a write in", active.path.to_path_buf(), e))?;
                    (end.saturating_sub(len), end)
                }
            };
            if start > 0 && active.our_end != Some(start) {
                // Someone else wrote in between (or this is our first write): if they
                // left a torn line, ours was glued to it, and our newline ended that
                // line. Write ours again, now on a line of its own; readers skip the
                // glued line as damaged.
                if active.byte_at(start - 1).map_err(|e| Error::io("read", active.path.to_path_buf(), e))? != b'\n' {
                    tracing::warn!(file = %active.path.display(), "a message landed after a line torn by another writer; writing it again on a line of its own");
                    active.file.write_all(bytes).map_err(|e| Error::io("append to", active.path.to_path_buf(), e))?;
                    end = active.file.stream_position().map_err(|e| Error::io("locate a write in", active.path.to_path_buf(), e))?;
                    start = end.saturating_sub(bytes.len() as u64);
                }
            }
            active.our_end = Some(end);
            let byte_pos = if self.locate { Some(start) } else { None };
            return Ok(Delivery { partition, path: active.path.clone(), file_first: active.first, byte_pos });
        }
        Err(Error::io(
            "append to",
            self.store.topic_dir(&self.topic),
            std::io::Error::other("the partition's files kept being deleted or replaced while writing"),
        ))
    }

    /// Fail with [`Error::TopicDeleted`] unless the topic's folder and config
    /// are those this producer was opened with (it was deleted, or deleted and
    /// made again, possibly with another partition count).
    fn check_topic_is_ours(&self, path: &Path) -> Result<()> {
        let now = self.store.topic_incarnation(&self.topic)?;
        if now.is_none() || now != self.incarnation || !self.store.topic_dir(&self.topic).is_dir() {
            return Err(Error::TopicDeleted { topic: self.topic.clone(), path: path.to_path_buf() });
        }
        Ok(())
    }

    /// The file of `partition` to append to on `day` (by our clock): the
    /// partition's file of a later day if there is one (another producer's clock
    /// is ahead: appending there keeps offsets in file order), else today's, else
    /// a new one, made under the rollover locks.
    fn open_active(&self, partition: u32, day: Day) -> Result<ActiveFile> {
        let dir = self.store.topic_dir(&self.topic);
        self.check_topic_is_ours(&dir)?;
        let files = files::list_partition(&dir, partition)?;
        if let Some((path, first, fday)) = self.pick_existing(&files, partition, day) {
            return self.open_file(path, first, fday);
        }
        // Make the file. Two of our producers making files for this partition
        // take turns on the folder's lock; the one that makes it counts the
        // previous file under that file's exclusive lock, so no append of ours
        // lands there once it is counted (appenders near a rollover hold it shared).
        // Count the previous file first, unlocked: under the locks only what was
        // appended since is read (the locks stall our appenders, the count of a
        // big file does not have to).
        if let Some(prev) = files.iter().max_by_key(|f| (f.day, f.first)) {
            self.store.index().count(&prev.path)?;
        }
        // (Folders are opened and locked like files on Unix only; elsewhere flock is a no-op anyway.)
        #[cfg(unix)]
        let _dir_lock = {
            let handle = std::fs::File::open(&dir).map_err(|e| Error::io("open", &dir, e))?;
            crate::flock::lock_owned(handle, crate::flock::Mode::Exclusive).map_err(|e| Error::io("lock", &dir, e))?
        };
        let files = files::list_partition(&dir, partition)?;
        if let Some((path, first, fday)) = self.pick_existing(&files, partition, day) {
            return self.open_file(path, first, fday);
        }
        // 0.2.3 starts the new file after the latest one's lines, counting a torn last line.
        let (first, _prev_lock) = match files.iter().max_by_key(|f| (f.day, f.first)) {
            Some(prev) => {
                let handle = crate::files::open_regular(&prev.path, false)?;
                let held =
                    crate::flock::lock_owned(handle, crate::flock::Mode::Exclusive).map_err(|e| Error::io("lock", prev.path.clone(), e))?;
                let lines = self.store.index().count(&prev.path)?.python_lines();
                let first = prev.first.checked_add(lines).filter(|f| *f <= files::MAX_FIRST_OFFSET).ok_or_else(|| {
                    Error::io(
                        "start a new file after",
                        prev.path.clone(),
                        std::io::Error::other("its first offset plus its lines is out of range: the file name is damaged"),
                    )
                })?;
                (first, Some(held))
            }
            None => (0, None),
        };
        let path = dir.join(PartitionFile::file_name(partition, day, first));
        self.open_file(path, first, day)
    }

    /// The existing file to append to, as [`Producer::open_active`] decides.
    fn pick_existing(&self, files: &[PartitionFile], partition: u32, day: Day) -> Option<(PathBuf, u64, Day)> {
        let last = files.iter().max_by_key(|f| (f.day, f.first))?;
        if last.day > day {
            tracing::warn!(topic = %self.topic, partition, file = %last.path.display(), today = %day, "the partition's newest file is dated after today (clock skew?); appending to it");
            return Some((last.path.clone(), last.first, last.day));
        }
        let today: Vec<&PartitionFile> = files.iter().filter(|f| f.day == day).collect();
        if today.len() > 1 {
            tracing::warn!(topic = %self.topic, partition, day = %day, "several files for one day (a rollover race); appending to the one read last");
        }
        today.last().map(|f| (f.path.clone(), f.first, f.day))
    }

    fn open_file(&self, path: PathBuf, first: u64, day: Day) -> Result<ActiveFile> {
        let day_end =
            day.date().and_then(|d| d.succ_opt()).and_then(|d| d.and_hms_opt(0, 0, 0)).map_or(i64::MAX, |t| t.and_utc().timestamp_micros());
        let mut file = crate::files::open_regular(&path, true)?;
        terminate_torn_tail(&mut file, &path)?;
        Ok(ActiveFile {
            first,
            day,
            path: path.into(),
            file,
            counted_pos: 0,
            counted_lines: 0,
            our_end: None,
            reader: None,
            dir_seen: None,
            precounted: None,
            guard_from: day_end.saturating_sub(ROLLOVER_GUARD_SECS * 1_000_000),
        })
    }

    /// The offset of a delivered message, found by counting the lines before it.
    /// Counting resumes where the last call stopped, so resolving every send
    /// only reads what other producers appended in between.
    ///
    /// # Errors
    /// [`Error::Io`]; an error too when the platform gave no byte position.
    pub fn resolve_offset(&mut self, d: &Delivery) -> Result<u64> {
        let Some(pos) = d.byte_pos else {
            return Err(Error::io(
                "locate the message in",
                d.path.to_path_buf(),
                std::io::Error::other("no position was recorded: open the producer with_offsets(true)"),
            ));
        };
        let reuse = self.active.get_mut(d.partition as usize).and_then(|a| a.as_mut()).filter(|a| a.path == d.path && a.counted_pos <= pos);
        let (mut counted_pos, mut counted_lines) = reuse.as_ref().map_or((0, 0), |a| (a.counted_pos, a.counted_lines));
        let mut f = crate::files::open_regular(&d.path, false)?;
        f.seek(SeekFrom::Start(counted_pos)).map_err(|e| Error::io("read", d.path.to_path_buf(), e))?;
        let mut buf = vec![0u8; 1 << 16];
        while counted_pos < pos {
            // Holes of a sparse file hold no newline: skip them, never read gigabytes of zeros.
            let data = crate::files::next_data(&f, counted_pos).unwrap_or(pos).min(pos);
            if data > counted_pos {
                counted_pos = data;
                f.seek(SeekFrom::Start(counted_pos)).map_err(|e| Error::io("read", d.path.to_path_buf(), e))?;
                continue;
            }
            f.seek(SeekFrom::Start(counted_pos)).map_err(|e| Error::io("read", d.path.to_path_buf(), e))?;
            let want = ((pos - counted_pos) as usize).min(buf.len());
            let n = f.read(&mut buf[..want]).map_err(|e| Error::io("read", d.path.to_path_buf(), e))?;
            if n == 0 {
                break;
            }
            counted_lines += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
            counted_pos += n as u64;
        }
        if let Some(a) = self.active.get_mut(d.partition as usize).and_then(|a| a.as_mut()).filter(|a| a.path == d.path) {
            a.counted_pos = counted_pos;
            a.counted_lines = counted_lines;
        }
        Ok(d.file_first + counted_lines)
    }

    /// Close the open files (also done on drop).
    pub fn close(self) {}
}

/// Whether `partition` has a file after `active` in reading order. Listing the
/// folder is skipped while its modification time shows nothing was added since
/// the last listing (trusted only on a local file system, and only for a
/// listing made well after that time).
fn newer_file_exists(
    dir: &Path,
    partition: u32,
    key: (Day, u64),
    dir_seen: &mut Option<(std::time::SystemTime, std::time::SystemTime)>,
    network: bool,
) -> Result<bool> {
    let mtime = std::fs::metadata(dir).and_then(|m| m.modified()).ok();
    if let (false, Some(m), Some((seen, listed_at))) = (network, mtime, *dir_seen) {
        if m == seen && listed_at.duration_since(m).is_ok_and(|d| d >= DIR_MTIME_SLACK) {
            return Ok(false);
        }
    }
    let listed_at = std::time::SystemTime::now();
    // The same order as `pick_existing`'s choice of the newest file.
    let newer = files::list_partition(dir, partition)?.iter().any(|f| (f.day, f.first) > key);
    *dir_seen = if newer { None } else { mtime.map(|m| (m, listed_at)) };
    Ok(newer)
}
