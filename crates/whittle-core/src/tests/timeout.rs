//! The timeout policies: the adaptive rule as a function of observed test times, and
//! `CommandOracle` applying it to real test processes.

use super::toy::Toy;
use crate::{Adaptive, CommandOracle, Oracle, Reduction, Timeout, Verdict, adaptive_limit};
use std::path::Path;
use std::time::Duration;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[test]
fn the_adaptive_limit_is_five_times_a_high_quantile_of_recent_tests_at_least_a_second() {
    let rule = Adaptive::default();
    // Nothing timed yet: the first test's generous limit.
    assert_eq!(adaptive_limit(&rule, &[], &[], 0), rule.first);
    assert_eq!(adaptive_limit(&rule, &[ms(400)], &[ms(400)], 0), ms(2000));
    // Fast tests: the floor.
    assert_eq!(adaptive_limit(&rule, &[ms(30); 32], &[], 0), ms(1000));
    // The 95th percentile of 20 tests is the 19th: one straggler does not count, two do.
    let mut times = vec![ms(100); 19];
    times.push(ms(5000));
    assert_eq!(adaptive_limit(&rule, &times, &[], 0), ms(1000));
    times[0] = ms(600);
    times.sort();
    assert_eq!(adaptive_limit(&rule, &times, &[], 0), ms(3000));
    // Failing tests that end early do not pull the limit below what interesting ones take.
    assert_eq!(
        adaptive_limit(&rule, &[ms(50); 32], &[ms(700)], 0),
        ms(3500)
    );
    // A stall, where half the recent tests time out, doubles it, and every eight more again; a
    // few timeouts (candidates that loop) leave it alone.
    assert_eq!(adaptive_limit(&rule, &[ms(50); 32], &[], 15), ms(1000));
    assert_eq!(adaptive_limit(&rule, &[ms(50); 32], &[], 16), ms(2000));
    assert_eq!(adaptive_limit(&rule, &[ms(50); 32], &[], 24), ms(4000));
    // Never above the ceiling.
    assert_eq!(
        adaptive_limit(&rule, &[Duration::from_secs(1000)], &[], 32),
        rule.ceiling
    );
}

/// A test whose running time is the candidate: `0.2` sleeps 0.2 s; interesting when it holds a
/// `!`.
fn sleeper(timeout: Timeout) -> CommandOracle {
    CommandOracle::new(
        r#"sleep "$(tr -d '!' < {})"; grep -q '!' {}"#,
        Path::new("t.txt"),
        timeout,
    )
}

#[test]
fn the_adaptive_limit_follows_the_tests_down_and_rises_when_they_time_out() {
    let o = sleeper(Timeout::Adaptive(Adaptive {
        floor: ms(50),
        window: 4,
        interesting: 1,
        rise_after: 2,
        rise_every: 2,
        ..Adaptive::default()
    }));
    assert_eq!(o.current_limit(), Adaptive::default().first);
    assert_eq!(o.test(b"0.3!", &|| false).unwrap(), Verdict::Interesting);
    let after_first = o.current_limit();
    assert!(after_first >= ms(1500), "{after_first:?}");
    // Faster tests, interesting and not, take over the window: the limit goes down.
    for _ in 0..4 {
        assert_eq!(o.test(b"0.01", &|| false).unwrap(), Verdict::Boring);
    }
    assert_eq!(o.test(b"0.01!", &|| false).unwrap(), Verdict::Interesting);
    let low = o.current_limit();
    assert!(low < after_first, "{low:?} {after_first:?}");
    // Candidates that sleep far longer are killed at that limit; two timeouts double it.
    let hang = b"100";
    assert_eq!(o.test(hang, &|| false).unwrap(), Verdict::Timeout);
    assert_eq!(o.test(hang, &|| false).unwrap(), Verdict::Timeout);
    let report = o.timeout_report().unwrap();
    assert_eq!(report.policy, "adaptive");
    // The first test ran under the generous first limit, the timed-out ones under the lowest.
    assert_eq!(report.max_seconds, 300.0, "{report:?}");
    assert_eq!(report.min_seconds, low.as_secs_f64(), "{report:?}");
    let doubled = o.current_limit().as_secs_f64() / low.as_secs_f64();
    assert!((doubled - 2.0).abs() < 1e-6, "{report:?}");
}

