//! PDF with JavaScript and XML nested in it (`whittle_core::Nested` as this crate wires it):
//! round trips, edits inside the nested documents, their gates, hostile streams, the outline
//! and a reduction.

#![allow(
    clippy::disallowed_methods,
    reason = "the tests run `qpdf --check` on what the format writes"
)]

use super::*;
use flate2::Compression;
use flate2::write::ZlibEncoder;
use std::io::Write;
use whittle_core::{Edit, Edits, NodeId};

fn flate(data: &[u8]) -> Vec<u8> {
    let mut z = ZlibEncoder::new(Vec::new(), Compression::default());
    z.write_all(data).expect("compress");
    z.finish().expect("compress")
}

/// A one-page PDF with `extra` in the catalog and the objects `more` from number 4 on, each a
/// dictionary and, for a stream, its data.
pub(crate) fn pdf(extra: &str, more: &[(&str, Option<Vec<u8>>)]) -> Vec<u8> {
    let catalog = format!("<</Type/Catalog/Pages 2 0 R{extra}>>");
    let mut objs: Vec<(&str, Option<Vec<u8>>)> = vec![
        (&catalog, None),
        ("<</Type/Pages/Kids[3 0 R]/Count 1>>", None),
        ("<</Type/Page/Parent 2 0 R/MediaBox[0 0 10 10]>>", None),
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

const SCRIPT: &str = "var x = 1;\napp.alert(x);\n";
const TEMPLATE: &str = "<template><subform name=\"a\"><field/></subform></template>";
/// Not well-formed: a raw `&` (what crashes pdfcop in the bench case).
const DATASETS: &str = "<datasets><d>A & B</d><e/></datasets>";

/// A JavaScript `/OpenAction` whose script is a Flate stream (8), a page-close action with a
/// script string (5), and an XFA form: a template packet (6, Flate) and a datasets packet (7,
/// no filter).
fn sample() -> Vec<u8> {
    pdf(
        "/OpenAction 4 0 R/AA<</WC 5 0 R>>/AcroForm<</Fields[]/XFA[(template) 6 0 R (datasets) 7 0 R]>>",
        &[
            ("<</S/JavaScript/JS 8 0 R>>", None),
            ("<</S/JavaScript/JS(var a = 1; this.print\\(\\);)>>", None),
            ("<</Filter/FlateDecode>>", Some(flate(TEMPLATE.as_bytes()))),
            ("<<>>", Some(DATASETS.as_bytes().to_vec())),
            ("<</Filter/FlateDecode>>", Some(flate(SCRIPT.as_bytes()))),
        ],
    )
}

fn parse(input: &[u8]) -> Document {
    let doc = PDF.parse(input).expect("parses");
    let mut out = Vec::new();
    PDF.render(&doc, &Edits::new(), &mut out);
    assert_eq!(out, input, "an untouched tree renders the input");
    doc
}

fn render(doc: &Document, edits: &Edits) -> Vec<u8> {
    let mut out = Vec::new();
    PDF.render(doc, edits, &mut out);
    out
}

/// The `i`-th node (in document order) with this label whose text is `text`.
fn node(doc: &Document, label: &str, text: &str) -> NodeId {
    let t = &doc.tree;
    (t.nodes())
        .find(|&n| t.label(n) == label && t.text(n) == text.as_bytes())
        .unwrap_or_else(|| panic!("no {label} {text:?} in\n{}", t.dump()))
}

/// The decoded data of stream `id`, and whether it still has a `/Filter`.
fn stream(bytes: &[u8], id: u32) -> (String, bool) {
    let doc = lopdf::Document::load_mem(bytes).expect("loads");
    let s = (doc.get_object((id, 0)))
        .and_then(lopdf::Object::as_stream)
        .expect("a stream");
    let data = s.get_plain_content().expect("decodes");
    (
        String::from_utf8_lossy(&data).into_owned(),
        s.dict.has(b"Filter"),
    )
}

pub(crate) fn qpdf_check(bytes: &[u8]) {
    let dir = tempfile::tempdir().expect("temp dir");
    let p = dir.path().join("candidate.pdf");
    std::fs::write(&p, bytes).expect("write");
    let out = std::process::Command::new("qpdf")
        .arg("--check")
        .arg(&p)
        .output()
        .expect("qpdf runs (apt-get install qpdf)");
    assert!(
        out.status.success(),
        "qpdf --check: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

pub(crate) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[test]
fn pdf_holds_javascript_and_xml_subtrees_and_round_trips_untouched() {
    let input = sample();
    let doc = parse(&input);
    let t = &doc.tree;
    let roots: Vec<(&str, &str, &str)> = (t.nodes())
        .filter(|&n| matches!(t.edge(n), "javascript" | "xml"))
        .map(|n| {
            let p = t.parent(n).expect("held by a leaf");
            (t.label(p), t.edge(n), t.label(n))
        })
        .collect();
    assert_eq!(
        roots,
        [
            ("data", "javascript", "javascript:program"),
            ("string", "javascript", "javascript:program"),
            ("data", "xml", "xml:#document"),
            ("data", "xml", "xml:#document"),
        ],
        "{}",
        t.dump()
    );
    // The datasets packet fails XML's gate (a raw `&`): said, and nested anyway.
    let messages: Vec<&str> = doc.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "XFA packet `datasets` 7 0 obj: fails the xml gate as it is; reduced as xml without the gate (as a whole input that fails it is)",
            "XFA packet `datasets` 7 0 obj, xml: byte 15: not well-formed: ill-formed document: entity or character reference not closed: `;` not found before end of input",
        ]
    );
    // The no-op edit writes the file afresh exactly as the PDF format alone does: every object
    // copied as stored.
    let root = t.root();
    let rewritten = render(&doc, &Edits::new().with(root, Edit::Replace(root)));
    let plain = whittle_pdf::Pdf.parse(&input).expect("parses");
    assert_eq!(rewritten, whittle_pdf::rewrite(&plain));
    for id in 4..=8 {
        let at = find(&input, format!("{id} 0 obj").as_bytes()).expect("object");
        let end = at + find(&input[at..], b"endobj").expect("endobj") + 6;
        assert!(
            find(&rewritten, &input[at..end]).is_some(),
            "{id} 0 obj as stored"
        );
    }
}

#[test]
fn an_edit_inside_a_script_stream_writes_the_scripts_rendering() {
    let doc = parse(&sample());
    let call = node(&doc, "javascript:expression_statement", "app.alert(x);");
    let out = render(&doc, &Edits::new().with(call, Edit::Delete));
    // The statement and its line go (the script's last statement, with the line break that ends
    // the script); the stream is short, so it is written without filter.
    assert_eq!(stream(&out, 8), ("var x = 1;".to_string(), false));
    qpdf_check(&out);
    // The template packet is untouched: copied as stored, still compressed.
    assert_eq!(stream(&out, 6), (TEMPLATE.to_string(), true));
}

#[test]
fn an_edit_inside_a_script_string_writes_a_string() {
    let doc = parse(&sample());
    let decl = node(&doc, "javascript:variable_declaration", "var a = 1;");
    let out = render(&doc, &Edits::new().with(decl, Edit::Delete));
    // The blank between the statements stays before the one that is left; lopdf writes the
    // balanced parentheses without escapes.
    assert!(
        find(&out, b"/JS( this.print();)").is_some(),
        "{}",
        String::from_utf8_lossy(&out)
    );
    qpdf_check(&out);
}

#[test]
fn an_edit_inside_an_xfa_packet_writes_the_xml_rendering() {
    let doc = parse(&sample());
    let field = node(&doc, "xml:field", "<field/>");
    let out = render(&doc, &Edits::new().with(field, Edit::Delete));
    let want = "<template><subform name=\"a\"></subform></template>";
    assert_eq!(stream(&out, 6), (want.to_string(), false));
    qpdf_check(&out);
    // The packet that fails the gate is reduced without it.
    let e = node(&doc, "xml:e", "<e/>");
    let out = render(&doc, &Edits::new().with(e, Edit::Delete));
    let want = "<datasets><d>A & B</d></datasets>";
    assert_eq!(stream(&out, 7), (want.to_string(), false));
    // Both at once, with an outer edit: the page-close action goes.
    let wc = (doc.tree.nodes())
        .find(|&n| doc.tree.edge(n) == "WC")
        .expect("the page-close action");
    let edits = Edits::new()
        .with(field, Edit::Delete)
        .with(e, Edit::Delete)
        .with(wc, Edit::Delete);
    let out = render(&doc, &edits);
    assert_eq!(
        stream(&out, 6).0,
        "<template><subform name=\"a\"></subform></template>"
    );
    assert_eq!(stream(&out, 7).0, "<datasets><d>A & B</d></datasets>");
    assert!(find(&out, b"this.print").is_none());
    qpdf_check(&out);
}

#[test]
fn the_inner_gate_rejects_renderings_its_format_does_not_accept() {
    let doc = parse(&sample());
    // `var  = 1;` is not JavaScript: the candidate is the empty file.
    let name = node(&doc, "javascript:identifier", "x");
    assert_eq!(render(&doc, &Edits::new().with(name, Edit::Delete)), b"");
    // A template packet without its element is not XML.
    let template = node(&doc, "xml:template", TEMPLATE);
    assert_eq!(
        render(&doc, &Edits::new().with(template, Edit::Delete)),
        b""
    );
    // The datasets packet failed the gate as it was: the same edit is a candidate there.
    let datasets = node(&doc, "xml:datasets", DATASETS);
    let out = render(&doc, &Edits::new().with(datasets, Edit::Delete));
    assert_eq!(stream(&out, 7).0, "");
}

#[test]
fn hostile_and_undecodable_streams_stay_opaque_with_a_diagnostic() {
    // A bomb: 17 MiB of blanks behind Flate; data that is not zlib; an image filter.
    let blanks = vec![b' '; 17 << 20];
    let input = pdf(
        "/OpenAction 4 0 R/AA<</WC 5 0 R/WS 6 0 R>>",
        &[
            ("<</S/JavaScript/JS 7 0 R>>", None),
            ("<</S/JavaScript/JS 8 0 R>>", None),
            ("<</S/JavaScript/JS 9 0 R>>", None),
            ("<</Filter/FlateDecode>>", Some(flate(&blanks))),
            ("<</Filter/FlateDecode>>", Some(b"not zlib".to_vec())),
            ("<</Filter/DCTDecode>>", Some(b"\xff\xd8\xff".to_vec())),
        ],
    );
    let doc = parse(&input);
    assert!(
        doc.tree.nodes().all(|n| doc.tree.edge(n) != "javascript"),
        "nothing nested"
    );
    let messages: Vec<&str> = doc.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert!(messages[0].starts_with("/JS stream 7 0 obj: kept whole: decodes to more than"));
    assert!(messages[0].ends_with("(a decompression bomb?)"));
    assert!(messages[1].starts_with("/JS stream 8 0 obj: kept whole: its filters do not decode"));
    assert!(messages[2].starts_with("/JS stream 9 0 obj: kept whole: its filters do not decode"));
    let outline = PDF.outline(&doc);
    assert!(
        outline.contains("/JS stream 7 0 obj  kept whole: decodes to more than"),
        "{outline}"
    );
}

#[test]
fn whittle_tree_shows_the_nested_documents_with_their_objects() {
    let doc = parse(&sample());
    let outline = PDF.outline(&doc);
    for line in [
        "## nested documents (where, format, size; then its own outline)",
        "  /JS stream 8 0 obj  javascript, 25 bytes, 12 nodes\n      program\n",
        "  /JS string of 5 0 obj  javascript, 24 bytes, 11 nodes\n",
        "              object: this \"this\"\n",
        "  XFA packet `template` 6 0 obj  xml, 57 bytes, 5 nodes\n      #document\n",
        "  XFA packet `datasets` 7 0 obj  xml, 37 bytes, 5 nodes, fails its gate\n",
        "            text: #text \"A & B\"\n",
    ] {
        assert!(outline.contains(line), "{line:?} in\n{outline}");
    }
}

#[test]
fn the_shipped_pdf_rules_hold_the_nested_formats_rules_under_their_prefixes() {
    let rules = shipped_rules("pdf").expect("shipped");
    assert_eq!(rules.format, "pdf");
    let plain = Rules::from_json(shipped_rules_json("pdf").expect("shipped")).expect("parses");
    let js = shipped_rules("javascript").expect("shipped");
    let xml = shipped_rules("xml").expect("shipped");
    assert_eq!(
        rules.labels.len(),
        plain.labels.len() + js.labels.len() + xml.labels.len()
    );
    let call = &rules.labels["javascript:call_expression"];
    assert_eq!(
        call.mandatory_edges,
        js.labels["call_expression"].mandatory_edges
    );
    assert!(
        call.contexts
            .contains(&("javascript:expression_statement".into(), "child".into()))
    );
}

#[test]
fn a_reduction_reduces_inside_the_xfa_packet() {
    // Interesting while an XFA packet of the form holds a raw `&`.
    let test = |bytes: &[u8]| {
        let Ok(doc) = lopdf::Document::load_mem(bytes) else {
            return false;
        };
        let deref = |o: &lopdf::Object| match o {
            lopdf::Object::Reference(id) => doc.get_object(*id).ok().cloned(),
            o => Some(o.clone()),
        };
        let xfa = (doc.catalog().ok())
            .and_then(|c| deref(c.get(b"AcroForm").ok()?))
            .and_then(|f| deref(f.as_dict().ok()?.get(b"XFA").ok()?));
        let packets = match xfa {
            Some(lopdf::Object::Array(items)) => items.iter().filter_map(deref).collect(),
            Some(o) => vec![o],
            None => Vec::new(),
        };
        packets.iter().any(|p| {
            p.as_stream().is_ok_and(|s| {
                s.get_plain_content()
                    .is_ok_and(|d| find(&d, b"& ").is_some())
            })
        })
    };
    let input = sample();
    let reduced = Reduction::new(&PDF, &test, &input)
        .algorithm(Algorithm::GtrStar)
        .rules(shipped_rules("pdf"))
        .run()
        .expect("reduces");
    let out = &reduced.best;
    qpdf_check(out);
    // The scripts and the template are gone; the datasets packet is down to its text.
    assert!(find(out, b"JavaScript").is_none());
    assert!(find(out, b"template").is_none());
    let packet = (lopdf::Document::load_mem(out)
        .expect("loads")
        .objects
        .values())
    .filter_map(|o| o.as_stream().ok())
    .map(|s| s.get_plain_content().expect("decodes"))
    .find(|d| find(d, b"&").is_some())
    .expect("the packet");
    assert_eq!(String::from_utf8_lossy(&packet), "A & B");
}

/// ASCII85 (PDF 32000-1, 7.4.3): four bytes as five digits base 85 from `!`, `z` for four zeros,
/// a last partial group as its first n + 1 digits, then `~>`.
fn ascii85(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for chunk in data.chunks(4) {
        let mut group = [0u8; 4];
        group[..chunk.len()].copy_from_slice(chunk);
        let mut v = u32::from_be_bytes(group);
        if chunk.len() == 4 && v == 0 {
            out.push(b'z');
            continue;
        }
        let mut digits = [0u8; 5];
        for d in digits.iter_mut().rev() {
            *d = b'!' + (v % 85) as u8;
            v /= 85;
        }
        out.extend_from_slice(&digits[..chunk.len() + 1]);
    }
    out.extend_from_slice(b"~>");
    out
}

/// RunLength (7.4.5): literal runs of at most 128 bytes (length - 1, then the bytes), then 128.
fn run_length(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for chunk in data.chunks(128) {
        out.push((chunk.len() - 1) as u8);
        out.extend_from_slice(chunk);
    }
    out.push(128);
    out
}

/// PNG predictor `Up` (PDF /Predictor 12) on rows of `columns` bytes: each row is its filter
/// type, 2, and each byte minus the byte above it; the last row is padded with zeros.
fn png_up(data: &[u8], columns: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut above = vec![0u8; columns];
    for chunk in data.chunks(columns) {
        let mut row = chunk.to_vec();
        row.resize(columns, 0);
        out.push(2);
        out.extend(row.iter().zip(&above).map(|(b, a)| b.wrapping_sub(*a)));
        above = row;
    }
    out
}

/// LZW as PDF writes it by default (most significant bit first, the code size growing one code
/// early: `/EarlyChange 1`).
fn lzw(data: &[u8]) -> Vec<u8> {
    weezl::encode::Encoder::with_tiff_size_switch(weezl::BitOrder::Msb, 8)
        .encode(data)
        .expect("lzw encodes")
}

#[test]
fn scripts_behind_every_filter_are_nested_and_an_edit_writes_them_decoded() {
    // The script of an /OpenAction behind each of PDF's general filters, with a predictor and in
    // a chain: the untouched file renders as the input (in `parse`), the nested script is there,
    // and deleting its call writes a stream that decodes to exactly what is left. (The script's
    // 25 bytes are five rows of the predictor's five columns, so no padding joins the script.)
    let script = SCRIPT.as_bytes();
    let hex: Vec<u8> = script
        .iter()
        .flat_map(|b| format!("{b:02X}").into_bytes())
        .chain(*b">")
        .collect();
    assert_eq!(script.len(), 25);
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("/Filter/FlateDecode", flate(script)),
        (
            "/Filter/FlateDecode/DecodeParms<</Predictor 12/Columns 5>>",
            flate(&png_up(script, 5)),
        ),
        ("/Filter/LZWDecode", lzw(script)),
        ("/Filter/ASCII85Decode", ascii85(script)),
        ("/Filter/ASCIIHexDecode", hex.clone()),
        ("/Filter/RunLengthDecode", run_length(script)),
        ("/Filter[/ASCIIHexDecode/FlateDecode]", {
            flate(script)
                .iter()
                .flat_map(|b| format!("{b:02x}").into_bytes())
                .chain(*b">")
                .collect()
        }),
    ];
    for (filter, data) in cases {
        let input = pdf(
            "/OpenAction 4 0 R",
            &[
                ("<</S/JavaScript/JS 5 0 R>>", None),
                (&format!("<<{filter}>>"), Some(data)),
            ],
        );
        let doc = parse(&input);
        let call = node(&doc, "javascript:expression_statement", "app.alert(x);");
        let out = render(&doc, &Edits::new().with(call, Edit::Delete));
        assert_eq!(stream(&out, 5).0, "var x = 1;", "{filter}");
        qpdf_check(&out);
    }
}
