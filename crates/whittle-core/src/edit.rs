//! Candidates as edits on the current tree, and the template renderer.
//!
//! A candidate is never a copy of the tree: it is the current tree plus a sorted list of edits,
//! rendered on the fly.

use crate::tree::{NodeId, Tree};

/// What happens to one node in a candidate.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Edit {
    /// The node and its subtree are removed.
    Delete,
    /// The node is replaced by one of its proper descendants (which keeps its own edits).
    Replace(NodeId),
}

/// A set of edits, at most one per node, sorted by node id.
#[derive(Clone, Default, PartialEq, Eq, Debug, Hash)]
pub struct Edits {
    items: Vec<(NodeId, Edit)>,
}

impl Edits {
    /// No edit: the current tree itself.
    pub fn new() -> Edits {
        Edits::default()
    }

    /// Whether there is no edit.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Number of edited nodes.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Sets the edit of `n`, replacing an earlier one.
    pub fn set(&mut self, n: NodeId, edit: Edit) {
        match self.items.binary_search_by_key(&n, |e| e.0) {
            Ok(i) => self.items[i].1 = edit,
            Err(i) => self.items.insert(i, (n, edit)),
        }
    }

    /// Removes the edit of `n`, if any.
    pub fn unset(&mut self, n: NodeId) {
        if let Ok(i) = self.items.binary_search_by_key(&n, |e| e.0) {
            self.items.remove(i);
        }
    }

    /// A copy with the edit of `n` set.
    pub fn with(&self, n: NodeId, edit: Edit) -> Edits {
        let mut e = self.clone();
        e.set(n, edit);
        e
    }

    /// A copy with every edit of `over` set, in order (a later one replaces an earlier one of
    /// the same node). Edits sorted by node, as a level's nodes are, are merged in one pass.
    pub fn overlaid(&self, over: Vec<(NodeId, Edit)>) -> Edits {
        if !over.is_sorted_by(|a, b| a.0 < b.0) {
            let mut e = self.clone();
            for (n, edit) in over {
                e.set(n, edit);
            }
            return e;
        }
        if self.items.is_empty() {
            return Edits { items: over };
        }
        let mut items = Vec::with_capacity(self.items.len() + over.len());
        let (mut a, mut b) = (self.items.iter().peekable(), over.into_iter().peekable());
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) if x.0 < y.0 => a.next().copied(),
                (Some(x), Some(y)) if x.0 == y.0 => {
                    a.next();
                    b.next()
                }
                (_, Some(_)) => b.next(),
                (Some(_), None) => a.next().copied(),
                (None, None) => break,
            };
            items.extend(next);
        }
        Edits { items }
    }

    /// The edit of `n`.
    pub fn get(&self, n: NodeId) -> Option<Edit> {
        self.items
            .binary_search_by_key(&n, |e| e.0)
            .ok()
            .map(|i| self.items[i].1)
    }

    /// The edits in node order.
    pub fn iter(&self) -> impl Iterator<Item = (NodeId, Edit)> + '_ {
        self.items.iter().copied()
    }

    /// Whether some edit lies strictly inside the subtree of `n` (not on `n` itself).
    pub fn any_below(&self, tree: &Tree, n: NodeId) -> bool {
        let first = NodeId(n.0 + 1);
        let end = n.0 as usize + tree.size(n);
        let i = self.items.partition_point(|e| e.0 < first);
        self.items.get(i).is_some_and(|e| e.0.index() < end)
    }
}

impl FromIterator<(NodeId, Edit)> for Edits {
    fn from_iter<I: IntoIterator<Item = (NodeId, Edit)>>(iter: I) -> Edits {
        let mut items: Vec<(NodeId, Edit)> = iter.into_iter().collect();
        items.sort_by_key(|e| e.0);
        items.dedup_by_key(|e| e.0);
        Edits { items }
    }
}

/// Renders `tree` with `edits` by its render template: every unedited subtree is copied from the
/// source as one slice; an edited node is dropped or replaced; the bytes between children are
/// kept. This is the default rendering of every format.
pub fn render_template(tree: &Tree, edits: &Edits, out: &mut Vec<u8>) {
    render_with(tree, edits, out, &mut |_, _, _| false);
}

/// [`render_template`] where each node of `contents` (sorted by node) is rendered as the given
/// bytes instead of its own text (when it is rendered at all): the default of
/// [`crate::Format::render_embedded`].
pub fn render_replacing(
    tree: &Tree,
    edits: &Edits,
    contents: &[(NodeId, Vec<u8>)],
    out: &mut Vec<u8>,
) {
    render_impl(tree, edits, out, &mut |_, _, _| false, contents);
}

