//! The tokens of a DOCTYPE and of the entity declarations of its internal subset: the blanks of
//! its head (`<!DOCTYPE` S name S `PUBLIC` S id S id S? `[`), the external id (dropped whole, or
//! `PUBLIC "id" "uri"` as `SYSTEM "uri"`), its ids, the blanks between the declarations of the
//! internal subset and after its `]`, and an internal entity's value, which may become empty.
//!
//! The ids are not shrunk character by character: a catalog or a resolver matches an id whole,
//! so a shortened one resolves only by accident, and trying costs two tests per character. The
//! system id may become empty or one character, which is all it needs to be where the public id
//! resolves. That placeholder comes before `PUBLIC` becomes `SYSTEM` (a short form, a later
//! move): where the public id resolves, the shortest document keeps it and a one-character
//! system id, not the whole system id without the public one. The public id is not emptied on
//! its own: `PUBLIC "" "uri"` works where `SYSTEM "uri"` does, which is shorter. An entity's
//! value is not shrunk character by character either: where a test needs it, it is compared
//! whole (with a `#FIXED` attribute value, as a namespace URI, as a name), and where it does
//! not, it can go at once.
//!
//! The head is read as the XML grammar writes it; where it is not (a missing blank, an
//! unclosed literal), the tokens stop there, so a malformed DOCTYPE only loses moves.

use crate::encoding::is_ws;
use std::ops::Range;
use whittle_core::{TokenKind, Tree};

/// The tokens of the DOCTYPE node `n` (its span starts with `<!DOCTYPE`).
pub(super) fn doctype(
    tree: &Tree,
    n: whittle_core::NodeId,
    push: &mut impl FnMut(Range<usize>, TokenKind),
) {
    let span = tree.span(n);
    let src = &tree.source()[..span.end];
    let Some(mut c) = Cursor::new(src, span.start, b"<!DOCTYPE") else {
        return;
    };
    if !c.blanks(push, " ") {
        return;
    }
    if c.take(|b| !is_ws(b) && b != b'[' && b != b'>') == 0 {
        return;
    }
    let before_id = c.at;
    let ahead = &c.rest()[c.rest().iter().take_while(|&&b| is_ws(b)).count()..];
    let keyword = [&b"PUBLIC"[..], b"SYSTEM"]
        .into_iter()
        .find(|k| ahead.starts_with(k));
    // A blank before an external id must stay (one byte); before `[` or `>` it may go.
    let blank = c.blanks(push, if keyword.is_some() { " " } else { "" });
    if let Some(keyword) = keyword {
        if !blank {
            return;
        }
        let keyword_at = c.at;
        c.at += keyword.len();
        if !c.blanks(push, " ") {
            return;
        }
        let public = keyword == b"PUBLIC";
        if public {
            if c.literal().is_none() {
                return;
            }
            if !c.blanks(push, " ") {
                return;
            }
        }
        let system_at = c.at;
        let Some(system) = c.literal() else {
            return;
        };
        push(system, TokenKind::Alternatives(&["\"\"", "\"a\""]));
        if public {
            push(keyword_at..system_at, TokenKind::Shorter("SYSTEM "));
        }
        push(before_id..c.at, TokenKind::Alternatives(&[""]));
        c.blanks(push, "");
    }
    if c.rest().first() == Some(&b'[') {
        subset_blanks(tree, n, c.at + 1, push);
    }
}

/// The blanks of the internal subset that opens at `from` (after its `[`): the runs between the
/// declarations, before the `]` and between it and the final `>`. Nothing when the subset holds
/// anything but declarations and blanks (the scanner kept it as one leaf). A subset of blanks
/// only may go whole, brackets and all.
fn subset_blanks(
    tree: &Tree,
    n: whittle_core::NodeId,
    from: usize,
    push: &mut impl FnMut(Range<usize>, TokenKind),
) {
    let src = tree.source();
    let end = tree.span(n).end;
    let mut gaps = Vec::new();
    let mut at = from;
    for &k in tree.children(n) {
        let kid = tree.span(k);
        gaps.push(at..kid.start);
        at = kid.end;
    }
    // The last gap runs to the `>`: blanks, `]`, blanks.
    let last = at..end - 1;
    let Some(close) = src[last.clone()].iter().position(|&b| b == b']') else {
        return;
    };
    gaps.push(at..at + close);
    if gaps
        .iter()
        .any(|g| !src[g.clone()].iter().all(|&b| is_ws(b)))
    {
        return;
    }
    gaps.push(at + close + 1..last.end);
    if !src[gaps[gaps.len() - 1].clone()].iter().all(|&b| is_ws(b)) {
        return;
    }
    if tree.children(n).is_empty() {
        // No declaration left: the brackets may go too.
        push(from - 1..at + close + 1, TokenKind::Alternatives(&[""]));
    }
    for g in gaps.into_iter().filter(|g| !g.is_empty()) {
        push(g, TokenKind::Space { min: "" });
    }
}

/// The tokens of an entity declaration `<!ENTITY name "value">` or `<!ENTITY % name "value">`:
/// its value as a literal and its blanks. An external entity (`SYSTEM`, `PUBLIC`) keeps its ids.
pub(super) fn entity(
    src: &[u8],
    span: Range<usize>,
    push: &mut impl FnMut(Range<usize>, TokenKind),
) {
    let src = &src[..span.end];
    let Some(mut c) = Cursor::new(src, span.start, b"<!ENTITY") else {
        return;
    };
    if !c.blanks(push, " ") {
        return;
    }
    if c.rest().first() == Some(&b'%') {
        c.at += 1;
        if !c.blanks(push, " ") {
            return;
        }
    }
    if c.take(|b| !is_ws(b) && b != b'"' && b != b'\'' && b != b'>') == 0 || !c.blanks(push, " ") {
        return;
    }
    if let Some(value) = c.literal() {
        push(value, TokenKind::Alternatives(&["\"\""]));
        c.blanks(push, "");
    }
}

/// A position in a declaration's bytes.
struct Cursor<'s> {
    src: &'s [u8],
    at: usize,
}

impl<'s> Cursor<'s> {
    /// At the end of `open`, if the bytes at `start` begin with it.
    fn new(src: &'s [u8], start: usize, open: &[u8]) -> Option<Cursor<'s>> {
        src[start..].starts_with(open).then_some(Cursor {
            src,
            at: start + open.len(),
        })
    }

    fn rest(&self) -> &'s [u8] {
        &self.src[self.at..]
    }

    /// Skips the bytes that satisfy `f`; returns how many.
    fn take(&mut self, f: impl Fn(u8) -> bool) -> usize {
        let n = self.rest().iter().take_while(|&&b| f(b)).count();
        self.at += n;
        n
    }

    /// Skips a run of blanks, pushing it as a space that may become `min` when it is longer.
    /// Returns whether there was one.
    fn blanks(
        &mut self,
        push: &mut impl FnMut(Range<usize>, TokenKind),
        min: &'static str,
    ) -> bool {
        let start = self.at;
        let n = self.take(is_ws);
        if n > min.len() {
            push(start..self.at, TokenKind::Space { min });
        }
        n > 0
    }

    /// Skips a quoted literal; returns its span, quotes included.
    fn literal(&mut self) -> Option<Range<usize>> {
        let quote = *self.rest().first().filter(|&&q| q == b'"' || q == b'\'')?;
        let len = self.rest()[1..].iter().position(|&b| b == quote)?;
        let span = self.at..self.at + len + 2;
        self.at = span.end;
        Some(span)
    }
}
