//! End-to-end tests of the test processes: nothing a test starts survives it (also a helper that
//! leaves the test's process group, as GNU `timeout` does, and also when whittle is killed with
//! SIGKILL), and the adaptive timeout when no `--timeout` is given.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::{script, stderr, whittle, whittle_at};

/// A sleep duration no other process on the machine uses: it marks the test's processes in
/// `/proc/*/cmdline`.
fn marker(n: u32) -> String {
    format!("59.{}{n}", std::process::id())
}

/// The live processes (not zombies) whose command line holds `marker`.
fn survivors(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for e in fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(cmdline) = fs::read(e.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        let zombie = fs::read_to_string(e.path().join("status")).is_ok_and(|s| {
            s.lines()
                .any(|l| l.starts_with("State:") && l.contains('Z'))
        });
        if cmdline.contains(marker) && !zombie && !cmdline.contains("CARGO") {
            found.push(format!("{}: {cmdline}", e.file_name().to_string_lossy()));
        }
    }
    found
}

/// A test that is interesting while KEEP and HANG are in the file; without HANG it hangs in
/// `timeout 60 sleep …`, which moves itself into a process group of its own.
fn escaping_case(marker: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    fs::write(dir.path().join("in.txt"), "KEEP\nHANG\na\nb\nc\n").unwrap();
    script(
        dir.path(),
        "test.sh",
        &format!(
            "grep -q KEEP \"$1\" || exit 1\ngrep -q HANG \"$1\" && exit 0\ntimeout 60 sleep {marker}"
        ),
    );
    dir
}

fn nothing_escapes_at(jobs: &str, n: u32) {
    nothing_escapes_with(Path::new(env!("CARGO_BIN_EXE_whittle")), jobs, n);
}

