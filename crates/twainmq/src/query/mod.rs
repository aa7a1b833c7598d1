//! Message filters: CEL expressions over one message, compiled once and
//! evaluated per message by a plan of our own (see `docs/QUERY.md` for the
//! language as users see it).
//!
//! # Variables
//! | name | CEL type | what |
//! | --- | --- | --- |
//! | `key` | `int` (`uint` past 2^63) or `string` | the message's key |
//! | `partition` | `int` | its partition |
//! | `offset` | `int` | its offset in the partition |
//! | `timestamp` | `timestamp` | when it was sent (UTC, to the microsecond) |
//! | `kind` | `string` | `"str"`, `"bytes"` or `"dataclass"` |
//! | `class` | `string` or `null` | a typed message's class name |
//! | `text` | `string` | the text; bytes in lower-case hex; a typed message's JSON |
//! | `value` | JSON value or `null` | a text payload parsed as JSON (null when it is not JSON), a typed message's fields |
//! | `size` | `int` | the payload's size in bytes (UTF-8 for text, the JSON for typed messages) |
//!
//! The first four are known before the payload is decoded:
//! [`Filter::on_head`] decides on them alone when it can.
//!
//! # Plan and interpreter
//! `cel`'s parser reads the expression (this crate has no parser of its
//! own). The builder then makes an evaluation plan for the common subset:
//! literals, the variables, paths under `value` (`value.a.b`, `value.items[0]`),
//! `has()`, the comparisons, `&&` `||` `!` `?:`, `in`, `.contains()`,
//! `.startsWith()`, `.endsWith()`, `.matches()` (its regular expression
//! compiled once) and `size()`. Parts without variables, `timestamp("...")`
//! among them, are evaluated once at compile time by `cel`'s interpreter.
//! Any other test (arithmetic, macros such as `exists`, `timestamp.getHours()`,
//! conversions) is handed whole to the interpreter, with only the variables
//! it reads; the plan still decides the `&&`s and `||`s around it, cheapest
//! side first.
//!
//! The plan reads `value` lazily: at most one pass over the payload's JSON
//! per message, only when a test needs it, taking out only the fields the
//! filter names, borrowing unescaped strings. Before that pass, a filter whose
//! `&&`s require `value.f == "s"` (or `.contains("s")`...) rejects JSON text
//! that lacks `"s"` with one substring search.
//!
//! The interpreter is the reference: property tests check that the plan's
//! answer is the interpreter's on random messages and expressions.
//!
//! # Limits
//! A filter is at most [`Filter::MAX_LEN`] bytes and nests at most
//! [`Filter::MAX_DEPTH`] levels: `cel`'s parser and interpreter recurse, and
//! this keeps them well within a thread's stack. Compiling runs on a thread
//! of its own with a large stack for the same reason.

mod build;
mod eval;
mod fields;
mod json;
mod plan;
mod syntax;
mod trie;
mod value;

use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::format::key::Key;
use crate::format::message::Message;
use crate::query::eval::Cx;
use crate::query::fields::{Head, Msg, Var, Vars};
use crate::query::plan::{Node, Plan, Tri};

/// A compiled CEL filter over one message. Cheap to clone and shared by
/// threads.
///
/// # Examples
/// ```
/// use twainmq::{Filter, Key};
/// let f = Filter::compile(r#"key in [1, 2, 3] && value.country == "DE""#)?;
/// assert_eq!(f.on_head(0, 5, &Key::Int(7), 1.8e9), Some(false));
/// assert_eq!(f.on_head(0, 5, &Key::Int(2), 1.8e9), None); // needs the payload
/// assert_eq!(f.value_fields(), ["country"]);
/// # Ok::<(), twainmq::Error>(())
/// ```
#[derive(Clone)]
pub struct Filter {
    inner: Arc<Inner>,
}

struct Inner {
    source: String,
    plan: Plan,
    vars: Vars,
    value_fields: Vec<String>,
}

// Scan threads share filters.
const _: () = {
    const fn shared<T: Send + Sync + Clone>() {}
    shared::<Filter>();
};

