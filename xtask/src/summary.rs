//! The benchmark's comparison across reducers: every run (whittle's and the other reducers') as
//! one [`Run`] measured the same way from outside (the counting wrapper's oracle calls, whittle's
//! own parsers for tree nodes, `xtask measure` for CPU time and memory), the paper's Table II
//! (medians per format), the headline table of the closing note, the `-j` speed-up, and the box
//! plots (`plotters`, SVG, in `plots.rs`). Nothing here starts a process; the tables are
//! unit-tested on hand-made runs.

use crate::cells::{
    CENTRE, LEFT, RIGHT, Table, before_after, cell, group_digits, num, pct, yes_no,
};
use crate::measure::{CallLog, Usage};
use crate::results::{CaseSection, Measured};
use crate::size::counts_tokens;

/// One run, whoever reduced: what the comparison tables and plots are made of.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Run {
    pub(crate) case: String,
    /// The case's format (`xml`, `python`, `javascript`, `pdf`).
    pub(crate) format: String,
    /// `whittle gtr*`, `whittle ddmin`, `C-Reduce`...
    pub(crate) reducer: String,
    pub(crate) jobs: usize,
    /// Whether whittle ran with `--no-rules`.
    pub(crate) no_rules: bool,
    pub(crate) bytes_before: u64,
    pub(crate) bytes_after: u64,
    pub(crate) nodes_before: Option<u64>,
    pub(crate) nodes_after: Option<u64>,
    pub(crate) tokens_before: Option<u64>,
    pub(crate) tokens_after: Option<u64>,
    pub(crate) calls: u64,
    pub(crate) wall_seconds: f64,
    pub(crate) cpu_seconds: Option<f64>,
    pub(crate) peak_kib: Option<u64>,
    pub(crate) budget_hit: bool,
    pub(crate) still_interesting: Option<bool>,
    pub(crate) valid: Option<bool>,
    /// Whether the reducer failed (a bad exit status before its budget): its "result" is then
    /// whatever it left, often the untouched input, and it is no result to compare.
    pub(crate) failed: bool,
    /// What the counting wrapper logged of the run's calls (see [`CallLog::calls_to_reach`]).
    pub(crate) call_log: CallLog,
    /// whittle's own count of the tests it started, and of those it cancelled (a speculative
    /// test the reduction no longer needed), from its report.
    pub(crate) started_cancelled: Option<(u64, u64)>,
}

impl Run {
    pub(crate) fn bytes_percent(&self) -> Option<f64> {
        (self.bytes_before > 0).then(|| 100.0 * self.bytes_after as f64 / self.bytes_before as f64)
    }

    pub(crate) fn nodes_percent(&self) -> Option<f64> {
        share(self.nodes_before, self.nodes_after)
    }

    pub(crate) fn tokens_percent(&self) -> Option<f64> {
        share(self.tokens_before, self.tokens_after)
    }

    /// Whether the run counts in the medians: it did not fail and its output is still
    /// interesting (a run whose result the oracle rejects has no result to compare).
    pub(crate) fn counts(&self) -> bool {
        self.still_interesting == Some(true) && !self.failed
    }
}

/// `after` as a percentage of `before`.
fn share(before: Option<u64>, after: Option<u64>) -> Option<f64> {
    match (before, after) {
        (Some(b), Some(a)) if b > 0 => Some(100.0 * a as f64 / b as f64),
        _ => None,
    }
}

/// The reducers in the order they first appear, whittle's first.
fn reducers(runs: &[&Run]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for r in runs {
        if !names.contains(&r.reducer) {
            names.push(r.reducer.clone());
        }
    }
    names.sort_by_key(|n| !n.starts_with("whittle"));
    names
}

/// The formats in the order they first appear.
fn formats(runs: &[&Run]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in runs {
        if !out.contains(&r.format) {
            out.push(r.format.clone());
        }
    }
    out
}

