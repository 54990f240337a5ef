//! The oracle: decides whether a candidate is still interesting.
//!
//! **Architecture Invariant:** this is the only module of whittle that starts processes.

use rustc_hash::FxHashMap;
use serde::Serialize;
use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::Mutex;
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
        run_shell(
            &self.command_line(path),
            cwd,
            &[],
            self.timeout,
            cancel,
            capture,
        )
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

/// Runs `line` with `sh -c` in `cwd`, in a process group of its own that is killed when the
/// command exits, times out or is cancelled, so that nothing it started outlives it.
fn run_shell(
    line: &str,
    cwd: &Path,
    env: &[(&str, &OsStr)],
    timeout: Duration,
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
        .arg(line)
        .current_dir(cwd)
        .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
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
        if elapsed >= timeout {
            kill_group();
            let _ = child.wait();
            break Verdict::Timeout;
        }
        if cancel() {
            kill_group();
            let _ = child.wait();
            break Verdict::Cancelled;
        }
        let slice = (timeout - elapsed).min(Duration::from_millis(20));
        if let Some(s) = child.wait_timeout(slice)? {
            status = Some(s);
            break if s.success() {
                Verdict::Interesting
            } else {
                Verdict::Boring
            };
        }
    };
    // Leftover background processes of the command must not outlive it.
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

/// Exit status of a generator that halted because it could not follow a trace (the `halt`
/// alignment strategy of `whittle_gen.py`).
pub const GENERATOR_HALTED: i32 = 3;

/// Counts of a generator-based reduction, summed over every replay of the generator.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct GeneratorStats {
    /// Runs of the generator.
    pub generator_runs: u64,
    /// Runs that failed (an exit status other than 0 and the halt status, a timeout, no output).
    pub generator_failures: u64,
    /// Runs that halted on a misalignment (`--align halt`, or `bypass` with nothing to bypass).
    pub halted: u64,
    /// Replays in which at least one decision could not be aligned with the trace.
    pub replays_misaligned: u64,
    /// Decisions aligned with the trace.
    pub aligned: u64,
    /// Decisions that could not be aligned.
    pub misaligned: u64,
    /// Decisions made afresh (after a misalignment, or in a part the trace no longer holds).
    pub fresh: u64,
    /// Trace events a replay left unused (the rest of a part it could not follow).
    pub skipped: u64,
    /// Restarts of the generator by the `bypass` strategy.
    pub restarts: u64,
    /// Generated outputs identical to one already tested, answered without running the test.
    pub output_cache_hits: u64,
}

impl GeneratorStats {
    fn add_replay(&mut self, v: &serde_json::Value) {
        let get = |k: &str| v.get(k).and_then(serde_json::Value::as_u64).unwrap_or(0);
        self.aligned += get("aligned");
        self.misaligned += get("misaligned");
        self.fresh += get("fresh");
        self.skipped += get("skipped");
        self.restarts += get("restarts");
        if get("misaligned") > 0 {
            self.replays_misaligned += 1;
        }
    }
}

/// How many generated outputs of interesting traces are kept for [`GeneratorOracle::output_for`].
const KEEP_OUTPUTS: usize = 16;

/// Generator-based reduction (GReduce): the candidate is a trace of a generator's decisions. The
/// generator command replays it (its `{trace}` is replaced by the trace's path, `{out}` by the
/// path to write the generated input to), and the test then judges the generated input, as
/// [`CommandOracle`] would. The trace and the generated input live in one fresh directory, which
/// is the test's working directory; the generator runs in the directory whittle was started in
/// (it is the user's program, run as they would run it), each in its own process group with the
/// timeout. Generated inputs already judged (two traces can give the same input) are answered
/// from a cache of their own, counted in [`GeneratorStats::output_cache_hits`].
///
/// The empty candidate (the engine's too-permissive probe) is not replayed: the test is asked
/// about an empty generated input directly.
pub struct GeneratorOracle {
    generator: String,
    test: CommandOracle,
    trace_name: OsString,
    output_name: OsString,
    timeout: Duration,
    align: OsString,
    cwd: PathBuf,
    stats: Mutex<GeneratorStats>,
    verdicts: Mutex<FxHashMap<u128, Verdict>>,
    outputs: Mutex<VecDeque<(u128, Vec<u8>)>>,
}

impl fmt::Debug for GeneratorOracle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GeneratorOracle")
            .field("generator", &self.generator)
            .field("test", &self.test)
            .finish_non_exhaustive()
    }
}

/// What one replay of the generator gave.
enum Replay {
    /// The generated input.
    Output(Vec<u8>),
    /// No input: the verdict for the candidate.
    Failed(Verdict),
}

impl GeneratorOracle {
    /// A generator command (with `{trace}` and `{out}`) and a test command (with or without
    /// `{}`) for traces named like `trace` whose generated inputs are named like `output`;
    /// `align` is the alignment strategy handed to the generator (`WHITTLE_ALIGN`), `cwd` the
    /// directory the generator runs in.
    pub fn new(
        generator: &str,
        test: &str,
        trace: &Path,
        output: &Path,
        timeout: Duration,
        align: &str,
        cwd: &Path,
    ) -> GeneratorOracle {
        let name = |p: &Path, default: &str| {
            p.file_name()
                .map_or_else(|| OsString::from(default), |n| n.to_os_string())
        };
        GeneratorOracle {
            generator: generator.to_string(),
            test: CommandOracle::new(test, output, timeout),
            trace_name: name(trace, "run.trace"),
            output_name: name(output, "output"),
            timeout,
            align: OsString::from(align),
            cwd: cwd.to_path_buf(),
            stats: Mutex::default(),
            verdicts: Mutex::default(),
            outputs: Mutex::default(),
        }
    }

