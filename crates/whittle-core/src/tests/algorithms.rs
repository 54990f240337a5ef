use super::toy::{Toy, tree};
use crate::{
    Algorithm, Deletion, Edit, Edits, Format, NodeId, Options, Reducer, Rules, Template, Tree, gtr,
    hdd,
};
use proptest::prelude::*;
use std::sync::atomic::AtomicBool;

/// Runs `algorithm` over `input` with an in-process oracle and returns the result.
fn reduce(
    input: &str,
    oracle: &(dyn Fn(&[u8]) -> bool + Sync),
    algorithm: Algorithm,
    jobs: usize,
) -> String {
    reduce_with(input, oracle, jobs, None, |r| {
        r.parallel(|r| crate::run(r, algorithm))
    })
    .0
}

pub(super) fn reduce_with(
    input: &str,
    oracle: &(dyn Fn(&[u8]) -> bool + Sync),
    jobs: usize,
    rules: Option<Rules>,
    algo: impl FnOnce(&mut Reducer<'_>) -> Result<(), crate::ReduceError>,
) -> (String, crate::Stats) {
    let stop = AtomicBool::new(false);
    let options = Options {
        jobs,
        gate: true,
        rules,
        merge: false,
    };
    let mut r =
        Reducer::new(&Toy, &oracle, input.as_bytes(), options, &stop).expect("toy input parses");
    r.check_input()
        .expect("the original is interesting and the empty file is not");
    algo(&mut r).expect("reduction runs");
    let stats = r.stats();
    (
        String::from_utf8(r.into_best()).expect("toy is ASCII"),
        stats,
    )
}

// ---------------------------------------------------------------------------------------------
// The running example of the GTR paper (Fig. 1): `if (!c) { var a = 5; } else { isNaN(2); }`.

const RUNNING_EXAMPLE: &str = "IfStmt(test:UnaryExpr(op:not arg:Identifier(name:c)) \
     cons:BlockStmt(body:VarDecls(decl:VarDecl(id:Identifier(name:a) init:Literal(value:5)))) \
     alt:BlockStmt(body:ExprStmt(expr:CallExpr(callee:Identifier(name:isNaN) arg:Literal(value:2)))))";

const STATEMENTS: [&str; 4] = ["IfStmt", "BlockStmt", "VarDecls", "ExprStmt"];
const EXPRESSIONS: [&str; 4] = ["UnaryExpr", "Identifier", "Literal", "CallExpr"];

/// A small JavaScript-like validity check: statements where statements go, the mandatory parts of
/// each construct present.
fn valid_js(t: &Tree) -> bool {
    t.nodes().all(|n| {
        let kids: Vec<(&str, &str)> = t
            .children(n)
            .iter()
            .map(|&k| (t.edge(k), t.label(k)))
            .collect();
        let has = |edge: &str, allowed: &[&str]| {
            kids.iter().any(|&(e, l)| e == edge && allowed.contains(&l))
        };
        let all_stmts = kids.iter().all(|(_, l)| STATEMENTS.contains(l));
        match t.label(n) {
            "file" | "BlockStmt" => all_stmts,
            "IfStmt" => {
                has("test", &EXPRESSIONS)
                    && has("cons", &STATEMENTS)
                    && kids
                        .iter()
                        .all(|&(e, _)| ["test", "cons", "alt"].contains(&e))
                    && kids
                        .iter()
                        .filter(|&&(e, _)| e != "test")
                        .all(|(_, l)| STATEMENTS.contains(l))
            }
            "UnaryExpr" => has("arg", &EXPRESSIONS),
            "VarDecls" => has("decl", &["VarDecl"]) && kids.iter().all(|&(_, l)| l == "VarDecl"),
            "VarDecl" => has("id", &["Identifier"]),
            "Identifier" => kids.iter().any(|&(e, _)| e == "name"),
            "Literal" => kids.iter().any(|&(e, _)| e == "value"),
            "ExprStmt" => has("expr", &EXPRESSIONS),
            "CallExpr" => has("callee", &EXPRESSIONS),
            _ => t.children(n).is_empty(),
        }
    })
}

/// The bug needs the statement `var a = 5` and a syntactically valid program.
fn running_example_oracle(bytes: &[u8]) -> bool {
    let Ok(doc) = Toy.parse(bytes) else {
        return false;
    };
    let text = String::from_utf8_lossy(bytes);
    valid_js(&doc.tree)
        && text.contains("VarDecls(decl:VarDecl(id:Identifier(name:a) init:Literal(value:5)))")
}

#[test]
fn running_example_has_the_papers_shape() {
    let t = tree(RUNNING_EXAMPLE);
    let if_stmt = t.children(NodeId::ROOT)[0];
    assert_eq!(t.size(if_stmt), 19, "Fig. 1: the tree has 19 nodes");
    assert_eq!(
        t.height() - 1,
        5,
        "Fig. 1: the tree has depth 5 below the file root"
    );
    let test = t.children(if_stmt)[0];
    assert_eq!(t.size(test), 4);
    assert_eq!(
        (
            t.name(t.context(test).unwrap().0),
            t.name(t.context(test).unwrap().1)
        ),
        ("IfStmt", "test")
    );
    assert!(running_example_oracle(RUNNING_EXAMPLE.as_bytes()));
    // The test's subtree, in pre-order: the node, its child and that child's two children.
    let labels: Vec<&str> = t.subtree(test).map(|n| t.label(n)).collect();
    let below: Vec<&str> = t
        .nodes()
        .filter(|&n| t.contains(test, n))
        .map(|n| t.label(n))
        .collect();
    assert_eq!(labels, below);
    assert_eq!(labels.len(), 4);
    assert_eq!(labels[0], t.label(test));
}

#[test]
fn gtr_reaches_the_single_var_statement_and_hdd_does_not() {
    for jobs in [1, 3] {
        let by_gtr = reduce(
            RUNNING_EXAMPLE,
            &running_example_oracle,
            Algorithm::Gtr,
            jobs,
        );
        assert_eq!(
            by_gtr,
            "body:VarDecls(decl:VarDecl(id:Identifier(name:a) init:Literal(value:5)))"
        );
        let by_hdd = reduce(
            RUNNING_EXAMPLE,
            &running_example_oracle,
            Algorithm::HddStar,
            jobs,
        );
        assert_eq!(
            by_hdd,
            "IfStmt(test:UnaryExpr( arg:Identifier(name:c)) \
             cons:BlockStmt(body:VarDecls(decl:VarDecl(id:Identifier(name:a) init:Literal(value:5)))) )"
        );
    }
}

#[test]
fn rules_filter_candidates_without_calling_the_oracle() {
    // Hand-written rules: an IfStmt always has `test` and `cons`; a VarDecl only ever appears
    // under VarDecls.decl, a UnaryExpr only under IfStmt.test.
    let rules = Rules::from_json(
        r#"{"whittle_rules": 1, "format": "toy", "labels": {
            "IfStmt": {"mandatory_edges": ["test", "cons"], "contexts": [["file", "c"]]},
            "VarDecl": {"contexts": [["VarDecls", "decl"]]},
            "UnaryExpr": {"contexts": [["IfStmt", "test"]]}
        }}"#,
    )
    .expect("valid rules");
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let counting = |b: &[u8]| {
        calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        running_example_oracle(b)
    };
    let (filtered_result, stats) = reduce_with(RUNNING_EXAMPLE, &counting, 1, Some(rules), |r| {
        crate::run(r, Algorithm::Gtr)
    });
    let with_rules = calls.swap(0, std::sync::atomic::Ordering::Relaxed);
    let (plain_result, plain_stats) = reduce_with(RUNNING_EXAMPLE, &counting, 1, None, |r| {
        crate::run(r, Algorithm::Gtr)
    });
    let without_rules = calls.load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(
        filtered_result, plain_result,
        "the rules only forbid reductions the oracle rejects here"
    );
    assert!(
        stats.filtered >= 3,
        "test and cons deletion and UnaryExpr/VarDecl substitutions are filtered: {stats:?}"
    );
    assert_eq!(plain_stats.filtered, 0);
    assert!(
        with_rules < without_rules,
        "filtering saves oracle calls ({with_rules} vs {without_rules})"
    );
    assert_eq!(stats.oracle_calls as usize, with_rules);
}

