#![allow(
    clippy::disallowed_methods,
    reason = "the tests run `qpdf --check` on what the format writes"
)]

use super::{Pdf, rewrite};

mod edits;
mod encryption;
mod faithful;
mod lexicon;
mod nest;
use crate::model::{Kind, PdfState};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use whittle_core::{Algorithm, Document, Edit, Edits, Format, NodeId, Options, Reducer, Tree, run};

// ----- Helpers ---------------------------------------------------------------------------------

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pdf")
}

fn fixture(name: &str) -> Vec<u8> {
    let p = fixtures().join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()))
}

fn parse(bytes: &[u8]) -> Document {
    Pdf.parse(bytes)
        .unwrap_or_else(|e| panic!("the PDF format parses this input: {e}"))
}

fn render(doc: &Document, edits: &Edits) -> Vec<u8> {
    let mut out = Vec::new();
    Pdf.render(doc, edits, &mut out);
    out
}

fn state(doc: &Document) -> &PdfState {
    crate::templates::state(doc).expect("a PDF document carries its state")
}

/// `qpdf --check` on the bytes: `Ok` only for a clean pass (exit 0, no warnings).
fn qpdf_check(bytes: &[u8]) -> Result<(), String> {
    let dir = tempfile::tempdir().expect("temp dir");
    let p = dir.path().join("candidate.pdf");
    std::fs::write(&p, bytes).expect("write candidate");
    let out = std::process::Command::new("qpdf")
        .arg("--check")
        .arg(&p)
        .output()
        .expect("qpdf runs (apt-get install qpdf)");
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "qpdf --check: {}\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The first difference between two trees (labels, edges, shape, leaf text), if any.
fn tree_diff(a: &Tree, b: &Tree) -> Option<String> {
    for (x, y) in a.nodes().zip(b.nodes()) {
        if a.label(x) != b.label(y)
            || a.edge(x) != b.edge(y)
            || a.children(x).len() != b.children(y).len()
            || (a.children(x).is_empty() && a.text(x) != b.text(y))
        {
            return Some(format!(
                "node {}: {}:{} {:?} vs {}:{} {:?}",
                x.0,
                a.edge(x),
                a.label(x),
                String::from_utf8_lossy(a.text(x)),
                b.edge(y),
                b.label(y),
                String::from_utf8_lossy(b.text(y))
            ));
        }
    }
    (a.len() != b.len()).then(|| format!("{} vs {} nodes", a.len(), b.len()))
}

/// The one check every layout goes through: the unedited document renders as the input; written
/// afresh (the form of every candidate) it passes the gate and `qpdf --check`, and parses back
/// into the same tree. Returns the parsed document.
fn check_round_trip(name: &str) -> Document {
    let input = fixture(name);
    let doc = parse(&input);
    assert_eq!(
        render(&doc, &Edits::new()),
        input,
        "{name}: no edit, same bytes"
    );
    let out = rewrite(&doc);
    assert!(!out.is_empty(), "{name}: rewritten");
    assert!(Pdf.gate(&out), "{name}: the rewrite passes the gate");
    qpdf_check(&out).unwrap_or_else(|e| panic!("{name}: {e}"));
    let again = parse(&out);
    if let Some(d) = tree_diff(&doc.tree, &again.tree) {
        panic!("{name}: the rewrite parses into another tree: {d}");
    }
    // And the rewrite is a fixpoint of rewriting.
    assert_eq!(
        rewrite(&again),
        out,
        "{name}: rewriting twice changes nothing"
    );
    doc
}

/// The node at a path of edge labels from the root (`Root/Pages/Kids/0/AA/O`), going through
/// the objects that references own. Array elements are numbered.
fn at(tree: &Tree, path: &str) -> NodeId {
    let mut n = tree.root();
    for seg in path.split('/') {
        if !tree.edge(n).is_empty() && tree.label(n) == "ref" && !tree.children(n).is_empty() {
            n = tree.children(n)[0];
        }
        let kids = tree.children(n);
        n = match seg.parse::<usize>() {
            Ok(i) => kids[i],
            Err(_) => *kids
                .iter()
                .find(|&&k| tree.edge(k) == seg)
                .unwrap_or_else(|| panic!("no {seg} in {path}")),
        };
    }
    n
}

/// The value at a path: through an owning reference to the object.
fn value_at(tree: &Tree, path: &str) -> NodeId {
    let n = at(tree, path);
    if tree.label(n) == "ref" && !tree.children(n).is_empty() {
        tree.children(n)[0]
    } else {
        n
    }
}

fn has_path(tree: &Tree, path: &str) -> bool {
    std::panic::catch_unwind(|| at(tree, path)).is_ok()
}

/// Number of objects (owning references) in the tree.
fn objects(doc: &Document) -> usize {
    let s = state(doc);
    doc.tree
        .nodes()
        .filter(|&n| matches!(s.node(n).kind, Kind::Ref { owner: true, .. }))
        .count()
}

/// The actions of the outline, without object numbers: the layout-independent triage facts.
fn actions(doc: &Document) -> BTreeSet<String> {
    let o = Pdf.outline(doc);
    let start = o.find("## actions").expect("an actions section");
    let end = o
        .find("## embedded files")
        .expect("an embedded files section");
    o[start..end]
        .lines()
        .skip(1)
        .map(|l| match l.find("  (") {
            Some(i) if l.trim_end().ends_with("obj)") => l[..i].to_string(),
            _ => l.to_string(),
        })
        .filter(|l| !l.trim().is_empty())
        .collect()
}

// ----- Layouts and round trips -------------------------------------------------------------------

#[test]
fn every_layout_round_trips_and_passes_qpdf() {
    for name in [
        "sample.pdf",
        "xref-stream.pdf",
        "object-streams.pdf",
        "incremental.pdf",
        "encrypted-rc4.pdf",
        "encrypted-aes256.pdf",
        "damaged-xref-offsets.pdf",
        "damaged-no-startxref.pdf",
        "damaged-trailing-garbage.pdf",
        "damaged-truncated.pdf",
        "damaged-junk-before-header.pdf",
        "hostile-cycles.pdf",
        "hostile-bomb-js.pdf",
    ] {
        check_round_trip(name);
    }
}

#[test]
fn the_same_document_in_another_layout_gives_the_same_tree() {
    let sample = parse(&fixture("sample.pdf"));
    // Written by hand with the same object numbers: an xref stream instead of a table, and
    // damage that loading repairs.
    for name in [
        "xref-stream.pdf",
        "damaged-xref-offsets.pdf",
        "damaged-no-startxref.pdf",
        "damaged-trailing-garbage.pdf",
        "damaged-junk-before-header.pdf",
    ] {
        let doc = parse(&fixture(name));
        assert_eq!(tree_diff(&sample.tree, &doc.tree), None, "{name}");
    }
    // Rewritten by qpdf (renumbered, object streams, encryption): the same actions and scripts.
    let want = actions(&sample);
    assert!(want.len() >= 5, "{want:?}");
    for name in [
        "object-streams.pdf",
        "encrypted-rc4.pdf",
        "encrypted-aes256.pdf",
    ] {
        assert_eq!(actions(&parse(&fixture(name))), want, "{name}");
    }
}

#[test]
fn the_tree_is_rooted_at_the_trailer_and_objects_hang_below_their_first_reference() {
    let doc = parse(&fixture("sample.pdf"));
    let t = &doc.tree;
    assert_eq!(t.label(t.root()), "trailer");
    // Level 1: the trailer's keys, without /Size (the writer makes it).
    let level1: Vec<&str> = t.children(t.root()).iter().map(|&k| t.edge(k)).collect();
    assert_eq!(level1, ["Root", "Info", "ID"]);
    let root = at(t, "Root");
    assert_eq!(t.label(root), "ref");
    assert_eq!(t.edge(t.children(root)[0]), "obj");
    assert_eq!(t.label(value_at(t, "Root")), "Catalog");
    assert_eq!(t.label(value_at(t, "Root/Pages")), "Pages");
    assert_eq!(t.label(value_at(t, "Root/Pages/Kids/0")), "Page");
    // An action is labeled by its /S, also when it says /Type /Action.
    assert_eq!(t.label(value_at(t, "Root/OpenAction")), "JavaScript");
    assert_eq!(t.label(value_at(t, "Root/OpenAction/Next")), "URI");
    assert_eq!(
        t.label(value_at(t, "Root/Pages/Kids/0/Annots/0/A")),
        "Launch"
    );
    assert_eq!(t.label(at(t, "Root/OpenAction/JS")), "string");
    assert_eq!(t.label(at(t, "Root/Pages/Kids/0/MediaBox")), "array");
    assert_eq!(t.edge(at(t, "Root/Pages/Kids/0/MediaBox/2")), "item");
    assert_eq!(t.label(at(t, "Root/Pages/Kids/0/MediaBox/2")), "int");
    // A stream: its dictionary's entries (no /Length), then its data.
    let contents = value_at(t, "Root/Pages/Kids/0/Contents");
    assert_eq!(t.label(contents), "stream");
    let edges: Vec<&str> = t.children(contents).iter().map(|&k| t.edge(k)).collect();
    assert_eq!(edges, ["Filter", "data"]);
    assert_eq!(
        t.label(value_at(t, "Root/Names/EmbeddedFiles/Names/1/EF/F")),
        "EmbeddedFile"
    );
    // A reference back up (the page's parent, the outline item's parent) is a leaf.
    let parent = at(t, "Root/Pages/Kids/0/Parent");
    assert_eq!((t.label(parent), t.children(parent).len()), ("ref", 0));
    assert_eq!(t.text(parent), b"2 0 R");
    // The font is referenced by the page (9 levels down) and by the form (6 levels down): the
    // shallower reference, met first breadth-first, owns it.
    let form = at(t, "Root/AcroForm/DR/Font/Helv");
    let page = at(t, "Root/Pages/Kids/0/Resources/Font/F1");
    assert!(t.depth(form) < t.depth(page));
    assert_eq!(t.children(form).len(), 1);
    assert_eq!(t.children(page).len(), 0);
    // 20 reachable objects; object 21 is reachable from nothing and not in the tree.
    assert_eq!(objects(&doc), 20);
    assert!(!t.nodes().any(|n| t.edge(n) == "Unreachable"));
}

#[test]
fn an_incremental_update_is_read_as_its_latest_revision() {
    let input = fixture("incremental.pdf");
    let doc = check_round_trip("incremental.pdf");
    let t = &doc.tree;
    let js = value_at(t, "Root/OpenAction/JS");
    assert_eq!(t.text(js), b"(app.alert('updated');)");
    assert!(
        !has_path(t, "Root/OpenAction/Next"),
        "the old version had /Next"
    );
    // The older revision's objects and cross-reference data are not written again.
    let out = rewrite(&doc);
    assert!(out.len() < input.len(), "{} < {}", out.len(), input.len());
    let has = |b: &[u8], w: &[u8]| b.windows(w.len()).any(|x| x == w);
    assert!(has(&input, b"opened") && !has(&out, b"opened"));
    assert_eq!(out.windows(7).filter(|w| w == b"trailer").count(), 1);
}

// ----- Damaged and hostile input -----------------------------------------------------------------

#[test]
fn damaged_files_are_repaired_with_a_diagnostic() {
    for (name, says) in [
        ("damaged-xref-offsets.pdf", "cross-reference"),
        ("damaged-no-startxref.pdf", "cross-reference"),
        ("damaged-trailing-garbage.pdf", "cross-reference"),
        ("damaged-truncated.pdf", "cross-reference"),
        (
            "damaged-junk-before-header.pdf",
            "108 bytes of junk before the `%PDF-` header",
        ),
    ] {
        let doc = parse(&fixture(name));
        assert!(
            doc.diagnostics.iter().any(|d| d.message.contains(says)),
            "{name}: {:?}",
            doc.diagnostics
        );
        assert_eq!(state(&doc).pages, 1, "{name}");
    }
    // The truncated file lost its trailer: the repair finds the catalog, but /Info is gone.
    let t = parse(&fixture("damaged-truncated.pdf")).tree;
    assert!(has_path(&t, "Root/OpenAction/JS"));
    assert!(!has_path(&t, "Info"));
}

/// The `pdf` fuzzer spent 180 ms per execution on `hostile-bomb-objstm.pdf` (2.7 KiB), whose
/// object stream was decoded up to 64 MiB on every load (the bound for a file with one object
/// stream); now a stream decodes to at most 1024 times the file's size while loading.
#[test]
fn an_object_stream_decodes_to_at_most_a_multiple_of_the_files_size() {
    use crate::load::{SIZE_FACTOR, SIZE_FLOOR, stream_limit};
    let bomb = fixture("hostile-bomb-objstm.pdf");
    assert_eq!(stream_limit(&bomb), bomb.len() * SIZE_FACTOR);
    let Err(e) = Pdf.parse(&bomb) else {
        panic!("the bomb parses")
    };
    let says = format!("decompresses to more than {} KiB", bomb.len());
    assert!(e.message.contains(&says), "{e}");
    // Small files get the floor; large ones the bounds of the object streams they declare.
    assert_eq!(stream_limit(b"%PDF-1.7"), SIZE_FLOOR);
    let large = vec![b' '; 1 << 20];
    assert_eq!(stream_limit(&large), 64 << 20);
    let declared = b"/ObjStm".repeat(1000);
    let mut large = declared.clone();
    large.resize(1 << 20, b' ');
    assert_eq!(stream_limit(&large), 4 << 20);
}

#[test]
fn what_is_not_a_document_is_a_clear_parse_error() {
    for (name, says) in [
        ("damaged-not-a-pdf.pdf", "not a PDF"),
        ("damaged-no-root.pdf", "no /Root"),
        ("damaged-user-password.pdf", "user password"),
        ("hostile-bomb-objstm.pdf", "decompression bomb"),
    ] {
        match Pdf.parse(&fixture(name)) {
            Ok(_) => panic!("{name} parses"),
            Err(e) => assert!(e.message.contains(says), "{name}: {e}"),
        }
    }
    assert!(Pdf.parse(b"").is_err());
    assert!(Pdf.parse(b"%PDF-1.4\n").is_err());
}

#[test]
fn an_empty_page_tree_is_a_document_with_a_diagnostic() {
    let doc = check_round_trip("damaged-no-pages.pdf");
    assert!(
        doc.diagnostics
            .iter()
            .any(|d| d.message == "the page tree holds no page"),
        "{:?}",
        doc.diagnostics
    );
    assert_eq!(state(&doc).pages, 0);
}

#[test]
fn a_kid_that_names_no_object_keeps_the_document_writable() {
    // Found by the fuzzer (fuzz/regressions/pdf/dangling-kid): the strict check skipped a kid
    // that names no object, so the input passed it, but every rendering writes that kid as
    // `null`, which it rejects, so every candidate was the empty file.
    let input = String::from_utf8(document("", &[]))
        .expect("ASCII")
        .replace("Kids[3 0 R]", "Kids[9 0 R]");
    let doc = parse(input.as_bytes());
    assert!(!state(&doc).strict, "such a page tree is not well formed");
    let out = rewrite(&doc);
    assert!(!out.is_empty(), "the no-op rewrite is a document");
    assert!(Pdf.gate(&out));
    assert_eq!(state(&parse(&out)).pages, 0);
}

#[test]
fn an_object_whose_number_is_written_twice_is_not_copied_from_the_other_place() {
    // Found by the fuzzer (fuzz/regressions/pdf/rewrite-copies-another-object): object 4's bytes
    // say `3 0 obj`. lopdf files what it reads under the number written there, so object 3 is
    // what stands at object 4's offset; the layout took the span at object 3's offset for it,
    // and the "faithful" copy of object 3 was the page, not the object of the tree.
    let input = String::from_utf8(document("", &["<</Marker 1>>".to_string()]))
        .expect("ASCII")
        .replace("4 0 obj", "3 0 obj");
    let doc = parse(input.as_bytes());
    let tree = &doc.tree;
    assert_eq!(tree.label(value_at(tree, "Root/Pages/Kids/0")), "dict");
    let out = rewrite(&doc);
    let again = parse(&out);
    assert!(
        tree_diff(tree, &again.tree).is_none(),
        "the rewrite is another document: {:?}",
        tree_diff(tree, &again.tree)
    );
    assert!(
        String::from_utf8_lossy(&out).contains("/Marker 1"),
        "object 3 is written as loaded"
    );
    assert!(rewrite(&again) == out, "and the rewrite is a fixpoint");
}

#[test]
fn an_object_that_is_a_reference_brings_the_object_it_names() {
    // Found by the fuzzer (fuzz/regressions/pdf/rewrite-another-tree-2): object 4 is `5 0 R`,
    // and its reference owns object 5 in the tree; the renderer did not follow the chain, so
    // object 5 did not exist in any candidate and object 4 was written as `null`.
    let input = document(
        "/Extra 4 0 R",
        &["5 0 R".to_string(), "<</Marker 1>>".to_string()],
    );
    let doc = parse(&input);
    let tree = &doc.tree;
    let four = value_at(tree, "Root/Extra");
    assert_eq!(tree.label(four), "ref");
    assert_eq!(tree.label(tree.children(four)[0]), "dict");
    let out = rewrite(&doc);
    let again = parse(&out);
    assert!(
        tree_diff(tree, &again.tree).is_none(),
        "{:?}",
        tree_diff(tree, &again.tree)
    );
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains("4 0 obj\n5 0 R\nendobj"), "{text}");
    assert!(text.contains("<</Marker 1>>"), "{text}");
}

