//! A step's scan over the pool: the first interesting candidate in index order, with the
//! speculation that keeps idle workers busy (the plan's candidates, or the step after this one),
//! and the round that awaits every verdict of its candidates (`--merge-wins`). The workers, the
//! jobs and their cancelling are the pool's (`pool.rs`).

use super::{
    HORIZON_PER_JOB, Job, KEEP_CHANCE, KEEP_HORIZON, MIN_CHANCE, Next, Outcome, Pool,
    WINDOW_PER_JOB,
};
use crate::candidate::Found;
use crate::error::ReduceError;
use crate::judge::{Judge, key};
use crate::oracle::Verdict;
use crate::plan::{Plan, Wanted};
use crate::stats::bump;
use rustc_hash::FxHashSet;
use std::sync::Arc;

/// A candidate of the current step.
enum Slot<C> {
    Skipped,
    Known(bool, C, Vec<u8>),
    Waiting(Arc<Job>, C, Vec<u8>),
    /// Rendered, not yet started: every worker was busy (with a plan's tests).
    Pending(u128, C, Vec<u8>),
}

impl Pool {
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
        let best_key = if next.plan.is_some() { key(best) } else { 0 };
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
                .is_some_and(|plan| self.follow(judge, gate, (best, best_key), plan, lowest));
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
                    // The plan of the next step decides what of its own tests to keep, and of
                    // this step's later candidates still running: after a win, their bytes often
                    // come up again (the rest of a sweep, the next split of what was kept), and
                    // a test cancelled now would start over then.
                    let planned = {
                        let mut planned = self.lock_speculative();
                        for slot in &slots {
                            if let Slot::Waiting(job, ..) = slot
                                && !job.finished()
                                && !planned.iter().any(|w| Arc::ptr_eq(w, job))
                            {
                                planned.push(job.clone());
                            }
                        }
                        planned.clone()
                    };
                    self.cancel_where(|j| !planned.iter().any(|w| Arc::ptr_eq(w, j)));
                } else if let Some((n, render)) = next.won {
                    // The tests of the winner's next step go on: those started for it here, and
                    // those that ran already (the opening's, or a plan's before this step).
                    let render = |i: usize, out: &mut Vec<u8>| render(index, i, out);
                    let keep = self.running_of(n(index).min(window), &render);
                    self.cancel_where(|j| !keep.iter().any(|w| Arc::ptr_eq(w, j)));
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
            let v = judge.admitted(v, k, &out, gate);
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
        (best, best_key): (&[u8], u128),
        plan: &dyn Plan,
        from: usize,
    ) -> bool {
        let horizon = self.jobs * HORIZON_PER_JOB;
        let (mut offered, mut started) = (0, false);
        let mut wanted = FxHashSet::default();
        let mut out = Vec::new();
        plan.plan(from, best_key, &|k| judge.peek(k), &mut |w: Wanted<'_>| {
            // The plan offers its candidates most likely first: the rest are less likely still.
            if w.chance < KEEP_CHANCE {
                return false;
            }
            offered += 1;
            if self.running(w.key).is_some() {
                wanted.insert(w.key);
            } else if w.chance >= MIN_CHANCE && offered <= horizon && self.has_room_to_speculate() {
                out.clear();
                if (w.render)(&mut out) && shortlex_smaller(&out, best) {
                    let job = self.submit(w.key, std::mem::take(&mut out), gate, judge.phase());
                    self.lock_speculative().push(job);
                    wanted.insert(w.key);
                    started = true;
                }
            }
            offered < horizon * KEEP_HORIZON
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
                let job = self.start_new(judge, gate, key(&out), &mut out);
                if let (Some(job), Some(started)) = (job, started.as_deref_mut()) {
                    started.push(job);
                }
            }
            *cursor += 1;
        }
    }

    /// The tests running for the candidates `0..limit` that `render` makes.
    fn running_of(
        &self,
        limit: usize,
        render: &dyn Fn(usize, &mut Vec<u8>) -> bool,
    ) -> Vec<Arc<Job>> {
        let mut out = Vec::new();
        (0..limit)
            .filter_map(|i| {
                out.clear();
                render(i, &mut out).then(|| self.running(key(&out)))?
            })
            .collect()
    }

    /// Starts a test of the rendered candidate `out` (its bytes' key `k`, taken from `out`),
    /// unless its verdict is known or a test of it is running.
    fn start_new(
        &self,
        judge: &Judge<'_>,
        gate: bool,
        k: u128,
        out: &mut Vec<u8>,
    ) -> Option<Arc<Job>> {
        (judge.peek(k).is_none() && self.running(k).is_none())
            .then(|| self.submit(k, std::mem::take(out), gate, judge.phase()))
    }

    /// The reduction's opening: while `running()` (the checks of the input, `beside` tests that
    /// run outside the pool), and once the processors are seen to have time to spare
    /// ([`crate::load::Load::spare_while`]), starts the candidates `plan` offers (what the
    /// algorithm tests first, most likely needed first, down to [`MIN_CHANCE`]), as many as the
    /// room for speculative tests leaves beside the checks. The algorithm's first step then
    /// joins their tests.
    pub(crate) fn open(
        &self,
        judge: &Judge<'_>,
        gate: bool,
        best: &[u8],
        plan: &dyn Plan,
        beside: usize,
        running: &dyn Fn() -> bool,
    ) {
        if self.load.room() <= beside || !self.load.spare_while(running) {
            return;
        }
        let room = self.load.room().saturating_sub(beside);
        let (mut started, mut out) = (0, Vec::new());
        plan.plan(0, key(best), &|k| judge.peek(k), &mut |w: Wanted<'_>| {
            if w.chance < MIN_CHANCE || started >= room {
                return false;
            }
            out.clear();
            // The empty file is one of the checks.
            if (w.render)(&mut out) && !out.is_empty() && shortlex_smaller(&out, best) {
                started += usize::from(self.start_new(judge, gate, w.key, &mut out).is_some());
            }
            true
        });
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
                    let interesting = judge.admitted(v, k, &out, gate) == Verdict::Interesting;
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
                let interesting = judge.admitted(v, job.key, &out, gate) == Verdict::Interesting;
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
