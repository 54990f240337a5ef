#![allow(
    clippy::disallowed_methods,
    reason = "the tests check results with the real node"
)]

use crate::{ClauseBody, JavaScript};
use std::path::PathBuf;
use whittle_core::{Document, Edit, Edits, Format, NodeId, SubstituteByChild, Template, Tree};

/// `input` reduced by the default pipeline (`auto`) while `test` says it is interesting.
fn auto(input: &[u8], test: &(dyn Fn(&[u8]) -> bool + Sync)) -> whittle_core::Reduced {
    whittle_core::Reduction::new(&JavaScript, &test, input)
        .algorithm(whittle_core::Algorithm::Auto)
        .run()
        .expect("runs")
}

fn fixtures() -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/javascript");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures/javascript exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "js" || e == "mjs"))
        .collect();
    files.sort();
    assert!(files.len() >= 8, "the fixtures are there: {files:?}");
    files
        .into_iter()
        .map(|p| (p.clone(), std::fs::read(&p).expect("read fixture")))
        .collect()
}

fn parse(src: &str) -> Document {
    JavaScript
        .parse(src.as_bytes())
        .expect("tree-sitter parses anything")
}

fn render(doc: &Document, edits: &Edits) -> String {
    let mut out = Vec::new();
    JavaScript.render(doc, edits, &mut out);
    String::from_utf8(out).expect("UTF-8 in, UTF-8 out")
}

/// Finds the first node (in document order) with `label` whose text is `text`.
fn find(t: &Tree, label: &str, text: &str) -> NodeId {
    t.nodes()
        .find(|&n| t.label(n) == label && t.text(n) == text.as_bytes())
        .unwrap_or_else(|| panic!("no {label} {text:?} in\n{}", t.dump()))
}

/// Parses `src`, checks the unedited round trip, applies the edits built by `edit` and compares
/// the rendering with `expect`.
fn check(src: &str, edit: impl FnOnce(&Tree) -> Edits, expect: &str) {
    let doc = parse(src);
    assert_eq!(render(&doc, &Edits::new()), src, "unedited round trip");
    let out = render(&doc, &edit(&doc.tree));
    assert_eq!(out, expect, "from {src:?}");
}

fn delete(label: &'static str, text: &'static str) -> impl FnOnce(&Tree) -> Edits {
    move |t| [(find(t, label, text), Edit::Delete)].into_iter().collect()
}

fn delete_all(targets: &'static [(&'static str, &'static str)]) -> impl FnOnce(&Tree) -> Edits {
    move |t| {
        targets
            .iter()
            .map(|&(l, x)| (find(t, l, x), Edit::Delete))
            .collect()
    }
}

/// Replaces the first `label` node with text `text` by its descendant `by` (label, text).
fn replace(
    label: &'static str,
    text: &'static str,
    by: (&'static str, &'static str),
) -> impl FnOnce(&Tree) -> Edits {
    move |t| {
        let n = find(t, label, text);
        let d = t
            .nodes()
            .find(|&d| {
                d != n && t.contains(n, d) && t.label(d) == by.0 && t.text(d) == by.1.as_bytes()
            })
            .unwrap_or_else(|| panic!("no {by:?} below {label}"));
        [(n, Edit::Replace(d))].into_iter().collect()
    }
}

/// Checks every source with V8 (`vm.Script`, then `vm.SourceTextModule`) in one node process;
/// per source `None` if V8 compiles it, else the error.
fn v8_verdicts(sources: &[String]) -> Vec<Option<String>> {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut paths = Vec::new();
    for (i, s) in sources.iter().enumerate() {
        let p = dir.path().join(format!("c{i}.js"));
        std::fs::write(&p, s).expect("write");
        paths.push(p);
    }
    let script = r#"
const vm = require('vm'), fs = require('fs');
for (const p of process.argv.slice(1)) {
  const src = fs.readFileSync(p, 'utf8');
  let err = null;
  try { new vm.Script(src); } catch (e) {
    try { new vm.SourceTextModule(src); } catch (e2) { err = e.message + ' / ' + e2.message; }
  }
  console.log(err === null ? 'OK' : 'ERR ' + err.replace(/\n/g, ' '));
}"#;
    let out = std::process::Command::new("node")
        .arg("--experimental-vm-modules")
        .arg("--no-warnings")
        .arg("-e")
        .arg(script)
        .args(&paths)
        .output()
        .expect("node is needed by this test (apt-get install nodejs)");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let verdicts: Vec<Option<String>> = text
        .lines()
        .map(|l| if l == "OK" { None } else { Some(l.to_string()) })
        .collect();
    assert_eq!(
        verdicts.len(),
        sources.len(),
        "node said: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    verdicts
}

#[test]
fn fixtures_round_trip_and_pass_the_gate() {
    let mut sources = Vec::new();
    for (path, bytes) in fixtures() {
        let doc = JavaScript
            .parse(&bytes)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            doc.diagnostics.is_empty(),
            "{}: {:?}",
            path.display(),
            doc.diagnostics
        );
        assert_eq!(
            render(&doc, &Edits::new()).as_bytes(),
            bytes,
            "{}",
            path.display()
        );
        assert!(JavaScript.gate(&bytes), "{}", path.display());
        sources.push(String::from_utf8(bytes).expect("UTF-8 fixture"));
    }
    assert!(v8_verdicts(&sources).iter().all(Option::is_none));
}

