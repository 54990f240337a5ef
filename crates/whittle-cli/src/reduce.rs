//! `whittle reduce`: from the checked [`Config`] to a [`Reduction`], with a file sink and a
//! progress display as its observers, and the reduction's errors mapped to messages and exit
//! statuses.

use crate::args::ReduceArgs;
use crate::config::Config;
use crate::formats::parse_error;
use crate::generator::GeneratorReport;
use crate::messages::{self, Say};
use crate::output::{Sink, SinkObserver};
use crate::progress::Progress;
use crate::{EXIT_INTERRUPTED, STOP, bad, read_input};
use anyhow::{Context, Result};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use whittle::{CommandOracle, Guard, Oracle, ReduceError, Reduced, Reduction};
use whittle_core::GeneratorOracle;

pub(crate) fn reduce(args: ReduceArgs) -> Result<ExitCode> {
    let input = read_input(&args.input)?;
    let config = Config::from_args(args)?;
    let say = config.say;
    if config.format_guessed {
        say.say(&messages::format_guessed(&config.input));
    }
    let (command, generator) = config.verdicts.oracles(&config.cwd, &guard());
    let oracle: &dyn Oracle = match &generator {
        Some(g) => g,
        None => &command,
    };
    let generated_before = match &generator {
        Some(g) => g.output_for(&input)?.map_or(0, |o| o.len()),
        None => 0,
    };
    let journal = crate::resume::spec(&config);
    let result = config.trace_output.as_ref().unwrap_or(&config.output);
    let floor = crate::resume::floor(journal.as_ref(), result);
    let sink = Sink {
        output: config.output.clone(),
        trace_output: config.trace_output.clone(),
        generator: generator.as_ref(),
        permissions: std::fs::metadata(&config.input)
            .ok()
            .map(|m| m.permissions()),
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
    let mut reduction = Reduction::new(config.format, oracle, &input)
        .algorithm(config.algorithm)
        .jobs(config.jobs)
        .merge_wins(config.merge_wins)
        .gate(config.gate)
        .rules(config.rules.clone())
        .repeat(config.verdicts.repeat)
        .stop(&STOP)
        .observe(Progress::new(&config, &input, oracle))
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
        return Err(
            anyhow::Error::from(e).context(format!("cannot write {}", config.output.display()))
        );
    }
    let run = Run {
        config: &config,
        input: &input,
        command: &command,
        generator: generator.as_ref(),
    };
    match outcome {
        Ok(reduced) => run.finish(&reduced, &sink, say, generated_before),
        Err(e) => run.failed(e, sink_used.load(Ordering::SeqCst)),
    }
}

/// What the error messages and the end of a run need to know.
struct Run<'a> {
    config: &'a Config,
    input: &'a [u8],
    command: &'a CommandOracle,
    generator: Option<&'a GeneratorOracle>,
}

impl Run<'_> {
    /// A reduction that ended in an error, as a message and an exit status. Errors before the
    /// first result was written say so; after it, they say where the best result so far is.
    fn failed(&self, e: ReduceError, result_written: bool) -> Result<ExitCode> {
        let config = self.config;
        match e {
            ReduceError::Parse(e) => Err(parse_error(&config.input, config.format, self.input, &e)),
            ReduceError::NotInteresting(_) => Err(bad(match self.generator {
                Some(g) => messages::trace_not_interesting(g, self.input, config)?,
                None => messages::not_interesting(self.command, self.input, config)?,
            })),
            ReduceError::TooPermissive => Err(bad(messages::TOO_PERMISSIVE)),
            ReduceError::Interrupted => Ok(ExitCode::from(EXIT_INTERRUPTED)),
            e @ ReduceError::RoundTrip(_) => Err(bad(format!("{}: {e}", config.input.display()))),
            ReduceError::Journal(e) => Err(bad(messages::journal_error(&e))),
            e @ ReduceError::Rewritten { .. } => Err(bad(messages::rewritten(&config.input, &e))),
            e if !result_written => Err(e.into()),
            e => Err(anyhow::Error::from(e).context(format!(
                "reduction stopped; the best result so far is in {}",
                config.output.display()
            ))),
        }
    }

    /// The end of a run: the result written once more, the flaky test's re-check, the report
    /// and the summary.
    fn finish(
        &self,
        reduced: &Reduced,
        sink: &Sink<'_>,
        say: Say,
        generated_before: usize,
    ) -> Result<ExitCode> {
        let config = self.config;
        let report = &reduced.report;
        sink.write(&reduced.best)
            .with_context(|| format!("cannot write {}", config.output.display()))?;
        if let Some(hits) = report.final_check_interesting {
            say.say(&messages::rechecked(hits, config.verdicts.repeat));
        }
        let generator_report = match (self.generator, &sink.trace_output) {
            (Some(g), Some(trace_output)) => Some(GeneratorReport::new(
                g,
                config,
                trace_output,
                (self.input, &reduced.best),
                generated_before,
            )?),
            _ => None,
        };
        crate::report::write(config, report, generator_report.as_ref())?;
        messages::summarize(say, report, &config.output, generator_report.as_ref());
        if report.interrupted {
            return Ok(ExitCode::from(EXIT_INTERRUPTED));
        }
        // Finished: the result is on disk and nothing is left to resume.
        if let Some(j) = &report.journal {
            let _ = std::fs::remove_file(&j.path);
        }
        Ok(ExitCode::SUCCESS)
    }
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
