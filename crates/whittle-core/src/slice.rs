//! The slice move (`slice` in `tests_by_move`): keep a few of the file's parts with everything
//! they need, transitively, and delete the rest, with ddmin choosing the parts ([`Slices`], given
//! by the format). It is delta debugging over what the test needs rather than over what can go:
//! a compiler crash in one function of a 1 MB translation unit needs that function and the
//! declarations it names, so ddmin over the parts to keep finds it in about `2 log n` tests,
//! where ddmin over deletions (each declaration with its uses) pays a test for every group of
//! declarations that something kept still names. A part needed in a way the names do not show
//! (an operator, a specialization chosen by overload resolution) is one more part ddmin keeps.

use crate::below::renders_splices;
use crate::engine::Reducer;
use crate::error::ReduceError;
use crate::format::Slices;
use crate::lexicon::Splices;

/// The most parts a split has. Each finer split costs a test for every part it cannot drop;
/// past this the list moves, which delete what nothing names, are cheaper.
const FINEST: usize = 32;

/// Runs the slice move once over the current document; returns whether it changed anything.
///
/// The search is ddmin's with its subsets: at granularity `n` it tries keeping one of the `n`
/// parts of the roots it keeps (with what they need), then keeping all but one; a subset that
/// passes becomes what it keeps, split in two. Keeping a subset is what finds the one function
/// a crash needs among a thousand (whittle's own ddmin tries complements only, which here would
/// delete only what no other kept function needs). Every candidate is a deletion of the
/// document as the move found it, so the move commits once, at the end.
pub(crate) fn reduce_slice(r: &mut Reducer<'_>) -> Result<bool, ReduceError> {
    r.commit()?;
    if !renders_splices(r) {
        return Ok(false);
    }
    let Some(slices) = r.format().slices(r.doc()) else {
        return Ok(false);
    };
    let roots: Vec<usize> = (0..slices.parts.len())
        .filter(|&p| !slices.fixed[p])
        .collect();
    if roots.len() < 2 {
        return Ok(false);
    }
    r.set_phase("slice");
    let base = fixed_closure(&slices);
    let before = r.best().len();
    let mut config: Vec<usize> = roots;
    let mut n = 2;
    while config.len() >= 2 {
        let n_now = n.min(config.len());
        let part = |i: usize| (i * config.len() / n_now)..((i + 1) * config.len() / n_now);
        let kept = |i: usize| -> Vec<usize> {
            if i < n_now {
                config[part(i)].to_vec()
            } else {
                let p = part(i - n_now);
                config[..p.start]
                    .iter()
                    .chain(&config[p.end..])
                    .copied()
                    .collect()
            }
        };
        // At n = 2 the complements are the subsets.
        let count = if n_now == 2 { 2 } else { 2 * n_now };
        let found = r.first_interesting_by(
            count,
            |i| Some(keeping(&slices, &base, kept(i).into_iter())),
            |s: &Splices, out: &mut Vec<u8>| r.format().render_splices(r.doc(), s, out),
        )?;
        match found {
            Some(f) => {
                r.accept(&f);
                n = if f.index < n_now {
                    2
                } else {
                    (n_now - 1).max(2)
                };
                config = kept(f.index);
            }
            None if n_now >= config.len().min(FINEST) => break,
            None => n = n_now * 2,
        }
    }
    r.commit()?;
    r.set_phase("tree");
    Ok(r.best().len() < before)
}

/// What every candidate keeps: the closure of the fixed parts under `needs`.
fn fixed_closure(slices: &Slices) -> Vec<bool> {
    let fixed = (0..slices.parts.len()).filter(|&p| slices.fixed[p]);
    close(slices, vec![false; slices.parts.len()], fixed)
}

/// `keep` with the closure of `from` under `needs` added.
fn close(slices: &Slices, mut keep: Vec<bool>, from: impl Iterator<Item = usize>) -> Vec<bool> {
    let mut stack: Vec<usize> = from.collect();
    while let Some(p) = stack.pop() {
        if !std::mem::replace(&mut keep[p], true) {
            stack.extend(slices.needs[p].iter().copied().filter(|&q| !keep[q]));
        }
    }
    keep
}

/// The deletion of every part outside `base` (the fixed parts' closure) and the closure of
/// `kept` under `needs`.
fn keeping(slices: &Slices, base: &[bool], kept: impl Iterator<Item = usize>) -> Splices {
    let keep = close(slices, base.to_vec(), kept);
    let mut out = Splices::default();
    for (part, _) in slices.parts.iter().zip(&keep).filter(|(_, k)| !**k) {
        out.add(part.clone(), b"");
    }
    out
}
