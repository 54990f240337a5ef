use crate::bench::{same_outputs, select_cases};
use crate::cases::{Case, Plan, Script, Show, Source, Step, Version, join_words};
use crate::report::{
    self, CaseSection, Columns, Environment, NotRun, Output, OverheadRow, Report, Row,
    before_after, catalogue, cpu_model, duration, fenced, findings, group_digits, load_average,
    median, mem_total, overhead_table, percent, reductions_table, utc_date, yes_no,
};
use crate::roundtrip::{self, Outcome, Tally, first_difference, wanted};
use std::path::{Path, PathBuf};
use whittle_core::shell_quote;

/// A report as whittle-cli writes it (keys it has and the benchmark ignores included).
const REPORT_JSON: &str = r#"{
  "input": "iso_3166-2.xml",
  "output": "out.xml",
  "format": "xml",
  "algorithm": "hdd*",
  "jobs": 2,
  "test": "oracle.sh {} 'x'",
  "timeout_seconds": 60.0,
  "rules": "shipped: corpora/xml.rules.json",
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
  "oracle_seconds": 0.75,
  "oracle_busy_seconds": 0.375
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
    assert_eq!(r.rules.as_deref(), Some("shipped: corpora/xml.rules.json"));
    assert_eq!(r.oracle_seconds, 0.75);
    assert_eq!(r.oracle_busy_seconds, Some(0.375));
    assert_eq!(r.outside_share_percent(), Some(25.0));
    assert_eq!(r.timing_inconsistency(), None);
}

#[test]
fn report_timings_that_contradict_each_other_are_caught() {
    // Older reports have no `oracle_busy_seconds`: nothing to compare.
    let old = Report {
        oracle_busy_seconds: None,
        ..sample_report()
    };
    assert_eq!(old.timing_inconsistency(), None);
    // wall 0.5, busy 0.375, but outside 0.3 instead of 0.125.
    let wrong = Report {
        outside_oracle_seconds: 0.3,
        ..sample_report()
    };
    let why = wrong.timing_inconsistency().unwrap();
    assert!(why.contains("`outside_oracle_seconds` (0.300)"), "{why}");
    let busier = Report {
        oracle_busy_seconds: Some(0.9),
        outside_oracle_seconds: 0.0,
        ..sample_report()
    };
    assert!(busier.timing_inconsistency().unwrap().contains("exceeds"));
    // Busy all the time: nothing outside, which is consistent.
    let all_busy = Report {
        oracle_busy_seconds: Some(0.5),
        outside_oracle_seconds: 0.0,
        ..sample_report()
    };
    assert_eq!(all_busy.timing_inconsistency(), None);
    assert_eq!(all_busy.outside_share_percent(), Some(0.0));
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
    assert_eq!(r.rules, None);
    assert_eq!(r.oracle_busy_seconds, None);
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
    let table = reductions_table(&[row("hdd*", 1), failed], &Columns::default());
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 4, "{table}");
    let header = cells(lines[0]);
    assert_eq!(header.len(), 13);
    assert_eq!(header[0], "case");
    assert_eq!(header[4], "rules");
    assert_eq!(header[12], "same output for -j 1 and -j 2");
    assert_eq!(lines[1].matches('|').count(), 14);

    let ok = cells(lines[2]);
    assert_eq!(ok.len(), 13, "{}", lines[2]);
    assert_eq!(ok[0], "xml-iso-entity");
    assert_eq!(ok[1], "`hdd*`");
    assert_eq!(ok[2], "xml");
    assert_eq!(ok[3], "1");
    assert_eq!(ok[4], "shipped");
    assert_eq!(ok[5], "334\u{2009}692 → 159 (0.048 %)");
    assert_eq!(ok[6], "24\u{2009}150 → 6 (0.025 %)");
    assert_eq!(ok[7], "49");
    assert_eq!(ok[8], "9");
    assert_eq!(ok[9], "0.50");
    assert_eq!(ok[10], "25.0 %");
    assert_eq!(ok[11], "yes");
    assert_eq!(ok[12], "yes");

    // The pipe in the failure message is escaped, so the line keeps 13 cells.
    let bad = cells(lines[3]);
    assert_eq!(bad.len(), 13, "{}", lines[3]);
    // No report, but the run asked for the shipped rules (whittle's default).
    assert_eq!(bad[4], "shipped");
    assert!(bad[5].starts_with("**failed**: exit 101"));
    assert!(bad[5].contains("a\\|b"));
    assert_eq!(bad[7], "—");
    assert_eq!(bad[11], "—");
    assert_eq!(bad[12], "**NO**");
}

