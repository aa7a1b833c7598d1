//! Evaluating a [`Plan`] on one message: the whole of it, or what its head
//! alone decides.

use std::borrow::Cow;
use std::cell::OnceCell;

use crate::query::fields::{Msg, Var};
use crate::query::json;
use crate::query::plan::{combine, env, interpret, CmpOp, Fallback, Node, Operand, Outcomes, PathRef, Plan, StrOp, Test, Tri, ANY_OUTCOME};
use crate::query::trie::{Seg, Slot};
use crate::query::value::V;

/// The slots of one reading pass: on the stack for the few fields most
/// filters read.
// On the stack on purpose: boxing the few slots would cost an allocation per message.
#[allow(clippy::large_enum_variant)]
enum Slots<'m> {
    Few([Slot<'m>; FEW], usize),
    Many(Vec<Slot<'m>>),
}

const FEW: usize = 8;

impl<'m> Slots<'m> {
    fn new(n: usize) -> Slots<'m> {
        if n <= FEW {
            Slots::Few([const { Slot::Missing }; FEW], n)
        } else {
            Slots::Many(vec![Slot::Missing; n])
        }
    }

    fn as_mut(&mut self) -> &mut [Slot<'m>] {
        match self {
            Slots::Few(a, n) => &mut a[..*n],
            Slots::Many(v) => v,
        }
    }

    fn as_ref(&self) -> &[Slot<'m>] {
        match self {
            Slots::Few(a, n) => &a[..*n],
            Slots::Many(v) => v,
        }
    }
}

/// One message being evaluated.
pub(crate) struct Cx<'p, 'm> {
    plan: &'p Plan,
    msg: Msg<'m>,
    slots: OnceCell<Slots<'m>>,
}

impl<'p, 'm> Cx<'p, 'm> {
    pub(crate) fn new(plan: &'p Plan, msg: Msg<'m>) -> Cx<'p, 'm> {
        Cx { plan, msg, slots: OnceCell::new() }
    }

    /// Whether the needles rule the message out: its JSON text has no
    /// backslash (so every string in it is written as it is) and lacks one.
    pub(crate) fn ruled_out(&self) -> bool {
        if self.plan.needles.is_empty() {
            return false;
        }
        match self.msg.doc() {
            // No JSON text: `value` is null, and no needle's test can be true.
            None => true,
            Some(doc) => {
                memchr::memchr(b'\\', doc.as_bytes()).is_none() && self.plan.needles.iter().any(|n| n.find(doc.as_bytes()).is_none())
            }
        }
    }

    pub(crate) fn eval(&self, node: &Node) -> Tri {
        match node {
            Node::Const(t) => *t,
            Node::And(nodes) => {
                let mut err = false;
                for n in nodes {
                    match self.eval(n) {
                        Tri::F => return Tri::F,
                        Tri::E => err = true,
                        Tri::T => {}
                    }
                }
                if err {
                    Tri::E
                } else {
                    Tri::T
                }
            }
            Node::Or(nodes) => {
                let mut err = false;
                for n in nodes {
                    match self.eval(n) {
                        Tri::T => return Tri::T,
                        Tri::E => err = true,
                        Tri::F => {}
                    }
                }
                if err {
                    Tri::E
                } else {
                    Tri::F
                }
            }
            Node::Not(n) => self.eval(n).not(),
            Node::Cond(c) => match self.eval(&c.0) {
                Tri::T => self.eval(&c.1),
                Tri::F => self.eval(&c.2),
                Tri::E => Tri::E,
            },
            Node::Leaf(leaf) => self.test(&leaf.test),
        }
    }

    /// The outcomes still possible knowing only the head: tests that need
    /// the payload may come out any way.
    pub(crate) fn head_outcomes(&self, node: &Node) -> Outcomes {
        match node {
            Node::Const(t) => t.bit(),
            Node::And(nodes) => {
                let mut acc = Tri::T.bit();
                for n in nodes {
                    acc = combine(acc, self.head_outcomes(n), Tri::and);
                    if acc == Tri::F.bit() {
                        break;
                    }
                }
                acc
            }
            Node::Or(nodes) => {
                let mut acc = Tri::F.bit();
                for n in nodes {
                    acc = combine(acc, self.head_outcomes(n), Tri::or);
                    if acc == Tri::T.bit() {
                        break;
                    }
                }
                acc
            }
            Node::Not(n) => combine(self.head_outcomes(n), Tri::T.bit(), |x, _| x.not()),
            Node::Cond(c) => {
                let cond = self.head_outcomes(&c.0);
                let mut out = 0;
                if cond & Tri::T.bit() != 0 {
                    out |= self.head_outcomes(&c.1);
                }
                if cond & Tri::F.bit() != 0 {
                    out |= self.head_outcomes(&c.2);
                }
                if cond & Tri::E.bit() != 0 {
                    out |= Tri::E.bit();
                }
                out
            }
            Node::Leaf(leaf) if leaf.vars & !Var::HEAD == 0 => self.test(&leaf.test).bit(),
            Node::Leaf(_) => ANY_OUTCOME,
        }
    }

    fn test(&self, test: &Test) -> Tri {
        match test {
            Test::Truth(op) => match self.operand(op).as_deref() {
                Some(V::Bool(b)) => Tri::of(Some(*b)),
                _ => Tri::E,
            },
            Test::Cmp(op, a, b) => {
                let (Some(a), Some(b)) = (self.operand(a), self.operand(b)) else { return Tri::E };
                Tri::of(match op {
                    CmpOp::Eq => Some(a.equals(&b)),
                    CmpOp::Ne => Some(!a.equals(&b)),
                    CmpOp::Lt => a.order(&b).map(|o| o.is_lt()),
                    CmpOp::Le => a.order(&b).map(|o| o.is_le()),
                    CmpOp::Gt => a.order(&b).map(|o| o.is_gt()),
                    CmpOp::Ge => a.order(&b).map(|o| o.is_ge()),
                })
            }
            Test::InConst(item, set) => match self.operand(item) {
                Some(item) => Tri::of(Some(set.holds(&item))),
                None => Tri::E,
            },
            Test::In(item, container) => {
                let (Some(item), Some(container)) = (self.operand(item), self.operand(container)) else { return Tri::E };
                Tri::of(container.holds(&item))
            }
            Test::Str(op, target, arg) => {
                let (Some(t), Some(a)) = (self.operand(target), self.operand(arg)) else { return Tri::E };
                let (Some(t), Some(a)) = (t.as_str(), a.as_str()) else { return Tri::E };
                Tri::of(Some(match op {
                    StrOp::Contains => t.contains(a),
                    StrOp::StartsWith => t.starts_with(a),
                    StrOp::EndsWith => t.ends_with(a),
                }))
            }
            Test::Find(target, finder) => match self.operand(target).as_deref() {
                Some(V::Str(t)) => Tri::of(Some(finder.find(t.as_bytes()).is_some())),
                _ => Tri::E,
            },
            Test::Matches(target, re) => match self.operand(target).as_deref() {
                Some(V::Str(t)) => Tri::of(Some(re.is_match(t))),
                _ => Tri::E,
            },
            Test::MatchesOf(target, pattern) => match (self.operand(target).as_deref(), self.operand(pattern).as_deref()) {
                (Some(V::Str(t)), Some(V::Str(p))) => with_regex(p, |re| match re {
                    Some(re) => Tri::of(Some(re.is_match(t))),
                    // An invalid pattern is an error of this message, as the interpreter says.
                    None => Tri::E,
                }),
                _ => Tri::E,
            },
            Test::Has(i) => Tri::of(self.has(&self.plan.paths[*i])),
            Test::Fallback(fb) => self.fallback(fb),
        }
    }

    #[inline]
    fn operand<'s>(&'s self, op: &'s Operand) -> Option<Cow<'s, V<'s>>> {
        match op {
            Operand::Const(v) => Some(Cow::Borrowed(v)),
            Operand::Var(var) => self.msg.var(*var).map(Cow::Owned),
            Operand::Path(i) => match &self.plan.paths[*i] {
                PathRef::Read { anchor, rest } => match &self.slots()[*anchor] {
                    Slot::Val(v) => walk(v, rest).map(Cow::Borrowed),
                    _ => None,
                },
                _ => None,
            },
            Operand::Size(inner) => Some(Cow::Owned(V::Int(self.operand(inner)?.size()?))),
        }
    }

    fn has(&self, path: &PathRef) -> Option<bool> {
        match path {
            PathRef::HasIn { anchor, rest, field } => match &self.slots()[*anchor] {
                Slot::Val(v) => match walk(v, rest)? {
                    m @ V::Map(_) => Some(m.get(field).is_some()),
                    _ => None,
                },
                _ => None,
            },
            PathRef::HasAt { parent, child } => {
                let slots = self.slots();
                match &slots[*parent] {
                    Slot::Kind(k) if *k == crate::query::value::MAP => Some(slots[*child] != Slot::Missing),
                    _ => None,
                }
            }
            PathRef::Read { .. } => None,
        }
    }

    /// What one pass over the JSON text found, made on first use.
    fn slots(&self) -> &[Slot<'m>] {
        self.slots
            .get_or_init(|| {
                let trie = &self.plan.trie;
                let mut slots = Slots::new(trie.len());
                let s = slots.as_mut();
                match self.msg.doc() {
                    Some(doc) => json::extract(doc, trie, s),
                    None => s[0] = if trie.is_whole(0) { Slot::Val(V::Null) } else { Slot::Kind(crate::query::value::NULL) },
                }
                slots
            })
            .as_ref()
    }

    fn fallback(&self, fb: &Fallback) -> Tri {
        let mut ctx = cel::Context::with_env(env());
        for var in Var::ALL.into_iter().filter(|v| fb.vars & v.bit() != 0) {
            let Some(value) = self.msg.cel_var(var) else { return Tri::E };
            ctx.add_variable_from_value(var.name(), value);
        }
        match interpret(&fb.expr, &ctx) {
            Ok(cel::Value::Bool(b)) => Tri::of(Some(b)),
            _ => Tri::E,
        }
    }
}

