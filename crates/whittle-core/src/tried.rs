//! What `auto`'s passes over one level of GTR have tried, so that a pass that follows them
//! (because a substitution moved nodes up into the level) tries only what is new there.
//!
//! GTR (Alg. 4) passes a level again while a template that moves nodes up changes it, and the
//! paper's pass tries every node of the level again. After a pass, each node still on the level
//! was tried: ddmin's result is 1-minimal (removing any one of the kept nodes alone failed), and
//! Alg. 5 ends with a sweep in which every smaller candidate of every node failed. A substitution
//! elsewhere on the level seldom changes that, yet the paper's next pass pays a test per node
//! again, for nothing most of the time (on a bundled JavaScript file, a third of the tests on
//! its first fifteen levels). `auto` (beyond the paper) skips them: an item of a template is
//! skipped on the level's next pass when the same template tried the same item there before.
//!
//! Items are told apart by content (the template, the node's label, edge and text, and which
//! of its descendants replaces it), not by node id: the tree is parsed anew after every pass.
//! The result stays what GTR* guarantees, as the fixpoint's last round changes nothing, so it
//! passes every level once and tries every item of every template (nothing is skipped in a
//! round's first pass over a level).

use crate::edit::Edit;
use crate::tree::{NodeId, Tree};
use rustc_hash::FxHashSet;
use xxhash_rust::xxh3::Xxh3;

/// The items each template has tried on the current level, by content.
pub(crate) struct Tried {
    by_template: Vec<FxHashSet<u128>>,
}

impl Tried {
    /// Nothing tried yet, for `templates` templates.
    pub(crate) fn new(templates: usize) -> Tried {
        Tried {
            by_template: vec![FxHashSet::default(); templates],
        }
    }

    /// The items of template `index` on `tree` that it has not tried on this level.
    pub(crate) fn untried(
        &self,
        tree: &Tree,
        index: usize,
        items: Vec<(NodeId, Edit)>,
    ) -> Vec<(NodeId, Edit)> {
        let Some(tried) = self.by_template.get(index) else {
            return items;
        };
        if tried.is_empty() {
            return items;
        }
        items
            .into_iter()
            .filter(|&item| !tried.contains(&key(tree, index, item)))
            .collect()
    }

    /// [`Tried::untried`], which are recorded as tried (each item's key made once).
    pub(crate) fn take_untried(
        &mut self,
        tree: &Tree,
        index: usize,
        items: Vec<(NodeId, Edit)>,
    ) -> Vec<(NodeId, Edit)> {
        let Some(tried) = self.by_template.get_mut(index) else {
            return items;
        };
        let fresh: Vec<(u128, (NodeId, Edit))> = (items.into_iter())
            .map(|item| (key(tree, index, item), item))
            .filter(|(k, _)| !tried.contains(k))
            .collect();
        tried.extend(fresh.iter().map(|&(k, _)| k));
        fresh.into_iter().map(|(_, item)| item).collect()
    }
}

/// The edits of the tree (deletions, substitutions) that failed alone in a round of `auto`'s
/// GTR, by content and level, so that the rounds after it skip them while the file only shrinks.
///
/// A deletion ddmin kept at the end of a run over a level failed alone there, or is ruled out by
/// the run's failures (`Tested::Untried`); a substitution Alg. 5's sweep tried failed on top of
/// the ones it kept. With a monotone test, the same edit of the smaller file of a later round
/// fails too, and GTR*'s next round would pay a test for it again. On a file whose rounds each
/// take a few declarations at the top level (made unused by deletions deeper down in the round
/// before), that is one test per node of every level below, each round. `auto` (beyond the
/// paper) skips them in its rounds after the first, across the runs of the tree moves of its
/// pipeline; once nothing else changes the file, the memory is forgotten and one more round
/// skips nothing (`algo::confirming_round`), so the result is 1-minimal whatever the test.
#[derive(Default)]
pub(crate) struct Refused {
    keys: FxHashSet<u128>,
}

impl Refused {
    /// Records that the edits `items` of template `index` on `level` failed alone.
    pub(crate) fn record(
        &mut self,
        tree: &Tree,
        (level, index): (usize, usize),
        items: impl IntoIterator<Item = (NodeId, Edit)>,
    ) {
        (self.keys).extend(
            items
                .into_iter()
                .map(|item| key_at(tree, level, index, item)),
        );
    }

    /// `items` (of template `index` on `level`) without those recorded as failed alone.
    pub(crate) fn skip(
        &self,
        tree: &Tree,
        (level, index): (usize, usize),
        items: Vec<(NodeId, Edit)>,
    ) -> Vec<(NodeId, Edit)> {
        if self.keys.is_empty() {
            return items;
        }
        items
            .into_iter()
            .filter(|&item| !self.keys.contains(&key_at(tree, level, index, item)))
            .collect()
    }
}

/// [`key`] on `level`.
fn key_at(tree: &Tree, level: usize, index: usize, item: (NodeId, Edit)) -> u128 {
    let mut h = Xxh3::new();
    h.update(&(level as u64).to_le_bytes());
    h.update(&key(tree, index, item).to_le_bytes());
    h.digest128()
}

/// The content of an item: the template, the node's label, edge and text, and the span of the
/// descendant that replaces it, relative to the node's.
fn key(tree: &Tree, index: usize, (n, edit): (NodeId, Edit)) -> u128 {
    let mut h = Xxh3::new();
    h.update(&(index as u64).to_le_bytes());
    match edit {
        Edit::Delete => h.update(&[0]),
        Edit::Replace(d) => {
            let (span, inner) = (tree.span(n), tree.span(d));
            h.update(&[1]);
            h.update(&((inner.start - span.start) as u64).to_le_bytes());
            h.update(&(inner.len() as u64).to_le_bytes());
        }
    }
    for name in [tree.label(n), tree.edge(n)] {
        h.update(name.as_bytes());
        h.update(&[0]);
    }
    h.update(tree.text(n));
    h.digest128()
}
