//! The recording as text: what differs between machines and runs replaced
//! (temporary folders, incarnation tokens), and the committed file's layout.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

/// Replaces what differs between machines and runs in recorded values.
#[derive(Default)]
pub(crate) struct Normalizer {
    /// Temporary folders, to [`ROOT`] or another display path (in order: a
    /// folder inside another comes first).
    roots: Vec<(String, String)>,
    /// Incarnation token to `incarnation-n`, in the order first seen.
    incarnations: BTreeMap<String, String>,
}

impl Normalizer {
    pub(crate) fn root(&mut self, dir: &Path, shown: &str) {
        self.roots.push((dir.display().to_string(), shown.to_string()));
    }

    pub(crate) fn value(&mut self, v: Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.text(s)),
            Value::Array(a) => Value::Array(a.into_iter().map(|x| self.value(x)).collect()),
            Value::Object(o) => {
                let mut out = Map::new();
                for (k, x) in o {
                    let x = match (k.as_str(), x) {
                        ("incarnation", Value::String(token)) => Value::String(self.incarnation(&token)),
                        (_, x) => self.value(x),
                    };
                    out.insert(k, x);
                }
                Value::Object(out)
            }
            other => other,
        }
    }

    pub(crate) fn text(&self, mut s: String) -> String {
        for (from, to) in &self.roots {
            if s.contains(from.as_str()) {
                s = s.replace(from.as_str(), to);
            }
        }
        s
    }

    pub(crate) fn incarnation(&mut self, token: &str) -> String {
        let n = self.incarnations.len() + 1;
        self.incarnations.entry(token.to_string()).or_insert_with(|| format!("incarnation-{n}")).clone()
    }
}

/// The recording as the committed file holds it: objects one key a line, long
/// arrays one element a line (so a change shows as a few changed lines).
pub fn to_text(v: &Value) -> String {
    let mut s = String::new();
    write(v, 0, &mut s);
    s.push('\n');
    s
}

pub(crate) fn write(v: &Value, depth: usize, out: &mut String) {
    let compact = v.to_string();
    let pad = |d: usize| "  ".repeat(d);
    match v {
        Value::Object(o) if compact.len() > 120 => {
            out.push_str("{\n");
            for (i, (k, x)) in o.iter().enumerate() {
                out.push_str(&pad(depth + 1));
                out.push_str(&Value::String(k.clone()).to_string());
                out.push_str(": ");
                write(x, depth + 1, out);
                if i + 1 < o.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            out.push_str(&pad(depth));
            out.push('}');
        }
        Value::Array(a) if compact.len() > 120 && a.iter().any(|x| x.is_object() || x.is_array()) => {
            out.push_str("[\n");
            for (i, x) in a.iter().enumerate() {
                out.push_str(&pad(depth + 1));
                let one = x.to_string();
                if one.len() <= 1000 {
                    out.push_str(&one);
                } else {
                    write(x, depth + 1, out);
                }
                if i + 1 < a.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            out.push_str(&pad(depth));
            out.push(']');
        }
        _ => out.push_str(&compact),
    }
}
