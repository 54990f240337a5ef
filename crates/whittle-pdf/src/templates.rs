//! The PDF templates GTR applies besides deletion.

use crate::model::{Kind, PdfState};
use whittle_core::{CompiledRules, Document, Edit, NodeId, Template};

pub(crate) fn state(doc: &Document) -> Option<&PdfState> {
    doc.extra.as_ref()?.downcast_ref::<PdfState>()
}

/// Rewrites the whole file, which drops every object the trailer does not reach, older revisions
/// of an incrementally updated file, free space, damage and, with `DecryptedPdf`, encryption
/// (unchanged objects are copied as stored). It proposes one candidate,
/// at the root: the document with no change except that it is written afresh.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct DropUnreachable;

impl Template for DropUnreachable {
    fn name(&self) -> &'static str {
        "drop-unreachable"
    }

    fn at_most_one(&self) -> bool {
        true
    }

    fn candidates(
        &self,
        doc: &Document,
        n: NodeId,
        _rules: Option<&CompiledRules>,
        out: &mut Vec<Edit>,
    ) -> usize {
        if n == doc.tree.root() {
            // A replacement of a node by itself changes nothing in the tree, but any edit makes
            // the renderer write the file afresh.
            out.push(Edit::Replace(n));
        }
        0
    }
}

/// Inlines a reference: the reference that owns an object is replaced by the object's value, so
/// the value is written in place and the object disappears (other references to it become
/// `null`). Streams cannot be direct objects and are not inlined, nor are the trailer's entries,
/// which must stay indirect.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct InlineReference;

impl Template for InlineReference {
    fn name(&self) -> &'static str {
        "inline-reference"
    }

    fn at_most_one(&self) -> bool {
        true
    }

    fn candidates(
        &self,
        doc: &Document,
        n: NodeId,
        rules: Option<&CompiledRules>,
        out: &mut Vec<Edit>,
    ) -> usize {
        let Some(state) = state(doc) else { return 0 };
        let tree = &doc.tree;
        if tree.parent(n) == Some(tree.root()) {
            return 0;
        }
        let Kind::Ref { owner: true, .. } = state.node(n).kind else {
            return 0;
        };
        // Kids of the page tree must stay indirect (the strict structural check wants that).
        if tree.parent(n).is_some_and(|p| tree.edge(p) == "Kids") || tree.edge(n) == "Pages" {
            return 0;
        }
        let Some(&obj) = tree.children(n).first() else {
            return 0;
        };
        if matches!(state.node(obj).kind, Kind::Stream | Kind::Data(_)) {
            return 0;
        }
        if rules.is_some_and(|r| !r.may_substitute(tree, n, obj)) {
            return 1;
        }
        out.push(Edit::Replace(obj));
        0
    }
}

/// Substitute-by-child (GTR Alg. 2) where the result is still PDF: a node is replaced by one of
/// its children, but never by a stream or stream data (they cannot stand in a direct position),
/// the trailer is never replaced, and references are left to [`InlineReference`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SubstituteByChild;

impl Template for SubstituteByChild {
    fn name(&self) -> &'static str {
        "substitute-by-child"
    }

    fn at_most_one(&self) -> bool {
        false
    }

    fn candidates(
        &self,
        doc: &Document,
        n: NodeId,
        rules: Option<&CompiledRules>,
        out: &mut Vec<Edit>,
    ) -> usize {
        let Some(state) = state(doc) else { return 0 };
        let tree = &doc.tree;
        if n == tree.root() {
            return 0;
        }
        match state.node(n).kind {
            Kind::Ref { .. } | Kind::Stream | Kind::Data(_) | Kind::Scalar(_) | Kind::Trailer => {
                return 0;
            }
            Kind::Dict | Kind::Array => {}
        }
        let mut filtered = 0;
        for &c in tree.children(n) {
            if matches!(state.node(c).kind, Kind::Stream | Kind::Data(_)) {
                continue;
            }
            if rules.is_some_and(|r| !r.may_substitute(tree, n, c)) {
                filtered += 1;
            } else {
                out.push(Edit::Replace(c));
            }
        }
        filtered
    }
}
