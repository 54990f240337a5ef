//! `cargo xtask greduce`: generator-based reduction (GReduce) of the example generators in
//! `fixtures/generators/`, against GTR* on the generated input itself, written as the section
//! `greduce` of `docs/benchmarks.md` (between `<!-- keep:greduce:begin -->` and
//! `<!-- keep:greduce:end -->`, which `cargo xtask bench` keeps when it rewrites the rest).

use crate::install::build_release;
use crate::machine::{git_commit, os_name};
use crate::{capture, command, workspace_root};
use anyhow::{Context, Result, bail};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub(crate) struct GreduceArgs {
    /// Only these examples (password, graph, jsprog) [default: all].
    #[arg(long)]
    example: Vec<String>,
    /// Tests at once, for every run.
    #[arg(long, short = 'j', default_value_t = 2)]
    jobs: usize,
    /// The document whose `greduce` section is rewritten.
    #[arg(long, default_value = "docs/benchmarks.md")]
    out: PathBuf,
}

/// An example generator: its folder under `fixtures/generators/` and the format whittle reduces
/// its generated input as, for the comparison.
struct Example {
    name: &'static str,
    output_lang: &'static str,
    unit: &'static str,
}

const EXAMPLES: [Example; 3] = [
    Example {
        name: "password",
        output_lang: "lines",
        unit: "letters",
    },
    Example {
        name: "graph",
        output_lang: "lines",
        unit: "edges",
    },
    Example {
        name: "jsprog",
        output_lang: "javascript",
        unit: "statements",
    },
];

/// One reduction: on the trace (with an algorithm and an alignment strategy) or on the output.
#[derive(Clone, Copy)]
enum Run {
    Trace(&'static str, &'static str),
    Output(&'static str),
}

const RUNS: [Run; 7] = [
    Run::Trace("ddmin", "realign"),
    Run::Trace("hdd", "realign"),
    Run::Trace("gtr*", "realign"),
    Run::Trace("gtr*", "fresh"),
    Run::Trace("gtr*", "bypass"),
    Run::Trace("gtr*", "halt"),
    Run::Output("gtr*"),
];

impl Run {
    fn label(self) -> String {
        match self {
            Run::Trace("ddmin", align) => format!("trace, sequence (G^S: ddmin), {align}"),
            Run::Trace("hdd", align) => format!("trace, tree (G^T_h: hdd), {align}"),
            Run::Trace(a, align) => format!("trace, `{a}`, {align}"),
            Run::Output(a) => format!("output, `{a}`"),
        }
    }
}

/// What one run measured, from whittle's report and the generator's own `size` and `check`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Measured {
    pub(crate) bytes: u64,
    pub(crate) natural: u64,
    pub(crate) valid: bool,
    pub(crate) interesting: bool,
    pub(crate) oracle_calls: u64,
    pub(crate) wall_seconds: f64,
    /// Trace runs: replays with a misalignment, out of all replays.
    pub(crate) misaligned: Option<(u64, u64)>,
}

/// Oracle calls, wall seconds and, for a trace, misaligned replays out of all replays.
pub(crate) type Counts = (u64, f64, Option<(u64, u64)>);

/// The counts of a `whittle reduce --report` file that the table shows.
pub(crate) fn report_counts(report: &serde_json::Value) -> Result<Counts> {
    let calls = report["oracle_calls"]
        .as_u64()
        .context("the report has no oracle_calls")?;
    let wall = report["wall_seconds"]
        .as_f64()
        .context("the report has no wall_seconds")?;
    let g = &report["generator"];
    let misaligned = if g.is_object() {
        Some((
            g["replays_misaligned"]
                .as_u64()
                .context("replays_misaligned")?,
            g["generator_runs"].as_u64().context("generator_runs")?,
        ))
    } else {
        None
    };
    Ok((calls, wall, misaligned))
}

/// Replaces the `NAME` keep-section of `doc` with `section` (which holds its own markers), or
/// appends it when the document has none.
pub(crate) fn splice_section(doc: &str, name: &str, section: &str) -> String {
    let begin = format!("<!-- keep:{name}:begin -->");
    let end = format!("<!-- keep:{name}:end -->");
    match (doc.find(&begin), doc.find(&end)) {
        (Some(b), Some(e)) if e > b => {
            let after = e + end.len();
            let after = after + usize::from(doc[after..].starts_with('\n'));
            format!("{}{section}{}", &doc[..b], &doc[after..])
        }
        _ => {
            let sep = if doc.is_empty() || doc.ends_with("\n\n") {
                ""
            } else if doc.ends_with('\n') {
                "\n"
            } else {
                "\n\n"
            };
            format!("{doc}{sep}{section}")
        }
    }
}

