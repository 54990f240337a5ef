//! What the user sees while a reduction runs: warnings about the input; on a terminal a spinner
//! with the size so far; otherwise (a log file, CI, nohup) a progress line every few seconds; and
//! on either, a message when many tests in a row bring no improvement.

use crate::config::Config;
use crate::log::LogLines;
use crate::messages::{self, Say};
use crate::stall::Stall;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::Path;
use std::time::{Duration, Instant};
use whittle::{Gate, Observer, Oracle, Started, Stats, Tested};

/// The observer behind what the user sees: the input's recovered problems and the gate's state
/// when the input parsed, then a spinner (on a terminal) or progress lines (elsewhere), and
/// the stall message.
pub(crate) struct Progress<'p> {
    say: Say,
    input: &'p Path,
    /// The input's bytes, for the line and column of a diagnostic.
    bytes: &'p [u8],
    format: &'static str,
    /// The test, for its timeout once the original input was timed.
    oracle: &'p dyn Oracle,
    bar: Option<ProgressBar>,
    /// The time between two progress lines, if there are any (not on a terminal, not with
    /// `--quiet`).
    log_every: Option<Duration>,
    /// The progress lines, once the reduction begins.
    log: Option<LogLines>,
    best: usize,
    nodes: usize,
    stall: Stall,
    /// Verdicts in the journal when the run resumed: the tests up to that count are mostly
    /// answers from it, which say nothing about a stall.
    replayed: u64,
}

impl<'p> Progress<'p> {
    pub(crate) fn new(config: &'p Config, bytes: &'p [u8], oracle: &'p dyn Oracle) -> Self {
        let say = config.say;
        Progress {
            say,
            input: &config.input,
            bytes,
            format: config.format.name(),
            oracle,
            bar: None,
            log_every: (!say.quiet && !std::io::stderr().is_terminal()).then_some(config.log_every),
            log: None,
            best: bytes.len(),
            nodes: 0,
            stall: Stall::new(config.stall_after, Instant::now()),
            replayed: 0,
        }
    }

    /// Prints a message above the spinner, or as a line.
    fn tell(&self, msg: &str) {
        match &self.bar {
            Some(bar) => bar.println(msg),
            None => self.say.say(msg),
        }
    }

    /// The adaptive timeout as the run starts: what the original input's test took and the limit.
    fn say_timeout(&self) {
        if let Some(msg) = self
            .oracle
            .timeout_report()
            .as_ref()
            .and_then(messages::timeout_chosen)
        {
            self.say.say(&msg);
        }
    }
}

impl Observer for Progress<'_> {
    fn started(&mut self, started: &Started<'_>) {
        self.nodes = started.nodes;
        for d in started.diagnostics {
            let (line, col) = crate::line_col(self.bytes, d.offset);
            self.say
                .say(&messages::recovered(self.input, (line, col), &d.message));
        }
        if started.gate == Gate::SwitchedOff {
            self.say.say(&messages::gate_off(self.format));
        }
    }

    fn journal(&mut self, path: &Path, verdicts: usize) {
        self.replayed = verdicts as u64;
        if verdicts > 0 {
            self.say.say(&messages::resuming(path, verdicts));
        }
    }

    fn confirmed(&mut self, input: &[u8]) {
        self.say_timeout();
        self.stall = Stall::new(self.stall.after(), Instant::now());
        if let Some(every) = self.log_every {
            self.say.say(&messages::reducing(
                self.input,
                input.len(),
                self.nodes,
                self.format,
            ));
            self.log = Some(LogLines::start(every, input.len(), self.nodes));
        }
        if self.say.quiet || !std::io::stderr().is_terminal() {
            return;
        }
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(Duration::from_millis(120));
        bar.set_message(format!("{} bytes", input.len()));
        self.bar = Some(bar);
    }

    fn improved(&mut self, best: &[u8], stats: &Stats) {
        self.best = best.len();
        self.stall.improved(stats, Instant::now());
        if let Some(log) = &self.log {
            log.improved(best.len(), stats);
        }
        if let Some(bar) = &self.bar {
            let by_move: Vec<String> = stats
                .tests_by_move
                .iter()
                .map(|(kind, n)| format!("{kind} {n}"))
                .collect();
            bar.set_message(format!(
                "{} bytes ({:.1}%), {} tests ({}), {} cache hits",
                best.len(),
                100.0 * best.len() as f64 / self.bytes.len().max(1) as f64,
                stats.oracle_calls,
                by_move.join(", "),
                stats.cache_hits
            ));
        }
    }

    fn tested(&mut self, tested: &Tested<'_>) {
        let now = Instant::now();
        if tested.stats.oracle_calls <= self.replayed {
            self.stall.improved(tested.stats, now);
        } else if let Some(msg) = self.stall.check(tested.stats, self.best, now)
            && !self.say.quiet
        {
            self.tell(&msg);
        }
        if let Some(log) = &self.log {
            log.tested(tested.stats, tested.phase, tested.nodes);
        }
    }
}

impl Drop for Progress<'_> {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
