//! The pure half of the benchmark: reading whittle's `--report` JSON, aggregating timings and
//! rendering `docs/benchmarks.md`. Nothing here starts a process or touches the file system, so
//! all of it is unit-tested in `tests.rs`.

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

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

/// One reduction of the benchmark table.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Serialize)]
pub(crate) struct Row {
    pub(crate) case: String,
    pub(crate) algorithm: String,
    pub(crate) lang: String,
    pub(crate) jobs: usize,
    /// Whether the run had `--no-rules` (else whittle used its shipped rules, if the format has
    /// any).
    pub(crate) no_rules: bool,
    /// The report, if whittle wrote one.
    pub(crate) report: Option<Report>,
    /// Why the run failed (a bad exit status, with the end of its stderr), if it did.
    pub(crate) failure: Option<String>,
    /// The budget in minutes, if the run exceeded it and was interrupted.
    pub(crate) budget_minutes_hit: Option<f64>,
    /// Whether the oracle, run by the benchmark itself, still accepts the output.
    pub(crate) still_interesting: Option<bool>,
    /// Whether `-j 1` and `-j 2` gave byte-identical outputs (`None`: not both run).
    pub(crate) same_output_across_jobs: Option<bool>,
    /// Whether the output passes the case's extra check, such as "valid Python" (`None`: the
    /// case has none, or there is no output).
    pub(crate) check: Option<bool>,
    /// What the benchmark measured from outside, as for every other reducer.
    pub(crate) measured: Option<crate::summary::Measured>,
}

impl Row {
    /// The *rules* cell: `none` for `--no-rules`; else `shipped`, or `n/a` when the report says
    /// the run had none (a format without shipped rules, such as `lines`), or the rules file.
    pub(crate) fn rules_cell(&self) -> String {
        if self.no_rules {
            return "none".to_string();
        }
        match self.report.as_ref().and_then(|r| r.rules.as_deref()) {
            None => "shipped".to_string(),
            Some(r) if r.starts_with("shipped") => "shipped".to_string(),
            Some("none") => "n/a".to_string(),
            Some(file) => format!("`{}`", cell(file)),
        }
    }

    /// Whether this is the run with the shipped rules matching `other`, a run with
    /// `--no-rules`: same algorithm, format and `-j`.
    pub(crate) fn counterpart_of(&self, other: &Row) -> bool {
        !self.no_rules
            && other.no_rules
            && self.algorithm == other.algorithm
            && self.lang == other.lang
            && self.jobs == other.jobs
    }

    /// The run named in findings: case, algorithm, format, `-j` and `--no-rules`.
    fn what(&self, case: &str) -> String {
        format!(
            "{case}: `{}` (`--lang {}`, `-j {}`{})",
            self.algorithm,
            self.lang,
            self.jobs,
            if self.no_rules { ", `--no-rules`" } else { "" }
        )
    }
}

/// One overhead measurement: a tiny input, a trivial test, several runs of the whole process.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Serialize)]
pub(crate) struct OverheadRow {
    pub(crate) case: String,
    pub(crate) input_bytes: usize,
    pub(crate) test: String,
    /// Options beyond `--algorithm`, `-j`, `--lang xml` and `-q`.
    pub(crate) options: String,
    pub(crate) algorithm: String,
    pub(crate) jobs: usize,
    pub(crate) expected_exit: i32,
    /// The exit status of each run (`None`: killed by a signal).
    pub(crate) exits: Vec<Option<i32>>,
    /// The wall-clock seconds of each run of the whole process.
    pub(crate) walls: Vec<f64>,
    /// The report of the last run, if whittle wrote one.
    pub(crate) report: Option<Report>,
}

impl OverheadRow {
    /// Whether every run exited as expected.
    pub(crate) fn all_as_expected(&self) -> bool {
        !self.exits.is_empty() && self.exits.iter().all(|&e| e == Some(self.expected_exit))
    }
}

/// What a benchmark run measured, saved beside the document (`docs/benchmarks.json`) so that
/// `cargo xtask bench --redraw` can draw it again without running anything.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Serialize)]
pub(crate) struct Results {
    /// [`Results::VERSION`] of the xtask that wrote it.
    pub(crate) version: u32,
    pub(crate) environment: Environment,
    pub(crate) sections: Vec<CaseSection>,
    pub(crate) overhead: Vec<OverheadRow>,
}

