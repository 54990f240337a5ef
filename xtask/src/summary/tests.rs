use crate::summary::{self, Run, median};
use crate::testutil::*;

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
fn medians_per_format_leave_out_lower_jobs_no_rules_and_uninteresting_runs() {
    let runs = hand_made_runs();
    let compared = summary::compared(&runs);
    let m = summary::medians(&compared, "xml", "whittle gtr*");
    // Nodes 4 % and 8 % (the -j 1 and --no-rules runs left out): median 6 %.
    assert_eq!(m.cases, 2);
    assert_eq!(m.nodes_percent, Some(6.0));
    assert_eq!(m.bytes_percent, Some(6.0));
    assert_eq!(m.calls, Some(50.0));
    let p = summary::medians(&compared, "xml", "picire");
    assert_eq!((p.cases, p.left_out), (1, 1));
    assert_eq!(p.nodes_percent, Some(6.0));
    let c = summary::medians(&compared, "xml", "C-Vise");
    assert_eq!(c.nodes_percent, Some(6.0));
    assert_eq!(c.calls, Some(800.0));
    // Its failed run on x3 is left out (counted, it would make the median 10 %).
    assert_eq!((c.cases, c.left_out), (2, 1));
    // Best other on XML: C-Vise and picire tie on nodes and bytes; picire has fewer calls.
    let (name, _) = summary::best_other(&compared, "xml").unwrap();
    assert_eq!(name, "picire");
    let (name, best) = summary::best_other(&compared, "python").unwrap();
    assert_eq!((name.as_str(), best.nodes_percent), ("C-Vise", Some(40.0)));
}

#[test]
fn table_two_and_the_headline_show_the_hand_computed_medians() {
    let runs = hand_made_runs();
    let table = summary::table_two(&runs);
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
    let head = summary::headline(&runs);
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
    let head = summary::headline(&runs);
    let python = cells(head.lines().nth(3).unwrap());
    assert_eq!(python[5], "— / 30 %");
    assert_eq!(python[8], "**other**");
}

#[test]
fn the_speedup_table_pairs_j1_and_j2_of_the_same_run() {
    let runs = hand_made_runs();
    let table = crate::speedup::speedup_table(&runs);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 3, "{table}");
    // 999 calls at -j 1 (99.9 s) against 40 at -j 2 (4.0 s).
    assert_eq!(
        cells(lines[2]),
        [
            "x1",
            "whittle gtr*",
            "shipped",
            "2",
            "99.90",
            "4.00",
            "24.98×",
            "999 / 40",
            "—"
        ]
    );
    assert_eq!(crate::cells::speedup(1.0, 0.0), "—");
    assert!(crate::speedup::speedup_table(&runs[1..]).is_empty());
    // A run at -j 8 as well is a row of its own, after -j 2's.
    // whittle's report, where there is one, gives the tests it started and cancelled.
    let mut eight = runs[1].clone();
    eight.jobs = 8;
    eight.wall_seconds = 2.0;
    eight.started_cancelled = Some((1234, 1100));
    let more = [runs.clone(), vec![eight]].concat();
    let table = crate::speedup::speedup_table(&more);
    let last = cells(table.lines().last().unwrap());
    assert_eq!(last[3..6], ["8", "99.90", "2.00"]);
    assert_eq!(last[6], "49.95×");
    assert_eq!(last[8], "1\u{2009}234 / 1\u{2009}100");
}

