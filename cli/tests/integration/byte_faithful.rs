//! `rewrite` changes nothing but URL bytes on every path: `--relative` as plain `rewrite`, a
//! `url()` in a `<style>` element, mis-nested markup the tree builder clones, a `<meta>` past the
//! prescan that changes the encoding, a byte malformed in the declared charset
//! (`fixtures/mirror-2008/`). Where a document is still written from its tree, the reason is
//! one `docs/engine.md` lists: every fixture tree of the repository, and the real-page corpus
//! when it is installed, are rewritten with `--relative` and each `reserialized` line checked.

use std::path::{Path, PathBuf};

use super::util::linkbase;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn repo(path: &str) -> PathBuf {
    Path::new(ROOT).join("..").join(path)
}

/// The attributes whose values hold URLs in the fixtures (the rules' table is larger; these are
/// what the mirror's pages use).
const URL_ATTRIBUTES: [&str; 7] = [
    "href",
    "src",
    "action",
    "background",
    "usemap",
    "cite",
    "longdesc",
];

/// `html` with what may change masked, read by a lexer of this test's own (not the engines'):
/// the value of each URL attribute becomes `V` (quotes or none: an unquoted value may gain
/// quotes), the argument of each `url(…)` and `@import "…"` in `<style>` text and `style`
/// attributes becomes `V`, and, with `drop_bases`, each `<base>` start tag goes. Everything else
/// is kept byte for byte.
fn masked(html: &[u8], drop_bases: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(html.len());
    let mut i = 0;
    while i < html.len() {
        if html[i..].starts_with(b"<!--") {
            let end = find(html, i + 4, b"-->").map_or(html.len(), |e| e + 3);
            out.extend_from_slice(&html[i..end]);
            i = end;
            continue;
        }
        let tag_start = html[i] == b'<' && html.get(i + 1).is_some_and(u8::is_ascii_alphabetic);
        if !tag_start {
            out.push(html[i]);
            i += 1;
            continue;
        }
        let (tag, end, name) = masked_tag(html, i);
        i = end;
        if drop_bases && name == "base" {
            continue;
        }
        out.extend_from_slice(&tag);
        // Raw text: `<style>` with its URLs masked, `<script>` as it is.
        if name == "style" || name == "script" {
            let close = format!("</{name}");
            let end = find_ci(html, i, close.as_bytes()).unwrap_or(html.len());
            let text = &html[i..end];
            if name == "style" {
                out.extend_from_slice(&masked_css(text));
            } else {
                out.extend_from_slice(text);
            }
            i = end;
        }
    }
    out
}

/// The start tag at `at`: masked, where it ends, and its name in lower case.
fn masked_tag(html: &[u8], at: usize) -> (Vec<u8>, usize, String) {
    let space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0c);
    let mut i = at + 1;
    while i < html.len() && !space(html[i]) && html[i] != b'>' && html[i] != b'/' {
        i += 1;
    }
    let name = String::from_utf8_lossy(&html[at + 1..i]).to_ascii_lowercase();
    let mut out = html[at..i].to_vec();
    loop {
        let Some(&b) = html.get(i) else {
            return (out, i, name);
        };
        if b == b'>' {
            out.push(b);
            return (out, i + 1, name);
        }
        if space(b) || b == b'/' {
            out.push(b);
            i += 1;
            continue;
        }
        let start = i;
        while i < html.len() && !space(html[i]) && !matches!(html[i], b'>' | b'/' | b'=') {
            i += 1;
        }
        let attr = String::from_utf8_lossy(&html[start..i]).to_ascii_lowercase();
        out.extend_from_slice(&html[start..i]);
        let mut j = i;
        while j < html.len() && space(html[j]) {
            j += 1;
        }
        if html.get(j) != Some(&b'=') {
            continue;
        }
        let mut k = j + 1;
        while k < html.len() && space(html[k]) {
            k += 1;
        }
        let (value, quote, after) = match html.get(k) {
            Some(&q @ (b'"' | b'\'')) => {
                let end = html[k + 1..]
                    .iter()
                    .position(|&c| c == q)
                    .map_or(html.len(), |p| k + 1 + p);
                (&html[k + 1..end], Some(q), (end + 1).min(html.len()))
            }
            _ => {
                let end = html[k..]
                    .iter()
                    .position(|&c| space(c) || c == b'>')
                    .map_or(html.len(), |p| k + p);
                (&html[k..end], None, end)
            }
        };
        if URL_ATTRIBUTES.contains(&attr.as_str()) {
            out.extend_from_slice(b"=V");
        } else {
            out.extend_from_slice(&html[i..k]);
            let value = if attr == "style" {
                masked_css(value)
            } else {
                value.to_vec()
            };
            out.extend(quote);
            out.extend_from_slice(&value);
            out.extend(quote);
        }
        i = after;
    }
}

