//! The [`Pdf`] format: parse with lopdf into the tree, render candidates with lopdf.

use crate::load::load;
use crate::model::{PdfState, build};
use crate::templates::{DropUnreachable, InlineReference, SubstituteByChild, state};
use whittle_core::{
    Deletion, Document, Edits, Embedded, Format, Lexicon, NodeId, ParseError, Splices, Template,
    render_spliced_leaves,
};

/// The PDF format. See the crate documentation and `docs/pdf.md`. Candidates of an encrypted
/// input are written with the input's encryption; [`DecryptedPdf`] writes them decrypted.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pdf;

/// The PDF format writing the candidates of an encrypted input decrypted (`--pdf-decrypt`);
/// otherwise the same as [`Pdf`], and also named `pdf`.
#[derive(Clone, Copy, Debug, Default)]
pub struct DecryptedPdf;

fn parse_with(input: &[u8], decrypt: bool) -> Result<Document, ParseError> {
    let loaded = load(input, decrypt)?;
    let diagnostics = loaded.diagnostics.clone();
    let (tree, state) = build(input, loaded, decrypt)?;
    let mut doc = Document::new(tree);
    doc.diagnostics = diagnostics;
    doc.extra = Some(Box::new(state));
    Ok(doc)
}

impl Format for DecryptedPdf {
    fn name(&self) -> &'static str {
        Pdf.name()
    }

    fn extensions(&self) -> &'static [&'static str] {
        Pdf.extensions()
    }

    fn description(&self) -> &'static str {
        "PDF (lopdf), candidates of an encrypted input written decrypted"
    }

    fn parse(&self, input: &[u8]) -> Result<Document, ParseError> {
        parse_with(input, true)
    }

    fn render(&self, doc: &Document, edits: &Edits, out: &mut Vec<u8>) {
        Pdf.render(doc, edits, out);
    }

    fn embedded(&self, doc: &Document) -> Vec<Embedded> {
        Pdf.embedded(doc)
    }

    fn render_embedded(
        &self,
        doc: &Document,
        edits: &Edits,
        contents: &[(NodeId, Vec<u8>)],
        out: &mut Vec<u8>,
    ) {
        Pdf.render_embedded(doc, edits, contents, out);
    }

    fn lexicon(&self, doc: &Document) -> Option<Lexicon> {
        Pdf.lexicon(doc)
    }

    fn render_splices(&self, doc: &Document, splices: &Splices, out: &mut Vec<u8>) {
        render_spliced_leaves(self, doc, splices, out);
    }

    fn leaf_content(&self, doc: &Document, leaf: NodeId, text: &[u8]) -> Option<Vec<u8>> {
        Pdf.leaf_content(doc, leaf, text)
    }

    fn rewriting(&self) -> &'static str {
        "writes every candidate decrypted (--pdf-decrypt), with new cross-reference data (older \
         revisions, unreachable objects and free space dropped)"
    }

    fn templates(&self) -> Vec<Box<dyn Template>> {
        Pdf.templates()
    }

    fn outline(&self, doc: &Document) -> String {
        Pdf.outline(doc)
    }

    fn has_gate(&self) -> bool {
        true
    }

    fn gate(&self, bytes: &[u8]) -> bool {
        Pdf.gate(bytes)
    }
}

impl Format for Pdf {
    fn name(&self) -> &'static str {
        "pdf"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["pdf"]
    }

    fn description(&self) -> &'static str {
        "PDF (lopdf): the object graph as a tree from the trailer; every candidate a loadable PDF"
    }

    fn parse(&self, input: &[u8]) -> Result<Document, ParseError> {
        parse_with(input, false)
    }

    /// No edit gives back the input itself; any edit writes the candidate (unchanged objects as
    /// they were stored, changed ones afresh, a new cross-reference table or stream). A candidate
    /// without a catalog or a page tree renders as the empty file.
    fn render(&self, doc: &Document, edits: &Edits, out: &mut Vec<u8>) {
        let Some(state) = state(doc) else { return };
        if edits.is_empty() {
            out.extend_from_slice(&state.input);
        } else {
            crate::render::write(&doc.tree, state, edits, &[], out);
        }
    }

    /// `/JS` strings and streams hold JavaScript; XFA streams and `/Subtype /XML` streams
    /// (XMP metadata) hold XML (see `nest.rs`).
    fn embedded(&self, doc: &Document) -> Vec<Embedded> {
        match state(doc) {
            Some(state) => crate::nest::embedded(&doc.tree, state),
            None => Vec::new(),
        }
    }

    /// Writes the candidate with the edited nested documents and the strings and names the moves
    /// below the tree changed: a string as a literal string, a name as a name, a stream's data
    /// without filter or with `/FlateDecode`, whichever is smaller.
    fn render_embedded(
        &self,
        doc: &Document,
        edits: &Edits,
        contents: &[(NodeId, Vec<u8>)],
        out: &mut Vec<u8>,
    ) {
        let Some(state) = state(doc) else { return };
        if contents.is_empty() && edits.is_empty() {
            out.extend_from_slice(&state.input);
        } else {
            crate::render::write(&doc.tree, state, edits, contents, out);
        }
    }

    /// The contents of strings and of names that are not the PDF's vocabulary (see
    /// `lexicon.rs`), as spans of the tree's canonical text.
    fn lexicon(&self, doc: &Document) -> Option<Lexicon> {
        state(doc).map(|st| crate::lexicon::lexicon(&doc.tree, st))
    }

    /// The changed strings and names written as new values of their leaves.
    fn render_splices(&self, doc: &Document, splices: &Splices, out: &mut Vec<u8>) {
        render_spliced_leaves(self, doc, splices, out);
    }

    fn leaf_content(&self, doc: &Document, leaf: NodeId, text: &[u8]) -> Option<Vec<u8>> {
        crate::lexicon::content(state(doc)?, leaf, text)
    }

    fn rewriting(&self) -> &'static str {
        "writes every candidate with new cross-reference data (the objects it keeps as they were \
         stored; older revisions, unreachable objects and free space dropped)"
    }

    fn templates(&self) -> Vec<Box<dyn Template>> {
        vec![
            Box::new(DropUnreachable),
            Box::new(Deletion),
            Box::new(InlineReference),
            Box::new(SubstituteByChild),
        ]
    }

    fn outline(&self, doc: &Document) -> String {
        match state(doc) {
            Some(state) => crate::outline::outline(&doc.tree, state),
            None => doc.tree.dump(),
        }
    }

    fn has_gate(&self) -> bool {
        true
    }

    /// The candidate loads with lopdf and has a catalog with a page tree.
    fn gate(&self, bytes: &[u8]) -> bool {
        if bytes.is_empty() {
            return false;
        }
        crate::load::gate(bytes)
    }
}

/// Writes the document afresh with no edit (what the `drop-unreachable` template proposes):
/// the form every reduced candidate has. Useful to see what the first re-serialization costs.
pub fn rewrite(doc: &Document) -> Vec<u8> {
    let mut out = Vec::new();
    if let Some(state) = doc
        .extra
        .as_ref()
        .and_then(|e| e.downcast_ref::<PdfState>())
    {
        let root = doc.tree.root();
        let edits = Edits::new().with(root, whittle_core::Edit::Replace(root));
        crate::render::write(&doc.tree, state, &edits, &[], &mut out);
    }
    out
}
