//! `linkbase resolve`, as docs/usage.md describes it.

use super::util::linkbase;

const BASE: &str = "http://a/b/c/d;p?q";

#[test]
fn plain_output_one_line_per_argument_in_order() {
    let run = linkbase(
        &["resolve", "--base", BASE, "g", "../../../g", "?y", "#s", ""],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "http://a/b/c/g\nhttp://a/../g\nhttp://a/b/c/?y\nhttp://a/b/c/d;p?q#s\nhttp://a/b/c/d;p?q\n"
    );
    assert_eq!(run.stderr, "");
}

#[test]
fn references_from_stdin_with_empty_lines_and_crlf() {
    let run = linkbase(&["resolve", "--base", BASE], b"g\n\n");
    assert_eq!(run.stdout, "http://a/b/c/g\nhttp://a/b/c/d;p?q\n");
    let run = linkbase(&["resolve", "--base", BASE], b"");
    assert_eq!((run.code, run.stdout.as_str()), (0, ""));
    let run = linkbase(&["resolve", "--base", BASE], b"g\n\n../x\r\n-y");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "http://a/b/c/g\nhttp://a/b/c/d;p?q\nhttp://a/b/x\nhttp://a/b/c/-y\n"
    );
}

#[test]
fn json_records() {
    let run = linkbase(&["resolve", "--json", "--base", BASE, "#s", "g"], b"");
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stdout,
        concat!(
            r##"{"ref":"#s","resolved":"http://a/b/c/d;p?q#s","same_document":true,"error":null}"##,
            "\n",
            r#"{"ref":"g","resolved":"http://a/b/c/g","same_document":false,"error":null}"#,
            "\n"
        )
    );
}

#[test]
fn unresolvable_reference_exits_1_and_keeps_alignment() {
    let run = linkbase(&["resolve", "--base", "mailto:x@y", "g", "#f"], b"");
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout, "\nmailto:x@y#f\n");
    assert!(
        run.stderr.contains("\"g\"") && run.stderr.contains("not hierarchical"),
        "{}",
        run.stderr
    );

    let run = linkbase(&["resolve", "--json", "--base", "mailto:x@y", "g"], b"");
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.starts_with(
            r#"{"ref":"g","resolved":null,"same_document":false,"error":"cannot resolve"#
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn profiles_and_policies() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--profile", "rfc1808", "?y", ""],
            "http://a/b/c/d;p?y\nhttp://a/b/c/d;p?q#f\n",
        ),
        (
            &["--profile", "rfc3986", "?y", "../../../g"],
            "http://a/b/c/d;p?y\nhttp://a/g\n",
        ),
        (
            &["--profile", "whatwg", "a b", "http:g"],
            "http://a/b/c/a%20b\nhttp://a/b/c/g\n",
        ),
        (&["--dot-segments", "remove", "../../../g"], "http://a/g\n"),
        (&["--same-scheme", "compat", "http:g"], "http://a/b/c/g\n"),
    ];
    for (args, want) in cases {
        let mut all = vec!["resolve", "--base", "http://a/b/c/d;p?q#f"];
        all.extend_from_slice(args);
        let run = linkbase(&all, b"");
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        assert_eq!(&run.stdout, want, "{args:?}");
    }
    let run = linkbase(
        &[
            "resolve",
            "--base",
            BASE,
            "--dot-segments",
            "error",
            "../../../g",
        ],
        b"",
    );
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("step 6g"), "{}", run.stderr);
}

#[test]
fn bad_usage_and_bad_base_exit_2_and_write_nothing() {
    for args in [
        &["resolve", "--base", "a/b", "g"][..],
        &["resolve", "g"][..],
        &["resolve", "--base", BASE, "--profile", "nope", "g"][..],
        &[
            "resolve",
            "--base",
            BASE,
            "--profile",
            "rfc3986",
            "--dot-segments",
            "keep",
            "g",
        ][..],
        &[
            "resolve",
            "--base",
            "http://[::1",
            "--profile",
            "whatwg",
            "g",
        ][..],
    ] {
        let run = linkbase(args, b"");
        assert_eq!(run.code, 2, "{args:?}");
        assert_eq!(run.stdout, "", "{args:?}");
        assert!(!run.stderr.is_empty(), "{args:?}");
    }
    let run = linkbase(&["resolve", "--base", "a/b", "g"], b"");
    assert!(
        run.stderr.contains("\"a/b\"") && run.stderr.contains("not absolute"),
        "{}",
        run.stderr
    );
}

#[test]
fn stdin_that_is_not_utf8_is_refused_with_its_line() {
    let run = linkbase(&["resolve", "--base", BASE], b"g\n\xff\n");
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("line 2"), "{}", run.stderr);
    assert_eq!(run.stdout, "");
}

/// Completions and the man page come from the same clap definitions.
#[test]
fn completions_and_man_page() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let run = super::util::linkbase(&["completions", shell], b"");
        assert_eq!(run.code, 0, "{shell}: {}", run.stderr);
        assert!(run.stdout.contains("linkbase"), "{shell}");
        assert!(
            run.stdout.contains("rewrite"),
            "{shell}: subcommands listed"
        );
    }
    let run = super::util::linkbase(&["completions", "bash"], b"");
    assert!(run.stdout.contains("--fail-on-unresolved"), "flags listed");
    let bad = super::util::linkbase(&["completions", "tcsh"], b"");
    assert_eq!(bad.code, 2);
    let man = super::util::linkbase(&["man"], b"");
    assert_eq!(man.code, 0, "{}", man.stderr);
    assert!(man.stdout.starts_with(".ie \\n(.g .ds Aq"), "roff");
    assert!(
        man.stdout.contains(".TH linkbase 1"),
        "{}",
        &man.stdout[..200]
    );
    assert!(man.stdout.contains("rewrite"), "subcommands in the page");
}

/// `resolve` takes `--format` and `-o FILE` like the other commands.
#[test]
fn resolve_takes_format_and_output() {
    let json = linkbase(
        &[
            "resolve",
            "--base",
            "http://a/b/c/d;p?q",
            "--format",
            "jsonl",
            "../g",
        ],
        b"",
    );
    assert_eq!(
        json.stdout,
        "{\"ref\":\"../g\",\"resolved\":\"http://a/b/g\",\"same_document\":false,\"error\":null}\n"
    );
    assert_eq!(
        json.stdout,
        linkbase(
            &["resolve", "--base", "http://a/b/c/d;p?q", "--json", "../g"],
            b""
        )
        .stdout
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.txt");
    let run = linkbase(
        &[
            "resolve",
            "--base",
            "mailto:x@y",
            "-o",
            out.to_str().unwrap(),
            "g",
            "h:i",
        ],
        b"",
    );
    // One of the two cannot be resolved: exit 1, and the file still holds both lines.
    assert_eq!((run.code, run.stdout.as_str()), (1, ""));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "\nh:i\n");
}