/// CSS with the argument of each `url(…)` and `@import "…"` masked.
fn masked_css(css: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(css.len());
    let mut i = 0;
    while i < css.len() {
        if css[i..].len() >= 4 && css[i..i + 4].eq_ignore_ascii_case(b"url(") {
            out.extend_from_slice(b"url(V)");
            i = css[i..]
                .iter()
                .position(|&c| c == b')')
                .map_or(css.len(), |p| i + p + 1);
        } else if css[i..].starts_with(b"@import \"") {
            out.extend_from_slice(b"@import \"V\"");
            let from = i + 9;
            i = css[from..]
                .iter()
                .position(|&c| c == b'"')
                .map_or(css.len(), |p| from + p + 1);
        } else {
            out.push(css[i]);
            i += 1;
        }
    }
    out
}

fn find(haystack: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    haystack
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

fn find_ci(haystack: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    haystack
        .get(from..)?
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
        .map(|p| from + p)
}

/// Every regular file under `dir`, relative to it, sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let kind = std::fs::symlink_metadata(&path).unwrap().file_type();
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() {
                out.push(path.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// The number of `href=` and `src=` in `html`, any case (clones of the tree builder would add
/// some to a page written from its tree).
fn url_attributes(html: &[u8]) -> usize {
    html.windows(5)
        .filter(|w| w.eq_ignore_ascii_case(b"href=") || w[1..].eq_ignore_ascii_case(b"src="))
        .count()
}

/// The mirror's trees: the 2008 site, and two minimal pages.
const TREES: [(&str, &str); 3] = [
    ("fixtures/mirror-2008/site", "http://www.example.org/"),
    ("fixtures/mirror-2008/minimal/style", "http://example.com/"),
    (
        "fixtures/mirror-2008/minimal/malformed",
        "http://example.com/",
    ),
];

#[test]
fn relative_and_plain_rewrite_change_only_url_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let mut pages = 0;
    for (tree, site) in TREES {
        let src = repo(tree);
        for relative in [true, false] {
            let out = dir
                .path()
                .join(format!("{}-{relative}", tree.replace('/', "_")));
            let (src_s, out_s) = (src.to_str().unwrap(), out.to_str().unwrap());
            let mut args = vec!["rewrite", src_s, "--site-url", site, "-o", out_s];
            if relative {
                args.push("--relative");
            }
            let run = linkbase(&args, b"");
            assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
            assert!(
                !run.stderr.contains("reserialized"),
                "{args:?}: {}",
                run.stderr
            );
            for file in files(&src) {
                let name = file.to_string_lossy();
                if !name.ends_with(".html") {
                    continue;
                }
                let before = std::fs::read(src.join(&file)).unwrap();
                let after = std::fs::read(out.join(&file)).unwrap();
                assert_eq!(
                    String::from_utf8_lossy(&masked(&before, relative)),
                    String::from_utf8_lossy(&masked(&after, relative)),
                    "{tree}/{name} ({args:?}): only URL bytes change"
                );
                // As many URL attributes as the page has (a <base> may go with --relative).
                let bases = if relative {
                    find_ci(&before, 0, b"<base").map_or(0, |_| 1)
                } else {
                    0
                };
                assert_eq!(
                    url_attributes(&after) + bases,
                    url_attributes(&before),
                    "{name}"
                );
                pages += 1;
            }
        }
    }
    assert_eq!(pages, 2 * 14, "every page compared");
    // The malformed byte is kept, the link made relative.
    let out = dir
        .path()
        .join("fixtures_mirror-2008_minimal_malformed-true");
    assert_eq!(
        std::fs::read(out.join("d/index.html")).unwrap(),
        b"<meta charset=utf-8><p>caf\xe9</p><a href=\"index.html\">d</a>"
    );
    // The style page: the same bytes but for the URLs.
    let out = dir.path().join("fixtures_mirror-2008_minimal_style-true");
    assert_eq!(
        std::fs::read_to_string(out.join("d/index.html")).unwrap(),
        "<!doctype html><style>b{behavior:url(\"http://example.com/x.htc\")}</style><a href=\"index.html\">d</a>"
    );
}

#[test]
fn a_late_meta_reads_the_page_again_and_splices_it() {
    let page = repo("fixtures/mirror-2008/site/polish/index.html");
    let page = page.to_str().unwrap();
    let url = "http://www.example.org/polish/index.html";
    let base = linkbase(&["base", page, "--url", url], b"");
    let record: serde_json::Value = serde_json::from_str(&base.stdout).unwrap();
    assert_eq!(record["encoding"], "ISO-8859-2", "{}", base.stdout);
    assert_eq!(record["encoding_source"], "meta");
    assert!(
        !base.stdout.contains("dom-engine"),
        "the streaming engine reads it again: {}",
        base.stdout
    );
    // The query is encoded in the page's encoding (ą is 0xB1 in ISO-8859-2), and only the
    // URL bytes change, whether the page is held or streamed from its file.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.html");
    let out_s = out.to_str().unwrap();
    for threshold in ["1000000000", "100"] {
        let args = [
            "rewrite",
            page,
            "--url",
            url,
            "--stream-threshold",
            threshold,
            "-o",
            out_s,
        ];
        let run = linkbase(&args, b"");
        assert_eq!((run.code, run.stderr.as_str()), (0, ""));
        let before = std::fs::read(page).unwrap();
        let after = std::fs::read(&out).unwrap();
        assert!(
            masked(&before, false) == masked(&after, false),
            "{threshold}"
        );
        let query = b"href=\"http://www.example.org/polish/strona.html?q=%B1\">\xB1</a>";
        assert!(find(&after, 0, query).is_some(), "{threshold}");
    }
}

/// Why a document was written from its tree, as `rewrite` says it on stderr (`reserialized:
/// written from its parsed tree (WHY): …`).
fn reserialized_reasons(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter_map(|l| {
            l.split_once(": reserialized: written from its parsed tree (")?
                .1
                .split_once("): ")
                .map(|(why, _)| why.to_owned())
        })
        .collect()
}

#[test]
fn relative_rewrites_of_every_tree_reserialize_only_for_documented_reasons() {
    let docs = std::fs::read_to_string(repo("docs/engine.md")).unwrap();
    let mut trees: Vec<(PathBuf, String)> = TREES
        .iter()
        .map(|(t, s)| (repo(t), (*s).to_owned()))
        .collect();
    let local = "http://127.0.0.1:8724/";
    for tree in [
        "fixtures/crawl/httrack/127.0.0.1_8724",
        "fixtures/crawl/wget-k/127.0.0.1:8724",
        "fixtures/crawl/raw/127.0.0.1:8724",
    ] {
        trees.push((repo(tree), local.to_owned()));
    }
    for tree in [
        "fixtures/sites/basic",
        "fixtures/sites/clean",
        "fixtures/sites/links",
    ] {
        trees.push((repo(tree), "http://example.com/".to_owned()));
    }
    trees.push((repo("examples/site"), "http://example.com/".to_owned()));
    // Every golden case's input, as pages of one tree.
    trees.push((repo("fixtures/html"), "http://example.com/".to_owned()));
    // The real-page corpus (benches/corpus.sh), where it is installed.
    for (tree, site) in [
        (
            "/usr/share/doc/python3.11/html",
            "https://docs.python.org/3.11/",
        ),
        (
            "/usr/share/cppreference/doc/html",
            "https://en.cppreference.com/",
        ),
    ] {
        if Path::new(tree).is_dir() {
            trees.push((PathBuf::from(tree), site.to_owned()));
        } else {
            eprintln!("{tree}: not installed (benches/corpus.sh installs it); not rewritten");
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let mut counted: std::collections::BTreeMap<String, usize> = Default::default();
    for (n, (tree, site)) in trees.iter().enumerate() {
        let out = dir.path().join(n.to_string());
        let args = [
            "rewrite",
            tree.to_str().unwrap(),
            "--site-url",
            site,
            "--relative",
            "-o",
            out.to_str().unwrap(),
        ];
        let run = linkbase(&args, b"");
        assert!(run.code <= 1, "{args:?}: {}", run.stderr);
        for why in reserialized_reasons(&run.stderr) {
            assert!(
                docs.contains(&format!("`{why}`")),
                "{}: reserialized for a reason docs/engine.md does not list: {why}",
                tree.display()
            );
            *counted.entry(why).or_default() += 1;
        }
        std::fs::remove_dir_all(&out).ok();
    }
    eprintln!("written from the tree, by reason: {counted:?}");
    // The golden case whose namespaces lol_html and the tree builder read apart
    // (`svg-math-image-twice`); nothing else.
    assert_eq!(counted.values().sum::<usize>(), 1, "{counted:?}");
}
