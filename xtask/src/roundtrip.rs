//! `cargo xtask xml-roundtrip [DIR...]`: the XML front end's contract on real files. Every XML
//! file under the directories is parsed with `whittle_xml::Xml`, rendered unedited, compared with
//! the original bytes, and checked with the gate.

use anyhow::Result;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use whittle_core::{Edits, Format};
use whittle_xml::Xml;

/// Extensions (lower case, without the dot) of the files the walk takes.
pub(crate) const EXTENSIONS: [&str; 10] = [
    "xml", "xsl", "xslt", "xsd", "svg", "rng", "kml", "plist", "docbook", "xhtml",
];
/// Files larger than this are skipped.
pub(crate) const MAX_BYTES: u64 = 20 * 1024 * 1024;

#[derive(clap::Args, Debug)]
pub(crate) struct RoundtripArgs {
    /// Directories to walk.
    #[arg(default_value = "/usr/share")]
    dirs: Vec<PathBuf>,
    /// How many failing files of each kind to list.
    #[arg(long, default_value_t = 10)]
    show: usize,
    /// Also run `xmllint --noout --nonet` on every file and list where it and the gate disagree.
    #[arg(long)]
    xmllint: bool,
}

/// The gate's verdict: `Ok`, or why it rejects the file.
pub(crate) type Gate = Result<(), String>;

/// What happened to one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Parsed, rendered back byte for byte; the gate's verdict.
    Exact { gate: Gate },
    /// Parsed, but the rendering differs from the input, first at this byte offset.
    Differs { offset: usize, gate: Gate },
    /// The parser refused it.
    ParseError(String),
    /// The parser, renderer or gate panicked.
    Panic(String),
}

/// The counts the command prints.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    pub(crate) files: usize,
    pub(crate) parsed: usize,
    pub(crate) exact: usize,
    pub(crate) gate: usize,
    pub(crate) panics: usize,
    pub(crate) bytes: u64,
    pub(crate) skipped_large: usize,
    pub(crate) unreadable: usize,
    pub(crate) parse_failures: Vec<(PathBuf, String)>,
    pub(crate) differs: Vec<(PathBuf, usize)>,
    pub(crate) panicked: Vec<(PathBuf, String)>,
    pub(crate) gate_failures: Vec<(PathBuf, String)>,
    /// Files the gate accepts but xmllint rejects, with xmllint's first line.
    pub(crate) xmllint_only_rejects: Vec<(PathBuf, String)>,
    /// Files the gate rejects but xmllint accepts, with the gate's reason.
    pub(crate) gate_only_rejects: Vec<(PathBuf, String)>,
    pub(crate) xmllint_checked: usize,
    pub(crate) xmllint_only_count: usize,
    pub(crate) gate_only_count: usize,
}

impl Tally {
    /// Counts one file's outcome, keeping up to `keep` examples of each failure.
    pub(crate) fn add(&mut self, path: &Path, size: u64, outcome: Outcome, keep: usize) {
        self.files += 1;
        self.bytes += size;
        let gate_verdict = |gate: Gate, t: &mut Tally| match gate {
            Ok(()) => t.gate += 1,
            Err(why) => {
                if t.gate_failures.len() < keep {
                    t.gate_failures.push((path.to_path_buf(), why));
                }
            }
        };
        match outcome {
            Outcome::Exact { gate } => {
                self.parsed += 1;
                self.exact += 1;
                gate_verdict(gate, self);
            }
            Outcome::Differs { offset, gate } => {
                self.parsed += 1;
                gate_verdict(gate, self);
                if self.differs.len() < keep {
                    self.differs.push((path.to_path_buf(), offset));
                }
            }
            Outcome::ParseError(why) => {
                if self.parse_failures.len() < keep {
                    self.parse_failures.push((path.to_path_buf(), why));
                }
            }
            Outcome::Panic(why) => {
                self.panics += 1;
                if self.panicked.len() < keep {
                    self.panicked.push((path.to_path_buf(), why));
                }
            }
        }
    }

    /// The summary the command prints.
    pub(crate) fn summary(&self) -> String {
        let pct = |n: usize| {
            if self.files == 0 {
                "—".to_string()
            } else {
                format!("{:.1} %", 100.0 * n as f64 / self.files as f64)
            }
        };
        let mut s = format!(
            "files:                  {}  ({} bytes)\n\
             parsed:                 {}  ({})\n\
             round-trip byte-exact:  {}  ({})\n\
             pass the gate:          {}  ({})\n",
            self.files,
            self.bytes,
            self.parsed,
            pct(self.parsed),
            self.exact,
            pct(self.exact),
            self.gate,
            pct(self.gate),
        );
        if self.panics > 0 {
            s.push_str(&format!("panicked:               {}\n", self.panics));
        }
        if self.xmllint_checked > 0 {
            s.push_str(&format!(
                "xmllint --noout --nonet: {} files checked; it rejects {} the gate accepts, \
                 and accepts {} the gate rejects\n",
                self.xmllint_checked, self.xmllint_only_count, self.gate_only_count
            ));
        }
        if self.skipped_large > 0 || self.unreadable > 0 {
            s.push_str(&format!(
                "skipped: {} larger than 20 MB, {} unreadable\n",
                self.skipped_large, self.unreadable
            ));
        }
        let mut list = |title: &str, items: Vec<String>| {
            if !items.is_empty() {
                s.push_str(&format!("\n{title}:\n"));
                for i in items {
                    s.push_str(&format!("  {i}\n"));
                }
            }
        };
        list(
            "rendering differs from the input (first differing byte)",
            self.differs
                .iter()
                .map(|(p, o)| format!("{} (byte {o})", p.display()))
                .collect(),
        );
        list(
            "rejected by the gate",
            self.gate_failures
                .iter()
                .map(|(p, w)| format!("{}: {w}", p.display()))
                .collect(),
        );
        list(
            "accepted by the gate, rejected by xmllint",
            self.xmllint_only_rejects
                .iter()
                .map(|(p, w)| format!("{}: {w}", p.display()))
                .collect(),
        );
        list(
            "rejected by the gate, accepted by xmllint",
            self.gate_only_rejects
                .iter()
                .map(|(p, w)| format!("{}: {w}", p.display()))
                .collect(),
        );
        list(
            "parse errors",
            self.parse_failures
                .iter()
                .map(|(p, w)| format!("{}: {w}", p.display()))
                .collect(),
        );
        list(
            "panics",
            self.panicked
                .iter()
                .map(|(p, w)| format!("{}: {w}", p.display()))
                .collect(),
        );
        s
    }
}