/// Wrong rules for the running example: they claim every IfStmt has an `alt` and that a VarDecls
/// never stands in a file.
const WRONG_RULES: &str = r#"{"whittle_rules": 1, "format": "toy", "labels": {
    "IfStmt": {"mandatory_edges": ["test", "cons", "alt"], "contexts": [["file", "c"]]},
    "VarDecls": {"contexts": [["BlockStmt", "body"]]},
    "BlockStmt": {"contexts": [["IfStmt", "cons"], ["IfStmt", "alt"]]}
}}"#;

#[test]
fn reductions_the_rules_forbid_are_still_found_one_at_a_time_after_the_filtered_pass() {
    // Wrong rules: they claim every IfStmt has an `alt` and that a VarDecls never stands in a
    // file, so filtered GTR keeps the `else` block and the `if` around the declaration, which
    // the oracle does not need. The pass over the forbidden transformations must take both back.
    let rules = Rules::from_json(WRONG_RULES).expect("valid rules");
    let seen = std::sync::Mutex::new(Vec::<Vec<u8>>::new());
    let recording = |b: &[u8]| {
        seen.lock().unwrap().push(b.to_vec());
        running_example_oracle(b)
    };
    let templates = crate::default_templates();
    let (filtered_only, _) =
        reduce_with(RUNNING_EXAMPLE, &recording, 1, Some(rules.clone()), |r| {
            while gtr(r, &templates)? {}
            Ok(())
        });
    assert!(
        filtered_only.contains(" alt:BlockStmt") && filtered_only.starts_with("IfStmt("),
        "the wrong rules alone keep the else block and the if: {filtered_only}"
    );
    let filtered_calls = seen.lock().unwrap().len();
    seen.lock().unwrap().clear();
    let (with_rules, _) = reduce_with(RUNNING_EXAMPLE, &recording, 1, Some(rules), |r| {
        crate::run(r, Algorithm::GtrStar)
    });
    let with_calls = seen.lock().unwrap().len();
    seen.lock().unwrap().clear();
    let (without_rules, _) = reduce_with(RUNNING_EXAMPLE, &recording, 1, None, |r| {
        crate::run(r, Algorithm::GtrStar)
    });
    // The paper's GTR result (as in `gtr_reaches_the_single_var_statement_and_hdd_does_not`; the toy keeps
    // the edge name of the substituted node).
    assert_eq!(
        with_rules,
        "body:VarDecls(decl:VarDecl(id:Identifier(name:a) init:Literal(value:5)))"
    );
    assert_eq!(with_rules, without_rules);
    assert!(
        with_calls > filtered_calls,
        "the forbidden transformations were tested ({with_calls} vs {filtered_calls})"
    );
}

