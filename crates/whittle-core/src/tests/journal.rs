//! The journal: an interrupted reduction resumed from it ends where an uninterrupted one does and
//! asks the test about no candidate twice; its file survives a line cut short; a journal of
//! another input or test is refused. And the check of a format's rewriting before reducing.

use super::toy::Toy;
use crate::{
    Algorithm, Document, Edits, Format, Journal, JournalError, JournalSpec, Oracle, ParseError,
    ReduceError, Reduction, Verdict,
};
use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

const INPUT: &[u8] = b"a(b c(d e) f) g(h(i j) k) l m(n o(p q) r) s(t u)";

/// Interesting while `e`, `k` and `q` are all there.
fn interesting(bytes: &[u8]) -> bool {
    [b'e', b'k', b'q'].iter().all(|c| bytes.contains(c))
}

/// What one run asked the test: the candidates, in order.
struct Asked {
    candidates: Mutex<Vec<Vec<u8>>>,
    /// Set after this many questions (none: never), as a kill would stop the run there.
    stop_after: Option<usize>,
    stop: AtomicBool,
    calls: AtomicUsize,
}

impl Asked {
    fn new(stop_after: Option<usize>) -> Asked {
        Asked {
            candidates: Mutex::default(),
            stop_after,
            stop: AtomicBool::new(false),
            calls: AtomicUsize::new(0),
        }
    }

    fn list(&self) -> Vec<Vec<u8>> {
        self.candidates.lock().unwrap().clone()
    }
}

impl Oracle for Asked {
    fn test(&self, candidate: &[u8], _: &dyn Fn() -> bool) -> Result<Verdict, crate::OracleError> {
        self.candidates.lock().unwrap().push(candidate.to_vec());
        let n = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        if self.stop_after.is_some_and(|k| n >= k) {
            self.stop.store(true, Ordering::SeqCst);
        }
        Ok(if interesting(candidate) {
            Verdict::Interesting
        } else {
            Verdict::Boring
        })
    }
}

fn spec(dir: &tempfile::TempDir) -> JournalSpec {
    JournalSpec {
        path: dir.path().join("journal"),
        test: "in process".into(),
        ..JournalSpec::default()
    }
}

fn run(asked: &Asked, algorithm: Algorithm, jobs: usize, journal: Option<JournalSpec>) -> Vec<u8> {
    let mut r = Reduction::new(&Toy, asked, INPUT)
        .algorithm(algorithm)
        .jobs(jobs)
        .stop(&asked.stop);
    if let Some(spec) = journal {
        r = r.journal(spec);
    }
    r.run().expect("reduces").best
}

#[test]
fn an_interrupted_reduction_resumed_from_its_journal_ends_alike_and_asks_nothing_twice() {
    for algorithm in [Algorithm::GtrStar, Algorithm::HddStar, Algorithm::Auto] {
        for jobs in [1, 3] {
            let whole = Asked::new(None);
            let expected = run(&whole, algorithm, jobs, None);
            assert!(expected.len() < INPUT.len());
            let total = whole.list().len();
            for stop_after in [3, total / 3, 2 * total / 3] {
                let dir = tempfile::tempdir().unwrap();
                let first = Asked::new(Some(stop_after));
                let partial = run(&first, algorithm, jobs, Some(spec(&dir)));
                // With several jobs the number of questions depends on the speculation, so a
                // late stop point may not be reached; the claims below hold either way.
                assert!(jobs > 1 || first.stop.load(Ordering::SeqCst));
                assert!(partial.len() >= expected.len());
                let second = Asked::new(None);
                let resumed = run(&second, algorithm, jobs, Some(spec(&dir)));
                let what = format!("{algorithm:?} -j {jobs}, stopped after {stop_after}");
                assert_eq!(resumed, expected, "{what}");
                let mut both = first.list();
                both.extend(second.list());
                let distinct: HashSet<&Vec<u8>> = both.iter().collect();
                assert_eq!(
                    distinct.len(),
                    both.len(),
                    "{what}: a candidate asked twice"
                );
                if jobs == 1 {
                    // Sequentially, the two runs ask exactly what the uninterrupted one asks.
                    assert_eq!(both, whole.list(), "{what}");
                }
            }
        }
    }
}

