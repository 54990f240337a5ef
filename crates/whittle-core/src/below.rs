//! Moves below the tree: rewrites of the text inside nodes (names, literals, numbers, white
//! space, placeholders, inlined definitions, short forms), proposed from the tokens a format
//! lists in its [`Lexicon`] and tested through the same pipeline as every tree edit (render,
//! hash, cache, gate, test).
//!
//! A candidate here is a set of [`Splices`] on the current document's source: byte ranges of
//! the current tree (a node's span, the inside of a string, a run of blanks in the bytes between
//! two children) replaced by bytes, which the format renders ([`crate::Format::render_splices`]:
//! the source spliced, or for PDF and nested documents the changed leaves written anew). A
//! renaming is one candidate that splices every occurrence of a name. Nothing is cloned; the
//! current tree is re-parsed from the accepted bytes, as after every tree move.

mod after_tree;
mod literals;

pub(crate) use after_tree::{after_tidy, then_the_end, tidy_next};

use crate::candidate::shortlex_less;
use crate::changes::{apply_changes_then, render};
use crate::engine::{Reducer, View};
use crate::error::ReduceError;
use crate::lexicon::{KEPT_NAMESPACE, Lexicon, Splices, Token, TokenKind};
use crate::lookahead::{Lookahead, Successor};
use crate::split::Split;
use crate::sweep::greedy_scan;
pub use literals::units;
use literals::{empty_literals, literals_failing, shrink_literals};
use std::collections::{BTreeMap, HashSet};
use std::ops::Range;

/// Whether the format renders the current document's splices: the rendering of none is the
/// current file (not so for a document whose tree is over a re-encoded text, say).
pub(crate) fn renders_splices(r: &Reducer<'_>) -> bool {
    let mut out = Vec::with_capacity(r.best().len());
    render(r, &Splices::default(), &mut out);
    out == r.best()
}

/// A move below the tree.
#[derive(Clone, Copy)]
enum Move {
    /// A search of its own (inlining; the characters of each literal in turn), with what it
    /// tests first while every candidate fails (at most as many as asked for), where that is
    /// known ahead.
    Own(
        fn(&mut Reducer<'_>, &Lexicon) -> Result<bool, ReduceError>,
        Option<FirstCandidates>,
    ),
    /// Nodes replaced by smaller forms, one at a time ([`greedy`]): the forms of the tokens
    /// the function selects (placeholders, substitutes).
    Greedy(fn(&TokenKind) -> Option<&'static [&'static str]>),
    /// Disjoint rewrites of the source, as many at once as the test allows
    /// ([`apply_changes_then`]).
    Changes(fn(&[u8], &Lexicon) -> Vec<Splices>),
}

/// What a search of its own tests first while every candidate fails, on a document's source and
/// lexicon, at most as many as asked for.
type FirstCandidates = fn(&[u8], &Lexicon, usize) -> Vec<Splices>;

/// How many moves below the tree there are (see [`reduce_below`] and [`reduce_last`]).
const COUNT: usize = 12;

/// The moves below the tree, in the order a round runs them, with the phase they count under.
const MOVES: [(&str, Move); COUNT] = [
    ("inline", Move::Changes(crate::inline::inlinings)),
    ("placeholder", Move::Greedy(placeholders)),
    // Emptying literals makes elements empty, which the short forms then close; both before
    // the renamings, which cost hundreds of tests where the test refuses most.
    ("literal-empty", Move::Changes(empty_literals)),
    ("short-form", Move::Changes(short_forms)),
    ("rename", Move::Changes(renamings)),
    ("number", Move::Changes(numbers_to_zero)),
    ("number", Move::Changes(numbers_to_one)),
    ("number", Move::Changes(numbers_shorter)),
    ("space", Move::Changes(spaces)),
    (
        "literal-chars",
        Move::Own(shrink_literals, Some(literals_failing)),
    ),
    // The last moves ([`LAST`]), once the others have nothing left to do.
    ("substitute", Move::Greedy(substitutes)),
    ("rename-free", Move::Changes(free_renamings)),
];

/// How many of [`MOVES`], at its end, run only at the pipeline's fixpoint ([`reduce_last`]).
const LAST: usize = 2;

impl Move {
    /// Runs the move over the current document; `after` is what comes next.
    fn run(
        self,
        r: &mut Reducer<'_>,
        lex: &Lexicon,
        after: &mut Successor<'_>,
    ) -> Result<bool, ReduceError> {
        match self {
            Move::Own(run, _) => run(r, lex),
            Move::Greedy(select) => greedy(r, &greedy_items(r.tree().source(), lex, select), after),
            Move::Changes(changes) => {
                apply_changes_then(r, &changes(r.tree().source(), lex), after)
            }
        }
    }

