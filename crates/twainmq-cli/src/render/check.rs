//! `check`: the problems found.

#[allow(clippy::wildcard_imports)]
use super::*;
use twainmq::check::Problem;

/// `check`: one line a problem, `topic[/partition][ file[:line]][ offset N]: message (kind)`.
#[derive(Serialize)]
#[serde(transparent)]
pub(crate) struct Problems(pub(crate) Vec<Problem>);

impl Text for Problems {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        for p in &self.0 {
            let place = match (&p.file, p.line) {
                (Some(f), Some(l)) => format!(" {f}:{l}"),
                (Some(f), None) => format!(" {f}"),
                _ => String::new(),
            };
            let part = p.partition.map_or(String::new(), |p| format!("/{p}"));
            let off = p.offset.map_or(String::new(), |o| format!(" offset {o}"));
            writeln!(out, "{}{part}{place}{off}: {} ({})", p.topic, p.message, p.kind)?;
        }
        Ok(())
    }
}
