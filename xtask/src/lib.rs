//! TwainMQ Desktop's development tools (`cargo xtask`): they use the app's
//! backend as a library, and the app never links them, so a release build
//! holds neither (`scripts/check-bundle.sh` checks the binary).
//!
//! - [`export_bindings`]: the TypeScript bindings of the app's commands, events
//!   and wire types (`ui/src/backend/bindings.ts`);
//! - [`record`]: the answers of the real backend that the UI's test backend
//!   replays (`ui/fixtures/recorded-store.json`).

use std::path::{Path, PathBuf};

pub mod record;

/// The workspace's root (the bindings and the recording are named from it).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Where the UI keeps the generated bindings.
pub const BINDINGS: &str = "ui/src/backend/bindings.ts";
/// Where the UI's test backend reads the recording.
pub const RECORDING: &str = "ui/fixtures/recorded-store.json";

/// The bindings' first line.
const HEADER: &str = "// Generated from the Rust wire types by `make bindings` (cargo xtask bindings). Do not edit.\n";

/// Write the TypeScript bindings to `path`.
///
/// # Errors
/// When the exporter fails.
pub fn export_bindings(path: &Path) -> Result<(), String> {
    twainmq_desktop::specta_builder()
        .export(specta_typescript::Typescript::default().header(HEADER), path)
        .map_err(|e| format!("could not write the bindings to {}: {e}", path.display()))
}
