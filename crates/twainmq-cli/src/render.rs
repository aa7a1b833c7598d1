//! The one renderer: every command's standard output is a typed value,
//! written as JSON (its `Serialize` form, one document and a newline) or as
//! text (its [`Text`] form). Commands never format their output themselves;
//! status lines and warnings go to standard error from the commands.
//! Each command family's forms are in a module of their own (`render/`).
//!
//! The text forms are what the golden test (`tests/interop/test_golden_cli.py`)
//! pins byte for byte; change one only on purpose, and regenerate the golden files.

use std::io::{self, Write};

use anyhow::Result;
use serde::Serialize;

/// A value's text form, as `twainmq` prints it without `--json`.
pub(crate) trait Text {
    /// Write the text form, newline-terminated lines.
    fn text(&self, out: &mut dyn Write) -> io::Result<()>;
}

/// Write `value` to `out` as JSON (one document and a newline) or as text.
///
/// The JSON is built first and written with one `write_all`, so a closed pipe
/// (`| head`) is the `io::Error` it is and `is_broken_pipe` ends the command
/// quietly, as it does for text (serde_json's writer wrapped it in its own error).
pub(crate) fn emit<T: Serialize + Text + ?Sized>(out: &mut dyn Write, value: &T, json: bool) -> Result<()> {
    if json {
        let mut doc = serde_json::to_vec(value)?;
        doc.push(b'\n');
        out.write_all(&doc)?;
    } else {
        value.text(out)?;
    }
    Ok(())
}

/// Write a text-only value (a confirmation of what a command did).
pub(crate) fn emit_text<T: Text + ?Sized>(out: &mut dyn Write, value: &T) -> Result<()> {
    value.text(out)?;
    Ok(())
}

mod bench;
mod check;
mod consume;
mod groups;
mod mirror;
mod produce;
mod retention;
mod topics;
mod transfer;

pub(crate) use check::Problems;
pub(crate) use consume::message;
pub(crate) use groups::{fmt_time, GroupList, GroupRow, GroupView, ResetView, RoundOpened};
pub(crate) use mirror::MirrorSummary;
pub(crate) use produce::Sent;
pub(crate) use retention::{Plans, RetentionView};
pub(crate) use topics::{Created, Deleted, TopicList, TopicRow, TopicView};
pub(crate) use transfer::{ImportStopped, Imported, StoppedAt};
