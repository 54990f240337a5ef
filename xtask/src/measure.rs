//! What the benchmark measures of a reducer's run from outside, the same way for whittle and for
//! every other reducer:
//!
//! - `cargo xtask measure USAGE.json -- COMMAND...` (hidden) runs one reducer as this process's
//!   only child and writes the CPU time and peak memory of its whole process tree. It is a
//!   process of its own because `getrusage(RUSAGE_CHILDREN)` sums the CPU time of every child
//!   a process ever waited for (and of their waited-for children, the reducer's tests among
//!   them), but keeps only one maximum resident set size for all of them: in the long-lived
//!   benchmark process that maximum would only ever grow. A fresh process whose one child is
//!   the reducer gets exactly the reducer's tree. `nix`'s safe `getrusage` is used because the
//!   workspace forbids `unsafe` (so no raw `libc::wait4`), and `ctrlc` (already a workspace
//!   dependency of the CLI) forwards the benchmark's SIGTERM at the budget to the reducer's
//!   process group.
//! - The log of the counting wrapper `xtask/oracles/count.sh`, put between every reducer and
//!   the oracle, gives the oracle calls and the time spent in them ([`CallLog`]).
//! - [`run_measured`] starts a run under `xtask measure` with its budget (SIGTERM, then
//!   SIGKILL a minute later) and reads back what it measured.

use anyhow::{Context, Result};
use nix::sys::resource::{UsageWho, getrusage};
use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::ffi::OsString;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug)]
pub(crate) struct MeasureArgs {
    /// Where to write the measurements (JSON).
    out: PathBuf,
    /// The command to run.
    #[arg(last = true, required = true)]
    command: Vec<OsString>,
}

/// The resource usage of a reducer's whole process tree, as `measure` writes it.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Serialize)]
pub(crate) struct Usage {
    /// The reducer's exit status (`None`: killed by a signal).
    pub(crate) exit: Option<i32>,
    /// The signal that killed it, if one did.
    pub(crate) signal: Option<i32>,
    pub(crate) wall_seconds: f64,
    /// User plus system CPU time of the reducer and every descendant it waited for.
    pub(crate) user_seconds: f64,
    pub(crate) system_seconds: f64,
    /// The largest resident set size of any one process of the tree (`ru_maxrss`, KiB on Linux):
    /// peak memory of the biggest process, not of the tree at once.
    pub(crate) max_rss_kib: u64,
}

impl Usage {
    pub(crate) fn from_json(text: &str) -> Result<Usage> {
        serde_json::from_str(text).context("cannot read the measurements of `xtask measure`")
    }

    pub(crate) fn cpu_seconds(&self) -> f64 {
        self.user_seconds + self.system_seconds
    }
}

pub(crate) fn run(args: &MeasureArgs) -> Result<ExitCode> {
    let (program, rest) = args
        .command
        .split_first()
        .context("measure needs a command")?;
    let started = Instant::now();
    let mut child = crate::command(program)
        .args(rest)
        .process_group(0)
        .spawn()
        .with_context(|| format!("cannot run {}", program.to_string_lossy()))?;
    let group = Pid::from_raw(i32::try_from(child.id()).context("process id out of range")?);
    // SIGTERM (the budget) and SIGINT go to the reducer's whole group; a group still there half
    // a minute later is killed.
    ctrlc::set_handler(move || {
        let _ = killpg(group, Signal::SIGTERM);
        std::thread::sleep(Duration::from_secs(30));
        let _ = killpg(group, Signal::SIGKILL);
    })
    .context("cannot install the signal handler")?;
    let status = child.wait().context("cannot wait for the reducer")?;
    let wall_seconds = started.elapsed().as_secs_f64();
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN).context("getrusage failed")?;
    let seconds = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
    let measured = Usage {
        exit: status.code(),
        signal: status.signal(),
        wall_seconds,
        user_seconds: seconds(usage.user_time()),
        system_seconds: seconds(usage.system_time()),
        max_rss_kib: u64::try_from(usage.max_rss()).unwrap_or(0),
    };
    std::fs::write(&args.out, serde_json::to_string_pretty(&measured)?)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    let code = status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1);
    Ok(ExitCode::from(u8::try_from(code).unwrap_or(1)))
}

/// What the counting wrapper's log says.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Serialize)]
pub(crate) struct CallLog {
    /// Oracle calls started.
    pub(crate) calls: u64,
    /// Calls that ended with exit status 0.
    pub(crate) interesting: u64,
    /// Calls started that never wrote their end (killed by the reducer's timeout or the budget).
    pub(crate) unfinished: u64,
    /// Wall-clock seconds during which at least one finished call was running (the union of
    /// the calls' intervals, so parallel calls are not counted twice).
    pub(crate) busy_seconds: f64,
    /// Each new smallest interesting candidate, in the order they came: the calls started by
    /// then and its bytes. Empty in results of before the wrapper logged it.
    #[serde(default)]
    pub(crate) progress: Vec<(u64, u64)>,
}

