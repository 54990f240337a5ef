//! The moves below the tree on a combined document of [`crate::Nested`]: its tokens are those of
//! every inner document, at their place in the combined source, and those of the outer document
//! that lie inside one of its leaves; a candidate's splices are split by part like a tree
//! candidate's edits, each inner document rendered by its format (and checked by its gate), the
//! outer leaves' new texts decoded by the outer format ([`Format::leaf_content`]), and all of
//! them handed to [`Format::render_embedded`].

use super::{NestState, state};
use crate::document::Document;
use crate::edit::Edits;
use crate::format::{Format, leaf_holding, spliced_leaves};
use crate::lexicon::{Lexicon, Splices, Token, TokenKind};
use crate::tree::NodeId;
use std::ops::Range;

/// Names of different inner formats never share a renaming: each format's namespaces are
/// moved by this much times its slot (plus one; the outer document keeps its own).
const NAMESPACES_PER_FORMAT: u8 = 16;

/// The tokens of a combined document (see the module documentation).
pub(crate) fn lexicon(outer: &dyn Format, doc: &Document) -> Option<Lexicon> {
    let st = state(doc)?;
    if st.parts.is_empty() {
        return outer.lexicon(&st.outer);
    }
    let mut lex = Lexicon::default();
    if let Some(o) = outer.lexicon(&st.outer) {
        for t in o.tokens {
            let Some(leaf) = leaf_holding(&st.outer.tree, &t.span) else {
                continue;
            };
            if st.parts.iter().any(|p| p.leaf == leaf) {
                continue;
            }
            let at = doc.tree.span(st.outer_ids[leaf.index()]).start;
            let from = st.outer.tree.span(leaf).start;
            lex.tokens.push(moved(t, from, at, 0));
        }
        add_reserved(&mut lex, &o.reserved);
    }
    for p in &st.parts {
        let Some(inner) = p.format.lexicon(&p.doc) else {
            continue;
        };
        let at = doc.tree.span(p.holder).start;
        let shift = NAMESPACES_PER_FORMAT.wrapping_mul(p.slot as u8 + 1);
        lex.tokens
            .extend(inner.tokens.into_iter().map(|t| moved(t, 0, at, shift)));
        add_reserved(&mut lex, &inner.reserved);
    }
    Some(lex)
}

fn add_reserved(lex: &mut Lexicon, words: &[&'static str]) {
    for w in words {
        if !lex.reserved.contains(w) {
            lex.reserved.push(w);
        }
    }
}

/// A token moved from offset `from` of its document's source to offset `at` of the combined
/// source, its namespaces moved by `shift`.
fn moved(t: Token, from: usize, at: usize, shift: u8) -> Token {
    let m = |r: Range<usize>| r.start - from + at..r.end - from + at;
    let kind = match t.kind {
        TokenKind::Name { namespace, bound } => TokenKind::Name {
            namespace: namespace.wrapping_add(shift),
            bound,
        },
        TokenKind::Definition { value, wrap, uses } => TokenKind::Definition {
            value: m(value),
            wrap,
            uses: uses.into_iter().map(m).collect(),
        },
        other => other,
    };
    Token {
        span: m(t.span),
        kind,
    }
}

/// Renders a combined document with `splices` of its source (see the module documentation).
/// Writes nothing (a candidate that is not interesting) when a splice is neither inside an inner
/// document nor inside an outer leaf, or an inner rendering fails its gate.
pub(crate) fn render(outer: &dyn Format, doc: &Document, splices: &Splices, out: &mut Vec<u8>) {
    let Some(st) = state(doc) else {
        return outer.render_splices(doc, splices, out);
    };
    if st.parts.is_empty() {
        return outer.render_splices(&st.outer, splices, out);
    }
    if splices.is_empty() {
        return outer.render(&st.outer, &Edits::new(), out);
    }
    if let Some(contents) = contents(outer, doc, st, splices) {
        outer.render_embedded(&st.outer, &Edits::new(), &contents, out);
    }
}

/// The new contents of the outer leaves and inner documents that `splices` change, sorted by
/// outer leaf.
fn contents(
    outer: &dyn Format,
    doc: &Document,
    st: &NestState,
    splices: &Splices,
) -> Option<Vec<(NodeId, Vec<u8>)>> {
    let mut inner = vec![Splices::default(); st.parts.len()];
    let mut outer_splices = Splices::default();
    for (range, bytes) in splices.iter() {
        let part = st.parts.iter().position(|p| {
            let span = doc.tree.span(p.holder);
            span.start <= range.start && range.end <= span.end
        });
        if let Some(i) = part {
            let at = doc.tree.span(st.parts[i].holder).start;
            inner[i].add(range.start - at..range.end - at, bytes);
            continue;
        }
        let leaf = leaf_holding(&doc.tree, range)?;
        let (0, local) = st.map[leaf.index()] else {
            return None;
        };
        let (at, from) = (
            doc.tree.span(leaf).start,
            st.outer.tree.span(NodeId(local)).start,
        );
        outer_splices.add(range.start - at + from..range.end - at + from, bytes);
    }
    let mut contents = if outer_splices.is_empty() {
        Vec::new()
    } else {
        spliced_leaves(outer, &st.outer, &outer_splices)?
    };
    for (p, s) in st.parts.iter().zip(&inner) {
        if s.is_empty() {
            continue;
        }
        let mut bytes = Vec::new();
        p.format.render_splices(&p.doc, s, &mut bytes);
        if p.gate && !p.format.gate(&bytes) {
            return None;
        }
        contents.push((p.leaf, bytes));
    }
    contents.sort_by_key(|c| c.0);
    Some(contents)
}
