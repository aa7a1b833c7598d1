//! Walking `cel`'s syntax tree: children, depth, the variables a part
//! reads, and the paths under `value` it names.

use cel::common::ast::{CallExpr, EntryExpr, Expr, IdedExpr, LiteralValue};

use crate::query::fields::{Var, Vars};
use crate::query::trie::Seg;

/// The sub-expressions of `e`, in source order.
pub(crate) fn children(e: &IdedExpr) -> Vec<&IdedExpr> {
    match &e.expr {
        Expr::Call(c) => c.target.as_deref().into_iter().chain(&c.args).collect(),
        Expr::Select(s) => vec![&s.operand],
        Expr::List(l) => l.elements.iter().collect(),
        Expr::Map(m) => entries(&m.entries),
        Expr::Struct(s) => entries(&s.entries),
        Expr::Comprehension(c) => vec![&c.iter_range, &c.accu_init, &c.loop_cond, &c.loop_step, &c.result],
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => Vec::new(),
    }
}

fn entries(entries: &[cel::common::ast::IdedEntryExpr]) -> Vec<&IdedExpr> {
    let mut out = Vec::new();
    for entry in entries {
        match &entry.expr {
            EntryExpr::MapEntry(m) => {
                out.push(&m.key);
                out.push(&m.value);
            }
            EntryExpr::StructField(f) => out.push(&f.value),
        }
    }
    out
}

/// The first node deeper than `max` levels, if any.
pub(crate) fn too_deep(e: &IdedExpr, depth: usize, max: usize) -> Option<&IdedExpr> {
    if depth > max {
        return Some(e);
    }
    children(e).into_iter().find_map(|c| too_deep(c, depth + 1, max))
}

pub(crate) fn flatten<'e>(op: &str, e: &'e IdedExpr, out: &mut Vec<&'e IdedExpr>) {
    match &e.expr {
        Expr::Call(c) if c.func_name == op && c.target.is_none() && c.args.len() == 2 => {
            flatten(op, &c.args[0], out);
            flatten(op, &c.args[1], out);
        }
        _ => out.push(e),
    }
}

pub(crate) fn is_operator(name: &str) -> bool {
    name.starts_with('_') || name.starts_with('@') || name == "!_" || name == "-_"
}

pub(crate) fn is_path_step(e: &IdedExpr) -> bool {
    match &e.expr {
        Expr::Select(s) => !s.test,
        Expr::Call(c) => c.func_name == "_[_]" && c.target.is_none(),
        _ => false,
    }
}

/// The identifier a qualified name `a.b.c` starts with.
pub(crate) fn qualified_root(e: &IdedExpr) -> Option<&str> {
    match &e.expr {
        Expr::Ident(n) => Some(n),
        Expr::Select(s) if !s.test => qualified_root(&s.operand),
        _ => None,
    }
}

pub(crate) fn call(c: &CallExpr, target: Option<IdedExpr>) -> IdedExpr {
    IdedExpr { id: 0, expr: Expr::Call(CallExpr { func_name: c.func_name.clone(), target: target.map(Box::new), args: Vec::new() }) }
}

/// The filter variables `e` reads (not those a comprehension binds).
pub(crate) fn free_vars(e: &IdedExpr, bound: &mut Vec<String>) -> Vars {
    match &e.expr {
        Expr::Ident(name) if !bound.contains(name) => Var::from_name(name).map_or(0, Var::bit),
        Expr::Comprehension(c) => {
            let mut v = free_vars(&c.iter_range, bound) | free_vars(&c.accu_init, bound);
            let n = bound.len();
            bound.extend([Some(c.iter_var.clone()), c.iter_var2.clone(), Some(c.accu_var.clone())].into_iter().flatten());
            for x in [&c.loop_cond, &c.loop_step, &c.result] {
                v |= free_vars(x, bound);
            }
            bound.truncate(n);
            v
        }
        _ => children(e).into_iter().fold(0, |v, c| v | free_vars(c, bound)),
    }
}

/// The paths under `value` that `e` reads, as `a.b[0]`, for completion.
pub(crate) fn value_fields(e: &IdedExpr, bound: &mut Vec<String>, out: &mut Vec<String>) {
    if !bound.iter().any(|b| b == "value") {
        if let Some(path) = field_chain(e) {
            let text = render_path(&path, false);
            if !text.is_empty() && !out.contains(&text) {
                out.push(text);
            }
            return;
        }
    }
    if let Expr::Comprehension(c) = &e.expr {
        value_fields(&c.iter_range, bound, out);
        value_fields(&c.accu_init, bound, out);
        let n = bound.len();
        bound.extend([Some(c.iter_var.clone()), c.iter_var2.clone(), Some(c.accu_var.clone())].into_iter().flatten());
        for x in [&c.loop_cond, &c.loop_step, &c.result] {
            value_fields(x, bound, out);
        }
        bound.truncate(n);
        return;
    }
    for c in children(e) {
        value_fields(c, bound, out);
    }
}

/// The literal steps of `value.a["b"][0]` or `has(value.a.b)`.
pub(crate) fn field_chain(e: &IdedExpr) -> Option<Vec<Seg>> {
    let mut segs = Vec::new();
    let mut at = e;
    loop {
        match &at.expr {
            Expr::Select(s) => {
                segs.push(Seg::Key(s.field.clone()));
                at = &s.operand;
            }
            Expr::Call(c) if c.func_name == "_[_]" && c.target.is_none() && c.args.len() == 2 => {
                segs.push(match &c.args[1].expr {
                    Expr::Literal(LiteralValue::String(s)) => Seg::Key(s.inner().to_string()),
                    Expr::Literal(LiteralValue::Int(i)) => Seg::Index(usize::try_from(*i.inner()).ok()?),
                    Expr::Literal(LiteralValue::UInt(u)) => Seg::Index(usize::try_from(*u.inner()).ok()?),
                    _ => return None,
                });
                at = &c.args[0];
            }
            Expr::Ident(n) if n == "value" && !segs.is_empty() => {
                segs.reverse();
                return Some(segs);
            }
            _ => return None,
        }
    }
}

pub(crate) fn render_path(path: &[Seg], dotted: bool) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Key(k)
                if !k.is_empty()
                    && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && !k.starts_with(|c: char| c.is_ascii_digit()) =>
            {
                if dotted || !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Seg::Key(k) => out.push_str(&format!("[{k:?}]")),
            Seg::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}
