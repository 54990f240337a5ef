use crate::cases::{Script, Show, Source, Step, Version, join_words};
use crate::reducers::Other;
use crate::testutil::*;
use std::path::{Path, PathBuf};

#[test]
fn the_case_list_has_every_case_with_its_plan() {
    let cases = all_cases();
    let ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, CASE_IDS);

    // xml-iso-entity runs what it ran before cases were a list, and whittle's default `auto`.
    let xml = case("xml-iso-entity");
    assert_eq!(
        algos(&xml.full),
        [
            ("ddmin", "lines"),
            ("hdd", "xml"),
            ("hdd*", "xml"),
            ("hdd+", "xml"),
            ("gtr", "xml"),
            ("gtr*", "xml"),
            ("auto", "xml"),
        ]
    );
    assert_eq!(xml.full.jobs, [1, 2]);
    assert_eq!(
        algos(&xml.quick),
        [
            ("ddmin", "lines"),
            ("hdd*", "xml"),
            ("gtr*", "xml"),
            ("auto", "xml")
        ]
    );
    // Every text reducer runs on it; a quick run compares with picire and C-Vise.
    assert_eq!(
        xml.full.others,
        [
            Other::CReduce,
            Other::CVise,
            Other::Picire,
            Other::Lithium,
            Other::ShrinkRay
        ]
    );
    assert_eq!(xml.quick.others, [Other::Picire, Other::CVise]);
    assert_eq!(xml.quick.jobs, [1]);
    assert_eq!(
        xml.source,
        Source::Debian {
            package: "iso-codes".into(),
            path: "usr/share/xml/iso-codes/iso_3166-2.xml".into()
        }
    );
    assert_eq!(
        xml.input_path(),
        Path::new("target/bench-inputs/xml/xml-iso-entity/iso_3166-2.xml")
    );
    assert_eq!(
        xml.oracle
            .test_command(Path::new("/s/xml_xmllint_error.sh")),
        "/s/xml_xmllint_error.sh {} 'xmlParseEntityRef: no name'"
    );
    assert!(xml.check.is_none() && !xml.gate_rejections_column && xml.note.is_none());

    let py = case("py-underlying-dict");
    assert_eq!(py.lang, "python");
    let py_algos = [
        ("ddmin", "lines"),
        ("hdd*", "python"),
        ("gtr*", "python"),
        ("auto", "python"),
    ];
    assert_eq!(algos(&py.full), py_algos);
    assert_eq!(py.full.jobs, [1, 2]);
    assert_eq!(algos(&py.quick), py_algos);
    assert_eq!(py.quick.jobs, [1]);
    assert_eq!(
        py.source,
        Source::PythonStdlib {
            path: "test/crashers/underlying_dict.py".into()
        }
    );
    assert_eq!(
        py.input_path(),
        Path::new("target/bench-inputs/python/py-underlying-dict/underlying_dict.py")
    );
    assert_eq!(
        py.oracle.shown_path(),
        Path::new("xtask/oracles/py_segfault.sh")
    );
    assert_eq!(
        py.oracle.test_command(&py.oracle.shown_path()),
        "xtask/oracles/py_segfault.sh {}"
    );
    assert!(py.gate_rejections_column);
    assert_eq!(py.check.as_ref().unwrap().name, "valid Python");
    assert_eq!(
        py.check.as_ref().unwrap().shown(),
        "python3 -c 'import ast,sys; ast.parse(open(sys.argv[1]).read())' FILE"
    );
    // The other reducers are measured on it now, not quoted from issue #3.
    assert!(py.note.is_none());
    assert_eq!(
        py.formats_sentence(false),
        "Algorithms: `ddmin` on `--lang lines`, `hdd*`, `gtr*` and `auto` on `--lang python`; \
         `-j` 1 and 2. `gtr*` also run with `--no-rules`."
    );
    assert_eq!(
        py.formats_sentence(true),
        "Algorithms: `ddmin` on `--lang lines`, `hdd*`, `gtr*` and `auto` on `--lang python`; \
         `-j` 1. `gtr*` also run with `--no-rules`."
    );
    assert!(py.npm.is_none() && xml.npm.is_none());
    assert_eq!(py.show, Show::Raw);
    assert_eq!(xml.show, Show::Raw);

    // The coverage cases: the repository's wrapper, exact coverage for xkb and the paper's
    // superset for its own file; only they need the gcov build.
    let xkb = case("xml-cov-xkb");
    let paper = case("xml-gtr-coverage-153603");
    assert_eq!(
        xkb.oracle.test_command(&xkb.oracle.shown_path()),
        "xtask/oracles/xml_coverage.sh {}"
    );
    assert_eq!(
        paper.oracle.test_command(&paper.oracle.shown_path()),
        "xtask/oracles/xml_coverage.sh {} --superset"
    );
    assert_eq!(
        paper.source,
        Source::Shared {
            path: "bench-data/xml-gtr/153603-2010-03-10.xml".into()
        }
    );
    for c in all_cases() {
        assert_eq!(c.coverage, c.id.contains("cov"), "{}", c.id);
    }
    assert_eq!(xkb.check.as_ref().unwrap().shown(), "xmllint --noout FILE");

    // numbro's looping candidates: a short per-engine timeout in the oracle and a 10 s test
    // timeout for the other reducers (whittle's is adaptive); the other cases keep the default.
    let numbro = case("js-engines-numbro");
    assert_eq!(numbro.test_timeout(), 10);
    assert_eq!(
        numbro.oracle_env,
        [("ORACLE_TIMEOUT".to_string(), "2".to_string())]
    );
    let sentence = numbro.oracle_sentence();
    assert!(
        sentence.starts_with("`ORACLE_TIMEOUT=2 ../shared/bench/oracles/js_engine_diff.sh {} "),
        "{sentence}"
    );
    assert!(
        sentence.contains("the other reducers stop a test after 10 s"),
        "{sentence}"
    );
    assert_eq!(
        py.test_timeout(),
        crate::cases::DEFAULT_TEST_TIMEOUT_SECONDS
    );
    assert!(!py.oracle_sentence().contains("stops a test"));
}

