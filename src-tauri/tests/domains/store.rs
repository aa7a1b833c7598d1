//! The store's service on the fixture: what a window first shows.

use twainmq_desktop::store::service::{self as store, Look, PresenceStep, PresenceWatch};
use twainmq_desktop::store::wire::PresenceState;
use twainmq_desktop::wire::{Count, LineNo};

use crate::common::fixture;

#[test]
fn store_info_lists_topics_and_groups_with_counts() {
    let (_d, store) = fixture();
    let info = store::store_info(&store).expect("info");
    let names: Vec<&str> = info.topics.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, vec!["bigmsgs", "empty", "events", "names", "sensors", "tiny", "typed"]);
    let events = info.topics.iter().find(|t| t.name == "events").expect("events");
    assert_eq!((events.key_type.as_str(), events.partitions, events.messages), ("u16", 4, Count(240)));
    let groups: Vec<&str> = info.groups.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(groups, vec!["tail", "workers"]);
    assert_eq!(info.groups[1].topic.as_deref(), Some("events"));
}

/// A store folder deleted, renamed or made again while open: the window is told it is gone
/// (never shown as a live, empty or old store), and it comes back by itself when the folder
/// (or a store at its path) is back.
#[test]
fn a_store_folder_that_goes_is_told_and_comes_back_by_itself() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (root, moved) = (tmp.path().join("s"), tmp.path().join("moved"));
    let made = twainmq::Store::open_or_create(&root).expect("store");
    made.create_topic("t", &twainmq::TopicSpec::new(twainmq::KeyType::U8, 1)).expect("topic");
    let mut w = PresenceWatch::new(&root);
    let mut step = || w.step(&store::look(&root));
    assert_eq!(step(), PresenceStep::Same);

    // Renamed: gone; renamed back: back.
    std::fs::rename(&root, &moved).expect("rename");
    match step() {
        PresenceStep::Changed(p) => {
            assert_eq!(p.state, PresenceState::Gone);
            assert!(p.message.contains("deleted, renamed or moved"), "{}", p.message);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(step(), PresenceStep::Same, "said once");
    std::fs::rename(&moved, &root).expect("rename back");
    assert_eq!(step(), PresenceStep::Back);
    assert_eq!(step(), PresenceStep::Same);

    // Deleted, then a folder made again at its path: still gone (it holds no store), and
    // said so; a store made there: back.
    std::fs::remove_dir_all(&root).expect("delete");
    assert!(matches!(step(), PresenceStep::Changed(p) if p.state == PresenceState::Gone));
    std::fs::create_dir(&root).expect("mkdir");
    match step() {
        PresenceStep::Changed(p) => assert!(p.state == PresenceState::Gone && p.message.contains("holds no store"), "{p:?}"),
        other => panic!("{other:?}"),
    }
    twainmq::Store::open(&root).expect("store").create_topic("t", &twainmq::TopicSpec::new(twainmq::KeyType::U8, 1)).expect("topic");
    assert_eq!(step(), PresenceStep::Back);

    // A share that stops answering: unreachable, and back when it answers.
    let mut w = PresenceWatch::new(&root);
    assert!(
        matches!(w.step(&Look::Unreachable("Transport endpoint is not connected".into())), PresenceStep::Changed(p) if p.state == PresenceState::Unreachable && p.message.contains("not connected"))
    );
    assert_eq!(w.step(&store::look(&root)), PresenceStep::Back);
}

/// The store's health where the user looks: a file cut short (with its lines before and
/// after) and names Windows cannot hold come with every summary; `check`'s damaged lines
/// with their file and line on request.
#[test]
fn the_store_summary_names_files_cut_short_and_names_windows_cannot_hold() {
    let (d, store) = fixture();
    store.create_topic("con", &twainmq::TopicSpec::new(twainmq::KeyType::U8, 1)).ok();
    let before = store::store_info(&store).expect("info");
    assert!(before.shrunk.is_empty());
    if std::path::Path::new(&d.path().join("con.twc")).exists() {
        assert!(before.name_problems.iter().any(|p| p.kind == "windows_name" && p.topic == "con"), "{:?}", before.name_problems);
    }
    let events = store.describe_topic("events").expect("d");
    let f = events.partition_details[1].files.iter().find(|f| f.lines > 5).expect("a file of more than 5 lines").clone();
    let path = d.path().join("events").join(&f.name);
    let bytes = std::fs::read(&path).expect("read");
    let third = bytes.iter().enumerate().filter(|(_, b)| **b == b'\n').nth(2).map(|(i, _)| i + 1).expect("3 lines");
    std::fs::OpenOptions::new().write(true).open(&path).expect("open").set_len((third + 4) as u64).expect("cut");
    let mut tail = std::fs::OpenOptions::new()
        .append(true)
        .open(d.path().join("events").join(&events.partition_details[2].files.last().expect("f").name))
        .expect("open");
    std::io::Write::write_all(&mut tail, b"garbage line\n").expect("append");

    let after = store::store_info(&store).expect("info");
    assert_eq!(after.shrunk.len(), 1, "{:?}", after.shrunk);
    let s = &after.shrunk[0];
    assert_eq!(
        (s.topic.as_str(), s.partition, s.file.as_str(), s.lines_before, s.lines_after),
        ("events", 1, f.name.as_str(), Count(f.lines), Count(3))
    );
    let check = store::check_store(&store).expect("check");
    let damaged: Vec<_> = check.problems.iter().filter(|p| p.topic == "events" && p.kind == "damaged_line").collect();
    assert_eq!(damaged.len(), 1, "{:?}", check.problems);
    assert_eq!((damaged[0].partition, damaged[0].line.map(LineNo::get).is_some()), (Some(2), true));
    assert!(check.problems.iter().any(|p| p.topic == "events" && p.partition == Some(1) && p.kind == "unfinished_line"));
}
