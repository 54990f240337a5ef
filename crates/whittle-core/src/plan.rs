//! Speculation several steps deep: the candidates of the steps that follow the current one, on
//! the branches where a candidate wins as well as where every candidate fails, ordered by how
//! likely the reduction is to need them.
//!
//! A run of ddmin, or a greedy sweep, is a state machine: its next step depends only on which
//! candidate of the current one wins first, or that none does ([`Steps`]). From the current step,
//! [`Planner`] walks that tree of outcomes best first. A candidate whose verdict is known (cached)
//! leads down one branch with the probability it arrived with; one whose verdict is not known
//! leads down both, weighted by the odds that a candidate of its kind wins ([`Odds`], learned
//! from the run itself: per kind of step and per ddmin granularity). The test pool starts the
//! candidates it is offered in that order while it has workers free (and keeps the ones already
//! running that are still offered), so with N workers the N candidates most likely to be needed
//! run, however many steps ahead they are. What the reduction does not take is not wasted when
//! its bytes come up later: verdicts are cached by content.

use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::rc::Rc;
use std::sync::Mutex;

/// How a run goes on from a step. `Step` is the run's state before a step's scan starts.
pub(crate) trait Steps {
    type Step;
    /// How many candidates step `s` has.
    fn count(&self, s: &Self::Step) -> usize;
    /// A number that tells candidate `i` of `s` apart from the run's other candidates (equal
    /// numbers for equal candidates), so that its rendering is made once per run.
    fn id(&self, s: &Self::Step, i: usize) -> u64;
    /// A number that tells `s` apart from the run's other steps, so that the steps after it are
    /// made once per run.
    fn step_id(&self, s: &Self::Step) -> u64;
    /// Renders candidate `i` of `s`; `false` if it has none (a skipped candidate).
    fn render(&self, s: &Self::Step, i: usize, out: &mut Vec<u8>) -> bool;
    /// The step after candidate `i` of `s` wins; `None` if the run then ends.
    fn won(&self, s: &Self::Step, i: usize) -> Option<Self::Step>;
    /// The step after every candidate of `s` fails; `None` if the run then ends.
    fn failed(&self, s: &Self::Step) -> Option<Self::Step>;
    /// The kind of candidate `i` of `s`, for [`Odds`] (below [`Odds::CLASSES`]).
    fn class(&self, s: &Self::Step, i: usize) -> usize;
    /// What is known of candidate `i` of `s` beyond its class, as a factor of its class's chance
    /// to win: 0 when it is known to fail (it is still tested, but its win is not planned for).
    fn weight(&self, _s: &Self::Step, _i: usize) -> f64 {
        1.0
    }
}

/// How often a tested candidate of each kind of step won in this reduction, in all and per
/// move ([`Odds::set_move`]): ddmin over a literal's characters wins far more often than ddmin
/// over a file's lines at the same granularity.
#[derive(Default)]
pub(crate) struct Odds {
    counts: Mutex<Counts>,
}

/// (won, tried) per class; a candidate tried counts with its weight ([`Steps::weight`]).
type Classes = [(f64, f64); Odds::CLASSES];

#[derive(Default)]
struct Counts {
    all: Classes,
    by_move: FxHashMap<&'static str, Classes>,
    /// The move whose steps are judged now.
    current: &'static str,
}

impl Odds {
    /// Classes 0–29: ddmin by its number of parts (one class each below 16, then one per power
    /// of two; 0 stands for the second candidate of a split in two, which is tested only once
    /// the first has failed, so that one of the two halves often holds what the test needs);
    /// 30: a greedy sweep.
    pub(crate) const CLASSES: usize = 31;
    pub(crate) const SWEEP: usize = 30;

    /// The class of candidate `i` of a ddmin step over `parts` parts.
    pub(crate) fn ddmin_class(parts: usize, i: usize) -> usize {
        if parts == 2 && i == 1 {
            0
        } else if parts < 16 {
            parts
        } else {
            (12 + parts.ilog2() as usize).min(Odds::SWEEP - 1)
        }
    }

    /// Names the move whose steps are recorded and planned from now on.
    pub(crate) fn set_move(&self, name: &'static str) {
        self.lock().current = name;
    }

