//! The checks a filter passes before it is planned: every name known, every
//! constant part evaluating, every constant duration within a message's times.

#[allow(clippy::wildcard_imports)]
use super::*;

impl Builder<'_> {
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
}
