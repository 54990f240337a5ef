//! `whittle`: reduce a file while a test command still says it is interesting.

mod repeat;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use repeat::Repeat;
use serde::Serialize;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use whittle_core::{
    Algorithm, CommandOracle, Format, GeneratorOracle, GeneratorStats, Options, Oracle,
    ReduceError, Reducer, Rules, Stats,
};

/// Exit status for bad input, a bad test or bad options (as clap uses for usage errors).
const EXIT_BAD_INPUT: u8 = 2;
/// Exit status after Ctrl-C or SIGTERM (128 + SIGINT, as shells report it).
const EXIT_INTERRUPTED: u8 = 130;

static STOP: AtomicBool = AtomicBool::new(false);

#[derive(Parser)]
#[command(name = "whittle", version, about = "Reduce a file while a test still says it is interesting", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Reduce INPUT while the test command exits with status 0.
    Reduce(ReduceArgs),
    /// Print the labeled tree of a file, as the reducer sees it.
    Tree(TreeArgs),
    /// List the formats this build knows.
    Formats,
    /// Learn filtering rules (mandatory edges, allowed contexts) from a corpus of your own files.
    Learn(LearnArgs),
    /// Print the Python client for generator-based reduction (whittle_gen.py), or write it to a
    /// file.
    GenClient {
        /// Where to write it [default: standard output].
        #[arg(long, short = 'o')]
        output: Option<PathBuf>,
    },
}

#[derive(Args)]
struct LearnArgs {
    /// The format of the corpus.
    #[arg(long)]
    lang: String,
    /// Files, and directories to search for files with the format's extensions.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Where to write the rules (JSON).
    #[arg(long, short = 'o')]
    output: PathBuf,
    /// Threads [default: the number of cores]. The rules are the same for every value.
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
}

#[derive(Args)]
struct ReduceArgs {
    /// The file to reduce (never modified); with --generator, the trace the generator recorded.
    input: PathBuf,
    /// The test: a shell command that exits 0 when its file is still interesting. `{}` is replaced
    /// by the candidate's path; without `{}` the path is appended.
    #[arg(long, short = 't', value_name = "CMD")]
    test: String,
    /// Where to write the result [default: INPUT with `.reduced` before the extension; with
    /// --generator, the generated input of the best trace, INPUT's stem + `.reduced.out`].
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
    /// Generator-based reduction: INPUT is a trace recorded by a generator that uses
    /// whittle_gen.py, and CMD replays a trace into a generated input (`{trace}` is replaced by the
    /// trace's path, `{out}` by the path to write to); it runs in the current directory. The test
    /// judges the generated inputs; the best trace goes to INPUT's stem + `.reduced.trace`.
    #[arg(long, value_name = "CMD")]
    generator: Option<String>,
    /// With --generator: what a replay does with a decision it cannot align with the trace:
    /// halt, fresh, realign or bypass (see `whittle gen-client`).
    #[arg(long, default_value = "realign", value_parser = ["halt", "fresh", "realign", "bypass"], requires = "generator")]
    align: String,
    /// The format [default: from the file extension; `lines` for unknown extensions].
    #[arg(long)]
    lang: Option<String>,
    /// The reduction algorithm: gtr*, gtr, hdd*, hdd, hdd+ or ddmin.
    #[arg(long, short = 'a', default_value = "gtr*", value_parser = parse_algorithm)]
    algorithm: Algorithm,
    /// Tests to run at once [default: the number of cores]. The result is the same for every value.
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// Seconds after which a test is killed (with its children) and counted as not interesting.
    #[arg(long, default_value_t = 60.0)]
    timeout: f64,
    /// A rules file (JSON) that filters candidates before the test runs.
    #[arg(long, conflicts_with = "no_rules")]
    rules: Option<PathBuf>,
    /// Use no rules.
    #[arg(long)]
    no_rules: bool,
    /// Do not check candidates with the format's own parser before running the test.
    #[arg(long)]
    no_gate: bool,
    /// Write every count and timing as JSON to this file.
    #[arg(long, value_name = "FILE.json")]
    report: Option<PathBuf>,
    /// Print nothing but errors.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// For a flaky test: run it up to K times on each candidate (interesting if one run says so),
    /// and K times on the final result to show how reliably it reproduces.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
}