#[test]
fn labels_are_node_kinds_and_edges_are_field_names() {
    let doc = parse("if (a) f(x, y = 2);\n");
    assert_eq!(
        doc.tree.dump(),
        "program\n\
         \x20 child: if_statement\n\
         \x20   condition: parenthesized_expression\n\
         \x20     child: identifier \"a\"\n\
         \x20   consequence: expression_statement\n\
         \x20     child: call_expression\n\
         \x20       function: identifier \"f\"\n\
         \x20       arguments: arguments\n\
         \x20         child: identifier \"x\"\n\
         \x20         child: assignment_expression\n\
         \x20           left: identifier \"y\"\n\
         \x20           right: number \"2\"\n"
    );
}

#[test]
fn strings_and_regexes_are_leaves_and_templates_keep_only_substitutions() {
    let doc = parse("f('a\\nb', /[/]+\\//gi, `x\\${y}${z}w`, a?.b);\n");
    let t = &doc.tree;
    let string = find(t, "string", "'a\\nb'");
    let regex = find(t, "regex", "/[/]+\\//gi");
    assert!(t.children(string).is_empty() && t.children(regex).is_empty());
    let template = find(t, "template_string", "`x\\${y}${z}w`");
    let kids: Vec<&str> = t.children(template).iter().map(|&k| t.label(k)).collect();
    assert_eq!(kids, ["template_substitution"]);
    let member = find(t, "member_expression", "a?.b");
    let kids: Vec<&str> = t.children(member).iter().map(|&k| t.label(k)).collect();
    assert_eq!(
        kids,
        ["identifier", "property_identifier"],
        "`?.` is a token"
    );
    // Deleting the property keeps `?.`, so the result is not the identifier `ab`.
    check("a?.b;\n", delete("property_identifier", "b"), "a?.;\n");
}

#[test]
fn deleting_an_interpolation_or_its_neighbours_keeps_templates_intact() {
    let src = "f(a, `x${y}${z}w`, `$${v}$`, b);\n";
    check(
        src,
        delete("template_substitution", "${y}"),
        "f(a, `x${z}w`, `$${v}$`, b);\n",
    );
    check(
        src,
        delete("template_substitution", "${z}"),
        "f(a, `x${y}w`, `$${v}$`, b);\n",
    );
    check(
        src,
        delete("template_substitution", "${v}"),
        "f(a, `x${y}${z}w`, `$$`, b);\n",
    );
    check(
        src,
        delete("identifier", "a"),
        "f(`x${y}${z}w`, `$${v}$`, b);\n",
    );
    check(
        src,
        delete_all(&[("identifier", "b"), ("template_string", "`$${v}$`")]),
        "f(a, `x${y}${z}w`);\n",
    );
    // Nested templates: the inner one goes with its substitution, the outer text stays.
    let src = "const s = `a${`b${c}d`}e${f}`;\n";
    check(
        src,
        delete("template_substitution", "${c}"),
        "const s = `a${`bd`}e${f}`;\n",
    );
    check(
        src,
        delete("template_substitution", "${`b${c}d`}"),
        "const s = `ae${f}`;\n",
    );
    check(
        src,
        replace("template_substitution", "${`b${c}d`}", ("identifier", "c")),
        "const s = `ace${f}`;\n",
    );
    // A regex next to a deleted division operand is still a regex.
    check(
        "x = a / b; y = [/=/g, c];\n",
        delete("identifier", "c"),
        "x = a / b; y = [/=/g];\n",
    );
}

