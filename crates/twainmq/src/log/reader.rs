//! Reading one partition: whole lines only, across day files, tolerant of torn tails.

use std::fs::File;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::error::{Error, Result};
use crate::format::config::TopicConfig;
use crate::format::key::KeyType;
use crate::format::line::{Codec, Corrupt};
use crate::format::message::Message;
use crate::format::payload::Payload;
use crate::log::assemble::{Assembler, Unfinished};
use crate::log::cursor::{Cursor, Next, StartFrom};
use crate::log::dir::{LogDir, TopicIncarnation};
use crate::log::files::{self, PartitionFile};
use crate::log::keys::KeyTable;

mod decode;
mod late;
mod position;
use decode::{decode, PartLine};

/// After moving on to a partition's next file, the previous one is still
/// watched for late lines while it was written to within this long: a 0.2.3
/// producer whose clock lags writes into yesterday's file after today's was
/// started (0.2.3's rollover race). Those lines are delivered, at least once,
/// with the offsets they have by their place in that file.
const LATE_LINGER: Duration = Duration::from_secs(120);
/// How often a lingering file's age is looked at.
const LATE_CHECK_EVERY: Duration = Duration::from_secs(1);

/// Reads one partition of a topic in offset order.
///
/// Never returns a line before its `\n` is on disk. Moves to the partition's
/// next file as soon as that file exists (not when the local date changes), and
/// a reader positioned before any file exists starts at that file's first line.
pub struct PartitionReader {
    topic: Arc<str>,
    dir: PathBuf,
    partition: u32,
    key_type: KeyType,
    types: Arc<Vec<(String, u16)>>,
    codec: Codec,
    files: Vec<PartitionFile>,
    listed: Option<(SystemTime, SystemTime)>,
    cur: Option<Cursor>,
    /// Offset of the next message to return.
    next: u64,
    index: crate::log::index::LineIndex,
    /// Where the last returned line is in the cursor's buffer: (start, end, line number).
    last: Option<(usize, usize, u64)>,
    /// The previous file, watched for late lines (see [`LATE_LINGER`]), and
    /// when its age was last looked at.
    late: Option<(Cursor, std::time::Instant)>,
    /// The topic's config and folder when the reader was opened: another
    /// config or no folder means the topic was deleted (and maybe made again).
    config_path: PathBuf,
    incarnation: Option<TopicIncarnation>,
    /// When the topic was last looked at by path while the reader was at the
    /// end (see [`crate::log::append::TOPIC_RECHECK`]).
    topic_checked: std::time::Instant,
    /// A topic with large messages: their parts put together (`None` for others).
    multipart: Option<Assembler>,
    /// A topic with free keys: its key table, read as ids come (`None` for others).
    keys: Option<KeyTable>,
}

/// Whether an open file is still in a folder (not deleted).
fn still_linked(file: &File) -> bool {
    crate::sys::open::file_state(file).linked
}

/// What [`PartitionReader::poll_scan`] found.
pub(crate) enum Scanned {
    /// A message the scan asked to have decoded.
    Message(Message),
    /// As many lines as the budget allowed were passed over.
    Skipped,
    /// The end of what is there, or the scan's end offset.
    End,
}

impl std::fmt::Debug for PartitionReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PartitionReader")
            .field("topic", &self.topic)
            .field("partition", &self.partition)
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

impl LogDir {
    /// A reader of one partition of a topic or group log (names not checked).
    pub(crate) fn partition_reader(&self, topic: &str, partition: u32, from: StartFrom) -> Result<PartitionReader> {
        let config = self.topic_config(topic)?;
        PartitionReader::open(self, topic, &config, partition, from)
    }
}