#[test]
fn the_pdf_cases_run_pdfcop_at_j2_and_pdfjs_from_target_bench_tools() {
    let js = case("pdf-js-at-opening");
    assert_eq!(js.lang, "pdf");
    assert_eq!(
        algos(&js.full),
        [("hdd*", "pdf"), ("gtr*", "pdf"), ("auto", "pdf")]
    );
    assert_eq!(js.full.jobs, [2]);
    assert_eq!(algos(&js.quick), [("gtr*", "pdf"), ("auto", "pdf")]);
    assert_eq!(js.quick.jobs, [2]);
    assert_eq!(
        js.source,
        Source::Shared {
            path: "bench-data/pdf/160F-2019.pdf".into()
        }
    );
    assert_eq!(
        js.input_path(),
        Path::new("target/bench-inputs/pdf/pdf-js-at-opening/160F-2019.pdf")
    );
    // The regex reaches the script as one argument, backslashes and all.
    assert_eq!(js.oracle.args, ["caused by \\[:allowJSAtOpening\\]"]);
    assert_eq!(
        js.oracle.test_command(Path::new("/s/pdf_pdfcop.sh")),
        "/s/pdf_pdfcop.sh {} 'caused by \\[:allowJSAtOpening\\]'"
    );
    assert!(js.note.as_deref().unwrap().contains("`-j 2` only"));
    assert_eq!(
        js.formats_sentence(false),
        "Algorithms: `hdd*`, `gtr*` and `auto` on `--lang pdf`; `-j` 2. `gtr*` also run with \
         `--no-rules`."
    );

    let crash = case("pdf-pdfcop-crash");
    assert_eq!(algos(&crash.full), [("gtr*", "pdf"), ("auto", "pdf")]);
    // No other reducer: 3 MB with pdfcop's 1-3 s per call would only measure their budgets.
    assert!(crash.full.others.is_empty());
    assert_eq!(crash.full.jobs, [2]);
    // Full runs only: 3 MB and pdfcop's 1-3 s per call.
    assert!(crash.quick.is_empty());
    assert!(crash.quick.steps().is_empty());
    assert_eq!(
        crash.oracle.test_command(Path::new("/s/pdf_pdfcop.sh")),
        "/s/pdf_pdfcop.sh {} 'Illegal character \"&\" in raw string'"
    );
    assert_eq!(crash.file_name, "xfa_filled_imm1344e.pdf");

    let small = case("pdf-openaction-small");
    assert_eq!(small.file_name, "issue6106.pdf");
    assert_eq!(small.full.jobs, [1, 2]);
    assert_eq!(algos(&small.quick), [("gtr*", "pdf"), ("auto", "pdf")]);
    let npm = small.npm.clone().unwrap();
    assert_eq!(npm.env, "PDFJS_DIR");
    assert_eq!(npm.spec(), "pdfjs-dist@4.10.38");
    assert_eq!(npm.dir_path(), Path::new("target/bench-tools/npm/pdfjs4"));
    assert_eq!(
        npm.package_json(),
        Path::new("target/bench-tools/npm/pdfjs4/node_modules/pdfjs-dist/package.json")
    );
    // An npm alias installs a second version of a package beside the first.
    let uglify2 = case("js-uglify2-parse-error").npm.unwrap();
    assert_eq!(uglify2.spec(), "uglify-js2@npm:uglify-js@2.8.29");
    assert_eq!(
        uglify2.package_json(),
        Path::new("target/bench-tools/npm/uglify2/node_modules/uglify-js2/package.json")
    );
    let oracle = small.oracle_sentence();
    assert!(
        oracle.starts_with(
            "`PDFJS_DIR=… ../shared/bench/oracles/pdf_pdfjs_jsactions.sh {} '^OpenAction$' \
             this.print` (exit 0 = interesting): pdf.js still loads"
        ),
        "{oracle}"
    );
    assert!(oracle.contains("`PDFJS_DIR` is `target/bench-tools/npm/pdfjs4`"));
    assert!(oracle.contains("`pdfjs-dist@4.10.38`"));
    // The pdfcop cases need no npm tool and say so by having no `VAR=…`.
    assert!(
        js.oracle_sentence()
            .starts_with("`../shared/bench/oracles/pdf_pdfcop.sh {}")
    );

    for c in [&js, &crash, &small] {
        let check = c.check.as_ref().unwrap();
        assert_eq!(check.name, "valid PDF");
        assert_eq!(check.shown(), "qpdf --check FILE");
        assert_eq!(
            c.show.shown().as_deref(),
            Some("qpdf --qdf --object-streams=disable --deterministic-id FILE -")
        );
        assert!(c.gate_rejections_column);
        assert!(c.tools.iter().any(|t| t.program == "qpdf"));
    }
    let pdfcop = js.tools.iter().find(|t| t.program == "pdfcop").unwrap();
    // pdfcop has no working --version: its package's version is asked.
    assert_eq!(pdfcop.version, Version::Debian("origami-pdf".into()));
    assert_eq!(pdfcop.asked(), "pdfcop");
    let qpdf = js.tools.iter().find(|t| t.program == "qpdf").unwrap();
    assert_eq!(qpdf.asked(), "qpdf --version");
}

