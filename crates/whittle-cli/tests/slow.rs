//! End-to-end tests of slow and stuck runs: resuming after SIGKILL with the journal, the check of
//! the format's rewriting before reducing, and the progress lines and stall message of a run
//! whose standard error is a file.

use std::collections::HashSet;
use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::util::{Case, require, stderr};

/// Sixty numbered lines; the test wants two of them.
fn rows() -> String {
    (0..60).map(|i| format!("row {i}\n")).collect()
}

/// The test: counts its runs in `runs`; on the run numbered in `kill-at` (if that file exists)
/// kills whittle (its pid is in `whittle.pid`) with SIGKILL and ends without a verdict;
/// otherwise logs the SHA-256 of its candidate in `seen` and is interesting while the candidate
/// has `row 7` and `row 23`. It runs in a scratch directory, so it names the case's files by
/// absolute path.
fn counting_test(case: &Case) {
    counting_test_after(case, "");
}

/// [`counting_test`], with `first` run at the start of each test that is not killed.
fn counting_test_after(case: &Case, first: &str) {
    let d = case.dir.path().display();
    case.script(
        "t.sh",
        &format!(
            r#"n=$(( $(cat {d}/runs 2>/dev/null || echo 0) + 1 ))
echo $n > {d}/runs
if [ -f {d}/kill-at ] && [ "$n" -eq "$(cat {d}/kill-at)" ]; then
  while [ ! -s {d}/whittle.pid ]; do sleep 0.01; done
  kill -KILL "$(cat {d}/whittle.pid)"
  exit 1
fi
{first}
sha256sum < "$1" | cut -c1-64 >> {d}/seen
grep -qx 'row 7' "$1" && grep -qx 'row 23' "$1""#
        ),
    );
    case.write("in.txt", &rows());
}

/// A fixed timeout: the test's runs are then exactly the candidates' (no extra runs of the
/// original to time it).
const REDUCE: [&str; 8] = [
    "reduce",
    "in.txt",
    "--test",
    "./t.sh",
    "-j",
    "1",
    "--timeout",
    "60",
];

#[test]
fn a_run_killed_with_sigkill_resumes_to_the_same_result_without_testing_a_candidate_twice() {
    // The uninterrupted run.
    let whole = Case::new();
    counting_test(&whole);
    let out = whole.whittle(&REDUCE);
    assert!(out.status.success(), "{}", stderr(&out));
    let expected = fs::read_to_string(whole.path("in.reduced.txt")).unwrap();
    assert_eq!(expected, "row 7\nrow 23\n");
    let all = whole.lines("seen");
    let distinct: HashSet<&String> = all.iter().collect();
    assert_eq!(
        distinct.len(),
        all.len(),
        "one run tests no candidate twice"
    );
    assert!(
        !whole.path("in.reduced.txt.journal").exists(),
        "a finished run removes its journal"
    );

    // The same run, killed by its own test on the run half-way through, then run again.
    let case = Case::new();
    counting_test(&case);
    // Three quarters of the way: GTR* first tries each line in place of the whole file, so
    // the improvements come in the second half.
    let kill_at = 3 * all.len() / 4;
    assert_eq!(killed_at(&case, &REDUCE, kill_at), kill_at);
    let before_kill = case.lines("seen");
    assert_eq!(before_kill.len(), kill_at - 1);
    let partial = fs::read(case.path("in.reduced.txt")).expect("a result before the kill");
    assert!(partial.len() < rows().len(), "improvements before the kill");
    let journal = case.path("in.reduced.txt.journal");
    assert!(journal.exists());

    let resumed = case.whittle(&REDUCE);
    let err = stderr(&resumed);
    assert!(resumed.status.success(), "{err}");
    assert!(err.contains("resuming with the journal"), "{err}");
    assert!(
        err.contains(&format!("it held {} verdicts", kill_at - 1)),
        "{err}"
    );
    assert_eq!(
        fs::read_to_string(case.path("in.reduced.txt")).unwrap(),
        expected,
        "the same result as the uninterrupted run"
    );
    let seen = case.lines("seen");
    let after_kill = &seen[before_kill.len()..];
    let mut both: Vec<&String> = seen.iter().collect();
    both.sort();
    let mut uninterrupted: Vec<&String> = all.iter().collect();
    uninterrupted.sort();
    assert_eq!(
        both, uninterrupted,
        "the two runs together test exactly the uninterrupted run's candidates, each once"
    );
    assert_eq!(after_kill.len(), all.len() - (kill_at - 1));
    assert!(!journal.exists(), "the finished run removes the journal");
}

