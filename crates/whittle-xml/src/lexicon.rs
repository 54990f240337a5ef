//! The tokens of an XML document that the moves below the tree may rewrite: element names (the
//! start and the end tag together, since they have the same text), attribute names, attribute
//! values, text, comments and CDATA, the blanks inside tags, and the end tag of an element with
//! no content (`<x></x>` as `<x/>`); and the parts of a DOCTYPE ([`doctype`]).

use whittle_core::{Document, Lexicon, Token, TokenKind};

/// Element and attribute names share one namespace; every occurrence defines the name as much as
/// any other.
const NAME: TokenKind = TokenKind::Name {
    namespace: 0,
    bound: true,
};

pub(crate) fn lexicon(doc: &Document) -> Lexicon {
    let tree = &doc.tree;
    let src = tree.source();
    let mut tokens = Vec::new();
    let mut push =
        |span: std::ops::Range<usize>, kind: TokenKind| tokens.push(Token { span, kind });
    for n in tree.nodes() {
        let label = tree.label(n);
        let span = tree.span(n);
        let text = &src[span.clone()];
        match label {
            "#text" => push(span, TokenKind::Literal { open: 0, close: 0 }),
            "#comment" if text.starts_with(b"<!--") && text.ends_with(b"-->") => {
                push(span, TokenKind::Literal { open: 4, close: 3 });
            }
            "#doctype" => doctype::doctype(tree, n, &mut push),
            "#entity" => doctype::entity(src, span, &mut push),
            "#cdata" if text.starts_with(b"<![CDATA[") && text.ends_with(b"]]>") => {
                push(span, TokenKind::Literal { open: 9, close: 3 });
            }
            _ if label.starts_with('@') => attribute(text, span.start, &mut push),
            _ if !label.starts_with('#') => {
                let name = label.as_bytes();
                if text.get(1..1 + name.len()) == Some(name) {
                    let start = span.start + 1;
                    push(start..start + name.len(), NAME);
                }
                // The end tag `</name>` (an empty-element tag has none).
                let close = name.len() + 3;
                if text.len() >= close + 1 + name.len()
                    && text.ends_with(b">")
                    && text[text.len() - close..].starts_with(b"</")
                    && &text[text.len() - close + 2..text.len() - 1] == name
                {
                    let start = span.end - 1 - name.len();
                    push(start..start + name.len(), NAME);
                    // No content: `<x a="1"></x>` may become `<x a="1"/>`.
                    let kids = tree.children(n);
                    let after_attributes = kids
                        .iter()
                        .take_while(|&&k| tree.label(k).starts_with('@'))
                        .last()
                        .map_or(span.start + 1 + name.len(), |&k| tree.span(k).end);
                    let gt = span.end - close - 1;
                    let blanks = &src[after_attributes.min(gt)..gt];
                    if kids.iter().all(|&k| tree.label(k).starts_with('@'))
                        && src[gt] == b'>'
                        && blanks
                            .iter()
                            .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
                    {
                        push(gt..span.end, TokenKind::Shorter("/>"));
                    }
                }
            }
            _ => {}
        }
    }
    Lexicon {
        tokens,
        reserved: Vec::new(),
    }
}

/// ` name = "value"`: the blanks before it (one must stay), the name (unless it declares a
/// namespace), the blanks around `=` and the value between its quotes.
fn attribute(text: &[u8], offset: usize, push: &mut impl FnMut(std::ops::Range<usize>, TokenKind)) {
    let blank = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    let lead = text.iter().take_while(|&&b| blank(b)).count();
    if lead > 1 {
        push(offset..offset + lead, TokenKind::Space { min: " " });
    }
    let name_end = lead
        + text[lead..]
            .iter()
            .take_while(|&&b| is_name_byte(b))
            .count();
    let name = &text[lead..name_end];
    if !name.is_empty() && !name.starts_with(b"xmlns") {
        push(offset + lead..offset + name_end, NAME);
    }
    let mut i = name_end;
    let before_eq = text[i..].iter().take_while(|&&b| blank(b)).count();
    if text.get(i + before_eq) != Some(&b'=') {
        return;
    }
    if before_eq > 0 {
        push(
            offset + i..offset + i + before_eq,
            TokenKind::Space { min: "" },
        );
    }
    i += before_eq + 1;
    let after_eq = text[i..].iter().take_while(|&&b| blank(b)).count();
    if after_eq > 0 {
        push(
            offset + i..offset + i + after_eq,
            TokenKind::Space { min: "" },
        );
    }
    i += after_eq;
    let quote = text.get(i).copied();
    if matches!(quote, Some(b'"' | b'\'')) && text.len() >= i + 2 && text.last() == quote.as_ref() {
        push(
            offset + i..offset + text.len(),
            TokenKind::Literal { open: 1, close: 1 },
        );
    }
}

/// Whether `b` can be part of a name as the scanner reads one: anything but blanks and the bytes
/// that end a name in a tag.
fn is_name_byte(b: u8) -> bool {
    !matches!(
        b,
        b' ' | b'\t' | b'\n' | b'\r' | b'/' | b'>' | b'<' | b'=' | b'"' | b'\''
    )
}

mod doctype;

#[cfg(test)]
mod tests;
