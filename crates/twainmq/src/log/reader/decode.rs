//! Lines into messages: one line decoded (names of typed messages from the
//! topic's types), a large message's parts put together, and a free key's id
//! replaced by its key from the key table.

#[allow(clippy::wildcard_imports)]
use super::*;

/// Decode one line into a message of `partition` (names of typed messages from `types`).
pub(super) fn decode(
    codec: &mut Codec,
    key_type: KeyType,
    types: &[(String, u16)],
    topic: &Arc<str>,
    partition: u32,
    offset: u64,
    line: &[u8],
) -> std::result::Result<Message, Corrupt> {
    let rec = codec.decode_line(key_type, line)?;
    let payload = match rec.payload {
        Payload::Typed(mut t) => {
            t.class = types.iter().find(|(_, i)| *i == t.type_id).map(|(n, _)| n.clone());
            Payload::Typed(t)
        }
        p => p,
    };
    Ok(Message { topic: topic.clone(), partition, offset, key: rec.key, timestamp: rec.timestamp, payload })
}

/// The message of a large message's end `line` whose payload, put
/// together, is `raw` (its key and time are the end line's).
#[allow(clippy::too_many_arguments)]
pub(super) fn decode_assembled(
    codec: &mut Codec,
    key_type: KeyType,
    types: &[(String, u16)],
    topic: &Arc<str>,
    partition: u32,
    offset: u64,
    line: &[u8],
    raw: Vec<u8>,
) -> std::result::Result<Message, Corrupt> {
    let (key, timestamp, _) = codec.decode_raw(key_type, line)?;
    let payload = match crate::format::line::decode_payload_owned(raw)? {
        Payload::Typed(mut t) => {
            t.class = types.iter().find(|(_, i)| *i == t.type_id).map(|(n, _)| n.clone());
            Payload::Typed(t)
        }
        p => p,
    };
    Ok(Message { topic: topic.clone(), partition, offset, key, timestamp, payload })
}

/// A message of a topic with free keys, its key id (what its line holds)
/// replaced by its key.
pub(super) fn resolve_key(keys: &mut KeyTable, mut m: Message) -> Result<std::result::Result<Message, Corrupt>> {
    let crate::format::key::Key::Int(id) = m.key else { return Ok(Ok(m)) };
    Ok(match keys.key_of(id)? {
        Ok(k) => {
            m.key = k;
            Ok(m)
        }
        Err(reason) => Err(Corrupt::UnknownKey { id, reason }),
    })
}

/// What a line of a topic with large messages is, to the reader.
pub(super) enum PartLine {
    /// Not a part: a message of one line.
    No,
    /// A start or middle part, kept; or an end part the scan declined.
    Kept,
    /// An end part: its message, whole.
    Message(Message),
}

impl PartitionReader {
    /// A message of a topic with free keys, its key id (what its line holds)
    /// replaced by its key; a key the table does not hold makes the line damaged.
    #[cold]
    #[inline(never)]
    pub(super) fn with_key(&mut self, m: Message, line_no: u64) -> Result<Scanned> {
        let offset = m.offset;
        let resolved = match self.keys.as_mut() {
            Some(keys) => resolve_key(keys, m)?,
            None => Ok(m),
        };
        match resolved {
            Ok(m) => Ok(Scanned::Message(m)),
            Err(problem) => match self.cur.as_ref() {
                Some(cur) => Err(self.corrupt(cur, offset, line_no, problem)),
                None => Ok(Scanned::End),
            },
        }
    }

    /// The line `buf[s..e]` of the cursor (offset `offset`, line `line_no`) of
    /// a topic with large messages, if it is a part: a start or middle part is
    /// kept for later (it is no message, and a consumer never sees its
    /// offset); an end part is the message, put together from its parts, if
    /// `pre` takes it (else it is passed over like a declined line).
    #[cold]
    #[inline(never)]
    pub(super) fn take_part(
        &mut self,
        offset: u64,
        line_no: u64,
        s: usize,
        e: usize,
        pre: &mut dyn FnMut(u64, &[u8]) -> bool,
    ) -> Result<PartLine> {
        let kc = self.key_type.encoded_len();
        let (Some(cur), Some(mp)) = (self.cur.as_ref(), self.multipart.as_mut()) else { return Ok(PartLine::No) };
        let line = &cur.buf[s..e];
        if line.get(kc + crate::format::line::TS_CHARS..).and_then(crate::format::multipart::peek).is_none() {
            return Ok(PartLine::No);
        }
        let part = match self.codec.decode_raw(self.key_type, line) {
            Ok((_, _, raw)) => crate::format::multipart::parse(raw).map_err(Corrupt::BrokenMessage),
            Err(c) => Err(c),
        };
        let part = match part {
            Ok(p) => p,
            Err(problem) => return Err(self.corrupt(cur, offset, line_no, problem)),
        };
        if !part.end {
            let at = crate::format::multipart::PartAt { day: cur.file.day.0, first: cur.file.first, pos: cur.pos_of(s) };
            mp.note(at, part, offset, &cur.file.path, line_no);
            return Ok(PartLine::Kept);
        }
        if !pre(offset, line) {
            return Ok(PartLine::Kept);
        }
        let decoded = match mp.assemble(part, &line[..kc], &self.files, &mut self.codec, self.key_type)? {
            Ok(raw) => decode_assembled(&mut self.codec, self.key_type, &self.types, &self.topic, self.partition, offset, line, raw),
            Err(why) => Err(Corrupt::BrokenMessage(why)),
        };
        let decoded = match (decoded, self.keys.as_mut()) {
            (Ok(m), Some(keys)) => resolve_key(keys, m)?,
            (d, _) => d,
        };
        match decoded {
            Ok(m) => Ok(PartLine::Message(m)),
            Err(problem) => match self.cur.as_ref() {
                Some(cur) => Err(self.corrupt(cur, offset, line_no, problem)),
                None => Ok(PartLine::No),
            },
        }
    }
}
