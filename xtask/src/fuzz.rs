//! `cargo xtask fuzz --target NAME [--minutes N] [--resume] [--minimize]`: a long AFL++ run of
//! one fuzz target (`fuzz/`, see docs/fuzzing.md). Builds the instrumented harness with
//! `cargo afl build` (cargo-afl must be installed: `cargo install cargo-afl`), fuzzes from the
//! saved corpus `fuzz/corpus/NAME/` into `fuzz/out/NAME/`, prints AFL's figures, and with
//! `--minimize` replaces the saved corpus by `afl-cmin`'s selection of the run's queue (`--minutes 0
//! --minimize`: of the last run's queue, without a run).

use crate::{command, workspace_root};
use anyhow::{Context, Result, bail};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// The targets `fuzz/src/main.rs` knows (whittle-fuzz's `Target` names).
const TARGETS: [&str; 9] = [
    "xml",
    "python",
    "javascript",
    "pdf",
    "pdf-nested",
    "lines",
    "trace",
    "c",
    "cpp",
];

/// The longest input AFL makes: the control bytes and whittle-fuzz's `max_document`, so that no
/// execution is spent on an input the harness skips.
const MAX_INPUT: usize = 4 + 4 * 1024;

#[derive(clap::Args, Debug)]
pub(crate) struct FuzzArgs {
    /// The format to fuzz.
    #[arg(long, value_parser = TARGETS)]
    target: String,
    /// How long to fuzz; 0 runs no fuzzer (with `--minimize`: minimize the last run's queue).
    #[arg(long, default_value_t = 10)]
    minutes: u64,
    /// Continue the last run of this target (its queue) instead of starting from the corpus.
    #[arg(long)]
    resume: bool,
    /// After the run, replace fuzz/corpus/TARGET by afl-cmin's minimal subset of the queue.
    #[arg(long)]
    minimize: bool,
    /// AFL's time limit for one execution, in milliseconds (longer counts as a hang).
    #[arg(long, default_value_t = 1000)]
    timeout_ms: u64,
    /// Stop after this many executions (AFL's `-E`), if that comes before `--minutes`.
    #[arg(long)]
    execs: Option<u64>,
}

