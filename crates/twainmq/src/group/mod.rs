//! Consumer groups: 0.2.3's protocol, group inspection from the log, offset resets.
//!
//! A group `g` is the topic `--group--g` (u32 keys, one partition, the seven
//! record types). Our engine also records the group's topic as an extra
//! `"topic"` key in its config, which 0.2.3 ignores. The protocol is written
//! down in `docs/FORMAT.md` ("Consumer groups").
//!
//! Layer: above the log (`log/`), below the store. Inside:
//! `records` (the seven record payloads) -> `assign` (0.2.3's assignment rule)
//! -> `state` (folding records into a group's state) -> `liveness` (member
//! status and group state inferred from the fold) -> `cache`, `setup`
//! (making and binding group logs) -> `describe`, `reset`, `member` (a live
//! member of a group).

pub(crate) mod assign;
mod cache;
mod describe;
mod history;
mod liveness;
mod member;
mod open;
mod options;
pub(crate) mod records;
mod reset;
mod setup;
mod state;

pub use crate::error::GroupError;
pub use describe::{GroupDescription, LagBreach, LagThresholds, MemberView, PartitionProgress};
pub use history::{LagHistory, LagMark, LagPoint, PartitionLag, MAX_BUCKETS};
pub use liveness::{GroupPhase, Liveness, MemberLiveness, MemberStatus, RoundChurn, Thresholds, Waiting, ROUND_GRACE_SECS};
pub use member::GroupMember;
pub use options::GroupOptions;
pub use records::ClientInfo;
pub use reset::{parse_duration_secs, parse_offsets, parse_offsets_file, OffsetsFile, ResetPlan, ResetRow, ResetTo};
pub use state::{BadCommit, Event, GroupLog, OfferView, RoundView};

/// The protocol's pure parts, for the fuzz targets (see `crate::internals`).
#[doc(hidden)]
pub mod internals {
    pub use super::assign::{assign, Offer};
    pub use super::records::{Record, TYPES};
}
pub(crate) use cache::{read_log, GroupLogs, Groups};
pub(crate) use describe::{describe_on, trigger_round};
pub(crate) use history::lag_history;
pub(crate) use reset::reset_on;
pub(crate) use setup::{ensure, group_topic_of, groups_maybe_reading, groups_reading, groups_unknown};