#[test]
fn rules_leave_hdd_alone() {
    // The same wrong rules: they forbid substituting the VarDecls for the `if`, which the oracle
    // would take. HDD* only deletes, so with rules or without it must test the same candidates
    // and end at the same `if`; the sweep over what the rules forbid belongs to GTR.
    let rules = Rules::from_json(WRONG_RULES).expect("valid rules");
    let mut runs = Vec::new();
    for rules in [Some(rules), None] {
        let seen = std::sync::Mutex::new(Vec::<Vec<u8>>::new());
        let recording = |b: &[u8]| {
            seen.lock().unwrap().push(b.to_vec());
            running_example_oracle(b)
        };
        let (out, _) = reduce_with(RUNNING_EXAMPLE, &recording, 1, rules, |r| {
            crate::run(r, Algorithm::HddStar)
        });
        runs.push((out, seen.into_inner().unwrap()));
    }
    assert_eq!(runs[0], runs[1]);
    assert!(runs[0].0.starts_with("IfStmt("), "{}", runs[0].0);
}

#[test]
fn compiled_rules_answer_alg3_and_context_checks() {
    let t = tree("IfStmt(test:x cons:y cons:z) Block(body:IfStmt(test:x cons:y))");
    let rules = Rules::from_json(
        r#"{"whittle_rules": 1, "format": "toy", "labels": {
            "IfStmt": {"mandatory_edges": ["test", "cons"], "contexts": [["", ""], ["Block", "body"]]},
            "y": {"contexts": [["IfStmt", "cons"]]}
        }}"#,
    )
    .unwrap()
    .compile(&t);
    let first_if = t.children(NodeId::ROOT)[0];
    let [test, cons1, cons2] = t.children(first_if) else {
        panic!("three children")
    };
    assert!(
        !rules.may_delete(&t, *test),
        "the only `test` child is mandatory"
    );
    assert!(
        rules.may_delete(&t, *cons1),
        "one of two `cons` children may go"
    );
    assert!(rules.may_delete(&t, *cons2));
    assert!(
        rules.may_delete(&t, first_if),
        "labels without rules are never filtered"
    );
    let block = t.children(NodeId::ROOT)[1];
    let inner_if = t.children(block)[0];
    assert!(
        !rules.may_substitute(&t, first_if, *cons1),
        "IfStmt under file.c: y was never seen there"
    );
    assert!(
        rules.may_substitute(&t, inner_if, t.children(inner_if)[0]),
        "x has no rules, so it is allowed"
    );
    assert!(
        !rules.may_substitute(&t, block, inner_if),
        "IfStmt was seen at the root and under Block.body only"
    );
    let mut out = Vec::new();
    assert_eq!(
        Deletion.candidates(
            &crate::Document::new(t.clone()),
            *test,
            Some(&rules),
            &mut out
        ),
        1
    );
    assert!(out.is_empty());
}

