//! Splits the internal subset of a DOCTYPE into its markup declarations, so that each one is a
//! node of the tree and the reducer can delete those the test does not need.
//!
//! The split is structural only: a declaration is `<!` and a keyword, then anything up to the
//! first `>` outside quoted strings. Whether its content is valid is the gate's business
//! (`dtd.rs`). The split is also strict: anything it does not recognize (text between the
//! declarations, an unknown keyword, a `[`, `]` or `<` outside quotes inside a declaration, a
//! terminator that never comes) makes it give up, and the scanner keeps the DOCTYPE as one leaf.
//! Being strict keeps the split in step with the scanner's `doctype_end`, which decides where a
//! DOCTYPE ends: a subset made only of the constructs below is skipped by `doctype_end` construct
//! by construct, so deleting any of them leaves a DOCTYPE that ends at the same place relative to
//! its other bytes and splits into the remaining declarations again.
//!
//! Everything is one forward pass over the DOCTYPE's bytes: linear, no recursion.

use crate::encoding::{find, is_ws};
use std::ops::Range;

/// What one child of a DOCTYPE is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DeclKind {
    /// `<!ENTITY …>`, general or parameter.
    Entity,
    /// `<!ELEMENT …>`.
    Element,
    /// `<!ATTLIST …>`.
    Attlist,
    /// `<!NOTATION …>`.
    Notation,
    /// `<!-- … -->`.
    Comment,
    /// `<?target …?>`.
    Pi,
    /// `%name;` between declarations.
    PeRef,
}

impl DeclKind {
    /// The node label and the edge label of this kind.
    pub(crate) fn labels(self) -> (&'static str, &'static str) {
        match self {
            DeclKind::Entity => ("#entity", "entity"),
            DeclKind::Element => ("#element", "element"),
            DeclKind::Attlist => ("#attlist", "attlist"),
            DeclKind::Notation => ("#notation", "notation"),
            DeclKind::Comment => (crate::scan::COMMENT, "comment"),
            DeclKind::Pi => (crate::scan::PI, "pi"),
            DeclKind::PeRef => ("#pe-ref", "pe-ref"),
        }
    }
}

/// One child of a DOCTYPE: its kind and its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Decl {
    pub(crate) kind: DeclKind,
    pub(crate) span: Range<usize>,
}

/// Why a subset was not split: the offset of the problem and what it is.
pub(crate) type Unsplit = (usize, &'static str);

/// The offset of the `[` that opens the internal subset of the DOCTYPE whose body (after
/// `<!DOCTYPE`) starts at `from` and which ends (after its `>`) at `end`; `None` if it has no
/// internal subset. Quoted strings (the external identifier) are skipped.
pub(crate) fn subset_open(src: &[u8], from: usize, end: usize) -> Option<usize> {
    let mut p = from;
    while p < end {
        match src[p] {
            q @ (b'"' | b'\'') => p = p + 1 + src[p + 1..end].iter().position(|&c| c == q)? + 1,
            b'[' => return Some(p),
            b'>' => return None,
            _ => p += 1,
        }
    }
    None
}

/// Splits the internal subset whose content starts at `from` (just after `[`) of a DOCTYPE that
/// ends at `end`, appending the declarations to `out` in order. Returns the offset of the `]`
/// that closes the subset, or why the subset cannot be split.
pub(crate) fn split(
    src: &[u8],
    from: usize,
    end: usize,
    out: &mut Vec<Decl>,
) -> Result<usize, Unsplit> {
    let src = &src[..end];
    let mut p = from;
    loop {
        while p < end && is_ws(src[p]) {
            p += 1;
        }
        let rest = &src[p..];
        let (kind, stop) = if rest.is_empty() {
            return Err((p, "the subset is not closed by `]`"));
        } else if rest[0] == b']' {
            return Ok(p);
        } else if rest.starts_with(b"<!--") {
            let close = find(&rest[4..], b"-->").ok_or((p, "a comment is not closed"))?;
            (DeclKind::Comment, p + 4 + close + 3)
        } else if rest.starts_with(b"<?") {
            let close =
                find(&rest[2..], b"?>").ok_or((p, "a processing instruction is not closed"))?;
            (DeclKind::Pi, p + 2 + close + 2)
        } else if rest.starts_with(b"<!") {
            let word = rest[2..]
                .iter()
                .position(|c| !c.is_ascii_alphabetic())
                .unwrap_or(rest.len() - 2);
            let kind = match &rest[2..2 + word] {
                b"ENTITY" => DeclKind::Entity,
                b"ELEMENT" => DeclKind::Element,
                b"ATTLIST" => DeclKind::Attlist,
                b"NOTATION" => DeclKind::Notation,
                _ => return Err((p, "an unknown markup declaration")),
            };
            (kind, declaration_end(src, p + 2 + word)?)
        } else if rest[0] == b'%' {
            let name = rest[1..]
                .iter()
                .position(|&c| is_ws(c) || b"<>[]%\"';&".contains(&c))
                .unwrap_or(rest.len() - 1);
            if name == 0 || rest.get(1 + name) != Some(&b';') {
                return Err((p, "a `%` that starts no parameter-entity reference"));
            }
            (DeclKind::PeRef, p + 1 + name + 1)
        } else {
            return Err((p, "text that is no markup declaration"));
        };
        out.push(Decl {
            kind,
            span: p..stop,
        });
        p = stop;
    }
}

/// The end (after `>`) of a markup declaration whose keyword ends at `p`: the first `>` outside
/// quoted strings. `[`, `]` and `<` outside quotes are refused: no declaration of an internal
/// subset has them there, and the scanner's `doctype_end` would read them as structure.
fn declaration_end(src: &[u8], mut p: usize) -> Result<usize, Unsplit> {
    let start = p;
    while p < src.len() {
        match src[p] {
            q @ (b'"' | b'\'') => {
                let len = src[p + 1..]
                    .iter()
                    .position(|&c| c == q)
                    .ok_or((p, "a quoted string is not closed"))?;
                p += 1 + len + 1;
            }
            b'>' => return Ok(p + 1),
            b'[' | b']' | b'<' => return Err((p, "a `[`, `]` or `<` inside a declaration")),
            _ => p += 1,
        }
    }
    Err((start, "a declaration is not closed by `>`"))
}
