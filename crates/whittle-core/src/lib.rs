//! The format-independent core of whittle.
//!
//! See `docs/ARCHITECTURE.md` for the crate map and the invariants this crate keeps: it knows no
//! format, and only its `oracle` module starts processes.

mod algo;
mod edit;
mod engine;
mod format;
mod oracle;
mod rules;
mod template;
mod tree;

pub use algo::{Algorithm, ddmin, default_templates, gtr, hdd, run};
pub use edit::{Edit, Edits, GapHook, gap, render_template, render_with};
pub use engine::{Found, Observer, Options, ReduceError, Reducer, Stats};
pub use format::{Diagnostic, Document, Format, ParseError};
pub use oracle::{
    CommandOracle, GENERATOR_HALTED, GeneratorOracle, GeneratorStats, Oracle, OracleError, Run,
    Verdict, absolutize_command, shell_quote,
};
pub use rules::{CompiledRules, LabelRules, RULES_VERSION, Rules, RulesError};
pub use template::{Deletion, SubstituteByChild, Template};
pub use tree::{BuildError, NodeId, Sym, Tree, TreeBuilder};

#[cfg(test)]
mod tests;
