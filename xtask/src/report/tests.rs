use crate::report::Report;
use crate::testutil::*;

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