    /// The candidates the move tests on a document with source `src` and lexicon `lex` while
    /// every one fails, in its order: a greedy sweep's items one at a time; a batch of changes
    /// all at once, then ddmin's splits of them down to single ones; a search of its own, what it
    /// tests first where that is known ahead (`None` where it is not: then, and after it, nothing
    /// more is known, see [`failing_moves`]). At most `limit` of them (each of ddmin's is as long as
    /// the batch).
    fn failing(self, src: &[u8], lex: &Lexicon, limit: usize) -> Option<Vec<Splices>> {
        match self {
            Move::Own(_, first) => first.map(|first| first(src, lex, limit)),
            Move::Greedy(select) => Some(
                (greedy_items(src, lex, select).into_iter())
                    .take(limit)
                    .map(|(span, a)| {
                        let mut s = Splices::default();
                        s.add(span, a.as_bytes());
                        s
                    })
                    .collect(),
            ),
            Move::Changes(changes) => {
                let all = changes(src, lex);
                if all.is_empty() {
                    return Some(Vec::new());
                }
                let mut failing = vec![Splices::union(&all)];
                if all.len() >= 2 {
                    let split = Split::first(all.len(), 2);
                    failing.extend(
                        (0..split.chain_len().min(limit.saturating_sub(1)))
                            .filter_map(|i| split.chain_kept(i))
                            .map(|kept| Splices::all_but(&all, &kept)),
                    );
                }
                Some(failing)
            }
        }
    }
}

/// Which moves below the tree to run, and which changed something: one flag per move.
type MoveSet = [bool; COUNT];

/// The moves below the tree to their own fixpoint: a round of every move, then rounds of the
/// moves that changed something in the round before (an inlining can make the next one
/// possible, a number loses one digit per round), until a round changes nothing. A move that
/// found nothing is not tried again until the tree moves have run: on the same text it would
/// find nothing again, and some cost hundreds of tests (the renamings a coverage test refuses).
/// Returns whether any move changed something; then `auto` runs the tree moves again, since a
/// test may find a tree edit interesting now that it was not before (the text changed under
/// it), and the result is to be 1-minimal for the tree moves too.
pub(crate) fn reduce_below(r: &mut Reducer<'_>) -> Result<bool, ReduceError> {
    let mut active = [true; COUNT];
    active[COUNT - LAST..].fill(false);
    let mut changed_any = false;
    loop {
        let round = if changed_any {
            Round::Again
        } else {
            Round::First
        };
        let changed = below_round(r, &active, round)?;
        if !changed.contains(&true) {
            return Ok(changed_any);
        }
        changed_any = true;
        active = changed;
    }
}

/// The moves that run once nothing else changes anything: statements replaced by token
/// sequences of another kind (`substitute`), then the names the file uses but does not bind
/// renamed (`rename-free`). The test refuses most of these (they change what the file means, not
/// only how it is written), so they cost a few tests each time they run: once per fixpoint, not
/// in every round. Returns whether one of them changed something; then `auto` goes on from
/// the tree moves.
pub(crate) fn reduce_last(r: &mut Reducer<'_>) -> Result<bool, ReduceError> {
    let mut active = [false; COUNT];
    active[COUNT - LAST..].fill(true);
    Ok(below_round(r, &active, Round::Last)?.contains(&true))
}

/// What [`reduce_below`]'s first round tests while every candidate fails, on the document in
/// `v`, then [`reduce_last`]'s (which runs when that round changes nothing), as [`after_move`]
/// lists them: what comes after the tree moves, the tidy rendering and the hoisting sweep while
/// those keep nothing. `None` where the moves below the tree do not run (a format whose
/// splices are not rendered on the source, see [`renders_splices`]).
pub(crate) fn first_round(r: &Reducer<'_>, v: View<'_>) -> Option<Lookahead> {
    if !renders_splices(r) {
        return None;
    }
    let mut active = [true; COUNT];
    active[COUNT - LAST..].fill(false);
    after_move(r, v, (&active, &[false; COUNT]), Round::First, 0)
}

