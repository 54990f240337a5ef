//! The tables of a case's section and of the overhead and filtering sections.

use crate::cells::{CENTRE, LEFT, RIGHT, Table, before_after, cell, group_digits, ratio, yes_no};
use crate::report::Report;
use crate::results::{CaseSection, Columns, OverheadRow, Row};
use crate::summary::median;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A case's table, one line per reduction.
pub(crate) fn reductions_table(rows: &[Row], columns: &Columns) -> String {
    let mut cols = vec![
        ("case", LEFT),
        ("algorithm", LEFT),
        ("lang", LEFT),
        ("-j", RIGHT),
        ("rules", LEFT),
        ("bytes before → after (%)", RIGHT),
        ("nodes before → after (%)", RIGHT),
        ("oracle calls", RIGHT),
        ("cache hits", RIGHT),
    ];
    if columns.gate_rejections {
        cols.push(("gate rejections", RIGHT));
    }
    cols.extend([
        ("wall s", RIGHT),
        ("share of wall time outside the oracle", RIGHT),
        ("still interesting", CENTRE),
    ]);
    if let Some(name) = &columns.check {
        cols.push((name, CENTRE));
    }
    cols.push(("same output for -j 1 and -j 2", CENTRE));
    let mut table = Table::new(cols);
    for r in rows {
        let dash = || "—".to_string();
        let (bytes, nodes, calls, hits, gate, wall, outside) = match &r.report {
            Some(rep) => (
                before_after(rep.run.bytes_before as u64, rep.run.bytes_after as u64),
                before_after(rep.run.nodes_before as u64, rep.run.nodes_after as u64),
                group_digits(rep.run.stats.oracle_calls),
                group_digits(rep.run.stats.cache_hits),
                group_digits(rep.run.stats.gate_rejections),
                format!("{:.2}", rep.run.wall_seconds),
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
            rules_cell(r),
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
        table.row(&line);
    }
    table.finish()
}

/// A case's table of other reducers' runs.
pub(crate) fn others_table(rows: &[crate::results::OtherRow], columns: &Columns) -> String {
    let mut cols = vec![
        ("reducer", LEFT),
        ("-j", RIGHT),
        ("bytes after", RIGHT),
        ("nodes after", RIGHT),
        ("oracle calls (wrapper)", RIGHT),
        ("wall s", RIGHT),
        ("CPU s", RIGHT),
        ("peak MiB", RIGHT),
        ("share of wall time outside the oracle", RIGHT),
        ("finished", CENTRE),
        ("still interesting", CENTRE),
    ];
    if let Some(name) = &columns.check {
        cols.push((name, CENTRE));
    }
    let mut table = Table::new(cols);
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
        let mut line = vec![
            format!(
                "{} {}",
                r.name,
                cell(r.version.split(" (").next().unwrap_or(""))
            ),
            r.jobs.to_string(),
            bytes,
            m.and_then(|m| m.nodes_after)
                .map_or("unparsable".to_string(), group_digits),
            calls,
            wall,
            m.and_then(|m| m.usage.as_ref())
                .map_or_else(dash, |u| format!("{:.1}", u.cpu_seconds())),
            m.and_then(|m| m.usage.as_ref())
                .map_or_else(dash, |u| format!("{:.0}", u.max_rss_kib as f64 / 1024.0)),
            m.and_then(|m| m.calls.outside_share_percent(m.wall_seconds))
                .map_or_else(dash, |p| format!("{p:.1} %")),
            (if r.finished { "yes" } else { "no" }).to_string(),
            yes_no(r.still_interesting).to_string(),
        ];
        if columns.check.is_some() {
            line.push(yes_no(r.check).to_string());
        }
        table.row(&line);
    }
    table.finish()
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
    let mut table = Table::new([
        ("case", LEFT),
        ("lang", LEFT),
        ("-j", RIGHT),
        ("bytes after, shipped rules", RIGHT),
        ("bytes after, no rules", RIGHT),
        ("oracle calls, shipped rules", RIGHT),
        ("oracle calls, no rules", RIGHT),
        ("calls with ÷ without rules", RIGHT),
        ("candidates filtered by the rules", RIGHT),
        ("wall s, shipped rules", RIGHT),
        ("wall s, no rules", RIGHT),
    ]);
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
                .map_or_else(dash, |rep| format!("{:.2}", rep.run.wall_seconds))
        };
        let calls = match (&with.report, &without.report) {
            (Some(a), Some(b)) => ratio(a.run.stats.oracle_calls, b.run.stats.oracle_calls),
            _ => dash(),
        };
        table.row(&[
            cell(&case.id),
            with.lang.clone(),
            with.jobs.to_string(),
            num(with, |r| r.run.bytes_after as u64),
            num(without, |r| r.run.bytes_after as u64),
            num(with, |r| r.run.stats.oracle_calls),
            num(without, |r| r.run.stats.oracle_calls),
            calls,
            num(with, |r| r.run.stats.filtered),
            wall(with),
            wall(without),
        ]);
    }
    table.finish()
}

