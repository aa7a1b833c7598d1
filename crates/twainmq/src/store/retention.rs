//! Retention and purge: whole day files deleted, oldest first, by a topic's
//! `retention` setting (an extra `.twc` key 0.2.3 ignores) or by a purge.
//!
//! Invariants: the newest file of a partition never goes (producers append
//! to it, and its name carries the partition's next offset to 0.2.3, whose
//! readers count offsets from the first file left); a file holding a message
//! some group has not committed past stays unless forced; every deletion is
//! first a plan (files, messages, bytes, the groups that would lose messages)
//! that a dry run returns as it is.

use serde::Serialize;
use serde_json::Value;

use super::Store;
use crate::error::{Error, Result, TransferError};
use crate::log::files::Day;

/// The `.twc` key holding a topic's retention.
pub const RETENTION_KEY: &str = "retention";

/// A topic's retention: day files go once older than `days`, and oldest
/// first while a partition holds more than `bytes_per_partition`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
pub struct Retention {
    /// Keep files of the last this many UTC days (a file of day D goes once
    /// D is more than `days` days before today).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days: Option<u64>,
    /// Keep at most this many bytes in each partition (never less than its newest file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_per_partition: Option<u64>,
}

/// A file a plan deletes (or would, but for a group).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlannedFile {
    /// Its partition.
    pub partition: u32,
    /// Its name.
    pub name: String,
    /// Its first offset.
    pub first: u64,
    /// Messages (lines) in it.
    pub messages: u64,
    /// Its size.
    pub bytes: u64,
    /// Groups that have not committed past its last message.
    pub unconsumed_by: Vec<String>,
    /// Whether it goes: false when a group holds it (and not forced).
    pub deleted: bool,
}

/// What a retention or purge does, or in a dry run would do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RetentionPlan {
    /// The topic.
    pub topic: String,
    /// Whether the files marked `deleted` were deleted (false: a dry run).
    pub applied: bool,
    /// The files, oldest first per partition.
    pub files: Vec<PlannedFile>,
    /// Empty files made (a purge of everything), named for each partition's
    /// end offset, so offsets go on where they were: today's, and when the
    /// deleted newest file was today's, one of the day before it, made before
    /// it went (a partition never holds two files for one day).
    pub created: Vec<String>,
    /// Groups whose log is in the store but whose config is missing or
    /// damaged (or whose log cannot be read): what they consumed cannot be
    /// told, so they hold every file, as unconsumed, unless forced.
    pub unknown_groups: Vec<UnknownGroup>,
}

/// A group whose state cannot be read (see [`RetentionPlan::unknown_groups`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnknownGroup {
    /// The group's name.
    pub group: String,
    /// Why its state cannot be read, e.g. `its config is missing`.
    pub why: String,
}

impl RetentionPlan {
    /// Files, messages and bytes that go.
    pub fn totals(&self) -> (usize, u64, u64) {
        let gone = self.files.iter().filter(|f| f.deleted);
        gone.fold((0, 0, 0), |(n, m, b), f| (n + 1, m + f.messages, b + f.bytes))
    }
}

/// What a plan deletes.
#[derive(Debug, Clone, Copy)]
enum Rule {
    Retention(Retention, Day),
    /// Files whose every message is stamped before this time (`None`: every file).
    Purge(Option<f64>),
}

impl Store {
    /// The topic's retention setting, if it has one.
    ///
    /// # Errors
    /// Topic errors; [`TransferError::InvalidRetention`] for a setting that is not one.
    pub fn retention(&self, topic: &str) -> Result<Option<Retention>> {
        let config = self.topic_config(topic)?;
        let Some(v) = config.extra.get(RETENTION_KEY) else { return Ok(None) };
        let r: Retention = serde_json::from_value(v.clone()).map_err(|e| TransferError::InvalidRetention {
            topic: topic.to_string(),
            problem: format!(
                "the {RETENTION_KEY:?} key of its config is {v}, not {{\"days\": N, \"bytes_per_partition\": N}} ({e}): fix or remove it"
            ),
        })?;
        Ok(Some(r))
    }