#[test]
fn gtr_and_gtr_star_also_run_without_rules_right_after_their_rows() {
    fn step<'a>(algorithm: &'a str, lang: &'a str, rules: bool) -> Step<'a> {
        Step {
            algorithm,
            lang,
            rules,
        }
    }
    assert_eq!(
        case("xml-iso-entity").full.steps(),
        [
            step("ddmin", "lines", true),
            step("hdd", "xml", true),
            step("hdd*", "xml", true),
            step("hdd+", "xml", true),
            step("gtr", "xml", true),
            step("gtr", "xml", false),
            step("gtr*", "xml", true),
            step("gtr*", "xml", false),
            step("auto", "xml", true),
        ]
    );
    // `auto` runs with the shipped rules only: what the rules buy is measured on `gtr*`.
    assert_eq!(
        case("pdf-pdfcop-crash").full.steps(),
        [
            step("gtr*", "pdf", true),
            step("gtr*", "pdf", false),
            step("auto", "pdf", true),
        ]
    );
    // Every case's quick plan (where it has one) compares gtr* with and without rules. A case on
    // `lines` has no tree and no rules to compare (`sim-needles`: ddmin and auto on a flat file).
    for c in all_cases().into_iter().filter(|c| c.lang != LINES) {
        let steps = c.quick.steps();
        assert!(
            c.quick.is_empty() || steps.contains(&step("gtr*", &c.lang, false)),
            "{}",
            c.id
        );
        assert!(
            c.full.steps().contains(&step("gtr*", &c.lang, false)),
            "{}",
            c.id
        );
    }
}

