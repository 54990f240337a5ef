//! The test pool at `-j > 1`: errors past the winner, stopping, no bytes tested twice at once,
//! and idle workers starting what comes next.

use super::toy::{TidyToy, Toy};
use crate::{Algorithm, Format, Options, Oracle, OracleError, Reducer, Verdict};
use rustc_hash::FxHashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// The words of a toy file (deletions leave their blanks behind).
fn split(c: &[u8]) -> Vec<&[u8]> {
    c.split(|&b| b == b' ').filter(|w| !w.is_empty()).collect()
}

fn is(c: &[u8], words: &str) -> bool {
    split(c) == split(words.as_bytes())
}

fn options(jobs: usize) -> Options {
    Options {
        jobs,
        gate: true,
        rules: None,
        merge: false,
    }
}

/// Interesting while `a` is in the file. The candidate that keeps only the second half of the
/// top level (`e f g h`) cannot be tested at all; it is candidate 1 of ddmin's first step, whose
/// candidate 0 (the first half) wins. With `wait`, the winner's test waits until that candidate
/// has been tried, so that at `-j 2` the error surely comes first.
struct ErrorPastTheWinner {
    wait: bool,
    errors: AtomicUsize,
}

impl Oracle for ErrorPastTheWinner {
    fn test(&self, candidate: &[u8], _cancel: &dyn Fn() -> bool) -> Result<Verdict, OracleError> {
        if is(candidate, "e f g h") {
            self.errors.fetch_add(1, Ordering::SeqCst);
            return Err(OracleError::Io(std::io::Error::other(
                "cannot start the test",
            )));
        }
        if is(candidate, "a b c d") && self.wait {
            for _ in 0..500 {
                if self.errors.load(Ordering::SeqCst) > 0 {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        Ok(if candidate.contains(&b'a') {
            Verdict::Interesting
        } else {
            Verdict::Boring
        })
    }
}

#[test]
fn an_error_past_the_winner_is_not_an_error() {
    let input = b"a b c d e f g h";
    let mut results = Vec::new();
    for jobs in [1, 2] {
        let stop = AtomicBool::new(false);
        let oracle = ErrorPastTheWinner {
            wait: jobs > 1,
            errors: AtomicUsize::new(0),
        };
        let mut r = Reducer::new(&Toy, &oracle, input, options(jobs), &stop).unwrap();
        r.check_input().unwrap();
        r.parallel(|r| crate::run(r, Algorithm::HddStar))
            .expect("the error is past the winner: a sequential scan never meets it");
        // At -j 2 the erroring candidate did run (speculation may try it again later, since an
        // error is not a verdict to cache); at -j 1 it never does.
        let errors = oracle.errors.load(Ordering::SeqCst);
        assert_eq!(errors > 0, jobs > 1, "-j {jobs}: {errors} errors");
        results.push(r.into_best());
    }
    assert!(
        is(&results[0], "a"),
        "{:?}",
        String::from_utf8_lossy(&results[0])
    );
    assert_eq!(results[0], results[1]);
}

#[test]
fn an_error_before_the_winner_stops_the_reduction() {
    // Only the input is interesting, and "e f g h" cannot be tested: a sequential scan meets it.
    let input = b"a b c d e f g h";
    let test = |c: &[u8], _: &dyn Fn() -> bool| {
        if is(c, "e f g h") {
            return Err(OracleError::Io(std::io::Error::other("cannot start")));
        }
        Ok(if c == input {
            Verdict::Interesting
        } else {
            Verdict::Boring
        })
    };
    let oracle = Wrapped(&test);
    for jobs in [1, 2] {
        let stop = AtomicBool::new(false);
        let mut r = Reducer::new(&Toy, &oracle, input, options(jobs), &stop).unwrap();
        r.check_input().unwrap();
        let outcome = r.parallel(|r| crate::run(r, Algorithm::HddStar));
        assert!(
            matches!(outcome, Err(crate::ReduceError::Oracle(_))),
            "-j {jobs}: {outcome:?}"
        );
    }
}

type TestFn<'f> = &'f (dyn Fn(&[u8], &dyn Fn() -> bool) -> Result<Verdict, OracleError> + Sync);

struct Wrapped<'f>(TestFn<'f>);

impl Oracle for Wrapped<'_> {
    fn test(&self, candidate: &[u8], cancel: &dyn Fn() -> bool) -> Result<Verdict, OracleError> {
        (self.0)(candidate, cancel)
    }
}

/// A file of `n` top-level words `w0 w1 …`.
fn words(n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| format!("w{i}"))
        .collect::<Vec<_>>()
        .join(" ")
        .into_bytes()
}

