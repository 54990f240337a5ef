//! Rendering a tree-sitter tree with edits: separators and indentation follow the edits.

use crate::{Extra, Spec};
use whittle_core::{Document, Edit, Edits, NodeId, Tree, gap};

/// Automatic semicolon insertion, for languages where a line break may end a statement
/// (JavaScript).
///
/// A statement that is not ended by a `;` ends at a line break only if the next line cannot
/// continue it: `a` followed by a line `(b)` is the call `a(b)`. In the original such a pair is
/// written `a` / `;(b)`; when the statement in between is deleted, or a statement is replaced by a
/// part of it that starts or ends differently, two statements can come to meet that would join.
/// So, in the children of a node whose kind is one of `lists`: where a child that is not an extra
/// comes to follow another (after deletions between them, or when the last byte of the first or the
/// first byte of the second changed) and the output so far does not end with one of `ends`, a `;`
/// is written in front of the second child if it starts with one of `continues`. Pairs that were
/// neighbours in the input and keep their bordering bytes are left alone, so an unedited list
/// renders as before.
#[derive(Clone, Copy, Debug)]
pub struct Asi {
    /// Node kinds whose children are statements or class members (`program`, `statement_block`).
    pub lists: &'static [&'static str],
    /// Node kinds that are passed over (comments).
    pub extras: &'static [&'static str],
    /// First bytes of a statement that would continue the statement before it (`(`, `[`, …).
    pub continues: &'static [u8],
    /// Last bytes after which a statement always starts anew (`;`, and the `:` of `case x:`).
    pub ends: &'static [u8],
}

/// The last non-blank byte written in the current list, and whether it is not the byte the
/// input had at that place (the statement it ends was edited).
#[derive(Clone, Copy)]
struct Prev {
    byte: u8,
    changed: bool,
}

enum Task {
    Node(NodeId),
    Copy(usize, usize),
    PushIndent(Vec<u8>, Vec<u8>),
    PopIndent,
    /// Opens and closes the ASI state of a list.
    ListStart,
    ListEnd,
    /// A gap between two children of a list.
    ListGap(usize, usize),
    /// A child of a list (`adjacent`: its previous statement in the input is the previous one
    /// written); then the check after it is written, from output offset `start`.
    ListChild {
        node: NodeId,
        adjacent: bool,
    },
    ListChildEnd {
        node: NodeId,
        adjacent: bool,
        start: usize,
    },
}

/// Renders `doc` with `edits` applied.
///
/// * A deleted child takes one adjacent separator with it (the one after it, or, for the last
///   kept child, the one before it), so `f(a, b, c)` without `b` is `f(a, c)` and without `c` is
///   `f(a, b)`; a gap of white space with a line break counts as a separator too, so a deleted
///   statement takes its line with it. The file's last statement takes the white space that
///   ends the file with it too, so that the candidates made after it carry no final line break
///   that a later move would take off (and test them again without), nor is the empty file
///   written as a line break (`a();⏎b();⏎` without `b();` is `a();`, without both it is empty,
///   which was tested at the start). A deleted comment ([`Spec::comments`]) that ends a line a
///   kept child starts keeps the line break after it instead, outside JavaScript's lists (ASI
///   keeps their statements apart): `x = 1  # c⏎y = 2` without it is `x = 1  ⏎y = 2`.
/// * When `spec.reindent` is set and a node is replaced by a descendant that starts a line at
///   another indentation, every following line of the descendant's text has that indentation
///   prefix swapped for the node's own, except lines inside protected nodes (multi-line strings).
pub fn render(spec: &Spec, doc: &Document, edits: &Edits, out: &mut Vec<u8>) {
    let tree = &doc.tree;
    let src = tree.source();
    let extra = Extra::of(doc);
    let mut indents: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    let mut lists: Vec<Option<Prev>> = Vec::new();
    let mut stack = vec![Task::Node(tree.root())];
    while let Some(task) = stack.pop() {
        match task {
            Task::Copy(start, end) => copy(src, start, end, &indents, extra, out),
            Task::ListStart => lists.push(None),
            Task::ListEnd => {
                lists.pop();
            }
            Task::ListGap(start, end) => {
                copy(src, start, end, &indents, extra, out);
                if let (Some(prev), Some(&byte)) = (lists.last_mut(), trim(&src[start..end]).last())
                {
                    *prev = Some(Prev {
                        byte,
                        changed: false,
                    });
                }
            }
            Task::ListChild { node, adjacent } => {
                stack.push(Task::ListChildEnd {
                    node,
                    adjacent,
                    start: out.len(),
                });
                stack.push(Task::Node(node));
            }
            Task::ListChildEnd {
                node,
                adjacent,
                start,
            } => {
                if let (Some(asi), Some(prev)) = (&spec.asi, lists.last_mut()) {
                    end_statement(asi, src, tree.span(node), adjacent, start, prev, out);
                }
            }
            Task::PushIndent(from, to) => indents.push((from, to)),
            Task::PopIndent => {
                indents.pop();
            }
            Task::Node(n) => {
                let mut d = n;
                while let Some(Edit::Replace(r)) = edits.get(d) {
                    if r == d || !tree.contains(d, r) {
                        break;
                    }
                    d = r;
                }
                if edits.get(d) == Some(Edit::Delete) {
                    continue;
                }
                let moved = if spec.reindent && d != n {
                    indent_change(src, tree, n, d)
                } else {
                    None
                };
                if let Some((from, to)) = moved {
                    stack.push(Task::PopIndent);
                    push_body(tree, edits, spec, d, &mut stack);
                    stack.push(Task::PushIndent(from, to));
                } else {
                    push_body(tree, edits, spec, d, &mut stack);
                }
            }
        }
    }
}

