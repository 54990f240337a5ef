//! Inlining, a move below the tree: a name that one statement defines (`x = E`) and nothing
//! else binds has every use replaced by `E`, and the statement goes. It removes a statement and
//! a name where a reduction leaves a chain of temporaries (`r = f(b)`, `c = r[0]`, `c[k] = 0`
//! becomes `f(b)[0][k] = 0`).

use crate::lexicon::{Lexicon, Splices, TokenKind};
use std::ops::Range;

/// One inlining: its splices, the value it copies and the bytes it saves.
struct Inlining {
    splices: Splices,
    value: Range<usize>,
    saves: usize,
}

/// Every definition the format lists that saves bytes when inlined, on the source `src`: the move
/// applies them as many at once as the test allows. Two inlinings that touch each other's bytes
/// (the value of one uses the other's name) are not offered together: the one that saves more
/// is, the other waits for the next round of `auto`, on the text the first one left.
pub(crate) fn inlinings(src: &[u8], lex: &Lexicon) -> Vec<Splices> {
    let mut all: Vec<Inlining> = lex
        .tokens
        .iter()
        .filter_map(|t| match &t.kind {
            TokenKind::Definition { value, wrap, uses } => {
                inlining(src, &t.span, value.clone(), *wrap, uses)
            }
            _ => None,
        })
        .collect();
    all.sort_by_key(|i| (std::cmp::Reverse(i.saves), i.value.start));
    let mut chosen: Vec<Inlining> = Vec::new();
    for i in all {
        let clashes = chosen.iter().any(|c| {
            c.splices.touches_any(&i.splices)
                || c.splices.touches(&i.value)
                || i.splices.touches(&c.value)
        });
        if !clashes {
            chosen.push(i);
        }
    }
    chosen.sort_by_key(|i| i.value.start);
    chosen.into_iter().map(|i| i.splices).collect()
}

/// The splices that inline one definition, if they save bytes: the statement deleted and each
/// use replaced by the value (in parentheses with `wrap`).
fn inlining(
    src: &[u8],
    statement: &Range<usize>,
    value: Range<usize>,
    wrap: bool,
    uses: &[Range<usize>],
) -> Option<Inlining> {
    if uses.is_empty() {
        return None;
    }
    let mut copy = Vec::new();
    if wrap {
        copy.push(b'(');
    }
    copy.extend_from_slice(&src[value.clone()]);
    if wrap {
        copy.push(b')');
    }
    let mut splices = Splices::default();
    if !splices.add(statement.clone(), b"") {
        return None;
    }
    let mut removed = statement.len();
    let mut added = 0;
    for u in uses {
        if !splices.add(u.clone(), &copy) {
            return None;
        }
        removed += u.len();
        added += copy.len();
    }
    (added < removed).then(|| Inlining {
        splices,
        value,
        saves: removed - added,
    })
}