#[test]
fn deleting_list_elements_keeps_separators_valid() {
    check("f(a, b, c);\n", delete("identifier", "a"), "f(b, c);\n");
    check("f(a, b, c);\n", delete("identifier", "b"), "f(a, c);\n");
    check("f(a, b, c);\n", delete("identifier", "c"), "f(a, b);\n");
    check(
        "function g(p, q = 1, ...r) {}\n",
        delete("assignment_pattern", "q = 1"),
        "function g(p, ...r) {}\n",
    );
    check(
        "function g(p, q = 1, ...r) {}\n",
        delete("rest_pattern", "...r"),
        "function g(p, q = 1) {}\n",
    );
    check(
        "xs = [1, 2, 3,];\n",
        delete("number", "3"),
        "xs = [1, 2,];\n",
    );
    check("xs = [1,];\n", delete("number", "1"), "xs = [];\n");
    check(
        "o = { a: 1, b, ...c };\n",
        delete("shorthand_property_identifier", "b"),
        "o = { a: 1, ...c };\n",
    );
    check(
        "o = {\n  a: 1,\n  b: 2,\n};\n",
        delete("pair", "b: 2"),
        "o = {\n  a: 1,\n};\n",
    );
    check(
        "import d, { a, b as c } from 'm';\n",
        delete("import_specifier", "a"),
        "import d, { b as c } from 'm';\n",
    );
    check(
        "import d, { a, b as c } from 'm';\n",
        delete("identifier", "d"),
        "import { a, b as c } from 'm';\n",
    );
    check(
        "export { x as default, y };\n",
        delete("export_specifier", "y"),
        "export { x as default };\n",
    );
    check(
        "export { x as default, y };\n",
        delete("export_specifier", "x as default"),
        "export { y };\n",
    );
    check(
        "let a = 1, b = 2, c;\n",
        delete("variable_declarator", "b = 2"),
        "let a = 1, c;\n",
    );
    check(
        "const { p, q: r = 2, ...s } = o;\n",
        delete("pair_pattern", "q: r = 2"),
        "const { p, ...s } = o;\n",
    );
    check(
        "const [a, , b] = xs;\n",
        delete("identifier", "b"),
        "const [a, , ] = xs;\n",
    );
    check(
        "f(a, b, c);\n",
        delete_all(&[("identifier", "a"), ("identifier", "c")]),
        "f(b);\n",
    );
    // A line comment after the last kept element keeps its line break.
    check(
        "f(\n  a,\n  b, // why b\n  c,\n);\n",
        delete("identifier", "a"),
        "f(\n  b, // why b\n  c,\n);\n",
    );
}

#[test]
fn deleted_statements_take_their_lines_with_them() {
    check(
        "a();\nb();\nc();\n",
        delete("expression_statement", "b();"),
        "a();\nc();\n",
    );
    check(
        "function f() {\n  a();\n  b();\n}\n",
        delete("expression_statement", "b();"),
        "function f() {\n  a();\n}\n",
    );
    check(
        "class A {\n  x = 1;\n  #y = 2;\n  m() {}\n}\n",
        delete("field_definition", "#y = 2"),
        "class A {\n  x = 1;\n  ;\n  m() {}\n}\n",
    );
}