/// The runs the comparison uses: each reducer's runs with the shipped rules (whittle) at the
/// comparison's `-j` (the largest that ran of each case), one per (case, reducer).
pub(crate) fn compared(runs: &[Run]) -> Vec<&Run> {
    let mut out: Vec<&Run> = Vec::new();
    for r in runs.iter().filter(|r| !r.no_rules) {
        let top = runs
            .iter()
            .filter(|o| o.case == r.case && o.reducer == r.reducer && !o.no_rules)
            .map(|o| o.jobs)
            .max()
            .unwrap_or(r.jobs);
        if r.jobs == top
            && !out
                .iter()
                .any(|o| o.case == r.case && o.reducer == r.reducer)
        {
            out.push(r);
        }
    }
    out
}

/// Medians of one reducer on one format.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Medians {
    pub(crate) cases: usize,
    /// Runs left out because their output is not interesting (or was not checked).
    pub(crate) left_out: usize,
    pub(crate) nodes_percent: Option<f64>,
    pub(crate) bytes_percent: Option<f64>,
    pub(crate) tokens_percent: Option<f64>,
    pub(crate) calls: Option<f64>,
    pub(crate) wall_seconds: Option<f64>,
    pub(crate) budget_hits: usize,
    /// Of the counted runs, how many had their output checked for validity in its format
    /// (`python3 -c 'ast.parse…'`, `node --check`, `qpdf --check`), and how many passed.
    pub(crate) checked: usize,
    pub(crate) valid: usize,
}

impl Medians {
    /// `2 of 3`, or `—` when no output was checked (a case about an ill-formed input).
    pub(crate) fn valid_cell(&self) -> String {
        if self.checked == 0 {
            "—".to_string()
        } else if self.valid < self.checked {
            format!("**{} of {}**", self.valid, self.checked)
        } else {
            format!("{} of {}", self.valid, self.checked)
        }
    }
}

pub(crate) fn medians(runs: &[&Run], format: &str, reducer: &str) -> Medians {
    let all: Vec<&&Run> = runs
        .iter()
        .filter(|r| r.format == format && r.reducer == reducer)
        .collect();
    let ok: Vec<&&Run> = all.iter().copied().filter(|r| r.counts()).collect();
    let col = |f: &dyn Fn(&Run) -> Option<f64>| {
        let v: Vec<f64> = ok.iter().filter_map(|r| f(r)).collect();
        median(&v)
    };
    Medians {
        cases: ok.len(),
        left_out: all.len() - ok.len(),
        nodes_percent: col(&Run::nodes_percent),
        bytes_percent: col(&Run::bytes_percent),
        tokens_percent: col(&Run::tokens_percent),
        calls: col(&|r| Some(r.calls as f64)),
        wall_seconds: col(&|r| Some(r.wall_seconds)),
        budget_hits: ok.iter().filter(|r| r.budget_hit).count(),
        checked: ok.iter().filter(|r| r.valid.is_some()).count(),
        valid: ok.iter().filter(|r| r.valid == Some(true)).count(),
    }
}

/// The paper's Table II: per format and reducer, the medians over the cases.
pub(crate) fn table_two(runs: &[Run]) -> String {
    let runs = compared(runs);
    let mut table = Table::new([
        ("format", LEFT),
        ("reducer", LEFT),
        ("cases", RIGHT),
        ("median nodes left", RIGHT),
        ("median tokens left", RIGHT),
        ("median bytes left", RIGHT),
        ("median oracle calls", RIGHT),
        ("median wall s", RIGHT),
        ("runs at their budget", RIGHT),
        ("outputs valid for the format", RIGHT),
    ]);
    for f in formats(&runs) {
        for red in reducers(&runs) {
            let m = medians(&runs, &f, &red);
            if m.cases + m.left_out == 0 {
                continue;
            }
            let cases = if m.left_out > 0 {
                format!("{} (+{} failed or not interesting)", m.cases, m.left_out)
            } else {
                m.cases.to_string()
            };
            table.row(&[
                f.clone(),
                cell(&red),
                cases,
                pct(m.nodes_percent),
                pct(m.tokens_percent),
                pct(m.bytes_percent),
                num(m.calls, 0),
                num(m.wall_seconds, 1),
                m.budget_hits.to_string(),
                m.valid_cell(),
            ]);
        }
    }
    table.finish()
}

