//! The one trait through which formats plug into the engine.

use crate::document::{Document, ParseError};
use crate::edit::{Edits, render_replacing, render_template};
use crate::lexicon::{Lexicon, Splices};
use crate::template::{Template, default_templates};
use crate::tree::{NodeId, Tree};
use std::ops::Range;

/// A file format: parse bytes into the shared tree, render a tree plus pending edits back to
/// bytes, and optionally check bytes for validity in process (the gate).
///
/// **Contract:** rendering an unedited document gives back the parsed bytes exactly, and
/// [`Format::parse`] accepts every rendering of a document it produced.
pub trait Format: Send + Sync {
    /// The name used by `--lang`.
    fn name(&self) -> &'static str;

    /// File extensions (without the dot) that select this format by default.
    fn extensions(&self) -> &'static [&'static str];

    /// One line for `whittle formats`.
    fn description(&self) -> &'static str;

    /// Parses an input.
    fn parse(&self, input: &[u8]) -> Result<Document, ParseError>;

    /// Renders the document with edits applied. The default copies the render template.
    ///
    /// `Edit::Replace(d)` normally names a proper descendant; the template renderer ignores any
    /// other replacement. A format with its own `render` may give a replacement by another node a
    /// meaning of its own (such as inlining the object a PDF reference names).
    fn render(&self, doc: &Document, edits: &Edits, out: &mut Vec<u8>) {
        render_template(&doc.tree, edits, out);
    }

    /// What the format changes when it writes a candidate, as the end of a sentence that begins
    /// with the format's name: said when the input written that way (the untouched document
    /// rendered with a no-op edit on its root, `Edit::Replace(root)`) differs from the input
    /// and the test rejects it, because then no candidate can be interesting. Formats that
    /// copy unedited source never differ.
    fn rewriting(&self) -> &'static str {
        "writes candidates differently from the input"
    }

    /// The transformation templates GTR applies, in order. The default is the paper's pair,
    /// deletion then substitute-by-child; a format may add its own (inlining a PDF reference,
    /// splicing a Python block into its parent).
    fn templates(&self) -> Vec<Box<dyn Template>> {
        default_templates()
    }

    /// The elements plain ddmin (`--algorithm ddmin`) works on, in order: by default the leaves
    /// (for `lines`, the lines: the line-based baseline of the papers). A format whose reducible
    /// units nest (a generator trace's loops and iterations) lists them all.
    fn ddmin_units(&self, tree: &Tree) -> Vec<NodeId> {
        tree.leaves()
    }

    /// The bytes that delimit the format's syntax (XML's `<`, `>`, `&`, `;`, quotes): the byte
    /// tail of an input the gate rejects tries them in place of runs of the result, which may
    /// need one it does not hold (`<a b="&` as `<a>&`). None by default.
    fn delimiters(&self) -> &'static [u8] {
        b""
    }

    /// The nodes that hold only what the format's syntax ignores (XML's runs of white space
    /// between markup; the comments of a programming language): `auto` deletes them all in one
    /// candidate before its tree moves (`blanks.rs`). None by default.
    fn blanks(&self, doc: &Document) -> Vec<NodeId> {
        let _ = doc;
        Vec::new()
    }

    /// The literal probe: a program made of the document's literals alone (strings, numbers,
    /// regular expressions), each a statement of its own and each text once, which `auto` tries
    /// once before its tree moves. Where what the test looks for is one literal (a regular
    /// expression an engine rejects, a number it prints wrong, an escape a parser misreads), the
    /// literal is then one statement of a flat list, found by ddmin in a few tests, instead of
    /// at the bottom of the call path the tree moves would take apart level by level. `None`
    /// (the default) for a format whose literals cannot stand alone (C: not at file scope).
    fn literals_alone(&self, doc: &Document) -> Option<Vec<u8>> {
        let _ = doc;
        None
    }

    /// A tidier rendering of the document that is not a tree edit (trailing white space and blank
    /// lines removed, say), tried once after the algorithm ends and kept if the test still finds
    /// it interesting. `None` (the default) when the format has nothing to offer.
    fn tidy(&self, doc: &Document) -> Option<Vec<u8>> {
        let _ = doc;
        None
    }

    /// What `whittle tree` prints: by default one line per node; a format may print a view
    /// that suits its users better (a PDF's objects, actions and scripts).
    fn outline(&self, doc: &Document) -> String {
        doc.tree.dump()
    }

    /// The tokens the moves below the tree may rewrite (names, literals, numbers, white space,
    /// placeholders; see [`Lexicon`]), as byte ranges of the tree's source that
    /// [`Format::render_splices`] renders. `None` (the default): this format has no such moves.
    fn lexicon(&self, doc: &Document) -> Option<Lexicon> {
        let _ = doc;
        None
    }

    /// Renders `doc` with byte ranges of its tree's source replaced (a candidate of the moves
    /// below the tree). The default applies them to the source, which is the rendering for a
    /// format whose tree is over the file's own bytes; a format whose tree is over another text
    /// (PDF's canonical text of its objects, a combined document of [`crate::Nested`]) writes
    /// the file anew, for instance with [`render_spliced_leaves`]. The engine runs the moves
    /// only while the rendering of no splice is the current file.
    fn render_splices(&self, doc: &Document, splices: &Splices, out: &mut Vec<u8>) {
        splices.render(doc.tree.source(), out);
    }

    /// The content [`Format::render_embedded`] takes for `leaf` whose text in the tree's source a
    /// move below the tree changed to `text`; `None` if `text` is not one (then no candidate is
    /// written). The default is the text itself, which suits a format rendered by its template.
    /// PDF decodes a string's escapes or a name's `#xx` codes.
    fn leaf_content(&self, doc: &Document, leaf: NodeId, text: &[u8]) -> Option<Vec<u8>> {
        let _ = (doc, leaf);
        Some(text.to_vec())
    }

    /// Whether a node with children that takes another's place is spliced into it: its children
    /// land in the replaced node's context (Python renders a block that replaces an `if` as its
    /// statements). The rules then let a list substitute where each of its children was seen
    /// ([`crate::CompiledRules::may_substitute`]). `false` by default.
    fn splices_lists(&self) -> bool {
        false
    }

    /// The leaves of `doc` that hold a document of another format (a script in a PDF stream, a
    /// `<script>` element's text in XML), for [`crate::Nested`], which parses each into a
    /// subtree of the inner format. Empty by default: nothing is nested.
    fn embedded(&self, doc: &Document) -> Vec<Embedded> {
        let _ = doc;
        Vec::new()
    }

    /// Renders `doc` with `edits` where each leaf of `contents` (sorted by node, each listed by
    /// [`Format::embedded`]) holds the given content, in the form [`Format::embedded`] decoded it
    /// to, instead of its own: the format encodes it again (a PDF stream's filter, an XML
    /// text's escapes). The default writes the content in place of the leaf's bytes as it is,
    /// which suits a format rendered by its template whose leaves need no encoding.
    fn render_embedded(
        &self,
        doc: &Document,
        edits: &Edits,
        contents: &[(NodeId, Vec<u8>)],
        out: &mut Vec<u8>,
    ) {
        render_replacing(&doc.tree, edits, contents, out);
    }

    /// Whether this format has an in-process validity check.
    fn has_gate(&self) -> bool {
        false
    }

    /// The validity gate: `false` rejects a candidate before the oracle runs.
    fn gate(&self, bytes: &[u8]) -> bool {
        let _ = bytes;
        true
    }

    /// How many defects of each kind the gate may find in a candidate, given the input: `None`
    /// if the input fails the gate, which then switches itself off (a parser bug must still be
    /// reducible). The default is a yes-or-no gate: no count, no defect allowed when the input
    /// passes. A format whose gate counts defects (C and C++: the grammar's error nodes, and the
    /// names used that no declaration declares) allows as many of each kind as the input has,
    /// so that inputs the grammar does not fully read are still gated.
    fn gate_allowance(&self, input: &[u8]) -> Option<Vec<usize>> {
        self.gate(input).then(Vec::new)
    }

    /// The gate with the allowance [`Format::gate_allowance`] gave: `None` if a candidate has
    /// more defects of some kind than that, else how many of each kind it has (what
    /// [`Format::gate_allowance`] would say of it). The reduction keeps the counts, so that a
    /// candidate judged before the allowance shrank, and the file it accepts, are judged against
    /// the allowance again without a second parse. The default is [`Format::gate`], with no
    /// counts.
    fn gate_counts(&self, bytes: &[u8], allowance: &[usize]) -> Option<Vec<usize>> {
        let _ = allowance;
        self.gate(bytes).then(Vec::new)
    }

    /// The format's own moves below the tree that rewrite lists of places at once (C's
    /// declarations: definitions to prototypes, unused declarations deleted), run by the
    /// default pipeline before the tree moves (or after them, [`ListMove::after_tree`]); empty
    /// by default. See [`ListMove`].
    fn list_moves(&self) -> &'static [ListMove] {
        &[]
    }

    /// The file's parts and what each needs, for the slice move (`crate::slice`): the default
    /// pipeline keeps a few of the parts with what they need, transitively, and deletes the
    /// rest, ddmin choosing which. `None` by default: no slice.
    fn slices(&self, doc: &Document) -> Option<Slices> {
        let _ = doc;
        None
    }
}

