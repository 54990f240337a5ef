use crate::{Asi, ERROR_LABEL, Spec, parse, render};
use whittle_core::{Edit, Edits, NodeId, Tree};

fn python() -> Spec {
    Spec {
        language: tree_sitter_python::LANGUAGE.into(),
        separators: &[",", ";"],
        protected: &["string"],
        reindent: true,
        block: Some("block"),
        tokens: &[],
        asi: None,
        optional: None,
        comments: &["comment"],
        empty_items: &[],
    }
}

/// Every grammar the workspace uses loads into this tree-sitter (a grammar built for another ABI
/// fails only at run time, with "Incompatible language version").
#[test]
fn every_grammar_of_the_workspace_loads() {
    for (name, language) in [
        ("python", tree_sitter_python::LANGUAGE.into()),
        ("javascript", tree_sitter_javascript::LANGUAGE.into()),
    ] {
        let mut parser = tree_sitter::Parser::new();
        let language: tree_sitter::Language = language;
        parser
            .set_language(&language)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            parser
                .parse("x = 1\n", None)
                .is_some_and(|t| !t.root_node().has_error()),
            "{name}"
        );
    }
}

/// Finds the first node (in document order) with `label` whose text is `text`.
fn find(t: &Tree, label: &str, text: &str) -> NodeId {
    t.nodes()
        .find(|&n| t.label(n) == label && t.text(n) == text.as_bytes())
        .unwrap_or_else(|| panic!("no {label} {text:?} in\n{}", t.dump()))
}

/// Parses `src`, applies the edits built by `edit` and compares the rendering with `expect`.
fn check(src: &str, edit: impl FnOnce(&Tree) -> Edits, expect: &str) {
    let doc = parse(&python(), src.as_bytes()).expect("tree-sitter parses anything");
    let mut out = Vec::new();
    render(&python(), &doc, &Edits::new(), &mut out);
    assert_eq!(String::from_utf8_lossy(&out), src, "unedited round trip");
    out.clear();
    let edits = edit(&doc.tree);
    render(&python(), &doc, &edits, &mut out);
    assert_eq!(String::from_utf8_lossy(&out), expect);
}

fn delete(t: &Tree, label: &str, text: &str) -> Edits {
    [(find(t, label, text), Edit::Delete)].into_iter().collect()
}

#[test]
fn named_nodes_become_nodes_and_tokens_stay_in_the_template() {
    let doc = parse(&python(), b"if not x:\n    f(a, b=2)\n").unwrap();
    assert_eq!(
        doc.tree.dump(),
        "module\n\
         \x20 child: if_statement\n\
         \x20   condition: not_operator\n\
         \x20     argument: identifier \"x\"\n\
         \x20   consequence: block\n\
         \x20     child: expression_statement\n\
         \x20       child: call\n\
         \x20         function: identifier \"f\"\n\
         \x20         arguments: argument_list\n\
         \x20           child: identifier \"a\"\n\
         \x20           child: keyword_argument\n\
         \x20             name: identifier \"b\"\n\
         \x20             value: integer \"2\"\n"
    );
    assert!(doc.diagnostics.is_empty());
}

#[test]
fn syntax_errors_are_kept_as_opaque_text() {
    let src = "a = 1\nb = (2 +\nc = 3\n\ndef g():\n    return 4\n";
    let doc = parse(&python(), src.as_bytes()).unwrap();
    let error = find(&doc.tree, ERROR_LABEL, "= (2 +\nc");
    assert!(
        doc.tree.children(error).is_empty(),
        "an ERROR node is an opaque leaf"
    );
    assert_eq!(doc.diagnostics.len(), 1);
    assert_eq!(doc.diagnostics[0].offset, 8);
    // The parts around the error are still trees and reduce on their own.
    check(
        src,
        |t| delete(t, "expression_statement", "a = 1"),
        "b = (2 +\nc = 3\n\ndef g():\n    return 4\n",
    );
    check(
        src,
        |t| delete(t, "function_definition", "def g():\n    return 4"),
        // The file's last statement takes the line break that ends the file with it.
        "a = 1\nb = (2 +\nc = 3",
    );
}

