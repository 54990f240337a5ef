//! End-to-end test of `whittle` on Python, with the real `python3` as the oracle.

use crate::util::{Case, read, stderr};

const PY_APP: &str = r#"import sys


def helper(values):
    total = 0
    for v in values:
        if v > 2:
            total += v
    return total


class Config:
    def __init__(self):
        self.items = {"a": 1, "b": 2}

    def lookup(self, key):
        return self.items[key]


def main():
    c = Config()
    print(helper([1, 2, 3]))
    if len(sys.argv) > 5:
        print("many")
    else:
        c.lookup("missing")


main()
"#;

#[test]
fn reduces_python_with_python3_as_the_oracle() {
    let case = Case::new();
    let input = case.write("app.py", PY_APP);
    let test = "python3 {} 2>&1 | grep -q \"KeyError: 'missing'\"";
    // One run: python3 costs ~30 ms a call; -j independence is covered by the property tests.
    let out = case.whittle(&[
        "reduce", "app.py", "--test", test, "-a", "gtr*", "-j", "2", "--report", "r.json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let reduced = &read(&case.path("app.reduced.py"));
    // The call chain through main() and the if/else is gone: the failing lookup was spliced out
    // of main's body and the else branch to the top level, re-indented.
    for gone in [
        "import sys",
        "def helper",
        "def main",
        "if len",
        "else:",
        "print(",
    ] {
        assert!(
            !reduced.contains(gone),
            "{gone:?} should be gone:\n{reduced}"
        );
    }
    assert!(reduced.contains("\nc.lookup(\"missing\")"), "{reduced}");
    assert!(reduced.len() < PY_APP.len() / 2, "{reduced}");
    let json: serde_json::Value = serde_json::from_str(&read(&case.path("r.json"))).unwrap();
    assert_eq!(json["format"], "python");
    assert_eq!(json["gate"], "on");
    assert_eq!(
        json["rules"], "shipped: corpora/python.rules.json",
        "shipped rules by default"
    );
    assert!(
        json["filtered"].as_u64().unwrap() > 0,
        "the shipped rules filtered candidates: {json}"
    );
    assert!(
        json["gate_rejections"].as_u64().unwrap() > 0,
        "the gate saved test runs: {json}"
    );
    let still = case.run("sh", &["-c", &test.replace("{}", "app.reduced.py")]);
    assert!(
        still.status.success(),
        "the result still raises the KeyError:\n{reduced}"
    );
    assert_eq!(read(&input), PY_APP);
}

/// `fixtures/python/e2e/units.py`, a unit converter whose pattern, inside a function inside a
/// function, is written with an invalid escape (`"\d"`), which `-W error` makes a SyntaxError.
/// The literal probe makes it its 18 literals in one test, and the reduction ends at the
/// smallest string with the invalid escape: 17 tests at `-j 1` (before the probe, 27 to the same
/// result).
#[test]
fn finds_the_literal_with_an_invalid_escape() {
    let case = Case::new();
    case.copy("python/e2e/units.py", "units.py");
    let test = "python3 -W error -c \"import sys; compile(open(sys.argv[1]).read(), \
                sys.argv[1], 'exec')\" {} 2>&1 | grep -q 'invalid escape sequence'";
    let (reduced, json) = case.reduce_at_j1("units.py", "units.reduced.py", test);
    assert_eq!(reduced, r#""\d""#);
    assert_eq!(json["tests_by_move"]["literals-alone"], 1, "{json}");
    assert!(json["oracle_calls"].as_u64().unwrap() <= 20, "{json}");
}
