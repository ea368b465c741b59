//! How a crawler names the files of a mirror: the one URL → file rule that `rewrite DIR
//! --relative`, `check` and `rewrite --extract` share.
//!
//! - [`Layout::Plain`]: the tree is what a server serves: a URL's path names the file and its
//!   query is not part of the name (`page.html?x=1` is `page.html`).
//! - [`Layout::Wget`]: GNU Wget's names (`url_file_name` and `append_uri_pathel` in its
//!   `src/url.c`, `ensure_extension` in `src/http.c`): each path segment is percent-decoded, then
//!   the bytes the target system cannot hold are written `%XX` (upper-case hex); the query is
//!   kept in the last name after `?` (`@` under `--restrict-file-names=windows`, where a `?`
//!   of the query itself becomes `%3F`, as `\ | : * " < >` do); an empty last segment is
//!   `index.html`; with `-E` (`--adjust-extension`) an HTML page whose name does not end in
//!   `.html` or `.htm` gets `.html` appended, a stylesheet not ending in `.css` gets `.css` (the
//!   last `.` of the whole name counts, query included: `style.css?v=1` → `style.css?v=1.css`).
//! - [`Layout::Httrack`]: HTTrack's trees (its `hts-cache/` directory): HTTrack names a page
//!   `.html` whatever its extension (`index.php` → `index.html`) and a URL with a query by a hash
//!   of it (`page.php?id=1` → `page681a.html`), which only its index `hts-cache/new.txt`
//!   records ([`httrack_index`]); URLs it lists name their files, others are read as plain.
//!
//! Deviations from wget, on purpose: under [`Restrict::Unix`] a `\` and the C1 controls are
//! escaped too (a name written by `--extract` must be safe to list on a terminal and on any
//! system), and a default port is never written (wget neither: `host:port` only for others).

use std::borrow::Cow;

/// The file a directory URL names (HTTP servers' convention; wget's and HTTrack's default).
pub const INDEX_FILE: &str = "index.html";

/// The naming a tree of files follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Layout {
    /// A server's tree: the query is not part of a file's name.
    #[default]
    Plain,
    /// GNU Wget's (and wget2's) names: the query kept in the name, `-E` extensions.
    Wget,
    /// HTTrack's tree: its index names the files ([`httrack_index`]), else as plain.
    Httrack,
}

impl Layout {
    /// The name used in messages and by `--layout`.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Plain => "plain",
            Layout::Wget => "wget",
            Layout::Httrack => "httrack",
        }
    }

    /// The layout of a tree, from its files (`/`-separated paths below the root), when the
    /// names say it unambiguously: a name holding a `?` (no server serves a file so named:
    /// only a crawler keeping the query writes one) or ending in a server script's extension
    /// with `.html` appended (`x.php.html`: wget `-E`) is wget's; an `hts-cache/` directory
    /// at the root is HTTrack's. `None` otherwise: the caller reads the tree as
    /// [`Layout::Plain`] unless told (`--layout`).
    pub fn detect<'a>(files: impl IntoIterator<Item = &'a str>) -> Option<Layout> {
        let mut wget = false;
        for f in files {
            if f.starts_with("hts-cache/") {
                return Some(Layout::Httrack);
            }
            let name = f.rsplit('/').next().unwrap_or(f);
            let lower = name.to_ascii_lowercase();
            wget |= name.contains('?')
                || [".php", ".asp", ".aspx", ".jsp", ".cgi", ".pl", ".cfm"]
                    .iter()
                    .any(|e| lower.ends_with(&format!("{e}.html")));
        }
        wget.then_some(Layout::Wget)
    }
}

/// Whether a crawler saves what `url` names as a file of its mirror: an `http:` or `https:`
/// URL (scheme compared case-insensitively, RFC 3986 §3.1). Other schemes are not the site's
/// files: links to them (`mailto:`, `data:`) stay as they are, and archived records of them
/// (wget's `metadata://gnu.org/software/wget/warc/…` resources: its arguments and log;
/// Heritrix's `dns:` responses) are the crawler's own, never extracted into the mirror.
///
/// ```
/// use linkbase::layout::of_the_web;
/// assert!(of_the_web("HTTPS://h/x.css"));
/// assert!(!of_the_web("metadata://gnu.org/software/wget/warc/wget.log"));
/// assert!(!of_the_web("dns:example.com"));
/// assert!(!of_the_web("x.html"));
/// ```
pub fn of_the_web(url: &str) -> bool {
    crate::uri::UriRef::parse(url)
        .scheme
        .is_some_and(|s| s.eq_ignore_ascii_case("http") || s.eq_ignore_ascii_case("https"))
}

