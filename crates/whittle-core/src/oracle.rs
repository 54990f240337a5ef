//! The oracle: decides whether a candidate is still interesting.
//!
//! **Architecture Invariant:** this is the only module of whittle that starts processes.

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};
use wait_timeout::ChildExt;

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

/// An external test command, run by `sh -c` (interesting = exit status 0).
///
/// Each call gets a fresh temporary directory that holds the candidate under the input's file
/// name and is the test's working directory; `{}` in the command is replaced by the candidate's
/// path (shell-quoted), otherwise the path is appended. The test runs in its own process group,
/// which is killed when it times out, when it is cancelled, and after it exits (so no helper it
/// started outlives it).
#[derive(Clone, Debug)]
pub struct CommandOracle {
    command: String,
    file_name: OsString,
    timeout: Duration,
}

impl CommandOracle {
    /// A test `command` for candidates named `file_name`, killed after `timeout`.
    pub fn new(command: &str, file_name: &Path, timeout: Duration) -> CommandOracle {
        let file_name = file_name
            .file_name()
            .map_or_else(|| OsString::from("input"), |n| n.to_os_string());
        CommandOracle {
            command: command.to_string(),
            file_name,
            timeout,
        }
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
        self.run_at(&path, dir.path(), cancel, capture)
    }

    /// Runs the test on an existing file with `cwd` as working directory.
    pub fn run_at(
        &self,
        path: &Path,
        cwd: &Path,
        cancel: &dyn Fn() -> bool,
        capture: bool,
    ) -> Result<Run, OracleError> {
        let log = if capture {
            Some(tempfile::tempfile()?)
        } else {
            None
        };
        #[allow(
            clippy::disallowed_methods,
            reason = "the oracle module is the one place that starts processes"
        )]
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(self.command_line(path))
            .current_dir(cwd)
            .stdin(Stdio::null());
        match &log {
            Some(f) => {
                cmd.stdout(f.try_clone()?).stderr(f.try_clone()?);
            }
            None => {
                cmd.stdout(Stdio::null()).stderr(Stdio::null());
            }
        }
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let started = Instant::now();
        let mut child = cmd.spawn()?;
        let pgid = nix::unistd::Pid::from_raw(child.id() as i32);
        let kill_group = || {
            let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
        };
        let mut status = None;
        let verdict = loop {
            let elapsed = started.elapsed();
            if elapsed >= self.timeout {
                kill_group();
                let _ = child.wait();
                break Verdict::Timeout;
            }
            if cancel() {
                kill_group();
                let _ = child.wait();
                break Verdict::Cancelled;
            }
            let slice = (self.timeout - elapsed).min(Duration::from_millis(20));
            if let Some(s) = child.wait_timeout(slice)? {
                status = Some(s);
                break if s.success() {
                    Verdict::Interesting
                } else {
                    Verdict::Boring
                };
            }
        };
        // Leftover background processes of the test must not outlive it.
        kill_group();
        let elapsed = started.elapsed();
        let mut output = Vec::new();
        if let Some(mut f) = log {
            use std::io::{Read, Seek};
            f.seek(io::SeekFrom::Start(0))?;
            f.take(64 * 1024).read_to_end(&mut output)?;
        }
        Ok(Run {
            verdict,
            status,
            output,
            elapsed,
        })
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
