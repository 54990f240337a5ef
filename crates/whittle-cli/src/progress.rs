//! What the user sees while a reduction runs: warnings about the input, and a spinner with the
//! size so far on a terminal.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::Path;
use std::time::Duration;
use whittle::{Gate, Observer, Oracle, Started, Stats};

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
/// when the input parsed, then a spinner (on a terminal only) with the size after every
/// improvement.
pub(crate) struct Progress<'p> {
    say: Say,
    input: &'p Path,
    /// The input's bytes, for the line and column of a diagnostic.
    bytes: &'p [u8],
    format: &'static str,
    /// The test, for its timeout once the original input was timed.
    oracle: &'p dyn Oracle,
    bar: Option<ProgressBar>,
}

impl<'p> Progress<'p> {
    pub(crate) fn new(
        say: Say,
        input: &'p Path,
        bytes: &'p [u8],
        format: &'static str,
        oracle: &'p dyn Oracle,
    ) -> Self {
        Progress {
            say,
            input,
            bytes,
            format,
            oracle,
            bar: None,
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

    fn confirmed(&mut self, input: &[u8]) {
        self.say_timeout();
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
}

impl Drop for Progress<'_> {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
