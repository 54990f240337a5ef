use crate::{Learner, collect_files, learn};
use std::collections::BTreeSet;
use whittle_core::Format;
use whittle_xml::Xml;

fn learn_texts(texts: &[&str]) -> whittle_core::Rules {
    let mut l = Learner::new();
    for t in texts {
        l.add_tree(&Xml.parse(t.as_bytes()).expect("valid XML").tree);
    }
    l.rules("xml")
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn pairs(items: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    items
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn mandatory_edges_are_those_every_node_has() {
    let rules = learn_texts(&[
        r#"<list><item id="1">a</item><item id="2"/></list>"#,
        r#"<list><item id="3" n="x">b</item></list>"#,
    ]);
    let item = &rules.labels["item"];
    assert_eq!(item.count, 3);
    // Every item has an id; only some have text or `n`.
    assert_eq!(item.mandatory_edges, set(&["@id"]));
    assert_eq!(rules.labels["list"].mandatory_edges, set(&["child"]));
    assert_eq!(rules.labels["#document"].mandatory_edges, set(&["child"]));
    assert_eq!(rules.files, 2);
}

#[test]
fn contexts_are_the_parent_and_edge_labels_seen() {
    let rules = learn_texts(&[r#"<a><b><c/></b><c/></a>"#, r#"<b/>"#]);
    assert_eq!(
        rules.labels["c"].contexts,
        pairs(&[("b", "child"), ("a", "child")])
    );
    assert_eq!(
        rules.labels["b"].contexts,
        pairs(&[("a", "child"), ("#document", "child")])
    );
    assert_eq!(
        rules.labels["#document"].contexts,
        pairs(&[("", "")]),
        "the root's context"
    );
    assert_eq!(
        rules.labels["b"].mandatory_edges,
        set(&[]),
        "one <b> has no child"
    );
}

#[test]
fn merging_is_the_same_as_learning_together() {
    let texts = [r#"<a x="1"><b/></a>"#, r#"<a><c/></a>"#, r#"<a x="2"/>"#];
    let mut whole = Learner::new();
    let mut left = Learner::new();
    let mut right = Learner::new();
    for (i, t) in texts.iter().enumerate() {
        let tree = Xml.parse(t.as_bytes()).unwrap().tree;
        whole.add_tree(&tree);
        if i < 2 {
            left.add_tree(&tree)
        } else {
            right.add_tree(&tree)
        }
    }
    left.merge(right);
    assert_eq!(left, whole);
    assert_eq!(whole.rules("xml").labels["a"].mandatory_edges, set(&[]));
}

#[test]
fn learning_files_in_parallel_gives_the_same_rules_and_reports_failures() {
    let dir = std::env::temp_dir().join(format!("whittle-learn-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("one.xml"), r#"<r><e k="1"/></r>"#).unwrap();
    std::fs::write(dir.join("sub/two.xml"), r#"<r><e k="2"><f/></e></r>"#).unwrap();
    std::fs::write(dir.join("sub/three.XML"), r#"<r/>"#).unwrap();
    std::fs::write(dir.join("skip.txt"), "not xml").unwrap();
    std::fs::write(dir.join("bad.xml"), b"\x1f\x8b\x08\x00\x00\x00\x00binary").unwrap();
    let files = collect_files(std::slice::from_ref(&dir), &["xml"]);
    assert_eq!(files.len(), 4, "{files:?}");
    let (seq, s1) = learn(&Xml, &files, 1, 1);
    let (par, s2) = learn(&Xml, &files, 4, 0);
    assert_eq!(seq, par);
    assert_eq!(s1.failed.len(), 1);
    assert!(s1.failed[0].0.ends_with("bad.xml"));
    assert_eq!(s2.failed.len(), 1);
    assert_eq!(s1.curve.len(), 4);
    assert!(
        s1.curve.windows(2).all(|w| w[0].1 <= w[1].1),
        "contexts only grow: {:?}",
        s1.curve
    );
    assert_eq!(seq.rules("xml").labels["e"].mandatory_edges, set(&["@k"]));
    std::fs::remove_dir_all(&dir).unwrap();
}