/// The best other reducer of a format: the smallest median node share (then bytes, then
/// calls) among those that are not whittle.
pub(crate) fn best_other(runs: &[&Run], format: &str) -> Option<(String, Medians)> {
    let key = |m: &Medians| {
        (
            m.nodes_percent.unwrap_or(f64::INFINITY),
            m.bytes_percent.unwrap_or(f64::INFINITY),
            m.calls.unwrap_or(f64::INFINITY),
        )
    };
    reducers(runs)
        .into_iter()
        .filter(|r| !r.starts_with("whittle"))
        .map(|r| {
            let m = medians(runs, format, &r);
            (r, m)
        })
        .filter(|(_, m)| m.cases > 0)
        .min_by(|a, b| {
            let (x, y) = (key(&a.1), key(&b.1));
            x.0.total_cmp(&y.0)
                .then(x.1.total_cmp(&y.1))
                .then(x.2.total_cmp(&y.2))
        })
}

/// whittle's default algorithm as a reducer of the comparison: the headline compares it with
/// the best other reducer where it has results.
pub(crate) const DEFAULT_REDUCER: &str = "whittle auto";

/// The algorithm the headline compared before `auto` was the default, still shown beside it so
/// that the gain of `auto`'s moves below the tree is visible.
pub(crate) const GTR_STAR_REDUCER: &str = "whittle gtr*";

/// Whether whittle's default `auto` ran (with the shipped rules) in any of `runs`: the headline
/// then compares it with the best other reducer; results of before `auto` keep the headline of
/// `gtr*`.
pub(crate) fn has_default(runs: &[Run]) -> bool {
    runs.iter()
        .any(|r| r.reducer == DEFAULT_REDUCER && !r.no_rules)
}

/// The medians of `reducer` on `format` over `cases` only, so that two reducers are compared on
/// the same inputs; over all its cases when it has no result on any of `cases`.
fn medians_on(runs: &[&Run], format: &str, reducer: &str, cases: &[&str]) -> Medians {
    let same: Vec<&Run> = runs
        .iter()
        .copied()
        .filter(|r| cases.contains(&r.case.as_str()))
        .collect();
    let m = medians(&same, format, reducer);
    if m.cases == 0 {
        medians(runs, format, reducer)
    } else {
        m
    }
}

/// The cases of `format` where `reducer`'s output counts.
fn counted_cases<'r>(runs: &[&'r Run], format: &str, reducer: &str) -> Vec<&'r str> {
    runs.iter()
        .filter(|r| r.format == format && r.reducer == reducer && r.counts())
        .map(|r| r.case.as_str())
        .collect()
}

/// Which of whittle (`w`) and another reducer (`o`) left less, by tree nodes and then by bytes
/// (also when the other's output does not parse), and which needed fewer oracle calls.
fn who_wins(w: &Medians, o: &Medians) -> [String; 2] {
    let by_bytes = match (w.bytes_percent, o.bytes_percent) {
        (Some(a), Some(b)) if a < b => "whittle",
        (Some(a), Some(b)) if a > b => "**other**",
        (Some(_), Some(_)) => "tie",
        _ => "—",
    };
    let smaller = match (w.nodes_percent, o.nodes_percent) {
        (Some(a), Some(b)) if a < b => "whittle",
        (Some(a), Some(b)) if a > b => "**other**",
        _ => by_bytes,
    };
    let fewer = match (w.calls, o.calls) {
        (Some(a), Some(b)) if a < b => "whittle",
        (Some(a), Some(b)) if a > b => "**other**",
        (Some(_), Some(_)) => "tie",
        _ => "—",
    };
    [smaller.to_string(), fewer.to_string()]
}

/// The cells of a reducer's medians: nodes / bytes left, oracle calls, outputs valid.
fn median_cells(m: &Medians) -> [String; 3] {
    [
        format!("{} / {}", pct(m.nodes_percent), pct(m.bytes_percent)),
        num(m.calls, 0),
        m.valid_cell(),
    ]
}

/// The headline table: per format, whittle's default `auto` and `gtr*` against the best other
/// reducer when `auto` has results ([`has_default`]), else `gtr*` alone as before `auto` was the
/// default.
pub(crate) fn headline(runs: &[Run]) -> String {
    if has_default(runs) {
        headline_default(runs)
    } else {
        headline_gtr_star(runs)
    }
}

