//! Installing and finding the tools the benchmark runs: the release binary, the other
//! reducers (pinned: Debian, PyPI, crates.io), the npm tools of the oracles, and the versions
//! of the programs the cases need.

use crate::cases::{NpmTool, Tool, Version};
use crate::measure::stderr_tail;
use crate::reducers::{Install, Other};
use crate::{capture, command};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// `cargo build --release -p whittle-cli`, and the path of the binary.
pub(crate) fn build_release(root: &Path) -> Result<PathBuf> {
    eprintln!("building the release binary…");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = command(cargo)
        .args(["build", "--release", "-p", "whittle-cli"])
        .current_dir(root)
        .status()
        .context("cannot run cargo")?;
    if !status.success() {
        bail!("`cargo build --release -p whittle-cli` failed ({status})");
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|t| if t.is_relative() { root.join(t) } else { t })
        .unwrap_or_else(|| root.join("target"));
    let bin = target.join("release/whittle");
    if !bin.is_file() {
        bail!("the build did not produce {}", bin.display());
    }
    Ok(bin)
}

/// The guard program built beside the release binary `whittle` (`whittle-guard`).
pub(crate) fn guard_beside(whittle: &Path) -> Result<PathBuf> {
    let guard = whittle.with_file_name("whittle-guard");
    if !guard.is_file() {
        bail!("the build did not produce {}", guard.display());
    }
    Ok(guard)
}

/// The version of a tool, and where it is on `PATH`; `Err` says why it is missing.
pub(crate) fn tool_version(tool: &Tool) -> Result<String, String> {
    let not_running = || format!("`{}` does not run", tool.program);
    let version = match &tool.version {
        Version::Args(args) => {
            let text = capture_any(command(&tool.program).args(args)).map_err(|_| not_running())?;
            text.lines().next().unwrap_or("").trim().to_string()
        }
        Version::Debian(package) => {
            if on_path(&tool.program).is_none() {
                return Err(format!("`{}` is not on PATH", tool.program));
            }
            let version = capture(
                command("dpkg-query")
                    .args(["-W", "-f", "${Version}"])
                    .arg(package),
            )
            .unwrap_or_else(|_| "unknown version".to_string());
            format!("Debian {package} {version}")
        }
    };
    Ok(match on_path(&tool.program) {
        Some(p) => format!("{version} (`{}`)", p.display()),
        None => version,
    })
}

/// Installs an npm tool in `target/bench-tools/npm/DIR` unless the pinned version is there, as
/// `setup_tools.sh` does (`npm init -y`, then `npm install --save-exact PACKAGE@VERSION`).
/// Returns the folder (absolute), or why it could not.
pub(crate) fn ensure_npm(root: &Path, tool: &NpmTool) -> Result<PathBuf, String> {
    let dir = root.join(tool.dir_path());
    let installed = || {
        std::fs::read_to_string(root.join(tool.package_json()))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v.get("version")?.as_str().map(str::to_string))
    };
    if installed().as_deref() == Some(tool.version.as_str()) {
        return Ok(dir);
    }
    eprintln!(
        "installing {} (npm {}) in {}…",
        tool.name,
        tool.spec(),
        dir.display()
    );
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create the folder: {e}"))?;
    let npm = |args: &[&str]| -> Result<(), String> {
        let out = command("npm")
            .args(args)
            .current_dir(&dir)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run `npm` ({e}; `apt-get install -y npm`)"))?;
        if out.status.success() {
            return Ok(());
        }
        let tail = stderr_tail(&String::from_utf8_lossy(&out.stderr));
        Err(format!(
            "`npm {}` failed ({}){}",
            args.join(" "),
            out.status,
            if tail.is_empty() {
                String::new()
            } else {
                format!(": {}", tail.trim_end_matches('.'))
            }
        ))
    };
    if !dir.join("package.json").is_file() {
        npm(&["init", "-y"])?;
    }
    // Not `--silent` as in setup_tools.sh: the output is captured, and its end says why it failed.
    npm(&["install", "--save-exact", &tool.spec()])?;
    match installed() {
        Some(v) if v == tool.version => Ok(dir),
        Some(v) => Err(format!("npm installed version {v}, not {}", tool.version)),
        None => Err(format!(
            "npm install left no {}",
            tool.package_json().display()
        )),
    }
}

