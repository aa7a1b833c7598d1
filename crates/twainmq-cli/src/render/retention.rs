//! `retention`: a topic's retention and the purges planned or done.

#[allow(clippy::wildcard_imports)]
use super::*;

/// `retention show` / `set`.
#[derive(Serialize)]
pub(crate) struct RetentionView {
    pub(crate) topic: String,
    pub(crate) retention: Option<twainmq::Retention>,
}

impl Text for RetentionView {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        match &self.retention {
            None => writeln!(out, "topic {}: no retention (every file is kept)", self.topic),
            Some(r) => {
                let days = r.days.map_or("any age".to_string(), |d| format!("{d} days"));
                let bytes = r.bytes_per_partition.map_or("any size".to_string(), |b| format!("{b} bytes a partition"));
                writeln!(out, "topic {}: keep {days}, {bytes}", self.topic)
            }
        }
    }
}

/// `retention apply`, `topics purge`: each plan's files.
#[derive(Serialize)]
#[serde(transparent)]
pub(crate) struct Plans(pub(crate) Vec<twainmq::RetentionPlan>);

impl Text for Plans {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        for plan in &self.0 {
            let (files, messages, bytes) = plan.totals();
            let verb = if plan.applied { "deleted" } else { "would delete" };
            writeln!(out, "topic {}: {verb} {files} files, {messages} messages, {bytes} bytes", plan.topic)?;
            for f in &plan.files {
                let what = if f.deleted {
                    if plan.applied {
                        "deleted"
                    } else {
                        "goes"
                    }
                } else {
                    "kept"
                };
                write!(out, "  {what}  {}  {} messages  {} bytes", f.name, f.messages, f.bytes)?;
                if !f.unconsumed_by.is_empty() {
                    let how = if f.deleted { "unconsumed by" } else { "not yet consumed by" };
                    write!(out, "  ({how} {})", f.unconsumed_by.join(", "))?;
                }
                writeln!(out)?;
            }
            for c in &plan.created {
                writeln!(out, "  new empty file {c} (offsets go on from there)")?;
            }
            if !plan.created.is_empty() {
                writeln!(out, "  stop 0.2.3 producers of this topic first: one running now would write on under its deleted file's name")?;
                writeln!(
                    out,
                    "  restart 0.2.3 consumers of this topic after it: one running now stays on its deleted file and sees no new message until UTC midnight"
                )?;
            }
            for u in &plan.unknown_groups {
                writeln!(
                    out,
                    "  group {}: {}, so what it consumed cannot be told: it holds every file{}",
                    u.group,
                    u.why,
                    if plan.files.iter().any(|f| f.deleted && f.unconsumed_by.contains(&u.group)) { " (forced past)" } else { "" }
                )?;
            }
            if plan.files.iter().any(|f| !f.deleted) {
                writeln!(out, "  files kept for groups go with --force")?;
            }
        }
        Ok(())
    }
}
