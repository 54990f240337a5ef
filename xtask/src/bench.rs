//! `cargo xtask bench`: the side of the benchmark that builds, fetches and runs things. What it
//! measures is turned into markdown by `report.rs`.

use crate::report::{self, Environment, Output, OverheadRow, Report, Row};
use crate::{capture, command, workspace_root};
use anyhow::{Context, Result, bail};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The case of `../shared/guide/cases.md` this benchmark reduces.
const CASE: &str = "xml-iso-entity";
/// The Debian package and the file in it that is the input.
const DEB_PACKAGE: &str = "iso-codes";
const DEB_PATH: &str = "usr/share/xml/iso-codes/iso_3166-2.xml";
const INPUT_NAME: &str = "iso_3166-2.xml";
/// What xmllint must still complain about.
const ORACLE_SCRIPT: &str = "bench/oracles/xml_xmllint_error.sh";
const ORACLE_REGEX: &str = "xmlParseEntityRef: no name";

/// The algorithms of the full run, with the format each one works on.
const FULL: [(&str, &str); 6] = [
    ("ddmin", "lines"),
    ("hdd", "xml"),
    ("hdd*", "xml"),
    ("hdd+", "xml"),
    ("gtr", "xml"),
    ("gtr*", "xml"),
];
const QUICK: [(&str, &str); 2] = [("hdd*", "xml"), ("gtr*", "xml")];

#[derive(clap::Args, Debug)]
pub(crate) struct BenchArgs {
    /// Only hdd* and gtr* at -j 1, plus the overhead rows.
    #[arg(long)]
    quick: bool,
    /// The document to write, relative to the workspace root.
    #[arg(long, default_value = "docs/benchmarks.md")]
    out: PathBuf,
    /// Minutes after which a reduction is interrupted (SIGTERM; whittle then writes its best so
    /// far) and marked so in the table.
    #[arg(long, default_value_t = 15.0)]
    budget_minutes: f64,
    /// Runs of each overhead measurement (the median is reported).
    #[arg(long, default_value_t = 5)]
    repeat: usize,
}

pub(crate) fn run(args: &BenchArgs) -> Result<ExitCode> {
    let started = Instant::now();
    let root = workspace_root();
    let shared = shared_dir(&root)?;
    let oracle = shared.join(ORACLE_SCRIPT);
    if !oracle.is_file() {
        bail!("the oracle {} does not exist", oracle.display());
    }
    let xmllint = capture_any(command("xmllint").arg("--version")).map_err(|_| {
        anyhow::anyhow!(
            "xmllint is needed by the benchmark's oracle but is not installed; \
             install it with `apt-get install -y libxml2-utils`"
        )
    })?;
    let xmllint = xmllint.lines().next().unwrap_or("").trim().to_string();

    let whittle = build_release(&root)?;
    let (input, input_source) = fetch_input(&root)?;
    if !oracle_accepts(&oracle, &input)? {
        bail!(
            "the oracle does not find the original input {} interesting",
            input.display()
        );
    }

    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut env = Environment {
        date: report::utc_date(now),
        command: bench_command(),
        nproc: std::thread::available_parallelism().map_or(1, |n| n.get()),
        cpu: read_proc("/proc/cpuinfo", report::cpu_model),
        memory: read_proc("/proc/meminfo", report::mem_total),
        os: os_name(),
        whittle_commit: git_commit(&root),
        xmllint,
        rustc: capture(command("rustc").arg("--version"))
            .unwrap_or_else(|e| format!("unknown ({e})")),
        input: format!(
            "`{INPUT_NAME}` ({} bytes) from {input_source}, `{DEB_PATH}`, kept in `{}`",
            report::group_digits(std::fs::metadata(&input)?.len()),
            input.strip_prefix(&root).unwrap_or(&input).display()
        ),
        oracle: format!(
            "`{}` (exit 0 = interesting)",
            test_command(Path::new("../shared").join(ORACLE_SCRIPT).as_path())
        ),
        load_before: read_proc("/proc/loadavg", report::load_average),
        load_after: String::new(),
        max_foreign_rustc: 0,
        budget_minutes: args.budget_minutes,
        quick: args.quick,
        total_seconds: 0.0,
    };

    let work = tempfile::Builder::new()
        .prefix("whittle-bench-")
        .tempdir()
        .context("cannot make a temporary directory")?;
    let budget = Duration::from_secs_f64(args.budget_minutes.max(0.0) * 60.0);
    let (plan, jobs): (&[(&str, &str)], &[usize]) = if args.quick {
        (&QUICK, &[1])
    } else {
        (&FULL, &[1, 2])
    };

    let mut rows = Vec::new();
    let mut outputs = Vec::new();
    for &(algorithm, lang) in plan {
        let mut produced: Vec<Option<Vec<u8>>> = Vec::new();
        let first = rows.len();
        for &j in jobs {
            env.max_foreign_rustc = env.max_foreign_rustc.max(foreign_rustc());
            let (row, bytes) = reduce_once(
                &whittle,
                &oracle,
                &input,
                work.path(),
                algorithm,
                lang,
                j,
                budget,
            )?;
            eprintln!("{}", summary_line(&row));
            produced.push(bytes);
            rows.push(row);
        }
        if let [Some(a), Some(b)] = produced.as_slice() {
            let same = a == b;
            for r in &mut rows[first..] {
                r.same_output_across_jobs = Some(same);
            }
        }
        if let Some(Some(bytes)) = produced.first() {
            outputs.push(Output {
                label: format!("`{algorithm}` (`--lang {lang}`, `-j 1`)"),
                bytes: bytes.clone(),
            });
        }
    }

    let overhead = overhead_rows(&whittle, work.path(), args.repeat.max(1), &mut env)?;
    env.load_after = read_proc("/proc/loadavg", report::load_average);
    env.total_seconds = started.elapsed().as_secs_f64();

    let doc = report::document(&env, &rows, &overhead, &outputs);
    let out = root.join(&args.out);
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    std::fs::write(&out, doc + "\n").with_context(|| format!("cannot write {}", out.display()))?;
    eprintln!("\nwrote {}", out.display());
    let findings = report::findings(&rows, &overhead);
    for f in &findings {
        eprintln!("finding: {f}");
    }
    Ok(ExitCode::SUCCESS)
}

