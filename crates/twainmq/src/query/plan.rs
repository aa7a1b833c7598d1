//! The evaluation plan: a tree of `&&`, `||`, `!` and `?:` over leaf tests
//! the plan runs itself, and leaves it hands to the `cel` interpreter.
//!
//! A test's outcome is true, false or an error (a missing field, a type
//! mismatch), kept apart because `!` and `||` treat an error differently
//! from false: as CEL does, `e || true` is true, `e && false` is false, and
//! `!e` is an error. Only a true outcome matches. CEL's `&&` and `||` give
//! the same outcome whichever side is evaluated first, so the builder puts
//! cheap tests first.

use std::panic::{catch_unwind, AssertUnwindSafe};

use memchr::memmem::Finder;

use crate::query::fields::{Var, Vars};
use crate::query::trie::{Seg, Trie};
use crate::query::value::V;

/// The outcome of a test or of the whole filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tri {
    T,
    F,
    E,
}

impl Tri {
    #[inline]
    pub(crate) fn of(b: Option<bool>) -> Tri {
        match b {
            Some(true) => Tri::T,
            Some(false) => Tri::F,
            None => Tri::E,
        }
    }

    #[inline]
    pub(crate) fn bit(self) -> u8 {
        match self {
            Tri::T => 1,
            Tri::F => 2,
            Tri::E => 4,
        }
    }

    #[inline]
    pub(crate) fn and(self, o: Tri) -> Tri {
        match (self, o) {
            (Tri::F, _) | (_, Tri::F) => Tri::F,
            (Tri::T, Tri::T) => Tri::T,
            _ => Tri::E,
        }
    }

    #[inline]
    pub(crate) fn or(self, o: Tri) -> Tri {
        match (self, o) {
            (Tri::T, _) | (_, Tri::T) => Tri::T,
            (Tri::F, Tri::F) => Tri::F,
            _ => Tri::E,
        }
    }

    #[inline]
    pub(crate) fn not(self) -> Tri {
        match self {
            Tri::T => Tri::F,
            Tri::F => Tri::T,
            Tri::E => Tri::E,
        }
    }
}

/// A set of possible outcomes (bits of [`Tri::bit`]): what is known of a
/// test before the payload is decoded.
pub(crate) type Outcomes = u8;
pub(crate) const ANY_OUTCOME: Outcomes = 7;
const TRIS: [Tri; 3] = [Tri::T, Tri::F, Tri::E];

#[inline]
pub(crate) fn combine(a: Outcomes, b: Outcomes, f: impl Fn(Tri, Tri) -> Tri) -> Outcomes {
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
    /// `.matches()` of a pattern read from the message (`text.matches(value.re)`):
    /// each pattern compiled once per scan thread (`eval::with_regex`).
    MatchesOf(Operand, Operand),
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
    pub(crate) fn holds(&self, item: &V<'_>) -> bool {
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