pub(crate) fn run(args: &GreduceArgs) -> Result<ExitCode> {
    let root = workspace_root();
    let started = std::time::Instant::now();
    let examples: Vec<&Example> = EXAMPLES
        .iter()
        .filter(|e| args.example.is_empty() || args.example.iter().any(|w| w == e.name))
        .collect();
    if examples.is_empty() {
        bail!("no example matches {:?}", args.example);
    }
    let whittle = build_release(&root)?;
    let python = capture(command("python3").args(["-c", "import sys; print(sys.executable)"]))?;
    let scratch = tempfile::Builder::new()
        .prefix("whittle-greduce-")
        .tempdir()?;
    let mut rows = String::new();
    for ex in &examples {
        let dir = root.join("fixtures/generators").join(ex.name);
        let original = std::fs::read(dir.join("run.out"))
            .with_context(|| format!("{}: no run.out", ex.name))?;
        let original_natural = natural_size(&python, &dir, &dir.join("run.out"))?;
        writeln!(
            rows,
            "| {} | original | {} {} | {} | 100 % | yes | | | |",
            ex.name,
            original_natural,
            ex.unit,
            original.len()
        )?;
        for run in RUNS {
            eprintln!("greduce: {} {}", ex.name, run.label());
            let m = reduce(&whittle, &python, &dir, ex, run, args.jobs, scratch.path())?;
            writeln!(
                rows,
                "| {} | {} | {} {} | {} | {:.1} % | {} | {} | {:.1} | {} |",
                ex.name,
                run.label(),
                m.natural,
                ex.unit,
                m.bytes,
                100.0 * m.bytes as f64 / original.len().max(1) as f64,
                match (m.valid, m.interesting) {
                    (true, true) => "yes",
                    (false, true) => "**no** (still interesting)",
                    (_, false) => "**not interesting**",
                },
                m.oracle_calls,
                m.wall_seconds,
                m.misaligned
                    .map_or_else(String::new, |(mis, all)| format!("{mis} of {all}")),
            )?;
        }
    }
    let now = capture(command("date").args(["-u", "+%Y-%m-%d %H:%M UTC"]))?;
    let mut section = String::from("<!-- keep:greduce:begin -->\n");
    section.push_str(
        "## Generator-based reduction (GReduce)\n\n\
         <!-- Written by `cargo xtask greduce` (xtask/src/greduce.rs); `cargo xtask bench` keeps this section. -->\n\n",
    );
    let example_list: Vec<String> = examples.iter().map(|e| format!("`{}`", e.name)).collect();
    writeln!(
        section,
        "The example generators of `fixtures/generators/` ({}), each reduced from its recorded \
         trace `run.trace` with `whittle reduce run.trace --generator 'python3 gen.py replay {{trace}} {{out}}'` \
         and, for comparison, from the input that trace generated (`run.out`) with `whittle reduce --lang L` \
         (`lines` for the password and the graph, `javascript` for the programs), all with the \
         example's `test.sh` (the generator's own validity check and the property) at `-j {}`. \
         *Result* is in the generator's natural unit (letters, edges, statements: `python3 gen.py size`), \
         *valid* is the generator's own check (`python3 gen.py check`), *oracle calls* are whittle's \
         count of test runs (with a generator, each includes a replay of the generator), *misaligned* \
         is the number of replays in which some decision could not be aligned with the trace.\n",
        example_list.join(", "),
        args.jobs
    )?;
    writeln!(
        section,
        "- Command: `cargo xtask greduce{}` ({:.0} s in all, release build included)\n\
         - Date: {now}; whittle: {}; machine: {} logical CPUs, {}; `python3`: {}\n",
        examples
            .iter()
            .map(|e| format!(" --example {}", e.name))
            .collect::<String>(),
        started.elapsed().as_secs_f64(),
        git_commit(&root),
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        os_name(),
        capture(command(&python).arg("--version")).unwrap_or_else(|_| "unknown".into()),
    )?;
    section.push_str(
        "| example | reduction | result | bytes | bytes left | valid | oracle calls | wall s | misaligned replays |\n\
         |---|---|--:|--:|--:|---|--:|--:|--:|\n",
    );
    section.push_str(&rows);
    section.push_str("<!-- keep:greduce:end -->\n");
    let out = root.join(&args.out);
    let doc = std::fs::read_to_string(&out).unwrap_or_default();
    std::fs::write(&out, splice_section(&doc, "greduce", &section))
        .with_context(|| format!("cannot write {}", out.display()))?;
    eprintln!("greduce: wrote the greduce section of {}", out.display());
    Ok(ExitCode::SUCCESS)
}

