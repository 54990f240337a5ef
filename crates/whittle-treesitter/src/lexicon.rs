//! The tokens of a tree-sitter document that the moves below the tree may rewrite: names,
//! string contents, numbers, blanks between tokens and placeholders, by node kind.

use std::collections::HashMap;
use std::ops::Range;
use whittle_core::{
    Document, KEPT_NAMESPACE, Lexicon, NodeId, Token, TokenKind, Tree, blank_runs, gap,
};

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
    /// Whether a string literal names something outside the file by its text (the module an
    /// import or a `require` loads, the header an `#include` reads). Its content never shrinks:
    /// a shorter name names another module or none, so the test refuses every such candidate
    /// wherever the file still needs the import (the tree moves try the import itself).
    pub references: fn(&Tree, NodeId) -> bool,
    /// Kinds of comments, whose text shrinks between its delimiters (`/*` `*/`, `//`, `#`).
    pub comments: &'static [&'static str],
    /// Kinds of number literals.
    pub numbers: &'static [&'static str],
    /// Statements that define a name, for inlining: (statement kind, the kind of its one named
    /// child, the edge of the name below that child, the edge of the value).
    pub definitions: &'static [(&'static str, &'static str, &'static str, &'static str)],
    /// Kinds of values that need no parentheses where a name stood (a call, a subscript, a
    /// literal); any other value is inlined in parentheses.
    pub atoms: &'static [&'static str],
    /// (parent kind, edge label) of a name that is neither a binding nor a use of the variable
    /// (a keyword argument's name).
    pub not_uses: &'static [(&'static str, &'static str)],
    /// Node kinds and the smaller forms they may take, tried in order.
    pub placeholders: &'static [(&'static str, &'static [&'static str])],
    /// Statement kinds that may become one of [`LexSpec::substitutes`], besides those in
    /// [`LexSpec::compound`].
    pub statements: &'static [&'static str],
    /// The shortest token sequences of the language that stand for a statement (`0`, `a`, a
    /// string), tried in order in place of each statement ([`TokenKind::Substitute`]).
    pub substitutes: &'static [&'static str],
    /// Whether names the file uses without binding them are renamed too (`rename-free`): not in
    /// C, where such a name is a header's, so a renaming only breaks the compile.
    pub rename_free: bool,
    /// Names the language gives a meaning of its own, never renamed where the file does not bind
    /// them (`arguments`, `self`, `__name__`).
    pub special: &'static [&'static str],
    /// Kinds of indented blocks that may join their header's line (`def f():⏎ 0` as
    /// `def f():0`) when they hold one statement not of a kind in [`LexSpec::compound`].
    pub one_line_blocks: &'static [&'static str],
    /// Statement kinds that open a block of their own, so cannot follow a header's `:` on its
    /// line; they may become one of [`LexSpec::substitutes`] too.
    pub compound: &'static [&'static str],
    /// Kinds inside which no blank is touched (string literals, whose blanks are content).
    pub verbatim: &'static [&'static str],
    /// Words that must not become names.
    pub reserved: &'static [&'static str],
    /// Whether indentation is syntax (Python): then blanks at the start of a line stay.
    pub keep_indentation: bool,
    /// Whether the line break at an offset of the source may go, with the blanks around it
    /// (C, outside preprocessor lines); `None`: line breaks stay (they may end a statement).
    pub joinable: Option<fn(&[u8], usize) -> bool>,
    /// Bytes that form words, between which one blank must stay.
    pub is_word: fn(u8) -> bool,
}

/// The lexicon of a document this crate parsed, by the kinds of `spec`.
pub fn lexicon(spec: &LexSpec, doc: &Document) -> Lexicon {
    let mut lexicon = lexicon_with_free_names(spec, doc);
    keep_renamable_names(spec, doc.tree.source(), &mut lexicon.tokens);
    lexicon
}

