//! Late lines: after moving on to a partition's next file, the previous one is
//! watched a while for lines a lagging 0.2.3 producer still writes there
//! (see LATE_LINGER in reader.rs).

#[allow(clippy::wildcard_imports)]
use super::*;

impl PartitionReader {
    /// Keep watching `old`, the file just left, for late lines while it was
    /// written to recently (a file of the past is dropped at once).
    pub(super) fn linger(&mut self, old: Cursor) {
        let recent = old.handle.metadata().and_then(|m| m.modified()).ok().and_then(|m| m.elapsed().ok()).is_some_and(|a| a < LATE_LINGER);
        self.late = recent.then(|| (old, std::time::Instant::now()));
    }

    /// A late line of the previous file, if one was completed since we left it.
    pub(super) fn poll_late(&mut self) -> Result<Option<Message>> {
        loop {
            let Some((late, checked)) = self.late.as_mut() else { return Ok(None) };
            match late.next()? {
                Next::Line(s, e) => {
                    let (offset, line_no) = (late.line_offset, late.line_no);
                    late.line_offset = late.line_offset.saturating_add(1);
                    late.line_no += 1;
                    tracing::warn!(topic = %self.topic, partition = self.partition, file = %late.file.path.display(), offset, "a line was appended to a partition file after the next file was started (a 0.2.3 producer with a lagging clock): delivering it with its offset in that file, which the next file also uses");
                    return match decode(&mut self.codec, self.key_type, &self.types, &self.topic, self.partition, offset, &late.buf[s..e]) {
                        Ok(m) => Ok(Some(m)),
                        Err(problem) => {
                            let late = &self.late.as_ref().map(|l| &l.0);
                            match late {
                                Some(l) => Err(self.corrupt(l, offset, line_no, problem)),
                                None => Ok(None),
                            }
                        }
                    };
                }
                Next::Overlong(_) => {
                    late.line_offset = late.line_offset.saturating_add(1);
                    late.line_no += 1;
                }
                Next::Eof(_) => {
                    if checked.elapsed() >= LATE_CHECK_EVERY {
                        *checked = std::time::Instant::now();
                        let quiet = late
                            .handle
                            .metadata()
                            .ok()
                            .and_then(|m| m.modified().ok())
                            .and_then(|m| m.elapsed().ok())
                            .is_none_or(|a| a >= LATE_LINGER);
                        if quiet || !still_linked(&late.handle) {
                            self.late = None;
                        }
                    }
                    return Ok(None);
                }
            }
        }
    }
}
