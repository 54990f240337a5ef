use super::*;
use whittle_core::Edits;

/// The motivating example of the GReduce paper (§2): three iterations choosing `a`, `b`, `c`.
const ABC: &str = "whittle-trace 1\n\
L pw.py:8\n\
{\n\
(\n\
C pw.py:9 0 \"'a'\"\n\
)\n\
(\n\
C pw.py:9 1 \"'b'\"\n\
)\n\
(\n\
C pw.py:9 2 \"'c'\"\n\
)\n\
}\n";

/// Nested parts: an expression generator whose selection recurses at the same site.
const NESTED: &str = "whittle-trace 1\n\
S e.py:3\n\
[\n\
R e.py:4 1\n\
S e.py:3\n\
[\n\
R e.py:4 2\n\
S e.py:3\n\
[\n\
R e.py:4 3\n\
]\n\
]\n\
L e.py:9\n\
{\n\
(\n\
S e.py:3\n\
)\n\
}\n\
]\n\
B e.py:12 1\n\
F e.py:13 0x1.8p-1\n";

fn doc(text: &str) -> Document {
    Trace.parse(text.as_bytes()).expect("parses")
}

fn render(d: &Document, edits: &Edits) -> String {
    let mut out = Vec::new();
    Trace.render(d, edits, &mut out);
    String::from_utf8(out).expect("utf-8")
}

fn node(d: &Document, label: &str, nth: usize) -> NodeId {
    d.tree
        .nodes()
        .filter(|&n| d.tree.label(n) == label)
        .nth(nth)
        .unwrap_or_else(|| panic!("no {label} #{nth}"))
}

#[test]
fn the_tree_has_one_node_per_reducible_part() {
    let d = doc(ABC);
    let labels: Vec<(usize, &str, &str)> = d
        .tree
        .nodes()
        .map(|n| (d.tree.depth(n), d.tree.edge(n), d.tree.label(n)))
        .collect();
    assert_eq!(
        labels,
        vec![
            (0, "", "trace"),
            (1, "iterations", "loop pw.py:8"),
            (2, "iteration", "iteration pw.py:8"),
            (2, "iteration", "iteration pw.py:8"),
            (2, "iteration", "iteration pw.py:8"),
        ]
    );
    assert_eq!(decisions(ABC.as_bytes()), Some(4));
    assert_eq!(decisions(NESTED.as_bytes()), Some(10));
    assert_eq!(render(&d, &Edits::new()), ABC, "the round trip is exact");
    let n = doc(NESTED);
    assert_eq!(render(&n, &Edits::new()), NESTED);
    // The root, 3 blocks, 1 iteration list and its 1 iteration.
    assert_eq!(n.tree.len(), 6, "{}", n.tree.dump());
}

#[test]
fn deletions_are_the_papers_trace_reductions() {
    let d = doc(ABC);
    // Dropping the first two iterations: the motivating example's reduced trace (§2.3).
    let mut e = Edits::new();
    e.set(node(&d, "iteration pw.py:8", 0), Edit::Delete);
    e.set(node(&d, "iteration pw.py:8", 1), Edit::Delete);
    let out = render(&d, &e);
    assert_eq!(
        out,
        "whittle-trace 1\nL pw.py:8\n{\n(\nC pw.py:9 2 \"'c'\"\n)\n}\n"
    );
    assert_eq!(decisions(out.as_bytes()), Some(2));
    // Dropping the iteration list: a loop that runs zero times.
    let zero = render(
        &d,
        &Edits::new().with(node(&d, "loop pw.py:8", 0), Edit::Delete),
    );
    assert_eq!(zero, "whittle-trace 1\nL pw.py:8\n");
    assert!(Trace.gate(zero.as_bytes()));
    // Dropping a selected block: the selection is not taken, the events after it stay.
    let n = doc(NESTED);
    let untaken = render(
        &n,
        &Edits::new().with(node(&n, "block e.py:3", 0), Edit::Delete),
    );
    assert_eq!(
        untaken,
        "whittle-trace 1\nS e.py:3\nB e.py:12 1\nF e.py:13 0x1.8p-1\n"
    );
    assert_eq!(doc(&untaken).tree.len(), 1);
}

#[test]
fn substitution_hoists_the_nearest_parts_of_the_same_site() {
    let n = doc(NESTED);
    let outer = node(&n, "block e.py:3", 0);
    let mut out = Vec::new();
    assert_eq!(
        SubstituteBySameSite.candidates(&n, outer, None, &mut out),
        0
    );
    // The directly nested block at e.py:3, not the one nested in it; the loop's iteration holds
    // no block (its `S e.py:3` was not taken), and nothing of another site is proposed.
    assert_eq!(out, vec![Edit::Replace(node(&n, "block e.py:3", 1))]);
    let hoisted = render(
        &n,
        &Edits::new().with(outer, Edit::Replace(node(&n, "block e.py:3", 1))),
    );
    assert_eq!(
        hoisted,
        "whittle-trace 1\nS e.py:3\n[\nR e.py:4 2\nS e.py:3\n[\nR e.py:4 3\n]\n]\nB e.py:12 1\nF e.py:13 0x1.8p-1\n"
    );
    assert!(Trace.gate(hoisted.as_bytes()));
    let inner = node(&n, "block e.py:3", 2);
    out.clear();
    SubstituteBySameSite.candidates(&n, inner, None, &mut out);
    assert!(out.is_empty(), "a leaf part has nothing to hoist");
}

#[test]
fn ddmin_works_on_every_part_in_trace_order() {
    let n = doc(NESTED);
    let units: Vec<&str> = Trace
        .ddmin_units(&n.tree)
        .into_iter()
        .map(|u| n.tree.label(u))
        .collect();
    assert_eq!(
        units,
        vec![
            "block e.py:3",
            "block e.py:3",
            "block e.py:3",
            "loop e.py:9",
            "iteration e.py:9"
        ]
    );
}

#[test]
fn malformed_traces_are_errors_with_a_position() {
    let cases: [(&str, usize, &str); 9] = [
        ("", 0, "first line"),
        ("whittle-trace 2\n", 0, "first line"),
        ("whittle-trace 1\n{\n}\n", 16, "without a loop"),
        ("whittle-trace 1\nL a:1\n{\nC a:2 0\n}\n", 24, "only `(`"),
        ("whittle-trace 1\n(\n)\n", 16, "outside a loop"),
        ("whittle-trace 1\nS a:1\n[\n)\n", 24, "unexpected `)`"),
        ("whittle-trace 1\nS a:1\n[\n", 24, "ends before a `]`"),
        ("whittle-trace 1\nX a:1\n", 16, "unknown event kind"),
        ("whittle-trace 1\nC a:1 one\n", 16, "malformed C event"),
    ];
    for (text, offset, message) in cases {
        let e = Trace.parse(text.as_bytes()).expect_err(text);
        assert_eq!(e.offset, offset, "{text:?}: {e}");
        assert!(e.message.contains(message), "{text:?}: {e}");
        assert!(!Trace.gate(text.as_bytes()));
    }
    assert!(Trace.parse(b"whittle-trace 1\nB a:1 2\n").is_err());
    assert!(Trace.parse(b"whittle-trace 1\nR a:1 5 x\n").is_err());
    assert!(Trace.parse(&[b'w', 0xff]).is_err());
}

#[test]
fn the_python_client_is_shipped() {
    assert!(PYTHON_CLIENT.contains(&format!("HEADER = \"{HEADER}\"")));
}