/// The system wget restricts names for (`--restrict-file-names=unix|windows`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restrict {
    /// `/` and control characters escaped; the query after `?`.
    Unix,
    /// `\ | / : ? " * < >` and control characters escaped; the query after `@`; a port after
    /// `+`.
    Windows,
}

/// What wget `-E` knows of a response: its `Content-Type` made it HTML (or had none), CSS, or
/// something else (kept as named).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `text/html`, `application/xhtml+xml`, or no type: `.html` ensured.
    Html,
    /// `text/css`: `.css` ensured.
    Css,
    /// Anything else: the name as it is.
    Other,
}

/// One decoded name (a path segment, or the last one with its query) as wget writes it on
/// `restrict`: each byte the system cannot hold becomes `%XX`.
pub fn escape_name(decoded: &str, restrict: Restrict) -> String {
    let mut out = String::with_capacity(decoded.len());
    for c in decoded.chars() {
        let unsafe_here = c.is_control()
            || c == '/'
            || c == '\\'
            || (restrict == Restrict::Windows
                && matches!(c, '|' | ':' | '?' | '"' | '*' | '<' | '>'));
        if unsafe_here {
            for b in c.encode_utf8(&mut [0; 4]).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The last name of a URL's file in wget's layout: the last path segment (`index.html` when
/// empty) and the query, both percent-decoded by the caller, joined by `?` (`@` on Windows)
/// and escaped ([`escape_name`]).
pub fn wget_last_name(last: &str, query: Option<&str>, restrict: Restrict) -> String {
    let file = if last.is_empty() { INDEX_FILE } else { last };
    let mut name = escape_name(file, restrict);
    if let Some(q) = query {
        name.push(match restrict {
            Restrict::Unix => '?',
            Restrict::Windows => '@',
        });
        name.push_str(&escape_name(q, restrict));
    }
    name
}

/// wget `-E`: `name` with `.html` (for [`Kind::Html`]) or `.css` (for [`Kind::Css`]) appended
/// unless what follows its last `.` is already that (`.htm` too for HTML), case-insensitively.
pub fn adjust_extension(name: &str, kind: Kind) -> Cow<'_, str> {
    let (ext, short) = match kind {
        Kind::Html => (".html", ".htm"),
        Kind::Css => (".css", ".css"),
        Kind::Other => return Cow::Borrowed(name),
    };
    let has = name
        .rfind('.')
        .and_then(|i| name.get(i..))
        .is_some_and(|e| e.eq_ignore_ascii_case(ext) || e.eq_ignore_ascii_case(short));
    if has {
        Cow::Borrowed(name)
    } else {
        Cow::Owned(format!("{name}{ext}"))
    }
}

/// The names wget may have given the file of a URL whose decoded directory segments are
/// `dirs` and whose last segment and query (decoded) are `last` and `query`, in the order a
/// lookup tries them: on Unix, then on Windows; each as named, then with `-E`'s `.html` and
/// `.css`. `/`-separated, below the root (host directories are the caller's).
pub fn wget_candidates(dirs: &[&str], last: &str, query: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(6);
    for restrict in [Restrict::Unix, Restrict::Windows] {
        let mut path = String::new();
        for d in dirs {
            path.push_str(&escape_name(d, restrict));
            path.push('/');
        }
        let name = wget_last_name(last, query, restrict);
        for kind in [Kind::Other, Kind::Html, Kind::Css] {
            let candidate = format!("{path}{}", adjust_extension(&name, kind));
            if !out.contains(&candidate) {
                out.push(candidate);
            }
        }
    }
    out
}

/// The last name HTTrack gives a URL's file (its `url_savename`, as its `01_engine-savename`
/// test shows it): the last path segment (`index.html` when empty), with, for a query, the first
/// four hex digits of the MD5 of the query inserted before the extension (`page.php?id=1` →
/// `page681a`); a page's extension is `.html` (a server script's `.php`, `.asp`, `.aspx`,
/// `.jsp`, `.cgi`, `.pl`, `.cfm` replaced, any other appended unless `.htm`/`.html`), a
/// stylesheet's `.css`. `last` and `query` are decoded; the result escaped as
/// [`escape_name`] does on Unix. HTTrack's finer rules (a Content-Disposition name, types read
/// from the bytes, its own length limits) are not followed.
pub fn httrack_last_name(last: &str, query: Option<&str>, kind: Kind) -> String {
    let file = if last.is_empty() { INDEX_FILE } else { last };
    let (stem, ext) = match file.rfind('.') {
        Some(i) if i > 0 => (file.get(..i).unwrap_or(file), file.get(i..).unwrap_or("")),
        _ => (file, ""),
    };
    let lower = ext.to_ascii_lowercase();
    let scripts = [".php", ".asp", ".aspx", ".jsp", ".cgi", ".pl", ".cfm"];
    let (stem, ext) = match kind {
        Kind::Html if lower == ".html" || lower == ".htm" => (stem.to_owned(), ext.to_owned()),
        Kind::Html if scripts.contains(&lower.as_str()) => (stem.to_owned(), ".html".to_owned()),
        Kind::Html => (file.to_owned(), ".html".to_owned()),
        Kind::Css if lower == ".css" => (stem.to_owned(), ext.to_owned()),
        Kind::Css => (file.to_owned(), ".css".to_owned()),
        Kind::Other => (stem.to_owned(), ext.to_owned()),
    };
    let hash = query.map(|q| {
        use md5::Digest;
        let digest = md5::Md5::digest(q.as_bytes());
        digest
            .iter()
            .take(2)
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    });
    escape_name(
        &format!("{stem}{}{ext}", hash.unwrap_or_default()),
        Restrict::Unix,
    )
}

/// The URLs HTTrack saved and where, from its index `hts-cache/new.txt` (tab-separated; the
/// 8th field the URL, the 9th the file's path as written at crawl time, empty when nothing was
/// saved; the first line names the fields): each `(url, path)` of a 2xx response. The URL is
/// as HTTrack's `escape_check_url_addr` wrote it (escapes in lower case); the path is
/// percent-decoded, since HTTrack escapes it in the index but not on disk (`enc/страница.html`
/// is listed as `enc/%d1%81…`).
///
/// ```
/// let index = "date\tsize\tflags\tstatuscode\tstatus\tMIME\tEtag|Date\tURL\tlocalfile\t(from URL)\n\
///     04:17:08\t453/453\t---M--\t200\tadded ('OK')\ttext/html\tdate:x\thttp://h/sub/page.php?id=1\t/tmp/p/h/sub/page681a.html\t(from )\n\
///     04:17:08\t0/0\t---M--\t200\tadded ('OK')\ttext/plain\tdate:x\thttp://h/robots.txt\t\t(from )\n\
///     04:17:09\t9/9\t---M--\t200\tadded ('OK')\ttext/html\tdate:x\thttp://h/%d1%8f.html\t/tmp/p/h/%d1%8f.html\t(from )\n";
/// assert_eq!(
///     linkbase::layout::httrack_index(index),
///     [
///         ("http://h/sub/page.php?id=1".to_owned(), "/tmp/p/h/sub/page681a.html".to_owned()),
///         ("http://h/%d1%8f.html".to_owned(), "/tmp/p/h/я.html".to_owned()),
///     ]
/// );
/// ```
pub fn httrack_index(text: &str) -> Vec<(String, String)> {
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let status = fields.get(3)?.trim();
            let (url, path) = (fields.get(7)?.trim(), fields.get(8)?.trim());
            (status.starts_with('2') && !url.is_empty() && !path.is_empty())
                .then(|| (url.to_owned(), crate::uri::percent_decode(path)))
        })
        .collect()
}

/// The query as wget2 keeps it in a file name (its `test-k.c` and `test-k-percent-encoding.c`):
/// `%XX` decoded except where it stands for a URI's general delimiter (`: / ? # [ ] @`, RFC
/// 3986 §2.2) or `%`: `h=http%3A%2F%2Fx` stays, `a%2Cb%7Cc` is `a,b|c`.
pub fn wget2_query(raw: &str) -> String {
    crate::uri::percent_decode_except(raw, |b| b":/?#[]@%".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// wget's own expectations: `tests/Test-E-k.px` (`subpage.php` saved as
    /// `subpage.php.html`), `testenv/Test-k.py` (`site;sub:.html` kept on Unix), and
    /// `url_file_name`'s rules for queries and restricted names (GNU Wget, GPL-3.0-or-later;
    /// the data only, our code).
    #[test]
    fn wget_names() {
        assert_eq!(
            adjust_extension("subpage.php", Kind::Html),
            "subpage.php.html"
        );
        assert_eq!(adjust_extension("index.HTM", Kind::Html), "index.HTM");
        assert_eq!(
            adjust_extension("style.css?v=1", Kind::Css),
            "style.css?v=1.css"
        );
        assert_eq!(adjust_extension("a.png", Kind::Other), "a.png");
        assert_eq!(
            adjust_extension("page.html?x=1", Kind::Html),
            "page.html?x=1.html"
        );
        assert_eq!(
            wget_last_name("site;sub:.html", None, Restrict::Unix),
            "site;sub:.html"
        );
        assert_eq!(
            wget_last_name("site;sub:.html", None, Restrict::Windows),
            "site;sub%3A.html"
        );
        assert_eq!(
            wget_last_name("", Some("x=1"), Restrict::Unix),
            "index.html?x=1"
        );
        assert_eq!(
            wget_last_name("p.php", Some("a=?&b=c/d"), Restrict::Unix),
            "p.php?a=?&b=c%2Fd"
        );
        assert_eq!(
            wget_last_name("p.php", Some("a=?&b=c/d"), Restrict::Windows),
            "p.php@a=%3F&b=c%2Fd"
        );
        assert_eq!(
            wget_candidates(&["d"], "s.css", Some("v=1")),
            [
                "d/s.css?v=1",
                "d/s.css?v=1.html",
                "d/s.css?v=1.css",
                "d/s.css@v=1",
                "d/s.css@v=1.html",
                "d/s.css@v=1.css"
            ]
        );
    }

    /// wget2's `tests/test-k.c` and `tests/test-k-percent-encoding.c` (GPL-3.0-or-later; the
    /// data only): the names it saves those queries under.
    #[test]
    fn wget2_queries() {
        assert_eq!(
            wget2_query("x&h=http%3A%2F%2Fexample.com"),
            "x&h=http%3A%2F%2Fexample.com"
        );
        assert_eq!(
            wget2_query("family=Montserrat%3A400%2C700%7CBitter%3A400%2C700&display=swap"),
            "family=Montserrat%3A400,700|Bitter%3A400,700&display=swap"
        );
    }

    /// HTTrack 3.49's names of `fixtures/crawl/httrack/` and its `01_engine-savename` test
    /// (GPL-3.0; the data only).
    #[test]
    fn httrack_names() {
        assert_eq!(
            httrack_last_name("page.php", Some("id=1"), Kind::Html),
            "page681a.html"
        );
        assert_eq!(
            httrack_last_name("page.php", Some("id=2"), Kind::Html),
            "page0b30.html"
        );
        assert_eq!(
            httrack_last_name("style.css", Some("v=1"), Kind::Css),
            "style3860.css"
        );
        assert_eq!(
            httrack_last_name("app.js", Some("v=3"), Kind::Other),
            "app30f4.js"
        );
        assert_eq!(
            httrack_last_name("logo.png", Some("w=2"), Kind::Other),
            "logobd39.png"
        );
        assert_eq!(
            httrack_last_name("index.php", None, Kind::Html),
            "index.html"
        );
        assert_eq!(httrack_last_name("", None, Kind::Html), "index.html");
        assert_eq!(httrack_last_name("foo", None, Kind::Html), "foo.html");
        assert_eq!(
            httrack_last_name("article-1.884291", None, Kind::Html),
            "article-1.884291.html"
        );
    }

    #[test]
    fn layouts_are_detected_only_when_the_names_say_so() {
        assert_eq!(Layout::detect(["index.html", "a/b.css"]), None);
        assert_eq!(
            Layout::detect(["index.html", "s.css?v=1.css"]),
            Some(Layout::Wget)
        );
        assert_eq!(Layout::detect(["x/sub.PHP.html"]), Some(Layout::Wget));
        assert_eq!(
            Layout::detect(["hts-cache/new.txt", "a?b"]),
            Some(Layout::Httrack)
        );
        assert_eq!(Layout::detect(["a@2x.png"]), None);
    }
}
