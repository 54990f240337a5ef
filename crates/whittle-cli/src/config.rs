//! The one configuration step of `whittle reduce`: clap's arguments ([`ReduceArgs`], what the
//! user typed) are resolved once into a checked [`Config`] (what the run does), as ripgrep turns
//! its `LowArgs` into `HiArgs`. Defaults are filled in, the checks clap cannot make are made,
//! the format and the rules are chosen, and the options that reach the test are gathered in
//! [`Verdicts`], which builds the test and the journal's header. The reduction, the report, the
//! journal and the progress display read this struct, never the arguments.

use crate::args::ReduceArgs;
use crate::bad;
use crate::formats::pick;
use crate::messages::Say;
use crate::output::{default_output, generated_output};
use crate::verdicts::Verdicts;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::time::Duration;
use whittle::{Algorithm, Format, Rules};

pub(crate) struct Config {
    /// The file to reduce (with a generator, the trace).
    pub(crate) input: PathBuf,
    pub(crate) format: &'static dyn Format,
    /// No format claims the input's extension, so it is reduced as `lines`.
    pub(crate) format_guessed: bool,
    /// Where the result goes (with a generator, the generated input of the best trace).
    pub(crate) output: PathBuf,
    /// With a generator: where the best trace goes.
    pub(crate) trace_output: Option<PathBuf>,
    pub(crate) algorithm: Algorithm,
    pub(crate) jobs: usize,
    pub(crate) merge_wins: bool,
    pub(crate) gate: bool,
    pub(crate) rules: Option<Rules>,
    /// Where the rules came from, for the report: a path, the shipped file, or `none`.
    pub(crate) rules_source: String,
    /// The test as the user gave it, for the report.
    pub(crate) test_as_given: String,
    /// Everything that reaches the test.
    pub(crate) verdicts: Verdicts,
    /// The directory the relative paths of the commands were resolved against; the generator
    /// runs in it.
    pub(crate) cwd: PathBuf,
    /// The journal, unless `--no-journal`.
    pub(crate) journal: Option<JournalPlace>,
    pub(crate) report: Option<PathBuf>,
    pub(crate) say: Say,
    /// The time between progress lines in a log (zero: after every test).
    pub(crate) log_every: Duration,
    pub(crate) stall_after: u64,
}

/// Where the journal goes and whether an existing one is ignored.
pub(crate) struct JournalPlace {
    pub(crate) dir: PathBuf,
    pub(crate) fresh: bool,
}

impl Config {
    pub(crate) fn from_args(args: ReduceArgs) -> Result<Config> {
        let (format, format_guessed) = choose_format(&args)?;
        let output = match (&args.output, &args.generator) {
            (Some(o), _) => o.clone(),
            (None, None) => default_output(&args.input),
            (None, Some(_)) => generated_output(&args.input),
        };
        // With a generator, the reduced trace is written beside the input trace.
        let trace_output = args.generator.as_ref().map(|_| default_output(&args.input));
        check(&args, &output, trace_output.as_deref())?;
        let (rules, rules_source) = rules(&args, format)?;
        let cwd = std::env::current_dir().context("cannot read the current directory")?;
        let name = |p: &Path, default: &str| {
            p.file_name()
                .map_or_else(|| default.into(), |n| n.to_string_lossy().into_owned())
        };
        let verdicts = Verdicts {
            test: whittle_core::absolutize_command(&args.test, &cwd),
            expect: args.expect,
            timeout: args.timeout,
            repeat: args.repeat,
            candidate_file_name: name(&args.input, "input"),
            align: args.generator.as_ref().map(|_| args.align.clone()),
            generated_file_name: args.generator.as_ref().map(|_| name(&output, "output")),
            generator: args.generator,
        };
        let journal = (!args.no_journal).then(|| JournalPlace {
            dir: args.journal_dir.unwrap_or_else(|| {
                output
                    .parent()
                    .filter(|p| !p.as_os_str().is_empty())
                    .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
            }),
            fresh: args.fresh,
        });
        Ok(Config {
            input: args.input,
            format,
            format_guessed,
            output,
            trace_output,
            algorithm: args.algorithm,
            jobs: crate::args::jobs(args.jobs),
            merge_wins: args.merge_wins,
            gate: !args.no_gate,
            rules,
            rules_source,
            test_as_given: args.test,
            verdicts,
            cwd,
            journal,
            report: args.report,
            say: Say { quiet: args.quiet },
            log_every: Duration::try_from_secs_f64(args.log_every).unwrap_or(Duration::ZERO),
            stall_after: args.stall_after,
        })
    }
}

/// The format: the trace format with `--generator`, else `--lang` or the file's extension;
/// `--pdf-decrypt` picks the PDF format that writes decrypted candidates.
fn choose_format(args: &ReduceArgs) -> Result<(&'static dyn Format, bool)> {
    let (format, guessed) = match (&args.generator, args.lang.as_deref()) {
        (Some(_), None | Some("trace")) => (
            whittle::format_named("trace").context("this build has no trace format")?,
            false,
        ),
        (Some(_), Some(lang)) => {
            return Err(bad(format!(
                "with --generator the input is a trace (--lang trace), not `{lang}`"
            )));
        }
        (None, lang) => pick(lang, &args.input)?,
    };
    if !args.pdf_decrypt {
        return Ok((format, guessed));
    }
    if format.name() != whittle::pdf_decrypted().name() {
        return Err(bad(format!(
            "--pdf-decrypt applies to PDF only; the format is {}",
            format.name()
        )));
    }
    Ok((whittle::pdf_decrypted(), guessed))
}

/// The checks clap cannot make: the output is not the input, the generator command has its
/// placeholders, the timeout is a positive number, the time between progress lines is not
/// negative.
fn check(args: &ReduceArgs, output: &Path, trace_output: Option<&Path>) -> Result<()> {
    let same_file = |p: &Path| {
        p.canonicalize()
            .ok()
            .is_some_and(|o| args.input.canonicalize().ok() == Some(o))
    };
    if same_file(output) || trace_output.is_some_and(same_file) {
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
    if args.timeout.is_some_and(|t| !(t > 0.0 && t.is_finite())) {
        return Err(bad("--timeout must be a positive number of seconds"));
    }
    if !(args.log_every >= 0.0 && args.log_every.is_finite()) {
        return Err(bad("--log-every must be a number of seconds, 0 or more"));
    }
    Ok(())
}

/// The rules to use (`--rules FILE`, the shipped ones, or none with `--no-rules`) and where they
/// came from, for the report.
fn rules(args: &ReduceArgs, format: &dyn Format) -> Result<(Option<Rules>, String)> {
    let rules = match (&args.rules, args.no_rules) {
        (_, true) => None,
        (None, false) => match whittle::shipped_rules_json(format.name()) {
            Some(text) => {
                Rules::from_json(text).context("the shipped rules of this build are broken")?;
                whittle::shipped_rules(format.name())
            }
            None => None,
        },
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
    let source = match (&args.rules, &rules) {
        (Some(path), _) => path.display().to_string(),
        (None, Some(_)) => format!("shipped: corpora/{}.rules.json", format.name()),
        (None, None) => "none".to_string(),
    };
    Ok((rules, source))
}
