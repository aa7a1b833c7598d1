//! `Store::lag_history` against a brute-force computation on a generated
//! log: every message and every group record decoded, the lag at each moment
//! counted from them directly.

use std::sync::Arc;
use std::time::Duration;

use twainmq::group::{LagHistory, ResetTo};
use twainmq::internals::Record;
use twainmq::{Key, KeyType, ManualClock, StartFrom, Store, TopicSpec};

const T0: f64 = 1_800_000_000.0;
const PARTS: u32 = 3;

/// A small deterministic generator (xorshift), so a failure replays.
struct Rng(u64);
impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Every message's (offset, timestamp) per partition.
fn messages(store: &Store) -> Vec<Vec<(u64, f64)>> {
    (0..PARTS)
        .map(|p| {
            let mut r = store.partition_reader("t", p, StartFrom::Start).expect("reader");
            let mut out = Vec::new();
            while let Some(m) = r.poll().expect("poll") {
                out.push((m.offset, m.timestamp));
            }
            out
        })
        .collect()
}

/// Every commit of the group log, in log order: (record time, partition, offset),
/// and the marks: (time, kind).
#[allow(clippy::type_complexity)]
fn group_records(store: &Store, group: &str) -> (Vec<(f64, u32, i64)>, Vec<(f64, &'static str)>) {
    let mut r = store.partition_reader(&twainmq::names::group_topic(group), 0, StartFrom::Start).expect("group log");
    let (mut commits, mut marks) = (Vec::new(), Vec::new());
    let mut first = true;
    while let Some(m) = r.poll().expect("poll") {
        match Record::from_message(&m).expect("a record") {
            Record::Commit { offsets } => {
                for (p, o) in offsets {
                    commits.push((m.timestamp, p, o));
                }
                if !first && m.key == Key::Int(0) {
                    marks.push((m.timestamp, "reset"));
                }
            }
            Record::BeginRound { .. } => marks.push((m.timestamp, "round")),
            _ => {}
        }
        first = false;
    }
    (commits, marks)
}

/// The lag at `t` by brute force: the messages stamped before t (from the
/// partition's first offset), minus the latest commit written at or before t.
fn brute(msgs: &[(u64, f64)], commits: &[(f64, u32, i64)], p: u32, t: f64) -> u64 {
    let start = msgs.first().map_or(0, |(o, _)| *o);
    let end_at = |t: f64| start + msgs.iter().filter(|(_, ts)| *ts < t).count() as u64;
    let committed = commits.iter().rev().find(|(at, q, _)| *q == p && *at <= t).map_or(0, |&(at, _, o)| {
        if o < 0 {
            end_at(at)
        } else {
            u64::try_from(o).expect("non-negative")
        }
    });
    end_at(t).saturating_sub(committed)
}

fn check(store: &Store, group: &str, h: &LagHistory) {
    let msgs = messages(store);
    let (commits, marks) = group_records(store, group);
    assert_eq!(h.partitions.len(), PARTS as usize);
    for pl in &h.partitions {
        for pt in &pl.points {
            let want = brute(&msgs[pl.partition as usize], &commits, pl.partition, pt.at);
            assert_eq!(pt.lag, want, "group {group} partition {} at {}", pl.partition, pt.at - T0);
        }
    }
    let want_marks: Vec<(f64, &str)> = marks.into_iter().filter(|(at, _)| *at >= h.from && *at <= h.to).collect();
    let got_marks: Vec<(f64, &str)> = h.marks.iter().map(|m| (m.at, m.kind)).collect();
    assert_eq!(got_marks, want_marks, "group {group}: marks");
}

#[test]
fn lag_history_matches_a_brute_force_count_over_a_generated_log() {
    let dir = tempfile::tempdir().expect("tmp");
    let clock = ManualClock::new((T0 * 1e6) as i64);
    let store = Store::open(dir.path()).expect("open").with_clock(Arc::new(clock.clone()));
    store.create_topic("t", &TopicSpec::new(KeyType::U16, PARTS)).expect("topic");
    store.ensure_group("t", "g", StartFrom::Start).expect("group g");
    let mut producer = store.producer("t").expect("producer");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for step in 0..1500u32 {
        // Mostly forward, sometimes a producer's clock a little behind (out-of-order stamps).
        let jump = i64::try_from(rng.next(20_000_000)).expect("small") + 250_000;
        clock.advance(if rng.next(25) == 0 { -jump / 2 } else { jump });
        let key = u16::try_from(rng.next(500)).expect("small");
        producer.send_text(key, "m").expect("send");
        match rng.next(40) {
            0 => {
                let ends = store.end_offsets("t").expect("ends");
                let p = u32::try_from(rng.next(u64::from(PARTS))).expect("small");
                let to = rng.next(ends[p as usize] + 1);
                store.reset_group("g", ResetTo::Offset(to), Some(&[p]), false).expect("reset");
            }
            1 if step > 400 => {
                store.reset_group("h", ResetTo::Latest, None, false).expect("reset");
            }
            2 => store.trigger_round("g", Duration::from_secs(5)).expect("round"),
            _ => {}
        }
        if step == 200 {
            // Made from now: its first commits are -1, "the end when taken", counted as the end then.
            store.ensure_group("t", "h", StartFrom::Now).expect("group h");
        }
        if step == 700 {
            // A whole day's quiet: the messages after it are in the next day's files.
            clock.advance(86_400_000_000);
        }
    }
    let end = clock.clone();
    let now = {
        use twainmq::Clock;
        end.now_micros() as f64 / 1e6
    };
    for (group, from, to, buckets) in [
        ("g", T0 - 100.0, now + 100.0, 97),
        ("g", T0 + 3_000.123, T0 + 9_000.7, 41),
        ("h", T0 - 1.0, now, 60),
        ("g", now - 3_600.0, now, 1),
        ("h", T0 + 86_400.0, now, 13),
    ] {
        let h = store.lag_history(group, from, to, buckets).expect("history");
        assert_eq!(h.partitions[0].points.len(), buckets as usize);
        assert!(h.partitions.iter().any(|p| p.points.iter().any(|pt| pt.lag > 0)), "a history of zeros tests little");
        check(&store, group, &h);
    }
}

#[test]
fn a_span_that_is_empty_reversed_unbounded_or_has_no_points_is_refused() {
    let dir = tempfile::tempdir().expect("tmp");
    let store = Store::open(dir.path()).expect("open");
    store.create_topic("t", &TopicSpec::new(KeyType::U16, 1)).expect("topic");
    store.ensure_group("t", "g", StartFrom::Start).expect("group");
    for (from, to, buckets) in
        [(10.0, 10.0, 5), (20.0, 10.0, 5), (f64::NAN, 10.0, 5), (0.0, f64::INFINITY, 5), (0.0, 1.0, 0), (0.0, 1.0, u32::MAX)]
    {
        let e = store.lag_history("g", from, to, buckets).expect_err("refused");
        assert_eq!(e.code(), "invalid_span", "{from} {to} {buckets}: {e}");
    }
    let h = store.lag_history("g", 0.0, 1.0, twainmq::group::MAX_BUCKETS).expect("the most points");
    assert_eq!(h.partitions[0].points.len(), twainmq::group::MAX_BUCKETS as usize);
}

/// One message stamped a year ahead (a producer's clock off) among 3,000
/// over 50 minutes: the history still climbs with the messages (it gave
/// `3 5 5 5 5 4` when "the first offset at or after t" ended the partition
/// at the stray message for every later t).
#[test]
fn one_message_stamped_a_year_ahead_does_not_flatten_the_history() {
    let dir = tempfile::tempdir().expect("tmp");
    let clock = ManualClock::new((T0 * 1e6) as i64);
    let store = Store::open(dir.path()).expect("open").with_clock(Arc::new(clock.clone()));
    store.create_topic("t", &TopicSpec::new(KeyType::U16, PARTS)).expect("topic");
    store.ensure_group("t", "g", StartFrom::Start).expect("group");
    let mut p = store.producer("t").expect("producer").with_partitioner(|_, _| 0);
    for i in 0..3000i64 {
        if i == 3 {
            clock.advance(365 * 86_400_000_000);
            p.send_text(1u16, "from the future").expect("send");
            clock.advance(-365 * 86_400_000_000);
            continue;
        }
        clock.advance(1_000_000);
        p.send_text(1u16, "m").expect("send");
    }
    let h = store.lag_history("g", T0, T0 + 3000.0, 6).expect("history");
    let lags: Vec<u64> = h.partitions[0].points.iter().map(|pt| pt.lag).collect();
    // Every 500 s: about 500 more messages each time (the stray one counted from a year on).
    assert_eq!(lags, vec![499, 999, 1499, 1999, 2499, 2999], "{lags:?}");
    check(&store, "g", &h);
}
