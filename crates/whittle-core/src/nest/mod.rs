//! Nested formats: a leaf of one format holding a document of another (a script in a PDF
//! stream, an XFA form), parsed into a subtree and reduced with the inner format's templates,
//! gate and rules.
//!
//! [`Nested`] is a [`Format`] made of an outer format and the inner formats it may hold. It
//! parses the outer document, asks it for its [`Embedded`] leaves, parses each content with the
//! inner format named, and builds one *combined* tree: the outer tree with each such leaf given
//! the inner document's tree as its only child (on an edge named after the inner format, every
//! inner label prefixed with `format:`). Each node of the combined tree belongs to one *part*,
//! the outer document or one inner document, and the edits of a candidate are split by part:
//! an inner document with edits is rendered by its format, checked by its gate, and handed back
//! to the outer format as the new content of its leaf ([`Format::render_embedded`]). Nothing here
//! knows a format: the pairing is the caller's (the `whittle` crate wires PDF to JavaScript and
//! XML).

mod splices;
mod templates;

use crate::document::{Diagnostic, Document, ParseError};
use crate::edit::{Edit, Edits};
use crate::format::{Embedded, Format};
use crate::lexicon::{Lexicon, Splices};
use crate::template::Template;
use crate::tree::{NodeId, Tree, TreeBuilder};
use templates::dispatching;

/// The most diagnostics of one inner document that are passed on.
const MAX_INNER_DIAGNOSTICS: usize = 5;

/// An outer format whose leaves may hold documents of the inner formats (see the module
/// documentation and `docs/ARCHITECTURE.md`).
pub struct Nested {
    outer: &'static dyn Format,
    inner: &'static [&'static dyn Format],
}

impl std::fmt::Debug for Nested {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner: Vec<&str> = self.inner.iter().map(|f| f.name()).collect();
        f.debug_struct("Nested")
            .field("outer", &self.outer.name())
            .field("inner", &inner)
            .finish()
    }
}

/// One inner document of a combined tree.
pub(crate) struct Part {
    /// Its format.
    pub(crate) format: &'static dyn Format,
    /// Its index in [`Nested`]'s inner formats.
    pub(crate) slot: usize,
    /// The inner document.
    pub(crate) doc: Document,
    /// The leaf that holds it, in the outer tree.
    pub(crate) leaf: NodeId,
    /// That leaf in the combined tree.
    pub(crate) holder: NodeId,
    /// The inner document's root in the combined tree; its node `i` is `root + i` there.
    pub(crate) root: NodeId,
    /// Whether its renderings go through its format's gate: the format has one and the content
    /// as parsed passed it.
    pub(crate) gate: bool,
    /// Where it is (from [`Embedded::what`]).
    pub(crate) what: String,
}

/// The state of a combined document: the outer document, the inner ones, and which part every
/// node of the combined tree belongs to.
pub(crate) struct NestState {
    pub(crate) outer: Document,
    pub(crate) parts: Vec<Part>,
    /// Combined node → (0 for the outer document or 1 + the part's index, node in that part).
    pub(crate) map: Vec<(u32, u32)>,
    /// Outer node → combined node.
    pub(crate) outer_ids: Vec<NodeId>,
    /// The embedded leaves kept whole: where, and why.
    pub(crate) opaque: Vec<(String, String)>,
}

impl NestState {
    /// The combined node of node `local` of part `p` (0: the outer document).
    pub(crate) fn combined(&self, p: u32, local: NodeId) -> NodeId {
        match p {
            0 => self.outer_ids[local.index()],
            p => NodeId(self.parts[p as usize - 1].root.0 + local.0),
        }
    }
}

pub(crate) fn state(doc: &Document) -> Option<&NestState> {
    doc.extra.as_ref()?.downcast_ref::<NestState>()
}

impl Nested {
    /// `outer` holding documents of the `inner` formats where [`Format::embedded`] says so.
    pub const fn new(outer: &'static dyn Format, inner: &'static [&'static dyn Format]) -> Nested {
        Nested { outer, inner }
    }

    /// The outer format.
    pub fn outer(&self) -> &'static dyn Format {
        self.outer
    }

