//! The benchmark's cases: what `cargo xtask bench` reduces, with which algorithms, and how it
//! checks the outputs. Each is one of `../shared/guide/cases.md`; adding one is adding an entry
//! to [`CASES`] (and, for a new kind of input, a [`Source`] variant and its fetch in `bench.rs`).
//! Nothing here starts a process, so all of it is unit-tested in `tests.rs`.

use crate::reducers::Other;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use whittle_core::shell_quote;

/// The `--lang` of whittle's line-based format, which `ddmin` works on.
pub(crate) const LINES: &str = "lines";

/// One benchmark case.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Case {
    /// The id used in `../shared/guide/cases.md` and in the tables.
    pub(crate) id: &'static str,
    /// One sentence on what makes the input interesting (markdown).
    pub(crate) about: &'static str,
    /// The input's file name: the candidates whittle tests carry it too.
    pub(crate) file_name: &'static str,
    /// Where the input comes from.
    pub(crate) source: Source,
    /// The test: exit 0 = still interesting.
    pub(crate) oracle: Oracle,
    /// The tree format of the case (`--lang`); also the folder under `target/bench-inputs/`.
    pub(crate) lang: &'static str,
    /// Algorithms and `-j` values of the full run.
    pub(crate) full: Plan,
    /// Algorithms and `-j` values of `--quick`.
    pub(crate) quick: Plan,
    /// Programs the oracle or the check needs, with how to ask their version.
    pub(crate) tools: &'static [Tool],
    /// A check every output must pass besides the oracle (for example "is valid Python").
    pub(crate) check: Option<Check>,
    /// Whether the table has a column with whittle's gate rejections.
    pub(crate) gate_rejections_column: bool,
    /// A line printed under the case's table (markdown), such as other reducers' figures.
    pub(crate) note: Option<&'static str>,
    /// An npm package the oracle needs, which the benchmark installs itself under
    /// `target/bench-tools/` (as `setup_tools.sh` does); without it the case is skipped.
    pub(crate) npm: Option<NpmTool>,
    /// How the document shows the outputs.
    pub(crate) show: Show,
    /// A budget in minutes for each run of this case (whittle's and the others'), below the
    /// command's own: for a case whose oracle is slow and whose reducers need many calls.
    pub(crate) budget_minutes: Option<f64>,
    /// Whether the oracle compares xmllint's line coverage of libxml2 with the original's
    /// (`xtask/oracles/xml_coverage.sh`): the benchmark then builds the gcov-instrumented
    /// xmllint once (`../shared/bench/build_xmllint_gcov.sh` into
    /// `target/bench-tools/xmllint-gcov`) and records the original's coverage before the runs.
    pub(crate) coverage: bool,
    /// The timeout of one test, for whittle's `--timeout` and the other reducers' own (default:
    /// [`DEFAULT_TEST_TIMEOUT_SECONDS`]), and environment variables for the oracle: for a case
    /// whose candidates can make the tested program loop, which would otherwise spend the
    /// budget in a few hung tests.
    pub(crate) test_timeout_seconds: Option<u64>,
    pub(crate) oracle_env: &'static [(&'static str, &'static str)],
}

/// The timeout of one test when a case sets none: longer than any original input's test takes.
pub(crate) const DEFAULT_TEST_TIMEOUT_SECONDS: u64 = 120;

impl Case {
    /// The timeout of one test of this case, in seconds.
    pub(crate) fn test_timeout(&self) -> u64 {
        self.test_timeout_seconds
            .unwrap_or(DEFAULT_TEST_TIMEOUT_SECONDS)
    }
}

/// Where a case's input comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// A file inside a Debian package, fetched with `apt-get download` (as `get_inputs.sh` does)
    /// and kept between runs.
    Debian {
        package: &'static str,
        path: &'static str,
    },
    /// A file under the standard-library folder of the local `python3`
    /// (`sysconfig.get_paths()["stdlib"]`), copied afresh on every run.
    PythonStdlib { path: &'static str },
    /// A file under the shared folder (`../shared`, or `$WHITTLE_SHARED`), copied afresh on
    /// every run.
    Shared { path: &'static str },
    /// A file inside an npm package (`npm pack SPEC`, as `get_inputs.sh` does), with a file of
    /// the shared folder appended (numbro's driver), kept between runs.
    Npm {
        spec: &'static str,
        path: &'static str,
        append: Option<&'static str>,
    },
}

/// Where an oracle script lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Script {
    /// Under the shared folder (`../shared`, or `$WHITTLE_SHARED`).
    Shared(&'static str),
    /// In this repository, relative to the workspace root.
    Repo(&'static str),
}

/// An oracle: a script run as `SCRIPT FILE ARGS...`, exit 0 = interesting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Oracle {
    pub(crate) script: Script,
    pub(crate) args: &'static [&'static str],
    /// What it does, for the document (markdown; empty if the command says it all).
    pub(crate) explain: &'static str,
}

