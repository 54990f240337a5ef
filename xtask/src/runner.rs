//! The runner: reduces a ready case with whittle's plan and the other reducers, each run under
//! `xtask measure` through the counting wrapper, and records every run in the results.

use crate::cases::{Case, Show, Step};
use crate::measure::{CallLog, Finished, run_measured};
use crate::reducers::{Job, Other};
use crate::report::Report;
use crate::results::{CaseSection, Columns, Environment, Measured, OtherRow, Output, Row};
use crate::{cells, command, size};
use anyhow::{Context, Result};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

/// A case made ready to run: its oracle script found, its input fetched.
pub(crate) struct Ready {
    pub(crate) case: Case,
    /// The oracle script's absolute path.
    pub(crate) script: PathBuf,
    /// The input's absolute path.
    pub(crate) input: PathBuf,
    /// The input described for the document.
    pub(crate) input_note: String,
    /// Environment variables of the oracle (the folder of an npm tool), set for whittle too.
    pub(crate) env: Vec<(String, PathBuf)>,
}

/// What every reduction shares.
pub(crate) struct Runner<'a> {
    pub(crate) whittle: &'a Path,
    pub(crate) work: &'a Path,
    pub(crate) budget: Duration,
    pub(crate) others_budget: Duration,
    /// The counting wrapper `xtask/oracles/count.sh` and lithium's condition module.
    pub(crate) count: PathBuf,
    pub(crate) lithium_condition: PathBuf,
    /// The other reducers that run (installed), with their program and version; and those that
    /// could not be installed, with why.
    pub(crate) others: Vec<(Other, PathBuf, String)>,
    pub(crate) others_missing: Vec<(Other, String)>,
    /// The reducers `--reducer` selects: see [`wants`].
    pub(crate) reducers: &'a [String],
    /// Whittle's algorithms `--algorithm` selects (all when empty).
    pub(crate) algorithms: &'a [String],
}

/// Runs a case's plan: every algorithm at every `-j`, one at a time.
pub(crate) fn run_case(
    runner: &Runner<'_>,
    ready: &Ready,
    quick: bool,
    env: &mut Environment,
) -> Result<CaseSection> {
    let case = &ready.case;
    let plan = case.plan(quick);
    let mut rows: Vec<Row> = Vec::new();
    let mut outputs = Vec::new();
    // The output of the first `-j` of each step.
    let mut firsts: Vec<(Step, Option<Vec<u8>>)> = Vec::new();
    let steps = if wants(runner.reducers, "whittle") {
        let mut steps = plan.steps();
        steps.retain(|s| wants(runner.algorithms, s.algorithm));
        steps
    } else {
        Vec::new()
    };
    for step in steps {
        let mut produced: Vec<Option<Vec<u8>>> = Vec::new();
        let mut files = Vec::new();
        let first = rows.len();
        for &j in &plan.jobs {
            env.max_foreign_rustc = env.max_foreign_rustc.max(crate::machine::foreign_rustc());
            let (row, bytes, file) = reduce_once(runner, ready, step, j)?;
            eprintln!("{}", summary_line(&row));
            produced.push(bytes);
            files.push(file);
            rows.push(row);
        }
        let same = same_outputs(&produced);
        for r in &mut rows[first..] {
            r.same_output_across_jobs = same;
        }
        // Without rules, the output is shown only where it differs from the one with them.
        let with_rules = firsts
            .iter()
            .find(|(s, _)| s.rules && s.algorithm == step.algorithm && s.lang == step.lang)
            .and_then(|(_, b)| b.as_ref());
        for (k, ((bytes, file), &j)) in produced.iter().zip(&files).zip(&plan.jobs).enumerate() {
            // The first -j always; the others only where they differ from it.
            let shown = if k == 0 {
                step.rules || bytes.as_ref() != with_rules
            } else {
                same == Some(false) && bytes.as_ref() != produced[0].as_ref()
            };
            if let (true, Some(bytes)) = (shown, bytes) {
                outputs.push(output_shown(&case.show, step, j, bytes, file));
            }
        }
        firsts.push((step, produced.into_iter().next().flatten()));
    }
    // The other reducers, at the case's largest `-j`.
    let jobs = plan.jobs.iter().copied().max().unwrap_or(1);
    let mut others = Vec::new();
    let mut others_not_run = Vec::new();
    for &other in &plan.others {
        if !wants(runner.reducers, other.id()) {
            continue;
        }
        if !other.handles(&case.lang) {
            others_not_run.push((
                other.name().to_string(),
                format!("not installed for `{}` inputs", case.lang),
            ));
            continue;
        }
        if let Some((_, why)) = runner.others_missing.iter().find(|(o, _)| *o == other) {
            others_not_run.push((
                other.name().to_string(),
                format!("not installable here: {why}"),
            ));
            continue;
        }
        let Some((_, program, version)) = runner.others.iter().find(|(o, _, _)| *o == other) else {
            continue;
        };
        env.max_foreign_rustc = env.max_foreign_rustc.max(crate::machine::foreign_rustc());
        let row = reduce_other(runner, ready, other, program, version, jobs)?;
        eprintln!("{}", other_summary_line(&row));
        others.push(row);
    }
    let original = std::fs::read(&ready.input)
        .with_context(|| format!("cannot read {}", ready.input.display()))?;
    Ok(CaseSection {
        rows,
        outputs,
        others,
        others_not_run,
        format: case.lang.to_string(),
        bytes_before: original.len() as u64,
        nodes_before: size::tree_nodes(&case.lang, &original),
        tokens_before: size::tokens(&case.lang, &original),
        ..section_head(case, ready.input_note.clone(), quick)
    })
}