    /// The chance that a candidate of `class` not yet judged wins, in the current move (`own`)
    /// or in another: what its class did in the move so far, after a prior of what it did in
    /// the whole reduction ([`Odds::chance_of`]).
    pub(crate) fn chance(&self, class: usize, own: bool) -> f64 {
        let c = self.lock();
        let all = chance_of(&c.all, class, PRIOR);
        match c.by_move.get(c.current).filter(|_| own) {
            Some(m) => chance_of(m, class, all),
            None => all,
        }
    }

    /// Records that a candidate of `class` in the current move was judged with weight
    /// `tried`, and whether it won.
    pub(crate) fn record(&self, class: usize, tried: f64, won: bool) {
        let mut c = self.lock();
        let class = class.min(Odds::CLASSES - 1);
        let add = |e: &mut (f64, f64)| {
            e.0 += f64::from(u8::from(won));
            e.1 += tried;
        };
        add(&mut c.all[class]);
        let current = c.current;
        add(&mut c
            .by_move
            .entry(current)
            .or_insert([(0.0, 0.0); Odds::CLASSES])[class]);
    }

    /// The classes something was recorded for, named, with their (won, tried): in the whole
    /// reduction (under the move ""), then in each move, by the move's name.
    pub(crate) fn report(&self) -> Vec<(&'static str, String, f64, f64)> {
        let c = self.lock();
        let mut moves: Vec<_> = c.by_move.iter().map(|(&m, classes)| (m, classes)).collect();
        moves.sort_by_key(|&(m, _)| m);
        (std::iter::once(("", &c.all)).chain(moves))
            .flat_map(|(m, c)| {
                (0..Odds::CLASSES)
                    .filter(|&k| c[k].1 > 0.0)
                    .map(move |k| (m, Odds::name(k), c[k].0, c[k].1))
            })
            .collect()
    }

