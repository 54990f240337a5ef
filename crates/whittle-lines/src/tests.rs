use super::Lines;
use whittle_core::{Edit, Edits, Format, NodeId};

fn check(input: &str, delete: &[usize], expect: &str) {
    let doc = Lines.parse(input.as_bytes()).expect("lines always parse");
    let mut out = Vec::new();
    Lines.render(&doc, &Edits::new(), &mut out);
    assert_eq!(out, input.as_bytes(), "unedited render must round-trip");
    let kids = doc.tree.children(NodeId::ROOT).to_vec();
    let edits: Edits = delete.iter().map(|&i| (kids[i], Edit::Delete)).collect();
    out.clear();
    Lines.render(&doc, &edits, &mut out);
    assert_eq!(String::from_utf8(out).unwrap(), expect);
}

#[test]
fn every_line_is_a_child_and_deletions_drop_whole_lines() {
    check("a\nb\nc\n", &[1], "a\nc\n");
    check("a\nb\nc", &[2], "a\nb\n");
    check("a\r\n\nlast", &[0, 2], "\n");
}

#[test]
fn empty_input_is_just_the_root() {
    let doc = Lines.parse(b"").unwrap();
    assert_eq!(doc.tree.len(), 1);
    check("", &[], "");
}

#[test]
fn node_count_is_lines_plus_root() {
    let doc = Lines.parse(b"x\ny\n\nz").unwrap();
    assert_eq!(doc.tree.len(), 5);
    assert_eq!(doc.tree.label(doc.tree.children(NodeId::ROOT)[2]), "line");
}

#[test]
fn each_line_without_its_break_is_a_literal_for_the_moves_below_the_tree() {
    let doc = Lines.parse(b"ab\ncd").unwrap();
    let lex = Lines.lexicon(&doc).expect("lines has a lexicon");
    let kinds: Vec<_> = lex
        .tokens
        .iter()
        .map(|t| (t.span.clone(), t.kind.clone()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (0..3, whittle_core::TokenKind::Literal { open: 0, close: 1 }),
            (3..5, whittle_core::TokenKind::Literal { open: 0, close: 0 }),
        ]
    );
}
