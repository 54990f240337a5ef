//! Progress lines for a log (standard error not a terminal: CI, nohup, `2> log`): every
//! `--log-every` seconds a line says where the reduction is. A thread prints them, so a line
//! comes on time even while one test runs for a minute; with `--log-every 0` a line follows every
//! test instead.

use crate::messages::duration;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use whittle::Stats;

/// Where the reduction is, as of the latest event.
struct Where {
    start: Instant,
    input_bytes: usize,
    best: usize,
    nodes: usize,
    phase: &'static str,
    stats: Stats,
}

impl Where {
    fn line(&self, now: Instant) -> String {
        let wall = now.duration_since(self.start);
        let s = &self.stats;
        let timed_out = match s.timeouts {
            0 => String::new(),
            n => format!(" ({n} timed out)"),
        };
        format!(
            "whittle: {} {} bytes ({:.1}%), {} nodes, {} tests{timed_out}, {} improvements, {}; {:.2} s per test, {:.0}% of the time in the test",
            duration(wall),
            self.best,
            100.0 * self.best as f64 / self.input_bytes.max(1) as f64,
            self.nodes,
            s.oracle_calls,
            s.improvements,
            self.phase,
            s.oracle_seconds / s.oracle_calls.max(1) as f64,
            100.0 * (s.oracle_busy_seconds / wall.as_secs_f64().max(1e-9)).min(1.0),
        )
    }
}

/// The progress lines of one reduction; the ticker thread stops when this is dropped.
pub(crate) struct LogLines {
    at: Arc<Mutex<Where>>,
    /// With a period: the ticker's stop channel and handle; without: a line after every test.
    ticker: Option<(mpsc::Sender<()>, JoinHandle<()>)>,
}

impl LogLines {
    /// Lines every `every` (after every test if zero) about a reduction of `input_bytes` bytes
    /// and `nodes` nodes that begins now.
    pub(crate) fn start(every: Duration, input_bytes: usize, nodes: usize) -> LogLines {
        let at = Arc::new(Mutex::new(Where {
            start: Instant::now(),
            input_bytes,
            best: input_bytes,
            nodes,
            phase: "tree",
            stats: Stats::default(),
        }));
        let ticker = (!every.is_zero()).then(|| {
            let (stop, stopped) = mpsc::channel::<()>();
            let shared = Arc::clone(&at);
            let handle = std::thread::spawn(move || {
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                    let line = lock(&shared).line(Instant::now());
                    eprintln!("{line}");
                }
            });
            (stop, handle)
        });
        LogLines { at, ticker }
    }

    /// A test ended: the counters, the phase and the tree's size now.
    pub(crate) fn tested(&self, stats: &Stats, phase: &'static str, nodes: usize) {
        let mut at = lock(&self.at);
        at.stats.clone_from(stats);
        at.phase = phase;
        at.nodes = nodes;
        if self.ticker.is_none() {
            eprintln!("{}", at.line(Instant::now()));
        }
    }

    /// A smaller result.
    pub(crate) fn improved(&self, best: usize, stats: &Stats) {
        let mut at = lock(&self.at);
        at.best = best;
        at.stats.clone_from(stats);
    }
}

fn lock(at: &Mutex<Where>) -> std::sync::MutexGuard<'_, Where> {
    at.lock().unwrap_or_else(|e| e.into_inner())
}

impl Drop for LogLines {
    fn drop(&mut self) {
        if let Some((stop, handle)) = self.ticker.take() {
            let _ = stop.send(());
            let _ = handle.join();
        }
    }
}