#[test]
fn a_bad_rules_file_is_rejected() {
    assert!(Rules::from_json("{}").is_err());
    let e = Rules::from_json(r#"{"whittle_rules": 9, "format": "x", "labels": {}}"#).unwrap_err();
    assert!(e.to_string().contains("version 9"), "{e}");
}

#[test]
fn render_applies_deletions_and_replacements() {
    let t = tree("a(b(c d) e)");
    let doc = Toy.parse(b"a(b(c d) e)").unwrap();
    let b = NodeId(2);
    assert_eq!(t.label(b), "b");
    let mut out = Vec::new();
    let render = |edits: Edits, out: &mut Vec<u8>| {
        out.clear();
        Toy.render(&doc, &edits, out);
        String::from_utf8(out.clone()).unwrap()
    };
    assert_eq!(render(Edits::new(), &mut out), "a(b(c d) e)");
    assert_eq!(
        render([(b, Edit::Delete)].into_iter().collect(), &mut out),
        "a( e)"
    );
    assert_eq!(
        render(
            [(b, Edit::Replace(NodeId(4)))].into_iter().collect(),
            &mut out
        ),
        "a(d e)"
    );
    // An edit inside the kept descendant still applies; one outside it does not matter.
    let e: Edits = [
        (NodeId(1), Edit::Replace(b)),
        (NodeId(3), Edit::Delete),
        (NodeId(5), Edit::Delete),
    ]
    .into_iter()
    .collect();
    assert_eq!(render(e, &mut out), "b( d)");
}

// ---------------------------------------------------------------------------------------------
// Properties on random trees and random oracles.

/// A small deterministic generator (xorshift), so a proptest seed fixes a whole case.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub(super) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

pub(super) fn random_tree(rng: &mut Rng) -> String {
    fn node(rng: &mut Rng, depth: u32, budget: &mut i32, leaf_id: &mut u32, out: &mut String) {
        if rng.below(3) == 0 {
            out.push_str(["e:", "f:", "g:"][rng.below(3) as usize]);
        }
        *budget -= 1;
        if depth >= 4 || *budget <= 0 || rng.below(3) == 0 {
            out.push_str(&format!("x{leaf_id}"));
            *leaf_id += 1;
            return;
        }
        out.push_str(["a", "b", "c", "d"][rng.below(4) as usize]);
        out.push('(');
        for i in 0..1 + rng.below(4) {
            if i > 0 {
                out.push(' ');
            }
            node(rng, depth + 1, budget, leaf_id, out);
        }
        out.push(')');
    }
    let mut out = String::new();
    let mut budget = 8 + rng.below(22) as i32;
    let mut leaf_id = 0;
    for i in 0..1 + rng.below(3) {
        if i > 0 {
            out.push(' ');
        }
        node(rng, 1, &mut budget, &mut leaf_id, &mut out);
    }
    out
}

/// A random oracle: some leaves must stay, and (for some seeds) a hash of the candidate rejects
/// about a quarter of everything else, so the oracle is far from monotone.
pub(super) fn random_oracle(rng: &mut Rng, input: &str) -> impl Fn(&[u8]) -> bool + Sync + use<> {
    let leaves: Vec<String> = input
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.starts_with('x'))
        .map(str::to_string)
        .collect();
    let mut needed: Vec<String> = leaves
        .iter()
        .filter(|_| rng.below(3) == 0)
        .cloned()
        .collect();
    if needed.is_empty() {
        needed.push(leaves[rng.below(leaves.len() as u64) as usize].clone());
    }
    let noisy = rng.below(2) == 0;
    let salt = rng.next();
    let original = input.as_bytes().to_vec();
    move |bytes: &[u8]| {
        if bytes == original {
            return true;
        }
        let text = String::from_utf8_lossy(bytes);
        let words: Vec<&str> = text.split(|c: char| !c.is_ascii_alphanumeric()).collect();
        let has_all = needed.iter().all(|w| words.contains(&w.as_str()));
        has_all && (!noisy || !xxhash_rust::xxh3::xxh3_64_with_seed(bytes, salt).is_multiple_of(4))
    }
}