#[test]
fn every_plan_runs_whittles_default_auto_right_after_gtr_star() {
    for c in all_cases().into_iter().filter(|c| c.lang != LINES) {
        for quick in [false, true] {
            let plan = c.plan(quick);
            if plan.is_empty() {
                continue;
            }
            let at = |name: &str| plan.algorithms.iter().position(|(a, _)| a == name);
            let gtr_star = at("gtr*").unwrap_or_else(|| panic!("{}: no gtr*", c.id));
            assert_eq!(at("auto"), Some(gtr_star + 1), "{} (quick: {quick})", c.id);
            // On the same format as `gtr*`.
            assert_eq!(
                plan.algorithms[gtr_star + 1].1,
                plan.algorithms[gtr_star].1,
                "{}",
                c.id
            );
            assert!(
                !plan
                    .steps()
                    .iter()
                    .any(|s| s.algorithm == "auto" && !s.rules),
                "{}: auto runs with the shipped rules only",
                c.id
            );
        }
    }
}

#[test]
fn every_case_is_consistent() {
    let cases = all_cases();
    let mut ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), cases.len(), "case ids are unique");
    let root = crate::workspace_root();
    for c in all_cases() {
        // A case may have no quick plan (a slow oracle), but it always has a full one.
        assert!(!c.full.is_empty(), "{}", c.id);
        assert_eq!(
            c.quick.algorithms.is_empty(),
            c.quick.jobs.is_empty(),
            "{}",
            c.id
        );
        for quick in [false, true] {
            let plan = c.plan(quick);
            for (algorithm, lang) in &plan.algorithms {
                // An algorithm, and the options of whittle's that make a row of their own.
                let (name, flags) = crate::runner::algorithm_flags(algorithm);
                assert!(
                    ["ddmin", "hdd", "hdd*", "hdd+", "gtr", "gtr*", "auto"].contains(&name),
                    "{}: {algorithm}",
                    c.id
                );
                assert!(
                    flags.iter().all(|f| ["--merge-wins"].contains(f)),
                    "{}: {algorithm}",
                    c.id
                );
                assert!(lang == LINES || *lang == c.lang, "{}: {lang}", c.id);
            }
        }
        // The quick run is a part of the full one.
        for step in &c.quick.algorithms {
            assert!(c.full.algorithms.contains(step), "{}: {step:?}", c.id);
        }
        for j in &c.quick.jobs {
            assert!(c.full.jobs.contains(j), "{}", c.id);
        }
        // Candidates carry the input's name; its extension matches the format.
        assert_eq!(c.input_path().file_name().unwrap(), c.file_name.as_str());
        // Scripts in the repository exist and are executable; shared ones are under ../shared.
        let script = c.oracle.script_path(Path::new("/shared"), &root);
        match &c.oracle.script {
            Script::Repo(p) => {
                use std::os::unix::fs::PermissionsExt as _;
                assert_eq!(script, root.join(p));
                let mode = std::fs::metadata(&script).unwrap().permissions().mode();
                assert_ne!(mode & 0o111, 0, "{} is not executable", script.display());
            }
            Script::Shared(p) => {
                assert_eq!(script, Path::new("/shared").join(p));
                assert!(c.oracle.shown_path().starts_with("../shared"));
            }
        }
        // Inputs of the shared folder exist there (when it is there at all).
        let shared = root.join("../shared");
        if let Source::Shared { path } = &c.source
            && shared.is_dir()
        {
            assert!(shared.join(path).is_file(), "{}: {path}", c.id);
            assert!(path.ends_with(&c.file_name), "{}", c.id);
        }
        // An output viewer takes the output file as `{}`.
        if let Show::Through { args, .. } = &c.show {
            assert_eq!(args.iter().filter(|a| *a == "{}").count(), 1, "{}", c.id);
        }
    }
}