/// `python3 gen.py size FILE`.
fn natural_size(python: &str, dir: &Path, file: &Path) -> Result<u64> {
    capture(
        command(python)
            .arg(dir.join("gen.py"))
            .arg("size")
            .arg(file),
    )?
    .parse()
    .with_context(|| format!("{}: gen.py size does not print a number", dir.display()))
}

/// Runs one reduction in a scratch copy of the example and measures it.
fn reduce(
    whittle: &Path,
    python: &str,
    dir: &Path,
    ex: &Example,
    run: Run,
    jobs: usize,
    scratch: &Path,
) -> Result<Measured> {
    let work = tempfile::Builder::new()
        .prefix(ex.name)
        .tempdir_in(scratch)?;
    let w = work.path();
    let out = w.join("result");
    let report = w.join("report.json");
    let test = format!("{} {{}}", dir.join("test.sh").display());
    let mut cmd = command(whittle);
    cmd.current_dir(w).arg("reduce");
    match run {
        Run::Trace(algorithm, align) => {
            std::fs::copy(dir.join("run.trace"), w.join("run.trace"))?;
            let generator = format!(
                "{python} {} replay {{trace}} {{out}}",
                dir.join("gen.py").display()
            );
            cmd.args([
                "run.trace",
                "--generator",
                &generator,
                "--align",
                align,
                "-a",
                algorithm,
            ]);
        }
        Run::Output(algorithm) => {
            std::fs::copy(dir.join("run.out"), w.join("run.out"))?;
            cmd.args(["run.out", "--lang", ex.output_lang, "-a", algorithm]);
        }
    }
    cmd.args(["--test", &test, "-j", &jobs.to_string(), "-q", "-o"])
        .arg(&out)
        .arg("--report")
        .arg(&report);
    let status = cmd.status().context("cannot run whittle")?;
    if !status.success() {
        bail!("{} {}: whittle failed ({status})", ex.name, run.label());
    }
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&report)?)?;
    let (oracle_calls, wall_seconds, misaligned) = report_counts(&r)?;
    let bytes = std::fs::metadata(&out)?.len();
    let valid = command(python)
        .arg(dir.join("gen.py"))
        .arg("check")
        .arg(&out)
        .status()?
        .success();
    let interesting = command("sh")
        .arg("-c")
        .arg(format!(
            "{} {}",
            dir.join("test.sh").display(),
            out.display()
        ))
        .status()?
        .success();
    Ok(Measured {
        bytes,
        natural: natural_size(python, dir, &out)?,
        valid,
        interesting,
        oracle_calls,
        wall_seconds,
        misaligned,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_section_replaces_its_old_self_and_keeps_the_rest() {
        let section = "<!-- keep:greduce:begin -->\nnew\n<!-- keep:greduce:end -->\n";
        let doc = "# B\n\ntext\n\n<!-- keep:greduce:begin -->\nold\nold\n<!-- keep:greduce:end -->\n\n## after\n";
        assert_eq!(
            splice_section(doc, "greduce", section),
            "# B\n\ntext\n\n<!-- keep:greduce:begin -->\nnew\n<!-- keep:greduce:end -->\n\n## after\n"
        );
        // Appended after a blank line when the document has no such section.
        assert_eq!(
            splice_section("# B\ntext\n", "greduce", section),
            format!("# B\ntext\n\n{section}")
        );
        // Another section's markers are not this one's.
        let other = "<!-- keep:other:begin -->\nx\n<!-- keep:other:end -->\n";
        assert_eq!(
            splice_section(other, "greduce", section),
            format!("{other}\n{section}")
        );
    }

    #[test]
    fn the_counts_come_from_whittles_report() {
        let with_generator = serde_json::json!({
            "oracle_calls": 17, "wall_seconds": 2.5,
            "generator": {"replays_misaligned": 3, "generator_runs": 20}
        });
        assert_eq!(
            report_counts(&with_generator).expect("counts"),
            (17, 2.5, Some((3, 20)))
        );
        let plain = serde_json::json!({"oracle_calls": 4, "wall_seconds": 0.5});
        assert_eq!(report_counts(&plain).expect("counts"), (4, 0.5, None));
        assert!(report_counts(&serde_json::json!({"wall_seconds": 1.0})).is_err());
    }
}
