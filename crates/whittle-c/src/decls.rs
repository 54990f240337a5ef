//! The list moves over declarations (`docs/c.md`, "Declarations first"): what C-Reduce's and
//! C-Vise's first passes do, without a compiler front end. Names are matched by their text over
//! the whole file, which is what a reference count over tree-sitter's identifiers can know; a
//! candidate that is wrong about a name fails to compile, and the test rejects it.
//!
//! - `unused-decl`: every declaration whose names nothing outside it names (functions,
//!   variables, typedefs, struct, union, enum and class types, methods, enumerators, macros,
//!   templates), outermost first; not namespaces, friends and data members, nor what is used
//!   without a name (`main`, operators, conversions, destructors).
//! - `body-to-decl`: a function definition becomes its prototype (`int f(int x) {…}` →
//!   `int f(int x);`; `main`'s body becomes `{}`), except where C++ needs the body wherever
//!   the function is used: a `constexpr` or `consteval` function (constant evaluation), one
//!   whose return type is deduced (`auto`, `decltype(auto)`) and an explicitly instantiated
//!   template.
//!
//! - `decl-with-uses` (`with_uses.rs`): a declaration deleted together with everything that
//!   depends on it.
//! - `namespace-erase` (`flatten.rs`): a C++ namespace's declarations taken out of it.
//!
//! `names.rs` says what a declaration declares and where a name is used.

use crate::names::{
    Uses, child, declarator_chain, declarator_name, declared_names, is_declaration, misread,
};
use std::ops::Range;
use whittle_core::{Document, ListMove, NodeId, Splices, Tree};

/// The declaration moves, in the order the default pipeline runs them.
pub(crate) const MOVES: [ListMove; 5] = [
    // Unused declarations first: a body made a prototype is a test wasted on a function that
    // nothing calls.
    ListMove {
        name: "unused-decl",
        changes: unused_declarations,
        after_tree: false,
        between_levels: true,
    },
    ListMove {
        name: "body-to-decl",
        changes: bodies_to_prototypes,
        after_tree: false,
        between_levels: false,
    },
    // Before the tree moves: each candidate that passes takes what the tree moves would
    // delete level by level, at a test per node at least (on `pr108498`, `struct S` with the
    // two functions and the half of `main` that use it). And after them, on what they left.
    ListMove {
        name: "decl-with-uses",
        changes: crate::with_uses::declarations_with_uses,
        after_tree: false,
        between_levels: false,
    },
    ListMove {
        name: "decl-with-uses",
        changes: crate::with_uses::declarations_with_uses,
        after_tree: true,
        between_levels: false,
    },
    // Once the tree moves have emptied what they can: a namespace that still holds something
    // the test needs loses its head and braces (C++; C has no namespace).
    ListMove {
        name: "namespace-erase",
        changes: crate::flatten::erased_namespaces,
        after_tree: true,
        between_levels: false,
    },
];

/// The entry point: never deleted or renamed, only emptied (the linker names it).
pub(crate) const ENTRY: &[u8] = b"main";

/// Every function definition with a body, its body (and a C++ constructor's member initializer
/// list before it) replaced by `;`.
fn bodies_to_prototypes(doc: &Document) -> Vec<Splices> {
    let tree = &doc.tree;
    let instantiated = explicitly_instantiated(tree);
    let mut out = Vec::new();
    for n in tree.nodes() {
        if tree.label(n) != "function_definition" {
            continue;
        }
        let Some(body) = child(tree, n, "body") else {
            continue;
        };
        if tree.label(body) != "compound_statement" {
            continue;
        }
        let names = declared_names(tree, n);
        if needs_its_body(tree, n)
            || misread(tree, n)
            || names.iter().any(|&m| instantiated.contains(&tree.text(m)))
        {
            continue;
        }
        let mut s = Splices::default();
        if names.iter().any(|&m| tree.text(m) == ENTRY) {
            // The entry point stays defined (a test may link and run the program), with an
            // empty body: for a compiler crash, everything it called becomes unused.
            if tree.text(body) != b"{}" {
                s.add(tree.span(body), b"{}");
                out.push(s);
            }
            continue;
        }
        if defines_a_member_out_of_class(tree, n) {
            // `void A::f() {…}` cannot become a prototype outside its class, where the class
            // declares it already: the definition goes (with its `template<…>`).
            s.add(deletion_span(tree, n), b"");
            out.push(s);
            continue;
        }
        let start = tree
            .children(n)
            .iter()
            .find(|&&c| tree.label(c) == "field_initializer_list")
            .map_or(tree.span(body).start, |&c| tree.span(c).start);
        s.add(start..tree.span(body).end, b";");
        out.push(s);
    }
    out
}