#[test]
fn an_interrupted_run_is_marked_in_the_wall_cell() {
    let mut r = row("ddmin", 1);
    r.budget_minutes_hit = Some(15.0);
    let table = reductions_table(&[r], &Columns::default());
    let line = table.lines().nth(2).unwrap();
    assert!(
        cells(line)[9].contains("interrupted") && cells(line)[9].contains("15 min"),
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

/// A section of the XML case holding `rows`.
fn xml_section(rows: Vec<Row>) -> CaseSection {
    CaseSection {
        id: "xml-iso-entity".into(),
        about: "Not well-formed XML.".into(),
        input: "`iso_3166-2.xml` (334 692 bytes)".into(),
        oracle: "`xml_xmllint_error.sh {} 'x'` (exit 0 = interesting)".into(),
        algorithms: "Algorithms: `gtr*` on `--lang xml`; `-j` 1.".into(),
        rows,
        outputs: vec![Output::new(
            "`gtr*` (`--lang xml`, `-j 1`)".into(),
            b"<a b=\"&\"/>\n".to_vec(),
            11,
            None,
        )],
        ..CaseSection::default()
    }
}

/// A row of the Python case, with gate rejections and the validity check.
fn py_row(algorithm: &str, lang: &str, jobs: usize, valid: bool) -> Row {
    let mut report = sample_report();
    report.bytes_before = 282;
    report.bytes_after = 140;
    report.gate_rejections = 1234;
    Row {
        case: "py-underlying-dict".into(),
        lang: lang.into(),
        check: Some(valid),
        report: Some(report),
        ..row(algorithm, jobs)
    }
}

/// A section of the Python case holding `rows`.
fn py_section(rows: Vec<Row>) -> CaseSection {
    CaseSection {
        id: "py-underlying-dict".into(),
        about: "A CPython crasher.".into(),
        input: "`underlying_dict.py` (282 bytes)".into(),
        oracle: "`xtask/oracles/py_segfault.sh {}` (exit 0 = interesting)".into(),
        check: Some("`python3 -c '…' FILE` (exit 0 = valid Python)".into()),
        algorithms: "Algorithms: `gtr*` on `--lang python`; `-j` 1 and 2.".into(),
        columns: Columns {
            gate_rejections: true,
            check: Some("valid Python".into()),
        },
        rows,
        note: Some("For comparison, C-Reduce reached 137 bytes.".into()),
        outputs: vec![Output::new(
            "`gtr*` (`--lang python`, `-j 1`)".into(),
            b"import gc\n".to_vec(),
            10,
            None,
        )],
        not_run: None,
        ..CaseSection::default()
    }
}

#[test]
fn python_table_has_gate_rejections_and_the_check_column() {
    let table = reductions_table(
        &[
            py_row("gtr*", "python", 1, true),
            py_row("gtr*", "python", 2, false),
        ],
        &py_section(vec![]).columns,
    );
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 4, "{table}");
    let header = cells(lines[0]);
    assert_eq!(header.len(), 15);
    assert_eq!(header[4], "rules");
    assert_eq!(header[8], "cache hits");
    assert_eq!(header[9], "gate rejections");
    assert_eq!(header[10], "wall s");
    assert_eq!(header[12], "still interesting");
    assert_eq!(header[13], "valid Python");
    assert_eq!(header[14], "same output for -j 1 and -j 2");
    // The alignment line has one entry per column.
    assert_eq!(lines[1].matches('|').count(), 16);
    let first = cells(lines[2]);
    assert_eq!(first.len(), 15, "{}", lines[2]);
    assert_eq!(first[0], "py-underlying-dict");
    assert_eq!(first[2], "python");
    assert_eq!(first[5], "282 → 140 (50 %)");
    assert_eq!(first[9], "1\u{2009}234");
    assert_eq!(first[10], "0.50");
    assert_eq!(first[13], "yes");
    let second = cells(lines[3]);
    assert_eq!(second[3], "2");
    assert_eq!(second[13], "**NO**");

    // Without a report, every number is a dash, the extra columns included.
    let mut failed = py_row("gtr", "python", 1, true);
    failed.report = None;
    failed.check = None;
    let table = reductions_table(&[failed], &py_section(vec![]).columns);
    let c = cells(table.lines().nth(2).unwrap());
    assert_eq!(c.len(), 15);
    assert_eq!(c[9], "—");
    assert_eq!(c[13], "—");
}

#[test]
fn findings_name_every_problem_and_nothing_else() {
    let good = [
        xml_section(vec![row("hdd", 1), row("hdd", 2)]),
        py_section(vec![
            py_row("hdd", "python", 1, true),
            py_row("hdd", "python", 2, true),
        ]),
    ];
    assert!(findings(&good, &[overhead(vec![Some(2); 5], 2)]).is_empty());

    let mut differ = vec![row("gtr", 1), row("gtr", 2)];
    for r in &mut differ {
        r.same_output_across_jobs = Some(false);
    }
    differ[1].still_interesting = Some(false);
    differ[1].budget_minutes_hit = Some(15.0);
    let mut py = vec![
        py_row("gtr*", "python", 1, true),
        py_row("gtr*", "python", 2, false),
    ];
    if let Some(rep) = py[0].report.as_mut() {
        rep.outside_oracle_seconds = 0.4;
    }
    let f = findings(
        &[xml_section(differ), py_section(py)],
        &[overhead(vec![Some(1); 5], 2)],
    );
    assert_eq!(f.len(), 6, "{f:#?}");
    // The -j difference is reported once per algorithm, not once per row.
    assert_eq!(
        f.iter().filter(|s| s.contains("different outputs")).count(),
        1
    );
    assert!(f.iter().any(|s| s.starts_with("xml-iso-entity: `gtr`")
        && s.contains("no longer interesting")
        && s.contains("-j 2")));
    assert!(f.iter().any(|s| s.contains("budget")));
    assert!(f.iter().any(|s| s.starts_with("py-underlying-dict: `gtr*`")
        && s.contains("-j 2")
        && s.contains("fails the check “valid Python”")));
    assert!(f.iter().any(|s| s.starts_with("py-underlying-dict: `gtr*`")
        && s.contains("-j 1")
        && s.contains("timings disagree")));
    assert!(f.iter().any(|s| s.contains("overhead case")
        && s.contains("with `--no-gate`")
        && s.contains(": 1, 1, 1, 1, 1")));
}

fn sample_env() -> Environment {
    Environment {
        date: "2025-01-02 03:04 UTC".into(),
        command: "cargo xtask bench".into(),
        nproc: 2,
        cpu: "Some CPU".into(),
        memory: "7.8 GiB".into(),
        whittle_commit: "`abc`".into(),
        tools: vec![
            (
                "xmllint --version".into(),
                "xmllint: using libxml version 20914".into(),
            ),
            ("python3 --version".into(), "Python 3.11.7".into()),
        ],
        rustc: "rustc 1.95.0".into(),
        max_foreign_rustc: 3,
        budget_minutes: 15.0,
        total_seconds: 305.2,
        ..Environment::default()
    }
}

#[test]
fn document_has_the_header_one_section_per_case_and_the_overhead_once() {
    let env = sample_env();
    let doc = report::document(
        &env,
        &[
            xml_section(vec![row("gtr*", 1)]),
            py_section(vec![
                py_row("gtr*", "python", 1, true),
                py_row("gtr*", "python", 2, true),
            ]),
        ],
        &[overhead(vec![Some(2); 5], 2)],
        &[],
    );
    assert!(doc.starts_with("# Benchmarks\n"));
    assert!(doc.contains("do not edit"));
    // The duration and the noise warning come before the first section.
    let top = &doc[..doc.find("\n## ").unwrap()];
    assert!(top.contains("The whole run took 5 min 05 s"), "{top}");
    assert!(top.contains("Timings may be noisy"), "{top}");
    assert!(top.contains("up to 3 `rustc` processes"), "{top}");
    assert!(
        top.contains("(`xml-iso-entity` and `py-underlying-dict`)"),
        "{top}"
    );
    assert!(doc.contains("- Command: `cargo xtask bench` (took 305 s"));
    assert!(doc.contains("Some CPU (2 logical CPUs"));
    assert!(doc.contains("- `xmllint --version`: xmllint: using libxml version 20914\n"));
    assert!(doc.contains("- `python3 --version`: Python 3.11.7\n"));
    assert!(doc.contains("rustc 1.95.0"));
    assert!(doc.contains("oracle_busy_seconds"));

    // One section per case, in order, each with its own table and outputs.
    let xml = doc.find("## Case `xml-iso-entity`").unwrap();
    let py = doc.find("## Case `py-underlying-dict`").unwrap();
    let overhead_at = doc.find("## Overhead").unwrap();
    let findings_at = doc.find("## Findings").unwrap();
    assert!(xml < py && py < overhead_at && overhead_at < findings_at);
    assert_eq!(doc.matches("## Overhead").count(), 1);
    assert_eq!(doc.matches("| case | algorithm | lang | -j |").count(), 2);
    let xml_part = &doc[xml..py];
    let py_part = &doc[py..overhead_at];
    assert!(xml_part.contains("- Input: `iso_3166-2.xml` (334 692 bytes)"));
    assert!(xml_part.contains("| xml-iso-entity | `gtr*` | xml | 1 |"));
    assert!(!xml_part.contains("gate rejections |"));
    assert!(!xml_part.contains("Check of every output"));
    assert!(xml_part.contains("### Outputs of `xml-iso-entity`"));
    assert!(xml_part.contains("```\n<a b=\"&\"/>\n```\n"));
    assert!(py_part.contains("- Oracle: `xtask/oracles/py_segfault.sh {}`"));
    assert!(py_part.contains("- Check of every output: `python3 -c"));
    assert!(py_part.contains("| cache hits | gate rejections | wall s |"));
    assert!(py_part.contains("| still interesting | valid Python |"));
    assert!(py_part.contains("| py-underlying-dict | `gtr*` | python | 2 |"));
    // The note comes right after the table, before the outputs.
    let note = py_part
        .find("\n\nFor comparison, C-Reduce reached 137 bytes.\n")
        .unwrap();
    assert!(note < py_part.find("### Outputs").unwrap());
    assert!(py_part.contains("```\nimport gc\n```\n"));

    assert!(doc.contains("## Findings\n\nNone"));
    assert!(!doc.ends_with("\n\n"));
    assert!(!doc.contains("Quick run"));
    let quick = report::document(
        &Environment {
            quick: true,
            max_foreign_rustc: 0,
            ..env
        },
        &[],
        &[],
        &[],
    );
    assert!(quick.contains("Quick run"));
    assert!(quick.contains("meanwhile: none was seen at the start of any measured run"));
    assert!(!quick.contains("**Timings may be noisy**"));
    assert!(!quick.contains("## Case"));
}

/// A `gtr*` row of a PDF case: `bytes` after, `calls` oracle calls, with or without rules.
fn pdf_row(jobs: usize, no_rules: bool, bytes: u64, calls: u64) -> Row {
    let mut report = sample_report();
    report.bytes_before = 328_400;
    report.bytes_after = bytes;
    report.oracle_calls = calls;
    report.filtered = if no_rules { 0 } else { 55 };
    report.wall_seconds = calls as f64 / 2.0;
    report.outside_oracle_seconds = 0.0;
    report.oracle_busy_seconds = Some(report.wall_seconds);
    report.rules = Some(if no_rules {
        "none".to_string()
    } else {
        "shipped: corpora/pdf.rules.json".to_string()
    });
    Row {
        case: "pdf-js-at-opening".into(),
        algorithm: "gtr*".into(),
        lang: "pdf".into(),
        jobs,
        no_rules,
        report: Some(report),
        still_interesting: Some(true),
        check: Some(true),
        ..Row::default()
    }
}

/// A section of the PDF case holding `rows`.
fn pdf_section(rows: Vec<Row>) -> CaseSection {
    CaseSection {
        id: "pdf-js-at-opening".into(),
        about: "Security triage.".into(),
        input: "`160F-2019.pdf` (328 400 bytes)".into(),
        oracle: "`pdf_pdfcop.sh {} 'x'` (exit 0 = interesting)".into(),
        check: Some("`qpdf --check FILE` (exit 0 = valid PDF)".into()),
        algorithms: "Algorithms: `gtr*` on `--lang pdf`; `-j` 2.".into(),
        columns: Columns {
            gate_rejections: true,
            check: Some("valid PDF".into()),
        },
        rows,
        note: Some("PDF rows run at `-j 2` only.".into()),
        outputs: vec![Output::new(
            "`gtr*` (`--lang pdf`, `-j 2`, `--no-rules`)".into(),
            b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<\x00\x1b>>\n".to_vec(),
            1234,
            Some("`qpdf --qdf FILE -`".into()),
        )],
        not_run: None,
        ..CaseSection::default()
    }
}

#[test]
fn the_rules_cell_says_shipped_none_or_not_applicable() {
    let shipped = pdf_row(2, false, 435, 74);
    let none = pdf_row(2, true, 435, 80);
    assert_eq!(shipped.rules_cell(), "shipped");
    assert_eq!(none.rules_cell(), "none");
    // `--no-rules` is `none` whatever the report says (or without one).
    let no_report = Row {
        report: None,
        ..none.clone()
    };
    assert_eq!(no_report.rules_cell(), "none");
    // A format with no shipped rules (`lines`): whittle reports `none` without `--no-rules`.
    let mut lines = row("ddmin", 1);
    lines.lang = "lines".into();
    lines.report.as_mut().unwrap().rules = Some("none".into());
    assert_eq!(lines.rules_cell(), "n/a");
    let mut file = shipped.clone();
    file.report.as_mut().unwrap().rules = Some("my|rules.json".into());
    assert_eq!(file.rules_cell(), "`my\\|rules.json`");

    let table = reductions_table(&[shipped, none], &pdf_section(vec![]).columns);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 4, "{table}");
    let header = cells(lines[0]);
    assert_eq!(header[4], "rules");
    assert_eq!(header[13], "valid PDF");
    let with = cells(lines[2]);
    let without = cells(lines[3]);
    assert_eq!(with.len(), header.len());
    assert_eq!(without.len(), header.len());
    assert_eq!((with[1].as_str(), with[3].as_str()), ("`gtr*`", "2"));
    assert_eq!(with[4], "shipped");
    assert_eq!(without[4], "none");
    assert_eq!(with[7], "74");
    assert_eq!(without[7], "80");
    assert_eq!(without[5], "328\u{2009}400 → 435 (0.13 %)");
    assert_eq!(without[13], "yes");
    // One -j only: nothing to compare.
    assert_eq!(without[14], "—");
}

#[test]
fn the_filtering_table_compares_gtr_star_with_and_without_rules_at_the_first_j() {
    assert_eq!(report::ratio(74, 80), "0.93");
    assert_eq!(report::ratio(125, 65), "1.92");
    assert_eq!(report::ratio(3, 0), "—");

    // XML ran at -j 1 and 2: the -j 1 pair is taken, and rows of other algorithms are not.
    let xml_rows = |j: usize, no_rules: bool, calls: u64| Row {
        no_rules,
        report: Some(Report {
            oracle_calls: calls,
            bytes_after: 46,
            filtered: if no_rules { 0 } else { 7 },
            ..sample_report()
        }),
        ..row("gtr*", j)
    };
    let xml = xml_section(vec![
        row("gtr", 1),
        Row {
            no_rules: true,
            ..row("gtr", 1)
        },
        xml_rows(1, false, 50),
        xml_rows(2, false, 57),
        xml_rows(1, true, 64),
        xml_rows(2, true, 70),
    ]);
    let (with, without) = report::filtering_pair(&xml).unwrap();
    assert_eq!((with.jobs, with.no_rules), (1, false));
    assert_eq!((without.jobs, without.no_rules), (1, true));
    assert_eq!(without.algorithm, "gtr*");

    // PDF ran at -j 2 only; the run without rules failed and has no report.
    let pdf = pdf_section(vec![
        pdf_row(2, false, 435, 74),
        Row {
            report: None,
            failure: Some("exit 1".into()),
            ..pdf_row(2, true, 0, 0)
        },
    ]);
    // No gtr* without rules: not in the table.
    let py = py_section(vec![py_row("gtr*", "python", 1, true)]);
    assert!(report::filtering_pair(&py).is_none());

    let table = report::filtering_table(&[xml, py, pdf]);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 4, "{table}");
    let header = cells(lines[0]);
    assert_eq!(header.len(), 11);
    assert_eq!(lines[1].matches('|').count(), 12);
    assert_eq!(header[7], "calls with ÷ without rules");
    let x = cells(lines[2]);
    assert_eq!(x.len(), 11);
    assert_eq!(
        x,
        [
            "xml-iso-entity",
            "xml",
            "1",
            "46",
            "46",
            "50",
            "64",
            "0.78",
            "7",
            "0.50",
            "0.50"
        ]
    );
    let p = cells(lines[3]);
    assert_eq!(p[0], "pdf-js-at-opening");
    assert_eq!(p[2], "2");
    assert_eq!(p[3], "435");
    assert_eq!(p[4], "—");
    assert_eq!(p[5], "74");
    assert_eq!(p[6], "—");
    assert_eq!(p[7], "—");
    assert_eq!(p[8], "55");
    assert_eq!(p[9], "37.00");
}

