//! The journal: every verdict of the test, keyed by the SHA-256 of the candidate, appended to a
//! file as soon as it is known, so that a reduction killed by SIGKILL, a crash or a reboot can be
//! run again without running a test twice.
//!
//! A [`Journal`] is an [`Oracle`] that wraps the real one. Resuming replays the reduction from
//! the original input: the algorithms are deterministic given the verdicts, so a run whose
//! already-judged candidates are answered from the journal takes exactly the path of the run that
//! was killed, and then goes on as an uninterrupted run would. Its result is the same, and the
//! only tests that run again are those that had not finished when the run was killed.
//!
//! The file is text. Its first line is a JSON header (the input's hash and size, the test
//! command, and the settings that change a verdict: the repeat count, the timeout, …); every
//! other line is one verdict, `<sha256 in hex> <i|b|t>` (interesting, boring, timed out), or
//! the original input's timed runs so far, `original <seconds><i|b|t> …` (the last such line
//! counts): the adaptive timeout's calibration, which a resumed run restores instead of running
//! the test on the original again (see [`Oracle::restore_timings`]). A journal of an older
//! whittle without that line is still read; the original is then timed again.
//! A line is written whole with one `write` as soon as the test ends, so a kill loses at most the
//! verdicts of tests that were still running; a line cut short by a crash is dropped when the
//! journal is opened again. The data is synced to disk at most once a second, so a reboot loses
//! at most the last second of verdicts: those tests run again, and the result is still the same.

use crate::oracle::{Oracle, OracleError, OriginalRun, TimeoutReport, Verdict};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The journal format's version; a journal of another version is refused, not misread.
pub const JOURNAL_VERSION: u32 = 1;

/// Where a reduction keeps its journal and what makes a verdict valid: the test command and
/// every setting that changes what the test says. The input's hash is added by the reduction.
#[derive(Clone, Debug, Default)]
pub struct JournalSpec {
    /// The journal file.
    pub path: PathBuf,
    /// The test, as it runs (for the command line: the command after relative paths were made
    /// absolute).
    pub test: String,
    /// Other settings that change verdicts (a timeout, the file name the candidate gets, the
    /// hash of the test script), by name. A journal whose settings differ is refused.
    pub settings: BTreeMap<String, String>,
    /// Start a new journal, dropping the verdicts of an existing one.
    pub fresh: bool,
}

/// Why a journal cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// Reading, creating or writing the file failed.
    #[error("cannot use the journal {path}: {error}")]
    Io {
        /// The journal.
        path: PathBuf,
        /// What failed.
        error: io::Error,
    },
    /// The file is not a journal of this version of whittle.
    #[error("{path} is not a whittle journal (version {JOURNAL_VERSION})")]
    NotAJournal {
        /// The file.
        path: PathBuf,
    },
    /// The journal records verdicts on another input.
    #[error(
        "the journal {path} belongs to another input ({theirs_bytes} bytes, SHA-256 {theirs}), not to this one ({ours_bytes} bytes, SHA-256 {ours})"
    )]
    OtherInput {
        /// The journal.
        path: PathBuf,
        /// The hash of the input it was written for.
        theirs: String,
        /// Its size.
        theirs_bytes: usize,
        /// The hash of this input.
        ours: String,
        /// Its size.
        ours_bytes: usize,
    },
    /// The journal records verdicts of another test, or of the test with other settings.
    #[error("the journal {path} was written for another {what}: `{theirs}`, not `{ours}`")]
    OtherTest {
        /// The journal.
        path: PathBuf,
        /// `test` or the name of the setting that differs.
        what: String,
        /// Its value in the journal.
        theirs: String,
        /// Its value now.
        ours: String,
    },
}

/// The first line of a journal.
#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Header {
    whittle_journal: u32,
    input_sha256: String,
    input_bytes: usize,
    test: String,
    settings: BTreeMap<String, String>,
}

/// Verdicts by the SHA-256 of the candidate.
type Verdicts = HashMap<[u8; 32], Verdict>;

/// An oracle that answers from the verdicts of an earlier run and records every new one.
pub struct Journal<'a> {
    inner: &'a dyn Oracle,
    path: PathBuf,
    /// The verdicts read when the journal was opened.
    known: Verdicts,
    /// The original input's timed runs read when the journal was opened.
    original: Vec<OriginalRun>,
    /// The key of the original input.
    input: [u8; 32],
    /// How many of the original's timed runs the journal holds.
    original_recorded: AtomicUsize,
    /// The file, and when it was last synced to disk.
    file: Mutex<(File, Instant)>,
    answered: AtomicU64,
    recorded: AtomicU64,
}

