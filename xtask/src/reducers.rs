//! The other reducers the benchmark runs beside whittle, with the same test: how each is
//! installed (from Debian, PyPI or crates.io, pinned), how it is called, where it leaves its
//! result and how its log says it finished. Each calls the case's oracle through the counting
//! wrapper `xtask/oracles/count.sh`. Nothing here starts a process except [`ensure`], so the
//! command lines and the log parsing are unit-tested beside it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Another reducer.
/// In a case file, a reducer is named by its id ([`Other::id`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Other {
    CReduce,
    CVise,
    Picire,
    Lithium,
    ShrinkRay,
    Treereduce,
    #[serde(rename = "treereduce-c")]
    TreereduceC,
}

/// How a reducer is installed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Install {
    /// A Debian package (`apt-get install -y`), whose program is on `PATH`.
    Debian {
        package: &'static str,
        program: &'static str,
    },
    /// A PyPI package pinned to `version`, in a virtual environment
    /// `target/bench-tools/VENV` made with a Python of at least `min_python`.
    Pip {
        package: &'static str,
        version: &'static str,
        venv: &'static str,
        min_python: (u32, u32),
        program: &'static str,
    },
    /// A crate pinned to `version`, `cargo install --locked --root target/bench-tools/cargo`.
    Cargo {
        krate: &'static str,
        version: &'static str,
        program: &'static str,
    },
}

/// How a reducer hands a candidate to its test, which decides the test script it gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Calls {
    /// The test is run without arguments in a directory holding the candidate under the input's
    /// file name (C-Reduce, C-Vise).
    FileInCwd,
    /// The test gets the candidate's path as its one argument (picire, Shrink Ray).
    PathArgument,
    /// The reducer's own command line names the wrapper, and the candidate is `FILE` (lithium,
    /// which writes each candidate over the file it reduces) or `@@` (treereduce).
    Direct,
}

impl Other {
    pub(crate) const ALL: [Other; 7] = [
        Other::CReduce,
        Other::CVise,
        Other::Picire,
        Other::Lithium,
        Other::ShrinkRay,
        Other::Treereduce,
        Other::TreereduceC,
    ];