#[test]
fn a_page_tree_first_reached_through_such_an_object_is_written() {
    // Found by the fuzzer (fuzz/regressions/pdf/rewrites-as-nothing-2): /Info is object 4,
    // which is `2 0 R`, so the page tree hangs below /Info (breadth first, it is reached there
    // first). Without it in the candidate, the catalog had no /Pages and every candidate, the
    // no-op rewrite included, was the empty file.
    let input = String::from_utf8(document("", &["2 0 R".to_string()]))
        .expect("ASCII")
        .replace("/Root 1 0 R", "/Root 1 0 R/Info 4 0 R");
    let doc = parse(input.as_bytes());
    assert_eq!(doc.tree.label(value_at(&doc.tree, "Info")), "ref");
    let out = rewrite(&doc);
    assert!(!out.is_empty(), "the no-op rewrite is a document");
    assert!(Pdf.gate(&out));
    let again = parse(&out);
    assert_eq!(state(&again).pages, 1);
    assert!(tree_diff(&doc.tree, &again.tree).is_none());
}

#[test]
fn a_stream_bomb_is_never_decoded_beyond_a_bound() {
    // The page script inflates to 200 MB. Loading never decodes it, reduction keeps it as it is
    // stored, and the outline decodes at most 1 MiB of it.
    let doc = check_round_trip("hostile-bomb-js.pdf");
    let o = Pdf.outline(&doc);
    assert!(o.contains("cannot decode the stream"), "{o}");
    assert!(o.contains("app.alert('opened');"), "{o}");
}

