#![allow(
    clippy::disallowed_methods,
    reason = "the tests run qpdf on what the format writes"
)]

//! Encrypted inputs: candidates keep the input's security handler, or are written decrypted with
//! `DecryptedPdf` (`--pdf-decrypt`).

use super::*;
use crate::DecryptedPdf;

const ENCRYPTED: [&str; 6] = [
    "encrypted-rc4.pdf",
    "encrypted-aes128.pdf",
    "encrypted-aes256.pdf",
    "encrypted-bulky-rc4.pdf",
    "encrypted-bulky-aes128.pdf",
    "encrypted-bulky-aes256.pdf",
];

/// Runs qpdf with `args` on the bytes (as `in.pdf`, in a scratch folder); the scratch folder's
/// `out.pdf` is returned too when qpdf writes one.
fn qpdf(args: &[&str], bytes: &[u8]) -> (String, Vec<u8>) {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("in.pdf"), bytes).expect("write");
    let out = std::process::Command::new("qpdf")
        .args(args)
        .current_dir(dir.path())
        .output()
        .expect("qpdf runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let written = std::fs::read(dir.path().join("out.pdf")).unwrap_or_default();
    (text, written)
}

fn show_encryption(bytes: &[u8]) -> String {
    qpdf(&["--show-encryption", "in.pdf"], bytes).0
}

/// The file decrypted and uncompressed by qpdf (`--qdf`), to look inside.
fn qdf(bytes: &[u8]) -> Vec<u8> {
    qpdf(
        &["--qdf", "--object-streams=disable", "in.pdf", "out.pdf"],
        bytes,
    )
    .1
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn the_fixtures_are_encrypted_with_the_methods_they_are_named_after() {
    // What `qpdf --show-encryption` prints for each method, written down by hand.
    for (name, method) in [
        ("encrypted-rc4.pdf", "R = 3\n"),
        ("encrypted-aes128.pdf", "stream encryption method: AESv2"),
        ("encrypted-aes256.pdf", "stream encryption method: AESv3"),
        ("encrypted-bulky-rc4.pdf", "R = 3\n"),
        (
            "encrypted-bulky-aes128.pdf",
            "stream encryption method: AESv2",
        ),
        (
            "encrypted-bulky-aes256.pdf",
            "stream encryption method: AESv3",
        ),
    ] {
        let shown = show_encryption(&fixture(name));
        assert!(shown.contains(method), "{name}: {shown}");
        assert!(shown.contains("User password = \n"), "{name}: {shown}");
    }
}

#[test]
fn a_rewrite_keeps_the_input_s_encryption() {
    for name in ENCRYPTED {
        let input = fixture(name);
        let doc = parse(&input);
        assert!(
            doc.diagnostics
                .iter()
                .any(|d| d.message.contains("with the same encryption")),
            "{name}: {:?}",
            doc.diagnostics
        );
        let out = rewrite(&doc);
        qpdf_check(&out).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(show_encryption(&out), show_encryption(&input), "{name}");
        // The same /Encrypt dictionary and /ID as the input: lopdf reads them the same way.
        let a = lopdf::Document::load_mem(&input).expect("loads");
        let b = lopdf::Document::load_mem(&out).expect("loads");
        assert_eq!(
            a.trailer.get(b"ID").ok(),
            b.trailer.get(b"ID").ok(),
            "{name}"
        );
        let (sa, sb) = (
            a.encryption_state.expect("decrypted"),
            b.encryption_state.expect("decrypted"),
        );
        assert_eq!(sa.file_encryption_key(), sb.file_encryption_key(), "{name}");
        assert_eq!(
            (sa.revision(), sa.key_length(), sa.permissions()),
            (sb.revision(), sb.key_length(), sb.permissions()),
            "{name}"
        );
        // The document is the same.
        let again = parse(&out);
        assert!(tree_diff(&doc.tree, &again.tree).is_none(), "{name}");
    }
}

#[test]
fn edited_objects_are_encrypted_afresh_with_the_same_key() {
    for name in ENCRYPTED {
        let input = fixture(name);
        let doc = parse(&input);
        // Dropping /Next rewrites the opening action (its script string is encrypted afresh),
        // dropping /Outlines rewrites the catalog.
        let t = &doc.tree;
        let edits = Edits::new()
            .with(at(t, "Root/OpenAction/Next"), Edit::Delete)
            .with(at(t, "Root/Outlines"), Edit::Delete);
        let out = render(&doc, &edits);
        qpdf_check(&out).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(show_encryption(&out), show_encryption(&input), "{name}");
        let plain = qdf(&out);
        assert!(contains(&plain, b"app.alert\\('opened'\\);"), "{name}");
        assert!(contains(&plain, b"exportDataObject"), "{name}");
        assert!(!contains(&plain, b"/Outlines"), "{name}");
        assert!(!contains(&plain, b"example.invalid"), "{name}");
        // The script is not in the file in clear.
        assert!(!contains(&out, b"app.alert"), "{name}");
    }
}

#[test]
fn pdf_decrypt_writes_plain_candidates() {
    for name in ENCRYPTED {
        let doc = DecryptedPdf
            .parse(&fixture(name))
            .expect("the PDF format parses it");
        assert!(
            doc.diagnostics
                .iter()
                .any(|d| d.message.contains("written unencrypted")),
            "{name}: {:?}",
            doc.diagnostics
        );
        let out = rewrite(&doc);
        qpdf_check(&out).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            show_encryption(&out).contains("File is not encrypted"),
            "{name}"
        );
        let back = lopdf::Document::load_mem(&out).expect("loads");
        assert!(!back.trailer.has(b"Encrypt"), "{name}: written unencrypted");
        assert!(
            contains(&qpdf(&["--qdf", "in.pdf", "out.pdf"], &out).1, b"app.alert"),
            "{name}: the script"
        );
        let outline = DecryptedPdf.outline(&doc);
        assert!(
            outline.contains("app.alert('opened');"),
            "{name}: {outline}"
        );
        assert!(
            outline.contains("this.exportDataObject"),
            "{name}: {outline}"
        );
    }
}