#[test]
fn findings_name_rules_that_cost_size_and_runs_without_rules() {
    // Without rules, a smaller output at the same -j: the rules cost size.
    let rows = vec![
        pdf_row(2, false, 500, 74),
        Row {
            same_output_across_jobs: Some(false),
            ..pdf_row(2, true, 435, 80)
        },
    ];
    let f = findings(&[pdf_section(rows)], &[]);
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(
        f[0],
        "pdf-js-at-opening: `gtr*` (`--lang pdf`, `-j 2`, `--no-rules`): the shipped rules cost \
         size: 500 bytes with them, 435 without"
    );
    // The same size, or a smaller one with the rules, is no finding; nor are more calls.
    let rows = vec![pdf_row(2, false, 435, 125), pdf_row(2, true, 435, 65)];
    assert!(findings(&[pdf_section(rows)], &[]).is_empty());
    let rows = vec![pdf_row(2, false, 400, 74), pdf_row(2, true, 435, 80)];
    assert!(findings(&[pdf_section(rows)], &[]).is_empty());
    // A run without rules is named as such.
    let mut bad = pdf_row(1, true, 435, 80);
    bad.check = Some(false);
    let f = findings(&[pdf_section(vec![bad])], &[]);
    assert_eq!(
        f,
        [
            "pdf-js-at-opening: `gtr*` (`--lang pdf`, `-j 1`, `--no-rules`): the output fails the \
          check “valid PDF”"
        ]
    );
}

#[test]
fn cases_that_did_not_run_say_why_and_missing_tools_are_findings() {
    let missing = CaseSection {
        id: "pdf-openaction-small".into(),
        about: "A tiny smoke test.".into(),
        input: "`issue6106.pdf`".into(),
        oracle: "`PDFJS_DIR=… pdf_pdfjs_jsactions.sh {}` (exit 0 = interesting)".into(),
        algorithms: "Algorithms: `gtr*` on `--lang pdf`; `-j` 1.".into(),
        not_run: Some(NotRun::ToolMissing(
            "pdf.js (npm `pdfjs-dist@4.10.38`) could not be installed: no network".into(),
        )),
        ..CaseSection::default()
    };
    let quick = CaseSection {
        id: "pdf-pdfcop-crash".into(),
        not_run: Some(NotRun::NoQuickPlan),
        ..missing.clone()
    };
    let broken = CaseSection {
        id: "pdf-js-at-opening".into(),
        not_run: Some(NotRun::Broken(
            "the oracle does not find the original input interesting".into(),
        )),
        ..missing.clone()
    };
    let f = findings(&[missing.clone(), quick.clone(), broken.clone()], &[]);
    assert_eq!(f.len(), 2, "{f:#?}");
    assert_eq!(
        f[0],
        "pdf-openaction-small was not run: tool missing: pdf.js (npm `pdfjs-dist@4.10.38`) \
         could not be installed: no network"
    );
    assert!(f[1].starts_with("pdf-js-at-opening was not run: the oracle"));

    let doc = report::document(
        &sample_env(),
        &[xml_section(vec![row("gtr*", 1)]), missing, quick, broken],
        &[],
        &[],
    );
    let at = doc.find("## Case `pdf-openaction-small`").unwrap();
    let part = &doc[at..doc.find("## Case `pdf-pdfcop-crash`").unwrap()];
    assert!(part.contains("- Oracle: `PDFJS_DIR=… pdf_pdfjs_jsactions.sh {}`"));
    assert!(part.contains(
        "\n\n**Not run: tool missing**: pdf.js (npm `pdfjs-dist@4.10.38`) could not be \
         installed: no network.\n"
    ));
    // No table and no outputs for a case that did not run.
    assert!(!part.contains("| case |"));
    assert!(!part.contains("### Outputs"));
    let at = doc.find("## Case `pdf-pdfcop-crash`").unwrap();
    assert!(doc[at..].contains("Not run: this case has no quick plan"));
    // They are findings, so the document does not claim there are none; no filtering table
    // without any pair of rows.
    assert!(doc.contains("## Findings\n\n- pdf-openaction-small was not run: tool missing"));
    assert!(!doc.contains("## What filtering buys"));
}

#[test]
fn the_document_has_rules_rows_pdf_outputs_and_the_filtering_summary() {
    let doc = report::document(
        &sample_env(),
        &[
            xml_section(vec![row("gtr*", 1)]),
            pdf_section(vec![pdf_row(2, false, 435, 74), pdf_row(2, true, 435, 80)]),
        ],
        &[overhead(vec![Some(2); 5], 2)],
        &[],
    );
    let pdf = doc.find("## Case `pdf-js-at-opening`").unwrap();
    let overhead_at = doc.find("## Overhead").unwrap();
    let filtering = doc.find("## What filtering buys").unwrap();
    let findings_at = doc.find("## Findings").unwrap();
    // The summary comes at the end, after the overhead and before the findings.
    assert!(pdf < overhead_at && overhead_at < filtering && filtering < findings_at);
    let part = &doc[pdf..overhead_at];
    assert!(part.contains("| -j | rules | bytes before → after (%) |"));
    assert!(part.contains("| still interesting | valid PDF | same output"));
    assert!(
        part.contains("| pdf-js-at-opening | `gtr*` | pdf | 2 | shipped | 328\u{2009}400 → 435")
    );
    assert!(part.contains("| pdf-js-at-opening | `gtr*` | pdf | 2 | none | 328\u{2009}400 → 435"));
    assert!(part.contains("\n\nPDF rows run at `-j 2` only.\n"));
    // The output's own size, the viewer, and no raw control characters.
    assert!(part.contains(
        "`gtr*` (`--lang pdf`, `-j 2`, `--no-rules`) (1\u{2009}234 bytes, shown by \
         `qpdf --qdf FILE -`):\n\n```\n%PDF-1.7\n"
    ));
    assert!(part.contains("<<\u{FFFD}\u{FFFD}>>"));
    assert!(!part.contains('\u{0}'));
    // The XML output has no viewer.
    assert!(doc.contains("`gtr*` (`--lang xml`, `-j 1`) (11 bytes):\n"));
    let summary = &doc[filtering..findings_at];
    assert!(summary.contains("`--no-rules`"));
    assert!(summary.contains("| pdf-js-at-opening | pdf | 2 | 435 | 435 | 74 | 80 | 0.93 | 55 |"));
    // The XML section has no gtr* without rules, so no line in the summary.
    assert!(!summary.contains("| xml-iso-entity |"));
    assert!(doc.contains("*Rules* is `shipped`"));
    assert!(doc.contains("`-j 2` only"));
    assert!(doc.contains("## Findings\n\nNone"));
}

#[test]
fn fences_replace_control_characters_but_keep_lines_and_tabs() {
    assert_eq!(
        fenced(b"a\x00b\x1b\tc\r\nd\xff", 0),
        "```\na\u{FFFD}b\u{FFFD}\tc\r\nd\u{FFFD}\n```\n"
    );
}

/// A minimal PDF with a correct cross-reference table.
fn tiny_pdf() -> Vec<u8> {
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>",
    ];
    let mut pdf = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.extend(format!("{} 0 obj\n{o}\nendobj\n", i + 1).bytes());
    }
    let xref = pdf.len();
    pdf.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).bytes());
    for off in offsets {
        pdf.extend(format!("{off:010} 00000 n \n").bytes());
    }
    pdf.extend(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .bytes(),
    );
    pdf
}

#[test]
fn the_pdf_check_and_viewer_are_qpdfs() {
    let c = case("pdf-js-at-opening");
    let check = c.check.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = |bytes: &[u8]| {
        let file = dir.path().join("c.pdf");
        std::fs::write(&file, bytes).unwrap();
        crate::command(&check.program)
            .args(&check.args)
            .arg(&file)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .map(|s| s.success())
    };
    let good = tiny_pdf();
    let Ok(valid) = run(&good) else {
        eprintln!("no qpdf: the check is not exercised");
        return;
    };
    assert!(valid);
    // A wrong xref offset is repaired with a warning: not valid (exit 3).
    let shifted =
        String::from_utf8(good.clone())
            .unwrap()
            .replacen("startxref\n", "startxref\n1", 1);
    assert!(!run(shifted.as_bytes()).unwrap());
    assert!(!run(b"%PDF-1.4\nnothing\n").unwrap());

    // The viewer prints the file uncompressed to stdout, the same every time.
    let Show::Through { program, args } = c.show else {
        panic!("PDF outputs have a viewer")
    };
    let file = dir.path().join("v.pdf");
    std::fs::write(&file, &good).unwrap();
    let view = || {
        crate::command(&program)
            .args(args.iter().map(|a| {
                if a == "{}" {
                    file.as_os_str().to_owned()
                } else {
                    a.into()
                }
            }))
            .output()
            .unwrap()
    };
    let out = view();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("%QDF-1.0") && text.contains("/Type /Catalog"),
        "{text}"
    );
    assert_eq!(out.stdout, view().stdout);
}

#[test]
fn durations_read_well() {
    assert_eq!(duration(0.2), "0 s");
    assert_eq!(duration(14.6), "15 s");
    assert_eq!(duration(305.2), "5 min 05 s");
    assert_eq!(duration(3599.4), "59 min 59 s");
    assert_eq!(duration(3725.0), "1 h 02 min");
}

/// The `--lang` of whittle's line-based format, which `ddmin` works on.
const LINES: &str = "lines";

/// The cases of `xtask/cases/`.
fn all_cases() -> Vec<Case> {
    crate::cases::load(&crate::cases::cases_dir()).unwrap()
}

fn case(id: &str) -> Case {
    all_cases().into_iter().find(|c| c.id == id).unwrap()
}

/// A plan's (algorithm, format) pairs, to compare with literals.
fn algos(plan: &Plan) -> Vec<(&str, &str)> {
    plan.algorithms
        .iter()
        .map(|(a, l)| (a.as_str(), l.as_str()))
        .collect()
}

