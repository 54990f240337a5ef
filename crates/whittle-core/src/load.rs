//! How busy the machine's processors are, so that the test pool starts speculative tests only
//! while some processor has time for them (as `make -l` starts jobs only below a load).
//!
//! With more workers than processors (`-j 64` here, or a cluster whose tests still cost this
//! machine a process start each), every speculative test takes processor time from the tests
//! that decide the next step: past the point where the processors are all busy, more of them
//! make the reduction slower. So the pool's room for speculative tests ([`Load::room`]) shrinks
//! while the processors are busy and grows back while they idle, never below the number of
//! processors (with `-j` at most that, it is always `-j`). What runs is never changed, only how
//! far ahead: the output is the same either way.
//!
//! The load is read from the first line of `/proc/stat` (Linux), at most every
//! [`Load::INTERVAL`]; where there is none, the room stays `-j`, and so it does for an oracle
//! that starts no process (an in-process predicate: the library's callers, the engine's tests). The line's format is one of the
//! kernel's stable interfaces and the sum is a few lines, so no crate is used for it.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The room for speculative tests of a pool of `-j` workers (see the module doc).
pub(crate) struct Load {
    jobs: usize,
    /// The room never goes below this: the number of processors, at most `jobs`.
    floor: usize,
    room: AtomicUsize,
    /// The last reading: when, and the processors' busy and total time then.
    last: Mutex<Option<(Instant, Times)>>,
}

/// Busy and total processor time since boot, in the kernel's ticks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Times {
    pub(crate) busy: u64,
    pub(crate) total: u64,
}

/// Above this share of busy processor time the room shrinks; below [`IDLE`] it grows.
const BUSY: f64 = 0.9;
const IDLE: f64 = 0.75;

impl Load {
    /// How often the load is read.
    pub(crate) const INTERVAL: Duration = Duration::from_millis(250);

    /// The room of a pool of `jobs` workers; without `aware` (tests that start no process, or
    /// no `/proc/stat` to read) it is always `jobs`.
    pub(crate) fn new(jobs: usize, aware: bool) -> Load {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let readable = aware && read_times().is_some();
        Load {
            jobs,
            floor: if readable { cores.min(jobs) } else { jobs },
            room: AtomicUsize::new(jobs),
            last: Mutex::new(None),
        }
    }

    /// How many tests may run at once when the one to start is speculative.
    pub(crate) fn room(&self) -> usize {
        if self.floor >= self.jobs {
            return self.jobs;
        }
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        let due = last.is_none_or(|(at, _)| now.duration_since(at) >= Load::INTERVAL);
        if let Some(times) = due.then(read_times).flatten() {
            if let Some((_, before)) = *last {
                let room = self.room.load(Ordering::Relaxed);
                let next = next_room(room, busy_share(before, times), self.jobs, self.floor);
                self.room.store(next, Ordering::Relaxed);
            }
            *last = Some((now, times));
        }
        self.room.load(Ordering::Relaxed)
    }

    /// Whether the processors have time to spare while `running()` holds: their busy share over
    /// the first readings that cover [`Load::SAMPLE_TICKS`] ticks of processor time (at most
    /// [`Load::SAMPLE`]) is below [`IDLE`]. `true` at once where the room is always `-j` (no more
    /// workers than processors, or no load to read); `false` if `running()` ends before the
    /// sample is taken.
    pub(crate) fn spare_while(&self, running: &dyn Fn() -> bool) -> bool {
        if self.floor >= self.jobs {
            return true;
        }
        let (started, Some(before)) = (Instant::now(), read_times()) else {
            return true;
        };
        loop {
            if !running() {
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
            let Some(after) = read_times() else {
                return false;
            };
            if sampled(before, after, started.elapsed()) {
                return running() && busy_share(before, after).is_some_and(|b| b < IDLE);
            }
        }
    }

    /// Whether there are more workers than processors to run them (and a load to read): the
    /// tests then wait on something else than this machine's processors (a cluster, a remote
    /// machine, a sleep), and work done ahead in whittle itself takes no processor from them.
    pub(crate) fn oversubscribed(&self) -> bool {
        self.floor < self.jobs
    }

    /// How long [`Load::spare_while`] watches the processors at most.
    pub(crate) const SAMPLE: Duration = Duration::from_millis(100);
    /// How many ticks of processor time (all processors' together, 100 a second each) make a
    /// sample: about 30 ms on 2 processors, 10 ms (one reading) from 6 on. The sample delays the
    /// opening's tests, and every round of a reduction waits on those: on the 2 000-line
    /// sleeping case, `ddmin` with a fixed 100 ms took 5.77 s at `-j 32` and 8.95 s at `-j 8`,
    /// with this sample 5.67 and 8.77 s (medians of 4, alternating).
    pub(crate) const SAMPLE_TICKS: u64 = 6;
}

/// Whether the readings `before` and `after`, `elapsed` apart, make a sample of the load
/// ([`Load::spare_while`]): enough ticks between them for a share, or the longest wait.
pub(crate) fn sampled(before: Times, after: Times, elapsed: Duration) -> bool {
    after.total.saturating_sub(before.total) >= Load::SAMPLE_TICKS || elapsed >= Load::SAMPLE
}

/// The share of the processors' time spent busy between two readings (`None` if no time
/// passed).
pub(crate) fn busy_share(before: Times, after: Times) -> Option<f64> {
    let total = after.total.checked_sub(before.total)?;
    let busy = after.busy.checked_sub(before.busy)?;
    (total > 0).then(|| busy as f64 / total as f64)
}

/// The room after a reading: a quarter less while the processors are busy (down to `floor`),
/// one sixteenth of `jobs` more while they idle (up to `jobs`), the same in between.
pub(crate) fn next_room(room: usize, busy: Option<f64>, jobs: usize, floor: usize) -> usize {
    match busy {
        Some(b) if b >= BUSY => room.saturating_sub((room / 4).max(1)).max(floor),
        Some(b) if b < IDLE => (room + (jobs / 16).max(1)).min(jobs),
        _ => room,
    }
}

fn read_times() -> Option<Times> {
    parse_times(&std::fs::read_to_string("/proc/stat").ok()?)
}

/// The processors' times from `/proc/stat`'s first line, `cpu  user nice system idle iowait irq
/// softirq steal …` (guest time is already counted in user time): busy is all but idle and
/// iowait.
pub(crate) fn parse_times(stat: &str) -> Option<Times> {
    let line = stat.lines().next()?;
    let mut fields = line.split_ascii_whitespace();
    if fields.next()? != "cpu" {
        return None;
    }
    let ticks: Vec<u64> = fields
        .take(8)
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    if ticks.len() < 5 {
        return None;
    }
    let total: u64 = ticks.iter().sum();
    let idle = ticks[3] + ticks[4];
    Some(Times {
        busy: total - idle,
        total,
    })
}
