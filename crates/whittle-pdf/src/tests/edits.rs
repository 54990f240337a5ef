#![allow(
    clippy::disallowed_methods,
    reason = "the tests run `qpdf --check` on what the format writes"
)]

//! Edits, the outline and reduction through the engine.

use super::*;

// ----- Edits ---------------------------------------------------------------------------------

#[test]
fn deleting_a_reference_deletes_what_only_it_reached() {
    let doc = parse(&fixture("sample.pdf"));
    let out = render(
        &doc,
        &Edits::new().with(at(&doc.tree, "Root/OpenAction"), Edit::Delete),
    );
    qpdf_check(&out).unwrap();
    let again = parse(&out);
    assert!(!has_path(&again.tree, "Root/OpenAction"));
    // The action (5) and the URI action it chained to (14) are gone.
    assert_eq!(objects(&again), 18);
    assert!(!Pdf.outline(&again).contains("example.invalid"));
}

#[test]
fn references_to_a_deleted_object_become_null() {
    let doc = parse(&fixture("sample.pdf"));
    let t = &doc.tree;
    // Delete the font itself (below the form's reference, which owns it); the page's reference
    // to it becomes null, and a dictionary entry that is null is dropped.
    let font = value_at(t, "Root/AcroForm/DR/Font/Helv");
    let out = render(&doc, &Edits::new().with(font, Edit::Delete));
    qpdf_check(&out).unwrap();
    let again = parse(&out);
    let t = &again.tree;
    assert!(t.children(value_at(t, "Root/AcroForm/DR/Font")).is_empty());
    assert!(
        t.children(value_at(t, "Root/Pages/Kids/0/Resources/Font"))
            .is_empty()
    );
    assert_eq!(objects(&again), 19);
}

#[test]
fn inlining_a_reference_writes_the_object_in_its_place() {
    let doc = parse(&fixture("sample.pdf"));
    let t = &doc.tree;
    let inline = &Pdf.templates()[2];
    assert_eq!(inline.name(), "inline-reference");
    let mut cands = Vec::new();
    let open = at(t, "Root/OpenAction");
    inline.candidates(&doc, open, None, &mut cands);
    assert_eq!(cands, [Edit::Replace(value_at(t, "Root/OpenAction"))]);
    // Not proposed: the trailer's entries, streams, page tree kids, leaf references.
    for path in [
        "Root",
        "Info",
        "Root/Pages",
        "Root/Pages/Kids/0",
        "Root/Pages/Kids/0/Contents",
        "Root/Pages/Kids/0/Parent",
    ] {
        cands.clear();
        inline.candidates(&doc, at(t, path), None, &mut cands);
        assert!(cands.is_empty(), "{path}: {cands:?}");
    }
    let out = render(
        &doc,
        &Edits::new().with(open, Edit::Replace(value_at(t, "Root/OpenAction"))),
    );
    qpdf_check(&out).unwrap();
    let again = parse(&out);
    let t = &again.tree;
    let action = at(t, "Root/OpenAction");
    assert_eq!(t.label(action), "JavaScript", "a direct dictionary now");
    assert_eq!(t.label(value_at(t, "Root/OpenAction/Next")), "URI");
    assert_eq!(objects(&again), 19);
}

#[test]
fn inlining_a_long_chain_keeps_the_nesting_loadable() {
    let more: Vec<String> = (0..200)
        .map(|i| format!("<</Next {} 0 R/I {i}>>", 5 + i))
        .chain(std::iter::once("<</End true>>".to_string()))
        .collect();
    let doc = parse(&document("/Chain 4 0 R", &more));
    let t = &doc.tree;
    // Inline every link of the chain at once.
    let edits: Edits = t
        .nodes()
        .filter(|&n| matches!(t.edge(n), "Chain" | "Next"))
        .map(|n| (n, Edit::Replace(t.children(n)[0])))
        .collect();
    let out = render(&doc, &edits);
    let again = parse(&out);
    // Nothing was lost: past 64 levels of direct nesting the links stay indirect.
    assert!(again.tree.nodes().any(|n| again.tree.edge(n) == "End"));
    // Every link lost its reference node, except the three that stayed indirect (at direct
    // depths 64, 128 and 192).
    assert_eq!(objects(&again), 3 + 3);
    assert_eq!(again.tree.len(), doc.tree.len() - 201 + 3);
}

