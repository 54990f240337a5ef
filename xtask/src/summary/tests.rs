use crate::summary::{self, median};
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
    let table = summary::speedup_table(&runs);
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
    assert_eq!(summary::speedup(1.0, 0.0), "—");
    assert!(summary::speedup_table(&runs[1..]).is_empty());
}
