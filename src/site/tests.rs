//! The site map's unit tests: URL ↔ file, verdicts, relative paths.
#![allow(clippy::unwrap_used, clippy::panic)]
use super::*;

fn site() -> Site {
    let mut s = Site::new("https://h.example/site").unwrap();
    for f in [
        "index.html",
        "docs/index.html",
        "docs/a b.html",
        "img/x.png",
    ] {
        s.add_file(f);
    }
    s.add_ids("docs/a b.html", ["intro", "caf\u{e9}"]);
    s.add_ids("index.html", []);
    s
}

#[test]
fn file_urls() {
    let s = site();
    assert_eq!(s.url().as_str(), "https://h.example/site/");
    assert_eq!(
        s.file_url("docs/a b.html"),
        "https://h.example/site/docs/a%20b.html"
    );
    assert_eq!(
        s.file_url("docs/index.html"),
        "https://h.example/site/docs/index.html"
    );
}

#[test]
fn targets_and_verdicts() {
    let s = site();
    let v = |u: &str| s.check(Some(u)).0;
    assert_eq!(
        v("https://h.example/site/docs/a%20b.html#intro"),
        Verdict::Ok
    );
    assert_eq!(
        v("https://H.EXAMPLE/site/docs/a%20b.html#caf%C3%A9"),
        Verdict::Ok
    );
    assert_eq!(
        v("https://h.example/site/docs/a%20b.html#nope"),
        Verdict::MissingFragment
    );
    assert_eq!(v("https://h.example/site/docs/"), Verdict::Ok);
    assert_eq!(v("https://h.example/site/docs"), Verdict::Ok);
    assert_eq!(v("https://h.example/site/"), Verdict::Ok);
    assert_eq!(v("https://h.example/site"), Verdict::Ok);
    assert_eq!(v("https://h.example/site/img/x.png#frag"), Verdict::Ok);
    assert_eq!(v("https://h.example/site/nope.html"), Verdict::Missing);
    assert_eq!(
        v("https://h.example/site/../etc/passwd"),
        Verdict::OutsideRoot
    );
    assert_eq!(
        v("https://h.example/site/docs/%2e%2e/%2e%2e/x"),
        Verdict::OutsideRoot
    );
    assert_eq!(v("https://h.example/other/x"), Verdict::External);
    assert_eq!(v("https://h.example:443/site/index.html"), Verdict::Ok);
    assert_eq!(
        v("https://h.example:8443/site/index.html"),
        Verdict::External
    );
    assert_eq!(
        v("https://h.example/../../etc/passwd"),
        Verdict::OutsideRoot
    );
    assert_eq!(v("https://h.example/site/docs/../img/x.png"), Verdict::Ok);
    assert_eq!(v("http://h.example/site/index.html"), Verdict::External);
    assert_eq!(v("mailto:x@y"), Verdict::External);
    assert_eq!(s.check(None).0, Verdict::Unresolvable);
}

/// Under `check --local` the web root serves `/`-rooted paths; what climbs
/// out of it by `..`, or lands beside it on disk, leaves the root.
#[test]
fn a_web_root_serves_root_relative_file_paths() {
    let mut s = Site::new("file:///srv/www/blog/").unwrap();
    s.add_file("post.html");
    s.add_file("index.html");
    let v = |s: &Site, u: &str, original: &str| s.check_reference(Some(u), original).0;
    // Without a web root, `/blog/post.html` resolved against a file: URL is another place.
    assert_eq!(
        v(&s, "file:///blog/post.html", "/blog/post.html"),
        Verdict::External
    );
    s.set_web_root("file:///srv/www/").unwrap();
    assert_eq!(
        v(&s, "file:///blog/post.html", "/blog/post.html"),
        Verdict::Ok
    );
    assert_eq!(
        v(&s, "file:///blog/gone.html", "/blog/gone.html"),
        Verdict::Missing
    );
    assert_eq!(v(&s, "file:///blog/", "/blog/"), Verdict::Ok);
    assert_eq!(v(&s, "file:///blog/", "\\blog/"), Verdict::Ok);
    assert_eq!(
        v(&s, "file:///srv/www/blog/post.html", "post.html"),
        Verdict::Ok
    );
    // In the web root, outside the checked tree: not checked.
    assert_eq!(
        v(&s, "file:///about.html", "/about.html"),
        Verdict::External
    );
    assert_eq!(
        v(&s, "file:///srv/www/about.html", "../about.html"),
        Verdict::External
    );
    // A relative link out of the root, or a `/`-rooted one climbing above it: outside.
    assert_eq!(
        v(&s, "file:///srv/x.html", "../../x.html"),
        Verdict::OutsideRoot
    );
    assert_eq!(
        v(&s, "file:///../blog/post.html", "/../blog/post.html"),
        Verdict::OutsideRoot
    );
    // An absolute file: URL names that file: inside the tree it is checked, else not.
    let usr = "file:///usr/share/doc/x.html";
    assert_eq!(v(&s, usr, usr), Verdict::External);
    let own = "file:///srv/www/blog/post.html";
    assert_eq!(v(&s, own, own), Verdict::Ok);
    // Other origins are untouched, and the web root must share the site's.
    let other = "https://h.example/blog/post.html";
    assert_eq!(v(&s, other, other), Verdict::External);
    assert!(s.set_web_root("https://h.example/").is_err());
}

