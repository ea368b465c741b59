#![allow(clippy::unwrap_used, clippy::panic)]
use super::*;

use clap::{Args, Command as C, FromArgMatches};

/// `check DIR ARGS` parsed as the command line is, the flags it gave recorded.
fn parse(dir: &Path, args: &[&str]) -> CheckArgs {
    let mut argv = vec!["linkbase", "check", dir.to_str().unwrap()];
    argv.extend_from_slice(args);
    let matches = C::new("linkbase")
        .subcommand(CheckArgs::augment_args(C::new("check")))
        .try_get_matches_from(argv)
        .unwrap();
    let (_, sub) = matches.subcommand().unwrap();
    let mut check = CheckArgs::from_arg_matches(sub).unwrap();
    check.given = sub
        .ids()
        .filter(|id| sub.value_source(id.as_str()) == Some(clap::parser::ValueSource::CommandLine))
        .map(|id| id.as_str().to_owned())
        .collect();
    check
}

/// A tree whose `linkbase.toml` is `toml`.
fn tree(toml: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::create_dir(dir.path().join("other")).unwrap();
    std::fs::write(dir.path().join(FILE_NAME), toml).unwrap();
    dir
}

fn merged(toml: &str, args: &[&str]) -> (CheckArgs, tempfile::TempDir) {
    let dir = tree(toml);
    let mut check = parse(dir.path(), args);
    apply(&mut check).unwrap_or_else(|e| panic!("{toml:?} {args:?}: {e}"));
    (check, dir)
}

fn error(toml: &str, args: &[&str]) -> String {
    let dir = tree(toml);
    let mut check = parse(dir.path(), args);
    let e = apply(&mut check).unwrap_err();
    // As printed: control characters escaped.
    linkbase::text::escape_controls(&e).replace(&dir.path().display().to_string(), "DIR")
}

#[test]
fn unknown_keys_are_named() {
    let err = toml::from_str::<Config>("site_url = \"x\"\nsite_ulr = \"y\"\n").unwrap_err();
    assert!(err.message().contains("unknown field `site_ulr`"), "{err}");
    let err = toml::from_str::<Config>("[online]\ntimout = \"1s\"\n").unwrap_err();
    assert!(err.message().contains("unknown field `timout`"), "{err}");
}

