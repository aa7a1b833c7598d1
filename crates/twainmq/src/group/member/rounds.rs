//! A member's part in the group's rounds: it offers when a round opens,
//! confirms what it was given when one ends, ends a round whose time has
//! passed, opens one when it was left out, and follows an admin's reset.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use super::{now_secs, GroupMember};
use crate::error::Result;
use crate::group::cache::{mend_torn, read_all};
use crate::group::records::Record;
use crate::group::state::Event;
use crate::log::consumer::StartFrom;
use crate::log::reader::PartitionReader;

/// The shortest interval between automatic rounds, whatever
/// [`GroupOptions::auto_round`] says.
const MIN_AUTO_ROUND: Duration = Duration::from_millis(100);

/// A member left out of a round opens another at most once this many windows...
const REJOIN_WINDOWS: u32 = 10;
/// ... and never more often than this.
const MIN_REJOIN_EVERY: Duration = Duration::from_secs(1);

impl GroupMember {
    pub(super) fn send(&mut self, r: &Record) -> Result<()> {
        self.writer.send(&crate::format::key::Key::Int(self.id.into()), &r.to_outgoing()).map(|_| ())
    }

    /// Open a round (0.2.3's `trigger_rebal`): all live members offer, and after
    /// the window partitions are assigned again. Cheap when nothing changed.
    ///
    /// # Errors
    /// I/O errors.
    pub fn trigger_round(&mut self) -> Result<()> {
        self.begin_round()?;
        self.heartbeat()
    }

    pub(super) fn begin_round(&mut self) -> Result<()> {
        let ends_at = now_secs(&self.dir) + self.opts.window.as_secs_f64();
        self.send(&Record::BeginRound { ends_at })?;
        self.last_round = Instant::now();
        Ok(())
    }

    /// Process new group records (offer when a round opens, confirm when it
    /// ends) and end an open round whose time has passed. Called by every poll.
    ///
    /// # Errors
    /// I/O errors.
    pub fn heartbeat(&mut self) -> Result<()> {
        self.last_heartbeat = Some(Instant::now());
        self.process()?;
        if let Some(r) = self.log.open_round() {
            if !self.wrote_end && now_secs(&self.dir) > r.ends_at {
                let ended = r.begin_offset;
                self.send(&Record::EndRound)?;
                self.wrote_end = true;
                // Confirm from the offers before the round's first ENDREBAL (ours, or an
                // earlier one): read on until that round is no longer the open one (it
                // ended, or a newer round replaced it).
                let deadline = Instant::now() + Duration::from_secs(5);
                while self.log.open_round().is_some_and(|r| r.begin_offset == ended) && Instant::now() < deadline {
                    self.process()?;
                    if self.log.open_round().is_some_and(|r| r.begin_offset == ended) {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                }
            }
        }
        if let Some(every) = self.opts.auto_round {
            // At most one round a window (and never more often than MIN_AUTO_ROUND):
            // an auto round of 0 would otherwise open rounds as fast as records can
            // be written. The round is processed on the next heartbeat, not by
            // calling back into this one (which recursed without end).
            let every = every.max(self.opts.window).max(MIN_AUTO_ROUND);
            if self.log.open_round().is_none() && self.last_round.elapsed() >= every {
                self.begin_round()?;
                self.process()?;
            }
        }
        Ok(())
    }

    pub(super) fn process(&mut self) -> Result<()> {
        let mut events = Vec::new();
        read_all(&mut self.reader, &mut self.log, |key, ev| events.push((key, ev.clone())))?;
        if !self.log.torn.is_empty() {
            mend_torn(&mut self.log);
        }
        // The last round to end in these records counted no offer of ours.
        let mut left_out = false;
        for (key, ev) in events {
            match ev {
                // A commit under key 0 after we joined is an admin's (a reset): move
                // the partitions we hold to it, so our next commit does not undo it.
                Event::Committed { offsets } if key == 0 => self.follow_reset(&offsets)?,
                Event::RoundBegan { .. } => {
                    self.wrote_end = false;
                    self.last_round = Instant::now();
                    left_out = false;
                    let offer = Record::Offer { own: self.assigned.clone(), partitions: (0..self.partitions).collect() };
                    self.send(&offer)?;
                }
                Event::RoundEnded { assignment } => {
                    self.confirm(&assignment)?;
                    left_out = self.log.last_completed().is_some_and(|r| !r.offers.iter().any(|o| o.id == self.id));
                }
                _ => {}
            }
        }
        if left_out {
            self.rejoin()?;
        }
        Ok(())
    }

    /// A round ended without an offer of ours: we were late, or an `ENDREBAL`
    /// meant for an earlier round ended it early (another member's
    /// `BEGINREBAL` landed between the ender's last read and its write: 0.2.3
    /// has the same race). Left alone, a live member then holds nothing until
    /// someone opens a round, which 0.2.3 members and groups without automatic
    /// rounds never do. So open one, unless one is already open, we are
    /// leaving, or we did so lately (at most once per [`REJOIN_WINDOWS`]
    /// windows, so a member that is always late cannot keep the group in
    /// rounds).
    pub(super) fn rejoin(&mut self) -> Result<()> {
        let every = self.opts.window.saturating_mul(REJOIN_WINDOWS).max(MIN_REJOIN_EVERY);
        if self.closed || self.log.open_round().is_some() || self.last_rejoin.is_some_and(|t| t.elapsed() < every) {
            return Ok(());
        }
        tracing::info!(group = %self.group, id = self.id, "a round ended without this member's offer: opening another");
        self.last_rejoin = Some(Instant::now());
        self.begin_round()
    }

    pub(super) fn follow_reset(&mut self, offsets: &[(u32, i64)]) -> Result<()> {
        for &(p, o) in offsets {
            if self.assigned.contains(&p) {
                let from = if o >= 0 { StartFrom::Offset(o.unsigned_abs()) } else { StartFrom::Now };
                tracing::debug!(group = %self.group, id = self.id, partition = p, offset = o, "moved to a reset");
                self.consumer.seek(p, from)?;
            }
        }
        Ok(())
    }

    pub(super) fn confirm(&mut self, assignment: &BTreeMap<u32, Vec<u32>>) -> Result<()> {
        let mine = assignment.get(&self.id).cloned().unwrap_or_default();
        self.consumer.retain(&mine);
        let config = self.dir.topic_config(&self.topic)?;
        for &p in &mine {
            if !self.assigned.contains(&p) {
                let from = match self.log.commits.get(&p) {
                    Some(&o) if o >= 0 => StartFrom::Offset(o.unsigned_abs()),
                    Some(_) => StartFrom::Now,
                    None => StartFrom::Offset(0),
                };
                self.consumer.add_reader(PartitionReader::open(&self.dir, &self.topic, &config, p, from)?);
            }
        }
        tracing::debug!(group = %self.group, id = self.id, partitions = ?mine, "round confirmed");
        self.assigned = mine.clone();
        self.wrote_end = false;
        self.send(&Record::Confirm { partitions: mine })
    }

    pub(super) fn maybe_heartbeat(&mut self) -> Result<()> {
        let due = self.last_heartbeat.is_none_or(|t| t.elapsed() >= self.opts.heartbeat_every);
        if due {
            self.heartbeat()?;
        }
        Ok(())
    }
}
