//! The test pool: `-j` workers that run tests handed to them by the reducer, and the speculative
//! search for the first interesting candidate of a step that keeps them busy.
//!
//! The reducer's thread renders candidates in index order and hands them to the workers; the
//! answer of a step is always the lowest interesting index, the one a sequential scan finds.
//! * Look-ahead is bounded: candidate `i` starts only while `i <= lowest unresolved + window`.
//! * A step that comes with a plan (ddmin runs and greedy sweeps; `plan.rs`) has its workers run
//!   the candidates the plan offers, most likely to be needed first, whatever step they belong
//!   to, down to [`MIN_CHANCE`]; each time a verdict comes in the plan is walked again, and the
//!   tests it started and no longer offers are cancelled ([`Pool::follow`]). A candidate of the
//!   step that no worker is free for waits, rendered ([`Slot::Pending`]).
//! * Without a plan, when every candidate of a step is handed out, idle workers start the
//!   candidates of the step that comes next if this one fails (see [`Next`]), then those of the
//!   step that comes next if the lowest candidate still running wins. What the outcome rules
//!   out is cancelled.
//! * Either way the verdicts land in the cache, and a later step waits for a test still running
//!   instead of starting it again.
//! * A speculative test (the plan's, the next step's) starts only while the processors have time
//!   for it ([`Load::room`]); the current step's candidates start whenever a worker is free.
//! * Two workers never test the same bytes at once: a candidate whose bytes are being tested
//!   waits for that test.
//! * An error counts only if its candidate is below the winner (a sequential scan would have run
//!   it); it cancels every other test.

use crate::candidate::Found;
use crate::error::ReduceError;
use crate::judge::{Judge, key};
use crate::load::Load;
use crate::oracle::Verdict;
use crate::plan::{Plan, Wanted};
use crate::stats::bump;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// How far past the lowest unresolved candidate a step may start tests, per worker.
const WINDOW_PER_JOB: usize = 2;

/// The candidates of the step that follows if the current one finds nothing: their count, and a
/// function that renders candidate `i` into the buffer (`false`: no such candidate). The count is
/// asked for only once a worker is idle with every candidate of the current step handed out, so
/// a step that is costly to make (a parse ahead of a commit) is made only when it can be used.
pub(crate) type Prefetch<'p> = (
    &'p dyn Fn() -> usize,
    &'p dyn Fn(usize, &mut Vec<u8>) -> bool,
);

/// The candidates of the step that follows if candidate `w` of the current one wins: their count
/// (given `w`), and a function that renders candidate `i` of them (given `w` and `i`).
pub(crate) type WonPrefetch<'p> = (
    &'p dyn Fn(usize) -> usize,
    &'p dyn Fn(usize, usize, &mut Vec<u8>) -> bool,
);

/// What a step knows of the step after it, so that idle workers can start on it.
#[derive(Clone, Copy, Default)]
pub(crate) struct Next<'p> {
    /// The next step if this one finds nothing.
    pub(crate) failed: Option<Prefetch<'p>>,
    /// The next step if a candidate of this one wins.
    pub(crate) won: Option<WonPrefetch<'p>>,
    /// The steps that follow, several deep, most likely first (see `plan.rs`); when given,
    /// `failed` and `won` are not used.
    pub(crate) plan: Option<&'p dyn Plan>,
}

/// A plan's candidate less likely than this to be needed is not started: an idle worker waits
/// rather than run a test that will most likely be cancelled (on a cluster a cancelled test
/// still takes a queue slot, and here its processes take a core from the tests that decide).
const MIN_CHANCE: f64 = 0.05;
/// A plan is followed this far (candidates offered, per worker); speculative tests it no longer
/// offers within it are cancelled.
const HORIZON_PER_JOB: usize = 4;

enum Outcome {
    Verdict(Verdict),
    Failed(Option<ReduceError>),
}

struct Job {
    key: u128,
    bytes: Vec<u8>,
    gate: bool,
    phase: &'static str,
    cancel: AtomicBool,
    outcome: Mutex<Option<Outcome>>,
}

impl Job {
    fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::SeqCst)
    }

    fn finished(&self) -> bool {
        self.outcome
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }

    fn set(&self, outcome: Outcome) {
        *self.outcome.lock().unwrap_or_else(|e| e.into_inner()) = Some(outcome);
    }
}