/// Which algorithms run, each with its `--lang`, and at which `-j` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    pub(crate) algorithms: &'static [(&'static str, &'static str)],
    pub(crate) jobs: &'static [usize],
    /// Other reducers run on the case with the same test, at the largest of `jobs`.
    pub(crate) others: &'static [Other],
}

/// A program a case needs; without it the case is skipped ("tool missing").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tool {
    pub(crate) program: &'static str,
    pub(crate) version: Version,
    /// How to get it, for the note when it is missing.
    pub(crate) install: &'static str,
}

/// How to learn a tool's version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Version {
    /// Run it with these arguments; the first line it prints (stdout or stderr) is the version.
    Args(&'static [&'static str]),
    /// It has no working `--version` (pdfcop says "version unknown" and exits 1): ask `dpkg`
    /// for the version of the Debian package that installs it.
    Debian(&'static str),
}

impl Tool {
    /// The key of the tool's line in the document's "Where and how": how its version is asked.
    pub(crate) fn asked(&self) -> String {
        match self.version {
            Version::Args(args) => {
                let mut words = vec![self.program];
                words.extend(args);
                words.join(" ")
            }
            // The answer names the package ("Debian origami-pdf 2.1.0-1~exp2").
            Version::Debian(_) => self.program.to_string(),
        }
    }
}

/// An npm package installed by the benchmark in `target/bench-tools/npm/DIR` (the layout of
/// `setup_tools.sh TOOLSDIR` with `TOOLSDIR` = `target/bench-tools`), whose folder the oracle
/// reads from an environment variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NpmTool {
    /// What it is, for the document ("pdf.js").
    pub(crate) name: &'static str,
    /// The package.
    pub(crate) package: &'static str,
    /// The pinned version (`setup_tools.sh`'s).
    pub(crate) version: &'static str,
    /// The folder under `target/bench-tools/npm/`.
    pub(crate) dir: &'static str,
    /// The environment variable the oracle finds the folder in.
    pub(crate) env: &'static str,
}

impl NpmTool {
    /// The install folder, relative to the workspace root.
    pub(crate) fn dir_path(&self) -> PathBuf {
        Path::new("target/bench-tools/npm").join(self.dir)
    }

    /// `package@version`, as `npm install` takes it.
    pub(crate) fn spec(&self) -> String {
        format!("{}@{}", self.package, self.version)
    }

    /// The `package.json` of the installed package, relative to the workspace root.
    pub(crate) fn package_json(&self) -> PathBuf {
        self.dir_path()
            .join("node_modules")
            .join(self.package)
            .join("package.json")
    }
}

/// How the document shows a case's outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Show {
    /// As they are (cut when long).
    Raw,
    /// As `PROGRAM ARGS...` prints them, `{}` in the arguments being the output file: for PDFs,
    /// whose objects whittle writes into compressed object streams, qpdf's uncompressed QDF form.
    /// Raw, if the program fails.
    Through {
        program: &'static str,
        args: &'static [&'static str],
    },
}

impl Show {
    /// The command with `FILE` for the file, as the document shows it (`None` for [`Show::Raw`]).
    pub(crate) fn shown(&self) -> Option<String> {
        match self {
            Show::Raw => None,
            Show::Through { program, args } => {
                let mut words = vec![program.to_string()];
                words.extend(args.iter().map(|a| {
                    if *a == "{}" {
                        "FILE".to_string()
                    } else {
                        shell_quote(a)
                    }
                }));
                Some(words.join(" "))
            }
        }
    }
}

/// A check run by the benchmark on every output: `PROGRAM ARGS... FILE`, exit 0 = passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Check {
    /// The column header and the word in findings, e.g. "valid Python".
    pub(crate) name: &'static str,
    pub(crate) program: &'static str,
    pub(crate) args: &'static [&'static str],
}