fn single_edit_candidates(t: &Tree) -> Vec<Edits> {
    let mut all = Vec::new();
    for n in t.nodes() {
        all.push([(n, Edit::Delete)].into_iter().collect());
        for &c in t.children(n) {
            all.push([(n, Edit::Replace(c))].into_iter().collect());
        }
    }
    all
}

fn render(text: &str, edits: &Edits) -> Vec<u8> {
    let doc = Toy.parse(text.as_bytes()).unwrap();
    let mut out = Vec::new();
    Toy.render(&doc, edits, &mut out);
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_algorithm_is_sound_deterministic_and_as_minimal_as_it_promises(seed in 1u64..) {
        let mut rng = Rng(seed);
        let input = random_tree(&mut rng);
        let oracle = random_oracle(&mut rng, &input);
        for algorithm in Algorithm::ALL {
            let one = reduce(&input, &oracle, algorithm, 1);
            let four = reduce(&input, &oracle, algorithm, 4);
            prop_assert_eq!(&one, &four, "{} differs between -j 1 and -j 4 on {}", algorithm, input);
            // Many workers: the plan runs candidates several steps ahead on both branches.
            let many = reduce(&input, &oracle, algorithm, 32);
            prop_assert_eq!(&one, &many, "{} differs between -j 1 and -j 32 on {}", algorithm, input);
            prop_assert!(oracle(one.as_bytes()), "{} result not interesting", algorithm);
            prop_assert!(one.len() <= input.len());
            let t = tree(&one);
            let interesting_and_smaller = |e: &Edits| {
                let b = render(&one, e);
                b.len() < one.len() && oracle(&b)
            };
            match algorithm {
                Algorithm::Ddmin => {
                    // 1-minimal over the original leaves that remain (bare words, not emptied `a()`).
                    for n in t.leaves().into_iter().filter(|&n| !t.text(n).ends_with(b")")) {
                        prop_assert!(!interesting_and_smaller(&[(n, Edit::Delete)].into_iter().collect()));
                    }
                }
                Algorithm::HddStar | Algorithm::HddPlus => {
                    for n in t.nodes() {
                        prop_assert!(!interesting_and_smaller(&[(n, Edit::Delete)].into_iter().collect()),
                            "{} is not 1-tree-minimal: {} can lose node {}", algorithm, one, n.0);
                    }
                }
                // `auto` is GTR* and the moves below the tree, which only make the file
                // smaller in shortlex order: it ends 1-transformation-minimal too.
                Algorithm::GtrStar | Algorithm::Auto => {
                    for e in single_edit_candidates(&t) {
                        prop_assert!(!interesting_and_smaller(&e),
                            "{} is not 1-transformation-minimal: {} admits {:?}", algorithm, one, e);
                    }
                }
                Algorithm::Hdd | Algorithm::Gtr => {}
            }
        }
    }

    #[test]
    fn gtr_with_only_unfiltered_deletion_is_hdd(seed in 1u64..) {
        let mut rng = Rng(seed);
        let input = random_tree(&mut rng);
        let oracle = random_oracle(&mut rng, &input);
        let deletion_only: Vec<Box<dyn Template>> = vec![Box::new(Deletion)];
        let (by_gtr, gtr_stats) = reduce_with(&input, &oracle, 1, None, |r| gtr(r, &deletion_only).map(drop));
        let (by_hdd, hdd_stats) = reduce_with(&input, &oracle, 1, None, |r| hdd(r).map(drop));
        prop_assert_eq!(by_gtr, by_hdd);
        prop_assert_eq!(gtr_stats.oracle_calls, hdd_stats.oracle_calls);
    }
}

