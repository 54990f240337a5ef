//! The byte-level tail of [`crate::Algorithm::Auto`], for inputs that are not valid to begin
//! with (the test is about a malformed file, so the format's gate switched itself off): the
//! shortest interesting prefix, then ddmin over the characters of the whole file, then over its
//! bytes, within a budget of oracle calls; and, when the result is a few bytes long and the
//! search is cheap beside the calls spent, every shorter string over its bytes, so that the
//! report can say the result is minimal, then the result with a run replaced by one of the
//! format's delimiters that it lacks.

use crate::below::units;
use crate::ddmin::{Tested, ddmin_by};
use crate::engine::Reducer;
use crate::error::ReduceError;
use crate::lookahead::Successor;
use crate::observe::Gate;
use crate::split::Split;
use std::ops::Range;

/// Oracle calls the tail may spend: as many as the reduction spent before it, at least this.
const MIN_BUDGET: u64 = 200;

/// The largest number of strings the exhaustive search tries.
const EXHAUSTIVE_LIMIT: usize = 400;

/// The search of every shorter string over the result's bytes rarely finds one (the result is
/// 1-minimal already): it is a proof of minimality more than a reduction, so it runs only when
/// it adds at most a quarter to the oracle calls spent so far, or has at most
/// [`PROOF_ALWAYS`] strings. After a replacement made a 7-byte result 4 bytes long, the 85
/// strings over its 4 bytes would cost more than the replacement search that found it.
const PROOF_SHARE: usize = 4;

/// The number of strings the proof of minimality may always try.
const PROOF_ALWAYS: usize = 16;

/// The longest result whose runs are tried replaced by a delimiter: the search is for the last
/// few bytes, and its shortest candidates are far shorter than a longer result could become.
const REPLACE_MAX_LEN: usize = 16;

pub(crate) fn byte_tail(r: &mut Reducer<'_>) -> Result<(), ReduceError> {
    if r.gate_state() != Gate::SwitchedOff {
        return Ok(());
    }
    r.set_phase("bytes");
    let spent = r.stats().oracle_calls;
    r.set_call_limit(Some(spent + spent.max(MIN_BUDGET)));
    let outcome = truncate(r)
        .and_then(|()| bytes_ddmin(r, true))
        .and_then(|()| bytes_ddmin(r, false))
        .and_then(|()| exhaustive(r));
    r.set_call_limit(None);
    match outcome {
        Ok(()) | Err(ReduceError::OutOfBudget) => Ok(()),
        Err(e) => Err(e),
    }
}

/// The shortest interesting prefix of the best result, by binary search (one test a step): a
/// malformed file is usually about the first place where it goes wrong, and what follows that
/// place can go at once, where ddmin would take it in halves. The search assumes that a prefix
/// of an interesting prefix's length or more is interesting; where that does not hold it only
/// finds a longer prefix than it could, and ddmin goes on from there.
fn truncate(r: &mut Reducer<'_>) -> Result<(), ReduceError> {
    let best = r.best().to_vec();
    // The empty file was tested at the start and is not interesting.
    let (mut lo, mut hi) = (1, best.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let prefix = &best[..mid];
        let found =
            r.first_interesting_by(1, |_| Some(()), |(), out| out.extend_from_slice(prefix))?;
        match found {
            Some(f) => {
                r.accept(&f);
                hi = mid;
            }
            None => lo = mid + 1,
        }
    }
    Ok(())
}

/// ddmin over the characters (UTF-8 sequences) or the bytes of the best result.
fn bytes_ddmin(r: &mut Reducer<'_>, chars: bool) -> Result<(), ReduceError> {
    let source = r.best().to_vec();
    let units: Vec<Range<usize>> = if chars {
        units(&source, 0, false)
    } else {
        (0..source.len()).map(|i| i..i + 1).collect()
    };
    if chars && units.len() == source.len() {
        // All ASCII: the byte pass would try the same.
        return Ok(());
    }
    ddmin_by(
        r,
        Split::first(units.len(), 2),
        |kept| {
            kept.iter()
                .flat_map(|&i| source[units[i].clone()].iter().copied())
                .collect::<Vec<u8>>()
        },
        |_, bytes, out| out.extend_from_slice(bytes),
        // The tail runs once, not to a fixpoint: every candidate is tested.
        Tested::All.into(),
        &mut Successor::none(),
        None,
    )?;
    Ok(())
}

