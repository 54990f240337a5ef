//! Generator-based reduction (`--generator`): what the report says about it, and why an original
//! trace is not interesting.

use crate::args::ReduceArgs;
use anyhow::{Context, Result};
use serde::Serialize;
use std::path::{Path, PathBuf};
use whittle_core::{GeneratorOracle, GeneratorStats};

/// The trace's and the generated input's sizes and the alignment counts.
#[derive(Serialize)]
pub(crate) struct GeneratorReport<'a> {
    command: &'a str,
    align: &'a str,
    trace_output: PathBuf,
    decisions_before: usize,
    decisions_after: usize,
    output_bytes_before: usize,
    output_bytes_after: usize,
    #[serde(flatten)]
    stats: GeneratorStats,
}

impl<'a> GeneratorReport<'a> {
    pub(crate) fn new(
        g: &GeneratorOracle,
        args: &'a ReduceArgs,
        trace_output: &Path,
        (input, best): (&[u8], &[u8]),
        output_bytes_before: usize,
    ) -> Result<Self> {
        Ok(GeneratorReport {
            command: args.generator.as_deref().unwrap_or(""),
            align: &args.align,
            trace_output: trace_output.to_path_buf(),
            decisions_before: whittle_trace::decisions(input).unwrap_or(0),
            decisions_after: whittle_trace::decisions(best).unwrap_or(0),
            output_bytes_before,
            output_bytes_after: g.output_for(best)?.map_or(0, |o| o.len()),
            stats: g.stats(),
        })
    }

    /// The summary line about the trace and the generated input.
    pub(crate) fn summary(&self) -> String {
        format!(
            "         the trace: {} -> {} decisions, in {}; the generated input: {} -> {} bytes; {} of {} replays misaligned ({} decisions made afresh, {} restarts, {} halted)",
            self.decisions_before,
            self.decisions_after,
            self.trace_output.display(),
            self.output_bytes_before,
            self.output_bytes_after,
            self.stats.replays_misaligned,
            self.stats.generator_runs,
            self.stats.fresh,
            self.stats.restarts,
            self.stats.halted,
        )
    }
}

/// Why the original trace is not interesting, with a shell line to reproduce it.
pub(crate) fn explain(g: &GeneratorOracle, trace: &[u8], args: &ReduceArgs) -> Result<String> {
    let (run, test) = g.explain(trace).context("cannot run the generator")?;
    let replay = g.command_line(&args.input, Path::new("OUT"));
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
                 Reproduce with:\n  WHITTLE_ALIGN={} {replay}",
                args.align
            )
        }
        (Some(t), _) => format!(
            "the test does not find the input generated from the original trace interesting ({}); nothing was written.\n\
             Reproduce with:\n  WHITTLE_ALIGN={} {replay} && {}",
            t.status
                .map_or_else(|| format!("{:?}", t.verdict), |s| s.to_string()),
            args.align,
            g.test_oracle().command_line(Path::new("OUT"))
        ),
    };
    let shown = test.as_ref().map_or(&run.output, |t| &t.output);
    if !shown.is_empty() {
        msg.push_str("\nIts output ended with:\n");
        msg.push_str(&crate::report::tail(shown));
    }
    Ok(msg)
}
