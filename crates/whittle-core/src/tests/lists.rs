//! The format's list moves in the default pipeline: in their order, and from the first again
//! after one changed something.

use super::toy::Toy;
use crate::{
    Algorithm, Document, Format, ListMove, NodeId, ParseError, Reduced, Reduction, Splices,
};
use std::sync::Mutex;

/// The toy format with the list moves given.
#[derive(Debug)]
struct Listed(&'static [ListMove]);

/// The rewrite deleting node `n`.
fn delete(doc: &Document, n: NodeId) -> Splices {
    let mut s = Splices::default();
    s.add(doc.tree.span(n), b"");
    s
}

/// One rewrite per top-level node labelled `label`, deleting it.
fn deleting(doc: &Document, label: &str) -> Vec<Splices> {
    let tree = &doc.tree;
    (tree.children(tree.root()).iter())
        .filter(|&&n| tree.label(n) == label)
        .map(|&n| delete(doc, n))
        .collect()
}

/// A list move that deletes every top-level `u` once no `b` is left anywhere (as C's unused
/// declarations once their uses are gone), between the tree moves' levels or not.
const fn unused(between_levels: bool) -> ListMove {
    ListMove {
        name: "unused",
        changes: |doc| {
            let tree = &doc.tree;
            if tree.nodes().any(|n| tree.label(n) == "b") {
                return Vec::new();
            }
            deleting(doc, "u")
        },
        after_tree: false,
        between_levels,
    }
}

/// Three list moves, each deleting top-level nodes of one label.
const MOVES: [ListMove; 3] = [
    // `u` is used by `b`: it can only go once no `b` is left.
    unused(false),
    ListMove {
        name: "bodies",
        changes: |doc| deleting(doc, "b"),
        after_tree: false,
        between_levels: false,
    },
    ListMove {
        name: "rest",
        changes: |doc| deleting(doc, "t"),
        after_tree: false,
        between_levels: false,
    },
];

impl Format for Listed {
    fn name(&self) -> &'static str {
        "listed"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &[]
    }

    fn description(&self) -> &'static str {
        "test-only toy format with list moves"
    }

    fn parse(&self, input: &[u8]) -> Result<Document, ParseError> {
        Toy.parse(input)
    }

    fn list_moves(&self) -> &'static [ListMove] {
        self.0
    }
}

/// `auto` on the listed toy format with `moves`, one test at a time.
fn auto(
    moves: &'static [ListMove],
    input: &[u8],
    test: &(dyn Fn(&[u8]) -> bool + Sync),
) -> Reduced {
    Reduction::new(&Listed(moves), &test, input)
        .algorithm(Algorithm::Auto)
        .jobs(1)
        .run()
        .expect("runs")
}

/// Asserts that each of the three list moves ran one test.
fn assert_one_test_each(reduced: &Reduced) {
    let by_move = &reduced.report.stats.tests_by_move;
    let counts = ["unused", "bodies", "rest"].map(|m| by_move.get(m).copied());
    assert_eq!(counts, [Some(1); 3], "{by_move:?}");
}

#[test]
fn after_a_list_move_changed_something_the_first_one_runs_again_before_the_next() {
    // Interesting while `k` is there. `bodies` deletes `b(x)`, which lets `unused` delete `u`
    // before `rest` deletes `t`: each move's list is tested all at once, one test each. (The
    // empty file is tested after the input: a test must not accept it.)
    let seen = Mutex::new(Vec::<String>::new());
    let test = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        seen.lock()
            .unwrap()
            .push(text.split_whitespace().collect::<Vec<_>>().join(" "));
        text.split_whitespace().any(|w| w == "k")
    };
    let reduced = auto(&MOVES, b"u b(x) t k", &test);
    assert_eq!(String::from_utf8_lossy(&reduced.best).trim(), "k");
    let seen = seen.into_inner().unwrap();
    assert_eq!(
        seen[..5],
        ["u b(x) t k", "", "u t k", "t k", "k"],
        "{seen:?}"
    );
    assert_one_test_each(&reduced);
}

#[test]
fn a_rewrite_the_test_refused_is_not_listed_again() {
    // Interesting while `u` and `kk` are there. `bodies` deletes `b(x)`; `unused` then lists
    // `u`, which the test refuses; `rest` deletes `t`, and the round starts again from
    // `unused`, which lists `u` again: it is not tested again.
    let test = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        let words: Vec<&str> = text.split_whitespace().collect();
        words.contains(&"u") && words.contains(&"kk")
    };
    let reduced = auto(&MOVES, b"u b(x) t kk", &test);
    assert_one_test_each(&reduced);
    let best = String::from_utf8_lossy(&reduced.best);
    assert_eq!(best.split_whitespace().collect::<Vec<_>>(), ["u", "kk"]);
}