/// [`lexicon`] with every name in its namespace, also those [`keep_renamable_names`] keeps: for
/// a format that decides itself which names are bound, then keeps the others.
pub fn lexicon_with_free_names(spec: &LexSpec, doc: &Document) -> Lexicon {
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
        } else if let Some(&(_, open, close)) = spec.strings.iter().find(|s| s.0 == kind)
            && !(spec.references)(tree, n)
        {
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
        let statement = spec.statements.contains(&kind) || spec.compound.contains(&kind);
        if statement && !spec.substitutes.is_empty() {
            tokens.push(Token {
                span: span.clone(),
                kind: TokenKind::Substitute(spec.substitutes),
            });
        }
        if spec.one_line_blocks.contains(&kind) {
            tokens.extend(join_line(spec, tree, n));
        }
        if spec.verbatim.contains(&kind) && n.index() >= verbatim_end {
            verbatim_end = n.index() + tree.size(n);
        }
        let kids = tree.children(n).len();
        if kids > 0 && n.index() >= verbatim_end {
            gaps.extend((0..=kids).map(|i| gap(tree, n, i)));
        } else if kids == 0 && n.index() >= verbatim_end {
            // An empty pair of brackets is a leaf (`{  }`, `(  )`): the blanks inside go too.
            gaps.extend(
                inside_empty_brackets(tree.text(n))
                    .map(|r| span.start + r.start..span.start + r.end),
            );
        }
    }
    tokens.extend(definitions(spec, tree));
    let src = tree.source();
    let gaps = match spec.joinable {
        Some(joinable) => joined_lines(src, gaps, spec.is_word, joinable, &mut tokens),
        None => gaps,
    };
    tokens.extend(blank_runs(src, gaps, spec.is_word, spec.keep_indentation));
    Lexicon {
        tokens,
        reserved: spec.reserved.to_vec(),
    }
}

/// The runs of white space with line breaks in `gaps` that may all go ([`LexSpec::joinable`]),
/// as blanks (one space where two words would join) pushed to `tokens`; returns the rest of the
/// gaps, whose blanks within lines [`blank_runs`] lists.
fn joined_lines(
    src: &[u8],
    gaps: Vec<Range<usize>>,
    is_word: fn(u8) -> bool,
    joinable: fn(&[u8], usize) -> bool,
    tokens: &mut Vec<Token>,
) -> Vec<Range<usize>> {
    let mut rest = Vec::new();
    for gap in gaps {
        let mut from = gap.start;
        let mut i = gap.start;
        while i < gap.end {
            if !src[i].is_ascii_whitespace() {
                i += 1;
                continue;
            }
            let start = i;
            while i < gap.end && src[i].is_ascii_whitespace() {
                i += 1;
            }
            let mut breaks = (start..i).filter(|&k| src[k] == b'\n').peekable();
            if breaks.peek().is_none() || !breaks.all(|k| joinable(src, k)) {
                continue;
            }
            let joins = start > 0 && i < src.len() && is_word(src[start - 1]) && is_word(src[i]);
            tokens.push(Token {
                span: start..i,
                kind: TokenKind::Space {
                    min: if joins { " " } else { "" },
                },
            });
            rest.push(from..start);
            from = i;
        }
        rest.push(from..gap.end);
    }
    rest
}

/// Puts the names the file never binds, where the spec keeps them out of the renaming (every
/// one without [`LexSpec::rename_free`], the [`LexSpec::special`] ones with it), in
/// [`KEPT_NAMESPACE`]: never renamed, and no new name is one of them.
pub fn keep_renamable_names(spec: &LexSpec, src: &[u8], tokens: &mut [Token]) {
    let bound: std::collections::HashSet<&[u8]> = tokens
        .iter()
        .filter(|t| matches!(t.kind, TokenKind::Name { bound: true, .. }))
        .map(|t| &src[t.span.clone()])
        .collect();
    for t in tokens {
        let name = &src[t.span.clone()];
        let TokenKind::Name { namespace, .. } = &mut t.kind else {
            continue;
        };
        let renamable = spec.rename_free && !spec.special.iter().any(|s| s.as_bytes() == name);
        if !bound.contains(name) && !renamable {
            *namespace = KEPT_NAMESPACE;
        }
    }
}

