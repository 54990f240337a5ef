use crate::report::{
    self, Environment, Output, OverheadRow, Report, Row, before_after, catalogue, cpu_model,
    fenced, findings, group_digits, load_average, median, mem_total, overhead_table, percent,
    reductions_table, shell_quote, utc_date, yes_no,
};
use crate::roundtrip::{self, Outcome, Tally, first_difference, wanted};
use std::path::Path;

/// A report as whittle-cli writes it (keys it has and the benchmark ignores included).
const REPORT_JSON: &str = r#"{
  "input": "iso_3166-2.xml",
  "output": "out.xml",
  "format": "xml",
  "algorithm": "hdd*",
  "jobs": 2,
  "test": "oracle.sh {} 'x'",
  "timeout_seconds": 60.0,
  "rules": null,
  "gate": "switched off (the input fails it)",
  "interrupted": false,
  "bytes_before": 334692,
  "bytes_after": 159,
  "nodes_before": 24150,
  "nodes_after": 6,
  "wall_seconds": 0.5,
  "outside_oracle_seconds": 0.125,
  "candidates": 56,
  "oracle_calls": 49,
  "interesting": 24,
  "cache_hits": 9,
  "gate_rejections": 3,
  "filtered": 0,
  "not_smaller": 0,
  "timeouts": 0,
  "cancelled": 0,
  "improvements": 22,
  "oracle_seconds": 0.75
}"#;

fn sample_report() -> Report {
    Report::from_json(REPORT_JSON).unwrap()
}

#[test]
fn report_json_is_read_into_the_row_fields() {
    let r = sample_report();
    assert_eq!(r.bytes_before, 334_692);
    assert_eq!(r.bytes_after, 159);
    assert_eq!(r.nodes_before, 24_150);
    assert_eq!(r.nodes_after, 6);
    assert_eq!(r.oracle_calls, 49);
    assert_eq!(r.cache_hits, 9);
    assert_eq!(r.candidates, 56);
    assert_eq!(r.gate_rejections, 3);
    assert!(!r.interrupted);
    assert_eq!(r.gate.as_deref(), Some("switched off (the input fails it)"));
    assert_eq!(r.oracle_seconds, 0.75);
    assert_eq!(r.outside_share_percent(), Some(25.0));
}

#[test]
fn report_json_with_only_the_required_keys_defaults_the_rest() {
    let r = Report::from_json(
        r#"{"bytes_before": 10, "bytes_after": 5, "nodes_before": 4, "nodes_after": 2,
            "wall_seconds": 1.0, "outside_oracle_seconds": 2.0, "oracle_calls": 7, "cache_hits": 1}"#,
    )
    .unwrap();
    assert_eq!(r.candidates, 0);
    assert_eq!(r.gate, None);
    // The share is clamped: whittle's estimate for -j > 1 can exceed the wall time.
    assert_eq!(r.outside_share_percent(), Some(100.0));
}

