use crate::machine::{cpu_model, git_commit, load_average, mem_total, utc_date};
use whittle_core::shell_quote;

#[test]
fn proc_files_are_read() {
    let cpuinfo = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\nflags\t: fpu\n\nprocessor\t: 1\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n";
    assert_eq!(
        cpu_model(cpuinfo).as_deref(),
        Some("Intel(R) Xeon(R) CPU @ 2.20GHz")
    );
    assert_eq!(cpu_model("processor : 0\n"), None);
    let meminfo = "MemTotal:        8141236 kB\nMemFree:          123 kB\n";
    assert_eq!(mem_total(meminfo).as_deref(), Some("7.8 GiB"));
    assert_eq!(mem_total("MemFree: 1 kB\n"), None);
    assert_eq!(
        load_average("0.52 0.58 0.59 1/467 12345\n").as_deref(),
        Some("0.52, 0.58, 0.59")
    );
    assert_eq!(load_average(""), None);
}

#[test]
fn utc_dates_match_known_days() {
    assert_eq!(utc_date(0), "1970-01-01 00:00 UTC");
    assert_eq!(utc_date(951_782_400), "2000-02-29 00:00 UTC");
    assert_eq!(utc_date(1_700_000_000), "2023-11-14 22:13 UTC");
    assert_eq!(utc_date(1_735_689_599), "2024-12-31 23:59 UTC");
}

#[test]
fn the_commit_is_work_in_progress_only_when_more_than_the_benchmarks_outputs_changed() {
    let dir = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        let ok = crate::command("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t", "-C"])
            .arg(dir.path())
            .args(args)
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    std::fs::create_dir(dir.path().join("docs")).unwrap();
    std::fs::write(dir.path().join("docs/benchmarks.md"), "old\n").unwrap();
    std::fs::write(dir.path().join("code.rs"), "fn a() {}\n").unwrap();
    git(&["add", "."]);
    git(&["commit", "-qm", "x"]);
    let clean = git_commit(dir.path());
    assert!(
        clean.starts_with('`') && !clean.contains("uncommitted"),
        "{clean}"
    );
    std::fs::write(dir.path().join("docs/benchmarks.md"), "new\n").unwrap();
    std::fs::write(dir.path().join("docs/benchmarks.json"), "{}\n").unwrap();
    assert_eq!(git_commit(dir.path()), clean);
    std::fs::write(dir.path().join("code.rs"), "fn b() {}\n").unwrap();
    assert!(git_commit(dir.path()).contains("plus uncommitted changes"));
}

#[test]
fn shell_quoting() {
    assert_eq!(shell_quote("bench"), "bench");
    assert_eq!(shell_quote("--out=docs/b.md"), "--out=docs/b.md");
    assert_eq!(shell_quote("gtr*"), "'gtr*'");
    assert_eq!(shell_quote("a b"), "'a b'");
    assert_eq!(shell_quote("it's"), "'it'\\''s'");
    assert_eq!(shell_quote(""), "''");
}
