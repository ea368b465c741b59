#![allow(clippy::panic)]
use super::*;
use clap::Parser;

fn os(args: &[&str]) -> Vec<std::ffi::OsString> {
    args.iter().map(Into::into).collect()
}

#[test]
fn one_subcommand_parses_as_the_whole_parser_does() {
    let lines: [&[&str]; 13] = [
        &["linkbase", "rewrite", "--url", "http://h/", "page.html"],
        &[
            "linkbase",
            "rewrite",
            "-",
            "--drop-base",
            "--profile",
            "whatwg",
            "-o",
            "out",
        ],
        &[
            "linkbase",
            "rewrite",
            "site",
            "--site-url",
            "http://h/",
            "--relative",
            "-j",
            "2",
        ],
        &[
            "linkbase",
            "links",
            "--format",
            "tsv",
            "--charset",
            "koi8-r",
            "--header",
            "A: b",
        ],
        &[
            "linkbase",
            "links",
            "--same-scheme",
            "compat",
            "--dot-segments",
            "keep",
            "x",
        ],
        &[
            "linkbase",
            "base",
            "--content-location",
            "http://h/x",
            "--engine",
            "dom",
        ],
        &[
            "linkbase",
            "resolve",
            "--base",
            "http://a/b/c",
            "../g",
            "-x",
            "?y",
        ],
        &[
            "linkbase",
            "check",
            "site",
            "--site-url",
            "http://h/",
            "--exclude",
            "^x",
        ],
        &["linkbase", "check", "site", "--local", "--format", "json"],
        &[
            "linkbase",
            "check",
            "site",
            "--local",
            "--root-dir",
            ".",
            "--charset",
            "utf-8",
            "--fail-on-unchecked",
        ],
        &["linkbase", "links", "--default-charset", "utf-8", "x"],
        &[
            "linkbase",
            "check",
            "site",
            "--local",
            "--online",
            "--cache",
            "--accept",
            "200..=299,403",
            "--header",
            "h: A: b",
            "--host-interval",
            "10ms",
        ],
        &[
            "linkbase",
            "check",
            "--online",
            "--cache=c.json",
            "--max-cache-age",
            "12h",
            "site",
            "--local",
        ],
    ];
    for args in lines {
        let one = Cli::parse_one(&os(args)).unwrap_or_else(|| panic!("{args:?}"));
        let whole = Cli::try_parse_from(os(args)).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        assert_eq!(format!("{one:?}"), format!("{whole:?}"), "{args:?}");
    }
}

#[test]
fn help_version_and_errors_go_to_the_whole_parser() {
    let lines: [&[&str]; 7] = [
        &["linkbase", "rewrite", "--help"],
        &["linkbase", "links", "-h"],
        &["linkbase", "--version"],
        &["linkbase", "rewrite", "--no-such-flag"],
        &["linkbase", "check"],
        &["linkbase", "man"],
        &["linkbase"],
    ];
    for args in lines {
        assert!(Cli::parse_one(&os(args)).is_none(), "{args:?}");
    }
}