#[derive(Args)]
struct TreeArgs {
    /// The file to show.
    input: PathBuf,
    /// The format [default: from the file extension].
    #[arg(long)]
    lang: Option<String>,
}

fn parse_algorithm(s: &str) -> Result<Algorithm, String> {
    s.parse()
}

fn formats() -> Vec<&'static dyn Format> {
    vec![
        &whittle_xml::Xml,
        &whittle_python::Python,
        &whittle_javascript::JavaScript,
        &whittle_pdf::Pdf,
        &whittle_trace::Trace,
        &whittle_lines::Lines,
    ]
}

fn gen_client(output: Option<&Path>) -> Result<ExitCode> {
    match output {
        Some(path) => std::fs::write(path, whittle_trace::PYTHON_CLIENT)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => std::io::stdout().write_all(whittle_trace::PYTHON_CLIENT.as_bytes())?,
    }
    Ok(ExitCode::SUCCESS)
}

fn pick_format(lang: Option<&str>, input: &Path) -> Result<(&'static dyn Format, bool)> {
    let all = formats();
    if let Some(lang) = lang {
        let names: Vec<&str> = all.iter().map(|f| f.name()).collect();
        let f = all.into_iter().find(|f| f.name() == lang);
        return f
            .map(|f| (f, false))
            .with_context(|| format!("unknown format `{lang}` (known: {})", names.join(", ")));
    }
    let ext = input
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let by_ext = all
        .iter()
        .find(|f| f.extensions().contains(&ext.as_str()))
        .copied();
    Ok(match by_ext {
        Some(f) => (f, false),
        None => (&whittle_lines::Lines as &dyn Format, true),
    })
}

/// An error that maps to a given exit status.
#[derive(Debug)]
struct Exit(u8, String);

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.1)
    }
}

impl std::error::Error for Exit {}

fn bad(msg: impl Into<String>) -> anyhow::Error {
    Exit(EXIT_BAD_INPUT, msg.into()).into()
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Reduce(args) => reduce(args),
        Command::Tree(args) => tree(args),
        Command::Formats => list_formats(),
        Command::Learn(args) => learn(args),
        Command::GenClient { output } => gen_client(output.as_deref()),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            let code = e.downcast_ref::<Exit>().map_or(1, |x| x.0);
            eprintln!("error: {e:#}");
            ExitCode::from(code)
        }
    }
}

/// Rules learned from the pinned corpora of `corpora/manifest.json`, compiled into the binary and
/// used unless `--rules` or `--no-rules` says otherwise.
fn shipped_rules(format: &str) -> Option<&'static str> {
    match format {
        "python" => Some(include_str!("../../../corpora/python.rules.json")),
        "javascript" => Some(include_str!("../../../corpora/javascript.rules.json")),
        "xml" => Some(include_str!("../../../corpora/xml.rules.json")),
        "pdf" => Some(include_str!("../../../corpora/pdf.rules.json")),
        _ => None,
    }
}

