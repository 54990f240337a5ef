use crate::measure::CallLog;
use crate::reach::reach_table;
use crate::summary::Run;

fn run(case: &str, reducer: &str, jobs: usize, bytes: u64, calls: u64) -> Run {
    Run {
        case: case.into(),
        format: "javascript".into(),
        reducer: reducer.into(),
        jobs,
        bytes_before: 1000,
        bytes_after: bytes,
        calls,
        still_interesting: Some(true),
        valid: Some(true),
        ..Run::default()
    }
}

fn with_progress(mut r: Run, progress: &[(u64, u64)]) -> Run {
    r.call_log = CallLog {
        progress: progress.to_vec(),
        ..CallLog::default()
    };
    r
}

#[test]
fn whittle_is_compared_with_the_smallest_valid_other_result_by_calls_to_the_same_size() {
    let runs = vec![
        // Case a: treereduce's 300 B is valid; picire's 100 B is not; whittle reached 300 B or
        // less at its 120th call (the 250 B step), and 12 B at the end.
        run("a", "treereduce", 2, 300, 400),
        Run {
            valid: Some(false),
            ..run("a", "picire", 2, 100, 50)
        },
        with_progress(
            run("a", "whittle auto", 2, 12, 900),
            &[(1, 900), (60, 400), (120, 250), (800, 12)],
        ),
        // `-j 1` of whittle is not the one compared when it ran at the other's -j.
        with_progress(run("a", "whittle auto", 1, 12, 10), &[(1, 1)]),
        // Case b: the other reducer's smaller result is still valid; whittle never got there.
        run("b", "C-Vise", 2, 10, 2000),
        with_progress(run("b", "whittle auto", 2, 40, 100), &[(5, 40)]),
        // Case c: a whittle run of before the wrapper logged its best sizes.
        run("c", "Shrink Ray", 2, 4, 1119),
        run("c", "whittle auto", 2, 7, 117),
        // Case d: no other reducer has a valid result; no row.
        Run {
            still_interesting: Some(false),
            ..run("d", "lithium", 1, 5, 10)
        },
        run("d", "whittle auto", 2, 7, 117),
        // Case h: picire's output is the input (a file of one line, after one call): no
        // reduction to compare with, so no row.
        run("h", "picire", 2, 1000, 1),
        with_progress(run("h", "whittle auto", 2, 50, 200), &[(1, 1000), (40, 60)]),
    ];
    let t = reach_table(&runs, &[]);
    let rows: Vec<&str> = t.lines().skip(2).collect();
    assert_eq!(
        rows,
        [
            "| a | treereduce (-j 2) | 300 | 400 | 12 | 900 (-j 2) | 120 | 30 % |",
            "| b | C-Vise (-j 2) | 10 | 2\u{2009}000 | 40 | 100 (-j 2) | not reached | — |",
            "| c | Shrink Ray (-j 2) | 4 | 1\u{2009}119 | 7 | 117 (-j 2) | not logged | — |",
            "",
            "No other reducer's output is smaller than the input on `h` (picire 1\u{2009}000 B \
             from 1\u{2009}000 B in 1 call).",
        ]
    );
    assert_eq!(
        reach_table(&runs[8..10], &[]),
        "",
        "no valid other result: no table"
    );
}

#[test]
fn a_result_reported_with_the_case_is_compared_where_no_other_reducer_ran_here() {
    use crate::cases::Peer;
    let peer = |reducer: &str, bytes, calls| Peer {
        reducer: reducer.into(),
        bytes,
        calls,
        jobs: 2,
    };
    let (lithium, picire) = (peer("lithium", 25, 104), peer("picire", 30, 90));
    let runs = vec![
        // Case e: only whittle ran here; it was at 25 B or less from its 19th call on.
        with_progress(
            run("e", "whittle auto", 2, 25, 30),
            &[(1, 17_009), (9, 433), (19, 25)],
        ),
        // Case f: a measured result smaller than the reported one is the one compared.
        run("f", "C-Vise", 2, 20, 500),
        with_progress(run("f", "whittle auto", 2, 12, 40), &[(1, 90), (10, 20)]),
    ];
    let peers = [("e", &lithium), ("f", &picire), ("g", &lithium)];
    let t = reach_table(&runs, &peers);
    let rows: Vec<&str> = t.lines().skip(2).collect();
    assert_eq!(
        rows,
        [
            "| e | lithium (reported) (-j 2) | 25 | 104 | 25 | 30 (-j 2) | 19 | 18 % |",
            "| f | C-Vise (-j 2) | 20 | 500 | 12 | 40 (-j 2) | 10 | 2 % |",
        ]
    );
}