/// The overhead table, one line per measurement.
pub(crate) fn overhead_table(rows: &[OverheadRow]) -> String {
    let mut table = Table::new([
        ("case", LEFT),
        ("input bytes", RIGHT),
        ("test", LEFT),
        ("algorithm", LEFT),
        ("-j", RIGHT),
        ("other options", LEFT),
        ("exit status (expected)", LEFT),
        ("runs", RIGHT),
        ("median wall ms", RIGHT),
        ("min–max ms", RIGHT),
        ("oracle calls", RIGHT),
        ("bytes before → after (%)", RIGHT),
    ]);
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
                group_digits(rep.run.stats.oracle_calls),
                before_after(rep.run.bytes_before as u64, rep.run.bytes_after as u64),
            ),
            None => ("—".to_string(), "—".to_string()),
        };
        table.row(&[
            cell(&r.case),
            group_digits(r.input_bytes as u64),
            format!("`{}`", cell(&r.test)),
            format!("`{}`", r.algorithm),
            r.jobs.to_string(),
            if r.options.is_empty() {
                "—".to_string()
            } else {
                format!("`{}`", cell(&r.options))
            },
            exit,
            r.walls.len().to_string(),
            med,
            range,
            calls,
            after,
        ]);
    }
    table.finish()
}

/// `auto`'s kinds of move in the order whittle tries them, as its report's `tests_by_move` names
/// them; a kind the benchmark does not know comes after these, by name.
pub(crate) const MOVES: [&str; 9] = [
    "tree",
    "tidy",
    "placeholder",
    "rename",
    "literal-empty",
    "number",
    "space",
    "literal-chars",
    "bytes",
];

/// `tree 314, rename 26, …`: oracle calls per kind of move, in the order of [`MOVES`].
pub(crate) fn moves_text(by_move: &BTreeMap<String, u64>) -> String {
    let mut kinds: Vec<(&str, u64)> = by_move.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    kinds.sort_by_key(|(k, _)| (MOVES.iter().position(|m| m == k).unwrap_or(MOVES.len()), *k));
    kinds
        .iter()
        .map(|(k, v)| format!("{k} {}", group_digits(*v)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The list under a case's table of the oracle calls per kind of move of each `auto` row whose
/// report has them (`tests_by_move`), with whether its result was shown minimal; empty when no
/// row has them (a run of before `auto`).
pub(crate) fn moves_list(rows: &[Row]) -> String {
    let mut out = String::new();
    for r in rows.iter().filter(|r| r.algorithm == "auto") {
        let Some(rep) = r.report.as_ref() else {
            continue;
        };
        if rep.run.stats.tests_by_move.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "- `--lang {}`, `-j {}`{}: {}{}",
            r.lang,
            r.jobs,
            if r.no_rules { ", `--no-rules`" } else { "" },
            moves_text(&rep.run.stats.tests_by_move),
            if rep.run.minimal {
                "; minimal: no shorter string over the result's bytes is interesting"
            } else {
                ""
            }
        );
    }
    if out.is_empty() {
        return out;
    }
    format!(
        "Oracle calls of `auto` per kind of move (its report's `tests_by_move`: `tree` for the \
         tree moves of GTR*, the moves below the tree by name, `bytes` for the byte-level \
         tail):\n\n{out}"
    )
}

/// The *rules* cell: `none` for `--no-rules`; else `shipped`, or `n/a` when the report says
/// the run had none (a format without shipped rules, such as `lines`), or the rules file.
pub(crate) fn rules_cell(r: &Row) -> String {
    if r.no_rules {
        return "none".to_string();
    }
    match r.report.as_ref().and_then(|rep| rep.rules.as_deref()) {
        None => "shipped".to_string(),
        Some(rules) if rules.starts_with("shipped") => "shipped".to_string(),
        Some("none") => "n/a".to_string(),
        Some(file) => format!("`{}`", cell(file)),
    }
}

#[cfg(test)]
mod tests;
