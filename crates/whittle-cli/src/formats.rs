//! Choosing a format, and the commands that only read files: `whittle formats`, `whittle tree`,
//! `whittle learn`.

use crate::args::{LearnArgs, TreeArgs};
use crate::{bad, line_col, read_input};
use anyhow::{Context, Result};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use whittle::Format;

/// The format `--lang` names, or the one for the file's extension; `lines` (and `true`, "it was
/// guessed") when no format claims the extension.
pub(crate) fn pick(lang: Option<&str>, input: &Path) -> Result<(&'static dyn Format, bool)> {
    if let Some(lang) = lang {
        return whittle::format_named(lang)
            .map(|f| (f, false))
            .ok_or_else(|| {
                let names: Vec<&str> = whittle::formats().iter().map(|f| f.name()).collect();
                bad(format!(
                    "unknown format `{lang}` (known: {})",
                    names.join(", ")
                ))
            });
    }
    Ok(match whittle::format_for_path(input) {
        Some(f) => (f, false),
        None => (whittle::lines(), true),
    })
}

/// A parse error as `path:line:col: cannot parse as FORMAT: reason`.
pub(crate) fn parse_error(
    path: &Path,
    format: &dyn Format,
    bytes: &[u8],
    e: &whittle::ParseError,
) -> anyhow::Error {
    let (line, col) = line_col(bytes, e.offset);
    bad(format!(
        "{}:{line}:{col}: cannot parse as {}: {}",
        path.display(),
        format.name(),
        e.message
    ))
}

pub(crate) fn list() -> Result<ExitCode> {
    // Each format on two lines, its extensions below its description: XML's list alone is
    // longer than a terminal is wide.
    let rows: Vec<[String; 3]> = whittle::formats()
        .iter()
        .flat_map(|f| {
            [
                [
                    f.name().to_string(),
                    if f.has_gate() { "gate" } else { "" }.to_string(),
                    f.description().to_string(),
                ],
                [
                    String::new(),
                    String::new(),
                    format!(".{}", f.extensions().join(" .")),
                ],
            ]
        })
        .collect();
    print!("{}", table(&rows));
    Ok(ExitCode::SUCCESS)
}

/// Rows as columns two spaces apart, each as wide as its widest cell (the last one unpadded).
fn table<const N: usize>(rows: &[[String; N]]) -> String {
    let mut widths = [0; N];
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i + 1 < N {
                line.push_str(&format!("{cell:<0$}  ", widths[i]));
            } else {
                line.push_str(cell);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

pub(crate) fn tree(args: TreeArgs) -> Result<ExitCode> {
    let bytes = read_input(&args.input)?;
    let (format, _) = pick(args.lang.as_deref(), &args.input)?;
    let doc = format
        .parse(&bytes)
        .map_err(|e| parse_error(&args.input, format, &bytes, &e))?;
    for d in &doc.diagnostics {
        let (line, col) = line_col(&bytes, d.offset);
        eprintln!(
            "warning: {}:{line}:{col}: {}",
            args.input.display(),
            d.message
        );
    }
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(format.outline(&doc).as_bytes());
    let _ = writeln!(
        out,
        "# {} nodes, depth {}, {} bytes",
        doc.tree.len(),
        doc.tree.height(),
        bytes.len()
    );
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn learn(args: LearnArgs) -> Result<ExitCode> {
    let (format, _) = pick(Some(&args.lang), Path::new(""))?;
    let files = whittle_learn::collect_files(&args.paths, format.extensions());
    if files.is_empty() {
        return Err(bad(format!(
            "no {} files (.{}) under the given paths",
            format.name(),
            format.extensions().join(", .")
        )));
    }
    let (learner, summary) = whittle_learn::learn(format, &files, crate::args::jobs(args.jobs), 0);
    for (path, why) in summary.failed.iter().take(10) {
        eprintln!("warning: skipped {}: {why}", path.display());
    }
    let rules = learner.rules(format.name());
    std::fs::write(&args.output, rules.to_json() + "\n")
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    let mandatory: usize = rules.labels.values().map(|l| l.mandatory_edges.len()).sum();
    eprintln!(
        "whittle: learned from {} of {} files in {:.2} s ({:.0} files/s): {} labels, {} contexts, {} mandatory edges\n         wrote {}",
        learner.files(),
        summary.files,
        summary.seconds,
        summary.files as f64 / summary.seconds.max(1e-9),
        rules.labels.len(),
        learner.context_pairs(),
        mandatory,
        args.output.display()
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_column_starts_at_the_same_place_whatever_the_names() {
        let rows = [
            ["javascript", "gate", ".js .mjs", "JavaScript"].map(String::from),
            ["xml", "", ".xml", "XML"].map(String::from),
        ];
        assert_eq!(
            table(&rows),
            "javascript  gate  .js .mjs  JavaScript\nxml               .xml      XML\n"
        );
    }
}
