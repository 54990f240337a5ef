//! The tables of a case's section and of the overhead and filtering sections.

use crate::cells::{before_after, cell, group_digits, ratio, yes_no};
use crate::report::Report;
use crate::results::{CaseSection, Columns, OverheadRow, Row};
use crate::summary::median;
use std::fmt::Write as _;

/// A case's table, one line per reduction.
pub(crate) fn reductions_table(rows: &[Row], columns: &Columns) -> String {
    let mut header = vec![
        "case",
        "algorithm",
        "lang",
        "-j",
        "rules",
        "bytes before → after (%)",
        "nodes before → after (%)",
        "oracle calls",
        "cache hits",
    ];
    let mut align = vec![
        "---", "---", "---", "--:", "---", "--:", "--:", "--:", "--:",
    ];
    if columns.gate_rejections {
        header.push("gate rejections");
        align.push("--:");
    }
    header.extend([
        "wall s",
        "share of wall time outside the oracle",
        "still interesting",
    ]);
    align.extend(["--:", "--:", ":-:"]);
    if let Some(name) = &columns.check {
        header.push(name);
        align.push(":-:");
    }
    header.push("same output for -j 1 and -j 2");
    align.push(":-:");
    let mut out = format!("| {} |\n|{}|\n", header.join(" | "), align.join("|"));
    for r in rows {
        let dash = || "—".to_string();
        let (bytes, nodes, calls, hits, gate, wall, outside) = match &r.report {
            Some(rep) => (
                before_after(rep.bytes_before, rep.bytes_after),
                before_after(rep.nodes_before, rep.nodes_after),
                group_digits(rep.oracle_calls),
                group_digits(rep.cache_hits),
                group_digits(rep.gate_rejections),
                format!("{:.2}", rep.wall_seconds),
                rep.outside_share_percent()
                    .map_or_else(dash, |p| format!("{p:.1} %")),
            ),
            None => (dash(), dash(), dash(), dash(), dash(), dash(), dash()),
        };
        let mut wall = wall;
        if let Some(minutes) = r.budget_minutes_hit {
            wall.push_str(&format!(
                " (**interrupted**: over the {minutes} min budget)"
            ));
        }
        let bytes = match &r.failure {
            Some(why) => format!("**failed**: {}", cell(why)),
            None => bytes,
        };
        let mut line = vec![
            cell(&r.case),
            format!("`{}`", r.algorithm),
            r.lang.clone(),
            r.jobs.to_string(),
            r.rules_cell(),
            bytes,
            nodes,
            calls,
            hits,
        ];
        if columns.gate_rejections {
            line.push(gate);
        }
        line.extend([wall, outside, yes_no(r.still_interesting).to_string()]);
        if columns.check.is_some() {
            line.push(yes_no(r.check).to_string());
        }
        line.push(yes_no(r.same_output_across_jobs).to_string());
        let _ = writeln!(out, "| {} |", line.join(" | "));
    }
    out
}

/// A case's table of other reducers' runs.
pub(crate) fn others_table(rows: &[crate::results::OtherRow], columns: &Columns) -> String {
    let mut out = String::from(
        "| reducer | -j | bytes after | nodes after | oracle calls (wrapper) | wall s | CPU s | \
         peak MiB | share of wall time outside the oracle | finished | still interesting |",
    );
    let mut align = String::from("|---|--:|--:|--:|--:|--:|--:|--:|--:|:-:|:-:|");
    if let Some(name) = &columns.check {
        let _ = write!(out, " {name} |");
        align.push_str(":-:|");
    }
    out.push('\n');
    out.push_str(&align);
    out.push('\n');
    for r in rows {
        let dash = || "—".to_string();
        let m = r.measured.as_ref();
        let mut bytes = m.map_or_else(dash, |m| group_digits(m.bytes_after));
        if m.is_some_and(|m| m.from_wrapper) {
            bytes.push_str(" (smallest interesting candidate tested)");
        }
        if let Some(why) = &r.failure {
            bytes = format!("**failed**: {}", cell(why));
        }
        let mut wall = m.map_or_else(dash, |m| format!("{:.1}", m.wall_seconds));
        if let Some(minutes) = r.budget_minutes_hit {
            let _ = write!(wall, " (**budget**: {minutes} min)");
        }
        let mut calls = m.map_or_else(dash, |m| group_digits(m.calls.calls));
        if let (Some(own), Some(m)) = (r.own_calls, m)
            && own != m.calls.calls
        {
            let _ = write!(calls, " (it says {own})");
        }
        let _ = write!(
            out,
            "| {} {} | {} | {bytes} | {} | {calls} | {wall} | {} | {} | {} | {} | {} |",
            r.name,
            cell(r.version.split(" (").next().unwrap_or("")),
            r.jobs,
            m.and_then(|m| m.nodes_after)
                .map_or("unparsable".to_string(), group_digits),
            m.and_then(|m| m.usage.as_ref())
                .map_or_else(dash, |u| format!("{:.1}", u.cpu_seconds())),
            m.and_then(|m| m.usage.as_ref())
                .map_or_else(dash, |u| format!("{:.0}", u.max_rss_kib as f64 / 1024.0)),
            m.and_then(|m| m.calls.outside_share_percent(m.wall_seconds))
                .map_or_else(dash, |p| format!("{p:.1} %")),
            if r.finished { "yes" } else { "no" },
            yes_no(r.still_interesting),
        );
        if columns.check.is_some() {
            let _ = write!(out, " {} |", yes_no(r.check));
        }
        out.push('\n');
    }
    out
}