    /// A class's name: `ddmin N parts` (the smallest N of the class), or `sweep`.
    fn name(class: usize) -> String {
        match class {
            Odds::SWEEP => "sweep".to_string(),
            0 => "ddmin 2 parts, second".to_string(),
            k if k < 16 => format!("ddmin {k} parts"),
            k => format!("ddmin {}+ parts", 1usize << (k - 12)),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Counts> {
        self.counts.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The chance that a candidate of `class` not yet judged wins, after the counts `c`: what its
/// class did so far, after a prior of what the ddmin classes next to it did (within
/// [`NEIGHBOURS`] of it; the splits of 7 and 9 parts win about as often as those of 8), itself
/// after the prior `prior`. ddmin visits most of its classes briefly (after a win at 8 parts
/// comes a split of 7, then of 6), so a class's own few verdicts would leave its chance near the
/// prior where its neighbours already show most candidates win. The second half of a split in
/// two and sweeps have no neighbours.
fn chance_of(c: &Classes, class: usize, prior: f64) -> f64 {
    let class = class.min(Odds::CLASSES - 1);
    let prior = if class == Odds::SWEEP || class == 0 {
        prior
    } else {
        let near =
            class.saturating_sub(NEIGHBOURS).max(1)..=(class + NEIGHBOURS).min(Odds::SWEEP - 1);
        let (won, tried) = near
            .filter(|&k| k != class)
            .fold((0.0, 0.0), |(w, t), k| (w + c[k].0, t + c[k].1));
        (won + prior * 4.0) / (tried + 4.0)
    };
    let (won, tried) = c[class];
    ((won + prior * 4.0) / (tried + 4.0)).min(1.0)
}

/// The chance that a candidate wins before anything is known of its kind: most candidates fail,
/// so a step's failure, which is what the pool can start ahead without knowing which candidate
/// wins, is planned for first. The steps after a run are weighed by what their kind did so far
/// (after this prior), the tidy rendering and text rewrites by it alone.
const PRIOR: f64 = 0.25;

/// The ddmin classes this close to another inform its prior ([`Odds::chance`]).
const NEIGHBOURS: usize = 2;

/// A candidate the plan offers the pool: how likely the reduction is to need its verdict, its
/// bytes' key, and how to render them.
pub(crate) struct Wanted<'w> {
    pub(crate) chance: f64,
    pub(crate) key: u128,
    pub(crate) render: &'w dyn Fn(&mut Vec<u8>) -> bool,
}

/// The candidates that may be needed after (and beside) the current step's, most likely first.
pub(crate) trait Plan {
    /// Offers them to `want` from candidate `from` of the current step on, until `want` returns
    /// `false` or nothing likely enough is left; `best` is the key of the best bytes now, and
    /// `known` the cached verdict of a key.
    fn plan(
        &self,
        from: usize,
        best: u128,
        known: &dyn Fn(u128) -> Option<bool>,
        want: &mut dyn FnMut(Wanted<'_>) -> bool,
    );
}

/// The step a run goes on to after its last (`lookahead::Lazy`): its candidates when the run
/// ends with `best` (`None`: with the reducer's best bytes as they are), and, where that is
/// known, those of the steps that follow once some of them have won (`won`: the winners in
/// order, each numbered among the candidates of the steps the ones before it led to; empty: the
/// step itself). The rest of a ddmin run or of a sweep is known this way; what follows a run's
/// end is not.
pub(crate) trait Then {
    /// How many candidates it has (0 where they are not known).
    fn count_after(&self, best: Option<&[u8]>, won: &[usize]) -> usize;
    /// Renders candidate `i`; `false` if there is none.
    fn render_after(&self, best: Option<&[u8]>, won: &[usize], i: usize, out: &mut Vec<u8>)
    -> bool;
    /// [`Then::count_after`] on a branch the plan finds this likely (`chance`): where what
    /// follows the end of a run past the current one costs work to find out (a parse ahead),
    /// it is worked out for likely branches only, and counted once it is.
    fn count_ahead(&self, best: Option<&[u8]>, won: &[usize], chance: f64) -> usize {
        let _ = chance;
        self.count_after(best, won)
    }
    /// The kind of step candidate `i` belongs to ([`Odds::CLASSES`]); `None` (the default): one
    /// that nothing records, weighed by the prior.
    fn class_after(&self, best: Option<&[u8]>, won: &[usize], i: usize) -> Option<usize> {
        let _ = (best, won, i);
        None
    }
}

/// The plan of a [`Then`]'s steps alone, with their wins, as if after a step without
/// candidates: the reduction's opening (what the algorithm tests first), offered while the
/// original input is tested.
pub(crate) struct Opening<'p> {
    pub(crate) then: &'p dyn Then,
    pub(crate) odds: &'p Odds,
}

impl Plan for Opening<'_> {
    fn plan(
        &self,
        from: usize,
        best: u128,
        known: &dyn Fn(u128) -> Option<bool>,
        want: &mut dyn FnMut(Wanted<'_>) -> bool,
    ) {
        let memo = Memo::default();
        let planner = Planner {
            steps: &NoSteps,
            current: Rc::new(()),
            odds: self.odds,
            after: Some(self.then),
            memo: &memo,
        };
        planner.plan(from, best, known, want);
    }
}

/// A run of one step without candidates.
struct NoSteps;

impl Steps for NoSteps {
    type Step = ();

    fn count(&self, _: &()) -> usize {
        0
    }

    fn id(&self, _: &(), i: usize) -> u64 {
        i as u64
    }

    fn step_id(&self, _: &()) -> u64 {
        0
    }

    fn render(&self, _: &(), _: usize, _: &mut Vec<u8>) -> bool {
        false
    }

    fn won(&self, _: &(), _: usize) -> Option<()> {
        None
    }

    fn failed(&self, _: &()) -> Option<()> {
        None
    }

    fn class(&self, _: &(), _: usize) -> usize {
        Odds::SWEEP
    }
}

/// What a plan worked out, kept for the whole run (a step's plan is made again whenever a
/// verdict comes in): the key of each candidate's bytes (`None`: no candidate), by
/// [`Steps::id`], and the steps that follow a win and a failure, by the step's id.
pub(crate) struct Memo<T> {
    keys: RefCell<FxHashMap<u64, Option<u128>>>,
    won: RefCell<FxHashMap<(u64, usize), Next<T>>>,
    failed: RefCell<FxHashMap<u64, Next<T>>>,
}

/// The step that follows another (`None`: the run ends).
type Next<T> = Option<Rc<T>>;

impl<T> Default for Memo<T> {
    fn default() -> Self {
        Memo {
            keys: RefCell::default(),
            won: RefCell::default(),
            failed: RefCell::default(),
        }
    }
}

impl<T> Memo<T> {
    fn clear_if_full(&self) {
        if self.keys.borrow().len() + self.won.borrow().len() >= MEMO_CAP {
            self.keys.borrow_mut().clear();
            self.won.borrow_mut().clear();
            self.failed.borrow_mut().clear();
        }
    }
}

/// Branches less likely than this are not followed.
const FLOOR: f64 = 1e-4;
/// At most this many candidates are looked at per plan.
const MAX_VISITS: usize = 1024;
/// A memo holds at most this many renderings.
const MEMO_CAP: usize = 1 << 16;

/// The best-first walk over a [`Steps`] machine from its current step.
pub(crate) struct Planner<'p, S: Steps> {
    pub(crate) steps: &'p S,
    pub(crate) current: Rc<S::Step>,
    pub(crate) odds: &'p Odds,
    pub(crate) after: Option<&'p dyn Then>,
    pub(crate) memo: &'p Memo<S::Step>,
}

enum At<T> {
    Step(Rc<T>, usize),
    /// Candidate `j` of the steps after the run, once its candidates `won` won (see [`Then`]).
    After(Rc<Vec<usize>>, usize),
}

impl<T> At<T> {
    /// The first candidate of the step after the run.
    fn after() -> At<T> {
        At::After(Rc::default(), 0)
    }
}

struct Branch<T> {
    chance: f64,
    /// Ties go to the branch found first.
    seq: u64,
    at: At<T>,
    /// The last candidate that wins on the way here, if one does: the run's best bytes then.
    won: Option<(Rc<T>, usize)>,
}

impl<T> PartialEq for Branch<T> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl<T> Eq for Branch<T> {}
impl<T> PartialOrd for Branch<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Branch<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.chance.total_cmp(&other.chance)).then(other.seq.cmp(&self.seq))
    }
}