const XMLLINT: Tool = Tool {
    program: "xmllint",
    version: Version::Args(&["--version"]),
    install: "apt-get install -y libxml2-utils",
};

const PYTHON3: Tool = Tool {
    program: "python3",
    version: Version::Args(&["--version"]),
    install: "apt-get install -y python3",
};

const TIMEOUT: Tool = Tool {
    program: "timeout",
    version: Version::Args(&["--version"]),
    install: "apt-get install -y coreutils",
};

const PDFCOP: Tool = Tool {
    program: "pdfcop",
    version: Version::Debian("origami-pdf"),
    install: "apt-get install -y origami-pdf",
};

const QPDF: Tool = Tool {
    program: "qpdf",
    version: Version::Args(&["--version"]),
    install: "apt-get install -y qpdf",
};

const NODE: Tool = Tool {
    program: "node",
    version: Version::Args(&["--version"]),
    install: "apt-get install -y nodejs",
};

/// The algorithms that also run with `--no-rules`, beside their rows with the shipped rules:
/// what the learned rules buy (issue #6).
pub(crate) const ALSO_WITHOUT_RULES: [&str; 2] = ["gtr", "gtr*"];

/// A PDF output passes when qpdf finds no error and has no warning (exit 0; 3 is "warnings",
/// 2 "errors").
const VALID_PDF: Check = Check {
    name: "valid PDF",
    program: "qpdf",
    args: &["--check"],
};

/// PDF outputs are shown uncompressed, objects out of their object streams.
const SHOW_PDF: Show = Show::Through {
    program: "qpdf",
    args: &[
        "--qdf",
        "--object-streams=disable",
        "--deterministic-id",
        "{}",
        "-",
    ],
};

/// What the note under a pdfcop case's table says about `-j`.
const PDFCOP_JOBS_NOTE: &str = "PDF rows run at `-j 2` only: pdfcop takes about 1–3 s per call, \
     so the `-j 1` rows would double the time of the run for little more to learn.";

/// pdf.js, pinned as `setup_tools.sh` pins it.
const PDFJS: NpmTool = NpmTool {
    name: "pdf.js",
    package: "pdfjs-dist",
    version: "4.10.38",
    dir: "pdfjs4",
    env: "PDFJS_DIR",
};

/// The other reducers for text formats (all but treereduce, installed for JavaScript only).
const TEXT_REDUCERS: &[Other] = &[
    Other::CReduce,
    Other::CVise,
    Other::Picire,
    Other::Lithium,
    Other::ShrinkRay,
];

/// prettier, pinned as `setup_tools.sh` pins it.
const PRETTIER: NpmTool = NpmTool {
    name: "prettier",
    package: "prettier",
    version: "3.10.1",
    dir: "js",
    env: "PRETTIER_DIR",
};

const MUJS: Tool = Tool {
    program: "mujs",
    version: Version::Debian("mujs"),
    install: "apt-get install -y mujs",
};

const GCOV: Tool = Tool {
    program: "gcov",
    version: Version::Args(&["--version"]),
    install: "apt-get install -y gcc",
};

/// An XML output passes when xmllint finds it well-formed.
const WELL_FORMED_XML: Check = Check {
    name: "well-formed XML",
    program: "xmllint",
    args: &["--noout"],
};

/// The plan of a case whose oracle is too slow for a quick run.
const NO_QUICK_PLAN: Plan = Plan {
    algorithms: &[],
    jobs: &[],
    others: &[],
};

/// The coverage cases: about 1 s per test (a gcov build), thousands of tests to a fixpoint.
const COVERAGE_PLAN: Plan = Plan {
    algorithms: &[("hdd*", "xml"), ("gtr*", "xml")],
    jobs: &[2],
    others: &[Other::Picire],
};

/// What the coverage cases' oracle does, for the document.
const COVERAGE_EXPLAIN: &str = "xmllint built with gcov instrumentation from Debian's libxml2 \
     source (`../shared/bench/build_xmllint_gcov.sh`, into `target/bench-tools/xmllint-gcov`) \
     must execute the same lines of libxml2 on the candidate as on the original, recorded by the \
     benchmark before the runs with `../shared/bench/oracles/xml_gcov_coverage.py --record` \
     (about 0.5–1 s per call)";

