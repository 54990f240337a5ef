//! ddmin (Zeller and Hildebrandt; HDD paper §3.1), with the refinements of Hodován and Kiss
//! ("Practical improvements to DDMIN") documented in `docs/algorithms.md`, and what its steps tell
//! the test pool about the steps that follow them.

use crate::edit::{Edit, Edits};
use crate::engine::Reducer;
use crate::error::ReduceError;
use crate::lookahead::{Lazy, Successor};
use crate::plan::{Memo, Odds, Planner, Steps};
use crate::pool::Next;
use crate::split::{Failures, Split, edits_keeping};
use crate::tree::NodeId;
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

/// ddmin over `items`, where removing item `i` means applying `removal[i]` on top of `base`.
/// Returns the kept items; each accepted configuration has already been given to
/// [`Reducer::accept`]. The result is 1-minimal: removing any single kept item (the last one
/// included) is not interesting.
pub fn ddmin(
    r: &mut Reducer<'_>,
    base: &Edits,
    items: &[(NodeId, Edit)],
) -> Result<Vec<usize>, ReduceError> {
    ddmin_from(r, base, items, 2, &mut Successor::none()).map(|(kept, _)| kept)
}

/// [`ddmin`] that starts at granularity `start`; returns the granularity it ended at too. `after`
/// is what the algorithm does next (see [`ddmin_by`]).
pub(crate) fn ddmin_from(
    r: &mut Reducer<'_>,
    base: &Edits,
    items: &[(NodeId, Edit)],
    start: usize,
    after: &mut Successor<'_>,
) -> Result<(Vec<usize>, usize), ReduceError> {
    ddmin_by(
        r,
        items.len(),
        start,
        |kept| edits_keeping(base, items, kept),
        |r, edits, out| r.format().render(r.doc(), edits, out),
        after,
    )
}

/// ddmin over `len` items of any kind: `candidate(kept)` is the candidate that keeps the items
/// `kept` (sorted) and removes (or applies) all others, rendered by `render`.
///
/// Subsets are tried only at `n = 2` (where they are the complements); after a complement is
/// removed, the scan goes on from the same part instead of the first; and the first split is into
/// `start` parts (the granularity where an earlier run over the same items ended), not 2. Returns
/// the kept items and the granularity the run ended at. The result is 1-minimal as with the
/// textbook algorithm: the run ends only when no single item can go.
///
/// Each step gives the test pool a plan of the run (`plan.rs`): the splits that follow a failure
/// (`2n` parts) and a win (what the winner keeps), several steps deep, weighed by the odds the
/// run has learned and by what its failed candidates rule out ([`Failures`]), and past the run's
/// end `after` (the first step of what the algorithm does next, over the tree the run's best
/// bytes will have once committed).
pub(crate) fn ddmin_by<C: Send>(
    r: &mut Reducer<'_>,
    len: usize,
    start: usize,
    candidate: impl Fn(&[usize]) -> C + Sync,
    render: impl Fn(&Reducer<'_>, &C, &mut Vec<u8>) + Sync,
    after: &mut Successor<'_>,
) -> Result<(Vec<usize>, usize), ReduceError> {
    let mut step = Rc::new(Split::first(len, start));
    let memo = Memo::default();
    let mut failures = Failures::default();
    while !step.config.is_empty() {
        let reducer = &*r;
        let after = Lazy::new(&mut *after, reducer);
        let render_c = |c: &C, out: &mut Vec<u8>| render(reducer, c, out);
        let steps = DdminSteps {
            candidate: &candidate,
            render: &render_c,
            failures: &failures,
            weights: RefCell::default(),
        };
        let plan = Planner {
            steps: &steps,
            current: step.clone(),
            odds: reducer.odds(),
            after: Some(&after),
            memo: &memo,
        };
        let found = reducer.first_interesting_then(
            step.count(),
            &|i| Some(candidate(&step.kept(i))),
            &render_c,
            Next {
                plan: Some(&plan),
                ..Next::default()
            },
        )?;
        // The odds are learned from the candidates as the failures so far weighed them; the
        // failed ones then weigh the candidates to come.
        let tried = found.as_ref().map_or(step.count(), |f| f.index + 1);
        let weights: f64 = (0..tried).map(|i| steps.weight(&step, i)).sum();
        let class = Odds::ddmin_class(step.count());
        r.odds().record(class, weights.max(0.1), found.is_some());
        for i in 0..tried - usize::from(found.is_some()) {
            failures.add(&step, i);
        }
        step = match found {
            Some(f) => {
                r.accept(&f);
                Rc::new(step.after_win(f.index))
            }
            None => match step.finer() {
                Some(finer) => Rc::new(finer),
                None => break,
            },
        };
        failures.narrow(&step.bits);
    }
    let n = step.parts.len();
    let config = Rc::try_unwrap(step).map_or_else(|s| s.config.clone(), |s| s.config);
    Ok((config, n))
}

/// ddmin's steps for a [`Planner`]: a step is a [`Split`], its candidates are rendered by
/// `render` from the candidate `candidate` makes of the items they keep.
struct DdminSteps<'a, C> {
    candidate: &'a (dyn Fn(&[usize]) -> C + Sync),
    render: &'a dyn Fn(&C, &mut Vec<u8>),
    failures: &'a Failures,
    /// [`Failures::weight`] of the candidates looked at, by [`Steps::id`].
    weights: RefCell<FxHashMap<u64, f64>>,
}

impl<C> Steps for DdminSteps<'_, C> {
    type Step = Split;

    fn count(&self, s: &Split) -> usize {
        s.count()
    }

    fn id(&self, s: &Split, i: usize) -> u64 {
        let p = &s.parts[s.part(i)];
        let mut h = rustc_hash::FxHasher::default();
        (s.id, p.start, p.end).hash(&mut h);
        h.finish()
    }

    fn step_id(&self, s: &Split) -> u64 {
        s.id
    }

    fn render(&self, s: &Split, i: usize, out: &mut Vec<u8>) -> bool {
        (self.render)(&(self.candidate)(&s.kept(i)), out);
        true
    }

    fn won(&self, s: &Split, i: usize) -> Option<Split> {
        let w = s.after_win(i);
        (!w.config.is_empty()).then_some(w)
    }

    fn failed(&self, s: &Split) -> Option<Split> {
        s.finer()
    }

    fn class(&self, s: &Split) -> usize {
        Odds::ddmin_class(s.count())
    }

    fn weight(&self, s: &Split, i: usize) -> f64 {
        let id = self.id(s, i);
        if let Some(&w) = self.weights.borrow().get(&id) {
            return w;
        }
        let w = self.failures.weight(s, i);
        self.weights.borrow_mut().insert(id, w);
        w
    }
}
