//! What the user sees while a reduction runs: warnings about the input; on a terminal a spinner
//! with the size so far; otherwise (a log file, CI, nohup) a progress line every few seconds; and
//! on either, a message when many tests in a row bring no improvement.

use crate::args::ReduceArgs;
use crate::log::LogLines;
use crate::stall::Stall;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::Path;
use std::time::{Duration, Instant};
use whittle::{Gate, Observer, Oracle, Started, Stats, Tested};

/// Prints a message on standard error unless `--quiet`.
#[derive(Clone, Copy)]
pub(crate) struct Say {
    pub(crate) quiet: bool,
}

impl Say {
    pub(crate) fn say(self, msg: &str) {
        if !self.quiet {
            eprintln!("{msg}");
        }
    }
}

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
    pub(crate) fn new(
        say: Say,
        args: &'p ReduceArgs,
        bytes: &'p [u8],
        format: &'static str,
        oracle: &'p dyn Oracle,
    ) -> Self {
        let every = Duration::try_from_secs_f64(args.log_every).unwrap_or(Duration::ZERO);
        Progress {
            say,
            input: &args.input,
            bytes,
            format,
            oracle,
            bar: None,
            log_every: (!say.quiet && !std::io::stderr().is_terminal()).then_some(every),
            log: None,
            best: bytes.len(),
            nodes: 0,
            stall: Stall::new(args.stall_after, Instant::now()),
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
        let Some(t) = self.oracle.timeout_report() else {
            return;
        };
        if t.policy != "adaptive" {
            return;
        }
        let took: Vec<String> = t
            .original_seconds
            .iter()
            .map(|s| format!("{s:.2}"))
            .collect();
        self.say.say(&format!(
            "whittle: the original input's test took {} s; a test is killed after {} s \
             (adaptive timeout: 5 × recent test times, at least 1 s; --timeout SECONDS fixes it)",
            took.join(", "),
            crate::report::secs(t.start_seconds),
        ));
    }
}

impl Observer for Progress<'_> {
    fn started(&mut self, started: &Started<'_>) {
        self.nodes = started.nodes;
        for d in started.diagnostics {
            let (line, col) = crate::line_col(self.bytes, d.offset);
            self.say.say(&format!(
                "warning: {}:{line}:{col}: {} (recovered)",
                self.input.display(),
                d.message
            ));
        }
        if started.gate == Gate::SwitchedOff {
            self.say.say(&format!(
                "whittle: the input does not pass the {} validity gate, so the gate is off",
                self.format
            ));
        }
    }

    fn journal(&mut self, path: &Path, verdicts: usize) {
        self.replayed = verdicts as u64;
        if verdicts > 0 {
            self.say.say(&format!(
                "whittle: resuming with the journal {}: {verdicts} verdicts of an earlier run answer the candidates it judged",
                path.display()
            ));
        }
    }

    fn confirmed(&mut self, input: &[u8]) {
        self.say_timeout();
        self.stall = Stall::new(self.stall.after(), Instant::now());
        if let Some(every) = self.log_every {
            self.say.say(&format!(
                "whittle: reducing {} ({} bytes, {} nodes, {})",
                self.input.display(),
                input.len(),
                self.nodes,
                self.format
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
