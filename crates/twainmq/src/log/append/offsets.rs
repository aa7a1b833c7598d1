//! The offset of a delivered message, found by counting the partition's lines
//! before it, resuming where the last count stopped.

#[allow(clippy::wildcard_imports)]
use super::*;

impl Appender {
    /// The offset of a delivered message, found by counting the lines before it.
    /// Counting resumes where the last call stopped, so resolving every send
    /// only reads what other producers appended in between.
    ///
    /// # Errors
    /// [`Error::Io`]; an error too when the platform gave no byte position.
    pub(crate) fn resolve_offset(&mut self, d: &Delivery) -> Result<u64> {
        let Some(pos) = d.byte_pos else {
            return Err(Error::io(
                "locate the message in",
                d.path.to_path_buf(),
                std::io::Error::other("no position was recorded: open the producer with_offsets(true)"),
            ));
        };
        let reuse = self.active.get_mut(d.partition as usize).and_then(|a| a.as_mut()).filter(|a| a.path == d.path && a.counted_pos <= pos);
        let (mut counted_pos, mut counted_lines) = reuse.as_ref().map_or((0, 0), |a| (a.counted_pos, a.counted_lines));
        let mut f = crate::sys::open::open_regular(&d.path, false)?;
        f.seek(SeekFrom::Start(counted_pos)).map_err(|e| Error::io("read", d.path.to_path_buf(), e))?;
        let mut buf = vec![0u8; 1 << 16];
        // Line ends as readers count them (`format/newline.rs`); the byte before
        // `pos` ends a line (ours starts there), so a `\r` there is one.
        let mut ends = LineEndCounter::default();
        if counted_pos > 0 {
            let mut b = [0u8; 1];
            f.seek(SeekFrom::Start(counted_pos - 1)).map_err(|e| Error::io("read", d.path.to_path_buf(), e))?;
            f.read_exact(&mut b).map_err(|e| Error::io("read", d.path.to_path_buf(), e))?;
            ends.count(&b);
        }
        while counted_pos < pos {
            // Holes of a sparse file hold no newline: skip them, never read gigabytes of zeros.
            let data = crate::sys::open::next_data(&f, counted_pos).unwrap_or(pos).min(pos);
            if data > counted_pos {
                counted_pos = data;
                f.seek(SeekFrom::Start(counted_pos)).map_err(|e| Error::io("read", d.path.to_path_buf(), e))?;
                continue;
            }
            f.seek(SeekFrom::Start(counted_pos)).map_err(|e| Error::io("read", d.path.to_path_buf(), e))?;
            let want = usize::try_from(pos - counted_pos).unwrap_or(usize::MAX).min(buf.len());
            let n = f.read(&mut buf[..want]).map_err(|e| Error::io("read", d.path.to_path_buf(), e))?;
            if n == 0 {
                break;
            }
            counted_lines += ends.count(&buf[..n]);
            counted_pos += n as u64;
        }
        if let Some(a) = self.active.get_mut(d.partition as usize).and_then(|a| a.as_mut()).filter(|a| a.path == d.path) {
            a.counted_pos = counted_pos;
            a.counted_lines = counted_lines;
        }
        Ok(d.file_first + counted_lines)
    }
}
