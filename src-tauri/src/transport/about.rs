//! What the About dialog shows.

use serde::{Deserialize, Serialize};
use specta::Type;

/// The app's version, the engine's, and the Python `twainmq` release whose
/// stores and groups both share. The app and the `twainmq` command are built
/// from one workspace, so `app_version` is also the CLI's.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq, Eq)]
pub struct About {
    /// `twainmq-desktop`'s version, as `twainmq-desktop --version` prints it.
    pub app_version: String,
    /// The `twainmq` engine crate's version.
    pub engine_version: String,
    /// The `twainmq` (Python) release whose format and group protocol are implemented, e.g. `0.2.3`.
    pub compat: String,
}
