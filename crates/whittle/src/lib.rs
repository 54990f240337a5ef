//! whittle as a library: the reduction API of `whittle-core` together with every format this
//! project ships and the rules learned for them.
//!
//! Reduce in process, with a closure as the test:
//!
//! ```
//! use whittle::{Algorithm, Reduction};
//!
//! let format = whittle::format_named("python").expect("shipped");
//! let input = b"import os\nx = 1\ny = [x, 2]\nprint(y)\nassert y[0] == 1\n";
//! // Interesting while the file still defines `y` from `x`.
//! let test = |bytes: &[u8]| String::from_utf8_lossy(bytes).contains("y = [x");
//! let reduced = Reduction::new(format, &test, input)
//!     .algorithm(Algorithm::GtrStar)
//!     .rules(whittle::shipped_rules(format.name()))
//!     .run()
//!     .expect("the input is interesting, the empty file is not");
//! // The other statements, the `2` and the trailing line break are gone.
//! assert_eq!(reduced.best, b"y = [x]");
//! assert!(reduced.report.bytes_after < reduced.report.bytes_before);
//! ```

pub use whittle_core::{
    Adaptive, Algorithm, CommandOracle, Diagnostic, Document, Format, Gate, Guard, JournalError,
    JournalReport, JournalSpec, Observer, Oracle, OracleError, ParseError, ReduceError, Reduced,
    Reduction, Report, Rules, Started, Stats, Tested, Timeout, TimeoutReport, Verdict,
};

use std::path::Path;
use whittle_core::Nested;

/// What a format's leaves may hold: the formats nested in it ([`whittle_core::Nested`]). PDF
/// holds JavaScript (`/JS` strings and streams) and XML (XFA forms, XMP metadata).
const IN_PDF: &[&dyn Format] = &[&whittle_javascript::JavaScript, &whittle_xml::Xml];

/// The `pdf` format: PDF with the documents nested in its strings and streams.
static PDF: Nested = Nested::new(&whittle_pdf::Pdf, IN_PDF);

/// `pdf` writing the candidates of an encrypted input decrypted.
static PDF_DECRYPTED: Nested = Nested::new(&whittle_pdf::DecryptedPdf, IN_PDF);

/// Every format of this build, in the order `whittle formats` lists them.
pub fn formats() -> Vec<&'static dyn Format> {
    vec![
        &whittle_xml::Xml,
        &whittle_python::Python,
        &whittle_javascript::JavaScript,
        &whittle_c::C,
        &whittle_c::CPP,
        &PDF,
        &whittle_trace::Trace,
        &whittle_lines::Lines,
    ]
}

/// The format called `name` (`--lang`).
pub fn format_named(name: &str) -> Option<&'static dyn Format> {
    formats().into_iter().find(|f| f.name() == name)
}

/// The format for a file, by its extension (case-insensitive); `None` if no format claims it.
pub fn format_for_path(path: &Path) -> Option<&'static dyn Format> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    formats()
        .into_iter()
        .find(|f| f.extensions().contains(&ext.as_str()))
}

/// The PDF format that writes the candidates of an encrypted input decrypted (`--pdf-decrypt`);
/// the listed `pdf` format keeps the input's encryption. Also named `pdf`.
pub fn pdf_decrypted() -> &'static dyn Format {
    &PDF_DECRYPTED
}

/// The `lines` format, for files no other format claims.
pub fn lines() -> &'static dyn Format {
    &whittle_lines::Lines
}

/// The rules text learned from the pinned corpora of `corpora/manifest.json` for a format, as
/// compiled into this build; `None` for formats without a corpus (`lines`, `trace`).
pub fn shipped_rules_json(format: &str) -> Option<&'static str> {
    match format {
        "python" => Some(include_str!("../../../corpora/python.rules.json")),
        "javascript" => Some(include_str!("../../../corpora/javascript.rules.json")),
        "xml" => Some(include_str!("../../../corpora/xml.rules.json")),
        "pdf" => Some(include_str!("../../../corpora/pdf.rules.json")),
        "c" => Some(include_str!("../../../corpora/c.rules.json")),
        "cpp" => Some(include_str!("../../../corpora/cpp.rules.json")),
        _ => None,
    }
}

/// The shipped rules of a format, parsed, with those of the formats nested in it under their
/// labels' prefixes (`javascript:`, `xml:`; see [`Rules::nest`]). The build's own tests check
/// that every shipped file parses, so `None` means the format has none.
pub fn shipped_rules(format: &str) -> Option<Rules> {
    let parse = |name: &str| shipped_rules_json(name).and_then(|text| Rules::from_json(text).ok());
    let mut rules = parse(format)?;
    if format == PDF.name() {
        for inner in IN_PDF {
            if let Some(r) = parse(inner.name()) {
                rules.nest(&format!("{}:", inner.name()), &r);
            }
        }
    }
    Some(rules)
}

#[cfg(test)]
mod below_tests;
#[cfg(test)]
mod nest_tests;
#[cfg(test)]
mod tests;
