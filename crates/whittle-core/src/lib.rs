//! The format-independent core of whittle.
//!
//! See `docs/ARCHITECTURE.md` for the crate map and the invariants this crate keeps: it knows no
//! format, and only its `oracle` module starts processes.

mod algo;
mod alone;
mod below;
mod blanks;
mod candidate;
mod changes;
mod ddmin;
mod document;
mod edit;
mod engine;
mod error;
mod format;
mod hoist;
mod inline;
mod journal;
mod judge;
mod lexicon;
mod lists;
mod load;
mod lookahead;
mod nest;
mod observe;
mod oracle;
mod plan;
mod pool;
mod reduction;
mod repeat;
mod rules;
mod slice;
mod split;
mod stats;
mod sweep;
mod tail;
mod template;
mod tree;
mod tried;

pub use algo::{Algorithm, gtr, hdd, run};
pub use below::{name_of, units};
pub use candidate::{Found, shortlex_less};
pub use ddmin::ddmin;
pub use document::{Diagnostic, Document, ParseError};
pub use edit::{Edit, Edits, GapHook, gap, render_replacing, render_template, render_with};
pub use engine::{Options, Reducer};
pub use error::ReduceError;
pub use format::{Embedded, Format, ListMove, Slices, render_spliced_leaves, spliced_leaves};
pub use journal::{JOURNAL_VERSION, Journal, JournalError, JournalSpec, content_hash};
pub use lexicon::{KEPT_NAMESPACE, Lexicon, Splices, Token, TokenKind, blank_runs};
pub use nest::Nested;
pub use observe::{Gate, Observer, Started, Tested};
pub use oracle::{
    Adaptive, CommandOracle, GENERATOR_HALTED, GeneratorOracle, GeneratorStats, Guard, Oracle,
    OracleError, OriginalRun, Run, Timeout, TimeoutReport, Verdict, absolutize_command,
    adaptive_limit, guard_main, shell_quote,
};
pub use reduction::{JournalReport, OddsReport, Reduced, Reduction, Report};
pub use repeat::Repeat;
pub use rules::{CompiledRules, LabelRules, RULES_VERSION, Rules, RulesError};
pub use stats::Stats;
pub use template::{Deletion, SubstituteByChild, Template, default_templates};
pub use tree::{BuildError, NodeId, Sym, Tree, TreeBuilder};

#[cfg(test)]
mod tests;
