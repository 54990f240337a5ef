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
        "c",
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

/// `--algorithm hdd` on C is ddmin over the levels of tree-sitter-c's tree (HDD, Alg. 1 of the
/// HDD paper), each level taken from the tree as re-parsed after the level before. The test
/// calls below are worked out by hand (ddmin splits `c[i*len/n..(i+1)*len/n]`, tries subsets
/// only at n = 2, and a candidate whose bytes were tested before is a cache hit):
///
/// ```text
/// translation_unit                                   level 0: deleting it gives "" (a hit)
///   declaration A "int a;"                           level 1: [A, B, M]
///   declaration B "int b;"
///   function_definition M                            level 2: [int, a, int, D, C] of A and M
///     primitive_type "int", function_declarator D "main(void)", compound_statement C
/// ```
///
/// Level 1, n = 2: keep {A}, keep {B, M}; n = 3: without B is interesting. {A, M}: without A,
/// without M. Level 2, n = 2: keep {int, a} is "int a;" (a hit), keep {int, D, C}; n = 4:
/// without `int`, without `a`, without main's `int` (interesting); [int, a, D, C], n = 3:
/// without `int`, without `a`, without {D, C} (a hit); n = 4: without D (interesting);
/// [int, a, C], n = 3: without `int`, without `a`. The file is now "int a; { return a; }",
/// re-parsed: its level 3 is the `a` of `return a;`. Then the tidy rendering. The gate is off:
/// these are HDD's candidates, of which C's gate would stop those that use `a` without
/// declaring it.
#[test]
fn hdd_on_c_is_ddmin_over_the_levels_of_the_c_tree() {
    use std::sync::Mutex;
    let input = b"int a;\nint b;\nint main(void) { return a; }\n";
    let seen = Mutex::new(Vec::<String>::new());
    let test = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes).into_owned();
        let interesting = text.contains("int a;") && text.contains("return a;");
        // Blanks as one space: where a deletion leaves its blanks is the renderer's business.
        let words: Vec<&str> = text.split_whitespace().collect();
        seen.lock().unwrap().push(words.join(" "));
        interesting
    };
    let reduced = Reduction::new(&whittle_c::C, &test, input)
        .algorithm(Algorithm::Hdd)
        .jobs(1)
        .gate(false)
        .run()
        .expect("the input is interesting");
    assert_eq!(
        seen.into_inner().unwrap(),
        [
            "int a; int b; int main(void) { return a; }",
            "",
            // Level 1.
            "int a;",
            "int b; int main(void) { return a; }",
            "int a; int main(void) { return a; }",
            "int main(void) { return a; }",
            "int a;",
            // Level 2.
            "; int main(void) { return a; }",
            "a; int main(void) { return a; }",
            "int ; int main(void) { return a; }",
            "int a; main(void) { return a; }",
            "a; main(void) { return a; }",
            "int ; main(void) { return a; }",
            "int a; { return a; }",
            "a; { return a; }",
            "int ; { return a; }",
            // Level 3 of the re-parsed tree.
            "int a; { return ; }",
            // The tidy rendering.
            "int a; { return a; }",
        ]
    );
    assert_eq!(
        String::from_utf8_lossy(&reduced.best),
        "int a;\n { return a; }\n"
    );
}
