//! The moves below the tree (`auto`) on the toy format, whose lexicon makes leaf labels names,
//! lets a node with children become `z` and lets blanks between nodes go.

use super::toy::Toy;
use crate::{Algorithm, Reduction, Splices};
use std::collections::HashMap;

fn words(bytes: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(bytes)
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

fn auto(input: &str, test: &(dyn Fn(&[u8]) -> bool + Sync)) -> (String, crate::Report) {
    let reduced = Reduction::new(&Toy, &test, input.as_bytes())
        .algorithm(Algorithm::Auto)
        .run()
        .expect("runs");
    (String::from_utf8(reduced.best).unwrap(), reduced.report)
}

#[test]
fn a_name_is_renamed_everywhere_at_once_and_blanks_go_where_no_words_join() {
    // Interesting while some word occurs three times and `a` is there. No node can go, `p` cannot
    // become `z`; `bar` becomes `b` (`a` is taken) in all three places in one test; the blank after
    // `)` goes, the ones between two words stay.
    let test = |bytes: &[u8]| {
        let w = words(bytes);
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for x in &w {
            *counts.entry(x).or_default() += 1;
        }
        w.iter().any(|x| x == "a") && counts.values().any(|&c| c >= 3)
    };
    let (best, report) = auto("p(bar bar) a bar", &test);
    assert_eq!(best, "p(b b)a b");
    assert_eq!(report.algorithm, "auto");
    assert_eq!(report.stats.tests_by_move.get("rename"), Some(&1));
}

#[test]
fn renaming_never_makes_a_name_that_is_already_there() {
    // Interesting while there are four different words. The leaves `cd` and `ef` are names (`ab`
    // has children, so it is not one in the toy's lexicon): they become `a` and `c`, since `b` is
    // in use; `b` itself has no smaller free name.
    let test = |bytes: &[u8]| {
        let mut w = words(bytes);
        w.sort();
        w.dedup();
        w.len() == 4
    };
    let (best, _) = auto("ab(cd ef) b", &test);
    assert_eq!(best, "ab(a c)b");
}

#[test]
fn splices_refuse_overlaps_and_render_in_order() {
    let mut s = Splices::default();
    assert!(s.add(4..6, b"X"));
    assert!(s.add(0..1, b""));
    assert!(!s.add(5..8, b"Y"), "overlaps 4..6");
    let mut out = Vec::new();
    s.render(b"abcdefgh", &mut out);
    assert_eq!(out, b"bcdXgh");
}

#[test]
fn a_union_merges_overlapping_deletions_and_keeps_other_splices_apart() {
    let part = |r: std::ops::Range<usize>, b: &[u8]| {
        let mut s = Splices::default();
        s.add(r, b);
        s
    };
    // Deletions 1..4 and 2..6 overlap, 3..5 lies inside both: "abcdefgh" loses b..f; the
    // replacement at 7..8 stays.
    let parts = [
        part(2..6, b""),
        part(1..4, b""),
        part(3..5, b""),
        part(7..8, b"Z"),
    ];
    let union = Splices::union(&parts);
    assert_eq!(union.iter().count(), 2);
    let mut out = Vec::new();
    union.render(b"abcdefgh", &mut out);
    assert_eq!(out, b"agZ");
    // A deletion and a replacement that overlap are not merged: the renderer keeps the first.
    let union = Splices::union(&[part(1..4, b""), part(2..3, b"Y")]);
    assert_eq!(union.iter().count(), 2);
    let mut out = Vec::new();
    union.render(b"abcdefgh", &mut out);
    assert_eq!(out, b"aefgh");
}

/// A format with one node, the whole file, and a gate that refuses a `!`: an input with a `!`
/// fails it, so the gate switches itself off and `auto` ends with the byte-level tail.
struct Blob;

impl crate::Format for Blob {
    fn name(&self) -> &'static str {
        "blob"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &[]
    }

    fn description(&self) -> &'static str {
        "test-only: the file is one leaf"
    }

    fn parse(&self, input: &[u8]) -> Result<crate::Document, crate::ParseError> {
        let b = crate::TreeBuilder::new(input.to_vec(), "file");
        Ok(crate::Document::new(b.finish().expect("one node")))
    }

    fn has_gate(&self) -> bool {
        true
    }

    fn gate(&self, bytes: &[u8]) -> bool {
        !bytes.contains(&b'!')
    }
}

#[test]
fn the_byte_tail_cuts_what_follows_the_interesting_prefix_by_binary_search() {
    // Interesting while the file starts with `x!`. The tail first looks for the shortest
    // interesting prefix of the 38 bytes: lengths 19, 10, 5, 3 and 2 are interesting, 1 is not
    // (6 tests); ddmin over `x!` then tries `!` (`x` was tried), and every shorter string over
    // {`!`, `x`} was tried already, so the result is minimal: 7 tests of the tail in all.
    let test = |bytes: &[u8]| bytes.starts_with(b"x!");
    let input = b"x!abcdefghijklmnopqrstuvwxyz0123456789";
    let reduced = Reduction::new(&Blob, &test, input)
        .algorithm(Algorithm::Auto)
        .run()
        .expect("runs");
    assert_eq!(reduced.best, b"x!");
    assert!(reduced.report.minimal);
    assert_eq!(reduced.report.stats.tests_by_move.get("bytes"), Some(&7));
}

#[test]
fn the_byte_tail_skips_the_proof_of_minimality_when_it_would_cost_more_than_the_reduction() {
    // Interesting while the file starts with `wxyz`: the tail's binary search finds the prefix
    // (lengths 19, 10, 5, 3 and 4: 5 tests) and ddmin over its bytes removes none (`yz`, `wx`,
    // then `xyz`, `wyz`, `wxz`; `wxy` was tried: 5 tests). The 85 strings shorter than `wxyz`
    // over its 4 bytes are more than a quarter of the dozen tests spent (and more than 16), so
    // they are not tried, and the report does not call the result minimal.
    let test = |bytes: &[u8]| bytes.starts_with(b"wxyz");
    let input = b"wxyz!abcdefghijklmnopqrstuvwxyz0123456";
    let reduced = Reduction::new(&Blob, &test, input)
        .algorithm(Algorithm::Auto)
        .run()
        .expect("runs");
    assert_eq!(reduced.best, b"wxyz");
    assert!(!reduced.report.minimal);
    assert_eq!(reduced.report.stats.tests_by_move.get("bytes"), Some(&10));
}

#[test]
fn hoisting_replaces_a_node_by_a_deeper_one_of_its_kind() {
    // Interesting: the input, and `a(x)`. Every single edit of GTR* (a deletion, a node in its
    // parent's place) makes something else; hoisting puts the inner `a(x)` in the outer `a`'s
    // place in one test (the toy's moves below the tree find nothing more: `x` must stay).
    let test = |bytes: &[u8]| bytes == b"a(b(c(a(x))))" || bytes == b"a(x)";
    let (best, report) = auto("a(b(c(a(x))))", &test);
    assert_eq!(best, "a(x)");
    assert_eq!(report.stats.tests_by_move.get("hoist"), Some(&1));
}