#[test]
fn report_json_missing_a_required_key_or_malformed_is_an_error() {
    assert!(Report::from_json(r#"{"bytes_before": 10}"#).is_err());
    assert!(Report::from_json("not json").is_err());
    let zero_wall = Report {
        wall_seconds: 0.0,
        ..sample_report()
    };
    assert_eq!(zero_wall.outside_share_percent(), None);
}

#[test]
fn median_of_odd_even_and_empty() {
    assert_eq!(median(&[5.0, 1.0, 3.0]), Some(3.0));
    assert_eq!(median(&[0.4, 0.1, 0.3, 0.2]), Some(0.25));
    assert_eq!(median(&[2.0]), Some(2.0));
    assert_eq!(median(&[]), None);
    // An outlier does not move the median.
    assert_eq!(median(&[0.01, 0.011, 9.0, 0.012, 0.013]), Some(0.012));
}

#[test]
fn percentages_keep_small_results_visible() {
    assert_eq!(percent(334_692, 159), "0.048 %");
    assert_eq!(percent(1000, 55), "5.5 %");
    assert_eq!(percent(200, 50), "25 %");
    assert_eq!(percent(200, 1), "0.50 %");
    assert_eq!(percent(100, 0), "0 %");
    assert_eq!(percent(0, 0), "—");
    assert_eq!(percent(10, 10), "100 %");
}

#[test]
fn digits_are_grouped_by_three() {
    assert_eq!(group_digits(0), "0");
    assert_eq!(group_digits(999), "999");
    assert_eq!(group_digits(1000), "1\u{2009}000");
    assert_eq!(group_digits(334_692), "334\u{2009}692");
    assert_eq!(group_digits(1_234_567), "1\u{2009}234\u{2009}567");
    assert_eq!(before_after(24_150, 6), "24\u{2009}150 → 6 (0.025 %)");
}

fn row(algorithm: &str, jobs: usize) -> Row {
    Row {
        case: "xml-iso-entity".into(),
        algorithm: algorithm.into(),
        lang: "xml".into(),
        jobs,
        report: Some(sample_report()),
        still_interesting: Some(true),
        same_output_across_jobs: Some(true),
        ..Row::default()
    }
}

/// The cells of a markdown table line.
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner.split(" | ").map(|c| c.trim().to_string()).collect()
}

#[test]
fn reductions_table_has_one_line_per_row_and_the_right_cells() {
    let mut failed = row("gtr", 2);
    failed.report = None;
    failed.failure = Some("exit 101 after 1.0 s: panicked at a|b".into());
    failed.still_interesting = None;
    failed.same_output_across_jobs = Some(false);
    let table = reductions_table(&[row("hdd*", 1), failed]);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 4, "{table}");
    let header = cells(lines[0]);
    assert_eq!(header.len(), 12);
    assert_eq!(header[0], "case");
    assert_eq!(header[11], "same output for -j 1 and -j 2");
    assert_eq!(lines[1].matches('|').count(), 13);

    let ok = cells(lines[2]);
    assert_eq!(ok.len(), 12, "{}", lines[2]);
    assert_eq!(ok[0], "xml-iso-entity");
    assert_eq!(ok[1], "`hdd*`");
    assert_eq!(ok[2], "xml");
    assert_eq!(ok[3], "1");
    assert_eq!(ok[4], "334\u{2009}692 → 159 (0.048 %)");
    assert_eq!(ok[5], "24\u{2009}150 → 6 (0.025 %)");
    assert_eq!(ok[6], "49");
    assert_eq!(ok[7], "9");
    assert_eq!(ok[8], "0.50");
    assert_eq!(ok[9], "25.0 %");
    assert_eq!(ok[10], "yes");
    assert_eq!(ok[11], "yes");

    // The pipe in the failure message is escaped, so the line keeps 12 cells.
    let bad = cells(lines[3]);
    assert_eq!(bad.len(), 12, "{}", lines[3]);
    assert!(bad[4].starts_with("**failed**: exit 101"));
    assert!(bad[4].contains("a\\|b"));
    assert_eq!(bad[6], "—");
    assert_eq!(bad[10], "—");
    assert_eq!(bad[11], "**NO**");
}

#[test]
fn an_interrupted_run_is_marked_in_the_wall_cell() {
    let mut r = row("ddmin", 1);
    r.budget_minutes_hit = Some(15.0);
    let table = reductions_table(&[r]);
    let line = table.lines().nth(2).unwrap();
    assert!(
        cells(line)[8].contains("interrupted") && cells(line)[8].contains("15 min"),
        "{line}"
    );
}

fn overhead(exits: Vec<Option<i32>>, expected: i32) -> OverheadRow {
    OverheadRow {
        case: "always-true test".into(),
        input_bytes: 1043,
        test: "true".into(),
        options: "--no-gate".into(),
        algorithm: "gtr*".into(),
        jobs: 1,
        expected_exit: expected,
        walls: vec![0.030, 0.010, 0.012, 0.5, 0.011],
        exits,
        report: None,
    }
}

