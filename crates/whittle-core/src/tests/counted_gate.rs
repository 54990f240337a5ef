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

    fn gate_within(&self, bytes: &[u8], allowance: &[usize]) -> bool {
        defects(bytes) <= allowance[0]
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
