//! The engine's layers import only downward (see the crate doc): a module of
//! one layer may name `crate::<layer>` only for its own layer or one below it.
//! This reads the sources, so a new upward import fails `cargo test`.

use std::path::{Path, PathBuf};

/// Rank of each top-level module: a module may import ranks up to its own.
/// `error` shares the format layer's rank: the one error vocabulary names
/// format types (key types, line problems), and every layer returns it.
const LAYERS: &[(&str, u32)] = &[
    ("error", 1),
    ("format", 1),
    ("sys", 2),
    ("query", 2),
    ("log", 3),
    ("group", 4),
    ("store", 5),
    ("scan", 6),
    ("check", 6),
    ("transfer", 6),
    ("demo", 7),
];

fn rank(module: &str) -> Option<u32> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|(_, r)| *r)
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

#[test]
fn no_module_imports_from_a_layer_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut upward = Vec::new();
    let mut checked = 0;
    for file in &files {
        let rel = file.strip_prefix(&src).expect("under src");
        let top = rel.components().next().and_then(|c| c.as_os_str().to_str()).expect("name");
        let top = top.strip_suffix(".rs").unwrap_or(top);
        if top == "lib" {
            continue; // the curated public API names every layer
        }
        let own = rank(top).unwrap_or_else(|| panic!("{} is in no layer: add its module to LAYERS", rel.display()));
        let text = code(&std::fs::read_to_string(file).expect("read"));
        for (i, _) in text.match_indices("crate::") {
            let after = &text[i + "crate::".len()..];
            let name: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            // Root re-exports (`crate::Store`) hide their layer: name the module instead.
            let Some(target) = rank(&name) else {
                upward.push(format!("{} names crate::{name}: import it by its module path, so its layer shows", rel.display()));
                continue;
            };
            checked += 1;
            if target > own {
                upward.push(format!("{} (layer {top}) imports crate::{name}", rel.display()));
            }
        }
    }
    assert!(checked > 100, "only {checked} imports found: is the scan reading the sources?");
    assert!(upward.is_empty(), "imports from a layer above (or hiding their layer):\n{}", upward.join("\n"));
}

mod imports;

#[test]
fn no_file_imports_itself_through_others() {
    let files = imports::Files::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let edges = files.imports().len();
    assert!(edges > 300, "only {edges} imports between files found: is the scan reading the sources?");
    let circles = files.circles();
    assert!(circles.is_empty(), "files in an import circle (tie them apart: move what both need below both):\n{circles:?}");
}

#[test]
fn the_circle_check_sees_a_circle() {
    let dir = tempfile::tempdir().expect("tmp");
    let src = dir.path();
    std::fs::create_dir(src.join("log")).expect("mkdir");
    std::fs::write(src.join("lib.rs"), "mod log;\n").expect("write");
    std::fs::write(src.join("log/mod.rs"), "pub(crate) mod a;\npub(crate) mod b;\n").expect("write");
    std::fs::write(src.join("log/a.rs"), "use crate::log::b::{B, self};\npub struct A;\n").expect("write");
    // Through the folder's re-export, and a `super::` path.
    std::fs::write(src.join("log/b.rs"), "pub struct B;\nfn f() -> super::A { todo!() }\n").expect("write");
    let files = imports::Files::read(src);
    assert_eq!(files.circles(), vec![vec!["log/a".to_string(), "log/b".to_string()]]);
    std::fs::write(src.join("log/b.rs"), "pub struct B;\n").expect("write");
    assert!(imports::Files::read(src).circles().is_empty());
}
