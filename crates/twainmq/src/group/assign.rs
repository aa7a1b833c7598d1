//! The partition assignment every member computes from a round's offers, exactly as 0.2.3 does.

use std::collections::{BTreeMap, BTreeSet};

/// A member's offer in a round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offer {
    /// Partitions the member held when it offered.
    pub own: Vec<u32>,
    /// Partitions it is willing to take.
    pub partitions: Vec<u32>,
}

/// Assign partitions from offers, given in the order 0.2.3's dict would hold
/// them (first offer of each member; a later offer replaces it in place).
///
/// 1. allowed = set(partitions); owned = own ∩ allowed (order and repeats kept);
/// 2. preference = sorted(owned) + sorted(allowed − owned);
/// 3. members ordered by (len(allowed) asc, len(owned) desc, id asc);
/// 4. passes over that order, each member taking the first partition of its
///    list not yet taken, until every offered partition is taken;
/// 5. each member's partitions sorted.
///
/// # Examples
/// ```
/// use twainmq::internals::{assign, Offer};
/// let offers = vec![(1, Offer { own: vec![0, 1, 2, 3], partitions: vec![0, 1, 2, 3] }),
///                   (2, Offer { own: vec![], partitions: vec![0, 1, 2, 3] })];
/// let a = assign(&offers);
/// assert_eq!(a[&1], vec![0, 2]);
/// assert_eq!(a[&2], vec![1, 3]);
/// ```
pub fn assign(offers: &[(u32, Offer)]) -> BTreeMap<u32, Vec<u32>> {
    struct Cleaned {
        id: u32,
        allowed: usize,
        owned: usize,
        list: Vec<u32>,
    }
    let mut cleaned: Vec<Cleaned> = offers
        .iter()
        .map(|(id, o)| {
            let allowed: BTreeSet<u32> = o.partitions.iter().copied().collect();
            let mut owned: Vec<u32> = o.own.iter().copied().filter(|p| allowed.contains(p)).collect();
            let owned_len = owned.len();
            owned.sort_unstable();
            let rest = allowed.iter().copied().filter(|p| !owned.contains(p));
            let list = owned.iter().copied().chain(rest).collect();
            Cleaned { id: *id, allowed: allowed.len(), owned: owned_len, list }
        })
        .collect();
    let all: BTreeSet<u32> = offers.iter().flat_map(|(_, o)| o.partitions.iter().copied()).collect();
    let mut assigned: BTreeMap<u32, Vec<u32>> = cleaned.iter().map(|c| (c.id, Vec::new())).collect();
    cleaned.sort_by(|a, b| a.allowed.cmp(&b.allowed).then(b.owned.cmp(&a.owned)).then(a.id.cmp(&b.id)));
    let mut taken = BTreeSet::new();
    let mut cursors = vec![0usize; cleaned.len()];
    while taken.len() < all.len() {
        let before = taken.len();
        for (c, cur) in cleaned.iter().zip(cursors.iter_mut()) {
            while *cur < c.list.len() && taken.contains(&c.list[*cur]) {
                *cur += 1;
            }
            if let Some(&p) = c.list.get(*cur) {
                *cur += 1;
                taken.insert(p);
                assigned.entry(c.id).or_default().push(p);
            }
        }
        if taken.len() == before {
            break; // unreachable: every offered partition is in someone's list
        }
    }
    for v in assigned.values_mut() {
        v.sort_unstable();
    }
    assigned
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offer(own: &[u32], partitions: &[u32]) -> Offer {
        Offer { own: own.to_vec(), partitions: partitions.to_vec() }
    }

    #[test]
    fn keeps_owned_partitions_and_splits_evenly() {
        let a = assign(&[(1, offer(&[0, 1, 2, 3], &[0, 1, 2, 3])), (2, offer(&[], &[0, 1, 2, 3]))]);
        assert_eq!(a[&1], vec![0, 2]);
        assert_eq!(a[&2], vec![1, 3]);
        let a = assign(&[(1, offer(&[0, 2], &[0, 1, 2, 3]))]);
        assert_eq!(a[&1], vec![0, 1, 2, 3]);
        assert!(assign(&[]).is_empty());
    }

    #[test]
    fn every_partition_exactly_once() {
        let offers: Vec<(u32, Offer)> = (1..=5).map(|i| (i, offer(&[i % 7, (i * 3) % 7], &[0, 1, 2, 3, 4, 5, 6]))).collect();
        let a = assign(&offers);
        let mut all: Vec<u32> = a.values().flatten().copied().collect();
        all.sort_unstable();
        assert_eq!(all, vec![0, 1, 2, 3, 4, 5, 6]);
    }
}
