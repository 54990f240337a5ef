//! The guard: a small process between whittle and each test, so that nothing a test starts
//! survives it, even a helper that leaves the test's process group (GNU `timeout` does) or a
//! SIGKILL of whittle itself.
//!
//! The guard (`whittle __guard PARENT_PID COMMAND_LINE`):
//! 1. blocks SIGTERM, SIGINT, SIGHUP and SIGCHLD, to take them one at a time with `sigwait`;
//! 2. asks the kernel for SIGTERM when its parent dies (`PR_SET_PDEATHSIG`) and checks that its
//!    parent is still whittle (`getppid`), in case whittle died before that;
//! 3. becomes a child subreaper (`PR_SET_CHILD_SUBREAPER`), so that every orphaned descendant
//!    of the test is re-parented to it rather than to init;
//! 4. runs `sh -c COMMAND_LINE` in a process group of its own (the signal mask is reset for it);
//! 5. waits for the test to exit, or for SIGTERM (whittle's timeout or cancellation, or
//!    whittle's death), then ends the test's group and every remaining descendant, found under
//!    `/proc/self/task/*/children` (or by scanning `/proc`): SIGTERM, a second to exit, SIGKILL;
//!    reaps them all, and exits with the test's exit status (128 + the signal if a signal ended
//!    it or the guard).
//!
//! `PR_SET_PDEATHSIG` fires when the parent *thread* ends, not the process. whittle's test
//! threads (the engine's scoped workers, or the main thread) start a guard and wait for it in
//! the same call, so the thread outlives the guard except when whittle dies, which is when the
//! signal should come.

use nix::errno::Errno;
use nix::sys::signal::{SigSet, Signal, kill, killpg};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fs;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Exit status of a guard told to stop (128 + SIGTERM).
const STOPPED: i32 = 128 + 15;

/// How long what is left of a test has to exit after SIGTERM before it gets SIGKILL.
const TERM_GRACE: Duration = Duration::from_secs(1);

/// The guard's `main`: `args` are whittle's pid and the command line. Returns the exit status.
pub fn guard_main(args: &[OsString]) -> i32 {
    let [parent, line] = args else {
        eprintln!("whittle __guard: expected PARENT_PID COMMAND_LINE");
        return 2;
    };
    let Some(parent) = parent.to_str().and_then(|p| p.parse::<i32>().ok()) else {
        eprintln!("whittle __guard: bad parent pid");
        return 2;
    };
    let mut signals = SigSet::empty();
    for s in [
        Signal::SIGTERM,
        Signal::SIGINT,
        Signal::SIGHUP,
        Signal::SIGCHLD,
    ] {
        signals.add(s);
    }
    if signals.thread_block().is_err() {
        return 2;
    }
    // Best effort: without them the guard still kills what it finds when told to stop.
    let _ = nix::sys::prctl::set_pdeathsig(Signal::SIGTERM);
    if nix::unistd::getppid().as_raw() != parent {
        // whittle died before the parent-death signal was armed.
        return STOPPED;
    }
    let _ = nix::sys::prctl::set_child_subreaper(true);

    #[allow(
        clippy::disallowed_methods,
        reason = "the oracle module is the one place that starts processes"
    )]
    let mut cmd = Command::new("sh");
    // stdin, stdout, stderr, the working directory and the environment are the guard's, which
    // whittle set up for the test.
    cmd.arg("-c").arg(line).stdin(Stdio::inherit());
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let test = match cmd.spawn() {
        Ok(child) => Pid::from_raw(child.id() as i32),
        Err(e) => {
            eprintln!("whittle: cannot start sh: {e}");
            return 127;
        }
    };
    let mut code = None;
    while code.is_none() {
        code = reap_ready(test);
        if code.is_some() {
            break;
        }
        match signals.wait() {
            Ok(Signal::SIGCHLD) | Err(Errno::EINTR) => {}
            Ok(_) | Err(_) => break,
        }
    }
    kill_all(test);
    code.unwrap_or(STOPPED)
}

