//! `auto`'s rounds of GTR* skip the deletions and substitutions that failed alone in an earlier
//! round ([`crate::tried::Refused`]), and their fixpoint ends with a round that skips nothing.

use super::algorithms::reduce_with;
use super::toy::Toy;
use crate::{Algorithm, Format};
use std::sync::Mutex;

/// `A(x) B(y) W(j k)`, interesting while it holds `A(x)`, `B(y)`, `W(` and `k)`: worked by hand.
/// Round 1 tries deleting `A(x)`, `B(y)` and `W(j k)` alone on the top level, and substituting
/// each by a child (`x B(y) W(j k)`, …): each fails. It then deletes `j` on the level below,
/// which wins, so GTR* runs a second round over `A(x) B(y) W( k)` (Toy keeps the blank before a
/// deleted node). The paper's second round tries deleting `A(x)` alone again, on the smaller
/// file: ` B(y) W( k)`, and substituting it by `x`; `auto`'s round skips both, as they failed
/// alone on the larger file.
const INPUT: &str = "A(x) B(y) W(j k)";
const AGAIN: &str = " B(y) W( k)";

fn interesting(text: &str) -> bool {
    ["A(x)", "B(y)", "W(", "k)"]
        .iter()
        .all(|s| text.contains(s))
}

/// `keep`'s verdict on `b`, whose text is recorded in `seen`.
fn recorded(seen: &Mutex<Vec<String>>, b: &[u8], keep: impl Fn(&str) -> bool) -> bool {
    let text = String::from_utf8_lossy(b).into_owned();
    let verdict = keep(&text);
    seen.lock().unwrap().push(text);
    verdict
}

/// GTR*'s rounds (the paper's order, or `auto`'s) to their fixpoint, at `-j 1`: the result, and
/// every candidate tested, in order.
fn rounds(deletions_first: bool) -> (String, Vec<String>) {
    let seen = Mutex::new(Vec::new());
    let oracle = |b: &[u8]| recorded(&seen, b, interesting);
    let (out, _) = reduce_with(INPUT, &oracle, 1, None, |r| {
        let templates = Toy.templates();
        while crate::algo::gtr_round(r, &templates, true, deletions_first)? {}
        Ok(())
    });
    (out, seen.into_inner().unwrap())
}

#[test]
fn autos_later_rounds_skip_what_failed_alone_before() {
    let (paper, paper_seen) = rounds(false);
    let (auto, auto_seen) = rounds(true);
    assert_eq!(paper, "A(x) B(y) W( k)");
    assert_eq!(auto, paper);
    // The second round's candidate is new bytes (the first round's had `j`), so no cache hides
    // it: the paper tests it, `auto` does not.
    assert!(paper_seen.iter().any(|s| s == AGAIN), "{paper_seen:#?}");
    assert!(!auto_seen.iter().any(|s| s == AGAIN), "{auto_seen:#?}");
    // Both tried it in the first round, on the larger file.
    for seen in [&paper_seen, &auto_seen] {
        assert!(seen.iter().any(|s| s == " B(y) W(j k)"), "{seen:#?}");
    }
    // Likewise the substitution of `A(x)` by `x`, which failed in the first round.
    for seen in [&paper_seen, &auto_seen] {
        assert!(seen.iter().any(|s| s == "x B(y) W(j k)"), "{seen:#?}");
    }
    assert!(
        paper_seen.iter().any(|s| s == "x B(y) W( k)"),
        "{paper_seen:#?}"
    );
    assert!(
        !auto_seen.iter().any(|s| s == "x B(y) W( k)"),
        "{auto_seen:#?}"
    );
}

/// `auto`'s rounds end with one that skips nothing: once the second round, which skips every
/// deletion, has changed nothing, and the moves after the tree moves have taken the blanks
/// (`A(x)B(y)W(k)`), the pipeline's last round tries them all again, and the deletion of `A(x)`
/// from the smaller file (`B(y)W(k)`) is tried there, once. With a test that is not monotone (it
/// accepts that file though it refused every larger file without `A(x)`), that round takes it,
/// so the result stays 1-minimal whatever the test.
#[test]
fn autos_last_round_skips_nothing() {
    let seen = Mutex::new(Vec::new());
    let oracle = |b: &[u8]| recorded(&seen, b, |text| text == LAST || interesting(text));
    let (out, _) = reduce_with(INPUT, &oracle, 1, None, |r| crate::run(r, Algorithm::Auto));
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen.iter().filter(|s| *s == LAST).count(), 1, "{seen:#?}");
    // The first round's deletion of `A(x)`, refused, came first, then the blanks' move.
    let at = |c: &str| seen.iter().position(|s| s == c);
    assert!(at(" B(y) W(j k)") < at("A(x)B(y)W(k)"), "{seen:#?}");
    assert!(at("A(x)B(y)W(k)") < at(LAST), "{seen:#?}");
    assert_eq!(out, LAST);
}

/// [`INPUT`] without `A(x)` and `j`, and without the blanks the moves after the tree moves take.
const LAST: &str = "B(y)W(k)";

/// `auto` remembers what failed alone across its pipeline's runs of the tree moves and tries it
/// again in its last round only: with a monotone test, deleting `A(x)` is tested in the first
/// round (` B(y) W(j k)`), and once more at the end, from the file the moves after the tree
/// moves left (`B(y)W(k)`), not from the file the tree moves' first run left (` B(y) W( k)`).
#[test]
fn autos_pipeline_tries_what_failed_alone_again_only_at_its_end() {
    let seen = Mutex::new(Vec::new());
    let oracle = |b: &[u8]| recorded(&seen, b, interesting);
    let (out, _) = reduce_with(INPUT, &oracle, 1, None, |r| crate::run(r, Algorithm::Auto));
    let seen = seen.into_inner().unwrap();
    assert_eq!(out, "A(x)B(y)W(k)");
    for (candidate, times) in [(" B(y) W(j k)", 1), (AGAIN, 0), (LAST, 1)] {
        let n = seen.iter().filter(|s| *s == candidate).count();
        assert_eq!(n, times, "{candidate}: {seen:#?}");
    }
}
