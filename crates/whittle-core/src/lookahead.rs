//! What an algorithm does after a run over a level (a ddmin, or Alg. 5's sweeps): the first step
//! of the next template on the level, or of the next level; after a move below the tree, the
//! first candidate of the next move. Idle workers of the test pool start that step's candidates
//! while the last step of the run ends.
//!
//! While the run has changed nothing, the next step is over the same tree. Once it has changed
//! something, the algorithm commits (re-parses the best bytes) before it goes on, so the next
//! step is over the tree of the best bytes: [`Successor`] parses them ahead of the commit (a
//! speculative commit), builds the step on that tree, and hands the parse to the commit. Either
//! way the candidates' bytes are those the algorithm will render, so their verdicts (or the tests
//! still running) answer the next step.

use crate::edit::{Edit, Edits};
use crate::engine::{Parsed, Reducer, View};
use crate::lexicon::Splices;
use crate::plan::Odds;
use crate::split::{Split, edits_keeping};
use crate::template::Template;
use crate::tree::{NodeId, Tree};
use crate::tried::Tried;
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::rc::Rc;

mod items;
mod successor;
mod tail;
pub(crate) use items::{forbidden_items, smaller_replacement, template_items, wide};
pub(crate) use successor::{Lazy, Successor};
use tail::Tail;
pub(crate) use tail::{Continue, Tails};

/// The first step of ddmin or of Alg. 5 over a level of a tree; after a template, the first
/// steps of the runs that follow it while every candidate fails, in order (GTR's later templates
/// and levels on the same tree: see [`Lookahead::after_template`]).
pub(crate) struct Lookahead {
    steps: Vec<Step>,
    /// The tree the steps are over when it is not the current one.
    parsed: Option<Rc<Parsed>>,
    /// What follows over another tree should every candidate of the steps fail: after a win
    /// in a run of GTR's templates, the algorithm's continuation once that run has ended (see
    /// [`Tail`]).
    tail: Option<Tail>,
    /// What follows once candidate `i` of these wins, by `i` (`None`: not known), made once
    /// each (see [`Lookahead::child`]).
    children: RefCell<FxHashMap<usize, Option<Rc<Lookahead>>>>,
}

/// Where a run of GTR's templates comes from: its level and its template's index. What the
/// algorithm does once the run has changed the tree follows from it ([`Continue`]).
pub(crate) type Origin = (usize, usize);

/// At most this many runs' first steps are chained after a template, with at most about this
/// many candidates in all (more than the plan looks at: building them walks the tree's levels).
const CHAINED_RUNS: usize = 32;
const CHAINED_CANDIDATES: usize = 1024;

/// How `auto` orders GTR, beyond the paper: with `deletions_first`, a wide level's
/// substitutions wait for the deletions of the level below (see `algo::gtr_round`); `tried`:
/// what the passes over the current level have tried, which its next pass skips (`tried.rs`);
/// `skips_refused`: whether the runs skip what failed alone in earlier rounds (`auto`'s rounds
/// do, but for the one that ends the pipeline: `algo::confirming_round`).
#[derive(Clone, Copy)]
pub(crate) struct Order<'a> {
    pub(crate) deletions_first: bool,
    pub(crate) tried: Option<&'a Tried>,
    pub(crate) skips_refused: bool,
}

/// What the passes before a run tried of its items: none of them (another level, or the next
/// round), some (the current level's), or all (a template the current pass runs before the
/// level's next pass).
#[derive(Clone, Copy)]
enum Seen {
    None,
    Some,
    All,
}

enum Step {
    /// ddmin over the items (HDD's deletions, an at-most-one template), from its first split on
    /// through the finer ones, should they fail ([`Split::chain_len`]).
    Ddmin {
        items: Rc<[(NodeId, Edit)]>,
        split: Split,
        origin: Option<Origin>,
    },
    /// A sweep of Alg. 5 (or of HDD+) over the items from `from` on, each on top of `base` (what
    /// the sweeps kept so far). With `again` (Alg. 5), a sweep that kept something is followed
    /// by another over the same tree.
    Scan {
        items: Rc<[(NodeId, Edit)]>,
        base: Edits,
        from: usize,
        again: bool,
        origin: Option<Origin>,
    },
    /// One rewrite of the text (the first candidate of a move below the tree).
    Splices(Splices),
    /// One rewrite of the whole text: the format's tidy rendering of the tree, tried once the
    /// algorithm has ended, or `auto`'s blank move before its tree moves; with what follows
    /// once it wins, where that is known ([`Lookahead::rewrite_then`]).
    Tidy(Vec<u8>, Option<OnWin>),
}

