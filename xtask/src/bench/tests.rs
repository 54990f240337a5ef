use crate::bench::select_cases;
use crate::testutil::*;

#[test]
fn cases_are_selected_by_id_in_list_order() {
    let cases = all_cases();
    let selected = select_cases(&cases, &[]).unwrap();
    let all: Vec<&str> = selected.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(all, CASE_IDS);
    let pdf = select_cases(
        &cases,
        &[
            "pdf-openaction-small".to_string(),
            "pdf-js-at-opening".to_string(),
        ],
    )
    .unwrap();
    assert_eq!(pdf[0].id, "pdf-js-at-opening");
    assert_eq!(pdf[1].id, "pdf-openaction-small");
    let some = select_cases(&cases, &["py-underlying-dict".to_string()]).unwrap();
    assert_eq!(some.len(), 1);
    assert_eq!(some[0].id, "py-underlying-dict");
    let err = select_cases(&cases, &["js-nope".to_string()])
        .unwrap_err()
        .to_string();
    assert!(err.contains("no case `js-nope`") && err.contains("py-underlying-dict"));
}

/// `cargo xtask ARGS...` parsed to the bench command's arguments.
fn bench_args(args: &[&str]) -> Result<crate::bench::BenchArgs, clap::Error> {
    use clap::Parser as _;
    let cli = crate::Cli::try_parse_from(["cargo xtask", "bench"].iter().chain(args))?;
    match cli.command {
        crate::Task::Bench(b) => Ok(b),
        other => panic!("not bench: {other:?}"),
    }
}

#[test]
fn bench_arguments_have_their_defaults_and_select_reducers() {
    let all = bench_args(&[]).unwrap();
    assert!(!all.quick && !all.redraw && !all.fresh);
    assert_eq!(all.out, std::path::Path::new("docs/benchmarks.md"));
    assert_eq!((all.budget_minutes, all.others_budget_minutes), (15.0, 5.0));
    assert_eq!(all.repeat, 5);
    assert!(all.wants("whittle") && all.wants("picire"));

    let some = bench_args(&[
        "--quick",
        "--case",
        "py-underlying-dict",
        "--case",
        "xml-iso-entity",
        "--reducer",
        "picire",
    ])
    .unwrap();
    assert!(some.quick);
    assert_eq!(some.cases, ["py-underlying-dict", "xml-iso-entity"]);
    assert!(some.wants("picire") && !some.wants("whittle") && !some.wants("cvise"));

    // A redraw runs nothing, so it takes no selection.
    assert!(bench_args(&["--redraw"]).unwrap().redraw);
    for clash in [&["--redraw", "--quick"][..], &["--redraw", "--case", "x"]] {
        assert!(bench_args(clash).is_err(), "{clash:?}");
    }
}
