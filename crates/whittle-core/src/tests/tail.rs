//! What the plan sees past a win in a run of GTR's that comes after the current one: the rest
//! of that run, then what GTR does once the run has ended, over a parse of its best bytes.

use super::toy::Toy;
use crate::engine::View;
use crate::lookahead::{Lookahead, Order, Origin, Tails};
use crate::{Format, Options, Reducer};
use std::sync::atomic::AtomicBool;

/// Every candidate of what follows the wins `won` (by index), rendered (`-` for one that is
/// skipped: a sweep's replacement that is no smaller than the node's current one).
fn rendered(
    r: &Reducer<'_>,
    l: &Lookahead,
    tails: Option<&Tails<'_>>,
    won: &[usize],
) -> Vec<String> {
    let n = l.count_after_wins(r, tails, won, 1.0);
    (0..n)
        .map(|i| {
            let mut out = Vec::new();
            if l.render_after_wins(r, tails, won, i, &mut out) {
                String::from_utf8(out).unwrap()
            } else {
                "-".to_string()
            }
        })
        .collect()
}

#[test]
fn past_a_win_in_a_later_run_the_plan_sees_what_gtr_does_over_the_winner() {
    let stop = AtomicBool::new(false);
    let oracle = |_: &[u8]| true;
    let options = Options {
        jobs: 1,
        ..Options::default()
    };
    let input = b"f(a b) g(c d)";
    let r = Reducer::new(&Toy, &oracle, input, options, &stop).expect("parses");
    let templates = Toy.templates();
    // GTR's runs after the last template on the root's level (the paper's order, one round):
    // ddmin over `f g` (deletions on level 1), substitutions there, then the same on level 2.
    let order = Order {
        deletions_first: false,
        tried: None,
        skips_refused: false,
    };
    let after = |r: &Reducer<'_>, v: View<'_>, origin: Origin| {
        Lookahead::after_template(r, v, &templates, origin, (false, false), order).0
    };
    let last_on_root = (0, templates.len() - 1);
    let chain = after(&r, r.view(), last_on_root).expect("runs follow");
    let first = rendered(&r, &chain, None, &[]);
    // ddmin over `f g` from two parts (keeping `f`, keeping `g`); then the substitutions of
    // `f` and `g` by their children; then ddmin over `a b c d`, and so on.
    assert_eq!(first[..4], ["f(a b) ", " g(c d)", "a g(c d)", "b g(c d)"]);
    // Candidate 0 (`g` removed) wins: without tails, only the rest of its run is known (ddmin
    // over the `f` it kept: removing it), and nothing past the run's end.
    assert_eq!(rendered(&r, &chain, None, &[0]), [" "]);
    // With tails, what GTR does once that run has ended comes next, over the parse of
    // `f(a b) `: the substitutions of `f` on level 1 (by `a`, by `b`), then ddmin over `a b`
    // (keeping `a`, keeping `b`).
    // (A lookahead makes what follows a win once: a fresh one, as each successor has its own.)
    let chain = after(&r, r.view(), last_on_root).expect("runs follow");
    let tails = Tails::new(&after);
    assert_eq!(
        rendered(&r, &chain, Some(&tails), &[0]),
        [" ", "a ", "b ", "f(a ) ", "f( b) "]
    );
    // A win there goes on over that tree. Once `f` is replaced by `a`: the rest of the sweep
    // (`b` is no smaller than `a`) and Alg. 5's next sweep (neither is), then past that run,
    // over the parse of `a `, nothing: no template after it on level 1, no level 2.
    assert_eq!(rendered(&r, &chain, Some(&tails), &[0, 1]), ["-", "-", "-"]);
    // Once removing `b` wins: the rest of that ddmin run (removing `a` too), then nothing
    // (the leaf `a` has no substitutions, and there is no level 3).
    assert_eq!(rendered(&r, &chain, Some(&tails), &[0, 3]), ["f( ) "]);
}
