//! The faithful writer: unchanged objects are copied as they were stored; only changed objects and
//! the cross-reference data are written afresh.

use super::*;
use crate::layout::{Layout, Place};

/// The layout of a file, read as the format reads it.
fn layout_of(bytes: &[u8]) -> Layout {
    let doc = lopdf::Document::load_mem(bytes).expect("loads");
    Layout::read(
        bytes,
        &doc.reference_table.entries,
        &doc.objects,
        1 << 20,
        doc.encryption_state.is_some(),
    )
}

/// The stored bytes of every object of `bytes` at the top level (object streams included, as
/// the container), by object id.
fn stored(bytes: &[u8]) -> BTreeMap<lopdf::ObjectId, Vec<u8>> {
    layout_of(bytes)
        .places
        .into_iter()
        .filter_map(|(id, p)| match p {
            Place::Plain { span, .. } => Some((id, bytes[span].to_vec())),
            Place::Member { .. } => None,
        })
        .collect()
}

use std::collections::BTreeMap;

#[test]
fn an_untouched_rewrite_differs_from_the_input_only_in_cross_reference_data() {
    for name in [
        "sample.pdf",
        "xref-stream.pdf",
        "object-streams.pdf",
        "incremental.pdf",
        "hostile-cycles.pdf",
        "encrypted-rc4.pdf",
        "encrypted-aes128.pdf",
        "encrypted-aes256.pdf",
    ] {
        let input = fixture(name);
        let doc = parse(&input);
        let out = rewrite(&doc);
        let before = stored(&input);
        let after = stored(&out);
        let st = state(&doc);
        // Every object the document holds (and the containers and /Encrypt) is in the rewrite
        // with the same bytes.
        let mut copied = 0;
        let written = lopdf::Document::load_mem(&out).expect("loads");
        let is_xref = |id| {
            written
                .objects
                .get(id)
                .and_then(|o: &lopdf::Object| o.as_stream().ok())
                .is_some_and(|s| s.dict.has_type(b"XRef"))
        };
        for (id, bytes) in &after {
            if is_xref(id) {
                // The cross-reference stream is written afresh.
                continue;
            }
            if let Some(old) = before.get(id) {
                assert_eq!(
                    String::from_utf8_lossy(old),
                    String::from_utf8_lossy(bytes),
                    "{name}: object {id:?}"
                );
                copied += 1;
            } else {
                panic!("{name}: {id:?} is not in the input");
            }
        }
        for id in &st.owned {
            let in_after = after.contains_key(id)
                || matches!(st.layout.places.get(id), Some(Place::Member { container, .. }) if after.contains_key(&(*container, 0)));
            assert!(in_after, "{name}: {id:?} is copied");
        }
        assert!(copied >= st.owned.len().min(3), "{name}: {copied} copied");
        // What is left besides the objects: the header, the cross-reference data, the trailer.
        let mut rest = out.clone();
        for (_, bytes) in after.iter().filter(|(id, _)| !is_xref(id)) {
            let at = rest
                .windows(bytes.len())
                .position(|w| w == bytes.as_slice())
                .expect("present");
            rest.drain(at..at + bytes.len());
        }
        let rest = String::from_utf8_lossy(&rest);
        assert!(rest.starts_with("%PDF-1."), "{name}: {rest}");
        assert!(rest.contains("startxref"), "{name}: {rest}");
        assert!(
            rest.matches(" obj").count() <= usize::from(rest.contains("/XRef")),
            "{name}: {rest}"
        );
    }
}

/// A document whose objects use syntax lopdf would write differently: spacing, a hex string, a
/// name with `#` escapes, number forms, comments, key order.
fn odd() -> Vec<u8> {
    document_with(&[
        "<< /Type /Catalog /Pages 2 0 R /OpenAction 4 0 R /Z 5 0 R >>",
        "<</Type/Pages/Kids[3 0 R]/Count 1>>",
        "<</Type/Page/Parent 2 0 R/MediaBox[0 0 +612.0 792.]>>",
        "<< /S /JavaScript % a comment\n  /JS <6170702e616c657274283129> /N /A#42 >>",
        "[ (a\\(b) 007 -.5 ]",
    ])
}

