//! The plan's walk over a run's outcomes, and what failed ddmin candidates rule out.

use crate::plan::{Memo, Odds, Opening, Plan, Planner, Steps, Then, Wanted};
use crate::split::{Failures, Split};
use std::rc::Rc;

/// A run of four steps, by hand: `A` has candidates `a0 a1`; if both fail, `B` (`b0 b1`) comes,
/// and the run ends after it; if `a0` wins, `C` (`c0`); if `a1` wins, `D` (`d0`). Candidate `a1`
/// can be ruled out (`weight` 0).
struct ByHand {
    a1_ruled_out: bool,
}

impl Steps for ByHand {
    type Step = char;

    fn count(&self, s: &char) -> usize {
        if matches!(s, 'a' | 'b') { 2 } else { 1 }
    }

    fn id(&self, s: &char, i: usize) -> u64 {
        u64::from(*s) * 10 + i as u64
    }

    fn step_id(&self, s: &char) -> u64 {
        u64::from(*s)
    }

    fn render(&self, s: &char, i: usize, out: &mut Vec<u8>) -> bool {
        out.extend(format!("{s}{i}").bytes());
        true
    }

    fn won(&self, s: &char, i: usize) -> Option<char> {
        match (s, i) {
            ('a', 0) => Some('c'),
            ('a', 1) => Some('d'),
            _ => None,
        }
    }

    fn failed(&self, s: &char) -> Option<char> {
        (*s == 'a').then_some('b')
    }

    fn class(&self, _: &char, _: usize) -> usize {
        Odds::SWEEP
    }

    fn weight(&self, s: &char, i: usize) -> f64 {
        if self.a1_ruled_out && *s == 'a' && i == 1 {
            0.0
        } else {
            1.0
        }
    }
}

/// The candidates the plan offers from the start of `A`, with their chances, given the verdicts
/// `known` of candidates by name.
fn offers(steps: &ByHand, known: &[(&str, bool)]) -> Vec<(String, f64)> {
    offers_then(steps, None, "", known)
}

/// [`offers`], with `after` the step after the run, and `best` the best bytes now.
fn offers_then(
    steps: &ByHand,
    after: Option<&dyn Then>,
    best: &str,
    known: &[(&str, bool)],
) -> Vec<(String, f64)> {
    let (odds, memo) = (Odds::default(), Memo::default());
    let planner = Planner {
        steps,
        current: Rc::new('a'),
        odds: &odds,
        after,
        memo: &memo,
    };
    let keys: Vec<(u128, bool)> = known
        .iter()
        .map(|&(name, v)| (crate::judge::key(name.as_bytes()), v))
        .collect();
    let known = |k: u128| keys.iter().find(|(c, _)| *c == k).map(|&(_, v)| v);
    let mut out = Vec::new();
    let best = crate::judge::key(best.as_bytes());
    planner.plan(0, best, &known, &mut |w: Wanted<'_>| {
        let mut bytes = Vec::new();
        assert!((w.render)(&mut bytes));
        assert_eq!(w.key, crate::judge::key(&bytes));
        out.push((String::from_utf8(bytes).unwrap(), w.chance));
        true
    });
    out
}

fn close(offers: &[(String, f64)], expected: &[(&str, f64)]) {
    assert_eq!(offers.len(), expected.len(), "{offers:?}");
    for ((name, p), (e, q)) in offers.iter().zip(expected) {
        assert_eq!(name, e, "{offers:?}");
        assert!((p - q).abs() < 1e-9, "{name}: {p} against {q}");
    }
}

#[test]
fn the_plan_offers_the_likeliest_candidates_first_on_both_branches() {
    // Nothing known, so every candidate wins with the prior's chance, 1/4: `a0` is needed
    // for sure; `a1` if `a0` fails (3/4); `b0` if both fail (9/16), `b1` then 27/64; `c0` if
    // `a0` wins (1/4); `d0` if `a0` fails and `a1` wins (3/16).
    let steps = ByHand {
        a1_ruled_out: false,
    };
    close(
        &offers(&steps, &[]),
        &[
            ("a0", 1.0),
            ("a1", 0.75),
            ("b0", 0.5625),
            ("b1", 0.421875),
            ("c0", 0.25),
            ("d0", 0.1875),
        ],
    );
    // `a0` failed: the branch where it wins is gone, and `a1` is sure to be needed.
    close(
        &offers(&steps, &[("a0", false)]),
        &[("a1", 1.0), ("b0", 0.75), ("b1", 0.5625), ("d0", 0.25)],
    );
    // `a0` won: only `C` is left.
    close(&offers(&steps, &[("a0", true)]), &[("c0", 1.0)]);
}

