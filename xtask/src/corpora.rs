//! `cargo xtask corpora`: fetch the pinned corpora, relearn the shipped rules in `corpora/`,
//! write `corpora/manifest.json` and the learning curve `docs/learning-curve.svg`.
//!
//! Corpus files are fetched into `target/corpus/` and never committed.

use crate::{capture, command, workspace_root};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use whittle_core::Format;

/// Debian packages with PDFs (LaTeX package documentation: forms, links, outlines), pinned.
pub(crate) const PDF_PACKAGES: [(&str, &str); 1] =
    [("texlive-latex-recommended-doc", "2022.20230122-3")];

/// Debian packages with XML, pinned to the versions the shipped rules were learned from.
pub(crate) const XML_PACKAGES: [(&str, &str); 6] = [
    ("docbook-xml", "4.5-12"),
    ("docbook-xsl", "1.79.2+dfsg-2"),
    ("iso-codes", "4.15.0-1"),
    ("shared-mime-info", "2.2-1"),
    ("wayland-protocols", "1.31-1"),
    ("xkb-data", "2.35.1-1"),
];

/// A crate of the crates.io registry that bundles C or C++ sources, pinned: its `.crate` file
/// (a gzipped tarball) is fetched from `static.crates.io` and unpacked, and the files of `dirs`
/// with the format's extensions are the corpus.
pub(crate) struct Bundle {
    pub(crate) name: &'static str,
    pub(crate) version: &'static str,
    /// The folders of the unpacked crate whose files are taken.
    pub(crate) dirs: &'static [&'static str],
    /// For the C++ corpus: whether the `.h` headers of `dirs` are taken too (they are C++
    /// headers of C++ sources, `.h` being ambiguous; see `skip` for the C ones).
    pub(crate) cpp_headers: bool,
    /// Files of `dirs` left out (paths inside the crate): C headers of a C++ library.
    pub(crate) skip: &'static [&'static str],
}

/// The C corpus: real C that crates of the registry build, four code bases of different style.
pub(crate) const C_CRATES: [Bundle; 4] = [
    // The SQLite 3.50.2 amalgamation, the example: one 9.3 MB file of portable C89 with
    // every preprocessor construct (the `sqlcipher/` copy of the same amalgamation is left out).
    Bundle {
        name: "libsqlite3-sys",
        version: "0.35.0",
        dirs: &["sqlite3"],
        cpp_headers: false,
        skip: &[],
    },
    // Lua 5.1.5, 5.2.4, 5.3.6 and 5.4.7: the interpreter the C bench cases come from (its
    // parser), in four versions of the same compact C style.
    Bundle {
        name: "lua-src",
        version: "547.0.0",
        dirs: &["lua-5.1.5", "lua-5.2.4", "lua-5.3.6", "lua-5.4.7"],
        cpp_headers: false,
        skip: &[],
    },
    // zstd 1.5.7: modern C99 with heavy macros, `static inline` helpers, x86 intrinsics,
    // multithreading and GNU attributes.
    Bundle {
        name: "zstd-sys",
        version: "2.0.16+zstd.1.5.7",
        dirs: &["zstd/lib", "zstd/contrib"],
        cpp_headers: false,
        skip: &[],
    },
    // zlib 1.3.1 (old style, kept portable) and zlib-ng 2.2.4 (C11, SIMD intrinsics per
    // architecture).
    Bundle {
        name: "libz-sys",
        version: "1.1.22",
        dirs: &["src/zlib", "src/zlib-ng"],
        cpp_headers: false,
        skip: &[],
    },
];

