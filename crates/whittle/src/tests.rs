use super::*;

#[test]
fn every_tree_format_ships_rules_learned_for_it() {
    for format in formats() {
        let Some(text) = shipped_rules_json(format.name()) else {
            assert!(
                ["lines", "trace"].contains(&format.name()),
                "only `lines` and `trace` have no corpus"
            );
            continue;
        };
        let rules = Rules::from_json(text).expect("shipped rules parse");
        assert_eq!(rules.format, format.name());
        assert!(
            rules.files > 100 && rules.labels.len() > 20,
            "{}: learned from {} files, {} labels",
            format.name(),
            rules.files,
            rules.labels.len()
        );
    }
}

#[test]
fn formats_are_found_by_name_and_by_extension() {
    assert_eq!(format_named("xml").map(|f| f.name()), Some("xml"));
    assert!(format_named("cobol").is_none());
    assert_eq!(
        format_for_path(Path::new("a/b/Crash.PY")).map(|f| f.name()),
        Some("python")
    );
    assert_eq!(
        format_for_path(Path::new("x.mjs")).map(|f| f.name()),
        Some("javascript")
    );
    assert!(format_for_path(Path::new("notes.doc")).is_none());
}
