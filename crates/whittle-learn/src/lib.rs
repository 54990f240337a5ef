//! Learning the rules that specialize GTR's templates to a format (GTR paper §4.2).
//!
//! For every node label the learner counts the nodes, how many of them have at least one child on
//! each edge label, and the (parent label, edge label) contexts the label occurs in. An edge is
//! *mandatory* for a label when every node of that label in the corpus has it. The result is a
//! [`whittle_core::Rules`] value, written as the versioned JSON file the engine reads.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;
use whittle_core::{Format, LabelRules, Rules, Tree};

/// What the corpus showed about one label.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct LabelStats {
    count: u64,
    /// Edge label → number of nodes with this label that have a child on that edge.
    edges: BTreeMap<String, u64>,
    contexts: BTreeSet<(String, String)>,
}

/// Accumulated observations; merge learners from several threads with [`Learner::merge`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Learner {
    files: u64,
    labels: BTreeMap<String, LabelStats>,
}

impl Learner {
    /// An empty learner.
    pub fn new() -> Learner {
        Learner::default()
    }

    /// Adds the observations of one tree (one file).
    pub fn add_tree(&mut self, tree: &Tree) {
        self.files += 1;
        let mut edges: Vec<&str> = Vec::new();
        for n in tree.nodes() {
            let stats = self.labels.entry(tree.label(n).to_string()).or_default();
            stats.count += 1;
            let context = match tree.parent(n) {
                None => (String::new(), String::new()),
                Some(p) => (tree.label(p).to_string(), tree.edge(n).to_string()),
            };
            stats.contexts.insert(context);
            edges.clear();
            edges.extend(tree.children(n).iter().map(|&c| tree.edge(c)));
            edges.sort_unstable();
            edges.dedup();
            for e in &edges {
                *stats.edges.entry((*e).to_string()).or_default() += 1;
            }
        }
    }

    /// Adds everything another learner saw.
    pub fn merge(&mut self, other: Learner) {
        self.files += other.files;
        for (label, theirs) in other.labels {
            let ours = self.labels.entry(label).or_default();
            ours.count += theirs.count;
            for (e, k) in theirs.edges {
                *ours.edges.entry(e).or_default() += k;
            }
            ours.contexts.extend(theirs.contexts);
        }
    }

    /// Number of files added.
    pub fn files(&self) -> u64 {
        self.files
    }

    /// Number of distinct (label, parent label, edge label) contexts seen: the measure of the
    /// paper's learning curve (Fig. 5).
    pub fn context_pairs(&self) -> usize {
        self.labels.values().map(|s| s.contexts.len()).sum()
    }

    /// The rules: mandatory edges (present on every node of the label) and allowed contexts.
    pub fn rules(&self, format: &str) -> Rules {
        let mut rules = Rules::new(format);
        rules.files = self.files;
        for (label, s) in &self.labels {
            let mandatory_edges = s
                .edges
                .iter()
                .filter(|&(_, &k)| k == s.count)
                .map(|(e, _)| e.clone())
                .collect();
            rules.labels.insert(
                label.clone(),
                LabelRules {
                    count: s.count,
                    mandatory_edges,
                    contexts: s.contexts.clone(),
                },
            );
        }
        rules
    }
}

/// How a learning run went.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Files given.
    pub files: usize,
    /// Files that could not be read or parsed (they are skipped).
    pub failed: Vec<(PathBuf, String)>,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// `(files analysed, context pairs known)` after every `curve_step` files, in file order.
    pub curve: Vec<(u64, usize)>,
}

/// Learns from `files` (in the given order) with `format` on `jobs` threads. The rules do not
/// depend on `jobs`. With `curve_step > 0`, the learning curve is sampled every that many files
/// (which needs an ordered pass, so it runs on one thread).
pub fn learn(
    format: &dyn Format,
    files: &[PathBuf],
    jobs: usize,
    curve_step: usize,
) -> (Learner, Summary) {
    let started = Instant::now();
    let failed = Mutex::new(Vec::new());
    let parse = |p: &Path| -> Option<Tree> {
        let bytes = std::fs::read(p).map_err(|e| e.to_string());
        match bytes.and_then(|b| format.parse(&b).map_err(|e| e.to_string())) {
            Ok(doc) => Some(doc.tree),
            Err(e) => {
                failed
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((p.to_path_buf(), e));
                None
            }
        }
    };
    let mut curve = Vec::new();
    let learner = if curve_step > 0 {
        let mut l = Learner::new();
        for (i, p) in files.iter().enumerate() {
            if let Some(t) = parse(p) {
                l.add_tree(&t);
            }
            if (i + 1) % curve_step == 0 || i + 1 == files.len() {
                curve.push(((i + 1) as u64, l.context_pairs()));
            }
        }
        l
    } else {
        let next = AtomicUsize::new(0);
        let parts: Vec<Learner> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..jobs.max(1))
                .map(|_| {
                    s.spawn(|| {
                        let mut l = Learner::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(p) = files.get(i) else { break };
                            if let Some(t) = parse(p) {
                                l.add_tree(&t);
                            }
                        }
                        l
                    })
                })
                .collect();
            handles.into_iter().filter_map(|h| h.join().ok()).collect()
        });
        let mut l = Learner::new();
        for p in parts {
            l.merge(p);
        }
        l
    };
    let mut failed = failed.into_inner().unwrap_or_else(|e| e.into_inner());
    failed.sort();
    let summary = Summary {
        files: files.len(),
        failed,
        seconds: started.elapsed().as_secs_f64(),
        curve,
    };
    (learner, summary)
}

/// The files under `paths` (files as given, directories walked) whose extension is one of
/// `extensions`, sorted, without symlinks.
pub fn collect_files(paths: &[PathBuf], extensions: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = Vec::new();
    for p in paths {
        if p.is_dir() {
            dirs.push(p.clone());
        } else {
            out.push(p.clone());
        }
    }
    while let Some(d) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(ft) = e.file_type() else { continue };
            let p = e.path();
            if ft.is_dir() {
                dirs.push(p);
            } else if ft.is_file()
                && p.extension()
                    .and_then(|x| x.to_str())
                    .is_some_and(|x| extensions.contains(&x.to_ascii_lowercase().as_str()))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests;
