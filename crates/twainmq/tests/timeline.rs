//! The timeline (partitions merged by timestamp) against a simple model, with
//! producers' clocks in order and out of order.

use std::sync::Arc;

use proptest::prelude::*;
use twainmq::{KeyType, ManualClock, Store, TimelineStart, TopicSpec};

/// A store whose topic `t` has one partition per list, each message stamped
/// with the given time (seconds) and carrying "p<partition>o<offset>".
fn store_with(times: &[Vec<u32>]) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("tmp");
    // Every timestamp on one day (a base at noon, offsets in seconds), so the files are one per partition.
    let base: i64 = 1_764_590_400_000_000;
    let clock = ManualClock::new(base);
    let store = Store::open(dir.path()).expect("open").with_clock(Arc::new(clock.clone()));
    let n = u32::try_from(times.len()).expect("few");
    store.create_topic("t", &TopicSpec::new(KeyType::U32, n)).expect("create");
    let mut producer = store.producer("t").expect("producer").with_partitioner(|k, _| match k {
        twainmq::Key::Int(p) => u32::try_from(*p).expect("small"),
        _ => 0,
    });
    for (p, ts) in times.iter().enumerate() {
        for (o, t) in ts.iter().enumerate() {
            clock.set(base + i64::from(*t) * 1_000_000);
            producer.send_text(u32::try_from(p).expect("small"), &format!("p{p}o{o}")).expect("send");
        }
    }
    (dir, store)
}

/// The model: among the partitions' next messages take the earliest
/// (timestamp, partition); each partition's own order is kept.
fn model(times: &[Vec<u32>]) -> Vec<(u32, u64)> {
    let mut next = vec![0usize; times.len()];
    let mut out = Vec::new();
    loop {
        let pick = (0..times.len()).filter(|p| next[*p] < times[*p].len()).min_by_key(|p| (times[*p][next[*p]], *p));
        let Some(p) = pick else { return out };
        out.push((u32::try_from(p).expect("small"), next[p] as u64));
        next[p] += 1;
    }
}

fn forward(store: &Store, start: &TimelineStart) -> Vec<(u32, u64)> {
    let mut t = store.timeline("t", None, start).expect("timeline");
    let mut out = Vec::new();
    while let Some(m) = t.poll().expect("poll") {
        assert_eq!(m.text(), Some(format!("p{}o{}", m.partition, m.offset).as_str()));
        out.push((m.partition, m.offset));
    }
    out
}

fn partitions() -> impl Strategy<Value = Vec<Vec<u32>>> {
    prop::collection::vec(prop::collection::vec(0u32..50, 0..25), 1..5)
}

fn sorted(mut times: Vec<Vec<u32>>) -> Vec<Vec<u32>> {
    times.iter_mut().for_each(|t| t.sort_unstable());
    times
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Clocks out of order: the merge is the model's, and each partition keeps its order.
    #[test]
    fn forward_merge_is_the_models(times in partitions()) {
        let (_dir, store) = store_with(&times);
        let got = forward(&store, &TimelineStart::Start);
        prop_assert_eq!(&got, &model(&times));
    }

    /// Clocks in order: the timeline is every message sorted by (time, partition, offset),
    /// and paging back from the end page by page gives the same order.
    #[test]
    fn in_order_clocks_give_the_sorted_topic_forward_and_backward(times in partitions().prop_map(sorted), page in 1usize..7) {
        let (_dir, store) = store_with(&times);
        let mut all: Vec<(u32, u32, u64)> = times.iter().enumerate()
            .flat_map(|(p, ts)| ts.iter().enumerate().map(move |(o, t)| (*t, u32::try_from(p).expect("small"), o as u64)))
            .collect();
        all.sort_unstable();
        let want: Vec<(u32, u64)> = all.iter().map(|(_, p, o)| (*p, *o)).collect();
        prop_assert_eq!(&forward(&store, &TimelineStart::Start), &want);
        let mut back = Vec::new();
        let mut before: Option<Vec<u64>> = None;
        loop {
            let pg = store.timeline_page_before("t", None, before.as_deref(), page).expect("page");
            prop_assert!(pg.messages.len() <= page);
            if pg.messages.is_empty() {
                prop_assert_eq!(&pg.begin, &pg.first, "an empty page before the first");
                break;
            }
            let mut ids: Vec<(u32, u64)> = pg.messages.iter().map(|m| (m.partition, m.offset)).collect();
            ids.extend(back);
            back = ids;
            before = Some(pg.begin);
        }
        prop_assert_eq!(&back, &want);
    }

    /// Clocks in order: starting at a time gives the sorted topic from the first message at or after it.
    #[test]
    fn starting_at_a_time_starts_at_the_first_message_at_or_after_it(times in partitions().prop_map(sorted), at in 0u32..55) {
        let (_dir, store) = store_with(&times);
        let base = 1_764_590_400.0;
        let got = forward(&store, &TimelineStart::Time(base + f64::from(at)));
        let mut all: Vec<(u32, u32, u64)> = times.iter().enumerate()
            .flat_map(|(p, ts)| ts.iter().enumerate().map(move |(o, t)| (*t, u32::try_from(p).expect("small"), o as u64)))
            .filter(|(t, _, _)| *t >= at)
            .collect();
        all.sort_unstable();
        prop_assert_eq!(got, all.iter().map(|(_, p, o)| (*p, *o)).collect::<Vec<_>>());
    }
}

