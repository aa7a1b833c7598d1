//! The wire types of offset resets (every mode, the dry run's plan) and of
//! offsets files (`twainmq groups export`'s JSON, read for an import).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use specta::Type;
use twainmq::group;

use crate::wire::{Commit, Delta, ErrorCode, ErrorDto, Offset};

/// Where a reset moves a group's commits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum ResetTarget {
    Earliest,
    Latest,
    /// To the request's `offset` (within each partition's start and end).
    Offset,
    /// To the first message at or after the request's `time`.
    Time,
    /// The committed offset moved by the request's `shift` (±N messages).
    Shift,
    /// To the first message at or after `ago_secs` before now.
    Ago,
    /// To the committed offsets of the request's `other_group` (same topic).
    Group,
    /// To the request's `offsets` (from an offsets file: an import).
    Offsets,
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct ResetRequest {
    pub to: ResetTarget,
    /// For `offset`.
    pub offset: Option<Offset>,
    /// UNIX seconds, for `time`.
    pub time: Option<f64>,
    /// Messages to move by, for `shift`.
    pub shift: Option<Delta>,
    /// Seconds before now, for `ago`.
    pub ago_secs: Option<f64>,
    /// The group whose commits to copy, for `group`.
    pub other_group: Option<String>,
    /// `"<partition>"` to offset (`-1`: the end), for `offsets`.
    pub offsets: Option<BTreeMap<String, Commit>>,
    /// The group and topic an offsets file names (`offsets` from a file `groups export`
    /// wrote): a file of another topic is refused, one of another group is said in the plan.
    pub file_group: Option<String>,
    pub file_topic: Option<String>,
    /// All partitions when absent.
    pub partitions: Option<Vec<u32>>,
    pub dry_run: bool,
    /// The group's topic, for a 0.2.3 group that several topics could belong to.
    pub topic: Option<String>,
}

impl TryFrom<&ResetRequest> for group::ResetTo {
    type Error = ErrorDto;
    fn try_from(r: &ResetRequest) -> Result<Self, ErrorDto> {
        Ok(match r.to {
            ResetTarget::Earliest => group::ResetTo::Earliest,
            ResetTarget::Latest => group::ResetTo::Latest,
            ResetTarget::Offset => group::ResetTo::Offset(
                r.offset.ok_or_else(|| ErrorDto::new(ErrorCode::InvalidOffset, "a reset to an offset needs the offset"))?.get(),
            ),
            ResetTarget::Time => {
                group::ResetTo::Time(r.time.ok_or_else(|| ErrorDto::new(ErrorCode::InvalidReset, "a reset to a time needs the time"))?)
            }
            ResetTarget::Shift => group::ResetTo::Shift(
                r.shift.ok_or_else(|| ErrorDto::new(ErrorCode::InvalidReset, "a shift needs the number of messages, e.g. -100"))?.get(),
            ),
            ResetTarget::Ago => {
                let secs = r.ago_secs.filter(|s| s.is_finite() && *s >= 0.0).ok_or_else(|| {
                    ErrorDto::new(ErrorCode::InvalidReset, "a reset by duration needs a duration of zero seconds or more, e.g. 30m")
                })?;
                group::ResetTo::Ago(secs)
            }
            ResetTarget::Group => {
                let other = r
                    .other_group
                    .as_deref()
                    .ok_or_else(|| ErrorDto::new(ErrorCode::InvalidReset, "a reset to another group's offsets needs that group's name"))?;
                group::ResetTo::Group(other.to_string())
            }
            ResetTarget::Offsets if r.file_group.is_some() || r.file_topic.is_some() => group::ResetTo::File(group::OffsetsFile {
                group: r.file_group.clone(),
                topic: r.file_topic.clone(),
                offsets: offsets_of(r.offsets.as_ref())?,
            }),
            ResetTarget::Offsets => group::ResetTo::Offsets(offsets_of(r.offsets.as_ref())?),
        })
    }
}

/// The offsets of an import, checked as an offsets file is (partitions are
/// numbers, offsets are -1 or more, at least one).
fn offsets_of(m: Option<&BTreeMap<String, Commit>>) -> Result<BTreeMap<u32, i64>, ErrorDto> {
    let bad = |m: String| ErrorDto::new(ErrorCode::InvalidOffsets, m);
    let m = m.ok_or_else(|| bad("an import needs the offsets: open a file `twainmq groups export` wrote".into()))?;
    let mut out = BTreeMap::new();
    for (p, o) in m {
        let part = p.parse::<u32>().map_err(|_| bad(format!("{p:?} is not a partition number")))?;
        if o.get() < -1 {
            return Err(bad(format!("partition {p}: {o} is not an offset (a whole number, or -1 for the end)")));
        }
        out.insert(part, o.get());
    }
    if out.is_empty() {
        return Err(bad("the offsets name no partition".into()));
    }
    Ok(out)
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct ResetRowDto {
    pub partition: u32,
    pub before: Option<Commit>,
    pub after: Offset,
    pub start: Offset,
    pub end: Offset,
    /// The offset the request named for this partition (an offset, a file's), when it lay
    /// outside the partition's start..end and `after` is where it was moved to.
    pub clamped_from: Option<Offset>,
}

impl From<&group::ResetRow> for ResetRowDto {
    fn from(r: &group::ResetRow) -> Self {
        ResetRowDto {
            partition: r.partition,
            before: r.before.map(Commit),
            after: r.after.into(),
            start: r.start.into(),
            end: r.end.into(),
            clamped_from: None,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct ResetPlanDto {
    pub group: String,
    pub topic: String,
    pub rows: Vec<ResetRowDto>,
    /// Members holding partitions now, by the last round (live or not).
    pub live_members: Vec<u32>,
    /// Our members holding reset partitions: those running move to the reset.
    pub following: Vec<u32>,
    /// 0.2.3 members holding reset partitions: those running overwrite it with their next commit.
    pub overwriting: Vec<u32>,
    pub applied: bool,
    /// The other group whose offsets these are (another group's, or a file exported from one).
    pub from_group: Option<String>,
}

impl From<group::ResetPlan> for ResetPlanDto {
    fn from(p: group::ResetPlan) -> Self {
        ResetPlanDto {
            rows: p.rows.iter().map(ResetRowDto::from).collect(),
            group: p.group,
            topic: p.topic,
            live_members: p.live_members,
            following: p.following,
            overwriting: p.overwriting,
            applied: p.applied,
            from_group: p.from_group,
        }
    }
}

/// An offsets file read for an import (`twainmq groups export`'s JSON).
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct OffsetsFile {
    pub path: String,
    /// The group and topic the file names, if it names them.
    pub group: Option<String>,
    pub topic: Option<String>,
    /// `"<partition>"` to offset (`-1`: the end when taken).
    pub offsets: BTreeMap<String, Commit>,
}