impl PartitionReader {
    pub(crate) fn open(log: &LogDir, topic: &str, config: &TopicConfig, partition: u32, from: StartFrom) -> Result<PartitionReader> {
        if partition >= config.partitions {
            return Err(Error::PartitionOutOfRange { topic: topic.to_string(), partition, partitions: config.partitions });
        }
        let config_path = log.config_path(topic);
        let incarnation = TopicIncarnation::at(&log.topic_dir(topic), &config_path);
        let mut r = PartitionReader {
            late: None,
            config_path,
            incarnation,
            topic_checked: std::time::Instant::now(),
            topic: topic.into(),
            dir: log.topic_dir(topic),
            partition,
            key_type: config.key_type,
            types: Arc::new(config.message_types.clone()),
            codec: Codec::default(),
            files: Vec::new(),
            listed: None,
            cur: None,
            next: 0,
            index: log.index().clone(),
            last: None,
            multipart: config.max_message_bytes.map(Assembler::new),
            keys: config.key_type.is_free().then(|| KeyTable::new(&log.topic_dir(topic))),
        };
        r.seek_to(from)?;
        Ok(r)
    }

    /// Large messages started and not ended in what this reader has read (a
    /// message being written, or torn by a crash): `twainmq check` reports them.
    pub(crate) fn unfinished_messages(&self) -> Vec<Unfinished> {
        self.multipart.as_ref().map(Assembler::unfinished).unwrap_or_default()
    }

    /// The partition this reader reads.
    pub fn partition(&self) -> u32 {
        self.partition
    }

    /// The topic this reader reads.
    pub fn topic(&self) -> &str {
        &self.topic
    }

    /// Offset of the next message this reader returns.
    pub fn position(&self) -> u64 {
        self.next
    }

    /// The file, 1-based line number and raw bytes (without the newline) of the
    /// line the last successful or damaged-line poll returned; `None` after
    /// anything else moved the reader.
    pub fn last_line(&self) -> Option<(&std::path::Path, u64, &[u8])> {
        let (s, e, line) = self.last?;
        let cur = self.cur.as_ref()?;
        Some((cur.file.path.as_path(), line, cur.buf.get(s..e)?))
    }

    /// [`PartitionReader::last_line`] with the byte position of the line's
    /// start in its file (for mending a damaged line in place).
    pub(crate) fn last_line_at(&self) -> Option<(std::path::PathBuf, u64, Vec<u8>)> {
        let (s, e, _) = self.last?;
        let cur = self.cur.as_ref()?;
        if cur.discarding > 0 {
            return None;
        }
        // The handle stands at the file position of `buf[end]`.
        let at = std::io::Seek::stream_position(&mut &cur.handle).ok()?;
        let pos = at.checked_sub(u64::try_from(cur.end.checked_sub(s)?).ok()?)?;
        Some((cur.file.path.clone(), pos, cur.buf.get(s..e)?.to_vec()))
    }

    /// Re-position the reader.
    ///
    /// # Errors
    /// [`Error::Io`] when the partition cannot be listed.
    pub fn seek_to(&mut self, from: StartFrom) -> Result<()> {
        self.cur = None;
        self.late = None;
        self.next = match from {
            StartFrom::Start => 0,
            StartFrom::Offset(o) => o,
            StartFrom::Now => {
                self.refresh(true)?;
                self.index.end_of(&self.files)?
            }
        };
        Ok(())
    }

    fn corrupt(&self, cur: &Cursor, offset: u64, line_no: u64, problem: Corrupt) -> Error {
        Error::CorruptLine {
            topic: self.topic.to_string(),
            partition: self.partition,
            offset,
            path: cur.file.path.clone(),
            line: line_no,
            problem,
        }
    }

    /// The next message, or `None` when the partition has no more complete lines yet.
    ///
    /// # Errors
    /// [`Error::CorruptLine`] for a line that is not a message: the reader has
    /// moved past it, so polling again continues with the next line.
    /// [`Error::Io`] for read errors.
    pub fn poll(&mut self) -> Result<Option<Message>> {
        match self.poll_scan(u64::MAX, &mut |_, _| true, u32::MAX)? {
            Scanned::Message(m) => Ok(Some(m)),
            Scanned::Skipped | Scanned::End => Ok(None),
        }
    }