    /// The test of generated inputs.
    pub fn test_oracle(&self) -> &CommandOracle {
        &self.test
    }

    /// The counts so far.
    pub fn stats(&self) -> GeneratorStats {
        self.stats.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The shell command line that replays the trace at `trace` into `out`.
    pub fn command_line(&self, trace: &Path, out: &Path) -> String {
        self.generator
            .replace("{trace}", &shell_quote(&trace.to_string_lossy()))
            .replace("{out}", &shell_quote(&out.to_string_lossy()))
    }

    /// Replays `trace` in `dir`, capturing the generator's output if asked.
    fn replay(
        &self,
        trace: &[u8],
        dir: &Path,
        cancel: &dyn Fn() -> bool,
        capture: bool,
    ) -> Result<(Run, PathBuf), OracleError> {
        let trace_path = dir.join(&self.trace_name);
        let out = dir.join(&self.output_name);
        let stats_path = dir.join(".whittle-gen-stats.json");
        fs::write(&trace_path, trace)?;
        let env = [
            ("WHITTLE_ALIGN", self.align.as_os_str()),
            ("WHITTLE_GEN_STATS", stats_path.as_os_str()),
        ];
        let line = self.command_line(&trace_path, &out);
        let run = run_shell(&line, &self.cwd, &env, self.timeout, cancel, capture)?;
        let mut stats = self.stats.lock().unwrap_or_else(|e| e.into_inner());
        if run.verdict != Verdict::Cancelled {
            stats.generator_runs += 1;
        }
        if let Ok(text) = fs::read(&stats_path)
            && let Ok(v) = serde_json::from_slice::<serde_json::Value>(&text)
        {
            stats.add_replay(&v);
        }
        Ok((run, out))
    }

    /// Replays `trace` and reads what it generated, counting failures.
    fn generate_in(
        &self,
        trace: &[u8],
        dir: &Path,
        cancel: &dyn Fn() -> bool,
    ) -> Result<Replay, OracleError> {
        let (run, out) = self.replay(trace, dir, cancel, false)?;
        let failed = |halted: bool| {
            let mut s = self.stats.lock().unwrap_or_else(|e| e.into_inner());
            if halted {
                s.halted += 1;
            } else {
                s.generator_failures += 1;
            }
        };
        match run.verdict {
            Verdict::Cancelled => return Ok(Replay::Failed(Verdict::Cancelled)),
            Verdict::Timeout => {
                failed(false);
                return Ok(Replay::Failed(Verdict::Timeout));
            }
            Verdict::Boring => {
                failed(run.status.and_then(|s| s.code()) == Some(GENERATOR_HALTED));
                return Ok(Replay::Failed(Verdict::Boring));
            }
            Verdict::Interesting => {}
        }
        match fs::read(&out) {
            Ok(bytes) => Ok(Replay::Output(bytes)),
            Err(_) => {
                failed(false);
                Ok(Replay::Failed(Verdict::Boring))
            }
        }
    }

    /// The input the generator makes from `trace`: kept from the test of an interesting trace, or
    /// generated again. `None` if the generator fails on it.
    pub fn output_for(&self, trace: &[u8]) -> Result<Option<Vec<u8>>, OracleError> {
        let key = xxhash_rust::xxh3::xxh3_128(trace);
        let kept = self.outputs.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, out)) = kept.iter().find(|(k, _)| *k == key) {
            return Ok(Some(out.clone()));
        }
        drop(kept);
        let dir = tempfile::Builder::new().prefix("whittle-").tempdir()?;
        Ok(match self.generate_in(trace, dir.path(), &|| false)? {
            Replay::Output(bytes) => Some(bytes),
            Replay::Failed(_) => None,
        })
    }

    /// Replays `trace` and, if the generator succeeds, tests its output, both with their output
    /// captured: what a user needs to see when the original trace is not interesting.
    pub fn explain(&self, trace: &[u8]) -> Result<(Run, Option<Run>), OracleError> {
        let dir = tempfile::Builder::new().prefix("whittle-").tempdir()?;
        let (run, out) = self.replay(trace, dir.path(), &|| false, true)?;
        if run.verdict != Verdict::Interesting || !out.exists() {
            return Ok((run, None));
        }
        let test = self.test.run_at(&out, dir.path(), &|| false, true)?;
        Ok((run, Some(test)))
    }
}

impl Oracle for GeneratorOracle {
    fn test(&self, candidate: &[u8], cancel: &dyn Fn() -> bool) -> Result<Verdict, OracleError> {
        let dir = tempfile::Builder::new().prefix("whittle-").tempdir()?;
        let output = if candidate.is_empty() {
            Vec::new()
        } else {
            match self.generate_in(candidate, dir.path(), cancel)? {
                Replay::Output(bytes) => bytes,
                Replay::Failed(verdict) => return Ok(verdict),
            }
        };
        let key = xxhash_rust::xxh3::xxh3_128(&output);
        let known = self
            .verdicts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .copied();
        let verdict = match known {
            Some(v) => {
                self.stats
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .output_cache_hits += 1;
                v
            }
            None => {
                let path = dir.path().join(&self.output_name);
                fs::write(&path, &output)?;
                let v = self.test.run_at(&path, dir.path(), cancel, false)?.verdict;
                if v != Verdict::Cancelled {
                    self.verdicts
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(key, v);
                }
                v
            }
        };
        if verdict == Verdict::Interesting && !candidate.is_empty() {
            let mut kept = self.outputs.lock().unwrap_or_else(|e| e.into_inner());
            if kept.len() == KEEP_OUTPUTS {
                kept.pop_front();
            }
            kept.push_back((xxhash_rust::xxh3::xxh3_128(candidate), output));
        }
        Ok(verdict)
    }
}
