//! docs/cli.md, the CLI reference, is `linkbase --help` and each command's `--help`,
//! generated from the clap definitions: this test writes it with `LINKBASE_BLESS=1` and fails
//! when the checked-in file is not what the binary prints, so the reference is never stale.

use std::path::Path;
use std::process::Command;

const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// The commands `linkbase --help` lists, `help` aside.
fn commands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        // A command's line starts with two spaces and its name; wrapped text is indented more.
        .filter_map(|l| l.strip_prefix("  ").filter(|r| !r.starts_with(' ')))
        .filter_map(|r| r.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_owned)
        .collect()
}

/// `linkbase ARGS` with the width clap wraps help at fixed: a terminal's `COLUMNS` would change
/// it (stdout is a pipe, so clap's default, 100 columns, applies).
fn help(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_linkbase"))
        .args(args)
        .env_remove("COLUMNS")
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn reference() -> String {
    let top = help(&["--help"]);
    let mut out = String::from(
        "# CLI reference\n\n\
         What `linkbase --help` and `linkbase COMMAND --help` print, generated from the same clap\n\
         definitions (`cli/tests/integration/cli_doc.rs` checks that this file is current;\n\
         `LINKBASE_BLESS=1 cargo test -p linkbase-cli --test integration cli_reference` rewrites\n\
         it). `linkbase man` prints them as manual pages, with EXIT STATUS and FILES.\n",
    );
    let mut sections = vec![("linkbase".to_owned(), top.clone())];
    for command in commands(&top) {
        let text = help(&[&command, "--help"]);
        sections.push((format!("linkbase {command}"), text));
    }
    for (title, text) in sections {
        out.push_str(&format!(
            "\n## `{title}`\n\n```text\n{}\n```\n",
            text.trim_end()
        ));
    }
    out
}

#[test]
fn cli_reference_is_current() {
    let path = Path::new(REPO).join("docs/cli.md");
    let expected = reference();
    if std::env::var_os("LINKBASE_BLESS").is_some() {
        std::fs::write(&path, &expected).unwrap();
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "docs/cli.md is not what --help prints: run \
         LINKBASE_BLESS=1 cargo test -p linkbase-cli --test integration cli_reference"
    );
}

#[test]
fn commands_are_read_from_the_help() {
    let help = "Commands:\n  resolve      Resolve\n  check        Check every\n               index.html\n  help         Print\n\nOptions:\n";
    assert_eq!(commands(help), ["resolve", "check"]);
}
