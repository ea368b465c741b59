//! Help and manual: options under headings, an EXAMPLES block per command,
//! `linkbase man` pages with EXIT STATUS and FILES, one `--format` spelling everywhere.

use super::sites::{s, tmp};
use super::util::linkbase;

const COMMANDS: [&str; 7] = [
    "resolve",
    "rewrite",
    "links",
    "base",
    "check",
    "completions",
    "man",
];

fn help(args: &[&str]) -> String {
    let run = linkbase(args, b"");
    assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
    run.stdout
}

/// The headings of a help text: the unindented lines ending in a colon.
fn headings(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| !l.starts_with(' ') && l.ends_with(':'))
        .collect()
}

#[test]
fn options_are_grouped_under_headings() {
    let expected: [(&str, &[&str]); 5] = [
        (
            "rewrite",
            &[
                "Arguments:",
                "Options:",
                "Base:",
                "Input:",
                "Resolution:",
                "Output:",
                "Site:",
                "Exit status:",
                "Examples:",
            ],
        ),
        (
            "links",
            &[
                "Arguments:",
                "Options:",
                "Base:",
                "Input:",
                "Resolution:",
                "Output:",
                "Examples:",
            ],
        ),
        (
            "base",
            &[
                "Arguments:",
                "Options:",
                "Base:",
                "Input:",
                "Resolution:",
                "Output:",
                "Examples:",
            ],
        ),
        (
            "resolve",
            &[
                "Arguments:",
                "Options:",
                "Base:",
                "Resolution:",
                "Output:",
                "Examples:",
            ],
        ),
        (
            "check",
            &[
                "Arguments:",
                "Options:",
                "Site:",
                "Output:",
                "Filters:",
                "Input:",
                "Online:",
                "Resolution:",
                "Examples:",
            ],
        ),
    ];
    for (command, want) in expected {
        for flag in ["-h", "--help"] {
            let text = help(&[command, flag]);
            assert_eq!(headings(&text), want, "{command} {flag}:\n{text}");
        }
    }
    // Under its heading: --url is a base layer, --profile a resolution option.
    let text = help(&["rewrite", "-h"]);
    let at = |s: &str| text.find(s).unwrap();
    assert!(at("Base:") < at("--url <URI>") && at("--url <URI>") < at("Input:"));
    assert!(at("Resolution:") < at("--profile") && at("--profile") < at("Output:"));
}

#[test]
fn every_command_has_examples_of_itself() {
    for command in COMMANDS {
        let text = help(&[command, "--help"]);
        let examples = text
            .split_once("\nExamples:\n")
            .unwrap_or_else(|| panic!("{command}: no Examples\n{text}"))
            .1;
        let lines: Vec<&str> = examples.lines().collect();
        assert!(!lines.is_empty(), "{command}");
        for line in lines {
            assert!(
                line.contains(&format!("linkbase {command}")),
                "{command}: {line:?}"
            );
        }
    }
    assert!(help(&["--help"]).contains("\nExamples:\n  linkbase rewrite "));
}

#[test]
fn man_is_linkbase_1_with_exit_status_files_and_every_command() {
    let page = help(&["man"]);
    assert!(page.contains("\n.TH linkbase 1 "), "{page}");
    let sections: Vec<&str> = page.lines().filter(|l| l.starts_with(".SH ")).collect();
    assert_eq!(
        sections,
        [
            ".SH NAME",
            ".SH SYNOPSIS",
            ".SH DESCRIPTION",
            ".SH OPTIONS",
            ".SH SUBCOMMANDS",
            ".SH EXAMPLES",
            ".SH EXIT STATUS",
            ".SH FILES",
            ".SH ENVIRONMENT",
            ".SH SEE ALSO",
            ".SH VERSION"
        ]
    );
    assert!(page.contains(".SH EXIT STATUS\n.TP\n\\fB0\\fR\n"), "{page}");
    assert!(page.contains("DIR/.linkbaseignore"));
    assert!(page.contains("DIR/.linkbase\\-cache.json"), "{page}");
    assert!(page.contains("HTTPS_PROXY"));
    for command in COMMANDS {
        assert!(
            page.contains(&format!("linkbase\\-{command}(1)")),
            "{command}"
        );
    }
}

