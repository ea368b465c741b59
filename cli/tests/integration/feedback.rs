//! Run feedback: one closing summary for `rewrite DIR`, counted nouns that
//! agree with their counts, and notices only when they are true.

use std::path::Path;

use super::sites::{s, tmp};
use super::util::{linkbase, untimed};

fn tree(root: &Path, files: &[(&str, &str)]) {
    for (rel, text) in files {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

fn rewrite_tree(site: &Path, out: &Path, extra: &[&str]) -> String {
    let mut args = vec!["rewrite", s(site), "--site-url", "http://s/", "-o", s(out)];
    args.extend_from_slice(extra);
    let run = linkbase(&args, b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    untimed(&run.stderr).replace(s(out), "OUT")
}

#[test]
fn rewrite_dir_says_one_summary_with_singular_counts() {
    let dir = tmp();
    let site = dir.path().join("site");
    tree(
        &site,
        &[("a.html", "<a href=\"x\">x</a>"), ("style.css", "p {}")],
    );
    assert_eq!(
        rewrite_tree(&site, &dir.path().join("out"), &[]),
        "linkbase: rewrite: 1 page, 1 link: 1 absolute, 0 left relative or unresolvable; \
         1 other file copied; 0 failed; written to OUT; T s\n"
    );
}

#[test]
fn rewrite_dir_says_one_summary_with_plural_counts() {
    let dir = tmp();
    let site = dir.path().join("site");
    // Two pages whose links cannot all be made absolute: an opaque base, and one a bad one.
    tree(
        &site,
        &[
            ("a.html", "<base href=\"mailto:q@r\"><a href=\"x\">x</a>"),
            (
                "b/c.html",
                "<base href=\"mailto:q@r\"><a href=\"y\">y</a><a href=\"#t\">t</a>",
            ),
            ("1.png", "png"),
            ("2.png", "png"),
        ],
    );
    assert_eq!(
        rewrite_tree(&site, &dir.path().join("out"), &[]),
        "linkbase: rewrite: 2 pages, 4 links: 2 absolute, 2 left relative or unresolvable on \
         2 pages (opaque base); 2 other files copied; 0 failed; written to OUT; T s\n"
    );
}

#[test]
fn no_base_removed_notice_when_no_base_was_removed() {
    let dir = tmp();
    let site = dir.path().join("site");
    tree(
        &site,
        &[("a.html", "<a href=\"b.html\">b</a>"), ("b.html", "b")],
    );
    let said = rewrite_tree(&site, &dir.path().join("out"), &["--relative"]);
    assert_eq!(
        said,
        "linkbase: rewrite: 2 pages, 1 link: 1 made relative, 0 left absolute, 0 left relative \
         or unresolvable; 0 other files copied; 0 failed; written to OUT; T s\n"
    );
    assert!(!said.contains("<base>"), "{said}");
    // One page, on its own, with --relative: nothing said either.
    let run = linkbase(
        &[
            "rewrite",
            s(&site.join("a.html")),
            "--relative",
            "--site-url",
            "http://s/",
            "--root",
            s(&site),
        ],
        b"",
    );
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(run.stdout, "<a href=\"b.html\">b</a>");
}

#[test]
fn the_base_removed_notice_counts_the_pages_it_came_off() {
    let dir = tmp();
    let site = dir.path().join("site");
    tree(
        &site,
        &[
            (
                "a.html",
                "<base href=\"http://s/d/\"><a href=\"../b.html\">b</a>",
            ),
            (
                "b.html",
                "<base href=\"http://s/\"><a href=\"a.html\">a</a>",
            ),
            ("c.html", "no base"),
        ],
    );
    assert!(
        rewrite_tree(&site, &dir.path().join("out"), &["--relative"]).contains(
            "; <base> removed from 2 pages (by --relative: it would redirect the relative links); "
        )
    );
    // --drop-base asked for it: counted, without the reason.
    assert!(
        rewrite_tree(&site, &dir.path().join("out2"), &["--drop-base"])
            .contains("; <base> removed from 2 pages; written to OUT; ")
    );
    let run = linkbase(
        &[
            "rewrite",
            s(&site.join("a.html")),
            "--relative",
            "--site-url",
            "http://s/",
            "--root",
            s(&site),
        ],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        format!(
            "linkbase: {}: --relative: the <base> element is removed (it would redirect the \
             relative links)\n",
            site.join("a.html").display()
        )
    );
    assert_eq!(run.stdout, "<a href=\"b.html\">b</a>");
}

#[test]
fn check_counts_one_page_one_link_one_target() {
    let dir = tmp();
    tree(dir.path(), &[("index.html", "<a href=\"gone.html\">g</a>")]);
    let run = linkbase(&["check", s(dir.path()), "--site-url", "http://s/"], b"");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let summary = "1 page, 1 link: 1 internal, 1 broken (0 outside the site root) to 1 target; \
                   0 external (listed, not fetched); 0 unresolvable; 0 excluded; 0 not checked";
    assert_eq!(
        run.stdout,
        format!("missing gone.html  (1 link on 1 page)\n    index.html:1:10: <a href> \"gone.html\"\n{summary}\n")
    );
    // Not a terminal here: stderr has its copy of the summary, once.
    assert_eq!(run.stderr, format!("linkbase: check: {summary}\n"));
}

/// `rewrite DIR --relative` says what it made relative and, of the links it left
/// absolute, why: a URL of the site the mirror has no file of (said apart: it leaves the mirror
/// for the live site), a `..` above the site's root, another site or a path beside the site's,
/// and a scheme that names no file; a `<base>` href (removed by --relative) is not relinked. A
/// link RFC 2396 and browsers resolve differently is counted and said, with the profile that
/// resolves as browsers.
#[test]
fn relative_mirror_says_why_links_stay_absolute() {
    let dir = tmp();
    let site = dir.path().join("site");
    tree(
        &site,
        &[
            (
                "index.html",
                "<a href=\"b.html\">saved</a><a href=\"gone.html\">not saved</a>\
                 <a href=\"http://s/site/gone2.html#x\">not saved</a>\
                 <a href=\"https://other.example/\">another site</a>\
                 <a href=\"/elsewhere.html\">beside the site</a>\
                 <a href=\"../../up.html\">above the root</a>\
                 <a href=\"mailto:q@r\">mail</a><a href=\"#top\">same page</a>\
                 <a href=\"?q\">query only</a>",
            ),
            (
                "b.html",
                "<base href=\"http://s/site/\"><a href=\"index.html\">home</a>",
            ),
        ],
    );
    let out = dir.path().join("out");
    let run = linkbase(
        &[
            "rewrite",
            s(&site),
            "--site-url",
            "http://s/site/",
            "--relative",
            "-o",
            s(&out),
        ],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        untimed(&run.stderr).replace(s(&out), "OUT"),
        "linkbase: rewrite: 2 pages, 10 links: 3 made relative, 6 left absolute (2 in the site \
         without a file in the mirror, 1 outside the site's root, 2 outside the site, 1 not \
         http(s)), 1 not relinked (<base> hrefs, MIME parts' links), 0 left relative or \
         unresolvable; 2 links that RFC 2396 and browsers resolve differently \
         (profile-sensitive, listed by `links`; --profile whatwg resolves as browsers); 0 other \
         files copied; 0 failed; <base> removed from 1 page (by \
         --relative: it would redirect the relative links); written to OUT; T s\n"
    );
    // What the summary counts is what was written.
    assert_eq!(
        std::fs::read_to_string(out.join("index.html")).unwrap(),
        "<a href=\"b.html\">saved</a><a href=\"http://s/site/gone.html\">not saved</a>\
         <a href=\"http://s/site/gone2.html#x\">not saved</a>\
         <a href=\"https://other.example/\">another site</a>\
         <a href=\"http://s/elsewhere.html\">beside the site</a>\
         <a href=\"http://s/../up.html\">above the root</a>\
         <a href=\"mailto:q@r\">mail</a><a href=\"#top\">same page</a>\
         <a href=\"index.html?q\">query only</a>"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("b.html")).unwrap(),
        "<a href=\"index.html\">home</a>"
    );
}
