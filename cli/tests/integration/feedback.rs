//! Run feedback (issue 26 item 3): one closing summary for `rewrite DIR`, counted nouns that
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
        "linkbase: rewrite: 2 pages, 1 link: 1 absolute or relative, 0 left relative or \
         unresolvable; 0 other files copied; 0 failed; written to OUT; T s\n"
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