/// Each key of the file applies when the command line does not give its flag, and the flag wins
/// when it does: one row per key.
#[test]
fn every_key_applies_and_every_flag_wins() {
    type Check = fn(&CheckArgs) -> String;
    /// A key, the file, the flags, what to read, its value from the file, from the flag.
    type Row<'a> = (&'a str, String, Vec<&'a str>, Check, &'a str, &'a str);
    let site = "site_url = \"https://file.example/\"\n";
    let rows: Vec<Row<'_>> = vec![
        (
            "site_url",
            site.to_owned(),
            vec!["--site-url", "https://cli.example/"],
            |a| format!("{:?} {}", a.site_url, a.local),
            "Some(\"https://file.example/\") false",
            "Some(\"https://cli.example/\") false",
        ),
        (
            "site_url against --local",
            site.to_owned(),
            vec!["--local"],
            |a| format!("{:?} {}", a.site_url, a.local),
            "Some(\"https://file.example/\") false",
            "None true",
        ),
        (
            "local against --site-url",
            "local = true\n".to_owned(),
            vec!["--site-url", "https://cli.example/"],
            |a| format!("{:?} {}", a.site_url, a.local),
            "None true",
            "Some(\"https://cli.example/\") false",
        ),
        (
            "root_dir",
            "local = true\nroot_dir = \"sub\"\n".to_owned(),
            vec!["--root-dir", "/elsewhere"],
            |a| {
                a.root_dir.as_ref().map_or("none".into(), |p| {
                    p.file_name().unwrap().to_string_lossy().into()
                })
            },
            "sub",
            "elsewhere",
        ),
        (
            "format",
            format!("{site}format = \"json\"\n"),
            vec!["--format", "tsv"],
            |a| format!("{:?}", a.format),
            "Json",
            "Tsv",
        ),
        (
            "exclude",
            format!("{site}exclude = [\"a\", \"b\"]\n"),
            vec!["--exclude", "c"],
            |a| a.exclude.join(","),
            "a,b",
            "c",
        ),
        (
            "include",
            format!("{site}include = \"a\"\n"),
            vec!["--include", "c"],
            |a| a.include.join(","),
            "a",
            "c",
        ),
        (
            "exclude_path",
            format!("{site}exclude_path = [\"drafts/**\"]\n"),
            vec!["--exclude-path", "old/**"],
            |a| a.exclude_path.join(","),
            "drafts/**",
            "old/**",
        ),
        (
            "remap",
            format!("{site}remap = \"https://a/ https://b/\"\n"),
            vec!["--remap", "https://c/ https://d/"],
            |a| a.remap.join(","),
            "https://a/ https://b/",
            "https://c/ https://d/",
        ),
        (
            "index_files",
            format!("{site}index_files = [\"index.html\", \".\"]\n"),
            vec!["--index-files", "README.md"],
            |a| format!("{:?}", a.index_files),
            "Some([\"index.html\", \".\"])",
            "Some([\"README.md\"])",
        ),
        (
            "fallback_extensions",
            format!("{site}fallback_extensions = \"html\"\n"),
            vec!["--fallback-extensions", "htm,xhtml"],
            |a| a.fallback_extensions.join(","),
            "html",
            "htm,xhtml",
        ),
        (
            "default_charset",
            format!("{site}default_charset = \"koi8-r\"\n"),
            vec!["--default-charset", "utf-8"],
            |a| format!("{:?}", a.default_charset),
            "Some(\"koi8-r\")",
            "Some(\"utf-8\")",
        ),
        (
            "fail_on_unchecked",
            format!("{site}fail_on_unchecked = true\n"),
            vec!["--fail-on-unchecked"],
            |a| a.fail_on_unchecked.to_string(),
            "true",
            "true",
        ),
        (
            "broken_only",
            format!("{site}broken_only = true\n"),
            vec!["--broken-only"],
            |a| a.broken_only.to_string(),
            "true",
            "true",
        ),
        (
            "jobs",
            format!("{site}jobs = 4\n"),
            vec!["-j", "2"],
            |a| format!("{:?}", a.jobs),
            "Some(4)",
            "Some(2)",
        ),
        (
            "enabled",
            format!("{site}[online]\nenabled = true\n"),
            vec!["--online"],
            |a| a.online.online.to_string(),
            "true",
            "true",
        ),
        (
            "accept",
            format!("{site}[online]\nenabled = true\naccept = [200, \"300..400\"]\n"),
            vec!["--accept", "204"],
            |a| a.online.accept.clone(),
            "200,300..400",
            "204",
        ),
        (
            "timeout",
            format!("{site}[online]\nenabled = true\ntimeout = \"5s\"\n"),
            vec!["--timeout", "7s"],
            |a| a.online.timeout.clone(),
            "5s",
            "7s",
        ),
        (
            "max_time",
            format!("{site}[online]\nenabled = true\nmax_time = \"5m\"\n"),
            vec!["--max-time", "7m"],
            |a| format!("{:?}", a.online.max_time),
            "Some(\"5m\")",
            "Some(\"7m\")",
        ),
        (
            "max_retries",
            format!("{site}[online]\nenabled = true\nmax_retries = 1\n"),
            vec!["--max-retries", "2"],
            |a| a.online.max_retries.to_string(),
            "1",
            "2",
        ),
        (
            "retry_wait",
            format!("{site}[online]\nenabled = true\nretry_wait = \"2s\"\n"),
            vec!["--retry-wait", "3s"],
            |a| a.online.retry_wait.clone(),
            "2s",
            "3s",
        ),
        (
            "max_redirects",
            format!("{site}[online]\nenabled = true\nmax_redirects = 4\n"),
            vec!["--max-redirects", "5"],
            |a| a.online.max_redirects.to_string(),
            "4",
            "5",
        ),
        (
            "max_concurrency",
            format!("{site}[online]\nenabled = true\nmax_concurrency = 16\n"),
            vec!["--max-concurrency", "32"],
            |a| a.online.max_concurrency.to_string(),
            "16",
            "32",
        ),
        (
            "host_concurrency",
            format!("{site}[online]\nenabled = true\nhost_concurrency = 2\n"),
            vec!["--host-concurrency", "3"],
            |a| a.online.host_concurrency.to_string(),
            "2",
            "3",
        ),
        (
            "host_interval",
            format!("{site}[online]\nenabled = true\nhost_interval = \"100ms\"\n"),
            vec!["--host-interval", "200ms"],
            |a| format!("{:?}", a.online.host_interval),
            "Some(\"100ms\")",
            "Some(\"200ms\")",
        ),
        (
            "user_agent",
            format!("{site}[online]\nenabled = true\nuser_agent = \"file/1\"\n"),
            vec!["--user-agent", "cli/1"],
            |a| format!("{:?}", a.online.user_agent),
            "Some(\"file/1\")",
            "Some(\"cli/1\")",
        ),
        (
            "headers",
            format!("{site}[online]\nenabled = true\nheaders = [\"a.example: X: 1\"]\n"),
            vec!["--header", "b.example: Y: 2"],
            |a| a.online.headers.join(","),
            "a.example: X: 1",
            "b.example: Y: 2",
        ),
        (
            "cache",
            format!("{site}[online]\nenabled = true\ncache = \"sub/c.json\"\n"),
            vec!["--cache=/tmp/cli.json"],
            |a| format!("{:?} {}", a.online.cache, a.online.cache_below.is_some()),
            "Some(Some(\"sub/c.json\")) true",
            "Some(Some(\"/tmp/cli.json\")) false",
        ),
        (
            "max_cache_age",
            format!("{site}[online]\nenabled = true\ncache = true\nmax_cache_age = \"2d\"\n"),
            vec!["--max-cache-age", "3d"],
            |a| a.online.max_cache_age.clone(),
            "2d",
            "3d",
        ),
    ];
    for (key, toml, flags, get, from_file, from_flag) in rows {
        let (args, _dir) = merged(&toml, &[]);
        assert_eq!(get(&args), from_file, "{key}: the file's value");
        let (args, _dir) = merged(&toml, &flags);
        assert_eq!(get(&args), from_flag, "{key}: the flag's value");
    }
}

