//! End-to-end tests of `whittle` on PDFs, with qpdf (and, opt-in, pdf.js) as the analyser.

use std::fs;

use crate::util::{Case, require, stderr, stdout};

/// A scratch directory holding a copy of a fixture of `fixtures/pdf`.
fn with(fixture_name: &str) -> Case {
    let case = Case::new();
    case.copy(&format!("pdf/{fixture_name}"), fixture_name);
    case
}

fn require_qpdf() {
    require("qpdf", "qpdf");
}

/// The oracle: qpdf reads the file (warnings allowed), and in its JSON form the catalog's
/// /OpenAction is a JavaScript action whose script calls `app.alert('opened')`.
const OPENS_JS: &str = r#"exec python3 - "$1" <<'EOF'
import json, subprocess, sys
r = subprocess.run(["qpdf", "--json", sys.argv[1]], capture_output=True)
if r.returncode not in (0, 3):
    sys.exit(1)
objs = json.loads(r.stdout)["qpdf"][1]
def get(v):
    for _ in range(10):
        if isinstance(v, str) and v.endswith(" R"):
            v = objs.get("obj:" + v, {}).get("value")
    return v
root = get(objs["trailer"]["value"].get("/Root"))
act = get(root.get("/OpenAction")) if isinstance(root, dict) else None
ok = isinstance(act, dict) and act.get("/S") == "/JavaScript"
sys.exit(0 if ok and "app.alert('opened')" in str(get(act.get("/JS"))) else 1)
EOF"#;