/// A list move that deletes each `d` with every `x` (its uses), and one that deletes every
/// `y`, also inside an `x`.
const WITH_USES: [ListMove; 2] = [
    ListMove {
        name: "uses",
        changes: |doc| {
            let tree = &doc.tree;
            let uses = deleting(doc, "x");
            (tree.children(tree.root()).iter())
                .filter(|&&n| tree.label(n) == "d")
                .map(|&n| Splices::union(std::iter::once(&delete(doc, n)).chain(&uses)))
                .collect()
        },
        after_tree: false,
        between_levels: false,
    },
    ListMove {
        name: "rest",
        changes: |doc| {
            let tree = &doc.tree;
            let ys: Vec<Splices> = (tree.nodes())
                .filter(|&n| tree.label(n) == "y")
                .map(|n| delete(doc, n))
                .collect();
            vec![Splices::union(&ys)]
        },
        after_tree: false,
        between_levels: false,
    },
];

#[test]
fn a_refused_rewrite_is_known_by_its_first_range_when_what_follows_it_changed() {
    // Interesting while `d` and `k` are there. `uses` lists `d` with its use `x(y)`, which the
    // test refuses; `rest` deletes the `y`s, and the round starts again: `uses` now lists `d`
    // with `x()`, a rewrite that starts with the same `d`, so it is not tested again (a
    // declaration the test needs is needed whatever is left of its uses).
    let test = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        let words: Vec<&str> = text.split_whitespace().collect();
        words.contains(&"d") && words.contains(&"k")
    };
    let reduced = auto(&WITH_USES, b"d x(y) y k", &test);
    let by_move = &reduced.report.stats.tests_by_move;
    assert_eq!(by_move.get("uses"), Some(&1), "{by_move:?}");
    assert_eq!(by_move.get("rest"), Some(&1), "{by_move:?}");
    let best = String::from_utf8_lossy(&reduced.best);
    assert_eq!(best.split_whitespace().collect::<Vec<_>>(), ["d", "k"]);
}

/// One list move deleting every top-level `t`.
const DELETE_TS: [ListMove; 1] = [ListMove {
    name: "rest",
    changes: |doc| deleting(doc, "t"),
    after_tree: false,
    between_levels: false,
}];

#[test]
fn a_list_is_split_by_the_bytes_its_rewrites_save() {
    // Eight small `t`s the test needs (it looks for the words a to h) and one large one it does
    // not. All at once fails; ddmin's first split, by the bytes each deletion saves, is the
    // eight small ones against the large one, and its first candidate deletes the large one
    // alone. (By count it would first delete {t(e) … t(h), large}, then {t(a) … t(d)}, then the
    // quarters and eighths: 15 failures.)
    let big = "x".repeat(100);
    let input = format!("t(a) t(b) t(c) t(d) t(e) t(f) t(g) t(h) t({big}) k");
    let seen = Mutex::new(Vec::<String>::new());
    let test = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes).to_string();
        seen.lock().unwrap().push(text.clone());
        "abcdefgh".chars().all(|c| text.contains(&format!("({c})")))
    };
    let reduced = auto(&DELETE_TS, input.as_bytes(), &test);
    let seen = seen.into_inner().unwrap();
    let small = "t(a) t(b) t(c) t(d) t(e) t(f) t(g) t(h)";
    assert_eq!(
        seen[2].split_whitespace().count(),
        1,
        "all deleted: {}",
        seen[2]
    );
    assert_eq!(
        seen[3].split_whitespace().collect::<Vec<_>>().join(" "),
        format!("{small} k")
    );
    assert!(!String::from_utf8_lossy(&reduced.best).contains('x'));
}

#[test]
fn a_coarse_first_run_leaves_what_it_did_not_try_alone_to_the_next_round() {
    // A file of 6 081 bytes: `t(a)` … `t(p)` (a rewrite deletes one, 4 bytes) and a long word
    // the test needs. Before the tree moves' first run a list move's ddmin does not split its
    // rewrites into parts of less than 1/64 of the file (95 bytes) on average. The test needs
    // `t(a)` and `t(p)`: all at once fails, and so do both halves (each holds one of them);
    // quarters would save 16 bytes each, so the run ends there, after three tests, keeping all sixteen (without
    // the floor it would go on to quarters, of which two win). The tree moves delete the
    // fourteen the test does not need. In the next round the run lists `t(a)` and `t(p)` again,
    // as neither was tried alone, and goes down to single rewrites: both together and `t(p)`
    // alone were tested by the tree moves on those bytes, `t(a)` alone was not (their ddmin
    // ruled it out on the larger file, and their later rounds skip it), so that costs one test,
    // whose verdict the round that ends the pipeline then finds in the cache.
    let long = format!("k{}", "x".repeat(6000));
    let ts: Vec<String> = ('a'..='p').map(|c| format!("t({c})")).collect();
    let input = format!("{} {long}", ts.join(" "));
    let test = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        let words: Vec<&str> = text.split_whitespace().collect();
        words.contains(&"t(a)") && words.contains(&"t(p)") && words.contains(&long.as_str())
    };
    let reduced = auto(&DELETE_TS, input.as_bytes(), &test);
    let best = String::from_utf8_lossy(&reduced.best);
    assert_eq!(
        best.split_whitespace().collect::<Vec<_>>(),
        ["t(a)", "t(p)", long.as_str()]
    );
    let by_move = &reduced.report.stats.tests_by_move;
    assert_eq!(by_move.get("rest"), Some(&4), "{by_move:?}");
}

