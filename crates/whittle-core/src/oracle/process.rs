//! Starting a test's process and making sure nothing it started outlives it.
//!
//! With a [`Guard`] (the `whittle` command always has one), the test runs under a small guard
//! process (`whittle __guard`, see [`super::guard`]) that kills every descendant of the test,
//! also those that left its process group, and that dies with whittle. Without one (a library
//! user, the core's own tests) the test runs directly in a process group of its own, which is
//! killed: a helper that made its own group (GNU `timeout` does) escapes then.

use super::{OracleError, Run, Verdict};
use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};
use wait_timeout::ChildExt;

/// How long the guard may take to clean up after being told to stop before it is killed outright.
const GUARD_GRACE: Duration = Duration::from_secs(10);

/// A program that runs each test under a guard process: it is started as `PROGRAM ARGS…
/// PARENT_PID COMMAND_LINE`, and its code is [`super::guard::guard_main`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guard {
    program: PathBuf,
    arg0: Option<OsString>,
    args: Vec<OsString>,
}

impl Guard {
    /// A guard started as `program args…`, followed by whittle's pid and the command line.
    pub fn new(program: impl Into<PathBuf>, args: &[&str]) -> Guard {
        Guard {
            program: program.into(),
            arg0: None,
            args: args.iter().map(OsString::from).collect(),
        }
    }

    /// This very executable (`/proc/self/exe`, so a rebuilt or deleted binary on disk does not
    /// matter) with `subcommand` first: for a program whose `main` hands that subcommand to
    /// [`super::guard::guard_main`].
    pub fn this_executable(subcommand: &str) -> Guard {
        let mut guard = Guard::new("/proc/self/exe", &[subcommand]);
        guard.arg0 = std::env::args_os().next();
        guard
    }
}

/// Runs `line` with `sh -c` in `cwd`, so that nothing it started outlives it: killed when it
/// times out or is cancelled, and its leftovers killed when it exits.
pub(super) fn run_shell(
    line: &str,
    cwd: &Path,
    env: &[(&str, &OsStr)],
    timeout: Duration,
    cancel: &dyn Fn() -> bool,
    capture: bool,
    guard: Option<&Guard>,
) -> Result<Run, OracleError> {
    let log = if capture {
        Some(tempfile::tempfile()?)
    } else {
        None
    };
    let mut cmd = match guard {
        Some(g) => {
            #[allow(
                clippy::disallowed_methods,
                reason = "the oracle module is the one place that starts processes"
            )]
            let mut cmd = Command::new(&g.program);
            if let Some(arg0) = &g.arg0 {
                std::os::unix::process::CommandExt::arg0(&mut cmd, arg0);
            }
            cmd.args(&g.args)
                .arg(std::process::id().to_string())
                .arg(line);
            cmd
        }
        None => {
            #[allow(
                clippy::disallowed_methods,
                reason = "the oracle module is the one place that starts processes"
            )]
            let mut cmd = Command::new("sh");
            cmd.arg("-c").arg(line);
            cmd
        }
    };
    cmd.current_dir(cwd).stdin(Stdio::null());
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
    // A group of its own: a Ctrl-C on the terminal reaches whittle, which then stops its tests,
    // rather than every test at once.
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let started = Instant::now();
    let mut child = cmd.spawn()?;
    let exit = Exit::watch(&child);
    let pgid = nix::unistd::Pid::from_raw(child.id() as i32);
    let kill_group = || {
        let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
    };
    let stop = |child: &mut Child| {
        if guard.is_some() {
            stop_guard(child);
        } else {
            kill_group();
            let _ = child.wait();
        }
    };
    let mut status = None;
    let verdict = loop {
        let elapsed = started.elapsed();
        if elapsed >= timeout {
            stop(&mut child);
            break Verdict::Timeout;
        }
        if cancel() {
            stop(&mut child);
            break Verdict::Cancelled;
        }
        let slice = (timeout - elapsed).min(Duration::from_millis(20));
        if let Some(s) = exit.wait(&mut child, slice)? {
            status = Some(s);
            break if s.success() {
                Verdict::Interesting
            } else {
                Verdict::Boring
            };
        }
    };
    if guard.is_none() {
        // Leftover background processes of the command must not outlive it. (The guard has
        // already killed them when it exits.)
        kill_group();
    }
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

/// Waits for a child's exit a slice of time at a time. On Linux, on a pidfd (`pidfd_open`, Linux
/// 5.3): the thread sleeps in `poll` until the child exits or the slice ends. Otherwise (an older
/// kernel) through `wait-timeout`, whose every call makes a socket pair and whose SIGCHLD wakes
/// every waiting thread: on the sleeping case at `-j 32` (a 6 s run on 2 processors), whittle's
/// own system time was 0.76 s that way and 0.44 s on pidfds, time the tests' processes need.
struct Exit(Option<rustix::fd::OwnedFd>);

impl Exit {
    fn watch(child: &Child) -> Exit {
        let pid = rustix::process::Pid::from_child(child);
        Exit(rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok())
    }

    /// The child's exit status if it exits within `slice`.
    fn wait(&self, child: &mut Child, slice: Duration) -> io::Result<Option<ExitStatus>> {
        let Some(fd) = &self.0 else {
            return child.wait_timeout(slice);
        };
        let timeout = rustix::event::Timespec {
            tv_sec: slice.as_secs().try_into().unwrap_or(i64::MAX),
            tv_nsec: slice.subsec_nanos().into(),
        };
        let mut fds = [rustix::event::PollFd::new(fd, rustix::event::PollFlags::IN)];
        match rustix::event::poll(&mut fds, Some(&timeout)) {
            Ok(_) | Err(rustix::io::Errno::INTR) => child.try_wait(),
            Err(e) => Err(e.into()),
        }
    }
}

/// Tells the guard to stop (SIGTERM: it kills the test and every descendant, reaps them and
/// exits) and waits for it; a guard that does not exit within [`GUARD_GRACE`] is killed.
fn stop_guard(child: &mut Child) {
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
    if let Ok(Some(_)) = child.wait_timeout(GUARD_GRACE) {
        return;
    }
    let _ = nix::sys::signal::killpg(pid, nix::sys::signal::Signal::SIGKILL);
    let _ = child.kill();
    let _ = child.wait();
}