/// Where a compile error is, 1-based, columns in characters.
struct Located {
    line: u32,
    column: u32,
    reason: String,
}

impl Filter {
    /// The longest filter accepted, in bytes.
    pub const MAX_LEN: usize = 16 * 1024;

    /// The deepest nesting accepted, in levels of the expression's syntax
    /// tree: each operator, call, field or list is a level, and a chain of
    /// `&&` or `||` counts as only a few.
    pub const MAX_DEPTH: usize = 32;

    /// Compile `expr`.
    ///
    /// # Errors
    /// [`Error::InvalidFilter`], with the line and column, for a syntax
    /// error, an unknown variable or function, a test whose types can never
    /// match (`timestamp > "2026-01-01"`, `kind == 1`), a constant part
    /// that always fails (`timestamp("yesterday")`), an invalid regular
    /// expression, or a filter over the limits. Never panics.
    pub fn compile(expr: &str) -> Result<Filter> {
        let invalid = |l: Located| Error::InvalidFilter {
            expr: expr.to_string(),
            line: l.line,
            column: l.column,
            reason: l.reason.trim_end_matches('.').to_string(),
        };
        if expr.len() > Filter::MAX_LEN {
            return Err(invalid(Located {
                line: 1,
                column: 1,
                reason: format!("the filter is {} bytes long, over the limit of {}", expr.len(), Filter::MAX_LEN),
            }));
        }
        let src = expr.to_string();
        // The parser recurses deeply on some inputs: give it a large stack (only what it touches is used).
        let job = move || compile_here(&src);
        let built = match std::thread::Builder::new().name("twainmq-filter".into()).stack_size(64 << 20).spawn(job) {
            Ok(handle) => {
                handle.join().unwrap_or_else(|_| Err(Located { line: 1, column: 1, reason: "the CEL parser failed on this input".into() }))
            }
            Err(_) => compile_here(expr),
        };
        let built = built.map_err(invalid)?;
        Ok(Filter {
            inner: Arc::new(Inner { source: expr.to_string(), plan: built.plan, vars: built.vars, value_fields: built.value_fields }),
        })
    }

    /// The expression as given to [`Filter::compile`].
    pub fn source(&self) -> &str {
        &self.inner.source
    }

    /// Evaluate on what is known before the payload is decoded: `Some`
    /// when that decides the whole filter, `None` when the payload is needed.
    /// When it is `Some`, it is what [`Filter::matches`] says of any message
    /// with this head.
    pub fn on_head(&self, partition: u32, offset: u64, key: &Key, timestamp: f64) -> Option<bool> {
        let plan = &self.inner.plan;
        let cx = Cx::new(plan, Msg::new(Head { partition, offset, key, timestamp }, None));
        let outcomes = cx.head_outcomes(&plan.root);
        let t = Tri::T.bit();
        if outcomes == t {
            Some(true)
        } else if outcomes & t == 0 {
            Some(false)
        } else {
            None
        }
    }

    /// Whether `msg` matches: the filter evaluates to `true`. A runtime
    /// error (a field that is not there, a type mismatch) is no match.
    pub fn matches(&self, msg: &Message) -> bool {
        let plan = &self.inner.plan;
        let head = Head { partition: msg.partition, offset: msg.offset, key: &msg.key, timestamp: msg.timestamp };
        let cx = Cx::new(plan, Msg::new(head, Some(&msg.payload)));
        !cx.ruled_out() && cx.eval(&plan.root) == Tri::T
    }

    /// Whether the filter reads anything of the head (key, partition,
    /// offset, timestamp): when it does not, [`Filter::on_head`] always
    /// answers `None` and scans skip it (and the key's decoding).
    pub fn reads_head(&self) -> bool {
        self.inner.vars & Var::HEAD != 0
    }

    /// Whether [`Filter::matches`] needs the payload at all: `false` for
    /// filters on key, partition, offset and timestamp only, which
    /// [`Filter::on_head`] always decides.
    pub fn needs_payload(&self) -> bool {
        self.inner.vars & !Var::HEAD != 0
    }

