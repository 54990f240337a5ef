//! ddmin (Zeller and Hildebrandt; HDD paper §3.1), with the refinements of Hodován and Kiss
//! ("Practical improvements to DDMIN") documented in `docs/algorithms.md`, and what its steps tell
//! the test pool about the steps that follow them.

use crate::edit::{Edit, Edits};
use crate::engine::{ReduceError, Reducer};
use crate::lookahead::{Lazy, Successor};
use crate::plan::{Memo, Odds, Planner, Steps};
use crate::pool::Next;
use crate::tree::NodeId;
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::hash::{Hash, Hasher};
use std::ops::Range;
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

/// The edits that apply every item except those `kept` (sorted) on top of `base`.
pub(crate) fn edits_keeping(base: &Edits, items: &[(NodeId, Edit)], kept: &[usize]) -> Edits {
    let mut e = base.clone();
    let mut k = kept.iter().peekable();
    for (i, &(node, edit)) in items.iter().enumerate() {
        if k.peek() == Some(&&i) {
            k.next();
        } else {
            e.set(node, edit);
        }
    }
    e
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
/// Each step tells the test pool its successors: the split into `2n` if it fails (and the splits
/// after it, should they fail too: a split whose candidates the gate rejects costs no test), the
/// split of what a candidate keeps if that candidate wins, and, for a step at the finest split
/// (the last one if it fails), `after` (the first step of what the algorithm does next, over the
/// tree the best bytes will have once committed).
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
        let (after_count, after_render) = (
            || after.count(),
            |i: usize, out: &mut Vec<u8>| after.render(i, out),
        );
        let plan = Planner {
            steps: &steps,
            current: step.clone(),
            odds: reducer.odds(),
            after: Some((&after_count, &after_render)),
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
        let weights: f64 = (0..tried).map(|i| failures.weight(&step, i)).sum();
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

/// What the failed candidates of a run say about those to come. A failed candidate removed a
/// set of items that holds one the test needs (if the test is monotone: the papers' assumption),
/// and a needed item is in every configuration after it. So a candidate that removes every item
/// of such a set still in its configuration fails too, and one that removes some of them fails
/// with the share it removes (the needed item taken as any of them alike). Such candidates are
/// still tested (the reduction does not assume the test monotone), but the plan weighs their
/// wins by it: ddmin's run through a granularity then branches on few candidates, and idle
/// workers can start its steps several wins ahead.
#[derive(Default)]
struct Failures {
    /// The items each failed candidate removed, as bit sets.
    removed: Vec<Vec<u64>>,
}

/// At most this many failures are kept (the oldest go first).
const FAILURES_CAP: usize = 1024;

impl Failures {
    /// 0 if a failure says candidate `i` of `s` fails (it removes every item of a failure left
    /// in its configuration), 1 if not.
    fn weight(&self, s: &Split, i: usize) -> f64 {
        let removed = s.removed(i);
        let rules_out = |f: &Vec<u64>| {
            let mut needed = false;
            for ((f, c), r) in f.iter().zip(&s.bits).zip(&removed) {
                let left = f & c;
                if left & !r != 0 {
                    return false;
                }
                needed |= left != 0;
            }
            needed
        };
        if self.removed.iter().any(rules_out) {
            0.0
        } else {
            1.0
        }
    }

    /// Keeps, of each failure, what is left of it in `config` (the configuration of the run's
    /// next step: every later one is inside it), and of those only the smallest: a failure
    /// whose items left hold all of another's says nothing more than that one.
    fn narrow(&mut self, config: &[u64]) {
        for f in &mut self.removed {
            f.truncate(config.len());
            for (f, c) in f.iter_mut().zip(config) {
                *f &= c;
            }
        }
        // Smallest first, so each is checked against those it could hold.
        self.removed.retain(|f| f.iter().any(|&w| w != 0));
        self.removed
            .sort_by_key(|f| f.iter().map(|w| w.count_ones()).sum::<u32>());
        self.removed.dedup();
        let mut kept: Vec<Vec<u64>> = Vec::with_capacity(self.removed.len());
        for f in self.removed.drain(..) {
            let holds = |g: &Vec<u64>| g.iter().zip(&f).all(|(g, f)| g & !f == 0);
            if !kept.iter().any(holds) {
                kept.push(f);
            }
        }
        self.removed = kept;
    }

    fn add(&mut self, s: &Split, i: usize) {
        if self.removed.len() >= FAILURES_CAP {
            self.removed.remove(0);
        }
        self.removed.push(s.removed(i));
    }
}

/// `items` (each below `len`) as a bit set.
fn bit_set(len: usize, items: &[usize]) -> Vec<u64> {
    let mut bits = vec![0; len.div_ceil(64)];
    for &i in items {
        bits[i / 64] |= 1 << (i % 64);
    }
    bits
}

/// One step of ddmin: the configuration split into `n` parts, and its candidates, each the
/// configuration without one part (its complement), in the order the scan tries them: from part
/// `from` on, round to the part before it.
pub(crate) struct Split {
    config: Vec<usize>,
    parts: Vec<Range<usize>>,
    from: usize,
    /// A hash of `config`, `n` and `from`, which tells the run's steps apart.
    id: u64,
    /// `config` as a bit set over the run's items.
    bits: Vec<u64>,
}

impl Split {
    /// The step over `config` at granularity `n` (at most one part per item), starting at `from`.
    pub(crate) fn new(config: Vec<usize>, n: usize, from: usize) -> Split {
        let n = n.min(config.len());
        let parts = (0..n)
            .map(|i| (i * config.len() / n)..((i + 1) * config.len() / n))
            .collect();
        // At n = 2 the complements are ddmin's two subsets, tried in the textbook's order: keep
        // the first half (remove part 1), then keep the second.
        let from = if n == 2 { 1 } else { from % n.max(1) };
        let mut h = rustc_hash::FxHasher::default();
        (&config, n, from).hash(&mut h);
        let bits = bit_set(config.last().map_or(0, |&l| l + 1), &config);
        Split {
            id: h.finish(),
            bits,
            config,
            parts,
            from,
        }
    }

    /// The first step of a run over `len` items that starts at granularity `start` (at least 2,
    /// whatever an earlier run ended at).
    pub(crate) fn first(len: usize, start: usize) -> Split {
        Split::new((0..len).collect(), start.max(2), 0)
    }

    pub(crate) fn count(&self) -> usize {
        self.parts.len()
    }

    /// The part candidate `i` removes.
    fn part(&self, i: usize) -> usize {
        (self.from + i) % self.parts.len()
    }

    /// How many candidates this step and the finer ones after it have, down to the finest split:
    /// the steps ddmin takes while every candidate fails.
    pub(crate) fn chain_len(&self) -> usize {
        let len = self.config.len();
        let mut n = self.parts.len();
        let mut total = n;
        while n < len {
            n = (n * 2).min(len);
            total += n;
        }
        total
    }

    /// The items candidate `i` of [`Split::chain_len`]'s candidates keeps.
    pub(crate) fn chain_kept(&self, mut i: usize) -> Option<Vec<usize>> {
        if i < self.count() {
            return Some(self.kept(i));
        }
        i -= self.count();
        let mut step = self.finer()?;
        while i >= step.count() {
            i -= step.count();
            step = step.finer()?;
        }
        Some(step.kept(i))
    }

    /// The step after this one if it fails: twice as many parts; `None` at the finest split.
    fn finer(&self) -> Option<Split> {
        let n = self.parts.len();
        (n < self.config.len()).then(|| Split::new(self.config.clone(), n * 2, 0))
    }

    /// The step after candidate `i` wins: at `n = 2` ddmin's reduce-to-subset (the half it
    /// kept, split in two); above, the configuration without the part, in `n - 1` parts, the
    /// scan resuming at the same part.
    fn after_win(&self, i: usize) -> Split {
        let n = self.parts.len();
        if n == 2 {
            Split::new(self.kept(i), 2, 0)
        } else {
            // n = 1 (one item left, and removing it won) leaves nothing: the run ends.
            let m = (n - 1).max(2);
            Split::new(self.kept(i), m, self.part(i) % m)
        }
    }

    /// The items candidate `i` removes, as a bit set as long as [`Split::bits`].
    fn removed(&self, i: usize) -> Vec<u64> {
        let p = &self.parts[self.part(i)];
        let len = self.config.last().map_or(0, |&l| l + 1);
        bit_set(len, &self.config[p.clone()])
    }

    /// The items candidate `i` keeps.
    pub(crate) fn kept(&self, i: usize) -> Vec<usize> {
        let p = &self.parts[self.part(i)];
        let c = &self.config;
        c[..p.start].iter().chain(&c[p.end..]).copied().collect()
    }
}
