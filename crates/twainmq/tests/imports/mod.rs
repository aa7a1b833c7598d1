//! Which file of a crate imports which: every `crate::` and `super::` path a
//! file's code names (`use crate::a::{b, c::d}` names `a::b` and `a::c::d`),
//! resolved to the file that holds it. A path through a folder's `mod.rs` to
//! an item one of its files defines (`crate::scan::Hits`) is that file's. Unit
//! tests (`#[cfg(test)] mod tests`) and comments are not read; `lib.rs` and
//! `main.rs`, which declare everything, are left out. Shared by the engine's
//! and the CLI's `tests/layers.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A file as a module path: `["log", "dir"]`; a folder's `mod.rs` is the folder's.
pub type Module = Vec<String>;

pub struct Files {
    /// Each file's module, path on disk and code.
    files: BTreeMap<Module, (PathBuf, String)>,
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("list src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file without its unit tests (they may use the whole crate)
/// and without comments (docs may link anywhere).
pub fn code(text: &str) -> String {
    let text = text.find("#[cfg(test)]\nmod tests").map_or(text, |i| &text[..i]);
    text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// The paths `text` starts with, below `prefix`: `a::b`, or a group `{a, b::c}`.
fn paths(text: &str, prefix: Vec<String>, out: &mut Vec<Module>) {
    let ident: String = text.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    if ident.is_empty() {
        if let Some(group) = text.strip_prefix('{') {
            let (mut depth, mut start) = (0, 0);
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        paths(group[start..i].trim_start(), prefix.clone(), out);
                        return;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        paths(group[start..i].trim_start(), prefix.clone(), out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
        }
        out.push(prefix);
        return;
    }
    let mut next = prefix;
    if ident != "self" {
        next.push(ident.clone());
    }
    match text[ident.len()..].strip_prefix("::") {
        Some(after) => paths(after, next, out),
        None => out.push(next),
    }
}

impl Files {
    pub fn read(src: &Path) -> Files {
        let mut list = Vec::new();
        sources(src, &mut list);
        let files = list
            .into_iter()
            .map(|path| {
                let rel = path.strip_prefix(src).expect("under src").with_extension("");
                let mut module: Module = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
                if module.last().is_some_and(|m| m == "mod") {
                    module.pop();
                }
                let text = code(&std::fs::read_to_string(&path).expect("read"));
                (module, (path, text))
            })
            .collect();
        Files { files }
    }

    fn is_folder(&self, module: &Module) -> bool {
        self.files[module].0.file_name().is_some_and(|n| n == "mod.rs")
    }

    /// Whether `module`'s code defines a public item called `name`: a line
    /// with `pub` before `fn name`, `struct name` and the like.
    fn defines(&self, module: &Module, name: &str) -> bool {
        let text = &self.files[module].1;
        text.lines().any(|line| {
            ["fn", "struct", "enum", "trait", "type", "const", "static", "mod"].iter().any(|kind| {
                let item = format!("{kind} {name}");
                line.match_indices(&item).any(|(i, _)| {
                    let after = line[i + item.len()..].chars().next();
                    line[..i].contains("pub") && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
                })
            })
        })
    }

    /// The file a path names: its longest prefix that is a file's module, or
    /// the one file of a folder that defines the item named after the folder.
    fn resolve(&self, path: &[String]) -> Option<Module> {
        let n = (1..=path.len()).rev().find(|n| self.files.contains_key(&path[..*n]))?;
        let module = path[..n].to_vec();
        if n < path.len() && self.is_folder(&module) {
            let owners: Vec<Module> =
                self.files.keys().filter(|m| m.len() == n + 1 && m.starts_with(&module) && self.defines(m, &path[n])).cloned().collect();
            if let [one] = owners.as_slice() {
                return Some(one.clone());
            }
        }
        Some(module)
    }

    /// Every file's imports: (importer, imported), each pair once.
    pub fn imports(&self) -> BTreeSet<(Module, Module)> {
        let mut out = BTreeSet::new();
        for (module, (_, text)) in &self.files {
            if module.len() == 1 && (module[0] == "lib" || module[0] == "main") {
                continue;
            }
            // `super` of `a/b.rs` is `a`; of `a/mod.rs` (module `a`), the crate.
            let parent: Module = module[..module.len() - 1].to_vec();
            for (root, base) in [("crate::", Vec::new()), ("super::", parent)] {
                let mut rest = text.as_str();
                while let Some(i) = rest.find(root) {
                    let preceded = rest[..i].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':');
                    rest = &rest[i + root.len()..];
                    if preceded {
                        continue;
                    }
                    let mut named = Vec::new();
                    paths(rest, base.clone(), &mut named);
                    for path in named {
                        if let Some(target) = self.resolve(&path) {
                            if target != *module {
                                out.insert((module.clone(), target));
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// The import circles: each set of files that reach one another through
    /// their imports (a strongly connected set of two or more), as sorted names.
    pub fn circles(&self) -> Vec<Vec<String>> {
        let imports = self.imports();
        let reach = |from: &Module| -> BTreeSet<Module> {
            let mut seen = BTreeSet::new();
            let mut stack = vec![from.clone()];
            while let Some(next) = stack.pop() {
                for (_, to) in imports.iter().filter(|(f, _)| *f == next) {
                    if seen.insert(to.clone()) {
                        stack.push(to.clone());
                    }
                }
            }
            seen
        };
        let reached: BTreeMap<&Module, BTreeSet<Module>> = self.files.keys().map(|m| (m, reach(m))).collect();
        let mut out = BTreeSet::new();
        for (m, r) in &reached {
            if !r.contains(*m) {
                continue;
            }
            let mut circle: Vec<String> = r.iter().filter(|o| reached[o].contains(*m)).map(|o| o.join("/")).collect();
            circle.sort();
            out.insert(circle);
        }
        out.into_iter().collect()
    }
}
