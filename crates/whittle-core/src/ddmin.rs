//! ddmin (Zeller and Hildebrandt; HDD paper §3.1), with the refinements of Hodován and Kiss
//! ("Practical improvements to DDMIN") documented in `docs/algorithms.md`, and what its steps tell
//! the test pool about the steps that follow them.

use crate::edit::{Edit, Edits};
use crate::engine::{ReduceError, Reducer};
use crate::lookahead::{Lazy, Successor};
use crate::pool::Next;
use crate::tree::NodeId;
use std::ops::Range;

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
    let mut step = Split::first(len, start);
    while !step.config.is_empty() {
        let finer = step.finer();
        let reducer = &*r;
        let after = Lazy::new(&mut *after, reducer);
        let render_kept = |kept: &[usize], out: &mut Vec<u8>| {
            render(reducer, &candidate(kept), out);
            true
        };
        let failed = |i: usize, out: &mut Vec<u8>| match &finer {
            Some(s) => s.chain_kept(i).is_some_and(|kept| render_kept(&kept, out)),
            None => after.render(i, out),
        };
        let failed_count = || {
            finer
                .as_ref()
                .map_or_else(|| after.count(), Split::chain_len)
        };
        let won_count = |w: usize| step.after_win(w).count();
        let won =
            |w: usize, i: usize, out: &mut Vec<u8>| render_kept(&step.after_win(w).kept(i), out);
        let found = reducer.first_interesting_then(
            step.count(),
            &|i| Some(candidate(&step.kept(i))),
            &|c: &C, out: &mut Vec<u8>| render(reducer, c, out),
            Next {
                failed: Some((&failed_count, &failed)),
                won: Some((&won_count, &won)),
            },
        )?;
        step = match (found, finer) {
            (Some(f), _) => {
                r.accept(&f);
                step.after_win(f.index)
            }
            (None, Some(finer)) => finer,
            (None, None) => break,
        };
    }
    let n = step.parts.len();
    Ok((step.config, n))
}

/// One step of ddmin: the configuration split into `n` parts, and its candidates, each the
/// configuration without one part (its complement), in the order the scan tries them: from part
/// `from` on, round to the part before it.
pub(crate) struct Split {
    config: Vec<usize>,
    parts: Vec<Range<usize>>,
    from: usize,
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
        Split {
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

    /// The items candidate `i` keeps.
    pub(crate) fn kept(&self, i: usize) -> Vec<usize> {
        let p = &self.parts[self.part(i)];
        let c = &self.config;
        c[..p.start].iter().chain(&c[p.end..]).copied().collect()
    }
}
