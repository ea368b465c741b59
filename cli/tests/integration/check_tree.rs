//! What a user trips over in `check`'s first week. Pretty URLs and directory links
//! (`--fallback-extensions`, `--index-files`, as lychee names them, from the command line or
//! `linkbase.toml`), the links of the tree's stylesheets, "nothing checked" as an error, and
//! JUnit cases that name their file.

use std::path::Path;

use super::check_local::{check, records, tree, triple as r};
use super::sites::{s, tmp};
use super::util::jsonl;

/// A Hugo-style build: pretty URLs (`/about` served from `about.html`), a directory with a
/// README but no index.html, one with neither.
fn pretty_site(dir: &Path) {
    tree(
        dir,
        &[
            (
                "index.html",
                "<a href=\"/about\">1</a>\n<a href=\"/about/\">2</a>\n<a href=\"/docs/\">3</a>\n\
                 <a href=\"/blog/\">4</a>\n<a href=\"/gone\">5</a>\n<a href=\"/about#team\">6</a>\n".as_bytes()),
            ("about.html", "<h2 id=team>Team</h2>".as_bytes()),
            ("docs/README.html", "<p>docs</p>".as_bytes()),
            ("blog/post.html", "<p>post</p>".as_bytes()),
        ],
    );
}

#[test]
fn pretty_urls_and_index_files() {
    let dir = tmp();
    pretty_site(dir.path());
    let local = ["--local", "--format", "jsonl"];
    // By default a directory means its index.html, and /about is no file.
    let run = check(dir.path(), &local);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        records(&run),
        [
            r("/about", "missing", "about"),
            r("/about/", "missing", "about/index.html"),
            r("/docs/", "missing", "docs/index.html"),
            r("/blog/", "missing", "blog/index.html"),
            r("/gone", "missing", "gone"),
            r("/about#team", "missing", "about"),
        ]
    );
    // Pretty URLs, and a README as a directory's page.
    let flags = [
        &local[..],
        &[
            "--fallback-extensions",
            "html",
            "--index-files",
            "index.html,README.html",
        ],
    ]
    .concat();
    let run = check(dir.path(), &flags);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        records(&run),
        [
            r("/about", "ok", "about.html"),
            r("/about/", "ok", "about.html"),
            r("/docs/", "ok", "docs/README.html"),
            r("/blog/", "missing", "blog/index.html"),
            r("/gone", "missing", "gone"),
            r("/about#team", "ok", "about.html"),
        ]
    );
    // `.`: a directory is its own page; '' (no name): every directory link is missing.
    let run = check(
        dir.path(),
        &[&local[..], &["--index-files", "index.html,."]].concat(),
    );
    assert!(
        records(&run).contains(&r("/blog/", "ok", "blog/")),
        "{}",
        run.stdout
    );
    let run = check(dir.path(), &[&local[..], &["--index-files", ""]].concat());
    assert!(
        records(&run).contains(&r("/docs/", "missing", "docs/")),
        "{}",
        run.stdout
    );
    // Bad names are bad usage, said with where they came from.
    let run = check(dir.path(), &["--local", "--index-files", "../secret.html"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .starts_with("linkbase: --index-files: \"../secret.html\" is not an index file name: "),
        "{}",
        run.stderr
    );
    let run = check(dir.path(), &["--local", "--fallback-extensions", "x/y"]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "linkbase: --fallback-extensions: \"x/y\" is not a file extension (such as html)\n"
    );
}