impl Results {
    /// Bumped when a field changes meaning or a new one has no sensible default.
    pub(crate) const VERSION: u32 = 1;

    pub(crate) fn to_json(&self) -> Result<String> {
        serde_json::to_string_pretty(self).context("cannot write the results as JSON")
    }

    /// Reads saved results; refuses those of another [`Results::VERSION`].
    pub(crate) fn from_json(text: &str) -> Result<Results> {
        let results: Results = serde_json::from_str(text).context("not benchmark results")?;
        anyhow::ensure!(
            results.version == Results::VERSION,
            "results of version {}, this xtask reads version {}",
            results.version,
            Results::VERSION
        );
        Ok(results)
    }
}

/// The sections of a run that reran only some cases or reducers, merged with the saved results
/// of earlier runs: a case this run did not measure keeps its saved section (marked with when
/// it was measured); in a case it did measure, the rows of reducers it did not run (whittle's,
/// when `whittle_ran` is false, and those of other reducers not in `others_ran`) are kept from
/// the saved section. Cases come in the order of `order`.
pub(crate) fn merge_sections(
    saved: &Results,
    mut fresh: Vec<CaseSection>,
    whittle_ran: bool,
    others_ran: &[String],
    order: &[&str],
) -> Vec<CaseSection> {
    // `whittle_commit` is already markdown (`abc123`, maybe with a remark after it).
    let when = format!(
        "{}, whittle {}",
        saved.environment.date, saved.environment.whittle_commit
    );
    for now in &mut fresh {
        let Some(old) = saved.sections.iter().find(|s| s.id == now.id) else {
            continue;
        };
        if now.not_run.is_some() || old.not_run.is_some() {
            continue;
        }
        if !whittle_ran {
            now.rows.clone_from(&old.rows);
            now.outputs.clone_from(&old.outputs);
        }
        let mut others: Vec<_> = old
            .others
            .iter()
            .filter(|o| !others_ran.contains(&o.name))
            .cloned()
            .collect();
        others.append(&mut now.others);
        now.others = others;
        let mut not_run: Vec<_> = old
            .others_not_run
            .iter()
            .filter(|(name, _)| !others_ran.contains(name))
            .cloned()
            .collect();
        not_run.append(&mut now.others_not_run);
        now.others_not_run = not_run;
    }
    let mut out: Vec<CaseSection> = Vec::new();
    for id in order {
        if let Some(now) = fresh.iter().find(|s| s.id == *id) {
            out.push(now.clone());
        } else if let Some(old) = saved.sections.iter().find(|s| s.id == *id) {
            let mut old = old.clone();
            old.carried_from.get_or_insert_with(|| when.clone());
            out.push(old);
        }
    }
    out
}

/// `new` with every keep-section of `old` (`<!-- keep:NAME:begin -->` … `<!-- keep:NAME:end -->`,
/// written by another command) put back: in place of the same section of `new`, or at its end.
pub(crate) fn carry_keep_sections(old: &str, mut new: String) -> String {
    let mut rest = old;
    while let Some(b) = rest.find("<!-- keep:") {
        let tail = &rest[b + "<!-- keep:".len()..];
        let Some(name_end) = tail.find(":begin -->") else {
            break;
        };
        let name = &tail[..name_end];
        let end = format!("<!-- keep:{name}:end -->");
        let Some(e) = rest[b..].find(&end) else {
            break;
        };
        let after = b + e + end.len();
        let after = after + usize::from(rest[after..].starts_with('\n'));
        new = crate::greduce::splice_section(&new, name, &rest[b..after]);
        rest = &rest[after..];
    }
    new
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

/// `after` as a percentage of `before`, with enough decimals to be non-zero when it is.
pub(crate) fn percent(before: u64, after: u64) -> String {
    if before == 0 {
        return "—".to_string();
    }
    let p = 100.0 * after as f64 / before as f64;
    if after == 0 {
        "0 %".to_string()
    } else if p >= 10.0 {
        format!("{p:.0} %")
    } else if p >= 1.0 {
        format!("{p:.1} %")
    } else {
        // Two significant digits.
        let decimals = ((-p.log10()).ceil() as usize + 1).min(6);
        format!("{p:.decimals$} %")
    }
}

/// `before → after (p %)`.
pub(crate) fn before_after(before: u64, after: u64) -> String {
    format!(
        "{} → {} ({})",
        group_digits(before),
        group_digits(after),
        percent(before, after)
    )
}

/// Digits grouped by three with thin spaces: `334692` → `334 692`.
pub(crate) fn group_digits(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('\u{2009}');
        }
        out.push(c);
    }
    out
}