fn learn(args: LearnArgs) -> Result<ExitCode> {
    let (format, _) =
        pick_format(Some(&args.lang), Path::new("")).map_err(|e| bad(e.to_string()))?;
    let files = whittle_learn::collect_files(&args.paths, format.extensions());
    if files.is_empty() {
        return Err(bad(format!(
            "no {} files (.{}) under the given paths",
            format.name(),
            format.extensions().join(", .")
        )));
    }
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let (learner, summary) = whittle_learn::learn(format, &files, jobs, 0);
    for (path, why) in summary.failed.iter().take(10) {
        eprintln!("warning: skipped {}: {why}", path.display());
    }
    let rules = learner.rules(format.name());
    std::fs::write(&args.output, rules.to_json() + "\n")
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    let mandatory: usize = rules.labels.values().map(|l| l.mandatory_edges.len()).sum();
    eprintln!(
        "whittle: learned from {} of {} files in {:.2} s ({:.0} files/s): {} labels, {} contexts, {} mandatory edges\n         wrote {}",
        learner.files(),
        summary.files,
        summary.seconds,
        summary.files as f64 / summary.seconds.max(1e-9),
        rules.labels.len(),
        learner.context_pairs(),
        mandatory,
        args.output.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn list_formats() -> Result<ExitCode> {
    for f in formats() {
        let gate = if f.has_gate() { "gate" } else { "    " };
        println!(
            "{:<8} {gate}  .{:<28} {}",
            f.name(),
            f.extensions().join(" ."),
            f.description()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn read_input(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| bad(format!("cannot read {}: {e}", path.display())))
}

/// Line and column (1-based) of a byte offset, for error messages.
fn line_col(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let col = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
    (line, col)
}

fn parse_error(
    path: &Path,
    format: &dyn Format,
    bytes: &[u8],
    e: &whittle_core::ParseError,
) -> anyhow::Error {
    let (line, col) = line_col(bytes, e.offset);
    bad(format!(
        "{}:{line}:{col}: cannot parse as {}: {}",
        path.display(),
        format.name(),
        e.message
    ))
}

fn tree(args: TreeArgs) -> Result<ExitCode> {
    let bytes = read_input(&args.input)?;
    let (format, _) =
        pick_format(args.lang.as_deref(), &args.input).map_err(|e| bad(e.to_string()))?;
    let doc = format
        .parse(&bytes)
        .map_err(|e| parse_error(&args.input, format, &bytes, &e))?;
    for d in &doc.diagnostics {
        let (line, col) = line_col(&bytes, d.offset);
        eprintln!(
            "warning: {}:{line}:{col}: {}",
            args.input.display(),
            d.message
        );
    }
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(format.outline(&doc).as_bytes());
    let _ = writeln!(
        out,
        "# {} nodes, depth {}, {} bytes",
        doc.tree.len(),
        doc.tree.height(),
        bytes.len()
    );
    Ok(ExitCode::SUCCESS)
}

fn default_output(input: &Path) -> PathBuf {
    let stem = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "input".into());
    let name = match input.extension() {
        Some(ext) => format!("{stem}.reduced.{}", ext.to_string_lossy()),
        None => format!("{stem}.reduced"),
    };
    input.with_file_name(name)
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename, so the
/// output is always either the previous best or the new one, never half of each.
fn write_atomic(
    path: &Path,
    bytes: &[u8],
    permissions: Option<&std::fs::Permissions>,
) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(".whittle-")
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    if let Some(p) = permissions {
        tmp.as_file().set_permissions(p.clone())?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[derive(Serialize)]
struct Report<'a> {
    input: &'a Path,
    output: &'a Path,
    format: &'a str,
    algorithm: &'a str,
    jobs: usize,
    test: &'a str,
    timeout_seconds: f64,
    rules: &'a str,
    gate: &'a str,
    interrupted: bool,
    bytes_before: usize,
    bytes_after: usize,
    nodes_before: usize,
    nodes_after: usize,
    wall_seconds: f64,
    outside_oracle_seconds: f64,
    /// `--repeat K`.
    repeat: u32,
    /// Runs of the test in all (`oracle_calls` counts candidates; with `--repeat` a candidate
    /// can take up to K runs, and the final re-check K more).
    test_runs: u64,
    /// With `--repeat K` > 1 and a finished run: in how many of K runs the result was interesting.
    #[serde(skip_serializing_if = "Option::is_none")]
    final_check_interesting: Option<usize>,
    /// With --generator: the trace's and the generated input's sizes and the alignment counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    generator: Option<&'a GeneratorReport<'a>>,
    #[serde(flatten)]
    stats: &'a Stats,
}

fn reduce(args: ReduceArgs) -> Result<ExitCode> {
    let started = Instant::now();
    let input = read_input(&args.input)?;
    let (format, guessed) = match (&args.generator, args.lang.as_deref()) {
        (Some(_), None | Some("trace")) => (&whittle_trace::Trace as &dyn Format, false),
        (Some(_), Some(lang)) => {
            return Err(bad(format!(
                "with --generator the input is a trace (--lang trace), not `{lang}`"
            )));
        }
        (None, lang) => pick_format(lang, &args.input).map_err(|e| bad(e.to_string()))?,
    };
    let output = match (&args.output, &args.generator) {
        (Some(o), _) => o.clone(),
        (None, None) => default_output(&args.input),
        (None, Some(_)) => generated_output(&args.input),
    };
    // With a generator, the reduced trace is written beside the input trace.
    let trace_output = args.generator.as_ref().map(|_| default_output(&args.input));
    let same_file = |p: &Path| {
        p.canonicalize()
            .ok()
            .is_some_and(|o| args.input.canonicalize().ok() == Some(o))
    };
    if same_file(&output) || trace_output.as_deref().is_some_and(same_file) {
        return Err(bad(
            "the output path is the input file; whittle never modifies its input",
        ));
    }
    if let Some(g) = &args.generator
        && !(g.contains("{trace}") && g.contains("{out}"))
    {
        return Err(bad(
            "the --generator command needs `{trace}` (the trace to follow) and `{out}` (where to write the input it generates)",
        ));
    }
    if !(args.timeout > 0.0 && args.timeout.is_finite()) {
        return Err(bad("--timeout must be a positive number of seconds"));
    }
    let rules = match (&args.rules, args.no_rules) {
        (_, true) => None,
        (None, false) => shipped_rules(format.name())
            .map(|text| {
                Rules::from_json(text).context("the shipped rules of this build are broken")
            })
            .transpose()?,
        (Some(path), false) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| bad(format!("cannot read rules {}: {e}", path.display())))?;
            let rules =
                Rules::from_json(&text).map_err(|e| bad(format!("{}: {e}", path.display())))?;
            if rules.format != format.name() {
                return Err(bad(format!(
                    "{} holds rules for `{}`, but the input is reduced as `{}`",
                    path.display(),
                    rules.format,
                    format.name()
                )));
            }
            Some(rules)
        }
    };
    let rules_source = match (&args.rules, &rules) {
        (Some(path), _) => path.display().to_string(),
        (None, Some(_)) => format!("shipped: corpora/{}.rules.json", format.name()),
        (None, None) => "none".to_string(),
    };
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let quiet = args.quiet;
    let say = |msg: &str| {
        if !quiet {
            eprintln!("{msg}");
        }
    };
    if guessed {
        say(&format!(
            "whittle: no format for this file extension; reducing {} as `lines`",
            args.input.display()
        ));
    }

    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let test = whittle_core::absolutize_command(&args.test, &cwd);
    let timeout = Duration::from_secs_f64(args.timeout);
    let command = CommandOracle::new(&test, &args.input, timeout);
    let generator = args
        .generator
        .as_ref()
        .map(|g| GeneratorOracle::new(g, &test, &args.input, &output, timeout, &args.align, &cwd));
    let inner: &dyn Oracle = match &generator {
        Some(g) => g,
        None => &command,
    };
    let oracle = Repeat::new(inner, args.repeat as usize);
    let options = Options {
        jobs,
        gate: !args.no_gate,
        rules,
    };
    let mut reducer = match Reducer::new(format, &oracle, &input, options, &STOP) {
        Ok(r) => r,
        Err(ReduceError::Parse(e)) => return Err(parse_error(&args.input, format, &input, &e)),
        Err(e) => return Err(bad(format!("{}: {e}", args.input.display()))),
    };
    for d in &reducer.doc().diagnostics {
        let (line, col) = line_col(&input, d.offset);
        say(&format!(
            "warning: {}:{line}:{col}: {} (recovered)",
            args.input.display(),
            d.message
        ));
    }
    if reducer.gate_switched_off() {
        say(&format!(
            "whittle: the input does not pass the {} validity gate, so the gate is off",
            format.name()
        ));
    }
    let nodes_before = reducer.tree().len();
    let gate = if reducer.gate_active() {
        "on"
    } else if reducer.gate_switched_off() {
        "switched off (the input fails it)"
    } else {
        "off"
    };

    ctrlc::set_handler(|| STOP.store(true, Ordering::SeqCst))
        .context("cannot install the Ctrl-C handler")?;

    match reducer.check_input() {
        Ok(()) => {}
        Err(ReduceError::NotInteresting(_)) if generator.is_some() => {
            let g = generator.as_ref().context("generator")?;
            return Err(bad(explain_generator(g, &input, &args)?));
        }
        Err(ReduceError::NotInteresting(_)) => {
            // Run it once more, capturing its output, to show the user what it said.
            let run = command
                .run(&input, &|| false, true)
                .context("cannot run the test")?;
            let how = match run.status {
                _ if run.verdict == whittle_core::Verdict::Timeout => {
                    format!("it timed out after {} s", args.timeout)
                }
                Some(s) if s.code() == Some(127) => {
                    "exit status 127: the test command was not found".to_string()
                }
                Some(s) => s.to_string(),
                None => format!("{:?}", run.verdict),
            };
            let mut msg = format!(
                "the test does not find the original input interesting ({how}); nothing was written.\n\
                 Reproduce with:\n  {}",
                command.reproduce_hint(&args.input)
            );
            if !run.output.is_empty() {
                let out = String::from_utf8_lossy(&run.output);
                let tail: Vec<&str> = out.lines().rev().take(10).collect();
                msg.push_str("\nIts output ended with:\n");
                for l in tail.into_iter().rev() {
                    msg.push_str("  | ");
                    msg.push_str(l);
                    msg.push('\n');
                }
            }
            return Err(bad(msg.trim_end().to_string()));
        }
        Err(ReduceError::TooPermissive) => {
            return Err(bad(
                "the test is too permissive: it says an empty file is interesting too; nothing was written",
            ));
        }
        Err(ReduceError::Interrupted) => return Ok(ExitCode::from(EXIT_INTERRUPTED)),
        Err(e) => return Err(e.into()),
    }

    let permissions = std::fs::metadata(&args.input).ok().map(|m| m.permissions());
    let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(Duration::from_millis(120));
        bar.set_message(format!("{} bytes", input.len()));
        bar
    });
    let write_error: Arc<Mutex<Option<std::io::Error>>> = Arc::default();
    {
        let output = output.clone();
        let bar = bar.clone();
        let total = input.len();
        let write_error = Arc::clone(&write_error);
        let permissions = permissions.clone();
        let trace_output = trace_output.clone();
        let generator = generator.as_ref();
        reducer.on_improvement(Box::new(move |best: &[u8], stats: &Stats| {
            let written = write_result(
                &output,
                trace_output.as_deref(),
                generator,
                best,
                permissions.as_ref(),
            );
            if let Err(e) = written {
                write_error
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get_or_insert(e);
            }
            if let Some(bar) = &bar {
                bar.set_message(format!(
                    "{} bytes ({:.1}%), {} tests, {} cache hits",
                    best.len(),
                    100.0 * best.len() as f64 / total.max(1) as f64,
                    stats.oracle_calls,
                    stats.cache_hits
                ));
            }
        }));
    }
    let generated_before = match &generator {
        Some(g) => g.output_for(&input)?.map_or(0, |o| o.len()),
        None => 0,
    };
    // The output exists from the start, so even an early interruption leaves a usable file.
    write_result(
        &output,
        trace_output.as_deref(),
        generator.as_ref(),
        &input,
        permissions.as_ref(),
    )
    .with_context(|| format!("cannot write {}", output.display()))?;

    let outcome = whittle_core::run(&mut reducer, args.algorithm);
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let interrupted = matches!(outcome, Err(ReduceError::Interrupted));
    if let Err(e) = outcome
        && !interrupted
    {
        return Err(anyhow::Error::from(e).context(format!(
            "reduction stopped; the best result so far is in {}",
            output.display()
        )));
    }
    if let Some(e) = write_error.lock().unwrap_or_else(|e| e.into_inner()).take() {
        return Err(anyhow::Error::from(e).context(format!("cannot write {}", output.display())));
    }
    let stats = reducer.stats();
    let nodes_after = if interrupted {
        format.parse(reducer.best()).map_or(0, |d| d.tree.len())
    } else {
        reducer.tree().len()
    };
    let best = reducer.into_best();
    write_result(
        &output,
        trace_output.as_deref(),
        generator.as_ref(),
        &best,
        permissions.as_ref(),
    )
    .with_context(|| format!("cannot write {}", output.display()))?;
    let final_check = if args.repeat > 1 && !interrupted {
        let hits = oracle.recheck(&best).context("cannot run the test")?;
        say(&format!(
            "whittle: the result was interesting in {hits} of {} more runs of the test{}",
            args.repeat,
            if hits == 0 {
                "; the test is flakier than --repeat covers, try a larger K"
            } else {
                ""
            }
        ));
        Some(hits)
    } else {
        None
    };
    let generator_report = match &generator {
        Some(g) => Some(GeneratorReport {
            command: args.generator.as_deref().unwrap_or(""),
            align: &args.align,
            trace_output: trace_output.as_deref().unwrap_or(Path::new("")),
            decisions_before: whittle_trace::decisions(&input).unwrap_or(0),
            decisions_after: whittle_trace::decisions(&best).unwrap_or(0),
            output_bytes_before: generated_before,
            output_bytes_after: g.output_for(&best)?.map_or(0, |o| o.len()),
            stats: g.stats(),
        }),
        None => None,
    };
    let wall = started.elapsed().as_secs_f64();
    let in_oracle = stats.oracle_busy_seconds;
    if let Some(path) = &args.report {
        let report = Report {
            input: &args.input,
            output: &output,
            format: format.name(),
            algorithm: args.algorithm.name(),
            jobs,
            test: &args.test,
            timeout_seconds: args.timeout,
            rules: &rules_source,
            gate,
            interrupted,
            bytes_before: input.len(),
            bytes_after: best.len(),
            nodes_before,
            nodes_after,
            wall_seconds: wall,
            outside_oracle_seconds: (wall - in_oracle).max(0.0),
            repeat: args.repeat,
            test_runs: oracle.runs(),
            final_check_interesting: final_check,
            generator: generator_report.as_ref(),
            stats: &stats,
        };
        let json = serde_json::to_string_pretty(&report)?;
        std::fs::write(path, json + "\n")
            .with_context(|| format!("cannot write the report {}", path.display()))?;
    }
    say(&format!(
        "whittle: {} {}{} bytes -> {} ({:.1}%), {} -> {} nodes, {} tests, {} cache hits, {} gate rejections, {} filtered, {:.0}% of {:.2} s in the test\n         wrote {}",
        if interrupted { "interrupted;" } else { "done;" },
        if generator.is_some() {
            "the trace: "
        } else {
            ""
        },
        input.len(),
        best.len(),
        100.0 * best.len() as f64 / input.len().max(1) as f64,
        nodes_before,
        nodes_after,
        stats.oracle_calls,
        stats.cache_hits,
        stats.gate_rejections,
        stats.filtered,
        100.0 * (in_oracle / wall.max(1e-9)).min(1.0),
        wall,
        output.display()
    ));
    if stats.timeouts > 0 {
        say(&format!(
            "         {} tests timed out at {} s: {:.1} of the {:.1} s spent in the test (summed over jobs)",
            stats.timeouts, args.timeout, stats.timed_out_seconds, stats.oracle_seconds,
        ));
    }
    if let Some(g) = &generator_report {
        say(&format!(
            "         the trace: {} -> {} decisions, in {}; the generated input: {} -> {} bytes; {} of {} replays misaligned ({} decisions made afresh, {} restarts, {} halted)",
            g.decisions_before,
            g.decisions_after,
            g.trace_output.display(),
            g.output_bytes_before,
            g.output_bytes_after,
            g.stats.replays_misaligned,
            g.stats.generator_runs,
            g.stats.fresh,
            g.stats.restarts,
            g.stats.halted,
        ));
    }
    if interrupted {
        return Ok(ExitCode::from(EXIT_INTERRUPTED));
    }
    Ok(ExitCode::SUCCESS)
}

