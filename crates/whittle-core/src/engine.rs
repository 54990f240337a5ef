//! The one evaluation pipeline every algorithm uses: render, hash, cache, gate, oracle; and the
//! speculative parallel search that keeps results identical for every `-j`.

use crate::document::{Document, ParseError};
use crate::edit::Edits;
use crate::format::Format;
use crate::observe::{Gate, Observer, Started, Tested};
use crate::oracle::{Oracle, OracleError, Verdict};
use crate::rules::{CompiledRules, Rules};
pub use crate::stats::Stats;
use crate::stats::{Busy, Counters, bump};
use crate::tree::Tree;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Why a reduction stopped early or could not start.
#[derive(Debug, thiserror::Error)]
pub enum ReduceError {
    /// The input does not parse in the chosen format.
    #[error("cannot parse the input: {0}")]
    Parse(#[from] ParseError),
    /// The format does not give back the input when nothing is edited (a bug in the format).
    #[error("the {0} format does not reproduce this input byte for byte; refusing to reduce it")]
    RoundTrip(&'static str),
    /// A rendering that the engine accepted does not parse again (a bug in the format).
    #[error("the {format} format cannot re-read its own output: {error}")]
    Reparse {
        /// The format.
        format: &'static str,
        /// The parse error.
        error: ParseError,
    },
    /// The original input is not interesting.
    #[error("the original input is not interesting ({0:?})")]
    NotInteresting(Verdict),
    /// The input as the format writes every candidate (see [`Format::rewriting`]) is not
    /// interesting, so no candidate can be.
    #[error(
        "the {format} format {changes}, and the test does not find the input written that way interesting ({verdict:?})"
    )]
    Rewritten {
        /// The format.
        format: &'static str,
        /// What it changes ([`Format::rewriting`]).
        changes: &'static str,
        /// What the test said about the rewritten input.
        verdict: Verdict,
    },
    /// The journal cannot be used (it belongs to another input or test, or cannot be read).
    #[error(transparent)]
    Journal(#[from] crate::journal::JournalError),
    /// The empty file is interesting: the test accepts anything.
    #[error("the test is too permissive: it says the empty file is interesting too")]
    TooPermissive,
    /// The oracle could not run.
    #[error(transparent)]
    Oracle(#[from] OracleError),
    /// Ctrl-C, SIGTERM or a caller's stop flag.
    #[error("interrupted")]
    Interrupted,
    /// A phase spent the oracle calls it was given (see [`Reducer::set_call_limit`]); the phase
    /// ends there and the reduction goes on.
    #[error("the phase spent its budget of tests")]
    OutOfBudget,
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
}

impl Default for Options {
    fn default() -> Options {
        Options {
            jobs: 1,
            gate: true,
            rules: None,
        }
    }
}

/// A candidate that the oracle found interesting.
#[derive(Debug)]
pub struct Found<C = Edits> {
    /// Its position in the list it was found in.
    pub index: usize,
    /// What it changes in the current document: tree edits, or text splices.
    pub edits: C,
    /// Its rendered bytes.
    pub bytes: Vec<u8>,
}

/// The state of one reduction: the current document, the best bytes so far, the cache and the
/// counters. Algorithms drive it through [`Reducer::first_interesting`], [`Reducer::accept`] and
/// [`Reducer::commit`].
pub struct Reducer<'a> {
    format: &'a dyn Format,
    oracle: &'a dyn Oracle,
    jobs: usize,
    gate: bool,
    gate_disabled: bool,
    rules: Option<Rules>,
    compiled: Option<CompiledRules>,
    cache: Mutex<FxHashMap<u128, bool>>,
    counters: Counters,
    busy: Busy,
    /// No oracle call starts once this many have been made.
    call_limit: AtomicU64,
    /// Whether an exhaustive search showed that no shorter string over the result's bytes is
    /// interesting.
    minimal: bool,
    /// The kind of move being tried, and the oracle calls of each kind.
    phase: Mutex<(&'static str, BTreeMap<&'static str, u64>)>,
    stop: &'a AtomicBool,
    /// Behind a lock so that the reducer can be shared by the speculative workers; only
    /// [`Reducer::accept`] (which has `&mut self`) calls them.
    observers: Mutex<Vec<Box<dyn Observer + 'a>>>,
    doc: Document,
    /// The bytes `doc` was parsed from.
    bytes: Vec<u8>,
    /// The last accepted candidate; ahead of `bytes` until [`Reducer::commit`].
    best: Vec<u8>,
}

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
        let gate = gate_available && format.gate(input);
        let compiled = options.rules.as_ref().map(|r| r.compile(&doc.tree));
        Ok(Reducer {
            format,
            oracle,
            jobs: options.jobs.max(1),
            gate,
            gate_disabled: gate_available && !gate,
            rules: options.rules,
            compiled,
            cache: Mutex::new(FxHashMap::default()),
            counters: Counters::default(),
            busy: Busy::default(),
            call_limit: AtomicU64::new(u64::MAX),
            minimal: false,
            phase: Mutex::new(("tree", BTreeMap::new())),
            stop,
            observers: Mutex::default(),
            doc,
            bytes: input.to_vec(),
            best: input.to_vec(),
        })
    }

    /// Registers an observer of every accepted candidate (to save it, to show progress).
    pub fn observe(&mut self, observer: Box<dyn Observer + 'a>) {
        self.observers_mut().push(observer);
    }

    fn observers_mut(&mut self) -> &mut Vec<Box<dyn Observer + 'a>> {
        self.observers.get_mut().unwrap_or_else(|e| e.into_inner())
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
        for o in self.observers.get_mut().unwrap_or_else(|e| e.into_inner()) {
            o.started(&started);
        }
    }

    /// Tells the observers that the input is interesting (see [`Observer::confirmed`]).
    pub(crate) fn notify_confirmed(&mut self) {
        let input = &self.bytes;
        for o in self.observers.get_mut().unwrap_or_else(|e| e.into_inner()) {
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
        let c = &self.counters;
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        Stats {
            candidates: get(&c.candidates),
            oracle_calls: get(&c.oracle_calls),
            interesting: get(&c.interesting),
            cache_hits: get(&c.cache_hits),
            gate_rejections: get(&c.gate_rejections),
            filtered: get(&c.filtered),
            not_smaller: get(&c.not_smaller),
            timeouts: get(&c.timeouts),
            cancelled: get(&c.cancelled),
            improvements: get(&c.improvements),
            tests_by_move: self
                .phase
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .1
                .iter()
                .map(|(&k, &v)| (k.to_string(), v))
                .collect(),
            oracle_seconds: Duration::from_nanos(get(&c.oracle_nanos)).as_secs_f64(),
            timed_out_seconds: Duration::from_nanos(get(&c.timeout_nanos)).as_secs_f64(),
            oracle_busy_seconds: self.busy.total().as_secs_f64(),
        }
    }

    /// Names the kind of move whose oracle calls are counted from now on
    /// ([`Stats::tests_by_move`]).
    pub fn set_phase(&self, name: &'static str) {
        self.phase.lock().unwrap_or_else(|e| e.into_inner()).0 = name;
    }

    /// Adds `n` to the count of candidates the rules filtered out.
    pub fn count_filtered(&self, n: usize) {
        self.counters
            .filtered
            .fetch_add(n as u64, Ordering::Relaxed);
    }

    fn check_stop(&self) -> Result<(), ReduceError> {
        if self.stop.load(Ordering::Relaxed) {
            Err(ReduceError::Interrupted)
        } else if self.counters.oracle_calls.load(Ordering::Relaxed)
            >= self.call_limit.load(Ordering::Relaxed)
        {
            Err(ReduceError::OutOfBudget)
        } else {
            Ok(())
        }
    }

    /// Ends the current phase with [`ReduceError::OutOfBudget`] once the oracle has been called
    /// `limit` times in all (`None`: no limit).
    pub fn set_call_limit(&self, limit: Option<u64>) {
        self.call_limit
            .store(limit.unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    /// Records that no shorter string over the result's bytes is interesting.
    pub(crate) fn set_minimal(&mut self) {
        self.minimal = true;
    }

    /// Whether the result was shown minimal by an exhaustive search.
    pub fn proved_minimal(&self) -> bool {
        self.minimal
    }

    /// Tests the original input (it must be interesting) and the empty file (it must not be).
    pub fn check_input(&mut self) -> Result<(), ReduceError> {
        let input = self.bytes.clone();
        match self.judge(&input, &|| false)? {
            Verdict::Interesting => {}
            v => return Err(ReduceError::NotInteresting(v)),
        }
        // The empty file goes to the test itself, past the gate: a test that accepts it accepts
        // anything, whatever the gate would say.
        if !input.is_empty() && self.judge_with(&[], &|| false, false)? == Verdict::Interesting {
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
        let key = xxhash_rust::xxh3::xxh3_128(bytes);
        if let Some(&v) = self
            .cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            bump(&self.counters.cache_hits);
            return Ok(if v {
                Verdict::Interesting
            } else {
                Verdict::Boring
            });
        }
        if gate && !self.format.gate(bytes) {
            bump(&self.counters.gate_rejections);
            self.cache
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(key, false);
            return Ok(Verdict::Boring);
        }
        let started = Instant::now();
        self.busy.enter(started);
        let stop = || self.stop.load(Ordering::Relaxed) || cancel();
        let verdict = self.oracle.test(bytes, &stop);
        self.busy.leave();
        let verdict = verdict?;
        let nanos = started.elapsed().as_nanos() as u64;
        self.counters
            .oracle_nanos
            .fetch_add(nanos, Ordering::Relaxed);
        match verdict {
            Verdict::Cancelled => {
                bump(&self.counters.cancelled);
                return Ok(verdict);
            }
            Verdict::Timeout => {
                bump(&self.counters.timeouts);
                self.counters
                    .timeout_nanos
                    .fetch_add(nanos, Ordering::Relaxed);
            }
            Verdict::Interesting => bump(&self.counters.interesting),
            Verdict::Boring => {}
        }
        bump(&self.counters.oracle_calls);
        let phase = {
            let mut phase = self.phase.lock().unwrap_or_else(|e| e.into_inner());
            let kind = phase.0;
            *phase.1.entry(kind).or_default() += 1;
            kind
        };
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, verdict == Verdict::Interesting);
        let (stats, nodes) = (self.stats(), self.doc.tree.len());
        let tested = Tested::new(verdict, nanos, phase, nodes, &stats);
        crate::observe::tell_tested(&self.observers, &tested);
        Ok(verdict)
    }

    /// Renders a candidate and judges it; `Some(bytes)` if it is interesting.
    fn evaluate<C>(
        &self,
        candidate: &C,
        render: &(impl Fn(&C, &mut Vec<u8>) + Sync),
        cancel: &dyn Fn() -> bool,
    ) -> Result<Option<Vec<u8>>, ReduceError> {
        bump(&self.counters.candidates);
        let mut out = Vec::with_capacity(self.best.len());
        render(candidate, &mut out);
        if !shortlex_less(&out, &self.best) {
            bump(&self.counters.not_smaller);
            return Ok(None);
        }
        Ok((self.judge(&out, cancel)? == Verdict::Interesting).then_some(out))
    }

    /// The first interesting candidate, in index order, among `count` candidates made on demand
    /// by `make` (`None` = skip this one), as edits on the current tree rendered by the format.
    /// Candidates that are not smaller (in shortlex order) than the best so far are skipped.
    ///
    /// With `jobs > 1` candidates are evaluated speculatively in parallel, but the answer is
    /// always the one the sequential scan would give: every candidate before the winner has been
    /// judged not interesting, and later ones are cancelled.
    pub fn first_interesting<F>(&self, count: usize, make: F) -> Result<Option<Found>, ReduceError>
    where
        F: Fn(usize) -> Option<Edits> + Sync,
    {
        self.first_interesting_by(count, make, |edits: &Edits, out: &mut Vec<u8>| {
            self.format.render(&self.doc, edits, out)
        })
    }

    /// [`Reducer::first_interesting`] for candidates of any kind, rendered by `render`.
    pub fn first_interesting_by<C, F, R>(
        &self,
        count: usize,
        make: F,
        render: R,
    ) -> Result<Option<Found<C>>, ReduceError>
    where
        C: Send,
        F: Fn(usize) -> Option<C> + Sync,
        R: Fn(&C, &mut Vec<u8>) + Sync,
    {
        self.check_stop()?;
        if self.jobs == 1 || count <= 1 {
            for index in 0..count {
                let Some(edits) = make(index) else { continue };
                if let Some(bytes) = self.evaluate(&edits, &render, &|| false)? {
                    return Ok(Some(Found {
                        index,
                        edits,
                        bytes,
                    }));
                }
                self.check_stop()?;
            }
            return Ok(None);
        }
        // Workers take the next index from `next`. A candidate after the best winner so far is
        // never started, and a running one is cancelled (its test killed) as soon as an earlier
        // candidate wins, so the winner is always the lowest interesting index: the sequential
        // answer.
        let next = AtomicUsize::new(0);
        let winner_index = AtomicUsize::new(usize::MAX);
        let winner: Mutex<Option<Found<C>>> = Mutex::new(None);
        let failure: Mutex<Option<ReduceError>> = Mutex::new(None);
        std::thread::scope(|s| {
            for _ in 0..self.jobs.min(count) {
                s.spawn(|| {
                    loop {
                        let index = next.fetch_add(1, Ordering::SeqCst);
                        if index >= count || index > winner_index.load(Ordering::SeqCst) {
                            break;
                        }
                        if failure.lock().unwrap_or_else(|e| e.into_inner()).is_some() {
                            break;
                        }
                        let Some(edits) = make(index) else { continue };
                        let cancel = || winner_index.load(Ordering::SeqCst) < index;
                        match self.evaluate(&edits, &render, &cancel) {
                            Ok(Some(bytes)) => {
                                let mut w = winner.lock().unwrap_or_else(|e| e.into_inner());
                                if w.as_ref().is_none_or(|f| index < f.index) {
                                    *w = Some(Found {
                                        index,
                                        edits,
                                        bytes,
                                    });
                                    winner_index.fetch_min(index, Ordering::SeqCst);
                                }
                            }
                            Ok(None) => {}
                            Err(e) => {
                                failure
                                    .lock()
                                    .unwrap_or_else(|e| e.into_inner())
                                    .get_or_insert(e);
                                break;
                            }
                        }
                    }
                });
            }
        });
        if let Some(e) = failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
            return Err(e);
        }
        self.check_stop()?;
        Ok(winner.into_inner().unwrap_or_else(|e| e.into_inner()))
    }

    /// Accepts an interesting candidate as the new best and tells the observers.
    pub fn accept<C>(&mut self, found: &Found<C>) {
        self.best.clone_from(&found.bytes);
        bump(&self.counters.improvements);
        let stats = self.stats();
        let best = &self.best;
        for o in self.observers.get_mut().unwrap_or_else(|e| e.into_inner()) {
            o.improved(best, &stats);
        }
    }

    /// Makes the best candidate the current document (re-parsing it), so that node ids and levels
    /// describe the reduced tree. Returns whether anything changed.
    pub fn commit(&mut self) -> Result<bool, ReduceError> {
        if self.best == self.bytes {
            return Ok(false);
        }
        let doc = self
            .format
            .parse(&self.best)
            .map_err(|error| ReduceError::Reparse {
                format: self.format.name(),
                error,
            })?;
        self.compiled = self.rules.as_ref().map(|r| r.compile(&doc.tree));
        self.doc = doc;
        self.bytes.clone_from(&self.best);
        Ok(true)
    }

    /// Tries the format's tidy rendering of the current document as one more candidate; keeps it
    /// if it is smaller and still interesting. Returns whether it was kept.
    pub fn tidy(&mut self) -> Result<bool, ReduceError> {
        self.commit()?;
        let Some(bytes) = self.format.tidy(&self.doc) else {
            return Ok(false);
        };
        bump(&self.counters.candidates);
        if !shortlex_less(&bytes, &self.best) {
            bump(&self.counters.not_smaller);
            return Ok(false);
        }
        if self.judge(&bytes, &|| false)? != Verdict::Interesting {
            self.check_stop()?;
            return Ok(false);
        }
        self.accept(&Found {
            index: 0,
            edits: (),
            bytes,
        });
        self.commit()
    }

    /// Ends the reduction and returns the best bytes.
    pub fn into_best(self) -> Vec<u8> {
        self.best
    }
}

/// Shortlex order: fewer bytes, or as many and lexicographically smaller. Every accepted
/// candidate is smaller than the one before in this order, so every fixpoint loop ends, and
/// same-length rewrites that make a file more canonical (`b` to `a`, `7` to `0`) still count.
pub fn shortlex_less(a: &[u8], b: &[u8]) -> bool {
    (a.len(), a) < (b.len(), b)
}
