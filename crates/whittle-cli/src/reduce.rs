//! `whittle reduce`: from checked arguments to a [`Reduction`], with a file sink and a progress
//! display as its observers, and the reduction's errors mapped to messages and exit statuses.

use crate::args::ReduceArgs;
use crate::formats::{parse_error, pick};
use crate::generator::GeneratorReport;
use crate::output::{Sink, SinkObserver, default_output, generated_output};
use crate::progress::{Progress, Say};
use crate::report::{CliReport, summarize, tail};
use crate::{EXIT_INTERRUPTED, STOP, bad, read_input};
use anyhow::{Context, Result};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use whittle::{
    Adaptive, CommandOracle, Format, Guard, Oracle, ReduceError, Reduced, Reduction, Rules,
    Timeout, Verdict,
};
use whittle_core::GeneratorOracle;

pub(crate) fn reduce(args: ReduceArgs) -> Result<ExitCode> {
    let input = read_input(&args.input)?;
    let (format, guessed) = choose_format(&args)?;
    let output = match (&args.output, &args.generator) {
        (Some(o), _) => o.clone(),
        (None, None) => default_output(&args.input),
        (None, Some(_)) => generated_output(&args.input),
    };
    // With a generator, the reduced trace is written beside the input trace.
    let trace_output = args.generator.as_ref().map(|_| default_output(&args.input));
    check_args(&args, &output, trace_output.as_deref())?;
    let (rules, rules_source) = rules(&args, format)?;
    let jobs = crate::args::jobs(args.jobs);
    let say = Say { quiet: args.quiet };
    if guessed {
        say.say(&format!(
            "whittle: no format for this file extension; reducing {} as `lines`",
            args.input.display()
        ));
    }

    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let test = whittle_core::absolutize_command(&args.test, &cwd);
    let test = crate::expect::with_expectations(&test, &args.expect);
    let timeout = match args.timeout {
        Some(seconds) => Timeout::Fixed(Duration::from_secs_f64(seconds)),
        None => Timeout::Adaptive(Adaptive::default()),
    };
    let guard = Some(guard());
    let command = CommandOracle::new(&test, &args.input, timeout).guard(guard.clone());
    let generator = args.generator.as_ref().map(|g| {
        GeneratorOracle::new(g, &test, &args.input, &output, timeout, &args.align, &cwd)
            .guard(guard.clone())
    });
    let oracle: &dyn Oracle = match &generator {
        Some(g) => g,
        None => &command,
    };
    let generated_before = match &generator {
        Some(g) => g.output_for(&input)?.map_or(0, |o| o.len()),
        None => 0,
    };
    let journal = crate::resume::spec(&args, &output, &test, &cwd);
    let floor = crate::resume::floor(journal.as_ref(), trace_output.as_ref().unwrap_or(&output));
    let sink = Sink {
        output: output.clone(),
        trace_output: trace_output.clone(),
        generator: generator.as_ref(),
        permissions: std::fs::metadata(&args.input).ok().map(|m| m.permissions()),
        floor: Arc::new(Mutex::new(floor)),
    };
    let write_error: Arc<Mutex<Option<std::io::Error>>> = Arc::default();
    let sink_used = Arc::new(AtomicBool::new(false));

    // The first Ctrl-C stops the reduction (the running tests are killed, the best result is
    // already written); a second one exits at once.
    ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::SeqCst) {
            std::process::exit(i32::from(EXIT_INTERRUPTED));
        }
    })
    .context("cannot install the Ctrl-C handler")?;
    let mut reduction = Reduction::new(format, oracle, &input)
        .algorithm(args.algorithm)
        .jobs(jobs)
        .gate(!args.no_gate)
        .rules(rules)
        .repeat(args.repeat)
        .stop(&STOP)
        .observe(Progress::new(say, &args, &input, format.name(), oracle))
        .observe(SinkObserver {
            sink: sink.clone(),
            error: Arc::clone(&write_error),
            used: Arc::clone(&sink_used),
            stop: &STOP,
        });
    if let Some(spec) = journal {
        reduction = reduction.journal(spec);
    }
    let outcome = reduction.run();
    if let Some(e) = write_error.lock().unwrap_or_else(|e| e.into_inner()).take() {
        return Err(anyhow::Error::from(e).context(format!("cannot write {}", output.display())));
    }
    let ctx = Ctx {
        args: &args,
        format,
        input: &input,
        output: &output,
        generator: generator.as_ref(),
    };
    let reduced = match outcome {
        Ok(reduced) => reduced,
        Err(e) => return failed(&ctx, &command, e, sink_used.load(Ordering::SeqCst)),
    };
    finish(&ctx, &reduced, &sink, say, &rules_source, generated_before)
}

/// The format: the trace format with `--generator`, else `--lang` or the file's extension;
/// `--pdf-decrypt` picks the PDF format that writes decrypted candidates.
fn choose_format(args: &ReduceArgs) -> Result<(&'static dyn Format, bool)> {
    let (format, guessed) = choose_base_format(args)?;
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

fn choose_base_format(args: &ReduceArgs) -> Result<(&'static dyn Format, bool)> {
    match (&args.generator, args.lang.as_deref()) {
        (Some(_), None | Some("trace")) => Ok((
            whittle::format_named("trace").context("this build has no trace format")?,
            false,
        )),
        (Some(_), Some(lang)) => Err(bad(format!(
            "with --generator the input is a trace (--lang trace), not `{lang}`"
        ))),
        (None, lang) => pick(lang, &args.input),
    }
}

/// What the error messages and the end of a run need to know.
struct Ctx<'a> {
    args: &'a ReduceArgs,
    format: &'static dyn Format,
    input: &'a [u8],
    output: &'a Path,
    generator: Option<&'a GeneratorOracle>,
}