/// One round of the moves in `active`, each over the tokens of the current document. Returns
/// which of them changed something. Does nothing for a format without a lexicon, or when the
/// format does not render its splices (see [`renders_splices`]). While a move's last step is
/// tested, idle workers start what comes after it ([`after_move`], over the text the move
/// leaves).
fn below_round(
    r: &mut Reducer<'_>,
    active: &MoveSet,
    round: Round,
) -> Result<MoveSet, ReduceError> {
    let mut changed = [false; COUNT];
    r.commit()?;
    for (i, &(name, step)) in MOVES.iter().enumerate() {
        if !active[i] {
            continue;
        }
        let Some(lexicon) = r.format().lexicon(r.doc()) else {
            break;
        };
        if !renders_splices(r) {
            break;
        }
        r.set_phase(name);
        let before = changed;
        let next = |r: &Reducer<'_>, v: View<'_>, now: bool| {
            let mut changed = before;
            changed[i] |= now;
            after_move(r, v, (active, &changed), round, i + 1)
        };
        let mut after = Successor::new(r, &next);
        changed[i] = step.run(r, &lexicon, &mut after)?;
        r.commit_parsed(after.into_parsed(r.best()))?;
    }
    r.set_phase("tree");
    Ok(changed)
}

/// Adds to `candidates` what the moves from `from` on (of those `active`) test while every
/// candidate fails, in order, over the document in `v` with lexicon `lex` (at most
/// [`CHAINED_CANDIDATES`]), up to a move whose candidates are not known ahead, or the first
/// candidates of a search of its own: while nothing wins the text stays as it is, so a round that
/// changes nothing takes a few rounds of tests rather than one per move. Returns whether that is
/// all they test then, so that what follows them (on the same text) can be listed after it.
fn failing_moves(
    v: View<'_>,
    lex: &Lexicon,
    active: &MoveSet,
    from: usize,
    candidates: &mut Vec<Splices>,
) -> bool {
    let src = v.doc.tree.source();
    for (&(_, m), _) in MOVES[from..]
        .iter()
        .zip(&active[from..])
        .filter(|(_, a)| **a)
    {
        let Some(limit) = CHAINED_CANDIDATES
            .checked_sub(candidates.len())
            .filter(|&l| l > 0)
        else {
            return false;
        };
        let Some(failing) = m.failing(src, lex, limit) else {
            return false;
        };
        // What a search of its own tests after its first candidates is not known ahead (one
        // that tests nothing leaves the text as it is).
        let own = matches!(m, Move::Own(..)) && !failing.is_empty();
        candidates.extend(failing);
        if own {
            return false;
        }
    }
    true
}

/// Which round of the moves below the tree runs: what comes after it depends on it.
#[derive(Clone, Copy, PartialEq)]
enum Round {
    /// [`reduce_below`]'s first: when it changes nothing, [`reduce_last`] comes next.
    First,
    /// [`reduce_below`]'s next ones, of the moves that changed something in the round before.
    Again,
    /// [`reduce_last`]'s: when it changes nothing, `auto`'s byte tail comes next.
    Last,
}

/// What a `round` of the moves `active` tests from move `from` on, over the document in `v`,
/// while every candidate fails ([`failing_moves`]); then, if a move of a round of
/// [`reduce_below`] changed something (`changed`, with the run of the move before `from`),
/// another round of those moves; or else, after the first round, [`reduce_last`]'s moves; and
/// when the moves below the tree end there, the tree moves' first round (`auto` runs them again
/// after moves below the tree that changed something), where no list move comes before them.
/// So a move's last steps, the rounds that change nothing and the tree moves' first steps are
/// tested together rather than one after the other. `None` if there is nothing.
fn after_move(
    r: &Reducer<'_>,
    v: View<'_>,
    (active, changed): (&MoveSet, &MoveSet),
    round: Round,
    from: usize,
) -> Option<Lookahead> {
    let lex = r.format().lexicon(v.doc)?;
    let mut candidates = Vec::new();
    let mut whole = failing_moves(v, &lex, active, from, &mut candidates);
    let changed_any = changed.contains(&true);
    if whole && round != Round::Last && changed_any {
        whole = failing_moves(v, &lex, changed, 0, &mut candidates);
    } else if whole && round == Round::First {
        let mut last = [false; COUNT];
        last[COUNT - LAST..].fill(true);
        failing_moves(v, &lex, &last, 0, &mut candidates);
    }
    // After moves that changed something, the tree moves' rounds (where no list move comes
    // first), and what follows them if they change nothing: the tidy rendering, and the next
    // first round of these moves. After the last moves that change nothing, the round of the
    // tree moves that ends the pipeline (or, after a deferred list move, the list moves).
    let to_tree = whole && (round == Round::Again || changed_any);
    let tree = if to_tree && r.format().list_moves().is_empty() {
        let templates = r.format().templates();
        let runs = Lookahead::round(r, v, &templates, true);
        then_the_end(r, v, &templates, runs, true)
    } else if whole && round == Round::Last && !changed_any {
        Lookahead::confirming_round(r, v, &r.format().templates()).0
    } else {
        None
    };
    let moves = candidates.into_iter().map(|s| Some(Lookahead::splices(s)));
    Lookahead::chain(moves.chain([tree]))
}

