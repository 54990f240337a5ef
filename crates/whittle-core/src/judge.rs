//! Judging one candidate's bytes: the verdict cache, the format's gate, the oracle, and the
//! counters they keep. Shared (behind an `Arc`) by the reducer and the test pool's workers.

use crate::format::Format;
use crate::observe::{Observer, Tested, tell_tested};
use crate::oracle::{Oracle, Verdict};
use crate::stats::{Busy, Counters, Stats, bump};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, RwLock};
use std::time::{Duration, Instant};

use crate::error::ReduceError;

/// The cache key of a candidate's bytes.
pub(crate) fn key(bytes: &[u8]) -> u128 {
    xxhash_rust::xxh3::xxh3_128(bytes)
}

pub(crate) struct Judge<'a> {
    pub(crate) format: &'a dyn Format,
    oracle: &'a dyn Oracle,
    pub(crate) stop: &'a AtomicBool,
    /// Re-test a candidate that timed out once before taking the timeout as its verdict: with
    /// several tests at once on few cores, a test can time out only because of the load.
    retest_timeouts: bool,
    cache: Mutex<FxHashMap<u128, bool>>,
    pub(crate) counters: Counters,
    busy: Busy,
    /// No oracle call starts once this many have been made.
    call_limit: AtomicU64,
    /// The kind of move being tried, and the oracle calls of each kind.
    phase: Mutex<(&'static str, BTreeMap<&'static str, u64>)>,
    /// The reduction's observers, told of every test here (`Observer::tested`) and of the rest
    /// by the reducer.
    pub(crate) observers: Mutex<Vec<Box<dyn Observer + 'a>>>,
    /// Nodes of the current tree, for `Tested::nodes`.
    pub(crate) nodes: AtomicUsize,
    /// The defects of each kind the gate lets through: [`Format::gate_allowance`] of the input,
    /// then of each candidate accepted, whichever is fewer ([`Judge::tighten`]).
    gate_allowance: RwLock<Vec<usize>>,
    /// The defects of each kind ([`Format::gate_counts`]; none for a yes-or-no gate) of each
    /// candidate that passed the gate, by key. An interesting candidate is judged against the
    /// allowance three times (before its test, when its verdict is read, when it is accepted);
    /// on 1.1 MB of C++ each parse took a quarter of a second, and the second and third were a
    /// quarter of the gate's time.
    passed: Mutex<FxHashMap<u128, Vec<usize>>>,
}

