//! The moves below the tree in a PDF: its own strings and names, and the tokens of the
//! JavaScript nested in it, through the default pipeline (`auto`).

use super::*;
use crate::nest_tests::{find, pdf, qpdf_check};
use whittle_core::{Edits, Splices};

/// The catalog of `bytes` and the script of its `/OpenAction`, if it loads.
fn catalog_and_script(bytes: &[u8]) -> Option<(lopdf::Dictionary, String)> {
    let doc = lopdf::Document::load_mem(bytes).ok()?;
    let catalog = doc.catalog().ok()?.clone();
    let action = match catalog.get(b"OpenAction").ok()? {
        lopdf::Object::Reference(id) => doc.get_object(*id).ok()?.clone(),
        o => o.clone(),
    };
    let js = action.as_dict().ok()?.get(b"JS").ok()?.as_str().ok()?;
    Some((catalog, String::from_utf8_lossy(js).into_owned()))
}

fn string_of<'d>(d: &'d lopdf::Dictionary, key: &[u8]) -> Option<&'d [u8]> {
    d.get(key).ok()?.as_str().ok()
}

fn name_of<'d>(d: &'d lopdf::Dictionary, key: &[u8]) -> Option<&'d [u8]> {
    d.get(key).ok()?.as_name().ok()
}

/// Interesting while the catalog's `/Lang` holds `GB`, its `/PageMode` starts with `Use`, its
/// `/Title` is set, and the script declares a variable that `app.alert` is called with.
fn test(bytes: &[u8]) -> bool {
    let Some((catalog, js)) = catalog_and_script(bytes) else {
        return false;
    };
    let lang = string_of(&catalog, b"Lang").is_some_and(|l| find(l, b"GB").is_some());
    let mode = name_of(&catalog, b"PageMode").is_some_and(|m| m.starts_with(b"Use"));
    let title = string_of(&catalog, b"Title").is_some();
    let Some(rest) = js.strip_prefix("var ") else {
        return false;
    };
    let name: String = rest.chars().take_while(char::is_ascii_alphabetic).collect();
    let calls = !name.is_empty() && js.contains(&format!("app.alert({name})"));
    lang && mode && title && calls
}

fn sample() -> Vec<u8> {
    pdf(
        "/OpenAction 4 0 R/Lang <656E2D4742>/PageMode/UseOutlines/Title(A \\(long\\) title\\051)",
        &[(
            "<</S/JavaScript/JS(var counter = 41; app.alert\\(counter\\);)>>",
            None,
        )],
    )
}

#[test]
fn auto_shrinks_pdf_strings_and_names_and_renames_inside_the_nested_script() {
    let input = sample();
    assert!(test(&input), "the sample is interesting");
    let reduced = Reduction::new(&PDF, &test, &input)
        .algorithm(Algorithm::Auto)
        .rules(shipped_rules("pdf"))
        .run()
        .expect("reduces");
    let out = &reduced.best;
    qpdf_check(out);
    let (catalog, js) = catalog_and_script(out).expect("loads");
    // The hex string `en-GB` is down to the two bytes the test needs, the name to its prefix,
    // the title (with escaped parentheses) to nothing.
    assert_eq!(string_of(&catalog, b"Lang"), Some(&b"GB"[..]));
    assert_eq!(name_of(&catalog, b"PageMode"), Some(&b"Use"[..]));
    assert_eq!(string_of(&catalog, b"Title"), Some(&b""[..]));
    // The tree moves dropped the initializer; `counter` became `a`, the first name the script
    // does not use, and the blank after `;` went: the smallest script the test accepts.
    assert_eq!(js, "var a;app.alert(a)");
    let moves = &reduced.report.stats.tests_by_move;
    for m in ["rename", "literal-empty", "literal-chars"] {
        assert!(moves.contains_key(m), "{m} ran: {moves:?}");
    }
}

#[test]
fn a_splice_of_a_pdf_string_writes_its_decoded_bytes() {
    let input = sample();
    let doc = PDF.parse(&input).expect("parses");
    let t = &doc.tree;
    // The title's canonical text, as the tree holds it.
    let title = (t.nodes())
        .find(|&n| t.edge(n) == "Title")
        .expect("a title node");
    let span = t.span(title);
    let text = t.text(title).to_vec();
    assert_eq!(text, b"(A (long) title\\))");
    // Remove `A ` and `title`; keep the escaped parentheses.
    let mut s = Splices::default();
    s.add(span.start + 1..span.start + 3, b"");
    s.add(span.end - 8..span.end - 3, b"");
    let mut out = Vec::new();
    PDF.render_splices(&doc, &s, &mut out);
    qpdf_check(&out);
    let (catalog, _) = catalog_and_script(&out).expect("loads");
    assert_eq!(string_of(&catalog, b"Title"), Some(&b"(long) )"[..]));
    // No splice is the input itself.
    let mut same = Vec::new();
    PDF.render_splices(&doc, &Splices::default(), &mut same);
    assert_eq!(same, input);
    // A splice across two leaves is no candidate: nothing is written.
    let lang = (t.nodes()).find(|&n| t.edge(n) == "Lang").expect("lang");
    let mut across = Splices::default();
    across.add(t.span(lang).start..span.end, b"");
    let mut none = Vec::new();
    PDF.render_splices(&doc, &across, &mut none);
    assert!(none.is_empty());
    let mut plain = Vec::new();
    PDF.render(&doc, &Edits::new(), &mut plain);
    assert_eq!(plain, input);
}