/// Runs `args` with the test of `case`, killed by the test on its run numbered `kill_at`, and
/// returns how many times the test ran before the kill.
fn killed_at(case: &Case, args: &[&str], kill_at: usize) -> usize {
    case.write("kill-at", &kill_at.to_string());
    let child = case
        .command(args)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    case.write("whittle.pid", &child.id().to_string());
    let killed = child.wait_with_output().unwrap();
    assert_eq!(killed.status.signal(), Some(9), "{}", stderr(&killed));
    fs::remove_file(case.path("kill-at")).unwrap();
    runs(case)
}

/// How many times the test of `case` ran (each run counts itself first).
fn runs(case: &Case) -> usize {
    fs::read_to_string(case.path("runs")).map_or(0, |n| n.trim().parse().unwrap())
}

#[test]
fn a_resumed_run_with_the_adaptive_timeout_takes_the_originals_timing_from_the_journal() {
    // The default adaptive timeout times the original input, running it again until it ran five
    // times or for 1 s in all. The original's test here takes over a second (the candidates'
    // take milliseconds), so it is timed exactly once, by the first test, on any machine: the
    // count of test runs does not depend on the machine's speed.
    let slow_original = r#"[ "$(wc -l < "$1")" -eq 60 ] && sleep 1.1"#;
    let args = ["reduce", "in.txt", "--test", "./t.sh", "-j", "1"];
    let whole = Case::new();
    counting_test_after(&whole, slow_original);
    let out = whole.whittle(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let expected = fs::read_to_string(whole.path("in.reduced.txt")).unwrap();
    assert_eq!(expected, "row 7\nrow 23\n");
    let uninterrupted = runs(&whole);
    assert_eq!(uninterrupted, whole.lines("seen").len());

    // Killed by its own test in the test of the empty file (the second, after the original's),
    // at the first candidate, and in the middle of the reduction; then run again. Only the test that was running at the kill runs twice: a
    // resumed run does not run the test on the original again to time it (it used to, once
    // per timing run the killed run had made: here once more).
    for kill_at in [2, 3, uninterrupted / 2] {
        let case = Case::new();
        counting_test_after(&case, slow_original);
        assert_eq!(killed_at(&case, &args, kill_at), kill_at);
        let journal = fs::read_to_string(case.path("in.reduced.txt.journal")).unwrap();
        let original = journal
            .lines()
            .find(|l| l.starts_with("original "))
            .unwrap_or_else(|| panic!("the original's timing is journaled: {journal}"));
        assert_eq!(original.split(' ').count(), 2, "one timed run: {original}");
        let resumed = case.whittle(&args);
        let err = stderr(&resumed);
        assert!(resumed.status.success(), "{err}");
        assert!(err.contains("resuming with the journal"), "{err}");
        assert_eq!(
            runs(&case),
            uninterrupted + 1,
            "killed at run {kill_at}: only the test running at the kill ran again"
        );
        assert_eq!(
            fs::read_to_string(case.path("in.reduced.txt")).unwrap(),
            expected
        );
        let mut seen = case.lines("seen");
        let mut all = whole.lines("seen");
        seen.sort();
        all.sort();
        assert_eq!(seen, all, "the same tests as the uninterrupted run");
    }
}

#[test]
fn a_resumed_run_at_two_jobs_ends_where_an_uninterrupted_one_does_and_keeps_the_better_file() {
    let case = Case::new();
    counting_test(&case);
    let args = [
        "reduce",
        "in.txt",
        "--test",
        "./t.sh",
        "-j",
        "2",
        "--timeout",
        "60",
    ];
    let mut child = case
        .command(&args)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Killed from outside once the result has shrunk twice (by whatever the test was doing).
    let out = case.path("in.reduced.txt");
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut sizes = HashSet::new();
    while Instant::now() < deadline && sizes.len() < 3 {
        if let Ok(b) = fs::read(&out) {
            sizes.insert(b.len());
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let runs_before = case.lines("seen").len();
    let journal_lines = fs::read_to_string(case.path("in.reduced.txt.journal"))
        .map_or(0, |j| j.lines().count().saturating_sub(1));
    assert!(journal_lines > 0, "the killed run journaled its verdicts");
    // The resumed run's result is never larger than what the killed run left, at any moment:
    // the file only changes to smaller results.
    let left = fs::read(&out).unwrap();
    let resumed = case.whittle(&args);
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    let result = fs::read(&out).unwrap();
    assert_eq!(result, b"row 7\nrow 23\n");
    assert!(result.len() <= left.len());
    let seen = case.lines("seen");
    let distinct: HashSet<&String> = seen.iter().collect();
    // Only tests still running at the kill can run twice: at most one per job.
    assert!(
        seen.len() - distinct.len() <= 2,
        "{} tests, {} distinct candidates",
        seen.len(),
        distinct.len()
    );
    assert!(seen.len() > runs_before);
}

#[test]
fn a_journal_of_another_input_or_test_is_refused_and_fresh_starts_over() {
    let case = Case::new();
    counting_test(&case);
    let journal = case.path("in.reduced.txt.journal");
    // A run interrupted by its test's kill leaves a journal behind.
    killed_at(&case, &REDUCE, 5);
    assert!(journal.exists());

    let other_test = case.whittle(&[
        "reduce",
        "in.txt",
        "--test",
        "./t.sh",
        "-j",
        "1",
        "--timeout",
        "30",
    ]);
    let err = stderr(&other_test);
    assert_eq!(other_test.status.code(), Some(2), "{err}");
    assert!(err.contains("was written for another timeout"), "{err}");
    assert!(err.contains("--fresh"), "{err}");

    let text = rows().replace("row 59\n", "");
    case.write("in.txt", &text);
    let other_input = case.whittle(&REDUCE);
    let err = stderr(&other_input);
    assert_eq!(other_input.status.code(), Some(2), "{err}");
    assert!(err.contains("belongs to another input"), "{err}");

    let fresh = case.whittle(&[
        "reduce",
        "in.txt",
        "--test",
        "./t.sh",
        "-j",
        "1",
        "--timeout",
        "60",
        "--fresh",
    ]);
    let err = stderr(&fresh);
    assert!(fresh.status.success(), "{err}");
    assert!(!err.contains("resuming"), "{err}");
    assert_eq!(
        fs::read_to_string(case.path("in.reduced.txt")).unwrap(),
        "row 7\nrow 23\n"
    );
}

#[test]
fn a_test_that_rejects_the_formats_rewriting_stops_before_reducing_with_status_2() {
    require("qpdf", "qpdf");
    let case = Case::new();
    case.copy("pdf/encrypted-rc4.pdf", "enc.pdf");
    // The test: the file is still encrypted (qpdf --is-encrypted exits 0 only then). With
    // --pdf-decrypt every PDF whittle writes is decrypted, so no candidate can pass.
    let runs = case.path("runs");
    case.script(
        "still-encrypted.sh",
        &format!(r#"echo x >> {}; qpdf --is-encrypted "$1""#, runs.display()),
    );
    let out = case.whittle(&[
        "reduce",
        "enc.pdf",
        "--pdf-decrypt",
        "--test",
        "./still-encrypted.sh",
        "-j",
        "1",
        "--timeout",
        "60",
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("writes every candidate decrypted"), "{err}");
    assert!(err.contains("--lang lines"), "{err}");
    assert!(err.contains("nothing was written"), "{err}");
    assert!(!case.path("enc.reduced.pdf").exists());
    assert!(!case.path("enc.reduced.pdf.journal").exists());
    // The input, the empty file and the rewriting: three tests, not thousands (with a fixed
    // timeout, nothing else runs the test).
    assert_eq!(fs::read_to_string(&runs).unwrap().lines().count(), 3);

    // The way out the message names: as lines, the bytes stay as they were.
    let lines = case.whittle(&[
        "reduce",
        "enc.pdf",
        "--test",
        "./still-encrypted.sh",
        "-j",
        "1",
        "--lang",
        "lines",
        "-a",
        "ddmin",
        "-o",
        "enc.lines.pdf",
    ]);
    assert!(lines.status.success(), "{}", stderr(&lines));
    let status = Command::new("qpdf")
        .arg("--is-encrypted")
        .arg(case.path("enc.lines.pdf"))
        .status()
        .unwrap();
    assert!(status.success());

    // Without --pdf-decrypt, candidates keep the input's encryption: the rewriting passes the
    // test and the PDF reduces, still encrypted.
    let kept = case.whittle(&[
        "reduce",
        "enc.pdf",
        "--test",
        "./still-encrypted.sh",
        "-j",
        "1",
        "--timeout",
        "60",
        "-o",
        "enc.kept.pdf",
    ]);
    assert!(kept.status.success(), "{}", stderr(&kept));
    let (before, after) = (
        fs::metadata(case.path("enc.pdf")).unwrap().len(),
        fs::metadata(case.path("enc.kept.pdf")).unwrap().len(),
    );
    assert!(after < before, "{after} of {before} bytes");
    let status = Command::new("qpdf")
        .arg("--is-encrypted")
        .arg(case.path("enc.kept.pdf"))
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn a_run_into_a_file_prints_progress_lines_and_says_when_it_is_stuck() {
    let case = Case::new();
    case.write("in.txt", &rows());
    // Interesting while `row 7` and `row 23` are there; a candidate with `row 7` only hangs.
    case.script(
        "t.sh",
        r#"grep -qx 'row 7' "$1" && ! grep -qx 'row 23' "$1" && sleep 5
grep -qx 'row 7' "$1" && grep -qx 'row 23' "$1""#,
    );
    let log = case.path("log.txt");
    let status = case
        .command(&[
            "reduce",
            "in.txt",
            "--test",
            "./t.sh",
            "-j",
            "1",
            "-a",
            "ddmin",
            "--log-every",
            "0",
            "--stall-after",
            "4",
            "--timeout",
            "0.5",
        ])
        .stderr(fs::File::create(&log).unwrap())
        .status()
        .unwrap();
    let text = fs::read_to_string(&log).unwrap();
    assert!(status.success(), "{text}");
    assert!(
        text.contains("whittle: reducing in.txt (410 bytes, 61 nodes, lines)"),
        "{text}"
    );
    let progress: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(" tests") && l.contains("s per test"))
        .collect();
    assert!(progress.len() >= 5, "{text}");
    // After the line that says the reduction begins, one line per test (--log-every 0), with the
    // size going down and the phase.
    let start = text.find("whittle: reducing").unwrap();
    assert!(!text[..start].contains("s per test"), "{text}");
    let sizes: Vec<usize> = progress
        .iter()
        .map(|l| {
            let bytes = l.split(" bytes (").next().unwrap();
            bytes.rsplit(' ').next().unwrap().parse().unwrap()
        })
        .collect();
    assert!(sizes.windows(2).all(|w| w[1] <= w[0]), "{sizes:?}");
    assert!(sizes[0] == 410 && sizes[sizes.len() - 1] < 100, "{sizes:?}");
    assert!(progress.iter().all(|l| l.contains(", tree;")), "{text}");

    let stalls: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("whittle: no improvement in the last"))
        .collect();
    assert!(!stalls.is_empty(), "{text}");
    assert!(
        stalls.iter().any(|l| !l.contains(": 0 timed out")),
        "the stall message counts the timeouts: {text}"
    );

    // -q: nothing but errors.
    let quiet = case.whittle(&[
        "reduce",
        "in.txt",
        "--test",
        "./t.sh",
        "-j",
        "1",
        "-a",
        "ddmin",
        "--log-every",
        "0",
        "--timeout",
        "0.5",
        "-q",
        "--fresh",
    ]);
    assert!(quiet.status.success());
    assert_eq!(stderr(&quiet), "");
}

#[test]
fn progress_lines_come_while_a_long_test_runs() {
    let case = Case::new();
    case.write("in.txt", &rows());
    let d = case.dir.path().display();
    // On its third run (the first candidate), the test waits until the log holds two more
    // progress lines than when it started: at -j 1 no other test ends meanwhile, so only the
    // periodic lines can bring them. It gives up after 20 s, without the marker.
    case.script(
        "t.sh",
        &format!(
            r#"n=$(( $(cat {d}/runs 2>/dev/null || echo 0) + 1 ))
echo $n > {d}/runs
if [ $n -eq 3 ]; then
  before=$(grep -c 's per test' {d}/log.txt)
  i=0
  while [ $(grep -c 's per test' {d}/log.txt) -lt $((before + 2)) ] && [ $i -lt 400 ]; do
    sleep 0.05; i=$((i + 1))
  done
  [ $i -lt 400 ] && touch {d}/saw-lines
fi
grep -qx 'row 7' "$1""#
        ),
    );
    let log = case.path("log.txt");
    let status = case
        .command(&[
            "reduce",
            "in.txt",
            "--test",
            "./t.sh",
            "-j",
            "1",
            "-a",
            "ddmin",
            "--log-every",
            "0.1",
            "--timeout",
            "60",
        ])
        .stderr(fs::File::create(&log).unwrap())
        .status()
        .unwrap();
    let text = fs::read_to_string(&log).unwrap();
    assert!(status.success(), "{text}");
    assert!(case.path("saw-lines").exists(), "{text}");
    assert_eq!(
        fs::read_to_string(case.path("in.reduced.txt")).unwrap(),
        "row 7\n"
    );
}