/// Go down `rest` from `v`: fields of objects, elements of arrays.
fn walk<'v, 'a>(mut v: &'v V<'a>, rest: &[Seg]) -> Option<&'v V<'a>> {
    for seg in rest {
        v = match (seg, v) {
            (Seg::Key(k), V::Map(_)) => v.get(k)?,
            (Seg::Index(i), V::List(items)) => items.get(*i)?,
            _ => return None,
        };
    }
    Some(v)
}

/// Most patterns a scan thread keeps compiled; past it the cache starts again.
const REGEX_CACHE: usize = 256;

thread_local! {
    /// Patterns read from messages, compiled (or found invalid) once each per thread.
    static REGEXES: std::cell::RefCell<std::collections::HashMap<String, Option<regex::Regex>>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// `f` of the compiled `pattern` (`None`: not a valid regular expression),
/// compiled once per thread whatever the number of messages carrying it.
fn with_regex<T>(pattern: &str, f: impl FnOnce(Option<&regex::Regex>) -> T) -> T {
    REGEXES.with(|cache| {
        let mut cache = cache.borrow_mut();
        if !cache.contains_key(pattern) {
            if cache.len() >= REGEX_CACHE {
                cache.clear();
            }
            // The same size limit as a filter's own patterns.
            let re = regex::RegexBuilder::new(pattern).size_limit(1 << 20).build().ok();
            cache.insert(pattern.to_string(), re);
        }
        f(cache.get(pattern).and_then(Option::as_ref))
    })
}
