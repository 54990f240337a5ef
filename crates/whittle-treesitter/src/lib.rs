//! Any tree-sitter grammar as a whittle format.
//!
//! [`parse`] turns tree-sitter's concrete tree into the shared tree: every *named* node becomes a
//! node labeled by its kind, on an edge labeled by its field name (or `child` when it has none);
//! keywords and punctuation (anonymous nodes) stay in the bytes between children, the render
//! template. `ERROR` nodes are kept as opaque leaves, so input the grammar does not fully accept
//! still reduces. [`render`] writes a tree with edits back: unedited subtrees are copied, separators
//! of deleted list elements are dropped with them, for indentation-sensitive languages a subtree
//! that moves to another indentation depth is re-indented (multi-line strings are left alone), and
//! for languages with automatic semicolon insertion a `;` is written where two statements come to
//! meet that would otherwise join ([`Asi`]). Named node kinds listed as [`Spec::tokens`] stay in
//! the template. See `docs/adding-a-language.md`.

mod alone;
mod lexicon;
mod mask;
mod render;

pub use alone::{LiteralsAlone, literals_alone};
pub use lexicon::{LexSpec, keep_renamable_names, lexicon, lexicon_with_free_names, no_references};
pub use mask::{Optional, gnu_attributes};
pub use render::{Asi, render, tidy};

use whittle_core::{Diagnostic, Document, NodeId, ParseError, TreeBuilder};

/// How one language is turned into a tree and back.
#[derive(Clone, Debug)]
pub struct Spec {
    /// The grammar.
    pub language: tree_sitter::Language,
    /// Tokens that separate the elements of a list (`,`, and `;` for Python's simple
    /// statements). A gap between two children that is one of these (plus white space) is
    /// dropped together with the child before it.
    pub separators: &'static [&'static str],
    /// Node kinds whose text is never re-indented (multi-line string literals).
    pub protected: &'static [&'static str],
    /// Whether indentation is syntax (Python): a subtree moved to another depth is re-indented.
    pub reindent: bool,
    /// The node kind that is one indentation level deeper than its parent statement (Python's
    /// `block`), used by [`tidy`] to indent each line by one space per level.
    pub block: Option<&'static str>,
    /// Named node kinds that stay in the render template like keywords and punctuation, so that
    /// no edit reaches them (JavaScript's string fragments, escapes, regex patterns and `?.`).
    /// A node whose only named children are tokens is a leaf. Empty: every named node is a node.
    pub tokens: &'static [&'static str],
    /// Automatic semicolon insertion (JavaScript): see [`Asi`]. `None` for other languages.
    pub asi: Option<Asi>,
    /// Spans the file can do without where the grammar fails on them (C's GNU attributes): see
    /// [`Optional`]. `None`: the file is parsed as it is.
    pub optional: Option<Optional>,
    /// Node kinds that are comments. One that is deleted after a kept child on its line keeps
    /// the line break after it (see [`render`]); they are the blank nodes of [`comments`].
    pub comments: &'static [&'static str],
    /// Anonymous tokens that stand alone as an element of a list, each made a leaf there: C's and
    /// C++'s empty declaration `;` in a class body or at file scope, which deleting the member
    /// or the class before it leaves. In the template it could only go with the whole list; as
    /// a leaf, the tree moves delete it, and the blanks around it are gaps between children.
    pub empty_items: &'static [EmptyItem],
}

/// An anonymous token that is a leaf where it stands alone in a list: see
/// [`Spec::empty_items`].
#[derive(Clone, Copy, Debug)]
pub struct EmptyItem {
    /// The kind of the list.
    pub list: &'static str,
    /// The token.
    pub token: &'static str,
    /// The leaf's label.
    pub label: &'static str,
}

/// What [`render`] needs besides the tree: the spans whose lines must not be re-indented.
#[derive(Debug, Default)]
pub struct Extra {
    /// Sorted, non-overlapping byte ranges of multi-line protected nodes.
    protected: Vec<(usize, usize)>,
}

impl Extra {
    /// The extra state of a document this crate parsed (or none, for a document made otherwise).
    pub(crate) fn of(doc: &Document) -> &Extra {
        static NONE: Extra = Extra {
            protected: Vec::new(),
        };
        doc.extra
            .as_ref()
            .and_then(|e| e.downcast_ref::<Extra>())
            .unwrap_or(&NONE)
    }

    /// Whether byte `offset` lies strictly inside a protected span (a line starting there belongs
    /// to a multi-line string).
    pub(crate) fn is_protected(&self, offset: usize) -> bool {
        let i = self.protected.partition_point(|&(s, _)| s < offset);
        i > 0 && self.protected[i - 1].1 > offset
    }
}

/// The edge label of children that have no field name.
pub const UNNAMED_EDGE: &str = "child";

/// The label of nodes the grammar could not parse; they are kept as opaque text.
pub const ERROR_LABEL: &str = "ERROR";

