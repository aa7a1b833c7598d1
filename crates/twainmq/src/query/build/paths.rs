//! Value paths: the steps under `value` a filter reads or tests with
//! `has()`, and their layout for one reading pass of the JSON.

#[allow(clippy::wildcard_imports)]
use super::*;

impl Builder<'_> {
    pub(super) fn read(&mut self, path: Vec<Seg>) -> Operand {
        self.raw.push((path, None));
        Operand::Path(self.raw.len() - 1)
    }

    /// The steps of a path under `value` (`value.a[0].b`), `None` for any
    /// other expression. Fields of other variables are an error.
    pub(super) fn value_path(&self, e: &IdedExpr) -> Res<Option<Vec<Seg>>> {
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
