//! The XML lexicon: which bytes the moves below the tree may rewrite, and what `auto` makes of
//! an element with no content.

use crate::Xml;
use whittle_core::Format;

/// `input` reduced by the default pipeline (`auto`) while `test` says it is interesting.
fn auto(input: &[u8], test: &(dyn Fn(&[u8]) -> bool + Sync)) -> whittle_core::Reduced {
    whittle_core::Reduction::new(&Xml, &test, input)
        .algorithm(whittle_core::Algorithm::Auto)
        .run()
        .expect("runs")
}

#[test]
fn the_lexicon_lists_names_values_text_comments_and_blanks_in_tags() {
    use whittle_core::TokenKind::{Literal, Name, Space};
    let src = r#"<a  b = "v">t<!--c--></a>"#;
    let doc = Xml.parse(src.as_bytes()).unwrap();
    let mut tokens: Vec<_> = Xml
        .lexicon(&doc)
        .expect("xml has a lexicon")
        .tokens
        .into_iter()
        .map(|t| (t.span, t.kind))
        .collect();
    tokens.sort_by_key(|(span, _)| (span.start, span.end));
    let name = Name {
        namespace: 0,
        bound: true,
    };
    assert_eq!(
        tokens,
        vec![
            (1..2, name.clone()),                    // the start tag's `a`
            (2..4, Space { min: " " }),              // two blanks before `b`: one stays
            (4..5, name.clone()),                    // `b`
            (5..6, Space { min: "" }),               // before `=`
            (7..8, Space { min: "" }),               // after `=`
            (8..11, Literal { open: 1, close: 1 }),  // `"v"`
            (12..13, Literal { open: 0, close: 0 }), // the text `t`
            (13..21, Literal { open: 4, close: 3 }), // `<!--c-->`
            (23..24, name),                          // the end tag's `a`
        ]
    );
}

#[test]
fn an_element_without_content_may_lose_its_end_tag() {
    use whittle_core::TokenKind::Shorter;
    // `a` (attributes, a blank, no content) and `e` qualify; `b` holds a blank text, `c` is an
    // empty-element tag already, `d` holds a comment.
    let src = "<r><a x='1' ></a><b> </b><c/><d><!----></d><e></e></r>";
    let doc = Xml.parse(src.as_bytes()).unwrap();
    let shorter: Vec<&str> = Xml
        .lexicon(&doc)
        .expect("xml has a lexicon")
        .tokens
        .into_iter()
        .filter(|t| t.kind == Shorter("/>"))
        .map(|t| &src[t.span])
        .collect();
    assert_eq!(shorter, ["></a>", "></e>"]);
}

#[test]
fn auto_writes_an_element_without_content_as_an_empty_element_tag() {
    // Interesting while the document has an `a` element and `b` holding `t`: `<a></a>` becomes
    // `<a/>` (and the root's name is one letter already, so nothing else changes).
    let test = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        text.contains("<a") && text.contains("<b>t</b>")
    };
    let reduced = auto(b"<r><a></a><b>t</b></r>", &test);
    assert_eq!(
        String::from_utf8(reduced.best).unwrap(),
        "<r><a/><b>t</b></r>"
    );
    assert_eq!(
        reduced.report.stats.tests_by_move.get("short-form"),
        Some(&1)
    );
}

/// The tokens of `src` whose span lies in its DOCTYPE, as (text, kind), in source order.
fn doctype_tokens(src: &str) -> Vec<(&str, whittle_core::TokenKind)> {
    let doc = Xml.parse(src.as_bytes()).unwrap();
    // The DOCTYPE ends at the `>` before the root element's `<`.
    let end = src.rfind("><").unwrap() + 1;
    let mut tokens: Vec<_> = Xml
        .lexicon(&doc)
        .expect("xml has a lexicon")
        .tokens
        .into_iter()
        .filter(|t| t.span.end <= end)
        .map(|t| (t.span, t.kind))
        .collect();
    tokens.sort_by_key(|(span, _)| (span.start, std::cmp::Reverse(span.end)));
    tokens
        .into_iter()
        .map(|(span, kind)| (&src[span], kind))
        .collect()
}

