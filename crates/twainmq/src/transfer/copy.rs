//! Copy and replay: a selection's messages sent into another topic, of this
//! store or another, keys kept and partitioned by the target's partitioner.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::send::{Refused, Sender};
use super::{read_selection, Progress, Selection};
use crate::error::{Error, Result, TransferError};
use crate::format::message::Message;
use crate::format::payload::{Outgoing, Payload};
use crate::scan::Finish;
use crate::store::Store;

/// How [`copy`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CopyOptions {
    /// Keep each message's timestamp (else they are stamped now).
    pub keep_timestamps: bool,
    /// At most this many messages a second (none: as fast as it goes).
    pub rate: Option<u64>,
}

/// What a copy did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopyReport {
    /// Messages now in the target.
    pub messages: u64,
    /// Whether it read the whole selection or was cancelled.
    pub finish: Finish,
}

/// Send the messages of `sel` (read from `store`) into `target_topic` of
/// `target` (which may be `store`), in timeline order. Keys and payloads are
/// kept (typed messages by class name, which the target must declare); each
/// message goes to the partition the target's partitioner picks for its key.
///
/// # Errors
/// [`TransferError::CopyIntoItself`] and [`TransferError::KeyTypesDiffer`]
/// before anything is read; topic errors;
/// [`TransferError::CopyStopped`] with the count written when a message
/// cannot go into the target (its key or class) or a write fails.
pub fn copy(
    store: &Store,
    sel: &Selection,
    target: &Store,
    target_topic: &str,
    opts: &CopyOptions,
    cancel: &AtomicBool,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<CopyReport> {
    // One folder however reached (another spelling, a link, a bind mount): by identity.
    let same_root =
        crate::sys::identity::is_within(target.root(), store.root()) && crate::sys::identity::is_within(store.root(), target.root());
    if same_root && sel.topic == target_topic {
        return Err(TransferError::CopyIntoItself { topic: sel.topic.clone() }.into());
    }
    let source_type = store.topic_config(&sel.topic)?.key_type;
    let producer = target.producer(target_topic)?;
    let target_type = producer.config().key_type;
    if source_type.is_int() != target_type.is_int() {
        let (source_topic, target_topic) = (sel.topic.clone(), target_topic.to_string());
        return Err(TransferError::KeyTypesDiffer { source_topic, source_type, target_topic, target_type }.into());
    }
    let mut sender = Sender::new(producer);
    let mut pacer = opts.rate.map(Pacer::new);
    let per_batch = pacer.as_ref().map_or(super::BATCH, Pacer::burst);
    let mut cancelled_waiting = false;
    let stopped = |sender: &Sender, cause: Error| -> Error {
        TransferError::CopyStopped { target: target_topic.to_string(), written: sender.sent, cause: Box::new(cause) }.into()
    };
    let finish = read_selection(store, sel, cancel, &mut |batch: Vec<Message>, total| {
        for chunk in batch.chunks(per_batch) {
            if let Some(pacer) = &mut pacer {
                if !pacer.take(chunk.len(), cancel) {
                    cancelled_waiting = true;
                    return Ok(());
                }
            }
            for m in chunk {
                let payload = match outgoing(m) {
                    Ok(p) => p,
                    Err(problem) => {
                        // Those before it go in first: the target holds a prefix of the selection.
                        sender.flush().map_err(refused)?;
                        let (topic, partition, offset) = (m.topic.to_string(), m.partition, m.offset);
                        return Err(TransferError::Uncopyable { topic, partition, offset, problem }.into());
                    }
                };
                sender.push(m.key.clone(), payload, opts.keep_timestamps.then_some(m.timestamp));
            }
            sender.flush().map_err(refused)?;
            on_progress(Progress { done: sender.sent, total });
        }
        Ok(())
    });
    match finish {
        Ok(finish) => Ok(CopyReport { messages: sender.sent, finish: if cancelled_waiting { Finish::Cancelled } else { finish } }),
        Err(e) => Err(stopped(&sender, e)),
    }
}

fn refused(r: Refused) -> Error {
    match r {
        Refused::Message(_, e) | Refused::Write(e) => e,
    }
}

/// A token bucket for `copy --rate N`: N tokens a second, holding at most one
/// burst (a fiftieth of a second's worth, at least 1, at most a batch), and
/// full at the start. A burst is sent only when it has a token for each of its
/// messages, so in any second at most N + burst - 1 messages go (N when the
/// burst is 1, below 50 a second), whatever stalls came before: time not used
/// for sending is not saved up beyond one burst.
pub(crate) struct Pacer {
    rate: f64,
    burst: usize,
    tokens: f64,
    at: Instant,
}

impl Pacer {
    pub(crate) fn new(rate: u64) -> Pacer {
        let burst = usize::try_from(rate / 50).unwrap_or(usize::MAX).clamp(1, super::BATCH);
        Pacer { rate: rate.max(1) as f64, burst, tokens: burst as f64, at: Instant::now() }
    }

    /// Messages sent at once (and the bucket's size).
    pub(crate) fn burst(&self) -> usize {
        self.burst
    }

    /// Wait until `n` (at most [`Pacer::burst`]) messages may go, and take
    /// their tokens; looks at `cancel` every 100 ms (false: cancelled).
    pub(crate) fn take(&mut self, n: usize, cancel: &AtomicBool) -> bool {
        let n = n.min(self.burst) as f64;
        loop {
            let now = Instant::now();
            self.tokens = (self.tokens + now.duration_since(self.at).as_secs_f64() * self.rate).min(self.burst as f64);
            self.at = now;
            if self.tokens >= n {
                self.tokens -= n;
                return true;
            }
            if cancel.load(Ordering::Relaxed) {
                return false;
            }
            let wait = Duration::from_secs_f64((n - self.tokens) / self.rate);
            std::thread::sleep(wait.min(Duration::from_millis(100)));
        }
    }
}

/// A read message as one to send: typed ones by their class name.
pub(crate) fn outgoing(m: &Message) -> Result<Outgoing, String> {
    Ok(match &m.payload {
        Payload::Text(s) => Outgoing::Text(s.clone()),
        Payload::Bytes(b) => Outgoing::Bytes(b.clone()),
        Payload::Typed(t) => match &t.class {
            Some(class) => Outgoing::Typed { class: class.clone(), json: t.json.clone() },
            None => return Err(format!("it is a typed message of type id {} that the topic's config names no class for", t.type_id)),
        },
    })
}
