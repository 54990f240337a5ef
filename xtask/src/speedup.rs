//! The document's speed-up table: each whittle run at `-j 1` against the same run at every larger
//! `-j` it was measured at (the sleeping cases run at every power of two up to 64), with the
//! tests whittle started and cancelled at each.

use crate::cells::{LEFT, RIGHT, Table, cell, group_digits, speedup};
use crate::summary::Run;

/// `-j 1` against every larger `-j` for every whittle run that ran at both, same rules.
pub(crate) fn speedup_table(runs: &[Run]) -> String {
    let mut table = Table::new([
        ("case", LEFT),
        ("reducer", LEFT),
        ("rules", LEFT),
        ("-j", RIGHT),
        ("wall s at -j 1", RIGHT),
        ("wall s at -j N", RIGHT),
        ("speed-up", RIGHT),
        ("oracle calls -j 1 / -j N", RIGHT),
        ("tests started / cancelled at -j N", RIGHT),
    ]);
    let mut any = false;
    for one in runs.iter().filter(|r| r.jobs == 1) {
        let mut more: Vec<&Run> = runs
            .iter()
            .filter(|r| {
                r.jobs > 1
                    && r.case == one.case
                    && r.reducer == one.reducer
                    && r.no_rules == one.no_rules
            })
            .collect();
        more.sort_by_key(|r| r.jobs);
        for n in more {
            any = true;
            table.row(&[
                cell(&one.case),
                cell(&one.reducer),
                (if one.no_rules { "none" } else { "shipped" }).to_string(),
                n.jobs.to_string(),
                format!("{:.2}", one.wall_seconds),
                format!("{:.2}", n.wall_seconds),
                speedup(one.wall_seconds, n.wall_seconds),
                format!("{} / {}", group_digits(one.calls), group_digits(n.calls)),
                n.started_cancelled.map_or_else(
                    || "—".to_string(),
                    |(started, cancelled)| {
                        format!("{} / {}", group_digits(started), group_digits(cancelled))
                    },
                ),
            ]);
        }
    }
    if !any {
        return String::new();
    }
    table.finish()
}
