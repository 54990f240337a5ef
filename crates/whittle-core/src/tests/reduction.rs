//! The reduction API: a whole reduction in process, its report and what its observers are told.

use super::toy::Toy;
use crate::{Algorithm, Gate, Observer, ReduceError, Reduction, Started, Stats};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Records every event, in order.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<String>>>);

impl Observer for Recorder {
    fn started(&mut self, s: &Started<'_>) {
        let event = format!("started {} nodes {} bytes {:?}", s.nodes, s.bytes, s.gate);
        self.0.lock().unwrap().push(event);
    }

    fn confirmed(&mut self, input: &[u8]) {
        let event = format!("confirmed {:?}", String::from_utf8_lossy(input));
        self.0.lock().unwrap().push(event);
    }

    fn improved(&mut self, best: &[u8], stats: &Stats) {
        let event = format!(
            "improved {:?} after {} improvements",
            String::from_utf8_lossy(best),
            stats.improvements
        );
        self.0.lock().unwrap().push(event);
    }
}

#[test]
fn a_reduction_runs_in_process_and_reports_its_counts() {
    // Interesting while `k` is in the file. GTR* starts at the root: deleting it gives the empty
    // file (boring), substituting it by `a` gives `a` (boring), by `b` gives `b(k)`; one level
    // down, `b` is substituted by `k`.
    let test = |bytes: &[u8]| bytes.contains(&b'k');
    for jobs in [1, 3] {
        let reduced = Reduction::new(&Toy, &test, b"a b(k) c(d)")
            .algorithm(Algorithm::GtrStar)
            .jobs(jobs)
            .run()
            .expect("runs");
        assert_eq!(String::from_utf8_lossy(&reduced.best), "k", "-j {jobs}");
        let r = &reduced.report;
        assert_eq!((r.format.as_str(), r.algorithm.as_str()), ("toy", "gtr*"));
        assert_eq!((r.bytes_before, r.bytes_after), (11, 1));
        assert_eq!((r.nodes_before, r.nodes_after), (6, 2));
        assert_eq!(r.jobs, jobs);
        assert_eq!(r.gate, Gate::Off, "the toy format has no gate");
        assert!(!r.interrupted);
        assert_eq!(r.final_check_interesting, None);
        // Every test run is one oracle call (no repeat), the original and the empty file
        // included.
        assert_eq!(r.test_runs, r.stats.oracle_calls);
        assert_eq!(r.stats.improvements, 2);
    }
}

#[test]
fn an_observer_is_told_of_the_start_the_confirmation_and_every_improvement() {
    let events = Recorder::default();
    let test = |bytes: &[u8]| bytes.contains(&b'k');
    let reduced = Reduction::new(&Toy, &test, b"a b(k) c(d)")
        .observe(events.clone())
        .run()
        .expect("runs");
    let events = events.0.lock().unwrap().clone();
    assert_eq!(events[0], "started 6 nodes 11 bytes Off");
    assert_eq!(events[1], "confirmed \"a b(k) c(d)\"");
    let improvements = &events[2..];
    assert_eq!(improvements.len() as u64, reduced.report.stats.improvements);
    for (i, e) in improvements.iter().enumerate() {
        assert!(e.ends_with(&format!("after {} improvements", i + 1)), "{e}");
    }
    assert_eq!(
        improvements.last().map(String::as_str),
        Some("improved \"k\" after 2 improvements"),
        "{improvements:?}"
    );
}

#[test]
fn a_closure_observer_sees_sizes_that_only_go_down() {
    let sizes = Arc::new(Mutex::new(vec![]));
    let seen = Arc::clone(&sizes);
    let test = |bytes: &[u8]| bytes.windows(2).any(|w| w == b"x1");
    let input = b"p(q r(x1 s) t) u(v w) x1b";
    let reduced = Reduction::new(&Toy, &test, input)
        .algorithm(Algorithm::HddStar)
        .observe(move |best: &[u8], _: &Stats| seen.lock().unwrap().push(best.len()))
        .run()
        .expect("runs");
    let sizes = sizes.lock().unwrap();
    assert!(sizes.windows(2).all(|w| w[1] < w[0]), "{sizes:?}");
    assert_eq!(sizes.last(), Some(&reduced.best.len()));
    assert!(reduced.best.len() < input.len());
}

