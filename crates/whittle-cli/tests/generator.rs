//! End-to-end tests of generator-based reduction (`whittle reduce --generator`, GReduce) with
//! real generators run by python3 through the shipped client `whittle_gen.py`.

use crate::util::{self, python, stderr, whittle};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use whittle_core::{Edit, Edits, Format, NodeId};

/// The directory of an example generator.
fn fixture(name: &str) -> PathBuf {
    util::fixture(&format!("generators/{name}"))
}

/// Runs `gen.py` of a generator with `args` (and the alignment strategy, if any).
fn run_gen(script: &Path, args: &[&Path], align: Option<&str>, stats: Option<&Path>) -> Output {
    let mut cmd = Command::new(python());
    cmd.arg(script).args(args);
    if let Some(a) = align {
        cmd.env("WHITTLE_ALIGN", a);
    }
    if let Some(s) = stats {
        cmd.env("WHITTLE_GEN_STATS", s);
    }
    cmd.output().expect("run the generator")
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&fs::read(path).expect("read json")).expect("json")
}

/// The example generators: name, the trace it recorded, the input that trace generated.
fn examples() -> Vec<(&'static str, PathBuf, PathBuf)> {
    ["password", "graph", "jsprog"]
        .into_iter()
        .map(|n| (n, fixture(n).join("run.trace"), fixture(n).join("run.out")))
        .collect()
}

#[test]
fn replaying_an_unreduced_trace_reproduces_the_output_byte_for_byte() {
    let tmp = tempfile::tempdir().expect("tmp");
    for (name, trace, recorded) in examples() {
        let script = fixture(name).join("gen.py");
        let out = tmp.path().join(format!("{name}.replayed"));
        let o = run_gen(&script, &[Path::new("replay"), &trace, &out], None, None);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        assert_eq!(fs::read(&out).ok(), fs::read(&recorded).ok(), "{name}");
        // And for fresh recordings with other seeds, under every strategy.
        for seed in ["1", "2", "3"] {
            let t = tmp.path().join(format!("{name}-{seed}.trace"));
            let first = tmp.path().join(format!("{name}-{seed}.out"));
            let o = Command::new(python())
                .arg(&script)
                .args(["record".as_ref(), t.as_os_str(), first.as_os_str()])
                .args(["--seed", seed])
                .output()
                .expect("record");
            assert!(o.status.success(), "{name} seed {seed}: {}", stderr(&o));
            for align in ["halt", "fresh", "realign", "bypass"] {
                let again = tmp.path().join(format!("{name}-{seed}-{align}.out"));
                let stats = tmp.path().join("stats.json");
                let o = run_gen(
                    &script,
                    &[Path::new("replay"), &t, &again],
                    Some(align),
                    Some(&stats),
                );
                assert!(
                    o.status.success(),
                    "{name} seed {seed} {align}: {}",
                    stderr(&o)
                );
                assert_eq!(
                    fs::read(&again).ok(),
                    fs::read(&first).ok(),
                    "{name} {seed} {align}"
                );
                let s = json(&stats);
                assert_eq!(s["misaligned"], 0, "{name} {seed} {align}: {s}");
                assert_eq!(s["fresh"], 0, "{name} {seed} {align}: {s}");
            }
        }
    }
}

/// A deterministic stream of numbers for picking reductions (xorshift).
struct Picks(u64);

impl Picks {
    fn next(&mut self, below: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % below as u64) as usize
    }
}

