//! A gate that counts defects (C's undeclared names): its allowance is the input's count, then
//! the current file's.

use super::toy::Toy;
use crate::{Algorithm, Document, Format, ParseError, Reduction};
use std::collections::HashMap;
use std::sync::Mutex;

/// The toy format whose defects are the lower-case words used without their upper-case
/// declaration (`x` without `X`). It records how often its gate looked at each text (to count
/// its defects or to judge it).
#[derive(Debug, Default)]
struct Declared {
    looked: Mutex<HashMap<Vec<u8>, usize>>,
}

impl Declared {
    fn defects(&self, bytes: &[u8]) -> usize {
        *self
            .looked
            .lock()
            .expect("not poisoned")
            .entry(bytes.to_vec())
            .or_default() += 1;
        let text = String::from_utf8_lossy(bytes);
        let words: Vec<&str> = text.split_whitespace().collect();
        (words.iter())
            .filter(|w| w.chars().all(|c| c.is_ascii_lowercase()))
            .filter(|w| !words.contains(&w.to_ascii_uppercase().as_str()))
            .count()
    }
}

impl Format for Declared {
    fn name(&self) -> &'static str {
        "declared"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &[]
    }

    fn description(&self) -> &'static str {
        "test-only toy format with a gate that counts"
    }

    fn parse(&self, input: &[u8]) -> Result<Document, ParseError> {
        Toy.parse(input)
    }

    fn has_gate(&self) -> bool {
        true
    }

    fn gate_allowance(&self, input: &[u8]) -> Option<Vec<usize>> {
        Some(vec![self.defects(input)])
    }

    fn gate_counts(&self, bytes: &[u8], allowance: &[usize]) -> Option<Vec<usize>> {
        let found = self.defects(bytes);
        (found <= allowance[0]).then(|| vec![found])
    }
}

/// HDD over `y x k X` with a test that needs the words `x` and `k`, at `-j jobs`: the result,
/// and the format after it.
fn reduce(jobs: usize) -> (String, Declared) {
    let test = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        let words: Vec<&str> = text.split_whitespace().collect();
        words.contains(&"x") && words.contains(&"k")
    };
    let format = Declared::default();
    let reduced = Reduction::new(&format, &test, b"y x k X")
        .algorithm(Algorithm::Hdd)
        .jobs(jobs)
        .run()
        .expect("runs");
    let best = String::from_utf8_lossy(&reduced.best).into_owned();
    let words: Vec<&str> = best.split_whitespace().collect();
    (words.join(" "), format)
}

#[test]
fn once_the_file_has_lost_a_defect_no_candidate_brings_one_back() {
    // The input has one defect, `y`. HDD deletes `y` first (`x k X` passes); then deleting `X`
    // would leave `x` undeclared: one defect, as many as the input had, but one more than the
    // current file, so the gate stops it and `X` stays. With the input's allowance, `x k`
    // would be tested, and pass.
    for jobs in [1, 2] {
        assert_eq!(reduce(jobs).0, "x k X", "-j {jobs}");
    }
}

#[test]
fn the_gate_looks_at_each_text_once() {
    // An accepted candidate was judged against the allowance three times: before its test,
    // when its verdict was read back, and when it became the current file (a parse each, on
    // C++). Its counts are kept instead.
    for jobs in [1, 2] {
        let (_, format) = reduce(jobs);
        let looked = format.looked.lock().expect("not poisoned");
        let twice: Vec<_> = (looked.iter())
            .filter(|(_, n)| **n > 1)
            .map(|(text, n)| (String::from_utf8_lossy(text).into_owned(), *n))
            .collect();
        assert!(
            twice.is_empty(),
            "-j {jobs}: looked at more than once: {twice:?}"
        );
        // The input, `x k X` and the candidates the gate stopped (`x k`) at least.
        assert!(looked.len() >= 3, "-j {jobs}: {looked:?}");
    }
}
