//! The template renderer against a plain recursive one, and the merge of edit lists.

use super::algorithms::{Rng, random_tree};
use super::toy::tree;
use crate::{Edit, Edits, NodeId, Tree, render_template};
use proptest::prelude::*;

/// The rendering as the tree model defines it, one node at a time: a node follows its
/// replacements into its subtree, a deleted one is nothing, a leaf is its bytes, and any other
/// node its children with the bytes between them.
fn rendered_plainly(t: &Tree, e: &Edits, mut n: NodeId, out: &mut Vec<u8>) {
    while let Some(Edit::Replace(d)) = e.get(n) {
        if d == n || !t.contains(n, d) {
            break;
        }
        n = d;
    }
    if e.get(n) == Some(Edit::Delete) {
        return;
    }
    let (src, span) = (t.source(), t.span(n));
    let mut at = span.start;
    for &k in t.children(n) {
        out.extend_from_slice(&src[at..t.span(k).start]);
        rendered_plainly(t, e, k, out);
        at = t.span(k).end;
    }
    out.extend_from_slice(&src[at..span.end]);
}

/// Random edits on `t`: deletions, replacements by a descendant (chains of them too), and
/// replacements by a node outside the subtree, which the renderer ignores.
fn random_edits(t: &Tree, rng: &mut Rng) -> Edits {
    let len = t.len() as u64;
    let mut e = Edits::new();
    for _ in 0..rng.below(len.min(12)) {
        let n = NodeId(rng.below(len) as u32);
        let edit = match rng.below(3) {
            0 => Edit::Delete,
            1 => Edit::Replace(NodeId((n.0 as u64 + rng.below(t.size(n) as u64)) as u32)),
            _ => Edit::Replace(NodeId(rng.below(len) as u32)),
        };
        e.set(n, edit);
    }
    e
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_template_renderer_renders_as_the_tree_model_says(seed in 1u64..) {
        let mut rng = Rng(seed);
        let t = tree(&random_tree(&mut rng));
        for _ in 0..8 {
            let e = random_edits(&t, &mut rng);
            let (mut fast, mut plain) = (Vec::new(), Vec::new());
            render_template(&t, &e, &mut fast);
            rendered_plainly(&t, &e, t.root(), &mut plain);
            prop_assert_eq!(
                String::from_utf8_lossy(&fast),
                String::from_utf8_lossy(&plain),
                "edits {:?}",
                e
            );
        }
    }
}

#[test]
fn overlaid_edits_replace_those_of_the_same_node_and_stay_sorted() {
    let (a, b, c, d) = (NodeId(1), NodeId(3), NodeId(5), NodeId(7));
    let base: Edits = [(a, Edit::Delete), (c, Edit::Replace(d))]
        .into_iter()
        .collect();
    // Sorted: merged in one pass.
    let e = base.overlaid(vec![(c, Edit::Delete), (d, Edit::Delete)]);
    let want = [(a, Edit::Delete), (c, Edit::Delete), (d, Edit::Delete)];
    assert_eq!(e.iter().collect::<Vec<_>>(), want);
    // Not sorted: set one by one, the later edit of a node winning.
    let e = base.overlaid(vec![
        (d, Edit::Delete),
        (b, Edit::Delete),
        (d, Edit::Replace(c)),
    ]);
    let want = [
        (a, Edit::Delete),
        (b, Edit::Delete),
        (c, Edit::Replace(d)),
        (d, Edit::Replace(c)),
    ];
    assert_eq!(e.iter().collect::<Vec<_>>(), want);
    // On no edits, the list itself.
    let e = Edits::new().overlaid(vec![(b, Edit::Delete)]);
    assert_eq!(e.iter().collect::<Vec<_>>(), [(b, Edit::Delete)]);
}