#[test]
fn deleting_list_elements_keeps_separators_valid() {
    check(
        "f(a, b, c)\n",
        |t| delete(t, "identifier", "a"),
        "f(b, c)\n",
    );
    check(
        "f(a, b, c)\n",
        |t| delete(t, "identifier", "b"),
        "f(a, c)\n",
    );
    check(
        "f(a, b, c)\n",
        |t| delete(t, "identifier", "c"),
        "f(a, b)\n",
    );
    check(
        "xs = [1, 2,]\n",
        |t| delete(t, "integer", "2"),
        "xs = [1,]\n",
    );
    check("xs = [1,]\n", |t| delete(t, "integer", "1"), "xs = []\n");
    check(
        "import os, sys\n",
        |t| delete(t, "dotted_name", "os"),
        "import sys\n",
    );
    check(
        "d = {1: 2, 3: 4}\n",
        |t| delete(t, "pair", "3: 4"),
        "d = {1: 2}\n",
    );
    check(
        "def g(p, q=1, *r):\n    pass\n",
        |t| delete(t, "default_parameter", "q=1"),
        "def g(p, *r):\n    pass\n",
    );
    check(
        "a = 1; b = 2\n",
        |t| delete(t, "expression_statement", "a = 1"),
        "b = 2\n",
    );
    let both = |t: &Tree| {
        [
            (find(t, "identifier", "a"), Edit::Delete),
            (find(t, "identifier", "c"), Edit::Delete),
        ]
        .into_iter()
        .collect()
    };
    check("f(a, b, c)\n", both, "f(b)\n");
}

#[test]
fn a_deleted_statement_takes_its_line_with_it() {
    check(
        "a = 1\nb = 2\nc = 3\n",
        |t| delete(t, "expression_statement", "b = 2"),
        "a = 1\nc = 3\n",
    );
    check(
        "def f():\n    a()\n    b()\n",
        |t| delete(t, "expression_statement", "a()"),
        "def f():\n    b()\n",
    );
    check(
        "def f():\n    a()\n    b()\n",
        |t| delete(t, "expression_statement", "b()"),
        "def f():\n    a()\n",
    );
}

#[test]
fn a_block_moved_to_another_depth_is_reindented() {
    let src = "if x:\n    a = 1\n    if y:\n        b = '''two\n  lines'''\n        c = 3\n";
    // The outer `if` replaced by its block: everything moves four columns left, but the inside
    // of the multi-line string stays as it is.
    check(
        src,
        |t| {
            let stmt = t.children(NodeId::ROOT)[0];
            let block = t.children(stmt)[1];
            [(stmt, Edit::Replace(block))].into_iter().collect()
        },
        "a = 1\nif y:\n    b = '''two\n  lines'''\n    c = 3\n",
    );
    // The inner `if` replaced by its block: eight columns become four.
    check(
        src,
        |t| {
            let inner = t
                .nodes()
                .filter(|&n| t.label(n) == "if_statement")
                .nth(1)
                .unwrap();
            let block = t.children(inner)[1];
            [(inner, Edit::Replace(block))].into_iter().collect()
        },
        "if x:\n    a = 1\n    b = '''two\n  lines'''\n    c = 3\n",
    );
}

#[test]
fn tabs_are_reindented_by_prefix() {
    let src = "if x:\n\tif y:\n\t\ta()\n\t\tb()\n";
    check(
        src,
        |t| {
            let inner = t
                .nodes()
                .filter(|&n| t.label(n) == "if_statement")
                .nth(1)
                .unwrap();
            [(inner, Edit::Replace(t.children(inner)[1]))]
                .into_iter()
                .collect()
        },
        "if x:\n\ta()\n\tb()\n",
    );
}

#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    let depth = 20_000;
    let src = format!("x = {}1{}\n", "(".repeat(depth), ")".repeat(depth));
    let doc = parse(&python(), src.as_bytes()).unwrap();
    let mut out = Vec::new();
    render(&python(), &doc, &Edits::new(), &mut out);
    assert_eq!(out, src.as_bytes());
}

