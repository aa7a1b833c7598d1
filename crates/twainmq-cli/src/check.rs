//! `twainmq check`: every problem in a store (or one topic); exits 1 when it finds any.

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::Result;
use twainmq::Store;

use crate::render::{self, Problems};

pub(crate) fn run(store: &Store, topic: Option<&str>, json: bool) -> Result<ExitCode> {
    let problems = match topic {
        Some(t) => twainmq::check::check_topic(store, t)?,
        None => twainmq::check::check_store(store)?,
    };
    let mut out = io::stdout().lock();
    let problems = Problems(problems);
    render::emit(&mut out, &problems, json)?;
    out.flush()?;
    // The verdict goes to standard error, so the JSON on standard output stays one document.
    if problems.0.is_empty() {
        eprintln!("no problems found");
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("{} problems found", problems.0.len());
        Ok(ExitCode::from(1))
    }
}
