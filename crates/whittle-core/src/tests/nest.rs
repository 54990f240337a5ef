//! Nested formats on toy formats: an outer toy whose leaves `h<hex>` hold a document of an
//! inner toy, hex-encoded, whose gate wants a `K` in the text.

use super::toy::Toy;
use crate::{
    Algorithm, Document, Edit, Edits, Embedded, Format, Nested, NodeId, ParseError, Reduction,
    Rules, render_replacing,
};

/// The toy syntax; a leaf whose label is `h` and hex digits holds an `inner` document.
struct Outer;

/// The toy syntax with a gate: the text must hold a `K`.
struct Inner;

fn hex(bytes: &[u8]) -> Vec<u8> {
    let mut out = b"h".to_vec();
    for b in bytes {
        out.extend_from_slice(format!("{b:02x}").as_bytes());
    }
    out
}

fn unhex(s: &str) -> Result<Vec<u8>, String> {
    if !s.len().is_multiple_of(2) {
        return Err("an odd number of hex digits".into());
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|e| e.to_string()))
        .collect()
}

impl Format for Outer {
    fn name(&self) -> &'static str {
        "outer"
    }
    fn extensions(&self) -> &'static [&'static str] {
        &[]
    }
    fn description(&self) -> &'static str {
        "toy holding hex-encoded toy"
    }
    fn parse(&self, input: &[u8]) -> Result<Document, ParseError> {
        Toy.parse(input)
    }
    fn embedded(&self, doc: &Document) -> Vec<Embedded> {
        let tree = &doc.tree;
        (tree.leaves().into_iter())
            .filter_map(|n| {
                let digits = tree.label(n).strip_prefix('h')?;
                Some(Embedded {
                    leaf: n,
                    format: "inner",
                    what: format!("leaf {}", n.0),
                    offset: tree.span(n).start,
                    content: unhex(digits),
                })
            })
            .collect()
    }
    fn render_embedded(
        &self,
        doc: &Document,
        edits: &Edits,
        contents: &[(NodeId, Vec<u8>)],
        out: &mut Vec<u8>,
    ) {
        let encoded: Vec<(NodeId, Vec<u8>)> = contents.iter().map(|(n, c)| (*n, hex(c))).collect();
        render_replacing(&doc.tree, edits, &encoded, out);
    }
}

impl Format for Inner {
    fn name(&self) -> &'static str {
        "inner"
    }
    fn extensions(&self) -> &'static [&'static str] {
        &[]
    }
    fn description(&self) -> &'static str {
        "toy with a gate"
    }
    fn parse(&self, input: &[u8]) -> Result<Document, ParseError> {
        Toy.parse(input)
    }
    fn has_gate(&self) -> bool {
        true
    }
    fn gate(&self, bytes: &[u8]) -> bool {
        bytes.contains(&b'K')
    }
}

static NESTED: Nested = Nested::new(&Outer, &[&Inner]);

/// The outer text with `inner` hex-encoded as the leaf between `before` and `after`.
fn outer_text(before: &str, inner: &str, after: &str) -> Vec<u8> {
    let mut out = before.as_bytes().to_vec();
    out.extend_from_slice(&hex(inner.as_bytes()));
    out.extend_from_slice(after.as_bytes());
    out
}

/// Parses `input` with the nested format, checks the untouched round trip, and renders it with
/// the edits `edit` makes on the combined tree.
fn check(input: &[u8], edit: impl Fn(&Document) -> Edits) -> (Document, Vec<u8>) {
    let doc = NESTED.parse(input).expect("parses");
    let mut same = Vec::new();
    NESTED.render(&doc, &Edits::new(), &mut same);
    assert_eq!(same, input, "an untouched tree renders the input");
    let mut out = Vec::new();
    NESTED.render(&doc, &edit(&doc), &mut out);
    (doc, out)
}

/// The combined node with this label (the first in document order).
fn node(doc: &Document, label: &str) -> NodeId {
    (doc.tree.nodes())
        .find(|&n| doc.tree.label(n) == label)
        .unwrap_or_else(|| panic!("no node {label}"))
}

