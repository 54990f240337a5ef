use crate::roundtrip::{self, Outcome, Tally, first_difference, wanted};
use std::path::Path;

#[test]
fn roundtrip_takes_the_listed_extensions_only() {
    assert!(wanted(Path::new("/a/b.xml")));
    assert!(wanted(Path::new("/a/b.SVG")));
    assert!(wanted(Path::new("x.docbook")));
    assert!(wanted(Path::new("x.plist")));
    assert!(!wanted(Path::new("x.xml.gz")));
    assert!(!wanted(Path::new("xml")));
    assert!(!wanted(Path::new("x.html")));
}

#[test]
fn first_difference_finds_the_offset() {
    assert_eq!(first_difference(b"abc", b"abc"), None);
    assert_eq!(first_difference(b"abc", b"abd"), Some(2));
    assert_eq!(first_difference(b"abc", b"ab"), Some(2));
    assert_eq!(first_difference(b"", b"x"), Some(0));
}

#[test]
fn tally_counts_and_keeps_a_few_examples() {
    let mut t = Tally::default();
    let no = || Err("byte 1: bad name".to_string());
    t.add(Path::new("a.xml"), 10, Outcome::Exact { gate: Ok(()) }, 1);
    t.add(Path::new("b.xml"), 20, Outcome::Exact { gate: no() }, 1);
    t.add(
        Path::new("c.xml"),
        5,
        Outcome::Differs {
            offset: 3,
            gate: Ok(()),
        },
        1,
    );
    t.add(
        Path::new("d.xml"),
        5,
        Outcome::Differs {
            offset: 4,
            gate: no(),
        },
        1,
    );
    t.add(Path::new("e.xml"), 1, Outcome::ParseError("bad".into()), 1);
    t.add(Path::new("f.xml"), 1, Outcome::Panic("boom".into()), 1);
    assert_eq!(t.files, 6);
    assert_eq!(t.parsed, 4);
    assert_eq!(t.exact, 2);
    assert_eq!(t.gate, 2);
    assert_eq!(t.panics, 1);
    assert_eq!(t.bytes, 42);
    assert_eq!(t.differs, vec![(Path::new("c.xml").to_path_buf(), 3)]);
    let s = t.summary();
    assert!(s.contains("files:                  6"));
    assert!(s.contains("round-trip byte-exact:  2  (33.3 %)"));
    assert!(s.contains("c.xml (byte 3)"));
    assert!(!s.contains("d.xml"));
    assert!(s.contains("e.xml: bad"));
    // Only the first gate rejection is kept (keep = 1).
    assert!(s.contains("b.xml: byte 1: bad name"));
    assert!(s.contains("f.xml: boom"));
}

#[test]
fn roundtrip_walk_over_a_temporary_tree() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(sub.join("good.xml"), "<a><b x=\"1\">t</b></a>\n").unwrap();
    std::fs::write(dir.path().join("broken.svg"), "<a x=\"&\">").unwrap();
    std::fs::write(dir.path().join("notes.txt"), "<a/>").unwrap();
    std::os::unix::fs::symlink(sub.join("good.xml"), dir.path().join("link.xml")).unwrap();
    let t = roundtrip::tally(&[dir.path().to_path_buf()], 5, false);
    let mut files = Vec::new();
    roundtrip::collect(dir.path(), &mut files);
    let names: Vec<_> = files
        .iter()
        .map(|f| f.strip_prefix(dir.path()).unwrap().to_path_buf())
        .collect();
    assert_eq!(
        names,
        [Path::new("broken.svg"), Path::new("sub/good.xml")],
        "sorted, symlink and .txt left out"
    );
    // The symlink and the .txt file are not taken.
    assert_eq!(t.files, 2, "{}", t.summary());
    assert_eq!(t.panics, 0, "{}", t.summary());
    // Both parse and render back exactly (the XML front end keeps malformed input too), and
    // only the well-formed one passes the gate.
    assert_eq!(t.parsed, 2, "{}", t.summary());
    assert_eq!(t.exact, 2, "{}", t.summary());
    assert_eq!(t.gate, 1, "{}", t.summary());
    assert_eq!(t.gate_failures.len(), 1);
    assert!(t.gate_failures[0].0.ends_with("broken.svg"));
}
