//! The CLI's modules import one another without circles: `main` and `args`
//! above, one module per command, `render` (the one place output becomes text
//! or JSON) and `report` (the CLI's own outputs) below them. This reads the
//! sources, so a new circle fails `cargo test`.

use std::path::Path;

#[path = "../../twainmq/tests/imports/mod.rs"]
mod imports;

#[test]
fn no_file_imports_itself_through_others() {
    let files = imports::Files::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let edges = files.imports().len();
    assert!(edges > 20, "only {edges} imports between files found: is the scan reading the sources?");
    let circles = files.circles();
    assert!(circles.is_empty(), "files in an import circle (tie them apart: move what both need below both):\n{circles:?}");
}