/// A coverage case: `xtask/oracles/xml_coverage.sh` with `args` on `file_name` from `source`,
/// the [`COVERAGE_PLAN`], well-formed outputs, 5 minutes a run.
const fn coverage_case(
    id: &'static str,
    about: &'static str,
    file_name: &'static str,
    source: Source,
    args: &'static [&'static str],
) -> Case {
    Case {
        id,
        about,
        file_name,
        source,
        oracle: Oracle {
            script: Script::Repo("xtask/oracles/xml_coverage.sh"),
            args,
            explain: COVERAGE_EXPLAIN,
        },
        lang: "xml",
        full: COVERAGE_PLAN,
        quick: NO_QUICK_PLAN,
        tools: &[PYTHON3, GCOV, XMLLINT],
        check: Some(WELL_FORMED_XML),
        gate_rejections_column: true,
        note: None,
        npm: None,
        show: Show::Raw,
        budget_minutes: Some(5.0),
        coverage: true,
        test_timeout_seconds: None,
        oracle_env: &[],
    }
}

/// A JavaScript output passes when node parses it (`node --check`).
const VALID_JS: Check = Check {
    name: "valid JavaScript",
    program: "node",
    args: &["--check"],
};

/// Every case, in the order of the document.
pub(crate) const CASES: [Case; 9] = [
    Case {
        id: "xml-iso-entity",
        about: "Not well-formed XML: a raw `&` in an attribute value, which xmllint must keep \
                reporting; the XML front end must round-trip the malformed input.",
        file_name: "iso_3166-2.xml",
        source: Source::Debian {
            package: "iso-codes",
            path: "usr/share/xml/iso-codes/iso_3166-2.xml",
        },
        oracle: Oracle {
            script: Script::Shared("bench/oracles/xml_xmllint_error.sh"),
            args: &["xmlParseEntityRef: no name"],
            explain: "",
        },
        lang: "xml",
        full: Plan {
            algorithms: &[
                ("ddmin", LINES),
                ("hdd", "xml"),
                ("hdd*", "xml"),
                ("hdd+", "xml"),
                ("gtr", "xml"),
                ("gtr*", "xml"),
            ],
            jobs: &[1, 2],
            others: TEXT_REDUCERS,
        },
        quick: Plan {
            algorithms: &[("ddmin", LINES), ("hdd*", "xml"), ("gtr*", "xml")],
            jobs: &[1],
            others: &[Other::Picire, Other::CVise],
        },
        tools: &[XMLLINT],
        check: None,
        gate_rejections_column: false,
        note: None,
        npm: None,
        show: Show::Raw,
        budget_minutes: None,
        coverage: false,
        test_timeout_seconds: None,
        oracle_env: &[],
    },
    coverage_case(
        "xml-cov-xkb",
        "The GTR paper's XML setting (coverage-preserving test-suite reduction): the lines of \
         libxml2 that xmllint executes on the input must stay exactly the same, so the reduced \
         file must still exercise every construct the original does.",
        "xkb-base.xml",
        Source::Debian {
            package: "xkb-data",
            path: "usr/share/X11/xkb/rules/base.xml",
        },
        &[],
    ),
    coverage_case(
        "xml-gtr-coverage-153603",
        "One of the twenty journal articles of the GTR paper's own XML experiment \
         (`153603-2010-03-10.xml`, the first by name), with the paper's oracle: xmllint's line \
         coverage of libxml2 must stay a superset of the original's. The paper reports 1.3 % of \
         the tree nodes left (median over the twenty).",
        "153603-2010-03-10.xml",
        Source::Shared {
            path: "bench-data/xml-gtr/153603-2010-03-10.xml",
        },
        &["--superset"],
    ),
    Case {
        id: "py-underlying-dict",
        about: "A CPython crasher: it changes a class's underlying dict (reached through \
                `gc.get_referrers`) behind the type's back, and the interpreter segfaults. One \
                of the seven crashers of the GTR paper's Python set (`dict.py`).",
        file_name: "underlying_dict.py",
        source: Source::PythonStdlib {
            path: "test/crashers/underlying_dict.py",
        },
        oracle: Oracle {
            script: Script::Repo("xtask/oracles/py_segfault.sh"),
            args: &[],
            explain: "runs the file with `python3` in its own directory with a 10 s timeout; \
                      interesting when it dies of SIGSEGV (exit status 139, or -11 as Python \
                      reports it)",
        },
        lang: "python",
        full: Plan {
            algorithms: &[("ddmin", LINES), ("hdd*", "python"), ("gtr*", "python")],
            jobs: &[1, 2],
            others: TEXT_REDUCERS,
        },
        quick: Plan {
            algorithms: &[("ddmin", LINES), ("hdd*", "python"), ("gtr*", "python")],
            jobs: &[1],
            others: &[Other::Picire, Other::CVise],
        },
        tools: &[PYTHON3, TIMEOUT],
        check: Some(Check {
            name: "valid Python",
            program: "python3",
            args: &["-c", "import ast,sys; ast.parse(open(sys.argv[1]).read())"],
        }),
        gate_rejections_column: true,
        note: None,
        npm: None,
        show: Show::Raw,
        budget_minutes: None,
        coverage: false,
        test_timeout_seconds: None,
        oracle_env: &[],
    },
    Case {
        id: "pdf-js-at-opening",
        about: "Security triage: origami's pdfcop rejects a one-page tax form because JavaScript \
                runs when it opens. The file has 55 JavaScript actions, most of them inside \
                compressed object streams, which the PDF front end must decode.",
        file_name: "160F-2019.pdf",
        source: Source::Shared {
            path: "bench-data/pdf/160F-2019.pdf",
        },
        oracle: Oracle {
            script: Script::Shared("bench/oracles/pdf_pdfcop.sh"),
            args: &["caused by \\[:allowJSAtOpening\\]"],
            explain: "`pdfcop -n -p standard` still rejects the file because JavaScript runs at \
                      opening (about 1–3 s per call)",
        },
        lang: "pdf",
        full: Plan {
            algorithms: &[("hdd*", "pdf"), ("gtr*", "pdf")],
            jobs: &[2],
            others: &[Other::CVise],
        },
        quick: Plan {
            algorithms: &[("gtr*", "pdf")],
            jobs: &[2],
            others: &[],
        },
        tools: &[PDFCOP, TIMEOUT, QPDF],
        check: Some(VALID_PDF),
        gate_rejections_column: true,
        note: Some(PDFCOP_JOBS_NOTE),
        npm: None,
        show: SHOW_PDF,
        budget_minutes: None,
        coverage: false,
        test_timeout_seconds: None,
        oracle_env: &[],
    },
    Case {
        id: "pdf-pdfcop-crash",
        about: "A crash in the analyser itself: pdfcop's XML parser (REXML) dies on the XFA \
                packet of a 3 MB Canadian immigration form.",
        file_name: "xfa_filled_imm1344e.pdf",
        source: Source::Shared {
            path: "bench-data/pdf/xfa_filled_imm1344e.pdf",
        },
        oracle: Oracle {
            script: Script::Shared("bench/oracles/pdf_pdfcop.sh"),
            args: &["Illegal character \"&\" in raw string"],
            explain: "pdfcop still crashes with REXML's message",
        },
        lang: "pdf",
        full: Plan {
            algorithms: &[("gtr*", "pdf")],
            jobs: &[2],
            others: &[],
        },
        quick: NO_QUICK_PLAN,
        tools: &[PDFCOP, TIMEOUT, QPDF],
        check: Some(VALID_PDF),
        gate_rejections_column: true,
        note: Some(PDFCOP_JOBS_NOTE),
        npm: None,
        show: SHOW_PDF,
        budget_minutes: None,
        coverage: false,
        test_timeout_seconds: None,
        oracle_env: &[],
    },
    Case {
        id: "pdf-openaction-small",
        about: "A tiny smoke test: a 1 KB PDF whose /OpenAction is JavaScript calling \
                `this.print`, which pdf.js must still find.",
        file_name: "issue6106.pdf",
        source: Source::Shared {
            path: "bench-data/pdf/issue6106.pdf",
        },
        oracle: Oracle {
            script: Script::Shared("bench/oracles/pdf_pdfjs_jsactions.sh"),
            args: &["^OpenAction$", "this.print"],
            explain: "pdf.js still loads the file and reports a document-level JavaScript \
                      action named `OpenAction` whose code contains `this.print` (about 0.4 s \
                      per call)",
        },
        lang: "pdf",
        full: Plan {
            algorithms: &[("hdd*", "pdf"), ("gtr*", "pdf")],
            jobs: &[1, 2],
            others: &[Other::CVise, Other::Picire, Other::Lithium],
        },
        quick: Plan {
            algorithms: &[("gtr*", "pdf")],
            jobs: &[1],
            others: &[],
        },
        tools: &[NODE, PYTHON3, TIMEOUT, QPDF],
        check: Some(VALID_PDF),
        gate_rejections_column: true,
        note: None,
        npm: Some(PDFJS),
        show: SHOW_PDF,
        budget_minutes: None,
        coverage: false,
        test_timeout_seconds: None,
        oracle_env: &[],
    },
    Case {
        id: "js-prettier-acorn",
        about: "prettier 3.10.1 is not idempotent on acorn's bundle: formatting its output again \
                changes it (prettier issues #15537, #19271), which `--debug-check` reports.",
        file_name: "acorn-8.19.0.js",
        source: Source::Npm {
            spec: "acorn@8.19.0",
            path: "dist/acorn.js",
            append: None,
        },
        oracle: Oracle {
            script: Script::Shared("bench/oracles/js_prettier_debugcheck.sh"),
            args: &[],
            explain: "`prettier --debug-check` still reports `prettier(input) !== \
                      prettier(prettier(input))` (4–7 s per call on the original, fast once small)",
        },
        lang: "javascript",
        full: Plan {
            algorithms: &[("ddmin", LINES), ("gtr*", "javascript")],
            jobs: &[2],
            others: &[Other::Treereduce, Other::Picire],
        },
        quick: NO_QUICK_PLAN,
        tools: &[NODE],
        check: Some(VALID_JS),
        gate_rejections_column: true,
        note: None,
        npm: Some(PRETTIER),
        show: Show::Raw,
        budget_minutes: Some(2.5),
        coverage: false,
        test_timeout_seconds: None,
        oracle_env: &[],
    },
    Case {
        id: "js-engines-numbro",
        about: "node and mujs disagree on a regular expression deep inside numbro's formatter \
                (mujs: `invalid quantifier`); the reducer must keep the call path from the \
                driver down to it.",
        file_name: "numbro-2.1.2-with-driver.js",
        source: Source::Npm {
            spec: "numbro@2.1.2",
            path: "dist/numbro.js",
            append: Some("bench/numbro_driver.js"),
        },
        oracle: Oracle {
            script: Script::Shared("bench/oracles/js_engine_diff.sh"),
            args: &["node", "mujs", "regular expression: invalid quantifier"],
            explain: "node's and mujs's outputs differ and mujs's says `invalid quantifier` \
                      (about 0.4 s per call; thousands of calls, so the runs have a budget). \
                      Some candidates make the driver loop forever, printing tens of MB a \
                      second, which the oracle holds in memory: `ORACLE_TIMEOUT=2` (per engine; \
                      the original takes 0.2 s) and a 10 s test timeout keep such a candidate \
                      from eating the budget, and the peak memory of these runs is that of the \
                      oracle's shell, not of the reducer",
        },
        lang: "javascript",
        full: Plan {
            algorithms: &[("ddmin", LINES), ("gtr*", "javascript")],
            jobs: &[2],
            others: &[Other::Treereduce, Other::Picire],
        },
        quick: NO_QUICK_PLAN,
        tools: &[NODE, MUJS, TIMEOUT],
        check: Some(VALID_JS),
        gate_rejections_column: true,
        note: None,
        npm: None,
        show: Show::Raw,
        budget_minutes: Some(4.0),
        coverage: false,
        test_timeout_seconds: Some(10),
        oracle_env: &[("ORACLE_TIMEOUT", "2")],
    },
];