/// The C++ corpus: C++ libraries that crates of the registry bundle. protobuf-src and
/// librocksdb-sys would add many more files, but their downloads are 8 MB and more.
pub(crate) const CPP_CRATES: [Bundle; 3] = [
    // libzmq 4.3.5: C++98 to C++11 with classes, templates, virtual interfaces and
    // platform `#if`s, its sources, tests and tools (`.cpp`, `.hpp`); its `.h` files are the
    // C API (`zmq.h`) and bundled C libraries, so no `.h` is taken.
    Bundle {
        name: "zeromq-src",
        version: "0.3.6+4.3.5",
        dirs: &["vendor"],
        cpp_headers: false,
        skip: &[],
    },
    // LevelDB 1.22 and Snappy 1.1.7 (Google C++11 style: namespaces, templates, RAII) with
    // their `.h` headers, which are C++, except their C APIs.
    Bundle {
        name: "leveldb-sys",
        version: "2.0.9",
        dirs: &["deps/leveldb-1.22", "deps/snappy-1.1.7"],
        cpp_headers: true,
        skip: &[
            "deps/leveldb-1.22/include/leveldb/c.h",
            "deps/snappy-1.1.7/snappy-c.h",
        ],
    },
    // LLVM's libFuzzer: modern C++ (C++17, the standard library, lambdas) with `.h` headers
    // that are C++, except the interface it keeps in C.
    Bundle {
        name: "libfuzzer-sys",
        version: "0.4.10",
        dirs: &["libfuzzer"],
        cpp_headers: true,
        skip: &["libfuzzer/FuzzerInterface.h"],
    },
];

#[derive(clap::Args, Debug)]
pub(crate) struct CorporaArgs {
    /// Relearn only this format (python, javascript, xml, pdf, c or cpp).
    #[arg(long)]
    only: Option<String>,
}

/// One learned corpus, for the manifest and the plot.
pub(crate) struct Learned {
    format: String,
    source: String,
    files: u64,
    labels: usize,
    contexts: usize,
    seconds: f64,
    curve: Vec<(u64, usize)>,
}

pub(crate) fn run(args: &CorporaArgs) -> Result<ExitCode> {
    let root = workspace_root();
    let wants = |f: &str| args.only.as_deref().is_none_or(|o| o == f);
    let mut learned = Vec::new();
    if wants("python") {
        let stdlib = capture(command("python3").args([
            "-c",
            "import sysconfig;print(sysconfig.get_paths()['stdlib'])",
        ]))?;
        let version = capture(command("python3").arg("--version"))?;
        let tops: Vec<PathBuf> = std::fs::read_dir(&stdlib)
            .with_context(|| format!("cannot read {stdlib}"))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.file_name().is_some_and(|n| n != "site-packages"))
            .collect();
        let files = whittle_learn::collect_files(&tops, whittle_python::Python.extensions());
        let source = format!(
            "the standard library of the local {version} ({stdlib}, without site-packages)"
        );
        learned.push(learn_one(&root, &whittle_python::Python, &files, source)?);
    }
    if wants("javascript") {
        learned.push(learn_npm(&root, whittle_javascript::NPM_CORPUS)?);
    }
    if wants("xml") {
        learned.push(learn_debian(&root, &whittle_xml::Xml, &XML_PACKAGES)?);
    }
    if wants("pdf") {
        learned.push(learn_debian(&root, &whittle_pdf::Pdf, &PDF_PACKAGES)?);
    }
    if wants("c") {
        learned.push(learn_crates(&root, &whittle_c::C, &C_CRATES)?);
    }
    if wants("cpp") {
        learned.push(learn_crates(&root, &whittle_c::CPP, &CPP_CRATES)?);
    }
    if learned.is_empty() {
        bail!("nothing to learn: --only takes python, javascript, xml, pdf, c or cpp");
    }
    let all = write_manifest(&root, &learned)?;
    let curves: Vec<crate::plots::Curve<'_>> = all
        .iter()
        .map(|l| crate::plots::Curve {
            format: &l.format,
            files: l.files,
            points: &l.curve,
        })
        .collect();
    let svg = crate::plots::learning_curve_svg(&curves)?;
    std::fs::write(root.join("docs/learning-curve.svg"), svg).context("cannot write the plot")?;
    eprintln!("wrote corpora/manifest.json and docs/learning-curve.svg");
    Ok(ExitCode::SUCCESS)
}

