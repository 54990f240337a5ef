//! End-to-end tests of the `whittle` binary with real external tests (sh, grep, xmllint).

use std::fs;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::util::{Case, read, require, running, stderr};

fn require_xmllint() {
    require("xmllint", "libxml2-utils");
}

const CATALOG: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<!-- A catalogue with one raw ampersand, which xmllint rejects. -->
<catalog xmlns:dc="http://purl.org/dc/elements/1.1/">
  <book id="b1" lang="en"><dc:title>Ulysses</dc:title><price>12.50</price></book>
  <book id="b2" lang="fr"><dc:title>Madame Bovary</dc:title><price>9.90</price></book>
  <shelf name="seafood">
    <book id="b3" title="Fish & Chips" lang="en"><price>3.20</price></book>
    <book id="b4" lang="de"><![CDATA[Kochbuch <neu>]]><price>7.00</price></book>
  </shelf>
  <?archive keep="no"?>
</catalog>
"#;

const XMLLINT_TEST: &str = "xmllint --noout {} 2>&1 | grep -q 'xmlParseEntityRef: no name'";

/// Whether [`XMLLINT_TEST`] still finds a file of the case interesting.
fn xmllint_still_rejects(case: &Case, file: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(XMLLINT_TEST.replace("{}", file))
        .current_dir(case.dir.path())
        .status()
        .unwrap()
        .success()
}