#[test]
fn candidates_without_a_page_tree_or_a_catalog_render_as_the_empty_file() {
    let doc = parse(&fixture("sample.pdf"));
    let t = &doc.tree;
    for path in [
        "Root",
        "Root/Pages",
        "Root/Pages/Kids/0/Type",
        "Root/Pages/Type",
        "Root/Pages/Kids",
    ] {
        let out = render(&doc, &Edits::new().with(at(t, path), Edit::Delete));
        assert!(out.is_empty(), "deleting {path}");
    }
    assert!(render(&doc, &Edits::new().with(t.root(), Edit::Delete)).is_empty());
    // The catalog must stay an indirect object.
    let root = at(t, "Root");
    let out = render(
        &doc,
        &Edits::new().with(root, Edit::Replace(t.children(root)[0])),
    );
    assert!(out.is_empty());
    assert!(!Pdf.gate(b""));
    assert!(!Pdf.gate(b"%PDF-1.4\nnothing"));
}

#[test]
fn the_smallest_form_is_reachable_a_catalog_with_a_script_and_an_empty_page_tree() {
    let doc = parse(&fixture("sample.pdf"));
    let t = &doc.tree;
    let mut edits = Edits::new();
    for path in [
        "Info",
        "ID",
        "Root/Names",
        "Root/AcroForm",
        "Root/Outlines",
        "Root/OpenAction/Type",
        "Root/OpenAction/Next",
        "Root/Pages/Kids/0",
        "Root/Pages/Count",
    ] {
        edits = edits.with(at(t, path), Edit::Delete);
    }
    let action = at(t, "Root/OpenAction");
    edits = edits.with(action, Edit::Replace(t.children(action)[0]));
    let out = render(&doc, &edits);
    qpdf_check(&out).unwrap_or_else(|e| panic!("{e}"));
    // Written out by hand: the header as in the input, the catalog with the inlined action, the
    // page tree root, a classic table (object 0 and the run 1–2) and a trailer of /Size and /Root.
    let objects = "1 0 obj\n<</Type/Catalog/Pages 2 0 R/OpenAction<</S/JavaScript/JS(app.alert('opened');)>>>>\nendobj\n\
                   2 0 obj\n<</Type/Pages/Kids[]>>\nendobj\n";
    let header = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n";
    let mut expected = header.to_vec();
    expected.extend_from_slice(objects.as_bytes());
    let xref = expected.len();
    let second = header.len() + objects.find("2 0 obj").expect("object 2");
    expected.extend_from_slice(
        format!(
            "xref\n0 3\n0000000000 65535 f \n{:010} 00000 n \n{second:010} 00000 n \n\
             trailer\n<</Size 3/Root 1 0 R>>\nstartxref\n{xref}\n%%EOF\n",
            header.len()
        )
        .as_bytes(),
    );
    assert_eq!(
        String::from_utf8_lossy(&out),
        String::from_utf8_lossy(&expected)
    );
    assert_eq!(out.len(), 271, "about 250 bytes");
}

#[test]
fn deleting_stream_data_leaves_an_empty_unfiltered_stream() {
    let doc = parse(&fixture("sample.pdf"));
    let t = &doc.tree;
    let data = at(t, "Root/Pages/Kids/0/Contents/data");
    let out = render(&doc, &Edits::new().with(data, Edit::Delete));
    qpdf_check(&out).unwrap();
    let again = parse(&out);
    let t = &again.tree;
    let contents = value_at(t, "Root/Pages/Kids/0/Contents");
    let edges: Vec<&str> = t.children(contents).iter().map(|&k| t.edge(k)).collect();
    assert_eq!(edges, ["data"]);
    assert_eq!(t.text(t.children(contents)[0]), b"(0 bytes)");
}