#[test]
fn the_case_list_has_every_case_with_its_plan() {
    let cases = all_cases();
    let ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "xml-iso-entity",
            "xml-cov-xkb",
            "xml-gtr-coverage-153603",
            "py-underlying-dict",
            "pdf-js-at-opening",
            "pdf-pdfcop-crash",
            "pdf-openaction-small",
            "js-prettier-acorn",
            "js-engines-numbro"
        ]
    );

    // xml-iso-entity runs exactly what it ran before cases were a list.
    let xml = case("xml-iso-entity");
    assert_eq!(
        algos(&xml.full),
        [
            ("ddmin", "lines"),
            ("hdd", "xml"),
            ("hdd*", "xml"),
            ("hdd+", "xml"),
            ("gtr", "xml"),
            ("gtr*", "xml"),
        ]
    );
    assert_eq!(xml.full.jobs, [1, 2]);
    assert_eq!(
        algos(&xml.quick),
        [("ddmin", "lines"), ("hdd*", "xml"), ("gtr*", "xml")]
    );
    // Every text reducer runs on it; a quick run compares with picire and C-Vise.
    assert_eq!(
        xml.full.others,
        [
            Other::CReduce,
            Other::CVise,
            Other::Picire,
            Other::Lithium,
            Other::ShrinkRay
        ]
    );
    assert_eq!(xml.quick.others, [Other::Picire, Other::CVise]);
    assert_eq!(xml.quick.jobs, [1]);
    assert_eq!(
        xml.source,
        Source::Debian {
            package: "iso-codes".into(),
            path: "usr/share/xml/iso-codes/iso_3166-2.xml".into()
        }
    );
    assert_eq!(
        xml.input_path(),
        Path::new("target/bench-inputs/xml/iso_3166-2.xml")
    );
    assert_eq!(
        xml.oracle
            .test_command(Path::new("/s/xml_xmllint_error.sh")),
        "/s/xml_xmllint_error.sh {} 'xmlParseEntityRef: no name'"
    );
    assert!(xml.check.is_none() && !xml.gate_rejections_column && xml.note.is_none());

    let py = case("py-underlying-dict");
    assert_eq!(py.lang, "python");
    assert_eq!(
        algos(&py.full),
        [("ddmin", "lines"), ("hdd*", "python"), ("gtr*", "python")]
    );
    assert_eq!(py.full.jobs, [1, 2]);
    assert_eq!(
        algos(&py.quick),
        [("ddmin", "lines"), ("hdd*", "python"), ("gtr*", "python")]
    );
    assert_eq!(py.quick.jobs, [1]);
    assert_eq!(
        py.source,
        Source::PythonStdlib {
            path: "test/crashers/underlying_dict.py".into()
        }
    );
    assert_eq!(
        py.input_path(),
        Path::new("target/bench-inputs/python/underlying_dict.py")
    );
    assert_eq!(
        py.oracle.shown_path(),
        Path::new("xtask/oracles/py_segfault.sh")
    );
    assert_eq!(
        py.oracle.test_command(&py.oracle.shown_path()),
        "xtask/oracles/py_segfault.sh {}"
    );
    assert!(py.gate_rejections_column);
    assert_eq!(py.check.as_ref().unwrap().name, "valid Python");
    assert_eq!(
        py.check.as_ref().unwrap().shown(),
        "python3 -c 'import ast,sys; ast.parse(open(sys.argv[1]).read())' FILE"
    );
    // The other reducers are measured on it now, not quoted from issue #3.
    assert!(py.note.is_none());
    assert_eq!(
        py.formats_sentence(false),
        "Algorithms: `ddmin` on `--lang lines`, `hdd*` and `gtr*` on `--lang python`; `-j` 1 \
         and 2. `gtr*` also run with `--no-rules`."
    );
    assert_eq!(
        py.formats_sentence(true),
        "Algorithms: `ddmin` on `--lang lines`, `hdd*` and `gtr*` on `--lang python`; `-j` 1. \
         `gtr*` also run with `--no-rules`."
    );
    assert!(py.npm.is_none() && xml.npm.is_none());
    assert_eq!(py.show, Show::Raw);
    assert_eq!(xml.show, Show::Raw);

    // The coverage cases: the repository's wrapper, exact coverage for xkb and the paper's
    // superset for its own file; only they need the gcov build.
    let xkb = case("xml-cov-xkb");
    let paper = case("xml-gtr-coverage-153603");
    assert_eq!(
        xkb.oracle.test_command(&xkb.oracle.shown_path()),
        "xtask/oracles/xml_coverage.sh {}"
    );
    assert_eq!(
        paper.oracle.test_command(&paper.oracle.shown_path()),
        "xtask/oracles/xml_coverage.sh {} --superset"
    );
    assert_eq!(
        paper.source,
        Source::Shared {
            path: "bench-data/xml-gtr/153603-2010-03-10.xml".into()
        }
    );
    for c in all_cases() {
        assert_eq!(c.coverage, c.id.contains("cov"), "{}", c.id);
    }
    assert_eq!(xkb.check.as_ref().unwrap().shown(), "xmllint --noout FILE");

    // numbro's looping candidates: a short per-engine timeout in the oracle and a 10 s test
    // timeout for every reducer; the other cases keep the default.
    let numbro = case("js-engines-numbro");
    assert_eq!(numbro.test_timeout(), 10);
    assert_eq!(
        numbro.oracle_env,
        [("ORACLE_TIMEOUT".to_string(), "2".to_string())]
    );
    let sentence = numbro.oracle_sentence();
    assert!(
        sentence.starts_with("`ORACLE_TIMEOUT=2 ../shared/bench/oracles/js_engine_diff.sh {} "),
        "{sentence}"
    );
    assert!(sentence.contains("stops a test after 10 s"), "{sentence}");
    assert_eq!(
        py.test_timeout(),
        crate::cases::DEFAULT_TEST_TIMEOUT_SECONDS
    );
    assert!(!py.oracle_sentence().contains("stops a test"));
}

#[test]
fn the_pdf_cases_run_pdfcop_at_j2_and_pdfjs_from_target_bench_tools() {
    let js = case("pdf-js-at-opening");
    assert_eq!(js.lang, "pdf");
    assert_eq!(algos(&js.full), [("hdd*", "pdf"), ("gtr*", "pdf")]);
    assert_eq!(js.full.jobs, [2]);
    assert_eq!(algos(&js.quick), [("gtr*", "pdf")]);
    assert_eq!(js.quick.jobs, [2]);
    assert_eq!(
        js.source,
        Source::Shared {
            path: "bench-data/pdf/160F-2019.pdf".into()
        }
    );
    assert_eq!(
        js.input_path(),
        Path::new("target/bench-inputs/pdf/160F-2019.pdf")
    );
    // The regex reaches the script as one argument, backslashes and all.
    assert_eq!(js.oracle.args, ["caused by \\[:allowJSAtOpening\\]"]);
    assert_eq!(
        js.oracle.test_command(Path::new("/s/pdf_pdfcop.sh")),
        "/s/pdf_pdfcop.sh {} 'caused by \\[:allowJSAtOpening\\]'"
    );
    assert!(js.note.as_deref().unwrap().contains("`-j 2` only"));
    assert_eq!(
        js.formats_sentence(false),
        "Algorithms: `hdd*` and `gtr*` on `--lang pdf`; `-j` 2. `gtr*` also run with \
         `--no-rules`."
    );

    let crash = case("pdf-pdfcop-crash");
    assert_eq!(algos(&crash.full), [("gtr*", "pdf")]);
    // No other reducer: 3 MB with pdfcop's 1-3 s per call would only measure their budgets.
    assert!(crash.full.others.is_empty());
    assert_eq!(crash.full.jobs, [2]);
    // Full runs only: 3 MB and pdfcop's 1-3 s per call.
    assert!(crash.quick.is_empty());
    assert!(crash.quick.steps().is_empty());
    assert_eq!(
        crash.oracle.test_command(Path::new("/s/pdf_pdfcop.sh")),
        "/s/pdf_pdfcop.sh {} 'Illegal character \"&\" in raw string'"
    );
    assert_eq!(crash.file_name, "xfa_filled_imm1344e.pdf");

    let small = case("pdf-openaction-small");
    assert_eq!(small.file_name, "issue6106.pdf");
    assert_eq!(small.full.jobs, [1, 2]);
    assert_eq!(algos(&small.quick), [("gtr*", "pdf")]);
    let npm = small.npm.clone().unwrap();
    assert_eq!(npm.env, "PDFJS_DIR");
    assert_eq!(npm.spec(), "pdfjs-dist@4.10.38");
    assert_eq!(npm.dir_path(), Path::new("target/bench-tools/npm/pdfjs4"));
    assert_eq!(
        npm.package_json(),
        Path::new("target/bench-tools/npm/pdfjs4/node_modules/pdfjs-dist/package.json")
    );
    let oracle = small.oracle_sentence();
    assert!(
        oracle.starts_with(
            "`PDFJS_DIR=… ../shared/bench/oracles/pdf_pdfjs_jsactions.sh {} '^OpenAction$' \
             this.print` (exit 0 = interesting): pdf.js still loads"
        ),
        "{oracle}"
    );
    assert!(oracle.contains("`PDFJS_DIR` is `target/bench-tools/npm/pdfjs4`"));
    assert!(oracle.contains("`pdfjs-dist@4.10.38`"));
    // The pdfcop cases need no npm tool and say so by having no `VAR=…`.
    assert!(
        js.oracle_sentence()
            .starts_with("`../shared/bench/oracles/pdf_pdfcop.sh {}")
    );

    for c in [&js, &crash, &small] {
        let check = c.check.as_ref().unwrap();
        assert_eq!(check.name, "valid PDF");
        assert_eq!(check.shown(), "qpdf --check FILE");
        assert_eq!(
            c.show.shown().as_deref(),
            Some("qpdf --qdf --object-streams=disable --deterministic-id FILE -")
        );
        assert!(c.gate_rejections_column);
        assert!(c.tools.iter().any(|t| t.program == "qpdf"));
    }
    let pdfcop = js.tools.iter().find(|t| t.program == "pdfcop").unwrap();
    // pdfcop has no working --version: its package's version is asked.
    assert_eq!(pdfcop.version, Version::Debian("origami-pdf".into()));
    assert_eq!(pdfcop.asked(), "pdfcop");
    let qpdf = js.tools.iter().find(|t| t.program == "qpdf").unwrap();
    assert_eq!(qpdf.asked(), "qpdf --version");
}

