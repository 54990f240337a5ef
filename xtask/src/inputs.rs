//! Getting a case's input and oracle: fetched from Debian or npm, copied from Python's standard
//! library or the shared folder, and the coverage reference of the coverage cases.

use crate::cases::{Case, Oracle, Source};
use crate::cells::group_digits;
use crate::{capture, command};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// The absolute path of a case's oracle script.
pub(crate) fn oracle_script(oracle: &Oracle, root: &Path) -> Result<PathBuf> {
    let shared = match oracle.script {
        crate::cases::Script::Shared(_) => shared_dir(root)?,
        crate::cases::Script::Repo(_) => PathBuf::new(),
    };
    Ok(oracle.script_path(&shared, root))
}

/// The shared folder: `$WHITTLE_SHARED`, else `../shared` beside the workspace.
pub(crate) fn shared_dir(root: &Path) -> Result<PathBuf> {
    let dir = match std::env::var_os("WHITTLE_SHARED") {
        Some(d) => PathBuf::from(d),
        None => root.join("../shared"),
    };
    dir.canonicalize().with_context(|| {
        format!(
            "cannot find the shared folder {} (set WHITTLE_SHARED to it)",
            dir.display()
        )
    })
}

/// Gets a case's input into `target/bench-inputs/LANG/ID/`. Returns its path and a description of
/// it for the document.
pub(crate) fn fetch_input(root: &Path, case: &Case) -> Result<(PathBuf, String)> {
    let rel = case.input_path();
    let file = root.join(&rel);
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let (origin, verb) = match &case.source {
        Source::Debian { package, path } => (
            format!("{}, `{path}`", fetch_debian(&file, package, path)?),
            "kept in",
        ),
        Source::PythonStdlib { path } => (copy_from_stdlib(&file, path)?, "copied to"),
        Source::Npm { spec, path, append } => (
            fetch_npm(root, &file, spec, path, append.as_deref())?,
            "kept in",
        ),
        Source::Repo { path } => {
            let from = crate::workspace_root().join(path);
            std::fs::copy(&from, &file)
                .with_context(|| format!("cannot copy {}", from.display()))?;
            (format!("`{path}` in this repository"), "copied to")
        }
        Source::Shared { path } => {
            let from = shared_dir(root)?.join(path);
            std::fs::copy(&from, &file)
                .with_context(|| format!("cannot copy {}", from.display()))?;
            (format!("`../shared/{path}`"), "copied to")
        }
    };
    let size = std::fs::metadata(&file)
        .with_context(|| format!("cannot read {}", file.display()))?
        .len();
    Ok((
        file,
        format!(
            "`{}` ({} bytes) from {origin}, {verb} `{}`",
            case.file_name,
            group_digits(size),
            rel.display()
        ),
    ))
}

/// Gets `path` out of the Debian `package` into `file` as `get_inputs.sh` does, unless it is
/// there already. Returns where it came from ("Debian `package` VERSION").
pub(crate) fn fetch_debian(file: &Path, package: &str, path: &str) -> Result<String> {
    let dir = file.parent().unwrap_or(Path::new("."));
    let name = file.file_name().unwrap_or_default().to_string_lossy();
    let source_note = dir.join(format!("{name}.source"));
    if file.is_file() {
        let source =
            std::fs::read_to_string(&source_note).unwrap_or_else(|_| format!("Debian `{package}`"));
        return Ok(source.trim().to_string());
    }
    eprintln!("fetching {name} from the Debian package {package}…");
    let tmp = tempfile::Builder::new()
        .prefix("fetch-")
        .tempdir_in(dir)
        .context("cannot make a temporary directory")?;
    let download = || {
        command("apt-get")
            .args(["download", "-qq", package])
            .current_dir(tmp.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !download() {
        eprintln!("apt-get download failed; running apt-get update and trying again…");
        let _ = command("apt-get")
            .args(["update", "-qq"])
            .stdout(Stdio::null())
            .status();
        if !download() {
            bail!("`apt-get download {package}` failed, also after `apt-get update`");
        }
    }
    let deb = std::fs::read_dir(tmp.path())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "deb"))
        .context("apt-get download left no .deb file")?;
    let version = capture(command("dpkg-deb").args(["-f"]).arg(&deb).arg("Version"))
        .unwrap_or_else(|_| "unknown version".into());
    let extracted = tmp.path().join("d");
    capture(command("dpkg").arg("-x").arg(&deb).arg(&extracted))?;
    std::fs::copy(extracted.join(path), file)
        .with_context(|| format!("{path} is not in {}", deb.display()))?;
    let source = format!("Debian `{package}` {version}");
    std::fs::write(&source_note, format!("{source}\n"))?;
    Ok(source)
}

