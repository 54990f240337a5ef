//! Automation for whittle, run as `cargo xtask …`:
//!
//! - `cargo xtask bench [--quick] [--case ID]... [--reducer ID]... [--out docs/benchmarks.md]`
//!   builds the release binary, reduces the real cases of `xtask/cases/` (from
//!   `../shared/guide/cases.md`) with their algorithms at their `-j` values (`gtr` and `gtr*`
//!   also with `--no-rules`; whittle's default `auto` right after `gtr*`, so the gain of its
//!   moves below the tree shows) and with the other reducers of `reducers.rs` (installed pinned under
//!   `target/bench-tools/`), every one through the counting wrapper `oracles/count.sh` and under
//!   `xtask measure` (CPU time, peak memory), installs the npm tools an oracle needs, measures
//!   whittle's own overhead on tiny inputs, and writes the whole of `docs/benchmarks.md` with the
//!   box plots `docs/benchmarks-*.svg`;
//! - `cargo xtask xml-roundtrip [DIR...]` parses every XML file under the directories with
//!   `whittle_xml::Xml`, renders it unedited and counts byte-exact round trips and gate passes;
//! - `cargo xtask c-roundtrip [--lang c|cpp]` does the same for the C and C++ corpora of
//!   `cargo xtask corpora` (byte-exact round trips, files with `ERROR` nodes, gate passes);
//! - `cargo xtask greduce [--example NAME]...` reduces the example generators of
//!   `fixtures/generators/` by their traces (sequence, tree, GTR*, each alignment strategy) and
//!   by their generated inputs (GTR*), and writes the `greduce` section of `docs/benchmarks.md`;
//! - `cargo xtask corpora [--only python|javascript|xml|pdf|c|cpp]` fetches the pinned corpora,
//!   relearns the shipped rules `corpora/*.rules.json` and writes `corpora/manifest.json` and
//!   `docs/learning-curve.svg`;
//! - `cargo xtask install [--case ID]...` installs the programs the cases call (their `[[tools]]`,
//!   by apt-get, pip or npm as each `install` field says) and the npm tools of their oracles,
//!   where missing; `cargo xtask bench` does it first (unless `--no-install`);
//! - `cargo xtask dist [--check]` builds the wheel (maturin, `pyproject.toml`) and the man page
//!   `whittle.1` into `target/dist/`, and with `--check` installs the wheel into a fresh virtual
//!   environment and runs the README's example and a guard check from there;
//! - `cargo xtask fuzz --target NAME [--minutes N] [--resume] [--minimize]` builds the AFL++
//!   harness of `fuzz/` and fuzzes one format's properties (docs/fuzzing.md).

mod bench;
mod cases;
mod cells;
mod corpora;
mod dist;
mod document;
mod findings;
mod fuzz;
mod greduce;
mod inputs;
mod install;
mod machine;
mod measure;
mod overhead;
mod plots;
mod reach;
mod reducers;
mod report;
mod results;
mod roundtrip;
mod roundtrip_c;
mod runner;
mod size;
mod speedup;
mod summary;
mod tables;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

#[derive(Parser, Debug)]
#[command(name = "cargo xtask", about = "Automation for whittle")]
struct Cli {
    #[command(subcommand)]
    command: Task,
}

#[derive(Subcommand, Debug)]
enum Task {
    /// Build the release binary, run the benchmark and write docs/benchmarks.md.
    Bench(bench::BenchArgs),
    /// Parse and re-render every XML file under DIR (default /usr/share) and count exact round trips.
    XmlRoundtrip(roundtrip::RoundtripArgs),
    /// Parse and re-render every file of the C and C++ corpora and count exact round trips.
    CRoundtrip(roundtrip_c::CRoundtripArgs),
    /// Fetch the pinned corpora and relearn the shipped rules in corpora/.
    Corpora(corpora::CorporaArgs),
    /// Reduce the example generators' traces (GReduce) and their outputs (GTR*), and write the
    /// greduce section of docs/benchmarks.md.
    Greduce(greduce::GreduceArgs),
    /// Fuzz one format with AFL++ (cargo-afl) from its saved corpus; see docs/fuzzing.md.
    Fuzz(fuzz::FuzzArgs),
    /// Install the programs the benchmark's cases call (apt-get, pip or npm, as each tool's
    /// `install` says) and the npm tools of their oracles, where missing; bench does it too.
    Install(install::InstallArgs),
    /// Build the wheel (maturin) and the man page into target/dist/; with --check, install the
    /// wheel into a fresh virtual environment and run whittle from there.
    Dist(dist::DistArgs),
    /// Run a command and write the CPU time and peak memory of its process tree (used by bench).
    #[command(hide = true)]
    Measure(measure::MeasureArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Task::Bench(args) => bench::run(&args),
        Task::XmlRoundtrip(args) => roundtrip::run(&args),
        Task::CRoundtrip(args) => roundtrip_c::run(&args),
        Task::Corpora(args) => corpora::run(&args),
        Task::Greduce(args) => greduce::run(&args),
        Task::Fuzz(args) => fuzz::run(&args),
        Task::Dist(args) => dist::run(&args),
        Task::Install(args) => install::run(&args),
        Task::Measure(args) => measure::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("xtask: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The one place xtask builds a [`Command`]: it is a developer tool that runs cargo, apt-get,
/// dpkg, the benchmark's oracles and checks and the whittle binary, which the workspace-wide
/// `disallowed_methods` lint (meant for the library crates) otherwise forbids.
#[allow(
    clippy::disallowed_methods,
    reason = "xtask is a build tool: it must start cargo, apt-get, dpkg, oracles and whittle"
)]
fn command(program: impl AsRef<std::ffi::OsStr>) -> Command {
    Command::new(program)
}

/// The workspace root: the parent of this crate's directory.
fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// Runs a command to completion and returns its stdout (trimmed), failing on a non-zero status.
fn capture(cmd: &mut Command) -> Result<String> {
    let out = cmd
        .output()
        .with_context(|| format!("cannot run {cmd:?}"))?;
    if !out.status.success() {
        bail!(
            "{cmd:?} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[cfg(test)]
mod testutil;