#[test]
fn gtr_and_gtr_star_also_run_without_rules_right_after_their_rows() {
    fn step<'a>(algorithm: &'a str, lang: &'a str, rules: bool) -> Step<'a> {
        Step {
            algorithm,
            lang,
            rules,
        }
    }
    assert_eq!(
        case("xml-iso-entity").full.steps(),
        [
            step("ddmin", "lines", true),
            step("hdd", "xml", true),
            step("hdd*", "xml", true),
            step("hdd+", "xml", true),
            step("gtr", "xml", true),
            step("gtr", "xml", false),
            step("gtr*", "xml", true),
            step("gtr*", "xml", false),
        ]
    );
    assert_eq!(
        case("pdf-pdfcop-crash").full.steps(),
        [step("gtr*", "pdf", true), step("gtr*", "pdf", false),]
    );
    // Every case's quick plan (where it has one) compares gtr* with and without rules.
    for c in all_cases() {
        let steps = c.quick.steps();
        assert!(
            c.quick.is_empty() || steps.contains(&step("gtr*", &c.lang, false)),
            "{}",
            c.id
        );
        assert!(
            c.full.steps().contains(&step("gtr*", &c.lang, false)),
            "{}",
            c.id
        );
    }
}

#[test]
fn every_case_is_consistent() {
    let cases = all_cases();
    let mut ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), cases.len(), "case ids are unique");
    let root = crate::workspace_root();
    for c in all_cases() {
        // A case may have no quick plan (a slow oracle), but it always has a full one.
        assert!(!c.full.is_empty(), "{}", c.id);
        assert_eq!(
            c.quick.algorithms.is_empty(),
            c.quick.jobs.is_empty(),
            "{}",
            c.id
        );
        for quick in [false, true] {
            let plan = c.plan(quick);
            for (algorithm, lang) in &plan.algorithms {
                assert!(
                    ["ddmin", "hdd", "hdd*", "hdd+", "gtr", "gtr*"].contains(&algorithm.as_str()),
                    "{}: {algorithm}",
                    c.id
                );
                assert!(lang == LINES || *lang == c.lang, "{}: {lang}", c.id);
            }
        }
        // The quick run is a part of the full one.
        for step in &c.quick.algorithms {
            assert!(c.full.algorithms.contains(step), "{}: {step:?}", c.id);
        }
        for j in &c.quick.jobs {
            assert!(c.full.jobs.contains(j), "{}", c.id);
        }
        // Candidates carry the input's name; its extension matches the format.
        assert_eq!(c.input_path().file_name().unwrap(), c.file_name.as_str());
        // Scripts in the repository exist and are executable; shared ones are under ../shared.
        let script = c.oracle.script_path(Path::new("/shared"), &root);
        match &c.oracle.script {
            Script::Repo(p) => {
                use std::os::unix::fs::PermissionsExt as _;
                assert_eq!(script, root.join(p));
                let mode = std::fs::metadata(&script).unwrap().permissions().mode();
                assert_ne!(mode & 0o111, 0, "{} is not executable", script.display());
            }
            Script::Shared(p) => {
                assert_eq!(script, Path::new("/shared").join(p));
                assert!(c.oracle.shown_path().starts_with("../shared"));
            }
        }
        // Inputs of the shared folder exist there (when it is there at all).
        let shared = root.join("../shared");
        if let Source::Shared { path } = &c.source
            && shared.is_dir()
        {
            assert!(shared.join(path).is_file(), "{}: {path}", c.id);
            assert!(path.ends_with(&c.file_name), "{}", c.id);
        }
        // An output viewer takes the output file as `{}`.
        if let Show::Through { args, .. } = &c.show {
            assert_eq!(args.iter().filter(|a| *a == "{}").count(), 1, "{}", c.id);
        }
    }
}

#[test]
fn cases_are_selected_by_id_in_list_order() {
    let cases = all_cases();
    let selected = select_cases(&cases, &[]).unwrap();
    let all: Vec<&str> = selected.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(
        all,
        [
            "xml-iso-entity",
            "xml-cov-xkb",
            "xml-gtr-coverage-153603",
            "py-underlying-dict",
            "pdf-js-at-opening",
            "pdf-pdfcop-crash",
            "pdf-openaction-small",
            "js-prettier-acorn",
            "js-engines-numbro"
        ]
    );
    let pdf = select_cases(
        &cases,
        &[
            "pdf-openaction-small".to_string(),
            "pdf-js-at-opening".to_string(),
        ],
    )
    .unwrap();
    assert_eq!(pdf[0].id, "pdf-js-at-opening");
    assert_eq!(pdf[1].id, "pdf-openaction-small");
    let some = select_cases(&cases, &["py-underlying-dict".to_string()]).unwrap();
    assert_eq!(some.len(), 1);
    assert_eq!(some[0].id, "py-underlying-dict");
    let err = select_cases(&cases, &["js-nope".to_string()])
        .unwrap_err()
        .to_string();
    assert!(err.contains("no case `js-nope`") && err.contains("py-underlying-dict"));
}

#[test]
fn outputs_are_the_same_only_if_all_jobs_produced_identical_bytes() {
    let a = || Some(b"x = 1\n".to_vec());
    assert_eq!(same_outputs(&[a(), a()]), Some(true));
    assert_eq!(same_outputs(&[a(), Some(b"x = 2\n".to_vec())]), Some(false));
    assert_eq!(same_outputs(&[a(), None]), None);
    assert_eq!(same_outputs(&[a()]), None);
    assert_eq!(same_outputs(&[a(), a(), Some(Vec::new())]), Some(false));
}

#[test]
fn words_are_joined_with_commas_and_and() {
    let w = |v: &[&str]| join_words(&v.iter().map(ToString::to_string).collect::<Vec<_>>());
    assert_eq!(w(&[]), "");
    assert_eq!(w(&["a"]), "a");
    assert_eq!(w(&["a", "b"]), "a and b");
    assert_eq!(w(&["a", "b", "c"]), "a, b and c");
}

/// Runs the Python case's oracle on `source`, saved as `name` in a fresh directory; its exit
/// status. `None` when python3 or timeout is missing (the benchmark needs them, the tests do not).
fn py_oracle(source: &str, timeout: &str) -> Option<i32> {
    let have = |p: &str| {
        crate::command(p)
            .arg("--version")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !have("python3") || !have("timeout") {
        eprintln!("python3 or timeout missing: the oracle is not exercised");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cand.py");
    std::fs::write(&file, source).unwrap();
    let py = case("py-underlying-dict");
    let script: PathBuf = py
        .oracle
        .script_path(Path::new("/nonexistent"), &crate::workspace_root());
    let status = crate::command(script)
        .arg(&file)
        .env("ORACLE_TIMEOUT", timeout)
        .current_dir(dir.path())
        .status()
        .unwrap();
    // The candidate's directory is left as it was: no core file, no byte-code cache.
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 1);
    status.code()
}

#[test]
fn the_python_oracle_accepts_segfaults_only() {
    // A segfault through ctypes: interesting.
    if let Some(code) = py_oracle("import ctypes\nctypes.string_at(0)\n", "10") {
        assert_eq!(code, 0);
    }
    // A shell cannot tell a death by SIGSEGV from `exit(139)` (both are status 139), and the
    // oracle follows cases.md's "exit status 139": deliberately exiting with 139 counts. No
    // reduction of underlying_dict.py can do that (it has no digit 3 or 9, nor `os`).
    if let Some(code) = py_oracle("raise SystemExit(139)\n", "10") {
        assert_eq!(code, 0);
    }
    // A clean exit, an exception, another signal, a syntax error: not interesting.
    for boring in [
        "print(1)\n",
        "raise SystemExit(11)\n",
        "1/0\n",
        "import os, signal\nos.kill(os.getpid(), signal.SIGABRT)\n",
        "def f(:\n",
    ] {
        if let Some(code) = py_oracle(boring, "10") {
            assert_eq!(code, 1, "{boring}");
        }
    }
    // A hang is killed at the timeout and is not interesting.
    if let Some(code) = py_oracle("while True:\n    pass\n", "0.3") {
        assert_eq!(code, 1);
    }
}

#[test]
fn the_python_check_is_pythons_own_parser() {
    let check = case("py-underlying-dict").check.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = |source: &str| {
        let file = dir.path().join("c.py");
        std::fs::write(&file, source).unwrap();
        crate::command(&check.program)
            .args(&check.args)
            .arg(&file)
            .stderr(std::process::Stdio::null())
            .status()
            .map(|s| s.success())
    };
    let Ok(valid) = run("import gc\nclass A:\n    x = 1\n") else {
        eprintln!("no python3: the check is not exercised");
        return;
    };
    assert!(valid);
    assert!(!run("class A(object):\n").unwrap());
    assert!(!run("dct[\"f\"] = lambda self:\n").unwrap());
    // Valid but useless is still valid: the check is about syntax only.
    assert!(run("").unwrap());
}

#[test]
fn fences_outgrow_backticks_and_long_outputs_are_cut() {
    assert_eq!(fenced(b"x ```` y", 0), "`````\nx ```` y\n`````\n");
    let long = vec![b'a'; 5000];
    let f = fenced(&long, long.len());
    assert_eq!(
        f,
        fenced(&long[..1200], long.len()),
        "a cut output shows the same"
    );
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

// ---- The comparison with other reducers (issue #7) ----

use crate::measure::{CallLog, Usage};
use crate::reducers::{Calls, Job, Other, python_version};
use crate::summary::{self as summary_mod, Run};

/// Runs the counting wrapper as a reducer would, `count.sh LOG ORACLE FILE ARGS...`.
fn call_wrapper(log: &Path, oracle: &Path, file: &Path, args: &[&str]) -> Option<i32> {
    crate::command(crate::workspace_root().join("xtask/oracles/count.sh"))
        .arg(log)
        .arg(oracle)
        .arg(file)
        .args(args)
        .status()
        .expect("count.sh runs")
        .code()
}

#[test]
fn the_counting_wrapper_counts_every_call_and_keeps_the_smallest_interesting_file() {
    let dir = tempfile::tempdir().unwrap();
    let oracle = dir.path().join("oracle.sh");
    // Interesting when the file holds the word given as the argument.
    std::fs::write(&oracle, "#!/bin/sh\ngrep -q \"$2\" \"$1\"\n").unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&oracle, std::fs::Permissions::from_mode(0o755)).unwrap();
    let log = dir.path().join("calls.log");
    let files = [
        ("a.txt", "needle in a big haystack\n", 0),
        ("b.txt", "no match here\n", 1),
        ("c.txt", "a needle\n", 0),
        ("d.txt", "needle and more hay than c\n", 0),
        ("e.txt", "\n", 1),
    ];
    let rounds = 3;
    for _ in 0..rounds {
        for (name, text, expect) in files {
            let f = dir.path().join(name);
            std::fs::write(&f, text).unwrap();
            assert_eq!(
                call_wrapper(&log, &oracle, &f, &["needle"]),
                Some(expect),
                "{name}"
            );
        }
    }
    let parsed = CallLog::parse(&std::fs::read_to_string(&log).unwrap());
    assert_eq!(parsed.calls, 15);
    assert_eq!(parsed.interesting, 9);
    assert_eq!(parsed.unfinished, 0);
    assert!(parsed.busy_seconds > 0.0);
    let best = dir.path().join("calls.log.best");
    assert_eq!(std::fs::read_to_string(best).unwrap(), "a needle\n");
}

#[test]
fn the_call_log_counts_parallel_calls_once_in_the_busy_time() {
    // Two calls overlapping from 10 to 14 (busy 4 s), one from 20 to 21 (1 s), one killed
    // (no end), and a torn line.
    let log = "start 1 10.0\nstart 2 11.0\nend 2 12.5 1\nend 1 14.0 0\nstart 3 20.0\n\
               end 3 21.0 0\nstart 4 30.0\nsta\n";
    let parsed = CallLog::parse(log);
    assert_eq!(parsed.calls, 4);
    assert_eq!(parsed.interesting, 2);
    assert_eq!(parsed.unfinished, 1);
    assert!(
        (parsed.busy_seconds - 5.0).abs() < 1e-9,
        "{}",
        parsed.busy_seconds
    );
    // 5 s busy in a 20 s run: 75 % outside the oracle.
    let share = parsed.outside_share_percent(20.0).unwrap();
    assert!((share - 75.0).abs() < 1e-9, "{share}");
    assert_eq!(parsed.outside_share_percent(0.0), None);
}

#[test]
fn measurements_of_xtask_measure_are_read_back() {
    let u = Usage {
        exit: Some(0),
        signal: None,
        wall_seconds: 2.5,
        user_seconds: 1.25,
        system_seconds: 0.5,
        max_rss_kib: 2048,
    };
    let back = Usage::from_json(&serde_json::to_string(&u).unwrap()).unwrap();
    assert_eq!(back, u);
    assert!((back.cpu_seconds() - 1.75).abs() < 1e-12);
    assert!(Usage::from_json("{\"exit\": 0}").is_err());
}

/// A job with fixed paths, for the command lines.
fn job<'a>(dir: &'a Path, work: &'a Path, script: &'a Path, jobs: usize) -> Job<'a> {
    Job {
        dir,
        work_file: work,
        file_name: "in put.py",
        test_script: script,
        lithium_condition: Path::new("/x/lithium_exit0.py"),
        count: Path::new("/x/count.sh"),
        call_log: Path::new("/r/calls.log"),
        oracle: Path::new("/o/oracle.sh"),
        oracle_args: Box::leak(Box::new(["a b".to_string(), "c".to_string()])),
        jobs,
        test_timeout_seconds: 120,
    }
}

