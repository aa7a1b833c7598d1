//! What `cargo xtask` generates is committed, and a test fails while it is stale.

#[test]
fn committed_bindings_are_current() {
    let committed = xtask::root().join(xtask::BINDINGS);
    let tmp = tempfile::tempdir().expect("tmp");
    let fresh = tmp.path().join("bindings.ts");
    xtask::export_bindings(&fresh).expect("export");
    let want = std::fs::read_to_string(&fresh).expect("fresh");
    let have = std::fs::read_to_string(&committed).unwrap_or_default();
    assert!(have == want, "{} is stale: run `make bindings` and commit it", xtask::BINDINGS);
}

#[test]
fn recorded_ui_backend_is_current() {
    let committed = xtask::root().join(xtask::RECORDING);
    let fresh = xtask::record::record(&xtask::record::default_fixture()).expect("record");
    let have = std::fs::read_to_string(&committed).unwrap_or_default();
    assert!(have == xtask::record::recording_text(&fresh), "{} is stale: run `make ui-fixture` and commit it", xtask::RECORDING);
    // What the UI's tests lean on is there: the fixture's 0.2.3 groups, and what was made here.
    assert_eq!(fresh["groups"]["workers"]["data"]["topic"], "events");
    assert_eq!(fresh["topics"]["ledger"]["detail"]["data"]["partitions"][0]["start"], xtask::record::LEDGER_START.to_string());
    assert_eq!(fresh["marker"], xtask::record::MARKER);
}
