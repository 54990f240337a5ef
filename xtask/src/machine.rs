//! Where the benchmark runs: the machine, its load, the commit, the command, the date.

use crate::{capture, command};
use std::path::Path;

/// `cargo xtask` and the arguments this process got, quoted for a shell.
pub(crate) fn bench_command() -> String {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .map(|a| whittle_core::shell_quote(&a))
        .collect();
    format!("cargo xtask {}", args.join(" "))
}

/// Reads a `/proc` file and extracts something from it, or says it could not.
pub(crate) fn read_proc(path: &str, extract: fn(&str) -> Option<String>) -> String {
    std::fs::read_to_string(path)
        .ok()
        .as_deref()
        .and_then(extract)
        .unwrap_or_else(|| "unknown".to_string())
}

/// The `model name` of the first CPU in `/proc/cpuinfo`.
pub(crate) fn cpu_model(cpuinfo: &str) -> Option<String> {
    cpuinfo.lines().find_map(|l| {
        let (key, value) = l.split_once(':')?;
        (key.trim() == "model name").then(|| value.trim().to_string())
    })
}

/// `MemTotal` of `/proc/meminfo`, in GiB.
pub(crate) fn mem_total(meminfo: &str) -> Option<String> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: f64 = line
        .trim_start_matches("MemTotal:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(format!("{:.1} GiB", kib / (1024.0 * 1024.0)))
}

/// The first three fields of `/proc/loadavg`.
pub(crate) fn load_average(loadavg: &str) -> Option<String> {
    let fields: Vec<&str> = loadavg.split_whitespace().take(3).collect();
    (fields.len() == 3).then(|| fields.join(", "))
}

/// `YYYY-MM-DD HH:MM UTC` for seconds since the Unix epoch.
pub(crate) fn utc_date(unix_seconds: u64) -> String {
    let days = (unix_seconds / 86_400) as i64;
    let secs = unix_seconds % 86_400;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        secs / 3600,
        secs % 3600 / 60
    )
}

/// `PRETTY_NAME` of `/etc/os-release` and the kernel release.
pub(crate) fn os_name() -> String {
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
pub(crate) fn git_commit(root: &Path) -> String {
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
    // The benchmark's own outputs (this document, its results and plots, which a run rewrites
    // as it goes) do not make the code a work in progress.
    let dirty = capture(command("git").arg("-C").arg(root).args([
        "status",
        "--porcelain",
        "--",
        ".",
        ":(exclude)docs/benchmarks*",
    ]))
    .is_ok_and(|s| !s.is_empty());
    if dirty {
        format!("`{commit}` plus uncommitted changes in the working tree (work in progress)")
    } else {
        format!("`{commit}`")
    }
}

/// How many `rustc` (or `clippy-driver`) processes are running: other engineers' builds, which
/// make the timings noisy.
pub(crate) fn foreign_rustc() -> usize {
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

#[cfg(test)]
mod tests;
