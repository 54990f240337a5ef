//! What a reduction tells the outside while it runs: the observers a caller registers (to save
//! the best result, to show progress) and the events they are told.

use crate::document::Diagnostic;
use crate::engine::Stats;
use serde::{Deserialize, Serialize};

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

/// Told what a reduction does. Every method but [`Observer::improved`] has an empty default, and
/// any `FnMut(&[u8], &Stats)` closure is an observer of improvements.
pub trait Observer: Send {
    /// The input parsed; no test has run yet.
    fn started(&mut self, started: &Started<'_>) {
        let _ = started;
    }

    /// The test found the original input interesting (and the empty file not): the reduction
    /// begins. `input` is the best result until the first improvement.
    fn confirmed(&mut self, input: &[u8]) {
        let _ = input;
    }

    /// A smaller candidate was accepted: `best` is the new best result.
    fn improved(&mut self, best: &[u8], stats: &Stats);
}

impl<F: FnMut(&[u8], &Stats) + Send> Observer for F {
    fn improved(&mut self, best: &[u8], stats: &Stats) {
        self(best, stats);
    }
}
