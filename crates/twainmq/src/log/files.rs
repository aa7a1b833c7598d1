//! Partition file names (`<p>-<YYYYMMDD>_<first>.tmf`): parsed and built here only.

use std::fs;
use std::path::{Path, PathBuf};

use chrono::{Datelike, NaiveDate};

use crate::error::{Error, Result};

/// The largest first offset a file name may carry. Offsets are counted in
/// u64 and a file adds at most its byte length to its first offset, so with
/// first <= 2^62 no sum of an offset and a line count can overflow. A name
/// past it was not written by any producer (2^62 lines take 2^64 bytes): it
/// is reported as damaged and its file is not read.
pub const MAX_FIRST_OFFSET: u64 = 1 << 62;

/// A UTC day as written in file names, `YYYYMMDD`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Day(pub u32);

impl Day {
    /// The UTC day of a UNIX time in microseconds.
    pub fn from_unix_micros(micros: i64) -> Day {
        let date = chrono::DateTime::from_timestamp_micros(micros).map_or(NaiveDate::MIN, |d| d.date_naive());
        Day::from_date(date)
    }

    /// The day of a date; years outside 0 to 9999 are clamped to them (a
    /// file name has four digits for the year).
    pub fn from_date(d: NaiveDate) -> Day {
        // Clamped to 0..=9999, the year is its own absolute value.
        Day(d.year().clamp(0, 9999).unsigned_abs() * 10000 + d.month() * 100 + d.day())
    }

    /// The date, or `None` when `YYYYMMDD` is not a valid one.
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
        let first: u64 = first.parse().ok().filter(|f| *f <= MAX_FIRST_OFFSET)?;
        Some((p.parse().ok()?, day, first))
    }

    /// Whether `name` has the shape of a partition file name but cannot be one
    /// (its first offset is past [`MAX_FIRST_OFFSET`] or past u64): such a file
    /// is reported as damaged, not read.
    pub fn name_out_of_range(name: &str) -> bool {
        let Some(stem) = name.strip_suffix(".tmf") else { return false };
        let Some((_, rest)) = stem.split_once('-') else { return false };
        let Some((_, first)) = rest.split_once('_') else { return false };
        PartitionFile::parse_name(name).is_none()
            && !first.is_empty()
            && first.bytes().all(|b| b.is_ascii_digit())
            && first.parse::<u64>().map_or(true, |f| f > MAX_FIRST_OFFSET)
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
    /// Entries named as partition files that are never read: links, FIFOs,
    /// folders and other non-regular files, and names whose offset is out of
    /// range.
    pub rejected: Vec<Rejected>,
    /// The topic's key table (`keys.twk`, a topic with free keys), if there is one.
    pub key_table: Option<PathBuf>,
}

/// An entry named like a partition file that is never read, and why.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rejected {
    pub path: PathBuf,
    /// `symlink`, `not_a_file` or `damaged_name` (as `twainmq check` reports it).
    pub kind: &'static str,
    pub reason: &'static str,
}

/// Why an entry named like a partition file is not read, if it is not.
fn rejection(entry: &fs::DirEntry, name: &str) -> Option<(&'static str, &'static str)> {
    if PartitionFile::name_out_of_range(name) {
        return Some((
            "damaged_name",
            "the first offset in the name is out of range (over 2^62; no producer wrote it): the file is not read; rename it with its real first offset or move it out",
        ));
    }
    match entry.file_type() {
        Ok(t) if t.is_file() => None,
        Ok(t) if t.is_symlink() => {
            Some(("symlink", "the partition file is a link: TwainMQ never reads or writes through links; replace it with the file itself"))
        }
        Ok(t) if t.is_dir() => {
            Some(("not_a_file", "a folder where a partition file belongs: it is not read; move it out of the topic folder"))
        }
        Ok(_) => Some(("not_a_file", "not a regular file (a FIFO, socket or device): it is never opened; move it out of the topic folder")),
        Err(_) => Some(("not_a_file", "its type could not be read: it is not read")),
    }
}

