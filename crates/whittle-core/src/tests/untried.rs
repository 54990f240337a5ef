//! ddmin's runs in `auto` ([`Tested::Untried`]) do not test a candidate that the run's own
//! failures rule out for a monotone test; the papers' ([`Tested::All`]) test it again.

use super::toy::Toy;
use crate::ddmin::{Known, Tested, ddmin_by, ddmin_from};
use crate::edit::{Edit, Edits};
use crate::lookahead::Successor;
use crate::split::{Split, edits_keeping};
use crate::{Format, Options, Reducer};
use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;

/// The words `x0` … of a candidate.
fn words(bytes: &[u8]) -> BTreeSet<String> {
    String::from_utf8_lossy(bytes)
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.starts_with('x'))
        .map(str::to_string)
        .collect()
}

/// ddmin over the leaves of `f(x0 … x{n-1})`, interesting while it holds every word of
/// `needles`: the words of the result, and of every candidate tested with its verdict, in order.
fn run(
    n: usize,
    needles: &[&str],
    tested: Tested,
) -> (BTreeSet<String>, Vec<(BTreeSet<String>, bool)>) {
    let log = Mutex::new(Vec::new());
    let oracle = |bytes: &[u8]| {
        let w = words(bytes);
        let interesting = needles.iter().all(|n| w.contains(*n));
        log.lock().unwrap().push((w, interesting));
        interesting
    };
    let result = over_words(n, &oracle, |r, items| {
        ddmin_from(r, &Edits::new(), items, 2, tested, &mut Successor::none()).map(drop)
    });
    // The original's own test first.
    let mut log = log.into_inner().unwrap();
    log.remove(0);
    (result, log)
}

