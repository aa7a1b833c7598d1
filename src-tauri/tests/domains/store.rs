//! The store's service on the fixture: what a window first shows.

use twainmq_desktop::store::service as store;
use twainmq_desktop::wire::Count;

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
