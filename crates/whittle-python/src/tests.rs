#![allow(
    clippy::disallowed_methods,
    reason = "the tests compile results with the real python3"
)]

use crate::{Python, SpliceBlock};
use std::path::PathBuf;
use whittle_core::{Document, Edit, Edits, Format, NodeId, SubstituteByChild, Template};

/// `input` reduced by the default pipeline (`auto`) while `test` says it is interesting.
fn auto(input: &[u8], test: &(dyn Fn(&[u8]) -> bool + Sync)) -> whittle_core::Reduced {
    whittle_core::Reduction::new(&Python, &test, input)
        .algorithm(whittle_core::Algorithm::Auto)
        .run()
        .expect("runs")
}

fn fixtures() -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/python");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures/python exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| (p.clone(), std::fs::read(&p).expect("read fixture")))
        .collect()
}

fn render_bytes(doc: &Document, edits: &Edits) -> Vec<u8> {
    let mut out = Vec::new();
    Python.render(doc, edits, &mut out);
    out
}

fn render(doc: &Document, edits: &Edits) -> String {
    String::from_utf8(render_bytes(doc, edits)).expect("UTF-8 in, UTF-8 out")
}

/// Compiles each source with the real `python3` and returns, per source, `None` if it compiled,
/// else the error message.
fn compile_all(sources: &[String]) -> Vec<Option<String>> {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut paths = Vec::new();
    for (i, s) in sources.iter().enumerate() {
        let p = dir.path().join(format!("c{i}.py"));
        std::fs::write(&p, s).expect("write");
        paths.push(p);
    }
    let script = "import sys\nfor p in sys.argv[1:]:\n    try:\n        compile(open(p).read(), p, 'exec')\n        print('OK')\n    except SyntaxError as e:\n        print('ERR', e.msg)\n";
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(&paths)
        .output()
        .expect("python3 is needed by this test");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let verdicts: Vec<Option<String>> = text
        .lines()
        .map(|l| if l == "OK" { None } else { Some(l.to_string()) })
        .collect();
    assert_eq!(
        verdicts.len(),
        sources.len(),
        "python3 said: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    verdicts
}

#[test]
fn fixtures_round_trip_and_pass_the_gate() {
    for (path, bytes) in fixtures() {
        let doc = Python
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
        assert!(Python.gate(&bytes), "{}", path.display());
    }
}

#[test]
fn the_gate_follows_cpythons_grammar() {
    assert!(Python.gate(b"x = f'{a!r:>{width}}'\n"));
    assert!(Python.gate(b"match x:\n    case [1, *r]:\n        pass\n"));
    assert!(Python.gate(b"try:\n    pass\nexcept* E:\n    pass\n"));
    assert!(!Python.gate(b"if x:\npass\n"), "an unindented block");
    assert!(!Python.gate(b"f(a,, b)\n"));
    assert!(!Python.gate(b"def f(:\n    pass\n"));
    assert!(!Python.gate(b"x = 1\n\xff\n"), "not UTF-8");
    assert!(
        Python.gate(b"# -*- coding: latin-1 -*-\nx = '\xe9'\n"),
        "a PEP 263 cookie"
    );
    assert!(
        Python.gate(b"#!/usr/bin/python3\n# vim: set fileencoding=iso-8859-15 :\ns = '\xa4'\n")
    );
    assert!(
        !Python.gate(b"x = 1\n\n# coding: latin-1\ny = '\xe9'\n"),
        "only the first two lines count"
    );
}

/// Every move that changes indentation (a compound statement replaced by one of its blocks) on
/// every fixture gives code that parses, and that CPython compiles unless the moved code is only
/// legal where it was (`return` outside a function, `break` outside a loop, …).
#[test]
fn every_indentation_changing_move_gives_valid_python() {
    let mut sources = Vec::new();
    for (_, bytes) in fixtures() {
        let doc = Python.parse(&bytes).unwrap();
        let t = &doc.tree;
        for n in t.nodes() {
            let mut cands = Vec::new();
            SubstituteByChild.candidates(&doc, n, None, &mut cands);
            SpliceBlock.candidates(&doc, n, None, &mut cands);
            for c in cands {
                let Edit::Replace(d) = c else { continue };
                // Statements only: a clause (`elif`, `except`) replaced by its block is not
                // Python anywhere, and the gate is there to reject it.
                // The same for a decorated definition's `def` (a decorator needs one).
                let statement = ["_statement", "_definition"]
                    .iter()
                    .any(|s| t.label(n).ends_with(s))
                    && t.parent(n)
                        .is_none_or(|p| t.label(p) != "decorated_definition");
                // And a `match`'s own block holds `case` clauses, not statements.
                let cases = t.children(d).iter().any(|&k| t.label(k) == "case_clause");
                if t.label(d) != "block" || !statement || cases {
                    continue;
                }
                let out = render(&doc, &[(n, c)].into_iter().collect());
                assert!(
                    Python.gate(out.as_bytes()),
                    "moving block {} into {}:\n{out}",
                    d.0,
                    t.label(n)
                );
                sources.push(out);
            }
        }
    }
    assert!(
        sources.len() >= 25,
        "the fixtures offer many moves: {}",
        sources.len()
    );
    let context_only = [
        "outside function",
        "outside loop",
        "not properly in loop",
        "outside async function",
    ];
    for (src, verdict) in sources.iter().zip(compile_all(&sources)) {
        if let Some(msg) = verdict {
            assert!(
                context_only.iter().any(|c| msg.contains(c)),
                "{msg}:\n{src}"
            );
        }
    }
}

fn first(doc: &Document, label: &str) -> NodeId {
    doc.tree
        .nodes()
        .find(|&n| doc.tree.label(n) == label)
        .unwrap_or_else(|| panic!("no {label}"))
}

fn check_move(src: &str, stmt: &str, which: usize, expect: &str) {
    let doc = Python.parse(src.as_bytes()).unwrap();
    let n = first(&doc, stmt);
    let mut cands = Vec::new();
    SubstituteByChild.candidates(&doc, n, None, &mut cands);
    SpliceBlock.candidates(&doc, n, None, &mut cands);
    let blocks: Vec<Edit> = cands
        .into_iter()
        .filter(|e| matches!(e, Edit::Replace(d) if doc.tree.label(*d) == "block"))
        .collect();
    let out = render(&doc, &[(n, blocks[which])].into_iter().collect());
    assert_eq!(out, expect);
    assert_eq!(compile_all(std::slice::from_ref(&out)), vec![None], "{out}");
}

#[test]
fn moves_have_the_expected_text() {
    let src = "def f(x):\n    if x:\n        a = 1\n        b = 2\n    elif x is None:\n        c = 3\n    else:\n        d = 4\n    return 0\n";
    check_move(
        src,
        "if_statement",
        0,
        "def f(x):\n    a = 1\n    b = 2\n    return 0\n",
    );
    check_move(
        src,
        "if_statement",
        1,
        "def f(x):\n    c = 3\n    return 0\n",
    );
    check_move(
        src,
        "if_statement",
        2,
        "def f(x):\n    d = 4\n    return 0\n",
    );
    let src = "try:\n    import a\nexcept* E:\n    b()\nfinally:\n    c()\n";
    check_move(src, "try_statement", 2, "c()\n");
    let src = "with open(p) as f, open(q) as g:\n    s = '''x\n  y'''\n    g.write(s)\n";
    check_move(src, "with_statement", 0, "s = '''x\n  y'''\ng.write(s)\n");
    let src =
        "match v:\n    case 1:\n        one()\n    case _:\n        other()\n        more()\n";
    check_move(src, "match_statement", 2, "other()\nmore()\n");
    let src = "class A:\n\tdef m(self):\n\t\tif self:\n\t\t\tpass\n";
    check_move(
        src,
        "if_statement",
        0,
        "class A:\n\tdef m(self):\n\t\tpass\n",
    );
}

#[test]
fn splice_block_reaches_clause_blocks_only() {
    let doc = Python
        .parse(b"if a:\n    x()\nelif b:\n    y()\nelse:\n    z()\n")
        .unwrap();
    let n = first(&doc, "if_statement");
    let mut out = Vec::new();
    assert_eq!(SpliceBlock.candidates(&doc, n, None, &mut out), 0);
    let texts: Vec<&[u8]> = out
        .iter()
        .map(|e| {
            if let Edit::Replace(d) = e {
                doc.tree.text(*d)
            } else {
                b""
            }
        })
        .collect();
    assert_eq!(texts, vec![&b"y()"[..], &b"z()"[..]]);
}

/// A representative sample of the local CPython standard library (every 7th file in path order,
/// about 250 files): each parses, renders back byte for byte, and the gate accepts every file
/// that tree-sitter parses without error (the stdlib's deliberately broken test files aside), and
/// the literal probe of each file it accepts.
#[test]
fn a_sample_of_the_standard_library_round_trips() {
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import sysconfig;print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .expect("python3 is needed by this test");
    let root = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let mut files = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("readable stdlib").flatten() {
            let p = e.path();
            if p.is_dir() && p.file_name().is_some_and(|n| n != "site-packages") {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "py") {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(
        files.len() > 1000,
        "the stdlib has ~1 800 files, found {}",
        files.len()
    );
    let (mut sampled, mut clean, mut gated) = (0, 0, 0);
    for p in files.iter().step_by(7) {
        let bytes = std::fs::read(p).expect("readable");
        let doc = Python
            .parse(&bytes)
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert!(
            render_bytes(&doc, &Edits::new()) == bytes,
            "{}",
            p.display()
        );
        sampled += 1;
        if doc.diagnostics.is_empty() {
            clean += 1;
            let deliberately_broken = p.to_string_lossy().contains("tokenizedata")
                || p.to_string_lossy().contains("lib2to3/tests/data");
            if Python.gate(&bytes) {
                gated += 1;
                if let Some(probe) = Python.literals_alone(&doc) {
                    assert!(Python.gate(&probe), "{}: its probe fails", p.display());
                }
            } else {
                assert!(deliberately_broken, "the gate rejects {}", p.display());
            }
        }
    }
    assert!(
        clean * 100 >= sampled * 99,
        "{clean} of {sampled} without ERROR nodes"
    );
    assert!(gated + 3 >= clean, "{gated} of {clean} pass the gate");
}

/// The names the lexicon marks as bound somewhere in the file, and those it only sees used (and
/// may rename: not those it keeps).
fn bound_and_used(src: &str) -> (Vec<String>, Vec<String>) {
    let doc = Python.parse(src.as_bytes()).expect("parses");
    let lex = Python.lexicon(&doc).expect("python has a lexicon");
    let (mut bound, mut used) = (Vec::new(), Vec::new());
    for t in lex.tokens {
        if let whittle_core::TokenKind::Name {
            bound: b,
            namespace,
        } = t.kind
            && namespace != whittle_core::KEPT_NAMESPACE
        {
            let name = String::from_utf8_lossy(&src.as_bytes()[t.span]).into_owned();
            if b { &mut bound } else { &mut used }.push(name);
        }
    }
    (bound, used)
}

#[test]
fn the_lexicon_knows_which_names_are_bound_in_the_file() {
    let (bound, used) = bound_and_used(
        "import gc\nfrom os import path as p\nclass A:\n    def f(self, y=1):\n        self.w = y\n        q = gc.collect(object)\n",
    );
    // Defined here: the class, the method, its parameters, the attribute assigned through
    // `self`, the alias and the assignment's target.
    assert_eq!(bound, ["p", "A", "f", "self", "y", "w", "q"]);
    // Only used: the module and its function, the imported name, builtins, and the uses of the
    // names above (renamed with them, since they are bound elsewhere).
    assert_eq!(
        used,
        ["gc", "os", "path", "self", "y", "gc", "collect", "object"]
    );
}

#[test]
fn auto_shrinks_a_number_digit_by_digit_while_the_test_allows() {
    // Interesting while the file calls print and holds a number of at least 120: `0` and `1` are
    // too small, so the number loses its last digit round after round, 12345 → 1234 → 123, and
    // stops there (12 is too small).
    let test = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        let big = text
            .split(|c: char| !c.is_ascii_digit())
            .any(|d| d.parse::<u64>().is_ok_and(|n| n >= 120));
        text.contains("print(") && big
    };
    let reduced = auto(b"x = 12345\nprint(x)\n", &test);
    let text = String::from_utf8(reduced.best).unwrap();
    let digits: String = text.chars().filter(char::is_ascii_digit).collect();
    assert_eq!(digits, "123", "{text}");
    assert!(reduced.report.stats.tests_by_move["number"] >= 3);
}

/// The definitions the lexicon offers for inlining: (name, value, uses, wrapped).
fn definitions(src: &str) -> Vec<(String, String, usize, bool)> {
    let doc = Python.parse(src.as_bytes()).expect("parses");
    let lex = Python.lexicon(&doc).expect("python has a lexicon");
    let text = |r: std::ops::Range<usize>| String::from_utf8_lossy(&src.as_bytes()[r]).into_owned();
    lex.tokens
        .into_iter()
        .filter_map(|t| match t.kind {
            whittle_core::TokenKind::Definition { value, wrap, uses } => {
                Some((text(t.span), text(value), uses.len(), wrap))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn the_lexicon_offers_names_bound_once_for_inlining() {
    let defs = definitions(
        "r = f(b)\nc = r[0]\nc[1] = 0\nk = a + 1\nprint(k, k=k)\nq = 1\nq = 2\ndef g():\n    v = 3\n    return v\n",
    );
    // `c[1] = 0` uses `c` (it binds an item, not the name); in `print(k, k=k)` the keyword's name
    // is no use of `k`, so it has two uses, not three; `q` is bound twice, so it is not offered. A statement on a line
    // of its own goes with its indentation and line end.
    assert_eq!(
        defs,
        [
            ("r = f(b)\n".to_string(), "f(b)".to_string(), 1, false),
            ("c = r[0]\n".to_string(), "r[0]".to_string(), 1, false),
            ("k = a + 1\n".to_string(), "a + 1".to_string(), 2, true),
            ("    v = 3\n".to_string(), "3".to_string(), 1, false),
        ]
    );
}

#[test]
fn auto_inlines_a_chain_of_temporaries() {
    // Interesting while python3 prints 6. `r` and `c` are inlined, one per round (`c`'s value
    // uses `r`); then `5` becomes `0`, and the blanks and the last line end go. Nothing else can:
    // `[6]` has no item 1, and neither list can stand for the other.
    let test = |bytes: &[u8]| {
        let out = std::process::Command::new("python3")
            .arg("-c")
            .arg(String::from_utf8_lossy(bytes).as_ref())
            .output()
            .expect("python3 is needed by this test");
        out.status.success() && out.stdout == b"6\n"
    };
    let reduced = auto(b"r = [[5, 6]]\nc = r[0]\nprint(c[1])\n", &test);
    let text = String::from_utf8(reduced.best).unwrap();
    assert_eq!(text, "print([[0,6]][0][1])");
    assert!(reduced.report.stats.tests_by_move["inline"] >= 2);
}

#[test]
fn free_names_are_listed_except_the_special_ones() {
    // No parameter binds `self` here: a free `self` is special and is kept. `len` is a builtin
    // and `x` an attribute the file only reads: both free, both renamable.
    let (bound, used) = bound_and_used("def f():\n    return len(self.x)\n");
    assert_eq!(bound, ["f"]);
    assert_eq!(used, ["len", "x"]);
}

#[test]
fn auto_renames_a_free_name_to_a_name_the_file_does_not_use() {
    // Interesting while the first line assigns 1 to a name and the second passes it to a call of
    // another name. `a` is bound and already one letter; the builtin `len` is free and becomes
    // `b`, not `a`, which the file uses.
    let test = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        let mut lines = text.lines();
        let (Some(first), Some(second)) = (lines.next(), lines.next()) else {
            return false;
        };
        let Some(var) = first.strip_suffix("=1") else {
            return false;
        };
        let Some(callee) = second.strip_suffix(&format!("({var})")) else {
            return false;
        };
        let word = |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase());
        word(var) && word(callee) && callee != var
    };
    let reduced = auto(b"a=1\nlen(a)\n", &test);
    assert_eq!(String::from_utf8(reduced.best).unwrap(), "a=1\nb(a)\n");
    assert_eq!(
        reduced.report.stats.tests_by_move.get("rename-free"),
        Some(&1)
    );
}

#[test]
fn a_block_of_one_simple_statement_may_join_its_header_line() {
    // The `for` block holds an `if`, which cannot follow `:` on its line; the `if` block and
    // the first one hold a simple statement each.
    let src = "if x:\n    y\nfor a in b:\n    if c:\n        d\n";
    let doc = Python.parse(src.as_bytes()).expect("parses");
    let joins: Vec<&str> = Python
        .lexicon(&doc)
        .expect("python has a lexicon")
        .tokens
        .into_iter()
        .filter(|t| t.kind == whittle_core::TokenKind::Space { min: "" })
        .filter(|t| src.as_bytes()[t.span.clone()].contains(&b'\n'))
        .map(|t| &src[t.span])
        .collect();
    assert_eq!(joins, ["\n    ", "\n        "]);
}

#[test]
fn auto_writes_a_one_statement_body_on_its_header_line() {
    // Interesting while `f` is defined and called: its body becomes `0` (the placeholder) on
    // the `def` line.
    let test = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        text.starts_with("def f():") && text.contains("\nf()") && Python.gate(bytes)
    };
    let reduced = auto(b"def f():\n    return 1\nf()\n", &test);
    assert_eq!(String::from_utf8(reduced.best).unwrap(), "def f():0\nf()\n");
}

#[test]
fn the_blank_nodes_are_the_comments() {
    let src = "# -*- coding: utf-8 -*-\ndef f():  # here\n    # alone\n    return '# no'\nx = 1  # c\ny = 2\n";
    let doc = Python.parse(src.as_bytes()).expect("parses");
    let tree = &doc.tree;
    let blanks = Python.blanks(&doc);
    let texts: Vec<&str> = (blanks.iter())
        .map(|&n| std::str::from_utf8(tree.text(n)).unwrap())
        .collect();
    assert_eq!(
        texts,
        ["# -*- coding: utf-8 -*-", "# here", "# alone", "# c"]
    );
    let edits: Edits = blanks.into_iter().map(|n| (n, Edit::Delete)).collect();
    // The line breaks after `# here` and `# c` stay: no line is joined to the one after it.
    assert_eq!(
        render(&doc, &edits),
        "def f():  \n    return '# no'\nx = 1  \ny = 2\n"
    );
}

#[test]
fn the_literal_probe_is_each_literal_once_on_a_line() {
    let src = "\"\"\"Doc.\"\"\"\n\
               x = f\"a{b['k']}c\" + 'd' 'e'\n\
               def f(n=2):\n    return n * 1.5e3 + 0x1f + 2j if n != 'd' else rb'\\d'\n";
    let doc = Python.parse(src.as_bytes()).expect("parses");
    let probe = Python.literals_alone(&doc).expect("it has literals");
    // The f-string with a replacement field is left out, the string inside the field is not;
    // each part of `'d' 'e'` stands alone; the second `'d'` is left out.
    assert_eq!(
        String::from_utf8(probe).unwrap(),
        "\"\"\"Doc.\"\"\"\n'k'\n'd'\n'e'\n2\n1.5e3\n0x1f\n2j\nrb'\\d'\n"
    );
    let empty = Python.parse(b"f(x)\n").expect("parses");
    assert!(Python.literals_alone(&empty).is_none());
}

#[test]
fn the_literal_probe_keeps_the_encoding_declaration() {
    // `café` in Latin-1: without the declaration the probe would not decode.
    let src = b"#!/usr/bin/env python3\n# -*- coding: latin-1 -*-\nx = 'caf\xe9'\n";
    let doc = Python.parse(src).expect("parses");
    assert!(Python.gate(src));
    let probe = Python.literals_alone(&doc).expect("it has a literal");
    assert_eq!(probe, b"# -*- coding: latin-1 -*-\n'caf\xe9'\n");
    assert!(Python.gate(&probe));
}