/// The step after the run, by hand: `x0 x1`; once `x0` has won, `y0`; what follows a win of
/// `x1` or of `y0` is not known.
struct AfterByHand;

impl AfterByHand {
    fn names(won: &[usize]) -> &'static [&'static str] {
        match won {
            [] => &["x0", "x1"],
            [0] => &["y0"],
            _ => &[],
        }
    }
}

impl Then for AfterByHand {
    fn count_after(&self, _: Option<&[u8]>, won: &[usize]) -> usize {
        AfterByHand::names(won).len()
    }

    fn render_after(&self, _: Option<&[u8]>, won: &[usize], i: usize, out: &mut Vec<u8>) -> bool {
        match AfterByHand::names(won).get(i) {
            Some(n) => {
                out.extend(n.bytes());
                true
            }
            None => false,
        }
    }
}

#[test]
fn a_candidate_that_renders_the_best_bytes_is_no_win() {
    // `a0` renders the best bytes themselves (an edit that changes nothing): the test pool
    // skips it, so its cached verdict (interesting, as the best bytes are) does not make the
    // run go on to `C`. As if `a0` had failed: `a1` is needed for sure, `b0` if it fails
    // (3/4), `b1` then 9/16, `d0` if it wins (1/4).
    let steps = ByHand {
        a1_ruled_out: false,
    };
    close(
        &offers_then(&steps, None, "a0", &[("a0", true)]),
        &[("a1", 1.0), ("b0", 0.75), ("b1", 0.5625), ("d0", 0.25)],
    );
    // The same past the run: with everything failed and `x0` the best bytes, `x1` is needed
    // for sure, and `y0` (after `x0` wins) not at all.
    let failed = [("a0", false), ("a1", false), ("b0", false), ("b1", false)];
    close(
        &offers_then(&steps, Some(&AfterByHand), "x0", &failed),
        &[("x1", 1.0)],
    );
}

#[test]
fn the_plan_follows_wins_into_the_step_after_the_run() {
    let steps = ByHand {
        a1_ruled_out: false,
    };
    let failed = [("a0", false), ("a1", false), ("b0", false), ("b1", false)];
    // The run ends with nothing won: `x0` is needed for sure, `x1` if it fails (3/4), `y0` if
    // it wins (1/4); nothing after `x1` wins.
    close(
        &offers_then(&steps, Some(&AfterByHand), "", &failed),
        &[("x0", 1.0), ("x1", 0.75), ("y0", 0.25)],
    );
    // `x0` won: `y0` is needed for sure.
    let mut known = failed.to_vec();
    known.push(("x0", true));
    close(
        &offers_then(&steps, Some(&AfterByHand), "", &known),
        &[("y0", 1.0)],
    );
}

#[test]
fn the_opening_offers_the_first_step_and_what_follows_its_wins() {
    // As after a run that ends with nothing won (above): `x0` for sure, `x1` if it fails, `y0`
    // if it wins.
    let odds = Odds::default();
    let opening = Opening {
        then: &AfterByHand,
        odds: &odds,
    };
    let mut out = Vec::new();
    opening.plan(0, 0, &|_| None, &mut |w: Wanted<'_>| {
        let mut bytes = Vec::new();
        assert!((w.render)(&mut bytes));
        out.push((String::from_utf8(bytes).unwrap(), w.chance));
        true
    });
    close(&out, &[("x0", 1.0), ("x1", 0.75), ("y0", 0.25)]);
}

#[test]
fn a_ruled_out_candidate_is_offered_but_its_win_is_not_planned_for() {
    let steps = ByHand { a1_ruled_out: true };
    close(
        &offers(&steps, &[]),
        &[
            ("a0", 1.0),
            ("a1", 0.75),
            ("b0", 0.75),
            ("b1", 0.5625),
            ("c0", 0.25),
        ],
    );
}

