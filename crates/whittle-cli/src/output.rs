//! Where results go: the default output paths, atomic writes, and the observer that writes the
//! best result after every improvement, so that Ctrl-C, a crash or a kill loses nothing.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use whittle::{Observer, Stats};
use whittle_core::GeneratorOracle;

/// INPUT with `.reduced` before its extension.
pub(crate) fn default_output(input: &Path) -> PathBuf {
    let stem = stem(input);
    let name = match input.extension() {
        Some(ext) => format!("{stem}.reduced.{}", ext.to_string_lossy()),
        None => format!("{stem}.reduced"),
    };
    input.with_file_name(name)
}

/// The default output of a generator-based reduction: INPUT's stem + `.reduced.out`.
pub(crate) fn generated_output(trace: &Path) -> PathBuf {
    trace.with_file_name(format!("{}.reduced.out", stem(trace)))
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "input".into())
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename, so the
/// output is always either the previous best or the new one, never half of each. A symbolic
/// link is followed (the link stays, its target gets the result), and a file that is not a
/// regular one (`/dev/null`, a FIFO, a terminal) is written to, not replaced: a rename would put
/// a regular file in its place, and `-o /dev/null` run as root would leave the machine without
/// its `/dev/null`.
fn write_atomic(
    path: &Path,
    bytes: &[u8],
    permissions: Option<&std::fs::Permissions>,
) -> std::io::Result<()> {
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if std::fs::metadata(&target).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        let mut f = std::fs::OpenOptions::new().write(true).open(&target)?;
        return f.write_all(bytes);
    }
    let path = target.as_path();
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(".whittle-")
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    if let Some(p) = permissions {
        tmp.as_file().set_permissions(p.clone())?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Writes the best result: the reduced file (with the input's permissions, so a reduced script
/// stays executable), or, with a generator, the reduced trace and the input the generator makes
/// from it.
#[derive(Clone)]
pub(crate) struct Sink<'g> {
    pub(crate) output: PathBuf,
    /// With a generator: where the reduced trace goes.
    pub(crate) trace_output: Option<PathBuf>,
    pub(crate) generator: Option<&'g GeneratorOracle>,
    pub(crate) permissions: Option<std::fs::Permissions>,
    /// When resuming: the result the killed run left, which only a smaller one replaces.
    pub(crate) floor: Arc<Mutex<Option<Vec<u8>>>>,
}

impl Sink<'_> {
    pub(crate) fn write(&self, best: &[u8]) -> std::io::Result<()> {
        {
            let mut floor = self.floor.lock().unwrap_or_else(|e| e.into_inner());
            if floor
                .as_ref()
                .is_some_and(|f| !whittle_core::shortlex_less(best, f))
            {
                return Ok(());
            }
            *floor = None;
        }
        let (Some(trace_output), Some(g)) = (&self.trace_output, self.generator) else {
            return write_atomic(&self.output, best, self.permissions.as_ref());
        };
        write_atomic(trace_output, best, None)?;
        match g.output_for(best) {
            Ok(Some(generated)) => write_atomic(&self.output, &generated, None),
            Ok(None) => Err(std::io::Error::other(
                "the generator failed on a trace it had accepted before",
            )),
            Err(e) => Err(std::io::Error::other(e)),
        }
    }
}

/// The observer that writes the input as soon as the test confirms it (so even an early
/// interruption leaves a usable file) and then every improvement. A failed write is kept for the
/// caller and stops the reduction: results that cannot be saved are not worth more tests.
pub(crate) struct SinkObserver<'g> {
    pub(crate) sink: Sink<'g>,
    pub(crate) error: Arc<Mutex<Option<std::io::Error>>>,
    /// Set when the sink first writes (after the test confirmed the input): from then on a
    /// failed reduction leaves a result file behind.
    pub(crate) used: Arc<AtomicBool>,
    pub(crate) stop: &'static AtomicBool,
}

impl SinkObserver<'_> {
    fn save(&mut self, best: &[u8]) {
        self.used.store(true, Ordering::SeqCst);
        if let Err(e) = self.sink.write(best) {
            self.error
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get_or_insert(e);
            self.stop.store(true, Ordering::SeqCst);
        }
    }
}

impl Observer for SinkObserver<'_> {
    fn confirmed(&mut self, input: &[u8]) {
        self.save(input);
    }

    fn improved(&mut self, best: &[u8], _: &Stats) {
        self.save(best);
    }
}
