//! The evaluation plan: a tree of `&&`, `||`, `!` and `?:` over leaf tests
//! the plan runs itself, and leaves it hands to the `cel` interpreter.
//!
//! A test's outcome is true, false or an error (a missing field, a type
//! mismatch), kept apart because `!` and `||` treat an error differently
//! from false: as CEL does, `e || true` is true, `e && false` is false, and
//! `!e` is an error. Only a true outcome matches. CEL's `&&` and `||` give
//! the same outcome whichever side is evaluated first, so the builder puts
//! cheap tests first.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::panic::{catch_unwind, AssertUnwindSafe};

use memchr::memmem::Finder;

use crate::query::fields::{Msg, Var, Vars};
use crate::query::json::{self, Seg, Slot, Trie};
use crate::query::value::V;

/// The outcome of a test or of the whole filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tri {
    T,
    F,
    E,
}

impl Tri {
    fn of(b: Option<bool>) -> Tri {
        match b {
            Some(true) => Tri::T,
            Some(false) => Tri::F,
            None => Tri::E,
        }
    }

    pub(crate) fn bit(self) -> u8 {
        match self {
            Tri::T => 1,
            Tri::F => 2,
            Tri::E => 4,
        }
    }

    fn and(self, o: Tri) -> Tri {
        match (self, o) {
            (Tri::F, _) | (_, Tri::F) => Tri::F,
            (Tri::T, Tri::T) => Tri::T,
            _ => Tri::E,
        }
    }

    fn or(self, o: Tri) -> Tri {
        match (self, o) {
            (Tri::T, _) | (_, Tri::T) => Tri::T,
            (Tri::F, Tri::F) => Tri::F,
            _ => Tri::E,
        }
    }

    fn not(self) -> Tri {
        match self {
            Tri::T => Tri::F,
            Tri::F => Tri::T,
            Tri::E => Tri::E,
        }
    }
}

/// A set of possible outcomes (bits of [`Tri::bit`]): what is known of a
/// test before the payload is decoded.
type Outcomes = u8;
const ANY_OUTCOME: Outcomes = 7;
const TRIS: [Tri; 3] = [Tri::T, Tri::F, Tri::E];

fn combine(a: Outcomes, b: Outcomes, f: impl Fn(Tri, Tri) -> Tri) -> Outcomes {
    let mut out = 0;
    for x in TRIS.into_iter().filter(|x| a & x.bit() != 0) {
        for y in TRIS.into_iter().filter(|y| b & y.bit() != 0) {
            out |= f(x, y).bit();
        }
    }
    out
}

#[derive(Debug)]
pub(crate) enum Node {
    Const(Tri),
    And(Vec<Node>),
    Or(Vec<Node>),
    Not(Box<Node>),
    Cond(Box<(Node, Node, Node)>),
    Leaf(Leaf),
}

