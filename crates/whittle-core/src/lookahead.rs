//! What a tree algorithm does next when a run over a level changes nothing: the first step of the
//! next template on the level, or of the next level. The tree is then the same, so idle workers
//! of the test pool can start that step's candidates while the last step of the run ends.

use crate::ddmin::{Split, edits_keeping};
use crate::edit::{Edit, Edits};
use crate::engine::Reducer;
use crate::template::Template;
use crate::tree::{NodeId, Tree};

/// The first step of ddmin or of Alg. 5 over a level of the current tree.
pub(crate) enum Lookahead {
    /// ddmin over the items (HDD's deletions, an at-most-one template), at its first split.
    Ddmin {
        items: Vec<(NodeId, Edit)>,
        split: Split,
    },
    /// The first sweep of Alg. 5 over the items.
    Scan { items: Vec<(NodeId, Edit)> },
}

impl Lookahead {
    /// The first step of HDD's ddmin over `level` (none for an empty level).
    pub(crate) fn hdd_level(r: &Reducer<'_>, level: usize) -> Option<Lookahead> {
        let items: Vec<_> = r
            .tree()
            .level(level)
            .into_iter()
            .map(|n| (n, Edit::Delete))
            .collect();
        Lookahead::ddmin(r, items, (level, 0))
    }

    /// What GTR (Alg. 4) does after template `index` on `level` if it changes nothing there: the
    /// first template after it with candidates on this level; past the last, the level's next
    /// pass if an earlier template of this pass changed it (`again`), or else the first template
    /// with candidates on a level below. Templates and levels without candidates cost no test,
    /// so they are skipped.
    pub(crate) fn after_template(
        r: &Reducer<'_>,
        templates: &[Box<dyn Template>],
        level: usize,
        index: usize,
        again: bool,
    ) -> Option<Lookahead> {
        let k = templates.len();
        let mut order: Vec<(usize, usize)> = (index + 1..k).map(|j| (level, j)).collect();
        if again {
            order.extend((0..k).map(|j| (level, j)));
        } else {
            order.extend((level + 1..=r.tree().height()).flat_map(|l| (0..k).map(move |j| (l, j))));
        }
        order
            .into_iter()
            .find_map(|(l, j)| Lookahead::template(r, l, j, templates[j].as_ref()))
    }

    /// The first step of template `index` (`t`) over `level`.
    pub(crate) fn template(
        r: &Reducer<'_>,
        level: usize,
        index: usize,
        t: &dyn Template,
    ) -> Option<Lookahead> {
        let (items, _) = template_items(r, &r.tree().level(level), t);
        if t.at_most_one() {
            Lookahead::ddmin(r, items, (level, index + 1))
        } else {
            (!items.is_empty()).then_some(Lookahead::Scan { items })
        }
    }

    fn ddmin(r: &Reducer<'_>, items: Vec<(NodeId, Edit)>, slot: (usize, usize)) -> Option<Self> {
        if items.is_empty() {
            return None;
        }
        let split = Split::new((0..items.len()).collect(), r.granularity(slot), 0);
        Some(Lookahead::Ddmin { items, split })
    }

    pub(crate) fn count(&self) -> usize {
        match self {
            Lookahead::Ddmin { split, .. } => split.count(),
            Lookahead::Scan { items } => items.len(),
        }
    }

    /// Renders candidate `i` of the step; `false` if there is none.
    pub(crate) fn render(&self, r: &Reducer<'_>, i: usize, out: &mut Vec<u8>) -> bool {
        let edits = match self {
            Lookahead::Ddmin { items, split } => {
                Some(edits_keeping(&Edits::new(), items, &split.kept(i)))
            }
            Lookahead::Scan { items } => smaller_replacement(r.tree(), &Edits::new(), items[i]),
        };
        edits.is_some_and(|e| {
            r.format().render(r.doc(), &e, out);
            true
        })
    }
}

/// The candidates of template `t` for `nodes` (only the first of each node for an at-most-one
/// template), and how many the rules filtered out.
pub(crate) fn template_items(
    r: &Reducer<'_>,
    nodes: &[NodeId],
    t: &dyn Template,
) -> (Vec<(NodeId, Edit)>, usize) {
    let mut items = Vec::with_capacity(nodes.len());
    let mut out = Vec::new();
    let mut filtered = 0;
    for &n in nodes {
        out.clear();
        filtered += t.candidates(r.doc(), n, r.rules(), &mut out);
        if t.at_most_one() {
            items.extend(out.first().map(|&e| (n, e)));
        } else {
            items.extend(out.iter().map(|&e| (n, e)));
        }
    }
    (items, filtered)
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