/// `yes`, a bold `NO` (a finding), or `—` (not checked).
pub(crate) fn yes_no(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "yes",
        Some(false) => "**NO**",
        None => "—",
    }
}

/// Makes text safe inside a markdown table cell.
pub(crate) fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// The optional columns of a case's table.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Serialize)]
pub(crate) struct Columns {
    /// A *gate rejections* column, after *cache hits*.
    pub(crate) gate_rejections: bool,
    /// A column with the result of the case's extra check, after *still interesting*; its header.
    pub(crate) check: Option<String>,
}

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

/// `a / b` with two decimals, or a dash when `b` is zero.
pub(crate) fn ratio(a: u64, b: u64) -> String {
    if b == 0 {
        "—".to_string()
    } else {
        format!("{:.2}", a as f64 / b as f64)
    }
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

/// Everything the document says about where and how the benchmark ran.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Serialize)]
pub(crate) struct Environment {
    pub(crate) date: String,
    pub(crate) command: String,
    pub(crate) nproc: usize,
    pub(crate) cpu: String,
    pub(crate) memory: String,
    pub(crate) os: String,
    pub(crate) whittle_commit: String,
    /// The version of each tool the cases need: (command asked, its answer).
    pub(crate) tools: Vec<(String, String)>,
    pub(crate) rustc: String,
    pub(crate) load_before: String,
    pub(crate) load_after: String,
    /// The most `rustc` processes of others seen running at the start of any measured run.
    pub(crate) max_foreign_rustc: usize,
    pub(crate) budget_minutes: f64,
    /// The budget of each run of another reducer.
    pub(crate) others_budget_minutes: f64,
    pub(crate) quick: bool,
    /// Seconds the whole benchmark took (build and fetch included).
    pub(crate) total_seconds: f64,
    /// How far a run got, while it is still going (the document is written after every case).
    pub(crate) partial: Option<String>,
    /// The median milliseconds of a call of `true`, directly and through the counting wrapper.
    pub(crate) wrapper_ms: Option<(f64, f64)>,
}

/// A reduced output, shown in its case's section.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Serialize)]
pub(crate) struct Output {
    pub(crate) label: String,
    /// What is shown: the output, or what `view` printed of it, cut at [`SHOW_BYTES`] (see
    /// [`Output::new`]).
    #[serde(with = "text_or_bytes")]
    pub(crate) bytes: Vec<u8>,
    /// The length of what is shown before it was cut.
    pub(crate) shown_len: usize,
    /// The size of the output itself.
    pub(crate) size: usize,
    /// The command that turned the output into what is shown (markdown), if one did.
    pub(crate) view: Option<String>,
}

impl Output {
    /// An output showing `shown` (cut at [`SHOW_BYTES`]); `size` is the output's own size.
    pub(crate) fn new(
        label: String,
        mut shown: Vec<u8>,
        size: usize,
        view: Option<String>,
    ) -> Output {
        let shown_len = shown.len();
        shown.truncate(SHOW_BYTES);
        Output {
            label,
            bytes: shown,
            shown_len,
            size,
            view,
        }
    }
}

/// Bytes in the saved results: a JSON string when they are UTF-8 (outputs nearly always are),
/// else an array of numbers, so that the document redrawn from the results is the same.
mod text_or_bytes {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Deserialize, Serialize)]
    #[serde(untagged)]
    enum Repr<'a> {
        Text(std::borrow::Cow<'a, str>),
        Bytes(Vec<u8>),
    }

    pub(crate) fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        match std::str::from_utf8(bytes) {
            Ok(text) => Repr::Text(text.into()),
            Err(_) => Repr::Bytes(bytes.to_vec()),
        }
        .serialize(s)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        Ok(match Repr::deserialize(d)? {
            Repr::Text(text) => text.into_owned().into_bytes(),
            Repr::Bytes(bytes) => bytes,
        })
    }
}