/// An output as its case's section shows it: as it is, or as the case's viewer prints it.
pub(crate) fn output_shown(
    show: &Show,
    step: Step<'_>,
    jobs: usize,
    bytes: &[u8],
    file: &Path,
) -> Output {
    let (shown, view) = match show {
        Show::Raw => (bytes.to_vec(), None),
        Show::Through { program, args } => {
            let out = command(program)
                .args(args.iter().map(|a| {
                    if a == "{}" {
                        file.as_os_str().to_owned()
                    } else {
                        OsString::from(a)
                    }
                }))
                .stdin(Stdio::null())
                .stderr(Stdio::null())
                .output();
            match out {
                // qpdf exits 3 when it only warned; what it printed is still the file.
                Ok(o) if matches!(o.status.code(), Some(0 | 3)) && !o.stdout.is_empty() => {
                    (o.stdout, show.shown().map(|c| format!("`{c}`")))
                }
                _ => (
                    bytes.to_vec(),
                    Some(format!("itself (`{program}` could not show it)")),
                ),
            }
        }
    };
    Output::new(
        format!(
            "`{}` (`--lang {}`, `-j {jobs}`{})",
            step.algorithm,
            step.lang,
            if step.rules { "" } else { ", `--no-rules`" }
        ),
        shown,
        bytes.len(),
        view,
    )
}

/// Whether the outputs of the `-j` values of one algorithm are byte-identical: `None` when fewer
/// than two ran or one of them produced nothing.
pub(crate) fn same_outputs(produced: &[Option<Vec<u8>>]) -> Option<bool> {
    if produced.len() < 2 {
        return None;
    }
    let all: Option<Vec<&Vec<u8>>> = produced.iter().map(Option::as_ref).collect();
    let all = all?;
    Some(all.windows(2).all(|w| w[0] == w[1]))
}

/// An algorithm of a case's plan: whittle's `--algorithm` and the options after it
/// (`ddmin --merge-wins`).
pub(crate) fn algorithm_flags(algorithm: &str) -> (&str, Vec<&str>) {
    let mut words = algorithm.split_whitespace();
    (words.next().unwrap_or(""), words.collect())
}