#[test]
fn a_failure_rules_out_the_candidates_that_remove_all_that_is_left_of_it() {
    // Eight items in four parts; removing the second part ({2, 3}) failed, so one of 2 and 3 is
    // needed.
    let quarters = Split::new((0..8).collect(), 4, 0);
    assert_eq!(quarters.kept(1), vec![0, 1, 4, 5, 6, 7]);
    let mut failures = Failures::default();
    failures.add(&quarters, 1);
    // Halves: removing {0, 1, 2, 3} (candidate 1 keeps the second half) fails for sure;
    // removing {4, 5, 6, 7} may not.
    let halves = Split::new((0..8).collect(), 2, 0);
    assert_eq!(halves.kept(1), vec![4, 5, 6, 7]);
    assert_eq!(failures.weight(&halves, 1), 0.0);
    assert_eq!(failures.weight(&halves, 0), 1.0);
    // Once 3 is gone (a win removed it), 2 is the needed one: removing {2} alone fails too.
    let without_3 = Split::new(vec![0, 1, 2, 4, 5, 6, 7], 7, 0);
    assert_eq!(without_3.kept(2), vec![0, 1, 4, 5, 6, 7]);
    assert_eq!(failures.weight(&without_3, 2), 0.0);
    assert_eq!(failures.weight(&without_3, 1), 1.0);
}

#[test]
fn narrowing_keeps_the_smallest_failures_left_in_the_configuration() {
    let all = Split::new((0..8).collect(), 4, 0);
    let halves = Split::new((0..8).collect(), 2, 0);
    let mut failures = Failures::default();
    // {2, 3} and {0, 1, 2, 3}: the second says nothing more than the first.
    failures.add(&all, 1);
    failures.add(&halves, 1);
    // {6, 7}, of which only 7 is left once 6 goes.
    failures.add(&all, 3);
    let config = Split::new(vec![0, 1, 2, 3, 4, 5, 7], 7, 0);
    failures.narrow(&config.bits);
    assert_eq!(failures.len(), 2);
    // {7} alone now rules out removing 7.
    assert_eq!(config.kept(6), vec![0, 1, 2, 3, 4, 5]);
    assert_eq!(failures.weight(&config, 6), 0.0);
    assert_eq!(failures.weight(&config, 5), 1.0);
}

#[test]
fn a_win_in_a_chain_of_splits_goes_on_as_ddmin_from_that_split() {
    // Eight items from two parts: the chain is the 2-split, the 4-split, the 8-split. Its
    // candidate 3 is the 4-split's candidate 1, which removes items 2 and 3; ddmin goes on
    // without them in three parts, scanning from the part after the one removed (part 1).
    let split = Split::first(8, 2);
    assert_eq!(split.chain_len(), 2 + 4 + 8);
    let next = split.chain_after_win(3).expect("in the chain");
    assert_eq!(next.config, vec![0, 1, 4, 5, 6, 7]);
    assert_eq!(next.count(), 3);
    assert_eq!(next.kept(0), vec![0, 1, 6, 7]);
    assert!(split.chain_after_win(14).is_none());
}

#[test]
fn a_ddmin_class_without_verdicts_takes_its_odds_from_the_classes_next_to_it() {
    // Four wins in four at 8 parts: a split of 9 parts, not yet tried, is given (4 + 1/4 × 4) /
    // (4 + 4) = 5/8 rather than the prior's 1/4. Splits of 12 parts (four classes away) and
    // sweeps keep the prior.
    let odds = Odds::default();
    for _ in 0..4 {
        odds.record(Odds::ddmin_class(8, 0), 1.0, true);
    }
    assert!((odds.chance(Odds::ddmin_class(9, 0), false) - 0.625).abs() < 1e-9);
    assert!((odds.chance(Odds::ddmin_class(12, 0), false) - 0.25).abs() < 1e-9);
    assert!((odds.chance(Odds::SWEEP, false) - 0.25).abs() < 1e-9);
    // The class's own verdicts weigh in after that prior: (4 × 5/8 + 0) / (4 + 4) after four
    // failures at 9 parts.
    for _ in 0..4 {
        odds.record(Odds::ddmin_class(9, 0), 1.0, false);
    }
    assert!((odds.chance(Odds::ddmin_class(9, 0), false) - 0.3125).abs() < 1e-9);
}

#[test]
fn the_second_half_of_a_split_in_two_has_odds_of_its_own() {
    // Four splits in two whose first half failed and whose second half won: the first halves are
    // given (0 + 1/4 × 4) / (4 + 4) = 1/8 (their neighbours, 1 to 4 parts, have no verdicts),
    // the second halves (4 + 1/4 × 4) / (4 + 4) = 5/8, not the 1/2 both would get as one class.
    let odds = Odds::default();
    for _ in 0..4 {
        odds.record(Odds::ddmin_class(2, 0), 1.0, false);
        odds.record(Odds::ddmin_class(2, 1), 1.0, true);
    }
    assert!((odds.chance(Odds::ddmin_class(2, 0), false) - 0.125).abs() < 1e-9);
    assert!((odds.chance(Odds::ddmin_class(2, 1), false) - 0.625).abs() < 1e-9);
    // The second candidate of a split in more parts is of its split's class.
    assert_eq!(Odds::ddmin_class(4, 1), Odds::ddmin_class(4, 0));
}