/// The same from `linkbase.toml`, and the command line wins over it.
#[test]
fn pretty_urls_from_the_settings_file() {
    let dir = tmp();
    pretty_site(dir.path());
    std::fs::write(
        dir.path().join("linkbase.toml"),
        "local = true\nformat = \"jsonl\"\nfallback_extensions = \"html\"\n\
         index_files = [\"index.html\", \"README.html\"]\n",
    )
    .unwrap();
    let run = check(dir.path(), &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let got = records(&run);
    assert!(got.contains(&r("/about", "ok", "about.html")), "{got:?}");
    assert!(
        got.contains(&r("/docs/", "ok", "docs/README.html")),
        "{got:?}"
    );
    let run = check(
        dir.path(),
        &[
            "--index-files",
            "index.html",
            "--fallback-extensions",
            "htm",
        ],
    );
    let got = records(&run);
    assert!(got.contains(&r("/about", "missing", "about")), "{got:?}");
    assert!(
        got.contains(&r("/docs/", "missing", "docs/index.html")),
        "{got:?}"
    );
    // A bad name in the file names the file and the key.
    std::fs::write(
        dir.path().join("linkbase.toml"),
        "local = true\nindex_files = \"/etc/passwd\"\n",
    )
    .unwrap();
    let run = check(dir.path(), &[]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.starts_with(&format!(
            "linkbase: {}: index_files: \"/etc/passwd\" is not an index file name",
            dir.path().join("linkbase.toml").display()
        )),
        "{}",
        run.stderr
    );
}

/// The tree's stylesheets are read for their `url()` and `@import` references, by the rules
/// the rewrite relinks them by, each checked and reported at `file:line:column`; a page links
/// to them as to any file.
#[test]
fn stylesheets_are_checked_at_their_line_and_column() {
    let dir = tmp();
    tree(
        dir.path(),
        &[
            (
                "index.html",
                "<link rel=stylesheet href=\"css/main.css\">".as_bytes(),
            ),
            (
                "css/main.css",
                "@import url(\"/css/extra.css\");\n/* url(comment.png) */\n\
                 body { background: url(../img/bg.png) }\n\
                 p { background: url( ../img/gone.png ), url(#clip) }\n\
                 @font-face { src: url(https://fonts.example/f.woff2) }\n"
                    .as_bytes(),
            ),
            ("img/bg.png", "".as_bytes()),
        ],
    );
    let run = check(dir.path(), &["--local"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "missing css/extra.css  (1 link on 1 page)\n    \
         css/main.css:1:14: @import \"/css/extra.css\"\n\
         missing img/gone.png  (1 link on 1 page)\n    \
         css/main.css:4:22: url() \"../img/gone.png\"\n\
         1 page and 1 stylesheet, 5 links: 4 internal, 2 broken (0 outside the site root) to 2 \
         targets; 1 external (listed, not fetched); 0 unresolvable; 0 excluded; 1 not checked: \
         1 external (no --online)\n"
    );
    let run = check(dir.path(), &["--local", "--format", "jsonl"]);
    let css: Vec<(String, String, u64, u64)> = jsonl(&run.stdout)
        .into_iter()
        .filter(|v| v["file"] == "css/main.css")
        .map(|v| {
            (
                v["element"].as_str().unwrap().to_owned(),
                v["verdict"].as_str().unwrap().to_owned(),
                v["line"].as_u64().unwrap(),
                v["column"].as_u64().unwrap(),
            )
        })
        .collect();
    let e = |el: &str, v: &str, l: u64, c: u64| (el.to_owned(), v.to_owned(), l, c);
    assert_eq!(
        css,
        [
            e("@import", "missing", 1, 14),
            e("url", "ok", 3, 24),
            e("url", "missing", 4, 22),
            e("url", "external", 5, 23),
        ]
    );
    let run = check(dir.path(), &["--local", "--format", "github"]);
    assert!(
        run.stdout.contains(&format!(
            "::error file={}/css/main.css,line=4,col=22,title=linkbase%3A missing::missing \
             img/gone.png (url() \"../img/gone.png\")\n",
            s(dir.path())
        )),
        "{}",
        run.stdout
    );
    // --exclude-path leaves a stylesheet's links unchecked as a page's.
    let run = check(dir.path(), &["--local", "--exclude-path", "css/**"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
}

/// "Nothing checked" is an error naming what was looked for, never "0 broken" and exit 0.
#[test]
fn nothing_checked_is_an_error() {
    let dir = tmp();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let run = check(&empty, &["--local"]);
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (
            2,
            "",
            format!(
                "linkbase: {}: nothing to check: no page (*.html, *.htm, *.xhtml, *.shtml) or \
                 stylesheet (*.css) in it\n",
                s(&empty)
            )
            .as_str()
        )
    );
    let text = dir.path().join("text");
    tree(
        &text,
        &[("a.txt", "x".as_bytes()), ("b/c.md", "y".as_bytes())],
    );
    let run = check(&text, &["--local"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .ends_with("in it; its 2 other files are not read for links\n"),
        "{}",
        run.stderr
    );
    let site = dir.path().join("site");
    tree(&site, &[("index.html", "<a href=x.html>x</a>".as_bytes())]);
    let run = check(&site, &["--local", "--exclude-path", "**"]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        format!(
            "linkbase: {}: nothing to check: --exclude-path leaves out every page and stylesheet \
             in it (1 file)\n",
            s(&site)
        )
    );
    // A site URL with no host: no link could be the site's.
    for url in ["https://", "http://:8080/", "https:///docs/"] {
        let run = check(&site, &["--site-url", url]);
        assert_eq!(run.code, 2, "{url}");
        assert_eq!(
            run.stderr,
            format!(
                "linkbase: --site-url {url:?} names no host: links are the site's when they have \
                 its scheme, host and path, so nothing would be checked; give the URL the tree \
                 is published at, like https://example.com/docs/\n"
            )
        );
    }
}

/// JUnit test cases name their page (`file`, DIR joined with its path, as the github and sarif
/// formats do) and the line of their first link: GitLab links a case to its file by it.
#[test]
fn junit_cases_name_their_file_and_line() {
    let dir = tmp();
    let site = dir.path().join("site");
    tree(
        &site,
        &[
            ("index.html", "<p>\n<a href=\"gone.html\">1</a>".as_bytes()),
            ("sub/page.html", "<a href=\"../gone.html\">2</a>".as_bytes()),
            ("style.css", "\n\nb { background: url(no.png) }".as_bytes()),
        ],
    );
    let run = check(
        &site,
        &["--site-url", "https://example.com/", "--format", "junit"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let site = s(&site);
    assert_eq!(
        run.stdout,
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <testsuites name=\"linkbase check\" tests=\"3\" failures=\"2\" errors=\"0\">\n  \
             <testsuite name=\"linkbase check\" tests=\"3\" failures=\"2\" errors=\"0\">\n    \
             <testcase classname=\"linkbase.check.missing\" name=\"gone.html\" \
             file=\"{site}/index.html\" line=\"2\">\n      \
             <failure type=\"missing\" message=\"2 links on 2 pages\">index.html:2:10: &lt;a \
             href&gt; &quot;gone.html&quot;&#10;sub/page.html:1:10: &lt;a href&gt; \
             &quot;../gone.html&quot;</failure>\n    </testcase>\n    \
             <testcase classname=\"linkbase.check.missing\" name=\"no.png\" \
             file=\"{site}/style.css\" line=\"3\">\n      \
             <failure type=\"missing\" message=\"1 link on 1 page\">style.css:3:21: url() \
             &quot;no.png&quot;</failure>\n    </testcase>\n    \
             <testcase classname=\"linkbase.check\" name=\"every other link\"><system-out>2 \
             pages and 1 stylesheet, 3 links: 3 internal, 3 broken (0 outside the site root) to \
             2 targets; 0 external (listed, not fetched); 0 unresolvable; 0 excluded; 0 not \
             checked</system-out></testcase>\n  </testsuite>\n</testsuites>\n"
        )
    );
}
