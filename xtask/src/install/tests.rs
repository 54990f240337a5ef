//! Which commands install which missing tools, and that every case's tools can be installed.

use super::{Installer, install_commands, install_missing, installer, missing_tools, run_installs};
use crate::cases::{Tool, Version};

fn tool(program: &str, install: &str) -> Tool {
    Tool {
        program: program.into(),
        version: Version::Args(vec!["--version".into()]),
        install: install.into(),
    }
}

fn words(commands: &[Vec<String>]) -> Vec<String> {
    commands.iter().map(|c| c.join(" ")).collect()
}

#[test]
fn an_install_field_reads_as_apt_pip_or_npm_and_anything_else_is_refused() {
    let apt = |p: &[&str]| Installer::Apt(p.iter().map(|p| p.to_string()).collect());
    assert_eq!(
        installer("apt-get install -y origami-pdf"),
        Ok(apt(&["origami-pdf"]))
    );
    assert_eq!(
        installer("sudo apt install -y mujs tcc"),
        Ok(apt(&["mujs", "tcc"]))
    );
    assert_eq!(
        installer("python3 -m pip install shrinkray==0.0.1"),
        Ok(Installer::Pip(vec!["shrinkray==0.0.1".into()]))
    );
    assert_eq!(
        installer("npm install -g esvu"),
        Ok(Installer::Npm(vec!["esvu".into()]))
    );
    for bad in [
        "part of coreutils",
        "apt-get install -y",
        "make install",
        "",
    ] {
        assert!(installer(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn missing_tools_are_installed_with_one_apt_get_for_all_their_packages() {
    let pdfcop = tool("pdfcop", "apt-get install -y origami-pdf");
    let mujs = tool("mujs", "apt-get install -y mujs");
    let gcc = tool("gcc-12", "apt-get install -y gcc-12");
    let gxx = tool("g++-12", "apt-get install -y g++-12 gcc-12");
    let commands = install_commands(&[&pdfcop, &mujs, &gcc, &gxx], true).unwrap();
    assert_eq!(
        words(&commands),
        [
            "apt-get update -qq",
            "env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq origami-pdf mujs gcc-12 g++-12",
        ]
    );
    // Not root: under sudo. Then pip and npm, after apt-get.
    let pip = tool("lithium", "pip install lithium-reducer");
    let npm = tool("esvu", "npm install -g esvu");
    let commands = install_commands(&[&npm, &pip, &mujs], false).unwrap();
    assert_eq!(
        words(&commands),
        [
            "sudo apt-get update -qq",
            "sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mujs",
            "sudo python3 -m pip install -q lithium-reducer",
            "sudo npm install -g esvu",
        ]
    );
    assert!(install_commands(&[], true).unwrap().is_empty());
    // A tool xtask cannot install is an error that names it.
    let by_hand = tool("frob", "build it from source");
    let e = install_commands(&[&mujs, &by_hand], true).unwrap_err();
    assert!(e.to_string().contains("`frob` is missing"), "{e}");
}

#[test]
fn every_tool_of_every_case_can_be_installed_by_xtask() {
    let cases = crate::cases::load(&crate::cases::cases_dir()).unwrap();
    let mut programs = Vec::new();
    for case in &cases {
        for t in &case.tools {
            assert!(
                installer(&t.install).is_ok(),
                "case {}: `{}` has install = {:?}",
                case.id,
                t.program,
                t.install
            );
            programs.push(t.program.as_str());
        }
    }
    // The tools issue 30 found marked "not run" are among them.
    for p in ["pdfcop", "mujs", "gcc-12", "g++-12", "clang-15"] {
        assert!(programs.contains(&p), "{p}");
    }
}

/// The sim-cluster case with these `[[tools]]` tables instead of its own.
fn case_with(tools: &str) -> crate::cases::Case {
    let text =
        std::fs::read_to_string(crate::cases::cases_dir().join("10-sim-cluster.toml")).unwrap();
    let (head, _) = text.split_once("[[tools]]").unwrap();
    toml::from_str(&format!("{head}{tools}")).unwrap()
}

#[test]
fn only_missing_tools_are_installed_and_one_xtask_cannot_install_stops_it_by_name() {
    let present = "[[tools]]\nprogram = \"sh\"\nversion = { debian = \"dash\" }\ninstall = \"apt-get install -y dash\"\n";
    let absent = "[[tools]]\nprogram = \"whittle-no-such-tool\"\nversion = { args = [\"--version\"] }\ninstall = \"build it from source\"\n";
    // Everything there: nothing to do, nothing run.
    let there = [case_with(present), case_with(present)];
    assert!(missing_tools(&there).is_empty());
    assert_eq!(install_missing(&there).unwrap(), Vec::<String>::new());
    // A missing tool, named once however many cases call it.
    let cases = [case_with(&format!("{present}{absent}")), case_with(absent)];
    let missing = missing_tools(&cases);
    assert_eq!(missing.len(), 1);
    assert_eq!(missing[0].0.program, "whittle-no-such-tool");
    let e = install_missing(&cases).unwrap_err().to_string();
    assert!(
        e.contains("`whittle-no-such-tool` is missing and cannot be installed")
            && e.contains("--case"),
        "{e}"
    );
}

#[test]
fn a_failed_install_command_stops_with_what_it_said_and_the_way_out() {
    let sh = |script: &str| vec!["sh".to_string(), "-c".to_string(), script.to_string()];
    let names = ["`pdfcop`".to_string()];
    run_installs(&[sh("exit 0"), sh("true")], &names).unwrap();
    let e = run_installs(
        &[
            sh("exit 0"),
            sh("echo 'E: Unable to locate package origami-pdf' >&2; exit 100"),
            sh("echo never > /dev/null"),
        ],
        &names,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("failed (exit status: 100)"), "{e}");
    assert!(e.contains("Unable to locate package origami-pdf"), "{e}");
    assert!(e.contains("install `pdfcop` by hand"), "{e}");
}
