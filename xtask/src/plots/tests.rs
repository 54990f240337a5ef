use crate::testutil::*;

#[test]
fn box_plots_are_svg_with_a_panel_per_format() {
    let runs = hand_made_runs();
    let svg = crate::plots::box_plot_svg(&runs, crate::plots::Measure::Calls, "calls")
        .unwrap()
        .unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..50]);
    assert!(svg.contains("format: xml") && svg.contains("format: python"));
    assert!(svg.contains("C-Vise") && svg.contains("whittle gtr*"));
    let series = crate::plots::series(&runs, crate::plots::Measure::NodesPercent);
    // picire's uninteresting run is not drawn.
    let xml = &series[0].1;
    assert_eq!(xml[0], ("whittle gtr*".to_string(), vec![4.0, 8.0]));
    assert_eq!(xml[1], ("picire".to_string(), vec![6.0]));
    assert_eq!(
        crate::plots::box_plot_svg(&[], crate::plots::Measure::Calls, "x").unwrap(),
        None
    );
}

#[test]
fn learning_curves_are_svg_with_a_panel_per_corpus() {
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(crate::workspace_root().join("corpora/manifest.json")).unwrap(),
    )
    .unwrap();
    let corpora = manifest.as_object().unwrap();
    let points: Vec<Vec<(u64, usize)>> = corpora
        .values()
        .map(|e| serde_json::from_value(e["curve"].clone()).unwrap())
        .collect();
    let curves: Vec<crate::plots::Curve<'_>> = corpora
        .iter()
        .zip(&points)
        .map(|((format, e), points)| crate::plots::Curve {
            format,
            files: e["files"].as_u64().unwrap(),
            points,
        })
        .collect();
    let svg = crate::plots::learning_curve_svg(&curves).unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..50]);
    for c in &curves {
        let caption = format!("{} ({} files)", c.format, c.files);
        assert!(svg.contains(&caption), "{caption}");
    }
    assert!(svg.contains("files analysed") && svg.contains("context pairs"));
}