    /// Set (or with `None`, remove) the topic's retention, rewriting its
    /// config in place of the old one (a new file renamed over it: readers see
    /// the old config or the new, whole).
    ///
    /// # Errors
    /// Topic and I/O errors; [`TransferError::InvalidRetention`] for a zero limit.
    pub fn set_retention(&self, topic: &str, retention: Option<Retention>) -> Result<()> {
        if let Some(r) = retention {
            if r.days == Some(0) || r.bytes_per_partition == Some(0) || (r.days.is_none() && r.bytes_per_partition.is_none()) {
                return Err(TransferError::InvalidRetention {
                    topic: topic.to_string(),
                    problem: "give days and/or bytes of 1 or more (or remove the setting)".into(),
                }
                .into());
            }
        }
        let mut config = self.topic_config(topic)?;
        match retention {
            Some(r) => config.extra.insert(RETENTION_KEY.into(), serde_json::to_value(r).unwrap_or(Value::Null)),
            None => config.extra.shift_remove(RETENTION_KEY),
        };
        let path = self.config_path(topic);
        // The store's temporary config name (0.2.3 lists only `*.twc`, our watcher
        // passes these over), of this process and this call: two writers never
        // share one, and it goes whatever fails (a full disk fails the write).
        let tmp = self.root().join(format!(".{topic}.twc.tmp-{}-{:x}", std::process::id(), crate::sys::remove::unique_number()));
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .and_then(|mut f| std::io::Write::write_all(&mut f, &config.to_bytes()).and_then(|()| f.sync_all()))
            .map_err(|e| Error::io("write", &tmp, e));
        written.and_then(|()| crate::sys::remove::replace(&tmp, &path)).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
    }

    /// Apply the topic's retention (nothing when it has none): delete what it
    /// lets go, or with `dry_run` only say.
    ///
    /// # Errors
    /// Topic, group and I/O errors.
    pub fn apply_retention(&self, topic: &str, dry_run: bool, force: bool) -> Result<RetentionPlan> {
        let Some(r) = self.retention(topic)? else {
            return Ok(RetentionPlan {
                topic: topic.to_string(),
                applied: false,
                files: Vec::new(),
                created: Vec::new(),
                unknown_groups: Vec::new(),
            });
        };
        self.run_plan(topic, Rule::Retention(r, self.today()), dry_run, force)
    }

    /// What `retention` would delete from the topic now (a dry run of a
    /// setting that need not be the topic's yet: the app previews a setting
    /// before it is saved).
    ///
    /// # Errors
    /// Topic, group and I/O errors.
    pub fn preview_retention(&self, topic: &str, retention: Retention, force: bool) -> Result<RetentionPlan> {
        self.plan(topic, Rule::Retention(retention, self.today()), force).map(|(plan, _)| plan)
    }

    /// Empty a topic without deleting it: every day file goes (with `before`,
    /// only those whose last message is stamped before it, never the newest);
    /// the topic, its config, its groups and its offsets stay: for a purge of
    /// everything each partition first gets an empty file named for its end
    /// offset, so the next message gets the offset it would have had.
    ///
    /// # Errors
    /// Topic, group and I/O errors.
    pub fn purge_topic(&self, topic: &str, before: Option<f64>, dry_run: bool, force: bool) -> Result<RetentionPlan> {
        self.run_plan(topic, Rule::Purge(before), dry_run, force)
    }

    fn run_plan(&self, topic: &str, rule: Rule, dry_run: bool, force: bool) -> Result<RetentionPlan> {
        let (mut plan, successors) = self.plan(topic, rule, force)?;
        if dry_run {
            return Ok(plan);
        }
        // Every file to delete is claimed first (on Windows another process may
        // hold one without sharing delete: then nothing is deleted, or made, and
        // the error names it). The newest files of partitions that get a
        // successor are claimed one by one: each goes only once its successor is made.
        let dir = self.topic_dir(topic);
        let older: Vec<std::path::PathBuf> =
            plan.files.iter().filter(|f| f.deleted && !successors.iter().any(|s| s.newest == f.name)).map(|f| dir.join(&f.name)).collect();
        let older = crate::sys::remove::claim("delete", &older)?;
        let newest = successors
            .iter()
            .map(|s| crate::sys::remove::claim("delete", &[dir.join(&s.newest)]))
            .collect::<Result<Vec<crate::sys::remove::Claims>>>()?;
        // A file gone already (another process applied it) was not claimed: what we meant.
        older.delete("delete")?;
        let mut created = Vec::new();
        for (s, claim) in successors.iter().zip(newest) {
            created.extend(self.replace_newest(topic, s, claim)?);
        }
        plan.created = created;
        plan.applied = true;
        Ok(plan)
    }