fn nothing_escapes_with(binary: &Path, jobs: &str, n: u32) {
    let marker = marker(n);
    let dir = escaping_case(&marker);
    let out = whittle_at(
        binary,
        dir.path(),
        &[
            "reduce",
            "in.txt",
            "--test",
            "./test.sh",
            "--timeout",
            "1",
            "-j",
            jobs,
            "-a",
            "ddmin",
            "--report",
            "r.json",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        fs::read_to_string(dir.path().join("in.reduced.txt")).unwrap(),
        "KEEP\nHANG\n"
    );
    let report: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    assert!(report["timeouts"].as_u64().unwrap() >= 1, "{report}");
    // whittle has exited: whatever the timed-out tests started must be gone already.
    let left = survivors(&marker);
    assert!(left.is_empty(), "left behind at -j {jobs}: {left:?}");
}

#[test]
fn a_helper_that_leaves_the_tests_process_group_is_killed_at_j1() {
    nothing_escapes_at("1", 1);
}

#[test]
fn a_helper_that_leaves_the_tests_process_group_is_killed_at_j2() {
    nothing_escapes_at("2", 2);
}

#[test]
fn whittle_is_its_own_guard_when_whittle_guard_is_not_beside_it() {
    // A copy of whittle alone in a directory: the tests then run under `whittle __guard`.
    let bin = tempfile::tempdir().expect("temp dir");
    let alone = bin.path().join("whittle");
    fs::copy(env!("CARGO_BIN_EXE_whittle"), &alone).expect("copy whittle");
    assert!(!bin.path().join("whittle-guard").exists());
    nothing_escapes_with(&alone, "2", 4);
}

#[test]
fn nothing_a_test_started_survives_a_sigkill_of_whittle() {
    let marker = marker(3);
    let dir = escaping_case(&marker);
    let mut child = Command::new(env!("CARGO_BIN_EXE_whittle"))
        .args([
            "reduce",
            "in.txt",
            "--test",
            "./test.sh",
            "--timeout",
            "50",
            "-j",
            "2",
            "-a",
            "ddmin",
        ])
        .current_dir(dir.path())
        .stderr(Stdio::null())
        .spawn()
        .expect("start whittle");
    // Wait until a test hangs in `timeout … sleep`.
    let deadline = Instant::now() + Duration::from_secs(30);
    while survivors(&marker).len() < 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let running = survivors(&marker);
    assert!(
        running.len() >= 2,
        "the hanging test never started: {running:?}"
    );
    child.kill().expect("SIGKILL whittle");
    child.wait().expect("reap whittle");
    // The guards get SIGTERM from the kernel as whittle dies and kill what the tests started.
    let deadline = Instant::now() + Duration::from_secs(20);
    while !survivors(&marker).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left = survivors(&marker);
    assert!(left.is_empty(), "survived whittle's SIGKILL: {left:?}");
}

#[test]
fn without_timeout_the_limit_follows_the_test_and_is_stated_and_reported() {
    let dir = tempfile::tempdir().expect("temp dir");
    fs::write(dir.path().join("in.txt"), "KEEP\nHANG\na\nb\n").unwrap();
    // Without HANG the test would sleep for ten minutes and then say interesting: only a timeout
    // far below that keeps HANG in the result.
    script(
        dir.path(),
        "test.sh",
        "grep -q KEEP \"$1\" || exit 1\ngrep -q HANG \"$1\" && exit 0\nsleep 600",
    );
    let out = whittle(
        dir.path(),
        &[
            "reduce",
            "in.txt",
            "--test",
            "./test.sh",
            "-a",
            "ddmin",
            "-j",
            "2",
            "--report",
            "r.json",
        ],
    );
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert_eq!(
        fs::read_to_string(dir.path().join("in.reduced.txt")).unwrap(),
        "KEEP\nHANG\n"
    );
    assert!(err.contains("the original input's test took"), "{err}");
    let report: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    let t = &report["timeout"];
    assert_eq!(t["policy"], "adaptive", "{report}");
    // How often the original is timed, and so the limit, depend on how fast this machine is
    // right now; what must hold is the rule. A test is timed again until it ran five times or
    // for 1 s in all, until its slowest run leaves the limit at its 1 s floor (5 × the
    // slowest ≤ 1 s), or until a run is faster than the slowest before it...
    let original: Vec<f64> = t["original_seconds"]
        .as_array()
        .expect("the original's times")
        .iter()
        .map(|s| s.as_f64().expect("seconds"))
        .collect();
    let sum: f64 = original.iter().sum();
    let slowest_of = |runs: &[f64]| runs.iter().copied().fold(0.0, f64::max);
    assert!(
        original.len() == 5
            || sum >= 1.0
            || 5.0 * slowest_of(&original) <= 1.0
            || original.last() < Some(&slowest_of(&original)),
        "{report}"
    );
    // (each run but the last was followed by another because the rule wanted one)
    for k in 1..original.len() {
        let before = &original[..k];
        assert!(before.iter().sum::<f64>() < 1.0, "{report}");
        assert!(5.0 * slowest_of(before) > 1.0, "{report}");
        assert!(before[k - 1] >= slowest_of(before), "{report}");
    }
    assert_eq!(
        t["calibration_runs"].as_u64(),
        Some(original.len() as u64 - 1),
        "{report}"
    );
    // ...and the reduction starts at 5 × the slowest of the tests so far (the original's runs
    // and the check that the empty file is not interesting, whose time the report does not
    // hold), at least 1 s.
    let slowest = slowest_of(&original);
    let start = t["start_seconds"].as_f64().expect("a start limit");
    assert!(start >= (5.0 * slowest).max(1.0) - 1e-6, "{report}");
    assert!(
        err.contains("s (adaptive timeout: 5 × recent test times"),
        "{err}"
    );
    assert!(report["timeouts"].as_u64().unwrap() >= 1, "{report}");
    assert!(report["timeout_seconds"].is_null(), "{report}");
    assert!(err.contains("tests timed out at"), "{err}");
}

#[test]
fn a_given_timeout_is_fixed_and_a_bad_one_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    fs::write(dir.path().join("in.txt"), "KEEP\na\n").unwrap();
    let out = whittle(
        dir.path(),
        &[
            "reduce",
            "in.txt",
            "--test",
            "grep -q KEEP",
            "--timeout",
            "7",
            "--report",
            "r.json",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("adaptive"), "{}", stderr(&out));
    let report: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(report["timeout"]["policy"], "fixed", "{report}");
    assert_eq!(report["timeout"]["max_seconds"].as_f64(), Some(7.0));
    assert_eq!(report["timeout_seconds"].as_f64(), Some(7.0));
    let out = whittle(
        dir.path(),
        &[
            "reduce",
            "in.txt",
            "--test",
            "grep -q KEEP",
            "--timeout",
            "0",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}