/// Reduces a case's input once; returns the row, the output bytes and the output's path.
pub(crate) fn reduce_once(
    runner: &Runner<'_>,
    ready: &Ready,
    step: Step,
    jobs: usize,
) -> Result<(Row, Option<Vec<u8>>, PathBuf)> {
    let case = &ready.case;
    let Step {
        algorithm,
        lang,
        rules,
    } = step;
    // An algorithm of a case may carry whittle's options after its name (`ddmin --merge-wins`):
    // a row of its own.
    let (name, flags) = algorithm_flags(algorithm);
    let tag = algorithm
        .replace('*', "star")
        .replace('+', "plus")
        .replace(' ', "");
    let dir = runner.work.join(&case.id).join(format!(
        "{tag}-{lang}-j{jobs}{}",
        if rules { "" } else { "-norules" }
    ));
    std::fs::create_dir_all(&dir)?;
    let out = dir.join(format!("out-{}", case.file_name));
    let json = dir.join("report.json");
    let call_log = dir.join("calls.log");
    let test = format!(
        "{} {} {}",
        whittle_core::shell_quote(&runner.count.to_string_lossy()),
        whittle_core::shell_quote(&call_log.to_string_lossy()),
        case.oracle.test_command(&ready.script)
    );
    let mut args: Vec<OsString> = vec![
        "reduce".into(),
        ready.input.clone().into(),
        "--test".into(),
        test.into(),
        "-o".into(),
        out.clone().into(),
        "--lang".into(),
        lang.into(),
        "--algorithm".into(),
        name.into(),
        "-j".into(),
        jobs.to_string().into(),
        "--report".into(),
        json.clone().into(),
        // No `--timeout` unless the case sets whittle's own: whittle runs with its default, the
        // adaptive timeout a user gets (docs/processes.md). The case's fixed timeout is for the
        // reducers that have no such rule.
        "-q".into(),
        // A run cut short by the budget leaves a journal; the next measurement must not resume it.
        "--fresh".into(),
    ];
    if !rules {
        args.push("--no-rules".into());
    }
    args.extend(flags.iter().map(OsString::from));
    if let Some(seconds) = case.whittle_timeout_seconds {
        args.extend(["--timeout".into(), seconds.to_string().into()]);
    }
    eprintln!(
        "reducing with {algorithm} --lang {lang} -j {jobs}{}…",
        if rules { "" } else { " --no-rules" }
    );
    let budget = case_budget(case, runner.budget);
    let finished = run_measured(runner.whittle, &args, &ready.env, &dir, budget)?;
    let mut row = Row {
        case: case.id.to_string(),
        algorithm: algorithm.to_string(),
        lang: lang.to_string(),
        jobs,
        no_rules: !rules,
        budget_minutes_hit: finished.budget_hit.then(|| budget.as_secs_f64() / 60.0),
        ..Row::default()
    };
    let interrupted_ok = finished.budget_hit && finished.exit == Some(130);
    if finished.exit != Some(0) && !interrupted_ok {
        row.failure = Some(finished.failure(&finished.stderr));
    }
    if let Ok(text) = std::fs::read_to_string(&json) {
        row.report = Some(Report::from_json(&text).with_context(|| json.display().to_string())?);
    }
    let (result, measured) = settle(ready, &out, &call_log, &finished)?;
    row.measured = measured;
    let bytes = result.as_ref().and_then(|p| std::fs::read(p).ok());
    if let Some(result) = &result {
        row.still_interesting = Some(oracle_accepts(ready, result)?);
        row.check = passes_check(case, result)?;
    }
    Ok((row, bytes, result.unwrap_or(out)))
}