#[test]
fn a_move_learns_its_odds_after_those_of_the_whole_reduction() {
    // At 8 parts, four failures in `tree`, then four wins in `literal-chars`. In all: (4 + 1/4 ×
    // 4) / (8 + 4) = 5/12. In `literal-chars`: (4 + 5/12 × 4) / (4 + 4) = 17/24; in `tree`:
    // (0 + 5/12 × 4) / (4 + 4) = 5/24. A candidate of another move's step is given the odds in
    // all.
    let odds = Odds::default();
    let class = Odds::ddmin_class(8, 0);
    odds.set_move("tree");
    for _ in 0..4 {
        odds.record(class, 1.0, false);
    }
    odds.set_move("literal-chars");
    for _ in 0..4 {
        odds.record(class, 1.0, true);
    }
    assert!((odds.chance(class, true) - 17.0 / 24.0).abs() < 1e-9);
    assert!((odds.chance(class, false) - 5.0 / 12.0).abs() < 1e-9);
    odds.set_move("tree");
    assert!((odds.chance(class, true) - 5.0 / 24.0).abs() < 1e-9);
    // A move with no verdicts yet is given the odds in all.
    odds.set_move("rename");
    assert!((odds.chance(class, true) - 5.0 / 12.0).abs() < 1e-9);
}

#[test]
fn a_coarse_run_is_not_split_into_parts_below_its_floor() {
    // The twelve items of the test below (210 bytes). With a floor of 50 bytes: two parts (105
    // each), then four (52.5 on average); eight would hold 26.25, below the floor, so the run's
    // chain ends at four parts: 2 + 4 candidates.
    let sizes: Rc<[usize]> = [100].into_iter().chain([1; 10]).chain([100]).collect();
    let coarse = Split::by_size_down_to(sizes.clone(), 50);
    assert!(coarse.coarse());
    let four = coarse.finer().expect("four parts");
    assert_eq!(four.count(), 4);
    assert!(four.finer().is_none());
    assert_eq!(coarse.chain_len(), 6);
    // A win keeps the floor: without the first 100 bytes, three parts (a win does not refine)
    // and no finer ones (six would hold 18.3 bytes).
    let after = four.after_win(0);
    assert_eq!(after.count(), 3);
    assert!(after.finer().is_none());
    // Without a floor the chain goes down to single items: 2 + 4 + 8 + 12.
    let fine = Split::by_size_down_to(sizes, 0);
    assert!(!fine.coarse());
    assert_eq!(fine.chain_len(), 26);
}

#[test]
fn a_split_by_size_holds_about_as_many_bytes_in_each_part() {
    // Twelve items: two of 100 bytes at the ends, ten of one byte between them (210 in all).
    let sizes: Rc<[usize]> = [100].into_iter().chain([1; 10]).chain([100]).collect();
    let by_size = Split::by_size(sizes);
    // Two parts of 105 bytes: a part ends before the item that would take it further past its
    // share than it stays below it, and 105 is exactly the share.
    assert_eq!(by_size.parts, [0..6, 6..12]);
    // Four: the first item alone is past 52.5 (a part of its own); the 110 bytes left are
    // shared by three parts (36.7 each), which the small items never reach, so they stay in
    // one part until the items left are as many as the parts left. By count: three each.
    let finer = by_size.finer().expect("finer");
    assert_eq!(finer.parts, [0..1, 1..10, 10..11, 11..12]);
    assert_eq!(
        Split::new((0..12).collect(), 4, 0).parts,
        [0..3, 3..6, 6..9, 9..12]
    );
    // At one part per item every part is one item, as in ddmin (1-minimality).
    let finest = finer.finer().and_then(|s| s.finer()).expect("finest");
    assert_eq!(finest.count(), 12);
    assert!(finest.parts.iter().all(|p| p.len() == 1));
    // A win keeps the run's sizes: without the first item (at four parts, three are left) the
    // rest is split by size again: 110 bytes in shares of 36.7.
    let after = finer.after_win(0);
    assert_eq!(after.config, (1..12).collect::<Vec<_>>());
    assert_eq!(after.parts, [0..9, 9..10, 10..11]);
    // Items all of a size: the papers' parts, to the item (nine in two: four, then five).
    let even = Split::by_size([7; 9].into_iter().collect());
    assert_eq!(even.parts, Split::new((0..9).collect(), 2, 0).parts);
    assert_eq!(even.parts, [0..4, 4..9]);
}
