//! The benchmark's cases: what `cargo xtask bench` reduces, with which algorithms, and how it
//! checks the outputs. Each is one of `../shared/guide/cases.md`, kept as data in its own file
//! `xtask/cases/NN-ID.toml` (`NN` is its place in the document); adding one is adding a file
//! (and, for a new kind of input, a [`Source`] variant and its fetch in `inputs.rs`). Nothing
//! here starts a process, so all of it is unit-tested.

use crate::reducers::Other;
use anyhow::{Context, Result, bail};
use serde::Deserialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use whittle_core::shell_quote;

/// One benchmark case.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Case {
    /// The id used in `../shared/guide/cases.md` and in the tables.
    pub(crate) id: String,
    /// One sentence on what makes the input interesting (markdown).
    pub(crate) about: String,
    /// The input's file name: the candidates whittle tests carry it too.
    pub(crate) file_name: String,
    /// Where the input comes from.
    pub(crate) source: Source,
    /// The test: exit 0 = still interesting.
    pub(crate) oracle: Oracle,
    /// The tree format of the case (`--lang`); also the folder under `target/bench-inputs/`
    /// that holds the case's own.
    pub(crate) lang: String,
    /// Algorithms and `-j` values of the full run.
    pub(crate) full: Plan,
    /// Algorithms and `-j` values of `--quick`.
    #[serde(default)]
    pub(crate) quick: Plan,
    /// Programs the oracle or the check needs, with how to ask their version.
    pub(crate) tools: Vec<Tool>,
    /// A check every output must pass besides the oracle (for example "is valid Python").
    pub(crate) check: Option<Check>,
    /// Whether the table has a column with whittle's gate rejections.
    #[serde(default)]
    pub(crate) gate_rejections_column: bool,
    /// A line printed under the case's table (markdown), such as other reducers' figures.
    pub(crate) note: Option<String>,
    /// The smallest result of another reducer as measured elsewhere and reported with the case
    /// (the peer cases of `../shared/bench-data/peer-cases/README.md`), for the table of calls
    /// to reach the other's size where that reducer does not run here.
    pub(crate) peer: Option<Peer>,
    /// An npm package the oracle needs, which the benchmark installs itself under
    /// `target/bench-tools/` (as `setup_tools.sh` does); without it the case is skipped.
    pub(crate) npm: Option<NpmTool>,
    /// How the document shows the outputs.
    #[serde(default)]
    pub(crate) show: Show,
    /// A budget in minutes for each run of this case (whittle's and the others'), below the
    /// command's own: for a case whose oracle is slow and whose reducers need many calls.
    pub(crate) budget_minutes: Option<f64>,
    /// Whether the oracle compares xmllint's line coverage of libxml2 with the original's
    /// (`xtask/oracles/xml_coverage.sh`): the benchmark then builds the gcov-instrumented
    /// xmllint once (`../shared/bench/build_xmllint_gcov.sh` into
    /// `target/bench-tools/xmllint-gcov`) and records the original's coverage before the runs.
    #[serde(default)]
    pub(crate) coverage: bool,
    /// The timeout of one test, for the other reducers' own option (default:
    /// [`DEFAULT_TEST_TIMEOUT_SECONDS`]; whittle runs with its adaptive default), and environment variables for the oracle: for a case
    /// whose candidates can make the tested program loop, which would otherwise spend the
    /// budget in a few hung tests.
    pub(crate) test_timeout_seconds: Option<u64>,
    #[serde(default)]
    pub(crate) oracle_env: Vec<(String, String)>,
    /// whittle's `--timeout` for this case (default: none, its adaptive timeout): for a case
    /// whose figures are times, so that the load of many tests at once cannot turn a slow
    /// test into a timeout and change the counts.
    pub(crate) whittle_timeout_seconds: Option<u64>,
}

/// Another reducer's smallest result on a case, as reported with it: not measured here.
#[derive(Clone, Debug, Deserialize, serde::Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub(crate) struct Peer {
    /// Its name (`lithium`, `picire and lithium`).
    pub(crate) reducer: String,
    pub(crate) bytes: u64,
    /// Its test runs, through a counting wrapper.
    pub(crate) calls: u64,
    pub(crate) jobs: usize,
}

/// The timeout of one test when a case sets none: longer than any original input's test takes.
pub(crate) const DEFAULT_TEST_TIMEOUT_SECONDS: u64 = 120;

/// The folder of the case files, `xtask/cases/`.
pub(crate) fn cases_dir() -> PathBuf {
    crate::workspace_root().join("xtask/cases")
}

