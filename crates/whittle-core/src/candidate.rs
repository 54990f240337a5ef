//! A candidate the test found interesting, and the order candidates must descend in: a leaf
//! module shared by the engine, the test pool and the moves.

use crate::edit::Edits;

/// A candidate that the oracle found interesting.
#[derive(Debug)]
pub struct Found<C = Edits> {
    /// Its position in the list it was found in.
    pub index: usize,
    /// What it changes in the current document: tree edits, or text splices.
    pub edits: C,
    /// Its rendered bytes.
    pub bytes: Vec<u8>,
}

/// Shortlex order: fewer bytes, or as many and lexicographically smaller. Every accepted
/// candidate is smaller than the one before in this order, so every fixpoint loop ends, and
/// same-length rewrites that make a file more canonical (`b` to `a`, `7` to `0`) still count.
pub fn shortlex_less(a: &[u8], b: &[u8]) -> bool {
    (a.len(), a) < (b.len(), b)
}