#[test]
fn reference_cycles_end_at_a_leaf() {
    let doc = check_round_trip("hostile-cycles.pdf");
    let t = &doc.tree;
    // Object 4 and 5 point at each other and at themselves; object 6 is an array holding itself.
    let four = value_at(t, "Root/Loop");
    let self_ref = at(t, "Root/Loop/Self");
    assert_eq!(
        (t.text(self_ref), t.children(self_ref).len()),
        (&b"4 0 R"[..], 0)
    );
    let back = at(t, "Root/Loop/Next/Next");
    assert_eq!((t.text(back), t.children(back).len()), (&b"4 0 R"[..], 0));
    assert_eq!(t.label(four), "dict");
    let six = value_at(t, "Root/Loop/Next/Arr/1");
    assert_eq!(t.label(six), "array");
    assert_eq!(t.text(at(t, "Root/Loop/Next/Arr/1/0")), b"6 0 R");
    // The action that chains to itself.
    let o = Pdf.outline(&doc);
    assert!(o.contains("/Root/OpenAction  JavaScript  (7 0 obj)"), "{o}");
    // Every edit still renders a loadable file in bounded time.
    for n in doc.tree.nodes().skip(1) {
        let out = render(&doc, &Edits::new().with(n, Edit::Delete));
        if !out.is_empty() {
            parse(&out);
        }
    }
}

