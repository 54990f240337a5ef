//! The end-to-end tests of the `whittle` binary, as one test binary (as ripgrep's `tests/tests.rs`):
//! one link instead of one per file, and the helpers in one module, [`util`]. Each module runs
//! the binary on one kind of input or one concern; `cargo test -p whittle-cli --test integration
//! pdf::` runs one module.
#![allow(
    clippy::disallowed_methods,
    reason = "these tests run the whittle binary and real test commands and tools"
)]

mod util;

mod c;
mod cli;
mod generator;
mod javascript;
mod pdf;
mod processes;
mod python;
mod slow;
