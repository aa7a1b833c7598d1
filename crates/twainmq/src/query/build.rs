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

    /// The name the interpreter cannot resolve in `e` evaluated with no
    /// variables, if that is why it fails.
    fn undeclared(&self, e: &IdedExpr) -> Option<String> {
        match plan::resolve(e, &self.probe) {
            Some(Err(cel::ExecutionError::UndeclaredReference(name))) => Some(name.to_string()),
            _ => None,
        }
    }

    /// Every name in `e` must be a variable, a type or a function CEL knows.
    pub(crate) fn check_names(&self, e: &IdedExpr, bound: &mut Vec<String>) -> Res<()> {
        match &e.expr {
            Expr::Ident(name) => {
                if !bound.contains(name) && Var::from_name(name).is_none() && self.undeclared(e).is_some() {
                    return self.problem(
                        e,
                        format!("unknown variable `{name}`: the variables are key, partition, offset, timestamp, kind, class, text, value and size"),
                    );
                }
                Ok(())
            }
            Expr::Call(c) if !is_operator(&c.func_name) => {
                let root = c.target.as_deref().and_then(|t| qualified_root(t).map(|r| (t, r)));
                if let Some((target, root)) = root.filter(|(_, r)| !bound.iter().any(|b| b == r) && Var::from_name(r).is_none()) {
                    // `ns.f()`, where `ns` is no variable: a qualified function, or an unknown name.
                    let probe = call(c, Some(target.clone()));
                    match self.undeclared(&probe) {
                        Some(n) if n == root => return self.problem(target, format!("unknown variable `{root}`")),
                        Some(n) if n == c.func_name => return self.problem(e, format!("unknown function `{}`", c.func_name)),
                        _ => {}
                    }
                    return c.args.iter().try_for_each(|a| self.check_names(a, bound));
                }
                let null = IdedExpr { id: 0, expr: Expr::Literal(LiteralValue::Null) };
                let probe = call(c, c.target.as_ref().map(|_| null));
                if self.undeclared(&probe).is_some_and(|n| n == c.func_name) {
                    let shape = if c.target.is_some() { format!(".{}()", c.func_name) } else { format!("{}()", c.func_name) };
                    return self.problem(e, format!("unknown function `{shape}`"));
                }
                children(e).into_iter().try_for_each(|x| self.check_names(x, bound))
            }
            Expr::Comprehension(c) => {
                self.check_names(&c.iter_range, bound)?;
                self.check_names(&c.accu_init, bound)?;
                let n = bound.len();
                bound.extend([Some(c.iter_var.clone()), c.iter_var2.clone(), Some(c.accu_var.clone())].into_iter().flatten());
                let r = [&c.loop_cond, &c.loop_step, &c.result].into_iter().try_for_each(|x| self.check_names(x, bound));
                bound.truncate(n);
                r
            }
            _ => children(e).into_iter().try_for_each(|x| self.check_names(x, bound)),
        }
    }

    /// Evaluate a constant part with the interpreter.
    fn fold(&self, e: &IdedExpr) -> Res<cel::Value> {
        plan::interpret(e, &self.probe).or_else(|err| self.problem(e, format!("this part always fails: {err}")))
    }

    /// Every constant part of `e` must evaluate, wherever it is (a part that
    /// fails on its own fails on every message), and a constant duration must
    /// fit between two message times: a message's time is from 1970 to 9999,
    /// so a longer duration takes every time it is added to or taken from out
    /// of range. Refused here, as a constant condition that fails is, rather
    /// than matching nothing without a word.
    pub(crate) fn check_durations(&self, e: &IdedExpr) -> Res<()> {
        /// 1970-01-01 to 9999-12-31T23:59:59: the span of a message's times.
        const SPAN_SECS: i64 = 253_402_300_799;
        if free_vars(e, &mut Vec::new()) == 0 {
            if let cel::Value::Duration(d) = self.fold(e)? {
                if d.num_seconds().unsigned_abs() > SPAN_SECS.unsigned_abs() {
                    return self.problem(
                        e,
                        format!(
                            "this duration is {} days, longer than the span of any message's time (1970 to 9999): every time plus or minus it is out of range",
                            d.num_days()
                        ),
                    );
                }
            }
            return Ok(());
        }
        // (Inside a macro's comprehension its own variables look constant here: not looked into.)
        if matches!(e.expr, Expr::Comprehension(_)) {
            return Ok(());
        }
        crate::query::syntax::children(e).into_iter().try_for_each(|c| self.check_durations(c))
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

    fn read(&mut self, path: Vec<Seg>) -> Operand {
        self.raw.push((path, None));
        Operand::Path(self.raw.len() - 1)
    }

    /// The steps of a path under `value` (`value.a[0].b`), `None` for any
    /// other expression. Fields of other variables are an error.
    fn value_path(&self, e: &IdedExpr) -> Res<Option<Vec<Seg>>> {
        let mut segs = Vec::new();
        let mut at = e;
        loop {
            match &at.expr {
                Expr::Select(s) if !s.test => {
                    segs.push(Seg::Key(s.field.clone()));
                    at = &s.operand;
                }
                Expr::Call(c) if c.func_name == "_[_]" && c.target.is_none() && c.args.len() == 2 => {
                    if free_vars(&c.args[1], &mut Vec::new()) != 0 {
                        return Ok(None);
                    }
                    segs.push(match self.fold(&c.args[1])? {
                        cel::Value::Int(i) => match usize::try_from(i) {
                            Ok(i) => Seg::Index(i),
                            Err(_) => return Ok(None),
                        },
                        cel::Value::UInt(u) => match usize::try_from(u) {
                            Ok(i) => Seg::Index(i),
                            Err(_) => return Ok(None),
                        },
                        cel::Value::String(s) => Seg::Key(s.to_string()),
                        _ => return Ok(None),
                    });
                    at = &c.args[0];
                }
                Expr::Ident(name) => {
                    return match Var::from_name(name) {
                        Some(Var::Value) => {
                            segs.reverse();
                            Ok(Some(segs))
                        }
                        Some(var) if !segs.is_empty() => self.problem(
                            e,
                            format!(
                                "`{}` has no fields: only `value` does (the payload parsed as JSON, or a typed message's fields)",
                                var.name()
                            ),
                        ),
                        _ => Ok(None),
                    };
                }
                _ => return Ok(None),
            }
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

    /// Lay the value paths out for one reading pass.
    pub(crate) fn finish(self, root: Node, vars: Vars, value_fields: Vec<String>) -> Built {
        let mut trie = Trie::new();
        for (path, field) in &self.raw {
            match field {
                None => {
                    trie.insert(path, true);
                }
                Some(f) => {
                    trie.insert(path, false);
                    let mut child = path.clone();
                    child.push(Seg::Key(f.clone()));
                    trie.insert(&child, false);
                }
            }
        }
        let anchor = |path: &[Seg]| trie.route(path).into_iter().enumerate().find(|&(_, n)| trie.is_whole(n));
        let paths = self
            .raw
            .iter()
            .map(|(path, field)| match (field, anchor(path)) {
                (None, Some((depth, node))) => PathRef::Read { anchor: node, rest: path[depth..].to_vec() },
                (Some(f), Some((depth, node))) => PathRef::HasIn { anchor: node, rest: path[depth..].to_vec(), field: f.clone() },
                (Some(f), None) => {
                    let mut child = path.clone();
                    child.push(Seg::Key(f.clone()));
                    let parent = trie.route(path).last().copied().unwrap_or(0);
                    let child = trie.route(&child).last().copied().unwrap_or(0);
                    PathRef::HasAt { parent, child }
                }
                // A read path is inserted whole, so it always has an anchor.
                (None, None) => PathRef::HasAt { parent: 0, child: 0 },
            })
            .collect();
        let mut needles = Vec::new();
        let spine: Vec<&Node> = match &root {
            Node::And(nodes) => nodes.iter().collect(),
            other => vec![other],
        };
        for node in spine {
            if let Node::Leaf(Leaf { test, .. }) = node {
                if let Some(n) = needle(test) {
                    needles.push(Finder::new(n.as_bytes()).into_owned());
                }
            }
        }
        Built { plan: Plan { root, trie, paths, needles }, vars, value_fields }
    }
}

/// A byte string the JSON text holds whenever `test` is true, provided the
/// text has no backslash: then every string in it is written as it is.
fn needle(test: &Test) -> Option<String> {
    match test {
        Test::Cmp(CmpOp::Eq, Operand::Path(_), Operand::Const(V::Str(s)))
        | Test::Cmp(CmpOp::Eq, Operand::Const(V::Str(s)), Operand::Path(_)) => Some(format!("\"{s}\"")),
        Test::Find(Operand::Path(_), f) => Some(String::from_utf8_lossy(f.needle()).into_owned()).filter(|s| !s.is_empty()),
        Test::Str(StrOp::StartsWith | StrOp::EndsWith, Operand::Path(_), Operand::Const(V::Str(s))) if !s.is_empty() => Some(s.to_string()),
        _ => None,
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
