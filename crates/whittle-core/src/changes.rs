//! Rewrites of the text applied as many at once as the test allows: all of them first (the usual
//! case for renamings and white space), then ddmin over them. The moves below the tree, the
//! inlining of definitions and the format's list moves make their candidates this way.

use crate::ddmin::{Tested, ddmin_by};
use crate::engine::Reducer;
use crate::error::ReduceError;
use crate::lexicon::Splices;
use crate::lookahead::{Lazy, Successor};
use crate::plan::Then;
use crate::pool::Next;
use crate::split::Split;
use std::cell::OnceCell;
use std::rc::Rc;

/// Renders the current document with `s` spliced in.
pub(crate) fn render(r: &Reducer<'_>, s: &Splices, out: &mut Vec<u8>) {
    r.format().render_splices(r.doc(), s, out);
}

/// Keeps `bytes`, a rewrite of the whole text (the format's tidy rendering), if it is smaller and
/// the test allows it. While it is tested, idle workers start what comes after it (`after`),
/// over the text as it is and over `bytes`. Returns whether it was kept.
pub(crate) fn rewrite_then(
    r: &mut Reducer<'_>,
    bytes: &[u8],
    mut after: Successor<'_>,
) -> Result<bool, ReduceError> {
    let reducer = &*r;
    let after_it = Lazy::new(&mut after, reducer);
    let count = || after_it.count();
    let then = |i: usize, out: &mut Vec<u8>| after_it.render(i, out);
    let won_count = |_: usize| after_it.count_after(Some(bytes), &[]);
    let won_then =
        |_: usize, i: usize, out: &mut Vec<u8>| after_it.render_after(Some(bytes), &[], i, out);
    let next = Next {
        failed: Some((&count, &then)),
        won: Some((&won_count, &won_then)),
        plan: None,
    };
    let found = reducer.first_interesting_then(
        1,
        &|_| Some(()),
        &|_: &(), out: &mut Vec<u8>| out.extend_from_slice(bytes),
        next,
    )?;
    let Some(f) = found else {
        return Ok(false);
    };
    r.accept(&f);
    r.commit_parsed(after.into_parsed(r.best()))
}

/// Applies as many of `changes` (disjoint from each other) as the test allows: all of them at
/// once first (the usual case for renamings and white space), then ddmin over them. While its
/// last step is tested, idle workers start what comes after it (`after`).
pub(crate) fn apply_changes_then(
    r: &mut Reducer<'_>,
    changes: &[Splices],
    after: &mut Successor<'_>,
) -> Result<bool, ReduceError> {
    let (kept, ..) = apply_changes_keeping(r, changes, (0, 2), after)?;
    Ok(kept.len() < changes.len())
}

/// [`apply_changes_then`], returning the indices of the changes it could not apply, whether
/// each of those was tried alone, and the granularity ddmin ended at (0 if it did not run).
/// With a `floor` (bytes), ddmin does not split the changes into parts that save fewer bytes
/// than that on average ([`Split::by_size_from`]): what it keeps then may hold changes not
/// tried alone. ddmin's first split is into `start` parts ([`Split::by_size_from`]).
pub(crate) fn apply_changes_keeping(
    r: &mut Reducer<'_>,
    changes: &[Splices],
    (floor, start): (usize, usize),
    after: &mut Successor<'_>,
) -> Result<(Vec<usize>, bool, usize), ReduceError> {
    if changes.is_empty() {
        return Ok((Vec::new(), true, 0));
    }
    // The candidate that applies every change but those `kept`.
    let applying_all_but = |kept: &[usize]| Splices::all_but(changes, kept);
    let all = applying_all_but(&[]);
    // If applying them all fails, ddmin's first step comes next, or with a single change what
    // comes after this move: idle workers start it. Its parts hold about as many of the bytes
    // the changes save each (`Split::by_size_from`).
    let sizes: Rc<[usize]> = changes.iter().map(Splices::saves).collect();
    let first = Split::by_size_from(sizes, floor, start);
    let reducer = &*r;
    let builds = after.builds();
    let after_move = Lazy::new(&mut *after, reducer);
    let then = |i: usize, out: &mut Vec<u8>| {
        render(reducer, &applying_all_but(&first.kept(i)), out);
        true
    };
    let first_count = || first.count();
    let after_count = || after_move.count();
    let then_after = |i: usize, out: &mut Vec<u8>| after_move.render(i, out);
    // If it wins, the move ends there: what comes after it, over the text it leaves (rendered
    // when an idle worker asks for it, and only where something comes after it: a list move's
    // batch of a large file is not rendered for nothing).
    let all_bytes = OnceCell::new();
    let all_bytes = || {
        all_bytes.get_or_init(|| {
            let mut out = Vec::new();
            render(reducer, &all, &mut out);
            out
        })
    };
    let won_count = |_: usize| after_move.count_after(Some(all_bytes()), &[]);
    let won_then = |_: usize, i: usize, out: &mut Vec<u8>| {
        after_move.render_after(Some(all_bytes()), &[], i, out)
    };
    let next = Next {
        failed: if changes.len() >= 2 {
            Some((&first_count, &then))
        } else {
            Some((&after_count, &then_after))
        },
        won: builds.then_some((&won_count, &won_then)),
        plan: None,
    };
    let found = reducer.first_interesting_then(
        1,
        &|_| Some(all.clone()),
        &|s: &Splices, out: &mut Vec<u8>| render(reducer, s, out),
        next,
    )?;
    if let Some(f) = found {
        r.accept(&f);
        return Ok((Vec::new(), true, 0));
    }
    if changes.len() < 2 {
        return Ok((vec![0], true, 0));
    }
    // ddmin keeps the changes it could not apply; every other one was applied and accepted.
    let (kept, n) = ddmin_by(
        r,
        first,
        applying_all_but,
        render,
        Tested::Untried.into(),
        after,
        None,
    )?;
    // Its last split was into single changes, unless the floor stopped it before.
    let alone = n >= kept.len();
    Ok((kept, alone, n))
}
