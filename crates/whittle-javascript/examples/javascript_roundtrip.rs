//! Round trip over a directory of JavaScript files (by default the npm corpus in
//! `target/corpus/javascript`, see `docs/javascript.md` for how to fetch it): how many parse
//! without error nodes, render back byte for byte, and pass the gate (and, for those that do,
//! whether their literal probe does too); and, for the largest file,
//! the parse time, the median render time of a candidate with one deletion, and the gate time.
//! On every file under 500 KB it also deletes up to 20 statements, one at a time, and checks that
//! the other statements of the list stay apart (automatic semicolon insertion did not join two of
//! them).
//!
//! `cargo run --release -p whittle-javascript --example javascript_roundtrip [DIR | FILE]` (given a file, only
//! its timings).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use whittle_core::{Edit, Edits, Format};
use whittle_javascript::JavaScript;

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            walk(&p, out);
        } else if ft.is_file()
            && p.extension()
                .is_some_and(|x| JavaScript.extensions().iter().any(|e| x == *e))
        {
            out.push(p);
        }
    }
}

const LISTS: [&str; 5] = [
    "program",
    "statement_block",
    "switch_case",
    "switch_default",
    "class_body",
];

/// Statements of list `p`, comments and empty statements aside.
fn statements(t: &whittle_core::Tree, p: whittle_core::NodeId) -> usize {
    t.children(p)
        .iter()
        .filter(|&&k| !["comment", "html_comment", "empty_statement"].contains(&t.label(k)))
        .count()
}

/// Deletes up to 20 statements of `doc` (spread over the file), one at a time; returns how many
/// were tried and the descriptions of those after which the list lost more than one statement.
fn asi_check(doc: &whittle_core::Document) -> (usize, Vec<String>) {
    let t = &doc.tree;
    let all: Vec<_> = t
        .nodes()
        .filter(|&n| {
            t.parent(n).is_some_and(|p| LISTS.contains(&t.label(p)))
                && !["comment", "html_comment", "empty_statement"].contains(&t.label(n))
        })
        .collect();
    let step = (all.len() / 20).max(1);
    let (mut tried, mut joined) = (0, Vec::new());
    for &n in all.iter().step_by(step) {
        let p = t.parent(n).expect("a list child");
        let mut out = Vec::new();
        JavaScript.render(doc, &[(n, Edit::Delete)].into_iter().collect(), &mut out);
        let Ok(after) = JavaScript.parse(&out) else {
            continue;
        };
        let start = t.span(p).start;
        let Some(p2) = after
            .tree
            .nodes()
            .find(|&m| after.tree.label(m) == t.label(p) && after.tree.span(m).start == start)
        else {
            continue;
        };
        tried += 1;
        if statements(&after.tree, p2) + 1 < statements(t, p) {
            joined.push(format!("deleting {:?}", String::from_utf8_lossy(t.text(n))));
        }
    }
    (tried, joined)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// Parse, render and gate timings on one (large) file.
fn scale(path: &Path) {
    let src = std::fs::read(path).expect("readable");
    let started = Instant::now();
    let doc = JavaScript.parse(&src).expect("parses");
    let parse = started.elapsed();
    let t = &doc.tree;
    let mut out = Vec::with_capacity(src.len());
    let started = Instant::now();
    JavaScript.render(&doc, &Edits::new(), &mut out);
    let unedited = started.elapsed();
    // One deletion per candidate, spread over the whole tree (every k-th node).
    let step = (t.len() / 200).max(1);
    let mut times = Vec::new();
    for n in t.nodes().skip(1).step_by(step) {
        let edits: Edits = [(n, Edit::Delete)].into_iter().collect();
        out.clear();
        let started = Instant::now();
        JavaScript.render(&doc, &edits, &mut out);
        times.push(started.elapsed());
    }
    let render = median(times);
    let mut gates = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        assert!(JavaScript.gate(&src));
        gates.push(started.elapsed());
    }
    println!(
        "{} ({} bytes, {} nodes, height {}): parse {:.1} ms, unedited render {:.2} ms, \
         median render of one deletion {:.2} ms, gate {:.1} ms",
        path.display(),
        src.len(),
        t.len(),
        t.height(),
        parse.as_secs_f64() * 1e3,
        unedited.as_secs_f64() * 1e3,
        render.as_secs_f64() * 1e3,
        median(gates).as_secs_f64() * 1e3,
    );
}

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../target/corpus/javascript"
        )
        .to_string()
    });
    if Path::new(&dir).is_file() {
        scale(Path::new(&dir));
        return;
    }
    let mut files = Vec::new();
    walk(Path::new(&dir), &mut files);
    files.sort();
    let (mut clean, mut exact, mut gate, mut bytes) = (0, 0, 0, 0usize);
    let (mut probes, mut probes_ok) = (0, 0);
    let (mut deletions, mut joins) = (0, 0);
    let mut failures = Vec::new();
    let mut largest: Option<(usize, PathBuf)> = None;
    let started = Instant::now();
    for f in &files {
        let Ok(src) = std::fs::read(f) else { continue };
        bytes += src.len();
        if largest.as_ref().is_none_or(|(l, _)| src.len() > *l) {
            largest = Some((src.len(), f.clone()));
        }
        let Ok(doc) = JavaScript.parse(&src) else {
            failures.push(format!("{}: parse failed", f.display()));
            continue;
        };
        if doc.diagnostics.is_empty() {
            clean += 1;
        } else {
            failures.push(format!("{}: {}", f.display(), doc.diagnostics[0]));
        }
        let mut out = Vec::new();
        JavaScript.render(&doc, &Edits::new(), &mut out);
        if out == src {
            exact += 1;
        } else {
            failures.push(format!("{}: round trip differs", f.display()));
        }
        let (tried, joined) = if src.len() < 500_000 {
            asi_check(&doc)
        } else {
            (0, Vec::new())
        };
        deletions += tried;
        joins += joined.len();
        for j in joined.iter().take(2) {
            failures.push(format!("{}: {j} joined statements", f.display()));
        }
        if JavaScript.gate(&src) {
            gate += 1;
            // The literal probe of a file the gate accepts passes it too.
            if let Some(probe) = JavaScript.literals_alone(&doc) {
                probes += 1;
                if JavaScript.gate(&probe) {
                    probes_ok += 1;
                } else {
                    failures.push(format!(
                        "{}: the gate rejects its literal probe",
                        f.display()
                    ));
                }
            }
        } else {
            failures.push(format!("{}: the gate rejects it", f.display()));
        }
    }
    for f in failures.iter().take(40) {
        println!("{f}");
    }
    println!(
        "files {}, no_error_nodes {clean}, roundtrip_ok {exact}, gate_ok {gate}, \
         literal probes passing the gate {probes_ok} of {probes}, \
         statement deletions {deletions} of which joined {joins}, {:.1} MB in {:.2} s",
        files.len(),
        bytes as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
    if let Some((_, path)) = largest {
        print!("largest file: ");
        scale(&path);
    }
}
