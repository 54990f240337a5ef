//! Parses every XML file under a directory and counts how many round-trip byte for byte and how
//! many pass the validity gate.
//!
//! Usage: `cargo run --release -p whittle-xml --example xml_roundtrip -- DIR [--verbose]`
//! Prints `files N, roundtrip_ok N, gate_ok N, subsets_split N, subsets_kept N` (the last two:
//! files with a DOCTYPE whose internal subset became one node per declaration, and internal
//! subsets kept as one leaf because they could not be split), and, with `--verbose`, every file
//! that fails to round-trip, to parse or to pass the gate, or whose subset was kept, with the
//! reason.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use whittle_core::{Edits, Format};
use whittle_xml::Xml;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let Some(dir) = args.next() else {
        eprintln!("usage: roundtrip DIR [--verbose]");
        return ExitCode::from(2);
    };
    let verbose = args.any(|a| a == "--verbose");
    let files = xml_files(Path::new(&dir));
    let (mut roundtrip_ok, mut gate_ok, mut parse_failed) = (0usize, 0usize, 0usize);
    let (mut subsets_split, mut subsets_kept) = (0usize, 0usize);
    let mut out = Vec::new();
    for path in &files {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        match Xml.check(&bytes) {
            Ok(()) => gate_ok += 1,
            Err(d) if verbose => println!("gate rejects: {}: {d}", path.display()),
            Err(_) => {}
        }
        match Xml.parse(&bytes) {
            Ok(doc) => {
                out.clear();
                Xml.render(&doc, &Edits::new(), &mut out);
                if out == bytes {
                    roundtrip_ok += 1;
                } else if verbose {
                    println!("round trip differs: {}", path.display());
                }
                let t = &doc.tree;
                if t.nodes()
                    .any(|n| t.label(n) == "#doctype" && !t.children(n).is_empty())
                {
                    subsets_split += 1;
                }
                for d in &doc.diagnostics {
                    if d.message.starts_with("internal subset kept as one leaf") {
                        subsets_kept += 1;
                        if verbose {
                            println!("{}: {d}", path.display());
                        }
                    }
                }
            }
            Err(e) => {
                parse_failed += 1;
                if verbose {
                    println!("parse error: {}: {e}", path.display());
                }
            }
        }
    }
    if verbose {
        println!("parse_failed {parse_failed}");
    }
    println!(
        "files {}, roundtrip_ok {roundtrip_ok}, gate_ok {gate_ok}, \
         subsets_split {subsets_split}, subsets_kept {subsets_kept}",
        files.len()
    );
    if roundtrip_ok + parse_failed == files.len() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Regular files (not following symbolic links) whose extension is one of the XML format's, in
/// sorted order.
fn xml_files(root: &Path) -> Vec<PathBuf> {
    let extensions = Xml.extensions();
    let mut found = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                dirs.push(path);
            } else if kind.is_file()
                && path
                    .extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| extensions.contains(&e.to_ascii_lowercase().as_str()))
            {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}