    /// The times the filter's `&&`s bound `timestamp` to (`timestamp >= T`,
    /// `timestamp < T`, `timestamp == T`, either way round), as UNIX seconds
    /// `(since, until)`, widened by a millisecond: no message outside them
    /// matches, so a scan skips to them with the time index and still tests
    /// every message inside with [`Filter::matches`]. `None` where the filter
    /// sets no bound (a bound under an `||`, a `!` or a `?:` is not one).
    ///
    /// # Examples
    /// ```
    /// use twainmq::Filter;
    /// let f = Filter::compile(r#"timestamp >= timestamp("2026-11-30T00:00:00Z") && value.ok"#)?;
    /// assert_eq!(f.time_bounds(), (Some(1_795_996_800.0 - 0.001), None));
    /// assert_eq!(Filter::compile("key == 1 || timestamp < timestamp(0)")?.time_bounds(), (None, None));
    /// # Ok::<(), twainmq::Error>(())
    /// ```
    pub fn time_bounds(&self) -> (Option<f64>, Option<f64>) {
        let mut bounds = (None, None);
        time_bounds(&self.inner.plan.root, &mut bounds);
        bounds
    }

    /// The paths under `value` the filter reads, in order of appearance, as
    /// `country`, `a.b`, `items[0]`: for completion.
    pub fn value_fields(&self) -> Vec<String> {
        self.inner.value_fields.clone()
    }
}

impl fmt::Debug for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Filter").field(&self.inner.source).finish()
    }
}

/// How far a time bound is widened: a message's timestamp is compared in
/// CEL rounded to the microsecond, and a millisecond covers that rounding
/// (and the bound's own conversion to seconds) many times over.
const BOUND_SLACK: f64 = 1e-3;

/// Narrow `bounds` by the tests `node` requires to be true.
fn time_bounds(node: &Node, bounds: &mut (Option<f64>, Option<f64>)) {
    use crate::query::plan::{CmpOp, Operand, Test};
    use crate::query::value::V;
    match node {
        // Only a true outcome matches, and `&&` is true only when every side is.
        Node::And(nodes) => nodes.iter().for_each(|n| time_bounds(n, bounds)),
        Node::Leaf(leaf) => {
            let Test::Cmp(op, a, b) = &leaf.test else { return };
            // `T < timestamp` is `timestamp > T`.
            let (op, t) = match (a, b) {
                (Operand::Var(Var::Timestamp), Operand::Const(V::Ts(t))) => (*op, t),
                (Operand::Const(V::Ts(t)), Operand::Var(Var::Timestamp)) => match op {
                    CmpOp::Lt => (CmpOp::Gt, t),
                    CmpOp::Le => (CmpOp::Ge, t),
                    CmpOp::Gt => (CmpOp::Lt, t),
                    CmpOp::Ge => (CmpOp::Le, t),
                    other => (*other, t),
                },
                _ => return,
            };
            let secs = t.timestamp() as f64 + f64::from(t.timestamp_subsec_nanos()) / 1e9;
            let (since, until) = (secs - BOUND_SLACK, secs + BOUND_SLACK);
            let raise = |b: &mut Option<f64>| *b = Some(b.map_or(since, |x: f64| x.max(since)));
            let lower = |b: &mut Option<f64>| *b = Some(b.map_or(until, |x: f64| x.min(until)));
            match op {
                CmpOp::Gt | CmpOp::Ge => raise(&mut bounds.0),
                CmpOp::Lt | CmpOp::Le => lower(&mut bounds.1),
                CmpOp::Eq => {
                    raise(&mut bounds.0);
                    lower(&mut bounds.1);
                }
                CmpOp::Ne => {}
            }
        }
        _ => {}
    }
}

