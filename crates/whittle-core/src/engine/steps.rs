//! How the reducer runs a step's candidates: one after the other at `-j 1`, on the test pool's
//! workers otherwise (for the reduction's length, [`Reducer::parallel`], or for one step), as a
//! scan for the first interesting one or as a `--merge-wins` round that wants every verdict.

use super::Reducer;
use crate::candidate::{Found, shortlex_less};
use crate::edit::Edits;
use crate::error::ReduceError;
use crate::oracle::Verdict;
use crate::pool::{Next, Pool};
use crate::stats::bump;
use std::sync::Arc;

/// A round of ddmin that merges wins tests at least this many candidates, whatever `jobs`.
const MERGE_BREADTH_MIN: usize = 4;

impl Reducer<'_> {
    /// Renders a candidate and judges it; `Some(bytes)` if it is interesting.
    fn evaluate<C>(
        &self,
        candidate: &C,
        render: &dyn Fn(&C, &mut Vec<u8>),
    ) -> Result<Option<Vec<u8>>, ReduceError> {
        bump(&self.judge.counters.candidates);
        let mut out = Vec::with_capacity(self.best.len());
        render(candidate, &mut out);
        if !shortlex_less(&out, &self.best) {
            bump(&self.judge.counters.not_smaller);
            return Ok(None);
        }
        Ok((self.judge(&out, &|| false)? == Verdict::Interesting).then_some(out))
    }

    /// Whether idle workers can start what comes next (a pool of more than one worker runs).
    pub(crate) fn speculates(&self) -> bool {
        self.pool.is_some()
    }

    /// Whether the pool has more workers than there are processors ([`crate::load::Load`]).
    pub(crate) fn oversubscribed(&self) -> bool {
        self.pool.as_ref().is_some_and(|p| p.oversubscribed())
    }

    /// Runs `f` with `-j` test workers that live as long as it does, so that tests started for
    /// one step (the candidates of the next step, see [`Reducer::first_interesting_then`]) can
    /// run on while the algorithm goes on to that step. Without it, each step with more than one
    /// candidate starts and ends its own workers.
    pub fn parallel<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        if self.jobs == 1 || self.pool.is_some() {
            return f(self);
        }
        let pool = Arc::new(Pool::new(self.jobs, self.judge.starts_processes()));
        let judge = self.judge.clone();
        std::thread::scope(|s| {
            for _ in 0..self.jobs {
                let (pool, judge) = (pool.clone(), judge.clone());
                s.spawn(move || pool.work(&judge));
            }
            self.pool = Some(pool.clone());
            // Closed also when `f` panics: the workers end, and the panic reaches the caller
            // instead of the scope waiting for them forever.
            let _close = CloseOnDrop(&pool);
            let out = f(self);
            self.pool = None;
            out
        })
    }

    /// The first interesting candidate, in index order, among `count` candidates made on demand
    /// by `make` (`None` = skip this one), as edits on the current tree rendered by the format.
    /// Candidates that are not smaller (in shortlex order) than the best so far are skipped.
    ///
    /// With `jobs > 1` candidates are evaluated speculatively in parallel, but the answer is
    /// always the one the sequential scan would give: every candidate before the winner has been
    /// judged not interesting, and later ones are cancelled.
    pub fn first_interesting<F>(&self, count: usize, make: F) -> Result<Option<Found>, ReduceError>
    where
        F: Fn(usize) -> Option<Edits> + Sync,
    {
        self.first_interesting_by(count, make, |edits: &Edits, out: &mut Vec<u8>| {
            self.format.render(&self.doc, edits, out)
        })
    }

    /// [`Reducer::first_interesting`] for candidates of any kind, rendered by `render`.
    pub fn first_interesting_by<C, F, R>(
        &self,
        count: usize,
        make: F,
        render: R,
    ) -> Result<Option<Found<C>>, ReduceError>
    where
        C: Send,
        F: Fn(usize) -> Option<C> + Sync,
        R: Fn(&C, &mut Vec<u8>) + Sync,
    {
        self.first_interesting_then(count, &make, &render, Next::default())
    }

    /// [`Reducer::first_interesting_by`], told the candidates of the step that comes next
    /// (`next`: if this one finds nothing, and if a given candidate wins), so that workers with
    /// nothing left to do in this step can start on those (see `pool.rs`).
    pub(crate) fn first_interesting_then<C>(
        &self,
        count: usize,
        make: &dyn Fn(usize) -> Option<C>,
        render: &dyn Fn(&C, &mut Vec<u8>),
        next: Next<'_>,
    ) -> Result<Option<Found<C>>, ReduceError> {
        self.check_stop()?;
        // One candidate needs no worker, unless the pool's workers may be testing its bytes.
        if self.jobs == 1 || (count <= 1 && self.pool.is_none()) {
            for index in 0..count {
                self.check_stop()?;
                let Some(edits) = make(index) else { continue };
                if let Some(bytes) = self.evaluate(&edits, render)? {
                    return Ok(Some(Found {
                        index,
                        edits,
                        bytes,
                    }));
                }
            }
            self.check_stop()?;
            return Ok(None);
        }
        let (j, best, gate) = (&*self.judge, &self.best[..], self.gate);
        // A pool made for this step alone has no next step to start.
        let found = self.on_pool(count, |pool, own| {
            let next = if own { Next::default() } else { next };
            pool.first_interesting(j, best, gate, count, make, render, next)
        })?;
        self.check_stop()?;
        Ok(found)
    }

    /// Runs `f` on the pool of [`Reducer::parallel`], or on a pool of at most `count` workers
    /// made for it (`f`'s second argument: `true`).
    fn on_pool<T>(
        &self,
        count: usize,
        f: impl FnOnce(&Pool, bool) -> Result<T, ReduceError>,
    ) -> Result<T, ReduceError> {
        if let Some(pool) = &self.pool {
            return f(pool, false);
        }
        let pool = Pool::new(self.jobs, self.judge.starts_processes());
        let j = &*self.judge;
        std::thread::scope(|s| {
            for _ in 0..self.jobs.min(count.max(1)) {
                s.spawn(|| pool.work(j));
            }
            let found = f(&pool, true);
            pool.close();
            found
        })
    }

    /// With [`Options::merge`], how many candidates a round of ddmin tests at once: `jobs`, and
    /// at least [`MERGE_BREADTH_MIN`].
    pub(crate) fn merge_breadth(&self) -> Option<usize> {
        self.merge.then_some(self.jobs.max(MERGE_BREADTH_MIN))
    }

    /// Counts an accepted candidate that merged several wins.
    pub(crate) fn count_merged(&self) {
        bump(&self.judge.counters.merged);
    }

    /// Every interesting candidate among `count`, in index order: all are tested, `jobs` at a
    /// time. Candidates not smaller than the best are skipped.
    pub(crate) fn all_interesting<C>(
        &self,
        count: usize,
        make: &dyn Fn(usize) -> Option<C>,
        render: &dyn Fn(&C, &mut Vec<u8>),
    ) -> Result<Vec<Found<C>>, ReduceError> {
        self.check_stop()?;
        // As in `first_interesting_then`: one candidate needs no worker, unless the pool's
        // workers may be testing its bytes.
        if self.jobs == 1 || (count <= 1 && self.pool.is_none()) {
            let mut found = Vec::new();
            for index in 0..count {
                self.check_stop()?;
                let Some(edits) = make(index) else { continue };
                if let Some(bytes) = self.evaluate(&edits, render)? {
                    found.push(Found {
                        index,
                        edits,
                        bytes,
                    });
                }
            }
            return Ok(found);
        }
        let (j, best, gate) = (&*self.judge, &self.best[..], self.gate);
        let found = self.on_pool(count, |pool, _| {
            pool.all_interesting(j, best, gate, count, make, render)
        })?;
        self.check_stop()?;
        Ok(found)
    }
}

/// Closes a pool when dropped.
struct CloseOnDrop<'p>(&'p Pool);

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.close();
    }
}
