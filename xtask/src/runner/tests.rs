use crate::runner::same_outputs;

#[test]
fn outputs_are_the_same_only_if_all_jobs_produced_identical_bytes() {
    let a = || Some(b"x = 1\n".to_vec());
    assert_eq!(same_outputs(&[a(), a()]), Some(true));
    assert_eq!(same_outputs(&[a(), Some(b"x = 2\n".to_vec())]), Some(false));
    assert_eq!(same_outputs(&[a(), None]), None);
    assert_eq!(same_outputs(&[a()]), None);
    assert_eq!(same_outputs(&[a(), a(), Some(Vec::new())]), Some(false));
}