#[test]
fn a_stop_ends_a_step_of_a_thousand_candidates_at_once() {
    // Only the input is interesting, so HDD's ddmin goes on to single-word complements: steps of
    // hundreds of candidates. The test asks to stop at its 20th call; at most the tests already
    // running (one per worker) may still end after that.
    let input = words(1000);
    let stop = AtomicBool::new(false);
    let calls = AtomicUsize::new(0);
    let after_stop = AtomicUsize::new(0);
    let test = |c: &[u8], _: &dyn Fn() -> bool| {
        if stop.load(Ordering::SeqCst) {
            after_stop.fetch_add(1, Ordering::SeqCst);
        }
        if calls.fetch_add(1, Ordering::SeqCst) == 21 {
            stop.store(true, Ordering::SeqCst);
        }
        std::thread::sleep(Duration::from_millis(2));
        Ok(if c == input.as_slice() {
            Verdict::Interesting
        } else {
            Verdict::Boring
        })
    };
    let oracle = Wrapped(&test);
    let mut r = Reducer::new(&Toy, &oracle, &input, options(2), &stop).unwrap();
    r.check_input().unwrap();
    let outcome = r.parallel(|r| crate::run(r, Algorithm::Hdd));
    assert!(matches!(outcome, Err(crate::ReduceError::Interrupted)));
    assert!(
        after_stop.load(Ordering::SeqCst) <= 1,
        "{} tests started after the stop",
        after_stop.load(Ordering::SeqCst)
    );
    assert!(calls.load(Ordering::SeqCst) <= 24);
}

#[test]
fn two_workers_never_test_the_same_bytes_at_once() {
    // Every test takes a while, so that the next step's candidates (started while a step ends)
    // are still running when that step begins and asks for the same bytes.
    let running = Mutex::new(FxHashSet::<Vec<u8>>::default());
    let twice = AtomicUsize::new(0);
    let input = words(40);
    let test = |c: &[u8], _: &dyn Fn() -> bool| {
        if !running.lock().unwrap().insert(c.to_vec()) {
            twice.fetch_add(1, Ordering::SeqCst);
        }
        std::thread::sleep(Duration::from_millis(3));
        running.lock().unwrap().remove(c);
        // Interesting while w3, w17 and w31 are all there.
        let has = |w: &str| split(c).contains(&w.as_bytes());
        Ok(if has("w3") && has("w17") && has("w31") {
            Verdict::Interesting
        } else {
            Verdict::Boring
        })
    };
    let oracle = Wrapped(&test);
    let mut results = Vec::new();
    for jobs in [1, 4] {
        let stop = AtomicBool::new(false);
        let mut r = Reducer::new(&Toy, &oracle, &input, options(jobs), &stop).unwrap();
        r.check_input().unwrap();
        r.parallel(|r| crate::run(r, Algorithm::GtrStar)).unwrap();
        results.push(r.into_best());
    }
    assert_eq!(twice.load(Ordering::SeqCst), 0);
    assert!(is(&results[0], "w3 w17 w31"));
    assert_eq!(results[0], results[1]);
}

/// What [`run_waiting`] saw at one `-j`.
struct Waited {
    /// Whether the waiting test saw the awaited candidate start.
    seen: bool,
    /// The candidates tested, in the order their tests started.
    log: Vec<String>,
    best: Vec<u8>,
}

/// Reduces `input` with `algorithm` at `-j 1` and `-j 2`, with a test that says whether a
/// candidate is `interesting`, and holds the test of a candidate that `waits` picks out until one
/// that `awaited` picks out has started. At `-j 1` nothing else can start meanwhile, so the hold
/// is short (0.2 s); with more workers it lasts until the awaited test starts, or 60 s if it
/// never does: the outcome does not depend on how loaded the machine is.
fn run_waiting(
    input: &[u8],
    algorithm: Algorithm,
    waits: &(dyn Fn(&[u8]) -> bool + Sync),
    awaited: &(dyn Fn(&[u8]) -> bool + Sync),
    interesting: &(dyn Fn(&[u8]) -> bool + Sync),
) -> Vec<Waited> {
    run_waiting_at(&[1, 2], input, algorithm, waits, awaited, interesting)
}