/// What only a file the user names may set, it sets; the command line still wins.
#[test]
fn a_named_file_may_set_what_the_tree_may_not() {
    let dir = tree("");
    let named = dir.path().join("trusted.toml");
    std::fs::write(&named, "site_url = \"https://x.example/\"\n[online]\nenabled = true\nallow_private = true\ninsecure = true\n").unwrap();
    let mut args = parse(dir.path(), &["--config", named.to_str().unwrap()]);
    apply(&mut args).unwrap();
    assert!(args.online.allow_private && args.online.insecure);
    std::fs::write(dir.path().join("ca.pem"), "x").unwrap();
    let mut args = parse(
        dir.path(),
        &[
            "--config",
            named.to_str().unwrap(),
            "--cacert",
            "/etc/ca.pem",
        ],
    );
    apply(&mut args).unwrap();
    // --cacert on the command line replaces the file's TLS choice.
    assert!(!args.online.insecure);
    assert_eq!(args.online.cacert.unwrap(), Path::new("/etc/ca.pem"));
    for key in UNTRUSTED_KEYS {
        let value = if key == "cacert" {
            "\"ca.pem\""
        } else {
            "true"
        };
        let e = error(
            &format!("site_url = \"https://x.example/\"\n[online]\n{key} = {value}\n"),
            &[],
        );
        assert_eq!(
            e,
            format!(
                "DIR/linkbase.toml: {key}: not taken from the checked tree's own settings (give \
                 the file with --config to trust it, or the flag on the command line)"
            )
        );
    }
}

