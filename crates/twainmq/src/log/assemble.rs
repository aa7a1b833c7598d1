//! Putting large messages together (docs/FORMAT.md, Part 3), for a reader of
//! one partition. A message is delivered at its end part, whose line's offset
//! is the message's: from the end, each part names the one before it (its
//! file and byte), so the message is found whole however far back it began
//! and whatever other lines came between its parts, and a reader keeps no
//! state for messages still being written. Parts read on the way forward are
//! kept (within a byte budget) so the walk back usually reads nothing again;
//! a message that never ends costs only its place in that budget.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::path::PathBuf;

use crate::error::Result;
use crate::format::key::KeyType;
use crate::format::line::{Codec, MAX_LINE_BYTES, TS_CHARS};
use crate::format::multipart::{self, Part, PartAt, StartInfo};
use crate::log::files::PartitionFile;

/// Started messages remembered for `twainmq check` (oldest forgotten first).
const MAX_OPEN: usize = 1 << 16;
/// Files kept open for walks back.
const MAX_HANDLES: usize = 8;

/// A started message not (yet) ended: where its start part is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unfinished {
    pub(crate) offset: u64,
    pub(crate) path: PathBuf,
    pub(crate) line: u64,
    /// How many parts it has.
    pub(crate) parts: u32,
}

#[derive(Debug)]
pub(crate) struct Assembler {
    /// The topic's largest payload.
    max_payload: u64,
    /// Parts read forward, by place, oldest first in `order`, within `budget` bytes.
    cache: HashMap<PartAt, Part>,
    order: VecDeque<PartAt>,
    cached: usize,
    budget: usize,
    /// Started messages, by id, in the order they started.
    open: HashMap<u64, Unfinished>,
    open_order: VecDeque<u64>,
    /// Files opened on walks back, by (day, first).
    handles: HashMap<(u32, u64), (File, PathBuf)>,
}

/// The bytes a deflated stream of a payload of at most `n` bytes can take
/// (stored blocks at worst: 5 bytes of header per 65,535).
fn stream_bound(n: u64) -> u64 {
    n + 3 + 5 * (n / 65_535 + 1) + 64
}

impl Assembler {
    pub(crate) fn new(max_payload: u64) -> Assembler {
        Assembler {
            max_payload,
            cache: HashMap::new(),
            order: VecDeque::new(),
            cached: 0,
            // Two of the largest messages in flight, and a few MiB for small topics.
            budget: usize::try_from(stream_bound(max_payload).saturating_mul(2)).unwrap_or(usize::MAX).max(4 << 20),
            open: HashMap::new(),
            open_order: VecDeque::new(),
            handles: HashMap::new(),
        }
    }

    /// A start or middle part read on the way forward.
    pub(crate) fn note(&mut self, at: PartAt, part: Part, offset: u64, path: &std::path::Path, line: u64) {
        if let Some(info) = part.start {
            if self.open.len() >= MAX_OPEN {
                if let Some(old) = self.open_order.pop_front() {
                    self.open.remove(&old);
                }
            }
            if self.open.insert(part.id, Unfinished { offset, path: path.to_path_buf(), line, parts: info.parts }).is_none() {
                self.open_order.push_back(part.id);
            }
        }
        self.cached += part.chunk.len() + 64;
        if self.cache.insert(at, part).is_none() {
            self.order.push_back(at);
        }
        while self.cached > self.budget {
            let Some(old) = self.order.pop_front() else { break };
            if let Some(p) = self.cache.remove(&old) {
                self.cached = self.cached.saturating_sub(p.chunk.len() + 64);
            }
        }
    }

    /// Messages started and not ended, in the order they started.
    pub(crate) fn unfinished(&self) -> Vec<Unfinished> {
        self.open_order.iter().filter_map(|id| self.open.get(id).cloned()).collect()
    }

