//! Fixtures shared by the test modules: whittle's report, rows and sections of every kind,
//! the environment, the cases of `xtask/cases/`, hand-made runs.

use crate::cases::{Case, Plan};
use crate::report::Report;
use crate::results::{CaseSection, Columns, Environment, Output, OverheadRow, Row};
use crate::summary::Run;

/// A report as whittle-cli writes it (keys it has and the benchmark ignores included).
pub(crate) const REPORT_JSON: &str = r#"{
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

pub(crate) fn sample_report() -> Report {
    Report::from_json(REPORT_JSON).unwrap()
}

pub(crate) fn row(algorithm: &str, jobs: usize) -> Row {
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
pub(crate) fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner.split(" | ").map(|c| c.trim().to_string()).collect()
}

pub(crate) fn overhead(exits: Vec<Option<i32>>, expected: i32) -> OverheadRow {
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

/// A section of the XML case holding `rows`.
pub(crate) fn xml_section(rows: Vec<Row>) -> CaseSection {
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
pub(crate) fn py_row(algorithm: &str, lang: &str, jobs: usize, valid: bool) -> Row {
    let mut report = sample_report();
    report.run.bytes_before = 282;
    report.run.bytes_after = 140;
    report.run.stats.gate_rejections = 1234;
    Row {
        case: "py-underlying-dict".into(),
        lang: lang.into(),
        check: Some(valid),
        report: Some(report),
        ..row(algorithm, jobs)
    }
}

/// A section of the Python case holding `rows`.
pub(crate) fn py_section(rows: Vec<Row>) -> CaseSection {
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

pub(crate) fn sample_env() -> Environment {
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

/// A `gtr*` row of a PDF case: `bytes` after, `calls` oracle calls, with or without rules.
pub(crate) fn pdf_row(jobs: usize, no_rules: bool, bytes: usize, calls: u64) -> Row {
    let mut report = sample_report();
    report.run.bytes_before = 328_400;
    report.run.bytes_after = bytes;
    report.run.stats.oracle_calls = calls;
    report.run.stats.filtered = if no_rules { 0 } else { 55 };
    report.run.wall_seconds = calls as f64 / 2.0;
    report.run.outside_oracle_seconds = 0.0;
    report.run.stats.oracle_busy_seconds = report.run.wall_seconds;
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
pub(crate) fn pdf_section(rows: Vec<Row>) -> CaseSection {
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

/// Every case's id, in the order of the document.
pub(crate) const CASE_IDS: [&str; 20] = [
    "xml-iso-entity",
    "xml-cov-xkb",
    "xml-gtr-coverage-153603",
    "py-underlying-dict",
    "pdf-js-at-opening",
    "pdf-pdfcop-crash",
    "pdf-openaction-small",
    "js-prettier-acorn",
    "js-engines-numbro",
    "sim-cluster",
    "gcc12-lua-lparser-objsz",
    "gcc12-pr108498-store-merging",
    "gcc12-pr108975-lambda-array-bound",
    "clang15-gh61885-if-constexpr",
    "sim-needles",
    "xml-svg-xmlns-entity",
    "xml-xhtml-form-content",
    "js-node-missing-module",
    "js-uglify-octal-escape",
    "js-uglify2-parse-error",
];

/// The `--lang` of whittle's line-based format, which `ddmin` works on.
pub(crate) const LINES: &str = "lines";

/// The cases of `xtask/cases/`.
pub(crate) fn all_cases() -> Vec<Case> {
    crate::cases::load(&crate::cases::cases_dir()).unwrap()
}

pub(crate) fn case(id: &str) -> Case {
    all_cases().into_iter().find(|c| c.id == id).unwrap()
}

/// A plan's (algorithm, format) pairs, to compare with literals.
pub(crate) fn algos(plan: &Plan) -> Vec<(&str, &str)> {
    plan.algorithms
        .iter()
        .map(|(a, l)| (a.as_str(), l.as_str()))
        .collect()
}

pub(crate) fn run(
    case: &str,
    format: &str,
    reducer: &str,
    jobs: usize,
    nodes: u64,
    calls: u64,
) -> Run {
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
pub(crate) fn hand_made_runs() -> Vec<Run> {
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
