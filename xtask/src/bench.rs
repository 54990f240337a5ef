//! `cargo xtask bench`: the command. It loads the cases (`cases.rs`, from `xtask/cases/`),
//! makes them ready (`install.rs`, `inputs.rs`), runs them (`runner.rs`), saves what was
//! measured (`results.rs`) and draws the document from it (`document.rs`, `plots.rs`). The
//! imports point one way: cases and reducers → runner → results → renderer.

use crate::cases::Case;
use crate::install::{build_release, ensure_npm, ensure_other, tool_version};
use crate::measure::{MEASURE, private_copy};
use crate::reducers::Other;
use crate::results::{self, CaseSection, Environment, NotRun, OverheadRow, Results};
use crate::runner::{Ready, Runner, oracle_accepts, passes_check, run_case};
use crate::{
    capture, cells, command, document, findings, inputs, machine, overhead, plots, summary,
    workspace_root,
};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
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
    /// Run only these of whittle's algorithms (`auto`, `gtr*`, `hdd`, `ddmin`, …); repeatable.
    /// The saved rows of the others stay. Default: every algorithm of each case's plan.
    #[arg(long = "algorithm", value_name = "ALGO")]
    algorithms: Vec<String>,
    /// Minutes after which another reducer's run is stopped (SIGTERM to its process group) and
    /// marked so; its result is then the smallest interesting candidate it had tested.
    #[arg(long, default_value_t = 5.0)]
    others_budget_minutes: f64,
    /// With `--case`, `--reducer` or `--algorithm`, start from nothing instead of keeping the saved results of
    /// the cases and reducers this run does not rerun.
    #[arg(long)]
    fresh: bool,
    /// Run nothing: redraw the document and its plots from the results saved beside it by the
    /// last run (`docs/benchmarks.json`), after a change to how they are shown.
    #[arg(long, conflicts_with_all = ["quick", "cases", "reducers", "algorithms"])]
    redraw: bool,
    /// Do not install the programs the cases call when they are missing (`cargo xtask install`
    /// does that on its own): their cases are then marked "not run: tool missing".
    #[arg(long)]
    no_install: bool,
}

impl BenchArgs {
    /// Whether `--reducer` selects `id` (everything when it is not given).
    pub(crate) fn wants(&self, id: &str) -> bool {
        crate::runner::wants(&self.reducers, id)
    }

    /// The saved results this run adds to: those of the last run of the same kind (quick or
    /// full), when this run reruns only some cases or reducers and `--fresh` is not given.
    fn merged_into(&self, out: &Path) -> Option<Results> {
        if self.fresh
            || (self.cases.is_empty() && self.reducers.is_empty() && self.algorithms.is_empty())
        {
            return None;
        }
        let text = std::fs::read_to_string(results::results_path(out)).ok()?;
        match Results::from_json(&text) {
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
        saved: Option<&Results>,
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
        results::merge_sections(
            saved,
            fresh.to_vec(),
            self.wants("whittle").then_some(self.algorithms.as_slice()),
            &others_ran,
            &order,
        )
    }
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
        let saved = results::results_path(&out);
        let text = std::fs::read_to_string(&saved).with_context(|| {
            format!("cannot read {} (run the benchmark first)", saved.display())
        })?;
        let results = Results::from_json(&text)
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

    // The programs the cases call are installed first when missing (apt-get, pip or npm, as
    // each tool's `install` field says); a failed installation stops the benchmark and says
    // what failed, before the long build.
    if !args.no_install {
        let planned: Vec<Case> = cases
            .iter()
            .filter(|c| !c.plan(args.quick).is_empty())
            .cloned()
            .collect();
        let installed = crate::install::install_missing(&planned)?;
        if !installed.is_empty() {
            eprintln!("installed {}", installed.join(", "));
        }
    }
    // Everything that can be missing is looked for before the long build. With --no-install, a
    // case whose tools are missing is skipped (and said so in the document), not the whole
    // benchmark.
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
        let script = inputs::oracle_script(&case.oracle, &root)?;
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
        date: machine::utc_date(now),
        command: machine::bench_command(),
        nproc: std::thread::available_parallelism().map_or(1, |n| n.get()),
        cpu: machine::read_proc("/proc/cpuinfo", machine::cpu_model),
        memory: machine::read_proc("/proc/meminfo", machine::mem_total),
        os: machine::os_name(),
        whittle_commit: machine::git_commit(&root),
        tools,
        rustc: capture(command("rustc").arg("--version"))
            .unwrap_or_else(|e| format!("unknown ({e})")),
        load_before: machine::read_proc("/proc/loadavg", machine::load_average),
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
    // Private copies of the binaries the runs start: the target directory may be shared
    // with other checkouts, whose builds would otherwise swap them in the middle of a run.
    let guard = crate::install::guard_beside(&whittle)?;
    let whittle = private_copy(&whittle, work.path())?;
    // The guard program each test runs under, found beside `whittle` (without it, whittle runs
    // itself as the guard, a few milliseconds slower per test).
    private_copy(&guard, work.path())?;
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
        reducers: &args.reducers,
        algorithms: &args.algorithms,
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

    let overhead = overhead::overhead_rows(&whittle, work.path(), args.repeat.max(1), &mut env)?;
    env.wrapper_ms = overhead::wrapper_cost(&runner.count, work.path());
    env.load_after = machine::read_proc("/proc/loadavg", machine::load_average);
    env.total_seconds = started.elapsed().as_secs_f64();
    env.partial = None;
    let sections = args.sections(&all, saved.as_ref(), &sections);
    write_document(&out, &env, &sections, &overhead)?;
    eprintln!(
        "\nwrote {} ({} in all)",
        out.display(),
        cells::duration(env.total_seconds)
    );
    for f in findings::findings(&sections, &overhead) {
        eprintln!("finding: {f}");
    }
    Ok(ExitCode::SUCCESS)
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
    let results = Results {
        version: Results::VERSION,
        environment: env.clone(),
        sections: sections.to_vec(),
        overhead: overhead.to_vec(),
    };
    let saved = results::results_path(out);
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
    let mut doc = document::document(env, sections, overhead, &plots) + "\n";
    if let Ok(old) = std::fs::read_to_string(out) {
        doc = document::carry_keep_sections(&old, doc);
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
            ..crate::runner::section_head(case, input, quick)
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
    let (input, input_note) = inputs::fetch_input(root, &case)?;
    if case.coverage {
        match inputs::coverage_reference(root, &input) {
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

/// The budget of the other reducers' runs: `--others-budget-minutes`, at most 2 with `--quick`.
fn others_budget_minutes(args: &BenchArgs) -> f64 {
    let m = args.others_budget_minutes.max(0.0);
    if args.quick { m.min(2.0) } else { m }
}

#[cfg(test)]
mod tests;
