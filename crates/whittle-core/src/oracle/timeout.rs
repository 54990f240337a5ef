//! How long a test may run: a fixed limit (`--timeout`), or one that follows the test's own
//! times (the default of the command line).
//!
//! The adaptive limit is a pure function of what the oracle observed (see [`adaptive_limit`]):
//! the times of the last tests that ended by themselves, the times of the last interesting ones,
//! and how many of the last tests were killed at the limit. It follows the tests down as the
//! candidates get smaller, and rises again when many tests in a row time out (a machine under
//! load, a test that got slower).

use super::Verdict;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

/// How long a test may run before it is killed (with everything it started) and counted as not
/// interesting.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Timeout {
    /// Always this long (`whittle reduce --timeout SECONDS`).
    Fixed(Duration),
    /// A multiple of the test's recent times (the command line's default).
    Adaptive(Adaptive),
}

impl From<Duration> for Timeout {
    fn from(d: Duration) -> Timeout {
        Timeout::Fixed(d)
    }
}

/// The adaptive timeout's rule: the limit is `factor` × the larger of the `quantile` of the last
/// `window` test times and the slowest of the last `interesting` interesting tests, at least
/// `floor` and at most `ceiling`; it doubles once `rise_after` of the last `window` tests timed
/// out, and again for every `rise_every` more. Before any test has ended, the limit is `first`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Adaptive {
    /// The multiple of the recent test time (5).
    pub factor: f64,
    /// Which quantile of the recent test times (0.95).
    pub quantile: f64,
    /// How many recent tests count (32).
    pub window: usize,
    /// How many recent interesting tests count (8): an interesting candidate is like the current
    /// best, so its time says most about the next interesting one, even when most tests fail
    /// early.
    pub interesting: usize,
    /// The limit is never shorter (1 s): starting a process costs time on a loaded machine.
    pub floor: Duration,
    /// The limit is never longer (1 h).
    pub ceiling: Duration,
    /// The limit for the first test, before anything was timed (5 min).
    pub first: Duration,
    /// This many timeouts among the last `window` tests double the limit (16, half of them: a
    /// stall, where the tests themselves got slower, rather than a phase where many candidates
    /// hang, which a higher limit would only make costlier)…
    pub rise_after: usize,
    /// …and every this many more double it again (8).
    pub rise_every: usize,
    /// The original input is tested again while fewer than this many runs were timed (5)…
    pub calibration_runs: usize,
    /// …and while they took less than this in all (1 s): a fast test is timed several times,
    /// unless `factor` × its slowest run so far leaves the limit at `floor`.
    pub calibration_time: Duration,
}

impl Default for Adaptive {
    fn default() -> Adaptive {
        Adaptive {
            factor: 5.0,
            quantile: 0.95,
            window: 32,
            interesting: 8,
            floor: Duration::from_secs(1),
            ceiling: Duration::from_secs(3600),
            first: Duration::from_secs(300),
            rise_after: 16,
            rise_every: 8,
            calibration_runs: 5,
            calibration_time: Duration::from_secs(1),
        }
    }
}

impl Adaptive {
    /// The rule in words, for messages and the report.
    pub fn describe(&self) -> String {
        format!(
            "{} × the slower of the {:.0}th percentile of the last {} test times and the slowest of the last {} interesting tests, at least {} s, doubled once {} of the last {} tests timed out and again for every {} more",
            self.factor,
            self.quantile * 100.0,
            self.window,
            self.interesting,
            self.floor.as_secs_f64(),
            self.rise_after,
            self.window,
            self.rise_every,
        )
    }
}

/// The adaptive limit after these observations: `recent` are the times of the last tests that
/// ended by themselves (interesting or not), `interesting` those of the last interesting ones,
/// `timeouts` how many of the last `window` tests were killed at the limit.
pub fn adaptive_limit(
    rule: &Adaptive,
    recent: &[Duration],
    interesting: &[Duration],
    timeouts: usize,
) -> Duration {
    if recent.is_empty() && interesting.is_empty() {
        return rule.first;
    }
    let mut sorted = recent.to_vec();
    sorted.sort_unstable();
    let quantile = match sorted.len() {
        0 => Duration::ZERO,
        n => {
            let rank = (rule.quantile.clamp(0.0, 1.0) * n as f64).ceil() as usize;
            sorted[rank.clamp(1, n) - 1]
        }
    };
    let slowest_interesting = interesting.iter().copied().max().unwrap_or_default();
    let base = quantile.max(slowest_interesting).as_secs_f64() * rule.factor;
    let rises = match timeouts.checked_sub(rule.rise_after) {
        Some(more) => (1 + more / rule.rise_every.max(1)).min(16) as i32,
        None => 0,
    };
    let limit = base.max(rule.floor.as_secs_f64()) * 2f64.powi(rises);
    Duration::from_secs_f64(limit.min(rule.ceiling.as_secs_f64()))
}

