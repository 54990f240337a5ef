//! The reduction algorithms: ddmin, HDD, HDD*, HDD+ (HDD paper §3), GTR and GTR* (GTR paper §4).

use crate::below::{after_tidy, then_the_end, tidy_next};
use crate::ddmin::{Tested, ddmin, ddmin_from};
use crate::edit::{Edit, Edits};
use crate::engine::{Reducer, View};
use crate::error::ReduceError;
use crate::lookahead::{
    Lookahead, Order, Origin, Successor, forbidden_items, smaller_replacement, template_items, wide,
};
use crate::sweep::{greedy_scan, render_edits, sweep_then};
use crate::template::Template;
use crate::tree::NodeId;
use crate::tried::Tried;
use std::fmt;
use std::str::FromStr;

/// An algorithm selectable with `--algorithm`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// ddmin over the format's units ([`crate::Format::ddmin_units`]: the leaves by default, so
    /// lines for the `lines` format).
    Ddmin,
    /// Hierarchical Delta Debugging: ddmin over each level, top down.
    Hdd,
    /// HDD repeated until a round removes nothing.
    HddStar,
    /// HDD, then single-node deletions until 1-tree-minimal.
    HddPlus,
    /// Generalized Tree Reduction with deletion and substitute-by-child.
    Gtr,
    /// GTR repeated until a round changes nothing.
    GtrStar,
    /// whittle's default, beyond the papers: GTR* and the moves below the tree (renaming,
    /// literals, numbers, white space, placeholders) to a joint fixpoint, then, for an input
    /// that fails the format's gate, a byte-level tail.
    Auto,
}

impl Algorithm {
    /// Every algorithm, in the order `--help` lists them.
    pub const ALL: [Algorithm; 7] = [
        Algorithm::Auto,
        Algorithm::GtrStar,
        Algorithm::Gtr,
        Algorithm::HddStar,
        Algorithm::Hdd,
        Algorithm::HddPlus,
        Algorithm::Ddmin,
    ];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Ddmin => "ddmin",
            Algorithm::Hdd => "hdd",
            Algorithm::HddStar => "hdd*",
            Algorithm::HddPlus => "hdd+",
            Algorithm::Gtr => "gtr",
            Algorithm::GtrStar => "gtr*",
            Algorithm::Auto => "auto",
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Algorithm {
    type Err = String;

    fn from_str(s: &str) -> Result<Algorithm, String> {
        Algorithm::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown algorithm `{s}` (expected one of auto, gtr*, gtr, hdd*, hdd, hdd+, ddmin)"
                )
            })
    }
}

/// Runs `algorithm` to its end, then offers the format's tidy rendering (see
/// [`crate::Format::tidy`]). With rules, the algorithm runs filtered, and then every single
/// transformation the rules forbid on the result is tried (`try_forbidden`); when one is
/// interesting the algorithm runs again (filtered) from there. The rules keep the search in the
/// shapes the corpus knows, which saves most test runs; the last pass takes, one at a time, the
/// reductions the corpus did not foresee. The best result is in the reducer (and was reported to
/// its observer after every improvement).
pub fn run(r: &mut Reducer<'_>, algorithm: Algorithm) -> Result<(), ReduceError> {
    if algorithm == Algorithm::Auto {
        return run_auto(r);
    }
    run_tree(r, algorithm)?;
    tidy(r, Successor::none())?;
    Ok(())
}

/// The format's tidy rendering of the current tree ([`crate::Format::tidy`]), kept if it is
/// smaller and the test allows it; while it is tested, idle workers start `after`. Returns
/// whether it was kept.
fn tidy(r: &mut Reducer<'_>, after: Successor<'_>) -> Result<bool, ReduceError> {
    r.commit()?;
    let Some(bytes) = r.format().tidy(r.doc()) else {
        return Ok(false);
    };
    crate::changes::rewrite_then(r, &bytes, after)
}

/// The algorithm, then (with rules) the sweep over what the rules forbid, until neither changes
/// anything.
fn run_tree(r: &mut Reducer<'_>, algorithm: Algorithm) -> Result<(), ReduceError> {
    run_algorithm(r, algorithm)?;
    // Only GTR's transformations are filtered by rules; HDD's deletions are all tried already.
    let gtr = matches!(
        algorithm,
        Algorithm::Gtr | Algorithm::GtrStar | Algorithm::Auto
    );
    if r.has_rules() && gtr {
        let templates = r.format().templates();
        let deletions_first = algorithm == Algorithm::Auto;
        while try_forbidden(r, &templates, deletions_first)? {
            run_algorithm(r, algorithm)?;
        }
    }
    Ok(())
}

