//! The tree scanner: one iterative pass over the bytes that finds the markup of a document, well
//! formed or not, and hands it to the [`TreeBuilder`] in document order.
//!
//! The scanner never fails: every byte ends up in some node or in the gaps of a node, so the
//! template renderer gives back the input exactly. Recovery rules: an element that is never
//! closed ends where its parent ends (or at the end of input); an end tag closes the nearest open
//! element of the same name (closing the ones opened after it) or, if none is open, becomes an
//! `#error` leaf; markup that does not end (`<!--` without `-->`, a start tag cut off by `<` or by
//! the end of input) becomes an `#error` leaf; a `<` that starts nothing is an `#error` leaf.
//!
//! Scanning is linear in the input: every search for a terminator (`?>`, `-->`, `]]>`, a
//! closing quote) is memoized, so a file full of unterminated constructs does not rescan its
//! tail again and again.

use crate::encoding::{is_ws, label_text};
use crate::subset::{self, Decl, Unsplit};
use encoding_rs::Encoding;
use std::collections::HashMap;
use std::ops::Range;
use whittle_core::{Diagnostic, TreeBuilder};

/// Labels of the nodes that are not elements or attributes.
pub(crate) const DOCUMENT: &str = "#document";
pub(crate) const XMLDECL: &str = "#xmldecl";
pub(crate) const DOCTYPE: &str = "#doctype";
pub(crate) const COMMENT: &str = "#comment";
pub(crate) const PI: &str = "#pi";
pub(crate) const TEXT: &str = "#text";
pub(crate) const CDATA: &str = "#cdata";
pub(crate) const ERROR: &str = "#error";

/// The memo of one terminator search: the next occurrence at or after `from` is `found`.
#[derive(Clone, Copy)]
struct Memo {
    from: usize,
    found: Option<usize>,
}

/// Terminators whose searches are memoized.
#[derive(Clone, Copy)]
enum Needle {
    PiEnd,
    CommentEnd,
    CdataEnd,
    Quote,
    Apostrophe,
}

impl Needle {
    fn bytes(self) -> &'static [u8] {
        match self {
            Needle::PiEnd => b"?>",
            Needle::CommentEnd => b"-->",
            Needle::CdataEnd => b"]]>",
            Needle::Quote => b"\"",
            Needle::Apostrophe => b"'",
        }
    }

    fn quote(c: u8) -> Needle {
        if c == b'"' {
            Needle::Quote
        } else {
            Needle::Apostrophe
        }
    }
}

/// One item inside a start tag.
enum Item {
    /// An attribute; its span starts with the white space before it.
    Attr {
        span: Range<usize>,
        name: Range<usize>,
    },
    /// Bytes that are no attribute (a stray quote, `=` or `/`).
    Junk(Range<usize>),
}

/// How a start tag ended.
enum TagEnd {
    /// `>` at this offset + 1: the element has content.
    Open(usize),
    /// `/>` ending at this offset: an empty element.
    Empty(usize),
    /// The tag is cut off; the bytes `start..end` become an `#error` leaf.
    Broken(usize),
}

/// The scanner state.
struct Scanner<'s> {
    /// The bytes being scanned (the same as the builder's source).
    src: &'s [u8],
    /// The encoding names are decoded with.
    enc: &'static Encoding,
    b: TreeBuilder,
    diagnostics: Vec<Diagnostic>,
    /// One memo per [`Needle`].
    memos: [Option<Memo>; 5],
    /// Once one DOCTYPE was found to run to the end of input, later ones are not rescanned.
    doctype_failed: bool,
    /// Names of the open elements, innermost last.
    stack: Vec<Range<usize>>,
    /// How many open elements have each name, so that an end tag that matches nothing is known
    /// in constant time.
    open_names: HashMap<&'s [u8], u32>,
    /// The items of the start tag being read (kept to reuse its allocation).
    items: Vec<Item>,
    /// The label of the attribute being added (kept to reuse its allocation).
    label: String,
    /// The declarations of the internal subset being read (kept to reuse its allocation).
    decls: Vec<Decl>,
    /// Diagnostics beyond [`MAX_DIAGNOSTICS`] are only counted.
    dropped: usize,
}

/// At most this many diagnostics are kept; a hostile input could otherwise make one per byte.
const MAX_DIAGNOSTICS: usize = 100;