/// A classic PDF whose object `i + 1` is `objects[i]`, with a comment after the header line.
fn document_with(objects: &[&str]) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n% made by hand\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{o}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for o in offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<</Size {}/Root 1 0 R>>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

#[test]
fn unchanged_objects_keep_their_syntax_and_changed_ones_are_written_afresh() {
    let input = odd();
    let doc = parse(&input);
    let t = &doc.tree;
    // Deleting /Z changes the catalog only.
    let out = render(&doc, &Edits::new().with(at(t, "Root/Z"), Edit::Delete));
    qpdf_check(&out).unwrap_or_else(|e| panic!("{e}"));
    let text = String::from_utf8_lossy(&out);
    // The header line stays; the comment after it is no binary mark and goes. The objects
    // follow in the order of their numbers, the fresh catalog first.
    assert!(text.starts_with("%PDF-1.4\n1 0 obj\n"), "{text}");
    assert!(!text.contains("made by hand"), "{text}");
    for unchanged in [
        "2 0 obj\n<</Type/Pages/Kids[3 0 R]/Count 1>>\nendobj",
        "3 0 obj\n<</Type/Page/Parent 2 0 R/MediaBox[0 0 +612.0 792.]>>\nendobj",
        "4 0 obj\n<< /S /JavaScript % a comment\n  /JS <6170702e616c657274283129> /N /A#42 >>\nendobj",
    ] {
        assert!(text.contains(unchanged), "{unchanged:?} in {text}");
    }
    // The catalog is written afresh (lopdf's syntax), and object 5 is gone with /Z.
    assert!(
        text.contains("1 0 obj\n<</Type/Catalog/Pages 2 0 R/OpenAction 4 0 R>>\nendobj"),
        "{text}"
    );
    assert!(!text.contains("5 0 obj"), "{text}");
    // A classic table with a subsection per run of numbers, and a trailer with /Size and /Root.
    assert!(text.contains("xref\n0 5\n0000000000 65535 f \n"), "{text}");
    assert!(
        text.contains("trailer\n<</Size 5/Root 1 0 R>>\nstartxref\n"),
        "{text}"
    );
}

#[test]
fn a_changed_object_stream_keeps_the_stored_bytes_of_its_unchanged_objects() {
    let input = fixture("object-streams.pdf");
    let doc = parse(&input);
    let st = state(&doc);
    let t = &doc.tree;
    // qpdf put the catalog in an object stream with most other objects; deleting /Outlines changes
    // the catalog only.
    let out = render(
        &doc,
        &Edits::new().with(at(t, "Root/Outlines"), Edit::Delete),
    );
    qpdf_check(&out).unwrap_or_else(|e| panic!("{e}"));
    let written = layout_of(&out);
    let mut kept = 0;
    for id in &st.owned {
        let (Some(before), Some(after)) = (st.layout.member_bytes(*id), written.member_bytes(*id))
        else {
            continue;
        };
        let obj = &st.originals[id];
        let is_catalog = obj.as_dict().is_ok_and(|d| d.has_type(b"Catalog"));
        if is_catalog {
            assert_ne!(before, after, "the catalog is written afresh");
            assert!(!String::from_utf8_lossy(after).contains("/Outlines"));
        } else {
            assert_eq!(
                String::from_utf8_lossy(before),
                String::from_utf8_lossy(after),
                "{id:?}"
            );
            kept += 1;
        }
    }
    assert!(kept >= 5, "{kept} objects kept their stored bytes");
    // The span reader and the object stream reader agree on qpdf's layout: `N 0 obj` is absent.
    assert!(st.layout.member_spans.len() >= 10);
}