/// [`Algorithm::Auto`]: the slice first, once (`slice.rs`: a few of the file's parts with what
/// they need), the literal probe (`alone.rs`: the file's literals alone, once) and the blank
/// move (`blanks.rs`: the format's blank nodes, all at once), then the format's list moves
/// ([`crate::ListMove`]: C's declarations), then the tree moves (they remove the most bytes per test), the format's list moves that
/// come after them (the tree moves again if one changed something), then the
/// tidy rendering, then hoisting (a node replaced by a deeper descendant of its kind; the tree
/// moves again if one was kept), then the moves below the tree; the tree moves again whenever
/// those changed anything. At that fixpoint, the last moves below the tree (substitution across
/// kinds, free names), and the tree moves again if one changed something. Last, for an input
/// the format's gate rejects, the byte-level tail.
fn run_auto(r: &mut Reducer<'_>) -> Result<(), ReduceError> {
    crate::slice::reduce_slice(r)?;
    // While the literal probe is tested, idle workers start the blank move and the tree moves'
    // first round.
    let after_probe = |r: &Reducer<'_>, v: View<'_>, _: bool| blanks_then_first_round(r, v);
    crate::alone::reduce_alone(r, Successor::new(r, &after_probe))?;
    // While the blank move is tested, idle workers start the tree moves' first round.
    let first_round = |r: &Reducer<'_>, v: View<'_>, _: bool| auto_first_round(r, v);
    crate::blanks::reduce_blanks(r, Successor::new(r, &first_round))?;
    // Before the tree moves' first run, the list moves stop short of their smallest parts; the
    // pipeline ends only after a round whose list moves went down to single rewrites.
    let mut first = true;
    loop {
        let (_, deferred) = crate::lists::reduce_lists(r, false, std::mem::take(&mut first))?;
        r.set_phase("tree");
        run_tree(r, Algorithm::Auto)?;
        if crate::lists::reduce_lists(r, true, false)?.0 {
            continue;
        }
        // While the tidy rendering and the hoisting sweep are tested, idle workers start what
        // comes after them should they keep nothing: the first round of the moves below the tree.
        r.set_phase("tidy");
        let after_tidy = |r: &Reducer<'_>, v: View<'_>, _: bool| after_tidy(r, v);
        tidy(r, Successor::new(r, &after_tidy))?;
        r.set_phase("hoist");
        let below = |r: &Reducer<'_>, v: View<'_>, _: bool| crate::below::first_round(r, v);
        if crate::hoist::hoist(r, Successor::new(r, &below))? {
            continue;
        }
        // The moves below the tree to their own fixpoint first: a round of them costs a few
        // tests, a round of the tree moves one per node at least.
        if crate::below::reduce_below(r)? {
            continue;
        }
        // At the fixpoint, the moves the test refuses most, once.
        if crate::below::reduce_last(r)? || deferred {
            continue;
        }
        // The tree moves' rounds skipped what failed alone in an earlier one: the pipeline ends
        // with a round that skips nothing and changes nothing.
        if !confirming_round(r)? {
            break;
        }
    }
    crate::tail::byte_tail(r)
}

/// What `algorithm` tests first on the current tree: the first steps of its runs while their
/// candidates fail (ddmin's splits, HDD's levels, GTR's templates and levels, one after the
/// other while the tree stays as it is), whose wins the opening's plan follows into the rest of
/// their run (`plan::Opening`). Idle workers start these while the original input is tested
/// (`Reducer::check_input_opening`), so that the reduction's first round of tests is not the
/// original's alone. `None` where more than the tree decides the first step (`auto` with a
/// format that has a slice or list moves: C).
pub(crate) fn opening(r: &Reducer<'_>, algorithm: Algorithm) -> Option<Lookahead> {
    let v = r.view();
    let round = |deletions_first| {
        let templates = r.format().templates();
        Lookahead::round(r, v, &templates, deletions_first).0
    };
    match algorithm {
        Algorithm::Ddmin => Lookahead::units(r, v),
        Algorithm::Hdd | Algorithm::HddStar | Algorithm::HddPlus => {
            let levels = v.doc.tree.height() + 1;
            Lookahead::chain((0..levels).map(|l| Lookahead::hdd_level(r, v, l)))
        }
        Algorithm::Gtr | Algorithm::GtrStar => round(false),
        Algorithm::Auto => {
            let f = r.format();
            (f.list_moves().is_empty() && f.slices(v.doc).is_none()).then(|| {
                let probe = crate::alone::step(r, v, blanks_then_first_round);
                Lookahead::chain([probe, blanks_then_first_round(r, v)])
            })?
        }
    }
}