/// The default output of a generator-based reduction: INPUT's stem + `.reduced.out`.
fn generated_output(trace: &Path) -> PathBuf {
    let stem = trace
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "input".into());
    trace.with_file_name(format!("{stem}.reduced.out"))
}

/// Writes the best result: the reduced file, or, with a generator, the reduced trace and the
/// input the generator makes from it.
fn write_result(
    output: &Path,
    trace_output: Option<&Path>,
    generator: Option<&GeneratorOracle>,
    best: &[u8],
    permissions: Option<&std::fs::Permissions>,
) -> std::io::Result<()> {
    let (Some(trace_output), Some(g)) = (trace_output, generator) else {
        return write_atomic(output, best, permissions);
    };
    write_atomic(trace_output, best, None)?;
    match g.output_for(best) {
        Ok(Some(generated)) => write_atomic(output, &generated, None),
        Ok(None) => Err(std::io::Error::other(
            "the generator failed on a trace it had accepted before",
        )),
        Err(e) => Err(std::io::Error::other(e)),
    }
}

/// Why the original trace is not interesting, with a shell line to reproduce it.
fn explain_generator(g: &GeneratorOracle, trace: &[u8], args: &ReduceArgs) -> Result<String> {
    let (run, test) = g.explain(trace).context("cannot run the generator")?;
    let tail = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        let lines: Vec<String> = text
            .lines()
            .rev()
            .take(10)
            .map(|l| format!("  | {l}"))
            .collect();
        lines.into_iter().rev().collect::<Vec<_>>().join("\n")
    };
    let replay = g.command_line(&args.input, Path::new("OUT"));
    let mut msg = match (&test, run.status) {
        (None, status) => {
            let how = match status {
                Some(s) if s.code() == Some(whittle_core::GENERATOR_HALTED) => {
                    "it halted: it could not follow the trace".to_string()
                }
                Some(s) => s.to_string(),
                None => format!("{:?}", run.verdict),
            };
            format!(
                "the generator fails on the original trace ({how}); nothing was written.\n\
                 Reproduce with:\n  WHITTLE_ALIGN={} {replay}",
                args.align
            )
        }
        (Some(t), _) => format!(
            "the test does not find the input generated from the original trace interesting ({}); nothing was written.\n\
             Reproduce with:\n  WHITTLE_ALIGN={} {replay} && {}",
            t.status
                .map_or_else(|| format!("{:?}", t.verdict), |s| s.to_string()),
            args.align,
            g.test_oracle().command_line(Path::new("OUT"))
        ),
    };
    let shown = test.as_ref().map_or(&run.output, |t| &t.output);
    if !shown.is_empty() {
        msg.push_str("\nIts output ended with:\n");
        msg.push_str(&tail(shown));
    }
    Ok(msg)
}

#[derive(Serialize)]
struct GeneratorReport<'a> {
    command: &'a str,
    align: &'a str,
    trace_output: &'a Path,
    decisions_before: usize,
    decisions_after: usize,
    output_bytes_before: usize,
    output_bytes_after: usize,
    #[serde(flatten)]
    stats: GeneratorStats,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tree_format_ships_rules_learned_for_it() {
        for format in formats() {
            let Some(text) = shipped_rules(format.name()) else {
                assert!(
                    ["lines", "trace"].contains(&format.name()),
                    "only `lines` and `trace` have no corpus"
                );
                continue;
            };
            let rules = Rules::from_json(text).expect("shipped rules parse");
            assert_eq!(rules.format, format.name());
            assert!(
                rules.files > 100 && rules.labels.len() > 20,
                "{}: learned from {} files, {} labels",
                format.name(),
                rules.files,
                rules.labels.len()
            );
        }
    }
}
