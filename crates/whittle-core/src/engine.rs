//! The one evaluation pipeline every algorithm uses: render, hash, cache, gate, oracle; and the
//! speculative parallel search that keeps results identical for every `-j`.

mod steps;

use crate::candidate::Found;
use crate::document::{Document, ParseError};
use crate::edit::{Edit, Edits};
use crate::error::ReduceError;
use crate::format::Format;
use crate::judge::{Judge, key};
use crate::observe::{Gate, Observer, Started};
use crate::oracle::{Oracle, Verdict};
use crate::plan::{Odds, Plan};
use crate::pool::Pool;
use crate::rules::{CompiledRules, Rules};
use crate::split::Failures;
use crate::stats::Stats;
use crate::stats::bump;
use crate::tree::{NodeId, Tree};
use crate::tried::Refused;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// A document and the rules compiled against its tree: the current one, or a parse of the best
/// bytes ahead of the commit.
#[derive(Clone, Copy)]
pub(crate) struct View<'d> {
    pub(crate) doc: &'d Document,
    pub(crate) rules: Option<&'d CompiledRules>,
}

/// A parse of bytes ahead of [`Reducer::commit`], with the rules compiled against its tree.
pub(crate) struct Parsed {
    pub(crate) key: u128,
    pub(crate) doc: Document,
    pub(crate) rules: Option<CompiledRules>,
}

impl Parsed {
    pub(crate) fn view(&self) -> View<'_> {
        View {
            doc: &self.doc,
            rules: self.rules.as_ref(),
        }
    }
}

/// Settings of one reduction.
#[derive(Clone, Debug)]
pub struct Options {
    /// Worker threads for speculative evaluation (1 = sequential).
    pub jobs: usize,
    /// Use the format's validity gate (it is still switched off if the input fails it).
    pub gate: bool,
    /// Rules that specialize the templates, if any.
    pub rules: Option<Rules>,
    /// Merge concurrent wins: each round of ddmin tests `jobs` candidates at once (those of a
    /// step and of the finer splits after it) and, when several win, tries them together
    /// (`ddmin::merged_step`). Another algorithm than the papers' ddmin: fewer rounds of tests
    /// with many workers, more tests in all; its output depends on `jobs`.
    pub merge: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            jobs: 1,
            gate: true,
            rules: None,
            merge: false,
        }
    }
}

/// The state of one reduction: the current document, the best bytes so far, the cache and the
/// counters. Algorithms drive it through [`Reducer::first_interesting`], [`Reducer::accept`] and
/// [`Reducer::commit`].
pub struct Reducer<'a> {
    format: &'a dyn Format,
    /// The cache, the gate, the oracle and the counters; shared with the test pool's workers.
    judge: Arc<Judge<'a>>,
    /// The workers of [`Reducer::parallel`], while it runs.
    pool: Option<Arc<Pool>>,
    jobs: usize,
    /// [`Options::merge`].
    merge: bool,
    gate: bool,
    gate_disabled: bool,
    rules: Option<Rules>,
    compiled: Option<CompiledRules>,
    /// Whether an exhaustive search showed that no shorter string over the result's bytes is
    /// interesting.
    minimal: bool,
    /// Where the last ddmin over a level (and template) ended; see `algo::ddmin_level`.
    granularity: rustc_hash::FxHashMap<(usize, usize), usize>,
    /// Where each list move's last coarse run ended; see `lists::reduce_lists`.
    list_granularity: rustc_hash::FxHashMap<&'static str, usize>,
    /// What the last ddmin run over some items found fails, by a key naming the items, for the
    /// plan of the next run over them ([`crate::ddmin::Known`]).
    ended_failures: rustc_hash::FxHashMap<u64, (usize, Failures)>,
    /// The list moves' rewrites the test did not allow, by [`crate::lists`]'s key.
    refused: rustc_hash::FxHashSet<u64>,
    /// The tree's edits that failed alone in `auto`'s rounds ([`Refused`]).
    refused_alone: Refused,
    /// How often the candidates of each kind of step won so far, for the speculation.
    odds: Odds,
    doc: Document,
    /// The bytes `doc` was parsed from.
    bytes: Vec<u8>,
    /// The last accepted candidate; ahead of `bytes` until [`Reducer::commit`].
    best: Vec<u8>,
}

/// The longest run, and the most runs, whose failures [`Reducer::set_ended_failures`] keeps (at
/// most 1 024 failures of 1 024 items each, 128 KiB, per run).
const ENDED_ITEMS: usize = 1024;
const ENDED_RUNS: usize = 1024;