/// Runs another reducer on a case: a fresh directory holding a copy of the input (which the
/// in-place reducers overwrite), the test script it calls, and its budget.
pub(crate) fn reduce_other(
    runner: &Runner<'_>,
    ready: &Ready,
    other: Other,
    program: &Path,
    version: &str,
    jobs: usize,
) -> Result<OtherRow> {
    let case = &ready.case;
    let dir = runner
        .work
        .join(&case.id)
        .join(format!("{}-j{jobs}", other.id()));
    let work = dir.join("work");
    std::fs::create_dir_all(&work)?;
    let work_file = work.join(&case.file_name);
    std::fs::copy(&ready.input, &work_file)?;
    let test_script = dir.join("test.sh");
    let call_log = dir.join("calls.log");
    let job = Job {
        dir: &dir,
        work_file: &work_file,
        file_name: &case.file_name,
        test_script: &test_script,
        lithium_condition: &runner.lithium_condition,
        count: &runner.count,
        call_log: &call_log,
        oracle: &ready.script,
        oracle_args: &case.oracle.args,
        jobs,
        test_timeout_seconds: case.test_timeout(),
        lang: &case.lang,
    };
    if let Some(text) = other.test_script(&job) {
        std::fs::write(&test_script, text)?;
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&test_script, std::fs::Permissions::from_mode(0o755))?;
    }
    let run_in = match other.calls() {
        crate::reducers::Calls::FileInCwd => work.clone(),
        _ => dir.clone(),
    };
    eprintln!("reducing with {} -j {jobs}…", other.name());
    let budget = case_budget(case, runner.others_budget);
    let finished = run_measured(program, &other.args(&job), &ready.env, &run_in, budget)?;
    // `run_measured` wrote the log where the program ran.
    let log = finished.stderr.clone();
    let mut row = OtherRow {
        case: case.id.to_string(),
        id: other.id().to_string(),
        name: other.name().to_string(),
        version: version.to_string(),
        jobs: if other.parallel() { jobs } else { 1 },
        budget_minutes_hit: finished.budget_hit.then(|| budget.as_secs_f64() / 60.0),
        finished: other.finished(&log),
        own_calls: other.own_call_count(&log),
        ..OtherRow::default()
    };
    if !finished.budget_hit && finished.exit != Some(0) {
        row.failure = Some(finished.failure(&log));
    }
    let own = other.output(&job, &log);
    let (result, measured) = settle(ready, &own, &call_log, &finished)?;
    row.measured = measured;
    if let Some(result) = &result {
        row.still_interesting = Some(oracle_accepts(ready, result)?);
        row.check = passes_check(case, result)?;
    }
    Ok(row)
}

/// What a run left, measured the same way for every reducer: its result (its own output; for a
/// run stopped at its budget, the smaller of that, if the oracle still accepts it, and the
/// smallest interesting candidate the counting wrapper kept), the wrapper's count of oracle
/// calls, and the result's size in bytes and in tree nodes by whittle's parser of the case's
/// format.
pub(crate) fn settle(
    ready: &Ready,
    own: &Path,
    call_log: &Path,
    finished: &Finished,
) -> Result<(Option<PathBuf>, Option<Measured>)> {
    let kept = call_log.with_file_name(format!(
        "{}.best",
        call_log.file_name().unwrap_or_default().to_string_lossy()
    ));
    let size = |p: &Path| std::fs::metadata(p).ok().map(|m| m.len());
    let mut result = own.is_file().then(|| own.to_path_buf());
    let mut from_wrapper = false;
    if finished.budget_hit
        && let Some(k) = size(&kept)
    {
        let own_ok = match &result {
            Some(p) => size(p).is_some_and(|s| s <= k) && oracle_accepts(ready, p)?,
            None => false,
        };
        if !own_ok {
            result = Some(kept.clone());
            from_wrapper = true;
        }
    }
    let calls = CallLog::parse(&std::fs::read_to_string(call_log).unwrap_or_default());
    let Some(path) = result else {
        return Ok((None, None));
    };
    let bytes = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let measured = Measured {
        usage: finished.usage.clone(),
        calls,
        wall_seconds: finished.wall,
        bytes_after: bytes.len() as u64,
        nodes_after: size::tree_nodes(&ready.case.lang, &bytes),
        tokens_after: size::tokens(&ready.case.lang, &bytes),
        from_wrapper,
    };
    Ok((Some(path), Some(measured)))
}

/// The budget of a run of `case`: the command's, or the case's own if smaller.
pub(crate) fn case_budget(case: &Case, budget: Duration) -> Duration {
    case.budget_minutes
        .map(|m| Duration::from_secs_f64(m.max(0.0) * 60.0))
        .map_or(budget, |b| b.min(budget))
}