#[test]
fn an_uninteresting_input_and_a_too_permissive_test_are_reported() {
    let stop = AtomicBool::new(false);
    let never = |_: &[u8]| false;
    let mut r = Reducer::new(&Toy, &never, b"a(b)", Options::default(), &stop).unwrap();
    assert!(matches!(
        r.check_input(),
        Err(crate::ReduceError::NotInteresting(crate::Verdict::Boring))
    ));
    let always = |_: &[u8]| true;
    let mut r = Reducer::new(&Toy, &always, b"a(b)", Options::default(), &stop).unwrap();
    assert!(matches!(
        r.check_input(),
        Err(crate::ReduceError::TooPermissive)
    ));
}

#[test]
fn a_stop_request_ends_the_reduction_with_the_best_so_far() {
    let stop = AtomicBool::new(false);
    let smaller_hits = std::sync::atomic::AtomicUsize::new(0);
    let oracle = |b: &[u8]| {
        let keep = String::from_utf8_lossy(b).contains("x9");
        // Stop (as Ctrl-C would) while the second interesting reduction is being tested.
        if keep
            && b.len() < 41
            && smaller_hits.fetch_add(1, std::sync::atomic::Ordering::Relaxed) == 1
        {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        keep
    };
    let input = "a(x1 x2 x3 x4 x5 x6 x7 x8 x9 x10 x11 x12)";
    let mut r = Reducer::new(&Toy, &oracle, input.as_bytes(), Options::default(), &stop).unwrap();
    let result = crate::run(&mut r, Algorithm::Hdd);
    assert!(matches!(result, Err(crate::ReduceError::Interrupted)));
    let best = String::from_utf8(r.into_best()).unwrap();
    assert!(best.contains("x9") && best.len() < input.len(), "{best}");
    assert!(
        best.contains("x7"),
        "the reduction stopped before it was done: {best}"
    );
}

#[test]
fn candidates_that_are_not_smaller_never_reach_the_oracle() {
    // Replacing `file` by its only child renders the same bytes: skipped, not tested.
    let stop = AtomicBool::new(false);
    let seen = std::sync::Mutex::new(Vec::new());
    let oracle = |b: &[u8]| {
        seen.lock().unwrap().push(b.to_vec());
        b == b"a(x)" || b == b"x"
    };
    let mut r = Reducer::new(&Toy, &oracle, b"a(x)", Options::default(), &stop).unwrap();
    r.check_input().unwrap();
    crate::run(&mut r, Algorithm::GtrStar).unwrap();
    assert_eq!(r.best(), b"x");
    drop(r);
    let seen = seen.into_inner().unwrap();
    assert!(seen.iter().all(|b| b.len() < 4 || b == b"a(x)"));
    assert_eq!(
        seen.iter().filter(|b| b.as_slice() == b"a(x)").count(),
        1,
        "the original is tested once"
    );
}

#[test]
fn a_list_may_replace_a_node_when_all_its_children_fit_the_context() {
    // A block was only ever seen under an `if`, but its statements are seen at the top level, so
    // splicing the block in the place of a top-level `if` is allowed; not so if one of its
    // children was never seen there.
    let t = tree(
        "If(cond:x cons:Block(body:Call body:Assign)) If(cond:y cons:Block(body:Call body:Yield))",
    );
    let rules = Rules::from_json(
        r#"{"whittle_rules": 1, "format": "toy", "labels": {
            "Block": {"contexts": [["If", "cons"]]},
            "Call": {"contexts": [["file", "c"], ["Block", "body"]]},
            "Assign": {"contexts": [["file", "c"], ["Block", "body"]]},
            "Yield": {"contexts": [["Block", "body"]]}
        }}"#,
    )
    .unwrap()
    .compile(&t);
    let ifs = t.children(NodeId::ROOT);
    let block_of = |n: NodeId| t.children(n)[1];
    // A format that does not splice lists judges the block by its own label: Block never stood
    // at the top level.
    assert!(!rules.may_substitute(&t, ifs[0], block_of(ifs[0])));
    let rules = rules.with_splices(true);
    assert!(rules.may_substitute(&t, ifs[0], block_of(ifs[0])));
    assert!(
        !rules.may_substitute(&t, ifs[1], block_of(ifs[1])),
        "Yield never stood at the top level"
    );
}

