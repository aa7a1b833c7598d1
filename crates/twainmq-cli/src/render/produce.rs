//! `produce`: where a message landed.

#[allow(clippy::wildcard_imports)]
use super::*;

/// Where a produced message landed.
#[derive(Serialize)]
pub(crate) struct Sent {
    pub(crate) partition: u32,
    pub(crate) offset: u64,
}

impl Text for Sent {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "sent to partition {} at offset {}", self.partition, self.offset)
    }
}
