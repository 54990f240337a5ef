//! The blank move of `auto` (`blanks` in `tests_by_move`): every node the format marks as what
//! its syntax ignores ([`crate::Format::blanks`]: XML's runs of white space between markup, the
//! comments of JavaScript, Python, C and C++) deleted in one candidate, before the tree moves. A
//! pretty-printed document has one such node between every two elements, and a program a
//! comment before every function, so the tree moves would otherwise meet one at every level and
//! pay a test for each one they find alone at ddmin's finest steps (six of the first 46 tests on
//! the XHTML page of `xml-xhtml-form-content`). One test takes them all where the test allows
//! it; where it does not, they stay nodes as before.

use crate::edit::{Edit, Edits};
use crate::engine::{Reducer, View};
use crate::error::ReduceError;
use crate::lookahead::{Lookahead, OnWin, Successor};

/// The document in `v` without the format's blank nodes; `None` where it has none.
fn without_blanks(r: &Reducer<'_>, v: View<'_>) -> Option<Vec<u8>> {
    let blanks = r.format().blanks(v.doc);
    if blanks.is_empty() {
        return None;
    }
    let edits: Edits = blanks.into_iter().map(|n| (n, Edit::Delete)).collect();
    let mut out = Vec::new();
    r.format().render(v.doc, &edits, &mut out);
    Some(out)
}

/// The blank move as the first step of what follows (the opening's plan), and once it wins,
/// `then` over the document without the blanks (the tree moves' first round: the plan starts
/// it beside the round over the document as it is, each as likely as the blank move's verdict
/// makes it).
pub(crate) fn step(r: &Reducer<'_>, v: View<'_>, then: OnWin) -> Option<Lookahead> {
    without_blanks(r, v).map(|bytes| Lookahead::rewrite_then(bytes, then))
}

/// Deletes the format's blank nodes if the test allows it; while that is tested, idle workers
/// start `after`. Returns whether it changed anything.
pub(crate) fn reduce_blanks(
    r: &mut Reducer<'_>,
    after: Successor<'_>,
) -> Result<bool, ReduceError> {
    r.commit()?;
    let Some(bytes) = without_blanks(r, r.view()) else {
        return Ok(false);
    };
    r.set_phase("blanks");
    crate::changes::rewrite_then(r, &bytes, after)
}
