//! The candidates of GTR's templates over a tree: a template's items on a level, what the rules
//! forbid, Alg. 5's smaller replacement, and which levels are wide (`auto`'s order).

use crate::edit::{Edit, Edits};
use crate::engine::View;
use crate::template::Template;
use crate::tree::{NodeId, Tree};

/// A level is wide when its nodes have more than this many children each, on average.
const WIDE: usize = 16;

/// Whether the nodes of `level` have many children: in `auto`'s order, a template that
/// substitutes a node by a descendant waits there until the deletions of the level below have
/// run (see `algo::gtr_round`).
pub(crate) fn wide(tree: &Tree, level: usize) -> bool {
    let nodes = tree.level(level).len();
    let below = tree.level(level + 1).len();
    below > WIDE * nodes.max(1)
}

/// The candidates of template `t` for `nodes` of the tree in `v` (only the first of each node
/// for an at-most-one template), and how many the rules filtered out.
pub(crate) fn template_items(
    v: View<'_>,
    nodes: &[NodeId],
    t: &dyn Template,
) -> (Vec<(NodeId, Edit)>, usize) {
    let mut items = Vec::with_capacity(nodes.len());
    let mut out = Vec::new();
    let mut filtered = 0;
    for &n in nodes {
        out.clear();
        filtered += t.candidates(v.doc, n, v.rules, &mut out);
        if t.at_most_one() {
            items.extend(out.first().map(|&e| (n, e)));
        } else {
            items.extend(out.iter().map(|&e| (n, e)));
        }
    }
    (items, filtered)
}

/// The single transformations the rules forbid on the tree in `v`, in pre-order and template
/// order (none without rules): the items of the sweep that makes up for what the rules cost.
pub(crate) fn forbidden_items(v: View<'_>, templates: &[Box<dyn Template>]) -> Vec<(NodeId, Edit)> {
    let Some(rules) = v.rules else {
        return Vec::new();
    };
    let doc = v.doc;
    let mut forbidden: Vec<(NodeId, Edit)> = Vec::new();
    let (mut all, mut allowed) = (Vec::new(), Vec::new());
    for n in doc.tree.nodes() {
        for t in templates {
            all.clear();
            allowed.clear();
            t.candidates(doc, n, None, &mut all);
            if t.candidates(doc, n, Some(rules), &mut allowed) > 0 {
                forbidden.extend(all.iter().filter(|e| !allowed.contains(e)).map(|&e| (n, e)));
            }
        }
    }
    forbidden
}

/// Alg. 5's candidate: `conf` with `n` replaced by `e`, if that is smaller than `n`'s current
/// replacement.
pub(crate) fn smaller_replacement(
    tree: &Tree,
    conf: &Edits,
    (n, e): (NodeId, Edit),
) -> Option<Edits> {
    let current = match conf.get(n) {
        None => tree.size(n),
        Some(Edit::Delete) => 0,
        Some(Edit::Replace(d)) => tree.size(d),
    };
    let candidate = match e {
        Edit::Delete => 0,
        Edit::Replace(d) => tree.size(d),
    };
    (candidate < current).then(|| conf.with(n, e))
}
