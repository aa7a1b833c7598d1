//! The app's backend is built by domain, in layers that import only downward
//! (docs/ARCHITECTURE.md draws them). This reads the sources, so an upward
//! import, a circle, or a command speaking another domain's types fails
//! `cargo test`.
//!
//! Every file has a role, and a role imports only roles below its own:
//! `base` (`wire.rs`, `engine.rs`) < a domain's `wire` < its `service` (every
//! other file of a domain) < `source` < `session` < `ipc` < a domain's
//! `commands` < the shell's frame (`commands.rs`, `menu.rs`, `windows.rs` of
//! `shell/`) < `lib.rs`. Across domains, a file imports only from a domain
//! below its own (topics < messages < search < groups < transfer < store <
//! shell), or the same one; a domain's commands are used by nothing but
//! `lib.rs` and the frame, and name no other domain's wire types; a service
//! knows no Tauri.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The domains, lowest first.
const DOMAINS: &[&str] = &["topics", "messages", "search", "groups", "transfer", "store", "cluster", "shell"];

/// A file's role, lowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Role {
    Base,
    Wire,
    Service,
    Source,
    Session,
    Ipc,
    Commands,
    Frame,
    Top,
}

/// A source file: its module path (`["topics", "service"]`), role and domain (if in one).
#[derive(Debug, Clone)]
struct File {
    module: Vec<String>,
    role: Role,
    domain: Option<usize>,
}

impl File {
    fn name(&self) -> String {
        self.module.join("/")
    }
}

