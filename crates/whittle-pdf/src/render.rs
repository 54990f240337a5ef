//! Rendering a candidate: the tree with its edits becomes the candidate's trailer and objects,
//! which [`crate::write`] writes (unchanged objects as they were stored in the input).
//!
//! An object exists in a candidate when the reference that owns it is rendered as a reference and
//! its value is not deleted. References to objects that do not exist become `null`; a dictionary
//! entry whose value became `null` is dropped (the PDF rules make the two equivalent). Objects the
//! trailer does not reach are never written: they are not in the tree.

use crate::load::check_structure;
use crate::model::{Kind, PdfState};
use crate::write::Candidate;
use lopdf::{Dictionary, Object, ObjectId, Stream};
use std::collections::BTreeMap;
use whittle_core::{Edit, Edits, NodeId, Tree};

/// How deeply direct arrays and dictionaries may nest in a rendered object. lopdf's parser gives
/// up at about 100 levels; inlining references could otherwise nest values without bound. Deeper
/// than this, an inlined object stays indirect, and any other container renders as `null` (no
/// input lopdf can read nests that deeply).
pub(crate) const MAX_DIRECT_DEPTH: usize = 64;

/// The node that is rendered in place of `n`, following replacements; `None` if it is deleted.
pub(crate) fn resolve(tree: &Tree, edits: &Edits, mut n: NodeId) -> Option<NodeId> {
    loop {
        match edits.get(n) {
            Some(Edit::Delete) => return None,
            Some(Edit::Replace(d)) if d != n && tree.contains(n, d) => n = d,
            _ => return Some(n),
        }
    }
}

/// What a rendered position holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Slot {
    /// Nothing (deleted).
    Gone,
    /// `null`: a stream or stream data out of place, or a container nested too deeply.
    Null,
    /// A container to descend into.
    Container(NodeId),
    /// A reference that owns its object.
    Owner(NodeId),
    /// Anything else: a scalar or a reference that does not own its object.
    Leaf(NodeId),
}

/// The candidate being built: the tree, the edits and the objects that exist.
pub(crate) struct Builder<'a> {
    pub(crate) tree: &'a Tree,
    pub(crate) state: &'a PdfState,
    pub(crate) edits: &'a Edits,
    /// Leaves holding a nested document that was edited, with their new (decoded) content,
    /// sorted by node.
    pub(crate) contents: &'a [(NodeId, Vec<u8>)],
    /// Object id → the node that is its value.
    pub(crate) objects: BTreeMap<ObjectId, NodeId>,
}

impl<'a> Builder<'a> {
    /// Walks the candidate from the trailer (iteratively: reference chains can be long) and finds
    /// the objects that exist in it. `None` if the trailer itself is gone.
    pub(crate) fn new(
        tree: &'a Tree,
        state: &'a PdfState,
        edits: &'a Edits,
        contents: &'a [(NodeId, Vec<u8>)],
    ) -> Option<Self> {
        let mut b = Builder {
            tree,
            state,
            edits,
            contents,
            objects: BTreeMap::new(),
        };
        let root = resolve(tree, edits, tree.root())?;
        if !matches!(state.node(root).kind, Kind::Trailer | Kind::Dict) {
            return None;
        }
        let mut stack: Vec<(NodeId, usize)> = vec![(root, 0)];
        while let Some((n, depth)) = stack.pop() {
            for &k in tree.children(n).iter().rev() {
                match b.slot(k, depth) {
                    Slot::Container(c) => stack.push((c, depth + 1)),
                    Slot::Owner(mut r) => {
                        // An object whose value is a reference that owns the next object (`6 0
                        // obj 9 0 R endobj`): the chain is followed, so that the next object
                        // exists too (each step goes deeper into the tree, so it ends).
                        loop {
                            let Kind::Ref { id, .. } = b.state.node(r).kind else {
                                break;
                            };
                            let Some(&obj) = tree.children(r).first() else {
                                break;
                            };
                            let Some(v) = resolve(tree, edits, obj) else {
                                break;
                            };
                            match b.state.node(v).kind {
                                Kind::Data(_) => {}
                                Kind::Dict | Kind::Array | Kind::Stream | Kind::Trailer => {
                                    b.objects.insert(id, v);
                                    stack.push((v, 0));
                                }
                                Kind::Ref { owner: true, .. } if !tree.children(v).is_empty() => {
                                    b.objects.insert(id, v);
                                    r = v;
                                    continue;
                                }
                                Kind::Scalar(_) | Kind::Ref { .. } => {
                                    b.objects.insert(id, v);
                                }
                            }
                            break;
                        }
                    }
                    Slot::Gone | Slot::Null | Slot::Leaf(_) => {}
                }
            }
        }
        Some(b)
    }

    /// The slot of child `k` of a container at direct depth `depth`.
    fn slot(&self, k: NodeId, depth: usize) -> Slot {
        let Some(r) = resolve(self.tree, self.edits, k) else {
            return Slot::Gone;
        };
        match self.state.node(r).kind {
            Kind::Dict | Kind::Array | Kind::Trailer if depth < MAX_DIRECT_DEPTH => {
                Slot::Container(r)
            }
            // Too deep: an inlined object stays an indirect object (its reference is kept),
            // anything else becomes `null`.
            Kind::Dict | Kind::Array | Kind::Trailer => match self.state.node(k).kind {
                Kind::Ref { owner: true, .. } if !self.tree.children(k).is_empty() => {
                    Slot::Owner(k)
                }
                _ => Slot::Null,
            },
            // A stream is only ever the value of an object; its data is not an object at all.
            Kind::Stream | Kind::Data(_) => {
                if self.state.node(k).key.is_none() && self.is_data_of_stream(k) {
                    Slot::Gone
                } else {
                    Slot::Null
                }
            }
            Kind::Ref { owner: true, .. } if !self.tree.children(r).is_empty() => Slot::Owner(r),
            Kind::Ref { .. } | Kind::Scalar(_) => Slot::Leaf(r),
        }
    }