/// Runs a case's oracle on `file` directly, as whittle does: on a copy under the input's name
/// in a fresh directory, which is also the working directory. Exit 0 means still interesting.
pub(crate) fn oracle_accepts(ready: &Ready, file: &Path) -> Result<bool> {
    let (case, script) = (&ready.case, &ready.script);
    let dir = tempfile::Builder::new()
        .prefix("whittle-bench-check-")
        .tempdir()
        .context("cannot make a temporary directory")?;
    let copy = dir.path().join(&case.file_name);
    std::fs::copy(file, &copy).with_context(|| format!("cannot copy {}", file.display()))?;
    let status = command(script)
        .arg(&copy)
        .args(&case.oracle.args)
        .envs(ready.env.iter().map(|(k, v)| (k, v)))
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .with_context(|| format!("cannot run {}", script.display()))?;
    Ok(status.success())
}

/// Runs a case's extra check on `file`: `None` if the case has none.
pub(crate) fn passes_check(case: &Case, file: &Path) -> Result<Option<bool>> {
    let Some(check) = &case.check else {
        return Ok(None);
    };
    let status = command(&check.program)
        .args(&check.args)
        .arg(file)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .with_context(|| format!("cannot run {}", check.program))?;
    Ok(Some(status.success()))
}

pub(crate) fn summary_line(r: &Row) -> String {
    match (&r.report, &r.failure) {
        (_, Some(why)) => format!("  failed: {why}"),
        (Some(rep), None) => format!(
            "  {} → {} bytes, {} oracle calls, {} gate rejections, {} filtered, {:.2} s, still \
             interesting: {}",
            rep.run.bytes_before,
            rep.run.bytes_after,
            rep.run.stats.oracle_calls,
            rep.run.stats.gate_rejections,
            rep.run.stats.filtered,
            rep.run.wall_seconds,
            verdicts(r.still_interesting, r.check)
        ),
        (None, None) => "  finished, but wrote no report".to_string(),
    }
}

pub(crate) fn other_summary_line(r: &OtherRow) -> String {
    match (&r.measured, &r.failure) {
        (_, Some(why)) => format!("  failed: {why}"),
        (Some(m), None) => format!(
            "  → {} bytes, {} nodes, {} oracle calls, {:.1} s{}, still interesting: {}",
            m.bytes_after,
            m.nodes_after.map_or("?".to_string(), |n| n.to_string()),
            m.calls.calls,
            m.wall_seconds,
            if r.budget_minutes_hit.is_some() {
                " (budget)"
            } else {
                ""
            },
            verdicts(r.still_interesting, r.check)
        ),
        (None, None) => "  finished, but left no output".to_string(),
    }
}

/// The end of a run's summary line: whether the oracle still accepts the output, and the check.
fn verdicts(still_interesting: Option<bool>, check: Option<bool>) -> String {
    let check = check.map_or(String::new(), |c| {
        format!(", check: {}", cells::yes_no(Some(c)))
    });
    format!("{}{check}", cells::yes_no(still_interesting))
}

/// What a case's section says whether or not it runs: what it is, its input, oracle, check and
/// plan.
pub(crate) fn section_head(case: &Case, input: String, quick: bool) -> CaseSection {
    let mut algorithms = case.formats_sentence(quick);
    if quick && case.plan(true).is_empty() {
        algorithms =
            case.formats_sentence(false)
                .replacen("Algorithms:", "Algorithms of a full run:", 1);
    }
    CaseSection {
        id: case.id.to_string(),
        about: case.about.to_string(),
        input,
        oracle: case.oracle_sentence(),
        check: case.check.as_ref().map(|c| {
            format!(
                "`{}` (exit 0 = {}), run by the benchmark on every output",
                c.shown(),
                c.name
            )
        }),
        algorithms,
        columns: Columns {
            gate_rejections: case.gate_rejections_column,
            check: case.check.as_ref().map(|c| c.name.clone()),
        },
        note: case.note.clone(),
        peer: case.peer.clone(),
        ..CaseSection::default()
    }
}

/// Whether `--reducer` (the ids in `reducers`) selects `id`: everything when it is not given.
pub(crate) fn wants(reducers: &[String], id: &str) -> bool {
    reducers.is_empty() || reducers.iter().any(|r| r == id)
}

#[cfg(test)]
mod tests;