/// What follows a rewrite that wins, built over the parse of its bytes.
pub(crate) type OnWin = fn(&Reducer<'_>, View<'_>) -> Option<Lookahead>;

impl Lookahead {
    /// The first step of HDD's ddmin over `level` (none for an empty level).
    pub(crate) fn hdd_level(r: &Reducer<'_>, v: View<'_>, level: usize) -> Option<Lookahead> {
        let items: Vec<_> = (v.doc.tree.level(level).into_iter())
            .map(|n| (n, Edit::Delete))
            .collect();
        let split = Split::first(items.len(), r.granularity((level, 0)));
        Lookahead::ddmin(items, split, None)
    }

    /// The first sweep of single deletions in breadth-first order (HDD+'s second phase).
    pub(crate) fn bfs_deletions(v: View<'_>) -> Option<Lookahead> {
        let items: Vec<_> = (v.doc.tree.bfs().into_iter())
            .map(|n| (n, Edit::Delete))
            .collect();
        Lookahead::scan(items, false)
    }

    /// What GTR (Alg. 4) does after template `index` on `level` if the tree is then `v`, while
    /// every candidate fails: the first steps of the templates after it on this level; the
    /// level's next pass if a template of this pass changed it (`again`); the templates of the
    /// levels below; and past the last level, when another round follows (`round_again`, GTR*),
    /// those of the next round from the top (at most [`CHAINED_RUNS`] runs, and about
    /// [`CHAINED_CANDIDATES`] candidates). Templates and levels
    /// without candidates cost no test, so they are skipped. While the candidates fail the tree
    /// stays as it is, so these are the candidates the algorithm renders next, in its order: the
    /// plan walks on through them (a run that ends its level's pass, or the last round, that
    /// tests what follows in a few rounds of tests rather than one run per round). Also whether
    /// the chain reaches the algorithm's end. `order`: the paper's, or `auto`'s (see
    /// [`Order`]).
    pub(crate) fn after_template(
        r: &Reducer<'_>,
        v: View<'_>,
        templates: &[Box<dyn Template>],
        (level, index): (usize, usize),
        (again, round_again): (bool, bool),
        order: Order<'_>,
    ) -> (Option<Lookahead>, bool) {
        let from = (level, index + 1);
        Lookahead::templates_from(r, v, templates, from, (again, round_again), order)
    }

    /// A round of GTR from its first template on the top level, while every candidate fails
    /// (see [`Lookahead::after_template`]).
    pub(crate) fn round(
        r: &Reducer<'_>,
        v: View<'_>,
        templates: &[Box<dyn Template>],
        deletions_first: bool,
    ) -> (Option<Lookahead>, bool) {
        let order = Order {
            deletions_first,
            tried: None,
            skips_refused: deletions_first,
        };
        Lookahead::round_in(r, v, templates, order)
    }

    /// The round of `auto`'s GTR that ends the pipeline (`algo::confirming_round`): it forgets
    /// what failed alone before it, so it skips none of it.
    pub(crate) fn confirming_round(
        r: &Reducer<'_>,
        v: View<'_>,
        templates: &[Box<dyn Template>],
    ) -> (Option<Lookahead>, bool) {
        let order = Order {
            deletions_first: true,
            tried: None,
            skips_refused: false,
        };
        Lookahead::round_in(r, v, templates, order)
    }

    /// A round of GTR in `order` from its first template on the top level.
    fn round_in(
        r: &Reducer<'_>,
        v: View<'_>,
        templates: &[Box<dyn Template>],
        order: Order<'_>,
    ) -> (Option<Lookahead>, bool) {
        Lookahead::templates_from(r, v, templates, (0, 0), (false, false), order)
    }