#[test]
fn paths_stay_inside_the_file_s_directory() {
    let site = "site_url = \"https://x.example/\"\n[online]\nenabled = true\n";
    for path in ["../victim.txt", "/tmp/victim.txt", "sub/../../victim.txt"] {
        let e = error(&format!("{site}cache = \"{path}\"\n"), &[]);
        assert_eq!(
            e,
            format!(
                "DIR/linkbase.toml: cache = {path:?}: must be a path inside DIR (relative, without ..)"
            )
        );
    }
    // A directory of the path that is a symbolic link (out of the tree) is refused too.
    let dir = tree(&format!("{site}cache = \"link/c.json\"\n"));
    std::os::unix::fs::symlink("/tmp", dir.path().join("link")).unwrap();
    let mut args = parse(dir.path(), &[]);
    let e = apply(&mut args).unwrap_err();
    assert!(e.contains("a symbolic link in the tree"), "{e}");
    let e = error("local = true\nroot_dir = \"..\"\n", &[]);
    assert!(
        e.starts_with("DIR/linkbase.toml: root_dir = \"..\": must be a path inside"),
        "{e}"
    );
    let e = error(
        "site_url = \"https://x.example/\"\nremap = \"https://a/ ../up\"\n",
        &[],
    );
    assert!(
        e.starts_with("DIR/linkbase.toml: remap = \"../up\": must be a path inside"),
        "{e}"
    );
    // A directory remap is made relative to the file.
    let (args, dir) = merged(
        "site_url = \"https://x.example/\"\nremap = \"https://a/ sub\"\n",
        &[],
    );
    assert_eq!(
        args.remap,
        [format!("https://a/ {}", dir.path().join("sub").display())]
    );
}

#[test]
fn values_are_checked_as_the_flags_are() {
    let site = "site_url = \"https://x.example/\"\n";
    let online = format!("{site}[online]\nenabled = true\n");
    for (toml, expected) in [
        (format!("{site}jobs = 100000\n"), "DIR/linkbase.toml: jobs = 100000: at most 256"),
        (
            format!("{site}format = \"xml\"\n"),
            "DIR/linkbase.toml: format = \"xml\": not one of human, json, markdown, junit, jsonl, tsv, github, sarif",
        ),
        (
            format!("{online}user_agent = \"a\\r\\nX: 1\"\n"),
            "DIR/linkbase.toml: user_agent = \"a\\r\\nX: 1\": a header value cannot hold control characters (CR, LF, …)",
        ),
        (
            format!("{online}headers = \"h: X: a\\u0000b\"\n"),
            "DIR/linkbase.toml: headers = \"h: X: a\\x00b\": the value holds a control character (CR, LF, …)",
        ),
        (
            format!("{online}timeout = \"1d\"\n"),
            "DIR/linkbase.toml: timeout = \"1d\": at most 600 s",
        ),
        (
            format!("{online}timeout = \"0s\"\n"),
            "DIR/linkbase.toml: timeout = \"0s\": must be more than 0",
        ),
        (
            format!("{online}max_concurrency = 0\n"),
            "DIR/linkbase.toml: max_concurrency = 0: must be at least 1",
        ),
        (
            format!("{online}accept = \"4xx\"\n"),
            "DIR/linkbase.toml: accept = \"4xx\": \"4xx\" is not a status code (100-999) or a range such as 200..=299",
        ),
        (
            format!("{site}jobs = -1\n"),
            "DIR/linkbase.toml: line 2: invalid value: integer `-1`, expected u64",
        ),
        (
            "site_url = \"https://x.example/\"\nlocal = true\n".to_owned(),
            "DIR/linkbase.toml: site_url and local = true: one or the other",
        ),
        (
            "site_url = \"https://\"\n".to_owned(),
            "DIR/linkbase.toml: site_url = \"https://\": \"https://\" names no host: links are \
             the site's when they have its scheme, host and path, so nothing would be checked; \
             give the URL the tree is published at, like https://example.com/docs/",
        ),
    ] {
        assert_eq!(error(&toml, &[]), expected, "{toml}");
    }
}