    /// The inner formats.
    pub fn inner(&self) -> &'static [&'static dyn Format] {
        self.inner
    }

    /// Parses one embedded leaf's content, or says why it stays an opaque leaf.
    fn part(&self, e: Embedded, diagnostics: &mut Vec<Diagnostic>) -> Result<Part, String> {
        let Some(slot) = self.inner.iter().position(|f| f.name() == e.format) else {
            return Err(format!(
                "no {} format is nested in {}",
                e.format,
                self.outer.name()
            ));
        };
        let format = self.inner[slot];
        let content = e.content?;
        let doc = format
            .parse(&content)
            .map_err(|pe| format!("does not parse as {}: {pe}", format.name()))?;
        let mut again = Vec::with_capacity(content.len());
        format.render(&doc, &Edits::new(), &mut again);
        if again != content {
            return Err(format!(
                "the {} format does not give it back byte for byte",
                format.name()
            ));
        }
        let gate = format.has_gate() && format.gate(&content);
        if format.has_gate() && !gate {
            diagnostics.push(Diagnostic {
                offset: e.offset,
                message: format!(
                    "{}: fails the {} gate as it is; reduced as {} without the gate (as a whole \
                     input that fails it is)",
                    e.what,
                    format.name(),
                    format.name()
                ),
            });
        }
        for d in doc.diagnostics.iter().take(MAX_INNER_DIAGNOSTICS) {
            diagnostics.push(Diagnostic {
                offset: e.offset,
                message: format!("{}, {}: {d}", e.what, format.name()),
            });
        }
        Ok(Part {
            format,
            slot,
            doc,
            leaf: e.leaf,
            holder: NodeId(0),
            root: NodeId(0),
            gate,
            what: e.what,
        })
    }
}

/// A combined tree, which part each of its nodes belongs to, and where the outer nodes went.
type Combined = (Tree, Vec<(u32, u32)>, Vec<NodeId>);

/// Builds the combined tree: the outer tree with each part's tree below its leaf. Sets the
/// parts' `holder` and `root` and returns the tree, the map and the outer ids.
fn combine(outer: &Tree, parts: &mut [Part]) -> Result<Combined, ParseError> {
    // Parts in document order; the source with each leaf's text replaced by the inner source.
    parts.sort_by_key(|p| p.leaf);
    let mut source = Vec::with_capacity(outer.source().len());
    let mut at = 0;
    for p in parts.iter() {
        let span = outer.span(p.leaf);
        source.extend_from_slice(&outer.source()[at..span.start]);
        source.extend_from_slice(p.doc.tree.source());
        at = span.end;
    }
    source.extend_from_slice(&outer.source()[at..]);

    enum Task {
        Enter(NodeId),
        Exit(NodeId),
    }
    let mut b = TreeBuilder::new(source, outer.label(outer.root()));
    let mut map = vec![(0u32, 0u32)];
    let mut outer_ids = vec![NodeId(0); outer.len()];
    // Bytes the combined source has gained so far over the outer one.
    let mut delta: isize = 0;
    let shift = |pos: usize, delta: isize| (pos as isize + delta) as usize;
    let mut next_part = 0;
    let mut stack: Vec<Task> = outer
        .children(outer.root())
        .iter()
        .rev()
        .map(|&k| Task::Enter(k))
        .collect();
    while let Some(task) = stack.pop() {
        let n = match task {
            Task::Exit(n) => {
                b.close(shift(outer.span(n).end, delta));
                continue;
            }
            Task::Enter(n) => n,
        };
        let span = outer.span(n);
        let start = shift(span.start, delta);
        let holds = parts.get(next_part).is_some_and(|p| p.leaf == n);
        if holds {
            let part = &mut parts[next_part];
            next_part += 1;
            let id = b.open(outer.label(n), outer.edge(n), start);
            outer_ids[n.index()] = id;
            map.push((0, n.0));
            part.holder = id;
            part.root = NodeId(id.0 + 1);
            let p = next_part as u32;
            let inner = &part.doc.tree;
            let name = part.format.name();
            emit(&mut b, inner, name, start, p, &mut map);
            let len = inner.source().len();
            b.close(start + len);
            delta += len as isize - span.len() as isize;
            continue;
        }
        outer_ids[n.index()] = NodeId(map.len() as u32);
        map.push((0, n.0));
        let kids = outer.children(n);
        if kids.is_empty() {
            b.leaf(outer.label(n), outer.edge(n), start, shift(span.end, delta));
        } else {
            b.open(outer.label(n), outer.edge(n), start);
            stack.push(Task::Exit(n));
            stack.extend(kids.iter().rev().map(|&k| Task::Enter(k)));
        }
    }
    let tree = b.finish()?;
    Ok((tree, map, outer_ids))
}

