//! Wire types of windows and launches.

use serde::{Deserialize, Serialize};
use specta::Type;

use super::ErrorDto;

/// A store given at launch (the command line, or a second launch) that did not open.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct LaunchError {
    pub path: String,
    pub error: ErrorDto,
}

/// The app's line-index cache (outside every store): where, and how big.
#[derive(Debug, Clone, Serialize, Deserialize, Type, PartialEq)]
pub struct IndexCacheInfo {
    /// The folder, or `None` when this platform gave the app no cache folder.
    pub path: Option<String>,
    /// Stores with a kept index.
    pub files: u32,
    pub bytes: super::Bytes,
}