#[test]
fn the_empty_files_quick_run_does_not_shorten_the_originals_limit() {
    // At `-j 2` the engine tests the empty file beside the input. When the empty file's run ends
    // first (here: it is all that ran), the input's run still gets the first limit: a 0.6 s
    // compile must not be killed at a 1 s floor set by a 10 ms one on a loaded machine.
    let o = sleeper(Timeout::Adaptive(Adaptive {
        floor: ms(50),
        ..Adaptive::default()
    }));
    assert_eq!(o.test(b"", &|| false).unwrap(), Verdict::Boring);
    // The empty run set the limit a candidate would get (five times its time, at least the
    // 50 ms floor: less than 0.3 s unless that run took 60 ms or more)…
    assert!(o.current_limit() < Adaptive::default().first);
    // …but the input's 0.3 s run is not killed at it.
    assert_eq!(o.test(b"0.3!", &|| false).unwrap(), Verdict::Interesting);
    // The input's run is the original's, not the empty file's.
    let runs = o.original_runs();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0].0, Verdict::Interesting);
    assert!(runs[0].1 >= ms(300), "{runs:?}");
    // Then the next candidate's limit comes from the tests' times again.
    assert!(o.current_limit() < Adaptive::default().first);
}

#[test]
fn a_candidate_that_ends_before_the_original_is_not_timed_as_the_original() {
    // The reduction's opening tests the first candidates beside the input: one that ends first
    // (here: before the input's test even starts) is not the original, whose bytes the oracle
    // was told.
    let o = sleeper(Timeout::Adaptive(Adaptive {
        floor: ms(50),
        ..Adaptive::default()
    }));
    assert!(o.expect_original(b"0.3!"));
    assert_eq!(o.test(b"0.01", &|| false).unwrap(), Verdict::Boring);
    assert!(o.original_runs().is_empty());
    assert_eq!(o.test(b"0.3!", &|| false).unwrap(), Verdict::Interesting);
    let runs = o.original_runs();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0].0, Verdict::Interesting);
    assert!(runs[0].1 >= ms(300), "{runs:?}");
}

#[test]
fn a_reduction_times_the_original_until_more_runs_cannot_move_the_limit() {
    let grep = |timeout| CommandOracle::new("grep -q k {}", Path::new("t.toy"), timeout);
    let o = grep(Timeout::Adaptive(Adaptive::default()));
    let reduced = Reduction::new(&Toy, &o, b"a k b").run().expect("reduces");
    let t = reduced.report.timeout.expect("a timeout report");
    assert_eq!(t.policy, "adaptive");
    // The original's test is timed again (runs that are not oracle calls) until it ran five
    // times or for 1 s in all, or until its slowest run so far leaves the limit at its 1 s floor
    // or a run is faster than the slowest before it (5 × the slowest ≤ 1 s; `grep` takes milliseconds, so it is timed once unless the
    // machine is very slow right now): how often depends on the machine, the rule does not.
    let n = t.original_seconds.len();
    let sum: f64 = t.original_seconds.iter().sum();
    let slowest = t.original_seconds.iter().copied().fold(0.0, f64::max);
    let fell = n >= 2 && t.original_seconds[n - 1] < slowest;
    assert!(
        n == 5 || sum >= 1.0 || 5.0 * slowest <= 1.0 || fell,
        "{t:?}"
    );
    // Each run but the last was timed because the rule still wanted one.
    for k in 1..n {
        let before = &t.original_seconds[..k];
        let slowest_before = before.iter().copied().fold(0.0, f64::max);
        assert!(before.iter().sum::<f64>() < 1.0, "{t:?}");
        assert!(5.0 * slowest_before > 1.0, "{t:?}");
        assert!(before[k - 1] >= slowest_before, "{t:?}");
    }
    assert_eq!(t.calibration_runs as usize, n - 1, "{t:?}");
    // The limit starts at 5 × the slowest test so far, at least 1 s.
    assert!(t.start_seconds >= (5.0 * slowest).max(1.0) - 1e-6, "{t:?}");
    assert_eq!(reduced.best, b"k");
    // A fixed timeout is not calibrated.
    let fixed = grep(Timeout::Fixed(ms(5000)));
    let reduced = Reduction::new(&Toy, &fixed, b"a k b").run().unwrap();
    let t = reduced.report.timeout.unwrap();
    assert_eq!((t.policy.as_str(), t.calibration_runs), ("fixed", 0));
    assert_eq!(t.start_seconds, 5.0);
}

