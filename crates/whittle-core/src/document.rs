//! A parsed input: the tree, what the format recovered from, and the format's private state.

use crate::tree::{BuildError, Tree};
use std::any::Any;
use std::fmt;

/// A problem in the input that the format recovered from (the input is still reduced).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Byte offset in the input.
    pub offset: usize,
    /// What was wrong.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {}: {}", self.offset, self.message)
    }
}

/// An input the format cannot turn into a tree at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("byte {offset}: {message}")]
pub struct ParseError {
    /// Byte offset in the input where parsing failed.
    pub offset: usize,
    /// Why.
    pub message: String,
}

impl From<BuildError> for ParseError {
    fn from(e: BuildError) -> ParseError {
        ParseError {
            offset: 0,
            message: format!("internal error building the tree: {e}"),
        }
    }
}

/// A parsed input: the tree, what was recovered from, and any format-specific state that
/// rendering needs (an encoding, an object table).
pub struct Document {
    /// The labeled tree.
    pub tree: Tree,
    /// Recoverable problems found while parsing.
    pub diagnostics: Vec<Diagnostic>,
    /// State private to the format, read back by [`Format::render`].
    pub extra: Option<Box<dyn Any + Send + Sync>>,
}

impl fmt::Debug for Document {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Document")
            .field("tree", &self.tree)
            .field("diagnostics", &self.diagnostics)
            .finish()
    }
}

impl Document {
    /// A document with no diagnostics and no extra state.
    pub fn new(tree: Tree) -> Document {
        Document {
            tree,
            diagnostics: Vec::new(),
            extra: None,
        }
    }
}