/// One line of a case's table, less the `-j`: an algorithm on a format, with the shipped rules
/// or with `--no-rules`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Step {
    pub(crate) algorithm: &'static str,
    pub(crate) lang: &'static str,
    /// Whether whittle uses its shipped rules (its default); `false` is `--no-rules`.
    pub(crate) rules: bool,
}

impl Plan {
    /// What runs, in the order of the table: each algorithm of the plan, and right after it
    /// the same without rules if it is one of [`ALSO_WITHOUT_RULES`]. Each runs at every `-j`.
    pub(crate) fn steps(&self) -> Vec<Step> {
        let mut steps = Vec::new();
        for &(algorithm, lang) in self.algorithms {
            steps.push(Step {
                algorithm,
                lang,
                rules: true,
            });
            if ALSO_WITHOUT_RULES.contains(&algorithm) {
                steps.push(Step {
                    algorithm,
                    lang,
                    rules: false,
                });
            }
        }
        steps
    }

    /// Whether the plan runs nothing (a case with no quick plan).
    pub(crate) fn is_empty(&self) -> bool {
        self.algorithms.is_empty() || self.jobs.is_empty()
    }
}

impl Case {
    /// The plan of a full or a quick run.
    pub(crate) fn plan(&self, quick: bool) -> Plan {
        if quick { self.quick } else { self.full }
    }

