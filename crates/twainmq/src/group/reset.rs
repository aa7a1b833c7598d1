//! Resetting a group's committed offsets: every mode Kafka's tool has, each
//! with a dry run that tells each partition's offset before and after.

use std::collections::BTreeMap;

use serde::Serialize;

use super::cache::{read_log, Groups};
use super::liveness::{self, MemberStatus, Thresholds};
use super::records::Record;
use super::setup::{checked_topic, group_topic_of};
use super::GroupError;
use crate::error::Result;
use crate::format::name;
use crate::log::files;

/// Where a reset moves committed offsets to. Every target is clamped to the
/// partition's first offset on disk and its end.
#[derive(Debug, Clone, PartialEq)]
pub enum ResetTo {
    /// The partition's first offset still on disk.
    Earliest,
    /// The partition's end: nothing left to consume.
    Latest,
    /// This offset.
    Offset(u64),
    /// The first message at or after this UNIX time (the end if none).
    Time(f64),
    /// The committed offset moved by this many messages (the partition's first
    /// offset when nothing is committed, its end for a `-1` commit).
    Shift(i64),
    /// The first message at or after this many seconds before now, by the store's clock.
    Ago(f64),
    /// Another group's committed offsets (of the same topic); partitions it
    /// has no commit for are left as they are.
    Group(String),
    /// These offsets per partition (`-1`: the end); partitions not named are
    /// left as they are. What [`parse_offsets`] reads from `groups export`.
    Offsets(BTreeMap<u32, i64>),
    /// The offsets of a file `groups export` wrote ([`parse_offsets_file`]):
    /// refused when it names another topic than the group's; when it names
    /// another group, the plan says so ([`ResetPlan::from_group`]).
    File(OffsetsFile),
}

/// A `groups export` document: the group and topic it was taken from (when
/// it names them) and its offsets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetsFile {
    /// The group it was exported from.
    pub group: Option<String>,
    /// That group's topic.
    pub topic: Option<String>,
    /// The offsets per partition (`-1`: the end).
    pub offsets: BTreeMap<u32, i64>,
}

/// Seconds in `30m`, `90s`, `2h`, `1d`, `1h30m` (whole numbers and these units).
fn parse_duration(text: &str) -> Option<f64> {
    let (mut total, mut digits, mut any) = (0u64, String::new(), false);
    for c in text.trim().chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let unit = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            'w' => 604_800,
            _ => return None,
        };
        let n: u64 = digits.parse().ok()?;
        total = total.checked_add(n.checked_mul(unit)?)?;
        digits.clear();
        any = true;
    }
    // Up to 100 years: beyond that no store has a message (and it fits a u32, so f64 is exact).
    if !any || !digits.is_empty() || total > 3_155_760_000 {
        return None;
    }
    u32::try_from(total).ok().map(f64::from)
}

/// Seconds in a duration such as `10m`, `90s`, `2h`, `1d`, `1h30m`.
///
/// # Errors
/// A message saying which forms are accepted.
pub fn parse_duration_secs(text: &str) -> std::result::Result<f64, String> {
    parse_duration(text).ok_or_else(|| format!("{text:?} is not a duration: use a whole number with s, m, h, d or w, e.g. 30m, 2h, 1h30m"))
}

impl ResetTo {
    /// Parse `earliest`, `latest`, `offset:N`, `time:RFC3339`, `shift:±N`,
    /// `ago:DURATION` (`30m`, `2h`, `1d`) or `group:OTHER`. (A file of offsets
    /// is read by the caller: see [`parse_offsets`].)
    ///
    /// # Errors
    /// A message saying which forms are accepted.
    pub fn parse(text: &str) -> std::result::Result<ResetTo, String> {
        match text {
            "earliest" | "start" => Ok(ResetTo::Earliest),
            "latest" | "end" => Ok(ResetTo::Latest),
            t => {
                if let Some(n) = t.strip_prefix("offset:") {
                    return n.trim().parse().map(ResetTo::Offset).map_err(|_| format!("{n:?} is not an offset (a whole number)"));
                }
                if let Some(ts) = t.strip_prefix("time:") {
                    return chrono::DateTime::parse_from_rfc3339(ts.trim())
                        .map(|d| ResetTo::Time(d.timestamp_micros() as f64 / 1e6))
                        .map_err(|e| format!("{ts:?} is not an RFC 3339 time like 2026-11-29T12:00:00Z ({e})"));
                }
                if let Some(n) = t.strip_prefix("shift:") {
                    let n = n.trim();
                    return n
                        .strip_prefix('+')
                        .unwrap_or(n)
                        .parse()
                        .map(ResetTo::Shift)
                        .map_err(|_| format!("{n:?} is not a shift: use a whole number of messages, e.g. shift:-100 or shift:+5"));
                }
                if let Some(d) = t.strip_prefix("ago:") {
                    return parse_duration_secs(d).map(ResetTo::Ago);
                }
                if let Some(g) = t.strip_prefix("group:") {
                    name::validate_group(g).map_err(|e| e.to_string())?;
                    return Ok(ResetTo::Group(g.to_string()));
                }
                Err(format!(
                    "{t:?} is not a reset target: use earliest, latest, offset:N, time:RFC3339, shift:±N, ago:DURATION, group:OTHER or file:PATH"
                ))
            }
        }
    }
}

