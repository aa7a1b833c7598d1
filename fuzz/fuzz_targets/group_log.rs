#![no_main]
//! See `twainmq_fuzz::checks::group_log` for what is checked.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| twainmq_fuzz::checks::group_log(data));
