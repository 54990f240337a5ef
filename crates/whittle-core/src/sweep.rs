//! The greedy sweep: single edits tried in order, each on top of those kept so far. It is the
//! shape of HDD+'s second phase, of GTR's backtracking search (Alg. 5) and of the sweep over
//! what the rules forbid, and its steps are a state machine the plan can look ahead in
//! ([`SweepSteps`]).

use crate::edit::{Edit, Edits};
use crate::engine::Reducer;
use crate::error::ReduceError;
use crate::lookahead::{Lazy, Successor};
use crate::plan::{Memo, Odds, Planner, Steps};
use crate::pool::Next;
use crate::tree::NodeId;
use std::hash::{BuildHasher, Hash};
use std::rc::Rc;

/// A greedy sweep over single edits, in order, each tried on top of those kept so far (as HDD+
/// sweeps deletions); an edit of a node inside a subtree the sweep already changed (or of that
/// node itself) is skipped. While its last step is tested, idle workers start what comes after
/// it (`after`). Returns whether it kept any; the kept ones are committed.
pub(crate) fn sweep_then(
    r: &mut Reducer<'_>,
    items: &[(NodeId, Edit)],
    mut after: Successor<'_>,
) -> Result<bool, ReduceError> {
    let mut state = Edits::new();
    let accepted = greedy_scan(
        r,
        items,
        &mut state,
        false,
        &mut after,
        |r, state: &Edits, (n, e)| {
            let tree = r.tree();
            let gone =
                std::iter::successors(Some(n), |&m| tree.parent(m)).any(|m| state.get(m).is_some());
            (!gone).then(|| state.with(n, e))
        },
        render_edits,
        None,
    )?;
    r.commit_parsed(after.into_parsed(r.best()))?;
    Ok(accepted)
}

/// Tries `items` in order, each as a change to the accepted `state`; an interesting one becomes
/// the new state and the scan goes on after it. This is the shape of HDD+'s sweep and of GTR's
/// backtracking search, and it is parallelized speculatively without changing the result. With
/// `again` (the caller sweeps once more, from the first item, after a sweep that accepted
/// something), idle workers start on that next sweep while this one ends; otherwise on `after`
/// (what the algorithm does next, over the tree the best bytes will have once committed). After
/// a win they start the rest of the sweep on top of the winner.
///
/// With `failed`, the indices of the items that were tried and failed are pushed onto it.
#[allow(
    clippy::too_many_arguments,
    reason = "the sweep's items, state, closures and outputs: a struct would only rename them"
)]
pub(crate) fn greedy_scan<T: Copy + Sync, S: Clone + Hash>(
    r: &mut Reducer<'_>,
    items: &[T],
    state: &mut S,
    again: bool,
    after: &mut Successor<'_>,
    make: impl Fn(&Reducer<'_>, &S, T) -> Option<S> + Sync,
    render: impl Fn(&Reducer<'_>, &S, &mut Vec<u8>) + Sync,
    mut failed: Option<&mut Vec<usize>>,
) -> Result<bool, ReduceError> {
    let mut start = 0;
    let mut accepted = false;
    let memo = Memo::default();
    while start < items.len() {
        let reducer = &*r;
        let after = Lazy::new(&mut *after, reducer);
        let current = &*state;
        let rest = &items[start..];
        let render = |s: &S, out: &mut Vec<u8>| render(reducer, s, out);
        let steps = SweepSteps {
            items,
            again,
            make: &|state: &S, t: T| make(reducer, state, t),
            render: &render,
        };
        let plan = Planner {
            steps: &steps,
            current: Rc::new(Sweep::new(current.clone(), start, accepted)),
            odds: reducer.odds(),
            after: Some(&after),
            memo: &memo,
        };
        let found = reducer.first_interesting_then(
            rest.len(),
            &|i| make(reducer, current, rest[i]),
            &render,
            Next {
                plan: Some(&plan),
                ..Next::default()
            },
        )?;
        let tried = found.as_ref().map_or(rest.len(), |f| f.index + 1);
        if let Some(failed) = failed.as_deref_mut() {
            let lost = tried - usize::from(found.is_some());
            let was_tested = |&i: &usize| make(reducer, current, rest[i]).is_some();
            failed.extend((0..lost).filter(was_tested).map(|i| start + i));
        }
        r.odds().record(Odds::SWEEP, tried as f64, found.is_some());
        let Some(f) = found else { break };
        r.accept(&f);
        start += f.index + 1;
        *state = f.edits;
        accepted = true;
    }
    Ok(accepted)
}

/// Renders tree edits on the current document.
pub(crate) fn render_edits(r: &Reducer<'_>, edits: &Edits, out: &mut Vec<u8>) {
    r.format().render(r.doc(), edits, out);
}

/// Where a greedy sweep stands: the edits (or text splices) it kept, the item it goes on from,
/// and whether it kept any.
struct Sweep<S> {
    state: S,
    start: usize,
    accepted: bool,
    /// A hash of `state`.
    id: u64,
}

impl<S: Hash> Sweep<S> {
    fn new(state: S, start: usize, accepted: bool) -> Sweep<S> {
        let id = rustc_hash::FxBuildHasher.hash_one(&state);
        Sweep {
            state,
            start,
            accepted,
            id,
        }
    }
}

/// A greedy sweep's steps for a [`Planner`]: after a win, the rest of the sweep on top of the
/// winner; after the sweep, with `again`, a new one if it kept anything.
struct SweepSteps<'a, T, S> {
    items: &'a [T],
    again: bool,
    make: &'a dyn Fn(&S, T) -> Option<S>,
    render: &'a dyn Fn(&S, &mut Vec<u8>),
}

impl<T: Copy, S: Clone + Hash> Steps for SweepSteps<'_, T, S> {
    type Step = Sweep<S>;

    fn count(&self, s: &Sweep<S>) -> usize {
        self.items.len() - s.start
    }

    fn id(&self, s: &Sweep<S>, i: usize) -> u64 {
        rustc_hash::FxBuildHasher.hash_one((s.id, s.start + i))
    }

    fn step_id(&self, s: &Sweep<S>) -> u64 {
        rustc_hash::FxBuildHasher.hash_one((s.id, s.start, s.accepted))
    }

    fn render(&self, s: &Sweep<S>, i: usize, out: &mut Vec<u8>) -> bool {
        (self.make)(&s.state, self.items[s.start + i]).is_some_and(|e| {
            (self.render)(&e, out);
            true
        })
    }

    fn won(&self, s: &Sweep<S>, i: usize) -> Option<Sweep<S>> {
        let state = (self.make)(&s.state, self.items[s.start + i])?;
        Some(Sweep::new(state, s.start + i + 1, true))
    }

    fn failed(&self, s: &Sweep<S>) -> Option<Sweep<S>> {
        (s.accepted && self.again).then(|| Sweep::new(s.state.clone(), 0, false))
    }

    fn class(&self, _: &Sweep<S>, _: usize) -> usize {
        Odds::SWEEP
    }
}
