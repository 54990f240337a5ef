//! `namespace-erase`: C++ namespaces and `extern "C++" {…}` blocks taken apart, their
//! declarations left where they were (C-Vise's `remove-namespace`).
//!
//! A namespace that holds what the test needs cannot be deleted, and its head (in preprocessed
//! libstdc++, `namespace std __attribute__ ((__visibility__ ("default"))) {`) and its `}` are
//! the bytes left around the few declarations that matter. One candidate per namespace name:
//! every block of that name loses its head and its `}`, and every `N::` qualifier that names it
//! goes too (`std::map<int, T>` → `map<int, T>`, `::std::size_t` → `::size_t`), with the
//! `using namespace N;` lines, so the names still resolve, now at the scope around. One candidate
//! per linkage block, which only its own braces affect. A name declared in two of the erased
//! namespaces, or in one and around it, now clashes: the compiler says so and the test rejects
//! the candidate.

use crate::decls::deletion;
use crate::names::child;
use std::collections::BTreeMap;
use std::ops::Range;
use whittle_core::{Document, NodeId, Splices, Tree};

/// The candidates, namespaces by name in the order their first block comes, then the linkage
/// blocks.
pub(crate) fn erased_namespaces(doc: &Document) -> Vec<Splices> {
    let tree = &doc.tree;
    // For each namespace name: the position of its first block, and what erasing it deletes.
    let mut by_name: BTreeMap<&[u8], (usize, Vec<Range<usize>>)> = BTreeMap::new();
    let mut qualifiers: Vec<(&[u8], Range<usize>)> = Vec::new();
    let mut linkage = Vec::new();
    for n in tree.nodes() {
        match tree.label(n) {
            "namespace_definition" => {
                let Some(braces) = braces(tree, n) else {
                    continue;
                };
                let name = child(tree, n, "name").map_or(&b""[..], |m| tree.text(m));
                let entry = by_name.entry(name).or_insert((n.index(), Vec::new()));
                entry.1.extend(braces);
            }
            "linkage_specification" => linkage.extend(braces(tree, n).map(|b| deletion(&b))),
            "using_declaration" if tree.text(n).starts_with(b"using namespace") => {
                if let Some(&m) = tree.children(n).last() {
                    qualifiers.push((tree.text(m), tree.span(n)));
                }
            }
            _ => {
                if let (Some(scope), Some(name)) = (child(tree, n, "scope"), child(tree, n, "name"))
                    && tree.label(scope) == "namespace_identifier"
                {
                    qualifiers.push((
                        tree.text(scope),
                        tree.span(scope).start..tree.span(name).start,
                    ));
                }
            }
        }
    }
    for (name, range) in qualifiers {
        if let Some(entry) = by_name.get_mut(name) {
            entry.1.push(range);
        }
    }
    let mut names: Vec<(usize, Vec<Range<usize>>)> = by_name.into_values().collect();
    names.sort_by_key(|&(first, _)| first);
    names
        .into_iter()
        .map(|(_, ranges)| deletion(&ranges))
        .chain(linkage)
        .collect()
}

/// A block's head with its `{` (from the node's start) and its `}`, if its body is a
/// braced declaration list.
fn braces(tree: &Tree, n: NodeId) -> Option<[Range<usize>; 2]> {
    let body = child(tree, n, "body").filter(|&b| tree.label(b) == "declaration_list")?;
    let span = tree.span(body);
    let text = tree.text(body);
    (text.first() == Some(&b'{') && text.last() == Some(&b'}'))
        .then(|| [tree.span(n).start..span.start + 1, span.end - 1..span.end])
}