/// `rest` (the `t`s), then `bodies` (the `b`s).
const TS_THEN_BODIES: [ListMove; 2] = [DELETE_TS[0], MOVES[1]];

#[test]
fn a_coarse_run_starts_where_the_moves_last_coarse_run_ended() {
    // Sixteen `t`s of 104 bytes each, `b(x)`, and a long word: 7 676 bytes, so a coarse run's
    // parts save 119 bytes each at least (1/64 of the file); the sixteen save 1 664, so the runs
    // go down to eight parts of two. The test needs every other `t` (`a`, `c`, …, `o`), so every
    // part fails: all at once, halves, quarters, eighths (15 tests), and the run ends at eight
    // parts. `bodies` then deletes `b(x)`, and `rest` runs again on a file no candidate was
    // tested on: it tries all at once, then starts at eight parts, where it ended, not at two.
    let pad = "y".repeat(100);
    let long = format!("k{}", "x".repeat(6000));
    let letters: Vec<char> = ('a'..='p').collect();
    let ts: Vec<String> = letters.iter().map(|c| format!("t({c}{pad})")).collect();
    let needed: Vec<String> = ts.iter().step_by(2).cloned().collect();
    let input = format!("{} b(x) {long}", ts.join(" "));
    let seen = Mutex::new(Vec::<Vec<String>>::new());
    let test = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        let words: Vec<&str> = text.split_whitespace().collect();
        let short = words
            .iter()
            .map(|w| w.replace(&pad, "").replace(&long, "L"));
        seen.lock().unwrap().push(short.collect());
        needed.iter().all(|t| words.contains(&t.as_str())) && words.contains(&long.as_str())
    };
    let reduced = auto(&TS_THEN_BODIES, input.as_bytes(), &test);
    let seen = seen.into_inner().unwrap();
    let t = |c: &char| format!("t({c})");
    // The candidate that keeps `keep` of the `t`s, without `b(x)`.
    let without_b = |keep: &[char]| {
        let mut words: Vec<String> = keep.iter().map(t).collect();
        words.push("L".to_string());
        words
    };
    let bodies_won = seen
        .iter()
        .position(|s| *s == without_b(&letters))
        .expect("bodies deletes b(x)");
    // 15 tests of `rest` before it: the input, the empty file, then 1 + 2 + 4 + 8.
    assert_eq!(bodies_won, 17, "{seen:#?}");
    // Next: `rest` all at once, then its first eighth (`t(a)` and `t(b)` deleted).
    assert_eq!(seen[bodies_won + 1], without_b(&[]), "{seen:#?}");
    assert_eq!(seen[bodies_won + 2], without_b(&letters[2..]), "{seen:#?}");
    // The run's nine tests (all at once, eight eighths) try no half of the `t`s again.
    let run = &seen[bodies_won + 1..bodies_won + 10];
    for half in [&letters[..8], &letters[8..]] {
        assert!(!run.contains(&without_b(half)), "{run:#?}");
    }
    assert_eq!(run[8], without_b(&letters[..14]), "{run:#?}");
    let best = String::from_utf8_lossy(&reduced.best);
    assert_eq!(best.split_whitespace().count(), needed.len() + 1, "{best}");
}

/// [`unused`], between the levels of the tree moves or not.
const BETWEEN: [ListMove; 1] = [unused(true)];
const NOT_BETWEEN: [ListMove; 1] = [unused(false)];

#[test]
fn a_list_move_between_levels_takes_what_a_level_left_before_the_next_round() {
    // Interesting with `W(` and `k`, and with `u` while a `b` is left (a use of `u`). The tree
    // moves' first round cannot delete `u` or `W(b k)` on the top level, nor replace `W(b k)`
    // by a child; on the level below it deletes `b` (Toy keeps the blank before it). With the
    // move between levels, the next test is the move's: `u` goes in that round, in one test.
    // Without, the list move has nothing to list before the tree moves, and the tree moves'
    // second round deletes `u` on the top level. (The blank left in front goes last.)
    let seen = Mutex::new(Vec::<String>::new());
    let test = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes).into_owned();
        let keep = text.contains("W(")
            && text.contains('k')
            && (!text.contains('b') || text.contains('u'));
        seen.lock().unwrap().push(text);
        keep
    };
    let reduced = auto(&BETWEEN, b"u W(b k)", &test);
    let by_move = &reduced.report.stats.tests_by_move;
    assert_eq!(String::from_utf8_lossy(&reduced.best), "W( k)");
    assert_eq!(by_move.get("unused"), Some(&1), "{by_move:?}");
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    let at = |c: &str| seen.iter().position(|s| s == c);
    assert_eq!(at(" W( k)"), at("u W( k)").map(|i| i + 1), "{seen:?}");

    let reduced = auto(&NOT_BETWEEN, b"u W(b k)", &test);
    assert_eq!(String::from_utf8_lossy(&reduced.best), "W( k)");
    let by_move = &reduced.report.stats.tests_by_move;
    assert_eq!(by_move.get("unused"), None, "{by_move:?}");
}
