//! The properties whittle's fuzz targets check, one entry point per format.
//!
//! [`check`] takes the fuzzer's bytes, splits off [`CONTROL`] bytes that choose the edits and
//! treats the rest as a document of the target's format. It panics when a property fails:
//!
//! - parsing never panics (and never hangs: the fuzzer's timeout sees that);
//! - the unedited document renders back to its input byte for byte;
//! - random tree edits (deletions and the candidates of the format's own templates) and random
//!   text splices of the kinds the moves below the tree make (renamings, emptied or shortened
//!   literals, numbers, blanks, placeholders) render bytes that the format parses again, which
//!   again round-trip; the gate never panics on them;
//! - per format: an XML document the gate accepts needed no recovery; a JavaScript or Python
//!   file the gate accepts has a literal probe the gate accepts too; a PDF written afresh
//!   (the form of every candidate) loads into the same tree and rewriting it changes nothing,
//!   also through the nesting (`pdf-nested`: the same combined tree, with the scripts and XML
//!   inside), whose text candidates are the moves' splices on a nested document.
//!
//! The AFL binary in `fuzz/` calls [`check`]; the replay test of this crate runs every saved
//! corpus file and every regression file through it. See `docs/fuzzing.md`.

mod edits;
mod rng;

use std::fmt;
use whittle_core::{Document, Edit, Edits, Format};

pub use rng::Rng;

/// How many leading bytes of a fuzz input choose the edits; the rest is the document.
pub const CONTROL: usize = 4;

/// A fuzz target: one format of the repository.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// `whittle-xml`.
    Xml,
    /// `whittle-python`.
    Python,
    /// `whittle-javascript`.
    JavaScript,
    /// `whittle-pdf`, the PDF front end alone.
    Pdf,
    /// The library's `pdf` format: PDF with JavaScript and XML nested in its strings and
    /// streams (`whittle_core::Nested`).
    PdfNested,
    /// `whittle-lines`.
    Lines,
    /// `whittle-trace`.
    Trace,
    /// `whittle-c`'s C.
    C,
    /// `whittle-c`'s C++.
    Cpp,
}

impl Target {
    /// Every target, in the order of the docs.
    pub const ALL: [Target; 9] = [
        Target::Xml,
        Target::Python,
        Target::JavaScript,
        Target::Pdf,
        Target::PdfNested,
        Target::Lines,
        Target::Trace,
        Target::C,
        Target::Cpp,
    ];

