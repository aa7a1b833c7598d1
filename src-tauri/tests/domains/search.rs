//! The search's service on the fixture: sessions that count every hit, and filter checks.

use std::sync::atomic::AtomicBool;

use twainmq::Store;
use twainmq_desktop::search::service as search;
use twainmq_desktop::search::wire::{FilterCheck, SearchEvent, SearchFinish, SearchQuery};
use twainmq_desktop::wire::{Count, ErrorCode};

use crate::common::{fixture, key};

fn run(store: &Store, q: &SearchQuery, cancel: bool) -> (Vec<SearchEvent>, Option<Vec<twainmq::scan::HitRef>>) {
    let mut events = Vec::new();
    let mut hits = Vec::new();
    let ran = search::search(store, "events", q, &AtomicBool::new(cancel), &mut |ev| events.push(ev), &mut |h| hits.extend_from_slice(h));
    (events, ran.then_some(hits))
}

fn q(text: Option<&str>) -> SearchQuery {
    SearchQuery {
        key: None,
        text: text.map(Into::into),
        regex: false,
        case_sensitive: false,
        partitions: None,
        since: None,
        until: None,
        filter: None,
    }
}

#[test]
fn search_sessions_count_every_hit_and_read_them_by_index() {
    let (_d, store) = fixture();
    let (events, hits) = run(&store, &q(Some("gamma")), false);
    let hits = hits.expect("hits");
    let Some(SearchEvent::Done { hits: h, scanned, total, finish }) = events.last().cloned() else { panic!("{events:?}") };
    assert!(hits.len() > 10);
    assert_eq!(h, Count(hits.len() as u64));
    assert_eq!((scanned, total, finish), (Count(240), Count(240), SearchFinish::Done));
    // Rows by index, in timeline order, every one a hit.
    let page = search::search_rows(&store, "events", &hits[3..8], Count(3), hits.len() as u64).expect("rows");
    assert_eq!(page.hits, Count(hits.len() as u64));
    assert_eq!(page.rows.len(), 5);
    assert!(page.rows.iter().all(|r| r.text.as_deref().is_some_and(|t| t.contains("gamma"))));
    assert!(page.rows.windows(2).all(|w| w[0].timestamp <= w[1].timestamp));
    let tail =
        search::search_rows(&store, "events", &hits[hits.len() - 2..], Count(hits.len() as u64 - 2), hits.len() as u64).expect("rows");
    assert_eq!(tail.rows.len(), 2);
    // Regex and key, a CEL filter, a time range, cancel, bad regex, bad filter.
    let rk = SearchQuery { key: Some(key("28977")), text: Some("^alpha #\\d+".into()), regex: true, case_sensitive: true, ..q(None) };
    assert_eq!(run(&store, &rk, false).1.expect("hits").len(), 1);
    let f = SearchQuery { filter: Some("partition == 2 && text.contains(\"gamma\")".into()), ..q(None) };
    let fh = run(&store, &f, false).1.expect("hits");
    assert!(!fh.is_empty() && fh.iter().all(|h| h.partition == 2));
    let mid = hits[hits.len() / 2].timestamp;
    let ranged = run(&store, &SearchQuery { since: Some(mid), ..q(Some("gamma")) }, false).1.expect("hits");
    assert!(ranged.len() < hits.len() && ranged.iter().all(|h| h.timestamp >= mid));
    let (events, _) = run(&store, &q(None), true);
    assert!(matches!(events.last(), Some(SearchEvent::Done { finish: SearchFinish::Cancelled, .. })), "{events:?}");
    let (events, hits) = run(&store, &SearchQuery { text: Some("(".into()), regex: true, ..q(None) }, false);
    assert!(hits.is_none());
    assert!(matches!(events.last(), Some(SearchEvent::Failed { error }) if error.code == ErrorCode::InvalidRegex), "{events:?}");
    let (events, _) = run(&store, &SearchQuery { filter: Some("value.qty >".into()), ..q(None) }, false);
    assert!(matches!(events.last(), Some(SearchEvent::Failed { error }) if error.code == ErrorCode::InvalidFilter), "{events:?}");
}

#[test]
fn filters_are_checked_with_their_place() {
    assert!(matches!(search::check_filter("key in [1, 2]"), FilterCheck::Valid { .. }));
    match search::check_filter("value.a == 1 &&\n  nosuch") {
        FilterCheck::Invalid { line, column, reason } => {
            assert_eq!(line, 2, "{reason}");
            assert!(column >= 3, "{column} {reason}");
        }
        v => panic!("{v:?}"),
    }
    match search::check_filter("value.country == \"DE\" && value.amount > 1") {
        FilterCheck::Valid { fields } => assert_eq!(fields, ["country", "amount"]),
        v => panic!("{v:?}"),
    }
}

#[test]
fn a_filter_on_a_field_no_message_has_names_it_with_near_fields() {
    let (_d, store) = fixture();
    let known = search::topic_fields(&store, "typed").expect("fields");
    // The longest field seen, misspelt by one letter dropped: a typo of a real field.
    let real = known.iter().max_by_key(|f| f.len()).expect("a field").clone();
    let name = real.trim_start_matches("value.");
    assert!(name.len() >= 4, "{known:?}");
    let typo = format!("value.{}{}", &name[..1], &name[2..]);
    let query = |filter: &str| SearchQuery { filter: Some(filter.into()), ..q(None) };
    let missing = search::missing_fields(&store, "typed", &query(&format!("{typo} == 1 || {real} != null")), &AtomicBool::new(false))
        .expect("missing");
    assert_eq!(missing.len(), 1, "{missing:?}");
    assert_eq!(missing[0].field, typo);
    assert_eq!(missing[0].near.first(), Some(&real), "{missing:?}");
    // A field the messages have is not missing; no filter, nothing missing.
    assert!(search::missing_fields(&store, "typed", &query(&format!("{real} == 1")), &AtomicBool::new(false)).expect("m").is_empty());
    assert!(search::missing_fields(&store, "typed", &q(Some("x")), &AtomicBool::new(false)).expect("m").is_empty());
    // A cancelled search stops looking and reports nothing it did not check.
    assert!(search::missing_fields(&store, "typed", &query(&format!("{typo} == 1")), &AtomicBool::new(true)).expect("m").is_empty());
}
