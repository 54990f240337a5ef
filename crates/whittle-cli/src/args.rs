//! The command line, as clap parses it. Checks that need more than one argument, or the file
//! system, happen where the arguments are used (`reduce.rs`).

use clap::builder::TypedValueParser;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use whittle::Algorithm;

#[derive(Parser)]
#[command(name = "whittle", version, about = "Reduce a file while a test still says it is interesting", long_about = None)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Reduce INPUT while the test command exits with status 0.
    Reduce(Box<ReduceArgs>),
    /// Print the labeled tree of a file, as the reducer sees it.
    Tree(TreeArgs),
    /// List the formats this build knows.
    Formats,
    /// Learn filtering rules (mandatory edges, allowed contexts) from a corpus of your own files.
    Learn(LearnArgs),
    /// Print the Python client for generator-based reduction (whittle_gen.py), or write it to a
    /// file.
    GenClient {
        /// Where to write it [default: standard output].
        #[arg(long, short = 'o')]
        output: Option<PathBuf>,
    },
    /// Print the completion script of a shell: `whittle completions bash >
    /// /etc/bash_completion.d/whittle`, or `source <(whittle completions bash)`.
    Completions {
        /// The shell.
        shell: Shell,
    },
    /// Print the manual page (roff), the `whittle.1` of a release: `whittle man | man -l -`.
    Man,
}

/// The shells `whittle completions` writes for.
#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum Shell {
    Bash,
    Zsh,
    Fish,
}

#[derive(Args)]
pub(crate) struct LearnArgs {
    /// The format of the corpus.
    #[arg(long)]
    pub(crate) lang: String,
    /// Files, and directories to search for files with the format's extensions.
    #[arg(required = true)]
    pub(crate) paths: Vec<PathBuf>,
    /// Where to write the rules (JSON).
    #[arg(long, short = 'o')]
    pub(crate) output: PathBuf,
    /// Threads [default: the number of cores]. The rules are the same for every value.
    #[arg(long, short = 'j')]
    pub(crate) jobs: Option<usize>,
}

