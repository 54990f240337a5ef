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