    /// The target's name: the format's name (`--lang`), and `pdf-nested` for the library's
    /// `pdf` format.
    pub fn name(self) -> &'static str {
        match self {
            Target::Xml => "xml",
            Target::Python => "python",
            Target::JavaScript => "javascript",
            Target::Pdf => "pdf",
            Target::PdfNested => "pdf-nested",
            Target::Lines => "lines",
            Target::Trace => "trace",
            Target::C => "c",
            Target::Cpp => "cpp",
        }
    }

    /// The target of a format name.
    pub fn named(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The format under test, as the library lists it; for `pdf` the PDF front end itself
    /// (`whittle_pdf::Pdf`), without the JavaScript and XML the library nests in it, whose
    /// properties (a rewrite that loads into the same tree) this target checks; for
    /// `pdf-nested` the library's `pdf` format, with them.
    pub fn format(self) -> &'static dyn Format {
        let name = match self {
            Target::Pdf => return &whittle_pdf::Pdf,
            Target::PdfNested => "pdf",
            _ => self.name(),
        };
        match whittle::format_named(name) {
            Some(format) => format,
            None => panic!("whittle lists no format named {name}"),
        }
    }

    /// Documents longer than this are skipped, so that every execution stays fast: the
    /// properties are about structure, which small documents reach.
    pub fn max_document(self) -> usize {
        let _ = self;
        4 * 1024
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Runs every property of `target` on one fuzz input; panics when one fails.
pub fn check(target: Target, data: &[u8]) {
    let (control, input) = data.split_at(data.len().min(CONTROL));
    if input.len() > target.max_document() {
        return;
    }
    let format = target.format();
    let _ = format.gate(input);
    let Ok(doc) = format.parse(input) else {
        return;
    };
    let mut out = Vec::new();
    format.render(&doc, &Edits::new(), &mut out);
    assert!(
        out == input,
        "{target}: the unedited document renders {} bytes, not its {} input bytes",
        out.len(),
        input.len()
    );
    let _ = format.outline(&doc);
    let _ = format.ddmin_units(&doc.tree);
    // The no-op edit the engine renders first (the form every candidate has): formats that
    // copy source give the input back, which is checked above.
    out.clear();
    let root = doc.tree.root();
    format.render(
        &doc,
        &Edits::new().with(root, Edit::Replace(root)),
        &mut out,
    );
    let rewritten = (out != input).then(|| reparses(target, &out, &"the no-op rewrite"));
    per_format(target, &doc, input, &out, rewritten.flatten());
    // One candidate per input, of a kind the control bytes choose: each costs a gate and a
    // parse, and the fuzzer varies the control bytes as much as the document.
    let mut rng = Rng::new(control);
    let done = match rng.below(3) {
        0 if target == Target::PdfNested => edits::inner_splices(input, &mut rng),
        0 => edits::splices(target, &doc, input, &mut rng),
        1 => format
            .tidy(&doc)
            .map(|tidy| reparses(target, &tidy, &"the tidy rendering"))
            .is_some(),
        _ => false,
    };
    if !done {
        edits::tree_edits(target, &doc, &mut rng);
    }
}

/// The bytes of a candidate parse again (unless empty: the engine never accepts the empty
/// file, so it never re-parses one), round-trip, and the gate gives a verdict.
/// Returns the parsed document (`None` for the empty file).
fn reparses(target: Target, bytes: &[u8], what: &dyn fmt::Display) -> Option<Document> {
    let format = target.format();
    let _ = format.gate(bytes);
    if bytes.is_empty() {
        return None;
    }
    let again = match format.parse(bytes) {
        Ok(doc) => doc,
        Err(e) => panic!("{target}: {what} does not parse again: {e}"),
    };
    let mut out = Vec::new();
    format.render(&again, &Edits::new(), &mut out);
    assert!(
        out == bytes,
        "{target}: {what} parses, but does not render back byte for byte"
    );
    Some(again)
}

/// The properties one format promises beyond the shared ones; `rewritten` is the no-op
/// rewrite `noop` parsed again, if it differs from the input.
fn per_format(
    target: Target,
    doc: &Document,
    input: &[u8],
    noop: &[u8],
    rewritten: Option<Document>,
) {
    match target {
        Target::Xml => {
            // docs/xml.md: a document the gate accepts never has an `#error` node.
            if target.format().gate(input) {
                let t = &doc.tree;
                assert!(
                    t.nodes().all(|n| t.label(n) != "#error"),
                    "xml: the gate accepts a document that needed recovery"
                );
            }
        }
        Target::Pdf | Target::PdfNested => pdf(target, doc, input, noop, rewritten),
        Target::Python | Target::JavaScript => {
            // docs/algorithms.md: the literal probe of a file the gate accepts passes it too.
            let format = target.format();
            if let Some(probe) = format.literals_alone(doc)
                && format.gate(input)
            {
                assert!(
                    format.gate(&probe),
                    "{target}: the gate accepts the file but not its literal probe"
                );
            }
        }
        Target::Lines | Target::Trace | Target::C | Target::Cpp => {}
    }
}

/// The no-op edit the engine renders first (`Replace(root)`), which for PDF writes the document
/// afresh.
fn noop_rewrite(target: Target, doc: &Document) -> Vec<u8> {
    let root = doc.tree.root();
    let mut out = Vec::new();
    target
        .format()
        .render(doc, &Edits::new().with(root, Edit::Replace(root)), &mut out);
    out
}

/// docs/pdf.md: the document written afresh (the form of every candidate) loads into the same
/// tree (for `pdf-nested`: with the same nested documents), and rewriting it again changes
/// nothing. `noop` is the no-op rewrite of `doc`, `rewritten` it parsed again (`None` if it is
/// the input).
fn pdf(target: Target, doc: &Document, input: &[u8], noop: &[u8], rewritten: Option<Document>) {
    if target == Target::Pdf {
        assert!(
            whittle_pdf::rewrite(doc) == noop,
            "pdf: rewrite() and the no-op edit write different documents"
        );
    }
    let Some(again) = rewritten else {
        // The input is already in the writer's form: rewriting it gives it back.
        assert!(
            noop == input,
            "{target}: a document that parsed rewrites as nothing"
        );
        return;
    };
    // A reference to no object is written as `null` (docs/pdf.md), so a document with such
    // references is changed by its first rewrite and need not come back as the same tree. And
    // the rewrite is a fixpoint byte for byte only for an input that needed no repair: an object
    // whose stored span does not read (a damaged `/Length`) is written afresh, after the copied
    // ones, and the second rewrite copies it where it now is. Then the second rewrite must give
    // the same tree, not the same bytes.
    let dangling = dangling_reference(&doc.tree);
    // A diagnostic other than the encryption's: the input was repaired, or its page tree is
    // empty (on fuzzed inputs: a damaged page), and its first rewrite may change objects.
    let repaired = doc
        .diagnostics
        .iter()
        .any(|d| !d.message.starts_with("encrypted"));
    assert!(
        again.tree.dump() == doc.tree.dump() || dangling,
        "{target}: the rewritten document parses into another tree"
    );
    let twice = noop_rewrite(target, &again);
    if twice != noop {
        assert!(
            dangling || repaired,
            "{target}: rewriting the rewritten document changes it"
        );
        let third = match target.format().parse(&twice) {
            Ok(third) => third,
            Err(e) => panic!("{target}: the document rewritten twice does not parse: {e}"),
        };
        assert!(
            third.tree.dump() == again.tree.dump(),
            "{target}: rewriting the rewritten document changes its tree"
        );
    }
}

/// Whether a PDF tree has a reference to an object that is not in the tree: a `ref` leaf
/// (`5 0 R`) whose object no owning `ref` node (`5 0 R=…`) holds.
fn dangling_reference(tree: &whittle_core::Tree) -> bool {
    let refs = tree.nodes().filter(|&n| tree.label(n) == "ref");
    let (owners, leaves): (Vec<_>, Vec<_>) = refs.partition(|&n| !tree.children(n).is_empty());
    let owned: std::collections::BTreeSet<&[u8]> = owners
        .iter()
        .filter_map(|&n| {
            let text = tree.text(n);
            text.iter().position(|&b| b == b'=').map(|i| &text[..i])
        })
        .collect();
    leaves.iter().any(|&n| !owned.contains(tree.text(n)))
}

#[cfg(test)]
mod tests;