#[test]
fn a_public_doctype_lists_its_blanks_its_external_id_and_its_system_id() {
    use whittle_core::TokenKind::{Alternatives, Shorter, Space};
    let src =
        "<!DOCTYPE  html PUBLIC  \"-//W3C//DTD XHTML 1.0 Strict//EN\"\n    \"x.dtd\" ><html/>";
    assert_eq!(
        doctype_tokens(src),
        vec![
            ("  ", Space { min: " " }), // after `<!DOCTYPE`: one blank stays
            // The whole external id with the blank before it.
            (
                " PUBLIC  \"-//W3C//DTD XHTML 1.0 Strict//EN\"\n    \"x.dtd\"",
                Alternatives(&[""])
            ),
            // `PUBLIC "id" ` as `SYSTEM `.
            (
                "PUBLIC  \"-//W3C//DTD XHTML 1.0 Strict//EN\"\n    ",
                Shorter("SYSTEM ")
            ),
            ("  ", Space { min: " " }),     // after `PUBLIC`
            ("\n    ", Space { min: " " }), // between the ids
            ("\"x.dtd\"", Alternatives(&["\"\"", "\"a\""])), // the system id
            (" ", Space { min: "" }),       // before `>`
        ]
    );
}

#[test]
fn an_internal_subset_lists_the_blanks_between_declarations_and_entity_values() {
    use whittle_core::TokenKind::{Alternatives, Space};
    let src = "<!DOCTYPE svg SYSTEM 'a.dtd' [\n\t<!ENTITY  ns \"urn:x\" >\n\t\n] ><svg/>";
    assert_eq!(
        doctype_tokens(src),
        vec![
            (" SYSTEM 'a.dtd'", Alternatives(&[""])),
            ("'a.dtd'", Alternatives(&["\"\"", "\"a\""])),
            (" ", Space { min: "" }),    // before `[`
            ("\n\t", Space { min: "" }), // after `[`
            ("  ", Space { min: " " }),  // inside the entity declaration
            ("\"urn:x\"", Alternatives(&["\"\""])),
            (" ", Space { min: "" }),      // before the declaration's `>`
            ("\n\t\n", Space { min: "" }), // before `]`
            (" ", Space { min: "" }),      // between `]` and `>`
        ]
    );
}

#[test]
fn an_internal_subset_with_only_blanks_may_go_whole() {
    use whittle_core::TokenKind::{Alternatives, Space};
    let src = "<!DOCTYPE a[ \n]><a/>";
    assert_eq!(
        doctype_tokens(src),
        vec![("[ \n]", Alternatives(&[""])), (" \n", Space { min: "" }),]
    );
}

#[test]
fn a_doctype_the_grammar_does_not_allow_lists_only_what_comes_before_the_fault() {
    use whittle_core::TokenKind::Space;
    // No blank between `PUBLIC` and its id: nothing from there on.
    let src = "<!DOCTYPE  a PUBLIC\"p\" \"s\"><a/>";
    assert_eq!(doctype_tokens(src), vec![("  ", Space { min: " " })]);
}

#[test]
fn auto_keeps_a_resolvable_public_id_with_a_one_character_system_id() {
    // A stand-in for a catalog: the public id resolves the DTD, whatever the system id says as
    // long as it says something (libxml2 wants one), and so does the system id `…/x.dtd` alone.
    let test = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        let resolves = text.contains("PUBLIC \"-//P//EN\"") || text.contains("/x.dtd\"");
        resolves && !text.contains("\"\"") && text.contains("<r/>")
    };
    let src = "<!DOCTYPE r PUBLIC \"-//P//EN\"\n  \"http://example.org/dtds/x.dtd\" [\n]>\n<r/>\n";
    // The empty internal subset goes too.
    let reduced = auto(src.as_bytes(), &test);
    assert_eq!(
        String::from_utf8(reduced.best).unwrap(),
        "<!DOCTYPE r PUBLIC \"-//P//EN\" \"a\"><r/>"
    );
}
