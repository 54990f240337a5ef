//! What a finished reduction leaves for the user: the `--report` JSON (the library's
//! [`whittle::Report`] plus what only the command line knows) and the summary lines.

use crate::generator::GeneratorReport;
use crate::progress::Say;
use serde::Serialize;
use std::path::Path;
use whittle::Report;

/// The `--report` file: the reduction's report with the command line's own settings.
#[derive(Serialize)]
pub(crate) struct CliReport<'a> {
    pub(crate) input: &'a Path,
    pub(crate) output: &'a Path,
    pub(crate) test: &'a str,
    /// `--expect` texts the test's output had to hold (none: the exit status decided).
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub(crate) expect: &'a [String],
    /// `--timeout`, if given (the policy and the limits it set are in the report's `timeout`).
    pub(crate) timeout_seconds: Option<f64>,
    /// Where the rules came from: a path, the shipped file, or `none`.
    pub(crate) rules: &'a str,
    /// With --generator: the trace's and the generated input's sizes and the alignment counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) generator: Option<&'a GeneratorReport<'a>>,
    #[serde(flatten)]
    pub(crate) report: &'a Report,
}

/// The last ten lines of a test's output, each behind `  | `.
pub(crate) fn tail(output: &[u8]) -> String {
    let text = String::from_utf8_lossy(output);
    let lines: Vec<String> = text
        .lines()
        .rev()
        .take(10)
        .map(|l| format!("  | {l}"))
        .collect();
    lines.into_iter().rev().collect::<Vec<_>>().join("\n")
}

/// The summary of a reduction on standard error.
pub(crate) fn summarize(
    say: Say,
    r: &Report,
    output: &Path,
    generator: Option<&GeneratorReport<'_>>,
) {
    let s = &r.stats;
    let wall = r.wall_seconds;
    say.say(&format!(
        "whittle: {} {}{} bytes -> {} ({:.1}%), {} -> {} nodes, {} tests, {} cache hits, {} gate rejections, {} filtered, {:.0}% of {:.2} s in the test\n         wrote {}",
        if r.interrupted { "interrupted;" } else { "done;" },
        if generator.is_some() { "the trace: " } else { "" },
        r.bytes_before,
        r.bytes_after,
        100.0 * r.bytes_after as f64 / r.bytes_before.max(1) as f64,
        r.nodes_before,
        r.nodes_after,
        s.oracle_calls,
        s.cache_hits,
        s.gate_rejections,
        s.filtered,
        100.0 * (s.oracle_busy_seconds / wall.max(1e-9)).min(1.0),
        wall,
        output.display()
    ));
    if s.tests_by_move.len() > 1 {
        let by_move: Vec<String> = s
            .tests_by_move
            .iter()
            .map(|(kind, n)| format!("{kind} {n}"))
            .collect();
        say.say(&format!(
            "         tests by move: {}{}",
            by_move.join(", "),
            if r.minimal {
                "; no shorter string over the result's bytes is interesting"
            } else {
                ""
            }
        ));
    }
    if s.timeouts > 0 {
        let at = match &r.timeout {
            Some(t) if t.min_seconds < t.max_seconds => {
                format!("at {} to {} s", secs(t.min_seconds), secs(t.max_seconds))
            }
            Some(t) => format!("at {} s", secs(t.max_seconds)),
            None => String::new(),
        };
        say.say(&format!(
            "         {} tests timed out {at}: {:.1} of the {:.1} s spent in the test (summed over jobs)",
            s.timeouts, s.timed_out_seconds, s.oracle_seconds,
        ));
    }
    if let Some(j) = r.journal.as_ref().filter(|j| j.verdicts_read > 0) {
        say.say(&format!(
            "         resumed: the journal answered {} of the {} tests (it held {} verdicts) and {} new verdicts were added",
            j.answered, s.oracle_calls, j.verdicts_read, j.recorded
        ));
    }
    if let Some(g) = generator {
        say.say(&g.summary());
    }
}

/// Seconds as a user reads them: `0.5`, `4.2`, `60`.
pub(crate) fn secs(s: f64) -> String {
    let text = format!("{s:.1}");
    text.strip_suffix(".0").map_or(text.clone(), str::to_string)
}
