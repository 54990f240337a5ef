//! The tokens of a tree-sitter document that the moves below the tree may rewrite: names,
//! string contents, numbers, blanks between tokens and placeholders, by node kind.

use whittle_core::{Document, Lexicon, NodeId, Token, TokenKind, Tree, blank_runs, gap};

/// Which node kinds of a grammar are which kind of token.
#[derive(Clone, Copy, Debug)]
pub struct LexSpec {
    /// Kinds of names (identifiers, property names): renamed consistently.
    pub names: &'static [&'static str],
    /// Where a name is bound: (parent kind, edge label) of a name node that defines it (a
    /// function's name, a parameter, an assignment's target). Only names bound somewhere in the
    /// file are renamed.
    pub bindings: &'static [(&'static str, &'static str)],
    /// (parent kind, edge label) of a name that is bound when its parent is (`self.x` on the
    /// left of an assignment binds `x`).
    pub projections: &'static [(&'static str, &'static str)],
    /// Kinds of string literals with the bytes of their opening and closing delimiters: their
    /// content shrinks.
    pub strings: &'static [(&'static str, usize, usize)],
    /// Kinds of comments, whose text shrinks between its delimiters (`/*` `*/`, `//`, `#`).
    pub comments: &'static [&'static str],
    /// Kinds of number literals.
    pub numbers: &'static [&'static str],
    /// Node kinds and the smaller forms they may take, tried in order.
    pub placeholders: &'static [(&'static str, &'static [&'static str])],
    /// Kinds inside which no blank is touched (string literals, whose blanks are content).
    pub verbatim: &'static [&'static str],
    /// Words that must not become names.
    pub reserved: &'static [&'static str],
    /// Whether indentation is syntax (Python): then blanks at the start of a line stay.
    pub keep_indentation: bool,
    /// Bytes that form words, between which one blank must stay.
    pub is_word: fn(u8) -> bool,
}

/// The lexicon of a document this crate parsed, by the kinds of `spec`.
pub fn lexicon(spec: &LexSpec, doc: &Document) -> Lexicon {
    let tree = &doc.tree;
    let mut tokens = Vec::new();
    let mut gaps = Vec::new();
    // Pre-order: a verbatim node's subtree is the id range up to `verbatim_end`; its tokens are
    // listed, its blanks are not.
    let mut verbatim_end = 0usize;
    for n in tree.nodes() {
        let kind = tree.label(n);
        let span = tree.span(n);
        if spec.names.contains(&kind) && tree.children(n).is_empty() {
            tokens.push(Token {
                span: span.clone(),
                kind: TokenKind::Name {
                    namespace: 0,
                    bound: is_bound(spec, tree, n),
                },
            });
        } else if spec.numbers.contains(&kind) {
            tokens.push(Token {
                span: span.clone(),
                kind: TokenKind::Number,
            });
        } else if let Some(&(_, open, close)) = spec.strings.iter().find(|s| s.0 == kind) {
            tokens.push(Token {
                span: span.clone(),
                kind: TokenKind::Literal { open, close },
            });
        }
        if spec.comments.contains(&kind) {
            let text = tree.text(n);
            let (open, close) = if text.starts_with(b"/*") && text.ends_with(b"*/") {
                (2, 2)
            } else if text.starts_with(b"//") {
                (2, 0)
            } else if text.starts_with(b"#") {
                (1, 0)
            } else {
                (0, 0)
            };
            if text.len() >= open + close {
                tokens.push(Token {
                    span: span.clone(),
                    kind: TokenKind::Literal { open, close },
                });
            }
        }
        if let Some(&(_, alternatives)) = spec.placeholders.iter().find(|p| p.0 == kind) {
            tokens.push(Token {
                span: span.clone(),
                kind: TokenKind::Alternatives(alternatives),
            });
        }
        if spec.verbatim.contains(&kind) && n.index() >= verbatim_end {
            verbatim_end = n.index() + tree.size(n);
        }
        let kids = tree.children(n).len();
        if kids > 0 && n.index() >= verbatim_end {
            gaps.extend((0..=kids).map(|i| gap(tree, n, i)));
        }
    }
    tokens.extend(blank_runs(
        tree.source(),
        gaps,
        spec.is_word,
        spec.keep_indentation,
    ));
    Lexicon {
        tokens,
        reserved: spec.reserved,
    }
}

/// Whether name node `n` binds its name (see [`LexSpec::bindings`]).
fn is_bound(spec: &LexSpec, tree: &Tree, n: NodeId) -> bool {
    let context = |m: NodeId| tree.parent(m).map(|p| (tree.label(p), tree.edge(m)));
    let Some(here) = context(n) else {
        return false;
    };
    spec.bindings.contains(&here)
        || (spec.projections.contains(&here)
            && tree
                .parent(n)
                .and_then(context)
                .is_some_and(|up| spec.bindings.contains(&up)))
}
