//! What a format tells the moves below the tree: the tokens of a document that may be
//! rewritten ([`Lexicon`]), and the text splices such a rewrite is made of ([`Splices`]).

use std::ops::Range;

/// The tokens of a document that the moves below the tree may rewrite, from
/// [`crate::Format::lexicon`]. Spans are byte ranges of the document's source.
#[derive(Clone, Debug, Default)]
pub struct Lexicon {
    /// The tokens, in any order.
    pub tokens: Vec<Token>,
    /// Words that must not become names (keywords of two or three letters, say).
    pub reserved: Vec<&'static str>,
}

/// The namespace of names that are never renamed but count as taken: a new name is never one of
/// them (a C file's free names, which its headers declare).
pub const KEPT_NAMESPACE: u8 = u8::MAX;

/// One rewritable piece of a document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// Its bytes in the source.
    pub span: Range<usize>,
    /// What may become of it.
    pub kind: TokenKind,
}

/// What a move may do with a token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// A name. Every name with the same text in the same namespace is renamed at once, to the
    /// shortest name that occurs nowhere in the file: first the names bound somewhere in the
    /// file (`rename`), then those it only uses (`rename-free`: a builtin, a global, an imported
    /// module's function, which name something outside the file, so the test refuses most such
    /// renamings; a format puts a free name it never wants renamed in [`KEPT_NAMESPACE`]).
    Name {
        /// Names in different namespaces are renamed independently.
        namespace: u8,
        /// Whether this occurrence binds the name (a definition, a parameter, an assignment's
        /// target); for formats without such a notion (XML), every occurrence.
        bound: bool,
    },
    /// A literal (a string, text, an attribute value, a comment) whose content, the span without
    /// `open` bytes at the start and `close` at the end, may shrink: first to nothing, then
    /// character by character. A backslash and the character after it are one character, so no
    /// escape sequence is cut in half.
    Literal {
        /// Bytes of the opening delimiter (quotes, a prefix).
        open: usize,
        /// Bytes of the closing delimiter.
        close: usize,
    },
    /// A number, tried as `0`, as `1` and with one digit fewer.
    Number,
    /// White space that may become `min`, the fewest bytes the grammar allows there.
    Space {
        /// The smallest replacement: `""` or `" "`.
        min: &'static str,
    },
    /// Bytes that may become this shorter form, with every other token of this kind at once
    /// (an empty XML element's `></x>` as `/>`).
    Shorter(&'static str),
    /// A node that may become one of these smaller forms, tried in order (a placeholder such as
    /// `0`, `pass` or `{}`).
    Alternatives(&'static [&'static str]),
    /// A statement that may become one of these token sequences of another kind, tried in order
    /// after the placeholders (T-Rec's substitution across kinds: `const{}=require` as `` `` ``,
    /// the shortest program a parser of an older language version cannot read).
    Substitute(&'static [&'static str]),
    /// A statement that defines a name bound nowhere else in the file (`x = E`), with the name's
    /// uses: inlining replaces every use by the value and deletes the statement (the token's
    /// span, with the blanks before it and the line end after it where it has a line of its own).
    Definition {
        /// The bytes of the value `E`.
        value: Range<usize>,
        /// Whether `E` needs parentheses where a name stood (an operator expression).
        wrap: bool,
        /// The name's uses, outside the statement.
        uses: Vec<Range<usize>>,
    },
}

/// Byte ranges of the current source replaced by bytes: sorted and not overlapping.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Splices(Vec<(Range<usize>, Vec<u8>)>);

impl Splices {
    /// Adds a splice. Returns `false` (and adds nothing) if it overlaps one already there.
    pub fn add(&mut self, range: Range<usize>, bytes: &[u8]) -> bool {
        let i = self.0.partition_point(|(r, _)| r.start < range.start);
        let clashes_before = i > 0 && self.0[i - 1].0.end > range.start;
        let clashes_after = self.0.get(i).is_some_and(|(r, _)| r.start < range.end);
        if clashes_before || clashes_after {
            return false;
        }
        self.0.insert(i, (range, bytes.to_vec()));
        true
    }

