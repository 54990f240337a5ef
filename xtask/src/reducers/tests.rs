use crate::reducers::{Calls, Job, Other, python_version};
use std::path::{Path, PathBuf};

/// A job with fixed paths, for the command lines.
fn job<'a>(dir: &'a Path, work: &'a Path, script: &'a Path, jobs: usize) -> Job<'a> {
    Job {
        dir,
        work_file: work,
        file_name: "in put.py",
        test_script: script,
        lithium_condition: Path::new("/x/lithium_exit0.py"),
        count: Path::new("/x/count.sh"),
        call_log: Path::new("/r/calls.log"),
        oracle: Path::new("/o/oracle.sh"),
        oracle_args: Box::leak(Box::new(["a b".to_string(), "c".to_string()])),
        jobs,
        test_timeout_seconds: 120,
        lang: "python",
    }
}

fn strings(args: Vec<std::ffi::OsString>) -> Vec<String> {
    args.into_iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

#[test]
fn each_other_reducer_gets_its_command_line_and_test_script() {
    let (dir, work, script) = (
        Path::new("/r"),
        Path::new("/r/work/in put.py"),
        Path::new("/r/test.sh"),
    );
    let j = job(dir, work, script, 2);
    assert_eq!(
        strings(Other::CReduce.args(&j)),
        [
            "--not-c",
            "--n",
            "2",
            "--tidy",
            "--timeout",
            "120",
            "/r/test.sh",
            "in put.py"
        ]
    );
    assert_eq!(
        strings(Other::CVise.args(&j))[0..3],
        ["--not-c", "--n", "2"]
    );
    // On C and C++ inputs they run their C passes (clang_delta).
    for lang in ["c", "cpp"] {
        let c = Job { lang, ..j.clone() };
        for other in [Other::CReduce, Other::CVise] {
            assert_eq!(strings(other.args(&c))[0..2], ["--n", "2"], "{lang}");
        }
    }
    assert!(Other::TreereduceC.handles("c") && !Other::TreereduceC.handles("cpp"));
    assert!(!Other::Treereduce.handles("c"));
    assert_eq!(
        strings(Other::Picire.args(&j)),
        [
            "-i",
            "/r/work/in put.py",
            "--test",
            "/r/test.sh",
            "-o",
            "/r/picire-out",
            "-a",
            "line",
            "--cache",
            "content",
            "-p",
            "-j",
            "2"
        ]
    );
    // Sequential picire has no parallel options.
    assert!(!strings(Other::Picire.args(&job(dir, work, script, 1))).contains(&"-p".into()));
    assert_eq!(
        strings(Other::Lithium.args(&j)),
        [
            "--testcase",
            "/r/work/in put.py",
            "/x/lithium_exit0.py",
            "/x/count.sh",
            "/r/calls.log",
            "/o/oracle.sh",
            "/r/work/in put.py",
            "a b",
            "c"
        ]
    );
    let tr = strings(Other::Treereduce.args(&j));
    assert_eq!(
        tr,
        [
            "-s",
            "/r/work/in put.py",
            "-o",
            "/r/out-in put.py",
            "-j",
            "2",
            "--timeout",
            "120",
            "--",
            "/x/count.sh",
            "/r/calls.log",
            "/o/oracle.sh",
            "@@",
            "a b",
            "c"
        ]
    );
    let sr = strings(Other::ShrinkRay.args(&j));
    assert_eq!(sr[sr.len() - 2..], ["/r/test.sh", "/r/work/in put.py"]);
    assert!(sr.windows(2).any(|w| w == ["--input-type", "arg"]));

    // The test scripts: the file in the working directory, or the first argument.
    let cwd = Other::CReduce.test_script(&j).unwrap();
    assert!(
        cwd.ends_with("exec /x/count.sh /r/calls.log /o/oracle.sh \"$PWD\"/'in put.py' 'a b' c\n"),
        "{cwd}"
    );
    let arg = Other::Picire.test_script(&j).unwrap();
    assert!(arg.ends_with("/o/oracle.sh \"$1\" 'a b' c\n"), "{arg}");
    assert!(arg.starts_with("#!/bin/sh\n"));
    assert_eq!(Other::Lithium.test_script(&j), None);
    assert_eq!(Other::CVise.calls(), Calls::FileInCwd);
    assert!(!Other::Lithium.parallel());
    assert!(Other::Treereduce.handles("javascript") && !Other::Treereduce.handles("python"));
    for o in Other::ALL {
        assert_eq!(Other::from_id(o.id()), Some(o));
    }
    assert_eq!(Other::from_id("perses"), None);
}

/// The ends of the real logs of each reducer on a 40-line file (`cargo xtask bench` keeps them
/// in each run's `log.txt`).
const CREDUCE_LOG: &str = "  method pass_clex :: rm-toks-1 worked 80 times and failed 4 times\n\
    \n          ******** /tmp/rt/creduce/work/in.txt ********\n\nalpha omega";
const CVISE_LOG: &str = "Runtime: 77 seconds\nReduced test-cases:\n\n\
    --- /tmp/rt/cvise/work/in.txt ---\nalpha omega\n";
const PICIRE_LOG: &str = "\tGranularity: 2\n\tDone\nOutput saved to /tmp/rt/picire/pout/in.txt\n";

const LITHIUM_LOG: &str = "  Final size: 2 lines\n  Tests performed: 21\n  Test total: 199 lines\n";

const SHRINKRAY_LOG: &str = "WARNING: could not load the LLM model (LocalEntryNotFoundError); \
    reducing without the LLM passes.\nReduction completed!\nDeleted 313 Bytes out of 323 Bytes \
    (96.90% reduction) in 1 minute and 9.98 seconds\n";
const TREEREDUCE_LOG: &str = "[\u{1b}[32mINFO\u{1b}[0m] Original size: 158\n\
    [\u{1b}[32mINFO\u{1b}[0m] Qutting after pass 2 found no reductions\n\
    [\u{1b}[32mINFO\u{1b}[0m] Total time: 5980ms\n";

#[test]
fn each_other_reducers_log_says_whether_it_finished_and_where_its_result_is() {
    let logs = [
        (Other::CReduce, CREDUCE_LOG),
        (Other::CVise, CVISE_LOG),
        (Other::Picire, PICIRE_LOG),
        (Other::Lithium, LITHIUM_LOG),
        (Other::ShrinkRay, SHRINKRAY_LOG),
        (Other::Treereduce, TREEREDUCE_LOG),
    ];
    for (other, log) in logs {
        assert!(other.finished(log), "{} finished", other.name());
        // No reducer mistakes another's log, or a log cut before the end, for its own end.
        for (o, l) in logs {
            if o != other {
                assert!(
                    !other.finished(l),
                    "{} on the log of {}",
                    other.name(),
                    o.name()
                );
            }
        }
        assert!(!other.finished("starting\nrunning pass 1\n"));
    }
    let (dir, work, script) = (
        Path::new("/r"),
        Path::new("/r/work/in.txt"),
        Path::new("/r/test.sh"),
    );
    let j = job(dir, work, script, 2);
    assert_eq!(
        Other::Picire.output(&j, PICIRE_LOG),
        PathBuf::from("/tmp/rt/picire/pout/in.txt")
    );
    assert_eq!(
        Other::Picire.output(&j, "killed"),
        PathBuf::from("/r/picire-out/in put.py")
    );
    assert_eq!(
        Other::CReduce.output(&j, CREDUCE_LOG),
        PathBuf::from("/r/work/in.txt")
    );
    assert_eq!(
        Other::Treereduce.output(&j, TREEREDUCE_LOG),
        PathBuf::from("/r/out-in put.py")
    );
    assert_eq!(Other::Lithium.own_call_count(LITHIUM_LOG), Some(21));
    assert_eq!(Other::CVise.own_call_count(CVISE_LOG), None);
    assert_eq!(python_version("Python 3.12.1\n"), Some((3, 12)));
    assert_eq!(python_version("Python 3.9.18"), Some((3, 9)));
    assert_eq!(python_version("pyenv: python3.12: command not found"), None);
}
