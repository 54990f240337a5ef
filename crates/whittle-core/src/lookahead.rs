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

mod successor;
pub(crate) use successor::{Lazy, Successor};

/// The first step of ddmin or of Alg. 5 over a level of a tree; after a template, the first
/// steps of the runs that follow it while every candidate fails, in order (GTR's later templates
/// and levels on the same tree: see [`Lookahead::after_template`]).
pub(crate) struct Lookahead {
    steps: Vec<Step>,
    /// The tree the steps are over when it is not the current one.
    parsed: Option<Box<Parsed>>,
    /// The steps that follow once candidates of these won, by the winners (see
    /// [`Lookahead::with_steps`]), made once each.
    derived: RefCell<FxHashMap<Vec<usize>, Derived>>,
}

/// The steps that follow some wins (`None`: not known).
type Derived = Option<Rc<Vec<Step>>>;

/// At most this many runs' first steps are chained after a template, with at most about this
/// many candidates in all (more than the plan looks at: building them walks the tree's levels).
const CHAINED_RUNS: usize = 32;
const CHAINED_CANDIDATES: usize = 1024;

/// How `auto` orders GTR, beyond the paper: with `deletions_first`, a wide level's
/// substitutions wait for the deletions of the level below (see `algo::gtr_round`); `tried`:
/// what the passes over the current level have tried, which its next pass skips (`tried.rs`).
#[derive(Clone, Copy)]
pub(crate) struct Order<'a> {
    pub(crate) deletions_first: bool,
    pub(crate) tried: Option<&'a Tried>,
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
    },
    /// A sweep of Alg. 5 (or of HDD+) over the items from `from` on, each on top of `base` (what
    /// the sweeps kept so far). With `again` (Alg. 5), a sweep that kept something is followed
    /// by another over the same tree.
    Scan {
        items: Rc<[(NodeId, Edit)]>,
        base: Edits,
        from: usize,
        again: bool,
    },
    /// One rewrite of the text (the first candidate of a move below the tree).
    Splices(Splices),
    /// The format's tidy rendering of the tree, tried once the algorithm has ended.
    Tidy(Vec<u8>),
}

