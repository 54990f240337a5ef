//! What the end-to-end tests share: a scratch directory to run `whittle` and other programs in,
//! and the text of what they printed.
#![allow(dead_code, reason = "each test file uses a part of it")]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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
        let p = self.write(name, &format!("#!/bin/sh\n{body}\n"));
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).expect("chmod");
        p
    }

    /// `whittle` with these arguments, to run in the scratch directory.
    pub(crate) fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_whittle"));
        c.args(args).current_dir(self.dir.path());
        c
    }

    pub(crate) fn whittle(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("run whittle")
    }

    /// Another program, run in the scratch directory.
    pub(crate) fn run(&self, program: &str, args: &[&str]) -> Output {
        Command::new(program)
            .args(args)
            .current_dir(self.dir.path())
            .output()
            .unwrap_or_else(|e| panic!("run {program}: {e}"))
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