fn strings(args: Vec<std::ffi::OsString>) -> Vec<String> {
    args.into_iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

#[test]
fn each_other_reducer_gets_its_command_line_and_test_script() {
    let (dir, work, script) = (
        Path::new("/r"),
        Path::new("/r/work/in put.py"),
        Path::new("/r/test.sh"),
    );
    let j = job(dir, work, script, 2);
    assert_eq!(
        strings(Other::CReduce.args(&j)),
        [
            "--not-c",
            "--n",
            "2",
            "--tidy",
            "--timeout",
            "120",
            "/r/test.sh",
            "in put.py"
        ]
    );
    assert_eq!(
        strings(Other::CVise.args(&j))[0..3],
        ["--not-c", "--n", "2"]
    );
    assert_eq!(
        strings(Other::Picire.args(&j)),
        [
            "-i",
            "/r/work/in put.py",
            "--test",
            "/r/test.sh",
            "-o",
            "/r/picire-out",
            "-a",
            "line",
            "--cache",
            "content",
            "-p",
            "-j",
            "2"
        ]
    );
    // Sequential picire has no parallel options.
    assert!(!strings(Other::Picire.args(&job(dir, work, script, 1))).contains(&"-p".into()));
    assert_eq!(
        strings(Other::Lithium.args(&j)),
        [
            "--testcase",
            "/r/work/in put.py",
            "/x/lithium_exit0.py",
            "/x/count.sh",
            "/r/calls.log",
            "/o/oracle.sh",
            "/r/work/in put.py",
            "a b",
            "c"
        ]
    );
    let tr = strings(Other::Treereduce.args(&j));
    assert_eq!(
        tr,
        [
            "-s",
            "/r/work/in put.py",
            "-o",
            "/r/out-in put.py",
            "-j",
            "2",
            "--timeout",
            "120",
            "--",
            "/x/count.sh",
            "/r/calls.log",
            "/o/oracle.sh",
            "@@",
            "a b",
            "c"
        ]
    );
    let sr = strings(Other::ShrinkRay.args(&j));
    assert_eq!(sr[sr.len() - 2..], ["/r/test.sh", "/r/work/in put.py"]);
    assert!(sr.windows(2).any(|w| w == ["--input-type", "arg"]));

    // The test scripts: the file in the working directory, or the first argument.
    let cwd = Other::CReduce.test_script(&j).unwrap();
    assert!(
        cwd.ends_with("exec /x/count.sh /r/calls.log /o/oracle.sh \"$PWD\"/'in put.py' 'a b' c\n"),
        "{cwd}"
    );
    let arg = Other::Picire.test_script(&j).unwrap();
    assert!(arg.ends_with("/o/oracle.sh \"$1\" 'a b' c\n"), "{arg}");
    assert!(arg.starts_with("#!/bin/sh\n"));
    assert_eq!(Other::Lithium.test_script(&j), None);
    assert_eq!(Other::CVise.calls(), Calls::FileInCwd);
    assert!(!Other::Lithium.parallel());
    assert!(Other::Treereduce.handles("javascript") && !Other::Treereduce.handles("python"));
    for o in Other::ALL {
        assert_eq!(Other::from_id(o.id()), Some(o));
    }
    assert_eq!(Other::from_id("perses"), None);
}

/// The ends of the real logs of each reducer on a 40-line file (`cargo xtask bench` keeps them
/// in each run's `log.txt`).
const CREDUCE_LOG: &str = "  method pass_clex :: rm-toks-1 worked 80 times and failed 4 times\n\
    \n          ******** /tmp/rt/creduce/work/in.txt ********\n\nalpha omega";
const CVISE_LOG: &str = "Runtime: 77 seconds\nReduced test-cases:\n\n\
    --- /tmp/rt/cvise/work/in.txt ---\nalpha omega\n";
const PICIRE_LOG: &str = "\tGranularity: 2\n\tDone\nOutput saved to /tmp/rt/picire/pout/in.txt\n";
const LITHIUM_LOG: &str = "  Final size: 2 lines\n  Tests performed: 21\n  Test total: 199 lines\n";
const SHRINKRAY_LOG: &str = "WARNING: could not load the LLM model (LocalEntryNotFoundError); \
    reducing without the LLM passes.\nReduction completed!\nDeleted 313 Bytes out of 323 Bytes \
    (96.90% reduction) in 1 minute and 9.98 seconds\n";
const TREEREDUCE_LOG: &str = "[\u{1b}[32mINFO\u{1b}[0m] Original size: 158\n\
    [\u{1b}[32mINFO\u{1b}[0m] Qutting after pass 2 found no reductions\n\
    [\u{1b}[32mINFO\u{1b}[0m] Total time: 5980ms\n";

#[test]
fn each_other_reducers_log_says_whether_it_finished_and_where_its_result_is() {
    let logs = [
        (Other::CReduce, CREDUCE_LOG),
        (Other::CVise, CVISE_LOG),
        (Other::Picire, PICIRE_LOG),
        (Other::Lithium, LITHIUM_LOG),
        (Other::ShrinkRay, SHRINKRAY_LOG),
        (Other::Treereduce, TREEREDUCE_LOG),
    ];
    for (other, log) in logs {
        assert!(other.finished(log), "{} finished", other.name());
        // No reducer mistakes another's log, or a log cut before the end, for its own end.
        for (o, l) in logs {
            if o != other {
                assert!(
                    !other.finished(l),
                    "{} on the log of {}",
                    other.name(),
                    o.name()
                );
            }
        }
        assert!(!other.finished("starting\nrunning pass 1\n"));
    }
    let (dir, work, script) = (
        Path::new("/r"),
        Path::new("/r/work/in.txt"),
        Path::new("/r/test.sh"),
    );
    let j = job(dir, work, script, 2);
    assert_eq!(
        Other::Picire.output(&j, PICIRE_LOG),
        PathBuf::from("/tmp/rt/picire/pout/in.txt")
    );
    assert_eq!(
        Other::Picire.output(&j, "killed"),
        PathBuf::from("/r/picire-out/in put.py")
    );
    assert_eq!(
        Other::CReduce.output(&j, CREDUCE_LOG),
        PathBuf::from("/r/work/in.txt")
    );
    assert_eq!(
        Other::Treereduce.output(&j, TREEREDUCE_LOG),
        PathBuf::from("/r/out-in put.py")
    );
    assert_eq!(Other::Lithium.own_call_count(LITHIUM_LOG), Some(21));
    assert_eq!(Other::CVise.own_call_count(CVISE_LOG), None);
    assert_eq!(python_version("Python 3.12.1\n"), Some((3, 12)));
    assert_eq!(python_version("Python 3.9.18"), Some((3, 9)));
    assert_eq!(python_version("pyenv: python3.12: command not found"), None);
}

fn run(case: &str, format: &str, reducer: &str, jobs: usize, nodes: u64, calls: u64) -> Run {
    Run {
        case: case.into(),
        format: format.into(),
        reducer: reducer.into(),
        jobs,
        bytes_before: 1000,
        bytes_after: nodes * 10,
        nodes_before: Some(100),
        nodes_after: Some(nodes),
        // Twice as many tokens left as nodes, of 100: the token share is twice the node share.
        tokens_before: Some(100),
        tokens_after: Some(2 * nodes),
        calls,
        wall_seconds: calls as f64 / 10.0,
        still_interesting: Some(true),
        ..Run::default()
    }
}

/// Hand-made runs: two XML cases and one Python case, whittle and two others.
fn hand_made_runs() -> Vec<Run> {
    let mut not_interesting = run("x2", "xml", "picire", 2, 1, 5);
    not_interesting.still_interesting = Some(false);
    // A failed run (C-Vise refusing a binary file) left the input as it was: not counted.
    let mut failed = run("x3", "xml", "C-Vise", 2, 100, 1);
    failed.failed = true;
    let mut no_rules = run("x1", "xml", "whittle gtr*", 2, 1, 500);
    no_rules.no_rules = true;
    vec![
        // -j 1 runs are left out of the medians where -j 2 ran.
        run("x1", "xml", "whittle gtr*", 1, 99, 999),
        run("x1", "xml", "whittle gtr*", 2, 4, 40),
        no_rules,
        run("x2", "xml", "whittle gtr*", 2, 8, 60),
        run("x1", "xml", "picire", 2, 6, 100),
        not_interesting,
        run("x1", "xml", "C-Vise", 2, 2, 900),
        run("x2", "xml", "C-Vise", 2, 10, 700),
        failed,
        Run {
            valid: Some(true),
            ..run("p1", "python", "whittle gtr*", 2, 50, 200)
        },
        Run {
            valid: Some(false),
            ..run("p1", "python", "C-Vise", 2, 40, 3000)
        },
    ]
}

#[test]
fn medians_per_format_leave_out_lower_jobs_no_rules_and_uninteresting_runs() {
    let runs = hand_made_runs();
    let compared = summary_mod::compared(&runs);
    let m = summary_mod::medians(&compared, "xml", "whittle gtr*");
    // Nodes 4 % and 8 % (the -j 1 and --no-rules runs left out): median 6 %.
    assert_eq!(m.cases, 2);
    assert_eq!(m.nodes_percent, Some(6.0));
    assert_eq!(m.bytes_percent, Some(6.0));
    assert_eq!(m.calls, Some(50.0));
    let p = summary_mod::medians(&compared, "xml", "picire");
    assert_eq!((p.cases, p.left_out), (1, 1));
    assert_eq!(p.nodes_percent, Some(6.0));
    let c = summary_mod::medians(&compared, "xml", "C-Vise");
    assert_eq!(c.nodes_percent, Some(6.0));
    assert_eq!(c.calls, Some(800.0));
    // Its failed run on x3 is left out (counted, it would make the median 10 %).
    assert_eq!((c.cases, c.left_out), (2, 1));
    // Best other on XML: C-Vise and picire tie on nodes and bytes; picire has fewer calls.
    let (name, _) = summary_mod::best_other(&compared, "xml").unwrap();
    assert_eq!(name, "picire");
    let (name, best) = summary_mod::best_other(&compared, "python").unwrap();
    assert_eq!((name.as_str(), best.nodes_percent), ("C-Vise", Some(40.0)));
}

#[test]
fn table_two_and_the_headline_show_the_hand_computed_medians() {
    let runs = hand_made_runs();
    let table = summary_mod::table_two(&runs);
    let lines: Vec<&str> = table.lines().collect();
    // Header, alignment, three XML reducers, two Python ones.
    assert_eq!(lines.len(), 7, "{table}");
    assert_eq!(
        cells(lines[2]),
        [
            "xml",
            "whittle gtr*",
            "2",
            "6.0 %",
            "12 %",
            "6.0 %",
            "50",
            "5.0",
            "0",
            "—"
        ]
    );
    assert_eq!(
        cells(lines[3])[..4],
        ["xml", "picire", "1 (+1 failed or not interesting)", "6.0 %"]
    );
    assert_eq!(
        cells(lines[6]),
        [
            "python",
            "C-Vise",
            "1",
            "40 %",
            "80 %",
            "40 %",
            "3000",
            "300.0",
            "0",
            "**0 of 1**"
        ]
    );
    let head = summary_mod::headline(&runs);
    let lines: Vec<&str> = head.lines().collect();
    assert_eq!(lines.len(), 4, "{head}");
    // XML: picire has a result for x1 only, where whittle left 4 % in 40 calls against
    // picire's 6 % in 100; no output checked.
    assert_eq!(
        cells(lines[2]),
        [
            "xml",
            "4.0 % / 4.0 %",
            "40",
            "—",
            "picire",
            "6.0 % / 6.0 %",
            "100",
            "—",
            "whittle",
            "whittle"
        ]
    );
    // Table II keeps the medians over each reducer's own cases.
    assert!(table.contains("| xml | whittle gtr* | 2 | 6.0 % |"));
    // Python: C-Vise is smaller (40 % against 50 %) but its output is not valid Python;
    // whittle needs fewer calls.
    assert_eq!(
        cells(lines[3]),
        [
            "python",
            "50 % / 50 %",
            "200",
            "1 of 1",
            "C-Vise",
            "40 % / 40 %",
            "3000",
            "**0 of 1**",
            "**other**",
            "whittle"
        ]
    );
    // An other reducer whose output whittle's parser refuses is compared by bytes.
    let mut runs = hand_made_runs();
    for r in runs
        .iter_mut()
        .filter(|r| r.reducer == "C-Vise" && r.format == "python")
    {
        r.nodes_after = None;
        r.bytes_after = 300;
    }
    let head = summary_mod::headline(&runs);
    let python = cells(head.lines().nth(3).unwrap());
    assert_eq!(python[5], "— / 30 %");
    assert_eq!(python[8], "**other**");
}

#[test]
fn the_speedup_table_pairs_j1_and_j2_of_the_same_run() {
    let runs = hand_made_runs();
    let table = summary_mod::speedup_table(&runs);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 3, "{table}");
    // 999 calls at -j 1 (99.9 s) against 40 at -j 2 (4.0 s).
    assert_eq!(
        cells(lines[2]),
        [
            "x1",
            "whittle gtr*",
            "shipped",
            "99.90",
            "4.00",
            "24.98×",
            "999 / 40"
        ]
    );
    assert_eq!(summary_mod::speedup(1.0, 0.0), "—");
    assert!(summary_mod::speedup_table(&runs[1..]).is_empty());
}