#[test]
fn man_prints_a_page_per_command_and_writes_them_all() {
    for command in COMMANDS {
        let page = help(&["man", command]);
        assert!(
            page.contains(&format!("\n.TH linkbase-{command} 1 ")),
            "{command}: {page}"
        );
        assert!(page.contains(".SH EXAMPLES\n.nf\n"), "{command}");
        assert!(page.contains(".SH EXIT STATUS\n"), "{command}");
        assert!(page.contains("\\fBlinkbase\\fR(1)"), "{command}: SEE ALSO");
    }
    let run = linkbase(&["man", "nosuch"], b"");
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("no command \"nosuch\""),
        "{}",
        run.stderr
    );

    let dir = tmp();
    let out = dir.path().join("man1");
    let run = linkbase(&["man", "--dir", s(&out)], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let mut want: Vec<String> = COMMANDS
        .iter()
        .map(|c| format!("linkbase-{c}.1"))
        .chain(["linkbase.1".to_owned()])
        .collect();
    want.sort();
    assert_eq!(names, want);
    assert_eq!(run.stdout.lines().count(), want.len());
    assert_eq!(
        std::fs::read_to_string(out.join("linkbase-rewrite.1")).unwrap(),
        help(&["man", "rewrite"])
    );
}

#[test]
fn resolve_format_jsonl_and_the_old_json_agree() {
    let refs = ["--base", "http://a/b/c/d;p?q", "../g", "#s", "", "g:h"];
    let format = linkbase(
        &[&["resolve", "--format", "jsonl"], &refs[..]].concat(),
        b"",
    );
    let json = linkbase(&[&["resolve", "--json"], &refs[..]].concat(), b"");
    assert_eq!(format.code, 0, "{}", format.stderr);
    assert_eq!(
        (format.code, &format.stdout, &format.stderr),
        (json.code, &json.stdout, &json.stderr)
    );
    assert_eq!(format.stdout.lines().count(), 4);
    // --json still parses, and no longer shows in the help: --format is the one spelling.
    let text = help(&["resolve", "--help"]);
    assert!(!text.contains("--json"), "{text}");
    assert!(text.contains("--format <FORMAT>"));
}

/// The manual's NAME line says "linkbase \- what it does" (not "linkbase \- linkbase:
/// …"); `check`'s page has one EXIT STATUS section, its own, and names the tree's files; `check
/// -h` describes every format it lists.
#[test]
fn the_manual_and_check_help_say_each_thing_once() {
    let page = help(&["man"]);
    let name = page
        .lines()
        .skip_while(|l| *l != ".SH NAME")
        .nth(1)
        .unwrap();
    assert!(name.starts_with("linkbase \\- find the base URI"), "{name}");
    let check = help(&["man", "check"]);
    let sections: Vec<&str> = check.lines().filter(|l| l.starts_with(".SH ")).collect();
    assert_eq!(
        sections,
        [
            ".SH NAME",
            ".SH SYNOPSIS",
            ".SH DESCRIPTION",
            ".SH OPTIONS",
            ".SH SITE",
            ".SH OUTPUT",
            ".SH FILTERS",
            ".SH INPUT",
            ".SH ONLINE",
            ".SH RESOLUTION",
            ".SH EXAMPLES",
            ".SH EXIT STATUS",
            ".SH FILES",
            ".SH ENVIRONMENT",
            ".SH SEE ALSO"
        ]
    );
    assert!(
        check.contains("there was nothing to check (no page or stylesheet in DIR"),
        "{check}"
    );
    assert!(check.contains("\\fBDIR/linkbase.toml\\fR"), "{check}");
    let short = help(&["check", "-h"]);
    for described in ["github: a GitHub Actions", "sarif: a SARIF 2.1.0 log"] {
        assert!(short.contains(described), "{described}: {short}");
    }
    assert!(short.contains("--index-files <NAME,...>"), "{short}");
    assert!(short.contains("--fallback-extensions <EXT,...>"), "{short}");
}