/// The line end and indentation between an indented block and its header's `:`, when the block
/// holds one statement that may stand on the header's line: as a blank that may go
/// (`if x:y`).
fn join_line(spec: &LexSpec, tree: &Tree, n: NodeId) -> Option<Token> {
    let [only] = tree.children(n) else {
        return None;
    };
    if spec.compound.contains(&tree.label(*only)) {
        return None;
    }
    let src = tree.source();
    let start = tree.span(n).start;
    let blanks = src[..start]
        .iter()
        .rev()
        .take_while(|&&b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .count();
    let colon = start - blanks;
    let joins = colon > 0 && src[colon - 1] == b':' && src[colon..start].contains(&b'\n');
    joins.then_some(Token {
        span: colon..start,
        kind: TokenKind::Space { min: "" },
    })
}

/// The blanks between the brackets of a leaf that is an empty pair of them (`{  }`, `( )`,
/// `[ ]`), as a range of its text.
fn inside_empty_brackets(text: &[u8]) -> Option<std::ops::Range<usize>> {
    let (&open, rest) = text.split_first()?;
    let (&close, inside) = rest.split_last()?;
    let pair = matches!((open, close), (b'{', b'}') | (b'(', b')') | (b'[', b']'));
    (pair && !inside.is_empty() && inside.iter().all(u8::is_ascii_whitespace))
        .then(|| 1..text.len() - 1)
}

/// The statements of `spec.definitions` whose name no other node binds, as
/// [`TokenKind::Definition`]s with the name's uses.
fn definitions(spec: &LexSpec, tree: &Tree) -> Vec<Token> {
    if spec.definitions.is_empty() {
        return Vec::new();
    }
    // Per name: how many nodes bind it, and its uses (not bindings, not attributes).
    let mut names: HashMap<&[u8], Occurrences<'_>> = HashMap::new();
    for n in tree.nodes() {
        if !spec.names.contains(&tree.label(n)) || !tree.children(n).is_empty() {
            continue;
        }
        let entry = names.entry(tree.text(n)).or_default();
        let context = tree.parent(n).map(|p| (tree.label(p), tree.edge(n)));
        if is_bound(spec, tree, n) {
            entry.0 += 1;
        } else if !context
            .is_some_and(|c| spec.projections.contains(&c) || spec.not_uses.contains(&c))
        {
            entry.1.push((tree.span(n), tree.label(n)));
        }
    }
    let child_at = |n: NodeId, edge: &str| {
        let kids = tree.children(n);
        let mut at = kids.iter().filter(|&&k| tree.edge(k) == edge);
        match (at.next(), at.next()) {
            (Some(&k), None) => Some(k),
            _ => None,
        }
    };
    let mut out = Vec::new();
    for n in tree.nodes() {
        let kind = tree.label(n);
        for &(statement, inner, name_edge, value_edge) in spec.definitions {
            let (true, [only]) = (kind == statement, tree.children(n)) else {
                continue;
            };
            if tree.label(*only) != inner || tree.children(*only).len() != 2 {
                continue;
            }
            let (Some(name), Some(value)) =
                (child_at(*only, name_edge), child_at(*only, value_edge))
            else {
                continue;
            };
            let Some((1, uses)) = names.get(tree.text(name)) else {
                continue;
            };
            if !spec.names.contains(&tree.label(name)) || !is_bound(spec, tree, name) {
                continue;
            }
            let span = tree.span(n);
            // Uses of the same kind as the name (not a shorthand property of the same text),
            // outside the statement.
            let uses: Vec<Range<usize>> = uses
                .iter()
                .filter(|(u, label)| {
                    *label == tree.label(name) && (u.end <= span.start || u.start >= span.end)
                })
                .map(|(u, _)| u.clone())
                .collect();
            out.push(Token {
                span: with_its_line(tree.source(), span),
                kind: TokenKind::Definition {
                    value: tree.span(value),
                    wrap: !spec.atoms.contains(&tree.label(value)),
                    uses,
                },
            });
        }
    }
    out
}

/// How many nodes bind a name, and its uses with their kinds.
type Occurrences<'t> = (usize, Vec<(Range<usize>, &'t str)>);

/// `span` with the blanks before it and the line end after it, when it has a line of its own.
fn with_its_line(source: &[u8], span: Range<usize>) -> Range<usize> {
    let mut start = span.start;
    while start > 0 && matches!(source[start - 1], b' ' | b'\t') {
        start -= 1;
    }
    let own_line = start == 0 || source[start - 1] == b'\n';
    let rest = &source[span.end..];
    let eol = if rest.starts_with(b"\r\n") {
        2
    } else {
        usize::from(rest.starts_with(b"\n"))
    };
    if own_line && eol > 0 {
        start..span.end + eol
    } else {
        span
    }
}

/// For [`LexSpec::references`]: a language whose string literals never name a file or module.
pub fn no_references(_: &Tree, _: NodeId) -> bool {
    false
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
