//! What the moves below the tree may rewrite in a PDF: the contents of strings, and of names
//! that are not the PDF's own vocabulary. The tree is over a canonical text of the objects
//! (`model.rs`), so a token's span is a leaf's text there (`(abc)`, `<616263>`, `/Name`); a
//! changed text is decoded back into the leaf's new value ([`content`]) and the candidate is
//! written with it, like an edited nested document (`render.rs`).

use crate::model::{Kind, PdfState};
use lopdf::Object;
use whittle_core::{Lexicon, NodeId, Token, TokenKind, Tree};

/// Keys whose name values are the PDF's vocabulary (`/Type /Page`, `/S /JavaScript`, `/Filter
/// /FlateDecode`): a reader looks them up, so a shorter one only costs a test.
const VOCABULARY_KEYS: &[&[u8]] = &[b"Type", b"Subtype", b"S", b"Filter", b"BaseFont"];

/// Strings (their content between the delimiters) and names (after the `/`) of the document,
/// except the trailer's `/ID`, which enters the key of an encrypted file and names the file.
pub(crate) fn lexicon(tree: &Tree, state: &PdfState) -> Lexicon {
    let mut tokens = Vec::new();
    for n in tree.nodes() {
        let node = state.node(n);
        let kind = match &node.kind {
            Kind::Scalar(Object::String(..)) if !in_trailer_id(tree, state, n) => {
                TokenKind::Literal { open: 1, close: 1 }
            }
            Kind::Scalar(Object::Name(_))
                if !node
                    .key
                    .as_deref()
                    .is_some_and(|k| VOCABULARY_KEYS.contains(&k)) =>
            {
                TokenKind::Literal { open: 1, close: 0 }
            }
            _ => continue,
        };
        tokens.push(Token {
            span: tree.span(n),
            kind,
        });
    }
    Lexicon {
        tokens,
        reserved: Vec::new(),
    }
}

/// Whether `n` is the trailer's `/ID` or one of its strings.
fn in_trailer_id(tree: &Tree, state: &PdfState, n: NodeId) -> bool {
    std::iter::successors(Some(n), |&m| tree.parent(m))
        .take(2)
        .any(|m| tree.parent(m) == Some(tree.root()) && state.node(m).key.as_deref() == Some(b"ID"))
}

/// The value of leaf `n` whose canonical text became `text`: a string's bytes (its escapes or
/// hex digits decoded), a name's (its `#xx` codes decoded); `None` for any other leaf or a text
/// that lost its delimiters.
pub(crate) fn content(state: &PdfState, n: NodeId, text: &[u8]) -> Option<Vec<u8>> {
    match &state.node(n).kind {
        Kind::Scalar(Object::String(..)) => match text {
            [b'(', inner @ .., b')'] => Some(unescape(inner)),
            [b'<', inner @ .., b'>'] => Some(unhex(inner)),
            _ => None,
        },
        Kind::Scalar(Object::Name(_)) => match text {
            [b'/', inner @ ..] => Some(unname(inner)),
            _ => None,
        },
        _ => None,
    }
}

/// The bytes of a literal string's content (PDF 32000-1, 7.3.4.2): `\n`, `\r`, `\t`, `\b`, `\f`,
/// one to three octal digits, a backslash before a line end (which joins the lines), and a
/// backslash before any other byte (that byte).
pub(crate) fn unescape(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        i += 1;
        if b != b'\\' || i == s.len() {
            out.push(b);
            continue;
        }
        let e = s[i];
        i += 1;
        match e {
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'b' => out.push(0x08),
            b'f' => out.push(0x0C),
            b'0'..=b'7' => {
                let mut v = u32::from(e - b'0');
                for _ in 0..2 {
                    match s.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                out.push((v & 0xFF) as u8);
            }
            b'\r' => {
                if s.get(i) == Some(&b'\n') {
                    i += 1;
                }
            }
            b'\n' => {}
            other => out.push(other),
        }
    }
    out
}

/// The bytes of a hex string's digits; blanks are skipped, and an odd last digit is followed by
/// `0` (7.3.4.3). Anything else that is not a hex digit is skipped.
pub(crate) fn unhex(s: &[u8]) -> Vec<u8> {
    let digits: Vec<u8> = s
        .iter()
        .filter_map(|&b| (b as char).to_digit(16).map(|d| d as u8))
        .collect();
    digits
        .chunks(2)
        .map(|pair| pair[0] << 4 | pair.get(1).copied().unwrap_or(0))
        .collect()
}

/// The bytes of a name after its `/`: `#` and two hex digits is that byte; a `#` without them is
/// itself.
pub(crate) fn unname(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let hex = |j: usize| s.get(j).and_then(|&b| (b as char).to_digit(16));
        match (s[i], hex(i + 1), hex(i + 2)) {
            (b'#', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b, ..) => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}
