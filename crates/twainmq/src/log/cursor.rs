//! A cursor over one partition file: whole lines out of a buffered read,
//! torn tails left for later, overlong lines discarded, sparse holes skipped.

use std::fs::File;
use std::io::{BufRead, Read, Seek, SeekFrom};

use crate::error::{Error, Result};
use crate::format::newline;
use crate::log::files::PartitionFile;

/// Where a reader starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartFrom {
    /// The first offset (0, or the first still on disk).
    Start,
    /// The current end: only messages written from now on.
    Now,
    /// A given offset.
    Offset(u64),
}

/// Longest line a reader buffers before declaring it corrupt (lines 0.2.3 can
/// write are at most 4096 bytes; larger ones are an opt-in extension).
const MAX_READ_LINE: usize = 1 << 20;
const READ_CHUNK: usize = 64 << 10;
/// Read the next line of `r` into `line` (cleared first), without its line
/// end, where lines end as in [`Cursor::next`]. `false` at the end of the
/// file: then `line` holds what there is of an unfinished line, if anything.
///
/// # Errors
/// Read errors.
pub(crate) fn read_line(r: &mut impl BufRead, line: &mut Vec<u8>) -> std::io::Result<bool> {
    line.clear();
    let mut after_cr = false;
    loop {
        let avail = match r.fill_buf() {
            Ok(a) => a,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if after_cr {
            // The line ended at the `\r` before; it takes a `\n` right after it along.
            let lf = avail.first() == Some(&b'\n');
            r.consume(usize::from(lf));
            return Ok(true);
        }
        if avail.is_empty() {
            return Ok(false);
        }
        match newline::line_end(avail, false) {
            Some((len, next)) => {
                line.extend_from_slice(&avail[..len]);
                r.consume(next);
                return Ok(true);
            }
            None => {
                let n = avail.len();
                // A last `\r` (the byte after it is in the next fill) ends the line either way.
                after_cr = avail[n - 1] == b'\r';
                line.extend_from_slice(&avail[..n - usize::from(after_cr)]);
                r.consume(n);
            }
        }
    }
}

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
    /// A complete line at `buf[start..end]` (without its line end).
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

    /// The next line, where lines end as 0.2.3 reads them (`format/newline.rs`):
    /// at `\n`, `\r\n` or a lone `\r` (a last `\r` once the end of the file is read).
    pub(crate) fn next(&mut self) -> Result<Next> {
        loop {
            if let Some(found) = newline::line_end(&self.buf[self.start..self.end], false) {
                return Ok(self.take(found));
            }
            if self.discarding > 0 {
                // A last `\r` stays: the byte after it decides whether it ends the line.
                let keep = usize::from(self.buf[self.start..self.end].last() == Some(&b'\r'));
                self.discarding += self.end - self.start - keep;
                self.start = self.end - keep;
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
                    let keep = usize::from(self.buf[self.end - 1] == b'\r');
                    self.discarding = self.end - keep;
                    self.base += (self.end - keep) as u64;
                    self.buf[0] = self.buf[self.end - 1];
                    self.end = keep;
                }
            }
            if self.discarding > 0 && self.end == self.start {
                // Inside an overlong line: jump over holes of a sparse file
                // instead of reading gigabytes of zeros (they hold no newline;
                // not after a kept `\r`, which the zero after it decides).
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
                // The end of the file for now: a last `\r` ends a line, as 0.2.3 reads it there.
                if let Some(found) = newline::line_end(&self.buf[self.start..self.end], true) {
                    return Ok(self.take(found));
                }
                return Ok(Next::Eof(self.discarding + self.end - self.start));
            }
            self.end += n;
        }
    }

    /// The line [`newline::line_end`] found at `start`: `(len, next)`.
    #[inline]
    fn take(&mut self, (len, next): (usize, usize)) -> Next {
        let (s, e) = (self.start, self.start + len);
        self.start += next;
        if self.discarding > 0 {
            let len = self.discarding + len;
            self.discarding = 0;
            return Next::Overlong(len);
        }
        Next::Line(s, e)
    }
}
