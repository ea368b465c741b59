//! The site map's unit tests: URL ↔ file, verdicts, relative paths.
#![allow(clippy::unwrap_used)]
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

/// Issue 25 item 5: under `check --local` the web root serves `/`-rooted paths; what climbs
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

/// Issue 14 item 6 and issue 15 item 6: an encoded `/` stays inside its segment.
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
