//! The wire types of a group's lag over time and of its lag alerts (the
//! thresholds, and a check against them). Counts and offsets travel as
//! decimal strings, as everywhere.

use serde::{Deserialize, Serialize};
use specta::Type;
use twainmq::group;

use super::wire::GroupPhaseDto;
use crate::wire::{Count, Offset};

/// Which past span a lag history covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum HistorySpan {
    Hour,
    Day,
    Week,
    /// From the group's first record on.
    All,
}

/// One point of a lag line.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct LagPointDto {
    /// UNIX seconds (the end of its bucket).
    pub at: f64,
    pub lag: Count,
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct PartitionLagDto {
    pub partition: u32,
    pub points: Vec<LagPointDto>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum LagMarkKind {
    /// A round began (`BEGINREBAL`).
    Round,
    /// An admin commit (a reset) after the group's first record.
    Reset,
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct LagMarkDto {
    pub at: f64,
    pub kind: LagMarkKind,
    /// The record's offset in the group log.
    pub offset: Offset,
}

/// A group's lag over a past span, computed from the files (commit
/// timestamps in the group log, the partitions' time indexes).
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct LagHistoryDto {
    pub group: String,
    pub topic: String,
    pub span: HistorySpan,
    pub from: f64,
    pub to: f64,
    /// The group's first join or round, if its log has one: before it the
    /// "lag" is only the topic's messages (no member read then).
    pub since: Option<f64>,
    /// The sum over partitions, one point per bucket.
    pub total: Vec<LagPointDto>,
    pub partitions: Vec<PartitionLagDto>,
    /// Rounds and resets within the span, in log order.
    pub marks: Vec<LagMarkDto>,
}

impl LagHistoryDto {
    pub fn new(h: group::LagHistory, span: HistorySpan) -> Self {
        let n = h.partitions.first().map_or(0, |p| p.points.len());
        let total = (0..n)
            .map(|i| {
                let at = h.partitions.first().and_then(|p| p.points.get(i)).map_or(h.to, |pt| pt.at);
                let lag = h.partitions.iter().filter_map(|p| p.points.get(i)).fold(0u64, |s, pt| s.saturating_add(pt.lag));
                LagPointDto { at, lag: lag.into() }
            })
            .collect();
        LagHistoryDto {
            total,
            partitions: h
                .partitions
                .into_iter()
                .map(|p| PartitionLagDto {
                    partition: p.partition,
                    points: p.points.into_iter().map(|pt| LagPointDto { at: pt.at, lag: pt.lag.into() }).collect(),
                })
                .collect(),
            marks: h
                .marks
                .into_iter()
                .map(|m| LagMarkDto {
                    at: m.at,
                    kind: if m.kind == "reset" { LagMarkKind::Reset } else { LagMarkKind::Round },
                    offset: m.offset.into(),
                })
                .collect(),
            group: h.group,
            topic: h.topic,
            since: None,
            span,
            from: h.from,
            to: h.to,
        }
    }
}

/// A group's alert thresholds: a partition is over when more than `max_lag`
/// messages are not yet committed, or its oldest such message is older than
/// `max_age_secs` (the same rule as `twainmq groups lag --max-lag --max-age`).
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct LagAlertThresholds {
    pub max_lag: Option<Count>,
    pub max_age_secs: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct LagBreachDto {
    pub partition: u32,
    pub lag: Count,
    /// Seconds since its oldest message not yet committed, if it has one.
    pub age_secs: Option<f64>,
    /// `max_lag` and/or `max_age`.
    pub over: Vec<String>,
}

/// A group against its thresholds now (by the store's clock).
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct LagCheckDto {
    pub group: String,
    pub state: GroupPhaseDto,
    pub total_lag: Count,
    /// The oldest unconsumed message's age over all partitions, seconds.
    pub oldest_age_secs: Option<f64>,
    /// Only the partitions over a threshold; empty: within them.
    pub over: Vec<LagBreachDto>,
    /// When it was checked, UNIX seconds (the store's clock).
    pub at: f64,
}