/// Every case of `dir` (its `*.toml` files, in the order of their names, which is the order
/// of the document); ids must be unique.
pub(crate) fn load(dir: &Path) -> Result<Vec<Case>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read the cases in {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let mut cases: Vec<Case> = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let case: Case =
            toml::from_str(&text).with_context(|| format!("bad case file {}", file.display()))?;
        if cases.iter().any(|c| c.id == case.id) {
            bail!("two cases have the id `{}`", case.id);
        }
        cases.push(case);
    }
    Ok(cases)
}

impl Case {
    /// The timeout of one test of this case, in seconds.
    pub(crate) fn test_timeout(&self) -> u64 {
        self.test_timeout_seconds
            .unwrap_or(DEFAULT_TEST_TIMEOUT_SECONDS)
    }
}

/// Where a case's input comes from.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub(crate) enum Source {
    /// A file inside a Debian package, fetched with `apt-get download` (as `get_inputs.sh` does)
    /// and kept between runs.
    Debian { package: String, path: String },
    /// A file under the standard-library folder of the local `python3`
    /// (`sysconfig.get_paths()["stdlib"]`), copied afresh on every run.
    PythonStdlib { path: String },
    /// A file under the shared folder (`../shared`, or `$WHITTLE_SHARED`), copied afresh on
    /// every run.
    Shared { path: String },
    /// A file of this repository (relative to the workspace root), copied afresh on every run.
    Repo { path: String },
    /// A file inside an npm package (`npm pack SPEC`, as `get_inputs.sh` does), with a file of
    /// the shared folder appended (numbro's driver), kept between runs.
    Npm {
        spec: String,
        path: String,
        append: Option<String>,
    },
}

/// Where an oracle script lives.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub(crate) enum Script {
    /// Under the shared folder (`../shared`, or `$WHITTLE_SHARED`).
    Shared(String),
    /// In this repository, relative to the workspace root.
    Repo(String),
}

/// An oracle: a script run as `SCRIPT FILE ARGS...`, exit 0 = interesting.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub(crate) struct Oracle {
    pub(crate) script: Script,
    #[serde(default)]
    pub(crate) args: Vec<String>,
    /// What it does, for the document (markdown; empty if the command says it all).
    #[serde(default)]
    pub(crate) explain: String,
}

/// Which algorithms run, each with its `--lang`, and at which `-j` values.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub(crate) struct Plan {
    pub(crate) algorithms: Vec<(String, String)>,
    pub(crate) jobs: Vec<usize>,
    /// Other reducers run on the case with the same test, at the largest of `jobs`.
    pub(crate) others: Vec<Other>,
}

/// A program a case's test calls. `cargo xtask bench` (and `cargo xtask install`) installs it
/// when it is missing, as `install` says; with `bench --no-install` the case is skipped instead
/// ("tool missing").
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub(crate) struct Tool {
    pub(crate) program: String,
    pub(crate) version: Version,
    /// How to install it: an `apt-get install`, `pip install` or `npm install` command, which
    /// xtask runs when the program is missing (`install::installer` reads it).
    pub(crate) install: String,
}

/// How to learn a tool's version.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub(crate) enum Version {
    /// Run it with these arguments; the first line it prints (stdout or stderr) is the version.
    Args(Vec<String>),
    /// It has no working `--version` (pdfcop says "version unknown" and exits 1): ask `dpkg`
    /// for the version of the Debian package that installs it.
    Debian(String),
}