impl CallLog {
    /// Parses the lines `start PID T0`, `end PID T1 STATUS` and `best PID BYTES` of `count.sh`.
    /// Lines it cannot read (a torn line of a call killed mid-write) are skipped.
    pub(crate) fn parse(text: &str) -> CallLog {
        let mut open: HashMap<&str, Vec<f64>> = HashMap::new();
        let mut intervals = Vec::new();
        let mut log = CallLog::default();
        for line in text.lines() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            match fields.as_slice() {
                ["start", pid, t] => {
                    if let Ok(t) = t.parse::<f64>() {
                        log.calls += 1;
                        open.entry(pid).or_default().push(t);
                    }
                }
                ["end", pid, t, status] => {
                    let (Ok(t), Ok(status)) = (t.parse::<f64>(), status.parse::<i32>()) else {
                        continue;
                    };
                    if let Some(t0) = open.get_mut(pid).and_then(Vec::pop) {
                        intervals.push((t0, t.max(t0)));
                        if status == 0 {
                            log.interesting += 1;
                        }
                    }
                }
                ["best", _, bytes] => {
                    if let Ok(bytes) = bytes.parse::<u64>() {
                        log.progress.push((log.calls, bytes));
                    }
                }
                _ => {}
            }
        }
        log.unfinished = open.values().map(|v| v.len() as u64).sum();
        intervals.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut current: Option<(f64, f64)> = None;
        for (a, b) in intervals {
            current = match current {
                Some((s, e)) if a <= e => Some((s, e.max(b))),
                Some((s, e)) => {
                    log.busy_seconds += e - s;
                    Some((a, b))
                }
                None => Some((a, b)),
            };
        }
        if let Some((s, e)) = current {
            log.busy_seconds += e - s;
        }
        log
    }

    /// How many calls had started when the smallest interesting candidate first had at most
    /// `bytes` bytes; `None` if it never had (or the log is of before `best` lines).
    pub(crate) fn calls_to_reach(&self, bytes: u64) -> Option<u64> {
        self.progress
            .iter()
            .find(|&&(_, b)| b <= bytes)
            .map(|&(calls, _)| calls)
    }

    /// The share of `wall_seconds` when no oracle call ran, in percent.
    pub(crate) fn outside_share_percent(&self, wall_seconds: f64) -> Option<f64> {
        (wall_seconds > 0.0)
            .then(|| 100.0 * (1.0 - self.busy_seconds / wall_seconds).clamp(0.0, 1.0))
    }
}

/// The private copy of this binary that runs `xtask measure`.
pub(crate) static MEASURE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Copies a binary into `dir`, keeping its name and its permissions.
pub(crate) fn private_copy(binary: &Path, dir: &Path) -> Result<PathBuf> {
    let copy = dir.join(binary.file_name().context("a binary has a file name")?);
    std::fs::copy(binary, &copy)
        .with_context(|| format!("cannot copy {} to {}", binary.display(), copy.display()))?;
    Ok(copy)
}

/// How one measured run ended.
#[derive(Debug)]
pub(crate) struct Finished {
    pub(crate) exit: Option<i32>,
    pub(crate) wall: f64,
    /// What the program printed (stdout and stderr of other reducers, whittle's stderr).
    pub(crate) stderr: String,
    pub(crate) budget_hit: bool,
    /// What `xtask measure` measured, if it wrote it.
    pub(crate) usage: Option<Usage>,
}

impl Finished {
    /// Why a run failed: its exit status, how long it ran, and the end of `log`.
    pub(crate) fn failure(&self, log: &str) -> String {
        format!(
            "exit {} after {:.1} s: {}",
            self.exit
                .map_or("by a signal".to_string(), |c| c.to_string()),
            self.wall,
            stderr_tail(log)
        )
    }
}

/// Runs `program args` in `dir` under `xtask measure` (which measures the CPU time and peak
/// memory of its process tree); past `budget` it is sent SIGTERM through `measure` (whittle then
/// writes its best so far and its report; other reducers stop), and a minute later SIGKILL.
pub(crate) fn run_measured(
    program: &Path,
    args: &[OsString],
    env: &[(String, PathBuf)],
    dir: &Path,
    budget: Duration,
) -> Result<Finished> {
    let err_path = dir.join("log.txt");
    let usage_path = dir.join("usage.json");
    let _ = std::fs::remove_file(&usage_path);
    let err_file = std::fs::File::create(&err_path)?;
    let out_file = err_file.try_clone()?;
    let me = match MEASURE.get() {
        Some(m) => m.clone(),
        None => std::env::current_exe().context("cannot find the xtask binary")?,
    };
    let started = Instant::now();
    let mut child = crate::command(me)
        .arg("measure")
        .arg(&usage_path)
        .arg("--")
        .arg(program)
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(out_file)
        .stderr(err_file)
        .spawn()
        .with_context(|| format!("cannot run {}", program.display()))?;
    let pid = Pid::from_raw(i32::try_from(child.id()).context("process id out of range")?);
    let (done, wait_done) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if wait_done.recv_timeout(budget) != Err(mpsc::RecvTimeoutError::Timeout) {
            return false;
        }
        let _ = kill(pid, Signal::SIGTERM);
        if wait_done.recv_timeout(Duration::from_secs(60)) == Err(mpsc::RecvTimeoutError::Timeout) {
            let _ = kill(pid, Signal::SIGKILL);
        }
        true
    });
    let status = child.wait().context("cannot wait for xtask measure")?;
    let wall = started.elapsed().as_secs_f64();
    let _ = done.send(());
    let budget_hit = watchdog.join().unwrap_or(false);
    let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    let usage = std::fs::read_to_string(&usage_path)
        .ok()
        .and_then(|t| Usage::from_json(&t).ok());
    Ok(Finished {
        exit: usage.as_ref().map_or(status.code(), |u| u.exit),
        wall: usage.as_ref().map_or(wall, |u| u.wall_seconds),
        stderr,
        budget_hit,
        usage,
    })
}

/// The last few lines of `stderr`, on one line.
pub(crate) fn stderr_tail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(3)..].join(" / ")
}

#[cfg(test)]
mod tests;
