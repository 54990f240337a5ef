//! The journal of `whittle reduce` (the mechanism is `whittle_core`'s `Journal`): where it goes
//! and what makes its verdicts valid.
//!
//! A verdict is valid for the same input and the same options that reach the test (all of
//! [`Verdicts`], which is the header's settings by construction), and for the same contents of
//! the files the commands name (a test script that was edited says other things).
//!
//! [`Verdicts`]: crate::verdicts::Verdicts

use crate::config::Config;
use std::path::{Path, PathBuf};
use whittle::JournalSpec;

/// Files larger than this that the test names are identified by size and time of change
/// instead of by their contents (an interpreter named by its path, say).
const HASHED_FILE_LIMIT: u64 = 16 << 20;

/// The journal of the reduction `config` describes, or `None` with `--no-journal`.
pub(crate) fn spec(config: &Config) -> Option<JournalSpec> {
    let place = config.journal.as_ref()?;
    let name = config
        .output
        .file_name()
        .map_or_else(|| "whittle".into(), |n| n.to_string_lossy().into_owned());
    let v = &config.verdicts;
    let mut settings = v.settings();
    for command in std::iter::once(&v.test).chain(&v.generator) {
        for (path, id) in named_files(command, &config.cwd) {
            settings.insert(format!("file {}", path.display()), id);
        }
    }
    Some(JournalSpec {
        path: place.dir.join(format!("{name}.journal")),
        test: v.command(),
        settings,
        fresh: place.fresh,
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