#[test]
fn substitution_replaces_a_value_by_a_child_that_can_stand_there() {
    let doc = parse(&fixture("sample.pdf"));
    let t = &doc.tree;
    let subst = &Pdf.templates()[3];
    assert_eq!(subst.name(), "substitute-by-child");
    let mut cands = Vec::new();
    // The launch action may become its /Win dictionary (or any other child).
    let launch = at(t, "Root/Pages/Kids/0/Annots/0/A");
    subst.candidates(&doc, launch, None, &mut cands);
    assert_eq!(cands.len(), t.children(launch).len());
    let win = at(t, "Root/Pages/Kids/0/Annots/0/A/Win");
    assert!(cands.contains(&Edit::Replace(win)));
    let out = render(&doc, &Edits::new().with(launch, Edit::Replace(win)));
    qpdf_check(&out).unwrap();
    let again = parse(&out);
    assert_eq!(
        again
            .tree
            .label(at(&again.tree, "Root/Pages/Kids/0/Annots/0/A/F")),
        "string"
    );
    // Never the root, a reference, a stream or its data.
    for n in [
        t.root(),
        at(t, "Root"),
        value_at(t, "Root/Pages/Kids/0/Contents"),
        at(t, "Root/Pages/Kids/0/Contents/data"),
    ] {
        cands.clear();
        subst.candidates(&doc, n, None, &mut cands);
        assert!(cands.is_empty(), "{}", t.label(n));
    }
    // A dictionary that holds a stream's reference may be replaced by it (the reference).
    let aa = value_at(t, "Root/Pages/Kids/0/AA/O");
    cands.clear();
    subst.candidates(&doc, aa, None, &mut cands);
    assert_eq!(cands.len(), 2);
}

#[test]
fn drop_unreachable_rewrites_the_file_at_the_root_only() {
    let input = fixture("incremental.pdf");
    let doc = parse(&input);
    let templates = Pdf.templates();
    let names: Vec<&str> = templates.iter().map(|t| t.name()).collect();
    assert_eq!(
        names,
        [
            "drop-unreachable",
            "delete",
            "inline-reference",
            "substitute-by-child"
        ]
    );
    let mut cands = Vec::new();
    templates[0].candidates(&doc, doc.tree.root(), None, &mut cands);
    assert_eq!(cands, [Edit::Replace(doc.tree.root())]);
    let out = render(&doc, &Edits::new().with(doc.tree.root(), cands[0]));
    assert_eq!(out, rewrite(&doc));
    // The older revision and the unreachable object 21 are gone.
    let back = lopdf::Document::load_mem(&out).expect("loads");
    assert_eq!(back.revision_count(), 1);
    assert!(!back.objects.contains_key(&(21, 0)));
    assert!(!String::from_utf8_lossy(&out).contains("opened"));
    for n in doc.tree.nodes().skip(1) {
        cands.clear();
        templates[0].candidates(&doc, n, None, &mut cands);
        assert!(cands.is_empty());
    }
}

#[test]
fn rendering_is_deterministic() {
    let a = parse(&fixture("sample.pdf"));
    let b = parse(&fixture("sample.pdf"));
    assert_eq!(a.tree.dump(), b.tree.dump());
    let t = &a.tree;
    let edits = Edits::new()
        .with(at(t, "Info"), Edit::Delete)
        .with(at(t, "Root/Outlines"), Edit::Delete);
    assert_eq!(render(&a, &edits), render(&b, &edits));
    assert_eq!(render(&a, &edits), render(&a, &edits));
}

// ----- Triage outline ----------------------------------------------------------------------------

