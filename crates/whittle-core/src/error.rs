//! Why a reduction stops early or cannot start: a leaf module, so that every module that
//! reports an error imports it and not the engine.

use crate::document::ParseError;
use crate::oracle::{OracleError, Verdict};

/// Why a reduction stopped early or could not start.
#[derive(Debug, thiserror::Error)]
pub enum ReduceError {
    /// The input does not parse in the chosen format.
    #[error("cannot parse the input: {0}")]
    Parse(#[from] ParseError),
    /// The format does not give back the input when nothing is edited (a bug in the format).
    #[error("the {0} format does not reproduce this input byte for byte; refusing to reduce it")]
    RoundTrip(&'static str),
    /// A rendering that the engine accepted does not parse again (a bug in the format).
    #[error("the {format} format cannot re-read its own output: {error}")]
    Reparse {
        /// The format.
        format: &'static str,
        /// The parse error.
        error: ParseError,
    },
    /// The original input is not interesting.
    #[error("the original input is not interesting ({0:?})")]
    NotInteresting(Verdict),
    /// The input as the format writes every candidate (see [`Format::rewriting`]) is not
    /// interesting, so no candidate can be.
    #[error(
        "the {format} format {changes}, and the test does not find the input written that way interesting ({verdict:?})"
    )]
    Rewritten {
        /// The format.
        format: &'static str,
        /// What it changes ([`Format::rewriting`]).
        changes: &'static str,
        /// What the test said about the rewritten input.
        verdict: Verdict,
    },
    /// The journal cannot be used (it belongs to another input or test, or cannot be read).
    #[error(transparent)]
    Journal(#[from] crate::journal::JournalError),
    /// The empty file is interesting: the test accepts anything.
    #[error("the test is too permissive: it says the empty file is interesting too")]
    TooPermissive,
    /// The oracle could not run.
    #[error(transparent)]
    Oracle(#[from] OracleError),
    /// Ctrl-C, SIGTERM or a caller's stop flag.
    #[error("interrupted")]
    Interrupted,
    /// A phase spent the oracle calls it was given (see [`Reducer::set_call_limit`]); the phase
    /// ends there and the reduction goes on.
    #[error("the phase spent its budget of tests")]
    OutOfBudget,
}
