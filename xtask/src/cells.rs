//! How the document writes numbers and text in its tables: digits grouped by three, shares
//! in percent with enough decimals, `yes`/**NO**, durations, fenced outputs.

use crate::results::SHOW_BYTES;
use std::fmt::Write as _;

/// `after` as a percentage of `before`, with enough decimals to be non-zero when it is.
pub(crate) fn percent(before: u64, after: u64) -> String {
    pct((before > 0).then(|| 100.0 * after as f64 / before as f64))
}

/// `before → after (p %)`.
pub(crate) fn before_after(before: u64, after: u64) -> String {
    format!(
        "{} → {} ({})",
        group_digits(before),
        group_digits(after),
        percent(before, after)
    )
}

/// Digits grouped by three with thin spaces: `334692` → `334 692`.
pub(crate) fn group_digits(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('\u{2009}');
        }
        out.push(c);
    }
    out
}

/// `yes`, a bold `NO` (a finding), or `—` (not checked).
pub(crate) fn yes_no(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "yes",
        Some(false) => "**NO**",
        None => "—",
    }
}

/// Makes text safe inside a markdown table cell.
pub(crate) fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// `a / b` with two decimals, or a dash when `b` is zero.
pub(crate) fn ratio(a: u64, b: u64) -> String {
    if b == 0 {
        "—".to_string()
    } else {
        format!("{:.2}", a as f64 / b as f64)
    }
}

/// A percentage as the tables show it (`—` for none), with enough decimals to be non-zero when
/// it is.
pub(crate) fn pct(p: Option<f64>) -> String {
    let Some(p) = p else {
        return "—".to_string();
    };
    if p <= 0.0 {
        "0 %".to_string()
    } else if p >= 10.0 {
        format!("{p:.0} %")
    } else if p >= 1.0 {
        format!("{p:.1} %")
    } else {
        // Two significant digits.
        let decimals = ((-p.log10()).ceil() as usize + 1).min(6);
        format!("{p:.decimals$} %")
    }
}

pub(crate) fn num(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| "—".to_string(), |v| format!("{v:.decimals$}"))
}

/// `a / b` as a speed-up, `1.85×`.
pub(crate) fn speedup(a: f64, b: f64) -> String {
    if b <= 0.0 {
        "—".to_string()
    } else {
        format!("{:.2}×", a / b)
    }
}

/// A duration for people: `15 s`, `4 min 05 s`, `1 h 02 min`.
pub(crate) fn duration(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s % 3600 / 60),
    }
}

/// A fenced block holding `bytes` (cut at [`SHOW_BYTES`]), with a fence longer than any run of
/// backticks inside.
pub(crate) fn fenced(bytes: &[u8], len: usize) -> String {
    let shown = &bytes[..bytes.len().min(SHOW_BYTES)];
    let len = len.max(bytes.len());
    // Control characters (binary stream data of a PDF, say) would garble the page.
    let mut text: String = String::from_utf8_lossy(shown)
        .chars()
        .map(|c| {
            if c.is_control() && !matches!(c, '\n' | '\t' | '\r') {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect();
    if len > SHOW_BYTES {
        let _ = write!(text, "\n… ({} more bytes)", len - SHOW_BYTES);
    }
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}\n{}\n{fence}\n", text.trim_end_matches('\n'))
}

/// Left-, right- and centre-aligned columns of a [`Table`].
pub(crate) const LEFT: &str = "---";
pub(crate) const RIGHT: &str = "--:";
pub(crate) const CENTRE: &str = ":-:";

/// A markdown table: a header line, an alignment line, then one `| a | b |` line per row. Every
/// table of the document is built with it.
#[derive(Debug)]
pub(crate) struct Table(String);

impl Table {
    /// A table whose columns are (header, alignment: [`LEFT`], [`RIGHT`] or [`CENTRE`]).
    pub(crate) fn new<'a>(columns: impl IntoIterator<Item = (&'a str, &'a str)>) -> Table {
        let (headers, aligns): (Vec<&str>, Vec<&str>) = columns.into_iter().unzip();
        Table(format!(
            "| {} |\n|{}|\n",
            headers.join(" | "),
            aligns.join("|")
        ))
    }

    /// Adds a row of cells (already escaped with [`cell`] where they need it).
    pub(crate) fn row<S: AsRef<str>>(&mut self, cells: &[S]) {
        let cells: Vec<&str> = cells.iter().map(AsRef::as_ref).collect();
        let _ = writeln!(self.0, "| {} |", cells.join(" | "));
    }

    pub(crate) fn finish(self) -> String {
        self.0
    }
}

#[cfg(test)]
mod tests;
