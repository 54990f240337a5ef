//! The XML lexicon: which bytes the moves below the tree may rewrite, and what `auto` makes of
//! an element with no content.

use crate::Xml;
use whittle_core::Format;

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
    let reduced = whittle_core::Reduction::new(&Xml, &test, b"<r><a></a><b>t</b></r>")
        .algorithm(whittle_core::Algorithm::Auto)
        .run()
        .expect("runs");
    assert_eq!(
        String::from_utf8(reduced.best).unwrap(),
        "<r><a/><b>t</b></r>"
    );
    assert_eq!(
        reduced.report.stats.tests_by_move.get("short-form"),
        Some(&1)
    );
}
