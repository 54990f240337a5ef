//! The tokens PDF offers the moves below the tree, and how a changed token's text is decoded.

use super::document;
use crate::Pdf;
use crate::lexicon::{unescape, unhex, unname};
use whittle_core::{Format, TokenKind};

#[test]
fn literal_string_escapes_decode_as_pdf_32000_says() {
    // `\n \r \t \b \f`, escaped delimiters and backslash, octal of one to three digits (`\0053`
    // is `\005` then `3`), a line end after a backslash joins the lines, an unknown escape is
    // its byte, a lone backslash at the end is kept.
    assert_eq!(unescape(b"a\\nb\\rc\\td\\be\\ff"), b"a\nb\rc\td\x08e\x0Cf");
    assert_eq!(unescape(b"\\(x\\)\\\\"), b"(x)\\");
    assert_eq!(unescape(b"\\101\\60\\0053"), b"A0\x053");
    assert_eq!(unescape(b"ab\\\r\ncd\\\nef"), b"abcdef");
    assert_eq!(unescape(b"\\q\\"), b"q\\");
}

#[test]
fn hex_strings_and_names_decode_leniently() {
    // Blanks skipped, an odd last digit followed by 0, other bytes skipped.
    assert_eq!(unhex(b"48 65 6c6C6f"), b"Hello");
    assert_eq!(unhex(b"474"), b"G@");
    assert_eq!(unhex(b"4z7"), b"G");
    // `#20` is a space; a `#` without two hex digits is itself.
    assert_eq!(unname(b"A#20B"), b"A B");
    assert_eq!(unname(b"A#2"), b"A#2");
    assert_eq!(unname(b"#"), b"#");
}

#[test]
fn strings_and_names_are_tokens_but_the_vocabulary_and_the_id_are_not() {
    let pdf = String::from_utf8(document(
        "/Lang(en)/PageMode/UseNone/Info<</Title(T)>>",
        &[],
    ))
    .expect("text")
    .replace("/Root 1 0 R>>", "/Root 1 0 R/ID[<0102><0304>]>>");
    let doc = Pdf.parse(pdf.as_bytes()).expect("parses");
    assert!(
        (doc.tree.nodes()).any(|n| doc.tree.edge(n) == "ID"),
        "the trailer has its /ID"
    );
    let lex = Pdf.lexicon(&doc).expect("a lexicon");
    let texts: Vec<(String, &TokenKind)> = (lex.tokens.iter())
        .map(|t| {
            let text = String::from_utf8_lossy(&doc.tree.source()[t.span.clone()]).into_owned();
            (text, &t.kind)
        })
        .collect();
    let strings = TokenKind::Literal { open: 1, close: 1 };
    let names = TokenKind::Literal { open: 1, close: 0 };
    let mut found: Vec<(&str, &TokenKind)> = texts.iter().map(|(t, k)| (t.as_str(), *k)).collect();
    found.sort_by_key(|(t, _)| *t);
    assert_eq!(
        found,
        [("(T)", &strings), ("(en)", &strings), ("/UseNone", &names)],
        "no /Type value, no /ID string"
    );
}