/// A hook for formats that render some gaps differently: called with a node, the index of the
/// gap between its children (0 = before the first child) and the output; returns `true` if it
/// wrote the gap itself.
pub type GapHook<'a> = dyn FnMut(NodeId, usize, &mut Vec<u8>) -> bool + 'a;

/// [`render_template`] with a hook for gaps; iterative, so deep trees do not overflow the stack.
pub fn render_with(tree: &Tree, edits: &Edits, out: &mut Vec<u8>, hook: &mut GapHook<'_>) {
    render_impl(tree, edits, out, hook, &[]);
}

fn render_impl(
    tree: &Tree,
    edits: &Edits,
    out: &mut Vec<u8>,
    hook: &mut GapHook<'_>,
    contents: &[(NodeId, Vec<u8>)],
) {
    enum Task {
        Node(NodeId),
        Gap(NodeId, usize),
    }
    let src = tree.source();
    // The walk visits nodes in pre-order, so in increasing id, as the edits are sorted: a cursor
    // into them finds each node's edit and the edits below it without a search per node.
    let mut at = Cursor {
        items: &edits.items,
        next: 0,
    };
    let mut stack = vec![Task::Node(tree.root())];
    while let Some(task) = stack.pop() {
        match task {
            Task::Gap(n, i) => {
                if !hook(n, i, out) {
                    out.extend_from_slice(&src[gap(tree, n, i)]);
                }
            }
            Task::Node(mut n) => {
                // Follow replacement chains down to the node that is actually rendered.
                loop {
                    match at.get(n) {
                        Some(Edit::Replace(d)) if tree.contains(n, d) && d != n => n = d,
                        _ => break,
                    }
                }
                if at.get(n) == Some(Edit::Delete) {
                    continue;
                }
                if let Ok(i) = contents.binary_search_by_key(&n, |c| c.0) {
                    out.extend_from_slice(&contents[i].1);
                    continue;
                }
                let kids = tree.children(n);
                let content_below = || {
                    let i = contents.partition_point(|c| c.0 <= n);
                    contents
                        .get(i)
                        .is_some_and(|c| c.0.index() < n.index() + tree.size(n))
                };
                if kids.is_empty() || !(at.any_below(tree, n) || content_below()) {
                    out.extend_from_slice(tree.text(n));
                    continue;
                }
                stack.push(Task::Gap(n, kids.len()));
                for (i, &k) in kids.iter().enumerate().rev() {
                    stack.push(Task::Node(k));
                    stack.push(Task::Gap(n, i));
                }
            }
        }
    }
}

/// A walk's place in sorted edits: the first edit at or after the last node asked about. The
/// nodes asked about never decrease.
struct Cursor<'e> {
    items: &'e [(NodeId, Edit)],
    next: usize,
}

impl Cursor<'_> {
    /// Moves to the first edit at or after `n`.
    fn seek(&mut self, n: NodeId) {
        // Most steps move by one edit or none; a skipped subtree may move by many.
        for _ in 0..4 {
            match self.items.get(self.next) {
                Some(e) if e.0 < n => self.next += 1,
                _ => return,
            }
        }
        self.next += self.items[self.next..].partition_point(|e| e.0 < n);
    }

    /// The edit of `n`.
    fn get(&mut self, n: NodeId) -> Option<Edit> {
        self.seek(n);
        (self.items.get(self.next)).and_then(|&(m, e)| (m == n).then_some(e))
    }

    /// Whether some edit lies strictly inside the subtree of `n` ([`Edits::any_below`]).
    fn any_below(&mut self, tree: &Tree, n: NodeId) -> bool {
        self.seek(n);
        let i = self.next + usize::from(self.items.get(self.next).is_some_and(|e| e.0 == n));
        let end = n.index() + tree.size(n);
        self.items.get(i).is_some_and(|e| e.0.index() < end)
    }
}

/// The byte range of gap `i` of node `n`: before child `i`, or after the last child.
pub fn gap(tree: &Tree, n: NodeId, i: usize) -> std::ops::Range<usize> {
    let kids = tree.children(n);
    let span = tree.span(n);
    let start = if i == 0 {
        span.start
    } else {
        tree.span(kids[i - 1]).end
    };
    let end = kids.get(i).map_or(span.end, |&k| tree.span(k).start);
    start..end
}