/// The timeline as the topic sorted by place: the largest timestamp of the
/// message's partition up to it, then partition, then offset (a second model,
/// which paging backward relies on).
fn by_place(times: &[Vec<u32>]) -> Vec<(u32, u64)> {
    let mut all = Vec::new();
    for (p, ts) in times.iter().enumerate() {
        let mut place = 0;
        for (o, t) in ts.iter().enumerate() {
            place = place.max(*t);
            all.push((place, u32::try_from(p).expect("small"), o as u64));
        }
    }
    all.sort_unstable();
    all.into_iter().map(|(_, p, o)| (p, o)).collect()
}

fn backward(store: &Store, page: usize) -> Vec<(u32, u64)> {
    let mut back = Vec::new();
    let mut before: Option<Vec<u64>> = None;
    loop {
        let pg = store.timeline_page_before("t", None, before.as_deref(), page).expect("page");
        assert!(pg.messages.len() <= page);
        if pg.messages.is_empty() {
            assert_eq!(pg.begin, pg.first, "an empty page before the first");
            return back;
        }
        let mut ids: Vec<(u32, u64)> = pg.messages.iter().map(|m| (m.partition, m.offset)).collect();
        ids.extend(back);
        back = ids;
        before = Some(pg.begin);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Clocks out of order: the forward merge is the topic sorted by place,
    /// and paging back from the end, page by page, reads the same order.
    #[test]
    fn paging_back_from_the_end_reads_the_forward_timeline_whatever_the_clocks(times in partitions(), page in 1usize..9) {
        let (_dir, store) = store_with(&times);
        let fwd = forward(&store, &TimelineStart::Start);
        prop_assert_eq!(&fwd, &by_place(&times));
        prop_assert_eq!(&backward(&store, page), &fwd);
    }
}

#[test]
fn a_quiet_partitions_new_message_is_merged_in_while_another_partition_streams() {
    // Partition 1 has a backlog; partition 0 is empty when the timeline starts.
    let backlog: Vec<u32> = (0..20_000).map(|i| 100 + i / 1000).collect();
    let (_dir, store) = store_with(&[vec![], backlog]);
    let mut t = store.timeline("t", None, &TimelineStart::Start).expect("timeline");
    for _ in 0..100 {
        assert_eq!(t.poll().expect("poll").expect("backlog").partition, 1);
    }
    // A message for the quiet partition, stamped before the rest of the backlog.
    let clock = ManualClock::new(1_764_590_400_000_000 + 50 * 1_000_000);
    let other = Store::open(store.root()).expect("open").with_clock(Arc::new(clock));
    other.producer("t").expect("producer").with_partitioner(|_, _| 0).send_text(0u32, "p0o0").expect("send");
    std::thread::sleep(std::time::Duration::from_millis(80));
    let mut at = None;
    let mut n = 100;
    while let Some(m) = t.poll().expect("poll") {
        if m.partition == 0 {
            at = Some(n);
        }
        n += 1;
    }
    assert_eq!(n, 20_001);
    let at = at.expect("the quiet partition's message");
    assert!(at < 1000, "merged in only at {at}: idle partitions are not asked again while another streams");
}

#[test]
fn a_page_from_the_start_begins_at_the_first_offset_still_on_disk() {
    let dir = tempfile::tempdir().expect("tmp");
    let day: i64 = 86_400_000_000;
    let clock = ManualClock::new(20_000 * day + 1);
    let store = Store::open(dir.path()).expect("open").with_clock(Arc::new(clock.clone()));
    store.create_topic("t", &TopicSpec::new(KeyType::U32, 1)).expect("create");
    let mut p = store.producer("t").expect("producer");
    for i in 0..10u32 {
        if i == 5 {
            clock.set(20_001 * day + 1);
        }
        p.send_text(i, "x").expect("send");
    }
    drop(p);
    // The first day's file goes (retention, by hand): offsets 0-4 are no longer on disk.
    let mut files: Vec<_> = std::fs::read_dir(dir.path().join("t")).expect("ls").map(|e| e.expect("entry").path()).collect();
    files.sort();
    std::fs::remove_file(&files[0]).expect("rm");
    let page = store.timeline_page_after("t", None, &TimelineStart::Start, 3).expect("page");
    assert_eq!((page.first.clone(), page.begin.clone(), page.end.clone()), (vec![5], vec![5], vec![8]));
    assert_eq!(page.messages.iter().map(|m| m.offset).collect::<Vec<_>>(), [5, 6, 7]);
}
