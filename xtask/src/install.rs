//! Installing and finding the tools the benchmark runs: the release binary, the other
//! reducers (pinned: Debian, PyPI, crates.io), the npm tools of the oracles, the programs the
//! cases' tests call (their `[[tools]]`, installed as their `install` field says), and the
//! versions of them all.

use crate::cases::{Case, NpmTool, Tool, Version};
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

/// How a tool a case calls is installed, read from its `install` field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Installer {
    /// `apt-get install -y PACKAGE…`: Debian packages.
    Apt(Vec<String>),
    /// `pip install PACKAGE…` (or `python3 -m pip install …`): PyPI packages.
    Pip(Vec<String>),
    /// `npm install -g PACKAGE…`: npm packages, installed globally.
    Npm(Vec<String>),
}

/// The installer of an `install` field (`apt-get install -y origami-pdf`); `Err` if it is not a
/// command xtask runs (`apt-get`/`apt`, `pip`/`pip3`/`python3 -m pip` or `npm`, each with
/// `install` and at least one package; a leading `sudo` is allowed).
pub(crate) fn installer(install: &str) -> Result<Installer, String> {
    let mut words: Vec<&str> = install.split_whitespace().collect();
    if words.first() == Some(&"sudo") {
        words.remove(0);
    }
    type Make = fn(Vec<String>) -> Installer;
    let (kind, rest): (Make, &[&str]) = match words.as_slice() {
        ["apt-get" | "apt", "install", rest @ ..] => (Installer::Apt, rest),
        ["pip" | "pip3", "install", rest @ ..] => (Installer::Pip, rest),
        ["python3" | "python", "-m", "pip", "install", rest @ ..] => (Installer::Pip, rest),
        ["npm", "install" | "i", rest @ ..] => (Installer::Npm, rest),
        _ => {
            return Err(format!(
                "`{install}` is not an install command xtask runs (apt-get, pip or npm install)"
            ));
        }
    };
    let packages: Vec<String> = rest
        .iter()
        .filter(|w| !w.starts_with('-'))
        .map(|w| w.to_string())
        .collect();
    if packages.is_empty() {
        return Err(format!("`{install}` names no package"));
    }
    Ok(kind(packages))
}

/// The commands that install `missing` (tools and their install fields), in order: one
/// `apt-get update` and one `apt-get install` for every Debian package, then one `pip install`
/// and one `npm install -g`; each package once. Without `as_root` they run under `sudo`.
/// `Err` names a tool whose install field is not a command xtask runs.
pub(crate) fn install_commands(missing: &[&Tool], as_root: bool) -> Result<Vec<Vec<String>>> {
    let (mut apt, mut pip, mut npm) = (Vec::new(), Vec::new(), Vec::new());
    for tool in missing {
        let into = match installer(&tool.install) {
            Ok(Installer::Apt(p)) => (&mut apt, p),
            Ok(Installer::Pip(p)) => (&mut pip, p),
            Ok(Installer::Npm(p)) => (&mut npm, p),
            Err(why) => bail!(
                "`{}` is missing and cannot be installed: {why}; install it by hand, or leave its \
                 cases out with --case",
                tool.program
            ),
        };
        for package in into.1 {
            if !into.0.contains(&package) {
                into.0.push(package);
            }
        }
    }
    let words = |w: &[&str]| w.iter().map(|w| w.to_string()).collect::<Vec<String>>();
    let mut commands = Vec::new();
    if !apt.is_empty() {
        commands.push(words(&["apt-get", "update", "-qq"]));
        let mut install = words(&[
            "env",
            "DEBIAN_FRONTEND=noninteractive",
            "apt-get",
            "install",
            "-y",
            "-qq",
        ]);
        install.extend(apt);
        commands.push(install);
    }
    if !pip.is_empty() {
        let mut install = words(&["python3", "-m", "pip", "install", "-q"]);
        install.extend(pip);
        commands.push(install);
    }
    if !npm.is_empty() {
        let mut install = words(&["npm", "install", "-g"]);
        install.extend(npm);
        commands.push(install);
    }
    if !as_root {
        for c in &mut commands {
            c.insert(0, "sudo".to_string());
        }
    }
    Ok(commands)
}