/// A one-page document with `extra` added to the catalog and `more` objects after it (object
/// numbers from 4 on).
fn document(extra: &str, more: &[String]) -> Vec<u8> {
    let mut s = String::from("%PDF-1.4\n");
    let mut offsets = Vec::new();
    let mut objs = vec![
        format!("<</Type/Catalog/Pages 2 0 R{extra}>>"),
        "<</Type/Pages/Kids[3 0 R]/Count 1>>".to_string(),
        "<</Type/Page/Parent 2 0 R/MediaBox[0 0 10 10]>>".to_string(),
    ];
    objs.extend(more.iter().cloned());
    for (i, o) in objs.iter().enumerate() {
        offsets.push(s.len());
        s.push_str(&format!("{} 0 obj\n{o}\nendobj\n", i + 1));
    }
    let xref = s.len();
    s.push_str(&format!(
        "xref\n0 {}\n0000000000 65535 f \n",
        objs.len() + 1
    ));
    for o in offsets {
        s.push_str(&format!("{o:010} 00000 n \n"));
    }
    s.push_str(&format!(
        "trailer\n<</Size {}/Root 1 0 R>>\nstartxref\n{xref}\n%%EOF\n",
        objs.len() + 1
    ));
    s.into_bytes()
}

#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    for body in [
        "[".repeat(100_000) + &"]".repeat(100_000),
        "<</A ".repeat(100_000) + "1" + &">>".repeat(100_000),
        "(".repeat(100_000) + &")".repeat(100_000),
    ] {
        let input = document("/Deep 4 0 R", &[body]);
        let doc = parse(&input);
        // lopdf gives up on the deep object; the reference to it is read as null.
        assert_eq!(state(&doc).dangling, 1);
        parse(&rewrite(&doc));
    }
}