    /// The oracle as the document shows it: the command (with `VAR=…` before it for the folder
    /// of an npm tool), and what it does.
    pub(crate) fn oracle_sentence(&self) -> String {
        let mut prefix: String = self
            .oracle_env
            .iter()
            .map(|(k, v)| format!("{k}={} ", shell_quote(v)))
            .collect();
        if let Some(n) = self.npm {
            let _ = write!(prefix, "{}=… ", n.env);
        }
        let mut text = format!(
            "`{prefix}{}` (exit 0 = interesting)",
            self.oracle.test_command(&self.oracle.shown_path())
        );
        if !self.oracle.explain.is_empty() {
            text.push_str(": ");
            text.push_str(self.oracle.explain);
        }
        if let Some(seconds) = self.test_timeout_seconds {
            let _ = write!(
                text,
                "; every reducer stops a test after {seconds} s (whittle's `--timeout`)"
            );
        }
        if let Some(n) = self.npm {
            let _ = write!(
                text,
                "; `{}` is `{}`, where the benchmark installs {} (npm `{}`) as \
                 `../shared/bench/setup_tools.sh` does",
                n.env,
                n.dir_path().display(),
                n.name,
                n.spec()
            );
        }
        text
    }

    /// Where the input is kept, relative to the workspace root.
    pub(crate) fn input_path(&self) -> PathBuf {
        Path::new("target/bench-inputs")
            .join(self.lang)
            .join(self.file_name)
    }