#[test]
fn tidy_drops_blank_lines_and_trailing_blanks_and_minimizes_indentation() {
    let src = "import gc\n\nx = 1   \n\t\n  \ns = '''a  \n\n  b'''\nif x:\n    if y:\n        f(1,\n          2)\n    return \n";
    let doc = parse(&python(), src.as_bytes()).unwrap();
    let tidy = crate::tidy(&python(), &doc).expect("something to tidy");
    assert_eq!(
        String::from_utf8(tidy).unwrap(),
        "import gc\nx = 1\ns = '''a  \n\n  b'''\nif x:\n if y:\n  f(1,\n  2)\n return\n"
    );
    let clean = parse(&python(), b"a = 1\nif a:\n b = 2\n").unwrap();
    assert!(crate::tidy(&python(), &clean).is_none());
}

/// A small JavaScript spec that exercises `tokens` and `asi` (the full one is in
/// whittle-javascript).
fn javascript() -> Spec {
    Spec {
        language: tree_sitter_javascript::LANGUAGE.into(),
        separators: &[","],
        protected: &[],
        reindent: false,
        block: None,
        tokens: &[
            "string_fragment",
            "escape_sequence",
            "regex_pattern",
            "regex_flags",
        ],
        asi: Some(Asi {
            lists: &["program", "statement_block"],
            extras: &["comment"],
            continues: b"([",
            ends: b";",
        }),
        optional: None,
        comments: &["comment"],
        empty_items: &[],
    }
}

fn check_js(src: &str, edit: impl FnOnce(&Tree) -> Edits, expect: &str) {
    let doc = parse(&javascript(), src.as_bytes()).expect("tree-sitter parses anything");
    let mut out = Vec::new();
    render(&javascript(), &doc, &Edits::new(), &mut out);
    assert_eq!(String::from_utf8_lossy(&out), src, "unedited round trip");
    out.clear();
    render(&javascript(), &doc, &edit(&doc.tree), &mut out);
    assert_eq!(String::from_utf8_lossy(&out), expect);
}

#[test]
fn token_kinds_stay_in_the_template() {
    let doc = parse(&javascript(), b"f('a\\n', /x+/g);\n").unwrap();
    assert_eq!(
        doc.tree.dump(),
        "program\n\
         \x20 child: expression_statement\n\
         \x20   child: call_expression\n\
         \x20     function: identifier \"f\"\n\
         \x20     arguments: arguments\n\
         \x20       child: string \"'a\\\\n'\"\n\
         \x20       child: regex \"/x+/g\"\n"
    );
}

#[test]
fn asi_writes_a_semicolon_where_statements_come_to_meet() {
    let js = |t: &Tree, label: &str, text: &str| -> Edits {
        [(find(t, label, text), Edit::Delete)].into_iter().collect()
    };
    // `x = 1` owned the `;` that kept `a` from calling `(b)`.
    check_js(
        "a\nx = 1\n;(b)\n",
        |t| js(t, "expression_statement", "x = 1\n;"),
        "a\n;(b)\n",
    );
    // Comments are passed over, and the `;` goes in front of the statement.
    check_js(
        "{\n  a // c\n  x\n  ;[b] = d\n}\n",
        |t| js(t, "expression_statement", "x\n  ;"),
        "{\n  a // c\n  ;[b] = d\n}\n",
    );
    // Not after a `;`, not before a statement that cannot continue the one before, and not
    // between neighbours of the input that keep their bytes.
    check_js(
        "a;\nx\n;(b)\n",
        |t| js(t, "expression_statement", "x\n;"),
        "a;\n(b)\n",
    );
    check_js(
        "a\nx\n;b\n",
        |t| js(t, "expression_statement", "x\n;"),
        "a\nb\n",
    );
    check_js(
        "function f() {}\n(b)\nc\n",
        |t| js(t, "expression_statement", "c"),
        "function f() {}\n(b)",
    );
    // Without `asi` (Python's spec) nothing is added.
    let mut plain = javascript();
    plain.asi = None;
    let doc = parse(&plain, b"a\nx = 1\n;(b)\n").unwrap();
    let mut out = Vec::new();
    render(
        &plain,
        &doc,
        &js(&doc.tree, "expression_statement", "x = 1\n;"),
        &mut out,
    );
    assert_eq!(out, b"a\n(b)\n");
}