/// The shared folder: `$WHITTLE_SHARED`, else `../shared` beside the workspace.
fn shared_dir(root: &Path) -> Result<PathBuf> {
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

/// `cargo build --release -p whittle-cli`, and the path of the binary.
fn build_release(root: &Path) -> Result<PathBuf> {
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

/// Gets `iso_3166-2.xml` into `target/bench-inputs/xml/` as `get_inputs.sh` does, unless it is
/// there already. Returns its path and where it came from.
fn fetch_input(root: &Path) -> Result<(PathBuf, String)> {
    let dir = root.join("target/bench-inputs/xml");
    let file = dir.join(INPUT_NAME);
    let source_note = dir.join(format!("{INPUT_NAME}.source"));
    if file.is_file() {
        let source = std::fs::read_to_string(&source_note)
            .unwrap_or_else(|_| format!("Debian `{DEB_PACKAGE}`"));
        return Ok((file, source.trim().to_string()));
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    eprintln!("fetching {INPUT_NAME} from the Debian package {DEB_PACKAGE}…");
    let tmp = tempfile::Builder::new()
        .prefix("fetch-")
        .tempdir_in(&dir)
        .context("cannot make a temporary directory")?;
    let download = || {
        command("apt-get")
            .args(["download", "-qq", DEB_PACKAGE])
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
            bail!("`apt-get download {DEB_PACKAGE}` failed, also after `apt-get update`");
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
    std::fs::copy(extracted.join(DEB_PATH), &file)
        .with_context(|| format!("{DEB_PATH} is not in {}", deb.display()))?;
    let source = format!("Debian `{DEB_PACKAGE}` {version}");
    std::fs::write(&source_note, format!("{source}\n"))?;
    Ok((file, source))
}

/// The `--test` command for `oracle`.
fn test_command(oracle: &Path) -> String {
    format!(
        "{} {{}} {}",
        report::shell_quote(&oracle.to_string_lossy()),
        report::shell_quote(ORACLE_REGEX)
    )
}

/// Runs the oracle on `file` directly: exit 0 means still interesting.
fn oracle_accepts(oracle: &Path, file: &Path) -> Result<bool> {
    let status = command(oracle)
        .arg(file)
        .arg(ORACLE_REGEX)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .with_context(|| format!("cannot run {}", oracle.display()))?;
    Ok(status.success())
}

/// How one run of whittle ended.
#[derive(Debug)]
struct Finished {
    exit: Option<i32>,
    wall: f64,
    stderr: String,
    budget_hit: bool,
}

/// Runs whittle with `args` in `dir`; past `budget` it is sent SIGTERM (it then writes its best
/// so far and its report), and a minute later SIGKILL.
fn run_whittle(
    whittle: &Path,
    args: &[OsString],
    dir: &Path,
    budget: Duration,
) -> Result<Finished> {
    let err_path = dir.join("stderr.txt");
    let err_file = std::fs::File::create(&err_path)?;
    let started = Instant::now();
    let mut child = command(whittle)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err_file)
        .spawn()
        .with_context(|| format!("cannot run {}", whittle.display()))?;
    let pid = Pid::from_raw(i32::try_from(child.id()).context("process id out of range")?);
    let (done, wait_done) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if wait_done.recv_timeout(budget) != Err(mpsc::RecvTimeoutError::Timeout) {
            return false;
        }
        let _ = kill(pid, Signal::SIGTERM);
        if wait_done.recv_timeout(Duration::from_secs(60)) == Err(mpsc::RecvTimeoutError::Timeout) {
            let _ = kill(pid, Signal::SIGKILL);
        }
        true
    });
    let status = child.wait().context("cannot wait for whittle")?;
    let wall = started.elapsed().as_secs_f64();
    let _ = done.send(());
    let budget_hit = watchdog.join().unwrap_or(false);
    let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    Ok(Finished {
        exit: status.code(),
        wall,
        stderr,
        budget_hit,
    })
}

/// The last few lines of `stderr`, on one line.
fn stderr_tail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(3)..].join(" / ")
}