/// The ASI hazards: statements that come to meet after a deletion or a move must not join.
#[test]
fn statements_that_come_to_meet_do_not_join() {
    // The brief's example: `x = 1` owns the `;` in front of `(b)`; without it `a` would call.
    check(
        "a\nx = 1\n;(b)\n",
        delete("expression_statement", "x = 1\n;"),
        "a\n;(b)\n",
    );
    for (line, expect) in [
        ("[1, 2].forEach(f)", "a\n;[1, 2].forEach(f)\n"),
        ("`t`.length", "a\n;`t`.length\n"),
        ("/re/.test(s)", "a\n;/re/.test(s)\n"),
        ("+b", "a\n;+b\n"),
        ("-b", "a\n;-b\n"),
    ] {
        let src = format!("a\nx = 1\n;{line}\n");
        let doc = parse(&src);
        let x = find(&doc.tree, "expression_statement", "x = 1\n;");
        let out = render(&doc, &[(x, Edit::Delete)].into_iter().collect());
        assert_eq!(out, expect);
        assert!(JavaScript.gate(out.as_bytes()));
    }
    // Comments between are passed over; the `;` goes in front of the statement.
    check(
        "a // one\nx()\n// two\n;(b)\n",
        delete("expression_statement", "x()\n// two\n;"),
        "a // one\n;(b)\n",
    );
    // Inside blocks, switch cases and class bodies as well.
    check(
        "function f() {\n  a\n  x\n  ;(b)\n}\n",
        delete("expression_statement", "x\n  ;"),
        "function f() {\n  a\n  ;(b)\n}\n",
    );
    check(
        "switch (v) { case 1: a\n x\n ;[b] = c }\n",
        delete("expression_statement", "x\n ;"),
        "switch (v) { case 1: a\n ;[b] = c }\n",
    );
    // (A class member's `;` is a token of the class body and stays when the member goes.)
    check(
        "class A {\n  x = 1\n  y = 2;\n  ['z'] = 3\n}\n",
        delete("field_definition", "y = 2"),
        "class A {\n  x = 1\n  ;\n  ['z'] = 3\n}\n",
    );
    check(
        "class A {\n  x = 1\n  m() {}\n  ['z'] = 3\n}\n",
        delete("method_definition", "m() {}"),
        "class A {\n  x = 1\n  ;['z'] = 3\n}\n",
    );
    check(
        "class A {\n  x = 1\n  m() {}\n  *g() {}\n}\n",
        delete("method_definition", "m() {}"),
        "class A {\n  x = 1\n  ;*g() {}\n}\n",
    );
    // A statement replaced by an expression that starts with `(`.
    check(
        "a\nif (c) d()\n",
        replace(
            "if_statement",
            "if (c) d()",
            ("parenthesized_expression", "(c)"),
        ),
        "a\n;(c)\n",
    );
    // A statement replaced by its expression loses its `;`: the next one gets one.
    check(
        "x = y;\n(b)\n",
        replace(
            "expression_statement",
            "x = y;",
            ("assignment_expression", "x = y"),
        ),
        "x = y\n;(b)\n",
    );
    // Nothing is added where a statement ends with `;`, after `case x:`, before a statement that
    // cannot continue the one before, or at the start of a block.
    check(
        "a;\nx\n;(b)\n",
        delete("expression_statement", "x\n;"),
        "a;\n(b)\n",
    );
    check(
        "switch (v) { case 1:\n x\n ;(b) }\n",
        delete("expression_statement", "x\n ;"),
        "switch (v) { case 1:\n (b) }\n",
    );
    check(
        "a\nx\n;b()\n",
        delete("expression_statement", "x\n;"),
        "a\nb()\n",
    );
    check(
        "{\n  x\n  ;(b)\n}\n",
        delete("expression_statement", "x\n  ;"),
        "{\n  (b)\n}\n",
    );
    // Neighbours of the input keep their bytes when something else in the list is edited (the
    // file's last statement deleted takes the line break that ends the file with it).
    check(
        "function f() {}\n(b)\nc; d;\n",
        delete("expression_statement", "d;"),
        "function f() {}\n(b)\nc; ",
    );
}

#[test]
fn return_and_throw_keep_their_argument_on_their_line() {
    check(
        "function f() {\n  return (\n    a + b\n  )\n}\n",
        replace(
            "parenthesized_expression",
            "(\n    a + b\n  )",
            ("binary_expression", "a + b"),
        ),
        "function f() {\n  return a + b\n}\n",
    );
    check(
        "function f() {\n  throw (\n    a, new Error()\n  )\n}\n",
        delete("identifier", "a"),
        "function f() {\n  throw (\n    new Error()\n  )\n}\n",
    );
    check(
        "function f() {\n  return a ||\n    b\n}\n",
        replace("binary_expression", "a ||\n    b", ("identifier", "b")),
        "function f() {\n  return b\n}\n",
    );
    // `return` then a line break ends the statement: deleting what follows keeps it that way.
    check(
        "function f() {\n  return\n  x\n}\n",
        delete("expression_statement", "x"),
        "function f() {\n  return\n}\n",
    );
}

/// Every single statement deletion in every fixture leaves the other statements of its list as
/// they were: the list has one statement less, and no two statements joined into one.
#[test]
fn deleting_any_statement_of_a_fixture_keeps_the_others_apart() {
    let mut tried = 0;
    for (path, bytes) in fixtures() {
        let doc = JavaScript.parse(&bytes).unwrap();
        let t = &doc.tree;
        let lists = [
            "program",
            "statement_block",
            "switch_case",
            "switch_default",
            "class_body",
        ];
        for n in t.nodes() {
            let Some(parent) = t.parent(n) else { continue };
            if !lists.contains(&t.label(parent)) || t.label(n) == "comment" {
                continue;
            }
            let out = render(&doc, &[(n, Edit::Delete)].into_iter().collect());
            let after = JavaScript.parse(out.as_bytes()).unwrap();
            // The same list in the result: the one that starts where the parent did.
            let count = |t: &Tree, p: NodeId| {
                t.children(p)
                    .iter()
                    .filter(|&&k| !["comment", "empty_statement"].contains(&t.label(k)))
                    .count()
            };
            let start = t.span(parent).start;
            let p2 = after
                .tree
                .nodes()
                .find(|&m| {
                    after.tree.label(m) == t.label(parent) && after.tree.span(m).start == start
                })
                .unwrap_or_else(|| {
                    panic!("{}: list gone after deleting {n:?}:\n{out}", path.display())
                });
            let expect = count(t, parent) - 1;
            assert_eq!(
                count(&after.tree, p2),
                expect,
                "{}: deleting {:?} joined statements:\n{out}",
                path.display(),
                String::from_utf8_lossy(t.text(n))
            );
            tried += 1;
        }
    }
    assert!(tried > 120, "{tried} deletions");
}