#[test]
fn reduced_traces_always_give_outputs_the_generators_own_check_accepts() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mut picks = Picks(0x9E37_79B9_7F4A_7C15);
    for (name, trace, _) in examples() {
        let script = fixture(name).join("gen.py");
        let bytes = fs::read(&trace).expect("trace");
        let doc = whittle_trace::Trace
            .parse(&bytes)
            .expect("the trace parses");
        let nodes: Vec<NodeId> = doc.tree.nodes().skip(1).collect();
        assert!(nodes.len() > 10, "{name}: a trace with few reducible parts");
        let mut replays = 0;
        let mut misaligned = 0;
        for round in 0..6 {
            // Drop a random share of the reducible parts, as ddmin, HDD or GTR would.
            let mut edits = Edits::new();
            let k = 1 + picks.next(nodes.len() / (round + 1) + 1);
            for _ in 0..k {
                edits.set(nodes[picks.next(nodes.len())], Edit::Delete);
            }
            let mut reduced = Vec::new();
            whittle_trace::Trace.render(&doc, &edits, &mut reduced);
            let t = tmp.path().join(format!("{name}-{round}.trace"));
            fs::write(&t, &reduced).expect("write");
            for align in ["halt", "fresh", "realign", "bypass"] {
                let out = tmp.path().join(format!("{name}-{round}-{align}.out"));
                let stats = tmp.path().join("stats.json");
                let o = run_gen(
                    &script,
                    &[Path::new("replay"), &t, &out],
                    Some(align),
                    Some(&stats),
                );
                let s = json(&stats);
                misaligned += s["misaligned"].as_u64().expect("count");
                if o.status.code() == Some(whittle_core::GENERATOR_HALTED) {
                    assert!(
                        align == "halt" || align == "bypass",
                        "{name} {round} {align} halted: {}",
                        stderr(&o)
                    );
                    assert_eq!(s["halted"], 1);
                    continue;
                }
                assert!(o.status.success(), "{name} {round} {align}: {}", stderr(&o));
                replays += 1;
                let check = run_gen(&script, &[Path::new("check"), &out], None, None);
                assert!(
                    check.status.success(),
                    "{name}: the replay of reduction {round} with {align} is not valid: {}",
                    String::from_utf8_lossy(&fs::read(&out).unwrap_or_default())
                );
            }
        }
        assert!(replays >= 12, "{name}: only {replays} replays finished");
        if name == "password" {
            // Its letters do not depend on each other: every reduction aligns exactly.
            assert_eq!(misaligned, 0, "{name}");
        } else {
            // Later decisions pick what earlier ones made: some reductions cannot align.
            assert!(misaligned > 0, "{name}: no reduction needed any alignment");
        }
    }
}

/// A small generator whose edges pick nodes by value, with a call that only some edges make.
const EDGES: &str = r#"import whittle_gen as wg

def generate():
    names = []
    for _ in wg.repeat(4):
        names.append(wg.choice(["a", "b", "c"]))
    out = "nodes %s\n" % " ".join(names)
    for _ in wg.repeat(4):
        if not names:
            break
        src = wg.choice(names)
        out += "edge %s" % src
        if src == "a":
            out += " weight %d" % wg.randint(0, 9)
        out += "\n"
        if wg.maybe():
            out += "tag %d\n" % wg.randint(0, 9)
    return out

wg.main(generate)
"#;

/// Its execution with nodes `a b`, an edge from `b` with a tag and an edge from `a` with weight 3.
const EDGES_TRACE: &str = "whittle-trace 1\nL t.py:5\n{\n(\nC t.py:6 0 \"'a'\"\n)\n(\nC t.py:6 1 \"'b'\"\n)\n}\nL t.py:8\n{\n(\nC t.py:11 1 \"'b'\"\nS t.py:16\n[\nR t.py:17 7\n]\n)\n(\nC t.py:11 0 \"'a'\"\nR t.py:14 3\nS t.py:16\n)\n}\n";

/// The same trace without the node `b`: the first edge's source is gone.
fn edges_without_b() -> String {
    EDGES_TRACE.replace("(\nC t.py:6 1 \"'b'\"\n)\n", "")
}

/// A scratch directory with `t.py` (the generator) and the client, written by `whittle gen-client`.
fn edges_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tmp");
    fs::write(dir.path().join("t.py"), EDGES).expect("write");
    let o = whittle(dir.path(), &["gen-client", "-o", "whittle_gen.py"]);
    assert!(o.status.success(), "{}", stderr(&o));
    dir
}

