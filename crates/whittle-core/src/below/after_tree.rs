//! What the default pipeline tests after GTR's runs while every candidate fails, for the plan:
//! the sweep over what the rules forbid, the tidy rendering, the hoisting sweep and the first
//! round of the moves below the tree (`algo::run_auto`'s order). Here rather than in `algo`,
//! because the moves below the tree reach into it too (after a move that changed something,
//! the tree moves' round and what follows it: [`super::after_move`]).

use crate::engine::{Reducer, View};
use crate::lookahead::{Lookahead, forbidden_items};
use crate::template::Template;

/// GTR's `runs` (and whether they reach its end), then, if they do: with rules, the sweep over
/// what they forbid, and the tidy rendering (when no list move comes first), and in `auto` what
/// follows it.
pub(crate) fn then_the_end(
    r: &Reducer<'_>,
    v: View<'_>,
    templates: &[Box<dyn Template>],
    (runs, complete): (Option<Lookahead>, bool),
    auto: bool,
) -> Option<Lookahead> {
    let end = complete.then(|| {
        let forbidden = (v.rules.is_some())
            .then(|| Lookahead::scan(forbidden_items(v, templates), false))
            .flatten();
        [forbidden, tidy_next(r, v, auto)]
    });
    Lookahead::chain(std::iter::once(runs).chain(end.into_iter().flatten()))
}

/// The tidy rendering, when it comes right after the tree moves (no list move comes first), and
/// in `auto` what follows it should it fail ([`after_tidy`]).
pub(crate) fn tidy_next(r: &Reducer<'_>, v: View<'_>, auto: bool) -> Option<Lookahead> {
    if !r.format().list_moves().is_empty() {
        return None;
    }
    let then = auto.then(|| after_tidy(r, v)).flatten();
    Lookahead::chain([Lookahead::tidy(r, v), then])
}

/// What `auto` tests after the tidy rendering of the tree in `v`, while every candidate fails:
/// the hoisting sweep's candidates one at a time, then the first round of the moves below the
/// tree (`below::first_round`).
pub(crate) fn after_tidy(r: &Reducer<'_>, v: View<'_>) -> Option<Lookahead> {
    let hoistings = Lookahead::scan(crate::hoist::hoistings(&v.doc.tree), false);
    Lookahead::chain([hoistings, super::first_round(r, v)])
}
