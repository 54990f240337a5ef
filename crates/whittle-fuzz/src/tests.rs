//! The corpus replay: every saved corpus file and every regression file of every target goes
//! through [`check`] again, so that CI keeps what the long fuzzing runs established.

use super::{CONTROL, Rng, Target, check};
use std::path::{Path, PathBuf};

/// The files of `fuzz/<kind>/<target>/`, sorted by name.
fn files(kind: &str, target: Target) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz")
        .join(kind)
        .join(target.name());
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

/// Replays the files of `kind` for `target`; returns how many there were and how many of them
/// the format parsed (so a corpus that no longer reaches the format is noticed).
fn replay(kind: &str, target: Target) -> (usize, usize) {
    let files = files(kind, target);
    let mut parsed = 0;
    for path in &files {
        let data = std::fs::read(path).expect("a corpus file");
        let result = std::panic::catch_unwind(|| check(target, &data));
        if let Err(e) = result {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!("{}: {msg}", path.display());
        }
        let doc = &data[data.len().min(CONTROL)..];
        if doc.len() <= target.max_document() && target.format().parse(doc).is_ok() {
            parsed += 1;
        }
    }
    (files.len(), parsed)
}

#[test]
fn every_corpus_file_keeps_every_property() {
    for target in Target::ALL {
        let (files, parsed) = replay("corpus", target);
        assert!(files >= 10, "{target}: only {files} corpus files");
        // A fuzzed corpus keeps inputs that reach the format's error paths too.
        assert!(
            parsed >= 10,
            "{target}: only {parsed} of {files} corpus files parse"
        );
    }
}

#[test]
fn every_regression_file_keeps_every_property() {
    for target in Target::ALL {
        replay("regressions", target);
    }
}

#[test]
fn the_fixtures_keep_every_property_under_many_edits() {
    // Beyond the saved corpus: each fixture with a few hundred control words, so a change of
    // the edit choices themselves is exercised too.
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let cases = [
        (Target::Xml, "xml/internal-subset.xml"),
        (Target::Python, "python/constructs.py"),
        (Target::JavaScript, "javascript/classes.js"),
        (Target::Pdf, "pdf/sample.pdf"),
        (Target::PdfNested, "pdf/sample.pdf"),
        (Target::Lines, "python/tabs.py"),
        (Target::Trace, "generators/password/run.trace"),
        (Target::C, "c/gnu.i"),
        (Target::C, "c/unpreprocessed.c"),
        (Target::Cpp, "c/sample.cpp"),
    ];
    for (target, name) in cases {
        let doc = std::fs::read(fixtures.join(name)).expect("a fixture");
        for seed in 0u32..64 {
            let mut data = seed.to_le_bytes().to_vec();
            data.extend_from_slice(&doc);
            check(target, &data);
        }
    }
}

#[test]
fn the_same_control_bytes_make_the_same_choices() {
    let mut a = Rng::new(&[1, 2, 3, 4]);
    let mut b = Rng::new(&[1, 2, 3, 4]);
    let mut c = Rng::new(&[1, 2, 3, 5]);
    let xs: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
    let ys: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
    let zs: Vec<u64> = (0..8).map(|_| c.next_u64()).collect();
    assert_eq!(xs, ys);
    assert_ne!(xs, zs);
    assert!((0..100).all(|_| a.below(7) < 7));
    assert_eq!(a.below(0), 0);
}

#[test]
fn every_target_is_named_after_its_format() {
    for target in Target::ALL {
        let name = if target == Target::PdfNested {
            "pdf"
        } else {
            target.name()
        };
        assert_eq!(target.format().name(), name);
        assert_eq!(Target::named(target.name()), Some(target));
    }
    // `pdf-nested` is the library's `pdf` format, with the nested ones; `pdf` the front end.
    let nested = Target::PdfNested.format();
    assert!(std::ptr::addr_eq(
        nested,
        whittle::format_named("pdf").expect("the library lists pdf")
    ));
    assert!(!std::ptr::addr_eq(nested, Target::Pdf.format()));
    assert_eq!(Target::named("json"), None);
}

#[test]
fn the_pdf_nested_corpus_holds_scripts_and_xml() {
    // The target checks the nesting only where a PDF holds a nested document.
    let mut formats = std::collections::BTreeMap::new();
    for path in files("corpus", Target::PdfNested) {
        let data = std::fs::read(&path).expect("a corpus file");
        let Ok(doc) = whittle_pdf::Pdf.parse(&data[data.len().min(CONTROL)..]) else {
            continue;
        };
        use whittle_core::Format;
        for e in whittle_pdf::Pdf.embedded(&doc) {
            *formats.entry(e.format).or_insert(0) += 1;
        }
    }
    assert!(
        formats.get("javascript").is_some_and(|&n| n >= 10),
        "{formats:?}"
    );
    assert!(formats.get("xml").is_some_and(|&n| n >= 3), "{formats:?}");
}
