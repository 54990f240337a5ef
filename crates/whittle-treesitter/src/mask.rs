//! Optional spans a grammar cannot place: read the file without them, keep them as leaves.
//!
//! tree-sitter-cpp reads a GNU attribute in some places only: `namespace std
//! __attribute__ ((__visibility__ ("default"))) {` and `T x __attribute__ ((__unused__)) = e;`
//! are errors to it, and in preprocessed libstdc++ each such namespace head turns its `{`, its
//! `}` and often what lies between into `ERROR` nodes no move can take apart. Such a span can be
//! left out without changing what the rest of the file says, so where one lies inside an error,
//! the file is parsed again with it blanked (its bytes made spaces, its line breaks kept, so
//! every offset stays). The tree is built over the real bytes, and the span becomes an opaque
//! leaf of the node around it: it renders as it was and goes like any other node.

use crate::{Spec, UNNAMED_EDGE};
use std::ops::Range;
use whittle_core::TreeBuilder;

/// Spans a grammar may not accept where they stand, and can do without (see the module's
/// documentation).
#[derive(Clone, Copy, Debug)]
pub struct Optional {
    /// The spans of a file (sorted, disjoint).
    pub find: fn(&[u8]) -> Vec<Range<usize>>,
    /// The label of the leaf each one becomes where it was left out of the parse.
    pub label: &'static str,
}

/// The spans of `input` that [`Spec::optional`] finds inside one of the `ERROR` nodes among
/// `defects` (in file order), and the input with them blanked; `None` if there are none.
pub(crate) fn blank_optional(
    spec: &Spec,
    input: &[u8],
    defects: &[tree_sitter::Node<'_>],
) -> Option<(Vec<Range<usize>>, Vec<u8>)> {
    let find = spec.optional?.find;
    let errors: Vec<Range<usize>> = defects
        .iter()
        .filter(|n| n.is_error())
        .map(|n| n.start_byte()..n.end_byte())
        .collect();
    if errors.is_empty() {
        return None;
    }
    let spans: Vec<Range<usize>> = find(input)
        .into_iter()
        .filter(|s| {
            let i = errors.partition_point(|e| e.end <= s.start);
            errors.get(i).is_some_and(|e| e.start < s.end)
        })
        .collect();
    if spans.is_empty() {
        return None;
    }
    let mut text = input.to_vec();
    for s in &spans {
        for b in &mut text[s.clone()] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    Some((spans, text))
}

/// Tells `tree` (of `input`) that `spans` were blanked: each an edit that keeps its length and
/// its line breaks, so every position stays where it was.
pub(crate) fn tell_blanked(tree: &mut tree_sitter::Tree, input: &[u8], spans: &[Range<usize>]) {
    let (mut row, mut line_start, mut at) = (0, 0, 0);
    let mut point = |offset: usize| {
        for (i, &b) in input[at..offset].iter().enumerate() {
            if b == b'\n' {
                row += 1;
                line_start = at + i + 1;
            }
        }
        at = offset;
        tree_sitter::Point::new(row, offset - line_start)
    };
    for s in spans {
        let (start, end) = (point(s.start), point(s.end));
        tree.edit(&tree_sitter::InputEdit {
            start_byte: s.start,
            old_end_byte: s.end,
            new_end_byte: s.end,
            start_position: start,
            old_end_position: end,
            new_end_position: end,
        });
    }
}

/// The blanked spans not yet added to the tree, in file order.
pub(crate) struct Pending {
    spans: Vec<Range<usize>>,
    next: usize,
}

impl Pending {
    pub(crate) fn new(spans: Vec<Range<usize>>) -> Pending {
        Pending { spans, next: 0 }
    }

    /// Adds the spans that end at or before `before` as leaves of the innermost open node
    /// (`open`: each open node's end and the end of its last child), each once. A span that
    /// starts before the open node's last child ends (it fell inside a leaf, or an `ERROR`)
    /// stays part of that leaf's text and is passed over.
    pub(crate) fn add(
        &mut self,
        b: &mut TreeBuilder,
        open: &mut [(usize, usize)],
        before: usize,
        label: &str,
    ) {
        let Some(last) = open.last_mut() else {
            return;
        };
        while let Some(s) = self.spans.get(self.next) {
            if s.end > before {
                break;
            }
            if s.start >= last.1 {
                b.leaf(label, UNNAMED_EDGE, s.start, s.end);
                last.1 = s.end;
            }
            self.next += 1;
        }
    }
}

/// GNU attributes, `__attribute__ ((…))` and `__attribute ((…))`, with their balanced
/// parentheses (string and character literals inside skipped): what C and C++ compilers accept
/// in many places tree-sitter's grammars do not.
pub fn gnu_attributes(input: &[u8]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(at) = find(&input[i..], b"__attribute") {
        let start = i + at;
        let mut j = start + b"__attribute".len();
        if input[j..].starts_with(b"__") {
            j += 2;
        }
        let word_before = start > 0 && is_word(input[start - 1]);
        let word_after = input.get(j).is_some_and(|&b| is_word(b));
        i = j;
        if word_before || word_after {
            continue;
        }
        while input.get(j).is_some_and(u8::is_ascii_whitespace) {
            j += 1;
        }
        if input.get(j) != Some(&b'(') {
            continue;
        }
        if let Some(end) = balanced(input, j) {
            out.push(start..end);
            i = end;
        }
    }
    out
}

/// The end of the parenthesized group that opens at `open`, skipping literals.
fn balanced(input: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut j = open;
    while j < input.len() {
        match input[j] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(j + 1);
                }
            }
            q @ (b'"' | b'\'') => {
                j += 1;
                while j < input.len() && input[j] != q && input[j] != b'\n' {
                    j += usize::from(input[j] == b'\\') + 1;
                }
            }
            _ => {}
        }
        j += 1;
    }
    None
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}
