//! The `--report` JSON: the library's [`whittle::Report`] plus what only the command line knows.

use crate::config::Config;
use crate::generator::GeneratorReport;
use anyhow::{Context, Result};
use serde::Serialize;
use std::path::Path;
use whittle::Report;

/// The `--report` file: the reduction's report with the command line's own settings.
#[derive(Serialize)]
struct CliReport<'a> {
    input: &'a Path,
    output: &'a Path,
    test: &'a str,
    /// `--expect` texts the test's output had to hold (none: the exit status decided).
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    expect: &'a [String],
    /// `--timeout`, if given (the policy and the limits it set are in the report's `timeout`).
    timeout_seconds: Option<f64>,
    /// Where the rules came from: a path, the shipped file, or `none`.
    rules: &'a str,
    /// With --generator: the trace's and the generated input's sizes and the alignment counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    generator: Option<&'a GeneratorReport<'a>>,
    #[serde(flatten)]
    report: &'a Report,
}

/// Writes the report to `--report FILE`, if given.
pub(crate) fn write(
    config: &Config,
    report: &Report,
    generator: Option<&GeneratorReport<'_>>,
) -> Result<()> {
    let Some(path) = &config.report else {
        return Ok(());
    };
    let json = serde_json::to_string_pretty(&CliReport {
        input: &config.input,
        output: &config.output,
        test: &config.test_as_given,
        expect: &config.verdicts.expect,
        timeout_seconds: config.verdicts.timeout,
        rules: &config.rules_source,
        generator,
        report,
    })?;
    std::fs::write(path, json + "\n")
        .with_context(|| format!("cannot write the report {}", path.display()))
}
