//! What the end-to-end tests share: a scratch directory to run `whittle` and other programs in,
//! the text of what they printed, the fixtures, and the external tools they need.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The workspace's root.
pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A file or directory under `fixtures/` (`pdf/encrypted-rc4.pdf`).
pub(crate) fn fixture(path: &str) -> PathBuf {
    let p = root().join("fixtures").join(path);
    p.canonicalize()
        .unwrap_or_else(|e| panic!("fixture {}: {e}", p.display()))
}

/// Fails the test with what to install unless `program --version` runs: the end-to-end tests
/// run real tools, and `scripts/test` installs them (`package` is the Debian package).
pub(crate) fn require(program: &str, package: &str) {
    let ok = Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "{program} is needed by this test: apt-get install -y {package} (scripts/test does this)"
    );
}

/// The real interpreter behind `python3` (on this machine `python3` can be a slow pyenv shim).
pub(crate) fn python() -> &'static str {
    static PY: OnceLock<String> = OnceLock::new();
    PY.get_or_init(|| {
        let o = Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3 is needed by these tests");
        assert!(o.status.success(), "python3 does not run");
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    })
}

/// `whittle` with these arguments, run in `dir`.
pub(crate) fn whittle(dir: &Path, args: &[&str]) -> Output {
    whittle_at(Path::new(env!("CARGO_BIN_EXE_whittle")), dir, args)
}

/// The `whittle` binary at `binary` (a copy elsewhere) with these arguments, run in `dir`.
pub(crate) fn whittle_at(binary: &Path, dir: &Path, args: &[&str]) -> Output {
    Command::new(binary)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run whittle")
}

/// Writes an executable `sh` script with this body at `dir/name`.
pub(crate) fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, format!("#!/bin/sh\n{body}\n")).expect("write script");
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).expect("chmod");
    p
}

/// Whether a process is still running (a killed one may linger as a zombie until reaped).
pub(crate) fn running(pid: &str) -> bool {
    fs::read_to_string(format!("/proc/{pid}/status")).is_ok_and(|s| {
        !s.lines()
            .any(|l| l.starts_with("State:") && l.contains('Z'))
    })
}

/// A scratch directory with the files of one test case.
pub(crate) struct Case {
    pub(crate) dir: tempfile::TempDir,
}

impl Case {
    pub(crate) fn new() -> Case {
        Case {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub(crate) fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.path(name);
        fs::write(&p, text).expect("write fixture");
        p
    }

    /// An executable `sh` script with this body.
    pub(crate) fn script(&self, name: &str, body: &str) -> PathBuf {
        script(self.dir.path(), name, body)
    }

    /// A copy of a fixture (`pdf/encrypted-rc4.pdf`) in the scratch directory, named `name`.
    pub(crate) fn copy(&self, fixture_path: &str, name: &str) -> PathBuf {
        let p = self.path(name);
        fs::copy(fixture(fixture_path), &p).expect("copy fixture");
        p
    }

    /// `whittle` with these arguments, to run in the scratch directory.
    pub(crate) fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_whittle"));
        c.args(args).current_dir(self.dir.path());
        c
    }

    pub(crate) fn whittle(&self, args: &[&str]) -> Output {
        whittle(self.dir.path(), args)
    }

    /// Another program, run in the scratch directory.
    pub(crate) fn run(&self, program: &str, args: &[&str]) -> Output {
        Command::new(program)
            .args(args)
            .current_dir(self.dir.path())
            .output()
            .unwrap_or_else(|e| panic!("run {program}: {e}"))
    }

    /// `whittle reduce INPUT --test TEST -j 1 --timeout 20 --report r.json`, which must
    /// succeed: the reduced file (`REDUCED`) and the report. The fixed timeout keeps the count
    /// of test runs independent of how fast the machine is.
    pub(crate) fn reduce_at_j1(
        &self,
        input: &str,
        reduced: &str,
        test: &str,
    ) -> (String, serde_json::Value) {
        let args = [
            "reduce",
            input,
            "--test",
            test,
            "-j",
            "1",
            "--timeout",
            "20",
        ];
        let out = self.whittle(&[&args[..], &["--report", "r.json"]].concat());
        assert!(out.status.success(), "{}", stderr(&out));
        let report = serde_json::from_str(&read(&self.path("r.json"))).expect("a JSON report");
        (read(&self.path(reduced)), report)
    }

    /// The lines of a file a test script appends to (none if it does not exist).
    pub(crate) fn lines(&self, name: &str) -> Vec<String> {
        fs::read_to_string(self.path(name))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }
}

pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub(crate) fn read(p: &Path) -> String {
    fs::read_to_string(p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()))
}
