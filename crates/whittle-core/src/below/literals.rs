//! The literal moves below the tree: every literal emptied (`literal-empty`), and ddmin over
//! the characters of each literal that is left (`literal-chars`), with what the latter tests
//! first while every candidate fails, for the plan of the moves before it.

use crate::changes::{apply_changes_then, render};
use crate::ddmin::{Known, Later, Tested, ddmin_by};
use crate::engine::{Reducer, View};
use crate::error::ReduceError;
use crate::lexicon::{Lexicon, Splices, Token, TokenKind};
use crate::lookahead::{Lookahead, Successor};
use crate::split::Split;
use std::hash::{Hash, Hasher};
use std::ops::Range;

/// A literal token's content: its span without the quotes.
fn content(t: &Token) -> Option<Range<usize>> {
    match t.kind {
        TokenKind::Literal { open, close } if t.span.len() >= open + close => {
            Some(t.span.start + open..t.span.end - close)
        }
        _ => None,
    }
}

/// Every literal emptied, as many at once as the test allows.
pub(super) fn empty_literals(_: &[u8], lex: &Lexicon) -> Vec<Splices> {
    lex.tokens
        .iter()
        .filter_map(content)
        .filter(|c| !c.is_empty())
        .map(|c| {
            let mut s = Splices::default();
            s.add(c, b"");
            s
        })
        .collect()
}

/// ddmin over the characters of each literal that could not be emptied, then over the
/// characters just after a backslash that another character follows (`"\\03"` as `"\\3"`: an
/// escape is one character to the first pass, so it never cuts one in half, but an escape can be
/// longer than two characters, and the character after its backslash can go while the rest
/// stays an escape). The literals are taken from the end of the file to its start, and the tree
/// re-parsed after each: a literal's changes move only the bytes after it, so the spans of the
/// ones still to do stay true.
pub(super) fn shrink_literals(r: &mut Reducer<'_>, lex: &Lexicon) -> Result<bool, ReduceError> {
    let contents = literal_contents(lex);
    let mut changed = false;
    for (k, c) in contents.iter().enumerate() {
        let mut c = c.clone();
        for pass in 0..2 {
            let changes = literal_deletions(r.tree().source(), &c, pass == 1);
            if changes.is_empty() {
                continue;
            }
            // While this literal's last steps are tested, idle workers start on the next
            // literals' (the plan walks into their runs of ddmin; after a literal whose
            // escapes a second pass shortens, what follows is not known ahead).
            let src = r.tree().source();
            let chain = if pass == 0 && literal_deletions(src, &c, true).is_empty() {
                later_literals(src, &contents[k + 1..])
            } else {
                Vec::new()
            };
            let rest = &contents[k + 1..];
            let next = |_: &Reducer<'_>, v: View<'_>, _: bool| {
                let src = v.doc.tree.source();
                // ddmin's first candidate over the next literal's characters.
                let next = rest
                    .iter()
                    .map(|c| literal_deletions(src, c, false))
                    .find(|d| !d.is_empty())?;
                let kept = Split::first(next.len(), 2).kept(0);
                Some(Lookahead::splices(Splices::all_but(&next, &kept)))
            };
            let mut after = if chain.is_empty() {
                Successor::new(r, &next)
            } else {
                Successor::none()
            };
            let applied = if pass == 0 {
                // Not all of them at once first: that is the literal emptied, which
                // `literal-empty` tried in this round or, after the tree moves, will.
                let all_but = |kept: &[usize]| Splices::all_but(&changes, kept);
                let content = r.tree().source()[c.clone()].to_vec();
                let kept_key = |kept: &[usize]| {
                    // Each change deletes one character of the content: the kept ones, in order.
                    let chars = (kept.iter())
                        .flat_map(|&k| changes[k].iter())
                        .flat_map(|(at, _)| &content[at.start - c.start..at.end - c.start]);
                    literal_key(&chars.copied().collect::<Vec<u8>>())
                };
                let len = |j: usize| chain.get(j).map(|(_, run)| run.len());
                let key = |j: usize| chain.get(j).map(|&(key, _)| key);
                let render_later = |r: &Reducer<'_>,
                                    j: usize,
                                    ended: &[Vec<usize>],
                                    kept: &[usize],
                                    out: &mut Vec<u8>| {
                    let ran = std::iter::once(&changes).chain(chain.iter().map(|(_, run)| run));
                    let mut parts: Vec<Splices> = ran
                        .zip(ended)
                        .map(|(changes, ended)| Splices::all_but(changes, ended))
                        .collect();
                    parts.push(Splices::all_but(&chain[j].1, kept));
                    render(r, &Splices::union(&parts), out);
                };
                let later = Later {
                    len: &len,
                    key: &key,
                    render: &render_later,
                };
                let later = (!chain.is_empty()).then_some(&later);
                let (kept, _) = ddmin_by(
                    r,
                    Split::first(changes.len(), 2),
                    all_but,
                    render,
                    Known {
                        tested: Tested::Untried,
                        key: Some(&kept_key),
                    },
                    &mut after,
                    later,
                )?;
                kept.len() < changes.len()
            } else {
                apply_changes_then(r, &changes, &mut after)?
            };
            if !applied {
                continue;
            }
            changed = true;
            r.commit_parsed(after.into_parsed(r.best()))?;
            if pass == 0 {
                // The literal as it is now: the content that starts where it did (a format may
                // write a changed literal anew, so its end is not known otherwise).
                let now = r.format().lexicon(r.doc()).and_then(|lex| {
                    lex.tokens
                        .iter()
                        .filter_map(content)
                        .find(|n| n.start == c.start)
                });
                let Some(now) = now else {
                    break;
                };
                c = now;
            }
        }
    }
    Ok(changed)
}

