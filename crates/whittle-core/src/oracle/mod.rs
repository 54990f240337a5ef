//! The oracle: decides whether a candidate is still interesting.
//!
//! **Architecture Invariant:** this is the only module of whittle that starts processes.

mod command;
mod generator;
mod guard;
mod process;
mod timeout;

pub use command::CommandOracle;
pub use generator::{GENERATOR_HALTED, GeneratorOracle, GeneratorStats};
pub use guard::guard_main;
pub use process::Guard;
pub use timeout::{Adaptive, OriginalRun, Timeout, TimeoutReport, adaptive_limit};

use std::io;
use std::path::Path;
use std::process::ExitStatus;
use std::time::Duration;

/// What one test of a candidate said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The test exited with status 0.
    Interesting,
    /// The test exited with another status or was killed by a signal.
    Boring,
    /// The test ran past the timeout and was killed with its children.
    Timeout,
    /// The engine no longer needed the answer and killed the test.
    Cancelled,
}

/// The oracle could not run at all (as opposed to saying "not interesting").
#[derive(Debug, thiserror::Error)]
pub enum OracleError {
    /// Creating the scratch directory, writing the candidate or starting the shell failed.
    #[error("cannot run the test: {0}")]
    Io(#[from] io::Error),
}

/// Anything that can judge candidates. `cancel` is polled while a test runs; when it returns
/// `true` the oracle should stop and answer [`Verdict::Cancelled`].
pub trait Oracle: Sync {
    /// Tests one candidate.
    fn test(&self, candidate: &[u8], cancel: &dyn Fn() -> bool) -> Result<Verdict, OracleError>;

    /// Tests a candidate once more, past any cache of the oracle's own: the repeats of a flaky
    /// test ([`crate::Repeat`]). The same as [`Oracle::test`] by default.
    fn retest(&self, candidate: &[u8], cancel: &dyn Fn() -> bool) -> Result<Verdict, OracleError> {
        self.test(candidate, cancel)
    }

    /// Called once the original `input` was found interesting, before the reduction proper: an
    /// oracle that learns from its test times (the adaptive timeout) may time it a few more
    /// times. These runs are not oracle calls of the reduction. `timed` is told the original's
    /// timed runs so far (its first test's included) each time there are new ones, as they
    /// end, so that the journal can keep them (see [`Oracle::restore_timings`]).
    fn calibrate(
        &self,
        input: &[u8],
        timed: &dyn Fn(&[OriginalRun]) -> Result<(), OracleError>,
    ) -> Result<(), OracleError> {
        let _ = (input, timed);
        Ok(())
    }

    /// The original input's timed runs that an earlier run of the same reduction measured and
    /// its journal kept, given before any test: an oracle that times the original takes them as
    /// its own, so that a resumed run does not run the test on the original again to time it.
    /// Nothing by default.
    fn restore_timings(&self, original: &[OriginalRun]) {
        let _ = original;
    }

    /// Told the original input before its test. The candidates of the reduction's opening may be
    /// tested at the same time (`Reducer::check_input_opening`), so an oracle that times the
    /// original's test (the adaptive timeout) must tell it apart by its bytes, not as the first
    /// test to end. Returns whether it can: `true` by default (an oracle that times nothing);
    /// the opening runs only where it can.
    fn expect_original(&self, input: &[u8]) -> bool {
        let _ = input;
        true
    }

    /// The original input's timed runs so far (none by default): the journal records the first
    /// as soon as the original's test ends, before the calibration.
    fn original_runs(&self) -> Vec<OriginalRun> {
        Vec::new()
    }

    /// Whether each test starts processes on this machine (a command): a speculative test then
    /// takes processor time from the tests that decide (see the pool's load rule, `load.rs`).
    /// `false` by default (an in-process predicate).
    fn starts_processes(&self) -> bool {
        false
    }

    /// The timeout policy and what it did, for the report; `None` for an oracle without one.
    fn timeout_report(&self) -> Option<TimeoutReport> {
        None
    }
}

/// In-process oracles: a predicate on the candidate's bytes.
impl<F: Fn(&[u8]) -> bool + Sync> Oracle for F {
    fn test(&self, candidate: &[u8], _cancel: &dyn Fn() -> bool) -> Result<Verdict, OracleError> {
        Ok(if self(candidate) {
            Verdict::Interesting
        } else {
            Verdict::Boring
        })
    }
}

/// The result of one run of the external test, with what a user needs to reproduce it.
#[derive(Debug)]
pub struct Run {
    /// The verdict.
    pub verdict: Verdict,
    /// The exit status, if the test ended by itself.
    pub status: Option<ExitStatus>,
    /// Standard output and error, interleaved, when asked for.
    pub output: Vec<u8>,
    /// How long it ran.
    pub elapsed: Duration,
}

/// Quotes a string for `sh` with single quotes.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+:,@%=".contains(&b))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Makes the relative paths of a test command absolute against `base`, since the test runs in a
/// scratch directory. A relative path is a word with a `/` that does not start with one and names
/// an existing file (`./check.sh`, `tests/oracle.py`), as `sh` itself would treat it. Words
/// without a `/` are left alone: `grep -q line` must not turn into a path because a file `line`
/// happens to exist, and `check.sh` alone is looked up on `PATH` by the shell.
pub fn absolutize_command(command: &str, base: &Path) -> String {
    let mut out = String::with_capacity(command.len());
    let mut rest = command;
    while !rest.is_empty() {
        let word_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let (word, tail) = rest.split_at(word_end);
        let relative = word.contains('/') && !word.starts_with('/');
        match base.join(word).canonicalize() {
            Ok(abs) if relative && abs.exists() => {
                out.push_str(&shell_quote(&abs.to_string_lossy()))
            }
            _ => out.push_str(word),
        }
        let space_end = tail
            .find(|c: char| !c.is_whitespace())
            .unwrap_or(tail.len());
        out.push_str(&tail[..space_end]);
        rest = &tail[space_end..];
    }
    out
}