/// An oracle for the running example: the original is interesting, the empty file is not, and
/// every other candidate either never ends (killed at the timeout) or, with `hang = false`, is
/// plainly not interesting. Every call takes at least a millisecond.
struct Hangs {
    hang: bool,
}

impl crate::Oracle for Hangs {
    fn test(
        &self,
        candidate: &[u8],
        _cancel: &dyn Fn() -> bool,
    ) -> Result<crate::Verdict, crate::OracleError> {
        std::thread::sleep(std::time::Duration::from_millis(1));
        Ok(if candidate == RUNNING_EXAMPLE.as_bytes() {
            crate::Verdict::Interesting
        } else if candidate.is_empty() || !self.hang {
            crate::Verdict::Boring
        } else {
            crate::Verdict::Timeout
        })
    }
}

#[test]
fn time_in_timed_out_tests_is_counted_apart_and_they_count_as_not_interesting() {
    for jobs in [1, 2] {
        let mut seen = Vec::new();
        for hang in [true, false] {
            let stop = AtomicBool::new(false);
            let oracle = Hangs { hang };
            let options = Options {
                jobs,
                gate: true,
                rules: None,
                merge: false,
            };
            let mut r = Reducer::new(&Toy, &oracle, RUNNING_EXAMPLE.as_bytes(), options, &stop)
                .expect("toy input parses");
            r.check_input().expect("the original is interesting");
            crate::run(&mut r, Algorithm::GtrStar).expect("reduction runs");
            let s = r.stats();
            // The original and the empty file are the two calls that do not time out.
            if hang {
                assert_eq!(s.timeouts, s.oracle_calls - 2, "{s:?}");
                assert!(s.timeouts > 0, "{s:?}");
                assert!(s.timed_out_seconds > 0.0, "{s:?}");
                assert!(s.timed_out_seconds <= s.oracle_seconds, "{s:?}");
            } else {
                assert_eq!(s.timeouts, 0, "{s:?}");
                assert_eq!(s.timed_out_seconds, 0.0, "{s:?}");
            }
            seen.push((s.oracle_calls, r.into_best()));
        }
        // A timeout is a "not interesting" verdict: the search is the same as with a test that
        // says so at once, and nothing is reduced. With several workers, a timed-out candidate
        // is tested once more before its timeout counts (it may have been the load).
        let retests = if jobs == 1 { 1 } else { 2 };
        assert_eq!(seen[0].0 - 2, retests * (seen[1].0 - 2), "-j {jobs}");
        assert_eq!(seen[0].1, seen[1].1, "-j {jobs}");
        assert_eq!(seen[0].1, RUNNING_EXAMPLE.as_bytes());
    }
}