#[test]
fn a_stop_flag_ends_the_run_with_the_best_so_far() {
    let stop = AtomicBool::new(false);
    let test = |bytes: &[u8]| bytes.contains(&b'k');
    let reduced = Reduction::new(&Toy, &test, b"a b(k) c(d)")
        .stop(&stop)
        .observe(|_: &[u8], _: &Stats| stop.store(true, Ordering::SeqCst))
        .run()
        .expect("an interruption after the start is not an error");
    assert!(reduced.report.interrupted);
    assert_eq!(reduced.report.stats.improvements, 1);
    assert!(reduced.best.len() < 11 && reduced.best.contains(&b'k'));
}

#[test]
fn an_uninteresting_input_or_a_permissive_test_is_an_error() {
    let never = |_: &[u8]| false;
    let err = Reduction::new(&Toy, &never, b"a b").run().unwrap_err();
    assert!(matches!(err, ReduceError::NotInteresting(_)), "{err}");
    let always = |_: &[u8]| true;
    let err = Reduction::new(&Toy, &always, b"a b").run().unwrap_err();
    assert!(matches!(err, ReduceError::TooPermissive), "{err}");
}

#[test]
fn repeat_rechecks_the_result_k_times() {
    let test = |bytes: &[u8]| bytes.contains(&b'k');
    let reduced = Reduction::new(&Toy, &test, b"a k")
        .repeat(3)
        .run()
        .expect("runs");
    let r = &reduced.report;
    assert_eq!(r.repeat, 3);
    assert_eq!(r.final_check_interesting, Some(3));
    // A boring candidate costs 3 runs, an interesting one 1; the re-check 3 more.
    assert!(r.test_runs >= r.stats.oracle_calls + 3, "{r:?}");
}

#[test]
fn a_report_reads_back_from_its_json_and_older_reports_read_with_defaults() {
    let test = |bytes: &[u8]| bytes.contains(&b'k');
    let reduced = Reduction::new(&Toy, &test, b"a b(k) c(d)").run().unwrap();
    let json = serde_json::to_string(&reduced.report).unwrap();
    let without_times = |mut r: crate::Report| {
        // serde_json reads a float back within one unit in the last place, not always exactly.
        r.wall_seconds = 0.0;
        r.outside_oracle_seconds = 0.0;
        r.stats.oracle_seconds = 0.0;
        r.stats.timed_out_seconds = 0.0;
        r.stats.oracle_busy_seconds = 0.0;
        r
    };
    let back: crate::Report = serde_json::from_str(&json).unwrap();
    assert_eq!(without_times(back), without_times(reduced.report.clone()));
    // A report written before `repeat`, `test_runs` and the per-move counts existed.
    let old: crate::Report = serde_json::from_str(
        r#"{"bytes_before": 9, "bytes_after": 3, "oracle_calls": 4, "gate": "on"}"#,
    )
    .unwrap();
    assert_eq!((old.bytes_before, old.bytes_after), (9, 3));
    assert_eq!(old.stats.oracle_calls, 4);
    assert_eq!(old.gate, Gate::On);
    assert_eq!(old.test_runs, 0);
    assert!(old.stats.tests_by_move.is_empty());
}

#[test]
fn the_report_gives_the_odds_the_speculation_learned() {
    // ddmin over `a b c d`, interesting while `a` is there: at 2 parts, keeping `a b` wins, then
    // keeping `a` wins; at 1 part, removing `a` (the empty file) fails. The odds are learned at
    // every -j, in the sequential scan's order.
    let test = |bytes: &[u8]| bytes.contains(&b'a');
    for jobs in [1, 4] {
        let reduced = Reduction::new(&Toy, &test, b"a b c d")
            .algorithm(Algorithm::Ddmin)
            .jobs(jobs)
            .run()
            .expect("runs");
        assert_eq!(String::from_utf8_lossy(&reduced.best).trim(), "a");
        let odds: Vec<_> = (reduced.report.odds.iter())
            .map(|o| (o.of_move.as_str(), o.kind.as_str(), o.won, o.tried))
            .collect();
        // In the whole reduction, then in its one move.
        assert_eq!(
            odds,
            [
                ("", "ddmin 1 parts", 0.0, 1.0),
                ("", "ddmin 2 parts", 2.0, 2.0),
                ("tree", "ddmin 1 parts", 0.0, 1.0),
                ("tree", "ddmin 2 parts", 2.0, 2.0)
            ],
            "-j {jobs}"
        );
    }
}