/// Adds the nodes of an inner tree, in pre-order, at byte `base` of the combined source.
fn emit(
    b: &mut TreeBuilder,
    inner: &Tree,
    name: &str,
    base: usize,
    part: u32,
    map: &mut Vec<(u32, u32)>,
) {
    enum Task {
        Enter(NodeId),
        Exit(NodeId),
    }
    let mut stack = vec![Task::Enter(inner.root())];
    while let Some(task) = stack.pop() {
        let n = match task {
            Task::Exit(n) => {
                b.close(base + inner.span(n).end);
                continue;
            }
            Task::Enter(n) => n,
        };
        let label = format!("{name}:{}", inner.label(n));
        let edge = if n == inner.root() {
            name
        } else {
            inner.edge(n)
        };
        let span = inner.span(n);
        map.push((part, n.0));
        let kids = inner.children(n);
        if kids.is_empty() {
            b.leaf(&label, edge, base + span.start, base + span.end);
        } else {
            b.open(&label, edge, base + span.start);
            stack.push(Task::Exit(n));
            stack.extend(kids.iter().rev().map(|&k| Task::Enter(k)));
        }
    }
}

/// Whether node `n` of the combined tree is rendered in the candidate `edits`: neither it nor an
/// ancestor is deleted or replaced by a node outside the path to it.
fn rendered(tree: &Tree, edits: &Edits, n: NodeId) -> bool {
    std::iter::successors(Some(n), |&m| tree.parent(m)).all(|a| match edits.get(a) {
        Some(Edit::Delete) => false,
        Some(Edit::Replace(d)) => d == a || !tree.contains(a, d) || tree.contains(d, n),
        None => true,
    })
}

