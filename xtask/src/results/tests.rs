use crate::cells::fenced;
use crate::document::document;
use crate::results::{Measured, NotRun, OtherRow, Output, Results, merge_sections};
use crate::summary::{self};
use crate::testutil::*;

#[test]
fn saved_results_redraw_the_same_document() {
    let mut section = pdf_section(vec![pdf_row(2, false, 405, 26)]);
    section.tokens_before = Some(900);
    section.not_run = Some(NotRun::Broken("the oracle rejects the input".into()));
    let results = Results {
        version: Results::VERSION,
        environment: sample_env(),
        sections: vec![section, xml_section(vec![row("gtr*", 1)])],
        overhead: vec![overhead(vec![Some(0), Some(0)], 0)],
    };
    let json = results.to_json().unwrap();
    // The PDF output is not UTF-8: it is saved as numbers; the XML one as text.
    assert!(json.contains("\"<a b=\\\"&\\\"/>\\n\""), "{json}");
    let back = Results::from_json(&json).unwrap();
    assert_eq!(back, results);
    assert_eq!(
        document(&back.environment, &back.sections, &back.overhead, &[]),
        document(
            &results.environment,
            &results.sections,
            &results.overhead,
            &[]
        )
    );
    let other = json.replacen(
        &format!("\"version\": {}", Results::VERSION),
        "\"version\": 999",
        1,
    );
    let err = Results::from_json(&other).unwrap_err();
    assert!(format!("{err:#}").contains("version 999"), "{err:#}");
    assert!(Results::from_json("{}").is_err());
}

#[test]
fn long_outputs_are_saved_cut_but_shown_with_their_length() {
    let out = Output::new("x".into(), vec![b'a'; 5000], 5000, None);
    assert_eq!(out.bytes.len(), 1200);
    assert_eq!(out.shown_len, 5000);
    assert!(fenced(&out.bytes, out.shown_len).contains("… (3800 more bytes)"));
}

#[test]
fn a_partial_run_keeps_the_saved_results_of_what_it_did_not_rerun() {
    use OtherRow;
    let other = |name: &str, bytes: u64| OtherRow {
        case: "xml-iso-entity".into(),
        id: name.to_lowercase(),
        name: name.into(),
        measured: Some(Measured {
            bytes_after: bytes,
            ..Default::default()
        }),
        ..OtherRow::default()
    };
    let mut old_xml = xml_section(vec![row("gtr*", 1)]);
    old_xml.others = vec![other("picire", 70), other("C-Vise", 9000)];
    old_xml.others_not_run = vec![("lithium".into(), "not installable here".into())];
    let old_py = py_section(vec![py_row("gtr*", "python", 1, true)]);
    let saved = Results {
        version: Results::VERSION,
        environment: sample_env(),
        sections: vec![old_xml.clone(), old_py.clone()],
        overhead: vec![],
    };
    let order = ["xml-iso-entity", "py-underlying-dict", "pdf-js-at-opening"];

    // `--case xml-iso-entity --reducer picire`: whittle's rows and C-Vise's are kept, picire's
    // is the new one; the Python case is carried over, marked with the saved run's date.
    let mut now = xml_section(vec![]);
    now.rows.clear();
    now.outputs.clear();
    now.others = vec![other("picire", 60)];
    let merged = merge_sections(&saved, vec![now], None, &["picire".into()], &order);
    assert_eq!(
        merged.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
        ["xml-iso-entity", "py-underlying-dict"]
    );
    assert_eq!(merged[0].rows, old_xml.rows);
    assert_eq!(merged[0].outputs, old_xml.outputs);
    let others: Vec<(&str, u64)> = merged[0]
        .others
        .iter()
        .map(|o| (o.name.as_str(), o.measured.as_ref().unwrap().bytes_after))
        .collect();
    assert_eq!(others, [("C-Vise", 9000), ("picire", 60)]);
    assert_eq!(merged[0].others_not_run, old_xml.others_not_run);
    assert_eq!(merged[0].carried_from, None);
    assert_eq!(
        merged[1].carried_from.as_deref(),
        Some("2025-01-02 03:04 UTC, whittle `abc`")
    );
    assert_eq!(merged[1].rows, old_py.rows);
    let doc = document(&saved.environment, &merged, &[], &[]);
    assert_eq!(doc.matches("- **Measured by an earlier run** (").count(), 1);
    assert!(doc.contains("The cases marked **Measured by an earlier run** were measured"));

    // `--case py-underlying-dict` with whittle: the new rows replace the saved ones.
    let now = py_section(vec![py_row("hdd*", "python", 2, true)]);
    let merged = merge_sections(&saved, vec![now.clone()], Some(&[]), &[], &order);
    assert_eq!(merged[1].rows, now.rows);

    // `--case py-underlying-dict --algorithm auto`: the saved `gtr*` row stays, before the new
    // `auto` one.
    let now = py_section(vec![py_row("auto", "python", 2, true)]);
    let ran = ["auto".to_string()];
    let merged = merge_sections(&saved, vec![now.clone()], Some(&ran), &[], &order);
    let rows: Vec<&str> = merged[1]
        .rows
        .iter()
        .map(|r| r.algorithm.as_str())
        .collect();
    assert_eq!(rows, ["gtr*", "auto"]);
    assert_eq!(
        merged[0]
            .carried_from
            .as_deref()
            .map(|s| s.contains("2025")),
        Some(true)
    );
}

#[test]
fn pdf_runs_carry_no_token_counts_even_from_older_results() {
    let mut row = pdf_row(2, false, 405, 26);
    row.measured = Some(Measured {
        bytes_after: 405,
        tokens_after: Some(300),
        ..Default::default()
    });
    let mut section = pdf_section(vec![row]);
    section.format = "pdf".into();
    section.tokens_before = Some(900);
    let runs = summary::runs(&[section.clone()]);
    assert_eq!(runs.len(), 1);
    assert_eq!((runs[0].tokens_before, runs[0].tokens_after), (None, None));
    // The same run of a text format keeps them.
    section.format = "xml".into();
    let runs = summary::runs(&[section]);
    assert_eq!(runs[0].tokens_percent(), Some(100.0 * 300.0 / 900.0));
}
