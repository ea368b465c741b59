//! `check --local` takes the checked directory (or `--root-dir`) as the
//! web root of `/`-rooted links, the summary counts the links it did not check and why
//! (`--fail-on-unchecked`), and `--default-charset` (`check --charset`) names the encoding of
//! pages that declare none.

use std::path::Path;

use serde_json::Value;

use super::sites::{s, tmp};
use super::util::{linkbase, Run};

/// Writes `files` (path below `root`, bytes) into `root`.
pub(crate) fn tree(root: &Path, files: &[(&str, &[u8])]) {
    for (rel, bytes) in files {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

pub(crate) fn check(dir: &Path, extra: &[&str]) -> Run {
    let mut args = vec!["check", s(dir)];
    args.extend_from_slice(extra);
    linkbase(&args, b"")
}

fn summary(run: &Run) -> &str {
    run.stderr
        .lines()
        .find_map(|l| l.strip_prefix("linkbase: check: "))
        .unwrap_or_else(|| panic!("no summary on stderr: {}", run.stderr))
}

/// (original, verdict, target) of every record of `check --format jsonl`.
pub(crate) fn records(run: &Run) -> Vec<(String, String, String)> {
    run.stdout
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            (
                v["original"].as_str().unwrap().to_owned(),
                v["verdict"].as_str().unwrap().to_owned(),
                v["target"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

pub(crate) fn triple(original: &str, verdict: &str, target: &str) -> (String, String, String) {
    (original.into(), verdict.into(), target.into())
}

/// A false all-clear: a static build's `/`-rooted links were `file:///docs/…`
/// URLs outside the tree, counted as external, and the run said "0 broken" and exited 0.
#[test]
fn check_local_reads_root_relative_links_from_the_checked_directory() {
    let dir = tmp();
    tree(
        dir.path(),
        &[
            (
                "index.html",
                b"<a href=\"/docs/x.html\">x</a> <a href=\"/docs/missing.html\">m</a>",
            ),
            ("docs/x.html", b"<p id=top>x</p>"),
        ],
    );
    let run = check(dir.path(), &["--local", "--format", "jsonl"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        records(&run),
        [
            triple("/docs/x.html", "ok", "docs/x.html"),
            triple("/docs/missing.html", "missing", "docs/missing.html"),
        ]
    );
    assert!(
        summary(&run).starts_with("2 pages, 2 links: 2 internal, 1 broken"),
        "{}",
        run.stderr
    );
    // The human report names the missing file.
    let run = check(dir.path(), &["--local"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout
            .starts_with("missing docs/missing.html  (1 link on 1 page)\n"),
        "{}",
        run.stdout
    );
}

/// A relative link that climbs out of the checked directory still leaves the root, and a link to
/// a page of the tree by its full `file:` URL still names that page.
#[test]
fn check_local_keeps_climbing_links_outside_the_root() {
    let dir = tmp();
    let root = dir.path().join("public");
    let own = format!("file://{}/a.html", s(&root));
    let page = format!("<a href=\"../elsewhere.html\">o</a> <a href=\"{own}\">a</a>");
    tree(&root, &[("index.html", page.as_bytes()), ("a.html", b"a")]);
    let run = check(&root, &["--local", "--format", "jsonl"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        records(&run),
        [
            triple("../elsewhere.html", "outside-root", ""),
            triple(&own, "ok", "a.html"),
        ]
    );
}

/// With `--site-url`, a `/`-rooted link resolves against the site URL and maps to the tree by
/// the same rule as every other link.
#[test]
fn check_site_url_maps_root_relative_links_into_the_tree() {
    let dir = tmp();
    tree(
        dir.path(),
        &[
            (
                "index.html",
                b"<a href=\"/docs/x.html\">x</a> <a href=\"/docs/missing.html\">m</a>",
            ),
            ("docs/x.html", b"x"),
        ],
    );
    let run = check(
        dir.path(),
        &["--site-url", "https://example.com/", "--format", "jsonl"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        records(&run),
        [
            triple("/docs/x.html", "ok", "docs/x.html"),
            triple("/docs/missing.html", "missing", "docs/missing.html"),
        ]
    );
}

/// `--root-dir ROOT`: `/x` names ROOT/x; a target in the checked directory is checked, one outside
/// it is counted as not checked (outside the tree).
#[test]
fn check_local_root_dir_names_the_web_root() {
    let dir = tmp();
    let root = dir.path().join("site");
    tree(
        &root,
        &[
            (
                "blog/index.html",
                b"<a href=\"/blog/post.html\">p</a> <a href=\"/blog/gone.html\">g</a> \
                  <a href=\"/about.html\">a</a>",
            ),
            ("blog/post.html", b"p"),
            ("about.html", b"a"),
        ],
    );
    let blog = root.join("blog");
    let run = check(
        &blog,
        &["--local", "--root-dir", s(&root), "--format", "jsonl"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        records(&run),
        [
            triple("/blog/post.html", "ok", "post.html"),
            triple("/blog/gone.html", "missing", "gone.html"),
            triple("/about.html", "external", ""),
        ]
    );
    assert!(
        summary(&run).ends_with("; 1 not checked: 1 outside the tree"),
        "{}",
        run.stderr
    );
    // Without --root-dir the checked directory is the root: /blog/post.html is blog/blog/post.html.
    let run = check(&blog, &["--local", "--format", "jsonl"]);
    assert_eq!(
        records(&run)[0],
        triple("/blog/post.html", "missing", "blog/post.html")
    );
    // ROOT must be a directory, and --root-dir goes with --local (not --site-url).
    let run = check(
        &blog,
        &["--local", "--root-dir", s(&root.join("about.html"))],
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("--root-dir") && run.stderr.contains("not a directory"),
        "{}",
        run.stderr
    );
    let run = check(
        &blog,
        &["--site-url", "https://example.com/", "--root-dir", s(&root)],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("--root-dir") && run.stderr.contains("--site-url"),
        "{}",
        run.stderr
    );
}

/// A run never reads as all clear when it skipped links: the summary counts what it did not check
/// and why, and `--fail-on-unchecked` exits 1 on any.
#[test]
fn check_counts_unchecked_links_and_fail_on_unchecked_exits_1() {
    let dir = tmp();
    tree(
        dir.path(),
        &[(
            "index.html",
            b"<a href=\"https://example.org/\">e</a> <a href=\"mailto:a@example.org\">m</a> \
              <a href=\"file:///etc/hosts\">f</a> <a href=\"https://example.org/x\">e</a>",
        )],
    );
    let url = "https://example.com/";
    let run = check(dir.path(), &["--site-url", url]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        summary(&run),
        "1 page, 4 links: 0 internal, 0 broken (0 outside the site root) to 0 targets; \
         4 external (listed, not fetched); 0 unresolvable; 0 excluded; \
         4 not checked: 2 external (no --online), 1 outside the tree, 1 another scheme"
    );
    assert_eq!(run.stdout, format!("{}\n", summary(&run)));
    let run = check(dir.path(), &["--site-url", url, "--fail-on-unchecked"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let run = check(
        dir.path(),
        &["--site-url", url, "--format", "json", "--fail-on-unchecked"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["summary"]["not_checked"], 4, "{}", run.stdout);
    assert_eq!(v["summary"]["outside_tree"], 1, "{}", run.stdout);
    assert_eq!(v["summary"]["other_scheme"], 1, "{}", run.stdout);
    // Links left unchecked on request do not fail the run.
    let run = check(
        dir.path(),
        &["--site-url", url, "--fail-on-unchecked", "--exclude", "."],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        summary(&run).ends_with("4 excluded; 0 not checked"),
        "{}",
        run.stderr
    );
}

/// `check` fetches nothing without `--online`: a listening socket its links name sees no
/// connection.
#[test]
fn check_without_online_makes_no_network_request() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let dir = tmp();
    let page = format!(
        "<a href=\"http://127.0.0.1:{port}/x\">x</a> <img src=\"http://127.0.0.1:{port}/i.png\">"
    );
    tree(dir.path(), &[("index.html", page.as_bytes())]);
    for extra in [&["--local"][..], &["--site-url", "https://example.com/"]] {
        let run = check(dir.path(), extra);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(
            summary(&run).ends_with("; 2 not checked: 2 external (no --online)"),
            "{}",
            run.stderr
        );
    }
    match listener.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("check connected to the link's server: {other:?}"),
    }
}

/// html-proofer's fixture: an undeclared UTF-8 page links to `erstiebegrüßung.html`. Read as
/// windows-1252 (HTML's default) the link names `erstiebegrÃ¼ÃŸung.html`; `--charset utf-8`
/// (`--default-charset`) reads it as written, and a page that declares its encoding keeps it.
#[test]
fn check_charset_reads_undeclared_pages_in_it() {
    let dir = tmp();
    tree(
        dir.path(),
        &[
            (
                "index.html",
                "<a href=\"erstiebegrüßung.html\">Erstiebegrüßung</a>".as_bytes(),
            ),
            ("erstiebegrüßung.html", b"x"),
            // A declared windows-1252 page: caf\xE9 is café whatever the default.
            (
                "latin.html",
                b"<meta charset=windows-1252><a href=\"caf\xE9.html\">c</a>",
            ),
            ("café.html", b"c"),
        ],
    );
    let run = check(dir.path(), &["--local", "--format", "jsonl"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        records(&run),
        [
            triple(
                "erstiebegrÃ¼ÃŸung.html",
                "missing",
                "erstiebegrÃ¼ÃŸung.html"
            ),
            triple("café.html", "ok", "café.html"),
        ]
    );
    for flag in ["--charset", "--default-charset"] {
        let run = check(dir.path(), &["--local", flag, "utf-8", "--format", "jsonl"]);
        assert_eq!(run.code, 0, "{flag}: {}", run.stderr);
        assert_eq!(
            records(&run),
            [
                triple("erstiebegrüßung.html", "ok", "erstiebegrüßung.html"),
                triple("café.html", "ok", "café.html"),
            ],
            "{flag}"
        );
    }
}

/// An unknown label is bad usage that names the flag, in `check` and in the single-document
/// commands.
#[test]
fn an_unknown_default_charset_label_is_an_error_naming_the_flag() {
    let dir = tmp();
    tree(dir.path(), &[("index.html", b"<a href=x.html>x</a>")]);
    let run = check(dir.path(), &["--local", "--charset", "no-such-encoding"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("--charset") && run.stderr.contains("\"no-such-encoding\""),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    for command in ["links", "rewrite", "base"] {
        let run = linkbase(&[command, "--default-charset", "latin-9000"], b"<p>");
        assert_eq!(run.code, 2, "{command}: {}", run.stderr);
        assert!(
            run.stderr
                .contains("--default-charset \"latin-9000\": not an encoding label"),
            "{command}: {}",
            run.stderr
        );
    }
    // One no undeclared page can be read in.
    let run = linkbase(&["links", "--default-charset", "utf-16le"], b"<p>");
    assert_eq!(run.code, 2, "{}", run.stderr);
}

/// `links` and `rewrite` take the same fallback as `--default-charset`; their `--charset` keeps
/// its meaning (the transport charset, which overrides a `<meta>`).
#[test]
fn links_and_rewrite_default_charset_is_only_a_fallback() {
    let undeclared = "<a href=\"erstiebegrüßung.html\">x</a>".as_bytes();
    let original = |run: &Run| -> String {
        let v: Value = serde_json::from_str(run.stdout.lines().next().unwrap()).unwrap();
        v["original"].as_str().unwrap().to_owned()
    };
    let run = linkbase(&["links", "--url", "http://h.example/"], undeclared);
    assert_eq!(original(&run), "erstiebegrÃ¼ÃŸung.html");
    let run = linkbase(
        &[
            "links",
            "--url",
            "http://h.example/",
            "--default-charset",
            "utf-8",
        ],
        undeclared,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(original(&run), "erstiebegrüßung.html");
    // A transport charset wins over the fallback, and a <meta> wins over the fallback.
    let run = linkbase(
        &[
            "links",
            "--default-charset",
            "utf-8",
            "--charset",
            "windows-1252",
        ],
        undeclared,
    );
    assert_eq!(original(&run), "erstiebegrÃ¼ÃŸung.html");
    let run = linkbase(
        &["links", "--default-charset", "utf-8"],
        b"<meta charset=windows-1252><a href=\"caf\xE9.html\">c</a>",
    );
    assert_eq!(original(&run), "café.html");
    // rewrite DIR: the tree's undeclared pages are read in it too (the link to the page beside
    // it becomes relative only when its name is read right).
    let dir = tmp();
    tree(
        dir.path(),
        &[
            ("in/index.html", undeclared),
            ("in/erstiebegrüßung.html", b"x"),
        ],
    );
    let (input, out) = (dir.path().join("in"), dir.path().join("out"));
    let mut args = vec![
        "rewrite",
        s(&input),
        "--site-url",
        "https://h.example/",
        "--relative",
        "-o",
        s(&out),
    ];
    let run = linkbase(&args, b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Read as windows-1252 the name matches no file: the link stays absolute (and is written
    // as a URI: the misread characters percent-encoded).
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert_eq!(
        page,
        "<a href=\"https://h.example/erstiebegr%C3%83%C2%BC%C3%83%C5%B8ung.html\">x</a>"
    );
    args.extend(["--default-charset", "utf-8"]);
    std::fs::remove_dir_all(&out).unwrap();
    let run = linkbase(&args, b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert_eq!(page, "<a href=\"erstiebegr%C3%BC%C3%9Fung.html\">x</a>");
}

/// Found checking the README's python3.11-doc mirror after the web root came in: Debian's pages
/// carry `<link rel=canonical href="file:///usr/share/doc/…">`, an absolute `file:` URL of a
/// file outside the mirror. Read as a `/`-rooted path it became `MIRROR/usr/share/doc/…`, one
/// false `missing` per page (530). Only a reference written `/`-rooted is read from the web
/// root; an absolute `file:` URL names that file, and outside the tree it is not checked.
#[test]
fn check_local_reads_only_root_relative_references_from_the_web_root() {
    let dir = tmp();
    let outside = dir.path().join("elsewhere.html");
    std::fs::write(&outside, b"x").unwrap();
    let outside_url = format!("file://{}", outside.display());
    let page = format!(
        "<link rel=canonical href=\"{outside_url}\"><a href=\"/x.html\">x</a><a href=\"../y.html\">y</a>"
    );
    tree(
        &dir.path().join("site"),
        &[("index.html", page.as_bytes()), ("x.html", b"x")],
    );
    let run = check(&dir.path().join("site"), &["--local", "--format", "jsonl"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        records(&run),
        [
            triple(&outside_url, "external", ""),
            triple("/x.html", "ok", "x.html"),
            triple("../y.html", "outside-root", ""),
        ]
    );
}