/// A test and the variables it reads.
#[derive(Debug)]
pub(crate) struct Leaf {
    pub(crate) test: Test,
    pub(crate) vars: Vars,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StrOp {
    Contains,
    StartsWith,
    EndsWith,
}

#[derive(Debug)]
pub(crate) enum Test {
    /// A boolean operand as it is: `value.ok`.
    Truth(Operand),
    Cmp(CmpOp, Operand, Operand),
    /// `item in container`.
    In(Operand, Operand),
    /// `item in [constants]`, with the constants sorted for lookups.
    InConst(Operand, Box<ConstSet>),
    Str(StrOp, Operand, Operand),
    /// `.contains()` of a constant, with its searcher built once.
    Find(Operand, Box<Finder<'static>>),
    /// `.matches()` of a constant pattern, compiled once.
    Matches(Operand, regex::Regex),
    /// `has(value.a.b)`: an index into [`Plan::paths`].
    Has(usize),
    /// A part the interpreter evaluates.
    Fallback(Fallback),
}

#[derive(Debug)]
pub(crate) enum Operand {
    Const(V<'static>),
    Var(Var),
    /// A path under `value`: an index into [`Plan::paths`].
    Path(usize),
    Size(Box<Operand>),
}

/// A constant list `in` looks things up in: its integers and strings
/// sorted, the rest (doubles, ...) as they are.
#[derive(Debug)]
pub(crate) struct ConstSet {
    ints: Vec<i128>,
    strs: Vec<String>,
    /// Elements that are neither, and the whole list, for other items.
    others: Vec<V<'static>>,
    list: V<'static>,
}

impl ConstSet {
    pub(crate) fn new(items: &[V<'static>]) -> ConstSet {
        let mut ints: Vec<i128> = Vec::new();
        let mut strs = Vec::new();
        let mut others = Vec::new();
        for v in items {
            match v {
                V::Int(i) => ints.push(i128::from(*i)),
                V::UInt(u) => ints.push(i128::from(*u)),
                V::Str(s) => strs.push(s.to_string()),
                other => others.push(other.clone()),
            }
        }
        ints.sort_unstable();
        strs.sort_unstable();
        ConstSet { ints, strs, others, list: V::List(items.to_vec()) }
    }

    /// `item in list`, as [`V::holds`] says of the list.
    #[inline]
    fn holds(&self, item: &V<'_>) -> bool {
        match item {
            // An integer equals only numbers: the integers, or a double of its value.
            V::Int(_) | V::UInt(_) => {
                let x = match item {
                    V::Int(i) => i128::from(*i),
                    V::UInt(u) => i128::from(*u),
                    _ => 0,
                };
                self.ints.binary_search(&x).is_ok() || self.others.iter().any(|o| o.equals(item))
            }
            V::Str(s) => self.strs.binary_search_by(|p| p.as_str().cmp(s)).is_ok(),
            _ => self.list.holds(item).unwrap_or(false),
        }
    }
}

/// A sub-expression for the interpreter, with the variables to give it.
#[derive(Debug)]
pub(crate) struct Fallback {
    pub(crate) expr: cel::IdedExpr,
    pub(crate) vars: Vars,
}

/// Where the plan finds a path under `value`.
#[derive(Debug)]
pub(crate) enum PathRef {
    /// In the value read whole at trie node `anchor`, down `rest`.
    Read { anchor: usize, rest: Vec<Seg> },
    /// `has()` of `field` in the value read whole at `anchor`, down `rest`.
    HasIn { anchor: usize, rest: Vec<Seg>, field: String },
    /// `has()` from what the pass recorded: the parent's node and the field's.
    HasAt { parent: usize, child: usize },
}

#[derive(Debug)]
pub(crate) struct Plan {
    pub(crate) root: Node,
    pub(crate) trie: Trie,
    pub(crate) paths: Vec<PathRef>,
    /// Byte strings the JSON text must contain for the filter to be true,
    /// when it has no backslash (see the builder's `needles`).
    pub(crate) needles: Vec<Finder<'static>>,
}

/// The interpreter's environment: the standard library, made once.
pub(crate) fn env() -> std::sync::Arc<cel::Env> {
    static ENV: std::sync::OnceLock<std::sync::Arc<cel::Env>> = std::sync::OnceLock::new();
    ENV.get_or_init(|| std::sync::Arc::new(cel::Env::stdlib())).clone()
}

/// Evaluate `expr` with the interpreter: `None` if it panicked.
pub(crate) fn resolve(expr: &cel::IdedExpr, ctx: &cel::Context<'_, '_>) -> Option<cel::ResolveResult> {
    catch_unwind(AssertUnwindSafe(|| cel::Value::resolve(expr, ctx))).ok()
}

/// Evaluate `expr` with the interpreter; a panic inside it is an error too.
pub(crate) fn interpret(expr: &cel::IdedExpr, ctx: &cel::Context<'_, '_>) -> Result<cel::Value, String> {
    match resolve(expr, ctx) {
        Some(r) => r.map_err(|e| e.to_string()),
        None => Err("the CEL interpreter failed".into()),
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logic_follows_cel() {
        use Tri::*;
        assert_eq!(E.or(T), T);
        assert_eq!(E.and(F), F);
        assert_eq!(E.and(T), E);
        assert_eq!(F.or(E), E);
        assert_eq!(E.not(), E);
        assert_eq!(combine(T.bit() | E.bit(), F.bit(), Tri::and), F.bit());
        assert_eq!(combine(T.bit() | E.bit(), T.bit(), Tri::or), T.bit());
        assert_eq!(combine(ANY_OUTCOME, F.bit(), Tri::or), ANY_OUTCOME);
    }
}