/// Parses `input` with the grammar of `spec` into a [`Document`]. Syntax errors become opaque
/// `ERROR` leaves and diagnostics; parsing fails only if tree-sitter cannot run at all.
pub fn parse(spec: &Spec, input: &[u8]) -> Result<Document, ParseError> {
    parse_counting(spec, input).map(|(doc, _)| doc)
}

/// The comments of `doc` (the kinds [`Spec::comments`] lists), in pre-order: the blank nodes of
/// [`whittle_core::Format::blanks`], which `auto` deletes in one candidate. A comment between
/// two characters of words (`int/**/b`) is left out: without it they would make one word.
pub fn comments(spec: &Spec, doc: &Document) -> Vec<NodeId> {
    let kinds = spec.comments;
    let tree = &doc.tree;
    let src = tree.source();
    let word = |i: Option<usize>| i.and_then(|i| src.get(i)).is_some_and(|&b| is_word(b));
    (tree.nodes())
        .filter(|&n| kinds.contains(&tree.label(n)))
        .filter(|&n| {
            let span = tree.span(n);
            !(word(span.start.checked_sub(1)) && word(Some(span.end)))
        })
        .collect()
}

/// A byte of a word (a name, a keyword, a number) in the languages of this crate: ASCII letters
/// and digits, `_`, `$` (JavaScript's names, a GNU C extension) and every byte of a non-ASCII
/// character. JavaScript's [`LexSpec::is_word`].
pub fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// [`parse`], and the number of places tree-sitter could not read: its `ERROR` nodes (each
/// once, whatever it holds) and `MISSING` tokens anywhere in its tree, also inside what
/// whittle's tree keeps as one leaf. A format whose gate counts them (C, C++) parses once.
pub fn parse_counting(spec: &Spec, input: &[u8]) -> Result<(Document, usize), ParseError> {
    build(spec, input, read(spec, input)?)
}

/// [`parse_counting`] where the count is at most `most`; `None` where it is more, found before
/// whittle's tree is built (on 1.1 MB of C++, a third of the time): a gate that allows `most`
/// places it cannot read rejects the input without it.
pub fn parse_counting_at_most(
    spec: &Spec,
    input: &[u8],
    most: usize,
) -> Result<Option<(Document, usize)>, ParseError> {
    let read = read(spec, input)?;
    if read.count > most {
        return Ok(None);
    }
    build(spec, input, read).map(Some)
}

/// What tree-sitter read of a file: its tree, how many places it could not read, and the
/// optional spans it was read without ([`Spec::optional`]).
struct Read {
    ts: tree_sitter::Tree,
    count: usize,
    blanked: Vec<std::ops::Range<usize>>,
}

/// Parses `input`, and again without the optional spans that lie in its errors if that leaves
/// fewer of them.
fn read(spec: &Spec, input: &[u8]) -> Result<Read, ParseError> {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&spec.language)
        .map_err(|e| ParseError {
            offset: 0,
            message: format!("the grammar cannot be loaded: {e}"),
        })?;
    let gave_up = || ParseError {
        offset: 0,
        message: "tree-sitter gave up on this input".to_string(),
    };
    let ts = parser.parse(input, None).ok_or_else(gave_up)?;
    let found = defects(ts.root_node());
    let count = found.len();
    if let Some((spans, text)) = mask::blank_optional(spec, input, &found) {
        // The blanked text differs from the input only inside the spans (of the same length),
        // so the input's tree, told of those edits, is reused outside them: on 1.1 MB of
        // preprocessed libstdc++ with 94 such spans, 64 ms instead of 234 for a fresh parse.
        // Around errors an incremental parse is not always a fresh one (`docs/c.md`, "The
        // gate"), but it starts from this input's own tree: what it gives depends on the
        // input's bytes alone, as the first parse does, whatever else was parsed before.
        let mut edited = ts.clone();
        mask::tell_blanked(&mut edited, input, &spans);
        let without = parser.parse(&text, Some(&edited)).ok_or_else(gave_up)?;
        let fewer = defects(without.root_node()).len();
        if fewer < count {
            return Ok(Read {
                ts: without,
                count: fewer,
                blanked: spans,
            });
        }
    }
    Ok(Read {
        ts,
        count,
        blanked: Vec::new(),
    })
}