    /// The id of `--reducer` and of the tables.
    pub(crate) fn id(self) -> &'static str {
        match self {
            Other::CReduce => "creduce",
            Other::CVise => "cvise",
            Other::Picire => "picire",
            Other::Lithium => "lithium",
            Other::ShrinkRay => "shrinkray",
            Other::Treereduce => "treereduce",
            Other::TreereduceC => "treereduce-c",
        }
    }

    pub(crate) fn from_id(id: &str) -> Option<Other> {
        Other::ALL.into_iter().find(|o| o.id() == id)
    }

    /// The name people know it by.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Other::CReduce => "C-Reduce",
            Other::CVise => "C-Vise",
            Other::Picire => "picire",
            Other::Lithium => "lithium",
            Other::ShrinkRay => "Shrink Ray",
            Other::Treereduce => "treereduce",
            Other::TreereduceC => "treereduce-c",
        }
    }

    pub(crate) fn install(self) -> Install {
        match self {
            Other::CReduce => Install::Debian {
                package: "creduce",
                program: "creduce",
            },
            Other::CVise => Install::Debian {
                package: "cvise",
                program: "cvise",
            },
            Other::Picire => Install::Pip {
                package: "picire",
                version: "21.8",
                venv: "py",
                min_python: (3, 8),
                program: "picire",
            },
            Other::Lithium => Install::Pip {
                package: "lithium-reducer",
                version: "4.0.0",
                venv: "py",
                min_python: (3, 8),
                program: "lithium",
            },
            Other::ShrinkRay => Install::Pip {
                package: "shrinkray",
                version: "26.9.13.0",
                venv: "py312",
                min_python: (3, 12),
                program: "shrinkray",
            },
            Other::Treereduce => Install::Cargo {
                krate: "treereduce-javascript",
                version: "0.4.1",
                program: "treereduce-javascript",
            },
            Other::TreereduceC => Install::Cargo {
                krate: "treereduce-c",
                version: "0.4.1",
                program: "treereduce-c",
            },
        }
    }

    /// The formats (`--lang` of the case) it can reduce: treereduce is installed for
    /// JavaScript and C (its Python and XML front ends are not published as programs; its C
    /// one reads C only).
    pub(crate) fn handles(self, lang: &str) -> bool {
        match self {
            Other::Treereduce => lang == "javascript",
            Other::TreereduceC => lang == "c",
            _ => true,
        }
    }

    /// How it reduces, for the document.
    pub(crate) fn about(self) -> &'static str {
        match self {
            Other::CReduce => {
                "full C mode (`clang_delta`) on C and C++ cases; elsewhere `--not-c`: its \
                 language-independent passes (lines, tokens, balanced brackets)"
            }
            Other::CVise => {
                "full C mode (`clang_delta`) on C and C++ cases; elsewhere `--not-c`: C-Reduce's \
                 passes reimplemented in Python"
            }
            Other::Picire => "ddmin over lines (`-a line`), content cache, parallel at `-j 2`",
            Other::Lithium => "ddmin-like chunk removal over lines, sequential",
            Other::ShrinkRay => "many generic passes (no LLM: no model is reachable here)",
            Other::Treereduce | Other::TreereduceC => {
                "tree-sitter-based deletion and hoisting over the syntax tree"
            }
        }
    }

    pub(crate) fn calls(self) -> Calls {
        match self {
            Other::CReduce | Other::CVise => Calls::FileInCwd,
            Other::Picire | Other::ShrinkRay => Calls::PathArgument,
            Other::Lithium | Other::Treereduce | Other::TreereduceC => Calls::Direct,
        }
    }

    /// Whether it runs several tests at once (with `jobs` > 1).
    pub(crate) fn parallel(self) -> bool {
        self != Other::Lithium
    }

    /// The arguments of the reducer, run in `job.dir` (for C-Reduce and C-Vise: `job.dir/work`).
    pub(crate) fn args(self, job: &Job<'_>) -> Vec<OsString> {
        let j = job.jobs.to_string();
        let timeout = job.test_timeout_seconds.to_string();
        let mut a: Vec<OsString> = Vec::new();
        fn push(a: &mut Vec<OsString>, words: &[&str]) {
            a.extend(words.iter().map(OsString::from));
        }
        match self {
            Other::CReduce | Other::CVise => {
                // Full C mode (clang_delta's passes) where the input is C or C++.
                if !is_c_family(job.lang) {
                    a.push("--not-c".into());
                }
                push(&mut a, &["--n", &j, "--tidy", "--timeout", &timeout]);
                a.push(job.test_script.into());
                a.push(job.file_name.into());
            }
            Other::Picire => {
                a.push("-i".into());
                a.push(job.work_file.into());
                a.push("--test".into());
                a.push(job.test_script.into());
                a.push("-o".into());
                a.push(job.dir.join("picire-out").into());
                push(&mut a, &["-a", "line", "--cache", "content"]);
                if job.jobs > 1 {
                    push(&mut a, &["-p", "-j", &j]);
                }
            }
            Other::Lithium => {
                a.push("--testcase".into());
                a.push(job.work_file.into());
                a.push(job.lithium_condition.into());
                a.extend(job.wrapped(job.work_file.as_os_str()));
            }
            Other::ShrinkRay => {
                push(
                    &mut a,
                    &[
                        "--ui",
                        "basic",
                        "--input-type",
                        "arg",
                        "--parallelism",
                        &j,
                        "--timeout",
                        &timeout,
                    ],
                );
                a.push(job.test_script.into());
                a.push(job.work_file.into());
            }
            Other::Treereduce | Other::TreereduceC => {
                a.push("-s".into());
                a.push(job.work_file.into());
                a.push("-o".into());
                a.push(job.dir.join(format!("out-{}", job.file_name)).into());
                push(&mut a, &["-j", &j, "--timeout", &timeout, "--"]);
                a.extend(job.wrapped("@@".as_ref()));
            }
        }
        a
    }

    /// The test script the reducer calls (`None` for [`Calls::Direct`]).
    pub(crate) fn test_script(self, job: &Job<'_>) -> Option<String> {
        let file = match self.calls() {
            Calls::FileInCwd => format!("\"$PWD\"/{}", whittle_core::shell_quote(job.file_name)),
            Calls::PathArgument => "\"$1\"".to_string(),
            Calls::Direct => return None,
        };
        let mut words: Vec<String> = vec![
            quote_path(job.count),
            quote_path(job.call_log),
            quote_path(job.oracle),
            file,
        ];
        words.extend(job.oracle_args.iter().map(|a| whittle_core::shell_quote(a)));
        Some(format!(
            "#!/bin/sh\n# Written by cargo xtask bench for {}: the case's oracle through the \
             counting wrapper.\nexec {}\n",
            self.name(),
            words.join(" ")
        ))
    }

    /// Where the reducer leaves its result: the file it reduced in place, its `-o` file, or
    /// (picire) the file its log names.
    pub(crate) fn output(self, job: &Job<'_>, log: &str) -> PathBuf {
        match self {
            Other::CReduce | Other::CVise | Other::Lithium | Other::ShrinkRay => {
                job.work_file.to_path_buf()
            }
            Other::Picire => log
                .lines()
                .find_map(|l| l.trim().strip_prefix("Output saved to "))
                .map_or_else(
                    || job.dir.join("picire-out").join(job.file_name),
                    |p| PathBuf::from(p.trim()),
                ),
            Other::Treereduce | Other::TreereduceC => {
                job.dir.join(format!("out-{}", job.file_name))
            }
        }
    }

    /// Whether the reducer's log (stdout and stderr) says it finished its reduction.
    pub(crate) fn finished(self, log: &str) -> bool {
        match self {
            // Both end by printing the reduced file under a banner naming it.
            Other::CReduce => log.lines().any(|l| {
                let l = l.trim();
                l.starts_with("********") && l.ends_with("********")
            }),
            Other::CVise => log.lines().any(|l| l.trim() == "Reduced test-cases:"),
            Other::Picire => log
                .lines()
                .any(|l| l.trim().starts_with("Output saved to ")),
            Other::Lithium => log.lines().any(|l| l.trim().starts_with("Final size:")),
            Other::ShrinkRay => log.lines().any(|l| l.trim() == "Reduction completed!"),
            Other::Treereduce | Other::TreereduceC => {
                log.lines().any(|l| l.contains("Total time:"))
            }
        }
    }

    /// The number of tests the reducer itself says it ran, where its log says (lithium's
    /// "Tests performed: N"), to cross-check the wrapper's count.
    pub(crate) fn own_call_count(self, log: &str) -> Option<u64> {
        match self {
            Other::Lithium => log
                .lines()
                .find_map(|l| l.trim().strip_prefix("Tests performed:"))
                .and_then(|n| n.trim().parse().ok()),
            _ => None,
        }
    }
}