    /// [`PartitionReader::poll`] for scans: stops before offset `to`; asks `pre`
    /// with each line's offset and raw bytes whether to decode it (a line it
    /// declines is passed over without inflating); returns [`Scanned::Skipped`]
    /// after `budget` lines passed over, so the caller can look at its cancel
    /// flag and report progress.
    ///
    /// # Errors
    /// As [`PartitionReader::poll`].
    pub(crate) fn poll_scan(&mut self, to: u64, pre: &mut dyn FnMut(u64, &[u8]) -> bool, budget: u32) -> Result<Scanned> {
        let mut skipped = 0u32;
        self.last = None;
        let mut retried_tail = false;
        let mut relisted = false;
        loop {
            if self.next >= to {
                return Ok(Scanned::End);
            }
            if self.cur.is_none() && !self.position_cursor()? {
                return Ok(Scanned::End);
            }
            let Some(cur) = self.cur.as_mut() else { return Ok(Scanned::End) };
            match cur.next()? {
                Next::Line(s, e) => {
                    let offset = cur.line_offset;
                    let line_no = cur.line_no;
                    cur.line_offset = cur.line_offset.saturating_add(1);
                    cur.line_no += 1;
                    if offset < self.next {
                        continue;
                    }
                    self.next = offset.saturating_add(1);
                    self.last = Some((s, e, line_no));
                    if self.multipart.is_some() {
                        // A topic with large messages: a part line goes its own way.
                        match self.take_part(offset, line_no, s, e, pre)? {
                            PartLine::No => {}
                            PartLine::Kept => {
                                skipped += 1;
                                if skipped >= budget {
                                    return Ok(Scanned::Skipped);
                                }
                                continue;
                            }
                            PartLine::Message(m) => return Ok(Scanned::Message(m)),
                        }
                    }
                    let Some(cur) = self.cur.as_ref() else { return Ok(Scanned::End) };
                    if !pre(offset, &cur.buf[s..e]) {
                        skipped += 1;
                        if skipped >= budget {
                            return Ok(Scanned::Skipped);
                        }
                        continue;
                    }
                    return match decode(&mut self.codec, self.key_type, &self.types, &self.topic, self.partition, offset, &cur.buf[s..e]) {
                        Ok(m) if self.keys.is_some() => self.with_key(m, line_no),
                        Ok(m) => Ok(Scanned::Message(m)),
                        Err(problem) => Err(self.corrupt(cur, offset, line_no, problem)),
                    };
                }
                Next::Overlong(len) => {
                    let (offset, line_no) = (cur.line_offset, cur.line_no);
                    cur.line_offset = cur.line_offset.saturating_add(1);
                    cur.line_no += 1;
                    if offset < self.next {
                        continue;
                    }
                    self.next = offset.saturating_add(1);
                    let Some(cur) = self.cur.as_ref() else { return Ok(Scanned::End) };
                    return Err(self.corrupt(cur, offset, line_no, Corrupt::Overlong { len }));
                }
                Next::Eof(partial) => {
                    let Some(next) = self.next_file()? else {
                        if let Some(m) = self.poll_late()? {
                            return Ok(Scanned::Message(m));
                        }
                        if self.topic_checked.elapsed() >= crate::log::append::TOPIC_RECHECK {
                            // What the handle may not show (see TOPIC_RECHECK).
                            self.check_topic()?;
                        }
                        let Some(cur) = self.cur.as_ref() else { return Ok(Scanned::End) };
                        if !still_linked(&cur.handle) {
                            // Deleted under us: with its topic (an error), or alone (read on from what is there now).
                            self.check_topic()?;
                            self.cur = None;
                            self.listed = None;
                            if !self.position_cursor()? {
                                return Ok(Scanned::End);
                            }
                            if self.cur.as_ref().is_none_or(|c| !still_linked(&c.handle)) {
                                return Ok(Scanned::End);
                            }
                            continue;
                        }
                        return Ok(Scanned::End);
                    };
                    // Lines may have been completed between our end-of-file read and the
                    // folder listing that found the next file: read this one once more.
                    if !retried_tail {
                        retried_tail = true;
                        continue;
                    }
                    retried_tail = false;
                    let Some(cur) = self.cur.as_ref() else { return Ok(Scanned::End) };
                    let caught_up = cur.line_offset >= self.next;
                    let torn = (partial > 0).then_some((cur.line_offset, cur.line_no));
                    // A torn last line counts as a line, as 0.2.3 counts it when it starts the next file.
                    let end = cur.line_offset.saturating_add(u64::from(partial > 0));
                    if next.first > end && !relisted {
                        // A folder listing is not atomic: a file made while it ran can be
                        // missing from it while a later one is in it (ext4 returns names in
                        // hash order, over several reads). Skipping to that later file would
                        // pass over the lines of the missing one, so before taking a gap in
                        // the offsets, list the folder again (once: a gap left after it is real).
                        relisted = true;
                        self.refresh(true)?;
                        continue;
                    }
                    if next.first != end {
                        tracing::debug!(topic = %self.topic, partition = self.partition, file = %next.path.display(), first = next.first, expected = end, "partition file does not start where the previous one ends (a rollover race or a missing file)");
                    }
                    let next_first = next.first;
                    let opened = match Cursor::open(next) {
                        Ok(c) => c,
                        // Deleted since it was listed: with its topic (an error,
                        // not a bare "file not found"), or alone by retention or
                        // a purge (list the folder again and go on).
                        Err(Error::Io { cause, .. }) if cause.kind() == std::io::ErrorKind::NotFound => {
                            self.check_topic()?;
                            self.listed = None;
                            self.files.clear();
                            continue;
                        }
                        Err(e) => return Err(e),
                    };
                    let old = self.cur.replace(opened);
                    self.next = if caught_up { next_first } else { self.next.max(next_first) };
                    let Some(old) = old else { continue };
                    if let (Some((offset, line_no)), true) = (torn, caught_up) {
                        let err = self.corrupt(&old, offset, line_no, Corrupt::TornTail { len: partial });
                        self.linger(old);
                        return Err(err);
                    }
                    self.linger(old);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use crate::log::clock::ManualClock;
    use crate::{KeyType, StartFrom, Store, TopicSpec};

    /// A listing taken while a producer rolled over twice can hold the second new
    /// file and not the first (readdir is not atomic). The reader must not skip the
    /// first one's lines: a gap in the offsets makes it list the folder again.
    #[test]
    fn a_listing_that_missed_a_file_does_not_skip_its_lines() {
        let dir = tempfile::tempdir().expect("tmp");
        let clock = ManualClock::new(1_893_456_000_000_000); // 2030-01-01 00:00 UTC
        let store = Store::open(dir.path()).expect("open").with_clock(Arc::new(clock.clone()));
        store.create_topic("t", &TopicSpec::new(KeyType::U32, 1)).expect("create");
        let mut p = store.producer("t").expect("producer");
        let day = 86_400_000_000;
        for (k, text) in [(0u32, "a0"), (1, "a1")] {
            p.send_text(k, text).expect("day 1");
        }
        clock.advance(day);
        p.send_text(2u32, "b2").expect("day 2");
        clock.advance(day);
        p.send_text(3u32, "c3").expect("day 3");
        p.flush().expect("flush");
        let mut r = store.partition_reader("t", 0, StartFrom::Start).expect("reader");
        let offsets: Vec<u64> = (0..2).map(|_| r.poll().expect("poll").expect("a line").offset).collect();
        assert_eq!(offsets, [0, 1]);
        assert_eq!(r.files.len(), 3, "listed when the reader first looked");
        // The listing as a racing readdir could return it: day 2's file missing, day 3's there,
        // and trusted as complete (the folder unchanged since, and listed long after).
        let day2 = r.files.remove(1);
        assert_eq!(day2.first, 2);
        let mtime = std::fs::metadata(dir.path().join("t")).and_then(|m| m.modified()).expect("mtime");
        r.listed = Some((mtime, mtime + Duration::from_secs(60)));
        let got: Vec<(u64, String)> =
            std::iter::from_fn(|| r.poll().expect("poll")).map(|m| (m.offset, m.text().unwrap_or_default().to_string())).collect();
        assert_eq!(got, [(2, "b2".to_string()), (3, "c3".to_string())], "day 2's line is read, in order");
    }
}