/// A topic folder that is a link is never listed, read or written: it may
/// lead out of the store.
fn refuse_link(dir: &Path) -> Result<()> {
    if fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(Error::SymlinkRefused { path: dir.to_path_buf() });
    }
    Ok(())
}

// Listings of a topic's folder made on this thread (tests count them: describing a group or its
// lag history lists the folder a fixed number of times, not once per partition).
#[cfg(test)]
thread_local! {
    pub(crate) static LISTINGS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// List `dir`, a topic folder of a topic with `partitions` partitions.
///
/// # Errors
/// I/O errors other than a missing folder (which lists as empty).
pub fn list_topic_dir(dir: &Path, partitions: u32) -> Result<Listing> {
    refuse_link(dir)?;
    #[cfg(test)]
    LISTINGS.with(|n| n.set(n.get() + 1));
    let mut listing = Listing { partitions: vec![Vec::new(); partitions as usize], ..Listing::default() };
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(listing),
        Err(e) => return Err(Error::io("list", dir, e)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("list", dir, e))?;
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_str().unwrap_or_default();
        if let Some((kind, reason)) = rejection(&entry, name).filter(|_| name.ends_with(".tmf")) {
            listing.rejected.push(Rejected { path, kind, reason });
            continue;
        }
        if name == crate::format::keytable::FILE_NAME {
            listing.key_table = Some(path);
            continue;
        }
        let parsed = PartitionFile::parse_name(name);
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
    listing.rejected.sort();
    Ok(listing)
}

/// The files of one partition, in reading order.
///
/// # Errors
/// I/O errors other than a missing folder.
pub fn list_partition(dir: &Path, partition: u32) -> Result<Vec<PartitionFile>> {
    refuse_link(dir)?;
    #[cfg(test)]
    LISTINGS.with(|n| n.set(n.get() + 1));
    let mut files = Vec::new();
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(files),
        Err(e) => return Err(Error::io("list", dir, e)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("list", dir, e))?;
        if let Some((p, day, first)) = entry.file_name().to_str().and_then(PartitionFile::parse_name) {
            // Only regular files are partition files (`list_topic_dir` reports the others).
            if p == partition && entry.file_type().is_ok_and(|t| t.is_file()) {
                files.push(PartitionFile { partition: p, day, first, path: entry.path() });
            }
        }
    }
    files.sort_by_key(PartitionFile::order_key);
    Ok(files)
}

/// The entries of `dir` that 0.2.3 takes for partition `partition`'s file of
/// `day`: every entry (of any kind) whose name, less its last extension
/// (Python's `Path.stem`), is `<partition>-<day>` or starts with
/// `<partition>-<day>_`. Two of them stop 0.2.3's producers and its
/// `consumer(start_from="now")` ("Multiple message files for the same chunk").
///
/// # Errors
/// I/O errors other than a missing folder.
pub fn entries_for_day(dir: &Path, partition: u32, day: Day) -> Result<Vec<PathBuf>> {
    refuse_link(dir)?;
    let chunk = format!("{partition}-{day}");
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io("list", dir, e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("list", dir, e))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if python_stem(&name).split('_').next() == Some(chunk.as_str()) {
            out.push(entry.path());
        }
    }
    out.sort();
    Ok(out)
}

/// Python's `PurePath.stem`: the name less its last suffix, where a suffix
/// is a `.` and what follows it, neither at the name's start nor its end.
fn python_stem(name: &str) -> &str {
    match name.rfind('.') {
        Some(i) if i > 0 && i < name.len() - 1 => &name[..i],
        _ => name,
    }
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

    #[test]
    fn stems_as_python_takes_them() {
        for (name, stem) in [
            ("0-20261129_5.tmf", "0-20261129_5"),
            ("0-20261129_5.tmf.bak", "0-20261129_5.tmf"),
            (".hidden", ".hidden"),
            ("trailing.", "trailing."),
            ("0-20261129", "0-20261129"),
        ] {
            assert_eq!(python_stem(name), stem, "{name}");
        }
    }
}
