//! The format's own list moves ([`crate::ListMove`]): batches of rewrites of the current
//! document (C's function bodies to `;`, declarations nothing names deleted), each list tested
//! like the renamings, all at once and then by ddmin. The default pipeline runs them before the
//! tree moves, because they take the most bytes per test on large inputs (a preprocessed C file
//! is mostly declarations its crash does not need).

use crate::below::renders_splices;
use crate::changes::apply_changes_keeping;
use crate::engine::Reducer;
use crate::error::ReduceError;
use crate::format::ListMove;
use crate::lexicon::Splices;
use crate::lookahead::Successor;
use std::hash::{DefaultHasher, Hash, Hasher};

/// Runs the format's list moves that run before the tree moves (`after_tree` false) or after
/// them, each over the document the one before left. They are ordered from the cheapest per
/// byte (a format lists first what passes all at once, such as C's unused declarations): after
/// a move changed something, the round starts again from the first, so a later move's ddmin
/// only runs on what the earlier ones cannot take (a function body gone leaves the
/// declarations only it named unused, which the first move takes in a test). Returns whether
/// anything changed, and whether a coarse run left rewrites untried alone.
///
/// With `coarse` (the moves before the tree moves' first run), a move's ddmin stops short of
/// parts that save less than 1/[`COARSE_SHARE`] of the file each: on a large input the tree moves
/// take more per test than the many small rewrites of such a tail (on the 1.1 MB C++ case
/// `decl-with-uses` spent 250 of its 650 tests taking 200 KB to 171 KB, and the tree moves then
/// took 135 KB to 97 KB in 60). What it kept untried alone is listed again in the runs after the
/// tree moves, then on a smaller file, and each run after those goes to single rewrites; the
/// default pipeline does not end before such a run (`algo::run_auto`).
pub(crate) fn reduce_lists(
    r: &mut Reducer<'_>,
    after_tree: bool,
    coarse: bool,
) -> Result<(bool, bool), ReduceError> {
    in_turn(r, |m| m.after_tree == after_tree, coarse)
}

/// The format's list moves that run between the levels of the tree moves
/// ([`crate::ListMove::between_levels`]), each over the document the one before left, again from
/// the first while one changes something. A move whose rewrite the test refused does not list it
/// again ([`run_move`]), so a level that leaves nothing new for them costs no test. Returns
/// whether anything changed.
pub(crate) fn reduce_between_levels(r: &mut Reducer<'_>) -> Result<bool, ReduceError> {
    in_turn(r, |m| m.between_levels, false).map(|(changed, _)| changed)
}

/// The format's list moves that `pick` takes, in their order, each over the document the one
/// before left, from the first again after one changed something ([`run_move`] each). Returns
/// whether anything changed, and whether a run left rewrites untried alone.
fn in_turn(
    r: &mut Reducer<'_>,
    pick: impl Fn(&ListMove) -> bool,
    coarse: bool,
) -> Result<(bool, bool), ReduceError> {
    let moves: Vec<_> = (r.format().list_moves().iter())
        .filter(|m| pick(m))
        .collect();
    let (mut changed_any, mut deferred) = (false, false);
    let mut next = 0;
    while let Some(m) = moves.get(next) {
        let Some((changed, alone)) = run_move(r, m, coarse)? else {
            break;
        };
        deferred |= !alone;
        changed_any |= changed;
        next = if changed { 0 } else { next + 1 };
    }
    r.set_phase("tree");
    Ok((changed_any, deferred))
}

/// One run of the list move `m` over the current document (see [`reduce_lists`] for `coarse`),
/// then a commit. Returns whether it changed something and whether it tried each rewrite it
/// kept alone (`None`: the format's splices are not rendered on the source, so no list move
/// runs).
fn run_move(
    r: &mut Reducer<'_>,
    m: &ListMove,
    coarse: bool,
) -> Result<Option<(bool, bool)>, ReduceError> {
    r.commit()?;
    if !renders_splices(r) {
        return Ok(None);
    }
    // A rewrite the test refused in an earlier round (the function whose compilation
    // crashes is one no declaration names) is not listed again: ddmin would spend tests
    // in every round finding it anew. The tree moves still try to delete it.
    let source = r.tree().source();
    let (changes, keys): (Vec<Splices>, Vec<u64>) = (m.changes)(r.doc())
        .into_iter()
        .map(|c| {
            let k = key(m.name, &c, source);
            (c, k)
        })
        .filter(|&(_, k)| !r.refused_before(k))
        .unzip();
    r.set_phase(m.name);
    // A coarse run starts at the granularity where the move's last coarse run ended: its
    // coarser parts each held a rewrite the test needed (on the 1.1 MB C++ file, none of
    // `decl-with-uses`' 140 tests in parts of 2 to 31 won in the whole run), as the tree's
    // ddmin over a level starts where the last run over it ended.
    let (floor, start) = if coarse {
        (r.best().len() / COARSE_SHARE, r.list_granularity(m.name))
    } else {
        (0, 2)
    };
    let (kept, alone, ended) =
        apply_changes_keeping(r, &changes, (floor, start), &mut Successor::none())?;
    if coarse && ended > 0 {
        r.set_list_granularity(m.name, ended);
    }
    // What was not tried alone may pass once the rest has gone.
    if alone {
        for &i in &kept {
            r.refuse(keys[i]);
        }
    }
    r.commit()?;
    Ok(Some((kept.len() < changes.len(), alone)))
}

/// A coarse run's parts save at least 1/this of the file each, on average ([`reduce_lists`]).
const COARSE_SHARE: usize = 64;

/// What identifies a list move's rewrite across rounds: the move, and what its first range
/// replaces with what (its text, not its offsets, which shift as the file shrinks). Only the
/// first: a declaration comes before its uses, and one deleted with its uses that the test
/// refused is needed whatever is left of them (on the 1.1 MB C++ case, listing such a
/// declaration again each time its uses had shrunk cost 560 tests of `decl-with-uses` for
/// 24 KB the tree moves take anyway).
fn key(name: &str, change: &Splices, source: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    name.hash(&mut h);
    if let Some((range, bytes)) = change.iter().next() {
        source[range.clone()].hash(&mut h);
        bytes.hash(&mut h);
    }
    h.finish()
}
