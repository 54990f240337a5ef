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
use crate::judge::key;
use crate::lexicon::Splices;
use crate::plan::{Odds, Then};
use crate::split::{Split, edits_keeping};
use crate::template::Template;
use crate::tree::{NodeId, Tree};
use std::cell::RefCell;

/// The first step of ddmin or of Alg. 5 over a level of a tree; after a template, the first
/// steps of the runs that follow it while every candidate fails, in order (GTR's later templates
/// and levels on the same tree: see [`Lookahead::after_template`]).
pub(crate) struct Lookahead {
    steps: Vec<Step>,
    /// The tree the steps are over when it is not the current one.
    parsed: Option<Box<Parsed>>,
}

/// At most this many runs' first steps are chained after a template, with at most about this
/// many candidates in all (more than the plan looks at: building them walks the tree's levels).
const CHAINED_RUNS: usize = 32;
const CHAINED_CANDIDATES: usize = 1024;

enum Step {
    /// ddmin over the items (HDD's deletions, an at-most-one template), from its first split on
    /// through the finer ones, should they fail ([`Split::chain_len`]).
    Ddmin {
        items: Vec<(NodeId, Edit)>,
        split: Split,
    },
    /// The first sweep of Alg. 5 (or of HDD+) over the items.
    Scan { items: Vec<(NodeId, Edit)> },
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
        Lookahead::scan(items)
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
    /// the chain reaches the algorithm's end. With `deletions_first` (`auto`'s order, see
    /// [`wide`]), a wide level's substitutions come after the deletions of the level below.
    pub(crate) fn after_template(
        r: &Reducer<'_>,
        v: View<'_>,
        templates: &[Box<dyn Template>],
        (level, index): (usize, usize),
        (again, round_again): (bool, bool),
        deletions_first: bool,
    ) -> (Option<Lookahead>, bool) {
        let from = (level, index + 1);
        Lookahead::templates_from(r, v, templates, from, (again, round_again), deletions_first)
    }

    /// A round of GTR from its first template on the top level, while every candidate fails
    /// (see [`Lookahead::after_template`]).
    pub(crate) fn round(
        r: &Reducer<'_>,
        v: View<'_>,
        templates: &[Box<dyn Template>],
        deletions_first: bool,
    ) -> (Option<Lookahead>, bool) {
        Lookahead::templates_from(r, v, templates, (0, 0), (false, false), deletions_first)
    }