/// Reduces the input once; returns the row and the output bytes.
#[allow(
    clippy::too_many_arguments,
    reason = "one call site, every argument distinct"
)]
fn reduce_once(
    whittle: &Path,
    oracle: &Path,
    input: &Path,
    work: &Path,
    algorithm: &str,
    lang: &str,
    jobs: usize,
    budget: Duration,
) -> Result<(Row, Option<Vec<u8>>)> {
    let tag = algorithm.replace('*', "star").replace('+', "plus");
    let dir = work.join(format!("{tag}-j{jobs}"));
    std::fs::create_dir_all(&dir)?;
    let out = dir.join(format!("out-{INPUT_NAME}"));
    let json = dir.join("report.json");
    let args: Vec<OsString> = vec![
        "reduce".into(),
        input.into(),
        "--test".into(),
        test_command(oracle).into(),
        "-o".into(),
        out.clone().into(),
        "--lang".into(),
        lang.into(),
        "--algorithm".into(),
        algorithm.into(),
        "-j".into(),
        jobs.to_string().into(),
        "--report".into(),
        json.clone().into(),
        "-q".into(),
    ];
    eprintln!("reducing with {algorithm} --lang {lang} -j {jobs}…");
    let finished = run_whittle(whittle, &args, &dir, budget)?;
    let mut row = Row {
        case: CASE.to_string(),
        algorithm: algorithm.to_string(),
        lang: lang.to_string(),
        jobs,
        budget_minutes_hit: finished.budget_hit.then(|| budget.as_secs_f64() / 60.0),
        ..Row::default()
    };
    let interrupted_ok = finished.budget_hit && finished.exit == Some(130);
    if finished.exit != Some(0) && !interrupted_ok {
        row.failure = Some(format!(
            "exit {} after {:.1} s: {}",
            finished
                .exit
                .map_or("by a signal".to_string(), |c| c.to_string()),
            finished.wall,
            stderr_tail(&finished.stderr)
        ));
    }
    if let Ok(text) = std::fs::read_to_string(&json) {
        row.report = Some(Report::from_json(&text).with_context(|| json.display().to_string())?);
    }
    let bytes = std::fs::read(&out).ok();
    if bytes.is_some() {
        row.still_interesting = Some(oracle_accepts(oracle, &out)?);
    }
    Ok((row, bytes))
}

fn summary_line(r: &Row) -> String {
    match (&r.report, &r.failure) {
        (_, Some(why)) => format!("  failed: {why}"),
        (Some(rep), None) => format!(
            "  {} → {} bytes, {} oracle calls, {:.2} s, still interesting: {}",
            rep.bytes_before,
            rep.bytes_after,
            rep.oracle_calls,
            rep.wall_seconds,
            report::yes_no(r.still_interesting)
        ),
        (None, None) => "  finished, but wrote no report".to_string(),
    }
}