pub(crate) fn run(args: &FuzzArgs) -> Result<ExitCode> {
    let root = workspace_root();
    let fuzz = root.join("fuzz");
    let binary = build(&fuzz)?;
    let corpus = fuzz.join("corpus").join(&args.target);
    let out = fuzz.join("out").join(&args.target);
    // afl-fuzz creates its output folder, but not the folders above it.
    std::fs::create_dir_all(fuzz.join("out"))?;
    if args.minutes > 0 {
        run_afl(args, &fuzz, &binary, &corpus, &out)?;
    } else if !args.minimize {
        bail!("--minutes 0 runs no fuzzer, and without --minimize there is nothing else to do");
    }
    // This run's figures, or with `--minutes 0` those of the last run.
    let stats = read_stats(&out.join("default/fuzzer_stats"))?;
    println!("{}", summary(&args.target, &stats));
    if args.minimize {
        minimize(&fuzz, &binary, &args.target, &out, &corpus)?;
    }
    let crashes = stats.get("saved_crashes").map_or("0", String::as_str);
    let hangs = stats.get("saved_hangs").map_or("0", String::as_str);
    if crashes != "0" || hangs != "0" {
        println!(
            "crashes in {}, hangs in {}: replay one with `{} {} < FILE`",
            out.join("default/crashes").display(),
            out.join("default/hangs").display(),
            binary.display(),
            args.target
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// One AFL++ run of `args.target` from the saved `corpus` (or the last run's queue with
/// `--resume`) into `out`.
fn run_afl(args: &FuzzArgs, fuzz: &Path, binary: &Path, corpus: &Path, out: &Path) -> Result<()> {
    let input = if args.resume {
        "-".into()
    } else {
        path(corpus)
    };
    let mut fuzz_cmd = afl(fuzz);
    fuzz_cmd
        // cargo-afl asks for CmpLog (`-c0`), but on a stable toolchain the harness has no CmpLog
        // instrumentation, and the stage only spends executions: `-c -` turns it off again.
        .args(["fuzz", "-c", "-", "-i", &input, "-o", &path(out)])
        .args(["-V", &(args.minutes * 60).to_string()]);
    if let Some(execs) = args.execs {
        fuzz_cmd.args(["-E", &execs.to_string()]);
    }
    let status = fuzz_cmd
        .args(["-t", &args.timeout_ms.to_string(), "-m", "none"])
        .args(["-G", &MAX_INPUT.to_string(), "--"])
        .arg(binary)
        .arg(&args.target)
        .status()
        .context("cannot run cargo afl fuzz")?;
    if !status.success() {
        bail!("afl-fuzz failed: {status}");
    }
    Ok(())
}

fn path(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// `cargo afl …` with the fuzz crate's own target directory and the environment AFL needs on a
/// shared machine (no CPU governor or core-dump setup to insist on, no full-screen UI) and a
/// short calibration (the formats' std hash maps are seeded afresh for every input, so a few
/// edges vary from run to run and full calibration of every such queue entry costs executions).
fn afl(fuzz: &Path) -> Command {
    let mut cmd = command("cargo");
    cmd.arg("afl")
        .current_dir(fuzz)
        .env("CARGO_TARGET_DIR", fuzz.join("target"))
        .env("AFL_SKIP_CPUFREQ", "1")
        .env("AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES", "1")
        .env("AFL_NO_UI", "1")
        .env("AFL_FAST_CAL", "1");
    // afl-cmin runs the first afl-showmap on the PATH, which may be an older system AFL++
    // (Debian's 4.04c lacks options it passes): cargo-afl's own tools come first.
    if let Some(bin) = afl_bin_dir() {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let dirs = std::iter::once(bin).chain(std::env::split_paths(&path));
        if let Ok(joined) = std::env::join_paths(dirs) {
            cmd.env("PATH", joined);
        }
    }
    cmd
}

/// cargo-afl's AFL++ tools: `$XDG_DATA_HOME/afl.rs/rustc-*/afl.rs-*/afl/bin` (the most recently
/// built, if there are several).
fn afl_bin_dir() -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
    let subdirs = |dir: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default()
    };
    subdirs(&data.join("afl.rs"))
        .iter()
        .flat_map(|rustc| subdirs(rustc))
        .map(|afl| afl.join("afl/bin"))
        .filter(|bin| bin.join("afl-showmap").is_file())
        .max_by_key(|bin| bin.metadata().and_then(|m| m.modified()).ok())
}

/// Builds the instrumented harness; returns its path.
fn build(fuzz: &Path) -> Result<PathBuf> {
    let status = afl(fuzz)
        .args(["build", "--release", "--locked"])
        .status()
        .context("cannot run cargo afl (install it with `cargo install cargo-afl`)")?;
    if !status.success() {
        bail!("cargo afl build failed: {status}");
    }
    Ok(fuzz.join("target/release/whittle-afl"))
}

/// Replaces `corpus` by afl-cmin's selection of the run's queue (and the old corpus).
fn minimize(fuzz: &Path, binary: &Path, target: &str, out: &Path, corpus: &Path) -> Result<()> {
    let all = tempfile::tempdir()?;
    for dir in [out.join("default/queue"), corpus.to_path_buf()] {
        for entry in std::fs::read_dir(&dir).with_context(|| format!("{}", dir.display()))? {
            let entry = entry?;
            if entry.path().is_file() {
                let name = entry.file_name().to_string_lossy().replace([':', ','], "_");
                std::fs::copy(entry.path(), all.path().join(name))?;
            }
        }
    }
    let picked = tempfile::tempdir()?;
    let picked_dir = picked.path().join("corpus");
    let status = afl(fuzz)
        .args(["cmin", "-i", &path(all.path()), "-o", &path(&picked_dir)])
        .args(["-m", "none", "-t", "5000", "--"])
        .arg(binary)
        .arg(target)
        .status()
        .context("cannot run cargo afl cmin")?;
    if !status.success() {
        bail!("afl-cmin failed: {status}");
    }
    std::fs::remove_dir_all(corpus)?;
    std::fs::create_dir_all(corpus)?;
    let mut kept = 0;
    for entry in std::fs::read_dir(&picked_dir)? {
        let entry = entry?;
        std::fs::copy(entry.path(), corpus.join(entry.file_name()))?;
        kept += 1;
    }
    println!("{target}: the corpus is now {kept} files");
    Ok(())
}

/// AFL's `fuzzer_stats`: `key : value` lines.
fn read_stats(file: &Path) -> Result<BTreeMap<String, String>> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    Ok(parse_stats(&text))
}

pub(crate) fn parse_stats(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter_map(|line| line.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

/// The figures docs/fuzzing.md records for a run.
pub(crate) fn summary(target: &str, stats: &BTreeMap<String, String>) -> String {
    let get = |k: &str| stats.get(k).map_or("?", String::as_str);
    format!(
        "{target}: {} executions in {} s ({} per second), edges {} of {} ({} of the map), \
         corpus {}, crashes {}, hangs {}",
        get("execs_done"),
        get("run_time"),
        get("execs_per_sec"),
        get("edges_found"),
        get("total_edges"),
        get("bitmap_cvg"),
        get("corpus_count"),
        get("saved_crashes"),
        get("saved_hangs"),
    )
}

#[cfg(test)]
mod tests {
    use super::{parse_stats, summary};

    #[test]
    fn the_summary_reads_afls_figures() {
        let text = "start_time        : 1\nrun_time          : 600\nexecs_done        : 1234567\n\
                    execs_per_sec     : 2057.61\nedges_found       : 4321\ntotal_edges       : 65536\n\
                    bitmap_cvg        : 6.59%\ncorpus_count      : 812\nsaved_crashes     : 0\n\
                    saved_hangs       : 2\n";
        let stats = parse_stats(text);
        assert_eq!(
            summary("xml", &stats),
            "xml: 1234567 executions in 600 s (2057.61 per second), edges 4321 of 65536 \
             (6.59% of the map), corpus 812, crashes 0, hangs 2"
        );
    }
}
