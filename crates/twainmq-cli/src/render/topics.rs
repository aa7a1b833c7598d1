//! `topics`: the listing, a topic described, created and deleted.

#[allow(clippy::wildcard_imports)]
use super::*;
use twainmq::TopicDescription;

/// A row of `topics list`: the topic's config, or why it cannot be read.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum TopicRow {
    Topic {
        name: String,
        key_type: String,
        partitions: u32,
        message_types: Vec<String>,
        /// Large messages: the topic's largest (the format's next version).
        #[serde(skip_serializing_if = "Option::is_none")]
        max_message_bytes: Option<u64>,
    },
    Unreadable {
        name: String,
        error: String,
    },
}

/// `topics list`.
#[derive(Serialize)]
#[serde(transparent)]
pub(crate) struct TopicList(pub(crate) Vec<TopicRow>);

impl Text for TopicList {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        for row in &self.0 {
            match row {
                TopicRow::Topic { name, key_type, partitions, max_message_bytes, .. } => {
                    writeln!(out, "{name}\t{key_type}\t{partitions} partitions{}", large_note(*max_message_bytes))?;
                }
                TopicRow::Unreadable { name, .. } => writeln!(out, "{name}\t(unreadable config)")?,
            }
        }
        Ok(())
    }
}

/// `topics describe`.
#[derive(Serialize)]
#[serde(transparent)]
pub(crate) struct TopicView(pub(crate) TopicDescription);

impl Text for TopicView {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        let d = &self.0;
        if d.max_message_bytes.is_some() {
            // Offsets count lines: a large message takes several (its offset is its last line's).
            writeln!(
                out,
                "topic {}: {} keys, {} partitions, {} lines, {} bytes{}",
                d.name,
                d.key_type,
                d.partitions,
                d.messages,
                d.bytes,
                large_note(d.max_message_bytes)
            )?;
        } else {
            writeln!(
                out,
                "topic {}: {} keys, {} partitions, {} messages, {} bytes",
                d.name, d.key_type, d.partitions, d.messages, d.bytes
            )?;
        }
        if d.key_type.is_free() || d.max_message_bytes.is_some() {
            writeln!(out, "format: the next version (key_width 0): twainmq 0.2.3 refuses to open this topic")?;
        }
        if !d.message_types.is_empty() {
            let types: Vec<String> = d.message_types.iter().map(|(n, i)| format!("{n}={i}")).collect();
            writeln!(out, "message types: {}", types.join(", "))?;
        }
        for p in &d.partition_details {
            writeln!(out, "partition {}: offsets {}..{} ({} bytes)", p.partition, p.start, p.end, p.bytes)?;
            for f in &p.files {
                let torn = if f.partial_bytes > 0 { format!(" + {} bytes unfinished", f.partial_bytes) } else { String::new() };
                writeln!(out, "  {}  day {}  first {}  {} lines{}  {} bytes", f.name, f.day, f.first, f.lines, torn, f.bytes)?;
            }
        }
        // (On standard output, in the text form only, as it always was.)
        for u in &d.unknown_files {
            writeln!(out, "warning: {u} in the topic folder is not a partition file")?;
        }
        Ok(())
    }
}

/// `, large messages up to N bytes` for a topic that has them.
fn large_note(max: Option<u64>) -> String {
    max.map_or_else(String::new, |n| format!(", large messages up to {n} bytes"))
}

/// `topics create`.
pub(crate) struct Created {
    pub(crate) name: String,
    pub(crate) key_type: twainmq::KeyType,
    pub(crate) partitions: u32,
    pub(crate) max_message_bytes: Option<u64>,
}

impl Text for Created {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(
            out,
            "created topic {} ({}, {} partitions{})",
            self.name,
            self.key_type,
            self.partitions,
            large_note(self.max_message_bytes)
        )?;
        if self.key_type.is_free() || self.max_message_bytes.is_some() {
            writeln!(out, "(the format's next version: twainmq 0.2.3 cannot open this topic; twainmq-rs and this command can)")?;
        }
        Ok(())
    }
}

/// `topics delete --yes`.
pub(crate) struct Deleted {
    pub(crate) topic: String,
    /// What went with it, as counted before: "N messages in P partitions" or why not counted.
    pub(crate) messages: String,
    pub(crate) groups: Vec<String>,
}

impl Text for Deleted {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "deleted topic {} ({})", self.topic, self.messages)?;
        if self.groups.is_empty() {
            writeln!(out, "no consumer group read it")
        } else {
            writeln!(out, "deleted the consumer groups that read it: {}", self.groups.join(", "))
        }
    }
}
