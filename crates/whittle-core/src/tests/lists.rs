//! The format's list moves in the default pipeline: in their order, and from the first again
//! after one changed something.

use super::toy::Toy;
use crate::{Algorithm, Document, Format, ListMove, ParseError, Reduced, Reduction, Splices};
use std::sync::Mutex;

/// The toy format with three list moves, each deleting top-level nodes of one label.
#[derive(Debug)]
struct Listed;

/// One rewrite per top-level node labelled `label`, deleting it.
fn deleting(doc: &Document, label: &str) -> Vec<Splices> {
    let tree = &doc.tree;
    let mut out = Vec::new();
    for &n in tree.children(tree.root()) {
        if tree.label(n) == label {
            let mut s = Splices::default();
            s.add(tree.span(n), b"");
            out.push(s);
        }
    }
    out
}

const MOVES: [ListMove; 3] = [
    // `u` is used by `b`: it can only go once no `b` is left.
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
    },
    ListMove {
        name: "bodies",
        changes: |doc| deleting(doc, "b"),
        after_tree: false,
    },
    ListMove {
        name: "rest",
        changes: |doc| deleting(doc, "t"),
        after_tree: false,
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
        &MOVES
    }
}

/// `auto` on the listed toy format, one test at a time.
fn auto(input: &[u8], test: &(dyn Fn(&[u8]) -> bool + Sync)) -> Reduced {
    Reduction::new(&Listed, &test, input)
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
    let reduced = auto(b"u b(x) t k", &test);
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
    let reduced = auto(b"u b(x) t kk", &test);
    assert_one_test_each(&reduced);
    let best = String::from_utf8_lossy(&reduced.best);
    assert_eq!(best.split_whitespace().collect::<Vec<_>>(), ["u", "kk"]);
}
