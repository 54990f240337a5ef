//! The literal probe of `auto` (`literals-alone` in `tests_by_move`): the file replaced, in one
//! candidate, by its literals alone ([`crate::Format::literals_alone`]), before the blank move
//! and the tree moves. Where the test is about one literal (a regular expression an engine
//! rejects deep in a library's formatter, a number a parser misreads), the tree moves would pay
//! a test for every node on the path from the root down to it, and for every node beside that
//! path, level by level; from the probe, the literal is one statement of a flat list, which
//! ddmin finds in a few tests. Where the test refuses the probe, it cost one test.

use crate::engine::{Reducer, View};
use crate::error::ReduceError;
use crate::lookahead::{Lookahead, OnWin, Successor};

/// The probe of the document in `v`, if the format has one and it is smaller than the document.
fn probe(r: &Reducer<'_>, v: View<'_>) -> Option<Vec<u8>> {
    let source = v.doc.tree.source().len();
    (r.format().literals_alone(v.doc)).filter(|bytes| bytes.len() < source)
}

/// The probe as the first step of what follows (the opening's plan), and once it wins, `then`
/// over the probe.
pub(crate) fn step(r: &Reducer<'_>, v: View<'_>, then: OnWin) -> Option<Lookahead> {
    probe(r, v).map(|bytes| Lookahead::rewrite_then(bytes, then))
}

/// Replaces the file by its probe if the test allows it; while that is tested, idle workers
/// start `after`. Returns whether it changed anything.
pub(crate) fn reduce_alone(r: &mut Reducer<'_>, after: Successor<'_>) -> Result<bool, ReduceError> {
    r.commit()?;
    let Some(bytes) = probe(r, r.view()) else {
        return Ok(false);
    };
    r.set_phase("literals-alone");
    crate::changes::rewrite_then(r, &bytes, after)
}
