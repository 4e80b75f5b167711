//! See `collie_client::engine::dsh::fuzz::decoders` for what this target checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| collie_testkit::fuzz_checks::dsh(data));
