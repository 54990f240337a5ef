use crate::measure::{CallLog, Usage};
use std::path::Path;

/// Runs the counting wrapper as a reducer would, `count.sh LOG ORACLE FILE ARGS...`.
fn call_wrapper(log: &Path, oracle: &Path, file: &Path, args: &[&str]) -> Option<i32> {
    crate::command(crate::workspace_root().join("xtask/oracles/count.sh"))
        .arg(log)
        .arg(oracle)
        .arg(file)
        .args(args)
        .status()
        .expect("count.sh runs")
        .code()
}

#[test]
fn the_counting_wrapper_counts_every_call_and_keeps_the_smallest_interesting_file() {
    let dir = tempfile::tempdir().unwrap();
    let oracle = dir.path().join("oracle.sh");
    // Interesting when the file holds the word given as the argument.
    std::fs::write(&oracle, "#!/bin/sh\ngrep -q \"$2\" \"$1\"\n").unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&oracle, std::fs::Permissions::from_mode(0o755)).unwrap();
    let log = dir.path().join("calls.log");
    let files = [
        ("a.txt", "needle in a big haystack\n", 0),
        ("b.txt", "no match here\n", 1),
        ("c.txt", "a needle\n", 0),
        ("d.txt", "needle and more hay than c\n", 0),
        ("e.txt", "\n", 1),
    ];
    let rounds = 3;
    for _ in 0..rounds {
        for (name, text, expect) in files {
            let f = dir.path().join(name);
            std::fs::write(&f, text).unwrap();
            assert_eq!(
                call_wrapper(&log, &oracle, &f, &["needle"]),
                Some(expect),
                "{name}"
            );
        }
    }
    let parsed = CallLog::parse(&std::fs::read_to_string(&log).unwrap());
    assert_eq!(parsed.calls, 15);
    assert_eq!(parsed.interesting, 9);
    assert_eq!(parsed.unfinished, 0);
    assert!(parsed.busy_seconds > 0.0);
    let best = dir.path().join("calls.log.best");
    assert_eq!(std::fs::read_to_string(best).unwrap(), "a needle\n");
    // The first call kept a.txt (25 bytes), the third c.txt (9): later calls are not smaller.
    assert_eq!(parsed.progress, [(1, 25), (3, 9)]);
    assert_eq!(parsed.calls_to_reach(30), Some(1));
    assert_eq!(parsed.calls_to_reach(20), Some(3));
    assert_eq!(parsed.calls_to_reach(8), None);
}

#[test]
fn the_call_log_counts_parallel_calls_once_in_the_busy_time() {
    // Two calls overlapping from 10 to 14 (busy 4 s), one from 20 to 21 (1 s), one killed
    // (no end), and a torn line.
    let log = "start 1 10.0\nstart 2 11.0\nend 2 12.5 1\nend 1 14.0 0\nstart 3 20.0\n\
               end 3 21.0 0\nstart 4 30.0\nsta\n";
    let parsed = CallLog::parse(log);
    assert_eq!(parsed.calls, 4);
    assert_eq!(parsed.interesting, 2);
    assert_eq!(parsed.unfinished, 1);
    assert!(
        (parsed.busy_seconds - 5.0).abs() < 1e-9,
        "{}",
        parsed.busy_seconds
    );
    // 5 s busy in a 20 s run: 75 % outside the oracle.
    let share = parsed.outside_share_percent(20.0).unwrap();
    assert!((share - 75.0).abs() < 1e-9, "{share}");
    assert_eq!(parsed.outside_share_percent(0.0), None);
}

#[test]
fn measurements_of_xtask_measure_are_read_back() {
    let u = Usage {
        exit: Some(0),
        signal: None,
        wall_seconds: 2.5,
        user_seconds: 1.25,
        system_seconds: 0.5,
        max_rss_kib: 2048,
    };
    let back = Usage::from_json(&serde_json::to_string(&u).unwrap()).unwrap();
    assert_eq!(back, u);
    assert!((back.cpu_seconds() - 1.75).abs() < 1e-12);
    assert!(Usage::from_json("{\"exit\": 0}").is_err());
}