/// Whether the walk takes a file of this name.
pub(crate) fn wanted(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// The offset of the first byte where `a` and `b` differ (the shorter length if one is a prefix).
pub(crate) fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    if a == b {
        return None;
    }
    Some(
        a.iter()
            .zip(b)
            .position(|(x, y)| x != y)
            .unwrap_or(a.len().min(b.len())),
    )
}

/// Parses, renders unedited and gates `bytes`.
pub(crate) fn check(bytes: &[u8]) -> Outcome {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let xml = Xml;
        let doc = match xml.parse(bytes) {
            Ok(doc) => doc,
            Err(e) => return Outcome::ParseError(e.to_string()),
        };
        let mut out = Vec::with_capacity(bytes.len());
        xml.render(&doc, &Edits::new(), &mut out);
        let gate = if xml.gate(bytes) {
            Ok(())
        } else {
            // `check` says why; the gate itself is what the engine uses.
            Err(xml.check(bytes).err().map_or_else(
                || "rejected (Xml::check accepts it: gate and check disagree)".to_string(),
                |d| d.to_string(),
            ))
        };
        match first_difference(bytes, &out) {
            None => Outcome::Exact { gate },
            Some(offset) => Outcome::Differs { offset, gate },
        }
    }));
    result.unwrap_or_else(|payload| {
        let why = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".to_string());
        Outcome::Panic(why)
    })
}

/// The files under `dir` the walk takes, in sorted depth-first order, not following symbolic
/// links (an explicit stack, no recursion).
pub(crate) fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| e.file_name());
        let mut subdirs = Vec::new();
        for e in entries {
            let Ok(kind) = e.file_type() else { continue };
            let path = e.path();
            if kind.is_dir() {
                subdirs.push(path);
            } else if kind.is_file() && wanted(&path) {
                files.push(path);
            }
        }
        stack.extend(subdirs.into_iter().rev());
    }
}

/// Runs `xmllint --noout --nonet` on `path`: `Ok` if it accepts the file, else its first line.
fn xmllint(path: &Path) -> Result<(), String> {
    let out = crate::command("xmllint")
        .args(["--noout", "--nonet"])
        .arg(path)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run xmllint: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        let text = String::from_utf8_lossy(&out.stderr);
        Err(text.lines().next().unwrap_or("").to_string())
    }
}

/// Records where the gate and xmllint disagree on one file.
fn compare_with_xmllint(t: &mut Tally, path: &Path, outcome: &Outcome, keep: usize) {
    let gate = match outcome {
        Outcome::Exact { gate } | Outcome::Differs { gate, .. } => gate,
        _ => return,
    };
    t.xmllint_checked += 1;
    match (gate, xmllint(path)) {
        (Ok(()), Err(why)) => {
            t.xmllint_only_count += 1;
            if t.xmllint_only_rejects.len() < keep {
                t.xmllint_only_rejects.push((path.to_path_buf(), why));
            }
        }
        (Err(why), Ok(())) => {
            t.gate_only_count += 1;
            if t.gate_only_rejects.len() < keep {
                t.gate_only_rejects.push((path.to_path_buf(), why.clone()));
            }
        }
        _ => {}
    }
}

/// Walks `dirs` and tallies every file (comparing the gate with xmllint if `with_xmllint`).
pub(crate) fn tally(dirs: &[PathBuf], keep: usize, with_xmllint: bool) -> Tally {
    let mut files = Vec::new();
    for d in dirs {
        collect(d, &mut files);
    }
    let mut t = Tally::default();
    for path in files {
        let Ok(meta) = std::fs::metadata(&path) else {
            t.unreadable += 1;
            continue;
        };
        if meta.len() > MAX_BYTES {
            t.skipped_large += 1;
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else {
            t.unreadable += 1;
            continue;
        };
        let outcome = check(&bytes);
        if with_xmllint {
            compare_with_xmllint(&mut t, &path, &outcome, keep);
        }
        t.add(&path, bytes.len() as u64, outcome, keep);
    }
    t
}

pub(crate) fn run(args: &RoundtripArgs) -> Result<ExitCode> {
    let started = Instant::now();
    // A panicking parser is counted and listed, not printed once per file.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let t = tally(&args.dirs, args.show, args.xmllint);
    std::panic::set_hook(hook);
    let dirs: Vec<String> = args.dirs.iter().map(|d| d.display().to_string()).collect();
    println!(
        "xml-roundtrip over {} ({}; symlinks and files over 20 MB skipped), {:.1} s\n",
        dirs.join(", "),
        EXTENSIONS.map(|e| format!(".{e}")).join(" "),
        started.elapsed().as_secs_f64()
    );
    print!("{}", t.summary());
    let ok = t.files == t.exact;
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[cfg(test)]
mod tests;