    /// [`Lookahead::after_template`] from template `index` on `level` on.
    fn templates_from(
        r: &Reducer<'_>,
        v: View<'_>,
        templates: &[Box<dyn Template>],
        (level, index): (usize, usize),
        (again, round_again): (bool, bool),
        order: Order<'_>,
    ) -> (Option<Lookahead>, bool) {
        let k = templates.len();
        // Each run: its level, its template, and what of its items the passes before it tried
        // on that level (`auto`'s order: see `tried.rs`).
        let mut runs: Vec<(usize, usize, Seen)> =
            (index..k).map(|j| (level, j, Seen::Some)).collect();
        let levels = |from: usize| {
            (from..=v.doc.tree.height()).flat_map(move |l| (0..k).map(move |j| (l, j, Seen::None)))
        };
        if again {
            // The level's next pass, on this tree: the templates from `index` on (those after
            // the one that just ran) will have tried all their items on it in this pass.
            runs.extend((0..k).map(|j| (level, j, if j < index { Seen::Some } else { Seen::All })));
        }
        runs.extend(levels(level + 1));
        if round_again {
            runs.extend(levels(0));
        }
        if order.deletions_first {
            runs = runs
                .into_iter()
                .flat_map(|(l, j, seen)| {
                    let early = !templates[j].at_most_one() && wide(&v.doc.tree, l);
                    let below = (0..k).filter(move |&d| early && templates[d].at_most_one());
                    below
                        .map(move |d| (l + 1, d, Seen::None))
                        .chain(std::iter::once((l, j, seen)))
                })
                .collect();
        }
        let (mut steps, mut candidates) = (Vec::new(), 0);
        let mut complete = true;
        for (l, j, seen) in runs {
            if steps.len() >= CHAINED_RUNS || candidates >= CHAINED_CANDIDATES {
                complete = false;
                break;
            }
            let tried = match (seen, order.tried) {
                (Seen::All, Some(_)) => continue,
                (Seen::Some, Some(tried)) => Some(tried),
                _ => None,
            };
            let t = templates[j].as_ref();
            if let Some(step) = Lookahead::template(r, v, (l, j), t, tried, order) {
                candidates += step.count();
                steps.extend(step.steps);
            }
        }
        (Lookahead::of(steps), complete)
    }

    /// The steps of `parts`, one after the other (all over the same tree); `None` if there are
    /// none.
    pub(crate) fn chain(parts: impl IntoIterator<Item = Option<Lookahead>>) -> Option<Lookahead> {
        Lookahead::of(parts.into_iter().flatten().flat_map(|l| l.steps).collect())
    }

    /// `steps` over the current tree; `None` if there are none.
    fn of(steps: Vec<Step>) -> Option<Lookahead> {
        (!steps.is_empty()).then(|| Lookahead::new(steps))
    }

    fn new(steps: Vec<Step>) -> Lookahead {
        Lookahead {
            steps,
            parsed: None,
            tail: None,
            children: RefCell::default(),
        }
    }

    /// The first step of template `index` (`t`) over `level`; with `tried`, over the items it
    /// has not tried there (see `algo::level_items`); in the paper's order or `auto`'s.
    fn template(
        r: &Reducer<'_>,
        v: View<'_>,
        (level, index): (usize, usize),
        t: &dyn Template,
        tried: Option<&Tried>,
        order: Order<'_>,
    ) -> Option<Lookahead> {
        let auto = order.deletions_first;
        let (items, _) = template_items(v, &v.doc.tree.level(level), t);
        let before = items.len();
        let items = if auto && order.skips_refused {
            (r.refused_alone()).skip(&v.doc.tree, (level, index), items)
        } else {
            items
        };
        let items = match tried {
            Some(tried) => tried.untried(&v.doc.tree, index, items),
            None => items,
        };
        if t.at_most_one() {
            let start = if items.len() == before {
                r.granularity((level, index + 1))
            } else {
                2
            };
            let split = Split::first(items.len(), start).resuming(auto);
            Lookahead::ddmin(items, split, Some((level, index)))
        } else {
            // `auto` sweeps once (see `algo::gtr_round`), the paper until a sweep keeps nothing.
            Lookahead::sweep(items, !auto, Some((level, index)))
        }
    }