/// Pushes the tasks that render node `n` itself (its edit already resolved), in reverse order.
fn push_body(tree: &Tree, edits: &Edits, spec: &Spec, n: NodeId, stack: &mut Vec<Task>) {
    let kids = tree.children(n);
    if kids.is_empty() || !edits.any_below(tree, n) {
        let span = tree.span(n);
        stack.push(Task::Copy(span.start, span.end));
        return;
    }
    let kept: Vec<bool> = kids
        .iter()
        .map(|&k| edits.get(k) != Some(Edit::Delete))
        .collect();
    let src = tree.source();
    let any_kept = kept.iter().any(|&k| k);
    let asi = spec
        .asi
        .as_ref()
        .filter(|a| a.lists.contains(&tree.label(n)));
    // Build the forward sequence, then push it reversed.
    let mut seq: Vec<Task> = Vec::with_capacity(2 * kids.len() + 3);
    if asi.is_some() {
        seq.push(Task::ListStart);
    }
    let first = gap(tree, n, 0);
    seq.push(Task::Copy(first.start, first.end));
    // Whether a statement was deleted since the last one written.
    let mut deleted = false;
    // Whether a kept child was written since the last line break.
    let mut on_line = false;
    for (i, &k) in kids.iter().enumerate() {
        on_line |= kept[i];
        match asi {
            Some(asi) if !asi.extras.contains(&tree.label(k)) => {
                if kept[i] {
                    seq.push(Task::ListChild {
                        node: k,
                        adjacent: !deleted,
                    });
                }
                deleted = !kept[i];
            }
            _ if kept[i] => seq.push(Task::Node(k)),
            _ => {}
        }
        let g = gap(tree, n, i + 1);
        if i + 1 == kids.len() {
            // The closing gap; without any kept child, a leading separator (`[a,]` → `[]`) goes.
            let mut start = g.start;
            if !any_kept && let Some(len) = leading_separator(spec, &src[g.clone()]) {
                start += len;
            }
            // The file's last statement deleted takes the white space that ends the file with
            // it, as a statement takes its line: the last kept one then ends the file, and with
            // none kept the file is empty, not a line break.
            let file_end = tree.parent(n).is_none() && !kept[i];
            if file_end && src[start..g.end].iter().all(|&b| is_blank(b)) {
                start = g.end;
            }
            seq.push(Task::Copy(start, g.end));
        } else if is_separator(spec, &src[g.clone()]) {
            // A deleted comment after a kept child on its line keeps the line break after it,
            // so the lines around it do not join (`x = 1  # c⏎y = 2` without the comment is
            // not `x = 1  y = 2`, nor is a preprocessor line written at the end of another).
            // JavaScript's lists keep statements apart by ASI instead.
            let breaks = src[g.clone()].contains(&b'\n');
            let line_ends = breaks
                && !kept[i]
                && on_line
                && spec.asi.is_none()
                && spec.comments.contains(&tree.label(k));
            if (kept[i] || line_ends) && kept[i + 1..].iter().any(|&k| k) {
                seq.push(Task::Copy(g.start, g.end));
                on_line &= !breaks;
            }
        } else if asi.is_some() {
            seq.push(Task::ListGap(g.start, g.end));
        } else {
            seq.push(Task::Copy(g.start, g.end));
            on_line &= !src[g.clone()].contains(&b'\n');
        }
    }
    if asi.is_some() {
        seq.push(Task::ListEnd);
    }
    stack.extend(seq.into_iter().rev());
}

