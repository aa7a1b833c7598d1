//! Where a partition reader reads: the partition's files, listed again when
//! its folder changed, the one holding the next offset, the one after it, and
//! whether the topic is still the one the reader was opened on.

#[allow(clippy::wildcard_imports)]
use super::*;

/// A directory listing is trusted to be complete only this long after the
/// directory's modification time (coarse mtime granularity on some file systems).
const MTIME_SLACK: Duration = Duration::from_secs(3);

impl PartitionReader {
    /// List the partition's files again if the folder may have changed.
    pub(super) fn refresh(&mut self, force: bool) -> Result<bool> {
        let mtime = std::fs::metadata(&self.dir).and_then(|m| m.modified()).ok();
        if !force {
            if let (Some(m), Some((last_m, listed_at))) = (mtime, self.listed) {
                let settled = listed_at.duration_since(m).map(|d| d >= MTIME_SLACK).unwrap_or(false);
                if m == last_m && settled {
                    return Ok(false);
                }
            }
        }
        let now = SystemTime::now();
        self.files = files::list_partition(&self.dir, self.partition)?;
        self.listed = mtime.map(|m| (m, now));
        Ok(true)
    }

    /// Fail with [`Error::TopicDeleted`] when the topic is no longer the one
    /// this reader was opened on (its config or folder is gone or another).
    pub(super) fn check_topic(&mut self) -> Result<()> {
        self.topic_checked = std::time::Instant::now();
        let now = TopicIncarnation::at(&self.dir, &self.config_path);
        if self.incarnation.is_some() && now != self.incarnation {
            // Let go of the topic's files: a delete waiting for them is not kept waiting by us.
            self.cur = None;
            self.late = None;
            return Err(Error::TopicDeleted { topic: self.topic.to_string(), path: self.dir.clone() });
        }
        Ok(())
    }

    /// Open the file holding offset `self.next`. False when the partition has no file yet.
    pub(super) fn position_cursor(&mut self) -> Result<bool> {
        // Listed again only when the folder changed: that is also when the topic may have gone.
        if self.refresh(false)? {
            self.check_topic()?;
        }
        if self.files.is_empty() {
            return Ok(false);
        }
        // The last file whose first offset is <= next (sorted by (first, day): a later day wins a tie).
        let idx = self.files.iter().rposition(|f| f.first <= self.next);
        let file = match idx {
            Some(i) => self.files[i].clone(),
            None => {
                let f = self.files[0].clone();
                // Reading from the start of a partition whose oldest files retention or
                // a purge deleted is no surprise (a warning line per partition on every
                // `consume` was noise); an offset asked for that is gone is worth a word.
                if self.next == 0 {
                    tracing::debug!(topic = %self.topic, partition = self.partition, start = f.first, "the partition's oldest files are gone (retention or a purge); starting at its first line");
                } else {
                    tracing::warn!(topic = %self.topic, partition = self.partition, wanted = self.next, start = f.first, "offsets before the partition's first file are gone (retention or a purge); starting at its first line");
                }
                self.next = f.first;
                f
            }
        };
        // Jump close to the wanted line with the sparse index instead of reading every line before it.
        let skip = self.next.saturating_sub(file.first);
        let (pos, line) = if skip >= crate::log::index::STRIDE { self.index.locate(&file.path, skip)? } else { (0, 0) };
        match Cursor::open_at(file, pos, line) {
            Ok(c) => {
                self.cur = Some(c);
                Ok(true)
            }
            // Deleted between listing and opening (retention, topic deletion): list again next time.
            Err(Error::Io { cause, .. }) if cause.kind() == std::io::ErrorKind::NotFound => {
                self.listed = None;
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// The file after the current one, if one exists now.
    pub(super) fn next_file(&mut self) -> Result<Option<PartitionFile>> {
        let Some(cur) = &self.cur else { return Ok(None) };
        let key = cur.file.order_key();
        let find = |files: &[PartitionFile]| files.iter().find(|f| f.order_key() > key).cloned();
        if let Some(f) = find(&self.files) {
            return Ok(Some(f));
        }
        if self.refresh(false)? {
            return Ok(find(&self.files));
        }
        Ok(None)
    }
}
