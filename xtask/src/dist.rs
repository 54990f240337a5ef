//! `cargo xtask dist [--check]`: the wheel and the man page of a release, in `target/dist/`.
//!
//! The wheel is built by maturin (`pyproject.toml`: `bindings = "bin"`, both programs of
//! `crates/whittle-cli`), run as an external tool: the one on `PATH`, or one installed pinned into
//! `target/dist-tools/` with pip. The man page `whittle.1` is what the built `whittle man`
//! prints. `--check` then does what a user does, with no cargo on the `PATH`: a fresh virtual
//! environment, `pip install` of the wheel, `whittle reduce` on the README's example, and a test
//! that leaves a background process behind, which the installed guard must kill; it also checks
//! that the man page renders (`man -l`) and that `whittle completions bash` passes `bash -n`.

use crate::{capture, command, workspace_root};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The maturin installed when none is on the `PATH` (and the lowest `pyproject.toml` accepts).
const MATURIN: &str = "maturin==1.16.0";

/// What the README's example reduces to.
const EXAMPLE_RESULT: &str = "<b>&";

#[derive(clap::Args, Debug)]
pub(crate) struct DistArgs {
    /// Then install the wheel into a fresh virtual environment and run whittle from there.
    #[arg(long)]
    check: bool,
}

pub(crate) fn run(args: &DistArgs) -> Result<ExitCode> {
    let root = workspace_root();
    let target = target_dir(&root);
    let dist = target.join("dist");
    std::fs::create_dir_all(&dist)?;
    for old in wheels(&dist)? {
        std::fs::remove_file(old)?;
    }
    let maturin = maturin(&target)?;
    eprintln!("building the wheel with {}…", maturin.display());
    let started = Instant::now();
    let status = command(&maturin)
        .args(["build", "--release", "--out"])
        .arg(&dist)
        .current_dir(&root)
        .env("CARGO_TARGET_DIR", &target)
        .status()
        .context("cannot run maturin")?;
    if !status.success() {
        bail!("`maturin build` failed ({status})");
    }
    let built = started.elapsed();
    let wheel = match wheels(&dist)?.as_slice() {
        [wheel] => wheel.clone(),
        other => bail!("expected one wheel in {}, found {other:?}", dist.display()),
    };
    let whittle = target.join("release/whittle");
    let man = capture(command(&whittle).arg("man"))
        .with_context(|| format!("cannot run {} man", whittle.display()))?;
    let page = dist.join("whittle.1");
    std::fs::write(&page, man + "\n")?;
    let size = std::fs::metadata(&wheel)?.len();
    println!(
        "wheel: {} ({:.1} MB, built in {})\nman page: {}",
        wheel.display(),
        size as f64 / 1e6,
        seconds(built),
        page.display()
    );
    if args.check {
        check(&root, &wheel, &page)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The target directory cargo uses.
fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|t| if t.is_relative() { root.join(t) } else { t })
        .unwrap_or_else(|| root.join("target"))
}

fn wheels(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "whl") {
            found.push(path);
        }
    }
    Ok(found)
}

/// maturin: the one on the `PATH`, else the one in `target/dist-tools/`, installed there with pip
/// if it is not yet.
fn maturin(target: &Path) -> Result<PathBuf> {
    if let Some(found) = on_path("maturin") {
        return Ok(found);
    }
    let venv = target.join("dist-tools");
    let installed = venv.join("bin/maturin");
    if installed.is_file() {
        return Ok(installed);
    }
    eprintln!(
        "maturin is not on the PATH; installing {MATURIN} into {}",
        venv.display()
    );
    let how = format!(
        "install maturin yourself (`pip install {MATURIN}`, or `uv tool install {MATURIN}`) and run this again"
    );
    let created = command("python3").args(["-m", "venv"]).arg(&venv).status();
    if !created.is_ok_and(|s| s.success()) {
        bail!(
            "cannot create a virtual environment with `python3 -m venv` (on Debian: apt-get install python3-venv); or {how}"
        );
    }
    let pip = command(venv.join("bin/pip"))
        .args(["install", "--quiet", MATURIN])
        .status();
    if !pip.is_ok_and(|s| s.success()) || !installed.is_file() {
        bail!("`pip install {MATURIN}` failed; {how}");
    }
    Ok(installed)
}

