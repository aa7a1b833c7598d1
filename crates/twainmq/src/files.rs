//! Partition file names (`<p>-<YYYYMMDD>_<first>.tmf`): parsed and built here only.

use std::fs;
use std::path::{Path, PathBuf};

use chrono::{Datelike, NaiveDate};

use crate::error::{Error, Result};

/// A UTC day as written in file names, `YYYYMMDD`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Day(pub u32);

impl Day {
    /// The UTC day of a UNIX time in microseconds.
    pub fn from_unix_micros(micros: i64) -> Day {
        let date = chrono::DateTime::from_timestamp_micros(micros).map_or(NaiveDate::MIN, |d| d.date_naive());
        Day::from_date(date)
    }

    pub fn from_date(d: NaiveDate) -> Day {
        Day(d.year().clamp(0, 9999) as u32 * 10000 + d.month() * 100 + d.day())
    }

    pub fn date(self) -> Option<NaiveDate> {
        NaiveDate::from_ymd_opt((self.0 / 10000) as i32, (self.0 / 100) % 100, self.0 % 100)
    }
}

impl std::fmt::Display for Day {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:08}", self.0)
    }
}

/// One log file of a partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionFile {
    pub partition: u32,
    pub day: Day,
    /// Offset of the file's first line.
    pub first: u64,
    pub path: PathBuf,
}

impl PartitionFile {
    /// The file name for these values.
    pub fn file_name(partition: u32, day: Day, first: u64) -> String {
        format!("{partition}-{day}_{first}.tmf")
    }

    /// Parse a file name; `None` for anything that is not a partition file.
    pub fn parse_name(name: &str) -> Option<(u32, Day, u64)> {
        let stem = name.strip_suffix(".tmf")?;
        let (p, rest) = stem.split_once('-')?;
        let (day, first) = rest.split_once('_')?;
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        // 0.2.3 matches partitions by `str(p)`, so "01" is never partition 1.
        if !digits(p) || (p.len() > 1 && p.starts_with('0')) || day.len() != 8 || !digits(day) || !digits(first) {
            return None;
        }
        let day = Day(day.parse().ok()?);
        day.date()?;
        Some((p.parse().ok()?, day, first.parse().ok()?))
    }

    /// Reading order: by first offset, then day (a later day wins a tie).
    pub fn order_key(&self) -> (u64, Day) {
        (self.first, self.day)
    }
}

/// All partition files in a topic folder, grouped by partition and in reading order,
/// plus the names of other entries (which 0.2.3 may misread).
#[derive(Debug, Clone, Default)]
pub struct Listing {
    pub partitions: Vec<Vec<PartitionFile>>,
    pub unknown: Vec<PathBuf>,
}

/// List `dir`, a topic folder of a topic with `partitions` partitions.
///
/// # Errors
/// I/O errors other than a missing folder (which lists as empty).
pub fn list_topic_dir(dir: &Path, partitions: u32) -> Result<Listing> {
    let mut listing = Listing { partitions: vec![Vec::new(); partitions as usize], unknown: Vec::new() };
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(listing),
        Err(e) => return Err(Error::io("list", dir, e)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("list", dir, e))?;
        let path = entry.path();
        let parsed = entry.file_name().to_str().and_then(PartitionFile::parse_name);
        match parsed {
            Some((p, day, first)) if p < partitions => {
                listing.partitions[p as usize].push(PartitionFile { partition: p, day, first, path });
            }
            _ => listing.unknown.push(path),
        }
    }
    for files in &mut listing.partitions {
        files.sort_by_key(PartitionFile::order_key);
    }
    listing.unknown.sort();
    Ok(listing)
}

/// The files of one partition, in reading order.
///
/// # Errors
/// I/O errors other than a missing folder.
pub fn list_partition(dir: &Path, partition: u32) -> Result<Vec<PartitionFile>> {
    let mut files = Vec::new();
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(files),
        Err(e) => return Err(Error::io("list", dir, e)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("list", dir, e))?;
        if let Some((p, day, first)) = entry.file_name().to_str().and_then(PartitionFile::parse_name) {
            if p == partition {
                files.push(PartitionFile { partition: p, day, first, path: entry.path() });
            }
        }
    }
    files.sort_by_key(PartitionFile::order_key);
    Ok(files)
}

/// Line statistics of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LineCount {
    /// Lines ending in `\n`.
    pub complete: u64,
    /// Bytes after the last `\n` (a line being written, or torn by a crash).
    pub partial_bytes: u64,
    pub bytes: u64,
}

impl LineCount {
    /// Lines as 0.2.3's `readlines()` counts them: a partial last line counts.
    pub fn python_lines(&self) -> u64 {
        self.complete + u64::from(self.partial_bytes > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(PartitionFile::parse_name("3-20261129_51.tmf"), Some((3, Day(20261129), 51)));
        assert_eq!(PartitionFile::file_name(3, Day(20261129), 51), "3-20261129_51.tmf");
        for bad in [
            "3-20261129_51.tmp",
            "03-20261129_5.tmf",
            "3-2026112_5.tmf",
            "3-20261329_5.tmf",
            "x-20261129_5.tmf",
            "3-20261129_.tmf",
            "3-20261129-5.tmf",
            "3-20261129_5.tmf.bak",
        ] {
            assert_eq!(PartitionFile::parse_name(bad), None, "{bad}");
        }
        assert_eq!(Day::from_unix_micros(1_796_016_478_803_225), Day(20261130));
        assert_eq!(Day::from_unix_micros(0).to_string(), "19700101");
    }
}