#[test]
fn overhead_table_shows_median_range_and_exit_status() {
    let table = overhead_table(&[overhead(vec![Some(2); 5], 2)]);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 3);
    let c = cells(lines[2]);
    assert_eq!(c.len(), cells(lines[0]).len());
    assert_eq!(c[1], "1\u{2009}043");
    assert_eq!(c[2], "`true`");
    assert_eq!(c[5], "`--no-gate`");
    assert_eq!(c[6], "2 (2)");
    assert_eq!(c[7], "5");
    assert_eq!(c[8], "12.0");
    assert_eq!(c[9], "10.0–500.0");
    assert_eq!(c[10], "—");
    assert_eq!(c[11], "—");

    let table = overhead_table(&[overhead(vec![Some(2), Some(0), None, Some(2), Some(2)], 2)]);
    let c = cells(table.lines().nth(2).unwrap());
    assert_eq!(c[6], "**0, 2, signal** (2)");
}

#[test]
fn findings_name_every_problem_and_nothing_else() {
    let good = vec![row("hdd", 1), row("hdd", 2)];
    assert!(findings(&good, &[overhead(vec![Some(2); 5], 2)]).is_empty());

    let mut differ = vec![row("gtr", 1), row("gtr", 2)];
    for r in &mut differ {
        r.same_output_across_jobs = Some(false);
    }
    differ[1].still_interesting = Some(false);
    differ[1].budget_minutes_hit = Some(15.0);
    let f = findings(&differ, &[overhead(vec![Some(1); 5], 2)]);
    assert_eq!(f.len(), 4, "{f:#?}");
    // The -j difference is reported once per algorithm, not once per row.
    assert_eq!(
        f.iter().filter(|s| s.contains("different outputs")).count(),
        1
    );
    assert!(
        f.iter()
            .any(|s| s.contains("no longer interesting") && s.contains("-j 2"))
    );
    assert!(f.iter().any(|s| s.contains("budget")));
    assert!(f.iter().any(|s| s.contains("overhead case")
        && s.contains("with `--no-gate`")
        && s.contains(": 1, 1, 1, 1, 1")));
}

#[test]
fn document_has_the_header_the_tables_and_the_outputs() {
    let env = Environment {
        date: "2025-01-02 03:04 UTC".into(),
        command: "cargo xtask bench".into(),
        nproc: 2,
        cpu: "Some CPU".into(),
        memory: "7.8 GiB".into(),
        whittle_commit: "`abc`".into(),
        xmllint: "xmllint: using libxml version 20914".into(),
        rustc: "rustc 1.95.0".into(),
        max_foreign_rustc: 3,
        budget_minutes: 15.0,
        total_seconds: 25.2,
        ..Environment::default()
    };
    let outputs = [Output {
        label: "`gtr*`".into(),
        bytes: b"<a b=\"&\"/>\n".to_vec(),
    }];
    let doc = report::document(
        &env,
        &[row("gtr*", 1)],
        &[overhead(vec![Some(2); 5], 2)],
        &outputs,
    );
    assert!(doc.starts_with("# Benchmarks\n"));
    assert!(doc.contains("cargo xtask bench"));
    assert!(doc.contains("do not edit"));
    assert!(doc.contains("- Command: `cargo xtask bench` (took 25 s"));
    assert!(doc.contains("Some CPU (2 logical CPUs"));
    assert!(doc.contains("- `xmllint --version`: xmllint: using libxml version 20914"));
    assert!(doc.contains("rustc 1.95.0"));
    assert!(doc.contains("2025-01-02 03:04 UTC"));
    assert!(doc.contains("**Timings may be noisy**: up to 3 `rustc` processes"));
    assert!(doc.contains("| case | algorithm | lang | -j |"));
    assert!(doc.contains("| `gtr*` | xml | 1 |"));
    assert!(doc.contains("## Overhead"));
    assert!(doc.contains("## Findings\n\nNone"));
    assert!(doc.contains("```\n<a b=\"&\"/>\n```\n"));
    assert!(!doc.ends_with("\n\n"));
    assert!(!doc.contains("Quick run"));
    let quick = report::document(&Environment { quick: true, ..env }, &[], &[], &[]);
    assert!(quick.contains("Quick run"));
    assert!(!quick.contains("## Outputs"));
}

