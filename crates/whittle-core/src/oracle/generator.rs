//! Generator-based reduction (GReduce): a candidate is a trace that a generator replays, and the
//! test judges what it generated.

use super::command::CommandOracle;
use super::process::{Guard, run_shell};
use super::timeout::{Limiter, Timeout, TimeoutReport};
use super::{Oracle, OracleError, Run, Verdict, shell_quote};
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::collections::VecDeque;
use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

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
    limiter: Limiter,
    guard: Option<Guard>,
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
        timeout: impl Into<Timeout>,
        align: &str,
        cwd: &Path,
    ) -> GeneratorOracle {
        let timeout = timeout.into();
        let name = |p: &Path, default: &str| {
            p.file_name()
                .map_or_else(|| OsString::from(default), |n| n.to_os_string())
        };
        GeneratorOracle {
            generator: generator.to_string(),
            test: CommandOracle::new(test, output, timeout),
            limiter: Limiter::new(timeout),
            guard: None,
            trace_name: name(trace, "run.trace"),
            output_name: name(output, "output"),
            align: OsString::from(align),
            cwd: cwd.to_path_buf(),
            stats: Mutex::default(),
            verdicts: Mutex::default(),
            outputs: Mutex::default(),
        }
    }

    /// Runs the generator and every test under `guard` (see [`Guard`]).
    pub fn guard(mut self, guard: Option<Guard>) -> GeneratorOracle {
        self.test = self.test.guard(guard.clone());
        self.guard = guard;
        self
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
        // A Python generator iterates sets and dicts of strings in an order that changes from run
        // to run unless the hash seed is fixed: a replay would not give the same input twice.
        let env = [
            ("WHITTLE_ALIGN", self.align.as_os_str()),
            ("WHITTLE_GEN_STATS", stats_path.as_os_str()),
            ("PYTHONHASHSEED", std::ffi::OsStr::new("0")),
        ];
        let line = self.command_line(&trace_path, &out);
        let limit = self.limiter.limit(trace.is_empty());
        let guard = self.guard.as_ref();
        let run = run_shell(&line, &self.cwd, &env, limit, cancel, capture, guard)?;
        self.limiter
            .record(run.verdict, run.elapsed, trace.is_empty(), None);
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
    /// The test's timeout (the generator's own limit follows the generator's times the same way).
    fn timeout_report(&self) -> Option<TimeoutReport> {
        self.test.timeout_report()
    }

    fn starts_processes(&self) -> bool {
        true
    }

    /// The test times the input the original trace generates, which is not known before the
    /// generator has run: no opening.
    fn expect_original(&self, _: &[u8]) -> bool {
        false
    }

    fn test(&self, candidate: &[u8], cancel: &dyn Fn() -> bool) -> Result<Verdict, OracleError> {
        self.test_trace(candidate, cancel, true)
    }

    /// Runs the test again even when another trace generated the same input: a flaky test's
    /// repeats (`--repeat`) must reach the test.
    fn retest(&self, candidate: &[u8], cancel: &dyn Fn() -> bool) -> Result<Verdict, OracleError> {
        self.test_trace(candidate, cancel, false)
    }
}

impl GeneratorOracle {
    /// Generates the input `candidate` (a trace) makes and tests it; with `cached`, an input
    /// already tested is answered from the verdicts of the generated inputs.
    fn test_trace(
        &self,
        candidate: &[u8],
        cancel: &dyn Fn() -> bool,
        cached: bool,
    ) -> Result<Verdict, OracleError> {
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
        let known = cached
            .then(|| {
                let verdicts = self.verdicts.lock().unwrap_or_else(|e| e.into_inner());
                verdicts.get(&key).copied()
            })
            .flatten();
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