#[test]
fn a_resumed_reduction_takes_the_originals_timings_from_its_journal_and_runs_no_test() {
    let dir = tempfile::tempdir().unwrap();
    let spec = crate::JournalSpec {
        path: dir.path().join("journal"),
        test: "grep -q k {}".into(),
        ..crate::JournalSpec::default()
    };
    let adaptive = || {
        CommandOracle::new(
            "grep -q k {}",
            Path::new("t.toy"),
            Timeout::Adaptive(Adaptive::default()),
        )
    };
    let first = adaptive();
    let reduced = Reduction::new(&Toy, &first, b"a k b")
        .journal(spec.clone())
        .run()
        .expect("reduces");
    let t1 = reduced.report.timeout.expect("a timeout report");
    // The journal holds the original's timed runs, the first test's and the calibration's.
    let text = std::fs::read_to_string(&spec.path).unwrap();
    let line = text
        .lines()
        .rfind(|l| l.starts_with("original "))
        .expect("an original line");
    assert_eq!(
        line.split(' ').count() - 1,
        t1.original_seconds.len(),
        "{text}"
    );
    assert!(line.split(' ').skip(1).all(|w| w.ends_with('i')), "{line}");

    // Run again with the finished journal: every verdict and every timing comes from it.
    let again = adaptive();
    let resumed = Reduction::new(&Toy, &again, b"a k b")
        .journal(spec)
        .run()
        .expect("reduces");
    assert_eq!(resumed.best, reduced.best);
    assert_eq!(resumed.report.test_runs, 0, "{:?}", resumed.report);
    let t2 = resumed.report.timeout.expect("a timeout report");
    assert_eq!(t2.calibration_runs, 0, "{t2:?}");
    assert_eq!(t2.original_seconds.len(), t1.original_seconds.len());
    for (a, b) in t1.original_seconds.iter().zip(&t2.original_seconds) {
        assert!((a - b).abs() < 1e-6, "{t1:?} {t2:?}");
    }
}

/// An oracle that runs `true` (milliseconds) under the adaptive timeout.
fn oracle() -> CommandOracle {
    CommandOracle::new(
        "true",
        Path::new("t.toy"),
        Timeout::Adaptive(Adaptive::default()),
    )
}