/// After a statement of a list was written from output offset `start`: writes a `;` in front of
/// it if it would otherwise continue the statement before it (see [`Asi`]), and remembers how it
/// ends. `span` is the statement's place in the input.
fn end_statement(
    asi: &Asi,
    src: &[u8],
    span: std::ops::Range<usize>,
    adjacent: bool,
    start: usize,
    prev: &mut Option<Prev>,
    out: &mut Vec<u8>,
) {
    let written = trim(&out[start..]);
    let (Some(&first), Some(&last)) = (written.first(), written.last()) else {
        return;
    };
    let input = trim(&src[span]);
    if let Some(p) = *prev {
        let met = !adjacent || p.changed || input.first() != Some(&first);
        if met && !asi.ends.contains(&p.byte) && asi.continues.contains(&first) {
            let at = start + out[start..].iter().take_while(|&&b| is_blank(b)).count();
            out.insert(at, b';');
        }
    }
    *prev = Some(Prev {
        byte: last,
        changed: input.last() != Some(&last),
    });
}

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'\x0c')
}

/// A gap that only separates: a separator token or a line break, with white space around it.
fn is_separator(spec: &Spec, gap: &[u8]) -> bool {
    let trimmed = trim(gap);
    if trimmed.is_empty() {
        return gap.contains(&b'\n');
    }
    spec.separators.iter().any(|s| trimmed == s.as_bytes())
}

/// The length of a separator (with the white space before it) at the start of a gap.
fn leading_separator(spec: &Spec, gap: &[u8]) -> Option<usize> {
    let ws = gap.iter().take_while(|&&b| is_blank(b)).count();
    spec.separators
        .iter()
        .find(|s| gap[ws..].starts_with(s.as_bytes()))
        .map(|s| ws + s.len())
}

fn trim(b: &[u8]) -> &[u8] {
    let start = b.iter().position(|&c| !is_blank(c)).unwrap_or(b.len());
    let end = b
        .iter()
        .rposition(|&c| !is_blank(c))
        .map_or(start, |e| e + 1);
    &b[start..end]
}

/// The indentation of the line on which byte `pos` starts a token, if only white space precedes
/// it on that line.
fn line_indent(src: &[u8], pos: usize) -> Option<&[u8]> {
    let line_start = src[..pos]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let prefix = &src[line_start..pos];
    prefix
        .iter()
        .all(|&b| b == b' ' || b == b'\t')
        .then_some(prefix)
}

/// The re-indentation needed when `d` takes the place of `n`: (d's indentation, n's).
fn indent_change(src: &[u8], tree: &Tree, n: NodeId, d: NodeId) -> Option<(Vec<u8>, Vec<u8>)> {
    let to = line_indent(src, tree.span(n).start)?;
    let from = line_indent(src, tree.span(d).start)?;
    (from != to).then(|| (from.to_vec(), to.to_vec()))
}

