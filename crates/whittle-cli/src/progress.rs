//! What the user sees while a reduction runs: warnings about the input; on a terminal a spinner
//! with the size so far; otherwise (a log file, CI, nohup) a progress line every few seconds; and
//! on either, a message when many tests in a row bring no improvement.

use crate::args::ReduceArgs;
use crate::stall::{Stall, duration};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::Path;
use std::time::{Duration, Instant};
use whittle::{Gate, Observer, Started, Stats, Tested};

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
    bar: Option<ProgressBar>,
    /// Progress lines: when the last was printed, and the time between two (`None` before the
    /// reduction begins, on a terminal and with `--quiet`).
    log: Option<(Instant, Duration)>,
    /// The time between two progress lines, if there are any.
    log_every: Option<Duration>,
    /// When the test confirmed the input.
    start: Instant,
    best: usize,
    nodes: usize,
    phase: &'static str,
    stall: Stall,
}

impl<'p> Progress<'p> {
    pub(crate) fn new(
        say: Say,
        args: &'p ReduceArgs,
        bytes: &'p [u8],
        format: &'static str,
    ) -> Self {
        let every = Duration::try_from_secs_f64(args.log_every).unwrap_or(Duration::ZERO);
        let now = Instant::now();
        Progress {
            say,
            input: &args.input,
            bytes,
            format,
            bar: None,
            log: None,
            log_every: (!say.quiet && !std::io::stderr().is_terminal()).then_some(every),
            start: now,
            best: bytes.len(),
            nodes: 0,
            phase: "tree",
            stall: Stall::new(args.stall_after, now),
        }
    }

    /// Prints a message above the spinner, or as a line.
    fn tell(&self, msg: &str) {
        match &self.bar {
            Some(bar) => bar.println(msg),
            None => self.say.say(msg),
        }
    }

    /// The progress line: where the reduction is.
    fn line(&self, stats: &Stats, now: Instant) -> String {
        let wall = now.duration_since(self.start);
        let timed_out = match stats.timeouts {
            0 => String::new(),
            n => format!(" ({n} timed out)"),
        };
        format!(
            "whittle: {} {} bytes ({:.1}%), {} nodes, {} tests{timed_out}, {} improvements, {}; {:.2} s per test, {:.0}% of the time in the test",
            duration(wall),
            self.best,
            100.0 * self.best as f64 / self.bytes.len().max(1) as f64,
            self.nodes,
            stats.oracle_calls,
            stats.improvements,
            self.phase,
            stats.oracle_seconds / stats.oracle_calls.max(1) as f64,
            100.0 * (stats.oracle_busy_seconds / wall.as_secs_f64().max(1e-9)).min(1.0),
        )
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
        if verdicts > 0 {
            self.say.say(&format!(
                "whittle: resuming with the journal {}: {verdicts} verdicts of an earlier run answer the candidates it judged",
                path.display()
            ));
        }
    }

    fn confirmed(&mut self, input: &[u8]) {
        let now = Instant::now();
        self.start = now;
        self.stall = Stall::new(self.stall.after(), now);
        self.log = self.log_every.map(|every| (now, every));
        if self.log.is_some() {
            self.say.say(&format!(
                "whittle: reducing {} ({} bytes, {} nodes, {})",
                self.input.display(),
                input.len(),
                self.nodes,
                self.format
            ));
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
        self.nodes = tested.nodes;
        self.phase = tested.phase;
        if let Some(msg) = self.stall.check(tested.stats, self.best, now)
            && !self.say.quiet
        {
            self.tell(&msg);
        }
        if let Some((last, every)) = self.log
            && now.duration_since(last) >= every
        {
            self.say.say(&self.line(tested.stats, now));
            self.log = Some((now, every));
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