/// An encoded `/` (`%2F`) stays inside its segment: it never names a directory, a file whose
/// name holds `%2F` is reached only by its encoded name, and an encoded `..%2F` still leaves
/// the root.
#[test]
fn encoded_slash_is_not_a_separator() {
    let mut s = site();
    s.add_file("a%2Fb.html");
    let v = |u: &str| s.check(Some(u)).0;
    // `docs%2Findex.html` is one segment naming a file "docs/index.html": none can exist.
    assert_eq!(
        v("https://h.example/site/docs%2Findex.html"),
        Verdict::Missing
    );
    assert_eq!(
        v("https://h.example/site/docs%2fa%20b.html"),
        Verdict::Missing
    );
    assert_eq!(
        s.target("https://h.example/site/docs%2Findex.html"),
        Target::Internal {
            path: "docs%2Findex.html".into(),
            fragment: None
        }
    );
    // A file literally named `a%2Fb.html` is reached by `a%252Fb.html`, and only by it.
    assert_eq!(v("https://h.example/site/a%252Fb.html"), Verdict::Ok);
    assert_eq!(v("https://h.example/site/a%2Fb.html"), Verdict::Missing);
    // Encoded traversal leaves the root whatever a server would make of it.
    assert_eq!(
        v("https://h.example/site/docs/..%2f..%2fetc%2fpasswd"),
        Verdict::OutsideRoot
    );
    assert_eq!(v("https://h.example/site/..%2F..%2F"), Verdict::OutsideRoot);
}

/// lychee's own cases for `--index-files` and `--fallback-extensions` (lychee-lib
/// `checker/file.rs` tests, MIT/Apache-2.0; their fixture tree, our code): a directory
/// `index_dir/` with `index.html` (ids `fragment`), `index_md/` with `index.md`, `empty_dir/`,
/// `same_name/` beside `same_name.html`, `dir_with_extension.html/` a directory.
fn lychee_tree() -> Site {
    let mut s = Site::new("file:///fixtures/").unwrap();
    for f in [
        "index_dir/index.html",
        "index_md/index.md",
        "same_name.html",
        "same_name/x.txt",
        "dir_with_extension.html/x.txt",
    ] {
        s.add_file(f);
    }
    s.add_dir("empty_dir");
    s.add_ids("index_dir/index.html", ["fragment"]);
    s.add_ids("same_name.html", ["a"]);
    s
}

fn look(s: &Site, path: &str) -> (Verdict, String) {
    let (verdict, target) = s.check(Some(&format!("file:///fixtures/{path}")));
    match target {
        Target::Internal { path, .. } => (verdict, path),
        other => panic!("{path}: {other:?}"),
    }
}

#[test]
fn index_files_as_lychee_reads_them() {
    let ok = |p: &str| (Verdict::Ok, p.to_owned());
    let missing = |p: &str| (Verdict::Missing, p.to_owned());
    // `.`: the directory is its own index (lychee's default; ours is index.html).
    let mut s = lychee_tree();
    s.set_index_files(&["."]).unwrap();
    assert_eq!(look(&s, "index_dir"), ok("index_dir/"));
    assert_eq!(look(&s, "empty_dir/"), ok("empty_dir/"));
    assert_eq!(
        look(&s, "empty_dir#fragment"),
        (Verdict::MissingFragment, "empty_dir/".into())
    );
    assert_eq!(
        look(&s, "index_dir#fragment"),
        (Verdict::MissingFragment, "index_dir/".into())
    );
    // index.html, then index.md: the first the directory has.
    s.set_index_files(&["index.html", "index.md"]).unwrap();
    assert_eq!(look(&s, "index_dir"), ok("index_dir/index.html"));
    assert_eq!(look(&s, "index_md"), ok("index_md/index.md"));
    assert_eq!(look(&s, "empty_dir"), missing("empty_dir/index.html"));
    assert_eq!(look(&s, "index_dir#fragment"), ok("index_dir/index.html"));
    assert_eq!(
        look(&s, "index_dir#non-existingfragment"),
        (Verdict::MissingFragment, "index_dir/index.html".into())
    );
    assert_eq!(
        look(&s, "dir_with_extension.html"),
        missing("dir_with_extension.html/index.html")
    );
    // No index file at all: every directory link is missing.
    s.set_index_files::<&str>(&[]).unwrap();
    assert_eq!(look(&s, "index_dir"), missing("index_dir/"));
    assert_eq!(look(&s, "empty_dir"), missing("empty_dir/"));
    s.set_index_files(&[""]).unwrap();
    assert_eq!(look(&s, "index_dir"), missing("index_dir/"));
    assert_eq!(look(&s, ""), missing("./"));
    // Names that are directories, or leave the directory, are refused (lychee accepts and
    // never finds them; a tree's settings may not name a file outside the directory).
    for bad in [
        "./.",
        "..",
        "/",
        "../index_dir/index.html",
        "/abs/index.html",
        "a//b",
    ] {
        assert!(s.set_index_files(&[bad]).is_err(), "{bad}");
    }
    s.set_index_files(&["sub/index.html"]).unwrap();
}

