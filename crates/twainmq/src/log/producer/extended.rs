//! Sending on a topic of the format's next version: keys checked by a free key
//! type's rules and given their ids in the key table, and messages too large for
//! one line sent as the parts of a large message, deflated whole.

#[allow(clippy::wildcard_imports)]
use super::*;

/// Deflate level of a large message's stream (zlib's fastest: the stream is
/// deflated once, whole, so its ratio is already far better than per line).
pub(super) const LARGE_LEVEL: i32 = 1;

/// Scratch space of a producer of large messages.
pub(super) struct Large {
    pub(super) stream: Vec<u8>,
    pub(super) part: Vec<u8>,
    pub(super) line: Vec<u8>,
}

impl Producer {
    /// [`Producer::send_ref`] on a topic of the format's next version: the
    /// key checked (and a free one given its id, in the key table before any
    /// line names it), then one line, or the parts of a large message.
    #[cold]
    #[inline(never)]
    pub(super) fn send_extended(&mut self, key: &Key, payload: PayloadRef<'_>) -> Result<Delivery> {
        let now = self.clock.now_micros();
        let accepted = self.accept_key(key)?;
        self.ctx().check_size(payload)?;
        let line_key = self.line_key(&accepted)?;
        let partition = self.partition_of(&accepted)?;
        let raw_len = match payload {
            PayloadRef::Text(s) => s.len(),
            PayloadRef::Bytes(b) => b.len() + 1,
            PayloadRef::Typed { json, .. } => json.len() + 3,
        };
        if self.large.is_none() || raw_len <= crate::format::deflate::MAX_INPUT {
            self.line.clear();
            let ctx = EncodeCtx { topic: &self.topic, config: &self.config, exact: self.exact };
            match self.encoders.enc.encode(&ctx, line_key, payload, now, &mut self.line) {
                Ok(()) => return self.write_line(partition, now),
                Err(Error::MessageTooLong { .. }) if self.large.is_some() => {}
                Err(e) => return Err(e),
            }
        }
        let ts = crate::log::clock::micros_to_unix(now);
        self.send_large(partition, line_key, ts, payload)
    }
}

impl Producer {
    /// `key` checked for this topic's key type (a free key type's rules).
    pub(super) fn accept_key(&self, key: &Key) -> Result<Key> {
        let kt = self.config.key_type;
        let accepted = kt.accept(key.clone()).map_err(|e| self.ctx().key_error(key, e))?;
        if !kt.is_free() {
            let mut scratch = Vec::new();
            kt.encode_into(&accepted, &mut scratch).map_err(|e| self.ctx().key_error(&accepted, e))?;
        }
        Ok(accepted)
    }

    /// What a line holds for `key` (checked): itself, or its key-table id
    /// (added to the table if new).
    pub(super) fn line_key<'k>(&mut self, key: &'k Key) -> Result<LineKey<'k>> {
        match self.keys.as_mut() {
            Some(table) => table.id_of(key).map(LineKey::Id),
            None => Ok(LineKey::Key(key)),
        }
    }

    /// Send a message too large for one line as the parts of a large message
    /// (or as one line when its stream, deflated whole, fits one), each part
    /// one `write` of a whole line; returns where the end part landed.
    pub(super) fn send_large(&mut self, partition: u32, key: LineKey<'_>, ts: f64, payload: PayloadRef<'_>) -> Result<Delivery> {
        use crate::format::multipart::{self, Kind, PartAt, StartInfo};
        let Some(mut large) = self.large.take() else {
            return Err(Error::MessageTooLong { topic: self.topic.clone(), len: 0, max: MAX_LINE_BYTES });
        };
        let raw = self.encoders.enc.raw(payload);
        deflate_whole(raw, &mut large.stream);
        let kind = Kind::of(raw);
        let payload_len = raw.len() as u64;
        // The key's characters, shared by every part.
        let mut key_chars = Vec::with_capacity(16);
        match key {
            LineKey::Key(k) => self.config.key_type.encode_into(k, &mut key_chars).map_err(|e| self.ctx().key_error(k, e))?,
            LineKey::Id(id) => crate::format::b85::encode_into(&id.to_be_bytes(), &mut key_chars),
        }
        let codec = &mut self.encoders.enc.codec;
        let result = (|| {
            if key_chars.len() + crate::format::line::TS_CHARS + crate::format::b85::encoded_len(large.stream.len()) < MAX_LINE_BYTES {
                // Deflated whole it fits one line after all: a plain line.
                large.line.clear();
                large.line.extend_from_slice(&key_chars);
                crate::format::line::encode_timestamp(ts, &mut large.line);
                crate::format::b85::encode_into(&large.stream, &mut large.line);
                large.line.push(b'\n');
                let now = self.clock.now_micros();
                return self.appender.append(partition, now, &large.line);
            }
            let cuts = multipart::cut(large.stream.len(), key_chars.len());
            let parts =
                u32::try_from(cuts.len()).map_err(|_| Error::MessageTooLarge { topic: self.topic.clone(), len: payload_len, max: 0 })?;
            let info = StartInfo { parts, stream_len: large.stream.len() as u64, payload_len, kind };
            let id: u64 = rand::random();
            // Every part's place is needed by the next: each write is located.
            let locate = std::mem::replace(&mut self.appender.locate, true);
            let mut prev: Option<PartAt> = None;
            let mut at = 0;
            let mut last = None;
            for (i, n) in cuts.iter().enumerate() {
                let chunk = &large.stream[at..at + n];
                at += n;
                let index = u32::try_from(i).unwrap_or(u32::MAX);
                match prev {
                    None => multipart::start_payload(id, &info, chunk, &mut large.part),
                    Some(p) => multipart::link_payload(id, index, p, i + 1 == cuts.len(), chunk, &mut large.part),
                }
                large.line.clear();
                codec.encode_stored_line(&key_chars, ts, &large.part, &mut large.line);
                let now = self.clock.now_micros();
                let d = match self.appender.append(partition, now, &large.line) {
                    Ok(d) => d,
                    Err(e) => {
                        self.appender.locate = locate;
                        return Err(e);
                    }
                };
                let pos = d.byte_pos.ok_or_else(|| {
                    Error::io("locate a part in", d.path.to_path_buf(), std::io::Error::other("no position was recorded"))
                })?;
                let day = d
                    .path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .and_then(crate::log::files::PartitionFile::parse_name)
                    .map_or(0, |(_, day, _)| day.0);
                prev = Some(PartAt { day, first: d.file_first, pos });
                last = Some(d);
            }
            self.appender.locate = locate;
            let mut d = last
                .ok_or_else(|| Error::io("send a large message to", self.appender.dir(), std::io::Error::other("no part was written")))?;
            if !locate {
                d.byte_pos = None;
            }
            Ok(d)
        })();
        self.large = Some(large);
        if result.is_ok() {
            self.after_write(self.clock.now_micros());
        }
        result
    }
}

