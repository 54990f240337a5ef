//! A tiny tree syntax for tests: `node := [edge ':'] label ['(' node* ')']`, separated by spaces,
//! e.g. `IfStmt(test:Unary(arg:c) cons:Block(body:Var))`. The root `file` holds the top-level
//! nodes. Every rendering of a toy tree with edits is again valid toy syntax.

use crate::{
    Document, Format, Lexicon, NodeId, ParseError, Token, TokenKind, TreeBuilder, blank_runs, gap,
};

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Toy;

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'!'
}

impl Format for Toy {
    fn name(&self) -> &'static str {
        "toy"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["toy"]
    }

    fn description(&self) -> &'static str {
        "test-only tree syntax"
    }

    /// For the moves below the tree: a leaf's label is a name (a literal after `s_` if it starts
    /// so), a node with children may become the leaf `z`, and blanks between nodes may go (one
    /// stays between two words).
    fn lexicon(&self, doc: &Document) -> Option<Lexicon> {
        let tree = &doc.tree;
        let mut tokens = Vec::new();
        let mut gaps = Vec::new();
        for n in tree.nodes().skip(1) {
            let span = tree.span(n);
            let kids = tree.children(n).len();
            if kids == 0 {
                let colon = tree.text(n).iter().position(|&b| b == b':');
                let start = colon.map_or(span.start, |c| span.start + c + 1);
                let kind = if tree.source()[start..span.end].starts_with(b"s_") {
                    TokenKind::Literal { open: 2, close: 0 }
                } else {
                    TokenKind::Name {
                        namespace: 0,
                        bound: true,
                    }
                };
                tokens.push(Token {
                    span: start..span.end,
                    kind,
                });
            } else {
                tokens.push(Token {
                    span,
                    kind: TokenKind::Alternatives(&["z"]),
                });
            }
        }
        for n in tree.nodes() {
            let kids = tree.children(n).len();
            if kids > 0 {
                gaps.extend((0..=kids).map(|i| gap(tree, n, i)));
            }
        }
        tokens.extend(blank_runs(tree.source(), gaps, is_word, true));
        Some(Lexicon {
            tokens,
            reserved: vec!["if"],
        })
    }

    fn parse(&self, input: &[u8]) -> Result<Document, ParseError> {
        let mut b = TreeBuilder::new(input.to_vec(), "file");
        let mut i = 0;
        let mut open = 0usize;
        let err = |offset: usize, message: &str| ParseError {
            offset,
            message: message.to_string(),
        };
        while i < input.len() {
            let c = input[i];
            if c == b' ' {
                i += 1;
            } else if c == b')' {
                if open == 0 {
                    return Err(err(i, "unbalanced )"));
                }
                open -= 1;
                i += 1;
                b.close(i);
            } else if is_word(c) {
                let start = i;
                let word_end = |mut j: usize| {
                    while j < input.len() && is_word(input[j]) {
                        j += 1;
                    }
                    j
                };
                let mut j = word_end(i);
                let mut edge = "c".to_string();
                if input.get(j) == Some(&b':') {
                    edge = String::from_utf8_lossy(&input[i..j]).into_owned();
                    let k = word_end(j + 1);
                    if k == j + 1 {
                        return Err(err(j, "label expected after edge"));
                    }
                    i = j + 1;
                    j = k;
                }
                let label = String::from_utf8_lossy(&input[i..j]).into_owned();
                if input.get(j) == Some(&b'(') {
                    b.open(&label, &edge, start);
                    open += 1;
                    i = j + 1;
                } else {
                    b.leaf(&label, &edge, start, j);
                    i = j;
                }
            } else {
                return Err(err(i, "unexpected byte"));
            }
        }
        if open != 0 {
            return Err(err(input.len(), "unclosed ("));
        }
        Ok(Document::new(b.finish()?))
    }
}

/// Parses toy text, panicking on a syntax error (test inputs are written by hand).
pub(crate) fn tree(text: &str) -> crate::Tree {
    Toy.parse(text.as_bytes()).expect("valid toy syntax").tree
}

/// The toy syntax with what other formats add to it: a tidy rendering (each run of blanks as one
/// space), for the last moves below the tree each name substituted by `0`, and leaves whose label
/// starts with `c_` as blank nodes (comments, for `auto`'s blank move).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct TidyToy;

impl Format for TidyToy {
    fn name(&self) -> &'static str {
        "tidy-toy"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["ttoy"]
    }

    fn description(&self) -> &'static str {
        "test-only tree syntax with a tidy rendering and substitutes"
    }

    fn lexicon(&self, doc: &Document) -> Option<Lexicon> {
        let mut lex = Toy.lexicon(doc)?;
        let names: Vec<Token> = (lex.tokens.iter())
            .filter(|t| matches!(t.kind, TokenKind::Name { .. }))
            .map(|t| Token {
                span: t.span.clone(),
                kind: TokenKind::Substitute(&["0"]),
            })
            .collect();
        lex.tokens.extend(names);
        Some(lex)
    }

    fn parse(&self, input: &[u8]) -> Result<Document, ParseError> {
        Toy.parse(input)
    }

    fn blanks(&self, doc: &Document) -> Vec<NodeId> {
        let tree = &doc.tree;
        (tree.nodes())
            .filter(|&n| tree.children(n).is_empty() && tree.label(n).starts_with("c_"))
            .collect()
    }

    fn tidy(&self, doc: &Document) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        for &b in doc.tree.source() {
            if b != b' ' || out.last() != Some(&b' ') {
                out.push(b);
            }
        }
        Some(out)
    }
}
