//! From `cel`'s syntax tree to a [`Plan`]: names checked, constant parts
//! folded by the interpreter itself, types checked where the variables fix
//! them, value paths gathered into one reading pass, and the parts the plan
//! does not run handed to the interpreter whole.

use cel::common::ast::{Expr, IdedExpr, LiteralValue, SourceInfo};
use memchr::memmem::Finder;

use crate::query::fields::{Var, Vars};
use crate::query::plan::{self, CmpOp, ConstSet, Fallback, Leaf, Node, Operand, PathRef, Plan, StrOp, Test, Tri};
use crate::query::syntax::{call, children, flatten, free_vars, is_operator, is_path_step, qualified_root, render_path};
use crate::query::trie::{Seg, Trie};
use crate::query::value::{self, cel_kind, hint, kind_names, literal, may_equal, may_order, Kinds, BOOL, BYTES, LIST, MAP, STR, V};

/// A compile error: where (a byte offset into the filter) and what.
#[derive(Debug)]
pub(crate) struct Problem {
    pub(crate) at: usize,
    pub(crate) reason: String,
}

/// What the builder makes of a filter.
#[derive(Debug)]
pub(crate) struct Built {
    pub(crate) plan: Plan,
    pub(crate) vars: Vars,
    pub(crate) value_fields: Vec<String>,
}

type Res<T> = Result<T, Problem>;

mod checks;
mod paths;

pub(crate) struct Builder<'s> {
    info: &'s SourceInfo,
    probe: cel::Context<'static, 'static>,
    /// Value paths as written: a path read as a value (`None`), or a
    /// parent and the field `has()` tests.
    raw: Vec<(Vec<Seg>, Option<String>)>,
}