    /// Delete `s.newest`, the last file of a partition a purge empties (its
    /// older files are gone by now), leaving an empty file named for the
    /// partition's end offset, so that offsets go on where they were. Returns
    /// the names of the files made (none when a producer started a later file
    /// meanwhile: that file carries the offsets on).
    ///
    /// A partition never holds two files for one day, not even for a moment:
    /// 0.2.3's producers and its `consumer(start_from="now")` raise
    /// `TopicCorruptError` ("Multiple message files for the same chunk") on
    /// two files for today. Making today's successor before deleting today's
    /// newest file would leave both for a moment; deleting first would leave
    /// no file at all, and a 0.2.3 producer starting then would make today's
    /// file at offset 0, for good. So when the newest file is today's (or
    /// later, by a skewed clock), the successor is first made for the day
    /// before it; then the newest file goes; then today's file is made. With
    /// only the successor left, any producer (0.2.3's or ours) starting
    /// today's file names it exactly so (the successor's offset plus its 0
    /// lines): whoever makes it first, it is one file. The successor stays
    /// (empty, it goes with retention), so a 0.2.3 producer that listed the
    /// folder before today's file existed still finds it to count.
    fn replace_newest(&self, topic: &str, s: &Successor, claim: crate::sys::remove::Claims) -> Result<Vec<String>> {
        let dir = self.topic_dir(topic);
        // Our producers make a partition's next file under this lock, after listing again.
        let _lock = crate::sys::lock::lock_folder(&dir, &self.config_path(topic)).map_err(|e| Error::io("lock", &dir, e))?;
        let files = crate::log::files::list_partition(&dir, s.partition)?;
        let newest =
            files.iter().max_by_key(|f| (f.day, f.first)).filter(|f| f.path.file_name().and_then(|n| n.to_str()) == Some(&s.newest));
        let Some(newest) = newest else {
            // A producer started a file after it since the plan (that file carries
            // the offsets on), or it is gone already.
            claim.delete("delete")?;
            return Ok(Vec::new());
        };
        // Counted again: lines appended since the plan are deleted with the file.
        let lines = self.index().count(&newest.path)?.python_lines();
        let end = newest.first.saturating_add(lines);
        let today = self.today();
        let mut made = Vec::new();
        let make = |day: Day, made: &mut Vec<String>| -> Result<()> {
            let name = crate::log::files::PartitionFile::file_name(s.partition, day, end);
            let path = dir.join(&name);
            // An entry 0.2.3 takes for that day's file would be a second one beside it.
            if let Some(other) = crate::log::files::entries_for_day(&dir, s.partition, day)?.into_iter().find(|p| *p != path) {
                return Err(Error::DayEntryInTheWay { path: other, partition: s.partition, day: day.to_string() });
            }
            std::fs::OpenOptions::new().write(true).create(true).truncate(false).open(&path).map_err(|e| Error::io("create", path, e))?;
            made.push(name);
            Ok(())
        };
        let first_day = successor_day(newest.day, today);
        make(first_day, &mut made)?;
        claim.delete("delete")?;
        if first_day < today {
            make(today, &mut made)?;
        }
        Ok(made)
    }

