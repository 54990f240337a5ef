//! The templates of a [`crate::Nested`] format: each node is offered the candidates of its own
//! format's template, asked on its own part's document, and the rules judge them on the
//! combined tree.

use super::state;
use crate::document::Document;
use crate::edit::Edit;
use crate::format::Format;
use crate::rules::CompiledRules;
use crate::template::Template;
use crate::tree::NodeId;

/// A template of the combined format: for each part's format (0: the outer one, `1 + i`: inner
/// format `i`), that format's template of this name, if it has one.
struct Dispatch {
    name: &'static str,
    at_most_one: bool,
    by_format: Vec<Option<Box<dyn Template>>>,
}

/// The outer format's templates in order, then the inner formats' that have a name of their
/// own; a template whose name and kind (at most one candidate or several) an earlier one has is
/// merged into it.
pub(crate) fn dispatching(
    outer: &'static dyn Format,
    inner: &'static [&'static dyn Format],
) -> Vec<Box<dyn Template>> {
    let slots = 1 + inner.len();
    let mut out: Vec<Dispatch> = Vec::new();
    let all = std::iter::once(outer).chain(inner.iter().copied());
    for (slot, format) in all.enumerate() {
        for t in format.templates() {
            let (name, one) = (t.name(), t.at_most_one());
            let i = match out
                .iter()
                .position(|d| d.name == name && d.at_most_one == one)
            {
                Some(i) => i,
                None => {
                    out.push(Dispatch {
                        name,
                        at_most_one: one,
                        by_format: (0..slots).map(|_| None).collect(),
                    });
                    out.len() - 1
                }
            };
            if out[i].by_format[slot].is_none() {
                out[i].by_format[slot] = Some(t);
            }
        }
    }
    out.into_iter()
        .map(|d| Box::new(d) as Box<dyn Template>)
        .collect()
}

impl Template for Dispatch {
    fn name(&self) -> &'static str {
        self.name
    }

    fn at_most_one(&self) -> bool {
        self.at_most_one
    }

    /// Asks the node's own format's template without rules, on the node's own document, then
    /// filters what it proposes with the rules on the combined tree (a deletion by
    /// `may_delete`, a replacement by `may_substitute`, an inner document's root as a root):
    /// the filtering every template does, with labels the combined tree prefixes per format.
    fn candidates(
        &self,
        doc: &Document,
        n: NodeId,
        rules: Option<&CompiledRules>,
        out: &mut Vec<Edit>,
    ) -> usize {
        let Some(st) = state(doc) else {
            return match &self.by_format[0] {
                Some(t) => t.candidates(doc, n, rules, out),
                None => 0,
            };
        };
        let Some(&(p, local)) = st.map.get(n.index()) else {
            return 0;
        };
        let (slot, part_doc, is_root) = match p {
            0 => (0, &st.outer, n == doc.tree.root()),
            p => {
                let part = &st.parts[p as usize - 1];
                (1 + part.slot, &part.doc, n == part.root)
            }
        };
        let Some(t) = &self.by_format[slot] else {
            return 0;
        };
        let mut local_out = Vec::new();
        t.candidates(part_doc, NodeId(local), None, &mut local_out);
        let tree = &doc.tree;
        let mut filtered = 0;
        for e in local_out {
            let e = match e {
                Edit::Delete => Edit::Delete,
                Edit::Replace(d) => Edit::Replace(st.combined(p, d)),
            };
            let allowed = rules.is_none_or(|r| match e {
                Edit::Delete => is_root || r.may_delete(tree, n),
                Edit::Replace(d) if d == n => true,
                Edit::Replace(d) if is_root => r.may_substitute_root(tree, d),
                Edit::Replace(d) => r.may_substitute(tree, n, d),
            });
            if allowed {
                out.push(e);
            } else {
                filtered += 1;
            }
        }
        filtered
    }
}
