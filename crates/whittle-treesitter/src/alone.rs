//! The literal probe of a language ([`whittle_core::Format::literals_alone`]): the file's literals
//! alone, each a statement of its own.

use std::collections::HashSet;
use whittle_core::{Document, NodeId};

/// What a language's literal probe is made of (see [`literals_alone`]).
#[derive(Clone, Copy, Debug)]
pub struct LiteralsAlone {
    /// The kinds of the literal nodes.
    pub kinds: &'static [&'static str],
    /// Kinds that make a literal depend on the code around it (a template's `${…}`, an
    /// f-string's `{…}`): a literal with one of them below it is left out (the literals inside
    /// the hole are not).
    pub holes: &'static [&'static str],
    /// Where a literal is no value of its own, as (parent kind, edge): JavaScript's tagged
    /// template (`` String.raw`C:\new` ``, a `call_expression`'s `arguments`), whose escapes need
    /// not be valid and whose text the tag reads raw. Literals inside it are not left out.
    pub not_values: &'static [(&'static str, &'static str)],
    /// Texts left out: literals that mean more as a statement of their own than as a value
    /// (JavaScript's `"use strict"`, which as the probe's first statement would make it strict).
    pub skip: &'static [&'static [u8]],
    /// What follows each literal to make a statement of it.
    pub end: &'static [u8],
}

/// The literals of `doc` alone: every node of one of the `spec`'s kinds that is a value (not in
/// one of its `not_values` places), with no hole and no `ERROR` below it, and inside no other
/// such literal, each text once, in the order of its first occurrence, each followed by the
/// `spec`'s end. `None` where there is none.
pub fn literals_alone(doc: &Document, spec: &LiteralsAlone) -> Option<Vec<u8>> {
    let tree = &doc.tree;
    let has_hole = |n: NodeId| {
        (tree.subtree(n).skip(1)).any(|d| {
            let label = tree.label(d);
            label == crate::ERROR_LABEL || spec.holes.contains(&label)
        })
    };
    let not_value = |n: NodeId| {
        tree.parent(n).is_some_and(|p| {
            (spec.not_values.iter())
                .any(|&(kind, edge)| tree.label(p) == kind && tree.edge(n) == edge)
        })
    };
    let mut seen: HashSet<&[u8]> = HashSet::new();
    let mut out = Vec::new();
    // Nodes below this id are inside a literal already taken.
    let mut inside = 0;
    for n in tree.nodes() {
        if n.index() < inside || !spec.kinds.contains(&tree.label(n)) || not_value(n) || has_hole(n)
        {
            continue;
        }
        inside = n.index() + tree.size(n);
        let text = tree.text(n);
        if spec.skip.contains(&text_without_quotes(text)) || !seen.insert(text) {
            continue;
        }
        out.extend_from_slice(text);
        out.extend_from_slice(spec.end);
    }
    (!out.is_empty()).then_some(out)
}

/// `text` without the quote at each end, if it has the same quote at both.
fn text_without_quotes(text: &[u8]) -> &[u8] {
    match text {
        [q @ (b'"' | b'\''), inner @ .., last] if last == q => inner,
        _ => text,
    }
}