#[test]
fn words_are_joined_with_commas_and_and() {
    let w = |v: &[&str]| join_words(&v.iter().map(ToString::to_string).collect::<Vec<_>>());
    assert_eq!(w(&[]), "");
    assert_eq!(w(&["a"]), "a");
    assert_eq!(w(&["a", "b"]), "a and b");
    assert_eq!(w(&["a", "b", "c"]), "a, b and c");
}

/// A minimal PDF with a correct cross-reference table.
fn tiny_pdf() -> Vec<u8> {
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>",
    ];
    let mut pdf = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.extend(format!("{} 0 obj\n{o}\nendobj\n", i + 1).bytes());
    }
    let xref = pdf.len();
    pdf.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).bytes());
    for off in offsets {
        pdf.extend(format!("{off:010} 00000 n \n").bytes());
    }
    pdf.extend(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .bytes(),
    );
    pdf
}

#[test]
fn the_pdf_check_and_viewer_are_qpdfs() {
    let c = case("pdf-js-at-opening");
    let check = c.check.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = |bytes: &[u8]| {
        let file = dir.path().join("c.pdf");
        std::fs::write(&file, bytes).unwrap();
        crate::command(&check.program)
            .args(&check.args)
            .arg(&file)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .map(|s| s.success())
    };
    let good = tiny_pdf();
    let Ok(valid) = run(&good) else {
        eprintln!("no qpdf: the check is not exercised");
        return;
    };
    assert!(valid);
    // A wrong xref offset is repaired with a warning: not valid (exit 3).
    let shifted =
        String::from_utf8(good.clone())
            .unwrap()
            .replacen("startxref\n", "startxref\n1", 1);
    assert!(!run(shifted.as_bytes()).unwrap());
    assert!(!run(b"%PDF-1.4\nnothing\n").unwrap());

    // The viewer prints the file uncompressed to stdout, the same every time.
    let Show::Through { program, args } = c.show else {
        panic!("PDF outputs have a viewer")
    };
    let file = dir.path().join("v.pdf");
    std::fs::write(&file, &good).unwrap();
    let view = || {
        crate::command(&program)
            .args(args.iter().map(|a| {
                if a == "{}" {
                    file.as_os_str().to_owned()
                } else {
                    a.into()
                }
            }))
            .output()
            .unwrap()
    };
    let out = view();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("%QDF-1.0") && text.contains("/Type /Catalog"),
        "{text}"
    );
    assert_eq!(out.stdout, view().stdout);
}

