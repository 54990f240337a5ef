//! Merging concurrent wins (`Options::merge`, `--merge-wins`): wide ddmin runs test a round of
//! candidates at once and try the winners together.

use super::algorithms::{Rng, random_oracle};
use super::toy::Toy;
use crate::{Algorithm, Edit, Format, Options, Reducer, Stats};
use proptest::prelude::*;
use std::sync::atomic::AtomicBool;

/// `f(x0 x1 … x{n-1})`: one node whose `n` leaves are ddmin's items.
fn flat(n: usize) -> String {
    let words: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
    format!("f({})", words.join(" "))
}

/// `s` with each run of blanks made one space.
fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Interesting while every word of `needles` is in the file.
fn needles(needles: &[&str]) -> impl Fn(&[u8]) -> bool + Sync + use<> {
    let needles: Vec<String> = needles.iter().map(|s| s.to_string()).collect();
    move |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        let words: Vec<&str> = text.split(|c: char| !c.is_ascii_alphanumeric()).collect();
        needles.iter().all(|n| words.contains(&n.as_str()))
    }
}

/// ddmin over `input`'s leaves, merging wins or not, with `jobs` workers.
fn ddmin(
    input: &str,
    oracle: &(dyn Fn(&[u8]) -> bool + Sync),
    jobs: usize,
    merge: bool,
) -> (String, Stats) {
    let stop = AtomicBool::new(false);
    let options = Options {
        jobs,
        merge,
        ..Options::default()
    };
    let mut r =
        Reducer::new(&Toy, &oracle, input.as_bytes(), options, &stop).expect("toy input parses");
    r.check_input().expect("the original is interesting");
    r.parallel(|r| crate::run(r, Algorithm::Ddmin))
        .expect("reduction runs");
    let stats = r.stats();
    (String::from_utf8(r.into_best()).expect("ASCII"), stats)
}

#[test]
fn merging_wins_finds_the_needles_that_ddmin_finds() {
    let input = flat(64);
    let oracle = needles(&["x5", "x17", "x40"]);
    let (plain, stats) = ddmin(&input, &oracle, 1, false);
    // The toy keeps the blanks between leaves it deletes.
    assert_eq!(squeeze(&plain), "f( x5 x17 x40 )");
    assert_eq!(stats.merged, 0);
    // A round tests at least 4 candidates, so -j 1 and -j 4 run the same rounds; -j 8 runs
    // rounds of 8. With three needles most rounds have several winners to merge.
    for jobs in [1, 4, 8] {
        let (merged, stats) = ddmin(&input, &oracle, jobs, true);
        assert_eq!(merged, plain, "-j {jobs}");
        assert!(stats.merged > 0, "-j {jobs}: {stats:?}");
    }
}

#[test]
fn a_run_of_few_items_is_ddmins_even_when_merging_wins() {
    // 16 items are not more than 4 times a round of 4: ddmin as in the paper, the same tests.
    let input = flat(16);
    let oracle = needles(&["x3", "x9"]);
    let (plain, plain_stats) = ddmin(&input, &oracle, 1, false);
    let (merged, stats) = ddmin(&input, &oracle, 1, true);
    assert_eq!(squeeze(&merged), "f( x3 x9 )");
    assert_eq!(merged, plain);
    assert_eq!(stats.merged, 0);
    assert_eq!(stats.oracle_calls, plain_stats.oracle_calls);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn merging_wins_is_deterministic_for_a_round_size_and_ends_1_minimal(
        seed in 1u64..,
        n in 17usize..90,
    ) {
        let input = flat(n);
        // Some of the words needed, and for some seeds a hash that refuses one file in four:
        // not monotone, so a union of wins can fail.
        let oracle = random_oracle(&mut Rng(seed), &input);
        let (one, _) = ddmin(&input, &oracle, 1, true);
        // -j 1 to 4 all test rounds of 4.
        let (four, _) = ddmin(&input, &oracle, 4, true);
        prop_assert_eq!(&one, &four);
        for result in [one, ddmin(&input, &oracle, 8, true).0] {
            prop_assert!(oracle(result.as_bytes()));
            // 1-minimal: no leaf can go alone.
            let doc = Toy.parse(result.as_bytes()).expect("the result parses");
            for leaf in doc.tree.leaves() {
                let mut out = Vec::new();
                Toy.render(&doc, &[(leaf, Edit::Delete)].into_iter().collect(), &mut out);
                prop_assert!(!oracle(&out), "{} can lose leaf {}", result, leaf.0);
            }
        }
    }
}