/// The blank move and, after it, the tree moves' first round over the tree in `v`: what `auto`
/// tests after the literal probe, whether it wins (over its parse) or not.
fn blanks_then_first_round(r: &Reducer<'_>, v: View<'_>) -> Option<Lookahead> {
    let blanks = crate::blanks::step(r, v, auto_first_round);
    Lookahead::chain([blanks, auto_first_round(r, v)])
}

/// The tree moves' first round over the tree in `v`, in `auto`'s order, while every candidate
/// fails: what `auto` tests after the blank move, whether it wins (over its parse) or not.
fn auto_first_round(r: &Reducer<'_>, v: View<'_>) -> Option<Lookahead> {
    Lookahead::round(r, v, &r.format().templates(), true).0
}

/// The pass that makes up for what the rules cost: a sweep, in pre-order and template order,
/// over the single transformations the rules forbid on the current (already reduced) tree, each
/// tried on top of those the sweep already kept (as HDD+ sweeps deletions). Returns whether it
/// kept any, so that the caller reduces again, with the rules, from there. When it returns
/// `false`, no transformation the rules forbid is interesting on its own, and the filtered
/// algorithm had already found none of the allowed ones interesting, so the result is
/// 1-transformation-minimal as it would be without rules. Only the candidates the rules removed
/// are new tests.
fn try_forbidden(
    r: &mut Reducer<'_>,
    templates: &[Box<dyn Template>],
    deletions_first: bool,
) -> Result<bool, ReduceError> {
    if !r.has_rules() {
        return Ok(false);
    }
    let forbidden = forbidden_items(r.view(), templates);
    // When the sweep keeps nothing, the tree moves end: the tidy rendering comes next (unless a
    // list move does); when it keeps something, a round of GTR over the tree it leaves.
    let next = |r: &Reducer<'_>, v: View<'_>, changed: bool| {
        if changed {
            let round = Lookahead::round(r, v, templates, deletions_first);
            then_the_end(r, v, templates, round, deletions_first)
        } else {
            tidy_next(r, v, deletions_first)
        }
    };
    sweep_then(r, &forbidden, Successor::new(r, &next))
}

fn run_algorithm(r: &mut Reducer<'_>, algorithm: Algorithm) -> Result<(), ReduceError> {
    let templates = r.format().templates();
    match algorithm {
        Algorithm::Ddmin => ddmin_leaves(r),
        Algorithm::Hdd => hdd(r).map(drop),
        Algorithm::HddStar => fixpoint(r, |r| hdd_round(r, true)),
        Algorithm::HddPlus => {
            hdd(r)?;
            hdd_plus_phase(r)
        }
        Algorithm::Gtr => gtr(r, &templates).map(drop),
        Algorithm::GtrStar => fixpoint(r, |r| gtr_round(r, &templates, true, false)),
        Algorithm::Auto => auto_rounds(r, &templates),
    }
}

/// GTR*'s rounds in `auto`'s order, until one changes nothing. Each skips the deletions and
/// substitutions that failed alone in an earlier one, in this run of the tree moves or an
/// earlier one of the pipeline (`tried::Refused`): while the other moves only shrink the file or
/// rename its names, such an edit fails again. So the round that ends the run may still have
/// skipped an edit that would now win; the pipeline ends only with a round that skips nothing
/// ([`confirming_round`]).
fn auto_rounds(r: &mut Reducer<'_>, templates: &[Box<dyn Template>]) -> Result<(), ReduceError> {
    fixpoint(r, |r| gtr_round(r, templates, true, true))
}