#[test]
fn reduces_a_pdf_to_its_opening_script_with_qpdf_as_the_analyser() {
    require_qpdf();
    let case = with("sample.pdf");
    case.script("opens-js.sh", OPENS_JS);
    let input = fs::read(case.path("sample.pdf")).unwrap();
    let mut results = Vec::new();
    for jobs in ["1", "2"] {
        let out = case.whittle(&[
            "reduce",
            "sample.pdf",
            "--test",
            "./opens-js.sh {}",
            "-j",
            jobs,
            "-o",
            &format!("out-{jobs}.pdf"),
            "--report",
            &format!("r-{jobs}.json"),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let json: serde_json::Value = serde_json::from_str(
            &fs::read_to_string(case.path(&format!("r-{jobs}.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(json["format"], "pdf", "chosen by the .pdf extension");
        assert_eq!(json["gate"], "on");
        assert!(json["nodes_after"].as_u64().unwrap() * 4 < json["nodes_before"].as_u64().unwrap());
        results.push(fs::read(case.path(&format!("out-{jobs}.pdf"))).unwrap());
    }
    assert_eq!(results[0], results[1], "the result must not depend on -j");
    let reduced = &results[0];
    assert!(
        reduced.len() < input.len() / 3,
        "{} of {} bytes left",
        reduced.len(),
        input.len()
    );
    assert_eq!(
        fs::read(case.path("sample.pdf")).unwrap(),
        input,
        "input untouched"
    );
    // A clean qpdf check (no warnings), and still interesting.
    let check = case.run("qpdf", &["--check", "out-1.pdf"]);
    assert!(
        check.status.success(),
        "{}{}",
        stdout(&check),
        stderr(&check)
    );
    let still = case.run("sh", &["./opens-js.sh", "out-1.pdf"]);
    assert!(still.status.success());
    // What is left, as the analyst sees it.
    let tree = case.whittle(&["tree", "out-1.pdf"]);
    assert!(tree.status.success(), "{}", stderr(&tree));
    let tree = stdout(&tree);
    assert!(tree.contains("  /Root/OpenAction  JavaScript"), "{tree}");
    // The script is reduced inside too (nested JavaScript): its statement became the call.
    assert!(tree.contains("      app.alert('opened')\n"), "{tree}");
    assert!(tree.contains("## nested documents"), "{tree}");
    for gone in [
        "calc.exe",
        "evil.exe",
        "exportDataObject",
        "var x = 1",
        "Outlines",
    ] {
        assert!(!tree.contains(gone), "{gone} is left:\n{tree}");
    }
}

#[test]
fn tree_prints_the_triage_outline() {
    let case = with("encrypted-aes256.pdf");
    let out = case.whittle(&["tree", "encrypted-aes256.pdf"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for want in [
        "encrypted with an empty user password (decrypted)",
        "## actions",
        "  /Root/OpenAction  JavaScript",
        "      app.alert('opened');",
        "  /Root/Pages/Kids[0]/AA/O  JavaScript",
        "      this.exportDataObject({cName: 'evil.exe', nLaunch: 2});",
        "  /Root/Pages/Kids[0]/Annots[0]/A  Launch",
        "\"evil.exe\" application/octet-stream",
        "OpenAction 1 · AA 1 · JavaScript 3",
    ] {
        assert!(text.contains(want), "missing {want:?}:\n{text}");
    }
    assert!(
        stderr(&out).contains("warning: "),
        "the decryption is noted"
    );
}

#[test]
fn a_pdf_without_a_catalog_is_refused_with_exit_status_2() {
    for (name, says) in [
        ("damaged-no-root.pdf", "no /Root"),
        ("damaged-user-password.pdf", "user password"),
    ] {
        let case = with(name);
        for args in [vec!["tree", name], vec!["reduce", name, "--test", "true"]] {
            let out = case.whittle(&args);
            assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
            let err = stderr(&out);
            assert!(
                err.contains("cannot parse as pdf") && err.contains(says),
                "{name}: {err}"
            );
        }
        assert!(!case.path(&name.replace(".pdf", ".reduced.pdf")).exists());
    }
}

#[test]
fn a_damaged_pdf_is_reduced_after_repair() {
    require_qpdf();
    let case = with("damaged-xref-offsets.pdf");
    case.script("opens-js.sh", OPENS_JS);
    let out = case.whittle(&[
        "reduce",
        "damaged-xref-offsets.pdf",
        "--test",
        "./opens-js.sh {}",
        "-a",
        "hdd",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("cross-reference"), "{}", stderr(&out));
    let check = case.run("qpdf", &["--check", "damaged-xref-offsets.reduced.pdf"]);
    assert!(
        check.status.success(),
        "{}{}",
        stdout(&check),
        stderr(&check)
    );
}

/// The oracle of the encrypted reductions: qpdf checks the file cleanly, shows the same
/// encryption as the original (`$2`, what `qpdf --show-encryption` printed for it), and the file
/// decrypted by `qpdf --qdf` still holds the opening script.
const SAME_ENCRYPTION_AND_SCRIPT: &str = r#"qpdf --check "$1" >/dev/null 2>&1 || exit 1
qpdf --show-encryption "$1" > shown.txt 2>&1 || exit 1
cmp -s shown.txt "$2" || exit 1
qpdf --qdf --object-streams=disable "$1" plain.pdf >/dev/null 2>&1
grep -q "app.alert" plain.pdf"#;

#[test]
fn an_encrypted_pdf_is_reduced_with_its_encryption_kept() {
    require_qpdf();
    for (name, method) in [
        ("encrypted-bulky-rc4.pdf", "R = 3\n"),
        (
            "encrypted-bulky-aes128.pdf",
            "stream encryption method: AESv2\n",
        ),
        (
            "encrypted-bulky-aes256.pdf",
            "stream encryption method: AESv3\n",
        ),
    ] {
        let case = with(name);
        case.script("same.sh", SAME_ENCRYPTION_AND_SCRIPT);
        let shown = case.run("qpdf", &["--show-encryption", name]);
        fs::write(case.path("original.txt"), &shown.stdout).unwrap();
        assert!(
            stdout(&shown).contains(method),
            "{name}: {}",
            stdout(&shown)
        );
        let expected = case.path("original.txt");
        let test = format!("./same.sh {{}} {}", expected.display());
        let out = case.whittle(&["reduce", name, "--test", &test, "-j", "2", "-o", "out.pdf"]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        let input = fs::read(case.path(name)).unwrap();
        let reduced = fs::read(case.path("out.pdf")).unwrap();
        assert!(
            reduced.len() * 10 < input.len(),
            "{name}: {} of {} bytes left",
            reduced.len(),
            input.len()
        );
        let again = case.run("qpdf", &["--show-encryption", "out.pdf"]);
        assert!(
            stdout(&again).contains(method),
            "{name}: {}",
            stdout(&again)
        );
        assert_eq!(
            stdout(&again),
            stdout(&shown),
            "{name}: the same encryption"
        );
        let still = case.run(
            "sh",
            &["./same.sh", "out.pdf", &expected.display().to_string()],
        );
        assert!(still.status.success(), "{name}: still interesting");
        // The script is encrypted in the file.
        assert!(!reduced.windows(9).any(|w| w == b"app.alert"), "{name}");
    }
}

#[test]
fn pdf_decrypt_writes_the_reduced_file_decrypted() {
    require_qpdf();
    let case = with("encrypted-bulky-aes128.pdf");
    case.script("opens-js.sh", OPENS_JS);
    let out = case.whittle(&[
        "reduce",
        "encrypted-bulky-aes128.pdf",
        "--pdf-decrypt",
        "--test",
        "./opens-js.sh {}",
        "-o",
        "out.pdf",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let shown = case.run("qpdf", &["--show-encryption", "out.pdf"]);
    assert!(
        stdout(&shown).contains("File is not encrypted"),
        "{}",
        stdout(&shown)
    );
    let reduced = fs::read(case.path("out.pdf")).unwrap();
    assert!(!reduced.windows(8).any(|w| w == b"/Encrypt"), "no /Encrypt");
    let still = case.run("sh", &["./opens-js.sh", "out.pdf"]);
    assert!(still.status.success(), "still interesting");
    // Not a PDF: the option is refused.
    let other = case.whittle(&[
        "reduce",
        "--lang",
        "xml",
        "--pdf-decrypt",
        "encrypted-bulky-aes128.pdf",
        "--test",
        "true",
    ]);
    assert_eq!(other.status.code(), Some(2), "{}", stderr(&other));
    assert!(
        stderr(&other).contains("--pdf-decrypt applies to PDF only"),
        "{}",
        stderr(&other)
    );
}
