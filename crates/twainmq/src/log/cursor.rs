//! A cursor over one partition file: whole lines out of a buffered read,
//! torn tails left for later, overlong lines discarded, sparse holes skipped.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

use crate::error::{Error, Result};
use crate::log::files::PartitionFile;

/// Longest line a reader buffers before declaring it corrupt (lines 0.2.3 can
/// write are at most 4096 bytes; larger ones are an opt-in extension).
const MAX_READ_LINE: usize = 1 << 20;
const READ_CHUNK: usize = 64 << 10;
pub(crate) struct Cursor {
    pub(crate) file: PartitionFile,
    pub(crate) handle: File,
    pub(crate) buf: Vec<u8>,
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// Offset of the next line in this file.
    pub(crate) line_offset: u64,
    /// 1-based line number of the next line in this file.
    pub(crate) line_no: u64,
    /// Bytes of an overlong line being discarded.
    pub(crate) discarding: usize,
    /// The byte of the file `buf[0]` holds (large messages name their parts by byte).
    base: u64,
}

pub(crate) enum Next {
    /// A complete line at `buf[start..end]` (without `\n`).
    Line(usize, usize),
    Overlong(usize),
    /// End of the data written so far; the count is bytes of an unfinished line.
    Eof(usize),
}

impl Cursor {
    pub(crate) fn open(file: PartitionFile) -> Result<Cursor> {
        Cursor::open_at(file, 0, 0)
    }

    /// Open positioned at line `line` (0-based), which starts at byte `pos`.
    pub(crate) fn open_at(file: PartitionFile, pos: u64, line: u64) -> Result<Cursor> {
        let mut handle = crate::sys::open::open_regular(&file.path, false)?;
        if pos > 0 {
            handle.seek(SeekFrom::Start(pos)).map_err(|e| Error::io("seek in", &file.path, e))?;
        }
        Ok(Cursor {
            line_offset: file.first + line,
            file,
            handle,
            buf: vec![0; READ_CHUNK],
            start: 0,
            end: 0,
            line_no: line + 1,
            discarding: 0,
            base: pos,
        })
    }

    /// The byte of the file at which `buf[at]` is.
    pub(crate) fn pos_of(&self, at: usize) -> u64 {
        self.base + at as u64
    }

    pub(crate) fn next(&mut self) -> Result<Next> {
        loop {
            if let Some(i) = memchr::memchr(b'\n', &self.buf[self.start..self.end]) {
                let (s, e) = (self.start, self.start + i);
                self.start = e + 1;
                if self.discarding > 0 {
                    let len = self.discarding + i;
                    self.discarding = 0;
                    return Ok(Next::Overlong(len));
                }
                return Ok(Next::Line(s, e));
            }
            if self.discarding > 0 {
                self.discarding += self.end - self.start;
                self.start = self.end;
            }
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.base += self.start as u64;
                self.start = 0;
            }
            if self.end == self.buf.len() {
                if self.buf.len() < MAX_READ_LINE {
                    let len = self.buf.len() * 2;
                    self.buf.resize(len, 0);
                } else {
                    self.discarding = self.end;
                    self.base += self.end as u64;
                    self.end = 0;
                }
            }
            if self.discarding > 0 {
                // Inside an overlong line: jump over holes of a sparse file
                // instead of reading gigabytes of zeros (they hold no newline).
                if let Ok(pos) = self.handle.stream_position() {
                    let to = match crate::sys::open::next_data(&self.handle, pos) {
                        Some(d) => d,
                        None => self.handle.metadata().map_or(pos, |m| m.len().max(pos)),
                    };
                    self.discarding = self.discarding.saturating_add(usize::try_from(to - pos).unwrap_or(usize::MAX));
                    self.handle.seek(SeekFrom::Start(to)).map_err(|e| Error::io("seek in", &self.file.path, e))?;
                    // Discarding, the buffer is empty: it holds the file from `to` on.
                    self.base = to.saturating_sub(self.end as u64);
                }
            }
            let n = loop {
                match self.handle.read(&mut self.buf[self.end..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(Error::io("read", &self.file.path, e)),
                }
            };
            if n == 0 {
                return Ok(Next::Eof(self.discarding + self.end - self.start));
            }
            self.end += n;
        }
    }
}