#[test]
fn a_finished_journal_answers_a_whole_rerun_and_the_report_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let first = Asked::new(None);
    let expected = run(&first, Algorithm::GtrStar, 1, Some(spec(&dir)));
    let again = Asked::new(None);
    let reduced = Reduction::new(&Toy, &again, INPUT)
        .algorithm(Algorithm::GtrStar)
        .journal(spec(&dir))
        .run()
        .unwrap();
    assert_eq!(reduced.best, expected);
    assert_eq!(again.list().len(), 0, "every verdict came from the journal");
    let journal = reduced.report.journal.expect("a journal report");
    assert_eq!(journal.verdicts_read, first.list().len());
    assert_eq!(journal.answered as usize, first.list().len());
    assert_eq!(journal.recorded, 0);
    assert_eq!(reduced.report.test_runs, 0);
}

#[test]
fn a_line_cut_short_is_dropped_and_the_journal_goes_on_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec(&dir);
    let asked = Asked::new(None);
    {
        let j = Journal::open(&spec, b"input", &asked).unwrap();
        assert_eq!(j.verdicts_read(), 0);
        assert_eq!(j.test(b"a e k q", &|| false).unwrap(), Verdict::Interesting);
        assert_eq!(j.test(b"a", &|| false).unwrap(), Verdict::Boring);
        assert_eq!(j.recorded(), 2);
    }
    // A kill in the middle of a write.
    let mut text = std::fs::read(&spec.path).unwrap();
    text.extend_from_slice(b"0123abcd");
    std::fs::write(&spec.path, &text).unwrap();
    let j = Journal::open(&spec, b"input", &asked).unwrap();
    assert_eq!(j.verdicts_read(), 2);
    assert_eq!(j.test(b"a", &|| false).unwrap(), Verdict::Boring);
    assert_eq!(j.test(b"q", &|| false).unwrap(), Verdict::Boring);
    assert_eq!((j.answered(), j.recorded()), (1, 1));
    assert_eq!(
        asked.list(),
        vec![b"a e k q".to_vec(), b"a".to_vec(), b"q".to_vec()]
    );
    drop(j);
    let text = std::fs::read_to_string(&spec.path).unwrap();
    assert_eq!(text.lines().count(), 4, "header and three verdicts: {text}");
    assert!(text.ends_with(" b\n"), "{text}");
}

#[test]
fn a_journal_of_another_input_test_or_setting_is_refused_unless_fresh() {
    let dir = tempfile::tempdir().unwrap();
    let asked = Asked::new(None);
    let mut spec = spec(&dir);
    spec.settings.insert("timeout".into(), "60 s".into());
    Journal::open(&spec, b"input", &asked)
        .unwrap()
        .test(b"x", &|| false)
        .unwrap();
    let other_input = Journal::open(&spec, b"another", &asked).err().unwrap();
    assert!(matches!(other_input, JournalError::OtherInput { .. }));
    assert!(
        other_input
            .to_string()
            .contains("belongs to another input (5 bytes")
    );
    let mut other = spec.clone();
    other.test = "another test".into();
    let e = Journal::open(&other, b"input", &asked).err().unwrap();
    assert!(
        e.to_string()
            .contains("another test: `in process`, not `another test`"),
        "{e}"
    );
    let mut other = spec.clone();
    other.settings.insert("timeout".into(), "5 s".into());
    let e = Journal::open(&other, b"input", &asked).err().unwrap();
    assert!(
        e.to_string().contains("another timeout: `60 s`, not `5 s`"),
        "{e}"
    );
    other.fresh = true;
    assert_eq!(
        Journal::open(&other, b"input", &asked)
            .unwrap()
            .verdicts_read(),
        0
    );
    std::fs::write(&spec.path, "not a journal\n").unwrap();
    let e = Journal::open(&spec, b"input", &asked).err().unwrap();
    assert!(matches!(e, JournalError::NotAJournal { .. }), "{e}");
    // Through a reduction, the error stops it before any test.
    let e = Reduction::new(&Toy, &asked, INPUT)
        .journal(spec)
        .run()
        .err()
        .unwrap();
    assert!(matches!(e, ReduceError::Journal(_)));
}

/// The toy format, except that every edited candidate is written in capitals, as a format that
/// re-serializes its input (PDF) writes every candidate differently from the input.
struct Shouting;