/// A file cut into parts that may go (C's declarations at file and namespace scope), with what
/// each part needs: the parts that declare the names it uses. What the slice move keeps is the
/// closure of the `fixed` parts and the ones ddmin chose under `needs`; every other part goes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Slices {
    /// What deleting each part deletes: disjoint ranges of the source, in file order.
    pub parts: Vec<Range<usize>>,
    /// The parts each part needs (indices into `parts`).
    pub needs: Vec<Vec<usize>>,
    /// The parts that stay whatever ddmin keeps: what is used without being named (a
    /// program's entry point), and what the format cannot tell the uses of.
    pub fixed: Vec<bool>,
}

/// A move of a format's own over a list of rewrites of the current document's source, tested
/// like the renamings: all of them at once first, then ddmin over them, so that a batch of
/// independent rewrites costs a few tests. Rewrites may overlap only where both delete (then
/// they delete the union, see [`Splices::union`]). Counted in `tests_by_move` under `name`.
#[derive(Clone, Copy)]
pub struct ListMove {
    /// The name the move's tests are counted under.
    pub name: &'static str,
    /// The rewrites over a document, in the order ddmin splits them.
    pub changes: fn(&Document) -> Vec<Splices>,
    /// Whether the move runs after the tree moves rather than before them: a move whose list
    /// is long on a large input and whose rewrites the tree moves would mostly make anyway (a
    /// declaration deleted with its uses), cheap once the tree moves have shrunk the file.
    pub after_tree: bool,
    /// Whether the move also runs between the levels of the tree moves' rounds, after each
    /// level they changed, before the levels below it (`auto`'s order). Only for a move whose
    /// whole list usually passes at once: C's declarations that nothing names any more once a
    /// level's deletions took their uses, which the next round's pass over the top levels
    /// would find at a test per node, after the levels below had reduced their bodies.
    pub between_levels: bool,
}