/// whittle's tree over what [`read`] read, and its count.
fn build(spec: &Spec, input: &[u8], read: Read) -> Result<(Document, usize), ParseError> {
    let Read { ts, count, blanked } = read;
    let mut pending = mask::Pending::new(blanked);
    let optional_label = spec.optional.map_or(ERROR_LABEL, |o| o.label);
    let root = ts.root_node();
    let mut b = TreeBuilder::new(input.to_vec(), root.kind());
    let mut diagnostics = Vec::new();
    let mut protected = Vec::new();
    // The builder's root covers the whole input; tree-sitter's root may start after leading
    // white space, which then belongs to the root's first gap.
    let mut cursor = root.walk();
    // For every open ancestor: its end and the end of its last added child.
    let mut open: Vec<(usize, usize)> = vec![(input.len(), 0)];
    // For every tree-sitter level we entered: whether it opened a builder node, and the kind of
    // the node whose children it holds (the list an empty item stands in).
    let mut entered: Vec<(bool, &str)> = Vec::new();
    let mut descend = cursor.goto_first_child();
    if descend {
        entered.push((false, root.kind()));
    }
    while descend || !entered.is_empty() {
        if descend {
            let node = cursor.node();
            let (start, end) = (node.start_byte(), node.end_byte());
            let &(parent_end, last_end) = open.last().unwrap_or(&(input.len(), 0));
            if node.is_missing() {
                diagnostics.push(Diagnostic {
                    offset: start,
                    message: format!("syntax error: missing `{}`", node.kind()),
                });
            }
            let fits = start >= last_end && end <= parent_end && start < end;
            let mut opened = false;
            let list = entered.last().map_or("", |&(_, kind)| kind);
            if let Some(label) = label_of(spec, &node, list).filter(|_| fits) {
                pending.add(&mut b, &mut open, start, optional_label);
                let edge = cursor.field_name().unwrap_or(UNNAMED_EDGE);
                if let Some(last) = open.last_mut() {
                    last.1 = end;
                }
                if node.is_error() {
                    diagnostics.push(Diagnostic {
                        offset: start,
                        message: "syntax error; this part is kept as text".to_string(),
                    });
                    b.leaf(ERROR_LABEL, edge, start, end);
                } else if has_node_child(spec, &node) {
                    b.open(label, edge, start);
                    open.push((end, start));
                    opened = true;
                } else {
                    b.leaf(label, edge, start, end);
                }
                // Nested protected nodes (a string inside an f-string) are covered by the outer.
                if spec.protected.contains(&node.kind())
                    && input[start..end].contains(&b'\n')
                    && protected.last().is_none_or(|&(_, e)| start >= e)
                {
                    protected.push((start, end));
                }
            }
            if opened && cursor.goto_first_child() {
                entered.push((true, node.kind()));
                continue;
            }
            if opened {
                pending.add(&mut b, &mut open, end, optional_label);
                open.pop();
                b.close(end);
            }
        }
        // Move to the next sibling, closing finished levels on the way up.
        descend = cursor.goto_next_sibling();
        if !descend {
            if !cursor.goto_parent() {
                break;
            }
            if entered.pop().is_some_and(|(opened, _)| opened) {
                let end = cursor.node().end_byte();
                pending.add(&mut b, &mut open, end, optional_label);
                open.pop();
                b.close(end);
            }
        }
    }
    while let Some((was_open, _)) = entered.pop() {
        if was_open {
            pending.add(&mut b, &mut open, input.len(), optional_label);
            open.pop();
            b.close(input.len());
        }
    }
    pending.add(&mut b, &mut open, input.len(), optional_label);
    let tree = b.finish()?;
    let doc = Document {
        tree,
        diagnostics,
        extra: Some(Box::new(Extra { protected })),
    };
    Ok((doc, count))
}

/// The `ERROR` nodes (the outermost: an error node counts once, whatever it holds) and
/// `MISSING` tokens below `root`, in file order, visiting only subtrees that have one.
fn defects(root: tree_sitter::Node<'_>) -> Vec<tree_sitter::Node<'_>> {
    let mut out = Vec::new();
    if !root.has_error() {
        return out;
    }
    let mut cursor = root.walk();
    let mut descend = true;
    loop {
        let node = cursor.node();
        if descend {
            if node.is_error() || node.is_missing() {
                out.push(node);
            }
            if !node.is_error() && node.has_error() && cursor.goto_first_child() {
                continue;
            }
        }
        if cursor.goto_next_sibling() {
            descend = true;
            continue;
        }
        if !cursor.goto_parent() {
            return out;
        }
        descend = false;
    }
}

/// The label of the node a tree-sitter node in `list` (its parent's kind) becomes; `None` where
/// it stays a part of the template.
fn label_of<'t>(spec: &Spec, node: &tree_sitter::Node<'t>, list: &str) -> Option<&'t str> {
    if node.is_named() {
        return (!spec.tokens.contains(&node.kind())).then(|| node.kind());
    }
    let kind = node.kind();
    (spec.empty_items.iter())
        .find(|e| e.token == kind && e.list == list)
        .map(|e| e.label)
}

/// Whether a child of `node` becomes a node of the tree: a named one, or an empty item.
fn has_node_child(spec: &Spec, node: &tree_sitter::Node<'_>) -> bool {
    let list = node.kind();
    let mut c = node.walk();
    node.children(&mut c)
        .any(|k| k.end_byte() > k.start_byte() && label_of(spec, &k, list).is_some())
}

#[cfg(test)]
mod tests;