/// The names of the functions an explicit instantiation names (`template int f<int>(int);`):
/// their definitions must stay definitions.
fn explicitly_instantiated(tree: &Tree) -> Vec<&[u8]> {
    tree.nodes()
        .filter(|&n| tree.label(n) == "template_instantiation")
        .filter_map(|n| declarator_name(tree, child(tree, n, "declarator")?))
        .map(|m| tree.text(m))
        .collect()
}

/// Whether a function definition's declarator names a member of a class or namespace
/// (`A::f`), which is declared in it.
fn defines_a_member_out_of_class(tree: &Tree, n: NodeId) -> bool {
    let Some(d) = child(tree, n, "declarator") else {
        return false;
    };
    declarator_chain(tree, d).any(|d| tree.label(d) == "qualified_identifier")
}

/// Whether C++ needs a function's body wherever it is used: for constant evaluation
/// (`constexpr`, `consteval`) or to deduce its return type (`auto`, `decltype(auto)`).
fn needs_its_body(tree: &Tree, n: NodeId) -> bool {
    tree.children(n).iter().any(|&c| match tree.label(c) {
        "type_qualifier" | "storage_class_specifier" => {
            matches!(tree.text(c), b"constexpr" | b"consteval")
        }
        "placeholder_type_specifier" => true,
        _ => false,
    })
}

/// Every declaration that declares names, none of which is used outside it, deleted; a
/// declaration inside one already listed is not listed again.
fn unused_declarations(doc: &Document) -> Vec<Splices> {
    let tree = &doc.tree;
    let uses = Uses::of(tree);
    let mut out = Vec::new();
    let mut skip_to = 0usize;
    for n in tree.nodes() {
        if n.index() < skip_to || !is_declaration(tree, n) || is_data_member(tree, n) {
            continue;
        }
        let names = declared_names(tree, n);
        if names.is_empty() || names.iter().any(|&m| used_implicitly(tree, m)) {
            continue;
        }
        let span = deletion_span(tree, n);
        if names.iter().all(|&m| !uses.outside(tree.text(m), &span)) {
            out.push(deletion(&[span]));
            skip_to = n.index() + tree.size(n);
        }
    }
    out
}

/// Whether a declaration is a struct's or class's data member: those stay, since an aggregate
/// initializer (`{0, 0, 1}`) fills the members by position, naming none of them.
pub(crate) fn is_data_member(tree: &Tree, n: NodeId) -> bool {
    tree.label(n) == "field_declaration"
        && !tree.children(n).iter().any(|&c| {
            tree.edge(c) == "declarator"
                && declarator_chain(tree, c).any(|d| tree.label(d) == "function_declarator")
        })
}

/// Whether a declared name is used where no identifier names it: the entry point (named by the
/// linker), C++ operators (`a == b` calls `operator==`), conversions and destructors.
pub(crate) fn used_implicitly(tree: &Tree, name: NodeId) -> bool {
    tree.text(name) == ENTRY
        || matches!(
            tree.label(name),
            "operator_name" | "operator_cast" | "destructor_name"
        )
}

/// What deleting a declaration deletes: the declaration, with the `extern "C"` before it where
/// that applies to it alone (`extern "C++" inline void f() {…}`).
pub(crate) fn deletion_span(tree: &Tree, n: NodeId) -> Range<usize> {
    if tree.label(n) == "enumerator" {
        // An enumerator takes its comma with it.
        return with_comma(tree.source(), tree.span(n));
    }
    match tree.parent(n) {
        Some(p) if tree.label(p) == "linkage_specification" && tree.edge(n) == "body" => {
            tree.span(p)
        }
        // A template's declaration goes with its `template<…>` (a member template of a class
        // template defined outside it has two).
        Some(p) if tree.label(p) == "template_declaration" => deletion_span(tree, p),
        _ => tree.span(n),
    }
}

/// `span` with the comma after it (and the blanks before that comma), or else the comma before
/// it: what a list element takes with it when it goes.
fn with_comma(src: &[u8], span: Range<usize>) -> Range<usize> {
    let after = span.end
        + src[span.end..]
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
    if src.get(after) == Some(&b',') {
        return span.start..after + 1;
    }
    let before = src[..span.start]
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_whitespace())
        .count();
    match span.start.checked_sub(before + 1) {
        Some(comma) if src[comma] == b',' => comma..span.end,
        _ => span,
    }
}

/// One candidate deleting every range (overlapping ranges merge).
pub(crate) fn deletion(ranges: &[Range<usize>]) -> Splices {
    let parts: Vec<Splices> = ranges
        .iter()
        .map(|r| {
            let mut s = Splices::default();
            s.add(r.clone(), b"");
            s
        })
        .collect();
    Splices::union(&parts)
}
