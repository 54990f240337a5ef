//! Random candidates on a parsed document, of the two kinds the engine makes: tree edits
//! (deletions and the candidates of the format's templates) and text splices (the rewrites of
//! the moves below the tree, from the format's lexicon).

use crate::rng::Rng;
use crate::{Target, reparses};
use std::collections::BTreeSet;
use std::ops::Range;
use whittle_core::{Document, Edits, Format, NodeId, Splices, TokenKind, shortlex_less};

/// How many candidates of each kind one input tries, at most.
const CANDIDATES: usize = 1;
/// How many edits (or splices) one candidate combines, at most.
const EDITS: usize = 3;

/// Random combinations of template candidates on random nodes.
pub(crate) fn tree_edits(target: Target, doc: &Document, rng: &mut Rng) {
    let format = target.format();
    let tree = &doc.tree;
    let templates = format.templates();
    let mut out = Vec::new();
    let mut proposed = Vec::new();
    for _ in 0..1 + rng.below(CANDIDATES) {
        let mut edits = Edits::new();
        for _ in 0..1 + rng.below(EDITS) {
            let node = NodeId(rng.below(tree.len()) as u32);
            proposed.clear();
            let Some(template) = rng.pick(&templates) else {
                break;
            };
            template.candidates(doc, node, None, &mut proposed);
            if let Some(&edit) = rng.pick(&proposed) {
                edits.set(node, edit);
            }
        }
        out.clear();
        format.render(doc, &edits, &mut out);
        reparses(target, &out, &format_args!("the rendering of {edits:?}"));
    }
}

/// Random combinations of the splices the moves below the tree propose, where the format has a
/// lexicon and renders its splices (the rendering of none is the input, as the engine
/// requires): the source spliced, or for PDF and nested documents the changed leaves written
/// anew. Returns whether it tried any.
pub(crate) fn splices(target: Target, doc: &Document, input: &[u8], rng: &mut Rng) -> bool {
    let Some((s, out)) = splice(target, target.format(), doc, input, rng) else {
        return false;
    };
    reparses(target, &out, &format_args!("the splices {s:?}"));
    true
}

/// One random combination of the splices the moves below the tree propose on `input`, a
/// document of `format`: the splices (on the tree's source) and the bytes
/// [`Format::render_splices`] gives for them. `None` where the format has no lexicon, lists no
/// token, or does not render its splices. `target` names the failing target.
pub(crate) fn splice(
    target: Target,
    format: &dyn Format,
    doc: &Document,
    input: &[u8],
    rng: &mut Rng,
) -> Option<(Splices, Vec<u8>)> {
    let mut same = Vec::new();
    format.render_splices(doc, &Splices::default(), &mut same);
    if same != input {
        return None;
    }
    let input = doc.tree.source();
    let lexicon = format.lexicon(doc)?;
    let tokens = &lexicon.tokens;
    if tokens.is_empty() {
        return None;
    }
    for t in tokens {
        assert!(
            t.span.start <= t.span.end && t.span.end <= input.len(),
            "{target}: the {} lexicon lists a token outside the source: {t:?}",
            format.name()
        );
    }
    let mut used: BTreeSet<&[u8]> = tokens
        .iter()
        .filter(|t| matches!(t.kind, TokenKind::Name { .. }))
        .map(|t| &input[t.span.clone()])
        .collect();
    used.extend(lexicon.reserved.iter().map(|w| w.as_bytes()));
    // How many candidates: always one ([`CANDIDATES`]); the draw keeps the choices the saved
    // corpus files make.
    let _ = rng.below(CANDIDATES);
    let mut s = Splices::default();
    for _ in 0..1 + rng.below(EDITS) {
        let Some(t) = rng.pick(tokens) else { break };
        for (range, bytes) in rewrite(input, tokens, t, &used, rng) {
            s.add(range, &bytes);
        }
    }
    let mut out = Vec::new();
    format.render_splices(doc, &s, &mut out);
    Some((s, out))
}

