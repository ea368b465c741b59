//! Offline mirrors: `rewrite DIR --relative` makes links to files of the tree relative
//! paths and every other link absolute, and `check OUT --local` browses the result from disk.

use std::path::Path;

use super::sites::{fixture, s, tmp, BASIC_URL};
use super::util::linkbase;

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

#[test]
fn relative_mirror_of_the_basic_site() {
    let out = tmp();
    let dir = out.path().join("m");
    let run = linkbase(
        &[
            "rewrite",
            s(&fixture("basic")),
            "--site-url",
            BASIC_URL,
            "--relative",
            "-o",
            s(&dir),
        ],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    // One page had a <base> (docs/based.html), and the summary says it went, and why.
    assert!(
        run.stderr.contains(
            "; <base> removed from 1 page (by --relative: it would redirect the relative links); "
        ),
        "{}",
        run.stderr
    );
    let index = read(&dir.join("index.html"));
    // Hand-checked against fixtures/sites/basic/index.html: files of the tree relative (a
    // directory as its index.html, the query and fragment kept), everything else absolute.
    for line in [
        r#"<link rel="stylesheet" href="assets/style.css">"#,
        r#"<link rel="stylesheet" href="https://example.com/site/assets/missing.css">"#,
        r#"<li><a href="docs/index.html">a directory: its index.html</a>"#,
        r#"<li><a href="docs/index.html">a directory without the slash</a>"#,
        r#"<li><a href="https://example.com/site/nowhere.html">a missing file</a>"#,
        r#"<li><a href="about.html#team">an existing id</a>"#,
        r##"<li><a href="#top-heading">same document, existing id</a>"##,
        r#"<li><a href="docs/a%20b.html#intro">a percent-encoded file name</a>"#,
        r#"<li><a href="https://example.com/../../../etc/passwd">a traversal</a>"#,
        r#"<li><a href="about.html">out of the root and back in</a>"#,
        r#"<li><a href="about.html?lang=en">absolute, internal, with a query</a>"#,
        r#"<li><a href="https://example.org/elsewhere">an external link</a>"#,
        r#"<img srcset="assets/logo.png 1x, https://example.com/site/assets/logo@2x.png 2x" alt="srcset, one candidate missing">"#,
    ] {
        assert!(index.contains(line), "{line}\n{index}");
    }
    // The <base> went; what it pointed at is now a path from the page itself.
    let based = read(&dir.join("docs/based.html"));
    assert!(!based.contains("<base"), "{based}");
    assert!(
        based.contains(r#"<img src="../assets/logo.png""#),
        "{based}"
    );
    assert!(
        based.contains(r#"<a href="index.html">back to docs</a>"#),
        "{based}"
    );

    // Browsed from disk, the mirror has no broken link the original did not have: the three
    // links to missing ids (missing files are absolute now, outside the mirror).
    let local = linkbase(&["check", s(&dir), "--local", "--format", "json"], b"");
    assert_eq!(local.code, 1, "{}", local.stderr);
    let v: serde_json::Value = serde_json::from_str(&local.stdout).unwrap();
    let broken: Vec<(&str, &str)> = v["broken"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["verdict"].as_str().unwrap(),
                b["target"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        broken,
        [
            ("missing-fragment", "about.html#nobody"),
            ("missing-fragment", "index.html#no-such-heading")
        ]
    );
    assert_eq!(v["summary"]["broken"], 3);
}

#[test]
fn a_single_page_of_a_tree() {
    let run = linkbase(
        &[
            "rewrite",
            s(&fixture("basic").join("docs/based.html")),
            "--relative",
            "--site-url",
            BASIC_URL,
            "--root",
            s(&fixture("basic")),
        ],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains(r#"<a href="../assets/style.css">"#),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("<base"));
    let outside = linkbase(
        &[
            "rewrite",
            s(&fixture("clean").join("index.html")),
            "--relative",
            "--site-url",
            BASIC_URL,
            "--root",
            s(&fixture("basic")),
        ],
        b"",
    );
    assert_eq!(outside.code, 2);
    assert!(
        outside.stderr.contains("not a file under --root"),
        "{}",
        outside.stderr
    );
    let no_root = linkbase(
        &[
            "rewrite",
            s(&fixture("basic").join("index.html")),
            "--relative",
            "--site-url",
            BASIC_URL,
        ],
        b"",
    );
    assert_eq!(no_root.code, 2);
    assert!(no_root.stderr.contains("--root DIR"), "{}", no_root.stderr);
}

#[test]
fn relative_needs_a_site_url() {
    let out = tmp();
    let run = linkbase(
        &[
            "rewrite",
            s(&fixture("basic")),
            "--relative",
            "-o",
            s(&out.path().join("x")),
        ],
        b"",
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
}

/// Same-document references (RFC 2396 §4.2) stay as written in a mirror: `#` and `""` are the
/// page itself, not a link to its file (`os.html` would reload it, a form's `action=""` too);
/// a `<base>` that sends them to another page is followed, since --relative removes it.
#[test]
fn same_document_references_stay_as_written() {
    let t = tmp();
    let tree = t.path().join("tree");
    std::fs::create_dir_all(tree.join("docs")).unwrap();
    std::fs::write(
        tree.join("os.html"),
        "<a href=\"#\">top</a> <a href=\"\">self</a> <a href=\"#x\">x</a> \
         <a href=\"os.html\">file</a> <form action=\"\"></form> <svg><a href=\"#y\"/></svg>\n",
    )
    .unwrap();
    std::fs::write(
        tree.join("docs/based.html"),
        "<base href=\"../os.html\"><a href=\"#\">top of os</a> <a href=\"\">os</a> \
         <a href=\"#x\">x of os</a>\n",
    )
    .unwrap();
    let out = t.path().join("out");
    let run = linkbase(
        &[
            "rewrite",
            s(&tree),
            "--site-url",
            "http://h/",
            "--relative",
            "-o",
            s(&out),
        ],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        read(&out.join("os.html")),
        "<a href=\"#\">top</a> <a href=\"\">self</a> <a href=\"#x\">x</a> \
         <a href=\"os.html\">file</a> <form action=\"\"></form> <svg><a href=\"#y\"/></svg>\n"
    );
    assert_eq!(
        read(&out.join("docs/based.html")),
        "<a href=\"../os.html\">top of os</a> <a href=\"../os.html\">os</a> \
         <a href=\"../os.html#x\">x of os</a>\n"
    );
}
