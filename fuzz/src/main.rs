//! The AFL++ harness: `whittle-afl TARGET` fuzzes one format's properties
//! (`whittle_fuzz::check`) in AFL's persistent mode. Run it through `cargo xtask fuzz`; see
//! docs/fuzzing.md. Outside AFL it reads one input from standard input, which replays a crash.

#![forbid(unsafe_code)]

use cap::Cap;
use std::alloc::System;
use whittle_fuzz::Target;

/// Every allocation goes through a cap, so that an input that makes the format allocate far
/// more than its own size aborts (AFL counts it as a crash) instead of only slowing down.
#[global_allocator]
static ALLOCATOR: Cap<System> = Cap::new(System, usize::MAX);

/// The allowance of one input: this much, plus [`PER_BYTE`] bytes per byte of input.
const BASE: usize = 64 << 20;
/// See [`BASE`]: "a small multiple of the input's size".
const PER_BYTE: usize = 256;

fn main() {
    let name = std::env::args().nth(1).unwrap_or_default();
    let Some(target) = Target::named(&name) else {
        let names: Vec<&str> = Target::ALL.iter().map(|t| t.name()).collect();
        eprintln!("usage: whittle-afl TARGET ({})", names.join(", "));
        std::process::exit(2);
    };
    // Without afl's panic hook: a panic that the code under test catches on purpose (the
    // JavaScript gate lets a candidate through when swc panics on its thread) is no crash; a
    // panic that leaves `check` (a broken property) still aborts the process.
    afl::fuzz_nohook!(|data: &[u8]| {
        let limit = ALLOCATOR.allocated() + BASE + PER_BYTE * data.len();
        if ALLOCATOR.set_limit(limit).is_err() {
            return;
        }
        whittle_fuzz::check(target, data);
        let _ = ALLOCATOR.set_limit(usize::MAX);
    });
}