/// The document without trailing spaces and tabs at line ends and without blank lines, and, when
/// `spec.reindent` is set, with every line indented by one space per enclosing `spec.block` node
/// (the smallest indentation that keeps the same structure). Lines inside protected nodes
/// (multi-line strings) keep every byte; a line on which one starts is re-indented but keeps its
/// end. A line that starts with the closing token of a block (JavaScript's `}`) is indented like
/// the statement the block belongs to; other lines that start with a token no named node starts at
/// (a closing bracket) keep their indentation, which is not significant there. `None` if nothing
/// would change.
pub fn tidy(spec: &Spec, doc: &Document) -> Option<Vec<u8>> {
    let tree = &doc.tree;
    let src = tree.source();
    let extra = Extra::of(doc);
    // The outermost node starting at each offset, and its depth in blocks.
    let mut depth_at: Vec<(usize, usize)> = Vec::new();
    // The closing tokens of blocks (a last byte after the last child), and the depth they take.
    let mut closes: Vec<(usize, usize)> = Vec::new();
    if spec.reindent {
        let mut blocks = vec![0usize; tree.len()];
        for n in tree.nodes() {
            let inherited = tree.parent(n).map_or(0, |p| blocks[p.index()]);
            let own = usize::from(spec.block.is_some_and(|b| tree.label(n) == b));
            blocks[n.index()] = inherited + own;
            let start = tree.span(n).start;
            // A block starts where its first statement does, and counts itself.
            if depth_at.last().is_none_or(|&(s, _)| s < start) {
                depth_at.push((start, blocks[n.index()]));
            }
            let end = tree.span(n).end;
            let inner = tree.children(n).last().map_or(start, |&k| tree.span(k).end);
            if own == 1 && end > inner.max(start + 1) {
                closes.push((end - 1, blocks[n.index()] - 1));
            }
        }
        closes.sort_unstable();
    }
    let mut out = Vec::with_capacity(src.len());
    let mut pos = 0;
    while pos < src.len() {
        let end = src[pos..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(src.len(), |i| pos + i);
        let next = (end + 1).min(src.len());
        let line = &src[pos..end];
        if extra.is_protected(pos) {
            out.extend_from_slice(&src[pos..next]);
            pos = next;
            continue;
        }
        // A line that ends inside a multi-line string keeps its end.
        let kept = if extra.is_protected(end) {
            line.len()
        } else {
            line.iter()
                .rposition(|&b| b != b' ' && b != b'\t')
                .map_or(0, |i| i + 1)
        };
        let line = &line[..kept];
        if line
            .iter()
            .all(|&b| matches!(b, b' ' | b'\t' | b'\r' | b'\x0c'))
        {
            pos = next;
            continue;
        }
        let indent = line
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        let first = pos + indent;
        let depth = depth_at
            .binary_search_by_key(&first, |&(s, _)| s)
            .ok()
            .map(|i| depth_at[i].1)
            .or_else(|| {
                closes
                    .binary_search_by_key(&first, |&(s, _)| s)
                    .ok()
                    .map(|i| closes[i].1)
            });
        match depth {
            Some(d) => {
                out.extend(std::iter::repeat_n(b' ', d));
                out.extend_from_slice(&line[indent..]);
            }
            None => out.extend_from_slice(line),
        }
        out.extend_from_slice(&src[end..next]);
        pos = next;
    }
    (out.len() < src.len()).then_some(out)
}

/// Copies `src[start..end]`, re-indenting every line that starts inside it.
fn copy(
    src: &[u8],
    start: usize,
    end: usize,
    indents: &[(Vec<u8>, Vec<u8>)],
    extra: &Extra,
    out: &mut Vec<u8>,
) {
    if indents.is_empty() {
        out.extend_from_slice(&src[start..end]);
        return;
    }
    let mut pos = start;
    while pos < end {
        let Some(nl) = src[pos..end].iter().position(|&b| b == b'\n') else {
            out.extend_from_slice(&src[pos..end]);
            return;
        };
        let line_start = pos + nl + 1;
        out.extend_from_slice(&src[pos..line_start]);
        pos = line_start;
        if pos >= end || extra.is_protected(pos) {
            continue;
        }
        let ws_len = src[pos..end]
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        // Blank lines keep no indentation at all.
        if src
            .get(pos + ws_len)
            .is_none_or(|&b| b == b'\n' || b == b'\r')
        {
            pos += ws_len;
            continue;
        }
        let mut ws = src[pos..pos + ws_len].to_vec();
        for (from, to) in indents.iter().rev() {
            if ws.starts_with(from) {
                let mut moved = to.clone();
                moved.extend_from_slice(&ws[from.len()..]);
                ws = moved;
            }
        }
        out.extend_from_slice(&ws);
        pos += ws_len;
    }
}