#[test]
fn a_split_lists_the_finer_splits_that_follow_it_if_it_fails() {
    use crate::split::Split;
    // Five items at n = 2: the halves' complements, then 4 parts, then 5 (one item each).
    let s = Split::first(5, 2);
    assert_eq!(s.chain_len(), 2 + 4 + 5);
    // n = 2 keeps the first half (removes part 1), then the second half.
    assert_eq!(s.chain_kept(0), Some(vec![0, 1]));
    assert_eq!(s.chain_kept(1), Some(vec![2, 3, 4]));
    // n = 4: parts [0], [1], [2], [3, 4] (part i is items i*5/4 up to (i+1)*5/4).
    assert_eq!(s.chain_kept(2), Some(vec![1, 2, 3, 4]));
    assert_eq!(s.chain_kept(3), Some(vec![0, 2, 3, 4]));
    assert_eq!(s.chain_kept(5), Some(vec![0, 1, 2]));
    // n = 5: the last candidate removes item 4.
    assert_eq!(s.chain_kept(10), Some(vec![0, 1, 2, 3]));
    assert_eq!(s.chain_kept(11), None);
    // At the finest split there is nothing after it.
    assert_eq!(Split::first(2, 2).chain_len(), 2);
}

/// `auto`'s order (beyond the paper): when a substitution moves a node up into a level, the
/// level's next pass tries only what is new there. Worked by hand on the top level of
/// `A(x) B(y) W(K(k))`, which must keep `A(x)`, `B(y)` and `K(k)`: the first pass's deletions
/// of `A`, `B` and `W` fail, and substituting `W` by its child `K(k)` wins, so the level is
/// passed again. The paper's second pass tries deleting `A(x)` (and `B(y)`) once more, now beside
/// `K(k)`; `auto`'s tries only `K(k)`, the new node. Likewise the paper's Alg. 5 sweeps a second
/// time after its win, `auto`'s does not. Both end at the same file.
#[test]
fn autos_passes_over_a_level_try_each_candidate_once() {
    use std::sync::Mutex;
    let input = "A(x) B(y) W(K(k))";
    let run = |deletions_first: bool| {
        let seen = Mutex::new(Vec::new());
        let oracle = |b: &[u8]| {
            let text = String::from_utf8_lossy(b).into_owned();
            let keep = ["A(x)", "B(y)", "K(k)"].iter().all(|s| text.contains(s));
            seen.lock().unwrap().push(text);
            keep
        };
        let (out, _) = reduce_with(input, &oracle, 1, None, |r| {
            let templates = Toy.templates();
            crate::algo::gtr_round(r, &templates, false, deletions_first).map(drop)
        });
        (out, seen.into_inner().unwrap())
    };
    // The second pass's deletions of `A(x)` and of `B(y)`, beside `K(k)` (Toy keeps the blank
    // after a deleted node).
    let again = [" B(y) K(k)", "A(x)  K(k)"];
    let (paper, paper_seen) = run(false);
    let (auto, auto_seen) = run(true);
    assert_eq!(paper, "A(x) B(y) K(k)");
    assert_eq!(auto, paper);
    for c in again {
        assert!(paper_seen.iter().any(|s| s == c), "{c:?}: {paper_seen:#?}");
        assert!(!auto_seen.iter().any(|s| s == c), "{c:?}: {auto_seen:#?}");
    }
    // The paper's Alg. 5 sweeps again after `W` became `K(k)`, and tries `x` for `A(x)` again;
    // `auto` sweeps once.
    assert!(paper_seen.iter().any(|s| s == "x B(y) K(k)"));
    assert!(!auto_seen.iter().any(|s| s == "x B(y) K(k)"));
    assert!(auto_seen.len() < paper_seen.len());
}
