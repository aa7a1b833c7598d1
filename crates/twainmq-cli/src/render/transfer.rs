//! `import`: what was imported, or where it stopped.

#[allow(clippy::wildcard_imports)]
use super::*;

/// `import`: what was written, or in a dry run would be.
#[derive(Serialize)]
#[serde(transparent)]
pub(crate) struct Imported(pub(crate) twainmq::transfer::ImportReport);

impl Text for Imported {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        let r = &self.0;
        let verb = if r.dry_run { "would write" } else { "wrote" };
        writeln!(out, "{verb} {} messages from {} lines", r.messages, r.lines)?;
        let parts: Vec<String> = r.partitions.iter().enumerate().filter(|(_, n)| **n > 0).map(|(p, n)| format!("{p}: {n}")).collect();
        if !parts.is_empty() {
            writeln!(out, "partitions: {}", parts.join(", "))?;
        }
        match &r.first_bad {
            Some(b) => {
                writeln!(out, "{} bad lines; the first is line {}: {}", r.bad_lines, b.line, b.problem)?;
                // The count above is with --skip-bad: without it the first bad line ends the import.
                match r.messages_before_first_bad {
                    Some(n) => writeln!(
                        out,
                        "without --skip-bad the import writes the {n} messages before line {}, then stops there: nothing after it is written",
                        b.line
                    ),
                    None => Ok(()),
                }
            }
            None => writeln!(out, "no bad lines"),
        }
    }
}

/// An import that stopped: what is in the topic (`import`'s report on an error).
#[derive(Serialize)]
pub(crate) struct ImportStopped {
    /// Messages of the input in the topic.
    pub(crate) messages: u64,
    /// Of those, each partition's.
    pub(crate) partitions: Vec<u64>,
    pub(crate) stopped: StoppedAt,
}

/// Where an import stopped.
#[derive(Serialize)]
pub(crate) struct StoppedAt {
    /// Every input line before this one is in the topic.
    pub(crate) line: u64,
    /// Lines after it that are in the topic too.
    pub(crate) landed_after: Vec<u64>,
    /// The error's code.
    pub(crate) error: &'static str,
    pub(crate) message: String,
}

impl Text for ImportStopped {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "wrote {} messages before stopping", self.messages)?;
        let parts: Vec<String> = self.partitions.iter().enumerate().filter(|(_, n)| **n > 0).map(|(p, n)| format!("{p}: {n}")).collect();
        if !parts.is_empty() {
            writeln!(out, "partitions: {}", parts.join(", "))?;
        }
        let after = &self.stopped.landed_after;
        if after.is_empty() {
            writeln!(out, "in the topic: every input line before line {}, nothing from it on", self.stopped.line)
        } else {
            writeln!(
                out,
                "in the topic: every input line before line {}, and {} lines after it (--json lists them)",
                self.stopped.line,
                after.len()
            )
        }
    }
}
