//! A reduction as one library call: input, format, test, options and observers in; the best
//! bytes and a report out. The `whittle` command, the benchmark and in-process users (a fuzzer
//! that reduces its own crashes, an editor plugin) all reduce through [`Reduction`].

use crate::algo::{self, Algorithm};
use crate::edit::{Edit, Edits};
use crate::engine::{Options, Reducer};
use crate::error::ReduceError;
use crate::format::Format;
use crate::journal::{Journal, JournalSpec};
use crate::lookahead::{Lazy, Successor};
use crate::observe::{Gate, Observer};
use crate::oracle::{Oracle, TimeoutReport, Verdict};
use crate::plan::{Opening, Plan};
use crate::repeat::Repeat;
use crate::rules::Rules;
use crate::stats::Stats;
use serde::{Deserialize, Serialize};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// A reduction to run: build it with [`Reduction::new`], set options, add observers, then
/// [`Reduction::run`].
pub struct Reduction<'a> {
    format: &'a dyn Format,
    oracle: &'a dyn Oracle,
    input: &'a [u8],
    algorithm: Algorithm,
    options: Options,
    repeat: u32,
    stop: Option<&'a AtomicBool>,
    journal: Option<JournalSpec>,
    observers: Vec<Box<dyn Observer + 'a>>,
}

/// What a finished (or interrupted) reduction gives back.
#[derive(Debug)]
pub struct Reduced {
    /// The smallest interesting input found; the original if nothing smaller was.
    pub best: Vec<u8>,
    /// Every count and timing.
    pub report: Report,
}

/// The counts and timings of one reduction. It is the body of `whittle reduce --report`, and
/// what the benchmark reads back from that file; a key that an older report lacks reads as its
/// default (zero, `false`, empty).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Report {
    /// The format's name.
    pub format: String,
    /// The algorithm's name (`--algorithm`).
    pub algorithm: String,
    /// Tests run at once.
    pub jobs: usize,
    /// Whether ddmin merged concurrent wins (`--merge-wins`, [`Reduction::merge_wins`]).
    pub merge_wins: bool,
    /// Whether the validity gate was used.
    pub gate: Gate,
    /// Whether the caller's stop flag ended the reduction early.
    pub interrupted: bool,
    /// Size of the input.
    pub bytes_before: usize,
    /// Size of the result.
    pub bytes_after: usize,
    /// Nodes of the input's tree.
    pub nodes_before: usize,
    /// Nodes of the result's tree.
    pub nodes_after: usize,
    /// Wall-clock seconds of the whole reduction, parsing and checking the input included.
    pub wall_seconds: f64,
    /// The part of `wall_seconds` when no test was running: whittle's own overhead.
    pub outside_oracle_seconds: f64,
    /// Runs of the test per candidate at most (`--repeat K`).
    pub repeat: u32,
    /// Runs of the test in all (`oracle_calls` counts candidates; with `repeat` a candidate
    /// can take up to K runs, and the final re-check K more; the adaptive timeout's extra runs of
    /// the original input are counted too).
    pub test_runs: u64,
    /// With `repeat` > 1 and a finished run: in how many of K more runs the result was
    /// interesting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_check_interesting: Option<usize>,
    /// Whether an exhaustive search showed that no shorter string over the result's bytes is
    /// interesting (the byte-level tail of `auto`, for results of a few bytes).
    #[serde(default)]
    pub minimal: bool,
    /// With a journal: where it is and what it answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub journal: Option<JournalReport>,
    /// The test's timeout: the policy (`fixed` by `--timeout`, or `adaptive`), its rule, and the
    /// limits it set; `None` for an oracle without one (an in-process predicate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<TimeoutReport>,
    /// What the speculation learned (`-j` > 1 uses it): how often a tested candidate of each
    /// kind of step won, by kind (`ddmin N parts`, `sweep`), as wins and candidates tried (a
    /// candidate the failures say fails counts less than one), in the whole reduction and then
    /// in each move. Recorded at every `-j`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub odds: Vec<OddsReport>,
    /// The engine's counters.
    #[serde(flatten)]
    pub stats: Stats,
}

/// How often the tested candidates of one kind of step won (see [`Report::odds`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OddsReport {
    /// The move the candidates were tried in (`tree`, `literal-chars`, … as in
    /// [`Stats::tests_by_move`]); none for the whole reduction's.
    #[serde(rename = "move", skip_serializing_if = "String::is_empty")]
    pub of_move: String,
    /// The kind of step: `ddmin N parts` (N and up for the larger classes; `ddmin 2 parts,
    /// second` for the second candidate of a split in two) or `sweep`.
    pub kind: String,
    /// How many of its candidates won.
    pub won: f64,
    /// How many were tried, each weighed by what the failures before it said.
    pub tried: f64,
}