    /// Whether `k` is the data leaf of its parent stream (handled by the stream itself).
    fn is_data_of_stream(&self, k: NodeId) -> bool {
        matches!(self.state.node(k).kind, Kind::Data(_))
            && self
                .tree
                .parent(k)
                .is_some_and(|p| matches!(self.state.node(p).kind, Kind::Stream))
    }

    /// The new content of a leaf holding an edited nested document.
    fn content(&self, n: NodeId) -> Option<&'a [u8]> {
        let contents = self.contents;
        let i = contents.binary_search_by_key(&n, |c| c.0).ok()?;
        Some(&contents[i].1)
    }

    /// The value of a leaf slot.
    fn leaf(&self, n: NodeId) -> Object {
        if let Some(c) = self.content(n) {
            return match self.state.node(n).kind {
                Kind::Scalar(Object::Name(_)) => Object::Name(c.to_vec()),
                _ => crate::nest::string(c),
            };
        }
        match &self.state.node(n).kind {
            Kind::Scalar(o) => o.clone(),
            Kind::Ref { id, .. } if self.objects.contains_key(id) => Object::Reference(*id),
            _ => Object::Null,
        }
    }

    /// The value of a slot; `None` for a deleted one.
    fn value(&self, slot: Slot, depth: usize) -> Option<Object> {
        match slot {
            Slot::Gone => None,
            Slot::Null => Some(Object::Null),
            Slot::Leaf(n) | Slot::Owner(n) => Some(self.leaf(n)),
            Slot::Container(c) => Some(self.container(c, depth + 1)),
        }
    }

    /// A dictionary or array at direct depth `depth` (recursion bounded by
    /// [`MAX_DIRECT_DEPTH`]; references are not followed).
    fn container(&self, c: NodeId, depth: usize) -> Object {
        match self.state.node(c).kind {
            Kind::Array => Object::Array(
                self.tree
                    .children(c)
                    .iter()
                    .filter_map(|&k| self.value(self.slot(k, depth), depth))
                    .collect(),
            ),
            _ => Object::Dictionary(self.entries(c, depth)),
        }
    }

    /// The entries of a dictionary, trailer or stream node; entries that became `null` (a
    /// reference to a deleted object, a misplaced stream) are dropped, literal `null`s kept.
    fn entries(&self, c: NodeId, depth: usize) -> Dictionary {
        let mut d = Dictionary::new();
        for &k in self.tree.children(c) {
            let slot = self.slot(k, depth);
            let Some(v) = self.value(slot, depth) else {
                continue;
            };
            let literal_null = matches!(slot, Slot::Leaf(n) if matches!(self.state.node(n).kind, Kind::Scalar(Object::Null)));
            if matches!(v, Object::Null) && !literal_null {
                continue;
            }
            if let Some(key) = &self.state.node(k).key {
                d.set(key.clone(), v);
            }
        }
        d
    }

    /// The value of an object whose value node is `v`.
    pub(crate) fn object(&self, v: NodeId) -> Object {
        match &self.state.node(v).kind {
            Kind::Stream => {
                let mut dict = self.entries(v, 0);
                let data = self
                    .tree
                    .children(v)
                    .iter()
                    .find(|&&k| matches!(self.state.node(k).kind, Kind::Data(_)))
                    .and_then(|&k| resolve(self.tree, self.edits, k))
                    .and_then(|k| match (&self.state.node(k).kind, self.content(k)) {
                        (Kind::Data(_), Some(c)) => Some(crate::nest::encode(&mut dict, c)),
                        (Kind::Data(d), None) => Some(d.clone()),
                        _ => None,
                    });
                let content = data.unwrap_or_else(|| {
                    // Without its data a stream is empty, and empty data decodes by no filter.
                    dict.remove(b"Filter");
                    dict.remove(b"DecodeParms");
                    Vec::new()
                });
                Object::Stream(Stream::new(dict, content))
            }
            Kind::Dict | Kind::Array | Kind::Trailer => self.container(v, 0),
            _ => self.leaf(v),
        }
    }

    /// The trailer dictionary of the candidate.
    pub(crate) fn trailer(&self) -> Dictionary {
        match resolve(self.tree, self.edits, self.tree.root()) {
            Some(r) => self.entries(r, 0),
            None => Dictionary::new(),
        }
    }

    /// The candidate's trailer and objects, or `None` if it has no catalog or no page tree.
    pub(crate) fn candidate(&self) -> Option<Candidate> {
        let trailer = self.trailer();
        let objects: BTreeMap<ObjectId, Object> = self
            .objects
            .iter()
            .map(|(&id, &v)| (id, self.object(v)))
            .collect();
        check_structure(&trailer, &objects, self.state.strict).ok()?;
        Some(Candidate { trailer, objects })
    }
}

/// Writes the candidate (see [`crate::write`]); leaves `out` empty if it has no catalog or no page
/// tree (the empty file, which is never interesting, stands for "not a PDF").
///
/// `contents`: leaves holding an edited nested document, with their new content (sorted by node;
/// see [`crate::nest`]).
pub(crate) fn write(
    tree: &Tree,
    state: &PdfState,
    edits: &Edits,
    contents: &[(NodeId, Vec<u8>)],
    out: &mut Vec<u8>,
) {
    let Some(candidate) = Builder::new(tree, state, edits, contents).and_then(|b| b.candidate())
    else {
        return;
    };
    crate::write::write(state, candidate, out);
}