/// Scans `src` (whose first `skip` bytes are a byte order mark) into a tree built by `b`, whose
/// source must be `src` itself. Names are decoded with `enc` for labels.
pub(crate) fn scan(
    src: &[u8],
    skip: usize,
    enc: &'static Encoding,
    b: TreeBuilder,
) -> (TreeBuilder, Vec<Diagnostic>) {
    let mut s = Scanner {
        src,
        enc,
        b,
        diagnostics: Vec::new(),
        memos: [None; 5],
        doctype_failed: false,
        stack: Vec::new(),
        open_names: HashMap::new(),
        items: Vec::new(),
        label: String::new(),
        decls: Vec::new(),
        dropped: 0,
    };
    s.run(skip);
    if s.dropped > 0 {
        let message = format!("{} more problems not listed", s.dropped);
        s.diagnostics.push(Diagnostic {
            offset: src.len(),
            message,
        });
    }
    (s.b, s.diagnostics)
}

impl<'s> Scanner<'s> {
    fn run(&mut self, start: usize) {
        let src = self.src;
        let n = src.len();
        let mut i = start;
        while i < n {
            if src[i] != b'<' {
                let end = position(src, i, |c| c == b'<').unwrap_or(n);
                self.b.leaf(TEXT, "text", i, end);
                i = end;
                continue;
            }
            let rest = &src[i..];
            i = if rest.starts_with(b"<?") {
                self.pi(i)
            } else if rest.starts_with(b"<!--") {
                self.terminated(
                    i,
                    4,
                    Needle::CommentEnd,
                    COMMENT,
                    "comment",
                    "comment not closed by `-->`",
                )
            } else if rest.starts_with(b"<![CDATA[") {
                self.terminated(
                    i,
                    9,
                    Needle::CdataEnd,
                    CDATA,
                    "cdata",
                    "CDATA section not closed by `]]>`",
                )
            } else if rest.len() >= 9 && rest[..9].eq_ignore_ascii_case(b"<!DOCTYPE") {
                self.doctype(i)
            } else if rest.starts_with(b"<!") {
                self.error_markup(i, "unknown markup declaration")
            } else if rest.starts_with(b"</") {
                self.end_tag(i)
            } else if rest.get(1).is_some_and(|&c| is_name_start_byte(c)) {
                self.start_tag(i)
            } else {
                self.diagnose(i, "`<` starts no markup".to_string());
                self.b.leaf(ERROR, "error", i, i + 1);
                i + 1
            };
        }
        while let Some(name) = self.stack.pop() {
            self.unclosed(name, None);
            self.b.close(n);
        }
    }

    fn diagnose(&mut self, offset: usize, message: String) {
        if self.diagnostics.len() < MAX_DIAGNOSTICS {
            self.diagnostics.push(Diagnostic { offset, message });
        } else {
            self.dropped += 1;
        }
    }

    /// A processing instruction or, outside every element with target `xml`, the declaration.
    fn pi(&mut self, i: usize) -> usize {
        let Some(j) = self.find(Needle::PiEnd, i + 2) else {
            return self.error_markup(i, "processing instruction not closed by `?>`");
        };
        let body = &self.src[i + 2..j];
        let target_len = body.iter().position(|&c| is_ws(c)).unwrap_or(body.len());
        if self.stack.is_empty() && &body[..target_len] == b"xml" {
            self.b.leaf(XMLDECL, "decl", i, j + 2);
        } else {
            self.b.leaf(PI, "pi", i, j + 2);
        }
        j + 2
    }

    /// A comment or CDATA section: `open` bytes, then anything up to `needle`.
    fn terminated(
        &mut self,
        i: usize,
        open: usize,
        needle: Needle,
        label: &str,
        edge: &str,
        unclosed: &str,
    ) -> usize {
        match self.find(needle, i + open) {
            Some(j) => {
                let end = j + needle.bytes().len();
                self.b.leaf(label, edge, i, end);
                end
            }
            None => self.error_markup(i, unclosed),
        }
    }

    /// A DOCTYPE: a node whose children are the declarations of its internal subset, or one leaf
    /// if it has no subset or the subset cannot be split (see [`subset`]).
    fn doctype(&mut self, i: usize) -> usize {
        let end = if self.doctype_failed {
            None
        } else {
            self.doctype_end(i + 9)
        };
        match end {
            Some(end) => {
                let mut decls = std::mem::take(&mut self.decls);
                decls.clear();
                match self.split_doctype(i, end, &mut decls) {
                    Ok(()) if !decls.is_empty() => {
                        self.b.open(DOCTYPE, "doctype", i);
                        for d in &decls {
                            let (label, edge) = d.kind.labels();
                            self.b.leaf(label, edge, d.span.start, d.span.end);
                        }
                        self.b.close(end);
                    }
                    Ok(()) => {
                        self.b.leaf(DOCTYPE, "doctype", i, end);
                    }
                    Err((at, why)) => {
                        self.diagnose(at, format!("internal subset kept as one leaf: {why}"));
                        self.b.leaf(DOCTYPE, "doctype", i, end);
                    }
                }
                self.decls = decls;
                end
            }
            None => {
                self.doctype_failed = true;
                self.error_markup(i, "DOCTYPE not closed by `>`")
            }
        }
    }

