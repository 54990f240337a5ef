use crate::overhead::catalogue;

#[test]
fn catalogue_is_deterministic_about_a_kilobyte_and_marked_once() {
    let plain = catalogue(1000, None);
    assert_eq!(plain, catalogue(1000, None));
    assert!((1000..1200).contains(&plain.len()), "{}", plain.len());
    assert!(plain.starts_with("<?xml version=\"1.0\""));
    assert!(plain.ends_with("</catalogue>\n"));
    assert!(!plain.contains("MARKER"));
    let marked = catalogue(1000, Some("MARKER"));
    assert_eq!(marked.matches("MARKER").count(), 1);
    assert_eq!(
        plain.matches("<book ").count(),
        marked.matches("<book ").count()
    );
    // Well formed, so whittle's gate is on for the overhead rows.
    use whittle_core::Format as _;
    assert!(whittle_xml::Xml.gate(plain.as_bytes()));
    assert!(whittle_xml::Xml.gate(marked.as_bytes()));
}
