//! Handing over a search's hits in timeline order while it runs: the
//! results of finished tasks are taken in each partition's offset order, and
//! a hit is settled once nothing still unread can be placed before it.

use std::sync::Mutex;

use super::hits::{merge, HitRef, PartHits, Task, TaskHits};
use crate::error::Result;
use crate::store::Store;

/// The hits of finished tasks, put in order as the tasks end: each
/// partition's tasks are taken in offset order (their places continue from
/// the one before), and a hit is settled once its place is below the place
/// every unfinished partition has reached (nothing unread there can come
/// before it: places never decrease along a partition).
pub(super) struct Settle<'a> {
    store: &'a Store,
    topic: &'a str,
    firsts: &'a [u64],
    tasks: &'a [Task],
    /// Each partition's tasks (indexes into `tasks`), in offset order.
    order: Vec<Vec<usize>>,
    /// How many of them have been taken.
    taken: Vec<usize>,
    /// The largest timestamp of the lines taken so far (`None` before any).
    carry: Vec<Option<f64>>,
    /// The hits found, per partition (what [`Hits`] is made of).
    pub(super) parts: Vec<PartHits>,
    /// How many of each partition's hits have been handed over.
    settled: Vec<usize>,
    /// Scratch for the hand-over.
    out: Vec<HitRef>,
}

impl<'a> Settle<'a> {
    pub(super) fn new(store: &'a Store, topic: &'a str, partitions: &[u32], firsts: &'a [u64], tasks: &'a [Task]) -> Settle<'a> {
        let mut order = vec![Vec::new(); partitions.len()];
        for (i, t) in tasks.iter().enumerate() {
            order[t.part].push(i);
        }
        for o in &mut order {
            o.sort_by_key(|&i| tasks[i].from);
        }
        Settle {
            store,
            topic,
            firsts,
            tasks,
            order,
            taken: vec![0; partitions.len()],
            carry: vec![None; partitions.len()],
            parts: partitions.iter().map(|&partition| PartHits { partition, ..PartHits::default() }).collect(),
            settled: vec![0; partitions.len()],
            out: Vec::new(),
        }
    }

    /// Take the tasks that have ended, in order, and hand over what settled.
    /// `all`: every task has ended; one without a result was never run (a
    /// cancel) and is passed over.
    pub(super) fn take(&mut self, results: &Mutex<Vec<Option<TaskHits>>>, all: bool, on_settled: &mut impl FnMut(&[HitRef])) -> Result<()> {
        let mut frontier = f64::INFINITY;
        for part in 0..self.order.len() {
            while let Some(&i) = self.order[part].get(self.taken[part]) {
                let r = results.lock().unwrap_or_else(|p| p.into_inner())[i].take();
                let Some(r) = r else {
                    if all {
                        self.taken[part] += 1;
                        continue;
                    }
                    break;
                };
                let task = &self.tasks[i];
                let before = match self.carry[part] {
                    Some(c) => c,
                    None if task.from > self.firsts[part] => {
                        crate::log::seek::max_before(self.store.log(), self.topic, task.partition, task.from)?
                    }
                    None => f64::NEG_INFINITY,
                };
                let p = &mut self.parts[part];
                p.places.extend(r.places.iter().map(|x| x.max(before)));
                p.offsets.extend(r.offsets);
                p.times.extend(r.times);
                self.carry[part] = Some(before.max(r.max));
                self.taken[part] += 1;
            }
            if self.taken[part] < self.order[part].len() {
                // The next line of this partition is placed at or after what it reached.
                frontier = frontier.min(self.carry[part].unwrap_or(f64::NEG_INFINITY));
            }
        }
        self.hand_over(frontier, on_settled);
        Ok(())
    }

    /// Merge the partitions' unsettled hits placed before `frontier`.
    fn hand_over(&mut self, frontier: f64, on_settled: &mut impl FnMut(&[HitRef])) {
        self.out.clear();
        merge(&self.parts, &mut self.settled, frontier, &mut self.out);
        if !self.out.is_empty() {
            on_settled(&self.out);
        }
    }
}