#[test]
fn fences_outgrow_backticks_and_long_outputs_are_cut() {
    assert_eq!(fenced(b"x ```` y"), "`````\nx ```` y\n`````\n");
    let long = vec![b'a'; 5000];
    let f = fenced(&long);
    assert!(f.contains("… (3800 more bytes)"));
    assert!(f.len() < 1300);
}

#[test]
fn yes_no_marks_problems_in_bold() {
    assert_eq!(yes_no(Some(true)), "yes");
    assert_eq!(yes_no(Some(false)), "**NO**");
    assert_eq!(yes_no(None), "—");
}

#[test]
fn proc_files_are_read() {
    let cpuinfo = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\nflags\t: fpu\n\nprocessor\t: 1\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n";
    assert_eq!(
        cpu_model(cpuinfo).as_deref(),
        Some("Intel(R) Xeon(R) CPU @ 2.20GHz")
    );
    assert_eq!(cpu_model("processor : 0\n"), None);
    let meminfo = "MemTotal:        8141236 kB\nMemFree:          123 kB\n";
    assert_eq!(mem_total(meminfo).as_deref(), Some("7.8 GiB"));
    assert_eq!(mem_total("MemFree: 1 kB\n"), None);
    assert_eq!(
        load_average("0.52 0.58 0.59 1/467 12345\n").as_deref(),
        Some("0.52, 0.58, 0.59")
    );
    assert_eq!(load_average(""), None);
}

#[test]
fn utc_dates_match_known_days() {
    assert_eq!(utc_date(0), "1970-01-01 00:00 UTC");
    assert_eq!(utc_date(951_782_400), "2000-02-29 00:00 UTC");
    assert_eq!(utc_date(1_700_000_000), "2023-11-14 22:13 UTC");
    assert_eq!(utc_date(1_735_689_599), "2024-12-31 23:59 UTC");
}

#[test]
fn shell_quoting() {
    assert_eq!(shell_quote("bench"), "bench");
    assert_eq!(shell_quote("--out=docs/b.md"), "--out=docs/b.md");
    assert_eq!(shell_quote("gtr*"), "'gtr*'");
    assert_eq!(shell_quote("a b"), "'a b'");
    assert_eq!(shell_quote("it's"), "'it'\\''s'");
    assert_eq!(shell_quote(""), "''");
}

#[test]
fn catalogue_is_deterministic_about_a_kilobyte_and_marked_once() {
    let plain = catalogue(1000, None);
    assert_eq!(plain, catalogue(1000, None));
    assert!((1000..1200).contains(&plain.len()), "{}", plain.len());
    assert!(plain.starts_with("<?xml version=\"1.0\""));
    assert!(plain.ends_with("</catalogue>\n"));
    assert!(!plain.contains("MARKER"));
    let marked = catalogue(1000, Some("MARKER"));
    assert_eq!(marked.matches("MARKER").count(), 1);
    assert_eq!(
        plain.matches("<book ").count(),
        marked.matches("<book ").count()
    );
    // Well formed, so whittle's gate is on for the overhead rows.
    use whittle_core::Format as _;
    assert!(whittle_xml::Xml.gate(plain.as_bytes()));
    assert!(whittle_xml::Xml.gate(marked.as_bytes()));
}

#[test]
fn roundtrip_takes_the_listed_extensions_only() {
    assert!(wanted(Path::new("/a/b.xml")));
    assert!(wanted(Path::new("/a/b.SVG")));
    assert!(wanted(Path::new("x.docbook")));
    assert!(wanted(Path::new("x.plist")));
    assert!(!wanted(Path::new("x.xml.gz")));
    assert!(!wanted(Path::new("xml")));
    assert!(!wanted(Path::new("x.html")));
}