    /// The declarations of the internal subset of the DOCTYPE `i..end` (none if it has no
    /// subset), or why the subset cannot be split. After the `]` only white space may come
    /// before the final `>`.
    fn split_doctype(&self, i: usize, end: usize, decls: &mut Vec<Decl>) -> Result<(), Unsplit> {
        let src = self.src;
        let Some(open) = subset::subset_open(src, i + 9, end) else {
            return Ok(());
        };
        let close = subset::split(src, open + 1, end, decls)?;
        match position(src, close + 1, |c| !is_ws(c)) {
            Some(p) if p + 1 == end => Ok(()),
            _ => Err((close, "text between `]` and `>`")),
        }
    }

    /// The end (after `>`) of a DOCTYPE whose body starts at `p`: quoted strings, comments and
    /// processing instructions of the internal subset may hold `>`, `[` and `]`.
    fn doctype_end(&mut self, mut p: usize) -> Option<usize> {
        let src = self.src;
        let mut in_subset = false;
        while p < src.len() {
            match src[p] {
                c @ (b'"' | b'\'') => {
                    p = self.find(Needle::quote(c), p + 1)? + 1;
                    continue;
                }
                b'[' => in_subset = true,
                b']' => in_subset = false,
                b'>' if !in_subset => return Some(p + 1),
                b'<' if in_subset && src[p..].starts_with(b"<!--") => {
                    p = self.find(Needle::CommentEnd, p + 4)? + 3;
                    continue;
                }
                b'<' if in_subset && src[p..].starts_with(b"<?") => {
                    p = self.find(Needle::PiEnd, p + 2)? + 2;
                    continue;
                }
                _ => {}
            }
            p += 1;
        }
        None
    }

    /// Markup that does not end: an `#error` leaf from `i` up to the next `>` (included) or the
    /// next `<` (excluded), whichever comes first, or to the end of input.
    fn error_markup(&mut self, i: usize, why: &str) -> usize {
        let end = match position(self.src, i + 1, |c| c == b'<' || c == b'>') {
            Some(j) if self.src[j] == b'>' => j + 1,
            Some(j) => j,
            None => self.src.len(),
        };
        self.diagnose(i, why.to_string());
        self.b.leaf(ERROR, "error", i, end);
        end
    }

    fn end_tag(&mut self, i: usize) -> usize {
        let src = self.src;
        let name_end =
            position(src, i + 2, |c| is_ws(c) || c == b'>' || c == b'<').unwrap_or(src.len());
        let close = position(src, name_end, |c| !is_ws(c)).filter(|&p| src[p] == b'>');
        let Some(close) = close else {
            return self.error_markup(i, "end tag not closed by `>`");
        };
        let end = close + 1;
        let name = &src[i + 2..name_end];
        if self.open_names.get(name).copied().unwrap_or(0) == 0 {
            let shown = label_text(self.enc, name).into_owned();
            self.diagnose(i, format!("end tag `</{shown}>` matches no open element"));
            self.b.leaf(ERROR, "error", i, end);
            return end;
        }
        while let Some(open) = self.stack.pop() {
            self.forget(&open);
            if src[open.clone()] == *name {
                self.b.close(end);
                break;
            }
            self.unclosed(open, Some(name));
            self.b.close(i);
        }
        end
    }

    fn forget(&mut self, name: &Range<usize>) {
        if let Some(count) = self.open_names.get_mut(&self.src[name.clone()]) {
            *count = count.saturating_sub(1);
        }
    }

    /// Reports an element that is closed by recovery: by the end tag of an ancestor named
    /// `closer`, or by the end of input.
    fn unclosed(&mut self, name: Range<usize>, closer: Option<&[u8]>) {
        let shown = label_text(self.enc, &self.src[name.clone()]).into_owned();
        let message = match closer {
            Some(closer) => {
                let closer = label_text(self.enc, closer);
                format!("element `{shown}` is not closed before `</{closer}>`")
            }
            None => format!("element `{shown}` is not closed before the end of input"),
        };
        self.diagnose(name.start.saturating_sub(1), message);
    }