#[derive(Default)]
struct State {
    queue: VecDeque<Arc<Job>>,
    /// Jobs queued or running (a cancelled one until its test is killed), by the key of their
    /// bytes.
    in_flight: FxHashMap<u128, Arc<Job>>,
    /// Jobs queued or running, cancelled or not: each holds (or will hold) a worker.
    outstanding: usize,
    /// Counts finished jobs, so that the reducer can wait for the next one.
    generation: u64,
    closed: bool,
}

pub(crate) struct Pool {
    jobs: usize,
    /// The room for speculative tests while the processors are busy.
    load: Load,
    state: Mutex<State>,
    work: Condvar,
    done: Condvar,
    /// The tests a plan started (see [`Pool::follow`]), until the plan no longer offers them.
    speculative: Mutex<Vec<Arc<Job>>>,
}

/// A candidate of the current step.
enum Slot<C> {
    Skipped,
    Known(bool, C, Vec<u8>),
    Waiting(Arc<Job>, C, Vec<u8>),
    /// Rendered, not yet started: every worker was busy (with a plan's tests).
    Pending(u128, C, Vec<u8>),
}

impl Pool {
    /// A pool of `jobs` workers; `load_aware`: speculative tests follow the processors' load
    /// ([`Load`]), as they should when each test starts processes here.
    pub(crate) fn new(jobs: usize, load_aware: bool) -> Pool {
        Pool {
            jobs,
            load: Load::new(jobs, load_aware),
            state: Mutex::default(),
            work: Condvar::new(),
            done: Condvar::new(),
            speculative: Mutex::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A worker's loop: run queued jobs until the pool is closed.
    pub(crate) fn work(&self, judge: &Judge<'_>) {
        loop {
            let job = {
                let mut s = self.lock();
                loop {
                    if s.closed {
                        return;
                    }
                    match s.queue.pop_front() {
                        Some(job) => break job,
                        None => s = self.work.wait(s).unwrap_or_else(|e| e.into_inner()),
                    }
                }
            };
            let outcome = if job.cancelled() || judge.stop.load(Ordering::Relaxed) {
                Outcome::Verdict(Verdict::Cancelled)
            } else {
                match judge.judge(job.key, &job.bytes, job.gate, job.phase, &|| {
                    job.cancelled()
                }) {
                    Ok(v) => Outcome::Verdict(v),
                    Err(e) => Outcome::Failed(Some(e)),
                }
            };
            job.set(outcome);
            let mut s = self.lock();
            s.outstanding -= 1;
            if s.in_flight
                .get(&job.key)
                .is_some_and(|j| Arc::ptr_eq(j, &job))
            {
                s.in_flight.remove(&job.key);
            }
            s.generation += 1;
            self.done.notify_all();
        }
    }

    /// Stops the workers once their current test ends (they are cancelled first).
    pub(crate) fn close(&self) {
        self.cancel_all();
        self.lock().closed = true;
        self.work.notify_all();
    }

    /// Cancels every queued and running job.
    fn cancel_all(&self) {
        self.cancel_where(|_| true);
    }

    /// Cancels the queued and running jobs for which `doomed` says so. A running job stays in
    /// flight until its test has been killed, so that nobody starts the same bytes meanwhile (a
    /// candidate that joins it gets "cancelled" and starts its own test then).
    fn cancel_where(&self, doomed: impl Fn(&Arc<Job>) -> bool) {
        let mut s = self.lock();
        for job in s.in_flight.values() {
            if doomed(job) {
                job.cancel.store(true, Ordering::SeqCst);
            }
        }
        let (dropped, kept): (Vec<_>, Vec<_>) = s.queue.drain(..).partition(|j| j.cancelled());
        s.queue.extend(kept);
        s.outstanding -= dropped.len();
        for job in dropped {
            if s.in_flight
                .get(&job.key)
                .is_some_and(|j| Arc::ptr_eq(j, &job))
            {
                s.in_flight.remove(&job.key);
            }
            job.set(Outcome::Verdict(Verdict::Cancelled));
        }
        s.generation += 1;
        drop(s);
        self.done.notify_all();
    }

    /// Starts tests for the candidates `*cursor..limit` that `render` makes, while a worker is
    /// free, unless they are smaller than `than` in nothing, known, or running. The jobs started
    /// are added to `started`, if given.
    #[allow(clippy::too_many_arguments)]
    fn prefetch(
        &self,
        judge: &Judge<'_>,
        gate: bool,
        than: &[u8],
        limit: usize,
        render: &dyn Fn(usize, &mut Vec<u8>) -> bool,
        cursor: &mut usize,
        mut started: Option<&mut Vec<Arc<Job>>>,
    ) {
        let mut out = Vec::new();
        while *cursor < limit && self.has_room_to_speculate() {
            out.clear();
            if render(*cursor, &mut out) && shortlex_smaller(&out, than) {
                let k = key(&out);
                if judge.peek(k).is_none() && self.running(k).is_none() {
                    let job = self.submit(k, std::mem::take(&mut out), gate, judge.phase());
                    if let Some(started) = started.as_deref_mut() {
                        started.push(job);
                    }
                }
            }
            *cursor += 1;
        }
    }

    fn submit(&self, key: u128, bytes: Vec<u8>, gate: bool, phase: &'static str) -> Arc<Job> {
        let job = Arc::new(Job {
            key,
            bytes,
            gate,
            phase,
            cancel: AtomicBool::new(false),
            outcome: Mutex::new(None),
        });
        let mut s = self.lock();
        s.queue.push_back(job.clone());
        s.in_flight.insert(key, job.clone());
        s.outstanding += 1;
        drop(s);
        self.work.notify_one();
        job
    }

    fn running(&self, key: u128) -> Option<Arc<Job>> {
        self.lock().in_flight.get(&key).cloned()
    }

    fn has_room(&self) -> bool {
        self.lock().outstanding < self.jobs
    }

    /// Whether a worker is free for a speculative test: fewer tests run than `-j`, and fewer
    /// than the processors have time for ([`Load::room`]).
    fn has_room_to_speculate(&self) -> bool {
        let room = self.load.room();
        self.lock().outstanding < room
    }

    fn generation(&self) -> u64 {
        self.lock().generation
    }

    /// Waits until a job finishes after `seen`, or a short while (to notice a stop request).
    fn wait(&self, seen: u64) {
        let s = self.lock();
        if s.generation == seen {
            let _ = self
                .done
                .wait_timeout(s, Duration::from_millis(50))
                .unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The first interesting candidate among `count`, in index order (see the module doc).
    /// Candidates not smaller than `best` are skipped.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn first_interesting<C>(
        &self,
        judge: &Judge<'_>,
        best: &[u8],
        gate: bool,
        count: usize,
        make: &dyn Fn(usize) -> Option<C>,
        render: &dyn Fn(&C, &mut Vec<u8>),
        next: Next<'_>,
    ) -> Result<Option<Found<C>>, ReduceError> {
        let window = self.jobs * WINDOW_PER_JOB;
        let mut slots: Vec<Slot<C>> = Vec::with_capacity(count.min(1024));
        let (mut lowest, mut prefetched) = (0, 0);
        // The candidate whose win the `won` jobs assume, how many of its next step's candidates
        // were offered, and the jobs started for them.
        let (mut won_on, mut won_next, mut won_jobs) = (None, 0, Vec::new());
        let result = loop {
            if let Err(e) = judge.check_stop() {
                break Err(e);
            }
            let seen = self.generation();
            let before = (lowest, slots.len(), prefetched, won_next);
            // Settle the candidates from the lowest unresolved one on.
            let mut answer = None;
            while lowest < slots.len() {
                match self.settle(judge, &mut slots[lowest], gate) {
                    None => break,
                    Some(Ok(false)) => {
                        slots[lowest] = Slot::Skipped;
                        lowest += 1;
                    }
                    Some(Ok(true)) => {
                        answer = Some(Ok(Some(lowest)));
                        break;
                    }
                    Some(Err(e)) => {
                        answer = Some(Err(e));
                        break;
                    }
                }
            }
            if lowest == count {
                break Ok(None);
            }
            match answer {
                Some(Ok(Some(index))) => break Ok(Some(index)),
                Some(Err(e)) => break Err(e),
                _ => {}
            }
            // A plan starts what is most likely needed, this step's candidates included, and
            // cancels the tests it started that are no longer likely to be.
            let planned = next
                .plan
                .is_some_and(|plan| self.follow(judge, gate, best, plan, lowest));
            // Hand out more candidates while a worker is free and the window allows (with a
            // plan, a candidate no worker is free for waits as pending).
            let pend = next.plan.is_some();
            while slots.len() < count && slots.len() <= lowest + window && (pend || self.has_room())
            {
                if let Err(e) = judge.check_stop() {
                    return self.fail(e);
                }
                let index = slots.len();
                let slot = match make(index) {
                    None => Slot::Skipped,
                    Some(c) => self.start(judge, best, gate, c, render),
                };
                slots.push(slot);
            }
            if slots.len() == count && next.plan.is_none() {
                // Idle workers start the next step: first the one after a failure, then the one
                // after the lowest candidate still running wins.
                if let Some((n, render)) = next.failed {
                    let limit = n().min(window);
                    self.prefetch(judge, gate, best, limit, render, &mut prefetched, None);
                }
                if let (Some((n, render)), Some(Slot::Waiting(_, _, bytes))) =
                    (next.won, slots.get(lowest))
                {
                    if won_on != Some(lowest) {
                        self.cancel_jobs(&std::mem::take(&mut won_jobs));
                        (won_on, won_next) = (Some(lowest), 0);
                    }
                    let w = lowest;
                    let limit = n(w).min(window);
                    let render = |i: usize, out: &mut Vec<u8>| render(w, i, out);
                    self.prefetch(
                        judge,
                        gate,
                        bytes,
                        limit,
                        &render,
                        &mut won_next,
                        Some(&mut won_jobs),
                    );
                }
            }
            // Nothing settled and nothing started: wait for a test to end (ours, or one of the
            // previous step's that holds a worker).
            if !planned && (lowest, slots.len(), prefetched, won_next) == before {
                self.wait(seen);
            }
        };
        match result {
            Ok(Some(index)) => {
                // Later candidates and the next step's are of no use now, unless they assumed
                // this winner.
                if next.plan.is_some() {
                    // The plan of the next step decides what of its own tests to keep.
                    let planned = self.lock_speculative().clone();
                    self.cancel_where(|j| !planned.iter().any(|w| Arc::ptr_eq(w, j)));
                } else if won_on == Some(index) {
                    self.cancel_where(|j| !won_jobs.iter().any(|w| Arc::ptr_eq(w, j)));
                } else {
                    self.cancel_all();
                }
                let Slot::Known(true, edits, bytes) = slots.swap_remove(index) else {
                    unreachable!("the winner is settled")
                };
                Ok(Some(Found {
                    index,
                    edits,
                    bytes,
                }))
            }
            Ok(None) => {
                self.cancel_jobs(&won_jobs);
                Ok(None)
            }
            Err(e) => self.fail(e),
        }
    }

    /// Every interesting candidate among `count`, in index order: all are started (as workers
    /// free up) and all verdicts awaited. Candidates not smaller than `best` are skipped.
    pub(crate) fn all_interesting<C>(
        &self,
        judge: &Judge<'_>,
        best: &[u8],
        gate: bool,
        count: usize,
        make: &dyn Fn(usize) -> Option<C>,
        render: &dyn Fn(&C, &mut Vec<u8>),
    ) -> Result<Vec<Found<C>>, ReduceError> {
        let mut slots: Vec<Slot<C>> = Vec::with_capacity(count);
        loop {
            if let Err(e) = judge.check_stop() {
                return self.fail(e);
            }
            let seen = self.generation();
            while slots.len() < count && self.has_room() {
                let slot = match make(slots.len()) {
                    None => Slot::Skipped,
                    Some(c) => self.start(judge, best, gate, c, render),
                };
                slots.push(slot);
            }
            let mut open = slots.len() < count;
            for slot in &mut slots {
                match self.settle(judge, slot, gate) {
                    None => open = true,
                    Some(Err(e)) => return self.fail(e),
                    Some(Ok(_)) => {}
                }
            }
            if !open {
                break;
            }
            self.wait(seen);
        }
        Ok((slots.into_iter().enumerate())
            .filter_map(|(index, slot)| match slot {
                Slot::Known(true, edits, bytes) => Some(Found {
                    index,
                    edits,
                    bytes,
                }),
                _ => None,
            })
            .collect())
    }

    fn cancel_jobs(&self, jobs: &[Arc<Job>]) {
        if !jobs.is_empty() {
            self.cancel_where(|j| jobs.iter().any(|w| Arc::ptr_eq(w, j)));
        }
    }

    fn fail<T>(&self, e: ReduceError) -> Result<T, ReduceError> {
        self.cancel_all();
        Err(e)
    }

    /// Renders a candidate and answers it from the cache, or joins the test of the same bytes
    /// that is running, or starts one.
    fn start<C>(
        &self,
        judge: &Judge<'_>,
        best: &[u8],
        gate: bool,
        c: C,
        render: &dyn Fn(&C, &mut Vec<u8>),
    ) -> Slot<C> {
        bump(&judge.counters.candidates);
        let mut out = Vec::with_capacity(best.len());
        render(&c, &mut out);
        if !shortlex_smaller(&out, best) {
            bump(&judge.counters.not_smaller);
            return Slot::Skipped;
        }
        let k = key(&out);
        if let Some(v) = judge.cached(k) {
            let v = judge.admitted(v, &out, gate);
            return Slot::Known(v == Verdict::Interesting, c, out);
        }
        match self.running(k) {
            Some(job) => Slot::Waiting(job, c, out),
            None if self.has_room() => {
                let job = self.submit(k, out.clone(), gate, judge.phase());
                Slot::Waiting(job, c, out)
            }
            None => Slot::Pending(k, c, out),
        }
    }

    /// Follows `plan` from candidate `from` of the current step: starts the candidates it
    /// offers, most likely first, while a worker is free, and cancels the tests it started
    /// before that it no longer offers. Returns whether it started any.
    fn follow(
        &self,
        judge: &Judge<'_>,
        gate: bool,
        best: &[u8],
        plan: &dyn Plan,
        from: usize,
    ) -> bool {
        let horizon = self.jobs * HORIZON_PER_JOB;
        let (mut offered, mut started) = (0, false);
        let mut wanted = FxHashSet::default();
        let mut out = Vec::new();
        plan.plan(from, &|k| judge.peek(k), &mut |w: Wanted<'_>| {
            // The plan offers its candidates most likely first: the rest are less likely still.
            if w.chance < MIN_CHANCE {
                return false;
            }
            offered += 1;
            if self.running(w.key).is_some() {
                wanted.insert(w.key);
            } else if self.has_room_to_speculate() {
                out.clear();
                if (w.render)(&mut out) && shortlex_smaller(&out, best) {
                    let job = self.submit(w.key, std::mem::take(&mut out), gate, judge.phase());
                    self.lock_speculative().push(job);
                    wanted.insert(w.key);
                    started = true;
                }
            }
            offered < horizon
        });
        let doomed: Vec<Arc<Job>> = {
            let mut planned = self.lock_speculative();
            planned.retain(|j| !j.cancelled() && !j.finished());
            let (keep, doomed) = planned.drain(..).partition(|j| wanted.contains(&j.key));
            *planned = keep;
            doomed
        };
        self.cancel_jobs(&doomed);
        started
    }

    fn lock_speculative(&self) -> MutexGuard<'_, Vec<Arc<Job>>> {
        self.speculative.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a candidate is interesting, once its test has ended (`None` before). A test
    /// cancelled by someone else (a stop, a closed pool) is started again.
    fn settle<C>(
        &self,
        judge: &Judge<'_>,
        slot: &mut Slot<C>,
        gate: bool,
    ) -> Option<Result<bool, ReduceError>> {
        let job = match slot {
            Slot::Skipped => return Some(Ok(false)),
            Slot::Known(v, ..) => return Some(Ok(*v)),
            Slot::Waiting(job, ..) => job.clone(),
            Slot::Pending(k, ..) => {
                let k = *k;
                let Slot::Pending(_, c, out) = std::mem::replace(slot, Slot::Skipped) else {
                    unreachable!("matched above")
                };
                if let Some(v) = judge.cached(k) {
                    let interesting = judge.admitted(v, &out, gate) == Verdict::Interesting;
                    *slot = Slot::Known(interesting, c, out);
                    return Some(Ok(interesting));
                }
                *slot = match self.running(k) {
                    Some(job) => Slot::Waiting(job, c, out),
                    None if self.has_room() => {
                        let job = self.submit(k, out.clone(), gate, judge.phase());
                        Slot::Waiting(job, c, out)
                    }
                    None => Slot::Pending(k, c, out),
                };
                return None;
            }
        };
        let verdict = {
            let mut outcome = job.outcome.lock().unwrap_or_else(|e| e.into_inner());
            match outcome.as_mut()? {
                Outcome::Verdict(v) => Some(*v),
                // The error goes to the first candidate that reads it; another one with the same
                // bytes (which never decides the answer, being later) runs its own test.
                Outcome::Failed(e) => match e.take() {
                    Some(e) => return Some(Err(e)),
                    None => None,
                },
            }
        };
        let Slot::Waiting(_, c, out) = std::mem::replace(slot, Slot::Skipped) else {
            unreachable!("matched above")
        };
        match verdict {
            Some(v) if v != Verdict::Cancelled => {
                let interesting = judge.admitted(v, &out, gate) == Verdict::Interesting;
                *slot = Slot::Known(interesting, c, out);
                Some(Ok(interesting))
            }
            _ => {
                let job = self.submit(job.key, out.clone(), gate, job.phase);
                *slot = Slot::Waiting(job, c, out);
                None
            }
        }
    }
}

fn shortlex_smaller(a: &[u8], b: &[u8]) -> bool {
    crate::candidate::shortlex_less(a, b)
}