/// Gets `path` out of the npm package `spec` into `file` as `get_inputs.sh` does (`npm pack`,
/// then the file out of the tarball), with a file of the shared folder appended, unless it is
/// there already. Returns where it came from.
pub(crate) fn fetch_npm(
    root: &Path,
    file: &Path,
    spec: &str,
    path: &str,
    append: Option<&str>,
) -> Result<String> {
    let origin = format!(
        "npm `{spec}`, `{path}`{}",
        append.map_or(String::new(), |a| format!(
            ", with `../shared/{a}` appended"
        ))
    );
    if file.is_file() {
        return Ok(origin);
    }
    eprintln!("fetching {path} from the npm package {spec}…");
    let dir = file.parent().unwrap_or(Path::new("."));
    let tmp = tempfile::Builder::new()
        .prefix("fetch-")
        .tempdir_in(dir)
        .context("cannot make a temporary directory")?;
    let tarball = capture(
        command("npm")
            .args(["pack", "--silent", spec])
            .current_dir(tmp.path()),
    )?;
    let tarball = tarball.lines().last().unwrap_or("").trim().to_string();
    capture(
        command("tar")
            .arg("xzf")
            .arg(&tarball)
            .arg(format!("package/{path}"))
            .current_dir(tmp.path()),
    )?;
    let mut bytes = std::fs::read(tmp.path().join("package").join(path))
        .with_context(|| format!("{path} is not in {tarball}"))?;
    if let Some(a) = append {
        let from = shared_dir(root)?.join(a);
        bytes.extend(
            std::fs::read(&from).with_context(|| format!("cannot read {}", from.display()))?,
        );
    }
    std::fs::write(file, bytes).with_context(|| format!("cannot write {}", file.display()))?;
    Ok(origin)
}

/// Copies `path` of the local `python3`'s standard library to `file`, afresh every run (so the
/// input is always that of the Python the oracle runs). Returns where it came from.
pub(crate) fn copy_from_stdlib(file: &Path, path: &str) -> Result<String> {
    let answer = capture(command("python3").args([
        "-c",
        "import sys, sysconfig; print(sysconfig.get_paths()['stdlib']); \
         print(sys.version.split()[0])",
    ]))
    .context("cannot ask python3 where its standard library is")?;
    let mut lines = answer.lines();
    let stdlib = PathBuf::from(lines.next().unwrap_or("").trim());
    let version = lines.next().unwrap_or("unknown").trim().to_string();
    let from = stdlib.join(path);
    std::fs::copy(&from, file).with_context(|| {
        format!(
            "cannot copy {} (Debian's python3 keeps `test/` in the package \
             libpython3.X-testsuite)",
            from.display()
        )
    })?;
    Ok(format!(
        "the standard library of the local `python3` (Python {version}), `{}`",
        from.display()
    ))
}

/// For a coverage case: the gcov-instrumented xmllint (built once by the shared
/// `build_xmllint_gcov.sh` into `target/bench-tools/xmllint-gcov`, 2–3 minutes), and the lines of
/// libxml2 it executes on `input`, recorded afresh beside it (`NAME.coverage.json`). Returns the
/// build folder, the reference and the shared oracle script.
pub(crate) fn coverage_reference(root: &Path, input: &Path) -> Result<(PathBuf, PathBuf, PathBuf)> {
    let shared = shared_dir(root)?;
    let tools = root.join("target/bench-tools/xmllint-gcov");
    let find = || -> Option<PathBuf> {
        std::fs::read_dir(&tools)
            .ok()?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("xmllint").is_file())
            .min()
    };
    let build = match find() {
        Some(b) => b,
        None => {
            eprintln!("building xmllint with gcov instrumentation (2–3 minutes, once)…");
            std::fs::create_dir_all(&tools)?;
            capture(
                command("bash")
                    .arg(shared.join("bench/build_xmllint_gcov.sh"))
                    .arg(&tools),
            )
            .context("`build_xmllint_gcov.sh` failed (it needs deb-src access, gcc and make)")?;
            find().context("the build left no xmllint")?
        }
    };
    let oracle = shared.join("bench/oracles/xml_gcov_coverage.py");
    let reference = input.with_extension("coverage.json");
    capture(
        command("python3")
            .arg(&oracle)
            .arg("--record")
            .arg(&reference)
            .arg(input)
            .env("XMLLINT_GCOV_DIR", &build),
    )
    .context("cannot record the original's coverage")?;
    Ok((build, reference, oracle))
}