    /// The first step of `--algorithm ddmin`: ddmin over the format's units, from two parts.
    pub(crate) fn units(r: &Reducer<'_>, v: View<'_>) -> Option<Lookahead> {
        let units = r.format().ddmin_units(&v.doc.tree);
        let split = Split::first(units.len(), 2);
        Lookahead::ddmin(
            units.into_iter().map(|n| (n, Edit::Delete)).collect(),
            split,
            None,
        )
    }

    /// The first step of ddmin over `items`, `split` (where `ddmin_from` starts), of a run
    /// from `origin` if it is one of GTR's.
    fn ddmin(items: Vec<(NodeId, Edit)>, split: Split, origin: Option<Origin>) -> Option<Self> {
        if items.is_empty() {
            return None;
        }
        Some(Lookahead::new(vec![Step::Ddmin {
            items: items.into(),
            split,
            origin,
        }]))
    }

    /// The first sweep of Alg. 5 (or of HDD+, or over what the rules forbid) over `items`.
    /// With `again`, a sweep that kept something is followed by another (Alg. 5).
    pub(crate) fn scan(items: Vec<(NodeId, Edit)>, again: bool) -> Option<Self> {
        Lookahead::sweep(items, again, None)
    }

    /// [`Lookahead::scan`], of a run from `origin` if it is one of GTR's.
    fn sweep(items: Vec<(NodeId, Edit)>, again: bool, origin: Option<Origin>) -> Option<Self> {
        (!items.is_empty()).then(|| {
            Lookahead::new(vec![Step::sweep(
                &items.into(),
                Edits::new(),
                again,
                origin,
            )])
        })
    }

    /// The format's tidy rendering of the tree in `v` ([`crate::Format::tidy`]), which
    /// [`Reducer::tidy`] tries after the algorithm.
    pub(crate) fn tidy(r: &Reducer<'_>, v: View<'_>) -> Option<Lookahead> {
        r.format().tidy(v.doc).map(Lookahead::rewrite)
    }

    /// The step that tests one rewrite of the whole text (the tidy rendering, the blank move).
    pub(crate) fn rewrite(bytes: Vec<u8>) -> Lookahead {
        Lookahead::new(vec![Step::Tidy(bytes, None)])
    }

    /// [`Lookahead::rewrite`], followed once it wins by what `then` builds over the parse of
    /// `bytes`. The parse is made when the plan first walks into that branch, so only where a
    /// worker could start what follows.
    pub(crate) fn rewrite_then(bytes: Vec<u8>, then: OnWin) -> Lookahead {
        Lookahead::new(vec![Step::Tidy(bytes, Some(then))])
    }

    /// The step that tests one rewrite of the text.
    pub(crate) fn splices(s: Splices) -> Lookahead {
        Lookahead::new(vec![Step::Splices(s)])
    }

    /// How many candidates the steps have (a tail's not counted).
    pub(crate) fn count(&self) -> usize {
        self.steps.iter().map(Step::count).sum()
    }

    /// Calls `f` with what follows once candidates `won` of these have won, one after the other
    /// (each numbered among the candidates of what the ones before it led to; none: these
    /// steps): the rest of the ddmin run or of the sweeps the last one won in, over the same
    /// tree, and with `tails`, once that run of GTR's has ended, what the algorithm goes on to
    /// over a parse of the run's best bytes ([`Tail`]). `None` where that is not known: past the
    /// end of a run that is not one of GTR's (its commit makes another tree), after a text
    /// rewrite or the tidy rendering, or in a tail not built.
    fn with_after<T>(
        &self,
        r: &Reducer<'_>,
        tails: Option<&Tails<'_>>,
        won: &[usize],
        f: impl FnOnce(&Lookahead) -> Option<T>,
    ) -> Option<T> {
        let Some((&first, rest)) = won.split_first() else {
            return f(self);
        };
        let mut at = self.child(r, tails, first)?;
        for &w in rest {
            at = at.child(r, tails, w)?;
        }
        f(&at)
    }