/// Runs the Python case's oracle on `source`, saved as `name` in a fresh directory; its exit
/// status. `None` when python3 or timeout is missing (the benchmark needs them, the tests do not).
fn py_oracle(source: &str, timeout: &str) -> Option<i32> {
    let have = |p: &str| {
        crate::command(p)
            .arg("--version")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !have("python3") || !have("timeout") {
        eprintln!("python3 or timeout missing: the oracle is not exercised");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cand.py");
    std::fs::write(&file, source).unwrap();
    let py = case("py-underlying-dict");
    let script: PathBuf = py
        .oracle
        .script_path(Path::new("/nonexistent"), &crate::workspace_root());
    let status = crate::command(script)
        .arg(&file)
        .env("ORACLE_TIMEOUT", timeout)
        .current_dir(dir.path())
        .status()
        .unwrap();
    // The candidate's directory is left as it was: no core file, no byte-code cache.
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 1);
    status.code()
}

#[test]
fn the_python_oracle_accepts_segfaults_only() {
    // A segfault through ctypes: interesting.
    if let Some(code) = py_oracle("import ctypes\nctypes.string_at(0)\n", "10") {
        assert_eq!(code, 0);
    }
    // A shell cannot tell a death by SIGSEGV from `exit(139)` (both are status 139), and the
    // oracle follows cases.md's "exit status 139": deliberately exiting with 139 counts. No
    // reduction of underlying_dict.py can do that (it has no digit 3 or 9, nor `os`).
    if let Some(code) = py_oracle("raise SystemExit(139)\n", "10") {
        assert_eq!(code, 0);
    }
    // A clean exit, an exception, another signal, a syntax error: not interesting.
    for boring in [
        "print(1)\n",
        "raise SystemExit(11)\n",
        "1/0\n",
        "import os, signal\nos.kill(os.getpid(), signal.SIGABRT)\n",
        "def f(:\n",
    ] {
        if let Some(code) = py_oracle(boring, "10") {
            assert_eq!(code, 1, "{boring}");
        }
    }
    // A hang is killed at the timeout and is not interesting.
    if let Some(code) = py_oracle("while True:\n    pass\n", "0.3") {
        assert_eq!(code, 1);
    }
}

#[test]
fn the_python_check_is_pythons_own_parser() {
    let check = case("py-underlying-dict").check.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = |source: &str| {
        let file = dir.path().join("c.py");
        std::fs::write(&file, source).unwrap();
        crate::command(&check.program)
            .args(&check.args)
            .arg(&file)
            .stderr(std::process::Stdio::null())
            .status()
            .map(|s| s.success())
    };
    let Ok(valid) = run("import gc\nclass A:\n    x = 1\n") else {
        eprintln!("no python3: the check is not exercised");
        return;
    };
    assert!(valid);
    assert!(!run("class A(object):\n").unwrap());
    assert!(!run("dct[\"f\"] = lambda self:\n").unwrap());
    // Valid but useless is still valid: the check is about syntax only.
    assert!(run("").unwrap());
}

#[test]
fn the_coverage_wrapper_calls_the_shared_oracle_with_the_reference_first() {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("fake.py");
    let seen = dir.path().join("seen.txt");
    // Stands in for xml_gcov_coverage.py: writes its arguments, exits 0 on `--superset` only.
    std::fs::write(
        &fake,
        format!(
            "import sys\nopen({:?}, 'w').write(' '.join(sys.argv[1:]))\n\
             sys.exit(0 if sys.argv[-1] == '--superset' else 1)\n",
            seen.to_str().unwrap()
        ),
    )
    .unwrap();
    let script = crate::workspace_root().join("xtask/oracles/xml_coverage.sh");
    let run = |extra: &[&str], with_env: bool| {
        let mut cmd = crate::command(&script);
        cmd.arg("cand.xml").args(extra).current_dir(dir.path());
        if with_env {
            cmd.env("WHITTLE_COVERAGE_ORACLE", &fake)
                .env("WHITTLE_COVERAGE_REF", "ref.json")
                .env("XMLLINT_GCOV_DIR", "/nowhere");
        } else {
            cmd.env_remove("WHITTLE_COVERAGE_REF");
        }
        let ok = cmd.status().unwrap().success();
        (ok, std::fs::read_to_string(&seen).unwrap_or_default())
    };
    assert_eq!(
        run(&["--superset"], true),
        (true, "--check ref.json cand.xml --superset".to_string())
    );
    assert_eq!(
        run(&[], true),
        (false, "--check ref.json cand.xml".to_string())
    );
    std::fs::remove_file(&seen).unwrap();
    // Without the benchmark's variables it refuses, and the oracle never runs.
    assert_eq!(run(&[], false), (false, String::new()));
}

#[test]
fn the_many_workers_case_reads_its_input_from_the_repository_with_a_fixed_timeout() {
    let c = case("sim-needles");
    let Source::Repo { path } = &c.source else {
        panic!("sim-needles comes from the repository: {:?}", c.source)
    };
    let text = std::fs::read_to_string(crate::workspace_root().join(path)).unwrap();
    assert_eq!(text.lines().count(), 2000);
    let needles: Vec<usize> = (0..5)
        .map(|k| {
            let needle = format!(" NEEDLE_{k}");
            text.lines().position(|l| l.ends_with(&needle)).unwrap()
        })
        .collect();
    assert_eq!(needles, [113, 640, 641, 1290, 1877]);
    // whittle gets `--timeout 20`: the test sleeps 0.3 s, and at -j 64 on two cores the load
    // must not turn a candidate into a timeout.
    assert_eq!(c.whittle_timeout_seconds, Some(20));
    assert!(c.full.jobs.contains(&64) && c.full.jobs.contains(&1));
    assert!(case("sim-cluster").whittle_timeout_seconds.is_none());
}