#[test]
fn first_difference_finds_the_offset() {
    assert_eq!(first_difference(b"abc", b"abc"), None);
    assert_eq!(first_difference(b"abc", b"abd"), Some(2));
    assert_eq!(first_difference(b"abc", b"ab"), Some(2));
    assert_eq!(first_difference(b"", b"x"), Some(0));
}

#[test]
fn tally_counts_and_keeps_a_few_examples() {
    let mut t = Tally::default();
    let no = || Err("byte 1: bad name".to_string());
    t.add(Path::new("a.xml"), 10, Outcome::Exact { gate: Ok(()) }, 1);
    t.add(Path::new("b.xml"), 20, Outcome::Exact { gate: no() }, 1);
    t.add(
        Path::new("c.xml"),
        5,
        Outcome::Differs {
            offset: 3,
            gate: Ok(()),
        },
        1,
    );
    t.add(
        Path::new("d.xml"),
        5,
        Outcome::Differs {
            offset: 4,
            gate: no(),
        },
        1,
    );
    t.add(Path::new("e.xml"), 1, Outcome::ParseError("bad".into()), 1);
    t.add(Path::new("f.xml"), 1, Outcome::Panic("boom".into()), 1);
    assert_eq!(t.files, 6);
    assert_eq!(t.parsed, 4);
    assert_eq!(t.exact, 2);
    assert_eq!(t.gate, 2);
    assert_eq!(t.panics, 1);
    assert_eq!(t.bytes, 42);
    assert_eq!(t.differs, vec![(Path::new("c.xml").to_path_buf(), 3)]);
    let s = t.summary();
    assert!(s.contains("files:                  6"));
    assert!(s.contains("round-trip byte-exact:  2  (33.3 %)"));
    assert!(s.contains("c.xml (byte 3)"));
    assert!(!s.contains("d.xml"));
    assert!(s.contains("e.xml: bad"));
    // Only the first gate rejection is kept (keep = 1).
    assert!(s.contains("b.xml: byte 1: bad name"));
    // Only the first gate rejection is kept (keep = 1).
    assert!(s.contains("b.xml: byte 1: bad name"));
    assert!(s.contains("f.xml: boom"));
}

#[test]
fn roundtrip_walk_over_a_temporary_tree() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(sub.join("good.xml"), "<a><b x=\"1\">t</b></a>\n").unwrap();
    std::fs::write(dir.path().join("broken.svg"), "<a x=\"&\">").unwrap();
    std::fs::write(dir.path().join("notes.txt"), "<a/>").unwrap();
    std::os::unix::fs::symlink(sub.join("good.xml"), dir.path().join("link.xml")).unwrap();
    let t = roundtrip::tally(&[dir.path().to_path_buf()], 5, false);
    let mut files = Vec::new();
    roundtrip::collect(dir.path(), &mut files);
    let names: Vec<_> = files
        .iter()
        .map(|f| f.strip_prefix(dir.path()).unwrap().to_path_buf())
        .collect();
    assert_eq!(
        names,
        [Path::new("broken.svg"), Path::new("sub/good.xml")],
        "sorted, symlink and .txt left out"
    );
    // The symlink and the .txt file are not taken.
    assert_eq!(t.files, 2, "{}", t.summary());
    assert_eq!(t.panics, 0, "{}", t.summary());
    // Both parse and render back exactly (the XML front end keeps malformed input too), and
    // only the well-formed one passes the gate.
    assert_eq!(t.parsed, 2, "{}", t.summary());
    assert_eq!(t.exact, 2, "{}", t.summary());
    assert_eq!(t.gate, 1, "{}", t.summary());
    assert_eq!(t.gate_failures.len(), 1);
    assert!(t.gate_failures[0].0.ends_with("broken.svg"));
}
