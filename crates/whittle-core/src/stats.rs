//! The counters of a reduction: what the report says about oracle calls, the cache, the gate,
//! the rules, timeouts and time, and how they are kept while speculative workers run.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Counts and timings of a reduction; every number in the JSON report.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Stats {
    /// Candidates rendered.
    pub candidates: u64,
    /// Calls of the oracle (external test runs).
    pub oracle_calls: u64,
    /// Oracle calls that said interesting.
    pub interesting: u64,
    /// Candidates answered from the cache of earlier verdicts.
    pub cache_hits: u64,
    /// Candidates the validity gate rejected.
    pub gate_rejections: u64,
    /// Candidates the rules filtered out before rendering.
    pub filtered: u64,
    /// Candidates that were not smaller than the current best and so were skipped.
    pub not_smaller: u64,
    /// Oracle calls killed at the timeout.
    pub timeouts: u64,
    /// Speculative oracle calls killed because an earlier candidate already won.
    pub cancelled: u64,
    /// Accepted candidates.
    pub improvements: u64,
    /// Accepted candidates that removed what several candidates of one ddmin step removed,
    /// each interesting alone (`Options::merge`, `--merge-wins`).
    pub merged: u64,
    /// Oracle calls per kind of move: `tree` for the tree algorithms, the name of each move
    /// below the tree (`rename`, `space`, …), `bytes` for the byte-level tail.
    #[serde(default)]
    pub tests_by_move: BTreeMap<String, u64>,
    /// Seconds spent inside oracle calls, summed over threads.
    pub oracle_seconds: f64,
    /// The part of `oracle_seconds` spent in calls that were killed at the timeout: a few
    /// candidates that never end (a loop that lost its update) can take most of a run.
    pub timed_out_seconds: f64,
    /// Wall-clock seconds during which at least one oracle call was running; the rest of a run is
    /// whittle's own overhead, for every `-j`.
    pub oracle_busy_seconds: f64,
}

/// Measures the wall-clock time during which at least one oracle call runs.
#[derive(Default)]
pub(crate) struct Busy {
    /// Calls running, when the current busy stretch began, busy time before it.
    state: Mutex<(usize, Option<Instant>, Duration)>,
}

impl Busy {
    pub(crate) fn enter(&self, now: Instant) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if s.0 == 0 {
            s.1 = Some(now);
        }
        s.0 += 1;
    }

    pub(crate) fn leave(&self) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.0 = s.0.saturating_sub(1);
        if s.0 == 0
            && let Some(start) = s.1.take()
        {
            s.2 += start.elapsed();
        }
    }

    pub(crate) fn total(&self) -> Duration {
        let s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.2 + s.1.map_or(Duration::ZERO, |start| start.elapsed())
    }
}

#[derive(Default)]
pub(crate) struct Counters {
    pub(crate) candidates: AtomicU64,
    pub(crate) oracle_calls: AtomicU64,
    pub(crate) interesting: AtomicU64,
    pub(crate) cache_hits: AtomicU64,
    pub(crate) gate_rejections: AtomicU64,
    pub(crate) filtered: AtomicU64,
    pub(crate) not_smaller: AtomicU64,
    pub(crate) timeouts: AtomicU64,
    pub(crate) cancelled: AtomicU64,
    pub(crate) improvements: AtomicU64,
    pub(crate) merged: AtomicU64,
    pub(crate) oracle_nanos: AtomicU64,
    pub(crate) timeout_nanos: AtomicU64,
}

pub(crate) fn bump(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}
