//! whittle's `--report FILE.json` as the benchmark reads it: the library's own
//! [`whittle_core::Report`] (which the CLI flattens into the file) and the one key only the
//! command line knows that the tables show, `rules`. xtask has no parser of its own: a key an
//! older report lacks reads as the library's default.

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

/// The part of whittle's `--report FILE.json` the benchmark reads: the CLI's `rules` and the
/// library's report. The CLI's other keys (`input`, `output`, `test`, …) are ignored.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Serialize)]
pub(crate) struct Report {
    /// Where the rules came from: `shipped: corpora/FORMAT.rules.json`, a file, or `none`.
    #[serde(default)]
    pub(crate) rules: Option<String>,
    /// The reduction's counts and timings, as the library reports them.
    #[serde(flatten)]
    pub(crate) run: whittle_core::Report,
}

impl Report {
    /// Parses the JSON whittle writes with `--report`.
    pub(crate) fn from_json(text: &str) -> Result<Report> {
        serde_json::from_str(text).context("cannot read whittle's --report JSON")
    }

    /// The share of the wall time spent outside the oracle, in percent (`None` for a zero wall time).
    pub(crate) fn outside_share_percent(&self) -> Option<f64> {
        let run = &self.run;
        (run.wall_seconds > 0.0)
            .then(|| 100.0 * (run.outside_oracle_seconds / run.wall_seconds).clamp(0.0, 1.0))
    }

    /// Whether the timings contradict each other: `outside_oracle_seconds` should be
    /// `wall_seconds - oracle_busy_seconds`, and no test can be busy longer than the run lasted.
    /// Returns what is wrong, if anything.
    pub(crate) fn timing_inconsistency(&self) -> Option<String> {
        let run = &self.run;
        let busy = run.stats.oracle_busy_seconds;
        // The report rounds nothing, but allow for float noise.
        let slack = 1e-6 + 1e-9 * run.wall_seconds;
        if busy > run.wall_seconds + slack {
            return Some(format!(
                "`oracle_busy_seconds` ({busy:.3}) exceeds `wall_seconds` ({:.3})",
                run.wall_seconds
            ));
        }
        let expected = (run.wall_seconds - busy).max(0.0);
        ((run.outside_oracle_seconds - expected).abs() > slack).then(|| {
            format!(
                "`outside_oracle_seconds` ({:.3}) is not `wall_seconds` − `oracle_busy_seconds` \
                 ({:.3} − {busy:.3})",
                run.outside_oracle_seconds, run.wall_seconds
            )
        })
    }
}

#[cfg(test)]
mod tests;