#[test]
fn the_headline_compares_auto_when_it_ran_and_keeps_gtr_star_below_it() {
    // Before `auto`, the headline is `gtr*`'s alone (the test above checks its cells).
    let before = hand_made_runs();
    assert!(!summary::has_default(&before));
    assert!(summary::headline(&before).starts_with("| format | whittle `gtr*`: nodes / bytes"));
    // An `auto` run with `--no-rules` (never planned) would not make it the headline.
    let mut no_rules = run("x1", "xml", "whittle auto", 2, 3, 45);
    no_rules.no_rules = true;
    assert!(!summary::has_default(&[no_rules]));

    // `auto` on both XML cases and the Python one, at -j 2.
    let mut runs = hand_made_runs();
    runs.push(run("x1", "xml", "whittle auto", 2, 3, 45));
    runs.push(run("x2", "xml", "whittle auto", 2, 5, 70));
    runs.push(Run {
        valid: Some(true),
        ..run("p1", "python", "whittle auto", 2, 30, 260)
    });
    assert!(summary::has_default(&runs));
    let head = summary::headline(&runs);
    let lines: Vec<&str> = head.lines().collect();
    // Header, alignment, `auto` and `gtr*` for each format.
    assert_eq!(lines.len(), 6, "{head}");
    assert_eq!(
        cells(lines[0]),
        [
            "format",
            "whittle",
            "nodes / bytes left",
            "oracle calls",
            "outputs valid",
            "best other reducer",
            "its nodes / bytes left",
            "its oracle calls",
            "its outputs valid",
            "smaller",
            "fewer calls"
        ]
    );
    // XML: picire is still the best other (6 % in 100 calls on x1, against C-Vise's median
    // 6 % in 800); `auto` is taken on x1 only, where picire has a result: 3 nodes of 100 and
    // 30 bytes of 1000 in 45 calls. Its x2 run (5 %) is left out.
    assert_eq!(
        cells(lines[2]),
        [
            "xml",
            "`auto` (default)",
            "3.0 % / 3.0 %",
            "45",
            "—",
            "picire",
            "6.0 % / 6.0 %",
            "100",
            "—",
            "whittle",
            "whittle"
        ]
    );
    // `gtr*` on the same case x1, at -j 2: 4 % in 40 calls, fewer calls than `auto`.
    assert_eq!(
        cells(lines[3]),
        [
            "xml",
            "`gtr*`",
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
    // Python: `auto` leaves 30 % where C-Vise leaves 40 % (and `gtr*` 50 %, which loses).
    assert_eq!(
        cells(lines[4]),
        [
            "python",
            "`auto` (default)",
            "30 % / 30 %",
            "260",
            "1 of 1",
            "C-Vise",
            "40 % / 40 %",
            "3000",
            "**0 of 1**",
            "whittle",
            "whittle"
        ]
    );
    assert_eq!(
        cells(lines[5]),
        [
            "python",
            "`gtr*`",
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

    // `auto` on XML only (the Python case carried over from a run of before it): Python keeps
    // its `gtr*` row, over C-Vise's cases as before.
    let mut runs = hand_made_runs();
    runs.push(run("x1", "xml", "whittle auto", 2, 3, 45));
    let head = summary::headline(&runs);
    let lines: Vec<&str> = head.lines().collect();
    assert_eq!(lines.len(), 5, "{head}");
    assert_eq!(
        cells(lines[2])[..4],
        ["xml", "`auto` (default)", "3.0 % / 3.0 %", "45"]
    );
    assert_eq!(
        cells(lines[3])[..4],
        ["xml", "`gtr*`", "4.0 % / 4.0 %", "40"]
    );
    assert_eq!(
        cells(lines[4])[..4],
        ["python", "`gtr*`", "50 % / 50 %", "200"]
    );

    // No other reducer on a format: dashes, as before.
    let alone = vec![
        run("x1", "xml", "whittle gtr*", 2, 4, 40),
        run("x1", "xml", "whittle auto", 2, 3, 45),
    ];
    let head = summary::headline(&alone);
    let auto = cells(head.lines().nth(2).unwrap());
    assert_eq!(
        auto[..4],
        ["xml", "`auto` (default)", "3.0 % / 3.0 %", "45"]
    );
    assert_eq!(auto[5..], ["—"; 6]);
    assert_eq!(cells(head.lines().nth(3).unwrap())[1], "`gtr*`");
}