/// Runs `reduce` over the leaves of `f(x0 … x{n-1})` as items, with the test `oracle`, at `-j 1`;
/// the words of the result.
fn over_words(
    n: usize,
    oracle: &(dyn Fn(&[u8]) -> bool + Sync),
    reduce: impl FnOnce(
        &mut Reducer<'_>,
        &[(crate::tree::NodeId, Edit)],
    ) -> Result<(), crate::ReduceError>,
) -> BTreeSet<String> {
    let input = format!(
        "f({})",
        (0..n)
            .map(|i| format!("x{i}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let stop = AtomicBool::new(false);
    let options = Options {
        jobs: 1,
        ..Options::default()
    };
    let mut r = Reducer::new(&Toy, &oracle, input.as_bytes(), options, &stop).expect("parses");
    r.check_input().expect("the original is interesting");
    let items: Vec<(_, Edit)> = (Toy.ddmin_units(r.tree()).into_iter())
        .map(|u| (u, Edit::Delete))
        .collect();
    assert_eq!(items.len(), n);
    r.parallel(|r| reduce(r, &items)).expect("runs");
    words(r.best())
}

/// The candidates whose words lie inside those of a candidate that failed before them: a
/// monotone test says they fail too.
fn ruled_out(log: &[(BTreeSet<String>, bool)]) -> Vec<BTreeSet<String>> {
    log.iter()
        .enumerate()
        .filter(|(k, (w, _))| log[..*k].iter().any(|(f, ok)| !ok && w.is_subset(f)))
        .map(|(_, (w, _))| w.clone())
        .collect()
}

#[test]
fn autos_ddmin_does_not_test_what_its_failures_rule_out() {
    let needles = ["x2", "x9", "x10", "x13"];
    let (paper, paper_log) = run(16, &needles, Tested::All);
    let (auto, auto_log) = run(16, &needles, Tested::Untried);
    let expected: BTreeSet<String> = needles.iter().map(|s| s.to_string()).collect();
    assert_eq!(paper, expected);
    assert_eq!(auto, expected);
    // The paper's run tests again what its failures rule out; `auto`'s never does.
    let again = ruled_out(&paper_log);
    assert!(!again.is_empty(), "the paper's run retests nothing here");
    assert_eq!(ruled_out(&auto_log), Vec::<BTreeSet<String>>::new());
    assert_eq!(auto_log.len() + again.len(), paper_log.len());
}

#[test]
fn a_run_of_ddmin_that_wins_nothing_tests_every_single_item() {
    // Every item is needed: nothing wins, so nothing is ruled out, and the run ends with each
    // item's own removal tested, as the papers' run does.
    let needles: Vec<String> = (0..8).map(|i| format!("x{i}")).collect();
    let needles: Vec<&str> = needles.iter().map(String::as_str).collect();
    let (_, paper_log) = run(8, &needles, Tested::All);
    let (auto, auto_log) = run(8, &needles, Tested::Untried);
    assert_eq!(auto.len(), 8);
    assert_eq!(auto_log, paper_log);
    for i in 0..8 {
        let without: BTreeSet<String> = (0..8)
            .filter(|&k| k != i)
            .map(|k| format!("x{k}"))
            .collect();
        assert!(
            auto_log.iter().any(|(w, _)| *w == without),
            "x{i}'s removal not tested"
        );
    }
}

/// The words `x{i}` for each `i` of `keep`.
fn xs(keep: impl IntoIterator<Item = usize>) -> BTreeSet<String> {
    keep.into_iter().map(|i| format!("x{i}")).collect()
}

#[test]
fn autos_ddmin_resumes_the_scan_where_it_was_after_a_step_that_failed_in_every_part() {
    // x0 … x15, interesting while x0 … x5 and x13 are there; worked by hand. After the test of
    // the empty file, both runs fail at two parts, and at four parts remove x0-x3 (fails), x4-x7
    // (fails), then x8-x11: a win, after which the scan goes on at three parts from the part
    // after the one removed, x12-x15 (x0-x7 kept: tested already, answered by the cache).
    let needles = ["x0", "x1", "x2", "x3", "x4", "x5", "x13"];
    let (paper, paper_log) = run(16, &needles, Tested::All);
    let (auto, auto_log) = run(16, &needles, Tested::Untried);
    assert_eq!(paper, xs([0, 1, 2, 3, 4, 5, 13]));
    assert_eq!(auto, paper);
    for log in [&paper_log, &auto_log] {
        assert_eq!(log[3], (xs(4..16), false));
        assert_eq!(log[4], (xs((0..4).chain(8..16)), false));
        assert_eq!(log[5], (xs((0..8).chain(12..16)), true));
    }
    // The paper's run then removes x0-x3 and x4-x7 again (both fail), and starts the six parts
    // at the first: x0 and x1.
    assert_eq!(paper_log[6], (xs((4..8).chain(12..16)), false));
    assert_eq!(paper_log[7], (xs((0..4).chain(12..16)), false));
    assert_eq!(paper_log[8], (xs((2..8).chain(12..16)), false));
    // `auto`'s failures rule out all three parts; at six parts it starts where the scan was,
    // at the first half of x12-x15: x12 and x13 (fails), then x14 and x15, which wins.
    assert_eq!(auto_log[6], (xs((0..8).chain(14..16)), false));
    assert_eq!(auto_log[7], (xs((0..8).chain(12..14)), true));
}

/// `auto`'s ddmin over `items`, whose sets of items `key` names ([`Known::key`]): the kept items.
fn ddmin_named(
    r: &mut Reducer<'_>,
    items: &[(crate::tree::NodeId, Edit)],
    key: &dyn Fn(&[usize]) -> u64,
) -> Result<Vec<usize>, crate::ReduceError> {
    let known = Known {
        tested: Tested::Untried,
        key: Some(key),
    };
    let (kept, _) = ddmin_by(
        r,
        Split::first(items.len(), 2),
        |kept| edits_keeping(&Edits::new(), items, kept),
        |r, edits, out| r.format().render(r.doc(), edits, out),
        known,
        &mut Successor::none(),
        None,
    )?;
    Ok(kept)
}

#[test]
fn a_run_leaves_its_failures_to_the_next_run_over_what_it_kept() {
    // ddmin over x0 … x7, interesting while x2 and x5 are there, keeps items 2 and 5, and ends
    // having failed to remove each alone. Under the key of what it kept, the next run over those
    // two items (numbered 0 and 1) finds both candidates of its first step ruled out: keeping
    // part 0 removes item 1 (x5), keeping part 1 removes item 0 (x2). Nothing is left under the
    // key of the eight items, nor for a run over another number of items.
    let oracle = |bytes: &[u8]| {
        let w = words(bytes);
        w.contains("x2") && w.contains("x5")
    };
    let key = |kept: &[usize]| kept.iter().map(|&k| 1u64 << k).sum::<u64>();
    let mut ended = None;
    let result = over_words(8, &oracle, |r, items| {
        let kept = ddmin_named(r, items, &key)?;
        assert_eq!(kept, [2, 5]);
        let next = Split::first(2, 2);
        let failures = r
            .ended_failures(key(&kept), 2)
            .expect("left under the kept items' key");
        ended = Some([failures.weight(&next, 0), failures.weight(&next, 1)]);
        assert!(
            r.ended_failures(key(&(0..8).collect::<Vec<_>>()), 8)
                .is_none()
        );
        assert!(r.ended_failures(key(&kept), 3).is_none());
        Ok(())
    });
    assert_eq!(result, BTreeSet::from(["x2".to_string(), "x5".to_string()]));
    assert_eq!(ended, Some([0.0, 0.0]));
}

#[test]
fn a_run_that_keeps_more_than_a_thousand_items_leaves_no_failures() {
    // Every word is needed, so the run keeps them all. Kept failures cost memory for what only
    // weighs the plan: over 1 024 kept items nothing is left, at 1 024 it is.
    for (n, left) in [(1024, true), (1025, false)] {
        let oracle = |bytes: &[u8]| words(bytes).len() == n;
        let key = |kept: &[usize]| kept.len() as u64;
        let mut ended = None;
        over_words(n, &oracle, |r, items| {
            let kept = ddmin_named(r, items, &key)?;
            assert_eq!(kept.len(), n);
            ended = Some(r.ended_failures(key(&kept), n).is_some());
            Ok(())
        });
        assert_eq!(ended, Some(left), "{n} items");
    }
}
