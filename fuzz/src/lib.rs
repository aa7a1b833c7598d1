//! Shared checks for the fuzz targets; also replayed over the corpus by
//! `crates/twainmq/tests/fuzz_regressions.rs`.

pub mod checks;
