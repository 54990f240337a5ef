use crate::document::{carry_keep_sections, document};
use crate::findings::findings;
use crate::measure::{CallLog, Usage};
use crate::results::{CaseSection, Environment, Measured, NotRun, OtherRow};
use crate::testutil::*;

#[test]
fn document_has_the_header_one_section_per_case_and_the_overhead_once() {
    let env = sample_env();
    let doc = document(
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
    let quick = document(
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

    let doc = document(
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
    let doc = document(
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
fn a_case_shows_its_other_reducers_and_a_partial_document_says_so() {
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
            progress: Vec::new(),
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
    let doc = document(&env, &[section], &[], &[]);
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
fn keep_sections_of_other_commands_survive_a_rewrite() {
    let old = "# B\n\nold table\n\n<!-- keep:greduce:begin -->\nG1\nG2\n<!-- keep:greduce:end -->\n\n\
               <!-- keep:x:begin -->\nX\n<!-- keep:x:end -->\n";
    // Appended to a document that lacks them, in their order.
    let new = carry_keep_sections(old, "# B\n\nnew table\n".to_string());
    assert_eq!(
        new,
        "# B\n\nnew table\n\n<!-- keep:greduce:begin -->\nG1\nG2\n<!-- keep:greduce:end -->\n\n\
         <!-- keep:x:begin -->\nX\n<!-- keep:x:end -->\n"
    );
    // Put in place of the same section of the new document.
    let with_stale = "# B\n\n<!-- keep:x:begin -->\nstale\n<!-- keep:x:end -->\n\n## end\n";
    let new = carry_keep_sections(old, with_stale.to_string());
    assert!(
        new.contains("<!-- keep:x:begin -->\nX\n<!-- keep:x:end -->\n\n## end\n"),
        "{new}"
    );
    assert!(!new.contains("stale"));
    // A section without its end is left alone.
    let broken = "<!-- keep:y:begin -->\nY\n";
    assert_eq!(carry_keep_sections(broken, "N\n".into()), "N\n");
}

#[test]
fn with_auto_rows_the_headline_is_autos_and_the_case_lists_its_calls_per_move() {
    let measured = |bytes: u64, nodes: u64, calls: u64| Measured {
        calls: CallLog {
            calls,
            ..CallLog::default()
        },
        wall_seconds: 1.0,
        bytes_after: bytes,
        nodes_after: Some(nodes),
        ..Measured::default()
    };
    let with_measure = |mut r: crate::results::Row, bytes, nodes, calls| {
        r.measured = Some(measured(bytes, nodes, calls));
        r
    };
    let mut auto = row("auto", 1);
    let rep = auto.report.as_mut().unwrap();
    rep.run.algorithm = "auto".into();
    rep.run.stats.tests_by_move = [("tree".to_string(), 40), ("rename".to_string(), 9)].into();
    let mut section = xml_section(vec![
        with_measure(row("gtr*", 1), 159, 6, 49),
        with_measure(auto, 120, 5, 49),
    ]);
    section.format = "xml".into();
    section.bytes_before = 334_692;
    section.nodes_before = Some(24_150);
    section.others = vec![OtherRow {
        case: "xml-iso-entity".into(),
        id: "picire".into(),
        name: "picire".into(),
        jobs: 1,
        measured: Some(measured(300, 9, 500)),
        finished: true,
        still_interesting: Some(true),
        ..OtherRow::default()
    }];
    let doc = document(&sample_env(), &[section.clone()], &[], &[]);
    assert!(doc.contains("### Headline: whittle's default `auto` against the best other reducer"));
    assert!(doc.contains("| xml | `auto` (default) | 0.021 % / 0.036 % | 49 | — | picire |"));
    assert!(doc.contains("| xml | `gtr*` | 0.025 % / 0.048 % | 49 | — | picire |"));
    // The list comes right after the case's table.
    let list = "Oracle calls of `auto` per kind of move (its report's `tests_by_move`";
    let at = doc.find(list).unwrap();
    assert!(doc[..at].ends_with("|\n\n"), "{}", &doc[at - 80..at]);
    assert!(doc[at..].contains(":\n\n- `--lang xml`, `-j 1`: tree 40, rename 9\n\n"));

    // Without the `auto` row, the document is the one of before `auto`.
    section.rows.pop();
    let doc = document(&sample_env(), &[section], &[], &[]);
    assert!(doc.contains("### Headline: whittle `gtr*` against the best other reducer"));
    assert!(!doc.contains("`auto`"));
}
