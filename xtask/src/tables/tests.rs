use crate::cells::ratio;
use crate::results::{Columns, Row};
use crate::tables::{filtering_pair, filtering_table, overhead_table, reductions_table};
use crate::tables::{moves_list, moves_text, rules_cell};
use crate::testutil::*;

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
fn the_rules_cell_says_shipped_none_or_not_applicable() {
    let shipped = pdf_row(2, false, 435, 74);
    let none = pdf_row(2, true, 435, 80);
    assert_eq!(rules_cell(&shipped), "shipped");
    assert_eq!(rules_cell(&none), "none");
    // `--no-rules` is `none` whatever the report says (or without one).
    let no_report = Row {
        report: None,
        ..none.clone()
    };
    assert_eq!(rules_cell(&no_report), "none");
    // A format with no shipped rules (`lines`): whittle reports `none` without `--no-rules`.
    let mut lines = row("ddmin", 1);
    lines.lang = "lines".into();
    lines.report.as_mut().unwrap().rules = Some("none".into());
    assert_eq!(rules_cell(&lines), "n/a");
    let mut file = shipped.clone();
    file.report.as_mut().unwrap().rules = Some("my|rules.json".into());
    assert_eq!(rules_cell(&file), "`my\\|rules.json`");

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
    assert_eq!(ratio(74, 80), "0.93");
    assert_eq!(ratio(125, 65), "1.92");
    assert_eq!(ratio(3, 0), "—");

    // XML ran at -j 1 and 2: the -j 1 pair is taken, and rows of other algorithms are not.
    let xml_rows = |j: usize, no_rules: bool, calls: u64| Row {
        no_rules,
        report: Some({
            let mut rep = sample_report();
            rep.run.stats.oracle_calls = calls;
            rep.run.bytes_after = 46;
            rep.run.stats.filtered = if no_rules { 0 } else { 7 };
            rep
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
    let (with, without) = filtering_pair(&xml).unwrap();
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
    assert!(filtering_pair(&py).is_none());

    let table = filtering_table(&[xml, py, pdf]);
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

/// An `auto` row whose report counts its oracle calls per kind of move.
fn auto_row(jobs: usize, moves: &[(&str, u64)], minimal: bool) -> Row {
    let mut r = row("auto", jobs);
    let rep = r.report.as_mut().unwrap();
    rep.run.algorithm = "auto".into();
    rep.run.minimal = minimal;
    rep.run.stats.tests_by_move = moves.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    r
}

#[test]
fn auto_rows_list_their_oracle_calls_per_kind_of_move_in_whittles_order() {
    // The report's map is sorted by name; the text follows the order of the moves, and a kind
    // the benchmark does not know comes last.
    let moves = [
        ("bytes", 12),
        ("rename", 26),
        ("tree", 1314),
        ("zigzag", 1),
        ("literal-chars", 4),
        ("number", 3),
    ];
    let by_move = moves.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    assert_eq!(
        moves_text(&by_move),
        "tree 1\u{2009}314, rename 26, number 3, literal-chars 4, bytes 12, zigzag 1"
    );

    let rows = [
        row("gtr*", 1),
        auto_row(1, &[("tree", 314), ("rename", 26), ("space", 9)], false),
        auto_row(2, &[("tree", 301), ("bytes", 7)], true),
        // A report without the counts (an older whittle): no line.
        auto_row(2, &[], false),
    ];
    assert_eq!(
        moves_list(&rows),
        "Oracle calls of `auto` per kind of move (its report's `tests_by_move`: `tree` for the \
         tree moves of GTR*, the moves below the tree by name, `bytes` for the byte-level \
         tail):\n\n\
         - `--lang xml`, `-j 1`: tree 314, rename 26, space 9\n\
         - `--lang xml`, `-j 2`: tree 301, bytes 7; minimal: no shorter string over the \
         result's bytes is interesting\n"
    );
    // Rows of other algorithms, or without a report, make no list: results of before `auto`
    // draw as they did.
    let mut no_report = auto_row(1, &[("tree", 3)], false);
    no_report.report = None;
    assert_eq!(moves_list(&[row("gtr*", 1), no_report]), "");
    let mut gtr_star = row("gtr*", 1);
    gtr_star.report.as_mut().unwrap().run.stats.tests_by_move = [("tree".to_string(), 49)].into();
    assert_eq!(moves_list(&[gtr_star]), "");
}
