//! A gate that counts defects (C's undeclared names): its allowance is the input's count, then
//! the current file's.

use super::toy::Toy;
use crate::{Algorithm, Document, Format, ParseError, Reduction};

/// The toy format whose defects are the lower-case words used without their upper-case
/// declaration (`x` without `X`).
#[derive(Debug)]
struct Declared;

fn defects(bytes: &[u8]) -> usize {
    let text = String::from_utf8_lossy(bytes);
    let words: Vec<&str> = text.split_whitespace().collect();
    (words.iter())
        .filter(|w| w.chars().all(|c| c.is_ascii_lowercase()))
        .filter(|w| !words.contains(&w.to_ascii_uppercase().as_str()))
        .count()
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
        Some(vec![defects(input)])
    }

    fn gate_counts(&self, bytes: &[u8], allowance: &[usize]) -> Option<Vec<usize>> {
        let found = defects(bytes);
        (found <= allowance[0]).then(|| vec![found])
    }
}

#[test]
fn once_the_file_has_lost_a_defect_no_candidate_brings_one_back() {
    // The input has one defect, `y`. HDD deletes `y` first (`x k X` passes); then deleting `X`
    // would leave `x` undeclared: one defect, as many as the input had, but one more than the
    // current file, so the gate stops it and `X` stays. With the input's allowance, `x k`
    // would be tested, and pass.
    for jobs in [1, 2] {
        let test = |bytes: &[u8]| {
            let text = String::from_utf8_lossy(bytes);
            let words: Vec<&str> = text.split_whitespace().collect();
            words.contains(&"x") && words.contains(&"k")
        };
        let reduced = Reduction::new(&Declared, &test, b"y x k X")
            .algorithm(Algorithm::Hdd)
            .jobs(jobs)
            .run()
            .expect("runs");
        let best = String::from_utf8_lossy(&reduced.best).into_owned();
        let best: Vec<&str> = best.split_whitespace().collect();
        assert_eq!(best.join(" "), "x k X", "-j {jobs}");
    }
}

/// [`Declared`], recording how often its gate looked at each text (to count or to judge).
#[derive(Debug, Default)]
struct Looked(std::sync::Mutex<std::collections::HashMap<Vec<u8>, usize>>);

impl Looked {
    fn look(&self, bytes: &[u8]) {
        let mut seen = self.0.lock().expect("not poisoned");
        *seen.entry(bytes.to_vec()).or_default() += 1;
    }
}

impl Format for Looked {
    fn name(&self) -> &'static str {
        "declared"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &[]
    }

    fn description(&self) -> &'static str {
        "test-only toy format with a gate that counts, and counts its own looks"
    }

    fn parse(&self, input: &[u8]) -> Result<Document, ParseError> {
        Toy.parse(input)
    }

    fn has_gate(&self) -> bool {
        true
    }

    fn gate_allowance(&self, input: &[u8]) -> Option<Vec<usize>> {
        self.look(input);
        Declared.gate_allowance(input)
    }

    fn gate_counts(&self, bytes: &[u8], allowance: &[usize]) -> Option<Vec<usize>> {
        self.look(bytes);
        Declared.gate_counts(bytes, allowance)
    }
}

#[test]
fn the_gate_looks_at_each_text_once() {
    // An accepted candidate was judged against the allowance three times: before its test,
    // when its verdict was read back, and when it became the current file (a parse each, on
    // C++). Its counts are kept instead. The input and the result of the test above.
    for jobs in [1, 2] {
        let test = |bytes: &[u8]| {
            let text = String::from_utf8_lossy(bytes);
            let words: Vec<&str> = text.split_whitespace().collect();
            words.contains(&"x") && words.contains(&"k")
        };
        let format = Looked::default();
        let reduced = Reduction::new(&format, &test, b"y x k X")
            .algorithm(Algorithm::Hdd)
            .jobs(jobs)
            .run()
            .expect("runs");
        let best = String::from_utf8_lossy(&reduced.best).into_owned();
        let best: Vec<&str> = best.split_whitespace().collect();
        assert_eq!(best.join(" "), "x k X", "-j {jobs}");
        let seen = format.0.lock().expect("not poisoned");
        let twice: Vec<_> = (seen.iter())
            .filter(|(_, n)| **n > 1)
            .map(|(text, n)| (String::from_utf8_lossy(text).into_owned(), *n))
            .collect();
        assert!(
            twice.is_empty(),
            "-j {jobs}: looked at more than once: {twice:?}"
        );
        // The input, `x k X` and the candidates the gate stopped (`x k`) at least.
        assert!(seen.len() >= 3, "-j {jobs}: {seen:?}");
    }
}