/// Why a case did not run.
#[derive(Clone, Debug, Deserialize, PartialEq, Serialize)]
pub(crate) enum NotRun {
    /// A program or package it needs is missing and could not be installed (a finding).
    ToolMissing(String),
    /// The tools are there but do not behave as the case needs, e.g. the oracle rejects the
    /// original input (a finding).
    Broken(String),
    /// A quick run, and the case has no quick plan (its oracle is slow).
    NoQuickPlan,
}

impl NotRun {
    /// The sentence of the case's section.
    pub(crate) fn sentence(&self) -> String {
        match self {
            NotRun::ToolMissing(why) => format!("**Not run: tool missing**: {why}."),
            NotRun::Broken(why) => format!("**Not run**: {why}."),
            NotRun::NoQuickPlan => {
                "Not run: this case has no quick plan (its oracle is slow); only full runs \
                 reduce it."
                    .to_string()
            }
        }
    }
}

/// What the document shows of one case: its description, its table and its outputs.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Serialize)]
pub(crate) struct CaseSection {
    pub(crate) id: String,
    /// What the case is about (markdown).
    pub(crate) about: String,
    /// The input: its name, size, origin and where it is kept (markdown).
    pub(crate) input: String,
    /// The oracle command and what it does (markdown).
    pub(crate) oracle: String,
    /// The extra check of every output and what it means (markdown), if the case has one.
    pub(crate) check: Option<String>,
    /// Which algorithm ran on which format and at which `-j` (markdown).
    pub(crate) algorithms: String,
    pub(crate) columns: Columns,
    pub(crate) rows: Vec<Row>,
    /// A line under the table (markdown), such as other reducers' figures.
    pub(crate) note: Option<String>,
    pub(crate) outputs: Vec<Output>,
    /// Why the case did not run, if it did not (then it has no rows).
    pub(crate) not_run: Option<NotRun>,
    /// The case's format and the input's bytes and tree nodes by whittle's parser of it.
    pub(crate) format: String,
    pub(crate) bytes_before: u64,
    pub(crate) nodes_before: Option<u64>,
    /// The input's lexical tokens ([`crate::summary::tokens`]).
    #[serde(default)]
    pub(crate) tokens_before: Option<u64>,
    /// The runs of other reducers.
    pub(crate) others: Vec<crate::summary::OtherRow>,
    /// Why an other reducer that the plan names did not run here (its name, why).
    pub(crate) others_not_run: Vec<(String, String)>,
    /// When and at which whittle commit the case was measured, if it was carried over from an
    /// earlier run of the benchmark (`cargo xtask bench --case …` reruns some cases and keeps the
    /// others' results), as the document says it: "2026-11-24 23:10 UTC, whittle `abc123`".
    #[serde(default)]
    pub(crate) carried_from: Option<String>,
}

/// The largest output shown whole; longer ones are cut.
const SHOW_BYTES: usize = 1200;

