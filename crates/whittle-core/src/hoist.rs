//! Hoisting, a tree move of `auto` beyond the papers': a node replaced by a deeper descendant of
//! the same kind, `f(g(x))` by `g(x)` or a statement by a statement nested in it. GTR's
//! substitution takes a child; its fixpoint reaches a grandchild only when the child in between is
//! interesting in the node's place on its own, which it often is not (`(g(x))` in place of a call
//! is an argument list; a function in place of a call that runs it runs nothing). A descendant of
//! the same kind fits where the node was, whatever lies between.

use crate::edit::Edit;
use crate::engine::Reducer;
use crate::error::ReduceError;
use crate::lookahead::Successor;
use crate::sweep::sweep_then;
use crate::tree::{NodeId, Tree};
use std::collections::VecDeque;

/// Descendants tried per node, nearest first.
const PER_NODE: usize = 16;

/// Descendants looked at per node: the search stays linear in the tree's size (a deep tree would
/// otherwise cost its size times its depth to list).
const LOOK_AT: usize = 4096;

/// A sweep in pre-order over the nodes of the current tree, each replaced by its descendants of
/// the same label below its children (breadth-first, at most [`PER_NODE`]), each tried on top of
/// those the sweep kept. While its last step is tested, idle workers start what comes after it
/// (`after`). Returns whether it kept any.
pub(crate) fn hoist(r: &mut Reducer<'_>, after: Successor<'_>) -> Result<bool, ReduceError> {
    let items = hoistings(r.tree());
    sweep_then(r, &items, after)
}

/// The sweep's items on `tree`: each node with each of the descendants that may replace it.
pub(crate) fn hoistings(tree: &Tree) -> Vec<(NodeId, Edit)> {
    tree.nodes()
        .flat_map(|n| {
            same_kind_below(tree, n)
                .into_iter()
                .map(move |d| (n, Edit::Replace(d)))
        })
        .collect()
}

/// The descendants of `n` with its label, grandchildren and deeper, breadth-first, at most
/// [`PER_NODE`] among the first [`LOOK_AT`] descendants.
fn same_kind_below(tree: &Tree, n: NodeId) -> Vec<NodeId> {
    let label = tree.label_sym(n);
    let mut out = Vec::new();
    let mut queue: VecDeque<NodeId> = tree
        .children(n)
        .iter()
        .flat_map(|&c| tree.children(c).iter().copied())
        .collect();
    let mut looked = 0;
    while let Some(d) = queue.pop_front() {
        looked += 1;
        if looked > LOOK_AT {
            break;
        }
        if tree.label_sym(d) == label {
            out.push(d);
            if out.len() == PER_NODE {
                break;
            }
        }
        queue.extend(tree.children(d).iter().copied());
    }
    out
}
