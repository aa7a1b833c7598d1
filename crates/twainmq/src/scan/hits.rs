//! What a search finds: its hits per partition (offsets, timestamps and
//! places on the timeline), the tasks that find them, and the one merge that
//! puts them in timeline order.

/// One hit: where it is, and its timestamp (for the timeline order).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HitRef {
    /// The partition it is in.
    pub partition: u32,
    /// Its offset there.
    pub offset: u64,
    /// Its timestamp, UNIX seconds.
    pub timestamp: f64,
}

/// Every hit of a search, per partition in offset order.
#[derive(Debug, Clone, Default)]
pub struct Hits {
    pub(super) parts: Vec<PartHits>,
}

#[derive(Debug, Clone, Default)]
pub(super) struct PartHits {
    pub(super) partition: u32,
    pub(super) offsets: Vec<u64>,
    pub(super) times: Vec<f64>,
    /// Each hit's place on the timeline: the largest timestamp of the
    /// partition up to it (`log/timeline.rs`), non-decreasing.
    pub(super) places: Vec<f64>,
}

/// What one task found: its hits (offsets, timestamps, places counted from
/// the task's start) and the largest timestamp of every line it read.
#[derive(Debug, Clone, Default)]
pub(super) struct TaskHits {
    pub(super) offsets: Vec<u64>,
    pub(super) times: Vec<f64>,
    pub(super) places: Vec<f64>,
    pub(super) max: f64,
}

impl Hits {
    /// How many hits there are.
    pub fn len(&self) -> u64 {
        self.parts.iter().map(|p| p.offsets.len() as u64).sum()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.parts.iter().all(|p| p.offsets.is_empty())
    }

    /// The hits of each partition searched: `(partition, count)`.
    pub fn per_partition(&self) -> Vec<(u32, u64)> {
        self.parts.iter().map(|p| (p.partition, p.offsets.len() as u64)).collect()
    }

    /// Every hit in timeline order: by place (the largest timestamp of its
    /// partition up to it, counting every message, not only hits), then
    /// partition, then offset, which is the order the topic's timeline reads
    /// them in: a search's results are the timeline filtered.
    pub fn ordered(&self) -> Vec<HitRef> {
        let mut out = Vec::with_capacity(usize::try_from(self.len()).unwrap_or(0));
        merge(&self.parts, &mut vec![0; self.parts.len()], f64::INFINITY, &mut out);
        out
    }
}

/// Merge the partitions' hits from `next[i]` on into `out`, in timeline order
/// (by place, then partition; a partition's own order kept), stopping before
/// the first placed at or after `frontier`; `next` is moved past those taken.
/// The one merge of hits: [`Hits::ordered`] and the hand-over while a search runs.
pub(super) fn merge(parts: &[PartHits], next: &mut [usize], frontier: f64, out: &mut Vec<HitRef>) {
    // The partitions' next hits in a heap: O(log k) a hit for k partitions.
    let mut heap = std::collections::BinaryHeap::new();
    for (i, p) in parts.iter().enumerate() {
        if let Some(&t) = p.places.get(next[i]) {
            heap.push(std::cmp::Reverse(Head { t, partition: p.partition, i }));
        }
    }
    while let Some(std::cmp::Reverse(Head { t, i, .. })) = heap.pop() {
        if t >= frontier {
            break;
        }
        let p = &parts[i];
        let k = next[i];
        out.push(HitRef { partition: p.partition, offset: p.offsets[k], timestamp: p.times[k] });
        next[i] += 1;
        if let Some(&t) = p.places.get(k + 1) {
            heap.push(std::cmp::Reverse(Head { t, partition: p.partition, i }));
        }
    }
}

/// A partition's next item in a merge by time: ordered by (timestamp or
/// place, partition). Shared with the export's timeline merge.
#[derive(Debug, PartialEq)]
pub(crate) struct Head {
    pub(crate) t: f64,
    pub(crate) partition: u32,
    pub(crate) i: usize,
}

impl Eq for Head {}

impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Head {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.t.total_cmp(&other.t).then(self.partition.cmp(&other.partition))
    }
}

/// A range of one partition for one worker.
#[derive(Clone, Copy)]
pub(super) struct Task {
    /// Index into the partitions searched.
    pub(super) part: usize,
    pub(super) partition: u32,
    pub(super) from: u64,
    pub(super) to: u64,
}