impl<'a> Judge<'a> {
    pub(crate) fn new(
        format: &'a dyn Format,
        oracle: &'a dyn Oracle,
        stop: &'a AtomicBool,
        retest_timeouts: bool,
        nodes: usize,
        (input, gate_allowance): (Option<u128>, Vec<usize>),
    ) -> Judge<'a> {
        // The input's defects are its allowance (with the gate on): the gate does not look at
        // it again.
        let passed = FxHashMap::from_iter(input.map(|k| (k, gate_allowance.clone())));
        Judge {
            gate_allowance: RwLock::new(gate_allowance),
            passed: Mutex::new(passed),
            format,
            oracle,
            stop,
            retest_timeouts,
            cache: Mutex::new(FxHashMap::default()),
            counters: Counters::default(),
            busy: Busy::default(),
            call_limit: AtomicU64::new(u64::MAX),
            phase: Mutex::new(("tree", BTreeMap::new())),
            observers: Mutex::default(),
            nodes: AtomicUsize::new(nodes),
        }
    }

    /// The cached verdict for `key`, counted as a cache hit.
    pub(crate) fn cached(&self, key: u128) -> Option<Verdict> {
        let v = *self
            .cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)?;
        bump(&self.counters.cache_hits);
        Some(if v {
            Verdict::Interesting
        } else {
            Verdict::Boring
        })
    }

    /// The cached verdict for `key`, not counted.
    pub(crate) fn peek(&self, key: u128) -> Option<bool> {
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .copied()
    }

    fn remember(&self, key: u128, interesting: bool) {
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, interesting);
    }

    /// Whether the reduction must stop (a stop request, or the phase's budget is spent).
    pub(crate) fn check_stop(&self) -> Result<(), ReduceError> {
        if self.stop.load(Ordering::Relaxed) {
            Err(ReduceError::Interrupted)
        } else if self.counters.oracle_calls.load(Ordering::Relaxed)
            >= self.call_limit.load(Ordering::Relaxed)
        {
            Err(ReduceError::OutOfBudget)
        } else {
            Ok(())
        }
    }

    pub(crate) fn set_call_limit(&self, limit: Option<u64>) {
        self.call_limit
            .store(limit.unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    pub(crate) fn phase(&self) -> &'static str {
        self.phase.lock().unwrap_or_else(|e| e.into_inner()).0
    }

    /// Whether the oracle's tests start processes ([`Oracle::starts_processes`]).
    pub(crate) fn starts_processes(&self) -> bool {
        self.oracle.starts_processes()
    }

    pub(crate) fn set_phase(&self, name: &'static str) {
        self.phase.lock().unwrap_or_else(|e| e.into_inner()).0 = name;
    }

    /// The cache, then (with `gate`) the format's gate, then the oracle, for candidate bytes
    /// whose key is `key`; oracle calls are counted under the move `phase`. A verdict is cached
    /// unless the test was cancelled; a timed-out test is run once more first when the judge
    /// re-tests timeouts.
    pub(crate) fn judge(
        &self,
        key: u128,
        bytes: &[u8],
        gate: bool,
        phase: &'static str,
        cancel: &dyn Fn() -> bool,
    ) -> Result<Verdict, ReduceError> {
        if let Some(v) = self.cached(key) {
            return Ok(self.admitted(v, key, bytes, gate));
        }
        if gate && !self.passes_gate(key, bytes) {
            bump(&self.counters.gate_rejections);
            self.remember(key, false);
            return Ok(Verdict::Boring);
        }
        let mut verdict = self.call(bytes, phase, cancel)?;
        if verdict == Verdict::Timeout && self.retest_timeouts && !cancel() {
            verdict = self.call(bytes, phase, cancel)?;
        }
        if verdict != Verdict::Cancelled {
            self.remember(key, verdict == Verdict::Interesting);
        }
        Ok(verdict)
    }

    /// Whether `bytes` (whose key is `key`) pass the gate with the allowance as it is now: from
    /// their defects if they passed it before, else from the format's gate.
    fn passes_gate(&self, key: u128, bytes: &[u8]) -> bool {
        let allowance = self
            .gate_allowance
            .read()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(defects) = self.passed_defects(key) {
            return defects.iter().zip(allowance.iter()).all(|(d, a)| d <= a);
        }
        let Some(defects) = self.format.gate_counts(bytes, &allowance) else {
            return false;
        };
        self.passed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, defects);
        true
    }

    /// The defects of the candidate with this key if it passed the gate before.
    fn passed_defects(&self, key: u128) -> Option<Vec<usize>> {
        let passed = self.passed.lock().unwrap_or_else(|e| e.into_inner());
        passed.get(&key).cloned()
    }

    /// `verdict` for `bytes` (whose key is `key`), unless it is interesting and the gate (on with `gate`) now
    /// rejects them: a verdict given before the allowance was tightened, to a candidate that
    /// idle workers judged ahead of the commit that tightened it, counts as the gate's answer
    /// now, as it would have at `-j 1`.
    pub(crate) fn admitted(
        &self,
        verdict: Verdict,
        key: u128,
        bytes: &[u8],
        gate: bool,
    ) -> Verdict {
        if verdict == Verdict::Interesting && gate && !self.passes_gate(key, bytes) {
            return Verdict::Boring;
        }
        verdict
    }

    /// Lowers the allowance of each kind of defect to what `best` (the new current file) has,
    /// where that is fewer: once the file has lost an error node or an undeclared name, no
    /// candidate may bring one back. Nothing for a yes-or-no gate (no counts), and nothing
    /// where `best` fails the gate (`None`).
    pub(crate) fn tighten(&self, best: &[u8]) {
        if self.gate_allowance.read().map_or(true, |a| a.is_empty()) {
            return;
        }
        let known = self.passed_defects(key(best));
        let Some(now) = known.or_else(|| self.format.gate_allowance(best)) else {
            return;
        };
        let mut allowance = self
            .gate_allowance
            .write()
            .unwrap_or_else(|e| e.into_inner());
        for (a, n) in allowance.iter_mut().zip(now) {
            *a = (*a).min(n);
        }
    }

    /// One oracle call, timed and counted.
    fn call(
        &self,
        bytes: &[u8],
        phase: &'static str,
        cancel: &dyn Fn() -> bool,
    ) -> Result<Verdict, ReduceError> {
        let started = Instant::now();
        self.busy.enter(started);
        let stop = || self.stop.load(Ordering::Relaxed) || cancel();
        let verdict = self.oracle.test(bytes, &stop);
        self.busy.leave();
        let verdict = verdict?;
        let nanos = started.elapsed().as_nanos() as u64;
        let c = &self.counters;
        c.oracle_nanos.fetch_add(nanos, Ordering::Relaxed);
        match verdict {
            Verdict::Cancelled => {
                bump(&c.cancelled);
                return Ok(verdict);
            }
            Verdict::Timeout => {
                bump(&c.timeouts);
                c.timeout_nanos.fetch_add(nanos, Ordering::Relaxed);
            }
            Verdict::Interesting => bump(&c.interesting),
            Verdict::Boring => {}
        }
        bump(&c.oracle_calls);
        *(self.phase.lock().unwrap_or_else(|e| e.into_inner()).1)
            .entry(phase)
            .or_default() += 1;
        let (stats, nodes) = (self.stats(), self.nodes.load(Ordering::Relaxed));
        tell_tested(
            &self.observers,
            &Tested::new(verdict, nanos, phase, nodes, &stats),
        );
        Ok(verdict)
    }

    /// The counters so far.
    pub(crate) fn stats(&self) -> Stats {
        let c = &self.counters;
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        Stats {
            candidates: get(&c.candidates),
            oracle_calls: get(&c.oracle_calls),
            interesting: get(&c.interesting),
            cache_hits: get(&c.cache_hits),
            gate_rejections: get(&c.gate_rejections),
            filtered: get(&c.filtered),
            not_smaller: get(&c.not_smaller),
            timeouts: get(&c.timeouts),
            cancelled: get(&c.cancelled),
            improvements: get(&c.improvements),
            merged: get(&c.merged),
            tests_by_move: self
                .phase
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .1
                .iter()
                .map(|(&k, &v)| (k.to_string(), v))
                .collect(),
            oracle_seconds: Duration::from_nanos(get(&c.oracle_nanos)).as_secs_f64(),
            timed_out_seconds: Duration::from_nanos(get(&c.timeout_nanos)).as_secs_f64(),
            oracle_busy_seconds: self.busy.total().as_secs_f64(),
        }
    }
}
