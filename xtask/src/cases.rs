//! The benchmark's cases: what `cargo xtask bench` reduces, with which algorithms, and how it
//! checks the outputs. Each is one of `../shared/guide/cases.md`; adding one is adding an entry
//! to [`CASES`] (and, for a new kind of input, a [`Source`] variant and its fetch in `bench.rs`).
//! Nothing here starts a process, so all of it is unit-tested in `tests.rs`.

use crate::report::shell_quote;
use std::path::{Path, PathBuf};

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
}

/// A program a case needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tool {
    pub(crate) program: &'static str,
    pub(crate) version_args: &'static [&'static str],
    /// How to get it, for the error message when it is missing.
    pub(crate) install: &'static str,
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
    version_args: &["--version"],
    install: "apt-get install -y libxml2-utils",
};

const PYTHON3: Tool = Tool {
    program: "python3",
    version_args: &["--version"],
    install: "apt-get install -y python3",
};

const TIMEOUT: Tool = Tool {
    program: "timeout",
    version_args: &["--version"],
    install: "apt-get install -y coreutils",
};

/// Every case, in the order of the document.
pub(crate) const CASES: [Case; 2] = [
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
        },
        quick: Plan {
            algorithms: &[("hdd*", "xml"), ("gtr*", "xml")],
            jobs: &[1],
        },
        tools: &[XMLLINT],
        check: None,
        gate_rejections_column: false,
        note: None,
    },
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
            algorithms: &[
                ("ddmin", LINES),
                ("hdd", "python"),
                ("hdd*", "python"),
                ("gtr", "python"),
                ("gtr*", "python"),
            ],
            jobs: &[1, 2],
        },
        quick: Plan {
            algorithms: &[("hdd*", "python"), ("gtr*", "python")],
            jobs: &[1],
        },
        tools: &[PYTHON3, TIMEOUT],
        check: Some(Check {
            name: "valid Python",
            program: "python3",
            args: &["-c", "import ast,sys; ast.parse(open(sys.argv[1]).read())"],
        }),
        gate_rejections_column: true,
        note: Some(
            "For comparison, on this machine C-Reduce reached 137 bytes, C-Vise 142, treereduce \
             230 (from 282) (figures from issue #3, not re-measured here).",
        ),
    },
];

impl Case {
    /// The plan of a full or a quick run.
    pub(crate) fn plan(&self, quick: bool) -> Plan {
        if quick { self.quick } else { self.full }
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
        format!(
            "Algorithms: {}; `-j` {}.",
            parts.join(", "),
            join_words(
                &self
                    .plan(quick)
                    .jobs
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
            )
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