    /// The sentence saying which algorithm works on which format, e.g. "`ddmin` works on
    /// `--lang lines`, `hdd` and `gtr` on `--lang xml`."
    pub(crate) fn formats_sentence(&self, quick: bool) -> String {
        let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
        for &(algorithm, lang) in self.plan(quick).algorithms {
            match groups.iter_mut().find(|(l, _)| *l == lang) {
                Some((_, algorithms)) => algorithms.push(algorithm),
                None => groups.push((lang, vec![algorithm])),
            }
        }
        let parts: Vec<String> = groups
            .iter()
            .map(|(lang, algorithms)| {
                let names: Vec<String> = algorithms.iter().map(|a| format!("`{a}`")).collect();
                format!("{} on `--lang {lang}`", join_words(&names))
            })
            .collect();
        let without: Vec<String> = self
            .plan(quick)
            .algorithms
            .iter()
            .filter(|(a, _)| ALSO_WITHOUT_RULES.contains(a))
            .map(|(a, _)| format!("`{a}`"))
            .collect();
        format!(
            "Algorithms: {}; `-j` {}.{}",
            parts.join(", "),
            join_words(
                &self
                    .plan(quick)
                    .jobs
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
            ),
            if without.is_empty() {
                String::new()
            } else {
                format!(" {} also run with `--no-rules`.", join_words(&without))
            }
        )
    }
}

impl Oracle {
    /// The script's path: `shared` is the shared folder, `root` the workspace root.
    pub(crate) fn script_path(&self, shared: &Path, root: &Path) -> PathBuf {
        match self.script {
            Script::Shared(p) => shared.join(p),
            Script::Repo(p) => root.join(p),
        }
    }

    /// The script's path as the document shows it (relative to the workspace root).
    pub(crate) fn shown_path(&self) -> PathBuf {
        match self.script {
            Script::Shared(p) => Path::new("../shared").join(p),
            Script::Repo(p) => PathBuf::from(p),
        }
    }

    /// The `--test` command running `script`: `SCRIPT {} ARGS...`, quoted for a shell.
    pub(crate) fn test_command(&self, script: &Path) -> String {
        let mut words = vec![shell_quote(&script.to_string_lossy()), "{}".to_string()];
        words.extend(self.args.iter().map(|a| shell_quote(a)));
        words.join(" ")
    }
}

impl Check {
    /// The command line, with `FILE` for the file, as the document shows it.
    pub(crate) fn shown(&self) -> String {
        let mut words = vec![self.program.to_string()];
        words.extend(self.args.iter().map(|a| shell_quote(a)));
        words.push("FILE".to_string());
        words.join(" ")
    }
}

/// `a`, `a and b`, `a, b and c`.
pub(crate) fn join_words(words: &[String]) -> String {
    match words {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