#[test]
fn restored_timings_count_as_runs_of_the_original_and_only_the_missing_ones_run() {
    let told = std::sync::Mutex::new(Vec::new());
    let timed = |runs: &[crate::OriginalRun]| {
        told.lock().unwrap().push(runs.to_vec());
        Ok(())
    };
    // Five runs restored: nothing more to time, nothing to tell the journal.
    let full = oracle();
    full.restore_timings(&[(Verdict::Interesting, ms(20)); 5]);
    full.calibrate(b"x", &timed).unwrap();
    assert!(told.lock().unwrap().is_empty());
    let t = full.timeout_report().unwrap();
    assert_eq!((t.calibration_runs, t.original_seconds.len()), (0, 5));
    // The limit follows the restored times: the floor of 1 s, and 5 × a slow original.
    assert_eq!(full.current_limit(), ms(1000));
    let slow = oracle();
    slow.restore_timings(&[(Verdict::Interesting, ms(1500))]);
    slow.calibrate(b"x", &timed).unwrap();
    assert!(told.lock().unwrap().is_empty(), "1.5 s timed is enough");
    assert_eq!(slow.current_limit(), ms(7500));

    // One fast run restored: the calibration goes on from there, and each new run is told
    // with the restored one first.
    let part = oracle();
    part.restore_timings(&[(Verdict::Interesting, ms(900))]);
    part.calibrate(b"x", &timed).unwrap();
    let told = told.into_inner().unwrap();
    assert!(!told.is_empty());
    for (i, runs) in told.iter().enumerate() {
        assert_eq!(runs.len(), i + 2, "{told:?}");
        assert_eq!(runs[0], (Verdict::Interesting, ms(900)));
    }
    let t = part.timeout_report().unwrap();
    assert_eq!(t.calibration_runs as usize, told.len());

    // Once a test ran, it was the original's: later timings from a journal are ignored.
    let ran = oracle();
    assert_eq!(ran.test(b"x", &|| false).unwrap(), Verdict::Interesting);
    ran.restore_timings(&[(Verdict::Interesting, ms(1500))]);
    let t = ran.timeout_report().unwrap();
    assert_eq!(t.original_seconds.len(), 1);
    assert_ne!(t.original_seconds[0], 1.5);
}

#[test]
fn an_original_whose_runs_leave_the_limit_at_its_floor_is_not_timed_again() {
    let told = std::sync::Mutex::new(0);
    let timed = |_: &[crate::OriginalRun]| {
        *told.lock().unwrap() += 1;
        Ok(())
    };
    // 5 × 150 ms is under the 1 s floor: a rerun could only move the limit by being slower
    // than the cold first run, so there is none.
    let fast = oracle();
    fast.restore_timings(&[(Verdict::Interesting, ms(150))]);
    fast.calibrate(b"x", &timed).unwrap();
    assert_eq!(*told.lock().unwrap(), 0);
    assert_eq!(fast.timeout_report().unwrap().calibration_runs, 0);
    assert_eq!(fast.current_limit(), ms(1000));
    // 5 × 300 ms is over it: the original is timed again, once: `true` takes milliseconds, so
    // that run is faster, which shows the 300 ms run was the slow one.
    let slower = oracle();
    slower.restore_timings(&[(Verdict::Interesting, ms(300))]);
    slower.calibrate(b"x", &timed).unwrap();
    let t = slower.timeout_report().unwrap();
    assert_eq!(t.calibration_runs, 1, "{t:?}");
    assert_eq!(*told.lock().unwrap() as u64, 1);
    assert_eq!(slower.current_limit(), ms(1500));
    // Runs that rise (a lucky first run, then slower ones) go on being timed: 250 then 300 ms
    // restored, the last the slowest, so `true` runs once more, faster, and the timing stops.
    let rising = oracle();
    rising.restore_timings(&[
        (Verdict::Interesting, ms(250)),
        (Verdict::Interesting, ms(300)),
    ]);
    rising.calibrate(b"x", &|_| Ok(())).unwrap();
    assert_eq!(rising.timeout_report().unwrap().calibration_runs, 1);
    // 300 then 250 ms: the times fall already, so nothing more runs.
    let falling = oracle();
    falling.restore_timings(&[
        (Verdict::Interesting, ms(300)),
        (Verdict::Interesting, ms(250)),
    ]);
    falling.calibrate(b"x", &|_| Ok(())).unwrap();
    assert_eq!(falling.timeout_report().unwrap().calibration_runs, 0);
}