    fn start_tag(&mut self, i: usize) -> usize {
        let src = self.src;
        let name = i + 1..name_end(src, i + 1);
        let mut items = std::mem::take(&mut self.items);
        items.clear();
        let tag_end = self.tag_items(name.end, &mut items);
        let next = match tag_end {
            TagEnd::Broken(end) => {
                self.diagnose(i, "start tag not closed by `>`".to_string());
                self.b.leaf(ERROR, "error", i, end);
                end
            }
            TagEnd::Open(end) | TagEnd::Empty(end) => {
                let label = label_text(self.enc, &src[name.clone()]);
                self.b.open(&label, "child", i);
                for item in &items {
                    match item {
                        Item::Attr { span, name } => {
                            self.label.clear();
                            self.label.push('@');
                            self.label
                                .push_str(&label_text(self.enc, &src[name.clone()]));
                            self.b.leaf(&self.label, &self.label, span.start, span.end);
                        }
                        Item::Junk(span) => {
                            self.diagnose(
                                span.start,
                                "bytes in a start tag that are no attribute".to_string(),
                            );
                            self.b.leaf(ERROR, "error", span.start, span.end);
                        }
                    }
                }
                if let TagEnd::Empty(end) = tag_end {
                    self.b.close(end);
                } else {
                    *self.open_names.entry(&src[name.clone()]).or_insert(0) += 1;
                    self.stack.push(name);
                }
                end
            }
        };
        self.items = items;
        next
    }

    /// Reads the attributes of a start tag from `p` (just after the name) to its end.
    fn tag_items(&mut self, mut p: usize, items: &mut Vec<Item>) -> TagEnd {
        let src = self.src;
        let n = src.len();
        loop {
            let ws = p;
            p = position(src, p, |c| !is_ws(c)).unwrap_or(n);
            match src.get(p) {
                None => return TagEnd::Broken(n),
                Some(b'>') => return TagEnd::Open(p + 1),
                Some(b'/') if src.get(p + 1) == Some(&b'>') => return TagEnd::Empty(p + 2),
                Some(b'<') => return TagEnd::Broken(p),
                Some(_) => {}
            }
            let name = p..name_end(src, p);
            if name.is_empty() {
                // A stray quote (with what it quotes), `=` or `/`.
                let c = src[p];
                p = if c == b'"' || c == b'\'' {
                    match self.find(Needle::quote(c), p + 1) {
                        Some(q) => q + 1,
                        None => return self.broken_quote(p),
                    }
                } else {
                    p + 1
                };
                items.push(Item::Junk(ws..p));
                continue;
            }
            p = name.end;
            let mut q = position(src, p, |c| !is_ws(c)).unwrap_or(n);
            if src.get(q) == Some(&b'=') {
                q = position(src, q + 1, |c| !is_ws(c)).unwrap_or(n);
                p = match src.get(q) {
                    Some(&c @ (b'"' | b'\'')) => match self.find(Needle::quote(c), q + 1) {
                        Some(close) => close + 1,
                        None => return self.broken_quote(q),
                    },
                    // An unquoted value (not XML, but kept as one attribute).
                    _ => position(src, q, |c| is_ws(c) || c == b'>' || c == b'<')
                        .map(|e| {
                            if e > q && src[e] == b'>' && src[e - 1] == b'/' {
                                e - 1
                            } else {
                                e
                            }
                        })
                        .unwrap_or(n),
                };
            }
            items.push(Item::Attr { span: ws..p, name });
        }
    }

    /// A start tag whose attribute value opened at `q` never closes: it is cut at the next `>`
    /// (included) or `<` (excluded) after the quote.
    fn broken_quote(&self, q: usize) -> TagEnd {
        let src = self.src;
        TagEnd::Broken(match position(src, q + 1, |c| c == b'<' || c == b'>') {
            Some(j) if src[j] == b'>' => j + 1,
            Some(j) => j,
            None => src.len(),
        })
    }

    /// The next occurrence of `needle` at or after `from`, memoized.
    fn find(&mut self, needle: Needle, from: usize) -> Option<usize> {
        let memo = &mut self.memos[needle as usize];
        if let Some(m) = *memo
            && from >= m.from
            && m.found.is_none_or(|f| from <= f)
        {
            return m.found;
        }
        let found = crate::encoding::find(self.src.get(from..).unwrap_or_default(), needle.bytes())
            .map(|k| from + k);
        *memo = Some(Memo { from, found });
        found
    }
}

/// The first offset at or after `from` whose byte satisfies `pred`.
fn position(src: &[u8], from: usize, pred: impl Fn(u8) -> bool) -> Option<usize> {
    src.get(from..)?
        .iter()
        .position(|&c| pred(c))
        .map(|k| from + k)
}

/// The end of a name starting at `p`: names run up to white space or a byte that ends them in a
/// tag.
fn name_end(src: &[u8], p: usize) -> usize {
    position(src, p, |c| {
        is_ws(c) || matches!(c, b'/' | b'>' | b'<' | b'=' | b'"' | b'\'')
    })
    .unwrap_or(src.len())
}

/// Whether `c` can start an element name (ASCII letters, `_`, `:`, or any non-ASCII byte).
fn is_name_start_byte(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b':' || c >= 0x80
}