    fn plan(&self, topic: &str, rule: Rule, force: bool) -> Result<(RetentionPlan, Vec<Successor>)> {
        let d = self.describe_topic(topic)?;
        // Each group's committed offset per partition (-1: "from the end", all consumed),
        // counting a 0.2.3 group whose topic is ambiguous as a reader of this one.
        let mut commits: Vec<(String, Vec<Option<i64>>)> = Vec::new();
        for g in crate::group::groups_maybe_reading(&self.groups(), topic)? {
            let gd = self.describe_group_on(&g, Some(topic))?;
            commits.push((g, gd.partitions.iter().map(|p| p.committed).collect()));
        }
        // A group whose log exists counts, whatever its config says: when what
        // it consumed cannot be told, it may still need every file (no commit
        // known for any partition: each file is unconsumed by it).
        let unknown_groups: Vec<UnknownGroup> =
            crate::group::groups_unknown(&self.groups())?.into_iter().map(|(group, why)| UnknownGroup { group, why }).collect();
        for u in &unknown_groups {
            if !commits.iter().any(|(g, _)| *g == u.group) {
                commits.push((u.group.clone(), Vec::new()));
            }
        }
        let mut files = Vec::new();
        let mut successors = Vec::new();
        for p in &d.partition_details {
            let Some((newest, older)) = p.files.split_last() else { continue };
            // A purge of everything takes the newest file too, unless it is empty
            // (then it already is the file named for the end offset).
            let everything = matches!(rule, Rule::Purge(None)) && p.end > newest.first;
            let candidates = if everything { &p.files[..] } else { older };
            let mut kept_bytes: u64 = p.bytes;
            let mut all_go = true;
            for (i, f) in candidates.iter().enumerate() {
                let next_first = p.files.get(i + 1).map_or(f.first.saturating_add(f.lines), |n| n.first);
                let goes = match rule {
                    Rule::Retention(r, today) => {
                        let old = r.days.is_some_and(|days| day_is_older(&f.day, today, days));
                        let big = r.bytes_per_partition.is_some_and(|max| kept_bytes > max);
                        old || big
                    }
                    Rule::Purge(None) => true,
                    Rule::Purge(Some(before)) => last_stamp(self, topic, p.partition, next_first).is_some_and(|t| t < before),
                };
                if !goes {
                    // Oldest first: a file that stays keeps every later one.
                    all_go = false;
                    break;
                }
                let unconsumed_by: Vec<String> = commits
                    .iter()
                    .filter(|(_, c)| {
                        let committed = c.get(p.partition as usize).copied().flatten();
                        committed.is_none_or(|c| c >= 0 && u64::try_from(c).unwrap_or(0) < next_first)
                    })
                    .map(|(g, _)| g.clone())
                    .collect();
                let deleted = force || unconsumed_by.is_empty();
                files.push(PlannedFile {
                    partition: p.partition,
                    name: f.name.clone(),
                    first: f.first,
                    messages: f.lines,
                    bytes: f.bytes,
                    unconsumed_by,
                    deleted,
                });
                if !deleted {
                    all_go = false;
                    break;
                }
                kept_bytes = kept_bytes.saturating_sub(f.bytes);
            }
            // Only a partition whose newest file goes gets a successor: a kept
            // newest file already carries the next offset, and a successor
            // beside it would be a second file for its day.
            if everything && all_go {
                successors.push(Successor { partition: p.partition, newest: newest.name.clone() });
            }
        }
        // What a run would make (it counts again, and dates by the clock then).
        let today = self.today();
        let mut created = Vec::new();
        for s in &successors {
            let Some(p) = d.partition_details.iter().find(|p| p.partition == s.partition) else { continue };
            let Some(day) = p.files.last().and_then(|f| f.day.parse().ok()).map(Day) else { continue };
            let first_day = successor_day(day, today);
            created.push(crate::log::files::PartitionFile::file_name(s.partition, first_day, p.end));
            if first_day < today {
                created.push(crate::log::files::PartitionFile::file_name(s.partition, today, p.end));
            }
        }
        Ok((RetentionPlan { topic: topic.to_string(), applied: false, files, created, unknown_groups }, successors))
    }
}

/// A partition whose every file a purge deletes, and the name of its newest
/// file, which a successor named for the partition's end offset follows.
struct Successor {
    partition: u32,
    newest: String,
}

/// The day of the file made before a purged newest file of day `newest` is
/// deleted: today, unless that is the newest file's day (or before it: a
/// skewed clock dated it later), then the day before the newest file's (see
/// `replace_newest`).
fn successor_day(newest: Day, today: Day) -> Day {
    if newest < today {
        return today;
    }
    newest.date().and_then(|d| d.pred_opt()).map_or(today, Day::from_date)
}

/// Whether a file of day `day` (`YYYYMMDD`) is more than `days` days before `today`.
fn day_is_older(day: &str, today: Day, days: u64) -> bool {
    let (Ok(d), Some(today)) = (day.parse::<u32>(), today.date()) else { return false };
    let Some(date) = Day(d).date() else { return false };
    let age = (today - date).num_days();
    u64::try_from(age).is_ok_and(|a| a > days)
}

/// The timestamp of the message before offset `end` (a file's last), if readable.
fn last_stamp(store: &Store, topic: &str, partition: u32, end: u64) -> Option<f64> {
    let at = end.checked_sub(1)?;
    let mut r = store.partition_reader(topic, partition, crate::log::cursor::StartFrom::Offset(at)).ok()?;
    r.poll().ok().flatten().filter(|m| m.offset == at).map(|m| m.timestamp)
}
