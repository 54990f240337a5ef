//! What a reduction tells the outside while it runs: the observers a caller registers (to save
//! the best result, to show progress) and the events they are told.

use crate::document::Diagnostic;
use crate::oracle::Verdict;
use crate::stats::Stats;
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Mutex;

/// Whether candidates go through the format's validity gate before the test.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Gate {
    /// Every candidate is checked by the format's parser first.
    #[serde(rename = "on")]
    On,
    /// The caller turned it off, or the format has none.
    #[serde(rename = "off")]
    #[default]
    Off,
    /// Asked for, but the input itself fails it (a test about a malformed file), so it is off.
    #[serde(rename = "switched off (the input fails it)")]
    SwitchedOff,
}

/// What is known once the input parsed, before any test runs.
#[derive(Debug)]
pub struct Started<'r> {
    /// Problems in the input the format recovered from.
    pub diagnostics: &'r [Diagnostic],
    /// Whether the gate is in use.
    pub gate: Gate,
    /// Nodes in the input's tree.
    pub nodes: usize,
    /// Bytes of the input.
    pub bytes: usize,
}

/// One test of a candidate ended: what it said, how long it took, and the counters after it.
/// A candidate the cache or the gate answered is no test; it shows in the next event's counters.
#[derive(Debug)]
pub struct Tested<'r> {
    /// What the test said (a cancelled speculative test is no event).
    pub verdict: Verdict,
    /// How long it took, in seconds (next to nothing for an answer from a journal).
    pub seconds: f64,
    /// The kind of move being tried (`tree`, `rename`, `bytes`, …; see [`Stats::tests_by_move`]).
    pub phase: &'static str,
    /// Nodes of the current tree (as of the last commit).
    pub nodes: usize,
    /// The counters after this test.
    pub stats: &'r Stats,
}

impl<'r> Tested<'r> {
    pub(crate) fn new(
        verdict: Verdict,
        nanos: u64,
        phase: &'static str,
        nodes: usize,
        stats: &'r Stats,
    ) -> Tested<'r> {
        Tested {
            verdict,
            seconds: nanos as f64 * 1e-9,
            phase,
            nodes,
            stats,
        }
    }
}

/// Tells every observer of a test; called by the speculative workers, so one at a time.
pub(crate) fn tell_tested(observers: &Mutex<Vec<Box<dyn Observer + '_>>>, tested: &Tested<'_>) {
    for o in observers
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter_mut()
    {
        o.tested(tested);
    }
}

/// Told what a reduction does. Every method but [`Observer::improved`] has an empty default, and
/// any `FnMut(&[u8], &Stats)` closure is an observer of improvements.
pub trait Observer: Send {
    /// The input parsed; no test has run yet.
    fn started(&mut self, started: &Started<'_>) {
        let _ = started;
    }

    /// The reduction keeps a journal at `path` and read `verdicts` from it (0 for a new one):
    /// candidates judged before are answered from it (see `Reduction::journal`).
    fn journal(&mut self, path: &Path, verdicts: usize) {
        let _ = (path, verdicts);
    }

    /// The test found the original input interesting (and the empty file not): the reduction
    /// begins. `input` is the best result until the first improvement.
    fn confirmed(&mut self, input: &[u8]) {
        let _ = input;
    }

    /// A smaller candidate was accepted: `best` is the new best result.
    fn improved(&mut self, best: &[u8], stats: &Stats);

    /// A test ended (see [`Tested`]). Called from the threads that run tests, so it should be
    /// quick: print a line now and then, not on every call.
    fn tested(&mut self, tested: &Tested<'_>) {
        let _ = tested;
    }
}

impl<F: FnMut(&[u8], &Stats) + Send> Observer for F {
    fn improved(&mut self, best: &[u8], stats: &Stats) {
        self(best, stats);
    }
}
