//! The `lines` format: the root's children are the lines of the file, each with its line break.
//! Reducing it with ddmin is the line-based Delta Debugging baseline of the papers, and it
//! reduces any text file.

use whittle_core::{Document, Format, Lexicon, ParseError, Token, TokenKind, TreeBuilder};

/// Every line is a leaf child of the root.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lines;

impl Format for Lines {
    fn name(&self) -> &'static str {
        "lines"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["txt"]
    }

    fn description(&self) -> &'static str {
        "any text file, one node per line (the line-based DD baseline)"
    }

    /// Each line's text (without its line break) is a literal, so the last move of `auto` is
    /// character-level ddmin inside the lines.
    fn lexicon(&self, doc: &Document) -> Option<Lexicon> {
        let tree = &doc.tree;
        let tokens = tree
            .leaves()
            .into_iter()
            .map(|n| Token {
                span: tree.span(n),
                kind: TokenKind::Literal {
                    open: 0,
                    close: usize::from(tree.text(n).ends_with(b"\n")),
                },
            })
            .collect();
        Some(Lexicon {
            tokens,
            reserved: Vec::new(),
        })
    }

    fn parse(&self, input: &[u8]) -> Result<Document, ParseError> {
        let mut b = TreeBuilder::new(input.to_vec(), "file");
        let mut start = 0;
        for (i, &c) in input.iter().enumerate() {
            if c == b'\n' {
                b.leaf("line", "line", start, i + 1);
                start = i + 1;
            }
        }
        if start < input.len() {
            b.leaf("line", "line", start, input.len());
        }
        Ok(Document::new(b.finish()?))
    }
}

#[cfg(test)]
mod tests;
