//! The guard process each test runs under (`whittle-guard PARENT_PID COMMAND_LINE`; see
//! `whittle_core::Guard`), as a program of its own: the `whittle` binary, with every format's
//! parser to map and relocate, takes a few milliseconds more to start per test (measured in
//! `docs/processes.md`), a sizeable share of a fast test's time. `whittle` runs this program
//! when it lies beside it, and itself (`whittle __guard …`) when it does not.

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    std::process::exit(whittle_core::guard_main(&args));
}
