//! The structural gate: how many places of a candidate tree-sitter cannot read (`ERROR` nodes
//! and `MISSING` tokens). No Rust parser reads preprocessed GNU C and C++ (see `docs/c.md`), so
//! the gate holds a candidate to the grammar's own reading: it may not have more such places
//! than the input had. It costs one parse (about 60 ms for 100 KB in a release build), against
//! a compiler run or three for the test.

use std::cell::RefCell;

thread_local! {
    /// One parser per thread and grammar, reused (the gate runs on the test pool's workers).
    static PARSER: RefCell<Option<(tree_sitter::Language, tree_sitter::Parser)>> =
        const { RefCell::new(None) };
}

/// The number of `ERROR` nodes and `MISSING` tokens in tree-sitter's tree of `bytes`, or
/// `usize::MAX` if it cannot parse them at all.
pub(crate) fn defects(language: &tree_sitter::Language, bytes: &[u8]) -> usize {
    PARSER.with_borrow_mut(|slot| {
        if slot.as_ref().is_none_or(|(l, _)| l != language) {
            let mut parser = tree_sitter::Parser::new();
            if parser.set_language(language).is_err() {
                return usize::MAX;
            }
            *slot = Some((language.clone(), parser));
        }
        let Some((_, parser)) = slot.as_mut() else {
            return usize::MAX;
        };
        parser
            .parse(bytes, None)
            .map_or(usize::MAX, |tree| count(tree.root_node()))
    })
}

/// Counts the error and missing nodes below `root`, visiting only subtrees that have one.
fn count(root: tree_sitter::Node<'_>) -> usize {
    if !root.has_error() {
        return 0;
    }
    let mut n = 0;
    let mut cursor = root.walk();
    let mut descend = true;
    loop {
        let node = cursor.node();
        if descend {
            n += usize::from(node.is_error() || node.is_missing());
            // An error node counts once, whatever it holds.
            if !node.is_error() && node.has_error() && cursor.goto_first_child() {
                continue;
            }
        }
        if cursor.goto_next_sibling() {
            descend = true;
            continue;
        }
        if !cursor.goto_parent() {
            return n;
        }
        descend = false;
    }
}