impl Format for Nested {
    fn name(&self) -> &'static str {
        self.outer.name()
    }

    fn extensions(&self) -> &'static [&'static str] {
        self.outer.extensions()
    }

    fn description(&self) -> &'static str {
        self.outer.description()
    }

    fn parse(&self, input: &[u8]) -> Result<Document, ParseError> {
        let outer = self.outer.parse(input)?;
        let mut diagnostics = outer.diagnostics.clone();
        let mut parts = Vec::new();
        let mut opaque = Vec::new();
        for e in self.outer.embedded(&outer) {
            let (what, offset) = (e.what.clone(), e.offset);
            match self.part(e, &mut diagnostics) {
                Ok(p) => parts.push(p),
                Err(why) => {
                    diagnostics.push(Diagnostic {
                        offset,
                        message: format!("{what}: kept whole: {why}"),
                    });
                    opaque.push((what, why));
                }
            }
        }
        let (tree, map, outer_ids) = combine(&outer.tree, &mut parts)?;
        let mut doc = Document::new(tree);
        doc.diagnostics = diagnostics;
        doc.extra = Some(Box::new(NestState {
            outer,
            parts,
            map,
            outer_ids,
            opaque,
        }));
        Ok(doc)
    }

    /// The edits on outer nodes go to the outer format; each inner document with edits is
    /// rendered by its format and, if its gate (when it has one the content passed) accepts
    /// it, handed to [`Format::render_embedded`] as its leaf's new content. A rendering the
    /// inner gate rejects makes the candidate the empty file, which the engine knows is not
    /// interesting. A replacement across parts is not a candidate any template proposes and is
    /// ignored.
    fn render(&self, doc: &Document, edits: &Edits, out: &mut Vec<u8>) {
        let Some(st) = state(doc) else {
            return self.outer.render(doc, edits, out);
        };
        let mut outer_edits = Edits::new();
        let mut part_edits = vec![Edits::new(); st.parts.len()];
        for (n, e) in edits.iter() {
            let Some(&(p, local)) = st.map.get(n.index()) else {
                continue;
            };
            let e = match e {
                Edit::Delete => Edit::Delete,
                Edit::Replace(d) => match st.map.get(d.index()) {
                    Some(&(q, dl)) if q == p => Edit::Replace(NodeId(dl)),
                    _ => continue,
                },
            };
            match p {
                0 => outer_edits.set(NodeId(local), e),
                p => part_edits[p as usize - 1].set(NodeId(local), e),
            }
        }
        let mut contents = Vec::new();
        for (part, edits_of) in st.parts.iter().zip(&part_edits) {
            if edits_of.is_empty() || !rendered(&doc.tree, edits, part.holder) {
                continue;
            }
            let mut bytes = Vec::new();
            part.format.render(&part.doc, edits_of, &mut bytes);
            if part.gate && !part.format.gate(&bytes) {
                return;
            }
            contents.push((part.leaf, bytes));
        }
        if contents.is_empty() {
            self.outer.render(&st.outer, &outer_edits, out);
        } else {
            self.outer
                .render_embedded(&st.outer, &outer_edits, &contents, out);
        }
    }

    fn rewriting(&self) -> &'static str {
        self.outer.rewriting()
    }

    /// The outer format's templates, then those of the inner formats; templates of the same
    /// name (`delete`, `substitute-by-child`) are one, which asks each node's own format.
    fn templates(&self) -> Vec<Box<dyn Template>> {
        dispatching(self.outer, self.inner)
    }

    fn tidy(&self, doc: &Document) -> Option<Vec<u8>> {
        let st = state(doc)?;
        if st.parts.is_empty() {
            self.outer.tidy(&st.outer)
        } else {
            None
        }
    }

    /// The outer format's outline, then each inner document's, under where it is.
    fn outline(&self, doc: &Document) -> String {
        let Some(st) = state(doc) else {
            return doc.tree.dump();
        };
        let mut out = self.outer.outline(&st.outer);
        if st.parts.is_empty() && st.opaque.is_empty() {
            return out;
        }
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("\n## nested documents (where, format, size; then its own outline)\n");
        for p in &st.parts {
            let gate = if p.gate || !p.format.has_gate() {
                ""
            } else {
                ", fails its gate"
            };
            out.push_str(&format!(
                "  {}  {}, {} bytes, {} nodes{gate}\n",
                p.what,
                p.format.name(),
                p.doc.tree.source().len(),
                p.doc.tree.len()
            ));
            for line in p.format.outline(&p.doc).lines() {
                out.push_str("      ");
                out.push_str(line);
                out.push('\n');
            }
        }
        for (what, why) in &st.opaque {
            out.push_str(&format!("  {what}  kept whole: {why}\n"));
        }
        out
    }

    /// The tokens of every inner document and those of the outer one inside its leaves, at
    /// their place in the combined source (see `splices.rs`).
    fn lexicon(&self, doc: &Document) -> Option<Lexicon> {
        splices::lexicon(self.outer, doc)
    }

    /// The splices split by part: inner documents rendered by their formats, outer leaves
    /// decoded by the outer one, all written by [`Format::render_embedded`].
    fn render_splices(&self, doc: &Document, splices: &Splices, out: &mut Vec<u8>) {
        splices::render(self.outer, doc, splices, out);
    }

    fn splices_lists(&self) -> bool {
        self.outer.splices_lists()
    }

    fn has_gate(&self) -> bool {
        self.outer.has_gate()
    }

    fn delimiters(&self) -> &'static [u8] {
        self.outer.delimiters()
    }

    fn gate(&self, bytes: &[u8]) -> bool {
        self.outer.gate(bytes)
    }

    fn embedded(&self, doc: &Document) -> Vec<Embedded> {
        let _ = doc;
        Vec::new()
    }
}