/// Reaps every child that has ended, without blocking; the test's exit status if it ended.
fn reap_ready(test: Pid) -> Option<i32> {
    let mut code = None;
    loop {
        match waitpid(None, Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::Exited(pid, c)) if pid == test => code = Some(c),
            Ok(WaitStatus::Signaled(pid, s, _)) if pid == test => code = Some(128 + s as i32),
            Ok(WaitStatus::StillAlive) | Err(_) => return code,
            Ok(_) => {}
        }
    }
}

/// Ends the test's process group and every descendant of the guard, and reaps them all: when
/// the guard has no child left, no descendant is left (an orphan comes to the subreaper). They
/// get SIGTERM first and [`TERM_GRACE`] to exit by themselves (a cluster client such as `srun`
/// cancels its remote job then), then SIGKILL.
fn kill_all(test: Pid) {
    let _ = killpg(test, Signal::SIGTERM);
    for pid in descendants() {
        let _ = kill(pid, Signal::SIGTERM);
    }
    let deadline = Instant::now() + TERM_GRACE;
    while Instant::now() < deadline {
        reap_ready(test);
        if descendants().is_empty() {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = killpg(test, Signal::SIGKILL);
    loop {
        for pid in descendants() {
            let _ = kill(pid, Signal::SIGKILL);
        }
        match waitpid(None, None) {
            Ok(_) | Err(Errno::EINTR) => {}
            Err(_) => return, // ECHILD: nothing left
        }
    }
}

/// Every descendant of this process, from `/proc/<pid>/task/<tid>/children`, or by scanning
/// every process's parent in `/proc` where the kernel lacks that file.
fn descendants() -> Vec<Pid> {
    let me = std::process::id() as i32;
    let mut found = BTreeSet::new();
    let mut todo = vec![me];
    while let Some(pid) = todo.pop() {
        let Some(children) = children_of(pid) else {
            return scan_descendants(me);
        };
        for c in children {
            if found.insert(c) {
                todo.push(c);
            }
        }
    }
    found.into_iter().map(Pid::from_raw).collect()
}

/// The children of `pid`'s threads; `None` if the kernel has no `children` file.
fn children_of(pid: i32) -> Option<Vec<i32>> {
    let tasks = match fs::read_dir(format!("/proc/{pid}/task")) {
        Ok(t) => t,
        // The process is gone already.
        Err(_) => return Some(Vec::new()),
    };
    let mut out = Vec::new();
    for task in tasks.flatten() {
        let path = task.path().join("children");
        match fs::read_to_string(&path) {
            Ok(text) => out.extend(
                text.split_whitespace()
                    .filter_map(|p| p.parse::<i32>().ok()),
            ),
            Err(_) if !path.exists() && pid == std::process::id() as i32 => return None,
            Err(_) => {}
        }
    }
    Some(out)
}

/// Every descendant of `root`, from the parent pids of all processes in `/proc`.
fn scan_descendants(root: i32) -> Vec<Pid> {
    let mut parent_of = Vec::new();
    if let Ok(dir) = fs::read_dir("/proc") {
        for e in dir.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else {
                continue;
            };
            // `pid (comm) state ppid …`: the name may hold spaces and parentheses.
            if let Ok(stat) = fs::read_to_string(e.path().join("stat"))
                && let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..])
                && let Some(ppid) = rest.split_whitespace().nth(1)
                && let Ok(ppid) = ppid.parse::<i32>()
            {
                parent_of.push((pid, ppid));
            }
        }
    }
    let mut found = BTreeSet::from([root]);
    loop {
        let before = found.len();
        for &(pid, ppid) in &parent_of {
            if found.contains(&ppid) {
                found.insert(pid);
            }
        }
        if found.len() == before {
            break;
        }
    }
    found.remove(&root);
    found.into_iter().map(Pid::from_raw).collect()
}