impl Lookahead {
    /// The first step of HDD's ddmin over `level` (none for an empty level).
    pub(crate) fn hdd_level(r: &Reducer<'_>, v: View<'_>, level: usize) -> Option<Lookahead> {
        let items: Vec<_> = (v.doc.tree.level(level).into_iter())
            .map(|n| (n, Edit::Delete))
            .collect();
        Lookahead::ddmin(items, r.granularity((level, 0)))
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
        };
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
            if let Some(step) = Lookahead::template(r, v, (l, j), t, tried, order.deletions_first) {
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
            derived: RefCell::default(),
        }
    }

    /// The first step of template `index` (`t`) over `level`; with `tried`, over the items it
    /// has not tried there (see `algo::level_items`); `auto`: in `auto`'s order.
    fn template(
        r: &Reducer<'_>,
        v: View<'_>,
        (level, index): (usize, usize),
        t: &dyn Template,
        tried: Option<&Tried>,
        auto: bool,
    ) -> Option<Lookahead> {
        let (items, _) = template_items(v, &v.doc.tree.level(level), t);
        let before = items.len();
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
            Lookahead::ddmin(items, start)
        } else {
            // `auto` sweeps once (see `algo::gtr_round`), the paper until a sweep keeps nothing.
            Lookahead::scan(items, !auto)
        }
    }

    /// The first step of `--algorithm ddmin`: ddmin over the format's units, from two parts.
    pub(crate) fn units(r: &Reducer<'_>, v: View<'_>) -> Option<Lookahead> {
        let units = r.format().ddmin_units(&v.doc.tree);
        Lookahead::ddmin(units.into_iter().map(|n| (n, Edit::Delete)).collect(), 2)
    }

    /// The first step of ddmin over `items`, from `start` parts (where `ddmin_from` starts).
    fn ddmin(items: Vec<(NodeId, Edit)>, start: usize) -> Option<Self> {
        if items.is_empty() {
            return None;
        }
        let split = Split::first(items.len(), start);
        Some(Lookahead::new(vec![Step::Ddmin {
            items: items.into(),
            split,
        }]))
    }

    /// The first sweep of Alg. 5 (or of HDD+, or over what the rules forbid) over `items`.
    /// With `again`, a sweep that kept something is followed by another (Alg. 5).
    pub(crate) fn scan(items: Vec<(NodeId, Edit)>, again: bool) -> Option<Self> {
        (!items.is_empty())
            .then(|| Lookahead::new(vec![Step::sweep(&items.into(), Edits::new(), again)]))
    }

    /// The format's tidy rendering of the tree in `v` ([`crate::Format::tidy`]), which
    /// [`Reducer::tidy`] tries after the algorithm.
    pub(crate) fn tidy(r: &Reducer<'_>, v: View<'_>) -> Option<Lookahead> {
        r.format()
            .tidy(v.doc)
            .map(|t| Lookahead::new(vec![Step::Tidy(t)]))
    }

    /// The step that tests one rewrite of the text.
    pub(crate) fn splices(s: Splices) -> Lookahead {
        Lookahead::new(vec![Step::Splices(s)])
    }

    pub(crate) fn count(&self) -> usize {
        self.steps.iter().map(Step::count).sum()
    }

    /// Calls `f` with the steps that follow once candidates `won` of these have won, one after
    /// the other (each numbered among the candidates of the steps the ones before it led to;
    /// none: these steps): the rest of the ddmin run or of the sweeps the last one won in, over
    /// the same tree. `None` where that is not known: past the run's end (its commit makes
    /// another tree), or after a text rewrite or the tidy rendering.
    fn with_steps<T>(
        &self,
        r: &Reducer<'_>,
        won: &[usize],
        f: impl FnOnce(&[Step]) -> Option<T>,
    ) -> Option<T> {
        if won.is_empty() {
            f(&self.steps)
        } else {
            f(&self.derived_steps(r, won)?)
        }
    }

    /// The document the steps are over.
    fn doc<'d>(&'d self, r: &'d Reducer<'_>) -> &'d crate::Document {
        self.parsed.as_ref().map_or(r.doc(), |p| &p.doc)
    }

    /// [`Lookahead::with_steps`]'s steps after `won`, not empty.
    fn derived_steps(&self, r: &Reducer<'_>, won: &[usize]) -> Option<Rc<Vec<Step>>> {
        if let Some(steps) = self.derived.borrow().get(won) {
            return steps.clone();
        }
        let (&last, before) = won.split_last()?;
        let tree = &self.doc(r).tree;
        let steps = if before.is_empty() {
            won_steps(tree, &self.steps, last)
        } else {
            won_steps(tree, &self.derived_steps(r, before)?, last)
        }
        .map(Rc::new);
        self.derived
            .borrow_mut()
            .insert(won.to_vec(), steps.clone());
        steps
    }

    /// How many candidates the steps after `won` have ([`Lookahead::with_steps`]; 0 if they are
    /// not known).
    pub(crate) fn count_after_wins(&self, r: &Reducer<'_>, won: &[usize]) -> usize {
        self.with_steps(r, won, |steps| Some(steps.iter().map(Step::count).sum()))
            .unwrap_or(0)
    }

    /// The kind of step candidate `i` after `won` belongs to, for `plan::Odds` (`None`: one of
    /// its own, the tidy rendering or a text rewrite, weighed by the prior).
    pub(crate) fn class_after_wins(
        &self,
        r: &Reducer<'_>,
        won: &[usize],
        i: usize,
    ) -> Option<usize> {
        self.with_steps(r, won, |steps| match locate(steps, i)? {
            (Step::Ddmin { split, .. }, i) => {
                let (parts, i) = split.chain_place(i)?;
                Some(Odds::ddmin_class(parts, i))
            }
            (Step::Scan { .. }, _) => Some(Odds::SWEEP),
            (Step::Splices(_) | Step::Tidy(_), _) => None,
        })
    }

    /// Renders candidate `i` of the steps after `won`; `false` if there is none.
    pub(crate) fn render_after_wins(
        &self,
        r: &Reducer<'_>,
        won: &[usize],
        i: usize,
        out: &mut Vec<u8>,
    ) -> bool {
        self.with_steps(r, won, |steps| {
            self.render_step(r, locate(steps, i)?, out).then_some(())
        })
        .is_some()
    }

    /// Renders candidate `i` of `step`; `false` if there is none.
    fn render_step(&self, r: &Reducer<'_>, (step, i): (&Step, usize), out: &mut Vec<u8>) -> bool {
        let doc = self.doc(r);
        let edits = match step {
            Step::Ddmin { items, split } => {
                (split.chain_kept(i)).map(|kept| edits_keeping(&Edits::new(), items, &kept))
            }
            Step::Scan {
                items, base, from, ..
            } => smaller_replacement(&doc.tree, base, items[from + i]),
            Step::Splices(s) => {
                r.format().render_splices(doc, s, out);
                return true;
            }
            Step::Tidy(t) => {
                out.extend_from_slice(t);
                return true;
            }
        };
        edits.is_some_and(|e| {
            r.format().render(doc, &e, out);
            true
        })
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

/// The steps after candidate `i` of `steps` wins: the rest of its ddmin run, or of its sweeps
/// (see [`Lookahead::with_steps`]), over the tree `tree` the steps are over.
fn won_steps(tree: &Tree, steps: &[Step], i: usize) -> Option<Vec<Step>> {
    let step = match locate(steps, i)? {
        (Step::Ddmin { items, split }, i) => {
            let split = split.chain_after_win(i)?;
            if split.config.is_empty() {
                return None;
            }
            Step::Ddmin {
                items: items.clone(),
                split,
            }
        }
        (
            Step::Scan {
                items,
                base,
                from,
                again,
                ..
            },
            i,
        ) => {
            let base = smaller_replacement(tree, base, items[from + i])?;
            let from = from + i + 1;
            if from == items.len() && !again {
                return None;
            }
            if from == items.len() {
                // The sweep ends having kept something: the next one.
                return Some(vec![Step::sweep(items, base, *again)]);
            }
            let rest = Step::Scan {
                items: items.clone(),
                base: base.clone(),
                from,
                again: *again,
            };
            // Should the rest of this sweep keep nothing, the next sweep (Alg. 5).
            let next = again.then(|| Step::sweep(items, base, true));
            return Some(std::iter::once(rest).chain(next).collect());
        }
        (Step::Splices(_) | Step::Tidy(_), _) => return None,
    };
    Some(vec![step])
}

impl Step {
    /// A sweep over `items` from the first, on top of `base`.
    fn sweep(items: &Rc<[(NodeId, Edit)]>, base: Edits, again: bool) -> Step {
        Step::Scan {
            items: items.clone(),
            base,
            from: 0,
            again,
        }
    }

    fn count(&self) -> usize {
        match self {
            Step::Ddmin { split, .. } => split.chain_len(),
            Step::Scan { items, from, .. } => items.len() - from,
            Step::Splices(_) | Step::Tidy(_) => 1,
        }
    }
}

/// A level is wide when its nodes have more than this many children each, on average.
const WIDE: usize = 16;

/// Whether the nodes of `level` have many children: in `auto`'s order, a template that
/// substitutes a node by a descendant waits there until the deletions of the level below have
/// run (see `algo::gtr_round`).
pub(crate) fn wide(tree: &Tree, level: usize) -> bool {
    let nodes = tree.level(level).len();
    let below = tree.level(level + 1).len();
    below > WIDE * nodes.max(1)
}

/// The candidates of template `t` for `nodes` of the tree in `v` (only the first of each node
/// for an at-most-one template), and how many the rules filtered out.
pub(crate) fn template_items(
    v: View<'_>,
    nodes: &[NodeId],
    t: &dyn Template,
) -> (Vec<(NodeId, Edit)>, usize) {
    let mut items = Vec::with_capacity(nodes.len());
    let mut out = Vec::new();
    let mut filtered = 0;
    for &n in nodes {
        out.clear();
        filtered += t.candidates(v.doc, n, v.rules, &mut out);
        if t.at_most_one() {
            items.extend(out.first().map(|&e| (n, e)));
        } else {
            items.extend(out.iter().map(|&e| (n, e)));
        }
    }
    (items, filtered)
}

/// The single transformations the rules forbid on the tree in `v`, in pre-order and template
/// order (none without rules): the items of the sweep that makes up for what the rules cost.
pub(crate) fn forbidden_items(v: View<'_>, templates: &[Box<dyn Template>]) -> Vec<(NodeId, Edit)> {
    let Some(rules) = v.rules else {
        return Vec::new();
    };
    let doc = v.doc;
    let mut forbidden: Vec<(NodeId, Edit)> = Vec::new();
    let (mut all, mut allowed) = (Vec::new(), Vec::new());
    for n in doc.tree.nodes() {
        for t in templates {
            all.clear();
            allowed.clear();
            t.candidates(doc, n, None, &mut all);
            if t.candidates(doc, n, Some(rules), &mut allowed) > 0 {
                forbidden.extend(all.iter().filter(|e| !allowed.contains(e)).map(|&e| (n, e)));
            }
        }
    }
    forbidden
}

/// Alg. 5's candidate: `conf` with `n` replaced by `e`, if that is smaller than `n`'s current
/// replacement.
pub(crate) fn smaller_replacement(
    tree: &Tree,
    conf: &Edits,
    (n, e): (NodeId, Edit),
) -> Option<Edits> {
    let current = match conf.get(n) {
        None => tree.size(n),
        Some(Edit::Delete) => 0,
        Some(Edit::Replace(d)) => tree.size(d),
    };
    let candidate = match e {
        Edit::Delete => 0,
        Edit::Replace(d) => tree.size(d),
    };
    (candidate < current).then(|| conf.with(n, e))
}