/// What the report says about the timeout.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TimeoutReport {
    /// `fixed` (`--timeout`) or `adaptive`.
    pub policy: String,
    /// The rule, in words.
    pub rule: String,
    /// The limit once the original input was tested and timed: what the run started with.
    pub start_seconds: f64,
    /// The shortest and the longest limit a test of the reduction ran under (after the start).
    pub min_seconds: f64,
    /// See `min_seconds`.
    pub max_seconds: f64,
    /// The limit at the end.
    pub end_seconds: f64,
    /// Extra runs of the original input to time it (not counted as oracle calls), in this run:
    /// a resumed run takes the killed run's from its journal and runs none of them again.
    pub calibration_runs: u64,
    /// How long the original input's test took, each time it was run (in a resumed run, the
    /// times the killed run measured, read from the journal).
    pub original_seconds: Vec<f64>,
}

/// The state behind a timeout policy: the observations, and the limits handed out.
#[derive(Debug)]
pub(crate) struct Limiter {
    policy: Timeout,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    recent: VecDeque<Duration>,
    interesting: VecDeque<Duration>,
    /// Whether each of the last tests timed out.
    outcomes: VecDeque<bool>,
    start: Option<Duration>,
    min: Option<Duration>,
    max: Option<Duration>,
    calibration_runs: u64,
    /// The original input's timed runs: how each ended and how long it took.
    original: Vec<OriginalRun>,
    /// How many of them an earlier run measured (restored from its journal).
    restored: usize,
    seen_any: bool,
    /// The original input, when the oracle was told it ([`Limiter::expect`]).
    expected: Option<Vec<u8>>,
}

/// One timed run of the original input: how it ended and how long it took. The journal keeps
/// them, so that a resumed run does not time the original again.
pub type OriginalRun = (Verdict, Duration);

fn push<T>(q: &mut VecDeque<T>, cap: usize, x: T) {
    if q.len() >= cap.max(1) {
        q.pop_front();
    }
    q.push_back(x);
}

impl Limiter {
    pub(crate) fn new(policy: Timeout) -> Limiter {
        Limiter {
            policy,
            state: Mutex::default(),
        }
    }

