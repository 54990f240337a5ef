//! The results store: what a benchmark run measured, one record per run of a reducer, saved
//! beside the document (`docs/benchmarks.json`) so that `cargo xtask bench --redraw` draws it
//! again without running anything, and merged with the saved results when a run reruns only
//! some cases or reducers. Nothing here renders markdown except the short cells a record
//! names itself by.

use crate::measure::{CallLog, Usage};
use crate::report::Report;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

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

/// The saved results of the document `out`: `out` with the extension `json`.
pub(crate) fn results_path(out: &Path) -> PathBuf {
    out.with_extension("json")
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
    /// Another reducer's smallest result as reported with the case (not measured here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) peer: Option<crate::cases::Peer>,
    pub(crate) outputs: Vec<Output>,
    /// Why the case did not run, if it did not (then it has no rows).
    pub(crate) not_run: Option<NotRun>,
    /// The case's format and the input's bytes and tree nodes by whittle's parser of it.
    pub(crate) format: String,
    pub(crate) bytes_before: u64,
    pub(crate) nodes_before: Option<u64>,
    /// The input's lexical tokens ([`crate::size::tokens`]).
    #[serde(default)]
    pub(crate) tokens_before: Option<u64>,
    /// The runs of other reducers.
    pub(crate) others: Vec<crate::results::OtherRow>,
    /// Why an other reducer that the plan names did not run here (its name, why).
    pub(crate) others_not_run: Vec<(String, String)>,
    /// When and at which whittle commit the case was measured, if it was carried over from an
    /// earlier run of the benchmark (`cargo xtask bench --case …` reruns some cases and keeps the
    /// others' results), as the document says it: "2026-11-24 23:10 UTC, whittle `abc123`".
    #[serde(default)]
    pub(crate) carried_from: Option<String>,
}

/// The optional columns of a case's table.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Serialize)]
pub(crate) struct Columns {
    /// A *gate rejections* column, after *cache hits*.
    pub(crate) gate_rejections: bool,
    /// A column with the result of the case's extra check, after *still interesting*; its header.
    pub(crate) check: Option<String>,
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
    pub(crate) measured: Option<crate::results::Measured>,
}

impl Row {
    /// Whether this is the run with the shipped rules matching `other`, a run with
    /// `--no-rules`: same algorithm, format and `-j`.
    pub(crate) fn counterpart_of(&self, other: &Row) -> bool {
        !self.no_rules
            && other.no_rules
            && self.algorithm == other.algorithm
            && self.lang == other.lang
            && self.jobs == other.jobs
    }
}

/// What the benchmark measured of one run from outside, for any reducer.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Serialize)]
pub(crate) struct Measured {
    pub(crate) usage: Option<Usage>,
    pub(crate) calls: CallLog,
    /// The harness's wall-clock seconds around the reducer (`xtask measure`'s own when it wrote
    /// them).
    pub(crate) wall_seconds: f64,
    pub(crate) bytes_after: u64,
    /// Tree nodes of the output by whittle's parser of the case's format (`None`: unparsable).
    pub(crate) nodes_after: Option<u64>,
    /// Lexical tokens of the output ([`tokens`]).
    #[serde(default)]
    pub(crate) tokens_after: Option<u64>,
    /// Whether the result is the smallest interesting candidate the counting wrapper saw, not
    /// the reducer's own output (a run stopped at its budget, whose own output was missing,
    /// larger or not interesting).
    pub(crate) from_wrapper: bool,
}

/// A run of another reducer on a case.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Serialize)]
pub(crate) struct OtherRow {
    pub(crate) case: String,
    /// Its id (`creduce`) and name (`C-Reduce`).
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) jobs: usize,
    pub(crate) measured: Option<Measured>,
    pub(crate) budget_minutes_hit: Option<f64>,
    /// Whether its log says it finished.
    pub(crate) finished: bool,
    /// The number of tests it says it ran, where it says.
    pub(crate) own_calls: Option<u64>,
    pub(crate) failure: Option<String>,
    pub(crate) still_interesting: Option<bool>,
    pub(crate) check: Option<bool>,
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

/// The largest output shown whole; longer ones are cut.
pub(crate) const SHOW_BYTES: usize = 1200;

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

/// The sections of a run that reran only some cases or reducers, merged with the saved results
/// of earlier runs: a case this run did not measure keeps its saved section (marked with when
/// it was measured); in a case it did measure, the rows of reducers it did not run (whittle's,
/// when `whittle_ran` is `None`, and those of other reducers not in `others_ran`) are kept from
/// the saved section, and so are whittle's rows and outputs of the algorithms it did not run
/// (`whittle_ran` lists those it ran; empty: all of them). Cases come in the order of `order`.
pub(crate) fn merge_sections(
    saved: &Results,
    mut fresh: Vec<CaseSection>,
    whittle_ran: Option<&[String]>,
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
        match whittle_ran {
            None => {
                now.rows.clone_from(&old.rows);
                now.outputs.clone_from(&old.outputs);
            }
            Some(ran) if !ran.is_empty() => keep_other_algorithms(old, now, ran),
            Some(_) => {}
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

/// Into `now` (whittle's rows and outputs of the algorithms `ran`), the saved rows and outputs
/// of the others, in the order of [`ALGORITHM_ORDER`].
fn keep_other_algorithms(old: &CaseSection, now: &mut CaseSection, ran: &[String]) {
    let order = |algorithm: &str| {
        ALGORITHM_ORDER
            .iter()
            .position(|&a| a == algorithm)
            .unwrap_or(ALGORITHM_ORDER.len())
    };
    let mut rows: Vec<Row> = (old.rows.iter())
        .filter(|r| !ran.contains(&r.algorithm))
        .cloned()
        .collect();
    rows.append(&mut now.rows);
    rows.sort_by_key(|r| order(&r.algorithm));
    now.rows = rows;
    // An output's label begins with its algorithm (`runner::output_shown`).
    let algorithm_of = |o: &Output| {
        let label = o.label.trim_start_matches('`');
        label[..label.find('`').unwrap_or(label.len())].to_string()
    };
    let mut outputs: Vec<Output> = (old.outputs.iter())
        .filter(|o| !ran.contains(&algorithm_of(o)))
        .cloned()
        .collect();
    outputs.append(&mut now.outputs);
    outputs.sort_by_key(|o| order(&algorithm_of(o)));
    now.outputs = outputs;
}

/// The order of whittle's algorithms in a case's table: the seeds' from the oldest, then the
/// default.
const ALGORITHM_ORDER: [&str; 7] = ["ddmin", "hdd", "hdd*", "hdd+", "gtr", "gtr*", "auto"];

#[cfg(test)]
mod tests;