#[test]
fn box_plots_are_svg_with_a_panel_per_format() {
    let runs = hand_made_runs();
    let svg = crate::plots::box_plot_svg(&runs, crate::plots::Measure::Calls, "calls")
        .unwrap()
        .unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..50]);
    assert!(svg.contains("format: xml") && svg.contains("format: python"));
    assert!(svg.contains("C-Vise") && svg.contains("whittle gtr*"));
    let series = crate::plots::series(&runs, crate::plots::Measure::NodesPercent);
    // picire's uninteresting run is not drawn.
    let xml = &series[0].1;
    assert_eq!(xml[0], ("whittle gtr*".to_string(), vec![4.0, 8.0]));
    assert_eq!(xml[1], ("picire".to_string(), vec![6.0]));
    assert_eq!(
        crate::plots::box_plot_svg(&[], crate::plots::Measure::Calls, "x").unwrap(),
        None
    );
}

#[test]
fn tree_nodes_are_counted_by_whittles_own_parsers() {
    // <a><b/></a>: the root element and its child, at least.
    let xml = summary_mod::tree_nodes("xml", b"<a><b/></a>").unwrap();
    let bigger = summary_mod::tree_nodes("xml", b"<a><b/><c/><d/></a>").unwrap();
    assert!(bigger > xml && xml >= 2, "{xml} {bigger}");
    let py = summary_mod::tree_nodes("python", b"x = 1\n").unwrap();
    let js = summary_mod::tree_nodes("javascript", b"var x = 1;\n").unwrap();
    assert!(py > 1 && js > 1);
    assert_eq!(summary_mod::tree_nodes("pdf", b"not a pdf"), None);
    assert_eq!(summary_mod::tree_nodes("lines", b"a\nb\n"), None);
}

#[test]
fn a_case_shows_its_other_reducers_and_a_partial_document_says_so() {
    use crate::summary::{Measured, OtherRow};
    let measured = |bytes: u64, calls: u64, from_wrapper: bool| Measured {
        usage: Some(Usage {
            exit: Some(0),
            wall_seconds: 10.0,
            user_seconds: 3.0,
            system_seconds: 1.0,
            max_rss_kib: 3 * 1024,
            ..Usage::default()
        }),
        calls: CallLog {
            calls,
            interesting: 1,
            unfinished: 0,
            busy_seconds: 7.5,
        },
        wall_seconds: 10.0,
        bytes_after: bytes,
        nodes_after: Some(9),
        tokens_after: Some(20),
        from_wrapper,
    };
    let others = vec![
        OtherRow {
            case: "py-underlying-dict".into(),
            id: "lithium".into(),
            name: "lithium".into(),
            version: "PyPI `lithium-reducer` 4.0.0 (Python 3.11.7, `target/bench-tools/py`)".into(),
            jobs: 1,
            measured: Some(measured(150, 20, false)),
            finished: true,
            own_calls: Some(21),
            still_interesting: Some(true),
            check: Some(true),
            ..OtherRow::default()
        },
        OtherRow {
            case: "py-underlying-dict".into(),
            id: "cvise".into(),
            name: "C-Vise".into(),
            version: "Debian `cvise` 2.7.0-2 (`/usr/bin/cvise`)".into(),
            jobs: 2,
            measured: Some(measured(140, 900, true)),
            budget_minutes_hit: Some(2.0),
            still_interesting: Some(true),
            check: Some(false),
            ..OtherRow::default()
        },
    ];
    let mut section = py_section(vec![]);
    section.others = others;
    section.others_not_run = vec![(
        "Shrink Ray".into(),
        "not installable here: needs Python ≥ 3.12".into(),
    )];
    section.format = "python".into();
    section.bytes_before = 282;
    section.nodes_before = Some(100);
    let env = Environment {
        partial: Some("2 of 7 cases done".into()),
        others_budget_minutes: 2.0,
        ..sample_env()
    };
    let doc = report::document(&env, &[section], &[], &[]);
    assert!(doc.contains(
        "**Partial run**: written while the benchmark was still running (2 of 7 cases done)"
    ));
    let table: Vec<&str> = doc
        .lines()
        .skip_while(|l| !l.starts_with("Other reducers on `py-underlying-dict`"))
        .skip(2)
        .take(4)
        .collect();
    let lithium = cells(table[2]);
    assert_eq!(
        lithium,
        [
            "lithium PyPI `lithium-reducer` 4.0.0",
            "1",
            "150",
            "9",
            "20 (it says 21)",
            "10.0",
            "4.0",
            "3",
            "25.0 %",
            "yes",
            "yes",
            "yes"
        ]
    );
    let cvise = cells(table[3]);
    assert_eq!(cvise[2], "140 (smallest interesting candidate tested)");
    assert_eq!(cvise[5], "10.0 (**budget**: 2 min)");
    assert_eq!((cvise[9].as_str(), cvise[11].as_str()), ("no", "**NO**"));
    assert!(doc.contains(
        "- Shrink Ray did not run on this case: not installable here: needs Python ≥ 3.12."
    ));
    // The comparison section counts both runs, with the wrapper's calls.
    assert!(doc.contains("## Comparison of reducers"));
    assert!(doc.contains("| py-underlying-dict | C-Vise | 2 | n/a | 282 → 140 (50 %) | 100 → 9 (9.0 %) | — | 900 | 10.0 (**budget**) | 4.0 | 3 | yes | **NO** |"));
}

