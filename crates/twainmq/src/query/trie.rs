//! The paths under `value` a filter reads, as one tree, and what a reading
//! pass over a payload found at each of them.

use crate::query::value::{Kinds, V};

/// A step of a path under `value`: an object's field or an array's element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seg {
    Key(String),
    Index(usize),
}

/// The fields a filter reads, as a tree from `value` (node 0). A node marked
/// `whole` is read as a value, and nothing below it separately; the others
/// only record whether they are there, and of what kind.
#[derive(Debug, Default, Clone)]
pub(crate) struct Trie {
    nodes: Vec<TrieNode>,
}

#[derive(Debug, Clone)]
struct TrieNode {
    seg: Option<Seg>,
    children: Vec<usize>,
    whole: bool,
}

impl Trie {
    pub(crate) fn new() -> Trie {
        Trie { nodes: vec![TrieNode { seg: None, children: Vec::new(), whole: false }] }
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// The node of `path`, added if new; `whole` marks it read as a value.
    pub(crate) fn insert(&mut self, path: &[Seg], whole: bool) -> usize {
        let mut at = 0;
        for seg in path {
            at = match self.nodes[at].children.iter().copied().find(|&c| self.nodes[c].seg.as_ref() == Some(seg)) {
                Some(c) => c,
                None => {
                    self.nodes.push(TrieNode { seg: Some(seg.clone()), children: Vec::new(), whole: false });
                    let c = self.nodes.len() - 1;
                    self.nodes[at].children.push(c);
                    c
                }
            };
        }
        self.nodes[at].whole |= whole;
        at
    }

    /// The nodes from the root to `path`'s node (which must be in the trie).
    pub(crate) fn route(&self, path: &[Seg]) -> Vec<usize> {
        let mut at = 0;
        let mut out = vec![0];
        for seg in path {
            match self.nodes[at].children.iter().copied().find(|&c| self.nodes[c].seg.as_ref() == Some(seg)) {
                Some(c) => at = c,
                None => break,
            }
            out.push(at);
        }
        out
    }

    #[inline]
    pub(crate) fn is_whole(&self, node: usize) -> bool {
        self.nodes[node].whole
    }

    #[inline]
    pub(crate) fn is_leaf(&self, node: usize) -> bool {
        self.nodes[node].children.is_empty()
    }

    #[inline]
    pub(crate) fn child_key(&self, node: usize, key: &str) -> Option<usize> {
        self.nodes[node].children.iter().copied().find(|&c| matches!(&self.nodes[c].seg, Some(Seg::Key(k)) if k == key))
    }

    #[inline]
    pub(crate) fn child_index(&self, node: usize, i: usize) -> Option<usize> {
        self.nodes[node].children.iter().copied().find(|&c| self.nodes[c].seg == Some(Seg::Index(i)))
    }

    pub(crate) fn clear_below(&self, node: usize, slots: &mut [Slot<'_>]) {
        for &c in &self.nodes[node].children {
            slots[c] = Slot::Missing;
            self.clear_below(c, slots);
        }
    }
}

/// What one pass found at a trie node.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Slot<'a> {
    /// Not there: a missing field, an index out of range, or a parent that is
    /// not an object (or array).
    Missing,
    /// There, of this kind (nodes not read whole; numbers are only `NUMBER`).
    Kind(Kinds),
    /// There, read whole.
    Val(V<'a>),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::json::extract;
    use crate::query::value::{LIST, MAP, NULL};
    use std::borrow::Cow;

    fn s(x: &str) -> V<'_> {
        V::Str(Cow::Borrowed(x))
    }

    fn trie(paths: &[(&[Seg], bool)]) -> Trie {
        let mut t = Trie::new();
        for (p, whole) in paths {
            t.insert(p, *whole);
        }
        t
    }

    fn key(k: &str) -> Seg {
        Seg::Key(k.into())
    }

    #[test]
    fn extracts_only_what_is_asked() {
        let t = trie(&[(&[key("a"), key("b")], true), (&[key("c")], false), (&[key("l"), Seg::Index(1)], true)]);
        let mut slots = vec![Slot::Missing; t.len()];
        extract(r#"{"a":{"b":"x","z":[1]},"c":[],"l":[0,{"q":1}],"a2":1}"#, &t, &mut slots);
        let node = |p: &[Seg]| *t.route(p).last().expect("node");
        assert_eq!(slots[0], Slot::Kind(MAP));
        assert_eq!(slots[node(&[key("a")])], Slot::Kind(MAP));
        assert_eq!(slots[node(&[key("a"), key("b")])], Slot::Val(s("x")));
        assert_eq!(slots[node(&[key("c")])], Slot::Kind(LIST));
        assert_eq!(slots[node(&[key("l"), Seg::Index(1)])], Slot::Val(V::Map(vec![(Cow::Borrowed("q"), V::Int(1))])));
    }

    #[test]
    fn a_repeated_key_forgets_the_first() {
        let t = trie(&[(&[key("a"), key("b")], true)]);
        let mut slots = vec![Slot::Missing; t.len()];
        extract(r#"{"a":{"b":1},"a":{"c":2}}"#, &t, &mut slots);
        assert_eq!(slots[2], Slot::Missing);
        assert_eq!(slots[1], Slot::Kind(MAP));
    }

    #[test]
    fn invalid_text_gives_null() {
        let t = trie(&[(&[key("a")], true)]);
        let mut slots = vec![Slot::Missing; t.len()];
        extract(r#"{"a":1"#, &t, &mut slots);
        assert_eq!(slots, vec![Slot::Kind(NULL), Slot::Missing]);
        let t = trie(&[(&[], true)]);
        let mut slots = vec![Slot::Missing; t.len()];
        extract("not json", &t, &mut slots);
        assert_eq!(slots, vec![Slot::Val(V::Null)]);
    }
}