#[test]
fn rules_between_flags_are_checked_after_the_merge() {
    // No site at all: the message names both ways.
    let e = error("", &[]);
    assert!(
        e.starts_with("no --site-url URL (the URL the tree is published at) nor --local"),
        "{e}"
    );
    // An online flag on the command line with --online from the file is fine; without it, not.
    let (args, _d) = merged(
        "local = true\n[online]\nenabled = true\n",
        &["--timeout", "5s"],
    );
    assert_eq!(args.online.timeout, "5s");
    assert_eq!(
        error("local = true\n", &["--timeout", "5s"]),
        "--timeout needs --online"
    );
    assert_eq!(
        error("local = true\n", &["--header", "h: X: y"]),
        "--header needs --online"
    );
    assert_eq!(
        error(
            "local = true\n[online]\nenabled = true\n",
            &["--max-cache-age", "1d"]
        ),
        "--max-cache-age needs --cache"
    );
    assert_eq!(
        error(
            "site_url = \"https://x.example/\"\n",
            &["--root-dir", "sub"]
        ),
        "--root-dir ROOT goes with --local"
    );
    // The file's online settings without --online are left, not errors.
    let (args, _d) = merged("local = true\n[online]\ntimeout = \"5s\"\n", &[]);
    assert!(!args.online.online);
}

#[test]
fn the_tree_s_file_is_read_as_data() {
    let dir = tree("");
    let toml = dir.path().join(FILE_NAME);
    std::fs::remove_file(&toml).unwrap();
    // A link out of the tree (to a secret) is not followed.
    let secret = dir.path().join("other/secret");
    std::fs::write(&secret, "site_url = \"https://secret.example/\"\n").unwrap();
    std::os::unix::fs::symlink(&secret, &toml).unwrap();
    let mut args = parse(dir.path(), &["--local"]);
    let e = apply(&mut args).unwrap_err();
    assert!(e.ends_with("linkbase.toml: a symbolic link: read only as a regular file of the tree, never through a link"), "{e}");
    std::fs::remove_file(&toml).unwrap();
    // A FIFO is not opened for reading (it would block).
    let status = std::process::Command::new("mkfifo")
        .arg(&toml)
        .status()
        .unwrap();
    assert!(status.success());
    let mut args = parse(dir.path(), &["--local"]);
    let e = apply(&mut args).unwrap_err();
    assert!(
        e.ends_with("linkbase.toml: a FIFO (named pipe), not a regular file; not read"),
        "{e}"
    );
    std::fs::remove_file(&toml).unwrap();
    // Past 1 MiB: refused, not read.
    std::fs::write(&toml, format!("# {}\nlocal = true\n", "x".repeat(1 << 20))).unwrap();
    let mut args = parse(dir.path(), &[]);
    let e = apply(&mut args).unwrap_err();
    assert!(
        e.ends_with("linkbase.toml: larger than 1 MiB: not read"),
        "{e}"
    );
    // A long bad line is quoted short.
    std::fs::write(&toml, format!("site_url = 1\n{} = 2\n", "k".repeat(5000))).unwrap();
    let mut args = parse(dir.path(), &[]);
    let e = apply(&mut args).unwrap_err();
    assert!(e.len() < 400, "{e}");
}
