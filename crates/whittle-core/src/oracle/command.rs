//! The external test as an [`Oracle`]: a shell command run on the candidate in a scratch
//! directory.

use super::process::{Guard, run_shell};
use super::timeout::{Limiter, OriginalRun, Timeout, TimeoutReport};
use super::{Oracle, OracleError, Run, Verdict, shell_quote};
use std::ffi::OsString;
use std::fs;
use std::path::Path;

/// An external test command, run by `sh -c` (interesting = exit status 0).
///
/// Each call gets a fresh temporary directory that holds the candidate under the input's file
/// name and is the test's working directory; `{}` in the command is replaced by the candidate's
/// path (shell-quoted), otherwise the path is appended. A test is killed, with everything it
/// started, when it runs past the [`Timeout`] or is cancelled, and its leftovers are killed after
/// it exits: under a [`Guard`] process every descendant, otherwise its process group.
#[derive(Debug)]
pub struct CommandOracle {
    command: String,
    file_name: OsString,
    limiter: Limiter,
    guard: Option<Guard>,
}

impl CommandOracle {
    /// A test `command` for candidates named `file_name`, killed after `timeout` (a `Duration`
    /// for a fixed limit, or a [`Timeout`]).
    pub fn new(command: &str, file_name: &Path, timeout: impl Into<Timeout>) -> CommandOracle {
        let file_name = file_name
            .file_name()
            .map_or_else(|| OsString::from("input"), |n| n.to_os_string());
        CommandOracle {
            command: command.to_string(),
            file_name,
            limiter: Limiter::new(timeout.into()),
            guard: None,
        }
    }

    /// Runs every test under `guard` (see [`Guard`]), so that nothing it starts survives it.
    pub fn guard(mut self, guard: Option<Guard>) -> CommandOracle {
        self.guard = guard;
        self
    }

    /// The timeout policy.
    pub fn timeout(&self) -> Timeout {
        self.limiter.policy()
    }

    /// The limit a test starting now would get.
    pub fn current_limit(&self) -> std::time::Duration {
        self.limiter.current()
    }

    /// The shell command line that tests the file at `path`.
    pub fn command_line(&self, path: &Path) -> String {
        self.substitute(&shell_quote(&path.to_string_lossy()))
    }

    fn substitute(&self, quoted_path: &str) -> String {
        if self.command.contains("{}") {
            self.command.replace("{}", quoted_path)
        } else {
            format!("{} {}", self.command, quoted_path)
        }
    }

    /// Runs the test on `candidate` in a fresh directory, capturing its output if asked.
    pub fn run(
        &self,
        candidate: &[u8],
        cancel: &dyn Fn() -> bool,
        capture: bool,
    ) -> Result<Run, OracleError> {
        let dir = tempfile::Builder::new().prefix("whittle-").tempdir()?;
        let path = dir.path().join(&self.file_name);
        fs::write(&path, candidate)?;
        self.run_file(&path, dir.path(), cancel, capture, Some(candidate))
    }

    /// Runs the test on an existing file with `cwd` as working directory.
    pub fn run_at(
        &self,
        path: &Path,
        cwd: &Path,
        cancel: &dyn Fn() -> bool,
        capture: bool,
    ) -> Result<Run, OracleError> {
        self.run_file(path, cwd, cancel, capture, None)
    }

    /// [`CommandOracle::run_at`], told the file's bytes when they are at hand (so that the
    /// limiter can tell the original's test apart: [`Oracle::expect_original`]).
    fn run_file(
        &self,
        path: &Path,
        cwd: &Path,
        cancel: &dyn Fn() -> bool,
        capture: bool,
        bytes: Option<&[u8]>,
    ) -> Result<Run, OracleError> {
        let empty = fs::metadata(path).is_ok_and(|m| m.len() == 0);
        let run = run_shell(
            &self.command_line(path),
            cwd,
            &[],
            self.limiter.limit(empty),
            cancel,
            capture,
            self.guard.as_ref(),
        )?;
        self.limiter.record(run.verdict, run.elapsed, empty, bytes);
        Ok(run)
    }

    /// A shell snippet that reproduces one run by hand on a copy of `input`, as whittle runs it.
    pub fn reproduce_hint(&self, input: &Path) -> String {
        let name = shell_quote(&self.file_name.to_string_lossy());
        format!(
            "d=$(mktemp -d) && cp {} \"$d\"/{name} && cd \"$d\" && {}; echo \"exit status: $?\"",
            shell_quote(&input.to_string_lossy()),
            self.substitute(&format!("\"$d\"/{name}")),
        )
    }
}

impl Oracle for CommandOracle {
    fn test(&self, candidate: &[u8], cancel: &dyn Fn() -> bool) -> Result<Verdict, OracleError> {
        Ok(self.run(candidate, cancel, false)?.verdict)
    }

    /// Times the original input again while the adaptive policy wants more runs of it (a fast
    /// test is run up to five times in all), so the limit does not rest on one cold start. Runs
    /// restored from a journal count: a resumed run times only what the killed run had not.
    fn calibrate(
        &self,
        input: &[u8],
        timed: &dyn Fn(&[OriginalRun]) -> Result<(), OracleError>,
    ) -> Result<(), OracleError> {
        let (runs, mut told) = self.limiter.original_runs();
        if runs.len() > told {
            timed(&runs)?;
            told = runs.len();
        }
        while self.limiter.wants_calibration() {
            let dir = tempfile::Builder::new().prefix("whittle-").tempdir()?;
            let path = dir.path().join(&self.file_name);
            fs::write(&path, input)?;
            let run = run_shell(
                &self.command_line(&path),
                dir.path(),
                &[],
                self.limiter.limit(false),
                &|| false,
                false,
                self.guard.as_ref(),
            )?;
            self.limiter.record_calibration(run.verdict, run.elapsed);
            let (runs, _) = self.limiter.original_runs();
            if runs.len() > told {
                timed(&runs)?;
                told = runs.len();
            }
        }
        self.limiter.started();
        Ok(())
    }

    fn restore_timings(&self, original: &[OriginalRun]) {
        self.limiter.restore(original);
    }

    fn original_runs(&self) -> Vec<OriginalRun> {
        self.limiter.original_runs().0
    }

    fn expect_original(&self, input: &[u8]) -> bool {
        self.limiter.expect(input);
        true
    }

    fn timeout_report(&self) -> Option<TimeoutReport> {
        Some(self.limiter.report())
    }

    fn starts_processes(&self) -> bool {
        true
    }
}
