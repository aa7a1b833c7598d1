#![no_main]
//! See `twainmq_fuzz::checks::line_decode` for what is checked.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| twainmq_fuzz::checks::line_decode(data));
