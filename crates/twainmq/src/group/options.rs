//! How a group member behaves.

use std::time::Duration;

use super::records::ClientInfo;
use crate::log::consumer::StartFrom;

/// How a member behaves. The defaults are 0.2.3's.
#[derive(Debug, Clone)]
pub struct GroupOptions {
    /// How long a round stays open for offers (0.2.3: 60 s).
    pub window: Duration,
    /// Where a new group starts (`Start` or `Now`); ignored for existing groups.
    pub start_from: StartFrom,
    /// Start a round this often, so that dead members' partitions move (off in 0.2.3).
    pub auto_round: Option<Duration>,
    /// Commit read positions on [`super::GroupMember::close`]. A member dropped
    /// without `close` never commits: a commit covers only what was delivered.
    pub commit_on_close: bool,
    /// On close, open a round so the others take over our partitions.
    pub rebalance_on_leave: bool,
    /// Read group records at most this often while polling (0.2.3: every poll).
    pub heartbeat_every: Duration,
    /// Join attempts before giving up (0.2.3: 4).
    pub join_attempts: u32,
    /// Which program this member is, written in its `JOINED` record beside the
    /// tag (0.2.3 reads the tag alone), so that `groups describe` and the app
    /// can say what each member is and where it runs. The default: a Rust
    /// program using the engine (`twainmq-rust`), this process on this host.
    /// `None` writes the tag alone, as 0.2.3 does.
    pub client: Option<ClientInfo>,
}

impl Default for GroupOptions {
    fn default() -> Self {
        GroupOptions {
            window: Duration::from_secs(60),
            start_from: StartFrom::Start,
            auto_round: None,
            commit_on_close: true,
            rebalance_on_leave: true,
            heartbeat_every: Duration::from_millis(10),
            join_attempts: 10,
            client: Some(ClientInfo::this_process("twainmq-rust", env!("CARGO_PKG_VERSION"))),
        }
    }
}