/// The contents of the literals in the order [`shrink_literals`] takes them: from the end of the
/// file to its start.
fn literal_contents(lex: &Lexicon) -> Vec<Range<usize>> {
    let mut contents: Vec<Range<usize>> = lex.tokens.iter().filter_map(content).collect();
    contents.sort_by_key(|c| std::cmp::Reverse((c.start, c.end)));
    contents.dedup();
    contents
}

/// What [`shrink_literals`] tests first while every candidate fails, in its order, at most
/// `limit`: the run of ddmin over each literal's characters in turn (from two parts down to
/// single characters), up to and with the first literal whose escapes a second pass would
/// shorten. While the move's first literal is tried, the plan of the move before it reaches
/// into it.
pub(super) fn literals_failing(src: &[u8], lex: &Lexicon, limit: usize) -> Vec<Splices> {
    let mut failing = Vec::new();
    for (_, run) in later_literals(src, &literal_contents(lex)) {
        let split = Split::first(run.len(), 2);
        for i in 0..split.chain_len() {
            if failing.len() >= limit {
                return failing;
            }
            if let Some(kept) = split.chain_kept(i) {
                failing.push(Splices::all_but(&run, &kept));
            }
        }
    }
    failing
}

/// The deletions of the characters of each literal of `rest` (in the order [`shrink_literals`]
/// takes them) that ddmin runs over next, up to and with the first whose escapes a second pass
/// would shorten, on the source `src`, with the key naming each run's items ([`literal_key`]):
/// the runs the plan walks into after the current one.
fn later_literals(src: &[u8], rest: &[Range<usize>]) -> Vec<(u64, Vec<Splices>)> {
    let mut runs = Vec::new();
    for c in rest {
        let changes = literal_deletions(src, c, false);
        if !changes.is_empty() {
            runs.push((literal_key(&src[c.clone()]), changes));
        }
        if !literal_deletions(src, c, true).is_empty() {
            break;
        }
    }
    runs
}

/// The key that names the items of ddmin over the characters of a literal's `content`
/// ([`Known::key`]): the content itself. The next round's run over the literal, when nothing else
/// changed it, is over the characters this one kept, which are its content then.
fn literal_key(content: &[u8]) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    ("literal-chars", content).hash(&mut h);
    h.finish()
}

/// The deletions of the characters of the literal content `c` (none if it has fewer than two),
/// or, `after_backslash`, of the characters just after a backslash that another character
/// follows.
fn literal_deletions(src: &[u8], c: &Range<usize>, after_backslash: bool) -> Vec<Splices> {
    let units = units(&src[c.clone()], c.start, true);
    let deletion = |u: Range<usize>| {
        let mut s = Splices::default();
        s.add(u, b"");
        s
    };
    if after_backslash {
        units
            .iter()
            .take(units.len().saturating_sub(1))
            .filter(|u| u.len() > 1 && src[u.start] == b'\\')
            .map(|u| deletion(u.start + 1..u.end))
            .collect()
    } else if units.len() < 2 {
        Vec::new()
    } else {
        units.into_iter().map(deletion).collect()
    }
}

/// The characters of `bytes` (starting at `offset` in the source) as byte ranges: a UTF-8
/// character, or, with `escapes`, a backslash with the character after it.
pub fn units(bytes: &[u8], offset: usize, escapes: bool) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        if escapes && bytes[i] == b'\\' && i + 1 < bytes.len() {
            i += 1;
        }
        i += 1;
        while i < bytes.len() && (bytes[i] & 0xC0) == 0x80 {
            i += 1;
        }
        out.push(offset + start..offset + i);
    }
    out
}
