//! C++ as libstdc++ writes it: GNU attributes where the grammar cannot place them, and
//! namespaces taken apart.

use super::*;
use whittle_core::NodeId;

/// The node at a path of child indices from the root.
fn node_at(tree: &Tree, path: &[usize]) -> NodeId {
    path.iter().fold(tree.root(), |n, &i| tree.children(n)[i])
}

/// The label and text of the node at a path of child indices.
fn at(tree: &Tree, path: &[usize]) -> (String, String) {
    let n = node_at(tree, path);
    (
        tree.label(n).to_string(),
        String::from_utf8_lossy(tree.text(n)).into_owned(),
    )
}

#[test]
fn an_attribute_the_grammar_cannot_place_is_left_out_of_the_parse_and_kept_as_a_leaf() {
    let src = "namespace std __attribute__ ((__visibility__ (\"default\")))\n{\n  int x __attribute__ ((__unused__)) = 1;\n}\n";
    // Without the attributes, tree-sitter-cpp reads it without an error.
    assert_eq!(CPP.gate_allowance(src.as_bytes()), Some(vec![0, 0]));
    let doc = round_trip(&CPP, src.as_bytes());
    let tree = &doc.tree;
    assert_eq!(at(tree, &[0]).0, "namespace_definition");
    assert_eq!(
        at(tree, &[0, 1]),
        (
            "attribute_specifier".to_string(),
            "__attribute__ ((__visibility__ (\"default\")))".to_string()
        )
    );
    // In the declaration: between the declarator and its `=`.
    assert_eq!(
        at(tree, &[0, 2, 0, 1, 1]),
        (
            "attribute_specifier".to_string(),
            "__attribute__ ((__unused__))".to_string()
        )
    );
    // Deleting the leaf deletes the attribute, and nothing else.
    let mut edits = Edits::new();
    edits.set(node_at(tree, &[0, 1]), Edit::Delete);
    let mut out = Vec::new();
    CPP.render(&doc, &edits, &mut out);
    assert_eq!(
        String::from_utf8_lossy(&out),
        // (A blank gap with a line break goes with the deleted child.)
        "namespace std {\n  int x __attribute__ ((__unused__)) = 1;\n}\n"
    );
}

#[test]
fn an_attribute_the_grammar_reads_stays_in_its_tree() {
    let src =
        "struct __attribute__((aligned(16))) S { char c; };\nint f(void) __attribute__((noipa));\n";
    let doc = round_trip(&CPP, src.as_bytes());
    let attributes: Vec<usize> = doc
        .tree
        .nodes()
        .filter(|&n| doc.tree.label(n) == "attribute_specifier")
        .map(|n| doc.tree.size(n))
        .collect();
    // Two attribute nodes with their arguments below them, not leaves.
    assert_eq!(attributes.len(), 2, "{attributes:?}");
    assert!(attributes.iter().all(|&s| s > 1), "{attributes:?}");
}

#[test]
fn gnu_attributes_are_found_with_their_balanced_parentheses() {
    let src = b"int __attribute_x; int y __attribute ((a(\")\"), b)); __attribute__((c))(d) z;";
    let found: Vec<&str> = whittle_treesitter::gnu_attributes(src)
        .into_iter()
        .map(|r| std::str::from_utf8(&src[r]).unwrap())
        .collect();
    assert_eq!(found, ["__attribute ((a(\")\"), b))", "__attribute__((c))"]);
}

#[test]
fn a_namespace_is_erased_with_its_qualifiers_and_using_directives() {
    let src = "namespace a { namespace b { int x; } int y = b::x; }\nusing namespace a;\nint z = a::y + ::a::b::x;\nextern \"C++\" { int w; }\n";
    assert_eq!(
        list(&CPP, "namespace-erase", src),
        [
            // `a`: both braces, the qualifiers and the using directive.
            " namespace b { int x; } int y = b::x; \n\nint z = y + ::b::x;\nextern \"C++\" { int w; }\n",
            "namespace a {  int x;  int y = x; }\nusing namespace a;\nint z = a::y + ::a::x;\nextern \"C++\" { int w; }\n",
            "namespace a { namespace b { int x; } int y = b::x; }\nusing namespace a;\nint z = a::y + ::a::b::x;\n int w; \n",
        ]
    );
}

#[test]
fn a_type_template_parameters_typename_may_become_class_but_a_dependent_name_keeps_it() {
    // Three type parameters open with `typename` (one unnamed, one variadic, one with a
    // default); `class U` is short already, and `typename T::type` names a member type.
    let src = "template<typename, class U, typename... Ts, typename V = int>\nstruct s { typename U::type x; };\n";
    let doc = CPP.parse(src.as_bytes()).expect("parses");
    let lex = CPP.lexicon(&doc).expect("a lexicon");
    let shorter: Vec<(&str, usize)> = lex
        .tokens
        .iter()
        .filter(|t| t.kind == TokenKind::Shorter("class"))
        .map(|t| (&src[t.span.clone()], t.span.start))
        .collect();
    assert_eq!(
        shorter,
        [("typename", 9), ("typename", 28), ("typename", 44)]
    );
}

#[test]
fn an_empty_declaration_is_a_leaf_the_tree_moves_can_delete() {
    // The `;` left alone in a class body, and those after a class's `}` at file scope and in a
    // namespace: leaves where tree-sitter keeps them as tokens of the list.
    let src = "class e {\n  int x;\n  ;\n};\nstruct s {};\nnamespace n { struct t {}; }\n";
    let doc = round_trip(&CPP, src.as_bytes());
    let tree = &doc.tree;
    let empty: Vec<NodeId> = (tree.nodes())
        .filter(|&n| tree.label(n) == "empty_declaration")
        .collect();
    assert_eq!(empty.len(), 4);
    assert!(empty.iter().all(|&n| tree.text(n) == b";"));
    assert_eq!(
        at(tree, &[0, 1, 1]),
        ("empty_declaration".into(), ";".into())
    );
    // Deleted with the member before it, the class body is empty but for the blanks before
    // the first (the space move's), and the namespace's `;` after `struct t {}` goes on its own.
    let mut edits = Edits::new();
    edits.set(node_at(tree, &[0, 1, 0]), Edit::Delete);
    edits.set(node_at(tree, &[0, 1, 1]), Edit::Delete);
    edits.set(empty[3], Edit::Delete);
    let mut out = Vec::new();
    CPP.render(&doc, &edits, &mut out);
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "class e {\n  \n};\nstruct s {};\nnamespace n { struct t {} }\n"
    );
}