impl Tool {
    /// The key of the tool's line in the document's "Where and how": how its version is asked.
    pub(crate) fn asked(&self) -> String {
        match &self.version {
            Version::Args(args) => {
                let mut words = vec![self.program.as_str()];
                words.extend(args.iter().map(String::as_str));
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
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub(crate) struct NpmTool {
    /// What it is, for the document ("pdf.js").
    pub(crate) name: String,
    /// The package.
    pub(crate) package: String,
    /// The pinned version (`setup_tools.sh`'s).
    pub(crate) version: String,
    /// The folder under `target/bench-tools/npm/`. Not the package's name: `npm init` names the
    /// folder's own package after it, and npm refuses to install a package of that name into it.
    pub(crate) dir: String,
    /// The environment variable the oracle finds the folder in.
    pub(crate) env: String,
    /// The package `package` is an npm alias of (`uglify-js2@npm:uglify-js@2.8.29`, two versions
    /// of one package side by side), if it is one.
    pub(crate) alias_of: Option<String>,
}

impl NpmTool {
    /// The install folder, relative to the workspace root.
    pub(crate) fn dir_path(&self) -> PathBuf {
        Path::new("target/bench-tools/npm").join(&self.dir)
    }

    /// `package@version` (or `alias@npm:package@version`), as `npm install` takes it.
    pub(crate) fn spec(&self) -> String {
        match &self.alias_of {
            Some(real) => format!("{}@npm:{real}@{}", self.package, self.version),
            None => format!("{}@{}", self.package, self.version),
        }
    }

    /// The `package.json` of the installed package, relative to the workspace root.
    pub(crate) fn package_json(&self) -> PathBuf {
        self.dir_path()
            .join("node_modules")
            .join(&self.package)
            .join("package.json")
    }
}

/// How the document shows a case's outputs.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub(crate) enum Show {
    /// As they are (cut when long).
    #[default]
    Raw,
    /// As `PROGRAM ARGS...` prints them, `{}` in the arguments being the output file: for PDFs,
    /// whose objects whittle copies with their filters and object streams, qpdf's uncompressed
    /// QDF form.
    /// Raw, if the program fails.
    Through { program: String, args: Vec<String> },
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
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub(crate) struct Check {
    /// The column header and the word in findings, e.g. "valid Python".
    pub(crate) name: String,
    pub(crate) program: String,
    pub(crate) args: Vec<String>,
}

/// The algorithms that also run with `--no-rules`, beside their rows with the shipped rules:
/// what the learned rules buy (issue #6). `auto`, whittle's default, runs with its default (the
/// shipped rules) only: what the rules buy is measured on `gtr*`, which `auto` starts with.
pub(crate) const ALSO_WITHOUT_RULES: [&str; 2] = ["gtr", "gtr*"];

/// One line of a case's table, less the `-j`: an algorithm on a format, with the shipped rules
/// or with `--no-rules`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Step<'a> {
    pub(crate) algorithm: &'a str,
    pub(crate) lang: &'a str,
    /// Whether whittle uses its shipped rules (its default); `false` is `--no-rules`.
    pub(crate) rules: bool,
}

impl Plan {
    /// What runs, in the order of the table: each algorithm of the plan, and right after it
    /// the same without rules if it is one of [`ALSO_WITHOUT_RULES`]. Each runs at every `-j`.
    pub(crate) fn steps(&self) -> Vec<Step<'_>> {
        let mut steps = Vec::new();
        for (algorithm, lang) in &self.algorithms {
            steps.push(Step {
                algorithm,
                lang,
                rules: true,
            });
            if ALSO_WITHOUT_RULES.contains(&algorithm.as_str()) {
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
    pub(crate) fn plan(&self, quick: bool) -> &Plan {
        if quick { &self.quick } else { &self.full }
    }

    /// The oracle as the document shows it: the command (with `VAR=…` before it for the folder
    /// of an npm tool), and what it does.
    pub(crate) fn oracle_sentence(&self) -> String {
        let mut prefix: String = self
            .oracle_env
            .iter()
            .map(|(k, v)| format!("{k}={} ", shell_quote(v)))
            .collect();
        if let Some(n) = &self.npm {
            let _ = write!(prefix, "{}=… ", n.env);
        }
        let mut text = format!(
            "`{prefix}{}` (exit 0 = interesting)",
            self.oracle.test_command(&self.oracle.shown_path())
        );
        if !self.oracle.explain.is_empty() {
            text.push_str(": ");
            text.push_str(&self.oracle.explain);
        }
        if let Some(seconds) = self.test_timeout_seconds {
            let _ = write!(
                text,
                "; the other reducers stop a test after {seconds} s (their `--timeout`); whittle \
                 runs with its default, the adaptive timeout of `docs/processes.md`"
            );
        }
        if let Some(n) = &self.npm {
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

    /// Where the input is kept, relative to the workspace root: a folder per case, since two
    /// cases may have inputs of the same name (the C cases' `input.c`), and a run of several
    /// cases gets every input before it runs any.
    pub(crate) fn input_path(&self) -> PathBuf {
        Path::new("target/bench-inputs")
            .join(&self.lang)
            .join(&self.id)
            .join(&self.file_name)
    }

    /// The sentence saying which algorithm works on which format, e.g. "`ddmin` works on
    /// `--lang lines`, `hdd` and `gtr` on `--lang xml`."
    pub(crate) fn formats_sentence(&self, quick: bool) -> String {
        let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
        for (algorithm, lang) in &self.plan(quick).algorithms {
            match groups.iter_mut().find(|(l, _)| l == lang) {
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
            .filter(|(a, _)| ALSO_WITHOUT_RULES.contains(&a.as_str()))
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
        match &self.script {
            Script::Shared(p) => shared.join(p),
            Script::Repo(p) => root.join(p),
        }
    }

    /// The script's path as the document shows it (relative to the workspace root).
    pub(crate) fn shown_path(&self) -> PathBuf {
        match &self.script {
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

#[cfg(test)]
mod tests;