/// The tools of `cases` (each program once) that are missing here, with why.
pub(crate) fn missing_tools(cases: &[Case]) -> Vec<(&Tool, String)> {
    let mut seen: Vec<&str> = Vec::new();
    let mut missing = Vec::new();
    for tool in cases.iter().flat_map(|c| &c.tools) {
        if seen.contains(&tool.program.as_str()) {
            continue;
        }
        seen.push(&tool.program);
        if let Err(why) = tool_version(tool) {
            missing.push((tool, why));
        }
    }
    missing
}

/// Installs the tools of `cases` that are missing (apt-get, pip or npm, as their `install`
/// fields say) and checks that each runs afterwards. Returns the programs it installed; `Err`
/// says which command failed or which tool is still missing, and how to go on without it.
pub(crate) fn install_missing(cases: &[Case]) -> Result<Vec<String>> {
    let missing = missing_tools(cases);
    if missing.is_empty() {
        return Ok(Vec::new());
    }
    let tools: Vec<&Tool> = missing.iter().map(|(t, _)| *t).collect();
    let names: Vec<String> = tools.iter().map(|t| format!("`{}`", t.program)).collect();
    let as_root = capture(command("id").arg("-u")).is_ok_and(|u| u.trim() == "0");
    let commands = install_commands(&tools, as_root)?;
    eprintln!(
        "installing {} for the cases: {}",
        crate::cases::join_words(&names),
        commands
            .iter()
            .map(|c| c.join(" "))
            .collect::<Vec<_>>()
            .join("; ")
    );
    run_installs(&commands, &names)?;
    let still: Vec<String> = tools.iter().filter_map(|t| tool_version(t).err()).collect();
    if !still.is_empty() {
        bail!(
            "after installing, {}; leave their cases out with --case",
            still.join("; ")
        );
    }
    Ok(tools.iter().map(|t| t.program.clone()).collect())
}

/// `cargo xtask install`: what the benchmark needs that is not there.
#[derive(clap::Args, Debug)]
pub(crate) struct InstallArgs {
    /// Only the tools of this case (by its id; repeatable). Default: every case.
    #[arg(long = "case", value_name = "ID")]
    cases: Vec<String>,
}

/// Installs the programs the cases call and the npm tools of their oracles, where missing;
/// `cargo xtask bench` does the same before it runs.
pub(crate) fn run(args: &InstallArgs) -> Result<std::process::ExitCode> {
    let root = crate::workspace_root();
    let all = crate::cases::load(&crate::cases::cases_dir())?;
    let cases = crate::bench::select_cases(&all, &args.cases)?;
    let installed = install_missing(&cases)?;
    for case in &cases {
        if let Some(npm) = &case.npm {
            ensure_npm(&root, npm)
                .map_err(|why| anyhow::anyhow!("case {}: {}: {why}", case.id, npm.name))?;
        }
    }
    for program in &installed {
        if let Some(tool) = cases
            .iter()
            .flat_map(|c| &c.tools)
            .find(|t| t.program == *program)
        {
            let version = tool_version(tool).unwrap_or_else(|why| why);
            eprintln!("installed {program}: {version}");
        }
    }
    if installed.is_empty() {
        eprintln!("every program the cases call is installed");
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// Runs the install commands in order, stopping at the first that fails with what it said;
/// `names` are the tools they install, for the way out.
fn run_installs(commands: &[Vec<String>], names: &[String]) -> Result<()> {
    for c in commands {
        let out = command(&c[0])
            .args(&c[1..])
            .stdin(Stdio::null())
            .output()
            .with_context(|| format!("cannot run `{}`", c.join(" ")))?;
        if !out.status.success() {
            let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&out.stderr));
            bail!(
                "`{}` failed ({}): {}; install {} by hand, or leave their cases out with --case",
                c.join(" "),
                out.status,
                stderr_tail(&text),
                crate::cases::join_words(names)
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