/// The headline of results of before `auto`: per format, whittle `gtr*` against the best other
/// reducer, both over the cases the other reducer has results for.
fn headline_gtr_star(runs: &[Run]) -> String {
    let runs = compared(runs);
    let mut table = Table::new([
        ("format", LEFT),
        ("whittle `gtr*`: nodes / bytes left", RIGHT),
        ("its oracle calls", RIGHT),
        ("its outputs valid", RIGHT),
        ("best other reducer", LEFT),
        ("its nodes / bytes left", RIGHT),
        ("its oracle calls", RIGHT),
        ("its outputs valid", RIGHT),
        ("smaller", LEFT),
        ("fewer calls", LEFT),
    ]);
    for f in formats(&runs) {
        if medians(&runs, &f, GTR_STAR_REDUCER).cases == 0 {
            continue;
        }
        let best = best_other(&runs, &f);
        // whittle on the cases the best other reducer has results for, so both medians are
        // over the same inputs.
        let cases = best
            .as_ref()
            .map_or_else(Vec::new, |(name, _)| counted_cases(&runs, &f, name));
        let w = medians_on(&runs, &f, GTR_STAR_REDUCER, &cases);
        let whittle = [[f.clone()].as_slice(), &median_cells(&w)].concat();
        let Some((name, o)) = best else {
            let dashes = ["—"; 6].map(String::from);
            table.row(&[whittle.as_slice(), &dashes].concat());
            continue;
        };
        let other = [
            [cell(&name)].as_slice(),
            &median_cells(&o),
            &who_wins(&w, &o),
        ]
        .concat();
        table.row(&[whittle.as_slice(), &other].concat());
    }
    table.finish()
}

/// The headline with whittle's default: per format, a row for `auto` and one for `gtr*`, each
/// against the best other reducer. `auto` is over the cases the other reducer has results for,
/// `gtr*` over those where `auto` has results too, so that the two rows show what `auto` adds
/// on the same inputs. A format where `auto` has no result (a case carried over from a run of
/// before it) has its `gtr*` row only.
fn headline_default(runs: &[Run]) -> String {
    let runs = compared(runs);
    let mut table = Table::new([
        ("format", LEFT),
        ("whittle", LEFT),
        ("nodes / bytes left", RIGHT),
        ("oracle calls", RIGHT),
        ("outputs valid", RIGHT),
        ("best other reducer", LEFT),
        ("its nodes / bytes left", RIGHT),
        ("its oracle calls", RIGHT),
        ("its outputs valid", RIGHT),
        ("smaller", LEFT),
        ("fewer calls", LEFT),
    ]);
    for f in formats(&runs) {
        let best = best_other(&runs, &f);
        let others_cases = best
            .as_ref()
            .map_or_else(Vec::new, |(name, _)| counted_cases(&runs, &f, name));
        let auto_cases = counted_cases(&runs, &f, DEFAULT_REDUCER);
        let both: Vec<&str> = others_cases
            .iter()
            .copied()
            .filter(|c| auto_cases.contains(c))
            .collect();
        let gtr_cases = if auto_cases.is_empty() {
            &others_cases
        } else if best.is_some() {
            &both
        } else {
            &auto_cases
        };
        let rows = [
            ("`auto` (default)", DEFAULT_REDUCER, &others_cases),
            ("`gtr*`", GTR_STAR_REDUCER, gtr_cases),
        ];
        for (label, reducer, cases) in rows {
            if medians(&runs, &f, reducer).cases == 0 {
                continue;
            }
            let w = medians_on(&runs, &f, reducer, cases);
            let whittle = [[f.clone(), label.to_string()].as_slice(), &median_cells(&w)].concat();
            let other = match &best {
                Some((name, o)) => {
                    [[cell(name)].as_slice(), &median_cells(o), &who_wins(&w, o)].concat()
                }
                None => ["—"; 6].map(String::from).to_vec(),
            };
            table.row(&[whittle.as_slice(), &other].concat());
        }
    }
    table.finish()
}

