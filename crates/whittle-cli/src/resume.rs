//! The journal of `whittle reduce` (the mechanism is `whittle_core`'s `Journal`): where it goes,
//! what makes its verdicts valid, and the messages about it.
//!
//! A verdict is valid for the same input, test command, timeout, repeat count, candidate file
//! name and generator, and for the same contents of the files the test command names (a test
//! script that was edited says other things), so all of them are in the journal's header.

use crate::args::ReduceArgs;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use whittle::{JournalError, JournalSpec};

/// Files larger than this that the test names are identified by size and time of change
/// instead of by their contents (an interpreter named by its path, say).
const HASHED_FILE_LIMIT: u64 = 16 << 20;

/// The journal of a reduction into `output`, or `None` with `--no-journal`. `test` is the test
/// command as it runs (relative paths made absolute).
pub(crate) fn spec(
    args: &ReduceArgs,
    output: &Path,
    test: &str,
    cwd: &Path,
) -> Option<JournalSpec> {
    if args.no_journal {
        return None;
    }
    let name = output
        .file_name()
        .map_or_else(|| "whittle".into(), |n| n.to_string_lossy().into_owned());
    let dir = match &args.journal_dir {
        Some(dir) => dir.clone(),
        None => output
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
    };
    let mut settings = BTreeMap::new();
    settings.insert("timeout".to_string(), args.timeout.describe());
    let file_name = args
        .input
        .file_name()
        .map_or_else(|| "input".into(), |n| n.to_string_lossy().into_owned());
    settings.insert("candidate file name".to_string(), file_name);
    if let Some(g) = &args.generator {
        settings.insert("generator".to_string(), g.clone());
        settings.insert("align".to_string(), args.align.clone());
    }
    for command in std::iter::once(&args.test).chain(&args.generator) {
        for (path, id) in named_files(command, cwd) {
            settings.insert(format!("file {}", path.display()), id);
        }
    }
    Some(JournalSpec {
        path: dir.join(format!("{name}.journal")),
        test: test.to_string(),
        settings,
        fresh: args.fresh,
    })
}

/// The files a command names (words that are paths of existing files, relative to `cwd`), each
/// with what identifies its contents: the SHA-256, or for a large file its size and the time it
/// last changed.
fn named_files(command: &str, cwd: &Path) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    for word in command.split_whitespace() {
        let word = word.trim_matches(|c| c == '\'' || c == '"');
        let path = cwd.join(word);
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if !meta.is_file() || word.is_empty() {
            continue;
        }
        let id = if meta.len() <= HASHED_FILE_LIMIT {
            match std::fs::read(&path) {
                Ok(bytes) => hex(&whittle_core::content_hash(&bytes)),
                Err(_) => continue,
            }
        } else {
            let changed = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_secs());
            format!("{} bytes, changed at {changed}", meta.len())
        };
        files.push((path.canonicalize().unwrap_or(path), id));
    }
    files
}

/// How `--timeout` reads in a journal's header: a fixed number of seconds, or `adaptive` when
/// the option is optional and not given (the adaptive timeout policy).
trait TimeoutSetting {
    fn describe(&self) -> String;
}

impl TimeoutSetting for f64 {
    fn describe(&self) -> String {
        format!("{self} s")
    }
}

impl TimeoutSetting for Option<f64> {
    fn describe(&self) -> String {
        self.map_or_else(|| "adaptive".to_string(), |t| t.describe())
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What a resumed run may write to the output: only what is smaller (in shortlex order) than
/// the result the killed run left there, since the resumed run replays the reduction from the
/// original input and passes through larger results first.
pub(crate) fn floor(spec: Option<&JournalSpec>, result: &Path) -> Option<Vec<u8>> {
    let spec = spec?;
    if spec.fresh || !spec.path.exists() {
        return None;
    }
    std::fs::read(result).ok()
}

/// The message about a journal that cannot be used, with the way out.
pub(crate) fn journal_error(e: &JournalError) -> String {
    match e {
        JournalError::Io { .. } => {
            format!("{e}; --journal-dir DIR keeps it elsewhere, --no-journal keeps none")
        }
        _ => format!("{e}; delete it, or pass --fresh to start a new journal"),
    }
}
