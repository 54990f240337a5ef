//! Problems worth a bug report, found in the results.

use crate::cells::{cell, group_digits};
use crate::report::Report;
use crate::results::{CaseSection, NotRun, OverheadRow, Row};

/// Problems worth a bug report, found in the rows: outputs the oracle rejects or that fail the
/// case's check, outputs that depend on `-j`, failed and interrupted runs, reports whose timings
/// contradict each other, overhead runs with an unexpected exit status.
pub(crate) fn findings(cases: &[CaseSection], overhead: &[OverheadRow]) -> Vec<String> {
    let mut out = Vec::new();
    for case in cases {
        match &case.not_run {
            Some(NotRun::ToolMissing(why)) => {
                out.push(format!("{} was not run: tool missing: {why}", case.id));
            }
            Some(NotRun::Broken(why)) => out.push(format!("{} was not run: {why}", case.id)),
            Some(NotRun::NoQuickPlan) | None => {}
        }
        for r in &case.rows {
            let what = what(r, &case.id);
            if let Some(why) = &r.failure {
                out.push(format!("{what} failed: {}", cell(why)));
            }
            if let Some(m) = r.budget_minutes_hit {
                out.push(format!(
                    "{what} took longer than the {m} min budget and was interrupted"
                ));
            }
            if r.still_interesting == Some(false) {
                out.push(format!(
                    "{what}: the output is no longer interesting to the oracle"
                ));
            }
            if r.check == Some(false) {
                let name = case.columns.check.as_deref().unwrap_or("the case's check");
                out.push(format!("{what}: the output fails the check “{name}”"));
            }
            if let Some(why) = r.report.as_ref().and_then(Report::timing_inconsistency) {
                out.push(format!("{what}: the report's timings disagree: {why}"));
            }
            if let Some((with, without)) = r
                .no_rules
                .then(|| case.rows.iter().find(|w| w.counterpart_of(r)))
                .flatten()
                .and_then(|w| Some((w.report.as_ref()?, r.report.as_ref()?)))
                && with.run.bytes_after > without.run.bytes_after
            {
                out.push(format!(
                    "{what}: the shipped rules cost size: {} bytes with them, {} without",
                    group_digits(with.run.bytes_after as u64),
                    group_digits(without.run.bytes_after as u64)
                ));
            }
            if r.same_output_across_jobs == Some(false) && r.jobs == 1 {
                out.push(format!(
                    "{}: `{}` (`--lang {}`{}): `-j 1` and `-j 2` give different outputs",
                    case.id,
                    r.algorithm,
                    r.lang,
                    if r.no_rules { ", `--no-rules`" } else { "" }
                ));
            }
        }
    }
    for o in overhead {
        if !o.all_as_expected() {
            out.push(format!(
                "overhead case “{}” (`{}`{}) did not always exit with status {}: {}",
                o.case,
                o.test,
                if o.options.is_empty() {
                    String::new()
                } else {
                    format!(" with `{}`", o.options)
                },
                o.expected_exit,
                o.exits
                    .iter()
                    .map(|e| e.map_or("signal".to_string(), |c| c.to_string()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    out
}

/// The run named in findings: case, algorithm, format, `-j` and `--no-rules`.
fn what(r: &Row, case: &str) -> String {
    format!(
        "{case}: `{}` (`--lang {}`, `-j {}`{})",
        r.algorithm,
        r.lang,
        r.jobs,
        if r.no_rules { ", `--no-rules`" } else { "" }
    )
}

#[cfg(test)]
mod tests;