/// [`run_waiting`] at each of `jobs`.
fn run_waiting_at(
    jobs: &[usize],
    input: &[u8],
    algorithm: Algorithm,
    waits: &(dyn Fn(&[u8]) -> bool + Sync),
    awaited: &(dyn Fn(&[u8]) -> bool + Sync),
    interesting: &(dyn Fn(&[u8]) -> bool + Sync),
) -> Vec<Waited> {
    let on = (&Toy as &dyn Format, algorithm);
    run_waiting_on(on, jobs, input, waits, awaited, interesting)
}

/// [`run_waiting_at`] with `syntax`, a format of the toy syntax.
fn run_waiting_on(
    (syntax, algorithm): (&dyn Format, Algorithm),
    jobs: &[usize],
    input: &[u8],
    waits: &(dyn Fn(&[u8]) -> bool + Sync),
    awaited: &(dyn Fn(&[u8]) -> bool + Sync),
    interesting: &(dyn Fn(&[u8]) -> bool + Sync),
) -> Vec<Waited> {
    let started = AtomicBool::new(false);
    let seen = AtomicBool::new(false);
    // How many 10 ms waits a held test makes at most.
    let hold = AtomicUsize::new(0);
    let log = Mutex::new(Vec::<String>::new());
    let test = |c: &[u8], _: &dyn Fn() -> bool| {
        let text = String::from_utf8_lossy(c).into_owned();
        log.lock().unwrap().push(text);
        if awaited(c) {
            started.store(true, Ordering::SeqCst);
        }
        if waits(c) {
            for _ in 0..hold.load(Ordering::SeqCst) {
                if started.load(Ordering::SeqCst) {
                    seen.store(true, Ordering::SeqCst);
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        Ok(if interesting(c) {
            Verdict::Interesting
        } else {
            Verdict::Boring
        })
    };
    let oracle = Wrapped(&test);
    jobs.iter()
        .map(|&jobs| {
            started.store(false, Ordering::SeqCst);
            seen.store(false, Ordering::SeqCst);
            hold.store(if jobs == 1 { 20 } else { 6000 }, Ordering::SeqCst);
            log.lock().unwrap().clear();
            let stop = AtomicBool::new(false);
            let mut r = Reducer::new(syntax, &oracle, input, options(jobs), &stop).unwrap();
            r.check_input().unwrap();
            r.parallel(|r| crate::run(r, algorithm)).unwrap();
            Waited {
                seen: seen.load(Ordering::SeqCst),
                log: std::mem::take(&mut log.lock().unwrap()),
                best: r.into_best(),
            }
        })
        .collect()
}

/// Checks that each run of [`run_waiting_at`] (at `jobs`) tested every candidate of `tested`,
/// and that the awaited test started while the held one ran exactly where more than one worker
/// ran.
fn tested_and_seen(runs: &[Waited], jobs: &[usize], tested: &[&str]) {
    for (run, jobs) in runs.iter().zip(jobs) {
        for tested in tested {
            assert!(
                run.log.iter().any(|c| c == tested),
                "-j {jobs}: {tested}: {:?}",
                run.log
            );
        }
        assert_eq!(run.seen, *jobs > 1, "-j {jobs}: {:?}", run.log);
    }
}

#[test]
fn the_next_level_starts_on_the_tree_the_run_leaves_before_the_commit() {
    // HDD over `x y b(c d)`, interesting while `x` and `c` are there. The top level's ddmin
    // removes `y` and ends with a step whose new test is `b(c d)` (its other candidate, `x`, was
    // tested in the first step). The test of `b(c d)` waits until the next level's first
    // candidate on the tree `x b(c d)`, without `d`, has started: at `-j 2` the idle worker
    // starts it from a parse of the best bytes made ahead of the commit, before the level ends.
    let has = |c: &[u8], b: u8| c.contains(&b);
    let runs = run_waiting(
        b"x y b(c d)",
        Algorithm::Hdd,
        &|c| is(c, "b(c d)"),
        &|c| has(c, b'x') && has(c, b'c') && !has(c, b'y') && !has(c, b'd'),
        &|c| has(c, b'x') && has(c, b'c'),
    );
    for (run, jobs) in runs.iter().zip([1, 2]) {
        assert!(run.log.iter().any(|c| is(c.as_bytes(), "b(c d)")));
        assert_eq!(run.seen, jobs > 1, "-j {jobs}: {:?}", run.log);
    }
    let best = &runs[0].best;
    assert!(is(best, "x b(c )"), "{:?}", String::from_utf8_lossy(best));
    assert_eq!(runs[0].best, runs[1].best);
}

#[test]
fn the_next_move_below_the_tree_starts_while_a_move_ends() {
    // `auto` on `foo   x`, interesting while `foo` and `x` are there. No node can go. The
    // renaming's one candidate, `a   x`, is not interesting; its test waits until the next move's
    // first candidate, the blanks at their minimum (`foo x`), has started: at `-j 2` the idle
    // worker starts it while the renaming's test runs.
    let words = |c: &[u8]| split(c).iter().map(|w| w.to_vec()).collect::<Vec<_>>();
    let runs = run_waiting(
        b"foo   x",
        Algorithm::Auto,
        &|c| c == b"a   x",
        &|c| c == b"foo x",
        &|c| words(c).contains(&b"foo".to_vec()) && words(c).contains(&b"x".to_vec()),
    );
    for (run, jobs) in runs.iter().zip([1, 2]) {
        assert!(
            run.log.iter().any(|c| c == "a   x"),
            "-j {jobs}: {:?}",
            run.log
        );
        assert_eq!(run.seen, jobs > 1, "-j {jobs}: {:?}", run.log);
    }
    assert_eq!(runs[0].best, b"foo x");
    assert_eq!(runs[0].best, runs[1].best);
}

#[test]
fn idle_workers_run_steps_two_wins_ahead_before_the_wins_are_known() {
    // ddmin over `a b c d e f g h`, interesting while `a` is there. Its first step keeps the
    // first half (`a b c d`), which wins; the step after it keeps `a b`, which wins; the step
    // after that keeps `a`. The test of `a b c d` waits until `a` has started: a sequential run
    // tries `a` only after two wins, and looking one step ahead reaches `a b` but not `a`. At
    // `-j 8` the plan follows the branches where candidates win too, and once the failures of
    // the other branches are in, idle workers start `a` ahead of the first verdict.
    let runs = run_waiting_at(
        &[1, 8],
        b"a b c d e f g h",
        Algorithm::Ddmin,
        &|c| is(c, "a b c d"),
        &|c| is(c, "a"),
        &|c| c.contains(&b'a'),
    );
    for (run, jobs) in runs.iter().zip([1, 8]) {
        assert!(
            run.log.iter().any(|c| is(c.as_bytes(), "a b c d")),
            "-j {jobs}: {:?}",
            run.log
        );
        assert_eq!(run.seen, jobs > 1, "-j {jobs}: {:?}", run.log);
    }
    assert!(
        is(&runs[0].best, "a"),
        "{:?}",
        String::from_utf8_lossy(&runs[0].best)
    );
    assert_eq!(runs[0].best, runs[1].best);
}

#[test]
fn idle_workers_start_the_next_literals_steps_while_a_literal_ends() {
    // `auto` on `s_abcd s_efgh`, interesting while `b` and `g` are there: no node can go, and
    // the characters of each literal (after `s_`) are shrunk by ddmin, the last literal first.
    // Its run's last new test is `s_abcd s_g`, which wins (what follows it, `s_abcd s_`, was
    // tested when the literals were emptied); the run over `abcd` then keeps `ab`, which wins,
    // then `a`, which fails, then `b`. The test of `s_abcd s_g` waits until `s_b s_g` has
    // started: a sequential run tests it two steps into the next literal's run, and looking only
    // at that run's first candidate reaches `s_ab s_g`, not it. At `-j 8` the plan walks on from
    // this literal's run into the next one's.
    let has = |c: &[u8], b: u8| c.contains(&b);
    let runs = run_waiting_at(
        &[1, 8],
        b"s_abcd s_efgh",
        Algorithm::Auto,
        &|c| c == b"s_abcd s_g",
        &|c| c == b"s_b s_g",
        &|c| has(c, b'b') && has(c, b'g'),
    );
    tested_and_seen(
        &runs,
        &[1, 8],
        &["s_abcd s_g", "s_ab s_g", "s_a s_g", "s_b s_g"],
    );
    assert_eq!(runs[0].best, runs[1].best);
}

#[test]
fn idle_workers_start_the_template_two_runs_ahead_while_every_candidate_fails() {
    // GTR* on `x(a b) y(c d)`, interesting only while every letter is there: nothing can go, so
    // the tree stays as it is and the runs follow each other over it. The top level's
    // substitution ends with `y(c d)` (the root by its second child); the next run, the
    // deletions on the level below, has no new candidate (`x(a b)` and `y(c d)` again); the run
    // after it substitutes that level's nodes by their children, `a y(c d)` first. The test of
    // `y(c d)` waits until `a y(c d)` has started: looking only at the next run reaches the
    // deletions, and at `-j 8` the plan walks on through the runs that follow while every
    // candidate fails.
    let all = |c: &[u8]| b"xyabcd".iter().all(|b| c.contains(b));
    let runs = run_waiting_at(
        &[1, 8],
        b"x(a b) y(c d)",
        Algorithm::GtrStar,
        &|c| c == b"y(c d)",
        &|c| c == b"a y(c d)",
        &all,
    );
    tested_and_seen(&runs, &[1, 8], &["y(c d)", "a y(c d)"]);
    assert_eq!(runs[0].best, b"x(a b) y(c d)");
    assert_eq!(runs[0].best, runs[1].best);
}

#[test]
fn idle_workers_start_a_move_two_moves_ahead_while_every_candidate_fails() {
    // `auto` on `s_q foo   bar`, interesting while `q`, `foo` and `bar` are there: no node can
    // go. Below the tree, emptying the literal (`s_ foo   bar`) fails; then the renamings fail
    // (both names at once, then each alone); then the blanks at their minimum, `s_q foo bar`,
    // win. The test of `s_ foo   bar` waits until `s_q foo bar` has started: looking at the next
    // move's first candidate only reaches the renamings, and at `-j 8` the plan walks on through
    // what the moves after it test while every candidate fails.
    let has = |c: &[u8], w: &[u8]| c.windows(w.len()).any(|x| x == w);
    let runs = run_waiting_at(
        &[1, 8],
        b"s_q foo   bar",
        Algorithm::Auto,
        &|c| c == b"s_ foo   bar",
        &|c| c == b"s_q foo bar",
        &|c| has(c, b"q") && has(c, b"foo") && has(c, b"bar"),
    );
    tested_and_seen(&runs, &[1, 8], &["s_ foo   bar", "s_q foo bar"]);
    assert_eq!(runs[0].best, b"s_q foo bar");
    assert_eq!(runs[0].best, runs[1].best);
}

#[test]
fn idle_workers_start_the_literals_characters_while_the_literals_are_emptied() {
    // `auto` on `s_ab x`, interesting while `b` and `x` are there: no node can go. Below the tree,
    // emptying the literal (`s_ x`) fails; no other move has a candidate (`x` is as short as a
    // name gets, the blank is one space) until ddmin over the literal's characters, whose first
    // candidate keeps `a` (`s_a x`, which fails) and whose second keeps `b` (`s_b x`, which
    // wins). The test of `s_ x` waits until `s_a x` has started: at `-j 8` the plan walks from
    // the emptying into the characters' first run, a search of the move's own.
    let runs = run_waiting_at(
        &[1, 8],
        b"s_ab x",
        Algorithm::Auto,
        &|c| c == b"s_ x",
        &|c| c == b"s_a x",
        &|c| c.contains(&b'b') && c.contains(&b'x'),
    );
    tested_and_seen(&runs, &[1, 8], &["s_ x", "s_a x", "s_b x"]);
    assert_eq!(runs[0].best, b"s_b x");
    assert_eq!(runs[0].best, runs[1].best);
}

/// With more than one worker, the algorithm's first candidates are tested while the original is
/// (`Reducer::check_input_opening`): here the original's test waits until some other non-empty
/// candidate's test has started (a minute at most, which only a missing opening waits out), and
/// says whether one did. The output is the one of `-j 1`, for each algorithm.
#[test]
fn the_first_candidates_are_tested_while_the_original_is() {
    let input = b"a b c d e f g h";
    let keeps = |c: &[u8]| c.contains(&b'a') && c.contains(&b'h');
    for algorithm in [
        Algorithm::Ddmin,
        Algorithm::Hdd,
        Algorithm::GtrStar,
        Algorithm::Auto,
    ] {
        let alone = crate::Reduction::new(&Toy, &keeps, input)
            .algorithm(algorithm)
            .run()
            .expect("runs at -j 1");
        assert!(is(&alone.best, "a h"), "{algorithm}: {:?}", alone.best);
        let started = (Mutex::new(false), std::sync::Condvar::new());
        let overlapped = AtomicBool::new(false);
        let test = |c: &[u8]| {
            let (lock, signal) = &started;
            if c == input {
                let guard = lock.lock().unwrap();
                let (guard, _) = signal
                    .wait_timeout_while(guard, Duration::from_secs(60), |s| !*s)
                    .unwrap();
                overlapped.store(*guard, Ordering::SeqCst);
            } else if !c.is_empty() {
                *lock.lock().unwrap() = true;
                signal.notify_all();
            }
            keeps(c)
        };
        let reduced = crate::Reduction::new(&Toy, &test, input)
            .algorithm(algorithm)
            .jobs(4)
            .run()
            .expect("runs at -j 4");
        assert!(overlapped.load(Ordering::SeqCst), "{algorithm}: no opening");
        assert_eq!(reduced.best, alone.best, "{algorithm}");
    }
}

#[test]
fn the_opening_starts_the_tree_moves_on_the_file_without_its_blanks_and_keeps_them_running() {
    // `auto` on `p(c_x a) q`, interesting while `a` and `q` are there; `c_x` is a blank node (a
    // comment). The blank move deletes it (`p( a) q`); then the tree moves' first candidate on
    // the file without it substitutes the file by its first node, `p( a)`, where on the file
    // with `c_x` it is `p(c_x a)` (the root's deletion, the empty file, is one of the checks).
    // The original's test waits until `p( a)` has started: at `-j 16` the opening starts the
    // tree moves on the file the blank move would leave. Its test then runs for 2 s unless it
    // is cancelled: the blank move's win, whose verdict is known by then, must not cancel it,
    // since it is the first step after that win.
    let input = b"p(c_x a) q";
    let keeps = |c: &[u8]| c.contains(&b'a') && c.contains(&b'q');
    let alone = crate::Reduction::new(&TidyToy, &keeps, input)
        .algorithm(Algorithm::Auto)
        .run()
        .expect("runs at -j 1");
    assert!(is(&alone.best, "a q"), "{:?}", alone.best);
    let first = b"p( a)";
    let started = AtomicUsize::new(0);
    let (overlapped, cancelled) = (AtomicBool::new(false), AtomicBool::new(false));
    let wait_for = |done: &dyn Fn() -> bool, steps: usize| {
        for _ in 0..steps {
            if done() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    };
    let test = |c: &[u8], cancel: &dyn Fn() -> bool| {
        if c == input {
            let opened = wait_for(&|| started.load(Ordering::SeqCst) > 0, 6000);
            overlapped.store(opened, Ordering::SeqCst);
        } else if c == first {
            started.fetch_add(1, Ordering::SeqCst);
            if wait_for(cancel, 200) {
                cancelled.store(true, Ordering::SeqCst);
                return Ok(Verdict::Cancelled);
            }
        }
        Ok(if keeps(c) {
            Verdict::Interesting
        } else {
            Verdict::Boring
        })
    };
    let reduced = crate::Reduction::new(&TidyToy, &Wrapped(&test), input)
        .algorithm(Algorithm::Auto)
        .jobs(16)
        .run()
        .expect("runs at -j 16");
    assert!(
        overlapped.load(Ordering::SeqCst),
        "no opening on the file without blanks"
    );
    assert!(
        !cancelled.load(Ordering::SeqCst),
        "the blank move's win cancelled it"
    );
    assert_eq!(started.load(Ordering::SeqCst), 1);
    assert_eq!(reduced.best, alone.best);
}

#[test]
fn the_tree_moves_start_while_the_move_below_the_tree_that_wins_is_tested() {
    // `auto` on `s_q foo   bar`, interesting while `q`, `foo` and `bar` are there. The tree
    // moves remove nothing; below the tree, the literal cannot be emptied nor the names renamed,
    // and the blanks at their minimum (`s_q foo bar`) win. The moves that changed something have
    // nothing more to do (the blanks are one space each now), so the tree moves run again, on
    // `s_q foo bar`: their round skips what failed alone before, and the bytes of the rest were
    // tested. Then the moves below the tree start again, and their first candidate is the
    // literal emptied on the new text, `s_ foo bar`. The test of `s_q foo bar` waits until `s_ foo bar`
    // has started: at `-j 8` idle workers start what comes after the blanks' move should it
    // win, and that goes on past the moves below the tree, through the tree moves' round and
    // into the moves below the tree again. The tree moves' last round, which skips nothing,
    // comes after those (its deletion of `s_q`, ` foo bar`).
    let has = |c: &[u8], w: &[u8]| c.windows(w.len()).any(|x| x == w);
    let runs = run_waiting_at(
        &[1, 8],
        b"s_q foo   bar",
        Algorithm::Auto,
        &|c| c == b"s_q foo bar",
        &|c| c == b"s_ foo bar",
        &|c| has(c, b"q") && has(c, b"foo") && has(c, b"bar"),
    );
    tested_and_seen(&runs, &[1, 8], &["s_q foo bar", "s_ foo bar", " foo bar"]);
    let at_1 = &runs[0].log;
    let after = |a: &str, b: &str| {
        let at = |c: &str| at_1.iter().position(|x| x == c);
        at(a) < at(b)
    };
    assert!(after("s_q foo bar", "s_ foo bar"), "{at_1:?}");
    assert!(after("s_ foo bar", " foo bar"), "{at_1:?}");
    assert_eq!(runs[0].best, b"s_q foo bar");
    assert_eq!(runs[0].best, runs[1].best);
}

#[test]
fn the_moves_below_the_tree_start_while_the_tidy_rendering_is_tested() {
    // `auto` with a toy format whose tidy rendering writes each run of blanks as one space, on
    // `s_q foo   bar`, interesting while `q`, `foo` and `bar` are there. The tree moves remove
    // nothing; the tidy rendering `s_q foo bar` wins; below the tree, emptying the literal
    // (`s_ foo bar`) comes first. The test of the tidy rendering waits until `s_ foo bar` has
    // started: at `-j 8` idle workers start what comes after the tidy rendering should it win.
    let has = |c: &[u8], w: &[u8]| c.windows(w.len()).any(|x| x == w);
    let runs = run_waiting_on(
        (&TidyToy, Algorithm::Auto),
        &[1, 8],
        b"s_q foo   bar",
        &|c| c == b"s_q foo bar",
        &|c| c == b"s_ foo bar",
        &|c| has(c, b"q") && has(c, b"foo") && has(c, b"bar"),
    );
    tested_and_seen(&runs, &[1, 8], &["s_q foo bar", "s_ foo bar"]);
    assert_eq!(runs[0].best, b"s_q foo bar");
    assert_eq!(runs[0].best, runs[1].best);
}

#[test]
fn the_last_moves_below_the_tree_start_while_the_round_before_them_ends() {
    // The same, at `-j 2`. After the tidy rendering, the first round of the moves below the tree
    // changes nothing: the literal cannot be emptied (`s_ foo bar`), nor the names renamed (both
    // at once, `s_q b a`, then each alone, `s_q b bar` and `s_q foo a`). The last moves come
    // then, whose first candidate substitutes `foo` by `0` (`s_q 0 bar`). The test of `s_q foo
    // a` waits until `s_q 0 bar` has started: at `-j 2` the idle worker starts, after the
    // round's last candidate, what the last moves test while every candidate fails.
    let has = |c: &[u8], w: &[u8]| c.windows(w.len()).any(|x| x == w);
    let runs = run_waiting_on(
        (&TidyToy, Algorithm::Auto),
        &[1, 2],
        b"s_q foo   bar",
        &|c| c == b"s_q foo a",
        &|c| c == b"s_q 0 bar",
        &|c| has(c, b"q") && has(c, b"foo") && has(c, b"bar"),
    );
    let tested = [
        "s_ foo bar",
        "s_q b a",
        "s_q b bar",
        "s_q foo a",
        "s_q 0 bar",
    ];
    tested_and_seen(&runs, &[1, 2], &tested);
    let at_1: Vec<&str> = (runs[0].log.iter())
        .map(String::as_str)
        .filter(|c| tested.contains(c))
        .collect();
    assert_eq!(at_1, tested);
    assert_eq!(runs[0].best, b"s_q foo bar");
    assert_eq!(runs[0].best, runs[1].best);
}
