//! The parts of a C or C++ file for the slice move (`docs/c.md`, "The slice"): every
//! declaration at file or namespace scope (and inside `extern "C" {…}` and `#if` blocks), each
//! needing the parts that declare a name it uses, by text, as the list moves match names.
//! Namespaces, linkage blocks and conditional blocks are not parts but what holds them: an
//! emptied `namespace std {}` stays for the tree moves.
//!
//! A part is fixed (kept whatever ddmin chooses) when it declares nothing a use could name
//! (`#include`, `static_assert`, a line marker, the head of a namespace the grammar could not
//! read), or when it declares the entry point. A part tree-sitter misread in part (a
//! class template with an `ERROR` in a method) declares what it seems to: if that is wrong, the
//! test says so.

use crate::decls::{ENTRY, deletion_span};
use crate::names::{Uses, child, declared_names, is_declaration_node};
use std::collections::HashMap;
use whittle_core::{Document, NodeId, Slices, Tree};

/// The file's parts, what each needs, and which are fixed.
pub(crate) fn slices(doc: &Document) -> Option<Slices> {
    let tree = &doc.tree;
    let mut parts = Vec::new();
    collect(tree, tree.root(), &mut parts);
    if parts.len() < 2 {
        return None;
    }
    let spans: Vec<_> = parts.iter().map(|&p| deletion_span(tree, p)).collect();
    // Which part declares each name, and which parts are fixed.
    let mut declared_by: HashMap<&[u8], Vec<usize>> = HashMap::new();
    let mut fixed = vec![false; parts.len()];
    for (i, &p) in parts.iter().enumerate() {
        let names = part_names(tree, p);
        fixed[i] = (names.is_empty() && !may_go_unnamed(tree, p))
            || names.iter().any(|&m| tree.text(m) == ENTRY);
        for m in names {
            declared_by.entry(tree.text(m)).or_default().push(i);
        }
    }
    // Each use needs the parts that declare its name: the part around it needs them.
    let mut needs: Vec<Vec<usize>> = vec![Vec::new(); parts.len()];
    for (name, uses) in Uses::of(tree).iter() {
        let Some(by) = declared_by.get(name) else {
            continue;
        };
        for &(at, leaf) in uses {
            // A member's name (`x.size`) names what a type declares: the part that declares
            // the type is needed through the type's name.
            if tree.label(leaf) == "field_identifier" {
                continue;
            }
            let i = spans.partition_point(|s| s.end <= at);
            if spans.get(i).is_some_and(|s| s.start <= at) {
                needs[i].extend(by.iter().copied().filter(|&j| j != i));
            }
        }
    }
    for n in &mut needs {
        n.sort_unstable();
        n.dedup();
    }
    Some(Slices {
        parts: spans,
        needs,
        fixed,
    })
}

/// Whether a part that declares nothing may go all the same, which ddmin decides: a comment,
/// an explicit instantiation (the crash may be in instantiating it), and text the grammar
/// could not read whose brackets balance (`extern template class allocator<char>;` in
/// libstdc++). Not an unbalanced one: the head of a namespace tree-sitter could not read
/// (`namespace std __attribute__ (…) {`) or its `}`, without which nothing compiles.
fn may_go_unnamed(tree: &Tree, p: NodeId) -> bool {
    match tree.label(p) {
        "comment" | "template_instantiation" => true,
        "ERROR" => {
            let text = tree.text(p);
            let count = |b: u8| text.iter().filter(|&&c| c == b).count();
            count(b'{') == count(b'}') && count(b'(') == count(b')')
        }
        _ => false,
    }
}

/// The names a part declares: what its declaration declares ([`declared_names`]), through
/// `extern "C"` and every `template<…>` around it (a member template defined outside its
/// class has two), and also what a declaration that is not a definition names: the tag of
/// `struct S;`, the name a `using` declaration brings in.
fn part_names(tree: &Tree, p: NodeId) -> Vec<NodeId> {
    let mut d = p;
    loop {
        let inner = match tree.label(d) {
            "linkage_specification" => child(tree, d, "body"),
            "template_declaration" => tree
                .children(d)
                .iter()
                .copied()
                .find(|&c| tree.label(c) == "template_declaration"),
            _ => None,
        };
        match inner {
            Some(i) => d = i,
            None => break,
        }
    }
    let mut names = if is_declaration_node(tree, d) || tree.label(d) == "template_declaration" {
        declared_names(tree, d)
    } else {
        Vec::new()
    };
    if names.is_empty() {
        // `struct S;`, `template<…> class C;`, `using ::f;`: the last name in it.
        let declares = matches!(
            tree.label(d),
            "declaration" | "template_declaration" | "using_declaration"
        ) || tree.label(d).ends_with("_specifier");
        if declares {
            names.extend(
                tree.subtree(d)
                    .filter(|&m| matches!(tree.label(m), "identifier" | "type_identifier"))
                    .last(),
            );
        }
    }
    names
}

/// The parts under `n`, in file order: its children that are not containers, and the parts of
/// those that are.
fn collect(tree: &Tree, n: NodeId, out: &mut Vec<NodeId>) {
    for &c in tree.children(n) {
        if matches!(tree.edge(c), "condition" | "name") && tree.label(n).starts_with("preproc_") {
            continue;
        }
        match tree.label(c) {
            "namespace_definition" => {
                if let Some(body) = child(tree, c, "body") {
                    collect(tree, body, out);
                }
            }
            "linkage_specification" => match child(tree, c, "body") {
                Some(body) if tree.label(body) == "declaration_list" => collect(tree, body, out),
                _ => out.push(c),
            },
            // What tree-sitter reads of a namespace it could not read the head of
            // (`namespace std __attribute__ ((__visibility__ ("default"))) {…}`): an `ERROR`
            // and a block of the declarations in it.
            "declaration_list" | "compound_statement" | "preproc_if" | "preproc_ifdef"
            | "preproc_else" | "preproc_elif" | "preproc_elifdef" => collect(tree, c, out),
            // The `;` after a class's `}` declares nothing and needs nothing: it stays where
            // its class goes, for the tree moves, as it did when it was a token.
            "empty_declaration" => {}
            _ => out.push(c),
        }
    }
}