    pub(crate) fn policy(&self) -> Timeout {
        self.policy
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn limit_of(&self, s: &State) -> Duration {
        match self.policy {
            Timeout::Fixed(d) => d,
            Timeout::Adaptive(rule) => {
                let recent: Vec<Duration> = s.recent.iter().copied().collect();
                let interesting: Vec<Duration> = s.interesting.iter().copied().collect();
                let timeouts = s.outcomes.iter().filter(|&&t| t).count();
                adaptive_limit(&rule, &recent, &interesting, timeouts)
            }
        }
    }

    /// The limit a test starting now would get, without counting it as handed out.
    pub(crate) fn current(&self) -> Duration {
        self.limit_of(&self.lock())
    }

    /// The limit for a test that starts now, of an `empty` candidate or not. Until the original
    /// input's run has ended, a test of a candidate that is not empty is the original's (the
    /// engine tests the input before anything but the empty file, beside it at `-j 2` and
    /// more): it gets the first limit, however fast the empty file's run ended before it started
    /// (a 1.1 MB C++ file compiled in 0.6 s, killed at the 1 s floor on a loaded machine).
    pub(crate) fn limit(&self, empty: bool) -> Duration {
        let mut s = self.lock();
        let limit = match self.policy {
            Timeout::Adaptive(rule) if !empty && !s.seen_any => rule.first,
            _ => self.limit_of(&s),
        };
        s.min = Some(s.min.map_or(limit, |m| m.min(limit)));
        s.max = Some(s.max.map_or(limit, |m| m.max(limit)));
        limit
    }

    /// The original input, so that its first test is told apart from the candidates tested at
    /// the same time (the reduction's opening) by its bytes.
    pub(crate) fn expect(&self, input: &[u8]) {
        self.lock().expected = Some(input.to_vec());
    }

    /// Records how a test of an `empty` candidate or not ended and how long it took. The first
    /// test of the original input is timed as the original's: the first one of the `bytes`
    /// told by [`Limiter::expect`], or, where these are not known, the first test of a
    /// candidate that is not empty.
    pub(crate) fn record(
        &self,
        verdict: Verdict,
        elapsed: Duration,
        empty: bool,
        bytes: Option<&[u8]>,
    ) {
        let mut s = self.lock();
        let original = match (&s.expected, bytes) {
            (Some(expected), Some(bytes)) => expected[..] == *bytes,
            _ => !empty,
        };
        if verdict != Verdict::Cancelled && !s.seen_any && original {
            s.seen_any = true;
            s.original.push((verdict, elapsed));
        }
        Self::observe(&mut s, self.policy, verdict, elapsed);
    }

    fn observe(s: &mut State, policy: Timeout, verdict: Verdict, elapsed: Duration) {
        let Timeout::Adaptive(rule) = policy else {
            return;
        };
        match verdict {
            Verdict::Cancelled => {}
            Verdict::Timeout => push(&mut s.outcomes, rule.window, true),
            Verdict::Boring | Verdict::Interesting => {
                push(&mut s.outcomes, rule.window, false);
                push(&mut s.recent, rule.window, elapsed);
                if verdict == Verdict::Interesting {
                    push(&mut s.interesting, rule.interesting, elapsed);
                }
            }
        }
    }

    /// Whether the original input should be timed once more: with the adaptive policy, while it
    /// ran fewer than `calibration_runs` times and for less than `calibration_time` in all,
    /// another run could still raise the limit above its floor, and the last run was the slowest
    /// so far. A rerun that is faster than an earlier run shows that the earlier one was the cold
    /// start: the limit, 5 × the slowest, already covers the runs to come, and timing on could
    /// only make the calibration cost more (node's 250 ms cold start and 160 ms reruns were timed
    /// five times in all; now twice).
    pub(crate) fn wants_calibration(&self) -> bool {
        let s = self.lock();
        match self.policy {
            Timeout::Fixed(_) => false,
            Timeout::Adaptive(rule) => {
                // Timed again only while the runs set the limit above its floor (a test of
                // 150 ms: 5 × 150 ms < 1 s): below it, the floor is already more than `factor` ×
                // every run, and the first run, the cold one, is the slowest as a rule, so a
                // rerun would move nothing; each is a test run a user on a cluster pays for (a
                // 160 ms test was once run five times before the reduction began).
                let slowest = s.original.iter().map(|r| r.1).max().unwrap_or_default();
                let at_floor = !s.original.is_empty()
                    && slowest.as_secs_f64() * rule.factor <= rule.floor.as_secs_f64();
                let falling = s.original.last().is_some_and(|last| last.1 < slowest);
                s.original.len() < rule.calibration_runs
                    && s.original.iter().map(|r| r.1).sum::<Duration>() < rule.calibration_time
                    && !at_floor
                    && !falling
            }
        }
    }

    /// Records one more timed run of the original input.
    pub(crate) fn record_calibration(&self, verdict: Verdict, elapsed: Duration) {
        let mut s = self.lock();
        s.seen_any = true;
        s.original.push((verdict, elapsed));
        s.calibration_runs += 1;
        Self::observe(&mut s, self.policy, verdict, elapsed);
    }

    /// Takes the original input's runs an earlier run of the same reduction timed (from its
    /// journal) as if they had run here, before any test: they are observed as they were then,
    /// the next test is not taken for the original's, and only the timing runs still missing
    /// run (none, once the earlier run finished timing). Ignored once a test was recorded.
    pub(crate) fn restore(&self, runs: &[OriginalRun]) {
        let mut s = self.lock();
        if s.seen_any || runs.is_empty() {
            return;
        }
        s.seen_any = true;
        for &(verdict, elapsed) in runs {
            s.original.push((verdict, elapsed));
            Self::observe(&mut s, self.policy, verdict, elapsed);
        }
        s.restored = runs.len();
    }

    /// The original input's timed runs so far, and how many of them were restored.
    pub(crate) fn original_runs(&self) -> (Vec<OriginalRun>, usize) {
        let s = self.lock();
        (s.original.clone(), s.restored)
    }

    /// Marks the start of the reduction proper: the limit now is the one the run starts with,
    /// and the shortest and longest limits are counted from here (the original's first test
    /// ran under the generous first limit).
    pub(crate) fn started(&self) -> Duration {
        let mut s = self.lock();
        let limit = self.limit_of(&s);
        s.start = Some(limit);
        s.min = None;
        s.max = None;
        limit
    }

    pub(crate) fn report(&self) -> TimeoutReport {
        let s = self.lock();
        let secs = |d: Option<Duration>| d.map_or(0.0, |d| d.as_secs_f64());
        let end = self.limit_of(&s);
        let (policy, rule) = match self.policy {
            Timeout::Fixed(d) => ("fixed", format!("{} s (--timeout)", d.as_secs_f64())),
            Timeout::Adaptive(rule) => ("adaptive", rule.describe()),
        };
        TimeoutReport {
            policy: policy.to_string(),
            rule,
            start_seconds: secs(s.start.or(Some(end))),
            min_seconds: secs(s.min),
            max_seconds: secs(s.max),
            end_seconds: end.as_secs_f64(),
            calibration_runs: s.calibration_runs,
            original_seconds: s.original.iter().map(|r| r.1.as_secs_f64()).collect(),
        }
    }
}