/// Every string shorter than the best result over the bytes it contains, shortest first, where
/// there are few enough of them ([`PROOF_SHARE`], [`PROOF_ALWAYS`]); the first interesting one
/// is accepted and the search repeats from it. When the search ends without one, no shorter
/// string over those bytes is interesting, and the reducer records the result as minimal.
///
/// Then, or when there are too many such strings, for a result of at most [`REPLACE_MAX_LEN`]
/// bytes, the result with one of its runs replaced by one of the format's delimiters that it
/// does not hold ([`replacements`]): `<a b="&` holds no `>`, so no string over its bytes is
/// `<a>&`. After a win, ddmin over the bytes takes what the delimiter made unneeded (`<a >"&`
/// becomes `<a>&`), and the search of shorter strings runs again; the replacements do not: each
/// missing delimiter was tried at every place already, and a delimiter the result lacks now is
/// one that the ddmin just removed.
fn exhaustive(r: &mut Reducer<'_>) -> Result<(), ReduceError> {
    let mut replaced = false;
    loop {
        let best = r.best().to_vec();
        let mut alphabet = best.clone();
        alphabet.sort_unstable();
        alphabet.dedup();
        let calls = usize::try_from(r.stats().oracle_calls).unwrap_or(usize::MAX);
        let affordable = EXHAUSTIVE_LIMIT.min(PROOF_ALWAYS.max(calls / PROOF_SHARE));
        let complete = match shorter_strings(&alphabet, best.len(), affordable) {
            Some(candidates) => {
                let found = r.first_interesting_by(
                    candidates.len(),
                    |i| Some(candidates[i].clone()),
                    |c, out| out.extend_from_slice(c),
                )?;
                if let Some(f) = found {
                    r.accept(&f);
                    continue;
                }
                true
            }
            None => false,
        };
        r.set_minimal(complete);
        if replaced || best.len() > REPLACE_MAX_LEN {
            return Ok(());
        }
        // Only the delimiters the result lacks: a run replaced by one of its own bytes is a
        // string over its bytes, which the search above tried where it could.
        let mut missing: Vec<u8> = r
            .format()
            .delimiters()
            .iter()
            .copied()
            .filter(|b| alphabet.binary_search(b).is_err())
            .collect();
        missing.sort_unstable();
        missing.dedup();
        let candidates = replacements(&best, &missing);
        let found = r.first_interesting_by(
            candidates.len(),
            |i| Some(candidates[i].clone()),
            |c, out| out.extend_from_slice(c),
        )?;
        let Some(f) = found else {
            return Ok(());
        };
        r.accept(&f);
        r.set_minimal(false);
        bytes_ddmin(r, false)?;
        replaced = true;
    }
}

/// `best` with one run of at least two bytes replaced by one byte of `alphabet`: every such
/// string, the shortest runs first (the smallest changes, the likeliest to keep the file
/// interesting; ddmin after a win takes the rest), in lexicographic order among strings of one
/// length, the first [`EXHAUSTIVE_LIMIT`] of them.
fn replacements(best: &[u8], alphabet: &[u8]) -> Vec<Vec<u8>> {
    let n = best.len();
    let mut out = Vec::new();
    // A run of `len` bytes replaced by one leaves `n - len + 1`.
    for len in 2..=n {
        let mut level: Vec<Vec<u8>> = (0..=n - len)
            .flat_map(|start| {
                alphabet.iter().map(move |&b| {
                    let mut s = best[..start].to_vec();
                    s.push(b);
                    s.extend_from_slice(&best[start + len..]);
                    s
                })
            })
            .collect();
        level.sort_unstable();
        level.dedup();
        for s in level {
            if out.len() == EXHAUSTIVE_LIMIT {
                return out;
            }
            out.push(s);
        }
    }
    out
}

/// All strings over `alphabet` shorter than `len`, in shortlex order; `None` if there are more
/// than `limit`.
fn shorter_strings(alphabet: &[u8], len: usize, limit: usize) -> Option<Vec<Vec<u8>>> {
    let mut all: Vec<Vec<u8>> = vec![Vec::new()];
    let mut level: Vec<Vec<u8>> = vec![Vec::new()];
    for _ in 1..len {
        let next: Vec<Vec<u8>> = level
            .iter()
            .flat_map(|s| {
                alphabet.iter().map(move |&b| {
                    let mut t = s.clone();
                    t.push(b);
                    t
                })
            })
            .collect();
        if all.len() + next.len() > limit {
            return None;
        }
        all.extend(next.iter().cloned());
        level = next;
    }
    Some(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shorter_strings_are_every_string_over_the_alphabet_in_shortlex_order() {
        let all = shorter_strings(b"ab", 3, 7).unwrap();
        let expected: Vec<&[u8]> = vec![b"", b"a", b"b", b"aa", b"ab", b"ba", b"bb"];
        assert_eq!(all, expected);
        assert!(shorter_strings(b"ab", 3, 6).is_none(), "7 strings > 6");
        assert!(
            shorter_strings(b"abcdefghij", 4, EXHAUSTIVE_LIMIT).is_none(),
            "1 + 10 + 100 + 1000 > 400"
        );
    }

    #[test]
    fn replacements_put_one_byte_for_a_run_shortest_run_first() {
        let all = replacements(b"abc", b"x");
        let expected: Vec<&[u8]> = vec![b"ax", b"xc", b"x"];
        assert_eq!(all, expected);
        // `<a b="&` holds no `>`; with it as a delimiter, `<a>&` is among the strings of 4 bytes.
        let from = b"<a\tb=\"&";
        let mut alphabet = from.to_vec();
        alphabet.push(b'>');
        let all = replacements(from, &alphabet);
        assert!(all.contains(&b"<a>&".to_vec()));
        assert!(all.windows(2).all(|w| w[0].len() >= w[1].len()));
    }

    #[test]
    fn units_keep_utf8_sequences_whole_and_escapes_only_when_asked() {
        assert_eq!(units("aé€".as_bytes(), 0, false), vec![0..1, 1..3, 3..6]);
        assert_eq!(units(b"a\\nb", 10, true), vec![10..11, 11..13, 13..14]);
        assert_eq!(units(b"a\\nb", 0, false), vec![0..1, 1..2, 2..3, 3..4]);
    }
}
