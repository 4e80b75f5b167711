//! See `collie_testkit::fuzz_checks::decode` for what this target checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| collie_testkit::fuzz_checks::decode(data));
