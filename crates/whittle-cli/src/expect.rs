//! `--expect TEXT`: a crash test without a script. Most C and C++ reductions start from "this
//! compiler invocation crashes with this message"; with `--expect`, the test command is that
//! invocation, and a candidate is interesting when its output (standard output and error
//! together) holds every given text, whatever the exit status (a crashing compiler exits
//! non-zero). As LLVM's `creduce-clang-crash.py` writes its test script, but on the command line.

use whittle_core::shell_quote;

/// The shell command that runs `command` (with `{}` for the candidate, appended if absent) and
/// exits 0 when its output holds every text of `expect`; `command` itself when `expect` is empty.
pub(crate) fn with_expectations(command: &str, expect: &[String]) -> String {
    if expect.is_empty() {
        return command.to_string();
    }
    let command = if command.contains("{}") {
        command.to_string()
    } else {
        format!("{command} {{}}")
    };
    // The command's output, both streams; a line break ends a trailing comment in it.
    let mut line = format!("whittle_output=$( {{ {command}\n}} 2>&1 </dev/null )");
    for text in expect {
        line.push_str(&format!(
            "; printf '%s\\n' \"$whittle_output\" | grep -qF -e {} || exit 1",
            shell_quote(text)
        ));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// Runs the composed test on a path, as the oracle does (`sh -c`, `{}` replaced).
    fn run(command: &str, expect: &[&str], path: &str) -> bool {
        let expect: Vec<String> = expect.iter().map(|s| s.to_string()).collect();
        let line = with_expectations(command, &expect).replace("{}", &shell_quote(path));
        #[allow(
            clippy::disallowed_methods,
            reason = "the test runs sh as the oracle would"
        )]
        let status = Command::new("sh").arg("-c").arg(&line).status();
        status.expect("sh runs").success()
    }

    #[test]
    fn every_text_must_be_in_either_stream_whatever_the_exit_status() {
        let cmd = "echo \"internal compiler error: in $1\" >&2; echo during pass objsz; exit 4 #";
        let cmd = format!("sh -c '{cmd}' x");
        assert!(run(
            &cmd,
            &["internal compiler error: in a.c", "pass objsz"],
            "a.c"
        ));
        assert!(!run(&cmd, &["internal compiler error: in b.c"], "a.c"));
        assert!(!run(&cmd, &["pass objsz", "segfault"], "a.c"));
        // Texts are fixed strings, not patterns, and may hold quotes.
        assert!(!run("echo 'a.c'", &["a.c'"], "a.c"));
        assert!(run("echo \"it's [x]\"", &["it's [x]"], "a.c"));
    }

    #[test]
    fn without_expectations_the_command_is_unchanged() {
        assert_eq!(with_expectations("gcc -c {}", &[]), "gcc -c {}");
        // The candidate is appended where the command does not place it.
        assert!(with_expectations("gcc -c", &["x".to_string()]).contains("gcc -c {}\n}"));
    }
}