#[test]
fn tidy_reindents_the_line_a_multi_line_string_starts_on() {
    // The string's own lines keep every byte, but the statement it starts on moves with the
    // rest of its block (before, it kept four spaces beside a one-space neighbour).
    let src = "if x:\n    s = '''a  \n  b'''\n    t = 1\n";
    let doc = parse(&python(), src.as_bytes()).unwrap();
    let tidy = crate::tidy(&python(), &doc).expect("something to tidy");
    assert_eq!(
        String::from_utf8(tidy).unwrap(),
        "if x:\n s = '''a  \n  b'''\n t = 1\n"
    );
}

#[test]
fn tidy_indents_a_closing_brace_like_its_statement() {
    let js = Spec {
        reindent: true,
        block: Some("statement_block"),
        ..javascript()
    };
    let src = "function f() {\n    if (x) {\n        g({\n          a: 1,\n        });\n    } else {\n        h();\n    }\n}\n";
    let doc = parse(&js, src.as_bytes()).unwrap();
    let tidy = crate::tidy(&js, &doc).expect("something to tidy");
    assert_eq!(
        String::from_utf8(tidy).unwrap(),
        "function f() {\n if (x) {\n  g({\n  a: 1,\n        });\n } else {\n  h();\n }\n}\n"
    );
}

/// Every node of `t` in pre-order: its kind, bytes, and start and end positions.
fn nodes(t: &tree_sitter::Tree) -> Vec<(String, std::ops::Range<usize>, String)> {
    let mut out = Vec::new();
    let mut cursor = t.walk();
    loop {
        let n = cursor.node();
        let at = format!("{}-{}", n.start_position(), n.end_position());
        out.push((n.kind().to_string(), n.byte_range(), at));
        if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return out;
            }
        }
    }
}

/// The tree of a file told which spans were blanked (`mask::tell_blanked`) and parsed again is
/// the tree a fresh parse of the blanked text gives, node for node, positions included: spans
/// on several lines, one holding a line break (kept), one at the start of a line.
#[test]
fn a_tree_told_of_blanked_spans_reparses_as_a_fresh_parse_of_them() {
    let src = "let a = 1;\nfoo(@@@ 2);\nlet b = {\n  c: 3 @@\n@,\n};\n@@ let d = a;\n";
    let spans: Vec<_> = ["@@@", "@@\n@", "@@ "]
        .iter()
        .scan(0, |from, s| {
            let at = *from + src[*from..].find(s).expect("span");
            *from = at + s.len();
            Some(at..at + s.len())
        })
        .collect();
    let mut text = src.as_bytes().to_vec();
    for s in &spans {
        for b in &mut text[s.clone()] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_javascript::LANGUAGE.into())
        .expect("grammar");
    let first = parser.parse(src, None).expect("parse");
    assert!(first.root_node().has_error());
    let fresh = parser.parse(&text, None).expect("parse");
    assert!(!fresh.root_node().has_error());
    let mut edited = first.clone();
    crate::mask::tell_blanked(&mut edited, src.as_bytes(), &spans);
    let again = parser.parse(&text, Some(&edited)).expect("parse");
    assert_eq!(nodes(&again), nodes(&fresh));
    // The last declaration starts on line 6 (from 0), column 3, after the blanked `@@ `.
    let last = fresh.root_node().named_child(3).expect("four statements");
    assert_eq!(
        (
            last.kind(),
            last.start_position().row,
            last.start_position().column
        ),
        ("lexical_declaration", 6, 3)
    );
}

/// `parse_counting_at_most` gives what `parse_counting` gives where the count is at most its
/// bound, and nothing where it is more: `x = (⏎` has one place tree-sitter cannot read.
#[test]
fn a_count_above_the_bound_gives_no_tree() {
    let src = b"y = 2\nx = (\n";
    let (doc, count) = crate::parse_counting(&python(), src).expect("parse");
    assert_eq!(count, 1);
    assert!(
        crate::parse_counting_at_most(&python(), src, 0)
            .expect("parse")
            .is_none()
    );
    let (within, n) = crate::parse_counting_at_most(&python(), src, 1)
        .expect("parse")
        .expect("at most one");
    assert_eq!(n, 1);
    let labels = |t: &Tree| {
        t.nodes()
            .map(|n| t.label(n).to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(labels(&within.tree), labels(&doc.tree));
    assert_eq!(within.tree.source(), doc.tree.source());
}
