//! Partition files found cut short in place: each noted once when the count
//! finds it shorter than before, the latest kept for `twainmq check` and the app.

#[allow(clippy::wildcard_imports)]
use super::*;

/// A partition file found shorter than its lines counted before: cut short in
/// place (truncated by a tool, a disk or a sync gone wrong), same file, so the
/// messages past its new end are gone. Never a file deleted or replaced (a
/// topic made again), never a torn tail cut off (those bytes were no line yet).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Shrink {
    /// The file.
    pub path: PathBuf,
    /// Complete lines it had when last counted (in this run, or by the index
    /// cache in an earlier one).
    pub lines_before: u64,
    /// Complete lines it has now.
    pub lines_after: u64,
    /// Its bytes of complete lines then, and its length now.
    pub bytes_before: u64,
    /// Its length when found shorter.
    pub bytes_after: u64,
}

/// Shrinks kept per index: the latest (a file cut again and again is one each time).
const MAX_SHRINKS: usize = 1000;

impl LineIndex {
    /// The files found cut short since this index was made, oldest first.
    pub fn shrinks(&self) -> Vec<Shrink> {
        self.shrinks.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub(super) fn note_shrink(&self, shrink: Shrink) {
        let mut all = self.shrinks.lock().unwrap_or_else(|p| p.into_inner());
        if all.len() >= MAX_SHRINKS {
            all.remove(0);
        }
        all.push(shrink);
    }
}