impl<S: Steps> Planner<'_, S> {
    /// The key of candidate `i` of `s`, rendered once per run; a rendering made now is left in
    /// `fresh`, so that a test started for it does not render it again.
    fn key(&self, s: &S::Step, i: usize, fresh: &mut Option<Vec<u8>>) -> Option<u128> {
        let id = self.steps.id(s, i);
        if let Some(&k) = self.memo.keys.borrow().get(&id) {
            return k;
        }
        let mut out = Vec::new();
        let k = self
            .steps
            .render(s, i, &mut out)
            .then(|| crate::judge::key(&out));
        self.memo.clear_if_full();
        self.memo.keys.borrow_mut().insert(id, k);
        *fresh = k.map(|_| out);
        k
    }

    /// Where the run goes after candidate `i` of `s` wins.
    fn after_win(&self, s: &S::Step, i: usize) -> At<S::Step> {
        let id = (self.steps.step_id(s), i);
        let next = self.memo.won.borrow().get(&id).cloned();
        let next = next.unwrap_or_else(|| {
            let next = self.steps.won(s, i).map(Rc::new);
            self.memo.clear_if_full();
            self.memo.won.borrow_mut().insert(id, next.clone());
            next
        });
        next.map_or_else(At::after, |w| At::Step(w, 0))
    }

    /// Where the run goes after every candidate of `s` fails.
    fn after_failure(&self, s: &S::Step) -> At<S::Step> {
        let id = self.steps.step_id(s);
        let next = self.memo.failed.borrow().get(&id).cloned();
        let next = next.unwrap_or_else(|| {
            let next = self.steps.failed(s).map(Rc::new);
            self.memo.failed.borrow_mut().insert(id, next.clone());
            next
        });
        next.map_or_else(At::after, |f| At::Step(f, 0))
    }
}

impl<S: Steps> Planner<'_, S> {
    /// The best bytes a branch ends the run with: its last winner's, rendered, or the reducer's.
    fn best_of(&self, won: &Option<(Rc<S::Step>, usize)>) -> Option<Vec<u8>> {
        let (s, i) = won.as_ref()?;
        let mut out = Vec::new();
        self.steps.render(s, *i, &mut out).then_some(out)
    }
}