#[test]
fn the_same_candidate_is_encrypted_to_the_same_bytes() {
    // Found by the fuzzer (fuzz/regressions/pdf/aes-random-iv): lopdf's AES filters put a random
    // IV before every string and stream they encrypt, so an edited object of an AES-encrypted
    // input came out different each time the candidate was rendered, and whittle's cache and
    // journal, which know candidates by their bytes, did not recognize it.
    for name in ENCRYPTED {
        let input = fixture(name);
        let doc = parse(&input);
        let t = &doc.tree;
        // Dropping /Next rewrites the opening action, whose script string is encrypted afresh,
        // and dropping /Outlines rewrites the catalog.
        let edits = Edits::new()
            .with(at(t, "Root/OpenAction/Next"), Edit::Delete)
            .with(at(t, "Root/Outlines"), Edit::Delete);
        let first = render(&doc, &edits);
        let second = render(&doc, &edits);
        assert!(first == second, "{name}: two renderings differ");
        // Parsed again, the same edit of another document of the same content gives the same
        // bytes too (the IV depends on the object and its clear bytes only).
        let again = parse(&input);
        assert!(render(&again, &edits) == first, "{name}");
        // And it is still the input's encryption, which qpdf reads.
        qpdf_check(&first).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            contains(&qdf(&first), b"app.alert\\('opened'\\);"),
            "{name}"
        );
        assert!(!contains(&first, b"app.alert"), "{name}: not in clear");
    }
}

#[test]
fn a_fresh_stream_is_encrypted_to_the_same_bytes() {
    // A changed stream (the page-open script's, without its /Filter entry) is encrypted
    // deterministically as well, and still decrypts to its data.
    for name in ENCRYPTED {
        let doc = parse(&fixture(name));
        let t = &doc.tree;
        let edits = Edits::new().with(at(t, "Root/Pages/Kids/0/AA/O/JS/Filter"), Edit::Delete);
        let first = render(&doc, &edits);
        assert!(
            first == render(&doc, &edits),
            "{name}: two renderings differ"
        );
        let again = parse(&first);
        let data = |d: &Document| {
            let n = at(&d.tree, "Root/Pages/Kids/0/AA/O/JS/data");
            match &state(d).node(n).kind {
                Kind::Data(bytes) => bytes.clone(),
                _ => panic!("{name}: the script stream's data"),
            }
        };
        assert_eq!(data(&again), data(&doc), "{name}");
    }
}
