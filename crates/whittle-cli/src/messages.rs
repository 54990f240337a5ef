//! What `whittle reduce` tells the user, in one place (as ripgrep's `crates/core/messages.rs`):
//! [`Say`], which prints unless `--quiet`, the texts of its messages and errors, and the
//! helpers that format seconds, durations and a test's output. The progress display, the
//! report and the reduction call these; none of them calls another for a message. (The
//! periodic progress line and the stall message are composed where their counters live,
//! `log.rs` and `stall.rs`, with the helpers here.)

use crate::config::Config;
use crate::generator::GeneratorReport;
use anyhow::{Context, Result};
use std::path::Path;
use std::time::Duration;
use whittle::{CommandOracle, Report, TimeoutReport, Verdict};
use whittle_core::GeneratorOracle;

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

/// No format claims the input's extension.
pub(crate) fn format_guessed(input: &Path) -> String {
    format!(
        "whittle: no format for this file extension; reducing {} as `lines`",
        input.display()
    )
}

/// Damage the format recovered from.
pub(crate) fn recovered(input: &Path, (line, col): (usize, usize), message: &str) -> String {
    format!(
        "warning: {}:{line}:{col}: {message} (recovered)",
        input.display()
    )
}

pub(crate) fn gate_off(format: &str) -> String {
    format!("whittle: the input does not pass the {format} validity gate, so the gate is off")
}

pub(crate) fn resuming(journal: &Path, verdicts: usize) -> String {
    format!(
        "whittle: resuming with the journal {}: {verdicts} verdicts of an earlier run answer the candidates it judged",
        journal.display()
    )
}

pub(crate) fn reducing(input: &Path, bytes: usize, nodes: usize, format: &str) -> String {
    format!(
        "whittle: reducing {} ({bytes} bytes, {nodes} nodes, {format})",
        input.display()
    )
}

/// The adaptive timeout as the run starts: what the original input's test took and the limit.
pub(crate) fn timeout_chosen(t: &TimeoutReport) -> Option<String> {
    if t.policy != "adaptive" {
        return None;
    }
    let took: Vec<String> = t
        .original_seconds
        .iter()
        .map(|s| format!("{s:.2}"))
        .collect();
    Some(format!(
        "whittle: the original input's test took {} s; a test is killed after {} s \
         (adaptive timeout: 5 × recent test times, at least 1 s; --timeout SECONDS fixes it)",
        took.join(", "),
        secs(t.start_seconds),
    ))
}

/// The re-check of the result with `--repeat K`.
pub(crate) fn rechecked(hits: usize, repeat: u32) -> String {
    format!(
        "whittle: the result was interesting in {hits} of {repeat} more runs of the test{}",
        if hits == 0 {
            "; the test is flakier than --repeat covers, try a larger K"
        } else {
            ""
        }
    )
}

pub(crate) const TOO_PERMISSIVE: &str =
    "the test is too permissive: it says an empty file is interesting too; nothing was written";

/// The test rejects every file the format writes.
pub(crate) fn rewritten(input: &Path, e: &dyn std::fmt::Display) -> String {
    format!(
        "{}: {e}; nothing was written.\n\
         No candidate can be interesting when the test rejects every file this format writes. \
         `--lang lines` reduces the file as lines of text and keeps every byte it does not delete.",
        input.display()
    )
}

/// The message about a journal that cannot be used, with the way out.
pub(crate) fn journal_error(e: &whittle::JournalError) -> String {
    match e {
        whittle::JournalError::Io { .. } => {
            format!("{e}; --journal-dir DIR keeps it elsewhere, --no-journal keeps none")
        }
        _ => format!("{e}; delete it, or pass --fresh to start a new journal"),
    }
}

/// Why the test does not find the original interesting: it runs it once more, capturing its
/// output, and says how to reproduce it.
pub(crate) fn not_interesting(
    command: &CommandOracle,
    input: &[u8],
    config: &Config,
) -> Result<String> {
    let run = command
        .run(input, &|| false, true)
        .context("cannot run the test")?;
    let how = match run.status {
        _ if run.verdict == Verdict::Timeout => match config.verdicts.timeout {
            Some(t) => format!("it timed out after {t} s"),
            None => format!(
                "it timed out after {} s, the adaptive timeout's limit for the first test; --timeout SECONDS sets another",
                run.elapsed.as_secs()
            ),
        },
        Some(s) if s.code() == Some(127) => {
            "exit status 127: the test command was not found".to_string()
        }
        Some(s) => s.to_string(),
        None => format!("{:?}", run.verdict),
    };
    let mut msg = format!(
        "the test does not find the original input interesting ({how}); nothing was written.\n\
         Reproduce with:\n  {}",
        command.reproduce_hint(&config.input)
    );
    if !run.output.is_empty() {
        msg.push_str("\nIts output ended with:\n");
        msg.push_str(&tail(&run.output));
    }
    Ok(msg)
}

/// Why the original trace is not interesting, with a shell line to reproduce it.
pub(crate) fn trace_not_interesting(
    g: &GeneratorOracle,
    trace: &[u8],
    config: &Config,
) -> Result<String> {
    let (run, test) = g.explain(trace).context("cannot run the generator")?;
    let replay = g.command_line(&config.input, Path::new("OUT"));
    let align = config.verdicts.align.as_deref().unwrap_or("realign");
    let mut msg = match (&test, run.status) {
        (None, status) => {
            let how = match status {
                Some(s) if s.code() == Some(whittle_core::GENERATOR_HALTED) => {
                    "it halted: it could not follow the trace".to_string()
                }
                Some(s) => s.to_string(),
                None => format!("{:?}", run.verdict),
            };
            format!(
                "the generator fails on the original trace ({how}); nothing was written.\n\
                 Reproduce with:\n  WHITTLE_ALIGN={align} {replay}"
            )
        }
        (Some(t), _) => format!(
            "the test does not find the input generated from the original trace interesting ({}); nothing was written.\n\
             Reproduce with:\n  WHITTLE_ALIGN={align} {replay} && {}",
            t.status
                .map_or_else(|| format!("{:?}", t.verdict), |s| s.to_string()),
            g.test_oracle().command_line(Path::new("OUT"))
        ),
    };
    let shown = test.as_ref().map_or(&run.output, |t| &t.output);
    if !shown.is_empty() {
        msg.push_str("\nIts output ended with:\n");
        msg.push_str(&tail(shown));
    }
    Ok(msg)
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

/// Seconds as a user reads them: `0.5`, `4.2`, `60`.
pub(crate) fn secs(s: f64) -> String {
    let text = format!("{s:.1}");
    text.strip_suffix(".0").map_or(text.clone(), str::to_string)
}

/// A duration as `42 s`, `3 min 20 s` or `2 h 05 min`.
pub(crate) fn duration(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{:.1} s", d.as_secs_f64()),
        60..3600 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_seconds_minutes_or_hours() {
        assert_eq!(duration(Duration::from_millis(4200)), "4.2 s");
        assert_eq!(duration(Duration::from_secs(200)), "3 min 20 s");
        assert_eq!(duration(Duration::from_secs(7500)), "2 h 05 min");
    }

    #[test]
    fn seconds_drop_a_zero_tenth_and_the_tail_keeps_ten_lines() {
        assert_eq!(
            (secs(60.0), secs(0.5)),
            ("60".to_string(), "0.5".to_string())
        );
        let output: String = (1..=12).map(|i| format!("line {i}\n")).collect();
        let tail = tail(output.as_bytes());
        assert!(
            tail.starts_with("  | line 3\n") && tail.ends_with("  | line 12"),
            "{tail}"
        );
    }
}