impl<'s> Builder<'s> {
    pub(crate) fn new(info: &'s SourceInfo) -> Builder<'s> {
        Builder { info, probe: cel::Context::with_env(plan::env()), raw: Vec::new() }
    }

    fn at(&self, e: &IdedExpr) -> usize {
        self.info.offset_for(e.id).map_or(0, |(start, _)| usize::try_from(start).unwrap_or(0))
    }

    fn problem<T>(&self, e: &IdedExpr, reason: impl Into<String>) -> Res<T> {
        Err(Problem { at: self.at(e), reason: reason.into() })
    }

    /// Evaluate a constant part with the interpreter.
    fn fold(&self, e: &IdedExpr) -> Res<cel::Value> {
        plan::interpret(e, &self.probe).or_else(|err| self.problem(e, format!("this part always fails: {err}")))
    }

    /// The plan of a part used as a condition.
    pub(crate) fn node(&mut self, e: &IdedExpr) -> Res<Node> {
        if free_vars(e, &mut Vec::new()) == 0 {
            return match self.fold(e)? {
                cel::Value::Bool(b) => Ok(Node::Const(if b { Tri::T } else { Tri::F })),
                other => self.problem(e, format!("this is {}, not a condition (true or false)", kind_names(cel_kind(&other)))),
            };
        }
        if let Expr::Call(c) = &e.expr {
            match (c.func_name.as_str(), c.target.is_some(), c.args.as_slice()) {
                ("_&&_", false, [_, _]) | ("_||_", false, [_, _]) => {
                    let mut parts = Vec::new();
                    flatten(&c.func_name, e, &mut parts);
                    let mut nodes = parts.into_iter().map(|p| self.node(p)).collect::<Res<Vec<_>>>()?;
                    nodes.sort_by_key(cost);
                    return Ok(if c.func_name == "_&&_" { Node::And(nodes) } else { Node::Or(nodes) });
                }
                ("!_", false, [a]) => return Ok(Node::Not(Box::new(self.node(a)?))),
                ("_?_:_", false, [c0, c1, c2]) => return Ok(Node::Cond(Box::new((self.node(c0)?, self.node(c1)?, self.node(c2)?)))),
                _ => {}
            }
        }
        let vars = free_vars(e, &mut Vec::new());
        let test = match self.test(e)? {
            Some(t) => t,
            None => Test::Fallback(Fallback { expr: e.clone(), vars }),
        };
        Ok(Node::Leaf(Leaf { test, vars }))
    }

    /// A test the plan runs itself, or `None` for the interpreter (and then
    /// no value path of it is kept for the reading pass).
    fn test(&mut self, e: &IdedExpr) -> Res<Option<Test>> {
        let mark = self.raw.len();
        let test = self.try_test(e)?;
        if test.is_none() {
            self.raw.truncate(mark);
        }
        Ok(test)
    }

    fn try_test(&mut self, e: &IdedExpr) -> Res<Option<Test>> {
        let c = match &e.expr {
            Expr::Call(c) => c,
            Expr::Select(s) if s.test => {
                if let Expr::Ident(name) = &s.operand.expr {
                    if let Some(var) = Var::from_name(name).filter(|v| *v != Var::Value) {
                        return self.problem(e, format!("has() tests the fields of `value`, and `{}` has none", var.name()));
                    }
                }
                return Ok(match self.value_path(&s.operand)? {
                    Some(parent) => {
                        self.raw.push((parent, Some(s.field.clone())));
                        Some(Test::Has(self.raw.len() - 1))
                    }
                    None => None,
                });
            }
            _ => return self.truth(e),
        };
        let cmp = match c.func_name.as_str() {
            "_==_" => Some(CmpOp::Eq),
            "_!=_" => Some(CmpOp::Ne),
            "_<_" => Some(CmpOp::Lt),
            "_<=_" => Some(CmpOp::Le),
            "_>_" => Some(CmpOp::Gt),
            "_>=_" => Some(CmpOp::Ge),
            _ => None,
        };
        let str_op = match c.func_name.as_str() {
            "contains" => Some(StrOp::Contains),
            "startsWith" => Some(StrOp::StartsWith),
            "endsWith" => Some(StrOp::EndsWith),
            _ => None,
        };
        match (c.target.as_deref(), c.args.as_slice()) {
            (None, [l, r]) if cmp.is_some() => {
                let (Some(a), Some(b)) = (self.operand(l)?, self.operand(r)?) else { return Ok(None) };
                let (ka, kb) = (self.kinds(&a), self.kinds(&b));
                let op = cmp.unwrap_or(CmpOp::Eq);
                if matches!(op, CmpOp::Eq | CmpOp::Ne) && !may_equal(ka, kb) {
                    return self.problem(
                        e,
                        format!(
                            "{} is {} and {} is {}: they are never equal{}",
                            self.name(&a),
                            kind_names(ka),
                            self.name(&b),
                            kind_names(kb),
                            hint(ka, kb)
                        ),
                    );
                }
                if !matches!(op, CmpOp::Eq | CmpOp::Ne) && !may_order(ka, kb) {
                    return self.problem(
                        e,
                        format!(
                            "{} ({}) cannot be compared with {} ({}){}",
                            self.name(&a),
                            kind_names(ka),
                            self.name(&b),
                            kind_names(kb),
                            hint(ka, kb)
                        ),
                    );
                }
                Ok(Some(Test::Cmp(op, a, b)))
            }
            (None, [l, r]) if c.func_name == "@in" => {
                let (Some(a), Some(b)) = (self.operand(l)?, self.operand(r)?) else { return Ok(None) };
                if self.kinds(&b) & (LIST | MAP) == 0 {
                    return self
                        .problem(e, format!("`in` looks in a list or a map, and {} is {}", self.name(&b), kind_names(self.kinds(&b))));
                }
                Ok(Some(match b {
                    Operand::Const(V::List(items)) => Test::InConst(a, Box::new(ConstSet::new(&items))),
                    b => Test::In(a, b),
                }))
            }
            (Some(t), [arg]) if str_op.is_some() => {
                let (Some(t), Some(a)) = (self.operand(t)?, self.operand(arg)?) else { return Ok(None) };
                for op in [&t, &a] {
                    if self.kinds(op) & STR == 0 {
                        return self.problem(
                            e,
                            format!(".{}() works on strings, and {} is {}", c.func_name, self.name(op), kind_names(self.kinds(op))),
                        );
                    }
                }
                let op = str_op.unwrap_or(StrOp::Contains);
                Ok(Some(match (op, &a) {
                    (StrOp::Contains, Operand::Const(V::Str(needle))) => {
                        Test::Find(t, Box::new(Finder::new(needle.as_bytes()).into_owned()))
                    }
                    _ => Test::Str(op, t, a),
                }))
            }
            (Some(t), [re]) | (None, [t, re]) if c.func_name == "matches" => {
                let pattern = match free_vars(re, &mut Vec::new()) {
                    0 => self.fold(re)?,
                    // A pattern from the message: compiled once per pattern, not per message.
                    _ => {
                        let (Some(t), Some(p)) = (self.operand(t)?, self.operand(re)?) else { return Ok(None) };
                        for (op, what) in [(&t, "works on strings"), (&p, "takes its regular expression as a string")] {
                            if self.kinds(op) & STR == 0 {
                                return self
                                    .problem(e, format!(".matches() {what}, and {} is {}", self.name(op), kind_names(self.kinds(op))));
                            }
                        }
                        return Ok(Some(Test::MatchesOf(t, p)));
                    }
                };
                let cel::Value::String(pattern) = pattern else {
                    return self.problem(re, "matches() takes its regular expression as a string");
                };
                let re =
                    regex::Regex::new(&pattern).or_else(|err| self.problem(e, format!("invalid regular expression {pattern:?}: {err}")))?;
                let Some(t) = self.operand(t)? else { return Ok(None) };
                if self.kinds(&t) & STR == 0 {
                    return self
                        .problem(e, format!(".matches() works on strings, and {} is {}", self.name(&t), kind_names(self.kinds(&t))));
                }
                Ok(Some(Test::Matches(t, re)))
            }
            _ => self.truth(e),
        }
    }

    /// An operand used as a condition as it is.
    fn truth(&mut self, e: &IdedExpr) -> Res<Option<Test>> {
        let Some(op) = self.operand(e)? else { return Ok(None) };
        let k = self.kinds(&op);
        if k & BOOL == 0 {
            let tip = if k & STR != 0 { ": to search it, write e.g. text.contains(\"timeout\")" } else { "" };
            return self.problem(e, format!("{} is {}, not a condition (true or false){tip}", self.name(&op), kind_names(k)));
        }
        Ok(Some(Test::Truth(op)))
    }

    /// A value the plan works out itself, or `None` for the interpreter.
    fn operand(&mut self, e: &IdedExpr) -> Res<Option<Operand>> {
        if free_vars(e, &mut Vec::new()) == 0 {
            return Ok(V::from_cel(&self.fold(e)?).map(Operand::Const));
        }
        match &e.expr {
            Expr::Ident(name) => Ok(match Var::from_name(name) {
                Some(Var::Value) => Some(self.read(Vec::new())),
                Some(var) => Some(Operand::Var(var)),
                None => None,
            }),
            _ if is_path_step(e) => Ok(self.value_path(e)?.map(|path| self.read(path))),
            Expr::Call(c) if c.func_name == "size" && matches!((&c.target, c.args.len()), (Some(_), 0) | (None, 1)) => {
                let inner = c.target.as_deref().or(c.args.first()).map_or(Ok(None), |x| self.operand(x))?;
                let Some(inner) = inner else { return Ok(None) };
                if self.kinds(&inner) & (STR | BYTES | LIST | MAP) == 0 {
                    return self.problem(
                        e,
                        format!(
                            "size() measures strings, bytes, lists and maps, and {} is {}",
                            self.name(&inner),
                            kind_names(self.kinds(&inner))
                        ),
                    );
                }
                Ok(Some(Operand::Size(Box::new(inner))))
            }
            _ => Ok(None),
        }
    }

    fn kinds(&self, op: &Operand) -> Kinds {
        match op {
            Operand::Const(v) => v.kind(),
            Operand::Var(var) => var.kinds(),
            Operand::Path(_) => crate::query::json::JSON_KINDS,
            Operand::Size(_) => value::INT,
        }
    }

    fn name(&self, op: &Operand) -> String {
        match op {
            Operand::Const(v) => literal(v),
            Operand::Var(var) => format!("`{}`", var.name()),
            Operand::Path(i) => format!("`value{}`", render_path(&self.raw[*i].0, true)),
            Operand::Size(inner) => format!("the size of {}", self.name(inner)),
        }
    }
}

/// How costly a part is to evaluate: head fields, then other payload
/// fields, then `value`, then the interpreter.
fn cost(n: &Node) -> u8 {
    match n {
        Node::Const(_) => 0,
        Node::And(v) | Node::Or(v) => v.iter().map(cost).max().unwrap_or(0),
        Node::Not(n) => cost(n),
        Node::Cond(c) => cost(&c.0).max(cost(&c.1)).max(cost(&c.2)),
        Node::Leaf(Leaf { test, vars }) => {
            let data = if vars & Var::Value.bit() != 0 {
                2
            } else if vars & !Var::HEAD != 0 {
                1
            } else {
                0
            };
            data + if matches!(test, Test::Fallback(_)) { 3 } else { 0 }
        }
    }
}