/// At most this many candidates of the moves that follow one are offered ahead.
const CHAINED_CANDIDATES: usize = 256;

/// Consistent renaming: each name bound in the file (all its occurrences at once) to the
/// shortest name that occurs nowhere in the file, the names that save the most bytes first.
fn renamings(src: &[u8], lex: &Lexicon) -> Vec<Splices> {
    renamings_of(src, lex, true)
}

/// The same for the names the file uses without binding them.
fn free_renamings(src: &[u8], lex: &Lexicon) -> Vec<Splices> {
    renamings_of(src, lex, false)
}

/// The renamings of the names that are bound in the file (`bound`) or only used in it.
fn renamings_of(src: &[u8], lex: &Lexicon, bound: bool) -> Vec<Splices> {
    let mut groups: BTreeMap<(u8, &[u8]), NameGroup> = BTreeMap::new();
    for t in &lex.tokens {
        if let TokenKind::Name { namespace, bound } = t.kind {
            let group = groups.entry((namespace, &src[t.span.clone()])).or_default();
            group.0.push(t.span.clone());
            group.1 |= bound;
        }
    }
    let mut used: HashSet<&[u8]> = groups.keys().map(|&(_, name)| name).collect();
    used.extend(lex.reserved.iter().map(|w| w.as_bytes()));
    let mut order: Vec<_> = groups
        .iter()
        .filter(|((ns, _), (_, b))| *b == bound && *ns != KEPT_NAMESPACE)
        .map(|(key, (spans, _))| (key, spans))
        .collect();
    order.sort_by_key(|&(&(ns, name), spans)| {
        (std::cmp::Reverse(spans.len() * name.len()), ns, name)
    });
    let mut fresh = FreshNames::default();
    let mut changes = Vec::new();
    for (&(_, name), spans) in order {
        let new = fresh.next(&used);
        // Only renamings that save bytes: a same-length one (`x` to `i`) costs a test for a
        // file that is only more canonical.
        if new.len() >= name.len() {
            fresh.put_back(new);
            continue;
        }
        let mut s = Splices::default();
        for span in spans {
            s.add(span.clone(), &new);
        }
        changes.push(s);
    }
    changes
}

/// Every occurrence of a name, and whether one of them binds it.
type NameGroup = (Vec<Range<usize>>, bool);

/// `a` … `z`, `aa`, `ab`, …: the shortest names first.
#[derive(Default)]
struct FreshNames {
    counter: usize,
    returned: Vec<Vec<u8>>,
}

impl FreshNames {
    fn next(&mut self, used: &HashSet<&[u8]>) -> Vec<u8> {
        if let Some(n) = self.returned.pop() {
            return n;
        }
        loop {
            let name = name_of(self.counter);
            self.counter += 1;
            if !used.contains(name.as_slice()) {
                return name;
            }
        }
    }

    fn put_back(&mut self, name: Vec<u8>) {
        self.returned.push(name);
    }
}

/// The `i`-th name in shortlex order over `a`–`z` (`a` … `z`, `aa`, …): the order in which the
/// renaming move hands out new names.
pub fn name_of(mut i: usize) -> Vec<u8> {
    let mut len = 1;
    let mut count = 26;
    while i >= count {
        i -= count;
        len += 1;
        count *= 26;
    }
    let mut name = vec![b'a'; len];
    for slot in name.iter_mut().rev() {
        *slot = b'a' + (i % 26) as u8;
        i /= 26;
    }
    name
}

/// The placeholder move's forms ([`TokenKind::Alternatives`]).
fn placeholders(kind: &TokenKind) -> Option<&'static [&'static str]> {
    match kind {
        TokenKind::Alternatives(forms) => Some(forms),
        _ => None,
    }
}

/// The substitution move's forms ([`TokenKind::Substitute`]).
fn substitutes(kind: &TokenKind) -> Option<&'static [&'static str]> {
    match kind {
        TokenKind::Substitute(forms) => Some(forms),
        _ => None,
    }
}