/// The splices one move would make of token `t`: a renaming of every occurrence of its name,
/// its literal emptied or one character shorter, a number as `0`, `1` or one digit shorter,
/// blanks or a short form at their minimum, a placeholder, an inlined definition.
fn rewrite(
    input: &[u8],
    tokens: &[whittle_core::Token],
    t: &whittle_core::Token,
    used: &BTreeSet<&[u8]>,
    rng: &mut Rng,
) -> Vec<(Range<usize>, Vec<u8>)> {
    let old = &input[t.span.clone()];
    match &t.kind {
        TokenKind::Name { namespace, .. } => {
            // The move renames names bound somewhere in the file, to a name used nowhere.
            let same = |u: &&whittle_core::Token| {
                matches!(u.kind, TokenKind::Name { namespace: ns, .. } if ns == *namespace)
                    && &input[u.span.clone()] == old
            };
            let group: Vec<_> = tokens.iter().filter(same).collect();
            if !group
                .iter()
                .any(|u| matches!(u.kind, TokenKind::Name { bound: true, .. }))
            {
                return Vec::new();
            }
            let new = fresh_name(used, rng.below(26));
            group
                .iter()
                .map(|u| (u.span.clone(), new.clone()))
                .collect()
        }
        TokenKind::Literal { open, close } => {
            if t.span.len() < open + close {
                return Vec::new();
            }
            let content = t.span.start + open..t.span.end - close;
            if content.is_empty() {
                return Vec::new();
            }
            if rng.below(2) == 0 {
                return vec![(content, Vec::new())];
            }
            let units = whittle_core::units(&input[content.clone()], content.start, true);
            rng.pick(&units)
                .map(|u| vec![(u.clone(), Vec::new())])
                .unwrap_or_default()
        }
        TokenKind::Number => {
            let shorter = match old {
                [.., a, b] if a.is_ascii_digit() && b.is_ascii_digit() => {
                    old[..old.len() - 1].to_vec()
                }
                _ => old.to_vec(),
            };
            let choices = [b"0".to_vec(), b"1".to_vec(), shorter];
            let new = &choices[rng.below(choices.len())];
            if shortlex_less(new, old) {
                vec![(t.span.clone(), new.clone())]
            } else {
                Vec::new()
            }
        }
        TokenKind::Space { min } | TokenKind::Shorter(min)
            if shortlex_less(min.as_bytes(), old) =>
        {
            vec![(t.span.clone(), min.as_bytes().to_vec())]
        }
        TokenKind::Space { .. } | TokenKind::Shorter(_) => Vec::new(),
        TokenKind::Definition { value, wrap, uses } => {
            // Inlining: every use by the value (in parentheses with `wrap`), the statement gone.
            let mut copy = input[value.clone()].to_vec();
            if *wrap {
                copy.insert(0, b'(');
                copy.push(b')');
            }
            let mut splices = vec![(t.span.clone(), Vec::new())];
            splices.extend(uses.iter().map(|u| (u.clone(), copy.clone())));
            splices
        }
        TokenKind::Alternatives(alts) | TokenKind::Substitute(alts) => {
            let smaller: Vec<&str> = alts
                .iter()
                .copied()
                .filter(|a| shortlex_less(a.as_bytes(), old))
                .collect();
            rng.pick(&smaller)
                .map(|a| vec![(t.span.clone(), a.as_bytes().to_vec())])
                .unwrap_or_default()
        }
    }
}

/// The `skip`-th shortest name over `a`–`z` that is not in `used` (the rename move takes the
/// first; any unused one exercises the same property).
fn fresh_name(used: &BTreeSet<&[u8]>, skip: usize) -> Vec<u8> {
    let mut left = skip;
    let mut i = 0usize;
    loop {
        let name = whittle_core::name_of(i);
        i += 1;
        if used.contains(name.as_slice()) {
            continue;
        }
        if left == 0 {
            return name;
        }
        left -= 1;
    }
}

/// The text candidate of `pdf-nested`: the splices of the moves below the tree on one nested
/// document (a script, an XFA form) of the PDF `input`, written back into its leaf as the
/// nesting writes an edited inner document (`Format::render_embedded`), with the inner gate in
/// front as there. The candidate parses again, and the PDF holds the edited document where the
/// old one was. Returns whether it tried one.
pub(crate) fn inner_splices(input: &[u8], rng: &mut Rng) -> bool {
    let target = Target::PdfNested;
    let pdf = &whittle_pdf::Pdf;
    let Ok(outer) = pdf.parse(input) else {
        return false;
    };
    let parts: Vec<(NodeId, &'static dyn Format, String, Vec<u8>)> = pdf
        .embedded(&outer)
        .into_iter()
        .filter_map(|e| {
            Some((
                e.leaf,
                whittle::format_named(e.format)?,
                e.what,
                e.content.ok()?,
            ))
        })
        .collect();
    let Some((leaf, format, what, content)) = rng.pick(&parts) else {
        return false;
    };
    // Nested only as the nesting does: when it parses and renders back byte for byte.
    let Ok(inner) = format.parse(content) else {
        return false;
    };
    let mut again = Vec::new();
    format.render(&inner, &Edits::new(), &mut again);
    if &again != content {
        return false;
    }
    let Some((s, bytes)) = splice(target, *format, &inner, content, rng) else {
        return false;
    };
    if format.has_gate() && format.gate(content) && !format.gate(&bytes) {
        // The nesting renders such a candidate as the empty file.
        return true;
    }
    let mut out = Vec::new();
    pdf.render_embedded(&outer, &Edits::new(), &[(*leaf, bytes.clone())], &mut out);
    let what = format!("the splices {s:?} of {what}");
    let Some(again) = reparses(target, &out, &what) else {
        return true;
    };
    // The combined tree holds each nested document below its leaf, whose text is the document
    // (`whittle_core::Nested`): where the edited one parsed, it is there, without loading the
    // PDF once more; else the PDF's own leaves are looked at.
    let t = &again.tree;
    let nested = t.nodes().any(|n| {
        t.edge(n) == format.name() && t.parent(n).is_some_and(|leaf| t.text(leaf) == bytes)
    });
    if !nested && let Ok(written) = pdf.parse(&out) {
        assert!(
            pdf.embedded(&written)
                .iter()
                .any(|e| e.format == format.name() && e.content.as_ref() == Ok(&bytes)),
            "{target}: {what} are not in the written PDF"
        );
    }
    true
}
