//! Sending batches for import and copy: the producer's fast path
//! (`send_batch`, encoded on two threads), and on a message it refuses, the
//! ones before it sent so that what lands is always a prefix of the input.

use crate::error::{Error, Result};
use crate::format::key::Key;
use crate::format::payload::Outgoing;
use crate::log::producer::Producer;

/// A batch being filled, and what was sent so far.
pub(crate) struct Sender {
    pub(crate) producer: Producer,
    pub(crate) msgs: Vec<(Key, Outgoing)>,
    /// Empty, or one timestamp per message of `msgs`.
    pub(crate) stamps: Vec<f64>,
    /// Messages sent (in the store) so far.
    pub(crate) sent: u64,
    /// Payload bytes of `msgs` (see [`Sender::full`]).
    bytes: usize,
}

/// Why a batch was not all sent.
pub(crate) enum Refused {
    /// Message `index` of the batch is invalid (its key, type, length or
    /// timestamp); every message before it was sent, nothing after.
    Message(usize, Error),
    /// Writing failed: each partition holds a prefix of its share of the batch.
    Write(Error),
}

impl Sender {
    pub(crate) fn new(producer: Producer) -> Sender {
        Sender { producer, msgs: Vec::with_capacity(super::BATCH), stamps: Vec::new(), sent: 0, bytes: 0 }
    }

    /// Add a message (and its timestamp, when kept) to the batch.
    pub(crate) fn push(&mut self, key: Key, payload: Outgoing, stamp: Option<f64>) {
        self.bytes += match &payload {
            Outgoing::Text(s) => s.len(),
            Outgoing::Bytes(b) => b.len(),
            Outgoing::Typed { json, .. } => json.len(),
        };
        self.msgs.push((key, payload));
        if let Some(t) = stamp {
            self.stamps.push(t);
        }
    }

    /// Whether the batch should go now: [`super::BATCH`] messages, or
    /// [`super::BATCH_BYTES`] of payload (large messages).
    pub(crate) fn full(&self) -> bool {
        self.msgs.len() >= super::BATCH || self.bytes >= super::BATCH_BYTES
    }

    /// Send the batch and empty it; after [`Refused::Message`] `(i, _)` the
    /// messages after the refused one stay in the batch, to send next.
    pub(crate) fn flush(&mut self) -> Result<(), Refused> {
        if self.msgs.is_empty() {
            return Ok(());
        }
        // (What stays in the batch after a refused message is counted again by the next pushes: a batch goes a little early then, never late.)
        self.bytes = 0;
        let result = self.producer.send_batch_stamped(&self.msgs, &self.stamps);
        let outcome = match result {
            Ok(n) => {
                self.sent += n as u64;
                Ok(())
            }
            Err(e) if e.is_invalid_message() => self.send_valid_prefix(e),
            Err(e) => Err(Refused::Write(e)),
        };
        match &outcome {
            Err(Refused::Message(i, _)) => {
                let upto = (i + 1).min(self.msgs.len());
                self.msgs.drain(..upto);
                self.stamps.drain(..upto.min(self.stamps.len()));
            }
            _ => {
                self.msgs.clear();
                self.stamps.clear();
            }
        }
        outcome
    }

    /// The batch held an invalid message and nothing was written: find the
    /// first one, send those before it, and say which it is.
    fn send_valid_prefix(&mut self, batch_error: Error) -> Result<(), Refused> {
        let mut bad = None;
        for (i, (key, payload)) in self.msgs.iter().enumerate() {
            if self.stamps.get(i).is_some_and(|t| !crate::log::producer::valid_stamp(*t)) {
                bad = Some((i, None));
                break;
            }
            if let Err(e) = self.producer.check(key, payload) {
                bad = Some((i, Some(e)));
                break;
            }
        }
        // (Every message passing alone cannot happen: then the batch's error is the first's.)
        let (i, e) = match bad {
            Some((i, Some(e))) => (i, e),
            Some((i, None)) => (i, batch_error),
            None => (0, batch_error),
        };
        let stamps = if self.stamps.is_empty() { &[][..] } else { &self.stamps[..i] };
        match self.producer.send_batch_stamped(&self.msgs[..i], stamps) {
            Ok(n) => self.sent += n as u64,
            Err(w) => return Err(Refused::Write(w)),
        }
        Err(Refused::Message(i, e))
    }
}
