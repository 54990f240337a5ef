use crate::cells::{before_after, duration, fenced, group_digits, percent, yes_no};

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

#[test]
fn fences_replace_control_characters_but_keep_lines_and_tabs() {
    assert_eq!(
        fenced(b"a\x00b\x1b\tc\r\nd\xff", 0),
        "```\na\u{FFFD}b\u{FFFD}\tc\r\nd\u{FFFD}\n```\n"
    );
}

#[test]
fn durations_read_well() {
    assert_eq!(duration(0.2), "0 s");
    assert_eq!(duration(14.6), "15 s");
    assert_eq!(duration(305.2), "5 min 05 s");
    assert_eq!(duration(3599.4), "59 min 59 s");
    assert_eq!(duration(3725.0), "1 h 02 min");
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
