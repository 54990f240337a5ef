//! The crate's own rules, checked on its source (as rust-analyzer's `xtask/src/tidy.rs` does):
//! its modules import each other in one direction only (`docs/ARCHITECTURE.md`), and only the
//! `oracle` module starts processes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The crate's modules (a folder module counts as one), each with the modules it names.
type Graph = BTreeMap<String, BTreeSet<String>>;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The `.rs` files under `dir`, with the top-level module each belongs to.
fn files(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("a directory entry").path();
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("a UTF-8 file name")
            .to_string();
        if path.is_dir() {
            let mut stack = vec![path];
            while let Some(d) = stack.pop() {
                for e in std::fs::read_dir(&d).expect("a readable folder") {
                    let p = e.expect("a directory entry").path();
                    if p.is_dir() {
                        stack.push(p);
                    } else if p.extension().is_some_and(|x| x == "rs") {
                        out.push((name.clone(), p));
                    }
                }
            }
        } else if path.extension().is_some_and(|x| x == "rs") && name != "lib" {
            out.push((name, path));
        }
    }
    out
}

/// The source without its comments (a module named in a doc comment is not imported).
fn code(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The modules `text` names: `crate::m`, and each `m` of `use crate::{m, n::x}`.
fn named(text: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = BTreeSet::new();
    for (i, _) in text.match_indices("crate::") {
        let rest = &text[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            for item in group.split(',') {
                let m = ident(item.trim());
                if !m.is_empty() {
                    out.insert(m);
                }
            }
        } else {
            let m = ident(rest);
            if !m.is_empty() {
                out.insert(m);
            }
        }
    }
    out
}

fn graph(sources: &[(String, String)]) -> Graph {
    let mut g = Graph::new();
    for (module, text) in sources {
        let deps = g.entry(module.clone()).or_default();
        deps.extend(named(&code(text)).into_iter().filter(|m| m != module));
    }
    let known: BTreeSet<String> = g.keys().cloned().collect();
    for deps in g.values_mut() {
        deps.retain(|d| known.contains(d));
    }
    g
}

/// A cycle of imports, if there is one.
fn cycle(g: &Graph) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    fn visit(
        g: &Graph,
        m: &str,
        marks: &mut BTreeMap<String, Mark>,
        path: &mut Vec<String>,
    ) -> bool {
        match marks[m] {
            Mark::Done => return false,
            Mark::Open => {
                let from = path.iter().position(|p| p == m).unwrap_or(0);
                path.drain(..from);
                path.push(m.to_string());
                return true;
            }
            Mark::New => {}
        }
        marks.insert(m.to_string(), Mark::Open);
        path.push(m.to_string());
        for d in &g[m] {
            if visit(g, d, marks, path) {
                return true;
            }
        }
        path.pop();
        marks.insert(m.to_string(), Mark::Done);
        false
    }
    let mut marks: BTreeMap<String, Mark> = g.keys().map(|k| (k.clone(), Mark::New)).collect();
    for m in g.keys() {
        let mut path = Vec::new();
        if visit(g, m, &mut marks, &mut path) {
            return Some(path);
        }
    }
    None
}

/// The modules of the engine proper (`docs/ARCHITECTURE.md`).
const ENGINE: [&str; 8] = [
    "engine",
    "judge",
    "pool",
    "plan",
    "lookahead",
    "ddmin",
    "observe",
    "sweep",
];

fn sources() -> Vec<(String, String)> {
    files(&src())
        .into_iter()
        .map(|(m, p)| {
            let text = std::fs::read_to_string(&p).expect("a UTF-8 source file");
            (m, text)
        })
        .collect()
}

#[test]
fn the_modules_import_each_other_in_one_direction_only() {
    let g = graph(&sources());
    // The engine's modules are all there (a rename that hid one would make this test vacuous).
    for m in ENGINE.iter().chain(&["split", "error", "candidate"]) {
        assert!(g.contains_key(*m), "module {m} not found");
    }
    if let Some(c) = cycle(&g) {
        panic!("modules import each other in a circle: {}", c.join(" → "));
    }
}

#[test]
fn the_leaf_modules_of_the_engine_import_none_of_it() {
    let g = graph(&sources());
    for leaf in ["error", "candidate", "split", "stats", "load"] {
        let bad: Vec<_> = g[leaf]
            .iter()
            .filter(|d| ENGINE.contains(&d.as_str()))
            .collect();
        assert!(bad.is_empty(), "{leaf} imports {bad:?}");
    }
}

#[test]
fn only_the_oracle_module_starts_processes() {
    for (module, text) in sources() {
        let code = code(&text);
        let spawns = code.contains("Command::new") || code.contains("process::Command");
        assert!(
            module == "oracle" || !spawns,
            "module {module} starts a process; only the oracle module may"
        );
    }
}

#[test]
fn the_checker_finds_a_circle_and_reads_grouped_imports() {
    let sources = [
        (
            "a".to_string(),
            "use crate::{b, c::X};\n// crate::d\n".to_string(),
        ),
        ("b".to_string(), "fn f() { crate::c::g() }".to_string()),
        ("c".to_string(), "use crate::a::Y;".to_string()),
        ("d".to_string(), String::new()),
    ];
    let g = graph(&sources);
    assert_eq!(g["a"], BTreeSet::from(["b".to_string(), "c".to_string()]));
    let c = cycle(&g).expect("a → c → a is a circle");
    assert_eq!(c.first(), c.last());
    assert!(c.contains(&"a".to_string()) && c.contains(&"c".to_string()));
    let acyclic = graph(&sources[..2]);
    assert_eq!(cycle(&acyclic), None);
}
