//! `whittle`: reduce a file while a test command still says it is interesting.
//!
//! As ripgrep's `crates/core`: `main` parses the arguments (`args`, clap's view), `reduce`
//! resolves them once into a checked configuration (`config`; the options that reach the test
//! are `verdicts`) and runs a reduction through the library's [`whittle::Reduction`] with a file
//! sink (`output`) and a progress display (`progress`, `log`, `stall`) as observers, writes the
//! report (`report`, `generator`) and tells the user what happened (`messages`); the other
//! commands are `formats` (`tree`, `formats`, `learn`), `completions` and `man`. `main` maps
//! errors to exit statuses.

mod args;
mod completions;
mod config;
mod expect;
mod formats;
mod generator;
mod log;
mod man;
mod messages;
mod output;
mod progress;
mod reduce;
mod report;
mod resume;
mod stall;
mod verdicts;

use anyhow::{Context, Result};
use args::{Cli, Command};
use clap::Parser;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

/// Exit status for bad input, a bad test or bad options (as clap uses for usage errors).
const EXIT_BAD_INPUT: u8 = 2;
/// Exit status after Ctrl-C or SIGTERM (128 + SIGINT, as shells report it).
const EXIT_INTERRUPTED: u8 = 130;

/// Set by Ctrl-C and SIGTERM (and by a failed write of the result); the reduction then stops and
/// keeps its best result.
static STOP: AtomicBool = AtomicBool::new(false);

/// An error that maps to a given exit status.
#[derive(Debug)]
struct Exit(u8, String);

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.1)
    }
}

impl std::error::Error for Exit {}

/// An error about the input, the test or the options: exit status 2.
fn bad(msg: impl Into<String>) -> anyhow::Error {
    Exit(EXIT_BAD_INPUT, msg.into()).into()
}

/// The hidden subcommand that runs one test under a guard process (see `whittle_core::Guard`).
pub(crate) const GUARD: &str = "__guard";

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == GUARD) {
        let code = whittle_core::guard_main(&args[2..]);
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Reduce(args) => reduce::reduce(*args),
        Command::Tree(args) => formats::tree(args),
        Command::Formats => formats::list(),
        Command::Learn(args) => formats::learn(args),
        Command::GenClient { output } => gen_client(output.as_deref()),
        Command::Completions { shell } => completions::print(shell),
        Command::Man => man::print(),
    };
    match result {
        Ok(code) => code,
        // A reader that stopped reading (`whittle man | head`) is no error, as for ripgrep.
        Err(e) if broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            let code = e.downcast_ref::<Exit>().map_or(1, |x| x.0);
            eprintln!("error: {e:#}");
            ExitCode::from(code)
        }
    }
}

fn broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn gen_client(output: Option<&Path>) -> Result<ExitCode> {
    match output {
        Some(path) => std::fs::write(path, whittle_trace::PYTHON_CLIENT)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => std::io::stdout().write_all(whittle_trace::PYTHON_CLIENT.as_bytes())?,
    }
    Ok(ExitCode::SUCCESS)
}

fn read_input(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| bad(format!("cannot read {}: {e}", path.display())))
}

/// Line and column (1-based) of a byte offset, for error messages.
fn line_col(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let col = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
    (line, col)
}