impl Producer {
    /// [`Producer::send_batch_stamped`] for a topic of the format's next
    /// version: every message checked first (nothing written if one is
    /// invalid; new free keys are then added to the key table, where an entry
    /// no line names is harmless), then sent in order, whole lines per
    /// `write`, a large message's parts between.
    pub(super) fn send_batch_extended(&mut self, messages: &[(Key, Outgoing)], stamps: &[f64]) -> Result<usize> {
        let now = self.clock.now_micros();
        let mut accepted = Vec::with_capacity(messages.len());
        let mut large_ones = Vec::new();
        for (key, out) in messages {
            accepted.push(self.accept_key(key)?);
            let payload = self.ctx().resolve(out)?;
            self.ctx().check_size(payload)?;
            let raw_len = match payload {
                PayloadRef::Text(s) => s.len(),
                PayloadRef::Bytes(b) => b.len() + 1,
                PayloadRef::Typed { json, .. } => json.len() + 3,
            };
            large_ones.push(self.large.is_some() && raw_len > crate::format::deflate::MAX_INPUT);
        }
        let ids: Vec<u64> = match self.keys.as_mut() {
            Some(table) => accepted.iter().map(|k| table.id_of(k)).collect::<Result<_>>()?,
            None => Vec::new(),
        };
        let parts: Vec<u32> = accepted.iter().map(|k| self.partition_of(k)).collect::<Result<_>>()?;
        let n = self.config.partitions as usize;
        let mut bufs = std::mem::take(&mut self.batch_bufs);
        bufs.resize_with(n, Vec::new);
        bufs.iter_mut().for_each(Vec::clear);
        let result = (|| {
            let secs = crate::log::clock::micros_to_unix(now);
            for (i, (_, out)) in messages.iter().enumerate() {
                let line_key = ids.get(i).map_or(LineKey::Key(&accepted[i]), |id| LineKey::Id(*id));
                let payload = self.ctx().resolve(out)?;
                let ts = stamps.get(i).copied().unwrap_or(secs);
                let p = parts[i];
                if !large_ones[i] {
                    let ctx = EncodeCtx { topic: &self.topic, config: &self.config, exact: self.exact };
                    match self.encoders.enc.encode_at(&ctx, line_key, payload, ts, &mut bufs[p as usize]) {
                        Ok(()) => continue,
                        Err(Error::MessageTooLong { .. }) if self.large.is_some() => {}
                        Err(e) => return Err(e),
                    }
                }
                // Those before it go first, so each partition keeps the batch's order.
                self.appender.append_batch(&bufs, now)?;
                bufs.iter_mut().for_each(Vec::clear);
                self.send_large(p, line_key, ts, payload)?;
            }
            self.appender.append_batch(&bufs, now)
        })();
        self.batch_bufs = bufs;
        if result.is_ok() {
            self.after_write(now);
        }
        result.map(|()| messages.len())
    }
}

/// `raw` deflated whole (raw deflate, [`LARGE_LEVEL`]) into `out`; stored
/// blocks when deflating does not make it smaller (data compressed already).
pub(super) fn deflate_whole(raw: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.resize(zlib_rs::compress_bound(raw.len()), 0);
    let config = zlib_rs::DeflateConfig { level: LARGE_LEVEL, window_bits: -15, ..zlib_rs::DeflateConfig::default() };
    let (done, rc) = zlib_rs::compress_slice(out, raw, config);
    let n = done.len();
    if rc == zlib_rs::ReturnCode::Ok && n < raw.len() {
        out.truncate(n);
        return;
    }
    // zlib fails only on misuse, never on data; and stored blocks are always right.
    crate::format::deflate::stored(raw, out);
}