    /// The document the steps are over.
    fn doc<'d>(&'d self, r: &'d Reducer<'_>) -> &'d crate::Document {
        self.parsed.as_ref().map_or(r.doc(), |p| &p.doc)
    }

    /// What follows once candidate `w` of these (or of the tail, past the steps' candidates)
    /// wins; see [`Lookahead::with_after`].
    fn child(&self, r: &Reducer<'_>, tails: Option<&Tails<'_>>, w: usize) -> Option<Rc<Lookahead>> {
        let n = self.count();
        if w >= n {
            return self.tail.as_ref()?.built()?.child(r, tails, w - n);
        }
        if let Some(c) = self.children.borrow().get(&w) {
            return c.clone();
        }
        let c = self.won(r, tails, w);
        self.children.borrow_mut().insert(w, c.clone());
        c
    }

    /// [`Lookahead::child`] for a candidate of the steps: the rest of its run, over the same
    /// tree, and once the run has ended, the tail from its origin over the run's best bytes
    /// then, the candidate's (or where the run is not one of GTR's, nothing).
    fn won(&self, r: &Reducer<'_>, tails: Option<&Tails<'_>>, w: usize) -> Option<Rc<Lookahead>> {
        let (step, i) = locate(&self.steps, w)?;
        if let Step::Tidy(bytes, Some(then)) = step {
            let parsed = r.parse_ahead(bytes, crate::judge::key(bytes))?;
            let mut next = then(r, parsed.view())?;
            next.parsed = Some(Rc::new(parsed));
            return Some(Rc::new(next));
        }
        let rest = won_steps(&self.doc(r).tree, (step, i));
        let tail = step
            .origin()
            .filter(|_| tails.is_some())
            .and_then(|origin| {
                let edits = step_edits(&self.doc(r).tree, (step, i))?;
                Some(Tail::new(origin, edits, self.parsed.clone()))
            });
        if rest.is_none() && tail.is_none() {
            return None;
        }
        Some(Rc::new(Lookahead {
            steps: rest.unwrap_or_default(),
            parsed: self.parsed.clone(),
            tail,
            children: RefCell::default(),
        }))
    }

    /// How many candidates follow once candidates `won` have won ([`Lookahead::with_after`];
    /// 0 if that is not known), their tail's included: on a branch of chance `chance`, the tail
    /// is built if it is likely enough to be needed ([`Tail::get`]).
    pub(crate) fn count_after_wins(
        &self,
        r: &Reducer<'_>,
        tails: Option<&Tails<'_>>,
        won: &[usize],
        chance: f64,
    ) -> usize {
        self.with_after(r, tails, won, |l| Some(l.total(r, tails, chance)))
            .unwrap_or(0)
    }

    /// The candidates of the steps and of their tail (built if `chance` is high enough).
    fn total(&self, r: &Reducer<'_>, tails: Option<&Tails<'_>>, chance: f64) -> usize {
        let tail = self.tail.as_ref().and_then(|t| t.get(r, tails, chance));
        self.count() + tail.map_or(0, |t| t.total(r, tails, chance))
    }

    /// Candidate `i` of the steps, or of the tail if it is built: the lookahead it is in, and
    /// its step and index there.
    fn find(&self, i: usize) -> Option<(&Lookahead, &Step, usize)> {
        let n = self.count();
        if i < n {
            let (step, i) = locate(&self.steps, i)?;
            return Some((self, step, i));
        }
        self.tail.as_ref()?.built()?.find(i - n)
    }

    /// The kind of step candidate `i` after `won` belongs to, for `plan::Odds` (`None`: one of
    /// its own, the tidy rendering or a text rewrite, weighed by the prior).
    pub(crate) fn class_after_wins(
        &self,
        r: &Reducer<'_>,
        tails: Option<&Tails<'_>>,
        won: &[usize],
        i: usize,
    ) -> Option<usize> {
        self.with_after(r, tails, won, |l| match l.find(i)? {
            (_, Step::Ddmin { split, .. }, i) => {
                let (parts, i) = split.chain_place(i)?;
                Some(Odds::ddmin_class(parts, i))
            }
            (_, Step::Scan { .. }, _) => Some(Odds::SWEEP),
            (_, Step::Splices(_) | Step::Tidy(..), _) => None,
        })
    }

    /// Renders candidate `i` of what follows `won`; `false` if there is none.
    pub(crate) fn render_after_wins(
        &self,
        r: &Reducer<'_>,
        tails: Option<&Tails<'_>>,
        won: &[usize],
        i: usize,
        out: &mut Vec<u8>,
    ) -> bool {
        self.with_after(r, tails, won, |l| {
            let (at, step, i) = l.find(i)?;
            at.render_step(r, (step, i), out).then_some(())
        })
        .is_some()
    }

    /// Renders candidate `i` of `step`; `false` if there is none.
    fn render_step(&self, r: &Reducer<'_>, (step, i): (&Step, usize), out: &mut Vec<u8>) -> bool {
        let doc = self.doc(r);
        match step {
            Step::Splices(s) => {
                r.format().render_splices(doc, s, out);
                true
            }
            Step::Tidy(t, _) => {
                out.extend_from_slice(t);
                true
            }
            Step::Ddmin { .. } | Step::Scan { .. } => {
                step_edits(&doc.tree, (step, i)).is_some_and(|e| {
                    r.format().render(doc, &e, out);
                    true
                })
            }
        }
    }
}