#[test]
fn fallback_extensions_as_lychee_reads_them() {
    let ok = |p: &str| (Verdict::Ok, p.to_owned());
    let missing = |p: &str| (Verdict::Missing, p.to_owned());
    let mut s = lychee_tree();
    // With an index file, a directory is resolved by it, never by an extension.
    s.set_fallback_extensions(&["html"]).unwrap();
    s.set_index_files(&["index"]).unwrap();
    assert_eq!(look(&s, "same_name"), missing("same_name/index"));
    assert_eq!(look(&s, "index_dir"), missing("index_dir/index"));
    // An extension finds a file, not a directory.
    assert_eq!(
        look(&s, "dir_with_extension"),
        missing("dir_with_extension")
    );
    // With the directory its own index, the file beside it wins (it has ids), slash or not.
    s.set_index_files(&["."]).unwrap();
    assert_eq!(look(&s, "same_name#a"), ok("same_name.html"));
    assert_eq!(look(&s, "same_name/"), ok("same_name.html"));
    // Pretty URLs: a missing file, and a missing directory, by their extension, in order.
    s.set_index_files(&["index.html"]).unwrap();
    s.add_file("about.htm");
    s.add_file("about.html");
    s.set_fallback_extensions(&["htm", "html"]).unwrap();
    assert_eq!(look(&s, "about"), ok("about.htm"));
    assert_eq!(look(&s, "about/"), ok("about.htm"));
    s.set_fallback_extensions(&[".html"]).unwrap();
    assert_eq!(look(&s, "about"), ok("about.html"));
    assert_eq!(look(&s, "gone"), missing("gone"));
    for bad in ["a/b", ".", "..", "x\\y"] {
        assert!(s.set_fallback_extensions(&[bad]).is_err(), "{bad}");
    }
}

/// A site URL with no host is refused: no link could be the site's (`check --site-url
/// 'https://'` checked nothing and said all clear). `file:` reads an empty host as this machine.
#[test]
fn a_site_url_names_a_host() {
    for url in ["https://", "http:///docs/", "https://user@/", "http://:80/"] {
        assert!(matches!(Site::new(url), Err(SiteError::NoHost(_))), "{url}");
    }
    assert!(Site::new("file:///srv/site/").is_ok());
    assert!(matches!(Site::new("https:docs"), Err(SiteError::BadUrl(_))));
}

/// HTTrack's index in a mirror checked from disk (its site URL a `file:` URL): the crawl's URLs
/// are not the pages' URLs (relative links resolve on disk), and a link to one of them is
/// left absolute, not all clear.
#[test]
fn a_crawler_s_index_of_another_site() {
    let mut s = Site::new("file:///m/").unwrap();
    s.set_web_root("file:///m/").unwrap();
    for f in ["h_80/index.html", "h_80/sub/page681a.html"] {
        s.add_file(f);
    }
    s.add_saved("http://h/", "h_80/index.html");
    s.add_saved("http://h/sub/page.php?id=1", "h_80/sub/page681a.html");
    s.add_mirrored_host("h:80", "h_80");
    s.set_layout(crate::layout::Layout::Httrack);
    assert_eq!(s.file_url("h_80/index.html"), "file:///m/h_80/index.html");
    assert_eq!(
        s.check_reference(
            Some("file:///m/h_80/sub/page681a.html?id=1"),
            "sub/page681a.html?id=1"
        )
        .0,
        Verdict::Ok
    );
    assert_eq!(
        s.check(Some("http://h/sub/page.php?id=1")).0,
        Verdict::LeftAbsolute
    );
    assert_eq!(
        s.check(Some("http://h/sub/page.php?id=2")).0,
        Verdict::External
    );
    // Published at the crawl's URL, the index names the pages' URLs.
    let mut s = Site::new("http://h/").unwrap();
    s.add_file("sub/page681a.html");
    s.add_saved("http://h/sub/page.php?id=1", "sub/page681a.html");
    assert_eq!(
        s.file_url("sub/page681a.html"),
        "http://h/sub/page.php?id=1"
    );
}
