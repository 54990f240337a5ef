//! The slice move: ddmin over the parts to keep, each with what it needs.

use super::toy::Toy;
use crate::{Algorithm, Document, Format, ParseError, Reduction, Slices};
use std::sync::Mutex;

/// The toy format whose top-level nodes are the slice's parts: `x(y z)` declares `x` and needs
/// the parts that declare `y` and `z`; `main` is fixed.
#[derive(Debug)]
struct Sliced;

impl Format for Sliced {
    fn name(&self) -> &'static str {
        "sliced"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &[]
    }

    fn description(&self) -> &'static str {
        "test-only toy format with parts that need each other"
    }

    fn parse(&self, input: &[u8]) -> Result<Document, ParseError> {
        Toy.parse(input)
    }

    fn slices(&self, doc: &Document) -> Option<Slices> {
        let tree = &doc.tree;
        let parts: Vec<_> = tree.children(tree.root()).to_vec();
        let declaring = |label: &str| parts.iter().position(|&p| tree.label(p) == label);
        Some(Slices {
            parts: parts.iter().map(|&p| tree.span(p)).collect(),
            needs: (parts.iter())
                .map(|&p| {
                    (tree.children(p).iter())
                        .filter_map(|&c| declaring(tree.label(c)))
                        .collect()
                })
                .collect(),
            fixed: parts.iter().map(|&p| tree.label(p) == "main").collect(),
        })
    }
}

#[test]
fn the_slice_keeps_a_part_the_test_needs_without_naming_it_and_deletes_the_rest() {
    // `main` needs `c`, which needs `b`, which needs `a`; the test also needs `e`, which nothing
    // names, and not `d`. Keeping the first half of the roots (`a b`, with `main`'s closure)
    // loses `e`; keeping the second half deletes nothing (everything in the first is needed),
    // so costs no test, nor do the splits into four that delete only `d e` again or nothing.
    // At one root a part, keeping `d` alone loses `e`, and keeping `e` alone passes.
    let seen = Mutex::new(Vec::<String>::new());
    let test = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        let words: Vec<&str> = text.split_whitespace().collect();
        seen.lock().unwrap().push(words.join(" "));
        ["a", "b(a)", "c(b)", "e", "main(c)"]
            .iter()
            .all(|w| words.contains(w))
    };
    let reduced = Reduction::new(&Sliced, &test, b"a b(a) c(b) d e main(c)")
        .algorithm(Algorithm::Auto)
        .jobs(1)
        .run()
        .expect("runs");
    let best = String::from_utf8_lossy(&reduced.best).into_owned();
    let best: Vec<&str> = best.split_whitespace().collect();
    assert_eq!(best.join(" "), "a b(a) c(b) e main(c)");
    let seen = seen.into_inner().unwrap();
    assert_eq!(
        seen[..5],
        [
            "a b(a) c(b) d e main(c)",
            "",
            "a b(a) c(b) main(c)",
            "a b(a) c(b) d main(c)",
            "a b(a) c(b) e main(c)"
        ],
        "{seen:?}"
    );
    assert_eq!(reduced.report.stats.tests_by_move.get("slice"), Some(&3));
}
