//! whittle's `--report FILE.json` as the benchmark reads it: one struct, the only place xtask
//! parses that JSON. Its field names are the JSON's; it is meant to give way to the library's
//! own report type once the CLI's writer and this reader share one.

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

/// The part of whittle's `--report FILE.json` the benchmark reads. Keys that older or newer
/// versions of the CLI may lack default to zero.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Serialize)]
pub(crate) struct Report {
    pub(crate) bytes_before: u64,
    pub(crate) bytes_after: u64,
    pub(crate) nodes_before: u64,
    pub(crate) nodes_after: u64,
    pub(crate) wall_seconds: f64,
    pub(crate) outside_oracle_seconds: f64,
    pub(crate) oracle_calls: u64,
    pub(crate) cache_hits: u64,
    #[serde(default)]
    pub(crate) candidates: u64,
    #[serde(default)]
    pub(crate) gate_rejections: u64,
    #[serde(default)]
    pub(crate) filtered: u64,
    #[serde(default)]
    pub(crate) timeouts: u64,
    #[serde(default)]
    pub(crate) oracle_seconds: f64,
    /// Wall-clock seconds during which at least one test ran; `outside_oracle_seconds` is the
    /// wall time minus this (`None` from versions of the CLI before the key existed).
    #[serde(default)]
    pub(crate) oracle_busy_seconds: Option<f64>,
    #[serde(default)]
    pub(crate) interrupted: bool,
    #[serde(default)]
    pub(crate) gate: Option<String>,
    /// Where the rules came from: `shipped: corpora/FORMAT.rules.json`, a file, or `none`.
    #[serde(default)]
    pub(crate) rules: Option<String>,
}

impl Report {
    /// Parses the JSON whittle writes with `--report`.
    pub(crate) fn from_json(text: &str) -> Result<Report> {
        serde_json::from_str(text).context("cannot read whittle's --report JSON")
    }

    /// The share of the wall time spent outside the oracle, in percent (`None` for a zero wall time).
    pub(crate) fn outside_share_percent(&self) -> Option<f64> {
        (self.wall_seconds > 0.0)
            .then(|| 100.0 * (self.outside_oracle_seconds / self.wall_seconds).clamp(0.0, 1.0))
    }

    /// Whether the timings contradict each other: `outside_oracle_seconds` should be
    /// `wall_seconds - oracle_busy_seconds`, and no test can be busy longer than the run lasted.
    /// Returns what is wrong, if anything.
    pub(crate) fn timing_inconsistency(&self) -> Option<String> {
        let busy = self.oracle_busy_seconds?;
        // The report rounds nothing, but allow for float noise.
        let slack = 1e-6 + 1e-9 * self.wall_seconds;
        if busy > self.wall_seconds + slack {
            return Some(format!(
                "`oracle_busy_seconds` ({busy:.3}) exceeds `wall_seconds` ({:.3})",
                self.wall_seconds
            ));
        }
        let expected = (self.wall_seconds - busy).max(0.0);
        ((self.outside_oracle_seconds - expected).abs() > slack).then(|| {
            format!(
                "`outside_oracle_seconds` ({:.3}) is not `wall_seconds` − `oracle_busy_seconds` \
                 ({:.3} − {busy:.3})",
                self.outside_oracle_seconds, self.wall_seconds
            )
        })
    }
}

#[cfg(test)]
mod tests;