#[test]
fn reduces_xml_with_xmllint_to_the_element_holding_the_raw_ampersand() {
    require_xmllint();
    let case = Case::new();
    let input = case.write("catalog.xml", CATALOG);
    let mut results = Vec::new();
    for jobs in ["1", "2"] {
        let report = case.path(&format!("report-{jobs}.json"));
        let out = case.whittle(&[
            "reduce",
            "catalog.xml",
            "--test",
            XMLLINT_TEST,
            "--algorithm",
            "gtr*",
            "-j",
            jobs,
            "--report",
            report.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let reduced = read(&case.path("catalog.reduced.xml"));
        let json: serde_json::Value = serde_json::from_str(&read(&report)).expect("report is JSON");
        assert!(json["oracle_calls"].as_u64().unwrap() > 0);
        assert_eq!(
            json["bytes_after"].as_u64().unwrap() as usize,
            reduced.len()
        );
        assert_eq!(
            json["bytes_before"].as_u64().unwrap() as usize,
            CATALOG.len()
        );
        assert_eq!(json["format"], "xml");
        assert_eq!(json["algorithm"], "gtr*");
        assert_eq!(json["gate"], "switched off (the input fails it)");
        results.push(reduced);
    }
    assert_eq!(results[0], results[1], "the result must not depend on -j");
    // GTR* pulls the one book up to the root and drops everything else it can.
    assert_eq!(results[0], r#"<book title="Fish & Chips"></book>"#);
    assert_eq!(read(&input), CATALOG, "the input is never modified");
    assert!(
        xmllint_still_rejects(&case, "catalog.reduced.xml"),
        "the result is still interesting to xmllint"
    );
}

#[test]
fn every_algorithm_gives_an_interesting_smaller_result() {
    require_xmllint();
    let case = Case::new();
    case.write("catalog.xml", CATALOG);
    let mut sizes = Vec::new();
    for algo in ["gtr*", "gtr", "hdd*", "hdd", "hdd+", "ddmin"] {
        // ddmin is the line-based baseline; the tree algorithms see XML.
        let lang = if algo == "ddmin" { "lines" } else { "xml" };
        let out = case.whittle(&[
            "reduce",
            "catalog.xml",
            "--test",
            XMLLINT_TEST,
            "-a",
            algo,
            "--lang",
            lang,
            "-o",
            "out.xml",
            "-q",
        ]);
        assert!(out.status.success(), "{algo}: {}", stderr(&out));
        assert!(
            stderr(&out).is_empty(),
            "-q prints nothing: {}",
            stderr(&out)
        );
        let reduced = read(&case.path("out.xml"));
        assert!(reduced.contains("Fish & Chips"), "{algo}: {reduced}");
        assert!(reduced.len() < CATALOG.len() / 3, "{algo}: {reduced}");
        sizes.push((algo, reduced.len()));
    }
    let size = |a: &str| sizes.iter().find(|s| s.0 == a).unwrap().1;
    assert!(size("gtr*") <= size("hdd*"), "{sizes:?}");
    assert!(size("hdd*") <= size("hdd"), "{sizes:?}");
}

#[test]
fn auto_goes_below_the_tree_and_ends_with_bytes_for_a_malformed_input() {
    require_xmllint();
    let case = Case::new();
    case.write("catalog.xml", CATALOG);
    let out = case.whittle(&[
        "reduce",
        "catalog.xml",
        "--test",
        XMLLINT_TEST,
        "--report",
        "r.json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let reduced = read(&case.path("catalog.reduced.xml"));
    let json: serde_json::Value = serde_json::from_str(&read(&case.path("r.json"))).unwrap();
    assert_eq!(json["algorithm"], "auto", "auto is the default");
    // The input is not well formed, so the gate is off and the byte-level tail runs after the
    // tree and the moves below it: what is left is a start tag with an attribute whose value
    // begins with the raw `&` xmllint complains about.
    let moves = &json["tests_by_move"];
    assert!(moves["tree"].as_u64().unwrap() > 0, "{json}");
    assert!(moves["bytes"].as_u64().unwrap() > 0, "{json}");
    assert!(reduced.len() <= 10, "{reduced:?}");
    assert!(reduced.contains('&'), "{reduced:?}");
    assert!(
        xmllint_still_rejects(&case, "catalog.reduced.xml"),
        "xmllint still says `no name` on {reduced:?}"
    );
}

#[test]
fn lines_ddmin_keeps_exactly_the_needed_lines() {
    let case = Case::new();
    let text: String = (0..40).map(|i| format!("line {i}\n")).collect();
    case.write("notes.txt", &text);
    let out = case.whittle(&[
        "reduce",
        "notes.txt",
        "--test",
        "grep -q 'line 7$' {} && grep -q 'line 31' {}",
        "-a",
        "ddmin",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(read(&case.path("notes.reduced.txt")), "line 7\nline 31\n");
}

#[test]
fn repeat_makes_a_test_that_answers_every_other_run_usable() {
    let case = Case::new();
    let text: String = (0..12).map(|i| format!("line {i}\n")).collect();
    case.write("notes.txt", &text);
    // A flaky test: only its even-numbered runs look at the file (a counter file outside the
    // scratch directories keeps count). Of any two consecutive runs exactly one is even, so with
    // `--repeat 2` a candidate is interesting exactly when it holds `line 5`.
    let flaky = case.script(
        "flaky.sh",
        &format!(
            "n=$(cat {c} 2>/dev/null || echo 0); n=$((n + 1)); echo $n > {c}\n\
             [ $((n % 2)) -eq 0 ] && grep -q 'line 5$' \"$1\"",
            c = case.path("count").display()
        ),
    );
    let test = format!("{} {{}}", flaky.display());
    let once = case.whittle(&["reduce", "notes.txt", "--test", &test, "-j", "1", "-q"]);
    assert_eq!(
        once.status.code(),
        Some(2),
        "its first run is odd, so without --repeat the original looks uninteresting: {}",
        stderr(&once)
    );
    fs::remove_file(case.path("count")).expect("counter written");
    let out = case.whittle(&[
        "reduce",
        "notes.txt",
        "--test",
        &test,
        "-j",
        "1",
        "--repeat",
        "2",
        // A fixed timeout: the adaptive one would time the original a number of times that
        // depends on the machine's speed, runs the counter below counts too.
        "--timeout",
        "60",
        "--report",
        "r.json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(read(&case.path("notes.reduced.txt")), "line 5\n");
    let json: serde_json::Value = serde_json::from_str(&read(&case.path("r.json"))).unwrap();
    assert_eq!(json["repeat"], 2);
    assert_eq!(
        json["final_check_interesting"], 1,
        "one of the two re-check runs is even"
    );
    let runs: u64 = read(&case.path("count")).trim().parse().unwrap();
    assert_eq!(
        json["test_runs"].as_u64(),
        Some(runs),
        "every run is counted"
    );
    assert!(
        runs > json["oracle_calls"].as_u64().unwrap(),
        "candidates took more than one run: {json}"
    );
    assert!(
        stderr(&out).contains("interesting in 1 of 2 more runs"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_uninteresting_input_is_an_error_with_a_command_to_reproduce_it() {
    let case = Case::new();
    let input = case.write("a.txt", "hello\nworld\n");
    let out = case.whittle(&["reduce", "a.txt", "--test", "echo checking; grep -q absent"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("does not find the original input interesting"),
        "{err}"
    );
    assert!(
        err.contains("Reproduce with:") && err.contains("grep -q absent"),
        "{err}"
    );
    assert!(
        err.contains("| checking"),
        "the test's output is shown: {err}"
    );
    assert!(!case.path("a.reduced.txt").exists(), "nothing is written");
    assert_eq!(read(&input), "hello\nworld\n");
}

#[test]
fn a_missing_test_command_is_named() {
    let case = Case::new();
    case.write("a.txt", "x\n");
    let out = case.whittle(&["reduce", "a.txt", "--test", "./no-such-test-script.sh"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("127") && err.contains("not found"), "{err}");
}

#[test]
fn a_too_permissive_test_is_reported() {
    let case = Case::new();
    case.write("a.txt", "x\ny\n");
    let out = case.whittle(&["reduce", "a.txt", "--test", "true"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("too permissive"), "{}", stderr(&out));
    assert!(!case.path("a.reduced.txt").exists());
}

#[test]
fn an_unparseable_file_is_an_error_naming_file_and_position() {
    let case = Case::new();
    // A gzip stream named .xml: the XML format refuses it instead of reducing junk.
    let bytes = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03<not>xml</not>";
    fs::write(case.path("blob.xml"), bytes).unwrap();
    let out = case.whittle(&["reduce", "blob.xml", "--test", "true"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("blob.xml:1:") && err.contains("cannot parse as xml"),
        "{err}"
    );
    assert_eq!(fs::read(case.path("blob.xml")).unwrap(), bytes);
    assert!(!case.path("blob.reduced.xml").exists());
}

#[test]
fn a_hanging_test_is_killed_at_the_timeout_with_its_children() {
    let case = Case::new();
    case.write("in.txt", "KEEP\nHANG\na\nb\n");
    // Without the HANG line the test starts a background child and hangs; whittle must kill
    // both at the timeout and count the candidate as not interesting.
    let pids = case.path("pids");
    case.script(
        "test.sh",
        &format!(
            "grep -q KEEP \"$1\" || exit 1\ngrep -q HANG \"$1\" && exit 0\nsleep 300 &\necho $! >> {}\nwait",
            pids.display()
        ),
    );
    let started = Instant::now();
    let out = case.whittle(&[
        "reduce",
        "in.txt",
        "--test",
        "./test.sh",
        "--timeout",
        "0.5",
        "-a",
        "ddmin",
        // One test at a time: at -j 2 a hanging candidate that was started speculatively and
        // then cancelled also leaves a pid below, and how many do depends on the machine's load.
        "-j",
        "1",
        "--report",
        "r.json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(read(&case.path("in.reduced.txt")), "KEEP\nHANG\n");
    let json: serde_json::Value = serde_json::from_str(&read(&case.path("r.json"))).unwrap();
    let timeouts = json["timeouts"].as_u64().unwrap();
    assert!(timeouts >= 1, "{json}");
    // The time the hung tests took is reported apart, and the summary says so.
    let timed_out = json["timed_out_seconds"].as_f64().unwrap();
    assert!(
        timed_out > 0.0 && timed_out <= json["oracle_seconds"].as_f64().unwrap(),
        "{json}"
    );
    assert!(
        stderr(&out).contains(&format!("{timeouts} tests timed out at 0.5 s")),
        "{}",
        stderr(&out)
    );
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "hung tests were not cut off"
    );
    std::thread::sleep(Duration::from_millis(200));
    let pids = read(&pids);
    assert_eq!(pids.lines().count() as u64, timeouts);
    for pid in pids.lines() {
        assert!(
            !running(pid),
            "background child {pid} of a killed test is still alive"
        );
    }
}

#[test]
fn sigterm_leaves_the_best_result_so_far_on_disk() {
    let case = Case::new();
    let text: String = (0..64).map(|i| format!("row {i}\n")).collect();
    case.write("in.txt", &text);
    case.script("slow.sh", "sleep 0.2\ngrep -q 'row 42$' \"$1\"");
    let mut child = case
        .command(&[
            "reduce",
            "in.txt",
            "--test",
            "./slow.sh",
            "-j",
            "1",
            "-a",
            "ddmin",
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let out = case.path("in.reduced.txt");
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline && !fs::read(&out).is_ok_and(|b| b.len() < text.len()) {
        std::thread::sleep(Duration::from_millis(50));
    }
    Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let best = read(&out);
    assert!(
        best.len() < text.len() && best.contains("row 42\n"),
        "{best}"
    );
    assert!(best.lines().all(|l| text.lines().any(|t| t == l)));
    assert_eq!(read(&case.path("in.txt")), text);
}

#[test]
fn tree_and_formats_show_what_the_reducer_sees() {
    let case = Case::new();
    case.write("c.xml", CATALOG);
    let out = case.whittle(&["tree", "c.xml"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let dump = String::from_utf8(out.stdout).unwrap();
    assert!(dump.starts_with("#document\n"), "{dump}");
    assert!(dump.contains("\n  child: catalog\n"), "{dump}");
    assert!(
        dump.contains("@title: @title \" title=\\\"Fish & Chips\\\"\""),
        "{dump}"
    );
    let formats = case.whittle(&["formats"]);
    let list = String::from_utf8(formats.stdout).unwrap();
    assert!(
        list.lines()
            .any(|l| l.starts_with("xml") && l.contains("gate")),
        "{list}"
    );
    assert!(list.lines().any(|l| l.starts_with("lines")), "{list}");
    // Every column starts at the same place whatever the format's name (`javascript` is the
    // longest): the descriptions and the extension lines all begin at one column.
    let starts: Vec<usize> = list
        .lines()
        .map(|l| {
            // Past the name and the gate column (both blank on an extension line).
            let rest = l
                .trim_start_matches(|c: char| !c.is_whitespace())
                .trim_start();
            let rest = rest.strip_prefix("gate").unwrap_or(rest).trim_start();
            l.len() - rest.len()
        })
        .collect();
    assert!(starts.len() >= 16, "{list}");
    assert!(starts.iter().all(|&s| s == starts[0]), "{starts:?}\n{list}");
}

#[test]
fn the_output_may_not_be_the_input_and_rules_must_match_the_format() {
    let case = Case::new();
    case.write("a.txt", "x\n");
    let out = case.whittle(&["reduce", "a.txt", "--test", "grep -q x", "-o", "a.txt"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("never modifies its input"));
    case.write(
        "r.json",
        r#"{"whittle_rules": 1, "format": "xml", "labels": {}}"#,
    );
    let out = case.whittle(&[
        "reduce",
        "a.txt",
        "--test",
        "grep -q x",
        "--rules",
        "r.json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("rules for `xml`"), "{}", stderr(&out));
}

#[test]
fn an_output_through_a_link_keeps_the_link_and_a_device_is_written_not_replaced() {
    use std::os::unix::fs::{FileTypeExt, symlink};
    let case = Case::new();
    case.write("a.txt", "x\ny\nz\n");
    // Reduces a.txt to the link `name` to `target`; the link must stay a link.
    let through_link = |name: &str, target: &std::path::Path| {
        symlink(target, case.path(name)).expect("link");
        let out = case.whittle(&["reduce", "a.txt", "--test", "grep -q y", "-o", name, "-q"]);
        assert!(out.status.success(), "{}", stderr(&out));
        let link = fs::symlink_metadata(case.path(name)).unwrap();
        assert!(link.file_type().is_symlink(), "{name}");
    };
    // A link to a regular file: the link stays, the file gets the result.
    case.write("real.txt", "");
    through_link("out.txt", &case.path("real.txt"));
    assert_eq!(read(&case.path("real.txt")), "y\n");
    // A link to /dev/null (what `-o /dev/null` writes to): before, the result's rename put a
    // regular file in the link's place, and with `-o /dev/null` itself in /dev/null's, which
    // broke every later `> /dev/null` on the machine. The device is written to.
    through_link("null.txt", std::path::Path::new("/dev/null"));
    assert!(
        fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
}

#[test]
fn rules_filter_candidates_and_the_pass_over_forbidden_ones_keeps_the_size() {
    require_xmllint();
    let case = Case::new();
    case.write("catalog.xml", CATALOG);
    // Every book needs its id; a book only ever stands under a shelf; a title attribute is only
    // ever on a book. The filtered pass keeps that shape; the pass over the transformations the
    // rules forbid, one at a time, does not have to.
    case.write(
        "rules.json",
        r#"{"whittle_rules": 1, "format": "xml", "labels": {
             "book": {"mandatory_edges": ["@id"], "contexts": [["shelf", "child"]]},
             "@title": {"contexts": [["book", "@title"]]}}}"#,
    );
    let mut runs = Vec::new();
    for rules in [&["--rules", "rules.json"][..], &["--no-rules"][..]] {
        let mut args = vec![
            "reduce",
            "catalog.xml",
            "--test",
            XMLLINT_TEST,
            "--report",
            "r.json",
            "-j",
            "1",
            "-a",
            "gtr*",
        ];
        args.extend_from_slice(rules);
        let out = case.whittle(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        let json: serde_json::Value = serde_json::from_str(&read(&case.path("r.json"))).unwrap();
        runs.push((read(&case.path("catalog.reduced.xml")), json));
    }
    let (with, without) = (&runs[0], &runs[1]);
    assert!(with.1["filtered"].as_u64().unwrap() > 0, "{}", with.1);
    assert_eq!(without.1["filtered"].as_u64().unwrap(), 0);
    assert_eq!(with.1["rules"], "rules.json");
    assert_eq!(without.1["rules"], "none");
    assert_eq!(with.0, r#"<book title="Fish & Chips"></book>"#);
    assert_eq!(with.0, without.0);
}

#[test]
fn a_test_that_accepts_anything_is_refused_even_when_the_gate_would_hide_it() {
    // The empty file fails the XML gate, but the probe for a too-permissive test asks the test.
    let case = Case::new();
    case.write("c.xml", "<a><b/></a>\n");
    let out = case.whittle(&["reduce", "c.xml", "--test", "true"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("too permissive"), "{}", stderr(&out));
}

#[test]
fn an_original_that_times_out_is_reported_as_such() {
    let case = Case::new();
    case.write("a.txt", "x\n");
    let out = case.whittle(&[
        "reduce",
        "a.txt",
        "--test",
        "sleep 5; true",
        "--timeout",
        "0.3",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("it timed out after 0.3 s"),
        "{}",
        stderr(&out)
    );
    assert!(!case.path("a.reduced.txt").exists());
}

#[test]
fn the_bash_completions_pass_bash_n_and_the_man_page_renders_with_man_l() {
    let case = Case::new();
    let out = case.whittle(&["completions", "bash"]);
    assert!(out.status.success(), "{}", stderr(&out));
    case.write("whittle.bash", &String::from_utf8_lossy(&out.stdout));
    let check = case.run("bash", &["-n", "whittle.bash"]);
    assert!(check.status.success(), "bash -n: {}", stderr(&check));

    let out = case.whittle(&["man"]);
    assert!(out.status.success(), "{}", stderr(&out));
    case.write("whittle.1", &String::from_utf8_lossy(&out.stdout));
    let man = Command::new("man")
        .args(["-l", "whittle.1"])
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "100")
        .current_dir(case.dir.path())
        .output()
        .expect("man is needed by this test: apt-get install -y man-db (scripts/test does this)");
    assert!(man.status.success(), "man -l: {}", stderr(&man));
    let text = String::from_utf8_lossy(&man.stdout);
    for words in ["whittle reduce", "--journal-dir", "EXIT STATUS", "130"] {
        assert!(text.contains(words), "{words} missing from:\n{text}");
    }
}

#[test]
fn merging_wins_finds_the_needed_lines_with_grep_and_says_so_in_the_report() {
    // 200 lines, three of them needed: wide enough for ddmin's runs to merge wins at -j 4.
    let case = Case::new();
    let lines: Vec<String> = (0..200)
        .map(|i| match i {
            17 => "needle one".to_string(),
            90 => "needle two".to_string(),
            163 => "needle three".to_string(),
            _ => format!("hay {i}"),
        })
        .collect();
    case.write("hay.txt", &(lines.join("\n") + "\n"));
    let test = "grep -q 'needle one' {} && grep -q 'needle two' {} && grep -q 'needle three' {}";
    for (jobs, merge) in [("4", true), ("4", false)] {
        let report = case.path(&format!("report-{merge}.json"));
        let mut args = vec![
            "reduce",
            "hay.txt",
            "--test",
            test,
            "-a",
            "ddmin",
            "-j",
            jobs,
            "-q",
            "--report",
            report.to_str().unwrap(),
        ];
        if merge {
            args.push("--merge-wins");
        }
        let out = case.whittle(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(
            read(&case.path("hay.reduced.txt")),
            "needle one\nneedle two\nneedle three\n"
        );
        let json: serde_json::Value = serde_json::from_str(&read(&report)).expect("report is JSON");
        assert_eq!(json["merge_wins"], merge);
        assert_eq!(json["merged"].as_u64().unwrap() > 0, merge, "{json}");
    }
}

/// A pretty-printed list whose `<keep/>` xmllint must still find.
const LIST: &str = "<list>\n  <item>one</item>\n  <item>two</item>\n  <keep/>\n</list>\n";

/// Runs `auto` at `-j 1` on [`LIST`] with xmllint and `grep -q PATTERN`, logging every candidate
/// it tests; returns the result, the report and the candidates in the order they were tested.
/// The timeout is fixed: the adaptive one may run the original again to time it (on a slow
/// machine), which would add a run to the log.
fn reduce_list(case: &Case, pattern: &str) -> (String, serde_json::Value, Vec<String>) {
    case.write("list.xml", LIST);
    std::fs::create_dir_all(case.path("seen")).unwrap();
    let seen = case.path("seen").display().to_string();
    let test = format!(
        "n=$(ls {seen} | wc -l); cp {{}} {seen}/$(printf %04d $n); \
         xmllint --noout {{}} 2>/dev/null && grep -q '{pattern}' {{}}"
    );
    let report = case.path("report.json");
    let out = case.whittle(&[
        "reduce",
        "list.xml",
        "--test",
        &test,
        "-j",
        "1",
        "--timeout",
        "30",
        "--report",
        report.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut seen: Vec<_> = std::fs::read_dir(case.path("seen"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    seen.sort();
    let seen = seen.iter().map(|p| read(p)).collect();
    let json = serde_json::from_str(&read(&report)).expect("report is JSON");
    (read(&case.path("list.reduced.xml")), json, seen)
}

#[test]
fn auto_drops_the_white_space_between_elements_in_one_test() {
    require_xmllint();
    let case = Case::new();
    let (reduced, json, seen) = reduce_list(&case, "<keep/>");
    // After the checks of the input (itself, then the empty file), the first candidate is the
    // document without its line breaks and indentation, the one after the root element too.
    assert_eq!(seen[..2], [LIST.to_string(), String::new()]);
    assert_eq!(
        seen[2],
        "<list><item>one</item><item>two</item><keep/></list>"
    );
    assert_eq!(json["tests_by_move"]["blanks"], 1);
    assert_eq!(reduced, "<keep/>");
}

#[test]
fn white_space_the_test_needs_stays() {
    require_xmllint();
    let case = Case::new();
    let (reduced, json, seen) = reduce_list(&case, "^  <keep/>");
    assert_eq!(
        seen[2],
        "<list><item>one</item><item>two</item><keep/></list>"
    );
    assert_eq!(json["tests_by_move"]["blanks"], 1);
    // The blank move failed; the tree moves still reduce the rest, around the line the test
    // needs.
    assert!(reduced.contains("\n  <keep/>"), "{reduced:?}");
    assert!(reduced.len() < LIST.len() / 2, "{reduced:?}");
}
