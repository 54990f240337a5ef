//! whittle's fixed costs on tiny inputs, and what the counting wrapper costs per call.

use crate::command;
use crate::report::Report;
use crate::results::{Environment, OverheadRow};
use crate::summary::median;
use anyhow::Result;
use std::ffi::OsString;
use std::path::Path;
use std::time::{Duration, Instant};

/// The overhead measurements: an always-true test (with and without the gate) and an
/// always-false test, which whittle should refuse with exit status 2, and a cheap real test,
/// each run `repeat` times on a ~1 KB catalogue.
pub(crate) fn overhead_rows(
    whittle: &Path,
    work: &Path,
    repeat: usize,
    env: &mut Environment,
) -> Result<Vec<OverheadRow>> {
    let dir = work.join("overhead");
    std::fs::create_dir_all(&dir)?;
    let plain = dir.join("catalogue.xml");
    let marked = dir.join("catalogue-marker.xml");
    let plain_text = catalogue(1000, None);
    let marked_text = catalogue(1000, Some("MARKER"));
    std::fs::write(&plain, &plain_text)?;
    std::fs::write(&marked, &marked_text)?;
    let plain = (plain.as_path(), plain_text.len());
    let marked = (marked.as_path(), marked_text.len());
    let cases: [OverheadCase<'_>; 4] = [
        ("always-true test (too permissive)", plain, "true", &[], 2),
        (
            "always-true test (too permissive)",
            plain,
            "true",
            &["--no-gate"],
            2,
        ),
        (
            "always-false test (not interesting)",
            plain,
            "false",
            &[],
            2,
        ),
        ("cheap real test", marked, "grep -q MARKER {}", &[], 0),
    ];
    let mut rows = Vec::new();
    for (case, (input, size), test, options, expected) in cases {
        eprintln!("overhead: {case} {options:?}, {repeat} runs…");
        let out = dir.join("out.xml");
        let json = dir.join("report.json");
        let mut row = OverheadRow {
            case: case.to_string(),
            input_bytes: size,
            test: test.to_string(),
            options: options.join(" "),
            algorithm: "gtr*".to_string(),
            jobs: 1,
            expected_exit: expected,
            ..OverheadRow::default()
        };
        for _ in 0..repeat {
            let _ = std::fs::remove_file(&json);
            let mut args: Vec<OsString> = vec![
                "reduce".into(),
                input.into(),
                "--test".into(),
                test.into(),
                "-o".into(),
                out.clone().into(),
                "--lang".into(),
                "xml".into(),
                "--algorithm".into(),
                "gtr*".into(),
                "-j".into(),
                "1".into(),
                "--report".into(),
                json.clone().into(),
                "-q".into(),
                // Every repetition is measured from scratch, never resumed from a journal.
                "--fresh".into(),
            ];
            args.extend(options.iter().map(OsString::from));
            env.max_foreign_rustc = env.max_foreign_rustc.max(crate::machine::foreign_rustc());
            let f =
                crate::measure::run_measured(whittle, &args, &[], &dir, Duration::from_secs(600))?;
            row.exits.push(f.exit);
            row.walls.push(f.wall);
        }
        // whittle writes a report only when it finishes a reduction.
        if let Ok(text) = std::fs::read_to_string(&json) {
            row.report = Some(Report::from_json(&text)?);
        }
        eprintln!(
            "  median {:.1} ms, exits {:?}",
            median(&row.walls).unwrap_or(0.0) * 1000.0,
            row.exits
        );
        rows.push(row);
    }
    Ok(rows)
}

/// An overhead measurement: case, (input, its size), test, extra options, expected exit status.
pub(crate) type OverheadCase<'a> = (&'a str, (&'a Path, usize), &'a str, &'a [&'a str], i32);

/// A deterministic XML catalogue of at least `min_bytes` bytes (a little more: it ends on a whole
/// entry). With `marker`, the entry in the middle carries a `<note>` holding it.
pub(crate) fn catalogue(min_bytes: usize, marker: Option<&str>) -> String {
    const TITLES: [&str; 5] = ["Dune", "Solaris", "Neuromancer", "Hyperion", "Ubik"];
    const AUTHORS: [&str; 5] = ["Herbert", "Lem", "Gibson", "Simmons", "Dick"];
    let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<catalogue>\n";
    let tail = "</catalogue>\n";
    let entry = |i: usize, note: Option<&str>| {
        let note = note.map_or(String::new(), |m| format!("<note>{m}</note>"));
        format!(
            "  <book id=\"b{i}\" year=\"{}\"><title>{}</title><author>{}</author>\
             <price currency=\"EUR\">{}.{:02}</price>{note}</book>\n",
            1960 + (i * 7) % 40,
            TITLES[i % TITLES.len()],
            AUTHORS[(i * 3) % AUTHORS.len()],
            5 + (i * 13) % 20,
            (i * 37) % 100,
        )
    };
    let mut entries = Vec::new();
    let mut len = head.len() + tail.len();
    while len < min_bytes {
        let e = entry(entries.len(), None);
        len += e.len();
        entries.push(e);
    }
    if let Some(m) = marker {
        let mid = entries.len() / 2;
        entries[mid] = entry(mid, Some(m));
    }
    format!("{head}{}{tail}", entries.concat())
}

/// What the counting wrapper costs per call: the median milliseconds of 21 calls of `true` on a
/// small file run directly, and through `count.sh` (an interesting call, which also keeps the
/// file as the best so far).
pub(crate) fn wrapper_cost(count: &Path, work: &Path) -> Option<(f64, f64)> {
    let dir = work.join("wrapper-cost");
    std::fs::create_dir_all(&dir).ok()?;
    let file = dir.join("f.txt");
    std::fs::write(&file, "x\n").ok()?;
    let time = |wrapped: bool| -> Option<f64> {
        let mut ms = Vec::new();
        for i in 0..21 {
            let log = dir.join(format!("calls-{i}.log"));
            let mut cmd = if wrapped {
                let mut c = command(count);
                c.arg(&log).arg("true");
                c
            } else {
                command("true")
            };
            let started = Instant::now();
            let ok = cmd.arg(&file).status().ok()?.success();
            ms.push(started.elapsed().as_secs_f64() * 1000.0);
            if !ok {
                return None;
            }
        }
        median(&ms)
    };
    Some((time(false)?, time(true)?))
}

#[cfg(test)]
mod tests;
