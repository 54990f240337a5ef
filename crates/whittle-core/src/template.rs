//! Transformation templates (GTR paper §4.1): for a node, the candidates that may replace it.

use crate::document::Document;
use crate::edit::Edit;
use crate::rules::CompiledRules;
use crate::tree::NodeId;

/// A transformation template. Templates are the extension point of GTR: a new one only has to
/// list, for a node, the edits it proposes.
pub trait Template: Send + Sync {
    /// Short name for reports.
    fn name(&self) -> &'static str;

    /// Whether the template proposes at most one candidate per node; such templates are applied
    /// with ddmin over a level, the others with the backtracking search (Alg. 4).
    fn at_most_one(&self) -> bool;

    /// Appends the candidates for `n` of the current document, in the order to try them, to `out`,
    /// leaving out those the rules forbid. Returns how many were left out. Formats that add
    /// templates of their own find their state in `doc.extra`.
    fn candidates(
        &self,
        doc: &Document,
        n: NodeId,
        rules: Option<&CompiledRules>,
        out: &mut Vec<Edit>,
    ) -> usize;
}

/// Alg. 1 (and Alg. 3 with rules): delete the node with its subtree.
#[derive(Clone, Copy, Debug, Default)]
pub struct Deletion;

impl Template for Deletion {
    fn name(&self) -> &'static str {
        "delete"
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
        if rules.is_some_and(|r| !r.may_delete(&doc.tree, n)) {
            return 1;
        }
        out.push(Edit::Delete);
        0
    }
}

/// Alg. 2 (specialized with rules, §4.2): replace the node by one of its children.
#[derive(Clone, Copy, Debug, Default)]
pub struct SubstituteByChild;

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
        let tree = &doc.tree;
        let mut filtered = 0;
        for &c in tree.children(n) {
            if rules.is_some_and(|r| !r.may_substitute(tree, n, c)) {
                filtered += 1;
            } else {
                out.push(Edit::Replace(c));
            }
        }
        filtered
    }
}

/// The templates of GTR as the paper configures it: deletion, then substitute-by-child.
pub fn default_templates() -> Vec<Box<dyn Template>> {
    vec![Box::new(Deletion), Box::new(SubstituteByChild)]
}
