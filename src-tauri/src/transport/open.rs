//! What the window learns about opening stores beyond the store itself.

use serde::{Deserialize, Serialize};
use specta::Type;

use super::ErrorDto;

/// The store named on the command line did not open: its path as given and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
pub struct LaunchError {
    pub path: String,
    pub error: ErrorDto,
}
