//! Per case, whittle's default against the smallest *valid* result of any other reducer: its
//! size and calls, whittle's, and how many calls whittle had started when its best result first
//! was at most that size (from the counting wrapper's `best` lines). Totals alone mislead where
//! the other reducer stops early with a large file (treereduce ends numbro at 3.5 KB in 1 416
//! calls; whittle goes on to 12 B): the calls to the same size compare the same work.

use crate::cases::Peer;
use crate::cells::{LEFT, RIGHT, Table, cell, group_digits};
use crate::summary::{DEFAULT_REDUCER, Run};

/// The other result a case's row compares with: a run measured here, or one reported with the
/// case ([`Peer`]).
struct Other {
    name: String,
    jobs: usize,
    bytes: u64,
    calls: u64,
}

/// Whether `r` is a result of another reducer that counts, is smaller than the input and whose
/// output passes the case's check of the format (or the case has none). An output as large as
/// the input is no reduction to compare with: picire on a file of one line (its only unit) stops
/// after testing the input, and a fifth of its one call is no bar any reducer can meet.
fn valid_other(r: &Run) -> bool {
    checked_other(r) && r.bytes_after < r.bytes_before
}

/// Whether `r` is a result of another reducer that counts and passes the case's check.
fn checked_other(r: &Run) -> bool {
    !r.reducer.starts_with("whittle") && r.counts() && r.valid != Some(false)
}

/// The table, or the empty string when no case has both a default run and another reducer's
/// valid result; below it, a sentence naming the cases whose other outputs are all as large as
/// their input. `peers` are the results reported with a case (`case id`, result), marked so in
/// the table; a measured result of the same size and calls is preferred.
pub(crate) fn reach_table(runs: &[Run], peers: &[(&str, &Peer)]) -> String {
    let mut table = Table::new([
        ("case", LEFT),
        ("smallest valid other result", LEFT),
        ("its bytes", RIGHT),
        ("its oracle calls", RIGHT),
        ("whittle `auto` bytes", RIGHT),
        ("its oracle calls", RIGHT),
        ("its calls to reach the other's size", RIGHT),
        ("share of the other's calls", RIGHT),
    ]);
    let mut cases: Vec<&str> = runs.iter().map(|r| r.case.as_str()).collect();
    cases.dedup();
    let mut rows = 0;
    let mut not_smaller = Vec::new();
    for case in cases {
        let on_case = || runs.iter().filter(move |r| r.case == case);
        let measured = on_case().filter(|r| valid_other(r)).map(|r| Other {
            name: cell(&r.reducer),
            jobs: r.jobs,
            bytes: r.bytes_after,
            calls: r.calls,
        });
        let reported = (peers.iter())
            .filter(|(id, _)| *id == case)
            .map(|(_, p)| Other {
                name: format!("{} (reported)", cell(&p.reducer)),
                jobs: p.jobs,
                bytes: p.bytes,
                calls: p.calls,
            });
        let Some(other) = measured.chain(reported).min_by_key(|o| (o.bytes, o.calls)) else {
            // Only outputs as large as the input, if any: named below the table.
            let unreduced: Vec<String> = on_case()
                .filter(|r| checked_other(r) && !valid_other(r))
                .map(|r| {
                    format!(
                        "{} {} B from {} B in {} call{}",
                        cell(&r.reducer),
                        group_digits(r.bytes_after),
                        group_digits(r.bytes_before),
                        group_digits(r.calls),
                        if r.calls == 1 { "" } else { "s" }
                    )
                })
                .collect();
            if !unreduced.is_empty() {
                not_smaller.push(format!("`{case}` ({})", unreduced.join(", ")));
            }
            continue;
        };
        // whittle at the other's `-j` where it ran there, else at its largest.
        let Some(w) = on_case()
            .filter(|r| r.reducer == DEFAULT_REDUCER && !r.no_rules && r.counts())
            .max_by_key(|r| (r.jobs == other.jobs, r.jobs))
        else {
            continue;
        };
        let reach = w.call_log.calls_to_reach(other.bytes);
        let (reach_cell, share) = match reach {
            Some(c) if other.calls > 0 => (
                group_digits(c),
                format!("{:.0} %", 100.0 * c as f64 / other.calls as f64),
            ),
            Some(c) => (group_digits(c), "—".into()),
            None if w.call_log.progress.is_empty() => ("not logged".into(), "—".into()),
            None => ("not reached".into(), "—".into()),
        };
        table.row(&[
            cell(case),
            format!("{} (-j {})", other.name, other.jobs),
            group_digits(other.bytes),
            group_digits(other.calls),
            group_digits(w.bytes_after),
            format!("{} (-j {})", group_digits(w.calls), w.jobs),
            reach_cell,
            share,
        ]);
        rows += 1;
    }
    if rows == 0 {
        return String::new();
    }
    let mut out = table.finish();
    if !not_smaller.is_empty() {
        out.push_str(&format!(
            "\nNo other reducer's output is smaller than the input on {}.\n",
            not_smaller.join("; ")
        ));
    }
    out
}

#[cfg(test)]
mod tests;
