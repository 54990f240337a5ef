//! The `trace` format: the recorded random decisions of a test-input generator, for
//! generator-based reduction (GReduce, Ren et al. 2024, §3–4).
//!
//! A trace is written by the Python client `python/whittle_gen.py` (shipped with this crate, see
//! [`PYTHON_CLIENT`]) when a generator runs, and followed by the same client when the generator
//! runs again on a reduced trace (trace-aligned re-execution). It is a text file, one event per
//! line:
//!
//! ```text
//! whittle-trace 1
//! L gen.py:8          a reducible loop at gen.py line 8 ...
//! {                   ... its iterations (no `{ }` at all: zero iterations)
//! (                   one iteration ...
//! C gen.py:9 2 "'c'"  a choice: index and value
//! )
//! }
//! S gen.py:12         a reducible selection (`if maybe():`) ...
//! [                   ... taken: its block (no `[ ]`: not taken)
//! R gen.py:13 7       randint, F: random() as a hex float, B: a plain maybe()
//! ]
//! ```
//!
//! The tree has a node for each loop's iteration list, each iteration and each selected block
//! (the reducible parts of the paper); decisions are part of the render template. So deleting a
//! node is always one of the paper's trace reductions: an iteration list gone is a loop that runs
//! zero times, an iteration gone is one iteration fewer, a block gone is a selection not taken.
//! HDD over this tree is the paper's tree-based trace reduction (G^T_h), ddmin over all its nodes
//! in trace order the sequence-based one (G^S), and GTR adds substituting a part by a nested part
//! of the same call site (a recursive generator's subexpression taking its parent's place).

use whittle_core::{
    CompiledRules, Deletion, Document, Edit, Format, NodeId, ParseError, Template, Tree,
    TreeBuilder,
};

/// The first line of every trace.
pub const HEADER: &str = "whittle-trace 1";

/// The Python client that records and replays traces (`whittle gen-client` prints it).
pub const PYTHON_CLIENT: &str = include_str!("../python/whittle_gen.py");

/// The trace format.
#[derive(Clone, Copy, Debug, Default)]
pub struct Trace;

impl Format for Trace {
    fn name(&self) -> &'static str {
        "trace"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["trace"]
    }

    fn description(&self) -> &'static str {
        "a generator's recorded decisions (whittle_gen.py), for generator-based reduction"
    }

    fn parse(&self, input: &[u8]) -> Result<Document, ParseError> {
        Ok(Document::new(parse(input)?.0))
    }

    fn templates(&self) -> Vec<Box<dyn Template>> {
        vec![Box::new(Deletion), Box::new(SubstituteBySameSite)]
    }

    fn ddmin_units(&self, tree: &Tree) -> Vec<NodeId> {
        // The paper's sequence-based reduction: every reducible part is an element, in trace
        // order (pre-order), nested ones included.
        tree.nodes().skip(1).collect()
    }

    fn has_gate(&self) -> bool {
        true
    }

    fn gate(&self, bytes: &[u8]) -> bool {
        parse(bytes).is_ok()
    }
}

/// How many decisions (events) a trace holds, its size in the generator's own unit; `None` if
/// it is not a trace.
pub fn decisions(bytes: &[u8]) -> Option<usize> {
    parse(bytes).ok().map(|(_, n)| n)
}

/// Which bracket opened the innermost part.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    /// `{`: a loop's iteration list.
    Loop,
    /// `(`: one iteration.
    Iteration,
    /// `[`: a selected block.
    Block,
}

fn error(offset: usize, message: impl Into<String>) -> ParseError {
    ParseError {
        offset,
        message: message.into(),
    }
}

/// Checks one event line (`KIND SITE [VALUE [JSON]]`) and returns its kind and site.
fn event(line: &str, offset: usize) -> Result<(u8, &str), ParseError> {
    let mut parts = line.splitn(4, ' ');
    let kind = parts.next().unwrap_or("");
    let site = parts
        .next()
        .filter(|s| !s.is_empty())
        .ok_or_else(|| error(offset, format!("`{line}`: an event needs a call site")))?;
    let value = parts.next();
    let rest = parts.next();
    let int = |v: Option<&str>| v.is_some_and(|v| v.parse::<i128>().is_ok());
    let ok = match kind {
        "C" => int(value) && rest.is_none_or(|r| r.starts_with('"') && r.ends_with('"')),
        "R" => int(value) && rest.is_none(),
        "F" => value.is_some_and(|v| !v.is_empty()) && rest.is_none(),
        "B" => matches!(value, Some("0" | "1")) && rest.is_none(),
        "S" | "L" => value.is_none(),
        _ => return Err(error(offset, format!("`{line}`: unknown event kind"))),
    };
    if !ok {
        return Err(error(offset, format!("`{line}`: malformed {kind} event")));
    }
    Ok((kind.as_bytes()[0], site))
}