impl Format for Shouting {
    fn name(&self) -> &'static str {
        "shouting"
    }
    fn extensions(&self) -> &'static [&'static str] {
        &[]
    }
    fn description(&self) -> &'static str {
        "toy, in capitals once edited"
    }
    fn parse(&self, input: &[u8]) -> Result<Document, ParseError> {
        Toy.parse(&input.to_ascii_lowercase())
    }
    fn render(&self, doc: &Document, edits: &Edits, out: &mut Vec<u8>) {
        Toy.render(doc, edits, out);
        if !edits.is_empty() {
            out.make_ascii_uppercase();
        }
    }
    fn rewriting(&self) -> &'static str {
        "writes candidates in capitals"
    }
}

#[test]
fn a_test_that_rejects_the_formats_rewriting_stops_the_reduction_before_it_begins() {
    let calls = AtomicUsize::new(0);
    let lowercase_k = |b: &[u8]| {
        calls.fetch_add(1, Ordering::SeqCst);
        b.contains(&b'k')
    };
    let e = Reduction::new(&Shouting, &lowercase_k, b"a b(k)")
        .run()
        .err()
        .unwrap();
    let ReduceError::Rewritten {
        format, verdict, ..
    } = &e
    else {
        panic!("{e}");
    };
    assert_eq!((*format, *verdict), ("shouting", Verdict::Boring));
    assert!(
        e.to_string().contains("writes candidates in capitals"),
        "{e}"
    );
    assert_eq!(
        calls.load(Ordering::SeqCst),
        3,
        "the input, the empty file, the rewriting"
    );
    // A test that accepts the rewriting reduces as usual.
    let any_k = |b: &[u8]| b.contains(&b'k') || b.contains(&b'K');
    let reduced = Reduction::new(&Shouting, &any_k, b"a b(k)").run().unwrap();
    assert_eq!(reduced.best, b"K");
}

/// An oracle that "times" the original twice when calibrated and keeps what it is given back.
struct Timing {
    restored: Mutex<Vec<crate::OriginalRun>>,
}

impl Oracle for Timing {
    fn test(&self, _: &[u8], _: &dyn Fn() -> bool) -> Result<Verdict, crate::OracleError> {
        Ok(Verdict::Interesting)
    }

    fn calibrate(
        &self,
        _: &[u8],
        timed: &dyn Fn(&[crate::OriginalRun]) -> Result<(), crate::OracleError>,
    ) -> Result<(), crate::OracleError> {
        let s = std::time::Duration::from_secs_f64;
        timed(&[(Verdict::Interesting, s(0.5))])?;
        timed(&[(Verdict::Interesting, s(0.5)), (Verdict::Timeout, s(1.25))])
    }

    fn restore_timings(&self, original: &[crate::OriginalRun]) {
        self.restored.lock().unwrap().extend_from_slice(original);
    }
}

#[test]
fn the_originals_timed_runs_are_journaled_as_they_end_and_restored_when_it_is_opened_again() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec(&dir);
    let oracle = Timing {
        restored: Mutex::default(),
    };
    {
        let j = Journal::open(&spec, b"input", &oracle).unwrap();
        assert!(j.original_runs().is_empty());
        j.calibrate(b"input", &|_| Ok(())).unwrap();
    }
    assert!(oracle.restored.lock().unwrap().is_empty(), "a new journal");
    let text = std::fs::read_to_string(&spec.path).unwrap();
    let lines: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(
        lines,
        [
            "original 0.500000000i",
            "original 0.500000000i 1.250000000t"
        ]
    );
    // A line this version cannot read (from a newer one, say) is skipped, not fatal.
    std::fs::write(&spec.path, text + "original 3x\n").unwrap();
    let j = Journal::open(&spec, b"input", &oracle).unwrap();
    let s = std::time::Duration::from_secs_f64;
    let expected = [(Verdict::Interesting, s(0.5)), (Verdict::Timeout, s(1.25))];
    assert_eq!(j.original_runs(), expected);
    assert_eq!(j.verdicts_read(), 0, "timings are not verdicts");
    assert_eq!(
        *oracle.restored.lock().unwrap(),
        expected,
        "given before any test"
    );
}
