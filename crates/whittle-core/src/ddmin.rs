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
    ddmin_from(r, base, items, 2, Tested::All, &mut Successor::none()).map(|(kept, _)| kept)
}

/// Which candidates a run of ddmin tests.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Tested {
    /// Every one (the papers' ddmin): the run's result is 1-minimal whatever the test.
    All,
    /// Not those its own failures rule out if the test is monotone ([`Failures::weight`] 0: the
    /// candidate removes every item, still in its configuration, of a set whose removal failed
    /// before). A run that wins nothing still tests every single item: without a win the
    /// configuration stays the same, so one item's removal is ruled out only by its own failure
    /// (parts of as many items nest, so there nothing else is skipped either; parts by size may
    /// not, and a part that holds a failed one is skipped). A run that wins is followed by
    /// another in a fixpoint (`auto`'s rounds): the last run over the same items wins nothing
    /// and has tested each of them alone.
    Untried,
}

/// What a run of ddmin is told of its items beyond them.
#[derive(Clone, Copy)]
pub(crate) struct Known<'k> {
    /// Which candidates it tests.
    pub(crate) tested: Tested,
    /// The key naming a set of its items (`None`: nothing names them). The failures the run ends
    /// with are kept under the key of the items it kept ([`Failures::of_kept`]), and weigh the
    /// plan of the next run over those items (the next round's: in a fixpoint, a run that finds
    /// nothing is then planned as the chain of failures it is). They do not change what that
    /// run tests.
    pub(crate) key: Option<&'k ItemsKey<'k>>,
}

/// The key naming the items `kept` (sorted indices into a run's items).
pub(crate) type ItemsKey<'k> = dyn Fn(&[usize]) -> u64 + 'k;

impl From<Tested> for Known<'_> {
    fn from(tested: Tested) -> Self {
        Known { tested, key: None }
    }
}

/// [`ddmin`] that starts at granularity `start`, testing the candidates `tested` says; returns
/// the granularity it ended at too. `after` is what the algorithm does next (see [`ddmin_by`]).
pub(crate) fn ddmin_from(
    r: &mut Reducer<'_>,
    base: &Edits,
    items: &[(NodeId, Edit)],
    start: usize,
    tested: Tested,
    after: &mut Successor<'_>,
) -> Result<(Vec<usize>, usize), ReduceError> {
    ddmin_by(
        r,
        Split::first(items.len(), start),
        |kept| edits_keeping(base, items, kept),
        |r, edits, out| r.format().render(r.doc(), edits, out),
        tested.into(),
        after,
        None,
    )
}