fn on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

fn seconds(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

/// What a user of the wheel does, on a `PATH` without cargo.
fn check(root: &Path, wheel: &Path, page: &Path) -> Result<()> {
    let scratch = tempfile::tempdir()?;
    let venv = scratch.path().join("venv");
    let path = format!(
        "{}:/usr/local/bin:/usr/bin:/bin",
        venv.join("bin").display()
    );
    let status = command("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .status()?;
    if !status.success() {
        bail!("cannot create a virtual environment ({status})");
    }
    let started = Instant::now();
    capture(
        command(venv.join("bin/pip"))
            .args(["install", "--quiet", "--no-index"])
            .arg(wheel)
            .env("PATH", &path),
    )?;
    println!("pip install of the wheel: {}", seconds(started.elapsed()));
    let bin = venv.join("bin");
    for program in ["whittle", "whittle-guard"] {
        if !bin.join(program).is_file() {
            bail!("the wheel installed no {program} in {}", bin.display());
        }
    }
    if capture(
        command("sh")
            .args(["-c", "command -v cargo || true"])
            .env("PATH", &path),
    )?
    .trim()
    .is_empty()
    {
        println!("cargo is not on the check's PATH: {path}");
    } else {
        bail!("cargo is on the check's PATH ({path}); the check needs a PATH without it");
    }

    // The README's example, from the virtual environment.
    let example = root.join("fixtures/xml/example");
    let out = scratch.path().join("catalog.reduced.xml");
    let started = Instant::now();
    capture(
        command(bin.join("whittle"))
            .arg("reduce")
            .arg(example.join("catalog.xml"))
            .arg("--test")
            .arg(example.join("still-broken.sh"))
            .arg("-o")
            .arg(&out)
            .args(["--no-journal", "-q"])
            .env("PATH", &path),
    )?;
    let result = std::fs::read_to_string(&out)?;
    if result.trim_end() != EXAMPLE_RESULT {
        bail!("the example reduced to {result:?}, not {EXAMPLE_RESULT:?}");
    }
    println!(
        "whittle reduce catalog.xml from the wheel: {result:?} in {}",
        seconds(started.elapsed())
    );

    // A test that leaves a process behind: the guard installed beside whittle kills it.
    let case = scratch.path();
    std::fs::write(case.join("in.txt"), "KEEP\na\nb\nc\n")?;
    let pids = case.join("pids");
    let test = format!(
        "sleep 600 & echo $! >> {}; grep -q KEEP \"$1\"",
        pids.display()
    );
    capture(
        command(bin.join("whittle"))
            .args(["reduce", "in.txt", "--test", &test, "--no-journal", "-q"])
            .current_dir(case)
            .env("PATH", &path),
    )?;
    // The guard kills them as each test ends; give the last kill a moment to land.
    std::thread::sleep(Duration::from_millis(300));
    let started: Vec<String> = std::fs::read_to_string(&pids)?
        .lines()
        .map(str::to_string)
        .collect();
    let alive: Vec<&String> = started
        .iter()
        .filter(|pid| Path::new("/proc").join(pid).exists() && !zombie(pid))
        .collect();
    if !alive.is_empty() {
        bail!("the tests' background processes survived: {alive:?}");
    }
    println!(
        "guard: all {} background processes the tests started were killed",
        started.len()
    );

    // The man page renders, and bash reads the completions.
    capture(command("man").arg("-l").arg(page).env("MANPAGER", "cat"))
        .context("man -l cannot render the man page")?;
    let completions = capture(command(bin.join("whittle")).args(["completions", "bash"]))?;
    let script = scratch.path().join("whittle.bash");
    std::fs::write(&script, completions)?;
    capture(command("bash").arg("-n").arg(&script)).context("bash -n rejects the completions")?;
    println!("man -l renders whittle.1; bash -n accepts `whittle completions bash`");
    Ok(())
}

/// A process that ended but was not reaped yet (its parent, the guard, is gone too).
fn zombie(pid: &str) -> bool {
    std::fs::read_to_string(Path::new("/proc").join(pid).join("stat")).is_ok_and(|s| {
        s.rsplit(')')
            .next()
            .is_some_and(|r| r.trim_start().starts_with('Z'))
    })
}