fn learn_one(
    root: &Path,
    format: &'static dyn Format,
    files: &[PathBuf],
    source: String,
) -> Result<Learned> {
    if files.is_empty() {
        bail!("no {} files found for the corpus", format.name());
    }
    let step = (files.len() / 40).max(1);
    let (learner, summary) = whittle_learn::learn(format, files, 1, step);
    let rules = learner.rules(format.name());
    let out = root.join(format!("corpora/{}.rules.json", format.name()));
    std::fs::write(&out, rules.to_json() + "\n")
        .with_context(|| format!("cannot write {}", out.display()))?;
    eprintln!(
        "{}: {} files ({} skipped), {} labels, {} contexts in {:.1} s -> {}",
        format.name(),
        learner.files(),
        summary.failed.len(),
        rules.labels.len(),
        learner.context_pairs(),
        summary.seconds,
        out.display()
    );
    Ok(Learned {
        format: format.name().to_string(),
        source,
        files: learner.files(),
        labels: rules.labels.len(),
        contexts: learner.context_pairs(),
        seconds: summary.seconds,
        curve: summary.curve,
    })
}

fn learn_debian(
    root: &Path,
    format: &'static dyn Format,
    packages: &[(&str, &str)],
) -> Result<Learned> {
    let dir = root.join("target/corpus").join(format.name());
    let files = fetch_debian(&dir, packages, format.extensions())?;
    let pins: Vec<String> = packages.iter().map(|(p, v)| format!("{p}={v}")).collect();
    learn_one(
        root,
        format,
        &files,
        format!("Debian packages {}", pins.join(", ")),
    )
}

/// The JavaScript corpus: the pinned npm packages, each fetched (once) with `npm pack` and
/// unpacked into `target/corpus/javascript/NAME@VERSION/`.
fn learn_npm(root: &Path, packages: &[&str]) -> Result<Learned> {
    let dir = root.join("target/corpus/javascript");
    let tarballs = dir.join("tgz");
    std::fs::create_dir_all(&tarballs)?;
    let mut tops = Vec::new();
    for &spec in packages {
        let top = dir.join(spec);
        if !top.join("package.json").exists() {
            let tgz = capture(
                command("npm")
                    .args(["pack", "--silent", spec, "--pack-destination"])
                    .arg(&tarballs),
            )
            .with_context(|| format!("npm pack {spec} failed"))?;
            std::fs::create_dir_all(&top)?;
            let status = command("tar")
                .arg("-xzf")
                .arg(tarballs.join(tgz.trim()))
                .args(["--strip-components=1", "-C"])
                .arg(&top)
                .status()
                .context("cannot run tar")?;
            if !status.success() {
                bail!("cannot unpack the npm package {spec}");
            }
        }
        tops.push(top);
    }
    let files = whittle_learn::collect_files(&tops, whittle_javascript::JavaScript.extensions());
    learn_one(
        root,
        &whittle_javascript::JavaScript,
        &files,
        format!("npm packages {}", packages.join(", ")),
    )
}

fn learn_crates(root: &Path, format: &'static dyn Format, crates: &[Bundle]) -> Result<Learned> {
    let files = crate_files(root, format, crates)?;
    let pins: Vec<String> = crates
        .iter()
        .map(|c| format!("{}@{}", c.name, c.version))
        .collect();
    learn_one(
        root,
        format,
        &files,
        format!("crates.io crates {}", pins.join(", ")),
    )
}