/// ddmin over the items of `first`, its first step, of any kind: `candidate(kept)` is the
/// candidate that keeps the items `kept` (sorted) and removes (or applies) all others, rendered
/// by `render`.
///
/// Subsets are tried only at `n = 2` (where they are the complements); after a complement is
/// removed, the scan goes on from the same part instead of the first (with [`Tested::Untried`],
/// `auto`'s runs, also when every part of the step after it fails: [`Split::resuming`]); and the
/// first split may be
/// into more parts than 2 (`Split::first`: the granularity where an earlier run over the same
/// items ended), or into parts of as many bytes (`Split::by_size_down_to`). Returns
/// the kept items and the granularity the run ended at. With [`Tested::All`] the result is
/// 1-minimal as with the textbook algorithm: the run ends only when no single item can go; with
/// [`Tested::Untried`], when no single item can go that the run's failures do not rule out.
///
/// Each step gives the test pool a plan of the run (`plan.rs`): the splits that follow a failure
/// (`2n` parts) and a win (what the winner keeps), several steps deep, weighed by the odds the
/// run has learned and by what its failed candidates rule out ([`Failures`]), and past the run's
/// end `after` (the first step of what the algorithm does next, over the tree the run's best
/// bytes will have once committed). With `later`, the plan walks on into the runs that follow
/// this one over other items before it reaches `after`.
pub(crate) fn ddmin_by<C: Send>(
    r: &mut Reducer<'_>,
    first: Split,
    candidate: impl Fn(&[usize]) -> C + Sync,
    render: impl Fn(&Reducer<'_>, &C, &mut Vec<u8>) + Sync,
    known: Known<'_>,
    after: &mut Successor<'_>,
    later: Option<&Later<'_>>,
) -> Result<(Vec<usize>, usize), ReduceError> {
    let len = first.config.len();
    let first = first.resuming(known.tested == Tested::Untried);
    let mut step = Rc::new(first);
    let memo = Memo::default();
    let mut failures = Failures::default();
    let ended = (known.key).and_then(|key| {
        let all: Vec<usize> = (0..len).collect();
        r.ended_failures(key(&all), len).cloned()
    });
    let ended = ended.unwrap_or_default();
    // A run of a few rounds' candidates is ddmin's, whose plan speculates past its end too:
    // only wide runs merge wins.
    let merge = r.merge_breadth().filter(|&b| len > MERGE_WIDTH * b);
    while !step.config.is_empty() {
        if let Some(breadth) = merge {
            match merged_step(r, &step, breadth, &candidate, &render)? {
                Some(next) => step = Rc::new(next),
                None => break,
            }
            continue;
        }
        let reducer = &*r;
        let after = Lazy::new(&mut *after, reducer);
        let render_c = |c: &C, out: &mut Vec<u8>| render(reducer, c, out);
        let steps = DdminSteps {
            candidate: &candidate,
            render: &render_c,
            later: later.map(|l| (l, reducer)),
            failures: &failures,
            ended: &ended,
            weights: RefCell::default(),
            tested: known.tested,
        };
        let plan = Planner {
            steps: &steps,
            current: Rc::new(Run::first(step.clone())),
            odds: reducer.odds(),
            after: Some(&after),
            memo: &memo,
        };
        let found = reducer.first_interesting_then(
            step.count(),
            &|i| steps.tests(&step, i).then(|| candidate(&step.kept(i))),
            &render_c,
            Next {
                plan: Some(&plan),
                ..Next::default()
            },
        )?;
        // The odds are learned from the candidates as the failures so far weighed them; the
        // failed ones then weigh the candidates to come.
        let tried = found.as_ref().map_or(step.count(), |f| f.index + 1);
        for i in 0..tried {
            let won = found.as_ref().is_some_and(|f| f.index == i);
            // A winner counts, whatever its failures weighed it (`won` <= `tried`).
            let weight = steps.weight(&Run::first(step.clone()), i);
            let weight = if won { weight.max(0.1) } else { weight };
            r.odds()
                .record(Odds::ddmin_class(step.count(), i), weight, won);
        }
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
    if let Some(key) = known.key {
        r.set_ended_failures(key(&config), config.len(), failures.of_kept(&config));
    }
    Ok((config, n))
}

/// A run merges wins ([`crate::Options::merge`]) if it has more than this many times as many
/// items as a round tests.
const MERGE_WIDTH: usize = 4;

/// A round of ddmin that merges concurrent wins ([`crate::Options::merge`]). It tests at once
/// every candidate of `step` and of the finer splits of the same configuration after it (as
/// many as `breadth` candidates in all: a [`Round`]); if several win, it tries the
/// configuration without everything they removed, and keeps it if it is interesting; otherwise
/// it keeps the first winner, coarsest split first, as ddmin would. Returns the next step;
/// `None` when the run ends. The winners do not depend on the order the tests end in, so the
/// output depends on `breadth` but not on the machine.
fn merged_step<C: Send>(
    r: &mut Reducer<'_>,
    step: &Split,
    breadth: usize,
    candidate: &(impl Fn(&[usize]) -> C + Sync),
    render: &(impl Fn(&Reducer<'_>, &C, &mut Vec<u8>) + Sync),
) -> Result<Option<Split>, ReduceError> {
    let round = Round::new(step, step.config.clone(), step.count(), breadth);
    let reducer = &*r;
    let render_c = |c: &C, out: &mut Vec<u8>| render(reducer, c, out);
    let make = |k: usize| Some(candidate(&round.kept(k)));
    let won = reducer.all_interesting(round.total, &make, &render_c)?;
    let Some(first) = won.first() else {
        return Ok(round.splits.last().and_then(Split::finer));
    };
    if won.len() > 1 {
        let mut removed = vec![0u64; step.bits.len()];
        for f in &won {
            let (s, i) = round.at(f.index);
            for (r, w) in removed.iter_mut().zip(round.splits[s].removed(i)) {
                *r |= w;
            }
        }
        let kept: Vec<usize> = (step.config.iter().copied())
            .filter(|&x| removed[x / 64] & (1 << (x % 64)) == 0)
            .collect();
        let n = step.count().clamp(2, kept.len().max(2));
        // While the union is tested, idle workers start the round that follows if it wins.
        let next = Round::new(step, kept.clone(), n, breadth);
        let next_count = |_: usize| next.total;
        let next_render = |_: usize, k: usize, out: &mut Vec<u8>| {
            render_c(&candidate(&next.kept(k)), out);
            true
        };
        let union = reducer.first_interesting_then(
            1,
            &|_| Some(candidate(&kept)),
            &render_c,
            Next {
                won: Some((&next_count, &next_render)),
                ..Next::default()
            },
        )?;
        if let Some(union) = union {
            r.count_merged();
            r.accept(&union);
            return Ok(Some(step.of_run(kept, n, 0)));
        }
    }
    let (s, i) = round.at(first.index);
    r.accept(first);
    Ok(Some(round.splits[s].after_win(i)))
}

/// What a round of [`merged_step`] tests: the split of `config` into `n` parts and the finer
/// splits after it, as many as fit in `breadth` candidates (the first one always).
struct Round {
    splits: Vec<Split>,
    total: usize,
}

impl Round {
    /// The round over `config` from `n` parts, in a run whose step `run` is.
    fn new(run: &Split, config: Vec<usize>, n: usize, breadth: usize) -> Round {
        let mut splits = vec![run.of_run(config, n, 0)];
        let mut total = splits[0].count();
        while let Some(finer) = splits.last().and_then(Split::finer) {
            if total + finer.count() > breadth {
                break;
            }
            total += finer.count();
            splits.push(finer);
        }
        Round { splits, total }
    }

    /// Candidate `k` of the round: its split, and its index there.
    fn at(&self, mut k: usize) -> (usize, usize) {
        let mut s = 0;
        while k >= self.splits[s].count() {
            k -= self.splits[s].count();
            s += 1;
        }
        (s, k)
    }

    /// The items candidate `k` keeps.
    fn kept(&self, k: usize) -> Vec<usize> {
        let (s, i) = self.at(k);
        self.splits[s].kept(i)
    }
}

/// The ddmin runs an algorithm makes after the current one, over other items, for the plan to
/// walk into (the characters of the literals after this one): how many items run `j` has (`j` =
/// 0 the first run after this one; `None` past the last), the key naming them ([`Known::key`]),
/// and the rendering of its candidate that keeps `kept` of its items when the runs before it,
/// this one first, kept `ended`.
pub(crate) struct Later<'l> {
    pub(crate) len: &'l dyn Fn(usize) -> Option<usize>,
    pub(crate) key: &'l dyn Fn(usize) -> Option<u64>,
    pub(crate) render: &'l RenderLater<'l>,
}

/// Renders a candidate of a later run: the run, what the runs before it kept, what it keeps.
pub(crate) type RenderLater<'l> =
    dyn Fn(&Reducer<'_>, usize, &[Vec<usize>], &[usize], &mut Vec<u8>) + 'l;

/// A step of the plan's machine: a step of the current run (`run` 0) or of the later run
/// `run - 1`.
struct Run {
    run: usize,
    split: Rc<Split>,
    /// What the runs before `run` kept, the current one's first.
    ended: Rc<Vec<Vec<usize>>>,
    /// Tells the plan's steps apart.
    id: u64,
}

impl Run {
    fn first(split: Rc<Split>) -> Run {
        Run {
            run: 0,
            id: split.id,
            split,
            ended: Rc::default(),
        }
    }

    fn new(run: usize, split: Split, ended: Rc<Vec<Vec<usize>>>) -> Run {
        let id = if run == 0 {
            split.id
        } else {
            let mut h = rustc_hash::FxHasher::default();
            (split.id, run, &*ended).hash(&mut h);
            h.finish()
        };
        Run {
            run,
            id,
            split: Rc::new(split),
            ended,
        }
    }
}

/// ddmin's steps for a [`Planner`]: a step is a [`Split`] of the current run or of a later one
/// ([`Later`]); the current run's candidates are rendered by `render` from the candidate
/// `candidate` makes of the items they keep.
struct DdminSteps<'a, 'r, C> {
    candidate: &'a (dyn Fn(&[usize]) -> C + Sync),
    render: &'a dyn Fn(&C, &mut Vec<u8>),
    later: Option<(&'a Later<'a>, &'a Reducer<'r>)>,
    failures: &'a Failures,
    /// What the last run over the current run's items found fails ([`Known::key`]).
    ended: &'a Failures,
    /// [`Failures::weight`] of the current run's candidates looked at, by [`Steps::id`].
    weights: RefCell<FxHashMap<u64, f64>>,
    tested: Tested,
}

impl<C> DdminSteps<'_, '_, C> {
    /// The first step of the run after `s`'s, which ended keeping `kept`.
    fn next_run(&self, s: &Run, kept: Vec<usize>) -> Option<Run> {
        let (later, _) = self.later?;
        let len = (later.len)(s.run)?;
        let mut ended = (*s.ended).clone();
        ended.push(kept);
        let first = Split::first(len, 2).resuming(self.tested == Tested::Untried);
        Some(Run::new(s.run + 1, first, Rc::new(ended)))
    }

    /// Whether the run tests candidate `i` of its step `s` ([`Tested`]).
    fn tests(&self, s: &Split, i: usize) -> bool {
        self.tested == Tested::All || self.failures_weight(s, i) > 0.0
    }

    /// What the current run's failures say of candidate `i` of `s` ([`Failures::weight`]).
    fn failures_weight(&self, s: &Split, i: usize) -> f64 {
        let id = part_id(s, i);
        if let Some(&w) = self.weights.borrow().get(&id) {
            return w;
        }
        let w = self.failures.weight(s, i);
        self.weights.borrow_mut().insert(id, w);
        w
    }
}

/// A number that tells candidate `i` of `s` apart from the run's other candidates.
fn part_id(s: &Split, i: usize) -> u64 {
    let p = &s.parts[s.part(i)];
    let mut h = rustc_hash::FxHasher::default();
    (s.id, p.start, p.end).hash(&mut h);
    h.finish()
}

impl<C> Steps for DdminSteps<'_, '_, C> {
    type Step = Run;

    fn count(&self, s: &Run) -> usize {
        s.split.count()
    }

    fn id(&self, s: &Run, i: usize) -> u64 {
        let id = part_id(&s.split, i);
        if s.run == 0 {
            id
        } else {
            let mut h = rustc_hash::FxHasher::default();
            (id, s.id).hash(&mut h);
            h.finish()
        }
    }

    fn step_id(&self, s: &Run) -> u64 {
        s.id
    }

    fn render(&self, s: &Run, i: usize, out: &mut Vec<u8>) -> bool {
        if s.run == 0 && !self.tests(&s.split, i) {
            return false;
        }
        let kept = s.split.kept(i);
        match (s.run, &self.later) {
            (0, _) => (self.render)(&(self.candidate)(&kept), out),
            (_, Some((later, r))) => (later.render)(r, s.run - 1, &s.ended, &kept, out),
            (_, None) => return false,
        }
        true
    }

    fn won(&self, s: &Run, i: usize) -> Option<Run> {
        let w = s.split.after_win(i);
        if w.config.is_empty() {
            self.next_run(s, Vec::new())
        } else {
            Some(Run::new(s.run, w, s.ended.clone()))
        }
    }

    fn failed(&self, s: &Run) -> Option<Run> {
        match s.split.finer() {
            Some(finer) => Some(Run::new(s.run, finer, s.ended.clone())),
            None => self.next_run(s, s.split.config.clone()),
        }
    }

    fn class(&self, s: &Run, i: usize) -> usize {
        Odds::ddmin_class(s.split.count(), i)
    }

    /// The current run's failures, and those the last run over its items ended with, weigh its
    /// candidates; a later run's, those the last run over its items ended with.
    fn weight(&self, s: &Run, i: usize) -> f64 {
        if s.run == 0 {
            self.failures_weight(&s.split, i) * self.ended.weight(&s.split, i)
        } else {
            let ended = self.later.and_then(|(later, r)| {
                let (key, len) = ((later.key)(s.run - 1)?, (later.len)(s.run - 1)?);
                r.ended_failures(key, len)
            });
            ended.map_or(1.0, |f| f.weight(&s.split, i))
        }
    }
}