impl<'a> Reducer<'a> {
    /// Parses `input` and prepares a reduction. Does not call the oracle.
    pub fn new(
        format: &'a dyn Format,
        oracle: &'a dyn Oracle,
        input: &[u8],
        options: Options,
        stop: &'a AtomicBool,
    ) -> Result<Reducer<'a>, ReduceError> {
        let doc = format.parse(input)?;
        let mut out = Vec::with_capacity(input.len());
        format.render(&doc, &Edits::new(), &mut out);
        if out != input {
            return Err(ReduceError::RoundTrip(format.name()));
        }
        let gate_available = options.gate && format.has_gate();
        let allowance = if gate_available {
            format.gate_allowance(input)
        } else {
            None
        };
        let gate = allowance.is_some();
        let compiled = (options.rules.as_ref())
            .map(|r| r.compile(&doc.tree).with_splices(format.splices_lists()));
        let jobs = options.jobs.max(1);
        let judge = Judge::new(
            format,
            oracle,
            stop,
            retest_timeouts(oracle, jobs),
            doc.tree.len(),
            (gate.then(|| key(input)), allowance.unwrap_or_default()),
        );
        // The odds are learned under the move the tests are counted under.
        let odds = Odds::default();
        odds.set_move(judge.phase());
        Ok(Reducer {
            format,
            judge: Arc::new(judge),
            pool: None,
            jobs,
            merge: options.merge,
            gate,
            gate_disabled: gate_available && !gate,
            rules: options.rules,
            compiled,
            minimal: false,
            granularity: Default::default(),
            list_granularity: Default::default(),
            ended_failures: Default::default(),
            refused: Default::default(),
            refused_alone: Refused::default(),
            odds,
            doc,
            bytes: input.to_vec(),
            best: input.to_vec(),
        })
    }

    /// Registers an observer of every accepted candidate (to save it, to show progress).
    pub fn observe(&mut self, observer: Box<dyn Observer + 'a>) {
        self.observers().push(observer);
    }

    fn observers(&self) -> std::sync::MutexGuard<'_, Vec<Box<dyn Observer + 'a>>> {
        self.judge
            .observers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Tells the observers that the input parsed (see [`Observer::started`]).
    pub(crate) fn notify_started(&mut self) {
        let gate = self.gate_state();
        let (doc, bytes) = (&self.doc, self.bytes.len());
        let started = Started {
            diagnostics: &doc.diagnostics,
            gate,
            nodes: doc.tree.len(),
            bytes,
        };
        for o in self.observers().iter_mut() {
            o.started(&started);
        }
    }

    /// Tells the observers that the input is interesting (see [`Observer::confirmed`]).
    pub(crate) fn notify_confirmed(&mut self) {
        let input = &self.bytes;
        for o in self.observers().iter_mut() {
            o.confirmed(input);
        }
    }

    /// Whether the gate is in use, off, or switched off by the input.
    pub fn gate_state(&self) -> Gate {
        if self.gate {
            Gate::On
        } else if self.gate_disabled {
            Gate::SwitchedOff
        } else {
            Gate::Off
        }
    }

    /// Whether the validity gate is in use.
    pub fn gate_active(&self) -> bool {
        self.gate
    }

    /// Whether the gate was asked for but switched itself off because the input fails it.
    pub fn gate_switched_off(&self) -> bool {
        self.gate_disabled
    }

    /// The format being reduced.
    pub fn format(&self) -> &dyn Format {
        self.format
    }

    /// The current document (as of the last [`Reducer::commit`]).
    pub fn doc(&self) -> &Document {
        &self.doc
    }

    /// The current tree.
    pub fn tree(&self) -> &Tree {
        &self.doc.tree
    }

    /// Whether rules are in use.
    pub fn has_rules(&self) -> bool {
        self.compiled.is_some()
    }

    /// The rules compiled against the current tree.
    pub fn rules(&self) -> Option<&CompiledRules> {
        self.compiled.as_ref()
    }

    /// The best bytes so far.
    pub fn best(&self) -> &[u8] {
        &self.best
    }

    /// The counters so far.
    pub fn stats(&self) -> Stats {
        self.judge.stats()
    }

    /// Names the kind of move whose oracle calls are counted from now on
    /// ([`Stats::tests_by_move`]).
    pub fn set_phase(&self, name: &'static str) {
        self.judge.set_phase(name);
        self.odds.set_move(name);
    }

    /// Adds `n` to the count of candidates the rules filtered out.
    pub fn count_filtered(&self, n: usize) {
        self.judge
            .counters
            .filtered
            .fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
    }

    fn check_stop(&self) -> Result<(), ReduceError> {
        self.judge.check_stop()
    }

    /// Ends the current phase with [`ReduceError::OutOfBudget`] once the oracle has been called
    /// `limit` times in all (`None`: no limit).
    pub fn set_call_limit(&self, limit: Option<u64>) {
        self.judge.set_call_limit(limit);
    }

    /// Records whether no shorter string over the result's bytes is interesting (as far as is
    /// known: `false` when that was not searched).
    pub(crate) fn set_minimal(&mut self, minimal: bool) {
        self.minimal = minimal;
    }

    /// The granularity the last ddmin over `slot` (a level and a template) ended at; 2 at first.
    pub(crate) fn granularity(&self, slot: (usize, usize)) -> usize {
        self.granularity.get(&slot).copied().unwrap_or(2)
    }

    pub(crate) fn set_granularity(&mut self, slot: (usize, usize), n: usize) {
        self.granularity.insert(slot, n);
    }

    /// The granularity list move `name`'s last coarse run ended at; 2 at first.
    pub(crate) fn list_granularity(&self, name: &str) -> usize {
        self.list_granularity.get(name).copied().unwrap_or(2)
    }

    pub(crate) fn set_list_granularity(&mut self, name: &'static str, n: usize) {
        self.list_granularity.insert(name, n);
    }

    /// What the last ddmin run over the `len` items named `key` found fails (numbered as a run
    /// over them numbers them), if one ended over as many.
    pub(crate) fn ended_failures(&self, key: u64, len: usize) -> Option<&Failures> {
        (self.ended_failures.get(&key)).and_then(|(n, f)| (*n == len).then_some(f))
    }

    /// Keeps what a run over `len` items named `key` ended with, for [`Reducer::ended_failures`]:
    /// for runs of at most [`ENDED_ITEMS`] items, and [`ENDED_RUNS`] runs at most (the memory is
    /// cleared when full), so that a file of many long literals does not fill the memory with
    /// what only weighs the plan.
    pub(crate) fn set_ended_failures(&mut self, key: u64, len: usize, failures: Failures) {
        if len > ENDED_ITEMS {
            return;
        }
        if self.ended_failures.len() >= ENDED_RUNS {
            self.ended_failures.clear();
        }
        self.ended_failures.insert(key, (len, failures));
    }

    /// Whether a list move's rewrite (by its key) was refused by the test before.
    pub(crate) fn refused_before(&self, key: u64) -> bool {
        self.refused.contains(&key)
    }

    /// Records that the test refused a list move's rewrite.
    pub(crate) fn refuse(&mut self, key: u64) {
        self.refused.insert(key);
    }

    /// The tree's edits that failed alone in `auto`'s rounds.
    pub(crate) fn refused_alone(&self) -> &Refused {
        &self.refused_alone
    }

    /// Records that the edits `items` (of the current tree) of template `at.1` on level `at.0`
    /// failed alone ([`Refused::record`]).
    pub(crate) fn record_refused_alone(
        &mut self,
        at: (usize, usize),
        items: impl IntoIterator<Item = (NodeId, Edit)>,
    ) {
        (self.refused_alone).record(&self.doc.tree, at, items);
    }

    /// Forgets what [`Reducer::record_refused_alone`] recorded: the next round skips nothing.
    pub(crate) fn forget_refused_alone(&mut self) {
        self.refused_alone = Refused::default();
    }

    /// Whether the result was shown minimal by an exhaustive search.
    pub fn proved_minimal(&self) -> bool {
        self.minimal
    }

    /// Tests the original input (it must be interesting) and the empty file (it must not be).
    pub fn check_input(&mut self) -> Result<(), ReduceError> {
        self.check_input_opening(None)
    }

    /// [`Reducer::check_input`]; on the pool of [`Reducer::parallel`], idle workers meanwhile
    /// start the candidates the `opening` plan offers (what the algorithm tests first) while the
    /// processors have time to spare (see `Pool::open`): without it, the reduction's first
    /// round of tests would be the original's alone. What they start is what the algorithm
    /// tests anyway, so its output is the same.
    pub(crate) fn check_input_opening(
        &self,
        opening: Option<&dyn Plan>,
    ) -> Result<(), ReduceError> {
        let input = &self.bytes;
        // The empty file goes to the test itself, past the gate: a test that accepts it accepts
        // anything, whatever the gate would say. With more than one worker both tests run at
        // once; the input's verdict is reported first either way.
        let empty = || -> Result<Verdict, ReduceError> {
            if input.is_empty() {
                Ok(Verdict::Boring)
            } else {
                self.judge_with(&[], &|| false, false)
            }
        };
        let (original, empty) = if self.jobs > 1 {
            std::thread::scope(|s| {
                let empty = s.spawn(empty);
                let original = s.spawn(|| self.judge(input, &|| false));
                if let (Some(pool), Some(plan)) = (&self.pool, opening) {
                    let running = || !original.is_finished();
                    let (judge, gate) = (&*self.judge, self.gate);
                    pool.open(judge, gate, input, plan, 2, &running);
                }
                let join = |h: std::thread::ScopedJoinHandle<'_, _>| {
                    h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))
                };
                (join(original), join(empty))
            })
        } else {
            match self.judge(input, &|| false) {
                Ok(Verdict::Interesting) => (Ok(Verdict::Interesting), empty()),
                other => (other, Ok(Verdict::Boring)),
            }
        };
        match original? {
            Verdict::Interesting => {}
            v => return Err(ReduceError::NotInteresting(v)),
        }
        if empty? == Verdict::Interesting {
            return Err(ReduceError::TooPermissive);
        }
        Ok(())
    }

    /// The cache and the oracle, for bytes already known to be a new, smaller candidate.
    fn judge(&self, bytes: &[u8], cancel: &dyn Fn() -> bool) -> Result<Verdict, ReduceError> {
        self.judge_with(bytes, cancel, self.gate)
    }

    /// [`Reducer::judge`] with the gate on or off.
    pub(crate) fn judge_with(
        &self,
        bytes: &[u8],
        cancel: &dyn Fn() -> bool,
        gate: bool,
    ) -> Result<Verdict, ReduceError> {
        let j = &self.judge;
        j.judge(key(bytes), bytes, gate, j.phase(), cancel)
    }

    /// How often the candidates of each kind of step won so far.
    pub(crate) fn odds(&self) -> &Odds {
        &self.odds
    }

    /// [`Reducer::odds`] for the report.
    pub fn odds_report(&self) -> Vec<crate::OddsReport> {
        (self.odds.report().into_iter())
            .map(|(of_move, kind, won, tried)| crate::OddsReport {
                of_move: of_move.to_string(),
                kind,
                won,
                tried,
            })
            .collect()
    }

    /// Accepts an interesting candidate as the new best and tells the observers.
    pub fn accept<C>(&mut self, found: &Found<C>) {
        self.best.clone_from(&found.bytes);
        if self.gate {
            self.judge.tighten(&self.best);
        }
        bump(&self.judge.counters.improvements);
        let stats = self.stats();
        let best = &self.best;
        for o in self.observers().iter_mut() {
            o.improved(best, &stats);
        }
    }

    /// Makes the best candidate the current document (re-parsing it), so that node ids and levels
    /// describe the reduced tree. Returns whether anything changed.
    pub fn commit(&mut self) -> Result<bool, ReduceError> {
        self.commit_parsed(None)
    }

    /// [`Reducer::commit`], taking the parse `ahead` made of the best bytes if it is of them
    /// (see [`crate::lookahead::Successor`]).
    pub(crate) fn commit_parsed(&mut self, ahead: Option<Parsed>) -> Result<bool, ReduceError> {
        if self.best == self.bytes {
            return Ok(false);
        }
        let parsed = match ahead {
            Some(p) if p.key == key(&self.best) => p,
            _ => self
                .parse(&self.best, key(&self.best))
                .map_err(|error| ReduceError::Reparse {
                    format: self.format.name(),
                    error,
                })?,
        };
        self.compiled = parsed.rules;
        self.doc = parsed.doc;
        (self.judge.nodes).store(self.doc.tree.len(), std::sync::atomic::Ordering::Relaxed);
        self.bytes.clone_from(&self.best);
        Ok(true)
    }

    /// Parses `bytes` (whose key is `k`) and compiles the rules against the tree.
    fn parse(&self, bytes: &[u8], k: u128) -> Result<Parsed, ParseError> {
        let doc = self.format.parse(bytes)?;
        let splices = self.format.splices_lists();
        let rules = (self.rules.as_ref()).map(|r| r.compile(&doc.tree).with_splices(splices));
        Ok(Parsed { key: k, doc, rules })
    }

    /// A parse of `bytes` (whose key is `k`: the best bytes, or a candidate that may become
    /// them) ahead of the commit; `None` if they do not parse (the commit will then report it).
    pub(crate) fn parse_ahead(&self, bytes: &[u8], k: u128) -> Option<Parsed> {
        self.parse(bytes, k).ok()
    }

    /// The bytes the current document was parsed from.
    pub(crate) fn committed(&self) -> &[u8] {
        &self.bytes
    }

    /// The current document and the rules compiled against it.
    pub(crate) fn view(&self) -> View<'_> {
        View {
            doc: &self.doc,
            rules: self.compiled.as_ref(),
        }
    }

    /// Ends the reduction and returns the best bytes.
    pub fn into_best(self) -> Vec<u8> {
        self.best
    }
}

/// Whether a timed-out candidate is tested once more before the timeout counts: with several
/// tests at once on few cores, a test can time out only because of the load. Not under the
/// adaptive timeout, which follows the load anyway (and a second run would double the time lost
/// to candidates that loop; see `docs/processes.md`).
fn retest_timeouts(oracle: &dyn Oracle, jobs: usize) -> bool {
    jobs > 1 && oracle.timeout_report().is_none_or(|t| t.policy == "fixed")
}
