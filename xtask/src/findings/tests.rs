use crate::findings::findings;
use crate::results::Row;
use crate::testutil::*;

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
        rep.run.outside_oracle_seconds = 0.4;
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