    /// The union of `changes` except those `kept` (sorted indices): the candidate of a run of
    /// ddmin over the changes that keeps those.
    pub(crate) fn all_but(changes: &[Splices], kept: &[usize]) -> Splices {
        let mut k = kept.iter().peekable();
        let applied = changes.iter().enumerate().filter(|&(i, _)| {
            let keep = k.peek() == Some(&&i);
            if keep {
                k.next();
            }
            !keep
        });
        Splices::union(applied.map(|(_, s)| s))
    }

    /// All the splices of several sets that do not overlap each other, except that deletions
    /// (splices to no bytes) may overlap: they delete the union of their ranges (a declaration
    /// deleted with its uses, where two declarations share a use).
    pub fn union<'s>(parts: impl IntoIterator<Item = &'s Splices>) -> Splices {
        let mut all: Vec<(Range<usize>, Vec<u8>)> = parts
            .into_iter()
            .flat_map(|s| s.0.iter().cloned())
            .collect();
        all.sort_by_key(|(r, _)| (r.start, r.end));
        let mut merged: Vec<(Range<usize>, Vec<u8>)> = Vec::with_capacity(all.len());
        for (range, bytes) in all {
            match merged.last_mut() {
                Some((last, b)) if b.is_empty() && bytes.is_empty() && range.start < last.end => {
                    last.end = last.end.max(range.end);
                }
                _ => merged.push((range, bytes)),
            }
        }
        Splices(merged)
    }

    /// The splices, in order: each byte range of the source with its new bytes.
    pub fn iter(&self) -> impl Iterator<Item = &(Range<usize>, Vec<u8>)> {
        self.0.iter()
    }

    /// The bytes applying these saves (none where one grows the file).
    pub(crate) fn saves(&self) -> usize {
        self.iter()
            .map(|(range, bytes)| range.len() as isize - bytes.len() as isize)
            .sum::<isize>()
            .max(0) as usize
    }

    /// Whether there is no splice.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether a splice replaces a byte of `range`.
    pub fn touches(&self, range: &Range<usize>) -> bool {
        self.0
            .iter()
            .any(|(r, _)| r.start < range.end && range.start < r.end)
    }

    /// Whether two sets of splices touch each other.
    pub fn touches_any(&self, other: &Splices) -> bool {
        other.0.iter().any(|(r, _)| self.touches(r))
    }

    /// `source` with the splices applied.
    pub fn render(&self, source: &[u8], out: &mut Vec<u8>) {
        let mut at = 0;
        for (r, bytes) in &self.0 {
            if r.start < at || r.end > source.len() {
                continue;
            }
            out.extend_from_slice(&source[at..r.start]);
            out.extend_from_slice(bytes);
            at = r.end;
        }
        out.extend_from_slice(&source[at.min(source.len())..]);
    }
}

/// The runs of blanks (spaces and tabs) in the bytes between tokens, each as a
/// [`TokenKind::Space`] whose smallest form is nothing, or one space where the bytes on both
/// sides are parts of words (`is_word`) and would otherwise join. With `keep_indentation` (a
/// language where indentation is syntax), blanks at the start of a line are left alone.
pub fn blank_runs(
    source: &[u8],
    gaps: impl IntoIterator<Item = Range<usize>>,
    is_word: fn(u8) -> bool,
    keep_indentation: bool,
) -> Vec<Token> {
    let mut out = Vec::new();
    for gap in gaps {
        let mut i = gap.start;
        while i < gap.end {
            if !matches!(source[i], b' ' | b'\t') {
                i += 1;
                continue;
            }
            let start = i;
            while i < gap.end && matches!(source[i], b' ' | b'\t') {
                i += 1;
            }
            let at_line_start = start == 0 || source[start - 1] == b'\n';
            let at_line_end = i >= source.len() || matches!(source[i], b'\n' | b'\r');
            if keep_indentation && at_line_start && !at_line_end {
                continue;
            }
            let joins =
                start > 0 && i < source.len() && is_word(source[start - 1]) && is_word(source[i]);
            let min = if joins && !at_line_end { " " } else { "" };
            if min.len() < i - start {
                out.push(Token {
                    span: start..i,
                    kind: TokenKind::Space { min },
                });
            }
        }
    }
    out
}
