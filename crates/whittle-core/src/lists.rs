//! The format's own list moves ([`crate::ListMove`]): batches of rewrites of the current
//! document (C's function bodies to `;`, declarations nothing names deleted), each list tested
//! like the renamings, all at once and then by ddmin. The default pipeline runs them before the
//! tree moves, because they take the most bytes per test on large inputs (a preprocessed C file
//! is mostly declarations its crash does not need).

use crate::below::{apply_changes, renders_splices};
use crate::engine::{ReduceError, Reducer};

/// Runs the format's list moves that run before the tree moves (`after_tree` false) or after
/// them, in order, each over the document the one before left, and again while a round
/// changes something (a function body gone leaves the declarations only it named unused).
/// Returns whether anything changed.
pub(crate) fn reduce_lists(r: &mut Reducer<'_>, after_tree: bool) -> Result<bool, ReduceError> {
    let moves = r.format().list_moves();
    let mut changed_any = false;
    loop {
        let mut changed = false;
        for m in moves.iter().filter(|m| m.after_tree == after_tree) {
            r.commit()?;
            if !renders_splices(r) {
                return Ok(changed_any);
            }
            let changes = (m.changes)(r.doc());
            r.set_phase(m.name);
            changed |= apply_changes(r, &changes)?;
            r.commit()?;
        }
        r.set_phase("tree");
        if !changed {
            return Ok(changed_any);
        }
        changed_any = true;
    }
}