#[test]
fn objects_are_written_in_the_order_of_their_numbers_copied_or_fresh() {
    // Found by the fuzzer (fuzz/regressions/pdf/second-rewrite-changes-bytes): an object whose
    // stored span does not read (here: `enDobj`, which lopdf does not need) is written afresh.
    // Written after the copied ones, it came back in another place when the rewrite was
    // rewritten (then it is copied): the same document, other bytes.
    let input = String::from_utf8(odd())
        .expect("ASCII")
        .replacen("endobj", "enDobj", 2)
        .replacen("enDobj", "endobj", 1);
    let doc = parse(input.as_bytes());
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
    let once = rewrite(&doc);
    let text = String::from_utf8_lossy(&once);
    let at = |n: &str| text.find(n).unwrap_or_else(|| panic!("{n} in {text}"));
    assert!(
        at("1 0 obj") < at("2 0 obj") && at("2 0 obj") < at("3 0 obj"),
        "{text}"
    );
    // Object 2 is written afresh (lopdf's syntax), the others copied.
    assert!(
        text.contains("2 0 obj\n<</Type/Pages/Kids[3 0 R]/Count 1>>\nendobj"),
        "{text}"
    );
    assert!(text.contains("/MediaBox[0 0 +612.0 792.]"), "{text}");
    let again = parse(&once);
    assert!(tree_diff(&doc.tree, &again.tree).is_none());
    assert!(
        rewrite(&again) == once,
        "the rewrite of the rewrite is the same bytes"
    );
}

/// The `pdf` fuzzer's `fuzz/regressions/pdf/objstm-member-cut-short`: `object-streams.pdf` with
/// one byte of its object stream's Flate data changed, which garbles the stream's offsets so
/// that object 14 starts, they say, inside object 13 (the URI action). lopdf reads 13 whole from
/// its start; the rewrite copied 13's bytes only up to 14's start, a dictionary that does not
/// read, so the rewritten document referenced a missing object and its rewrite lost the
/// reference: rewriting the rewrite changed the tree.
#[test]
fn an_object_stream_member_cut_short_by_the_next_offset_is_written_afresh() {
    let doc = parse(&regression("objstm-member-cut-short"));
    let once = rewrite(&doc);
    let again = parse(&once);
    let t = &again.tree;
    assert!(
        t.nodes()
            .any(|n| t.text(n) == b"(http://example.invalid/x)".as_slice()),
        "the URI action is in the rewritten document:\n{}",
        t.dump()
    );
    assert_eq!(rewrite(&again), once, "the rewrite is a fixpoint");
}

/// The `pdf` fuzzer's `fuzz/regressions/pdf/rebuilt-xref-other-copy`: a damaged
/// `object-streams.pdf` with a second, unreadable object 11 (`<</Type/ R>>`) outside its object
/// stream. lopdf rebuilt the cross-reference data, which points at that copy, but kept the
/// AcroForm dictionary of the object stream as object 11; the rewrite copied the bytes the
/// cross-reference data points at, so the rewritten document lost the AcroForm.
#[test]
fn an_object_whose_stored_bytes_are_another_copy_is_written_afresh() {
    let doc = parse(&regression("rebuilt-xref-other-copy"));
    assert!(
        has_path(&doc.tree, "Root/AcroForm/DR"),
        "{}",
        doc.tree.dump()
    );
    let once = rewrite(&doc);
    let again = parse(&once);
    assert!(
        has_path(&again.tree, "Root/AcroForm/DR"),
        "{}",
        again.tree.dump()
    );
    assert_eq!(rewrite(&again), once, "the rewrite is a fixpoint");
}

/// The `pdf-nested` fuzzer's `fuzz/regressions/pdf/stream-copy-does-not-reread`: a damaged PDF
/// whose cross-reference data lopdf rebuilt, with streams whose stored bytes (a `/Length` that
/// does not fit, a broken filter name, an offset inside another object) are not the streams lopdf
/// loaded. The rewrite copied those bytes, and the document it wrote then read differently
/// again: rewriting the rewritten document changed its tree.
#[test]
fn a_stream_whose_stored_bytes_are_not_the_loaded_stream_is_written_afresh() {
    let once = rewrite(&parse(&regression("stream-copy-does-not-reread")));
    let again = parse(&once);
    let twice = rewrite(&again);
    assert_eq!(parse(&twice).tree.dump(), again.tree.dump());
    assert_eq!(twice, once, "the rewrite is a fixpoint");
}

/// The document of the `pdf` fuzzer's regression file `name` (past its 4 control bytes).
fn regression(name: &str) -> Vec<u8> {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/regressions/pdf")
        .join(name);
    let data = std::fs::read(file).expect("the regression file");
    data[4..].to_vec()
}