    /// The raw payload (a text, bytes or typed payload as a line holds one)
    /// of the message whose end part is `end`, read at `end_at` with key
    /// characters `key_chars`; `files` are the partition's files.
    ///
    /// # Errors
    /// Outer: I/O errors. Inner: why the message cannot be put together.
    pub(crate) fn assemble(
        &mut self,
        end: Part,
        key_chars: &[u8],
        files: &[PartitionFile],
        codec: &mut Codec,
        key_type: KeyType,
    ) -> Result<std::result::Result<Vec<u8>, String>> {
        let id = end.id;
        self.open.remove(&id);
        let bound = stream_bound(self.max_payload);
        let last = end.index;
        let mut chunks: Vec<Vec<u8>> = Vec::with_capacity(usize::try_from(last).unwrap_or(0).min(1 << 16) + 1);
        let mut total = end.chunk.len() as u64;
        let mut prev = end.prev;
        let mut index = end.index;
        chunks.push(end.chunk);
        let start: StartInfo = loop {
            let Some(at) = prev else { return Ok(Err(format!("part {index} names no part before it"))) };
            let part = match self.cache.remove(&at) {
                Some(p) => {
                    self.cached = self.cached.saturating_sub(p.chunk.len() + 64);
                    p
                }
                None => match self.read_part(at, key_chars, files, codec, key_type)? {
                    Ok(p) => p,
                    Err(why) => return Ok(Err(format!("part {} of {} is not where part {index} says it is: {why}", index - 1, last + 1))),
                },
            };
            if part.id != id || part.index + 1 != index {
                return Ok(Err(format!("part {index} names a line holding part {} of another message as the part before it", part.index)));
            }
            total += part.chunk.len() as u64;
            if total > bound {
                return Ok(Err(format!("its parts hold more than a message of the topic's largest size ({} bytes)", self.max_payload)));
            }
            index = part.index;
            prev = part.prev;
            let info = part.start;
            chunks.push(part.chunk);
            if let Some(info) = info {
                break info;
            }
        };
        if start.parts != last + 1 {
            return Ok(Err(format!("its start says {} parts, its end is part {}", start.parts, last + 1)));
        }
        // The limit counts the payload's own bytes; the raw payload has its kind's marker
        // too (0xFC, or 0xFB and a type id: at most 3 bytes).
        if start.payload_len > self.max_payload + 3 {
            return Ok(Err(format!("it says it is {} bytes, over the topic's limit of {}", start.payload_len, self.max_payload)));
        }
        if start.stream_len != total {
            return Ok(Err(format!("its parts hold {total} bytes of {} it says it has", start.stream_len)));
        }
        let mut stream = Vec::with_capacity(usize::try_from(total).unwrap_or(0));
        for c in chunks.iter().rev() {
            stream.extend_from_slice(c);
        }
        drop(chunks);
        let payload = match inflate_exact(&stream, start.payload_len) {
            Ok(p) => p,
            Err(why) => return Ok(Err(why)),
        };
        if multipart::Kind::of(&payload) != start.kind {
            return Ok(Err("its payload is not of the kind its start part says".into()));
        }
        Ok(Ok(payload))
    }

    /// The part whose line starts at `at`, read from its file.
    fn read_part(
        &mut self,
        at: PartAt,
        key_chars: &[u8],
        files: &[PartitionFile],
        codec: &mut Codec,
        key_type: KeyType,
    ) -> Result<std::result::Result<Part, String>> {
        let key = (at.day, at.first);
        if !self.handles.contains_key(&key) && self.handles.len() >= MAX_HANDLES {
            // A message spans a file or two: old handles go (and with them what
            // they keep of files retention deleted).
            self.handles.clear();
        }
        if let std::collections::hash_map::Entry::Vacant(slot) = self.handles.entry(key) {
            let Some(f) = files.iter().find(|f| f.day.0 == at.day && f.first == at.first) else {
                return Ok(Err(format!("the partition has no file of day {} starting at offset {} (deleted?)", at.day, at.first)));
            };
            match crate::sys::open::open_regular(&f.path, false) {
                Ok(h) => {
                    slot.insert((h, f.path.clone()));
                }
                Err(crate::error::Error::Io { cause, .. }) if cause.kind() == std::io::ErrorKind::NotFound => {
                    return Ok(Err(format!("its file {} is gone", f.path.display())))
                }
                Err(e) => return Err(e),
            }
        }
        let Some((h, path)) = self.handles.get(&key) else { return Ok(Err("its file could not be opened".into())) };
        let from = at.pos.saturating_sub(1);
        let mut buf = vec![0u8; MAX_LINE_BYTES + 1];
        let mut got = 0;
        while got < buf.len() {
            let n =
                crate::sys::open::read_at(h, &mut buf[got..], from + got as u64).map_err(|e| crate::error::Error::io("read", path, e))?;
            if n == 0 {
                break;
            }
            got += n;
        }
        let lead = usize::from(at.pos > 0);
        if at.pos > 0 && buf.first() != Some(&b'\n') {
            return Ok(Err(format!("no line starts at byte {}", at.pos)));
        }
        let data = &buf[lead.min(got)..got];
        let Some(nl) = memchr::memchr(b'\n', data) else { return Ok(Err(format!("no whole line at byte {}", at.pos))) };
        let line = &data[..nl];
        if !line.starts_with(key_chars) {
            return Ok(Err("the line there has another key".into()));
        }
        if line.len() < key_chars.len() + TS_CHARS {
            return Ok(Err("the line there is too short".into()));
        }
        match codec.decode_raw(key_type, line) {
            Ok((_, _, raw)) => Ok(multipart::parse(raw)),
            Err(c) => Ok(Err(c.to_string())),
        }
    }
}

/// Inflate a raw deflate `stream` to exactly `len` bytes.
fn inflate_exact(stream: &[u8], len: u64) -> std::result::Result<Vec<u8>, String> {
    let cap = usize::try_from(len).map_err(|_| "its size does not fit memory".to_string())?;
    // One byte of room past the length: a stream that inflates to more is caught.
    let mut out = vec![0u8; cap + 1];
    let (done, rc) = zlib_rs::decompress_slice(&mut out, stream, zlib_rs::InflateConfig { window_bits: -15 });
    let n = done.len();
    match rc {
        zlib_rs::ReturnCode::Ok if n == cap => {
            out.truncate(cap);
            Ok(out)
        }
        zlib_rs::ReturnCode::Ok => Err(format!("its stream inflates to {n} bytes, not the {len} its start part says")),
        zlib_rs::ReturnCode::BufError if n > cap => Err(format!("its stream inflates to more than the {len} bytes its start part says")),
        zlib_rs::ReturnCode::BufError => Err("its stream ends early".into()),
        other => Err(format!("its stream is not valid deflate ({other:?})")),
    }
}