#[test]
fn tokens_are_grammar_leaves_for_code_and_words_and_symbols_otherwise() {
    // Counted by hand: x = f ( 1 )
    assert_eq!(summary_mod::tokens("python", b"x = f(1)\n"), Some(6));
    // A comment is one token: # c, pass
    assert_eq!(
        summary_mod::tokens("python", b"# c\nif a:\n    pass\n"),
        Some(5)
    );
    // let a = " hi " ; (a string is its quotes and its fragment)
    assert_eq!(
        summary_mod::tokens("javascript", b"let a = \"hi\";\n"),
        Some(7)
    );
    assert_eq!(summary_mod::tokens("javascript", b""), Some(0));
    // < a b = " x & y " > t t < / a >
    assert_eq!(
        summary_mod::tokens("xml", b"<a b=\"x&y\">t  t</a>\n"),
        Some(16)
    );
    // A word runs over digits, `_` and non-ASCII bytes: `caf\xc3\xa9_2` is one.
    assert_eq!(summary_mod::lexical_tokens(b" caf\xc3\xa9_2 /Type\n"), 3);
    assert_eq!(summary_mod::lexical_tokens(b" \n\t "), 0);
    // PDF objects sit in compressed streams: not counted.
    assert_eq!(summary_mod::tokens("pdf", b"%PDF-1.7\n1 0 obj\n"), None);
}

#[test]
fn saved_results_redraw_the_same_document() {
    let mut section = pdf_section(vec![pdf_row(2, false, 405, 26)]);
    section.tokens_before = Some(900);
    section.not_run = Some(NotRun::Broken("the oracle rejects the input".into()));
    let results = report::Results {
        version: report::Results::VERSION,
        environment: sample_env(),
        sections: vec![section, xml_section(vec![row("gtr*", 1)])],
        overhead: vec![overhead(vec![Some(0), Some(0)], 0)],
    };
    let json = results.to_json().unwrap();
    // The PDF output is not UTF-8: it is saved as numbers; the XML one as text.
    assert!(json.contains("\"<a b=\\\"&\\\"/>\\n\""), "{json}");
    let back = report::Results::from_json(&json).unwrap();
    assert_eq!(back, results);
    assert_eq!(
        report::document(&back.environment, &back.sections, &back.overhead, &[]),
        report::document(
            &results.environment,
            &results.sections,
            &results.overhead,
            &[]
        )
    );
    let other = json.replacen(
        &format!("\"version\": {}", report::Results::VERSION),
        "\"version\": 999",
        1,
    );
    let err = report::Results::from_json(&other).unwrap_err();
    assert!(format!("{err:#}").contains("version 999"), "{err:#}");
    assert!(report::Results::from_json("{}").is_err());
}

#[test]
fn long_outputs_are_saved_cut_but_shown_with_their_length() {
    let out = Output::new("x".into(), vec![b'a'; 5000], 5000, None);
    assert_eq!(out.bytes.len(), 1200);
    assert_eq!(out.shown_len, 5000);
    assert!(fenced(&out.bytes, out.shown_len).contains("… (3800 more bytes)"));
}

#[test]
fn keep_sections_of_other_commands_survive_a_rewrite() {
    let old = "# B\n\nold table\n\n<!-- keep:greduce:begin -->\nG1\nG2\n<!-- keep:greduce:end -->\n\n\
               <!-- keep:x:begin -->\nX\n<!-- keep:x:end -->\n";
    // Appended to a document that lacks them, in their order.
    let new = report::carry_keep_sections(old, "# B\n\nnew table\n".to_string());
    assert_eq!(
        new,
        "# B\n\nnew table\n\n<!-- keep:greduce:begin -->\nG1\nG2\n<!-- keep:greduce:end -->\n\n\
         <!-- keep:x:begin -->\nX\n<!-- keep:x:end -->\n"
    );
    // Put in place of the same section of the new document.
    let with_stale = "# B\n\n<!-- keep:x:begin -->\nstale\n<!-- keep:x:end -->\n\n## end\n";
    let new = report::carry_keep_sections(old, with_stale.to_string());
    assert!(
        new.contains("<!-- keep:x:begin -->\nX\n<!-- keep:x:end -->\n\n## end\n"),
        "{new}"
    );
    assert!(!new.contains("stale"));
    // A section without its end is left alone.
    let broken = "<!-- keep:y:begin -->\nY\n";
    assert_eq!(report::carry_keep_sections(broken, "N\n".into()), "N\n");
}

#[test]
fn a_partial_run_keeps_the_saved_results_of_what_it_did_not_rerun() {
    use crate::summary::OtherRow;
    let other = |name: &str, bytes: u64| OtherRow {
        case: "xml-iso-entity".into(),
        id: name.to_lowercase(),
        name: name.into(),
        measured: Some(crate::summary::Measured {
            bytes_after: bytes,
            ..Default::default()
        }),
        ..OtherRow::default()
    };
    let mut old_xml = xml_section(vec![row("gtr*", 1)]);
    old_xml.others = vec![other("picire", 70), other("C-Vise", 9000)];
    old_xml.others_not_run = vec![("lithium".into(), "not installable here".into())];
    let old_py = py_section(vec![py_row("gtr*", "python", 1, true)]);
    let saved = report::Results {
        version: report::Results::VERSION,
        environment: sample_env(),
        sections: vec![old_xml.clone(), old_py.clone()],
        overhead: vec![],
    };
    let order = ["xml-iso-entity", "py-underlying-dict", "pdf-js-at-opening"];

    // `--case xml-iso-entity --reducer picire`: whittle's rows and C-Vise's are kept, picire's
    // is the new one; the Python case is carried over, marked with the saved run's date.
    let mut now = xml_section(vec![]);
    now.rows.clear();
    now.outputs.clear();
    now.others = vec![other("picire", 60)];
    let merged = report::merge_sections(&saved, vec![now], false, &["picire".into()], &order);
    assert_eq!(
        merged.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
        ["xml-iso-entity", "py-underlying-dict"]
    );
    assert_eq!(merged[0].rows, old_xml.rows);
    assert_eq!(merged[0].outputs, old_xml.outputs);
    let others: Vec<(&str, u64)> = merged[0]
        .others
        .iter()
        .map(|o| (o.name.as_str(), o.measured.as_ref().unwrap().bytes_after))
        .collect();
    assert_eq!(others, [("C-Vise", 9000), ("picire", 60)]);
    assert_eq!(merged[0].others_not_run, old_xml.others_not_run);
    assert_eq!(merged[0].carried_from, None);
    assert_eq!(
        merged[1].carried_from.as_deref(),
        Some("2025-01-02 03:04 UTC, whittle `abc`")
    );
    assert_eq!(merged[1].rows, old_py.rows);
    let doc = report::document(&saved.environment, &merged, &[], &[]);
    assert_eq!(doc.matches("- **Measured by an earlier run** (").count(), 1);
    assert!(doc.contains("The cases marked **Measured by an earlier run** were measured"));

    // `--case py-underlying-dict` with whittle: the new rows replace the saved ones.
    let now = py_section(vec![py_row("hdd*", "python", 2, true)]);
    let merged = report::merge_sections(&saved, vec![now.clone()], true, &[], &order);
    assert_eq!(merged[1].rows, now.rows);
    assert_eq!(
        merged[0]
            .carried_from
            .as_deref()
            .map(|s| s.contains("2025")),
        Some(true)
    );
}

#[test]
fn the_coverage_wrapper_calls_the_shared_oracle_with_the_reference_first() {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("fake.py");
    let seen = dir.path().join("seen.txt");
    // Stands in for xml_gcov_coverage.py: writes its arguments, exits 0 on `--superset` only.
    std::fs::write(
        &fake,
        format!(
            "import sys\nopen({:?}, 'w').write(' '.join(sys.argv[1:]))\n\
             sys.exit(0 if sys.argv[-1] == '--superset' else 1)\n",
            seen.to_str().unwrap()
        ),
    )
    .unwrap();
    let script = crate::workspace_root().join("xtask/oracles/xml_coverage.sh");
    let run = |extra: &[&str], with_env: bool| {
        let mut cmd = crate::command(&script);
        cmd.arg("cand.xml").args(extra).current_dir(dir.path());
        if with_env {
            cmd.env("WHITTLE_COVERAGE_ORACLE", &fake)
                .env("WHITTLE_COVERAGE_REF", "ref.json")
                .env("XMLLINT_GCOV_DIR", "/nowhere");
        } else {
            cmd.env_remove("WHITTLE_COVERAGE_REF");
        }
        let ok = cmd.status().unwrap().success();
        (ok, std::fs::read_to_string(&seen).unwrap_or_default())
    };
    assert_eq!(
        run(&["--superset"], true),
        (true, "--check ref.json cand.xml --superset".to_string())
    );
    assert_eq!(
        run(&[], true),
        (false, "--check ref.json cand.xml".to_string())
    );
    std::fs::remove_file(&seen).unwrap();
    // Without the benchmark's variables it refuses, and the oracle never runs.
    assert_eq!(run(&[], false), (false, String::new()));
}

#[test]
fn pdf_runs_carry_no_token_counts_even_from_older_results() {
    let mut row = pdf_row(2, false, 405, 26);
    row.measured = Some(crate::summary::Measured {
        bytes_after: 405,
        tokens_after: Some(300),
        ..Default::default()
    });
    let mut section = pdf_section(vec![row]);
    section.format = "pdf".into();
    section.tokens_before = Some(900);
    let runs = summary_mod::runs(&[section.clone()]);
    assert_eq!(runs.len(), 1);
    assert_eq!((runs[0].tokens_before, runs[0].tokens_after), (None, None));
    // The same run of a text format keeps them.
    section.format = "xml".into();
    let runs = summary_mod::runs(&[section]);
    assert_eq!(runs[0].tokens_percent(), Some(100.0 * 300.0 / 900.0));
}

#[test]
fn the_commit_is_work_in_progress_only_when_more_than_the_benchmarks_outputs_changed() {
    let dir = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        let ok = crate::command("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t", "-C"])
            .arg(dir.path())
            .args(args)
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    std::fs::create_dir(dir.path().join("docs")).unwrap();
    std::fs::write(dir.path().join("docs/benchmarks.md"), "old\n").unwrap();
    std::fs::write(dir.path().join("code.rs"), "fn a() {}\n").unwrap();
    git(&["add", "."]);
    git(&["commit", "-qm", "x"]);
    let clean = crate::bench::git_commit(dir.path());
    assert!(
        clean.starts_with('`') && !clean.contains("uncommitted"),
        "{clean}"
    );
    std::fs::write(dir.path().join("docs/benchmarks.md"), "new\n").unwrap();
    std::fs::write(dir.path().join("docs/benchmarks.json"), "{}\n").unwrap();
    assert_eq!(crate::bench::git_commit(dir.path()), clean);
    std::fs::write(dir.path().join("code.rs"), "fn b() {}\n").unwrap();
    assert!(crate::bench::git_commit(dir.path()).contains("plus uncommitted changes"));
}