/// The longest run of prefix `!` and `-` in `src` (white space between them
/// allowed; string literals skipped), and where it starts.
fn unary_run(src: &str) -> Option<(usize, usize)> {
    let bytes = src.as_bytes();
    let (mut best, mut run, mut start) = (None::<(usize, usize)>, 0usize, 0usize);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            q @ (b'"' | b'\'') => {
                // A string: to its closing quote (a backslash escapes the next byte).
                run = 0;
                i += 1;
                while i < bytes.len() && bytes[i] != q {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'!' | b'-' => {
                if run == 0 {
                    start = i;
                }
                run += 1;
                if best.is_none_or(|(_, n)| run > n) {
                    best = Some((start, run));
                }
            }
            b' ' | b'\t' | b'\n' | b'\r' => {}
            _ => run = 0,
        }
        i += 1;
    }
    best
}

/// Parse, check and plan `src` on this thread.
fn compile_here(src: &str) -> Result<build::Built, Located> {
    let at = |offset: usize, reason: String| {
        let (line, column) = line_col(src, offset);
        Located { line, column, reason }
    };
    // The parser folds a run of `!` or `-` into one node, so the tree's depth
    // does not see it: each is a level all the same, as the limit says.
    if let Some((offset, run)) = unary_run(src).filter(|(_, n)| *n > Filter::MAX_DEPTH) {
        return Err(at(offset, format!("the filter nests too deeply: {run} `!` or `-` in a row, at most {} levels", Filter::MAX_DEPTH)));
    }
    let program = match catch_unwind(AssertUnwindSafe(|| cel::Program::compile(src))) {
        Ok(Ok(p)) => p,
        Ok(Err(errors)) => return Err(parse_error(src, &errors)),
        Err(_) => return Err(at(0, "the CEL parser failed on this input".into())),
    };
    let root = program.expression();
    let info = program.source_info();
    if let Some(deep) = syntax::too_deep(root, 1, Filter::MAX_DEPTH) {
        let offset = info.offset_for(deep.id).map_or(0, |(s, _)| usize::try_from(s).unwrap_or(0));
        return Err(at(offset, format!("the filter nests too deeply: at most {} levels", Filter::MAX_DEPTH)));
    }
    let located = |p: build::Problem| at(p.at, p.reason);
    let mut builder = build::Builder::new(info);
    builder.check_names(root, &mut Vec::new()).map_err(located)?;
    builder.check_durations(root).map_err(located)?;
    let node = builder.node(root).map_err(located)?;
    let vars = syntax::free_vars(root, &mut Vec::new());
    let mut fields = Vec::new();
    syntax::value_fields(root, &mut Vec::new(), &mut fields);
    Ok(builder.finish(node, vars, fields))
}

fn parse_error(src: &str, errors: &cel::ParseErrors) -> Located {
    let Some(first) = errors.errors.first() else {
        return Located { line: 1, column: 1, reason: "Syntax error".into() };
    };
    let clamp = |x: isize| u32::try_from(x.max(1)).unwrap_or(u32::MAX);
    let (mut line, mut column) = (clamp(first.pos.0), clamp(first.pos.1));
    let mut reason = first.msg.clone();
    if reason.contains("Recursion limit") {
        reason = "the filter nests too deeply: too many levels of brackets, parentheses or calls".into();
        if first.pos.1 < 1 {
            (line, column) = (1, 1);
        }
    } else if let Some(token) = reason.strip_prefix("Syntax error: token recognition error at: ") {
        if token.starts_with("'\"") || token.starts_with("''") {
            reason.push_str(" (a string that is not closed?)");
        }
    }
    if usize::try_from(line).map_or(true, |l| l > src.lines().count().max(1)) {
        (line, column) = (1, 1);
    }
    Located { line, column, reason }
}

/// The 1-based line and column (in characters) of a byte offset.
fn line_col(src: &str, offset: usize) -> (u32, u32) {
    let mut cut = offset.min(src.len());
    while !src.is_char_boundary(cut) {
        cut -= 1;
    }
    let before = &src[..cut];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (u32::try_from(line).unwrap_or(u32::MAX), u32::try_from(column).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters() {
        assert_eq!(line_col("ab", 1), (1, 2));
        assert_eq!(line_col("'ü' == x", 7), (1, 7));
        assert_eq!(line_col("a\nbc", 3), (2, 2));
        assert_eq!(line_col("a", 99), (1, 2));
    }
}
