//! The Python format: tree-sitter-python trees, re-indentation when code moves between
//! indentation depths, a template that splices a clause's block into the place of its compound
//! statement, and ruff's parser as the validity gate.

use whittle_core::{
    CompiledRules, Deletion, Document, Edit, Edits, Format, NodeId, ParseError, SubstituteByChild,
    Template,
};
use whittle_treesitter::Spec;

/// Python source files.
#[derive(Clone, Copy, Debug, Default)]
pub struct Python;

fn spec() -> Spec {
    Spec {
        language: tree_sitter_python::LANGUAGE.into(),
        separators: &[",", ";"],
        protected: &["string", "concatenated_string"],
        reindent: true,
        block: Some("block"),
    }
}

impl Format for Python {
    fn name(&self) -> &'static str {
        "python"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["py", "pyi", "pyw"]
    }

    fn description(&self) -> &'static str {
        "Python (tree-sitter-python; re-indents moved code; ruff parser gate)"
    }

    fn parse(&self, input: &[u8]) -> Result<Document, ParseError> {
        whittle_treesitter::parse(&spec(), input)
    }

    fn render(&self, doc: &Document, edits: &Edits, out: &mut Vec<u8>) {
        whittle_treesitter::render(&spec(), doc, edits, out);
    }

    /// Trailing white space and blank lines, which deletions leave behind, go at the end, and
    /// every line is indented by one space per block.
    fn tidy(&self, doc: &Document) -> Option<Vec<u8>> {
        whittle_treesitter::tidy(&spec(), doc)
    }

    fn templates(&self) -> Vec<Box<dyn Template>> {
        vec![
            Box::new(Deletion),
            Box::new(SubstituteByChild),
            Box::new(SpliceBlock),
        ]
    }

    fn has_gate(&self) -> bool {
        true
    }

    /// The candidate is UTF-8 and ruff's parser (CPython's grammar) accepts it.
    fn gate(&self, bytes: &[u8]) -> bool {
        std::str::from_utf8(bytes).is_ok_and(|s| ruff_python_parser::parse_module(s).is_ok())
    }
}

/// Replaces a compound statement by the block of one of its clauses (`else:`, `elif …:`,
/// `except …:`, `finally:`, `case …:`), which substitute-by-child cannot reach because the block is
/// a grandchild. With re-indentation this splices the block's statements into the statement's
/// place. (The statement's own `body` block is a child, so substitute-by-child already offers it.)
#[derive(Clone, Copy, Debug, Default)]
pub struct SpliceBlock;

impl Template for SpliceBlock {
    fn name(&self) -> &'static str {
        "splice-block"
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
        // Clauses directly under the statement, or under its body block (`match` keeps its
        // `case` clauses there).
        let mut clauses: Vec<NodeId> = Vec::new();
        for &c in tree.children(n) {
            if tree.label(c).ends_with("_clause") {
                clauses.push(c);
            } else if tree.label(c) == "block" && tree.label(n) == "match_statement" {
                clauses.extend(
                    tree.children(c)
                        .iter()
                        .filter(|&&k| tree.label(k).ends_with("_clause")),
                );
            }
        }
        for clause in clauses {
            for &b in tree.children(clause) {
                if tree.label(b) != "block" {
                    continue;
                }
                if rules.is_some_and(|r| !r.may_substitute(tree, n, b)) {
                    filtered += 1;
                } else {
                    out.push(Edit::Replace(b));
                }
            }
        }
        filtered
    }
}

#[cfg(test)]
mod tests;