/// What the journal did in a reduction (see [`Reduction::journal`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct JournalReport {
    /// The journal file.
    pub path: std::path::PathBuf,
    /// Verdicts read from it at the start (0: a new journal).
    pub verdicts_read: usize,
    /// Candidates answered from it instead of the test (they count as oracle calls in the
    /// engine's counters, but not in [`Report::test_runs`]).
    pub answered: u64,
    /// Verdicts this run added to it.
    pub recorded: u64,
}

impl<'a> Reduction<'a> {
    /// A reduction of `input` as `format` while `oracle` finds it interesting, with the defaults:
    /// `auto` (as the `whittle` command), one job, the gate on, no rules, each test run once, no
    /// stop flag, no observer.
    pub fn new(format: &'a dyn Format, oracle: &'a dyn Oracle, input: &'a [u8]) -> Reduction<'a> {
        Reduction {
            format,
            oracle,
            input,
            algorithm: Algorithm::Auto,
            options: Options::default(),
            repeat: 1,
            stop: None,
            journal: None,
            observers: Vec::new(),
        }
    }

    /// The algorithm to run.
    pub fn algorithm(mut self, algorithm: Algorithm) -> Self {
        self.algorithm = algorithm;
        self
    }

    /// Tests to run at once (at least 1). The result is the same for every value.
    pub fn jobs(mut self, jobs: usize) -> Self {
        self.options.jobs = jobs.max(1);
        self
    }

    /// Whether wide ddmin runs test rounds of `jobs` candidates and merge the wins (see
    /// [`crate::Options::merge`]): another algorithm than the papers', which many workers finish
    /// in fewer rounds of tests. Its result depends on `jobs` above 4, not on timing.
    pub fn merge_wins(mut self, merge: bool) -> Self {
        self.options.merge = merge;
        self
    }

    /// Whether to check candidates with the format's own parser before testing them.
    pub fn gate(mut self, gate: bool) -> Self {
        self.options.gate = gate;
        self
    }

    /// Rules that filter candidates before they are rendered (see `docs/learning.md`).
    pub fn rules(mut self, rules: Option<Rules>) -> Self {
        self.options.rules = rules;
        self
    }

    /// For a flaky test: up to `times` runs per candidate (interesting if one says so), and
    /// `times` more on the result, counted in [`Report::final_check_interesting`].
    pub fn repeat(mut self, times: u32) -> Self {
        self.repeat = times.max(1);
        self
    }

    /// A flag that stops the reduction when set (Ctrl-C); the best result so far is kept.
    pub fn stop(mut self, stop: &'a AtomicBool) -> Self {
        self.stop = Some(stop);
        self
    }

    /// Keeps a journal of every verdict (see `journal.rs`): a run that was killed resumes when
    /// run again with the same journal, answering the candidates it judged before from it. The
    /// resumed run replays the reduction from the original input, so its result is the one an
    /// uninterrupted run gives; only tests that had not finished run again. A journal written
    /// for another input, test or setting is [`ReduceError::Journal`].
    pub fn journal(mut self, spec: JournalSpec) -> Self {
        self.journal = Some(spec);
        self
    }

    /// Adds an observer (told of every improvement; see [`Observer`]).
    pub fn observe(mut self, observer: impl Observer + 'a) -> Self {
        self.observers.push(Box::new(observer));
        self
    }

    /// Runs the reduction. Errors before the first test (the input does not parse, is not
    /// interesting, the test is too permissive, the stop flag is already set) leave nothing
    /// behind; after that, a stop gives `Ok` with [`Report::interrupted`] set.
    pub fn run(mut self) -> Result<Reduced, ReduceError> {
        let started = Instant::now();
        let never = AtomicBool::new(false);
        let stop = self.stop.unwrap_or(&never);
        let repeat = Repeat::new(self.oracle, self.repeat as usize);
        if let Some(spec) = &mut self.journal {
            // K runs per candidate change what a candidate's verdict is.
            spec.settings
                .insert("repeat".to_string(), self.repeat.to_string());
        }
        let journal = match &self.journal {
            Some(spec) => Some(Journal::open(spec, self.input, &repeat)?),
            None => None,
        };
        let oracle: &dyn Oracle = match &journal {
            Some(j) => j,
            None => &repeat,
        };
        let (jobs, merge_wins) = (self.options.jobs, self.options.merge);
        // A new journal that recorded nothing but the checks of an input that cannot be
        // reduced is removed again: a failed start leaves nothing behind.
        let discard = |e: ReduceError| {
            if let Some(j) = journal.as_ref().filter(|j| j.verdicts_read() == 0) {
                let _ = std::fs::remove_file(j.path());
            }
            e
        };
        let mut reducer =
            Reducer::new(self.format, oracle, self.input, self.options, stop).map_err(discard)?;
        for mut o in self.observers {
            if let Some(j) = &journal {
                o.journal(j.path(), j.verdicts_read());
            }
            reducer.observe(o);
        }
        reducer.notify_started();
        let (algorithm, input, format) = (self.algorithm, self.input, self.format);
        // The pool's workers live from the checks of the input on: meanwhile they can start the
        // algorithm's first candidates (`Reducer::check_input_opening`), where the oracle can
        // tell the original's test apart from theirs.
        let opens = oracle.expect_original(input);
        let (nodes_before, interrupted) = reducer.parallel(|r| {
            let opening = (r.speculates() && opens)
                .then(|| algo::opening(r, algorithm))
                .flatten();
            let opened = opening.is_some();
            let mut first = opening.map_or_else(Successor::none, Successor::known);
            let lazy = Lazy::new(&mut first, r);
            let plan = Opening {
                then: &lazy,
                odds: r.odds(),
            };
            r.check_input_opening(opened.then_some(&plan as &dyn Plan))
                .map_err(discard)?;
            // The adaptive timeout times the original input: runs of the test that are not
            // verdicts on candidates. The journal keeps their times (and a resumed run restored
            // them when it opened the journal, so it does not time the original again).
            oracle.calibrate(input, &|_| Ok(()))?;
            check_rewriting(r, format).map_err(discard)?;
            r.notify_confirmed();
            let nodes_before = r.tree().len();
            match algo::run(r, algorithm) {
                Ok(()) => Ok((nodes_before, false)),
                Err(ReduceError::Interrupted) => Ok((nodes_before, true)),
                Err(e) => Err(e),
            }
        })?;
        let stats = reducer.stats();
        let odds = reducer.odds_report();
        let gate = reducer.gate_state();
        // The tree may be older than the best bytes (an interruption, the byte-level tail).
        let nodes_after = self
            .format
            .parse(reducer.best())
            .map_or(0, |d| d.tree.len());
        let minimal = reducer.proved_minimal();
        let best = reducer.into_best();
        let final_check_interesting = if self.repeat > 1 && !interrupted {
            Some(repeat.recheck(&best)?)
        } else {
            None
        };
        let wall_seconds = started.elapsed().as_secs_f64();
        let timeout = repeat.timeout_report();
        let report = Report {
            format: self.format.name().to_string(),
            algorithm: self.algorithm.name().to_string(),
            jobs,
            merge_wins,
            gate,
            interrupted,
            bytes_before: self.input.len(),
            bytes_after: best.len(),
            nodes_before,
            nodes_after,
            wall_seconds,
            outside_oracle_seconds: (wall_seconds - stats.oracle_busy_seconds).max(0.0),
            repeat: self.repeat,
            test_runs: repeat.runs() + timeout.as_ref().map_or(0, |t| t.calibration_runs),
            final_check_interesting,
            minimal,
            journal: journal.as_ref().map(|j| JournalReport {
                path: j.path().to_path_buf(),
                verdicts_read: j.verdicts_read(),
                answered: j.answered(),
                recorded: j.recorded(),
            }),
            timeout,
            odds,
            stats,
        };
        Ok(Reduced { best, report })
    }
}

/// Tests the input as the format writes every candidate, when that differs from the input (a PDF
/// written afresh). If the test rejects it, no candidate can be interesting: better to say so
/// before the first of thousands of tests than after them.
fn check_rewriting(reducer: &Reducer<'_>, format: &dyn Format) -> Result<(), ReduceError> {
    let tree = reducer.tree();
    if tree.is_empty() {
        return Ok(());
    }
    let root = tree.root();
    let mut rewritten = Vec::new();
    format.render(
        reducer.doc(),
        &Edits::new().with(root, Edit::Replace(root)),
        &mut rewritten,
    );
    if rewritten.is_empty() || rewritten == reducer.best() {
        return Ok(());
    }
    // Past the gate, as the empty file: this asks the test, not the format's parser.
    match reducer.judge_with(&rewritten, &|| false, false)? {
        Verdict::Interesting => Ok(()),
        verdict => Err(ReduceError::Rewritten {
            format: format.name(),
            changes: format.rewriting(),
            verdict,
        }),
    }
}