/// The SHA-256 of `bytes`: the key of a verdict, the same on every machine and in every version.
pub fn content_hash(bytes: &[u8]) -> [u8; 32] {
    let mut key = [0; 32];
    key.copy_from_slice(&Sha256::digest(bytes));
    key
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<[u8; 32]> {
    let mut key = [0; 32];
    if text.len() != 64 {
        return None;
    }
    for (i, k) in key.iter_mut().enumerate() {
        *k = u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(key)
}

impl<'a> Journal<'a> {
    /// Opens the journal of `spec` for a reduction of `input`, reading its verdicts, or starts a
    /// new one (when there is none, or with [`JournalSpec::fresh`]). A journal written for
    /// another input, test or setting is an error.
    pub fn open(
        spec: &JournalSpec,
        input: &[u8],
        inner: &'a dyn Oracle,
    ) -> Result<Journal<'a>, JournalError> {
        let path = spec.path.clone();
        let io_error = |error| JournalError::Io {
            path: path.clone(),
            error,
        };
        let header = Header {
            whittle_journal: JOURNAL_VERSION,
            input_sha256: hex(&content_hash(input)),
            input_bytes: input.len(),
            test: spec.test.clone(),
            settings: spec.settings.clone(),
        };
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&path)
            .map_err(io_error)?;
        let mut text = Vec::new();
        file.read_to_end(&mut text).map_err(io_error)?;
        let (known, original) = if spec.fresh || text.is_empty() {
            file.set_len(0).map_err(io_error)?;
            let line = serde_json::to_string(&header).expect("a header serializes") + "\n";
            file.write_all(line.as_bytes()).map_err(io_error)?;
            (HashMap::new(), Vec::new())
        } else {
            // A line cut short by a crash is dropped, so that the next verdict starts a line.
            let whole = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            if whole < text.len() {
                file.set_len(whole as u64).map_err(io_error)?;
                text.truncate(whole);
            }
            read(&path, &text, &header)?
        };
        file.sync_data().map_err(io_error)?;
        // Before any test: the first test of a resumed run is not the original's.
        inner.restore_timings(&original);
        Ok(Journal {
            inner,
            path,
            known,
            input: content_hash(input),
            original_recorded: AtomicUsize::new(original.len()),
            original,
            file: Mutex::new((file, Instant::now())),
            answered: AtomicU64::new(0),
            recorded: AtomicU64::new(0),
        })
    }

    /// The journal file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Verdicts read from the journal when it was opened (0 for a new journal).
    pub fn verdicts_read(&self) -> usize {
        self.known.len()
    }

    /// Candidates answered from the journal instead of the test.
    pub fn answered(&self) -> u64 {
        self.answered.load(Ordering::Relaxed)
    }

    /// Verdicts written to the journal by this run.
    pub fn recorded(&self) -> u64 {
        self.recorded.load(Ordering::Relaxed)
    }

    /// The original input's timed runs read when the journal was opened (none for a new one).
    pub fn original_runs(&self) -> &[OriginalRun] {
        &self.original
    }

    fn record(&self, key: &[u8; 32], verdict: Verdict) -> io::Result<()> {
        let Some(code) = code(verdict) else {
            return Ok(());
        };
        self.append(&format!("{} {code}\n", hex(key)))?;
        self.recorded.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Records the original input's timed runs so far, if there are new ones (the line replaces
    /// an earlier one).
    fn record_original(&self, runs: &[OriginalRun]) -> io::Result<()> {
        if self
            .original_recorded
            .fetch_max(runs.len(), Ordering::Relaxed)
            >= runs.len()
        {
            return Ok(());
        }
        let mut line = "original".to_string();
        for &(verdict, elapsed) in runs {
            if let Some(code) = code(verdict) {
                line.push_str(&format!(" {:.9}{code}", elapsed.as_secs_f64()));
            }
        }
        line.push('\n');
        self.append(&line)
    }

    fn append(&self, line: &str) -> io::Result<()> {
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        // One write per line, on a file opened for appending: a kill never leaves half a line
        // in the middle of the journal.
        file.0.write_all(line.as_bytes())?;
        if file.1.elapsed() >= Duration::from_secs(1) {
            file.0.sync_data()?;
            file.1 = Instant::now();
        }
        Ok(())
    }
}

/// A verdict's letter in the journal (none for a cancelled test, which is not recorded).
fn code(verdict: Verdict) -> Option<char> {
    match verdict {
        Verdict::Interesting => Some('i'),
        Verdict::Boring => Some('b'),
        Verdict::Timeout => Some('t'),
        Verdict::Cancelled => None,
    }
}

fn verdict_of(code: &str) -> Option<Verdict> {
    match code {
        "i" => Some(Verdict::Interesting),
        "b" => Some(Verdict::Boring),
        "t" => Some(Verdict::Timeout),
        _ => None,
    }
}

/// The runs of an `original` line's words (`0.012345678i`); `None` if one does not read.
fn original_runs<'a>(words: impl Iterator<Item = &'a str>) -> Option<Vec<OriginalRun>> {
    words
        .map(|word| {
            let split = word.len().checked_sub(1)?;
            let verdict = verdict_of(word.get(split..)?)?;
            let seconds: f64 = word.get(..split)?.parse().ok()?;
            Some((verdict, Duration::try_from_secs_f64(seconds).ok()?))
        })
        .collect()
}

