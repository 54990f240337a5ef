//! Round trip over a directory of Python files (by default the local CPython standard library):
//! how many parse without error nodes, render back byte for byte, and pass the gate, and of
//! those, how many have a literal probe that passes it too.
//!
//! `cargo run --release -p whittle-python --example python_roundtrip [DIR]`

use std::path::{Path, PathBuf};
use std::time::Instant;
use whittle_core::{Edits, Format};
use whittle_python::Python;

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            // The standard library proper: installed third-party packages are not part of it.
            if p.file_name().is_some_and(|n| n == "site-packages") {
                continue;
            }
            walk(&p, out);
        } else if ft.is_file() && p.extension().is_some_and(|x| x == "py") {
            out.push(p);
        }
    }
}

#[allow(
    clippy::disallowed_methods,
    reason = "asks python3 where its standard library is"
)]
fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| {
        let out = std::process::Command::new("python3")
            .args([
                "-c",
                "import sysconfig;print(sysconfig.get_paths()['stdlib'])",
            ])
            .output()
            .expect("python3 finds its stdlib");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    });
    let mut files = Vec::new();
    walk(Path::new(&dir), &mut files);
    files.sort();
    let (mut clean, mut exact, mut gate, mut bytes) = (0, 0, 0, 0usize);
    let (mut probes, mut probes_ok) = (0, 0);
    let mut failures = Vec::new();
    let started = Instant::now();
    for f in &files {
        let Ok(src) = std::fs::read(f) else { continue };
        bytes += src.len();
        let Ok(doc) = Python.parse(&src) else {
            failures.push(format!("{}: parse failed", f.display()));
            continue;
        };
        if doc.diagnostics.is_empty() {
            clean += 1;
        }
        let mut out = Vec::new();
        Python.render(&doc, &Edits::new(), &mut out);
        if out == src {
            exact += 1;
        } else {
            failures.push(format!("{}: round trip differs", f.display()));
        }
        if Python.gate(&src) {
            gate += 1;
            // The literal probe of a file the gate accepts passes it too.
            if let Some(probe) = Python.literals_alone(&doc) {
                probes += 1;
                if Python.gate(&probe) {
                    probes_ok += 1;
                } else {
                    failures.push(format!(
                        "{}: the gate rejects its literal probe",
                        f.display()
                    ));
                }
            }
        }
    }
    for f in failures.iter().take(10) {
        println!("{f}");
    }
    println!(
        "files {}, no_error_nodes {clean}, roundtrip_ok {exact}, gate_ok {gate}, \
         literal probes passing the gate {probes_ok} of {probes}, {:.1} MB in {:.2} s",
        files.len(),
        bytes as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
}