#[derive(Args)]
pub(crate) struct ReduceArgs {
    /// The file to reduce (never modified); with --generator, the trace the generator recorded.
    pub(crate) input: PathBuf,
    /// The test: a shell command that exits 0 when its file is still interesting. `{}` is replaced
    /// by the candidate's path; without `{}` the path is appended.
    #[arg(long, short = 't', value_name = "CMD")]
    pub(crate) test: String,
    /// The test is a command that crashes (a compiler invocation): a candidate is interesting
    /// when the command's output (standard output and error together) holds TEXT, whatever its
    /// exit status. Repeat for several texts, which must all be there. See `docs/c.md`.
    #[arg(long, value_name = "TEXT")]
    pub(crate) expect: Vec<String>,
    /// Where to write the result [default: INPUT with `.reduced` before the extension; with
    /// --generator, the generated input of the best trace, INPUT's stem + `.reduced.out`].
    #[arg(long, short = 'o')]
    pub(crate) output: Option<PathBuf>,
    /// Generator-based reduction: INPUT is a trace recorded by a generator that uses
    /// whittle_gen.py, and CMD replays a trace into a generated input (`{trace}` is replaced by the
    /// trace's path, `{out}` by the path to write to); it runs in the current directory. The test
    /// judges the generated inputs; the best trace goes to INPUT's stem + `.reduced.trace`.
    #[arg(long, value_name = "CMD")]
    pub(crate) generator: Option<String>,
    /// With --generator: what a replay does with a decision it cannot align with the trace:
    /// halt, fresh, realign or bypass (see `whittle gen-client`).
    #[arg(long, default_value = "realign", value_parser = ["halt", "fresh", "realign", "bypass"], requires = "generator")]
    pub(crate) align: String,
    /// The format [default: from the file extension; `lines` for unknown extensions].
    #[arg(long)]
    pub(crate) lang: Option<String>,
    /// The reduction algorithm: auto (GTR* and the moves below the tree), or one of the papers'
    /// algorithms as written: gtr*, gtr, hdd*, hdd, hdd+, ddmin.
    #[arg(long, short = 'a', default_value = "auto", value_parser = algorithm_parser())]
    pub(crate) algorithm: Algorithm,
    /// Tests to run at once [default: the number of cores]. The result is the same for every value.
    #[arg(long, short = 'j')]
    pub(crate) jobs: Option<usize>,
    /// For many workers (-j 16 and up, a cluster): each round of ddmin over a wide list tests -j
    /// candidates at once (a step's and those of the finer splits after it) and, when several are
    /// interesting, tries them together. Fewer rounds of tests than the default at the same -j,
    /// more tests in all; the result is 1-minimal as ddmin's, but depends on -j above 4.
    #[arg(long)]
    pub(crate) merge_wins: bool,
    /// Seconds after which a test is killed (with everything it started) and counted as not
    /// interesting [default: adaptive, 5 × the test's recent times (the 95th percentile of the
    /// last 32, and the slowest of the last 8 interesting ones), at least 1 s; the original
    /// input's first test may take 5 min].
    #[arg(long, value_name = "SECONDS")]
    pub(crate) timeout: Option<f64>,
    /// A rules file (JSON) that filters candidates before the test runs.
    #[arg(long, conflicts_with = "no_rules")]
    pub(crate) rules: Option<PathBuf>,
    /// Use no rules.
    #[arg(long)]
    pub(crate) no_rules: bool,
    /// Do not check candidates with the format's own parser before running the test.
    #[arg(long)]
    pub(crate) no_gate: bool,
    /// PDF: write the candidates of an encrypted input decrypted [default: with the input's
    /// encryption].
    #[arg(long)]
    pub(crate) pdf_decrypt: bool,
    /// Write every count and timing as JSON to this file.
    #[arg(long, value_name = "FILE.json")]
    pub(crate) report: Option<PathBuf>,
    /// Print nothing but errors (no progress lines, no warnings).
    #[arg(long, short = 'q')]
    pub(crate) quiet: bool,
    /// Seconds between progress lines when standard error is not a terminal (a log, CI,
    /// nohup); 0 prints one after every test. On a terminal a progress bar shows instead.
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    pub(crate) log_every: f64,
    /// Say what is going on after this many tests in a row without an improvement (and again
    /// after twice as many, …), or after 10 minutes without one.
    #[arg(long, value_name = "N", default_value_t = 500, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) stall_after: u64,
    /// Where the journal goes [default: beside the output, named after it + `.journal`]. The
    /// journal records every verdict, so that running the same command again after a kill or a
    /// crash resumes without running a test twice; it is removed when the reduction finishes.
    #[arg(long, value_name = "DIR", conflicts_with = "no_journal")]
    pub(crate) journal_dir: Option<PathBuf>,
    /// Ignore an existing journal and start a new one.
    #[arg(long, conflicts_with = "no_journal")]
    pub(crate) fresh: bool,
    /// Keep no journal (a killed run then starts over).
    #[arg(long)]
    pub(crate) no_journal: bool,
    /// For a flaky test: run it up to K times on each candidate (interesting if one run says so),
    /// and K times on the final result to show how reliably it reproduces.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) repeat: u32,
}

#[derive(Args)]
pub(crate) struct TreeArgs {
    /// The file to show.
    pub(crate) input: PathBuf,
    /// The format [default: from the file extension].
    #[arg(long)]
    pub(crate) lang: Option<String>,
}

/// `--algorithm`: one of the library's names, listed so that `--help` and the shell
/// completions show them.
fn algorithm_parser() -> impl clap::builder::TypedValueParser<Value = Algorithm> {
    clap::builder::PossibleValuesParser::new(Algorithm::ALL.map(Algorithm::name))
        .try_map(|s| s.parse::<Algorithm>())
}

/// `-j`: the given number, or one per core.
pub(crate) fn jobs(given: Option<usize>) -> usize {
    given
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
}
