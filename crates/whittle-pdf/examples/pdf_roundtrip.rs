//! Round trip over PDF files: parse, write afresh (the form every candidate has), parse again,
//! compare the trees, and optionally run `qpdf --check` on the rewritten file.
//!
//! Usage: `cargo run --release -p whittle-pdf --example pdf_roundtrip -- [--qpdf] [--dump]
//! [--write DIR] FILE...` (`--dump` also prints each file's tree, one line per node; `--write`
//! saves each rewrite in DIR under the file's name).
//! Prints one line per file: bytes, nodes, objects, rewritten bytes, whether the trees agree, the
//! gate, qpdf's verdict and the times.
#![allow(
    clippy::disallowed_methods,
    reason = "the optional qpdf check runs an external program"
)]

use std::process::ExitCode;
use std::time::Instant;
use whittle_core::{Format, Tree};
use whittle_pdf::{Pdf, rewrite};

/// The first difference between two trees, if any.
fn diff(a: &Tree, b: &Tree) -> Option<String> {
    for (x, y) in a.nodes().zip(b.nodes()) {
        if a.label(x) != b.label(y)
            || a.edge(x) != b.edge(y)
            || a.children(x).len() != b.children(y).len()
            || (a.children(x).is_empty() && a.text(x) != b.text(y))
        {
            return Some(format!(
                "node {}: {} {} {:?} vs {} {} {:?}",
                x.0,
                a.edge(x),
                a.label(x),
                String::from_utf8_lossy(a.text(x))
                    .chars()
                    .take(60)
                    .collect::<String>(),
                b.edge(y),
                b.label(y),
                String::from_utf8_lossy(b.text(y))
                    .chars()
                    .take(60)
                    .collect::<String>(),
            ));
        }
    }
    (a.len() != b.len()).then(|| format!("{} vs {} nodes", a.len(), b.len()))
}

fn main() -> ExitCode {
    let mut qpdf = false;
    let mut dump = false;
    let mut ok = true;
    let mut write_to: Option<std::path::PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--write" {
            write_to = args.next().map(Into::into);
            continue;
        }
        if arg == "--qpdf" {
            qpdf = true;
            continue;
        }
        if arg == "--dump" {
            dump = true;
            continue;
        }
        let bytes = match std::fs::read(&arg) {
            Ok(b) => b,
            Err(e) => {
                println!("{arg}: {e}");
                ok = false;
                continue;
            }
        };
        let t = Instant::now();
        let doc = match Pdf.parse(&bytes) {
            Ok(d) => d,
            Err(e) => {
                println!("{arg}: parse error: {e}");
                continue;
            }
        };
        let parse = t.elapsed();
        if dump {
            print!("{}", doc.tree.dump());
        }
        let t = Instant::now();
        let out = rewrite(&doc);
        let write = t.elapsed();
        if let Some(dir) = &write_to {
            let name = std::path::Path::new(&arg).file_name().unwrap_or_default();
            let _ = std::fs::write(dir.join(name), &out);
        }
        let again = Pdf.parse(&out);
        let same = match &again {
            Ok(d) => diff(&doc.tree, &d.tree).map_or("same tree".to_string(), |d| {
                ok = false;
                format!("TREE DIFFERS: {d}")
            }),
            Err(e) => {
                ok = false;
                format!("REPARSE FAILS: {e}")
            }
        };
        let gate = Pdf.gate(&out);
        ok &= gate;
        let check = if qpdf {
            let tmp =
                std::env::temp_dir().join(format!("whittle-pdf-rt-{}.pdf", std::process::id()));
            let _ = std::fs::write(&tmp, &out);
            let o = std::process::Command::new("qpdf")
                .arg("--check")
                .arg(&tmp)
                .output();
            let _ = std::fs::remove_file(&tmp);
            match o {
                Ok(o) if o.status.success() => "qpdf ok".to_string(),
                Ok(o) => {
                    ok = false;
                    format!(
                        "QPDF {}: {}",
                        o.status,
                        String::from_utf8_lossy(&o.stderr)
                            .lines()
                            .next()
                            .unwrap_or("")
                    )
                }
                Err(e) => format!("qpdf not run: {e}"),
            }
        } else {
            String::new()
        };
        println!(
            "{arg}: {} bytes, {} nodes, depth {}, rewritten {} bytes ({:.1} %), {same}, gate {gate}, {check}, parse {parse:?}, write {write:?}",
            bytes.len(),
            doc.tree.len(),
            doc.tree.height(),
            out.len(),
            100.0 * out.len() as f64 / bytes.len().max(1) as f64,
        );
        for d in &doc.diagnostics {
            println!("  note: {}", d.message);
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