impl std::fmt::Debug for ListMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ListMove")
            .field("name", &self.name)
            .finish()
    }
}

/// A leaf that holds a document of another format (see [`Format::embedded`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Embedded {
    /// The leaf, in the outer document's tree.
    pub leaf: NodeId,
    /// The name of the inner format ([`Format::name`]: `javascript`, `xml`).
    pub format: &'static str,
    /// Where it is, for messages and `whittle tree` (`/JS stream of 12 0 obj`).
    pub what: String,
    /// A byte offset in the input the diagnostics about it point to.
    pub offset: usize,
    /// The inner document's bytes, decoded from how the outer format stores them; or why they
    /// cannot be (a filter it does not decode, a decompression bomb). A leaf whose content is
    /// not given stays an opaque leaf.
    pub content: Result<Vec<u8>, String>,
}

/// The leaves of `doc` whose text `splices` change, each with its new content
/// ([`Format::leaf_content`] of its spliced text), sorted by node; `None` if a splice is not
/// inside one leaf's text or a content is refused.
pub fn spliced_leaves(
    format: &dyn Format,
    doc: &Document,
    splices: &Splices,
) -> Option<Vec<(NodeId, Vec<u8>)>> {
    let tree = &doc.tree;
    let mut grouped: Vec<(NodeId, Splices)> = Vec::new();
    for (range, bytes) in splices.iter() {
        let leaf = leaf_holding(tree, range)?;
        let span = tree.span(leaf);
        let local = range.start - span.start..range.end - span.start;
        match grouped.last_mut() {
            Some((n, s)) if *n == leaf => {
                s.add(local, bytes);
            }
            _ => {
                let mut s = Splices::default();
                s.add(local, bytes);
                grouped.push((leaf, s));
            }
        }
    }
    grouped
        .into_iter()
        .map(|(leaf, s)| {
            let mut text = Vec::new();
            s.render(tree.text(leaf), &mut text);
            Some((leaf, format.leaf_content(doc, leaf, &text)?))
        })
        .collect()
}

/// The leaf whose text holds `range`, found by a descent from the root (children are in
/// document order, so each step is a binary search; nothing is allocated, since this runs for
/// every candidate the moves below the tree render). `None` if no leaf holds it (it lies in the
/// bytes between children, or across two).
pub(crate) fn leaf_holding(tree: &Tree, range: &std::ops::Range<usize>) -> Option<NodeId> {
    let mut n = tree.root();
    loop {
        let kids = tree.children(n);
        if kids.is_empty() {
            let span = tree.span(n);
            return (span.start <= range.start && range.end <= span.end).then_some(n);
        }
        // Of the children that start at or before the range, the last that holds it (an empty
        // child may start where the one that holds it starts).
        let i = kids.partition_point(|&k| tree.span(k).start <= range.start);
        let last = tree.span(*kids.get(i.checked_sub(1)?)?).start;
        n = *kids[..i]
            .iter()
            .rev()
            .take_while(|&&k| tree.span(k).start == last)
            .find(|&&k| range.end <= tree.span(k).end)?;
    }
}

/// [`Format::render_splices`] for a format whose moves below the tree change only the text
/// inside leaves: the leaves' new contents ([`spliced_leaves`]) rendered by
/// [`Format::render_embedded`]. Writes nothing if a splice is not inside one leaf.
pub fn render_spliced_leaves(
    format: &dyn Format,
    doc: &Document,
    splices: &Splices,
    out: &mut Vec<u8>,
) {
    if splices.is_empty() {
        return format.render(doc, &Edits::new(), out);
    }
    if let Some(contents) = spliced_leaves(format, doc, splices) {
        format.render_embedded(doc, &Edits::new(), &contents, out);
    }
}