/// A reduction that ended in an error, as a message and an exit status. Errors before the
/// first result was written say so; after it, they say where the best result so far is.
fn failed(
    ctx: &Ctx<'_>,
    command: &CommandOracle,
    e: ReduceError,
    result_written: bool,
) -> Result<ExitCode> {
    let args = ctx.args;
    match e {
        ReduceError::Parse(e) => Err(parse_error(&args.input, ctx.format, ctx.input, &e)),
        ReduceError::NotInteresting(_) => Err(bad(match ctx.generator {
            Some(g) => crate::generator::explain(g, ctx.input, args)?,
            None => explain_not_interesting(command, ctx.input, args)?,
        })),
        ReduceError::TooPermissive => Err(bad(
            "the test is too permissive: it says an empty file is interesting too; nothing was written",
        )),
        ReduceError::Interrupted => Ok(ExitCode::from(EXIT_INTERRUPTED)),
        e @ ReduceError::RoundTrip(_) => Err(bad(format!("{}: {e}", args.input.display()))),
        ReduceError::Journal(e) => Err(bad(crate::resume::journal_error(&e))),
        e @ ReduceError::Rewritten { .. } => Err(bad(format!(
            "{}: {e}; nothing was written.\n\
             No candidate can be interesting when the test rejects every file this format writes. \
             `--lang lines` reduces the file as lines of text and keeps every byte it does not delete.",
            args.input.display()
        ))),
        e if !result_written => Err(e.into()),
        e => Err(anyhow::Error::from(e).context(format!(
            "reduction stopped; the best result so far is in {}",
            ctx.output.display()
        ))),
    }
}

/// The end of a run: the result written once more, the flaky test's re-check, the report and
/// the summary.
fn finish(
    ctx: &Ctx<'_>,
    reduced: &Reduced,
    sink: &Sink<'_>,
    say: Say,
    rules_source: &str,
    generated_before: usize,
) -> Result<ExitCode> {
    let (args, output) = (ctx.args, ctx.output);
    let report = &reduced.report;
    sink.write(&reduced.best)
        .with_context(|| format!("cannot write {}", output.display()))?;
    if let Some(hits) = report.final_check_interesting {
        say.say(&format!(
            "whittle: the result was interesting in {hits} of {} more runs of the test{}",
            args.repeat,
            if hits == 0 {
                "; the test is flakier than --repeat covers, try a larger K"
            } else {
                ""
            }
        ));
    }
    let generator_report = match (ctx.generator, &sink.trace_output) {
        (Some(g), Some(trace_output)) => Some(GeneratorReport::new(
            g,
            args,
            trace_output,
            (ctx.input, &reduced.best),
            generated_before,
        )?),
        _ => None,
    };
    if let Some(path) = &args.report {
        let json = serde_json::to_string_pretty(&CliReport {
            input: &args.input,
            output,
            test: &args.test,
            expect: &args.expect,
            timeout_seconds: args.timeout,
            rules: rules_source,
            generator: generator_report.as_ref(),
            report,
        })?;
        std::fs::write(path, json + "\n")
            .with_context(|| format!("cannot write the report {}", path.display()))?;
    }
    summarize(say, report, output, generator_report.as_ref());
    if report.interrupted {
        return Ok(ExitCode::from(EXIT_INTERRUPTED));
    }
    // Finished: the result is on disk and nothing is left to resume.
    if let Some(j) = &report.journal {
        let _ = std::fs::remove_file(&j.path);
    }
    Ok(ExitCode::SUCCESS)
}

/// The checks clap cannot make: the output is not the input, the generator command has its
/// placeholders, the timeout is a positive number, the time between progress lines is not
/// negative.
fn check_args(args: &ReduceArgs, output: &Path, trace_output: Option<&Path>) -> Result<()> {
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

/// Why the test does not find the original interesting: it runs it once more, capturing its
/// output, and says how to reproduce it.
fn explain_not_interesting(
    command: &CommandOracle,
    input: &[u8],
    args: &ReduceArgs,
) -> Result<String> {
    let run = command
        .run(input, &|| false, true)
        .context("cannot run the test")?;
    let how = match run.status {
        _ if run.verdict == Verdict::Timeout => match args.timeout {
            Some(t) => format!("it timed out after {t} s"),
            None => format!(
                "it timed out after {} s, the adaptive timeout's limit for the first test; --timeout SECONDS sets another",
                run.elapsed.as_secs()
            ),
        },
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
        msg.push_str("\nIts output ended with:\n");
        msg.push_str(&tail(&run.output));
    }
    Ok(msg)
}

/// The guard every test runs under: the small `whittle-guard` program installed beside this one
/// (it starts in a fraction of the time), or else this program's hidden `__guard` subcommand.
fn guard() -> Guard {
    let beside = std::env::current_exe()
        .ok()
        .map(|exe| exe.with_file_name("whittle-guard"))
        .filter(|p| p.is_file());
    match beside {
        Some(path) => Guard::new(path, &[]),
        None => Guard::this_executable(crate::GUARD),
    }
}
