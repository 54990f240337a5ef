use crate::report::Report;
use crate::testutil::*;
use whittle_core::Gate;

#[test]
fn report_json_is_read_into_the_row_fields() {
    let r = sample_report();
    assert_eq!(r.run.bytes_before, 334_692);
    assert_eq!(r.run.bytes_after, 159);
    assert_eq!(r.run.nodes_before, 24_150);
    assert_eq!(r.run.nodes_after, 6);
    assert_eq!(r.run.format, "xml");
    assert_eq!(r.run.algorithm, "hdd*");
    assert_eq!(r.run.jobs, 2);
    assert_eq!(r.run.stats.oracle_calls, 49);
    assert_eq!(r.run.stats.cache_hits, 9);
    assert_eq!(r.run.stats.candidates, 56);
    assert_eq!(r.run.stats.gate_rejections, 3);
    assert_eq!(r.run.stats.improvements, 22);
    assert!(!r.run.interrupted);
    assert_eq!(r.run.gate, Gate::SwitchedOff);
    assert_eq!(r.rules.as_deref(), Some("shipped: corpora/xml.rules.json"));
    assert_eq!(r.run.stats.oracle_seconds, 0.75);
    assert_eq!(r.run.stats.oracle_busy_seconds, 0.375);
    assert_eq!(r.outside_share_percent(), Some(25.0));
    assert_eq!(r.timing_inconsistency(), None);
    // A report of before `auto` has no moves and no minimality.
    assert!(r.run.stats.tests_by_move.is_empty());
    assert!(!r.run.minimal);
}

#[test]
fn report_timings_that_contradict_each_other_are_caught() {
    // wall 0.5, busy 0.375, but outside 0.3 instead of 0.125.
    let mut wrong = sample_report();
    wrong.run.outside_oracle_seconds = 0.3;
    let why = wrong.timing_inconsistency().unwrap();
    assert!(why.contains("`outside_oracle_seconds` (0.300)"), "{why}");
    let mut busier = sample_report();
    busier.run.stats.oracle_busy_seconds = 0.9;
    busier.run.outside_oracle_seconds = 0.0;
    assert!(busier.timing_inconsistency().unwrap().contains("exceeds"));
    // Busy all the time: nothing outside, which is consistent.
    let mut all_busy = sample_report();
    all_busy.run.stats.oracle_busy_seconds = 0.5;
    all_busy.run.outside_oracle_seconds = 0.0;
    assert_eq!(all_busy.timing_inconsistency(), None);
    assert_eq!(all_busy.outside_share_percent(), Some(0.0));
}

#[test]
fn report_json_of_an_older_cli_reads_the_missing_keys_as_defaults() {
    // The keys of the benchmark's saved results, before `tests_by_move` and `minimal`; the
    // library's `#[serde(default)]` fills in the rest.
    let r = Report::from_json(
        r#"{"bytes_before": 10, "bytes_after": 5, "nodes_before": 4, "nodes_after": 2,
            "wall_seconds": 1.0, "outside_oracle_seconds": 2.0, "oracle_calls": 7, "cache_hits": 1}"#,
    )
    .unwrap();
    assert_eq!(r.run.bytes_after, 5);
    assert_eq!(r.run.stats.oracle_calls, 7);
    assert_eq!(r.run.stats.candidates, 0);
    assert_eq!(r.run.gate, Gate::Off);
    assert_eq!(r.rules, None);
    assert_eq!(r.run.stats.oracle_busy_seconds, 0.0);
    assert!(r.run.stats.tests_by_move.is_empty());
    // The share is clamped: whittle's estimate for -j > 1 can exceed the wall time.
    assert_eq!(r.outside_share_percent(), Some(100.0));
    // Even an empty object is a report (of nothing).
    assert_eq!(Report::from_json("{}").unwrap(), Report::default());
}

#[test]
fn report_json_of_auto_has_its_tests_by_move_and_minimality() {
    let r = Report::from_json(
        r#"{"input": "in.py", "output": "out.py", "test": "t.sh {}", "timeout_seconds": 60.0,
            "rules": "shipped: corpora/python.rules.json", "format": "python",
            "algorithm": "auto", "jobs": 1, "gate": "on", "bytes_before": 282,
            "bytes_after": 97, "oracle_calls": 352, "minimal": true,
            "tests_by_move": {"tree": 314, "rename": 26, "number": 3, "space": 9}}"#,
    )
    .unwrap();
    assert_eq!(r.run.algorithm, "auto");
    assert_eq!(r.run.gate, Gate::On);
    assert!(r.run.minimal);
    let moves: Vec<(&str, u64)> = r
        .run
        .stats
        .tests_by_move
        .iter()
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    assert_eq!(
        moves,
        [("number", 3), ("rename", 26), ("space", 9), ("tree", 314)]
    );
    // Written back and read again, it is the same report.
    let again = Report::from_json(&serde_json::to_string(&r).unwrap()).unwrap();
    assert_eq!(again, r);
}

#[test]
fn report_json_malformed_or_of_the_wrong_types_is_an_error() {
    assert!(Report::from_json("not json").is_err());
    assert!(Report::from_json(r#"{"bytes_before": "ten"}"#).is_err());
    assert!(Report::from_json(r#"{"gate": "sometimes"}"#).is_err());
    let mut zero_wall = sample_report();
    zero_wall.run.wall_seconds = 0.0;
    assert_eq!(zero_wall.outside_share_percent(), None);
}
