//! Whole-log scans (search) with progress and cancel.
//!
//! [`find`] reads the partitions (and ranges of big ones) on every core and
//! returns references to the hits, never capped; [`Hits::ordered`] puts them
//! in timeline order and [`read_hits`] reads the messages of a slice of them.
//! Conditions on the key, the offset and the time are decided from each
//! line's head, before its payload is inflated.

mod find;
mod hits;
mod matcher;
mod settle;

/// Lower the calling thread to background priority, for a thread that does
/// nothing but search (an app's search thread): the workers [`find`] starts
/// from it run at that priority too, so a program's interactive threads (its
/// event loop, its renderer) run first while the scan holds every core, and
/// an idle machine still gives the scan all of them. Returns whether the
/// system lowered it: on Linux (nice 4) and Windows (below normal); on macOS
/// a priority is the whole process's, so nothing changes and it is `false`.
pub fn in_background() -> bool {
    crate::sys::priority::lower_this_thread()
}

pub use find::{count, find, find_streaming, read_hits};
pub(crate) use hits::Head;
pub use hits::{HitRef, Hits};
use matcher::Matcher;

use crate::error::Result;
use crate::format::payload::Payload;
use crate::store::Store;

/// What a search matches. All given conditions must hold.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// Exact key (as text: the number, or the string).
    pub key: Option<String>,
    /// Text to find in the payload (text, typed JSON, or bytes as hex).
    pub text: Option<String>,
    /// `text` is a regular expression.
    pub regex: bool,
    /// Match `text` with case as given; otherwise both sides are lower-cased
    /// (Unicode-aware).
    pub case_sensitive: bool,
    /// Only these partitions (all when `None`).
    pub partitions: Option<Vec<u32>>,
    /// Only messages stamped at or after this UNIX time (seconds).
    pub since: Option<f64>,
    /// Only messages stamped at or before this UNIX time (seconds).
    pub until: Option<f64>,
    /// Only messages this CEL filter matches (docs/QUERY.md); its tests on the
    /// key, partition, offset and time run before a payload is inflated.
    pub filter: Option<crate::query::Filter>,
}

/// Progress of a scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Progress {
    /// Messages read so far (damaged lines are skipped, not counted).
    pub scanned: u64,
    /// Messages in the partitions searched when the scan began, from each
    /// one's first offset on disk to its end.
    pub total: u64,
    /// Matches so far.
    pub hits: u64,
}

/// How a scan ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// Every partition was read to the end it had when the scan began.
    Done,
    /// The `cancel` flag was set.
    Cancelled,
}

/// The text a search looks at for a payload.
pub fn searchable_text(p: &Payload) -> std::borrow::Cow<'_, str> {
    match p {
        Payload::Text(s) => std::borrow::Cow::Borrowed(s),
        Payload::Bytes(b) => std::borrow::Cow::Owned(hex_lower(b)),
        // The JSON with its strings' escapes resolved: 0.2.3 (and we, to match it)
        // write every non-ASCII character as \uXXXX, and quotes as \".
        Payload::Typed(t) => {
            std::borrow::Cow::Owned(format!("{} {}", t.class.as_deref().unwrap_or(""), crate::format::pyjson::searchable(&t.json)))
        }
    }
}

fn hex_lower(b: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        s.push(HEX[usize::from(x >> 4)] as char);
        s.push(HEX[usize::from(x & 15)] as char);
    }
    s
}

/// The first offset at or after UNIX time `t` in a partition, `None` when no
/// message is that late. Found by the line index's seek marks, reading only
/// timestamps: exact when timestamps grow with offsets, a first crossing when
/// they do not.
///
/// # Errors
/// I/O errors.
pub fn offset_at_time(store: &Store, topic: &str, partition: u32, t: f64) -> Result<Option<u64>> {
    crate::log::seek::offset_at_time(store.log(), topic, partition, t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{KeyType, Outgoing, TopicSpec};

    fn hits(store: &Store, text: &str, case_sensitive: bool) -> Vec<u64> {
        let q = Query { text: Some(text.into()), case_sensitive, ..Query::default() };
        let stop = std::sync::atomic::AtomicBool::new(false);
        let (_, hits) = find(store, "t", &q, &stop, |_| {}).expect("search");
        let mut found: Vec<u64> = hits.ordered().iter().map(|h| h.offset).collect();
        found.sort_unstable();
        found
    }

    #[test]
    fn plain_search_folds_case_for_ascii_and_unicode_text() {
        let dir = tempfile::tempdir().expect("tmp");
        let store = Store::open(dir.path()).expect("open");
        store.create_topic("t", &TopicSpec::new(KeyType::U8, 1)).expect("create");
        let mut p = store.producer("t").expect("producer");
        for text in ["a Zebra crossing", "no stripes here", "GROSSER ÄRGER", "zebra", "größer ärger"] {
            p.send_text(1u8, text).expect("send");
        }
        p.send(&crate::Key::Int(1), &Outgoing::Bytes(vec![0xab, 0xcd])).expect("send bytes");
        assert_eq!(hits(&store, "zEBRA", false), vec![0, 3]);
        assert_eq!(hits(&store, "Zebra", true), vec![0]);
        assert_eq!(hits(&store, "ärger", false), vec![2, 4]);
        assert_eq!(hits(&store, "ÄRGER", true), vec![2]);
        assert_eq!(hits(&store, "ABCD", false), vec![5]); // bytes are searched as lower-case hex
        assert_eq!(hits(&store, "ABCD", true), Vec::<u64>::new());
    }
}