#[test]
fn an_inner_document_is_a_subtree_with_prefixed_labels() {
    let input = outer_text("A(", "K(x y) z", " B)");
    let (doc, _) = check(&input, |_| Edits::new());
    let t = &doc.tree;
    // file, A, the leaf, inner root, K, x, y, z, B.
    assert_eq!(t.len(), 9);
    let leaf = node(&doc, &String::from_utf8_lossy(&hex(b"K(x y) z")));
    let root = t.children(leaf)[0];
    assert_eq!(t.label(root), "inner:file");
    assert_eq!(t.edge(root), "inner");
    let kids: Vec<&str> = t.children(root).iter().map(|&k| t.label(k)).collect();
    assert_eq!(kids, ["inner:K", "inner:z"]);
    assert_eq!(t.text(node(&doc, "inner:K")), b"K(x y)");
    assert_eq!(t.label(node(&doc, "B")), "B");
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
}

#[test]
fn an_edit_inside_renders_the_inner_rendering_encoded_in_the_leaf() {
    let input = outer_text("A(", "K(x y) z", " B)");
    let (_, out) = check(&input, |d| {
        Edits::new().with(node(d, "inner:y"), Edit::Delete)
    });
    assert_eq!(out, outer_text("A(", "K(x ) z", " B)"));
    // Outer and inner edits at once.
    let (_, out) = check(&input, |d| {
        Edits::new()
            .with(node(d, "inner:z"), Edit::Delete)
            .with(node(d, "B"), Edit::Delete)
    });
    assert_eq!(out, outer_text("A(", "K(x y) ", " )"));
    // Replacing an inner node by its child.
    let input2 = outer_text("A(", "M(K y) z", " B)");
    let (_, out) = check(&input2, |d| {
        Edits::new().with(node(d, "inner:M"), Edit::Replace(node(d, "inner:K")))
    });
    assert_eq!(out, outer_text("A(", "K z", " B)"));
    // An inner edit under a deleted outer node does not matter.
    let (_, out) = check(&input, |d| {
        Edits::new()
            .with(node(d, "A"), Edit::Delete)
            .with(node(d, "inner:z"), Edit::Delete)
    });
    assert_eq!(out, b"");
}

#[test]
fn the_inner_gate_rejects_an_inner_rendering() {
    let input = outer_text("A(", "K(x y) z", " B)");
    // Deleting `K` leaves ` z`, which the inner gate rejects: the candidate is the empty file.
    let (_, out) = check(&input, |d| {
        Edits::new().with(node(d, "inner:K"), Edit::Delete)
    });
    assert_eq!(out, b"");
    // An inner document that fails its gate as it is is nested without the gate.
    let input = outer_text("A(", "Q(x y) z", " B)");
    let (doc, out) = check(&input, |d| {
        Edits::new().with(node(d, "inner:Q"), Edit::Delete)
    });
    assert_eq!(out, outer_text("A(", " z", " B)"));
    assert_eq!(doc.diagnostics.len(), 1);
    assert!(
        doc.diagnostics[0].message.contains("fails the inner gate"),
        "{:?}",
        doc.diagnostics
    );
}

#[test]
fn undecodable_or_unparseable_content_stays_an_opaque_leaf() {
    // Odd hex, and an inner text that does not parse (an unclosed parenthesis).
    let mut input = b"A(habc ".to_vec();
    input.extend_from_slice(&hex(b"K(x"));
    input.extend_from_slice(b" B)");
    let (doc, out) = check(&input, |d| Edits::new().with(node(d, "B"), Edit::Delete));
    assert_eq!(doc.tree.len(), 5, "file, A, two opaque leaves, B");
    let messages: Vec<&str> = doc.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(messages[0].contains("kept whole: an odd number of hex digits"));
    assert!(messages[1].contains("kept whole: does not parse as inner"));
    assert_eq!(doc.diagnostics[0].offset, 2);
    let mut expected = b"A(habc ".to_vec();
    expected.extend_from_slice(&hex(b"K(x"));
    expected.extend_from_slice(b" )");
    assert_eq!(out, expected);
    let outline = NESTED.outline(&doc);
    assert!(outline.contains("kept whole: an odd number"), "{outline}");
}