/// A greedy move's candidates: nodes replaced by the smaller forms `select` gives their tokens,
/// outermost first, tried one at a time on top of the ones already accepted ([`greedy`]).
fn greedy_items(
    src: &[u8],
    lex: &Lexicon,
    select: fn(&TokenKind) -> Option<&'static [&'static str]>,
) -> Vec<(Range<usize>, &'static str)> {
    let mut items: Vec<(Range<usize>, &'static str)> = Vec::new();
    let mut tokens: Vec<&Token> = lex.tokens.iter().collect();
    tokens.sort_by_key(|t| (t.span.start, std::cmp::Reverse(t.span.end)));
    for t in tokens {
        if let Some(alts) = select(&t.kind) {
            let old = &src[t.span.clone()];
            items.extend(
                alts.iter()
                    .filter(|a| shortlex_less(a.as_bytes(), old))
                    .map(|&a| (t.span.clone(), a)),
            );
        }
    }
    items
}

/// Tries `items` in order, each on top of those accepted so far; one that overlaps an accepted
/// splice is skipped. When a sweep ends, idle workers start `after`.
fn greedy(
    r: &mut Reducer<'_>,
    items: &[(Range<usize>, &str)],
    after: &mut Successor<'_>,
) -> Result<bool, ReduceError> {
    let items: Vec<&(Range<usize>, &str)> = items.iter().collect();
    let on_top = |_: &Reducer<'_>, state: &Splices, (span, bytes): &(Range<usize>, &str)| {
        let mut s = state.clone();
        s.add(span.clone(), bytes.as_bytes()).then_some(s)
    };
    let mut state = Splices::default();
    greedy_scan(r, &items, &mut state, false, after, on_top, render, None)
}

/// Numbers as `0`, as many at once as the test allows.
fn numbers_to_zero(src: &[u8], lex: &Lexicon) -> Vec<Splices> {
    rewrite_numbers(src, lex, |_| Some(b"0".to_vec()))
}

/// The numbers that are left as `1`.
fn numbers_to_one(src: &[u8], lex: &Lexicon) -> Vec<Splices> {
    rewrite_numbers(src, lex, |_| Some(b"1".to_vec()))
}

/// The numbers that are left with one digit fewer (`1234` to `123`, `2.50` to `2.5`); a number
/// that ends in anything but a digit, or would (`0x1F`, `1.5` to `1.`), is left alone. `auto`'s
/// rounds repeat this while the test allows it.
fn numbers_shorter(src: &[u8], lex: &Lexicon) -> Vec<Splices> {
    rewrite_numbers(src, lex, |old| match old {
        [.., a, b] if a.is_ascii_digit() && b.is_ascii_digit() => {
            Some(old[..old.len() - 1].to_vec())
        }
        _ => None,
    })
}

/// Every number rewritten by `new` (where it gives something smaller), as many at once as the
/// test allows.
fn rewrite_numbers(
    src: &[u8],
    lex: &Lexicon,
    new: impl Fn(&[u8]) -> Option<Vec<u8>>,
) -> Vec<Splices> {
    lex.tokens
        .iter()
        .filter(|t| t.kind == TokenKind::Number)
        .filter_map(|t| {
            let old = &src[t.span.clone()];
            let replacement = new(old).filter(|n| shortlex_less(n, old))?;
            let mut s = Splices::default();
            s.add(t.span.clone(), &replacement);
            Some(s)
        })
        .collect()
}

/// White space down to what the grammar needs, as much at once as the test allows.
fn spaces(src: &[u8], lex: &Lexicon) -> Vec<Splices> {
    rewrite_all(src, lex, |k| match k {
        TokenKind::Space { min } => Some(min),
        _ => None,
    })
}

/// The shorter forms a format offers ([`TokenKind::Shorter`]), as many at once as the test
/// allows.
fn short_forms(src: &[u8], lex: &Lexicon) -> Vec<Splices> {
    rewrite_all(src, lex, |k| match k {
        TokenKind::Shorter(min) => Some(min),
        _ => None,
    })
}

/// Every token that `to` gives a smaller text (in shortlex order) rewritten to it, as many at
/// once as the test allows.
fn rewrite_all(
    src: &[u8],
    lex: &Lexicon,
    to: impl Fn(&TokenKind) -> Option<&'static str>,
) -> Vec<Splices> {
    lex.tokens
        .iter()
        .filter_map(|t| {
            let min = to(&t.kind)?;
            shortlex_less(min.as_bytes(), &src[t.span.clone()]).then(|| {
                let mut s = Splices::default();
                s.add(t.span.clone(), min.as_bytes());
                s
            })
        })
        .collect()
}
