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

/// The rewriting check before a reduction (see `docs/slow-runs.md`) tests the input rendered with
/// the no-op edit `Replace(root)`. Formats that copy unedited source give the input back, so the
/// check costs them no test; PDF writes the file afresh, so for PDF it is a real test.
#[test]
fn only_pdf_rewrites_an_untouched_input() {
    use whittle_core::{Edit, Edits};
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut checked = std::collections::BTreeMap::<&str, usize>::new();
    for dir in [
        "xml",
        "python",
        "javascript",
        "pdf",
        "generators/graph",
        "generators/password",
    ] {
        for entry in std::fs::read_dir(fixtures.join(dir)).expect("fixtures") {
            let path = entry.expect("entry").path();
            let Some(format) = format_for_path(&path).or_else(|| {
                (path.extension().is_some_and(|e| e == "trace")).then(|| format_named("trace"))?
            }) else {
                continue;
            };
            let input = std::fs::read(&path).expect("read fixture");
            let Ok(doc) = format.parse(&input) else {
                continue; // damaged on purpose beyond repair
            };
            let root = doc.tree.root();
            let mut out = Vec::new();
            format.render(
                &doc,
                &Edits::new().with(root, Edit::Replace(root)),
                &mut out,
            );
            if format.name() == "pdf" {
                assert_ne!(out, input, "{}", path.display());
                assert!(format.parse(&out).is_ok(), "{}", path.display());
            } else {
                assert!(
                    out == input,
                    "{}: the no-op edit changed the bytes",
                    path.display()
                );
            }
            *checked.entry(format.name()).or_default() += 1;
        }
    }
    for name in ["xml", "python", "javascript", "pdf", "trace"] {
        assert!(checked.get(name).is_some_and(|&n| n > 0), "{checked:?}");
    }
}