#[test]
fn templates_ask_each_node_of_its_own_format_and_rules_see_prefixed_labels() {
    let input = outer_text("A(", "K(x y) z", " B)");
    let doc = NESTED.parse(&input).expect("parses");
    let templates = NESTED.templates();
    let names: Vec<&str> = templates.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["delete", "substitute-by-child"], "merged by name");
    let subst = &templates[1];
    let mut out = Vec::new();
    subst.candidates(&doc, node(&doc, "inner:K"), None, &mut out);
    assert_eq!(
        out,
        [
            Edit::Replace(node(&doc, "inner:x")),
            Edit::Replace(node(&doc, "inner:y"))
        ]
    );
    // Rules of the inner format, nested under its prefix: `K` must keep a child on edge `c`,
    // and only `x` may stand where a root's child stands.
    let mut inner = Rules::new("inner");
    inner.labels.insert("K".into(), Default::default());
    let k = inner.labels.get_mut("K").expect("just added");
    k.mandatory_edges.insert("c".into());
    k.contexts.insert(("file".into(), "c".into()));
    let mut rules = Rules::new("outer");
    rules.nest("inner:", &inner);
    let compiled = rules.compile(&doc.tree);
    let del = &templates[0];
    out.clear();
    assert_eq!(
        del.candidates(&doc, node(&doc, "inner:x"), Some(&compiled), &mut out),
        0
    );
    assert_eq!(out, [Edit::Delete], "x has a sibling on edge c");
    // `K` seen only under `inner:file`: it may not replace the outer `A`, but the outer
    // template is asked on the outer document and proposes its own children only.
    out.clear();
    subst.candidates(&doc, node(&doc, "A"), Some(&compiled), &mut out);
    assert_eq!(out.len(), 2, "A's children: the leaf and B");
}

#[test]
fn a_reduction_reduces_inside_the_inner_document() {
    let input = outer_text("A(", "M(N(K) O) P(Q)", " B(C))");
    // Interesting while the leaf still holds an inner document with a `K` and `A` stays.
    let test = |bytes: &[u8]| {
        let Ok(doc) = Outer.parse(bytes) else {
            return false;
        };
        let held = Outer.embedded(&doc);
        bytes.starts_with(b"A(")
            && held
                .iter()
                .any(|e| e.content.as_ref().is_ok_and(|c| c.contains(&b'K')))
    };
    // HDD only deletes: `K` stays inside `M(N(…))`, with the blanks between nodes. GTR* also
    // replaces the inner root by `M` (the blanks of the root go with it), `M` by `N`, `N` by
    // `K`.
    let cases = [
        (Algorithm::Hdd, outer_text("A(", "M(N(K) ) ", " )")),
        (Algorithm::GtrStar, outer_text("A(", "K", " )")),
    ];
    for (algorithm, expected) in cases {
        let reduced = Reduction::new(&NESTED, &test, &input)
            .algorithm(algorithm)
            .run()
            .expect("reduces");
        assert_eq!(
            String::from_utf8_lossy(&reduced.best),
            String::from_utf8_lossy(&expected),
            "{algorithm:?}"
        );
    }
}

#[test]
fn without_embedded_leaves_the_combined_format_is_the_outer_one() {
    let input = b"A(x y) B".to_vec();
    let (doc, out) = check(&input, |d| Edits::new().with(node(d, "y"), Edit::Delete));
    assert_eq!(out, b"A(x ) B");
    assert_eq!(
        doc.tree.dump(),
        Outer.parse(&input).expect("parses").tree.dump()
    );
    assert!(
        NESTED.lexicon(&doc).is_none(),
        "toy-as-outer has no lexicon"
    );
}