/// The offsets of a document `groups export` wrote: `{"offsets": {"<partition>": offset}}`
/// (other keys are ignored; a bare `{"<partition>": offset}` object is taken too).
///
/// # Errors
/// [`GroupError::InvalidOffsets`] saying what is wrong.
pub fn parse_offsets(bytes: &[u8]) -> Result<BTreeMap<u32, i64>> {
    parse_offsets_file(bytes).map(|f| f.offsets)
}

/// An object whose keys were seen once each (JSON allows a key twice; a
/// document of offsets naming a partition twice is refused, not read as its last).
struct Unique(serde_json::Map<String, serde_json::Value>);

impl<'de> serde::Deserialize<'de> for Unique {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Unique;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> std::result::Result<Unique, A::Error> {
                let mut out = serde_json::Map::new();
                while let Some((k, v)) = map.next_entry::<String, serde_json::Value>()? {
                    if out.contains_key(&k) {
                        return Err(serde::de::Error::custom(format!("the key {k:?} is there twice")));
                    }
                    out.insert(k, v);
                }
                Ok(Unique(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// A `groups export` document with the group and topic it names, checked:
/// every partition written as `groups export` writes it (`0`, `1`, ...: not
/// `00`, `+1`, ` 1`), none twice, each offset a whole number from -1.
///
/// # Errors
/// [`GroupError::InvalidOffsets`] saying what is wrong.
pub fn parse_offsets_file(bytes: &[u8]) -> Result<OffsetsFile> {
    let bad = |problem: String| GroupError::InvalidOffsets { problem };
    /// The export form, its offsets read with their keys checked once each.
    #[derive(serde::Deserialize)]
    struct Exported {
        #[serde(default)]
        group: Option<String>,
        #[serde(default)]
        topic: Option<String>,
        offsets: Unique,
    }
    let Unique(doc) = serde_json::from_slice(bytes).map_err(|e| bad(format!("not a JSON object ({e})")))?;
    let (group, topic, map) = if doc.contains_key("offsets") {
        let e: Exported = serde_json::from_slice(bytes).map_err(|e| bad(format!("not a `groups export` document ({e})")))?;
        (e.group, e.topic, e.offsets.0)
    } else {
        // The bare form: its keys were seen once each by the first read.
        (None, None, doc)
    };
    let mut out = BTreeMap::new();
    for (p, o) in &map {
        let part = p.parse::<u32>().ok().filter(|n| n.to_string() == *p).ok_or_else(|| {
            bad(format!("{p:?} is not a partition number as `groups export` writes them (0, 1, 2, ...: no leading zeros, signs or spaces)"))
        })?;
        let off = o
            .as_i64()
            .filter(|o| *o >= -1)
            .ok_or_else(|| bad(format!("partition {p}: {o} is not an offset (a whole number, or -1 for the end)")))?;
        out.insert(part, off);
    }
    if out.is_empty() {
        return Err(bad("it names no partition".into()).into());
    }
    Ok(OffsetsFile { group, topic, offsets: out })
}

/// One partition's row in a reset plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResetRow {
    /// The partition.
    pub partition: u32,
    /// Its committed offset before the reset (-1: "the end when taken"),
    /// `None` if it had none.
    pub before: Option<i64>,
    /// The offset the reset commits.
    pub after: u64,
    /// The partition's first offset on disk.
    pub start: u64,
    /// The partition's end: the offset its next message will get.
    pub end: u64,
    /// The member holding it now (by the last round), if any, live or not.
    pub holder: Option<u32>,
}

/// What a reset does (or did).
#[derive(Debug, Clone, Serialize)]
pub struct ResetPlan {
    /// The group's name.
    pub group: String,
    /// The group's topic.
    pub topic: String,
    /// One row per partition reset, in partition order.
    pub rows: Vec<ResetRow>,
    /// Members holding partitions now, by the last round (live or not: the
    /// name is older than the inference; see `live_holders`).
    pub live_members: Vec<u32>,
    /// Those of `live_members` that are live, inferred from the log.
    pub live_holders: Vec<u32>,
    /// Members of ours holding reset partitions (by the last round): those
    /// still running move to the reset when they next read the group log.
    pub following: Vec<u32>,
    /// 0.2.3 members holding reset partitions (by the last round, live or
    /// not: an idle one looks as silent as a dead one): those still running
    /// keep their own position and their next commit overwrites the reset. To make it stick,
    /// stop them and wait for the round that gives their partitions away
    /// (or open one: `groups rebalance`), then reset.
    pub overwriting: Vec<u32>,
    /// Whether the `COMMIT` was written: `false` for a dry run.
    pub applied: bool,
    /// The other group whose offsets these are (a reset to `group:OTHER`, or
    /// to a file exported from another group of the same topic).
    pub from_group: Option<String>,
}

/// Reset committed offsets by writing a `COMMIT` record under key 0 (with
/// `dry_run`, only the plan); `topic` names the topic for a group 0.2.3
/// created when several could be its own.
///
/// # Errors
/// [`Error::GroupNotFound`], [`GroupError`], I/O errors.
pub(crate) fn reset_on(
    g: &Groups,
    group: &str,
    topic: Option<&str>,
    to: &ResetTo,
    partitions: Option<&[u32]>,
    dry_run: bool,
) -> Result<ResetPlan> {
    let log = read_log(g, group)?;
    let (found, _) = group_topic_of(g, group, &log)?;
    let topic = topic.map(str::to_string).or(found);
    let Some(topic) = topic else {
        return Err(GroupError::UnknownTopic { group: group.into(), partitions: log.partitions_hint.unwrap_or(0) }.into());
    };
    let topic = checked_topic(group, topic)?;
    let config = g.log.topic_config(&topic)?;
    let no_such =
        |p: u32| GroupError::NoSuchPartition { group: group.into(), topic: topic.clone(), partition: p, partitions: config.partitions };
    // Offsets from elsewhere (a file, another group) name their partitions.
    let mut from_group = None;
    let source: Option<BTreeMap<u32, i64>> = match to {
        ResetTo::Offsets(m) => Some(m.clone()),
        ResetTo::File(f) => {
            let other = f.group.clone().unwrap_or_default();
            if let Some(other_topic) = &f.topic {
                if *other_topic != topic {
                    return Err(GroupError::OtherTopic { group: group.into(), topic, other, other_topic: other_topic.clone() }.into());
                }
            }
            from_group = f.group.clone().filter(|g| g != group);
            Some(f.offsets.clone())
        }
        ResetTo::Group(other) => {
            let other_log = read_log(g, other)?;
            if let (Some(other_topic), _) = group_topic_of(g, other, &other_log)? {
                if other_topic != topic {
                    return Err(GroupError::OtherTopic { group: group.into(), topic, other: other.clone(), other_topic }.into());
                }
            }
            from_group = Some(other.clone());
            Some(other_log.commits)
        }
        _ => None,
    };
    if let Some(src) = &source {
        if let Some(p) = src.keys().find(|p| **p >= config.partitions) {
            return Err(no_such(*p).into());
        }
    }
    let mut chosen: Vec<u32> = match partitions {
        Some(ps) => {
            if let Some(p) = ps.iter().find(|p| **p >= config.partitions) {
                return Err(no_such(*p).into());
            }
            let mut ps = ps.to_vec();
            ps.sort_unstable();
            ps.dedup();
            ps
        }
        None => (0..config.partitions).collect(),
    };
    if let Some(src) = &source {
        chosen.retain(|p| src.contains_key(p));
    }
    let now = g.log.clock().now_micros() as f64 / 1e6;
    let members = log.members();
    let listing = files::list_topic_dir(&g.log.topic_dir(&topic), config.partitions)?;
    let mut rows = Vec::new();
    for p in chosen {
        // `chosen` holds only partitions below config.partitions, and the listing has one entry for each.
        let pfiles = &listing.partitions[p as usize];
        let start = pfiles.first().map_or(0, |f| f.first);
        let end = g.log.partition_end(pfiles)?;
        let before = log.commits.get(&p).copied();
        // -1 is "the end when taken".
        let committed = |c: i64| u64::try_from(c).unwrap_or(end);
        let at_time = |t: f64| crate::log::seek::offset_at_time(&g.log, &topic, p, t).map(|o| o.unwrap_or(end));
        let after = match to {
            ResetTo::Earliest => start,
            ResetTo::Latest => end,
            ResetTo::Offset(o) => *o,
            ResetTo::Time(t) => at_time(*t)?,
            ResetTo::Ago(secs) => at_time(now - secs)?,
            ResetTo::Shift(n) => {
                let base = before.map_or(start, committed);
                base.saturating_add_signed(*n)
            }
            ResetTo::Group(_) | ResetTo::Offsets(_) | ResetTo::File(_) => {
                source.as_ref().and_then(|s| s.get(&p)).map_or(start, |o| committed(*o))
            }
        }
        .clamp(start, end);
        let holder = members.iter().find(|(_, ps)| ps.contains(&p)).map(|(id, _)| *id);
        rows.push(ResetRow { partition: p, before, after, start, end, holder });
    }
    let thresholds = Thresholds::of(&log);
    let (mut live_members, mut live_holders, mut following, mut overwriting) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (id, parts) in &members {
        // Judged by silence alone: a reset warns about every holder anyway.
        let j = liveness::judge(&log, *id, parts, now, &thresholds, None);
        if !parts.is_empty() {
            live_members.push(*id);
            if j.status == MemberStatus::Live {
                live_holders.push(*id);
            }
        }
        // Every holder counts, live or not: 0.2.3 has no heartbeat, so an idle
        // 0.2.3 member that is still running looks as silent as a dead one.
        if rows.iter().any(|r| parts.contains(&r.partition)) {
            if j.follows_resets {
                following.push(*id)
            } else {
                overwriting.push(*id)
            }
        }
    }
    if !dry_run && !rows.is_empty() {
        let offsets = rows.iter().map(|r| (r.partition, i64::try_from(r.after).unwrap_or(i64::MAX))).collect();
        let mut w = g.log.producer(&name::group_topic(group))?;
        w.send(&crate::format::key::Key::Int(0), &Record::Commit { offsets }.to_outgoing())?;
    }
    Ok(ResetPlan { group: group.into(), topic, rows, live_members, live_holders, following, overwriting, applied: !dry_run, from_group })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_targets_parse_and_bad_ones_say_what_is_accepted() {
        assert_eq!(parse_duration("30m"), Some(1800.0));
        assert_eq!(parse_duration("1h30m"), Some(5400.0));
        assert_eq!(parse_duration("2d"), Some(172_800.0));
        for bad in ["", "30", "m", "-5m", "1.5h", "5 parsecs", "99999999999999999999s", "4000000000s"] {
            assert_eq!(parse_duration(bad), None, "{bad:?}");
        }
        assert_eq!(ResetTo::parse("shift:-100"), Ok(ResetTo::Shift(-100)));
        assert_eq!(ResetTo::parse("shift:+5"), Ok(ResetTo::Shift(5)));
        assert_eq!(ResetTo::parse("ago:10m"), Ok(ResetTo::Ago(600.0)));
        assert_eq!(ResetTo::parse("group:other"), Ok(ResetTo::Group("other".into())));
        assert!(ResetTo::parse("shift:x").is_err_and(|e| e.contains("shift:-100")));
        assert!(ResetTo::parse("ago:soon").is_err_and(|e| e.contains("30m")));
        assert!(ResetTo::parse("group:../x").is_err());
        assert!(ResetTo::parse("sideways").is_err_and(|e| e.contains("group:OTHER")));
    }

    #[test]
    fn offsets_documents_are_checked() {
        let m = parse_offsets(br#"{"group":"g","topic":"t","offsets":{"0":5,"2":-1}}"#).expect("export form");
        assert_eq!(m, BTreeMap::from([(0, 5), (2, -1)]));
        assert_eq!(parse_offsets(br#"{"1": 7}"#).expect("bare"), BTreeMap::from([(1, 7)]));
        for bad in [
            &b"not json"[..],
            br#"{"offsets":[1]}"#,
            br#"{"offsets":{"x":1}}"#,
            br#"{"offsets":{"0":-2}}"#,
            br#"{"offsets":{"0":1.5}}"#,
            br#"{}"#,
            br#"{"offsets":{"00":1}}"#,
            br#"{"offsets":{"0":1,"00":2}}"#,
            br#"{"offsets":{"0":1,"0":2}}"#,
            br#"{"0":1,"0":2}"#,
            br#"{"offsets":{"+1":1}}"#,
            br#"{"offsets":{" 1":1}}"#,
        ] {
            let e = parse_offsets(bad).expect_err("bad");
            assert_eq!(e.code(), "invalid_offsets", "{e}");
        }
    }
}
