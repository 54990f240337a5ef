//! Generator-based reduction (`--generator`): what the report and the summary say about it.

use crate::config::Config;
use anyhow::Result;
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
        config: &'a Config,
        trace_output: &Path,
        (input, best): (&[u8], &[u8]),
        output_bytes_before: usize,
    ) -> Result<Self> {
        Ok(GeneratorReport {
            command: config.verdicts.generator.as_deref().unwrap_or(""),
            align: config.verdicts.align.as_deref().unwrap_or(""),
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