/// The verdicts of a journal's text and the original's timed runs, after checking that its
/// header is `ours`.
fn read(
    path: &Path,
    text: &[u8],
    ours: &Header,
) -> Result<(Verdicts, Vec<OriginalRun>), JournalError> {
    let text = String::from_utf8_lossy(text);
    let mut lines = text.lines();
    let theirs: Header = lines
        .next()
        .and_then(|l| serde_json::from_str(l).ok())
        .filter(|h: &Header| h.whittle_journal == JOURNAL_VERSION)
        .ok_or_else(|| JournalError::NotAJournal {
            path: path.to_path_buf(),
        })?;
    if (&theirs.input_sha256, theirs.input_bytes) != (&ours.input_sha256, ours.input_bytes) {
        return Err(JournalError::OtherInput {
            path: path.to_path_buf(),
            theirs: theirs.input_sha256,
            theirs_bytes: theirs.input_bytes,
            ours: ours.input_sha256.clone(),
            ours_bytes: ours.input_bytes,
        });
    }
    let other = |what: &str, theirs: Option<&String>, ours: Option<&String>| {
        let show = |v: Option<&String>| v.map_or("(not set)".to_string(), |v| v.clone());
        JournalError::OtherTest {
            path: path.to_path_buf(),
            what: what.to_string(),
            theirs: show(theirs),
            ours: show(ours),
        }
    };
    if theirs.test != ours.test {
        return Err(other("test", Some(&theirs.test), Some(&ours.test)));
    }
    let keys: std::collections::BTreeSet<&String> =
        theirs.settings.keys().chain(ours.settings.keys()).collect();
    for key in keys {
        let (t, o) = (theirs.settings.get(key), ours.settings.get(key));
        if t != o {
            return Err(other(key, t, o));
        }
    }
    let mut known = HashMap::new();
    let mut original = Vec::new();
    for line in lines {
        let Some((key, code)) = line.split_once(' ') else {
            continue;
        };
        if key == "original" {
            if let Some(runs) = original_runs(code.split(' ')) {
                original = runs;
            }
            continue;
        }
        let Some(verdict) = verdict_of(code) else {
            continue;
        };
        if let Some(key) = unhex(key) {
            known.insert(key, verdict);
        }
    }
    Ok((known, original))
}

impl Oracle for Journal<'_> {
    fn test(&self, candidate: &[u8], cancel: &dyn Fn() -> bool) -> Result<Verdict, OracleError> {
        let key = content_hash(candidate);
        if let Some(&verdict) = self.known.get(&key) {
            self.answered.fetch_add(1, Ordering::Relaxed);
            return Ok(verdict);
        }
        let verdict = self.inner.test(candidate, cancel)?;
        self.record(&key, verdict)?;
        if key == self.input {
            // The original's first timing, before anything else runs: a run killed in the test
            // of the empty file must not time the original again either.
            self.record_original(&self.inner.original_runs())?;
        }
        Ok(verdict)
    }

    /// Past the journal too: a re-test asks the test itself, and its verdict is the one kept.
    fn retest(&self, candidate: &[u8], cancel: &dyn Fn() -> bool) -> Result<Verdict, OracleError> {
        let verdict = self.inner.retest(candidate, cancel)?;
        self.record(&content_hash(candidate), verdict)?;
        Ok(verdict)
    }

    /// The wrapped test times the original (the runs the journal restored when it was opened
    /// count), and every new timed run is recorded as it ends.
    fn calibrate(
        &self,
        input: &[u8],
        timed: &dyn Fn(&[OriginalRun]) -> Result<(), OracleError>,
    ) -> Result<(), OracleError> {
        self.inner.calibrate(input, &|runs| {
            self.record_original(runs)?;
            timed(runs)
        })
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
}

impl Drop for Journal<'_> {
    fn drop(&mut self) {
        let file = self.file.get_mut().unwrap_or_else(|e| e.into_inner());
        let _ = file.0.sync_data();
    }
}
