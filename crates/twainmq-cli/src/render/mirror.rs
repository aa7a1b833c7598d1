//! `mirror`: the summary of a run.

#[allow(clippy::wildcard_imports)]
use super::*;

/// `mirror`'s summary.
#[derive(Serialize)]
#[serde(transparent)]
pub(crate) struct MirrorSummary(pub(crate) twainmq_kafka::Summary);

impl Text for MirrorSummary {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        let s = &self.0;
        let way = match s.direction {
            twainmq_kafka::Direction::ToKafka => "to",
            twainmq_kafka::Direction::FromKafka => "from",
        };
        let state = if s.interrupted { "interrupted" } else { "done" };
        writeln!(out, "mirror {way} kafka://{}: {state} in {:.1} s", s.broker, s.seconds)?;
        for t in &s.topics {
            let name = if t.source == t.target { t.source.clone() } else { format!("{} -> {}", t.source, t.target) };
            let created = if t.created { ", target created" } else { "" };
            let resumed: Vec<String> = t.resumed_from.iter().map(u64::to_string).collect();
            writeln!(
                out,
                "  {name}: {} mirrored ({} bytes), {} from the target left out, {} partitions from offsets {}{created}",
                t.mirrored,
                t.bytes,
                t.skipped_from_target,
                t.partitions,
                resumed.join(",")
            )?;
            if t.retries > 0 {
                writeln!(out, "    {} retries after the cluster failed", t.retries)?;
            }
            for g in &t.groups {
                let moved: Vec<String> = g.written.iter().map(|(p, from, to)| format!("{p}: {from} -> {to}")).collect();
                match &g.note {
                    Some(note) => writeln!(out, "    group {}: {note}", g.group)?,
                    None if moved.is_empty() => writeln!(out, "    group {}: already there", g.group)?,
                    None => writeln!(out, "    group {}: committed {}", g.group, moved.join(", "))?,
                }
            }
        }
        Ok(())
    }
}