/// A fenced block holding `bytes` (cut at [`SHOW_BYTES`]), with a fence longer than any run of
/// backticks inside.
pub(crate) fn fenced(bytes: &[u8], len: usize) -> String {
    let shown = &bytes[..bytes.len().min(SHOW_BYTES)];
    let len = len.max(bytes.len());
    // Control characters (binary stream data of a PDF, say) would garble the page.
    let mut text: String = String::from_utf8_lossy(shown)
        .chars()
        .map(|c| {
            if c.is_control() && !matches!(c, '\n' | '\t' | '\r') {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect();
    if len > SHOW_BYTES {
        let _ = write!(text, "\n… ({} more bytes)", len - SHOW_BYTES);
    }
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}\n{}\n{fence}\n", text.trim_end_matches('\n'))
}

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
            let what = r.what(&case.id);
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
                && with.bytes_after > without.bytes_after
            {
                out.push(format!(
                    "{what}: the shipped rules cost size: {} bytes with them, {} without",
                    group_digits(with.bytes_after),
                    group_digits(without.bytes_after)
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

/// A duration for people: `15 s`, `4 min 05 s`, `1 h 02 min`.
pub(crate) fn duration(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s % 3600 / 60),
    }
}

/// The sentence on noise: how many builds of others were seen, if any.
fn noise_sentence(max_foreign_rustc: usize) -> String {
    if max_foreign_rustc > 0 {
        format!(
            "**Timings may be noisy**: up to {} `rustc` process{} of other work (another engineer \
             compiling) {} running at the start of a measured run.",
            max_foreign_rustc,
            if max_foreign_rustc == 1 { "" } else { "es" },
            if max_foreign_rustc == 1 {
                "was"
            } else {
                "were"
            }
        )
    } else {
        "No `rustc` process of other work was running at the start of any measured run, but \
         other engineers share this machine, so timings may still be noisy."
            .to_string()
    }
}

/// One case's section: what it is, its table, its outputs.
fn case_section(d: &mut String, case: &CaseSection) {
    let _ = writeln!(d, "## Case `{}`\n", case.id);
    if !case.about.is_empty() {
        let _ = writeln!(d, "{}\n", case.about);
    }
    let _ = writeln!(d, "- Input: {}", case.input);
    let _ = writeln!(d, "- Oracle: {}", case.oracle);
    if let Some(check) = &case.check {
        let _ = writeln!(d, "- Check of every output: {check}");
    }
    let _ = writeln!(d, "- {}", case.algorithms);
    if let Some(when) = &case.carried_from {
        let _ = writeln!(
            d,
            "- **Measured by an earlier run** ({when}); this run did not rerun the case."
        );
    }
    d.push('\n');
    if let Some(not_run) = &case.not_run {
        let _ = writeln!(d, "{}\n", not_run.sentence());
        return;
    }
    if !case.rows.is_empty() {
        d.push_str(&reductions_table(&case.rows, &case.columns));
        d.push('\n');
    }
    if !case.others.is_empty() {
        let _ = writeln!(d, "Other reducers on `{}`:\n", case.id);
        d.push_str(&others_table(&case.others, &case.columns));
        d.push('\n');
    }
    for (name, why) in &case.others_not_run {
        let _ = writeln!(d, "- {name} did not run on this case: {why}.");
    }
    if !case.others_not_run.is_empty() {
        d.push('\n');
    }
    if let Some(note) = &case.note {
        let _ = writeln!(d, "{note}\n");
    }
    if !case.outputs.is_empty() {
        let _ = writeln!(d, "### Outputs of `{}`\n", case.id);
        for o in &case.outputs {
            let view = o
                .view
                .as_ref()
                .map_or(String::new(), |v| format!(", shown by {v}"));
            let _ = writeln!(
                d,
                "{} ({} bytes{view}):\n",
                o.label,
                group_digits(o.size as u64)
            );
            d.push_str(&fenced(&o.bytes, o.shown_len));
            d.push('\n');
        }
    }
}

/// A case's table of other reducers' runs.
pub(crate) fn others_table(rows: &[crate::summary::OtherRow], columns: &Columns) -> String {
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

/// The comparison across reducers: Table II, the headline, the plots, the speed-up, every run.
fn comparison(d: &mut String, env: &Environment, cases: &[CaseSection], plots: &[String]) {
    let runs = crate::summary::runs(cases);
    if runs.is_empty() {
        return;
    }
    let _ = writeln!(d, "## Comparison of reducers\n");
    let _ = writeln!(
        d,
        "Every reducer runs with the same oracle, called through the counting wrapper \
         `xtask/oracles/count.sh`, which logs the start and end of every call and keeps the \
         smallest interesting candidate; *oracle calls* here are the wrapper's count, the same \
         for every reducer (whittle's own count, which leaves out cache hits too, is in the \
         case tables). Tree nodes are counted by whittle's own parser of the case's format, \
         whatever reducer made the output (`ddmin` works on lines, but its output is counted \
         as a tree too). CPU time and peak memory are those of the reducer's whole process \
         tree, tests included (`getrusage(RUSAGE_CHILDREN)` in a fresh `xtask measure` process \
         whose one child is the reducer; peak memory is the largest single process). whittle \
         runs have a budget of {} min, other reducers' {} min (less for a case with its own); \
         a run stopped at its budget is marked, and its result is the smaller of its own \
         output and the smallest interesting candidate it had tested. Only runs whose output \
         the oracle still accepts count in the medians.{}\n",
        env.budget_minutes,
        env.others_budget_minutes,
        env.wrapper_ms
            .map_or(String::new(), |(direct, wrapped)| format!(
                " The wrapper costs every reducer the same: a call of `true` took {direct:.1} ms \
             directly and {wrapped:.1} ms through it (medians of 21, an interesting call, \
             which also keeps the best file), so about {:.0} ms per call, counted as oracle \
             time.",
                wrapped - direct
            ))
    );
    let mut seen: Vec<&str> = Vec::new();
    for o in cases.iter().flat_map(|c| &c.others) {
        if !seen.contains(&o.id.as_str()) {
            seen.push(&o.id);
            if let Some(other) = crate::reducers::Other::from_id(&o.id) {
                let _ = writeln!(d, "- {} ({}): {}", other.name(), o.version, other.about());
            }
        }
    }
    if !seen.is_empty() {
        d.push('\n');
    }
    let _ = writeln!(
        d,
        "### Headline: whittle `gtr*` against the best other reducer\n"
    );
    let _ = writeln!(
        d,
        "Per format, the other reducer with the smallest median node share (by bytes where \
         its outputs do not parse), against whittle `gtr*` (shipped rules) on the same cases: \
         medians over the cases where the other reducer's output is still interesting, each at \
         the largest `-j` it ran at on the case. *Outputs valid* counts the outputs that pass \
         the case's check of the format (none for the XML case, which is about an ill-formed \
         file).\n"
    );
    d.push_str(&crate::summary::headline(&runs));
    d.push('\n');
    let _ = writeln!(d, "### Medians per format (the paper's Table II)\n");
    d.push_str(&crate::summary::table_two(&runs));
    d.push('\n');
    for p in plots {
        let _ = writeln!(d, "![{p}]({p})\n");
    }
    let speed = crate::summary::speedup_table(&runs);
    if !speed.is_empty() {
        let _ = writeln!(d, "### `-j 1` against `-j 2`\n");
        d.push_str(&speed);
        d.push('\n');
    }
    let _ = writeln!(d, "### Every run, measured the same way\n");
    d.push_str(&crate::summary::runs_table(&runs));
    d.push('\n');
}

/// The whole of `docs/benchmarks.md`.
pub(crate) fn document(
    env: &Environment,
    cases: &[CaseSection],
    overhead: &[OverheadRow],
    plots: &[String],
) -> String {
    let mut d = String::new();
    let _ = writeln!(d, "# Benchmarks\n");
    let _ = writeln!(
        d,
        "<!-- Generated by `cargo xtask bench` (xtask/src/bench.rs); do not edit by hand. -->\n"
    );
    let ids: Vec<String> = cases.iter().map(|c| format!("`{}`", c.id)).collect();
    let _ = writeln!(
        d,
        "This file is written entirely by `cargo xtask bench`: do not edit it, rerun the command \
         (`--quick` for the short version). The cases come from `../shared/guide/cases.md`{}; \
         they are listed in `xtask/src/cases.rs`. What was measured is saved in \
         `benchmarks.json` beside this file: `cargo xtask bench --redraw` draws the document \
         again from it, and a run of some cases or reducers (`--case`, `--reducer`) replaces \
         only their results.{}\n",
        if ids.is_empty() {
            String::new()
        } else {
            format!(" ({})", crate::cases::join_words(&ids))
        },
        if cases.iter().any(|c| c.carried_from.is_some()) {
            " The cases marked **Measured by an earlier run** were measured at the date and \
             commit they name; the rest of this page describes the last run."
        } else {
            ""
        }
    );
    let seen = match env.max_foreign_rustc {
        0 => "none was seen at the start of any measured run, but other engineers share this \
              machine."
            .to_string(),
        1 => "a `rustc` process of other work was running at the start of a measured run."
            .to_string(),
        n => format!(
            "up to {n} `rustc` processes of other work were running at the start of a measured \
             run."
        ),
    };
    let _ = writeln!(
        d,
        "The whole run took {} ({}, build and input fetching included). Timings may be noisy \
         if other builds ran on this machine meanwhile: {seen}\n",
        duration(env.total_seconds),
        env.date,
    );
    if let Some(how_far) = &env.partial {
        let _ = writeln!(
            d,
            "**Partial run**: written while the benchmark was still running ({how_far}); the \
             times and totals are those so far.\n"
        );
    }
    if env.quick {
        let _ = writeln!(
            d,
            "**Quick run**: only the quick plan of each case (named in its section), plus the \
             overhead rows.\n"
        );
    }
    let _ = writeln!(d, "## Where and how\n");
    let _ = writeln!(d, "- Date: {}", env.date);
    let _ = writeln!(
        d,
        "- Command: `{}` (took {:.0} s in all, build included)",
        env.command, env.total_seconds
    );
    let _ = writeln!(
        d,
        "- Machine: {} ({} logical CPUs by `nproc`), {} of memory, {}",
        env.cpu, env.nproc, env.memory, env.os
    );
    let _ = writeln!(d, "- whittle: git {}", env.whittle_commit);
    for (asked, answer) in &env.tools {
        let _ = writeln!(d, "- `{asked}`: {answer}");
    }
    let _ = writeln!(d, "- rustc: {}", env.rustc);
    let _ = writeln!(
        d,
        "- Load average (1, 5, 15 min) before: {}; after: {}",
        env.load_before, env.load_after
    );
    let _ = writeln!(
        d,
        "- Noise: each reduction ran once, one at a time. {}\n",
        noise_sentence(env.max_foreign_rustc)
    );

    comparison(&mut d, env, cases, plots);

    let _ = writeln!(d, "## How the reductions run\n");
    let _ = writeln!(
        d,
        "Each case has its own section below: its input, its oracle, its table and the outputs \
         of the runs at its first `-j` (and at another `-j` where it differs; without rules \
         where it differs from the output with them). Every run has `--report` and a \
         budget of {} min; its output goes to a temporary directory. *Wall s* and *outside the \
         oracle* are whittle's own report: `wall_seconds`, and `outside_oracle_seconds` over it, \
         where `outside_oracle_seconds` is the wall time minus `oracle_busy_seconds`, the wall \
         time during which at least one test was running (so for `-j 2` too it is time when no \
         test ran at all). *Gate rejections* are the candidates whittle's own parser refused \
         before any test. *Still interesting* is the oracle run again by the benchmark on the \
         output, in a fresh directory under the input's name; a case's extra check (such as \
         *valid Python*, or *valid PDF*: `qpdf --check` finds neither error nor warning) is \
         run by the benchmark too. *Same output* compares the outputs of every `-j` byte for \
         byte. Node counts are those of the format in use (lines for `--lang lines`). *Rules* \
         is `shipped` for a run with the rules learned from the corpora and shipped in the \
         binary (`corpora/FORMAT.rules.json`, whittle's default), `none` for a run with \
         `--no-rules`, `n/a` for a format that has no shipped rules (`lines`); `gtr` and `gtr*` \
         run both ways, at the same `-j` values. The PDF cases whose oracle is pdfcop run at \
         `-j 2` only (pdfcop takes 1–3 s per call), and PDF outputs are shown as qpdf prints \
         them uncompressed (`--qdf --object-streams=disable`), since whittle writes their \
         objects into compressed object streams.\n",
        env.budget_minutes
    );
    for case in cases {
        case_section(&mut d, case);
    }

    let _ = writeln!(d, "## Overhead\n");
    let _ = writeln!(
        d,
        "Whittle's fixed costs on a ~1 KB generated XML catalogue (well formed, so the XML gate \
         is on unless `--no-gate`), each the median of several wall-clock runs of the whole \
         process (start, parse, test runs, verdict, exit), all with `--lang xml -q`. An \
         always-true test should be refused as too permissive and an always-false one as not \
         interesting, both with exit status 2: those rows time the verdict. The `grep` row is a \
         full reduction with a cheap real test. An exit status other than the expected one is \
         in bold and listed under Findings.\n"
    );
    d.push_str(&overhead_table(overhead));
    d.push('\n');

    if cases.iter().any(|c| filtering_pair(c).is_some()) {
        let _ = writeln!(d, "## What filtering buys\n");
        let _ = writeln!(
            d,
            "Before testing a candidate, whittle drops those its shipped rules (learned from \
             the corpora of `corpora/manifest.json`) say are not worth a test; `--no-rules` \
             turns that off (issue #6). Per case, `gtr*` with the shipped rules and without, at \
             the first `-j` where both ran (the rows *rules* `shipped` and `none` of the case's \
             table). A ratio of calls below 1 is what the rules save; more bytes with the rules \
             than without would be size the rules cost.\n"
        );
        d.push_str(&filtering_table(cases));
        d.push('\n');
    }

    let _ = writeln!(d, "## Findings\n");
    let found = findings(cases, overhead);
    if found.is_empty() {
        let _ = writeln!(
            d,
            "None: every output is still interesting and passes its case's check, every run \
             finished within its budget, and `-j 1` and `-j 2` agree wherever both ran.\n"
        );
    } else {
        for f in &found {
            let _ = writeln!(d, "- {f}");
        }
        d.push('\n');
    }
    while d.ends_with("\n\n") {
        d.pop();
    }
    d
}

/// The `model name` of the first CPU in `/proc/cpuinfo`.
pub(crate) fn cpu_model(cpuinfo: &str) -> Option<String> {
    cpuinfo.lines().find_map(|l| {
        let (key, value) = l.split_once(':')?;
        (key.trim() == "model name").then(|| value.trim().to_string())
    })
}

/// `MemTotal` of `/proc/meminfo`, in GiB.
pub(crate) fn mem_total(meminfo: &str) -> Option<String> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: f64 = line
        .trim_start_matches("MemTotal:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(format!("{:.1} GiB", kib / (1024.0 * 1024.0)))
}

/// The first three fields of `/proc/loadavg`.
pub(crate) fn load_average(loadavg: &str) -> Option<String> {
    let fields: Vec<&str> = loadavg.split_whitespace().take(3).collect();
    (fields.len() == 3).then(|| fields.join(", "))
}

/// `YYYY-MM-DD HH:MM UTC` for seconds since the Unix epoch.
pub(crate) fn utc_date(unix_seconds: u64) -> String {
    let days = (unix_seconds / 86_400) as i64;
    let secs = unix_seconds % 86_400;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        secs / 3600,
        secs % 3600 / 60
    )
}

/// A deterministic XML catalogue of at least `min_bytes` bytes (a little more: it ends on a whole
/// entry). With `marker`, the entry in the middle carries a `<note>` holding it.
pub(crate) fn catalogue(min_bytes: usize, marker: Option<&str>) -> String {
    const TITLES: [&str; 5] = ["Dune", "Solaris", "Neuromancer", "Hyperion", "Ubik"];
    const AUTHORS: [&str; 5] = ["Herbert", "Lem", "Gibson", "Simmons", "Dick"];
    let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<catalogue>\n";
    let tail = "</catalogue>\n";
    let entry = |i: usize, note: Option<&str>| {
        let note = note.map_or(String::new(), |m| format!("<note>{m}</note>"));
        format!(
            "  <book id=\"b{i}\" year=\"{}\"><title>{}</title><author>{}</author>\
             <price currency=\"EUR\">{}.{:02}</price>{note}</book>\n",
            1960 + (i * 7) % 40,
            TITLES[i % TITLES.len()],
            AUTHORS[(i * 3) % AUTHORS.len()],
            5 + (i * 13) % 20,
            (i * 37) % 100,
        )
    };
    let mut entries = Vec::new();
    let mut len = head.len() + tail.len();
    while len < min_bytes {
        let e = entry(entries.len(), None);
        len += e.len();
        entries.push(e);
    }
    if let Some(m) = marker {
        let mid = entries.len() / 2;
        entries[mid] = entry(mid, Some(m));
    }
    format!("{head}{}{tail}", entries.concat())
}