/// `'path'` for a shell.
fn quote_path(p: &Path) -> String {
    whittle_core::shell_quote(&p.to_string_lossy())
}

/// Everything a reducer's command line needs.
#[derive(Clone, Debug)]
pub(crate) struct Job<'a> {
    /// The run's own directory.
    pub(crate) dir: &'a Path,
    /// The copy of the input the reducer works on: `dir/work/FILE_NAME`.
    pub(crate) work_file: &'a Path,
    /// The input's file name.
    pub(crate) file_name: &'a str,
    /// The test script written for the reducer (see [`Other::test_script`]).
    pub(crate) test_script: &'a Path,
    /// lithium's condition module `xtask/oracles/lithium_exit0.py`.
    pub(crate) lithium_condition: &'a Path,
    /// The counting wrapper and its log.
    pub(crate) count: &'a Path,
    pub(crate) call_log: &'a Path,
    /// The case's oracle script and its arguments after the file.
    pub(crate) oracle: &'a Path,
    pub(crate) oracle_args: &'a [String],
    pub(crate) jobs: usize,
    /// The reducer's own timeout of one test, where it has one.
    pub(crate) test_timeout_seconds: u64,
    /// The case's format (`--lang`): C-Reduce and C-Vise run in full C mode on `c` and `cpp`.
    pub(crate) lang: &'a str,
}

/// Whether a case's format is C or C++, which C-Reduce's and C-Vise's C passes read.
pub(crate) fn is_c_family(lang: &str) -> bool {
    matches!(lang, "c" | "cpp")
}

impl Job<'_> {
    /// `count.sh LOG ORACLE FILE ARGS...` as separate words.
    fn wrapped(&self, file: &std::ffi::OsStr) -> Vec<OsString> {
        let mut w: Vec<OsString> = vec![
            self.count.into(),
            self.call_log.into(),
            self.oracle.into(),
            file.to_owned(),
        ];
        w.extend(self.oracle_args.iter().map(OsString::from));
        w
    }
}

/// The folder the benchmark installs PyPI and crates.io reducers in, under the workspace root.
pub(crate) const TOOLS: &str = "target/bench-tools";

/// `pip install` spec.
pub(crate) fn pip_spec(package: &str, version: &str) -> String {
    format!("{package}=={version}")
}

/// Parses `Python 3.12.1` (the output of `python --version`) into (3, 12).
pub(crate) fn python_version(text: &str) -> Option<(u32, u32)> {
    let v = text.trim().strip_prefix("Python ")?;
    let mut parts = v.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.trim().parse().ok()?;
    Some((major, minor))
}

#[cfg(test)]
mod tests;