#[test]
fn long_reference_chains_do_not_overflow_the_stack() {
    const N: usize = 100_000;
    let more: Vec<String> = (0..N)
        .map(|i| {
            let id = 4 + i;
            if i + 1 < N {
                format!("<</Next {} 0 R/I {i}>>", id + 1)
            } else {
                format!("<</I {i}>>")
            }
        })
        .collect();
    let input = document("/Chain 4 0 R", &more);
    let doc = parse(&input);
    assert!(doc.tree.height() > 2 * N, "{}", doc.tree.height());
    // Delete the last link's counter, deep down.
    let last = doc
        .tree
        .nodes()
        .filter(|&n| doc.tree.edge(n) == "I")
        .last()
        .expect("a counter");
    let out = render(&doc, &Edits::new().with(last, Edit::Delete));
    let again = parse(&out);
    assert_eq!(again.tree.len(), doc.tree.len() - 1);
    assert!(Pdf.outline(&again).contains("Chain"));
}

/// The gate keeps what it loaded for a parse of the same bytes (`load::gate`): a parse after
/// the gate, of the same bytes or of others, and one on a thread without a gate, give the same
/// document, and the verdicts and errors are those of loading afresh.
#[test]
fn a_parse_after_the_gate_is_the_parse_without_it() {
    let alone = |bytes: &[u8]| {
        std::thread::scope(|s| {
            s.spawn(|| Pdf.parse(bytes).map(|d| (d.tree.dump(), d.diagnostics)))
                .join()
                .expect("no panic")
        })
    };
    let files = [
        "encrypted-aes256.pdf",
        "sample.pdf",
        "damaged-xref-offsets.pdf",
    ];
    let mut all: Vec<Vec<u8>> = files.iter().map(|f| fixture(f)).collect();
    all.push(fixture("damaged-no-root.pdf"));
    all.push(b"%PDF-1.7 nothing".to_vec());
    for bytes in &all {
        let expected = alone(bytes);
        assert_eq!(Pdf.gate(bytes), expected.is_ok());
        let got = Pdf.parse(bytes).map(|d| (d.tree.dump(), d.diagnostics));
        assert_eq!(got, expected);
        // Taken: the next parse loads again, with the same result.
        let again = Pdf.parse(bytes).map(|d| (d.tree.dump(), d.diagnostics));
        assert_eq!(again, expected);
    }
    // A gate of other bytes is not taken by this parse.
    assert!(Pdf.gate(&all[0]));
    let got = Pdf.parse(&all[1]).map(|d| (d.tree.dump(), d.diagnostics));
    assert_eq!(got, alone(&all[1]));
    let got = Pdf.parse(&all[0]).map(|d| (d.tree.dump(), d.diagnostics));
    assert_eq!(got, alone(&all[0]));
}