#[test]
fn each_alignment_strategy_handles_a_removed_node_as_documented() {
    let dir = edges_dir();
    let d = dir.path();
    let full = d.join("full.trace");
    fs::write(&full, EDGES_TRACE).expect("write");
    let out = d.join("out");
    let o = run_gen(
        &d.join("t.py"),
        &[Path::new("replay"), &full, &out],
        None,
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        fs::read_to_string(&out).expect("out"),
        "nodes a b\nedge b\ntag 7\nedge a weight 3\n"
    );

    let reduced = d.join("reduced.trace");
    fs::write(&reduced, edges_without_b()).expect("write");
    let run = |align: &str| {
        let out = d.join(format!("{align}.out"));
        let stats = d.join(format!("{align}.json"));
        let o = run_gen(
            &d.join("t.py"),
            &[Path::new("replay"), &reduced, &out],
            Some(align),
            Some(&stats),
        );
        (
            o,
            fs::read_to_string(&out).unwrap_or_default(),
            json(&stats),
        )
    };
    let digit_line = |text: &str, line: usize| {
        let l = text.lines().nth(line).unwrap_or_default();
        l.len() == "edge a weight 0".len()
            && l.starts_with("edge a weight ")
            && l.as_bytes()[14].is_ascii_digit()
    };

    // halt: the first edge's `b` cannot be chosen any more, so the generator stops.
    let (o, _, s) = run("halt");
    assert_eq!(
        o.status.code(),
        Some(whittle_core::GENERATOR_HALTED),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        (s["halted"].as_u64(), s["misaligned"].as_u64()),
        (Some(1), Some(1))
    );

    // fresh: the edge's source is chosen afresh (`a`, the only node), and so is its weight, which
    // the trace never held; the trace's next event (the tag) then aligns again.
    let (o, text, s) = run("fresh");
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert_eq!(
        (lines[0], lines[2], lines[3]),
        ("nodes a", "tag 7", "edge a weight 3")
    );
    assert!(digit_line(&text, 1), "{text}");
    assert_eq!(
        (s["misaligned"].as_u64(), s["fresh"].as_u64()),
        (Some(2), Some(2))
    );
    assert_eq!(s["skipped"], 0);

    // realign: after the weight the trace does not hold, the rest of that iteration is made
    // afresh (the selection is not taken, its tag is skipped), and the next iteration aligns.
    let (o, text, s) = run("realign");
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!((lines[0], lines[2]), ("nodes a", "edge a weight 3"));
    assert!(digit_line(&text, 1), "{text}");
    assert_eq!(
        (
            s["misaligned"].as_u64(),
            s["fresh"].as_u64(),
            s["skipped"].as_u64()
        ),
        (Some(2), Some(3), Some(1))
    );

    // bypass: the iteration holding the impossible choice is removed from the trace and the
    // generator starts again; everything else aligns.
    let (o, text, s) = run("bypass");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(text, "nodes a\nedge a weight 3\n");
    assert_eq!(
        (s["restarts"].as_u64(), s["misaligned"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(s["fresh"], 0);
}

#[test]
fn alignment_failures_are_counted_in_the_report_for_every_strategy() {
    let dir = edges_dir();
    let d = dir.path();
    fs::write(d.join("run.trace"), EDGES_TRACE).expect("write");
    let generator = format!("{} t.py replay {{trace}} {{out}}", python());
    let mut outputs = Vec::new();
    for align in ["halt", "fresh", "realign", "bypass"] {
        let report = d.join(format!("{align}.json"));
        let out = d.join(format!("{align}.txt"));
        let o = whittle(
            d,
            &[
                "reduce",
                "run.trace",
                "--generator",
                &generator,
                "--align",
                align,
                "--test",
                "grep -q 'weight 3' {}",
                "-o",
                out.to_str().expect("utf-8"),
                "--report",
                report.to_str().expect("utf-8"),
                "-j",
                "2",
                "-q",
            ],
        );
        assert!(o.status.success(), "{align}: {}", stderr(&o));
        let text = fs::read_to_string(&out).expect("output");
        assert!(text.contains("weight 3"), "{align}: {text}");
        let r = json(&report);
        let g = &r["generator"];
        assert_eq!(g["align"], align);
        assert!(g["misaligned"].as_u64() > Some(0), "{align}: {g}");
        assert!(g["replays_misaligned"].as_u64() > Some(0), "{align}: {g}");
        assert!(
            g["decisions_after"].as_u64() < g["decisions_before"].as_u64(),
            "{align}: {g}"
        );
        assert_eq!(g["output_bytes_after"].as_u64(), Some(text.len() as u64));
        let (halted, fresh, restarts) = (&g["halted"], &g["fresh"], &g["restarts"]);
        match align {
            "halt" => assert!(
                halted.as_u64() > Some(0) && fresh == 0 && restarts == 0,
                "{g}"
            ),
            "bypass" => assert!(restarts.as_u64() > Some(0), "{g}"),
            _ => assert!(
                fresh.as_u64() > Some(0) && halted == 0 && restarts == 0,
                "{g}"
            ),
        }
        // The reduced trace is written beside the input and replays to the output.
        let trace = d.join("run.reduced.trace");
        let again = d.join("again.txt");
        let o = run_gen(
            &d.join("t.py"),
            &[Path::new("replay"), &trace, &again],
            Some(align),
            None,
        );
        assert!(o.status.success(), "{align}: {}", stderr(&o));
        assert_eq!(
            fs::read_to_string(&again).ok(),
            Some(text.clone()),
            "{align}"
        );
        outputs.push(text);
    }
    // Every strategy keeps the weighted edge from `a` and drops everything else it can.
    assert!(
        outputs.iter().all(|t| t.ends_with("edge a weight 3\n")),
        "{outputs:?}"
    );
}

/// A scratch directory holding the password example's `abc.trace`, the example's folder, and the
/// `--generator` command that replays it.
fn password_case() -> (tempfile::TempDir, PathBuf, String) {
    let dir = tempfile::tempdir().expect("tmp");
    let fx = fixture("password");
    fs::copy(fx.join("abc.trace"), dir.path().join("abc.trace")).expect("copy");
    let generator = format!(
        "{} {} replay {{trace}} {{out}}",
        python(),
        fx.join("gen.py").display()
    );
    (dir, fx, generator)
}

#[test]
fn the_motivating_example_reduces_abc_to_c_with_every_algorithm_and_job_count() {
    let (dir, fx, generator) = password_case();
    let d = dir.path();
    let test = fx.join("test.sh");
    let replayed = d.join("abc.txt");
    let o = run_gen(
        &fx.join("gen.py"),
        &[Path::new("replay"), &d.join("abc.trace"), &replayed],
        None,
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(fs::read(&replayed).expect("replay"), b"abc\nabc\n");
    for algorithm in ["gtr*", "hdd", "ddmin"] {
        for jobs in ["1", "2"] {
            let out = d.join(format!("out-{jobs}.txt"));
            let report = d.join("report.json");
            let o = whittle(
                d,
                &[
                    "reduce",
                    "abc.trace",
                    "--generator",
                    &generator,
                    "--test",
                    test.to_str().expect("utf-8"),
                    "-a",
                    algorithm,
                    "-j",
                    jobs,
                    "-o",
                    out.to_str().expect("utf-8"),
                    "--report",
                    report.to_str().expect("utf-8"),
                ],
            );
            assert!(o.status.success(), "{algorithm} -j {jobs}: {}", stderr(&o));
            assert_eq!(
                fs::read_to_string(&out).expect("output"),
                "c\nc\n",
                "{algorithm} -j {jobs}"
            );
            let r = json(&report);
            assert_eq!(r["generator"]["decisions_before"], 4);
            assert_eq!(
                r["generator"]["decisions_after"], 2,
                "{algorithm}: the loop and one choice"
            );
            assert_eq!(r["generator"]["misaligned"], 0, "{algorithm}");
            let trace = fs::read_to_string(d.join("abc.reduced.trace")).expect("trace");
            assert!(
                trace.contains("\"'c'\"") && !trace.contains("\"'a'\""),
                "{trace}"
            );
        }
    }
    let stdout_of_tree = whittle(d, &["tree", "abc.reduced.trace"]);
    assert!(
        stdout_of_tree.status.success(),
        "{}",
        stderr(&stdout_of_tree)
    );
}

#[test]
fn bad_generator_commands_are_clear_errors_and_write_nothing() {
    let dir = edges_dir();
    let d = dir.path();
    fs::write(d.join("run.trace"), EDGES_TRACE).expect("write");
    // The generator fails on the original trace.
    let o = whittle(
        d,
        &[
            "reduce",
            "run.trace",
            "--generator",
            "sh -c 'exit 1' {trace} {out}",
            "--test",
            "true",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the generator fails on the original trace"),
        "{}",
        stderr(&o)
    );
    assert!(!d.join("run.reduced.out").exists() && !d.join("run.reduced.trace").exists());
    // The test does not find the generated input interesting.
    let generator = format!("{} t.py replay {{trace}} {{out}}", python());
    let o = whittle(
        d,
        &[
            "reduce",
            "run.trace",
            "--generator",
            &generator,
            "--test",
            "grep -q nothing-like-this {}",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o)
            .contains("does not find the input generated from the original trace interesting"),
        "{}",
        stderr(&o)
    );
    assert!(!d.join("run.reduced.out").exists());
    // A generator command without {trace} or {out}.
    let o = whittle(
        d,
        &[
            "reduce",
            "run.trace",
            "--generator",
            "python3 t.py replay",
            "--test",
            "true",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("{trace}"), "{}", stderr(&o));
    // A trace the generator cannot read is not a trace at all: a parse error naming the place.
    fs::write(
        d.join("bad.trace"),
        "whittle-trace 1\nL t.py:5\n{\nC t.py:6 0\n}\n",
    )
    .expect("write");
    let o = whittle(
        d,
        &[
            "reduce",
            "bad.trace",
            "--generator",
            &generator,
            "--test",
            "true",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("bad.trace:4"), "{}", stderr(&o));
}

#[test]
fn repeats_of_a_flaky_test_reach_the_test_with_a_generator() {
    // The password example behind a flaky test: it says interesting on every third run only.
    // `--repeat 3` must then find the original interesting (the third of its runs), which it can
    // only if the repeats run the test again rather than answer from the verdicts of the
    // generated inputs; and the final re-check of the result finds it interesting in exactly one
    // of three more runs.
    let (dir, fx, generator) = password_case();
    let d = dir.path();
    let counter = d.join("runs");
    let flaky = d.join("flaky.sh");
    fs::write(
        &flaky,
        format!(
            "#!/bin/sh\necho x >> '{}'\n[ $(( $(wc -l < '{}') % 3 )) -eq 0 ] && {} \"$1\"\n",
            counter.display(),
            counter.display(),
            fx.join("test.sh").display()
        ),
    )
    .expect("write the test");
    let o = Command::new("chmod")
        .args(["+x", flaky.to_str().expect("utf-8")])
        .output()
        .expect("chmod");
    assert!(o.status.success());
    let report = d.join("report.json");
    let o = whittle(
        d,
        &[
            "reduce",
            "abc.trace",
            "--generator",
            &generator,
            "--test",
            flaky.to_str().expect("utf-8"),
            "--repeat",
            "3",
            "-j",
            "1",
            // A fixed timeout: the adaptive one times the original a number of times that
            // depends on the machine's speed, which would shift the flaky test's phase.
            "--timeout",
            "60",
            "--report",
            report.to_str().expect("utf-8"),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let r = json(&report);
    assert_eq!(r["final_check_interesting"], 1, "{r}");
    let runs = fs::read_to_string(&counter)
        .expect("the test ran")
        .lines()
        .count();
    assert!(runs >= 6, "{runs} runs of the test");
}