#[test]
fn the_outline_shows_actions_scripts_and_embedded_files() {
    let doc = parse(&fixture("sample.pdf"));
    let o = Pdf.outline(&doc);
    for want in [
        "%PDF-1.4 · 1 page · 20 objects · cross-reference: as written · not encrypted",
        "     5 0 obj  JavaScript     /Root/OpenAction ",
        "  /Root/OpenAction  JavaScript  (5 0 obj)\n      app.alert('opened');\n",
        "  /Root/OpenAction/Next  URI  (14 0 obj)\n      http://example.invalid/x\n",
        // The page's script is a Flate stream: shown decoded.
        "  /Root/Pages/Kids[0]/AA/O  JavaScript  (6 0 obj)\n      var payload = unescape('%u9090%u9090');\n      this.exportDataObject({cName: 'evil.exe', nLaunch: 2});\n",
        "  /Root/Pages/Kids[0]/Annots[0]/A  Launch\n      calc.exe\n",
        "  /Root/Names/JavaScript/Names[1]  JavaScript  (16 0 obj)\n      var x = 1;\n",
        "  /Root/Names/EmbeddedFiles/Names[1]/EF/F  \"evil.exe\" application/octet-stream 25 bytes stored  (18 0 obj)",
        "OpenAction 1 · AA 1 · JavaScript 3 · JS 3 · Launch 1 · URI 1 · SubmitForm 0 · EmbeddedFile 1 · XFA 0 · RichMedia 0",
    ] {
        assert!(o.contains(want), "missing {want:?} in\n{o}");
    }
}

// ----- Reduction through the engine ------------------------------------------------------------

/// Reduces with an in-process oracle: the file is a PDF whose opening action still runs the
/// `app.alert` script.
fn reduce(input: &[u8], algorithm: Algorithm) -> Vec<u8> {
    let oracle = |bytes: &[u8]| {
        Pdf.parse(bytes).is_ok_and(|d| {
            let o = Pdf.outline(&d);
            o.contains("  /Root/OpenAction  JavaScript") && o.contains("      app.alert('opened');")
        })
    };
    let stop = std::sync::atomic::AtomicBool::new(false);
    let mut r = Reducer::new(&Pdf, &oracle, input, Options::default(), &stop).expect("starts");
    r.check_input().expect("the input is interesting");
    run(&mut r, algorithm).expect("reduces");
    r.into_best()
}

#[test]
fn reduction_keeps_the_opening_script_and_drops_the_rest() {
    let input = fixture("sample.pdf");
    let mut nodes = Vec::new();
    for algorithm in [Algorithm::HddStar, Algorithm::GtrStar] {
        let out = reduce(&input, algorithm);
        qpdf_check(&out).unwrap_or_else(|e| panic!("{algorithm}: {e}"));
        let doc = parse(&out);
        let o = Pdf.outline(&doc);
        for gone in [
            "calc.exe",
            "evil.exe",
            "exportDataObject",
            "var x",
            "Outlines",
            "example.",
        ] {
            assert!(!o.contains(gone), "{algorithm}: {gone} is left:\n{o}");
        }
        assert!(
            out.len() < input.len() / 3,
            "{algorithm}: {} bytes",
            out.len()
        );
        nodes.push(doc.tree.len());
    }
    // Catalog, /Pages with one kid, the typed page, the action with /S and /JS.
    assert!(
        nodes[1] <= nodes[0],
        "gtr* {} vs hdd* {}",
        nodes[1],
        nodes[0]
    );
    assert!(nodes[1] <= 20, "gtr* leaves {} nodes", nodes[1]);
}

#[test]
fn mutated_files_never_panic_and_every_rendering_parses_again() {
    // Random byte edits (replace, delete, insert PDF syntax) of the fixtures: parsing either
    // fails cleanly or gives a document whose renderings (here: one random deletion) parse again.
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let files = [fixture("sample.pdf"), fixture("object-streams.pdf")];
    let mut parsed = 0;
    for i in 0..400 {
        let mut b = files[i % files.len()].clone();
        for _ in 0..1 + rnd() % 8 {
            let pos = rnd() as usize % b.len();
            match rnd() % 3 {
                0 => b[pos] = rnd() as u8,
                1 => {
                    b.remove(pos);
                }
                _ => b.insert(pos, b"[(<>)]/ R0123456789"[(rnd() % 19) as usize]),
            }
        }
        let Ok(doc) = Pdf.parse(&b) else { continue };
        parsed += 1;
        let node = NodeId((rnd() % doc.tree.len() as u64) as u32);
        let out = render(&doc, &Edits::new().with(node, Edit::Delete));
        if !out.is_empty() {
            Pdf.parse(&out)
                .unwrap_or_else(|e| panic!("mutation {i}: {e}"));
        }
        let _ = Pdf.outline(&doc);
    }
    assert!(parsed > 100, "only {parsed} mutations parsed");
}
