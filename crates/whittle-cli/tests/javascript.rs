//! End-to-end tests of `whittle` on JavaScript, with `node` as the real oracle.

use crate::util::{Case, read, stderr, stdout};

/// An order book in the "standard" style (no semicolons, `;(` and `;[` lines). An unknown discount
/// code makes `node` throw a TypeError four calls deep.
const ORDERS: &str = include_str!("../../../fixtures/javascript/e2e/orders.js");

const TYPE_ERROR: &str = "TypeError: Cannot read properties of undefined (reading 'percent')";

#[test]
fn reduces_javascript_with_node_as_the_oracle() {
    let case = Case::new();
    let input = case.write("orders.js", ORDERS);
    let test = format!("node {{}} 2>&1 | grep -qF \"{TYPE_ERROR}\"");
    let out = case.whittle(&[
        "reduce",
        "orders.js",
        "--test",
        &test,
        "-j",
        "2",
        "--report",
        "r.json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let reduced = read(&case.path("orders.reduced.js"));
    // Still the same TypeError, still JavaScript, and a small part of the original.
    let still = case.run("sh", &["-c", &test.replace("{}", "orders.reduced.js")]);
    assert!(still.status.success(), "no longer throws:\n{reduced}");
    let check = case.run("node", &["--check", "orders.reduced.js"]);
    assert!(check.status.success(), "{}\n{reduced}", stderr(&check));
    assert!(
        reduced.len() * 8 < ORDERS.len(),
        "{} of {} bytes left:\n{reduced}",
        reduced.len(),
        ORDERS.len()
    );
    assert!(reduced.contains(".percent"), "{reduced}");
    for gone in [
        "class Item",
        "money(",
        "console.log",
        "TAX_RATE",
        "customers",
    ] {
        assert!(
            !reduced.contains(gone),
            "{gone:?} should be gone:\n{reduced}"
        );
    }
    let json: serde_json::Value = serde_json::from_str(&read(&case.path("r.json"))).unwrap();
    assert_eq!(json["format"], "javascript");
    assert_eq!(json["gate"], "on");
    assert!(
        json["gate_rejections"].as_u64().unwrap() > 0,
        "the gate saved test runs: {json}"
    );
    assert_eq!(read(&input), ORDERS, "the input is never modified");
}

/// An ES module: the gate takes the module goal, and `export { x as default }` keeps its form.
#[test]
fn reduces_an_es_module() {
    let case = Case::new();
    case.write(
        "lib.mjs",
        "import { strictEqual } from 'node:assert';\n\
         const unused = [1, 2, 3].map(x => x * 2);\n\
         export const answer = 42;\n\
         const size = -1;\n\
         export { size as default, unused };\n\
         export function make() { return new Array(size); }\n\
         make();\n\
         strictEqual(answer, 42);\n",
    );
    let out = case.whittle(&[
        "reduce",
        "lib.mjs",
        "--test",
        "node {} 2>&1 | grep -q 'RangeError: Invalid array length'",
        "--report",
        "r.json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let reduced = read(&case.path("lib.reduced.mjs"));
    // The default, auto: the tree moves leave the declaration and the call; below the tree,
    // `size`, declared once and used once, is inlined, and the declaration's line goes with it
    // (`-1` cannot become `0`: an array of length 0 is no error).
    assert_eq!(reduced, "new Array(-1)", "{reduced}");
    assert!(
        !reduced.contains("strictEqual") && !reduced.contains("unused"),
        "{reduced}"
    );
    let check = case.run("node", &["--check", "lib.reduced.mjs"]);
    assert!(check.status.success(), "{}\n{reduced}", stderr(&check));
    let json: serde_json::Value = serde_json::from_str(&read(&case.path("r.json"))).unwrap();
    assert_eq!(json["format"], "javascript", "chosen by the .mjs extension");
}

/// `fixtures/javascript/e2e/dates.js`, a date library written for a newer engine: node 20
/// refuses one of its patterns (a capture group name used twice), three functions deep. The
/// literal probe makes it its 38 literals in one test, and ddmin finds the pattern among them:
/// 19 tests at `-j 1` (before the probe, the tree moves took 37 to reach the same pattern,
/// through the three functions around it).
#[test]
fn finds_the_one_literal_node_refuses() {
    let case = Case::new();
    case.copy("javascript/e2e/dates.js", "dates.js");
    let test = "node {} 2>&1 | grep -q 'Duplicate capture group name'";
    let (reduced, json) = case.reduce_at_j1("dates.js", "dates.reduced.js", test);
    assert_eq!(
        reduced,
        r"/(?<hour>\d{1,2}):(?<minute>\d{2})(?<hour>\s*[ap]m)?/i"
    );
    assert_eq!(json["tests_by_move"]["literals-alone"], 1, "{json}");
    assert!(json["oracle_calls"].as_u64().unwrap() <= 24, "{json}");
}

#[test]
fn tree_and_formats_know_javascript() {
    let case = Case::new();
    case.write("a.cjs", "const { x } = require('y')\n;[x].forEach(f)\n");
    let out = case.whittle(&["tree", "a.cjs"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let dump = stdout(&out);
    assert!(dump.starts_with("program\n"), "{dump}");
    assert!(dump.contains("child: lexical_declaration"), "{dump}");
    assert!(dump.contains("name: object_pattern"), "{dump}");
    let list = stdout(&case.whittle(&["formats"]));
    // The name and the description on one line, the extensions on the next.
    let lines: Vec<&str> = list.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("javascript ") && l.contains("JavaScript"))
        .unwrap_or_else(|| panic!("{list}"));
    assert!(lines[at + 1].trim() == ".js .mjs .cjs", "{list}");
}
