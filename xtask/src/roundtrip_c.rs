//! `cargo xtask c-roundtrip [--lang c|cpp]`: the C and C++ formats' contract on their corpora
//! (`C_CRATES`, `CPP_CRATES` of `corpora.rs`, fetched into `target/corpus/` as `cargo xtask
//! corpora` does). Every file is parsed, rendered unedited and compared with its bytes; the
//! command counts the files, their bytes, the files tree-sitter needed `ERROR` nodes for, and
//! the files the gate reads without an error; it also runs the gate's counts and the
//! declaration moves on every file, and fails if one file does not come back byte for byte or
//! anything panics.

use crate::corpora::{Bundle, C_CRATES, CPP_CRATES, crate_files};
use crate::roundtrip::first_difference;
use crate::workspace_root;
use anyhow::Result;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;
use whittle_core::{Edits, Format};

#[derive(clap::Args, Debug)]
pub(crate) struct CRoundtripArgs {
    /// Only this corpus (c or cpp); both without it.
    #[arg(long, value_parser = ["c", "cpp"])]
    lang: Option<String>,
    /// How many failing files to list.
    #[arg(long, default_value_t = 10)]
    show: usize,
}

/// The counts of one corpus.
#[derive(Debug, Default)]
struct Tally {
    files: usize,
    bytes: u64,
    exact: usize,
    /// Files whose tree has an `ERROR` node (what the grammar could not read).
    with_errors: usize,
    /// `ERROR` nodes in all files.
    errors: usize,
    /// Files the gate reads without an error (no `ERROR` node and no `MISSING` token).
    gate: usize,
    failures: Vec<String>,
    failed: usize,
}

impl Tally {
    /// The counts as one line of the report.
    fn line(&self) -> String {
        format!(
            "{} files, {} bytes; byte-exact {}, failed or panicked {}; \
             with ERROR nodes {} ({} ERROR nodes); gate passes {}",
            self.files,
            self.bytes,
            self.exact,
            self.failed,
            self.with_errors,
            self.errors,
            self.gate
        )
    }

    fn add(&mut self, other: Tally) {
        self.files += other.files;
        self.bytes += other.bytes;
        self.exact += other.exact;
        self.with_errors += other.with_errors;
        self.errors += other.errors;
        self.gate += other.gate;
        self.failed += other.failed;
        self.failures.extend(other.failures);
    }
}

fn tally(format: &dyn Format, files: &[PathBuf], show: usize) -> Result<Tally> {
    let mut t = Tally::default();
    for path in files {
        let bytes = std::fs::read(path)?;
        t.files += 1;
        t.bytes += bytes.len() as u64;
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let doc = format
                .parse(&bytes)
                .map_err(|e| format!("parse error: {e}"))?;
            let mut out = Vec::with_capacity(bytes.len());
            format.render(&doc, &Edits::new(), &mut out);
            let errors = doc
                .tree
                .nodes()
                .filter(|&n| doc.tree.label(n) == whittle_treesitter::ERROR_LABEL)
                .count();
            // The gate's counts, the declaration moves and the slice's parts, for their panics.
            let allowance = format.gate_allowance(&bytes).unwrap_or_default();
            for m in format.list_moves() {
                (m.changes)(&doc);
            }
            format.slices(&doc);
            match first_difference(&bytes, &out) {
                None => Ok((errors, allowance.first() == Some(&0))),
                Some(offset) => Err(format!("renders differently from byte {offset}")),
            }
        }));
        let outcome = outcome.unwrap_or_else(|payload| {
            let why = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(format!("panic: {why}"))
        });
        match outcome {
            Ok((errors, gate)) => {
                t.exact += 1;
                t.errors += errors;
                t.with_errors += usize::from(errors > 0);
                t.gate += usize::from(gate);
            }
            Err(why) => {
                t.failed += 1;
                if t.failures.len() < show {
                    t.failures.push(format!("{}: {why}", path.display()));
                }
            }
        }
    }
    Ok(t)
}

pub(crate) fn run(args: &CRoundtripArgs) -> Result<ExitCode> {
    let root = workspace_root();
    let corpora: [(&dyn Format, &[Bundle]); 2] =
        [(&whittle_c::C, &C_CRATES), (&whittle_c::CPP, &CPP_CRATES)];
    let mut ok = true;
    // A panicking parser is counted and listed, not printed once per file.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for (format, crates) in corpora {
        if args.lang.as_deref().is_some_and(|l| l != format.name()) {
            continue;
        }
        let started = Instant::now();
        let mut all = Tally::default();
        let mut lines = Vec::new();
        for c in crates {
            let files = crate_files(&root, format, std::slice::from_ref(c))?;
            let t = tally(format, &files, args.show)?;
            lines.push(format!("  {}@{}: {}", c.name, c.version, t.line()));
            all.add(t);
        }
        println!(
            "{}: {} ({:.1} s)",
            format.name(),
            all.line(),
            started.elapsed().as_secs_f64()
        );
        for line in lines {
            println!("{line}");
        }
        for f in all.failures.iter().take(args.show) {
            println!("  {f}");
        }
        ok &= all.failed == 0;
    }
    std::panic::set_hook(hook);
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