/// The gate never rejects what V8 accepts, on every single deletion, every substitution by a
/// child and every clause-body move in every fixture. The other way round it is more permissive: swc's parser does not
/// resolve names, so the early errors that need scopes (a redeclared `let`, an export of an
/// undeclared name, an undeclared private name, `super` outside a method) pass the gate and are
/// left to the test.
#[test]
fn the_gate_agrees_with_v8_on_every_candidate_of_the_fixtures() {
    let mut sources = Vec::new();
    for (_, bytes) in fixtures() {
        let doc = JavaScript.parse(&bytes).unwrap();
        for n in doc.tree.nodes().skip(1) {
            let mut cands = vec![Edit::Delete];
            SubstituteByChild.candidates(&doc, n, None, &mut cands);
            ClauseBody.candidates(&doc, n, None, &mut cands);
            for c in cands {
                let out = render(&doc, &[(n, c)].into_iter().collect());
                sources.push(out);
            }
        }
    }
    sources.sort();
    sources.dedup();
    assert!(sources.len() > 1500, "{} candidates", sources.len());
    let verdicts = v8_verdicts(&sources);
    let scoped = [
        "has already been declared",
        "is not defined in module",
        "Duplicate export",
        "must be declared in an enclosing class",
        "Unexpected identifier '#",
        "'super' keyword unexpected",
    ];
    let mut disagree = Vec::new();
    let (mut accepted, mut scope_errors) = (0, 0);
    for (s, v8) in sources.iter().zip(&verdicts) {
        let gate = JavaScript.gate(s.as_bytes());
        accepted += usize::from(gate);
        match v8 {
            Some(e) if gate && scoped.iter().any(|k| e.contains(k)) => scope_errors += 1,
            _ if gate != v8.is_none() => disagree.push(format!("gate {gate}, v8 {v8:?}:\n{s}")),
            _ => {}
        }
    }
    println!(
        "{} candidates, {accepted} accepted by the gate, {scope_errors} of them rejected by V8 \
         for an early error that needs scopes",
        sources.len()
    );
    assert!(scope_errors * 20 < accepted, "{scope_errors} of {accepted}");
    assert!(
        disagree.is_empty(),
        "{} of {} disagree; first:\n{}",
        disagree.len(),
        sources.len(),
        disagree
            .iter()
            .map(|d| d.lines().next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(accepted * 3 > sources.len(), "{accepted} accepted");
}

#[test]
fn the_gate_accepts_scripts_and_modules_and_nothing_broken() {
    let gate = |s: &str| JavaScript.gate(s.as_bytes());
    assert!(gate("var x = 1; with (o) { x }\n"), "sloppy script");
    assert!(
        gate("import x from 'y'; export { x as default };\n"),
        "module"
    );
    assert!(gate("await 1;\n"), "top-level await: module only");
    assert!(gate("export const late = 1;\n"));
    assert!(gate("\u{feff}let bom = 1;\n"));
    assert!(gate("#!/usr/bin/env node\nx()\n"));
    assert!(gate(""));
    assert!(!gate("f(a,, b);\n"));
    assert!(!gate("let x = ;\n"));
    assert!(!gate("return 1;\n"), "no return outside a function");
    assert!(
        !gate("import x from 'y'; with (o) {}\n"),
        "with in a module"
    );
    assert!(!gate("'use strict'; with (o) {}\n"), "with in strict code");
    assert!(
        !gate("'use strict'; var x = 010;\n"),
        "an error swc recovers from is an error"
    );
    assert!(!gate("class A { constructor() {} constructor() {} }\n"));
    assert!(!gate("label: label: x;\n"));
    assert!(!gate("const x;\n"));
    assert!(!gate("x = /a/gg;\n"));
    assert!(!gate("let el = <div>hi</div>;\n"), "no JSX");
    assert!(!gate("a //g\nb\n(") && !JavaScript.gate(b"x = '\xff';\n"));
    // Deep nesting neither overflows the stack nor takes long.
    let deep = format!("x = {}1{};\n", "[".repeat(20_000), "]".repeat(20_000));
    assert!(gate(&deep));
    let doc = parse(&deep);
    assert_eq!(render(&doc, &Edits::new()), deep);
}

#[test]
fn tidy_drops_blank_lines_and_trailing_blanks_and_minimizes_indentation() {
    let src = "a();   \n\n\nfunction f() {\n    if (x) {\n        const t = `x  \n\n    y`;\n\t\n        g(1,\n          2);\n    }\n}\n";
    let doc = parse(src);
    let tidy = JavaScript.tidy(&doc).expect("something to tidy");
    let tidy = String::from_utf8(tidy).unwrap();
    assert_eq!(
        tidy,
        "a();\nfunction f() {\n if (x) {\n  const t = `x  \n\n    y`;\n  g(1,\n  2);\n }\n}\n"
    );
    assert!(JavaScript.gate(tidy.as_bytes()));
    assert!(
        JavaScript.tidy(&parse(&tidy)).is_none(),
        "tidy is idempotent"
    );
}

#[test]
fn clause_bodies_replace_their_statement() {
    let src = "if (a) x();\nelse if (b) y();\nelse { z(); }\ntry { t(); } catch { c(); } finally { f(); }\n";
    let doc = parse(src);
    let t = &doc.tree;
    let texts = |n: NodeId| -> Vec<String> {
        let mut out = Vec::new();
        assert_eq!(ClauseBody.candidates(&doc, n, None, &mut out), 0);
        out.iter()
            .map(|e| match e {
                Edit::Replace(d) => String::from_utf8_lossy(t.text(*d)).into_owned(),
                Edit::Delete => panic!("only replacements"),
            })
            .collect()
    };
    let outer = find(
        t,
        "if_statement",
        "if (a) x();\nelse if (b) y();\nelse { z(); }",
    );
    assert_eq!(texts(outer), ["if (b) y();\nelse { z(); }"]);
    let inner = find(t, "if_statement", "if (b) y();\nelse { z(); }");
    assert_eq!(texts(inner), ["{ z(); }"]);
    let try_ = find(
        t,
        "try_statement",
        "try { t(); } catch { c(); } finally { f(); }",
    );
    assert_eq!(texts(try_), ["{ c(); }", "{ f(); }"]);
    assert!(texts(find(t, "expression_statement", "x();")).is_empty());
    let mut out = Vec::new();
    ClauseBody.candidates(&doc, outer, None, &mut out);
    assert_eq!(
        render(&doc, &[(outer, out[0])].into_iter().collect()),
        "if (b) y();\nelse { z(); }\ntry { t(); } catch { c(); } finally { f(); }\n"
    );
}

#[test]
fn the_gate_tries_the_likelier_goal_first_and_skips_what_it_cannot_parse_safely() {
    assert!(crate::mentions_modules(b"import x from 'y'"));
    assert!(crate::mentions_modules(b"a()\nexport{b}"));
    assert!(crate::mentions_modules(b"x;export * from 'm'"));
    assert!(!crate::mentions_modules(
        b"module.exports = f; exports.g = g"
    ));
    assert!(!crate::mentions_modules(
        b"const m = import('m'); o.import = 1"
    ));
    // A stack for the worst case of every token, within the limit.
    let small = crate::stack_for(b"f(a, b)").expect("small inputs are parsed");
    assert!(small >= 7 * crate::STACK_PER_TOKEN);
    // An input with too many tokens for the largest stack goes to the test unjudged, fast.
    let huge = "(".repeat(crate::MAX_STACK / crate::STACK_PER_TOKEN + 1);
    assert_eq!(crate::stack_for(huge.as_bytes()), None);
    assert!(JavaScript.gate(huge.as_bytes()));
}

#[test]
fn the_lexicon_offers_declarations_bound_once_for_inlining() {
    let src = "const x = a + b;\nf(x);\nlet y = 1;\ny = 2;\n  var z = {p: 1};\nz.p;\nlet w = g(), v = 0;\nw(v);\n";
    let doc = JavaScript.parse(src.as_bytes()).expect("parses");
    let lex = JavaScript.lexicon(&doc).expect("javascript has a lexicon");
    let text = |r: std::ops::Range<usize>| &src[r];
    let defs: Vec<(&str, &str, Vec<&str>, bool)> = lex
        .tokens
        .into_iter()
        .filter_map(|t| match t.kind {
            whittle_core::TokenKind::Definition { value, wrap, uses } => Some((
                text(t.span),
                text(value),
                uses.into_iter().map(text).collect(),
                wrap,
            )),
            _ => None,
        })
        .collect();
    // `y` is assigned twice and `w`, `v` share a declaration: neither is offered. An operator
    // expression and an object literal go in parentheses (`{p: 1}.p` would open a block).
    assert_eq!(
        defs,
        [
            ("const x = a + b;\n", "a + b", vec!["x"], true),
            ("  var z = {p: 1};\n", "{p: 1}", vec!["z"], true),
        ]
    );
}

#[test]
fn the_gate_survives_a_panic_of_swc() {
    // Found by the fuzzer (fuzz/regressions/javascript/swc-debug-assertion): an arrow after
    // two parenthesized items trips a `debug_assert_eq!` in swc 47's parser
    // (`parse_args_or_pats_inner`). With debug assertions (the dev profile, and the fuzz
    // harness) swc panics on the gate's thread, and the gate lets the candidate through to the
    // test, as it does for every parser panic; in a release build the assertion is compiled out.
    let src = b"const add = (a, b = 1\n => a + b;\n";
    let verdict = JavaScript.gate(src);
    if cfg!(debug_assertions) {
        assert!(verdict, "a parser panic lets the candidate through");
    }
    let text = std::str::from_utf8(src).expect("UTF-8");
    assert_eq!(render(&parse(text), &Edits::new()), text);
}

#[test]
fn auto_deletes_the_character_after_a_backslash_where_the_escape_goes_on() {
    // Interesting while there is a legacy octal escape other than `\0`: a backslash and up to
    // three octal digits, not all `0`. `\033` is one escape of three characters: the character
    // pass sees `\0` as one character and gets to `\03` (without `3` it is `\0`, without `\0`
    // no escape), and deleting the `0` just after the backslash leaves `\3`.
    let test = |bytes: &[u8]| {
        (0..bytes.len()).any(|i| {
            let digits: Vec<u8> = bytes[i + 1..]
                .iter()
                .copied()
                .take(3)
                .take_while(|b| (b'0'..=b'7').contains(b))
                .collect();
            bytes[i] == b'\\' && digits.iter().any(|&d| d != b'0')
        })
    };
    let reduced = auto(b"var s = \"\\033[40m\";\n", &test);
    // The declaration goes too: the test reads only the bytes.
    assert_eq!(String::from_utf8(reduced.best).unwrap(), "\"\\3\"");
}

#[test]
fn auto_substitutes_a_statement_by_a_token_sequence_of_another_kind() {
    // Interesting while the program uses syntax that ES5 lacks (a stand-in for an ES5-only
    // parser's parse error): a declaration with `const`, or a template literal. No piece of the
    // declaration is ES2015 on its own; `0`, `a` and `""` are ES5; `` `` `` is the shortest.
    let test = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        text.contains("const") || text.contains('`')
    };
    let reduced = auto(b"const { x } = require(\"m\");\nvar y = 1;\n", &test);
    assert_eq!(String::from_utf8(reduced.best).unwrap(), "``");
    assert_eq!(
        reduced.report.stats.tests_by_move.get("substitute"),
        Some(&4)
    );
}

#[test]
fn auto_replaces_an_assignment_statement_by_its_right_hand_side() {
    // Interesting while the file holds the escape `\0`. GTR's substitution by a child takes the
    // assignment's right-hand side in place of the assignment (the statement becomes an
    // expression statement of the string), and the string loses its other characters.
    let test = |bytes: &[u8]| bytes.windows(2).any(|w| w == b"\\0");
    let reduced = auto(b"a = \"x\\0y\";\n", &test);
    assert_eq!(String::from_utf8(reduced.best).unwrap(), "\"\\0\"");
}

#[test]
fn module_specifiers_are_no_literals_to_shrink_but_other_strings_are() {
    // The strings that name a module stay whole (a shorter name loads another module or none);
    // a `require`'s second argument, a method called `require` and another function's argument
    // name none.
    let src = "const a = require('m1');\nimport b from 'm2';\nimport('m3');\nexport * from 'm4';\nrequire('s1', 's2');\no.require('s3');\nf('s4');\n";
    let doc = JavaScript.parse(src.as_bytes()).expect("parses");
    let lex = JavaScript.lexicon(&doc).expect("javascript has a lexicon");
    let mut literals: Vec<&str> = lex
        .tokens
        .iter()
        .filter(|t| matches!(t.kind, whittle_core::TokenKind::Literal { .. }))
        .map(|t| &src[t.span.clone()])
        .collect();
    literals.sort_unstable();
    assert_eq!(literals, ["'s2'", "'s3'", "'s4'"]);
}

#[test]
fn the_blank_nodes_are_the_comments() {
    let src = "a = 1 // one\n/* two */ b = 2\nf(/*x*/ 3, \"// no\")\nc\n";
    let doc = parse(src);
    let tree = &doc.tree;
    let blanks = JavaScript.blanks(&doc);
    let texts: Vec<&str> = (blanks.iter())
        .map(|&n| std::str::from_utf8(tree.text(n)).unwrap())
        .collect();
    // Not the `//` inside the string.
    assert_eq!(texts, ["// one", "/* two */", "/*x*/"]);
    let edits: Edits = blanks.into_iter().map(|n| (n, Edit::Delete)).collect();
    assert_eq!(
        render(&doc, &edits),
        "a = 1 \n b = 2\nf( 3, \"// no\")\nc\n"
    );
}

#[test]
fn the_literal_probe_is_each_literal_once_as_a_statement() {
    let src = "'use strict';\n\
               const s = 'a' + \"b\", n = 0x1f, r = /x{2}/g;\n\
               function f(x) { return x === 'a' ? `t` : `u${'in' + x}v`; }\n\
               f(1.5e3, 'a', /* 'no' */ [2n]);\n\
               const w = String.raw`C:\\users\\x`, k = tag`k` + tag`m${'s'}`;\n";
    let probe = JavaScript
        .literals_alone(&parse(src))
        .expect("it has literals");
    // Not `'use strict'` (first, it would make the probe strict), nor the comment's `'no'`; the
    // second `'a'` is left out; the template with a substitution is left out, the string inside
    // its substitution is not; so are the tagged templates (`\u` is no escape untagged), but for
    // the string in the substitution of one.
    assert_eq!(
        String::from_utf8(probe).unwrap(),
        "'a';\n\"b\";\n0x1f;\n/x{2}/g;\n`t`;\n'in';\n1.5e3;\n2n;\n's';\n"
    );
    assert!(JavaScript.literals_alone(&parse("f(x);\n")).is_none());
}

/// Where the test is about one literal (here a pattern node 20 refuses, three functions deep),
/// the probe makes the file a flat list of literals in one test (right after the input and the
/// empty file),
/// and the reduction goes on from there.
#[test]
fn the_literal_probe_finds_a_literal_deep_in_functions() {
    let src = "const MONTHS = ['Jan', 'Feb', 'Mar'];\n\
               function makeFormatter(options) {\n\
               \x20 const sep = options.separator || '/';\n\
               \x20 function parse(text) {\n\
               \x20   function parseTime(t) {\n\
               \x20     const clock = /(?<h>\\d{1,2}):(?<m>\\d{2})(?<h>[ap]m)?/i;\n\
               \x20     return clock.exec(t);\n\
               \x20   }\n\
               \x20   return parseTime(text.split('T')[1] || '00:00');\n\
               \x20 }\n\
               \x20 return { parse, short: (d) => d.join(sep + MONTHS[0]) };\n\
               }\n\
               console.log(makeFormatter({ separator: '.' }).parse('2024-02-29T13:45'));\n";
    let pattern = b"/(?<h>\\d{1,2}):(?<m>\\d{2})(?<h>[ap]m)?/i";
    let tested = std::sync::Mutex::new(Vec::new());
    let test = |bytes: &[u8]| {
        tested.lock().unwrap().push(bytes.to_vec());
        JavaScript.gate(bytes) && bytes.windows(pattern.len()).any(|w| w == pattern)
    };
    let reduced = auto(src.as_bytes(), &test);
    assert_eq!(reduced.best, pattern);
    let probe = "'Jan';\n'Feb';\n'Mar';\n'/';\n\
                 /(?<h>\\d{1,2}):(?<m>\\d{2})(?<h>[ap]m)?/i;\n\
                 'T';\n1;\n'00:00';\n0;\n'.';\n'2024-02-29T13:45';\n";
    // The input, the empty file, then the probe.
    let tested = tested.into_inner().unwrap();
    let first: Vec<_> = tested
        .iter()
        .take(3)
        .map(|t| String::from_utf8_lossy(t))
        .collect();
    assert_eq!(first, [src, "", probe]);
    let by_move = &reduced.report.stats.tests_by_move;
    assert_eq!(by_move.get("literals-alone"), Some(&1), "{by_move:?}");
}

/// The literal probe of every fixture (`fixtures/javascript`: templates, regular expressions,
/// ASI, classes, modules) passes the gate, and V8 agrees.
#[test]
fn the_literal_probe_of_every_fixture_passes_the_gate_and_v8() {
    let probes: Vec<String> = (fixtures().iter())
        .filter(|(_, bytes)| JavaScript.gate(bytes))
        .filter_map(|(_, bytes)| {
            JavaScript.literals_alone(&parse(std::str::from_utf8(bytes).unwrap()))
        })
        .map(|probe| String::from_utf8(probe).unwrap())
        .collect();
    assert!(probes.len() >= 8, "{} probes", probes.len());
    for (probe, v8) in probes.iter().zip(v8_verdicts(&probes)) {
        assert!(
            JavaScript.gate(probe.as_bytes()),
            "the gate rejects:\n{probe}"
        );
        assert_eq!(v8, None, "V8 rejects:\n{probe}");
    }
}