/// The `gtr*` rows of a case compared in the filtering table: with the shipped rules and with
/// `--no-rules`, at the first `-j` where both ran.
pub(crate) fn filtering_pair(case: &CaseSection) -> Option<(&Row, &Row)> {
    case.rows
        .iter()
        .filter(|r| r.algorithm == "gtr*" && !r.no_rules)
        .find_map(|with| {
            case.rows
                .iter()
                .find(|r| with.counterpart_of(r))
                .map(|without| (with, without))
        })
}

/// The table of "What filtering buys": per case, `gtr*` with and without the shipped rules.
pub(crate) fn filtering_table(cases: &[CaseSection]) -> String {
    let mut out = String::from(
        "| case | lang | -j | bytes after, shipped rules | bytes after, no rules | oracle calls, \
         shipped rules | oracle calls, no rules | calls with ÷ without rules | candidates \
         filtered by the rules | wall s, shipped rules | wall s, no rules |\n\
         |---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n",
    );
    for case in cases {
        let Some((with, without)) = filtering_pair(case) else {
            continue;
        };
        let dash = || "—".to_string();
        let num = |r: &Row, f: fn(&Report) -> u64| {
            r.report
                .as_ref()
                .map_or_else(dash, |rep| group_digits(f(rep)))
        };
        let wall = |r: &Row| {
            r.report
                .as_ref()
                .map_or_else(dash, |rep| format!("{:.2}", rep.wall_seconds))
        };
        let calls = match (&with.report, &without.report) {
            (Some(a), Some(b)) => ratio(a.oracle_calls, b.oracle_calls),
            _ => dash(),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {calls} | {} | {} | {} |",
            cell(&case.id),
            with.lang,
            with.jobs,
            num(with, |r| r.bytes_after),
            num(without, |r| r.bytes_after),
            num(with, |r| r.oracle_calls),
            num(without, |r| r.oracle_calls),
            num(with, |r| r.filtered),
            wall(with),
            wall(without),
        );
    }
    out
}

/// The overhead table, one line per measurement.
pub(crate) fn overhead_table(rows: &[OverheadRow]) -> String {
    let mut out = String::from(
        "| case | input bytes | test | algorithm | -j | other options | exit status (expected) \
         | runs | median wall ms | min–max ms | oracle calls | bytes before → after (%) |\n\
         |---|--:|---|---|--:|---|---|--:|--:|--:|--:|--:|\n",
    );
    for r in rows {
        let exits: Vec<String> = r
            .exits
            .iter()
            .map(|e| e.map_or("signal".to_string(), |c| c.to_string()))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let exit = if r.all_as_expected() {
            format!("{} ({})", exits.join(", "), r.expected_exit)
        } else {
            format!("**{}** ({})", exits.join(", "), r.expected_exit)
        };
        let ms = |s: f64| format!("{:.1}", s * 1000.0);
        let med = median(&r.walls).map_or("—".to_string(), ms);
        let range = match (
            r.walls.iter().copied().reduce(f64::min),
            r.walls.iter().copied().reduce(f64::max),
        ) {
            (Some(lo), Some(hi)) => format!("{}–{}", ms(lo), ms(hi)),
            _ => "—".to_string(),
        };
        let (calls, after) = match &r.report {
            Some(rep) => (
                group_digits(rep.oracle_calls),
                before_after(rep.bytes_before, rep.bytes_after),
            ),
            None => ("—".to_string(), "—".to_string()),
        };
        let _ = writeln!(
            out,
            "| {} | {} | `{}` | `{}` | {} | {} | {exit} | {} | {med} | {range} | {calls} | {after} |",
            cell(&r.case),
            group_digits(r.input_bytes as u64),
            cell(&r.test),
            r.algorithm,
            r.jobs,
            if r.options.is_empty() {
                "—".to_string()
            } else {
                format!("`{}`", cell(&r.options))
            },
            r.walls.len(),
        );
    }
    out
}

#[cfg(test)]
mod tests;
