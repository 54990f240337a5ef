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
//!   step that no worker is free for waits, rendered (`Slot::Pending`).
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
//!
//! This file holds the workers, the jobs and their cancelling; the scans of a step over them
//! (the first interesting candidate, a `--merge-wins` round) are in `pool/scan.rs`.

mod scan;

use crate::error::ReduceError;
use crate::judge::Judge;
use crate::load::Load;
use crate::oracle::Verdict;
use crate::plan::Plan;
use rustc_hash::FxHashMap;
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
/// A test the plan started is not cancelled while the plan still offers it this likely, or
/// within this many horizons: it would have to start over should it be needed after all.
const KEEP_CHANCE: f64 = MIN_CHANCE / 2.0;
const KEEP_HORIZON: usize = 2;

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
    /// Whether there are more workers than processors ([`Load::oversubscribed`]).
    pub(crate) fn oversubscribed(&self) -> bool {
        self.load.oversubscribed()
    }

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

    fn cancel_jobs(&self, jobs: &[Arc<Job>]) {
        if !jobs.is_empty() {
            self.cancel_where(|j| jobs.iter().any(|w| Arc::ptr_eq(w, j)));
        }
    }

    fn fail<T>(&self, e: ReduceError) -> Result<T, ReduceError> {
        self.cancel_all();
        Err(e)
    }

    fn lock_speculative(&self) -> MutexGuard<'_, Vec<Arc<Job>>> {
        self.speculative.lock().unwrap_or_else(|e| e.into_inner())
    }
}