fn classify(module: &[String]) -> File {
    let domain = if module.len() == 2 { DOMAINS.iter().position(|d| *d == module[0]) } else { None };
    let role = match (module.first().map(String::as_str), module.get(1).map(String::as_str)) {
        (Some("wire" | "engine"), None) => Role::Base,
        (Some("source"), None) => Role::Source,
        (Some("session"), None) => Role::Session,
        (Some("ipc"), None) => Role::Ipc,
        (Some("lib" | "main"), None) => Role::Top,
        (Some("shell"), Some("commands" | "menu" | "windows")) => Role::Frame,
        (Some(_), Some("commands")) => Role::Commands,
        (Some(_), Some(f)) if f.starts_with("wire") => Role::Wire,
        (Some(_), Some(_)) => Role::Service,
        _ => panic!("{module:?} has no role: add it to tests/layers.rs"),
    };
    assert!(module.len() == 1 || domain.is_some(), "{module:?} is in no domain: add its folder to DOMAINS");
    File { module: module.to_vec(), role, domain }
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
fn code(text: &str) -> String {
    let text = text.find("#[cfg(test)]\nmod tests").map_or(text, |i| &text[..i]);
    text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// Every path a file's code names from `crate::` or `super::`, as module segments from the
/// crate root (`use crate::a::{b, c::d}` names `a::b` and `a::c::d`).
fn named_paths(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (root, base) in [("crate::", Vec::new()), ("super::", module[..module.len().saturating_sub(2)].to_vec())] {
        let mut rest = code;
        while let Some(i) = rest.find(root) {
            let preceded = rest[..i].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':');
            rest = &rest[i + root.len()..];
            if preceded {
                continue;
            }
            let mut prefix = base.clone();
            if root == "super::" {
                // `super` of `a/b.rs` is `a`; of a top-level file, the crate.
                prefix = module[..module.len() - 1].to_vec();
            }
            paths(rest, prefix, &mut out);
        }
    }
    out
}

/// The paths `text` starts with, below `prefix`: `a::b`, or a group `{a, b::c}`.
fn paths(text: &str, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let ident: String = text.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    if ident.is_empty() {
        if let Some(group) = text.strip_prefix('{') {
            let mut depth = 0;
            let mut start = 0;
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

struct Crate {
    files: BTreeMap<Vec<String>, (File, String)>,
}

impl Crate {
    fn read() -> Crate {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut list = Vec::new();
        sources(&src, &mut list);
        let files = list
            .into_iter()
            .map(|path| {
                let rel = path.strip_prefix(&src).expect("under src").with_extension("");
                let module: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
                let text = code(&std::fs::read_to_string(&path).expect("read"));
                (module.clone(), (classify(&module), text))
            })
            .collect();
        Crate { files }
    }

    /// The file a path names: its longest prefix that is a file's module.
    fn resolve(&self, path: &[String]) -> Option<&File> {
        (1..=path.len()).rev().find_map(|n| self.files.get(&path[..n]).map(|(f, _)| f))
    }

    /// Every file's imports: (importer, imported), each pair once.
    fn imports(&self) -> BTreeSet<(Vec<String>, Vec<String>)> {
        let mut out = BTreeSet::new();
        for (module, (file, text)) in &self.files {
            if file.role == Role::Top {
                continue; // lib.rs and main.rs start the app: they name everything
            }
            for path in named_paths(text, module) {
                if let Some(target) = self.resolve(&path) {
                    if target.module != *module {
                        out.insert((module.clone(), target.module.clone()));
                    }
                }
            }
        }
        out
    }
}

#[test]
fn every_import_goes_down_the_layers_and_the_domains() {
    let krate = Crate::read();
    let imports = krate.imports();
    assert!(imports.len() > 80, "only {} imports found: is the scan reading the sources?", imports.len());
    let mut wrong = Vec::new();
    for (from, to) in &imports {
        let (a, b) = (&krate.files[from].0, &krate.files[to].0);
        let say = |why: &str| format!("{} ({:?}) imports {} ({:?}): {why}", a.name(), a.role, b.name(), b.role);
        if b.role > a.role {
            wrong.push(say("a role above its own"));
        }
        if let (Some(da), Some(db)) = (a.domain, b.domain) {
            if db > da {
                wrong.push(say("a domain above its own"));
            }
            if da != db && b.role >= Role::Commands && a.role != Role::Frame {
                wrong.push(say("another domain's commands (only lib.rs and the shell's frame use them)"));
            }
            if da != db && a.role == Role::Commands && b.role == Role::Wire {
                wrong.push(say("a command speaks its own domain's wire types only"));
            }
        }
    }
    assert!(wrong.is_empty(), "imports that break the layers:\n{}", wrong.join("\n"));
}

#[test]
fn no_two_files_import_each_other_even_through_others() {
    let krate = Crate::read();
    let imports = krate.imports();
    // A file is in a circle when it reaches itself through the files it imports.
    let mut circles = BTreeSet::new();
    for start in krate.files.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&Vec<String>> = imports.iter().filter(|(f, _)| f == start).map(|(_, t)| t).collect();
        while let Some(next) = stack.pop() {
            if next == start {
                circles.insert(start.join("/"));
                break;
            }
            if seen.insert(next.clone()) {
                stack.extend(imports.iter().filter(|(f, _)| f == next).map(|(_, t)| t));
            }
        }
    }
    assert!(circles.is_empty(), "files in an import circle: {circles:?}");
}

#[test]
fn services_and_wire_types_know_no_tauri() {
    let krate = Crate::read();
    let mut wrong = Vec::new();
    for (file, text) in krate.files.values() {
        let tauri: Vec<&str> =
            ["tauri::", "tauri_plugin", "AppHandle", "tauri_specta::"].into_iter().filter(|n| text.contains(n)).collect();
        let allowed: &[&str] = match file.role {
            Role::Base | Role::Service | Role::Source => &[],
            // A wire type may be an event the backend emits (derived, nothing called).
            Role::Wire => &["tauri_specta::"],
            _ => continue,
        };
        if tauri.iter().any(|n| !allowed.contains(n)) {
            wrong.push(format!("{} ({:?}) names {tauri:?}", file.name(), file.role));
        }
    }
    assert!(wrong.is_empty(), "Tauri where it does not belong (services are tested without it):\n{}", wrong.join("\n"));
}

#[test]
fn the_scan_reads_group_imports_and_super() {
    let m = |s: &str| s.split('/').map(str::to_string).collect::<Vec<_>>();
    let found = named_paths("use crate::a::{b, c::{d, e}};\nuse super::wire::X;", &m("topics/service"));
    assert!(found.contains(&m("a/b")) && found.contains(&m("a/c/d")) && found.contains(&m("a/c/e")), "{found:?}");
    assert!(found.contains(&m("topics/wire/X")), "{found:?}");
}