/// Installs another reducer unless it is there (pinned: a Debian package, a PyPI package in a
/// virtual environment of `target/bench-tools/`, or a crate installed under it). Returns its
/// program and version, or why it cannot be installed here.
pub(crate) fn ensure_other(root: &Path, other: Other) -> Result<(PathBuf, String), String> {
    let install = other.install();
    let run = |cmd: &mut std::process::Command| -> Result<String, String> {
        let out = cmd
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
        if out.status.success() {
            return Ok(String::from_utf8_lossy(&out.stdout).trim().to_string());
        }
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        Err(format!(
            "`{}` failed ({}): {}",
            format!("{cmd:?}").replace('"', ""),
            out.status,
            stderr_tail(&text)
        ))
    };
    match install {
        Install::Debian { package, program } => {
            if on_path(program).is_none() {
                eprintln!("installing {package} (apt-get)…");
                let _ = run(command("apt-get").args(["update", "-qq"]));
                run(command("apt-get")
                    .args(["install", "-y", "-qq", package])
                    .env("DEBIAN_FRONTEND", "noninteractive"))?;
            }
            let path = on_path(program).ok_or(format!("`{program}` is not on PATH"))?;
            let version = run(command("dpkg-query")
                .args(["-W", "-f", "${Version}"])
                .arg(package))
            .unwrap_or_else(|_| "unknown version".into());
            let shown = format!("Debian `{package}` {version} (`{}`)", path.display());
            Ok((path, shown))
        }
        Install::Pip {
            package,
            version,
            venv,
            min_python,
            program,
        } => {
            let dir = root.join(crate::reducers::TOOLS).join(venv);
            let bin = dir.join("bin").join(program);
            let pip_version = || {
                run(command(dir.join("bin/python")).args(["-m", "pip", "show", package]))
                    .ok()
                    .and_then(|t| {
                        t.lines()
                            .find_map(|l| l.strip_prefix("Version:").map(|v| v.trim().to_string()))
                    })
            };
            if !bin.is_file() || pip_version().as_deref() != Some(version) {
                let python = find_python(min_python).ok_or(format!(
                    "needs Python ≥ {}.{}, and none was found (on PATH or under pyenv)",
                    min_python.0, min_python.1
                ))?;
                eprintln!(
                    "installing {package} {version} (pip, {})…",
                    python.display()
                );
                if !dir.join("bin/python").is_file() {
                    run(command(&python).arg("-m").arg("venv").arg(&dir))?;
                }
                run(command(dir.join("bin/python"))
                    .args(["-m", "pip", "install", "-q"])
                    .arg(crate::reducers::pip_spec(package, version)))?;
            }
            let got = pip_version().unwrap_or_else(|| "unknown".into());
            let py = run(command(dir.join("bin/python")).arg("--version"))
                .unwrap_or_else(|_| "unknown Python".into());
            Ok((
                bin,
                format!(
                    "PyPI `{package}` {got} ({py}, `{}`)",
                    dir.strip_prefix(root).unwrap_or(&dir).display()
                ),
            ))
        }
        Install::Cargo {
            krate,
            version,
            program,
        } => {
            let dir = root.join(crate::reducers::TOOLS).join("cargo");
            let bin = dir.join("bin").join(program);
            let installed = || {
                run(command(&bin).arg("--version"))
                    .ok()
                    .filter(|v| v.split_whitespace().last() == Some(version))
            };
            if installed().is_none() {
                eprintln!("installing {krate} {version} (cargo install, a few minutes)…");
                let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
                run(command(cargo)
                    .args(["install", "--locked", "--root"])
                    .arg(&dir)
                    .arg(krate)
                    .arg("--version")
                    .arg(format!("={version}"))
                    .env_remove("CARGO_TARGET_DIR"))?;
            }
            let got = installed().ok_or(format!("{program} --version does not say {version}"))?;
            Ok((
                bin,
                format!(
                    "crates.io `{krate}` ({got}, `{}`)",
                    dir.strip_prefix(root).unwrap_or(&dir).display()
                ),
            ))
        }
    }
}

/// A Python of at least `min`: `python3`, `python3.N` on PATH, or one of pyenv's versions.
pub(crate) fn find_python(min: (u32, u32)) -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = ["python3", "python3.14", "python3.13", "python3.12"]
        .iter()
        .filter_map(|p| on_path(p))
        .collect();
    let pyenv = std::env::var_os("PYENV_ROOT")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".pyenv")));
    if let Some(versions) = pyenv.map(|p| p.join("versions"))
        && let Ok(entries) = std::fs::read_dir(versions)
    {
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path().join("bin/python3")))
            .filter(|p| p.is_file())
            .collect();
        found.sort();
        candidates.extend(found.into_iter().rev());
    }
    candidates.into_iter().find(|p| {
        capture_any(command(p).arg("--version"))
            .ok()
            .and_then(|v| crate::reducers::python_version(&v))
            .is_some_and(|v| v >= min)
    })
}

/// The first `program` on `PATH`.
pub(crate) fn on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// Runs a command and returns stdout and stderr together (xmllint prints its version on stderr).
pub(crate) fn capture_any(cmd: &mut std::process::Command) -> Result<String> {
    let out = cmd
        .output()
        .with_context(|| format!("cannot run {cmd:?}"))?;
    if !out.status.success() {
        bail!("{cmd:?} failed ({})", out.status);
    }
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    Ok(text)
}