/// Every run, one row each: the per-case comparison with the same measures for every reducer.
pub(crate) fn runs_table(runs: &[Run]) -> String {
    let mut table = Table::new([
        ("case", LEFT),
        ("reducer", LEFT),
        ("-j", RIGHT),
        ("rules", LEFT),
        ("bytes before → after (%)", RIGHT),
        ("nodes before → after (%)", RIGHT),
        ("tokens before → after (%)", RIGHT),
        ("oracle calls", RIGHT),
        ("wall s", RIGHT),
        ("CPU s", RIGHT),
        ("peak MiB", RIGHT),
        ("still interesting", CENTRE),
        ("valid", CENTRE),
    ]);
    for r in runs {
        let nodes = match (r.nodes_before, r.nodes_after) {
            (Some(b), Some(a)) => before_after(b, a),
            (Some(b), None) => format!("{} → unparsable", group_digits(b)),
            _ => "—".to_string(),
        };
        let tokens = match (r.tokens_before, r.tokens_after) {
            (Some(b), Some(a)) => before_after(b, a),
            _ => "—".to_string(),
        };
        let mut wall = format!("{:.1}", r.wall_seconds);
        if r.budget_hit {
            wall.push_str(" (**budget**)");
        }
        let rules = if !r.reducer.starts_with("whittle") {
            "n/a"
        } else if r.no_rules {
            "none"
        } else {
            "shipped"
        };
        table.row(&[
            cell(&r.case),
            cell(&r.reducer),
            r.jobs.to_string(),
            rules.to_string(),
            before_after(r.bytes_before, r.bytes_after),
            nodes,
            tokens,
            group_digits(r.calls),
            wall,
            num(r.cpu_seconds, 1),
            num(r.peak_kib.map(|k| k as f64 / 1024.0), 0),
            yes_no(r.still_interesting).to_string(),
            yes_no(r.valid).to_string(),
        ]);
    }
    table.finish()
}

/// Every measured run of the cases, whittle's and the others', as [`Run`]s.
pub(crate) fn runs(cases: &[CaseSection]) -> Vec<Run> {
    let mut out = Vec::new();
    for case in cases {
        for r in &case.rows {
            let Some(m) = &r.measured else { continue };
            out.push(Run {
                case: case.id.clone(),
                format: case.format.clone(),
                reducer: format!("whittle {}", r.algorithm),
                jobs: r.jobs,
                no_rules: r.no_rules,
                bytes_before: case.bytes_before,
                budget_hit: r.budget_minutes_hit.is_some(),
                still_interesting: r.still_interesting,
                valid: r.check,
                failed: r.failure.is_some(),
                started_cancelled: r
                    .report
                    .as_ref()
                    .map(|rep| (rep.run.test_runs, rep.run.stats.cancelled)),
                ..run_of(case, m)
            });
        }
        for o in &case.others {
            let Some(m) = &o.measured else { continue };
            out.push(Run {
                case: case.id.clone(),
                format: case.format.clone(),
                reducer: o.name.clone(),
                jobs: o.jobs,
                budget_hit: o.budget_minutes_hit.is_some(),
                still_interesting: o.still_interesting,
                valid: o.check,
                failed: o.failure.is_some(),
                ..run_of(case, m)
            });
        }
    }
    out
}

/// The measured half of a [`Run`].
fn run_of(case: &CaseSection, m: &Measured) -> Run {
    Run {
        bytes_before: case.bytes_before,
        bytes_after: m.bytes_after,
        nodes_before: case.nodes_before,
        nodes_after: m.nodes_after,
        tokens_before: case.tokens_before.filter(|_| counts_tokens(&case.format)),
        tokens_after: m.tokens_after.filter(|_| counts_tokens(&case.format)),
        calls: m.calls.calls,
        call_log: m.calls.clone(),
        wall_seconds: m.wall_seconds,
        cpu_seconds: m.usage.as_ref().map(Usage::cpu_seconds),
        peak_kib: m.usage.as_ref().map(|u| u.max_rss_kib),
        ..Run::default()
    }
}

/// The median of `values` (the mean of the two middle ones for an even count); `None` if empty.
pub(crate) fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    Some(if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    })
}

#[cfg(test)]
mod tests;