/// Parses a trace into its tree of reducible parts and counts its events.
fn parse(input: &[u8]) -> Result<(Tree, usize), ParseError> {
    let text =
        std::str::from_utf8(input).map_err(|e| error(e.valid_up_to(), "a trace is UTF-8 text"))?;
    let mut b = TreeBuilder::new(input.to_vec(), "trace");
    let mut stack: Vec<(Open, String)> = Vec::new();
    // The site of the last `S` or `L` event, while its block or iteration list may follow.
    let mut pending: Option<(u8, String)> = None;
    let mut events = 0;
    let mut offset = 0;
    let mut first = true;
    for raw in text.split_inclusive('\n') {
        let start = offset;
        offset += raw.len();
        let line = raw.trim();
        if first {
            if line != HEADER {
                return Err(error(
                    start,
                    format!("not a trace: the first line must be `{HEADER}`"),
                ));
            }
            first = false;
            continue;
        }
        if line.is_empty() {
            continue;
        }
        let in_loop = stack.last().is_some_and(|(o, _)| *o == Open::Loop);
        match line {
            "{" | "[" => {
                let (want, open, label, edge) = if line == "{" {
                    (b'L', Open::Loop, "loop", "iterations")
                } else {
                    (b'S', Open::Block, "block", "then")
                };
                let site = match pending.take() {
                    Some((k, site)) if k == want => site,
                    _ => {
                        let what = if want == b'L' {
                            "a loop (L)"
                        } else {
                            "a selection (S)"
                        };
                        return Err(error(start, format!("`{line}` without {what} before it")));
                    }
                };
                b.open(&format!("{label} {site}"), edge, start);
                stack.push((open, site));
            }
            "(" => {
                pending = None;
                let Some((Open::Loop, site)) = stack.last() else {
                    return Err(error(start, "`(` outside a loop's `{ }`"));
                };
                let site = site.clone();
                b.open(&format!("iteration {site}"), "iteration", start);
                stack.push((Open::Iteration, site));
            }
            "}" | ")" | "]" => {
                pending = None;
                let want = match line {
                    "}" => Open::Loop,
                    ")" => Open::Iteration,
                    _ => Open::Block,
                };
                if stack.last().map(|(o, _)| *o) != Some(want) {
                    return Err(error(start, format!("unexpected `{line}`")));
                }
                stack.pop();
                b.close(offset);
            }
            _ => {
                if in_loop {
                    return Err(error(
                        start,
                        "only `(` iterations may stand in a loop's `{ }`",
                    ));
                }
                let (kind, site) = event(line, start)?;
                events += 1;
                pending = matches!(kind, b'S' | b'L').then(|| (kind, site.to_string()));
            }
        }
    }
    if first {
        return Err(error(
            0,
            format!("not a trace: the first line must be `{HEADER}`"),
        ));
    }
    if let Some((open, _)) = stack.last() {
        let close = match open {
            Open::Loop => '}',
            Open::Iteration => ')',
            Open::Block => ']',
        };
        return Err(error(
            input.len(),
            format!("the trace ends before a `{close}`"),
        ));
    }
    Ok((b.finish()?, events))
}

/// GTR's substitute-by-child for traces: a part is replaced by a nested part of the same kind
/// and call site (the nearest ones below it), which the generator can follow: a recursive
/// generator's inner expression taking the place of the outer one, an inner iteration of a
/// recursive loop the place of the outer iteration. Parts of another kind or site would not
/// align with the generator's calls, so they are never proposed.
#[derive(Clone, Copy, Debug, Default)]
pub struct SubstituteBySameSite;

impl Template for SubstituteBySameSite {
    fn name(&self) -> &'static str {
        "substitute-by-same-site"
    }

    fn at_most_one(&self) -> bool {
        false
    }

    fn candidates(
        &self,
        doc: &Document,
        n: NodeId,
        rules: Option<&CompiledRules>,
        out: &mut Vec<Edit>,
    ) -> usize {
        let tree = &doc.tree;
        if n == tree.root() {
            return 0;
        }
        let label = tree.label_sym(n);
        let mut filtered = 0;
        // Pre-order over the subtree, not descending below a same-site part.
        let mut stack: Vec<NodeId> = tree.children(n).iter().rev().copied().collect();
        while let Some(d) = stack.pop() {
            if tree.label_sym(d) == label {
                if rules.is_some_and(|r| !r.may_substitute(tree, n, d)) {
                    filtered += 1;
                } else {
                    out.push(Edit::Replace(d));
                }
                continue;
            }
            stack.extend(tree.children(d).iter().rev());
        }
        filtered
    }
}

#[cfg(test)]
mod tests;