/// The overhead measurements: an always-true test (with and without the gate) and an
/// always-false test, which whittle should refuse with exit status 2, and a cheap real test,
/// each run `repeat` times on a ~1 KB catalogue.
fn overhead_rows(
    whittle: &Path,
    work: &Path,
    repeat: usize,
    env: &mut Environment,
) -> Result<Vec<OverheadRow>> {
    let dir = work.join("overhead");
    std::fs::create_dir_all(&dir)?;
    let plain = dir.join("catalogue.xml");
    let marked = dir.join("catalogue-marker.xml");
    let plain_text = report::catalogue(1000, None);
    let marked_text = report::catalogue(1000, Some("MARKER"));
    std::fs::write(&plain, &plain_text)?;
    std::fs::write(&marked, &marked_text)?;
    let plain = (plain.as_path(), plain_text.len());
    let marked = (marked.as_path(), marked_text.len());
    let cases: [OverheadCase<'_>; 4] = [
        ("always-true test (too permissive)", plain, "true", &[], 2),
        (
            "always-true test (too permissive)",
            plain,
            "true",
            &["--no-gate"],
            2,
        ),
        (
            "always-false test (not interesting)",
            plain,
            "false",
            &[],
            2,
        ),
        ("cheap real test", marked, "grep -q MARKER {}", &[], 0),
    ];
    let mut rows = Vec::new();
    for (case, (input, size), test, options, expected) in cases {
        eprintln!("overhead: {case} {options:?}, {repeat} runs…");
        let out = dir.join("out.xml");
        let json = dir.join("report.json");
        let mut row = OverheadRow {
            case: case.to_string(),
            input_bytes: size,
            test: test.to_string(),
            options: options.join(" "),
            algorithm: "gtr*".to_string(),
            jobs: 1,
            expected_exit: expected,
            ..OverheadRow::default()
        };
        for _ in 0..repeat {
            let _ = std::fs::remove_file(&json);
            let mut args: Vec<OsString> = vec![
                "reduce".into(),
                input.into(),
                "--test".into(),
                test.into(),
                "-o".into(),
                out.clone().into(),
                "--lang".into(),
                "xml".into(),
                "--algorithm".into(),
                "gtr*".into(),
                "-j".into(),
                "1".into(),
                "--report".into(),
                json.clone().into(),
                "-q".into(),
            ];
            args.extend(options.iter().map(OsString::from));
            env.max_foreign_rustc = env.max_foreign_rustc.max(foreign_rustc());
            let f = run_whittle(whittle, &args, &dir, Duration::from_secs(600))?;
            row.exits.push(f.exit);
            row.walls.push(f.wall);
        }
        // whittle writes a report only when it finishes a reduction.
        if let Ok(text) = std::fs::read_to_string(&json) {
            row.report = Some(Report::from_json(&text)?);
        }
        eprintln!(
            "  median {:.1} ms, exits {:?}",
            report::median(&row.walls).unwrap_or(0.0) * 1000.0,
            row.exits
        );
        rows.push(row);
    }
    Ok(rows)
}

/// An overhead measurement: case, (input, its size), test, extra options, expected exit status.
type OverheadCase<'a> = (&'a str, (&'a Path, usize), &'a str, &'a [&'a str], i32);

/// `cargo xtask` and the arguments this process got, quoted for a shell.
fn bench_command() -> String {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .map(|a| report::shell_quote(&a))
        .collect();
    format!("cargo xtask {}", args.join(" "))
}

/// Reads a `/proc` file and extracts something from it, or says it could not.
fn read_proc(path: &str, extract: fn(&str) -> Option<String>) -> String {
    std::fs::read_to_string(path)
        .ok()
        .as_deref()
        .and_then(extract)
        .unwrap_or_else(|| "unknown".to_string())
}

/// `PRETTY_NAME` of `/etc/os-release` and the kernel release.
fn os_name() -> String {
    let os = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                .map(|v| v.trim_matches('"').to_string())
        })
        .unwrap_or_else(|| "unknown OS".to_string());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map_or_else(|_| "unknown".to_string(), |k| k.trim().to_string());
    format!("{os}, Linux {kernel}")
}

/// The commit of the workspace, and whether the working tree differs from it.
fn git_commit(root: &Path) -> String {
    let Ok(commit) =
        capture(
            command("git")
                .arg("-C")
                .arg(root)
                .args(["rev-parse", "--short=12", "HEAD"]),
        )
    else {
        return "unknown (not a git checkout)".to_string();
    };
    let dirty = capture(
        command("git")
            .arg("-C")
            .arg(root)
            .args(["status", "--porcelain"]),
    )
    .is_ok_and(|s| !s.is_empty());
    if dirty {
        format!("`{commit}` plus uncommitted changes in the working tree (work in progress)")
    } else {
        format!("`{commit}`")
    }
}

/// Runs a command and returns stdout and stderr together (xmllint prints its version on stderr).
fn capture_any(cmd: &mut std::process::Command) -> Result<String> {
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

/// How many `rustc` (or `clippy-driver`) processes are running: other engineers' builds, which
/// make the timings noisy.
fn foreign_rustc() -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("comm")).ok())
        .filter(|c| matches!(c.trim(), "rustc" | "clippy-driver"))
        .count()
}
