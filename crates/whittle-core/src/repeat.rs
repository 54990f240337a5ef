//! `--repeat K`: tests that do not always say the same thing (a crash that shows up on some runs
//! only). Each candidate gets up to K runs and is interesting as soon as one run says so; the
//! final result is run K times more, so the user learns how reliably it reproduces.

use crate::oracle::{Oracle, OracleError, OriginalRun, TimeoutReport, Verdict};
use std::sync::atomic::{AtomicU64, Ordering};

/// An oracle that asks `inner` up to `times` times per candidate.
pub struct Repeat<'a> {
    inner: &'a dyn Oracle,
    times: usize,
    runs: AtomicU64,
}

impl<'a> Repeat<'a> {
    /// `inner`, asked up to `times` (at least once) per candidate.
    pub fn new(inner: &'a dyn Oracle, times: usize) -> Repeat<'a> {
        Repeat {
            inner,
            times: times.max(1),
            runs: AtomicU64::new(0),
        }
    }

    /// How many times the inner test ran in all.
    pub fn runs(&self) -> u64 {
        self.runs.load(Ordering::Relaxed)
    }

    /// Runs the inner test `times` times on `candidate` (all of them, not stopping at the first
    /// interesting one) and returns how many said interesting.
    pub fn recheck(&self, candidate: &[u8]) -> Result<usize, OracleError> {
        let mut interesting = 0;
        for _ in 0..self.times {
            self.runs.fetch_add(1, Ordering::Relaxed);
            if self.inner.retest(candidate, &|| false)? == Verdict::Interesting {
                interesting += 1;
            }
        }
        Ok(interesting)
    }
}

impl Oracle for Repeat<'_> {
    fn calibrate(
        &self,
        input: &[u8],
        timed: &dyn Fn(&[OriginalRun]) -> Result<(), OracleError>,
    ) -> Result<(), OracleError> {
        self.inner.calibrate(input, timed)
    }

    fn restore_timings(&self, original: &[OriginalRun]) {
        self.inner.restore_timings(original);
    }

    fn expect_original(&self, input: &[u8]) -> bool {
        self.inner.expect_original(input)
    }

    fn original_runs(&self) -> Vec<OriginalRun> {
        self.inner.original_runs()
    }

    fn timeout_report(&self) -> Option<TimeoutReport> {
        self.inner.timeout_report()
    }

    fn starts_processes(&self) -> bool {
        self.inner.starts_processes()
    }

    fn test(&self, candidate: &[u8], cancel: &dyn Fn() -> bool) -> Result<Verdict, OracleError> {
        let mut last = Verdict::Boring;
        for run in 0..self.times {
            self.runs.fetch_add(1, Ordering::Relaxed);
            // The first run may be answered by the oracle's own cache; the repeats must reach
            // the test.
            last = if run == 0 {
                self.inner.test(candidate, cancel)?
            } else {
                self.inner.retest(candidate, cancel)?
            };
            if matches!(last, Verdict::Interesting | Verdict::Cancelled) {
                break;
            }
        }
        Ok(last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// Interesting on every `period`-th call only.
    struct EveryNth {
        period: usize,
        calls: AtomicUsize,
    }

    impl Oracle for EveryNth {
        fn test(&self, _: &[u8], _: &dyn Fn() -> bool) -> Result<Verdict, OracleError> {
            let n = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
            Ok(if n.is_multiple_of(self.period) {
                Verdict::Interesting
            } else {
                Verdict::Boring
            })
        }
    }

    #[test]
    fn a_candidate_is_interesting_if_one_of_k_runs_says_so() {
        let flaky = EveryNth {
            period: 3,
            calls: AtomicUsize::new(0),
        };
        let once = Repeat::new(&flaky, 1);
        assert_eq!(once.test(b"x", &|| false).unwrap(), Verdict::Boring);
        let thrice = Repeat::new(&flaky, 3);
        // Calls 2 and 3 of the inner oracle: the third is interesting, so it stops there.
        assert_eq!(thrice.test(b"x", &|| false).unwrap(), Verdict::Interesting);
        assert_eq!(thrice.runs(), 2);
        assert_eq!(flaky.calls.load(Ordering::Relaxed), 3);
    }

    #[test]
    fn a_boring_candidate_costs_k_runs_and_the_recheck_counts_every_run() {
        let never = |_: &[u8]| false;
        let r = Repeat::new(&never, 4);
        assert_eq!(r.test(b"x", &|| false).unwrap(), Verdict::Boring);
        assert_eq!(r.runs(), 4);
        let flaky = EveryNth {
            period: 2,
            calls: AtomicUsize::new(0),
        };
        assert_eq!(Repeat::new(&flaky, 5).recheck(b"x").unwrap(), 2);
        assert_eq!(
            Repeat::new(&flaky, 0).recheck(b"x").unwrap(),
            1,
            "K is at least 1"
        );
    }
}