/// The edits of candidate `i` of a step of tree edits over `tree` (`None`: no candidate, or a
/// text rewrite).
fn step_edits(tree: &Tree, (step, i): (&Step, usize)) -> Option<Edits> {
    match step {
        Step::Ddmin { items, split, .. } => {
            (split.chain_kept(i)).map(|kept| edits_keeping(&Edits::new(), items, &kept))
        }
        Step::Scan {
            items, base, from, ..
        } => smaller_replacement(tree, base, items[from + i]),
        Step::Splices(_) | Step::Tidy(..) => None,
    }
}

/// The step candidate `i` of `steps` belongs to, and its index there.
fn locate(steps: &[Step], mut i: usize) -> Option<(&Step, usize)> {
    for step in steps {
        let n = step.count();
        if i < n {
            return Some((step, i));
        }
        i -= n;
    }
    None
}

/// The steps after candidate `i` of `step` wins: the rest of its ddmin run, or of its sweeps,
/// over the tree `tree` the step is over; `None` once the run has ended.
fn won_steps(tree: &Tree, (step, i): (&Step, usize)) -> Option<Vec<Step>> {
    let step = match step {
        Step::Ddmin {
            items,
            split,
            origin,
        } => {
            let split = split.chain_after_win(i)?;
            if split.config.is_empty() {
                return None;
            }
            Step::Ddmin {
                items: items.clone(),
                split,
                origin: *origin,
            }
        }
        Step::Scan {
            items,
            base,
            from,
            again,
            origin,
        } => {
            let base = smaller_replacement(tree, base, items[from + i])?;
            let from = from + i + 1;
            if from == items.len() && !again {
                return None;
            }
            if from == items.len() {
                // The sweep ends having kept something: the next one.
                return Some(vec![Step::sweep(items, base, *again, *origin)]);
            }
            let rest = Step::Scan {
                items: items.clone(),
                base: base.clone(),
                from,
                again: *again,
                origin: *origin,
            };
            // Should the rest of this sweep keep nothing, the next sweep (Alg. 5).
            let next = again.then(|| Step::sweep(items, base, true, *origin));
            return Some(std::iter::once(rest).chain(next).collect());
        }
        Step::Splices(_) | Step::Tidy(..) => return None,
    };
    Some(vec![step])
}

impl Step {
    /// A sweep over `items` from the first, on top of `base`.
    fn sweep(
        items: &Rc<[(NodeId, Edit)]>,
        base: Edits,
        again: bool,
        origin: Option<Origin>,
    ) -> Step {
        Step::Scan {
            items: items.clone(),
            base,
            from: 0,
            again,
            origin,
        }
    }

    fn count(&self) -> usize {
        match self {
            Step::Ddmin { split, .. } => split.chain_len(),
            Step::Scan { items, from, .. } => items.len() - from,
            Step::Splices(_) | Step::Tidy(..) => 1,
        }
    }

    /// The run of GTR's the step is of, if it is one.
    fn origin(&self) -> Option<Origin> {
        match self {
            Step::Ddmin { origin, .. } | Step::Scan { origin, .. } => *origin,
            Step::Splices(_) | Step::Tidy(..) => None,
        }
    }
}
