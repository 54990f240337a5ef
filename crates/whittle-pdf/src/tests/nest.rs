//! The leaves that hold other formats' documents (`Format::embedded`) and how an edited content
//! is written back (`Format::render_embedded`). The nesting itself, with the JavaScript and XML
//! formats, is tested in the `whittle` crate.

use super::{parse, qpdf_check, render};
use crate::Pdf;
use flate2::Compression;
use flate2::write::ZlibEncoder;
use std::io::Write;
use whittle_core::{Edits, Embedded, Format, NodeId};

fn flate(data: &[u8]) -> Vec<u8> {
    let mut z = ZlibEncoder::new(Vec::new(), Compression::default());
    z.write_all(data).expect("compress");
    z.finish().expect("compress")
}

/// A one-page document with `extra` in the catalog and the objects `more` from number 4 on;
/// each is `(dictionary, stream data)`, a stream when it has data.
pub(super) fn document_with(extra: &str, more: &[(String, Option<Vec<u8>>)]) -> Vec<u8> {
    let mut objs: Vec<(String, Option<Vec<u8>>)> = vec![
        (format!("<</Type/Catalog/Pages 2 0 R{extra}>>"), None),
        ("<</Type/Pages/Kids[3 0 R]/Count 1>>".into(), None),
        (
            "<</Type/Page/Parent 2 0 R/MediaBox[0 0 10 10]>>".into(),
            None,
        ),
    ];
    objs.extend(more.iter().cloned());
    let mut s = b"%PDF-1.7\n".to_vec();
    let mut offsets = Vec::new();
    for (i, (dict, data)) in objs.iter().enumerate() {
        offsets.push(s.len());
        s.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        match data {
            Some(d) => {
                let dict = dict.replacen("<<", &format!("<</Length {}", d.len()), 1);
                s.extend_from_slice(dict.as_bytes());
                s.extend_from_slice(b"\nstream\n");
                s.extend_from_slice(d);
                s.extend_from_slice(b"\nendstream");
            }
            None => s.extend_from_slice(dict.as_bytes()),
        }
        s.extend_from_slice(b"\nendobj\n");
    }
    let xref = s.len();
    let n = objs.len() + 1;
    s.extend_from_slice(format!("xref\n0 {n}\n0000000000 65535 f \n").as_bytes());
    for o in offsets {
        s.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    s.extend_from_slice(
        format!("trailer\n<</Size {n}/Root 1 0 R>>\nstartxref\n{xref}\n%%EOF\n").as_bytes(),
    );
    s
}

pub(super) const SCRIPT: &str = "var x = 1;\napp.alert(x);\n";
pub(super) const TEMPLATE: &str = "<template><subform name=\"a\"><field/></subform></template>";
pub(super) const DATASETS: &str = "<datasets><d>A & B</d><e/></datasets>";

/// A document with a JavaScript `/OpenAction` whose script is a Flate stream (9), a page-close
/// action with a script string (5), an XFA form of two packets (6: Flate, 7: ASCIIHex) and XMP
/// metadata without filter (8).
pub(super) fn sample() -> Vec<u8> {
    document_with(
        "/OpenAction 4 0 R/AA<</WC 5 0 R>>/AcroForm<</Fields[]/XFA[(template) 6 0 R (datasets) 7 0 R]>>/Metadata 8 0 R",
        &[
            ("<</S/JavaScript/JS 9 0 R>>".into(), None),
            ("<</S/JavaScript/JS(this.print\\(\\);)>>".into(), None),
            (
                "<</Filter/FlateDecode>>".into(),
                Some(flate(TEMPLATE.as_bytes())),
            ),
            (
                "<</Filter[/ASCIIHexDecode]>>".into(),
                Some(hex(DATASETS.as_bytes())),
            ),
            (
                "<</Type/Metadata/Subtype/XML>>".into(),
                Some(XMP.as_bytes().to_vec()),
            ),
            (
                "<</Filter/FlateDecode>>".into(),
                Some(flate(SCRIPT.as_bytes())),
            ),
        ],
    )
}

pub(super) const XMP: &str = "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>";

fn hex(data: &[u8]) -> Vec<u8> {
    let mut out: Vec<u8> = data
        .iter()
        .flat_map(|b| format!("{b:02X}").into_bytes())
        .collect();
    out.push(b'>');
    out
}

/// The embedded leaves as (format, what, content or error).
fn listed(held: &[Embedded]) -> Vec<(&str, &str, Result<String, String>)> {
    held.iter()
        .map(|e| {
            let content = (e.content.clone()).map(|c| String::from_utf8_lossy(&c).into_owned());
            (e.format, e.what.as_str(), content)
        })
        .collect()
}

#[test]
fn scripts_xfa_packets_and_xml_metadata_are_listed_decoded() {
    let input = sample();
    let doc = parse(&input);
    let held = Pdf.embedded(&doc);
    let ok = |s: &str| Ok(s.to_string());
    let mut got = listed(&held);
    got.sort();
    let mut want = vec![
        ("javascript", "/JS stream 9 0 obj", ok(SCRIPT)),
        ("javascript", "/JS string of 5 0 obj", ok("this.print();")),
        ("xml", "XFA packet `template` 6 0 obj", ok(TEMPLATE)),
        ("xml", "XFA packet `datasets` 7 0 obj", ok(DATASETS)),
        ("xml", "XML stream 8 0 obj", ok(XMP)),
    ];
    want.sort();
    assert_eq!(got, want);
}

#[test]
fn a_js_stream_and_string_are_found_wherever_the_reference_is() {
    let input = document_with(
        "/OpenAction 4 0 R/Names<</JavaScript<</Names[(a) 5 0 R]>>>>",
        &[
            ("<</S/JavaScript/JS 6 0 R/Next 5 0 R>>".into(), None),
            ("<</S/JavaScript/JS 7 0 R>>".into(), None),
            (
                "<</Filter/FlateDecode>>".into(),
                Some(flate(SCRIPT.as_bytes())),
            ),
            ("(app.alert\\(1\\))".into(), None),
        ],
    );
    let doc = parse(&input);
    let held = Pdf.embedded(&doc);
    let mut got = listed(&held);
    got.sort();
    assert_eq!(
        got,
        [
            ("javascript", "/JS stream 6 0 obj", Ok(SCRIPT.to_string())),
            (
                "javascript",
                "/JS string of 7 0 obj",
                Ok("app.alert(1)".to_string())
            ),
        ]
    );
}

/// An object no reference reaches, `len` bytes of stream data: it makes a test file as large as
/// one whose budget (`nest::budget`, a multiple of the file's size) is the fixed maximum.
fn padding(len: usize) -> (String, Option<Vec<u8>>) {
    ("<<>>".into(), Some(vec![b'%'; len]))
}

#[test]
fn bombs_and_undecodable_streams_are_listed_without_content() {
    use crate::nest::{MAX_NESTED_DECODE, NESTED_FACTOR};
    let zeros = vec![0u8; MAX_NESTED_DECODE + 1];
    let input = document_with(
        "/OpenAction 4 0 R/AA<</WC 5 0 R/WS 6 0 R>>",
        &[
            ("<</S/JavaScript/JS 7 0 R>>".into(), None),
            ("<</S/JavaScript/JS 8 0 R>>".into(), None),
            ("<</S/JavaScript/JS 9 0 R>>".into(), None),
            ("<</Filter/FlateDecode>>".into(), Some(flate(&zeros))),
            ("<</Filter/FlateDecode>>".into(), Some(b"not zlib".to_vec())),
            ("<</Filter/DCTDecode>>".into(), Some(b"\xff\xd8".to_vec())),
            // Large enough that the bound of one stream, not the file's size, is over.
            padding(MAX_NESTED_DECODE / NESTED_FACTOR),
        ],
    );
    let doc = parse(&input);
    let held = Pdf.embedded(&doc);
    let got = listed(&held);
    assert_eq!(got.len(), 3);
    let err = |i: usize| got[i].2.clone().expect_err("no content");
    assert_eq!(
        err(0),
        "decodes to more than 16384 KiB, the most for one nested stream (a decompression bomb?)"
    );
    assert!(err(1).contains("do not decode"), "{}", err(1));
    assert!(err(2).contains("do not decode"), "{}", err(2));
}

/// The fuzzer's hangs (`fuzz/regressions/pdf-nested/nested-bomb-*`): a small file whose script
/// stream inflates to far more than the file was decoded up to 16 MiB, several times per
/// candidate, seconds each time. Now a stream decodes to at most 64 times the file's size.
#[test]
fn a_small_file_decodes_no_more_than_a_multiple_of_its_size() {
    use crate::nest::{NESTED_FACTOR, NESTED_FLOOR, budget};
    assert_eq!(budget(1000), NESTED_FLOOR);
    assert_eq!(budget(1 << 20), NESTED_FACTOR << 20);
    assert_eq!(budget(usize::MAX), crate::nest::NESTED_BUDGET);
    // Blanks: a valid script, 2 MiB of it, in a file of a few KiB.
    let blanks = vec![b' '; 2 << 20];
    let z = flate(&blanks);
    let input = document_with(
        "/OpenAction 4 0 R",
        &[
            ("<</S/JavaScript/JS 5 0 R>>".into(), None),
            ("<</Filter/FlateDecode>>".into(), Some(z)),
        ],
    );
    assert!(
        input.len() * NESTED_FACTOR < NESTED_FLOOR,
        "{}",
        input.len()
    );
    let doc = parse(&input);
    let held = Pdf.embedded(&doc);
    let got = listed(&held);
    assert_eq!(
        got[0].2.as_ref().map(String::len),
        Err(
            &"decodes to more than 256 KiB, the most left for nested streams, of 256 KiB for \
             this file (64 times its size, at least 256 KiB, at most 64 MiB) (a decompression \
             bomb?)"
                .to_string()
        )
    );
    // Within the budget it is nested; a larger file has a larger budget.
    for (script, pad) in [(NESTED_FLOOR, 0), (2 << 20, (2 << 20) / NESTED_FACTOR)] {
        let input = document_with(
            "/OpenAction 4 0 R",
            &[
                ("<</S/JavaScript/JS 5 0 R>>".into(), None),
                (
                    "<</Filter/FlateDecode>>".into(),
                    Some(flate(&blanks[..script])),
                ),
                padding(pad),
            ],
        );
        let doc = parse(&input);
        let held = Pdf.embedded(&doc);
        let got = listed(&held);
        assert!(got[0].2.as_ref().is_ok_and(|c| c.len() == script), "{pad}");
    }
}

#[test]
fn the_budget_is_shared_by_all_nested_streams() {
    use crate::nest::{MAX_NESTED_DECODE, NESTED_BUDGET, NESTED_FACTOR};
    let chunk = vec![b' '; MAX_NESTED_DECODE - 1];
    let n = NESTED_BUDGET / chunk.len() + 1;
    let refs: String = (0..n).map(|i| format!("{} 0 R ", 4 + n + i)).collect();
    let mut more: Vec<(String, Option<Vec<u8>>)> = (0..n)
        .map(|i| (format!("<</S/JavaScript/JS {} 0 R>>", 4 + 2 * n + i), None))
        .collect();
    more.extend((0..n).map(|i| (format!("<</S/JavaScript/JS {} 0 R>>", 4 + 2 * n + i), None)));
    let z = flate(&chunk);
    more.extend((0..n).map(|_| ("<</Filter/FlateDecode>>".to_string(), Some(z.clone()))));
    // Large enough that the fixed budget, not the file's size, is over.
    more.push(padding(NESTED_BUDGET / NESTED_FACTOR));
    let input = document_with(&format!("/Acts[{refs}]"), &more);
    let doc = parse(&input);
    let held = Pdf.embedded(&doc);
    let got = listed(&held);
    assert_eq!(got.len(), n);
    let decoded = got.iter().filter(|g| g.2.is_ok()).count();
    assert_eq!(decoded, n - 1, "the last stream is over what is left");
    assert!(
        got[n - 1]
            .2
            .as_ref()
            .is_err_and(|e| e.contains("the most left for nested streams")
                && e.contains("of 65536 KiB for this file")),
        "{:?}",
        got[n - 1].2
    );
}

/// The leaf of the embedded document `what`.
fn leaf(held: &[Embedded], what: &str) -> NodeId {
    held.iter().find(|e| e.what == what).expect("listed").leaf
}

/// The decoded data of stream `id` in a rendered file, and its `/Filter`.
fn stream(bytes: &[u8], id: u32) -> (Vec<u8>, Option<Vec<u8>>) {
    let doc = lopdf::Document::load_mem(bytes).expect("loads");
    let s = doc
        .get_object((id, 0))
        .and_then(lopdf::Object::as_stream)
        .expect("a stream");
    let filter = s.dict.get(b"Filter").ok().map(|f| {
        let mut out = Vec::new();
        let _ = lopdf::Writer::write_object(&mut out, f);
        out
    });
    (s.get_plain_content().expect("decodes"), filter)
}

#[test]
fn an_edited_content_is_written_plain_or_flate_and_the_rest_as_stored() {
    let input = sample();
    let doc = parse(&input);
    let held = Pdf.embedded(&doc);
    let short = b"<template/>".to_vec();
    let long = format!("<template>{}</template>", "<field/>".repeat(200)).into_bytes();
    for (content, filter) in [(short, None), (long, Some(b"/FlateDecode".to_vec()))] {
        let contents = vec![(
            leaf(&held, "XFA packet `template` 6 0 obj"),
            content.clone(),
        )];
        let mut out = Vec::new();
        Pdf.render_embedded(&doc, &Edits::new(), &contents, &mut out);
        assert_eq!(stream(&out, 6), (content.clone(), filter));
        qpdf_check(&out).expect("qpdf --check");
        // The other packet, with its ASCIIHex filter, is copied as it was stored.
        let stored = &input[find(&input, b"7 0 obj")..find(&input, b"8 0 obj")];
        assert!(find(&out, stored) > 0, "7 0 obj as stored");
    }
    // A script string.
    let contents = vec![(leaf(&held, "/JS string of 5 0 obj"), b"print()".to_vec())];
    let mut out = Vec::new();
    Pdf.render_embedded(&doc, &Edits::new(), &contents, &mut out);
    assert!(
        find(&out, b"/JS(print())") > 0,
        "{}",
        String::from_utf8_lossy(&out)
    );
    // No content and no edit: the input itself.
    let mut out = Vec::new();
    Pdf.render_embedded(&doc, &Edits::new(), &[], &mut out);
    assert_eq!(out, input);
    assert_eq!(render(&doc, &Edits::new()), input);
}

fn find(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len())
        .position(|w| w == needle)
        .unwrap_or_else(|| panic!("{} not found", String::from_utf8_lossy(needle)))
}
