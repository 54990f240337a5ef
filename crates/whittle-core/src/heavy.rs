//! The heavy path, `auto`'s first tree move beyond the papers: down from the root along the child
//! that holds at least half of the file, ddmin over the other children of each node on the way,
//! and over all children of a node where no inner child holds half (after which one may: a
//! source map's comment that held most of the file is gone).
//!
//! GTR goes level by level, each level whole: on a bundle of JavaScript modules wrapped ten calls
//! deep, it tests every node of the wrapper's levels (the loader, the driver's statements, most of
//! them needed) before it reaches the level of the module table, where nearly all of the bytes are
//! (`js-engines-numbro`: about 245 tests for 1 KB of 170 KB, then the table). Perses takes the
//! largest node first for the same reason. The heavy path leads to that table in a test or two
//! per node, and its ddmin takes what it can there first. GTR's rounds then run as before, over
//! every level, on a smaller file; their fixpoint keeps the result 1-minimal.

use crate::ddmin::{Tested, ddmin_from};
use crate::edit::Edits;
use crate::engine::Reducer;
use crate::error::ReduceError;
use crate::lookahead::{Successor, template_items};
use crate::template::Template;
use crate::tree::{NodeId, Tree};

/// Runs the heavy-first pass with the format's deletion template (the one with at most one
/// candidate per node); returns whether anything changed.
pub(crate) fn heavy_path(
    r: &mut Reducer<'_>,
    templates: &[Box<dyn Template>],
) -> Result<bool, ReduceError> {
    let Some(deletion) = templates.iter().find(|t| t.at_most_one()) else {
        return Ok(false);
    };
    if r.tree().len() < MIN_NODES {
        return Ok(false);
    }
    // The nodes still to do, by their path from the root (child indices): a node's path stays
    // true while only the children of other nodes change (each queued node's ancestors are done).
    let mut queue: Vec<Vec<usize>> = vec![Vec::new()];
    let mut changed = false;
    while let Some(path) = take_largest(r.tree(), &mut queue) {
        let Some(node) = at(r.tree(), &path) else {
            continue;
        };
        let tree = r.tree();
        let heavy = heavy_child(tree, node);
        let kids: Vec<NodeId> = (tree.children(node).iter().enumerate())
            .filter(|&(i, _)| Some(i) != heavy)
            .map(|(_, &c)| c)
            .collect();
        let (items, filtered) = template_items(r.view(), &kids, deletion.as_ref());
        r.count_filtered(filtered);
        if !items.is_empty() {
            let mut after = Successor::none();
            ddmin_from(r, &Edits::new(), &items, 2, Tested::Untried, &mut after)?;
            changed |= r.commit_parsed(after.into_parsed(r.best()))?;
        }
        let tree = r.tree();
        if let Some(node) = at(tree, &path) {
            for (i, &c) in tree.children(node).iter().enumerate() {
                if !tree.children(c).is_empty() {
                    let mut p = path.clone();
                    p.push(i);
                    queue.push(p);
                }
            }
        }
    }
    Ok(changed)
}

/// Takes the queued node with the most bytes, if it holds at least [`SHARE`] of the file.
fn take_largest(tree: &Tree, queue: &mut Vec<Vec<usize>>) -> Option<Vec<usize>> {
    queue.retain(|p| at(tree, p).is_some());
    let size = |p: &Vec<usize>| at(tree, p).map_or(0, |n| tree.span(n).len());
    let (i, largest) =
        (queue.iter().enumerate()).max_by_key(|&(i, p)| (size(p), std::cmp::Reverse(i)))?;
    (size(largest) * SHARE >= tree.source().len()).then(|| queue.swap_remove(i))
}

/// The pass runs on trees of at least this many nodes (a bundle, a preprocessed translation
/// unit, a large document). On a small tree GTR's levels are a few tests each, and the pass
/// would test again much of what they test (`xml-xhtml-form-content`, 159 nodes: 26 tests of its
/// own, and a path that ends 4 bytes larger).
const MIN_NODES: usize = 10_000;

/// A node is taken while it holds at least one part in this many of the file.
const SHARE: usize = 16;

/// The node at `path` (child indices from the root), if the tree still has one there.
fn at(tree: &Tree, path: &[usize]) -> Option<NodeId> {
    path.iter()
        .try_fold(tree.root(), |n, &i| tree.children(n).get(i).copied())
}

/// The index of `n`'s child that holds at least half of the file's bytes and has children of its
/// own, if one does (a leaf that large, a source map's comment, is a candidate like the others):
/// it is taken on its own next.
fn heavy_child(tree: &Tree, n: NodeId) -> Option<usize> {
    let total = tree.source().len();
    (tree.children(n).iter())
        .position(|&c| total > 0 && 2 * tree.span(c).len() >= total && !tree.children(c).is_empty())
}