/// The files of a corpus of registry crates (`C_CRATES` or `CPP_CRATES`), in path order: each
/// crate is fetched (once) from `static.crates.io` and unpacked into
/// `target/corpus/FORMAT/NAME-VERSION/`.
pub(crate) fn crate_files(
    root: &Path,
    format: &dyn Format,
    crates: &[Bundle],
) -> Result<Vec<PathBuf>> {
    let dir = root.join("target/corpus").join(format.name());
    let tarballs = dir.join("crates");
    std::fs::create_dir_all(&tarballs)?;
    let mut files = Vec::new();
    for c in crates {
        let stem = format!("{}-{}", c.name, c.version);
        let top = dir.join(&stem);
        if !top.join("Cargo.toml").exists() {
            let tarball = tarballs.join(format!("{stem}.crate"));
            let url = format!("https://static.crates.io/crates/{}/{stem}.crate", c.name);
            let status = command("curl")
                .args(["-fsSL", "--retry", "3", "-o"])
                .arg(&tarball)
                .arg(&url)
                .status()
                .context("cannot run curl")?;
            if !status.success() {
                bail!("cannot download {url}");
            }
            std::fs::create_dir_all(&top)?;
            let status = command("tar")
                .arg("-xzf")
                .arg(&tarball)
                .args(["--strip-components=1", "-C"])
                .arg(&top)
                .status()
                .context("cannot run tar")?;
            if !status.success() {
                bail!("cannot unpack {}", tarball.display());
            }
        }
        let mut extensions = format.extensions().to_vec();
        if c.cpp_headers {
            extensions.push("h");
        }
        let dirs: Vec<PathBuf> = c.dirs.iter().map(|d| top.join(d)).collect();
        if let Some(missing) = dirs.iter().find(|d| !d.is_dir()) {
            bail!("{stem} has no folder {}", missing.display());
        }
        let skip: Vec<PathBuf> = c.skip.iter().map(|s| top.join(s)).collect();
        files.extend(
            whittle_learn::collect_files(&dirs, &extensions)
                .into_iter()
                .filter(|f| !skip.contains(f)),
        );
    }
    Ok(files)
}

/// Downloads the pinned packages (once) and returns their files with the given extensions.
fn fetch_debian(
    dir: &Path,
    packages: &[(&str, &str)],
    extensions: &[&str],
) -> Result<Vec<PathBuf>> {
    let debs = dir.join("debs");
    let tree = dir.join("root");
    std::fs::create_dir_all(&debs)?;
    for &(pkg, version) in packages {
        let have = std::fs::read_dir(&debs)?.flatten().any(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with(&format!("{pkg}_{}", version.replace(':', "%3a")))
        });
        if !have {
            let status = command("apt-get")
                .args(["download", "-qq", &format!("{pkg}={version}")])
                .current_dir(&debs)
                .status()
                .context("cannot run apt-get")?;
            if !status.success() {
                bail!("apt-get download {pkg}={version} failed (run `apt-get update` first?)");
            }
        }
    }
    if !tree.exists() {
        for e in std::fs::read_dir(&debs)?.flatten() {
            let status = command("dpkg")
                .arg("-x")
                .arg(e.path())
                .arg(&tree)
                .status()?;
            if !status.success() {
                bail!("dpkg -x {} failed", e.path().display());
            }
        }
    }
    Ok(whittle_learn::collect_files(&[tree], extensions))
}

/// Updates the entries of `learned` in `corpora/manifest.json` (keeping the other formats' as
/// they are) and returns every format of the manifest, in its order, with its learning curve, so
/// that the plot shows all of them after `--only`.
fn write_manifest(root: &Path, learned: &[Learned]) -> Result<Vec<Learned>> {
    let path = root.join("corpora/manifest.json");
    let mut manifest: serde_json::Map<String, serde_json::Value> = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    for l in learned {
        manifest.insert(
            l.format.clone(),
            serde_json::json!({
                "rules": format!("corpora/{}.rules.json", l.format),
                "corpus": l.source,
                "files": l.files,
                "labels": l.labels,
                "contexts": l.contexts,
                "learn_seconds": (l.seconds * 100.0).round() / 100.0,
                "command": format!("cargo xtask corpora --only {}", l.format),
                "curve": l.curve,
            }),
        );
    }
    let text = serde_json::to_string_pretty(&serde_json::Value::Object(manifest.clone()))? + "\n";
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(manifest
        .into_iter()
        .map(|(format, entry)| Learned {
            format,
            source: entry["corpus"].as_str().unwrap_or_default().to_string(),
            files: entry["files"].as_u64().unwrap_or_default(),
            labels: entry["labels"].as_u64().unwrap_or_default() as usize,
            contexts: entry["contexts"].as_u64().unwrap_or_default() as usize,
            seconds: entry["learn_seconds"].as_f64().unwrap_or_default(),
            curve: serde_json::from_value(entry["curve"].clone()).unwrap_or_default(),
        })
        .collect())
}
