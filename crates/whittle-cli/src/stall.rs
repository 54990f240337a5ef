//! A run that is stuck says so: after many tests in a row without an improvement (`--stall-after`,
//! then twice as many, …) or ten minutes without one, a message says how many of those tests
//! timed out, how many candidates the gate rejected and how long a test takes, so that a user
//! can tell a slow test from a test that rejects everything.

use crate::messages::duration;
use std::time::{Duration, Instant};
use whittle::Stats;

/// Time without an improvement after which the message comes even with few tests (and again
/// after as long once more).
const STALL_TIME: Duration = Duration::from_secs(600);

/// The counters at the last improvement, and when the next message is due.
pub(crate) struct Stall {
    after: u64,
    since: Instant,
    calls: u64,
    timeouts: u64,
    gate_rejections: u64,
    oracle_seconds: f64,
    timed_out_seconds: f64,
    /// Tests since the last improvement after which the next message comes.
    next_tests: u64,
    /// Time since the last improvement after which the next message comes.
    next_time: Duration,
}

impl Stall {
    /// A detector that speaks after `after` tests without an improvement, counting from `now`.
    pub(crate) fn new(after: u64, now: Instant) -> Stall {
        Stall {
            after: after.max(1),
            since: now,
            calls: 0,
            timeouts: 0,
            gate_rejections: 0,
            oracle_seconds: 0.0,
            timed_out_seconds: 0.0,
            next_tests: after.max(1),
            next_time: STALL_TIME,
        }
    }

    pub(crate) fn after(&self) -> u64 {
        self.after
    }

    /// An improvement: counting starts again.
    pub(crate) fn improved(&mut self, stats: &Stats, now: Instant) {
        *self = Stall {
            since: now,
            calls: stats.oracle_calls,
            timeouts: stats.timeouts,
            gate_rejections: stats.gate_rejections,
            oracle_seconds: stats.oracle_seconds,
            timed_out_seconds: stats.timed_out_seconds,
            ..Stall::new(self.after, now)
        };
    }

    /// The message, if one is due now: `stats` are the counters after the latest test, `best`
    /// the size of the best result.
    pub(crate) fn check(&mut self, stats: &Stats, best: usize, now: Instant) -> Option<String> {
        let tests = stats.oracle_calls.saturating_sub(self.calls);
        let waited = now.duration_since(self.since);
        if tests == 0 || (tests < self.next_tests && waited < self.next_time) {
            return None;
        }
        while self.next_tests <= tests {
            self.next_tests *= 2;
        }
        while self.next_time <= waited {
            self.next_time += STALL_TIME;
        }
        let timeouts = stats.timeouts.saturating_sub(self.timeouts);
        let rejected = stats.gate_rejections.saturating_sub(self.gate_rejections);
        let seconds = (stats.oracle_seconds - self.oracle_seconds).max(0.0);
        let lost = (stats.timed_out_seconds - self.timed_out_seconds).max(0.0);
        let mut msg = format!(
            "whittle: no improvement in the last {tests} tests ({}): {timeouts} timed out ({}), the gate rejected {rejected} more candidates, a test took {:.2} s on average; the best is still {best} bytes.",
            duration(waited),
            duration(Duration::from_secs_f64(lost)),
            seconds / tests as f64,
        );
        msg.push_str(if timeouts * 2 > tests {
            " Most tests time out: the candidates make the test hang, or the timeout is too short for it."
        } else {
            " The test rejects these candidates: the reduction is still searching, or the test depends on something every candidate changes (run it on the output file to see)."
        });
        Some(msg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(calls: u64, timeouts: u64, rejections: u64, seconds: f64) -> Stats {
        Stats {
            oracle_calls: calls,
            timeouts,
            gate_rejections: rejections,
            oracle_seconds: seconds,
            timed_out_seconds: timeouts as f64,
            ..Stats::default()
        }
    }

    #[test]
    fn speaks_after_n_tests_without_improvement_then_after_twice_as_many() {
        let t0 = Instant::now();
        let mut stall = Stall::new(100, t0);
        assert_eq!(stall.check(&stats(99, 0, 0, 9.9), 50, t0), None);
        let msg = stall.check(&stats(100, 0, 7, 10.0), 50, t0).unwrap();
        assert!(msg.contains("last 100 tests"), "{msg}");
        assert!(msg.contains("the gate rejected 7 more"), "{msg}");
        assert!(msg.contains("0.10 s on average"), "{msg}");
        assert!(msg.contains("still 50 bytes"), "{msg}");
        assert!(msg.contains("rejects these candidates"), "{msg}");
        assert_eq!(stall.check(&stats(150, 0, 7, 15.0), 50, t0), None);
        assert!(stall.check(&stats(200, 0, 7, 20.0), 50, t0).is_some());
    }

    #[test]
    fn an_improvement_starts_the_count_again_and_timeouts_are_named() {
        let t0 = Instant::now();
        let mut stall = Stall::new(10, t0);
        stall.improved(&stats(1000, 5, 40, 100.0), t0);
        assert_eq!(stall.check(&stats(1009, 9, 40, 101.0), 9, t0), None);
        let msg = stall.check(&stats(1010, 12, 41, 170.0), 9, t0).unwrap();
        assert!(msg.contains("last 10 tests"), "{msg}");
        assert!(msg.contains("7 timed out (7.0 s)"), "{msg}");
        assert!(msg.contains("rejected 1 more"), "{msg}");
        assert!(msg.contains("Most tests time out"), "{msg}");
    }

    #[test]
    fn ten_minutes_without_improvement_is_a_stall_even_with_few_tests() {
        let t0 = Instant::now();
        let mut stall = Stall::new(500, t0);
        let later = t0 + Duration::from_secs(601);
        assert_eq!(
            stall.check(&stats(0, 0, 0, 0.0), 9, later),
            None,
            "no test yet"
        );
        let msg = stall.check(&stats(3, 3, 0, 600.0), 9, later).unwrap();
        assert!(msg.contains("last 3 tests (10 min 01 s)"), "{msg}");
        assert_eq!(stall.check(&stats(4, 4, 0, 800.0), 9, later), None);
        assert!(
            stall
                .check(&stats(5, 5, 0, 1200.0), 9, t0 + Duration::from_secs(1201))
                .is_some()
        );
    }
}