    /// [`Lookahead::after_template`] from template `index` on `level` on.
    fn templates_from(
        r: &Reducer<'_>,
        v: View<'_>,
        templates: &[Box<dyn Template>],
        (level, index): (usize, usize),
        (again, round_again): (bool, bool),
        deletions_first: bool,
    ) -> (Option<Lookahead>, bool) {
        let k = templates.len();
        let mut order: Vec<(usize, usize)> = (index..k).map(|j| (level, j)).collect();
        let levels = |from: usize| {
            (from..=v.doc.tree.height()).flat_map(move |l| (0..k).map(move |j| (l, j)))
        };
        if again {
            order.extend((0..k).map(|j| (level, j)));
        }
        order.extend(levels(level + 1));
        if round_again {
            order.extend(levels(0));
        }
        if deletions_first {
            order = order
                .into_iter()
                .flat_map(|(l, j)| {
                    let early = !templates[j].at_most_one() && wide(&v.doc.tree, l);
                    let below = (0..k).filter(move |&d| early && templates[d].at_most_one());
                    below
                        .map(move |d| (l + 1, d))
                        .chain(std::iter::once((l, j)))
                })
                .collect();
        }
        let (mut steps, mut candidates) = (Vec::new(), 0);
        let mut complete = true;
        for (l, j) in order {
            if steps.len() >= CHAINED_RUNS || candidates >= CHAINED_CANDIDATES {
                complete = false;
                break;
            }
            if let Some(step) = Lookahead::template(r, v, l, j, templates[j].as_ref()) {
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
        (!steps.is_empty()).then_some(Lookahead {
            steps,
            parsed: None,
        })
    }

    /// The first step of template `index` (`t`) over `level`.
    fn template(
        r: &Reducer<'_>,
        v: View<'_>,
        level: usize,
        index: usize,
        t: &dyn Template,
    ) -> Option<Lookahead> {
        let (items, _) = template_items(v, &v.doc.tree.level(level), t);
        if t.at_most_one() {
            Lookahead::ddmin(items, r.granularity((level, index + 1)))
        } else {
            Lookahead::scan(items)
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
        Some(Lookahead {
            steps: vec![Step::Ddmin { items, split }],
            parsed: None,
        })
    }

    /// The first sweep of Alg. 5 (or of HDD+, or over what the rules forbid) over `items`.
    pub(crate) fn scan(items: Vec<(NodeId, Edit)>) -> Option<Self> {
        (!items.is_empty()).then(|| Lookahead::of(vec![Step::Scan { items }]))?
    }

    /// The format's tidy rendering of the tree in `v` ([`crate::Format::tidy`]), which
    /// [`Reducer::tidy`] tries after the algorithm.
    pub(crate) fn tidy(r: &Reducer<'_>, v: View<'_>) -> Option<Lookahead> {
        r.format().tidy(v.doc).map(|t| Lookahead {
            steps: vec![Step::Tidy(t)],
            parsed: None,
        })
    }

    /// The step that tests one rewrite of the text.
    pub(crate) fn splices(s: Splices) -> Lookahead {
        Lookahead {
            steps: vec![Step::Splices(s)],
            parsed: None,
        }
    }

    pub(crate) fn count(&self) -> usize {
        self.steps.iter().map(Step::count).sum()
    }

    /// The step candidate `i` of the chain belongs to, and its index there.
    fn locate(&self, mut i: usize) -> Option<(&Step, usize)> {
        for step in &self.steps {
            let n = step.count();
            if i < n {
                return Some((step, i));
            }
            i -= n;
        }
        None
    }

    /// The kind of step candidate `i` belongs to, for `plan::Odds` (`None`: one of its own, the
    /// tidy rendering or a text rewrite, weighed by the prior).
    pub(crate) fn class(&self, i: usize) -> Option<usize> {
        match self.locate(i)? {
            (Step::Ddmin { split, .. }, i) => Some(Odds::ddmin_class(split.chain_count(i)?)),
            (Step::Scan { .. }, _) => Some(Odds::SWEEP),
            (Step::Splices(_) | Step::Tidy(_), _) => None,
        }
    }

    /// Renders candidate `i` of the steps; `false` if there is none.
    pub(crate) fn render(&self, r: &Reducer<'_>, i: usize, out: &mut Vec<u8>) -> bool {
        let doc = self.parsed.as_ref().map_or(r.doc(), |p| &p.doc);
        let Some((step, i)) = self.locate(i) else {
            return false;
        };
        let edits = match step {
            Step::Ddmin { items, split } => {
                (split.chain_kept(i)).map(|kept| edits_keeping(&Edits::new(), items, &kept))
            }
            Step::Scan { items } => smaller_replacement(&doc.tree, &Edits::new(), items[i]),
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

impl Step {
    fn count(&self) -> usize {
        match self {
            Step::Ddmin { split, .. } => split.chain_len(),
            Step::Scan { items } => items.len(),
            Step::Splices(_) | Step::Tidy(_) => 1,
        }
    }
}

/// Builds the step that follows a run, over the tree in `View`; the flag says whether the run
/// changed the tree (the view is then a parse of the best bytes).
pub(crate) type Build<'b> = &'b dyn Fn(&Reducer<'_>, View<'_>, bool) -> Option<Lookahead>;

/// The step that follows a run (see the module doc), built when the test pool asks for it through
/// [`Lazy`] (a worker is idle at a step that may be the run's last): over the current tree while
/// the run's best bytes are the current document's, over their parse once they are not. The plan
/// (`plan.rs`) also asks for it on a branch where the run ends with a candidate that has not won
/// yet: then over that candidate's parse. Each is built once (the parse once per bytes, for the
/// last few bytes asked for).
pub(crate) struct Successor<'b> {
    build: Option<Build<'b>>,
    unchanged: Option<Option<Lookahead>>,
    /// The steps built over parses of other bytes, by the bytes' key, the latest last.
    changed: Vec<(u128, Option<Lookahead>)>,
}

/// How many parses ahead of a commit a [`Successor`] keeps.
const PARSES_KEPT: usize = 4;

impl<'b> Successor<'b> {
    /// No next step is known (or nobody is idle to start it: one worker).
    pub(crate) fn none() -> Successor<'static> {
        Successor {
            build: None,
            unchanged: None,
            changed: Vec::new(),
        }
    }

    /// The step `build` makes, if the pool has workers that could start it.
    pub(crate) fn new(r: &Reducer<'_>, build: Build<'b>) -> Successor<'b> {
        Successor {
            build: r.speculates().then_some(build),
            unchanged: None,
            changed: Vec::new(),
        }
    }

    /// The next step if the run ends with `best` (`None`: the reducer's best bytes now).
    pub(crate) fn get(&mut self, r: &Reducer<'_>, best: Option<&[u8]>) -> Option<&Lookahead> {
        let build = self.build?;
        let best = best.unwrap_or(r.best());
        if best == r.committed() {
            return self
                .unchanged
                .get_or_insert_with(|| build(r, r.view(), false))
                .as_ref();
        }
        let k = key(best);
        let at = match self.changed.iter().position(|(c, _)| *c == k) {
            Some(at) => at,
            None => {
                let step = r.parse_ahead(best, k).and_then(|p| {
                    let mut step = build(r, p.view(), true)?;
                    step.parsed = Some(Box::new(p));
                    Some(step)
                });
                if self.changed.len() >= PARSES_KEPT {
                    self.changed.remove(0);
                }
                self.changed.push((k, step));
                self.changed.len() - 1
            }
        };
        self.changed[at].1.as_ref()
    }

    /// The parse of `best` made ahead of the commit, if one was, for
    /// [`Reducer::commit_parsed`].
    pub(crate) fn into_parsed(self, best: &[u8]) -> Option<Parsed> {
        let k = key(best);
        let (_, step) = self.changed.into_iter().find(|(c, _)| *c == k)?;
        step?.parsed.map(|p| *p)
    }
}

/// A [`Successor`] for the test pool's `failed` prefetch (`pool::Next`) and the plan: the pool
/// asks for it only when a worker is idle, so the parse ahead of a commit is made then, not at
/// every step.
pub(crate) struct Lazy<'s, 'b, 'r, 'a> {
    after: RefCell<&'s mut Successor<'b>>,
    r: &'r Reducer<'a>,
}

impl<'s, 'b, 'r, 'a> Lazy<'s, 'b, 'r, 'a> {
    pub(crate) fn new(after: &'s mut Successor<'b>, r: &'r Reducer<'a>) -> Self {
        Lazy {
            after: RefCell::new(after),
            r,
        }
    }

    /// How many candidates the next step has (0 if there is none).
    pub(crate) fn count(&self) -> usize {
        self.count_after(None)
    }

    /// Renders candidate `i` of the next step; `false` if there is none.
    pub(crate) fn render(&self, i: usize, out: &mut Vec<u8>) -> bool {
        self.render_after(None, i, out)
    }
}

impl Then for Lazy<'_, '_, '_, '_> {
    fn count_after(&self, best: Option<&[u8]>) -> usize {
        self.after
            .borrow_mut()
            .get(self.r, best)
            .map_or(0, Lookahead::count)
    }

    fn render_after(&self, best: Option<&[u8]>, i: usize, out: &mut Vec<u8>) -> bool {
        let mut after = self.after.borrow_mut();
        after
            .get(self.r, best)
            .is_some_and(|a| a.render(self.r, i, out))
    }

    fn class_after(&self, best: Option<&[u8]>, i: usize) -> Option<usize> {
        let mut after = self.after.borrow_mut();
        after.get(self.r, best)?.class(i)
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