/// The round of GTR* in `auto`'s order that ends the pipeline when it changes nothing: the
/// memory of what failed alone is forgotten first, so it skips nothing, and its fixpoint is a
/// round that tries every item and changes nothing, as GTR*'s: the result is 1-minimal whatever
/// the test. What fails alone in it is remembered anew for the rounds after it. Returns whether
/// it changed anything. Waiting for the pipeline's end rather than ending each run of the tree
/// moves this way, the moves below the tree (a few tests each) come before it, and a run of the
/// tree moves after them skips what the runs before tried.
fn confirming_round(r: &mut Reducer<'_>) -> Result<bool, ReduceError> {
    r.set_phase("tree");
    r.forget_refused_alone();
    let templates = r.format().templates();
    gtr_round(r, &templates, true, true)
}

/// Repeats a round until it accepts nothing (HDD*, GTR* of Alg. 6).
fn fixpoint(
    r: &mut Reducer<'_>,
    mut round: impl FnMut(&mut Reducer<'_>) -> Result<bool, ReduceError>,
) -> Result<(), ReduceError> {
    while round(r)? {}
    Ok(())
}

/// [`ddmin_from`] over the items of one level for one template, starting at the granularity
/// where the last run over that level and template (its `slot`) ended: in a fixpoint's later
/// rounds, a level that is already 1-minimal then costs about one test per item instead of four.
/// Without a slot, from two parts. With `refused` (a level and a template), the items the run
/// kept are recorded as failed alone there ([`crate::tried::Refused`]). Then a commit. Returns
/// whether anything changed.
fn ddmin_level(
    r: &mut Reducer<'_>,
    slot: Option<(usize, usize)>,
    items: &[(NodeId, Edit)],
    (tested, refused): (Tested, Option<(usize, usize)>),
    mut after: Successor<'_>,
) -> Result<bool, ReduceError> {
    let start = slot.map_or(2, |slot| r.granularity(slot));
    let (kept, ended) = ddmin_from(r, &Edits::new(), items, start, tested, &mut after)?;
    if let Some(slot) = slot {
        r.set_granularity(slot, ended);
    }
    if let Some(at) = refused {
        r.record_refused_alone(at, kept.into_iter().map(|i| items[i]));
    }
    r.commit_parsed(after.into_parsed(r.best()))
}

fn ddmin_leaves(r: &mut Reducer<'_>) -> Result<(), ReduceError> {
    let items: Vec<(NodeId, Edit)> = r
        .format()
        .ddmin_units(r.tree())
        .into_iter()
        .map(|n| (n, Edit::Delete))
        .collect();
    ddmin(r, &Edits::new(), &items)?;
    r.commit()?;
    Ok(())
}

/// HDD (HDD paper, Alg. 1): for each level, top down, ddmin over the level's nodes, then prune.
/// Returns whether anything was removed.
pub fn hdd(r: &mut Reducer<'_>) -> Result<bool, ReduceError> {
    hdd_round(r, false)
}

/// [`hdd`]; `repeats` says that a round which changed something is followed by another (HDD*),
/// so that past the last level, idle workers start the next round's first step.
fn hdd_round(r: &mut Reducer<'_>, repeats: bool) -> Result<bool, ReduceError> {
    let mut changed = false;
    let mut level = 0;
    loop {
        let nodes = r.tree().level(level);
        if nodes.is_empty() {
            break;
        }
        let items: Vec<(NodeId, Edit)> = nodes.into_iter().map(|n| (n, Edit::Delete)).collect();
        let changed_before = changed;
        let next = |r: &Reducer<'_>, v: View<'_>, now: bool| {
            let again = repeats && (changed_before || now);
            Lookahead::hdd_level(r, v, level + 1)
                .or_else(|| again.then(|| Lookahead::hdd_level(r, v, 0))?)
        };
        let after = Successor::new(r, &next);
        changed |= ddmin_level(r, Some((level, 0)), &items, (Tested::All, None), after)?;
        level += 1;
    }
    Ok(changed)
}

/// The second phase of HDD+: try to delete single nodes in breadth-first order, repeating the
/// sweep while it removes something. The result is 1-tree-minimal.
fn hdd_plus_phase(r: &mut Reducer<'_>) -> Result<(), ReduceError> {
    // The sweep after one that removed something, over the tree it leaves.
    let next = |_: &Reducer<'_>, v: View<'_>, changed: bool| {
        changed.then(|| Lookahead::bfs_deletions(v))?
    };
    loop {
        let items: Vec<(NodeId, Edit)> = r
            .tree()
            .bfs()
            .into_iter()
            .map(|n| (n, Edit::Delete))
            .collect();
        if !sweep_then(r, &items, Successor::new(r, &next))? {
            return Ok(());
        }
    }
}

/// GTR (Alg. 4): for each level, top down, apply every template to the level's nodes; an
/// at-most-one template through ddmin, the others through the backtracking search of Alg. 5.
/// Returns whether anything changed.
pub fn gtr(r: &mut Reducer<'_>, templates: &[Box<dyn Template>]) -> Result<bool, ReduceError> {
    gtr_round(r, templates, false, false)
}

/// [`gtr`]; `repeats` says that a round which changed something is followed by another (GTR*),
/// so that past the last level, idle workers start the next round's first step. With
/// `deletions_first` (the default pipeline, beyond the paper), a template that substitutes a
/// node by a descendant waits, on a wide level, until the deletions of the level below have run:
/// on a flat tree (a file of lines) substituting the root by each of its children costs a test
/// per child before the first improvement, and after the deletions few children are left. In
/// that order too, a level's next pass tries only what no pass over it has tried (`tried.rs`),
/// and Alg. 5 sweeps once: the paper's next sweep would try again what the first one tried
/// (every candidate either failed, or won and is the node's replacement now). GTR*'s last round
/// changes nothing, so it still tries every candidate once.
pub(crate) fn gtr_round(
    r: &mut Reducer<'_>,
    templates: &[Box<dyn Template>],
    repeats: bool,
    deletions_first: bool,
) -> Result<bool, ReduceError> {
    let mut changed = false;
    let mut level = 0;
    while level <= r.tree().height() {
        // A template that moves nodes up (substitution) fills this level with nodes no template
        // has tried here yet, so the level is reduced again until it stops changing. In `auto`'s
        // order, those passes try only what the passes before them have not (`tried.rs`).
        let mut tried = deletions_first.then(|| Tried::new(templates.len()));
        let mut again = true;
        let mut level_changed = false;
        while again {
            again = false;
            for (i, t) in templates.iter().enumerate() {
                if deletions_first && !t.at_most_one() && wide(r.tree(), level) {
                    changed |= deletions_below(r, templates, level)?;
                }
                let Some(items) = level_items(r, level, i, t.as_ref(), tried.as_mut()) else {
                    continue;
                };
                // What comes next: the pass goes on to the next template, and once it has
                // changed the level with a template that moves nodes up, the level is passed
                // again.
                let (pass_again, changed_before) = (again, changed);
                let tried = tried.as_ref();
                // After the run of template `j` on level `l` (this one, or one the plan reaches
                // past it), if it changed the tree (`now`), with the tree then in `v`. What the
                // passes over another level tried is not known here: in `auto`'s order, where
                // the level's next pass tries only what is new, the plan leaves that pass out.
                let after_run = |r: &Reducer<'_>, v: View<'_>, (l, j): Origin, now: bool| {
                    let here = l == level;
                    let again = (here && pass_again)
                        || (now && !templates[j].at_most_one() && (here || !deletions_first));
                    let round_again = repeats && (changed_before || now);
                    let runs = Lookahead::after_template(
                        r,
                        v,
                        templates,
                        (l, j),
                        (again, round_again),
                        Order {
                            deletions_first,
                            tried: tried.filter(|_| here),
                            skips_refused: deletions_first,
                        },
                    );
                    then_the_end(r, v, templates, runs, deletions_first)
                };
                let next = |r: &Reducer<'_>, v: View<'_>, now| after_run(r, v, (level, i), now);
                let past = |r: &Reducer<'_>, v: View<'_>, origin| after_run(r, v, origin, true);
                let after = Successor::new(r, &next).continued(r, &past);
                let run_changed =
                    apply_items(r, (level, i), t.as_ref(), &items, deletions_first, after)?;
                changed |= run_changed;
                level_changed |= run_changed;
                again |= run_changed && !t.at_most_one();
            }
        }
        // In `auto`'s order, what the format's list moves between levels take once this level
        // has changed (C's declarations its deletions left unused), before the levels below.
        if deletions_first && level_changed {
            changed |= crate::lists::reduce_between_levels(r)?;
        }
        level += 1;
    }
    Ok(changed)
}

/// The at-most-one templates (the deletions) over the level below `level`. Returns whether they
/// changed anything.
fn deletions_below(
    r: &mut Reducer<'_>,
    templates: &[Box<dyn Template>],
    level: usize,
) -> Result<bool, ReduceError> {
    let mut changed = false;
    for (j, t) in templates.iter().enumerate() {
        if t.at_most_one()
            && let Some(items) = level_items(r, level + 1, j, t.as_ref(), None)
        {
            let after = Successor::none();
            changed |= apply_items(r, (level + 1, j), t.as_ref(), &items, true, after)?;
        }
    }
    Ok(changed)
}

/// The candidates of template `index` (`t`) over the nodes of `level` (`None` if the level has
/// none); with `tried`, only those it has not tried on the level before, which are then recorded
/// as tried.
fn level_items(
    r: &Reducer<'_>,
    level: usize,
    index: usize,
    t: &dyn Template,
    tried: Option<&mut Tried>,
) -> Option<Items> {
    let nodes = r.tree().level(level);
    if nodes.is_empty() {
        return None;
    }
    let (items, filtered) = template_items(r.view(), &nodes, t);
    r.count_filtered(filtered);
    let before = items.len();
    let items = (r.refused_alone()).skip(r.tree(), (level, index), items);
    let Some(tried) = tried else {
        let all = items.len() == before;
        return (all || !items.is_empty()).then_some(Items { items, all });
    };
    let items = tried.take_untried(r.tree(), index, items);
    let all = items.len() == before;
    // Nothing new on the level: nothing to run (and no ddmin granularity to forget).
    (all || !items.is_empty()).then_some(Items { items, all })
}

/// A template's candidates over a level, and whether they are all of them (not only those a
/// pass before has not tried).
struct Items {
    items: Vec<(NodeId, Edit)>,
    all: bool,
}

/// Alg. 4's `applyTemplate`: one template over its candidates on one level, then a commit.
/// `after` is what comes next. In `auto`'s order, Alg. 5 sweeps once (see [`gtr_round`]).
fn apply_items(
    r: &mut Reducer<'_>,
    (level, index): (usize, usize),
    t: &dyn Template,
    items: &Items,
    auto: bool,
    after: Successor<'_>,
) -> Result<bool, ReduceError> {
    if t.at_most_one() {
        // A run over the few new nodes of a level neither starts at nor leaves the granularity
        // of the runs over all of it.
        let slot = items.all.then_some((level, index + 1));
        // `auto` runs to a fixpoint whose last round wins nothing ([`Tested::Untried`]), and
        // its later rounds skip what a run kept ([`crate::tried::Refused`]).
        let known = if auto {
            (Tested::Untried, Some((level, index)))
        } else {
            (Tested::All, None)
        };
        ddmin_level(r, slot, &items.items, known, after)
    } else {
        let refused = auto.then_some((level, index));
        reduce_level_nodes(r, &items.items, refused, after)
    }
}

/// Alg. 5: greedy backtracking over the candidates of every node of a level. Each node's current
/// replacement starts as itself; a candidate is tried only if it is smaller than the current
/// replacement; the paper's sweeps repeat until one finds no improvement; `auto`'s (with
/// `refused`, its level and template) sweeps once, and records the candidates that failed
/// ([`crate::tried::Refused`]). Then a commit.
fn reduce_level_nodes(
    r: &mut Reducer<'_>,
    items: &[(NodeId, Edit)],
    refused: Option<(usize, usize)>,
    mut after: Successor<'_>,
) -> Result<bool, ReduceError> {
    let mut conf = Edits::new();
    let make = |r: &Reducer<'_>, conf: &Edits, item| smaller_replacement(r.tree(), conf, item);
    let repeat = refused.is_none();
    let mut failed = Vec::new();
    loop {
        let failed = refused.is_some().then_some(&mut failed);
        let kept = greedy_scan(
            r,
            items,
            &mut conf,
            repeat,
            &mut after,
            make,
            render_edits,
            failed,
        )?;
        if !(kept && repeat) {
            break;
        }
    }
    if let Some(at) = refused {
        r.record_refused_alone(at, failed.into_iter().map(|i| items[i]));
    }
    r.commit_parsed(after.into_parsed(r.best()))
}