impl<S: Steps> Plan for Planner<'_, S> {
    fn plan(
        &self,
        from: usize,
        best_now: u128,
        known: &dyn Fn(u128) -> Option<bool>,
        want: &mut dyn FnMut(Wanted<'_>) -> bool,
    ) {
        let mut heap = BinaryHeap::new();
        let mut seq = 0;
        let mut push = |heap: &mut BinaryHeap<Branch<S::Step>>, chance: f64, at, won| {
            if chance >= FLOOR {
                seq += 1;
                heap.push(Branch {
                    chance,
                    seq,
                    at,
                    won,
                });
            }
        };
        push(&mut heap, 1.0, At::Step(self.current.clone(), from), None);
        let mut visits = 0;
        while let Some(Branch {
            chance, at, won, ..
        }) = heap.pop()
        {
            visits += 1;
            if visits > MAX_VISITS {
                return;
            }
            let (s, i) = match at {
                At::After(path, j) => {
                    let Some(then) = self.after else {
                        continue;
                    };
                    let best = self.best_of(&won);
                    if won.is_some() && best.is_none() {
                        continue;
                    }
                    let best = best.as_deref();
                    let best_key = best.map_or(best_now, crate::judge::key);
                    if j >= then.count_ahead(best, &path, chance) {
                        continue;
                    }
                    let mut out = Vec::new();
                    if !then.render_after(best, &path, j, &mut out) {
                        push(&mut heap, chance, At::After(path, j + 1), won);
                        continue;
                    }
                    let key = crate::judge::key(&out);
                    if key == best_key {
                        // The best bytes themselves: the test pool skips them.
                        push(&mut heap, chance, At::After(path, j + 1), won);
                        continue;
                    }
                    // The steps after candidate `j` wins (none where they are not known).
                    let past = || {
                        let mut p = (*path).clone();
                        p.push(j);
                        At::After(Rc::new(p), 0)
                    };
                    match known(key) {
                        Some(true) => push(&mut heap, chance, past(), won),
                        Some(false) => push(&mut heap, chance, At::After(path, j + 1), won),
                        None => {
                            let render = |o: &mut Vec<u8>| {
                                o.extend_from_slice(&out);
                                true
                            };
                            let offer = Wanted {
                                chance,
                                key,
                                render: &render,
                            };
                            if !want(offer) {
                                return;
                            }
                            let q = then
                                .class_after(best, &path, j)
                                .map_or(PRIOR, |c| self.odds.chance(c, false));
                            push(&mut heap, chance * q, past(), won.clone());
                            push(&mut heap, chance * (1.0 - q), At::After(path, j + 1), won);
                        }
                    }
                    continue;
                }
                At::Step(s, i) => (s, i),
            };
            if i >= self.steps.count(&s) {
                push(&mut heap, chance, self.after_failure(&s), won);
                continue;
            }
            let mut fresh = None;
            let key = self.key(&s, i, &mut fresh);
            // No candidate, or the best bytes themselves, which the test pool skips.
            let best = match &won {
                Some((w, j)) => self.key(w, *j, &mut None),
                None => Some(best_now),
            };
            let Some(key) = key.filter(|&k| Some(k) != best) else {
                push(&mut heap, chance, At::Step(s, i + 1), won);
                continue;
            };
            let winner = Some((s.clone(), i));
            match known(key) {
                Some(true) => push(&mut heap, chance, self.after_win(&s, i), winner),
                Some(false) => push(&mut heap, chance, At::Step(s, i + 1), won),
                None => {
                    let render = |o: &mut Vec<u8>| match &fresh {
                        Some(bytes) => {
                            o.extend_from_slice(bytes);
                            true
                        }
                        None => self.steps.render(&s, i, o),
                    };
                    let offer = Wanted {
                        chance,
                        key,
                        render: &render,
                    };
                    if !want(offer) {
                        return;
                    }
                    let q =
                        self.odds.chance(self.steps.class(&s, i), true) * self.steps.weight(&s, i);
                    push(&mut heap, chance * q, self.after_win(&s, i), winner);
                    push(&mut heap, chance * (1.0 - q), At::Step(s, i + 1), won);
                }
            }
        }
    }
}
