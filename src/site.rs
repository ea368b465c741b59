//! Whole sites: a directory tree published at a site URL (mirrors, static-site builds).
//!
//! - Each file's retrieval URI (RFC 2396 §5.1.3) is the site URL joined with its path below the
//!   root, percent-encoded where RFC 2396 §2.4.3 requires: `docs/a b.html` under
//!   `https://h/site/` is `https://h/site/docs/a%20b.html`. An `index.html` keeps its own URL
//!   (`…/dir/index.html`, as wget and HTTrack save it); relative links resolve the same from
//!   `…/dir/` and `…/dir/index.html`, and a link to `…/dir/` names `dir/index.html` (or what
//!   [`Site::set_index_files`] says; [`Site::set_fallback_extensions`] for pretty URLs).
//! - A resolved link is internal when it has the site URL's scheme and authority and its path lies
//!   under the site path; it then names a file of the tree, or leaves the root (a `..` that climbs
//!   out). Nothing here touches the file system: the caller walked the tree once.
//! - A check reads the links of the tree's pages ([`Site::check_page`]) and of its stylesheets
//!   ([`Site::check_stylesheet`]: `url()` and `@import`, by the rewrite's CSS rules).

use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};

use crate::layout::Layout;
use crate::uri::{Uri, UriRef};

/// The file a directory URL names (HTTP servers' and static hosts' convention).
pub const INDEX_FILE: &str = crate::layout::INDEX_FILE;

/// A site: its URL, the files and directories of its tree, and the ids of its HTML pages.
#[derive(Debug, Clone)]
pub struct Site {
    url: Uri,
    /// The site path, percent-decoded segment by segment (link paths are compared decoded).
    decoded_path: String,
    files: HashSet<String>,
    dirs: HashSet<String>,
    /// Per HTML page, the hashes of its `id`s and `<a name>`s (8 bytes each, whatever the id).
    ids: HashMap<String, FragmentIds>,
    /// The web root's path on the site URL's origin, decoded and ending in `/`
    /// ([`Site::set_web_root`]).
    web_root: Option<String>,
    /// How the tree names the file of a URL ([`Site::set_layout`]).
    layout: Layout,
    /// URLs a crawler's index names files by ([`Site::add_saved`]: HTTrack's `hts-cache`), and
    /// each such file's URL.
    saved: HashMap<String, String>,
    saved_urls: HashMap<String, String>,
    /// URLs of another site a crawler's index names files of the tree by (the index of a
    /// mirror checked as it browses from disk): a link to one is [`Verdict::LeftAbsolute`].
    crawled: HashMap<String, String>,
    /// Hosts the tree holds a crawler's copy of, each with its directory below the root
    /// ([`Site::add_mirrored_host`]).
    mirrored: Vec<(String, String)>,
    /// What a link to a directory names, in order ([`Site::set_index_files`]).
    index_files: Vec<IndexFile>,
    /// What a link to a file the tree does not have may name instead
    /// ([`Site::set_fallback_extensions`]).
    fallback_extensions: Vec<String>,
}

/// One name of [`Site::set_index_files`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum IndexFile {
    /// The directory itself (`.`).
    Itself,
    /// A file below the directory.
    File(String),
}

/// Where a resolved link points, seen from the site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A file of the tree (its path below the root), and the fragment if any.
    Internal {
        /// The file, `/`-separated, relative to the root.
        path: String,
        /// The fragment, without `#`.
        fragment: Option<String>,
    },
    /// Under the site URL but climbing out of the root (`/site/../etc/passwd`).
    OutsideRoot,
    /// Another site, or another scheme.
    External,
}

/// The verdict on one link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The target file exists (and the fragment names an id in it).
    Ok,
    /// No such file in the tree.
    Missing,
    /// The file exists but has no element with that id or name.
    MissingFragment,
    /// Resolves outside the site root: reported, never read.
    OutsideRoot,
    /// Outside the site: listed, not fetched (without `check --online`).
    External,
    /// Could not be resolved (no base, opaque base).
    Unresolvable,
    /// Left unchecked at the caller's request (`check --exclude`, `.linkbaseignore`), or by
    /// the caller's policy (`check --online`: an address that is not globally reachable).
    Excluded,
    /// Outside the site, fetched, but not settled: its `#fragment` could not be looked up
    /// (not HTML, past the size read), or the run's time ran out (`check --max-time`).
    NotChecked,
    /// Outside the site, fetched (`check --online`): the final answer's status is not an
    /// accepted one.
    HttpError,
    /// Outside the site, fetched: no usable answer (refused, timed out, a redirect loop, too
    /// many redirects, TLS or protocol failure).
    Unreachable,
    /// Outside the site, checked by syntax (`mailto:`, `tel:`) or not a URL a request can be
    /// made for: malformed.
    BadAddress,
    /// A link to a file of this mirror written as its address on the web (a crawler's host
    /// directory, [`Site::add_mirrored_host`]): from disk it leaves the mirror for the live
    /// site, although the mirror has the file (issue 24).
    LeftAbsolute,
}

impl Verdict {
    /// Whether this verdict is a broken link.
    pub fn is_broken(self) -> bool {
        matches!(
            self,
            Verdict::Missing
                | Verdict::MissingFragment
                | Verdict::OutsideRoot
                | Verdict::HttpError
                | Verdict::Unreachable
                | Verdict::BadAddress
                | Verdict::LeftAbsolute
        )
    }

    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Missing => "missing",
            Verdict::MissingFragment => "missing-fragment",
            Verdict::OutsideRoot => "outside-root",
            Verdict::External => "external",
            Verdict::Unresolvable => "unresolvable",
            Verdict::Excluded => "excluded",
            Verdict::NotChecked => "not-checked",
            Verdict::HttpError => "http-error",
            Verdict::Unreachable => "unreachable",
            Verdict::BadAddress => "bad-address",
            Verdict::LeftAbsolute => "left-absolute",
        }
    }
}

/// Errors building a [`Site`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SiteError {
    /// The site URL cannot serve.
    #[error("{0:?} is not a site URL: it must be an absolute hierarchical URI with an authority, like https://example.com/docs/")]
    BadUrl(String),
    /// The site URL names no host (`https://`, `http://:80/`): no link could be the site's.
    #[error("{0:?} names no host: links are the site's when they have its scheme, host and path, so nothing would be checked; give the URL the tree is published at, like https://example.com/docs/")]
    NoHost(String),
    /// A name of [`Site::set_index_files`] that is no file below a directory.
    #[error("{0:?} is not an index file name: a file name, or a path below the directory without . or .. segments (or . for the directory itself)")]
    BadIndexFile(String),
    /// An extension of [`Site::set_fallback_extensions`] that is no extension.
    #[error("{0:?} is not a file extension (such as html)")]
    BadExtension(String),
}

impl Site {
    /// A site published at `url` (a trailing `/` is added to its path if missing).
    ///
    /// # Errors
    /// [`SiteError::BadUrl`] when `url` is not absolute with an authority.
    pub fn new(url: &str) -> Result<Site, SiteError> {
        let parsed = UriRef::parse(url.trim());
        let (Some(scheme), Some(authority)) = (parsed.scheme, parsed.authority) else {
            return Err(SiteError::BadUrl(url.to_owned()));
        };
        // RFC 3986 §3.2.2: `file:` reads an empty host as the local machine; for other schemes
        // (http among them) an empty host is invalid.
        let host = authority.rsplit('@').next().unwrap_or(authority);
        if !scheme.eq_ignore_ascii_case("file") && (host.is_empty() || host.starts_with(':')) {
            return Err(SiteError::NoHost(url.to_owned()));
        }
        let mut text = format!(
            "{}://{}{}",
            parsed.scheme.unwrap_or_default(),
            parsed.authority.unwrap_or_default(),
            parsed.path
        );
        if !text.ends_with('/') {
            text.push('/');
        }
        let url = Uri::parse_stated(&text).map_err(|_| SiteError::BadUrl(url.to_owned()))?;
        let decoded_path = url
            .as_ref()
            .path
            .split('/')
            .map(crate::uri::percent_decode)
            .collect::<Vec<_>>()
            .join("/");
        Ok(Site {
            url,
            decoded_path,
            files: HashSet::new(),
            dirs: HashSet::new(),
            ids: HashMap::new(),
            web_root: None,
            layout: Layout::Plain,
            saved: HashMap::new(),
            saved_urls: HashMap::new(),
            crawled: HashMap::new(),
            mirrored: Vec::new(),
            index_files: vec![IndexFile::File(INDEX_FILE.to_owned())],
            fallback_extensions: Vec::new(),
        })
    }

    /// What a link to a directory of the tree names (lychee's `--index-files`): the first of
    /// `names` the directory has, each a file name or a path below it (`index.html`,
    /// `README.md`), or `.` for the directory itself (it has no fragment ids); a directory with
    /// none of them is missing. The default is `index.html`, as a server serves it; an empty
    /// list makes every link to a directory missing (each link must name a file). Empty names
    /// are left out, as lychee does.
    ///
    /// ```
    /// use linkbase::site::{Site, Verdict};
    /// let mut site = Site::new("https://h/").unwrap();
    /// for f in ["index.html", "docs/README.md", "blog/x.html"] {
    ///     site.add_file(f);
    /// }
    /// let v = |site: &Site, url: &str| site.check(Some(url)).0;
    /// assert_eq!(v(&site, "https://h/docs/"), Verdict::Missing);
    /// site.set_index_files(&["index.html", "README.md"]).unwrap();
    /// assert_eq!(site.check(Some("https://h/docs/")).1, linkbase::site::Target::Internal { path: "docs/README.md".into(), fragment: None });
    /// assert_eq!(v(&site, "https://h/blog/"), Verdict::Missing);
    /// site.set_index_files(&["index.html", "."]).unwrap();
    /// assert_eq!(v(&site, "https://h/blog/"), Verdict::Ok);
    /// assert_eq!(v(&site, "https://h/blog/#top"), Verdict::MissingFragment);
    /// site.set_index_files(&[""]).unwrap();
    /// assert_eq!(v(&site, "https://h/"), Verdict::Missing);
    /// assert!(site.set_index_files(&["../x.html"]).is_err());
    /// ```
    ///
    /// # Errors
    /// [`SiteError::BadIndexFile`] for a name that is absolute or holds a `.` or `..` segment:
    /// the names come from a tree's settings too, and never name a file outside the directory.
    pub fn set_index_files<S: AsRef<str>>(&mut self, names: &[S]) -> Result<(), SiteError> {
        let mut out = Vec::new();
        for name in names.iter().map(AsRef::as_ref).filter(|n| !n.is_empty()) {
            if name == "." {
                out.push(IndexFile::Itself);
                continue;
            }
            let plain = !name.starts_with('/')
                && !name.contains('\\')
                && name.split('/').all(|s| !matches!(s, "" | "." | ".."));
            if !plain {
                return Err(SiteError::BadIndexFile(excerpt(name)));
            }
            out.push(IndexFile::File(name.to_owned()));
        }
        self.index_files = out;
        Ok(())
    }

    /// The extensions a link to a file the tree does not have may name a file by (lychee's
    /// `--fallback-extensions`; pretty URLs: `/about` served from `about.html`): the first
    /// `NAME.EXT` of the tree, in the order given. A link to a directory the index files do
    /// not settle tries them too (`/blog` is `blog.html` beside `blog/`), and so does one to a
    /// directory the tree does not have (`/about/` is `about.html`), as lychee does. A leading
    /// `.` is allowed (`.html`); empty extensions are left out.
    ///
    /// lychee replaces the link's last extension (`v1.2` looks for `v1.html`); here the
    /// extension is appended (`v1.2.html`), as the static hosts that serve pretty URLs do, so
    /// that another file is never taken for the one linked.
    ///
    /// ```
    /// use linkbase::site::{Site, Verdict};
    /// let mut site = Site::new("https://h/").unwrap();
    /// for f in ["index.html", "about.html", "v1.2.html", "blog.html", "blog/x.html"] {
    ///     site.add_file(f);
    /// }
    /// site.set_index_files(&["index.html", "."]).unwrap();
    /// assert_eq!(site.check(Some("https://h/about")).0, Verdict::Missing);
    /// site.set_fallback_extensions(&["htm", ".html"]).unwrap();
    /// for (url, file) in [("https://h/about", "about.html"), ("https://h/about/", "about.html"), ("https://h/v1.2", "v1.2.html"), ("https://h/blog", "blog.html")] {
    ///     assert_eq!(site.check(Some(url)).1, linkbase::site::Target::Internal { path: file.into(), fragment: None }, "{url}");
    /// }
    /// assert_eq!(site.check(Some("https://h/gone")).0, Verdict::Missing);
    /// ```
    ///
    /// # Errors
    /// [`SiteError::BadExtension`] for one that holds a `/` or `\` (or is only dots).
    pub fn set_fallback_extensions<S: AsRef<str>>(
        &mut self,
        extensions: &[S],
    ) -> Result<(), SiteError> {
        let mut out = Vec::new();
        for written in extensions
            .iter()
            .map(AsRef::as_ref)
            .filter(|e| !e.is_empty())
        {
            let ext = written.strip_prefix('.').unwrap_or(written);
            if ext.is_empty() || ext.contains(['/', '\\']) || ext.chars().all(|c| c == '.') {
                return Err(SiteError::BadExtension(excerpt(written)));
            }
            out.push(ext.to_owned());
        }
        self.fallback_extensions = out;
        Ok(())
    }

    /// Records a directory of the tree (`/`-separated path below the root): one with no file
    /// is a link target too when `.` is an index file ([`Site::set_index_files`]).
    pub fn add_dir(&mut self, path: &str) {
        let mut dir = path.trim_end_matches('/');
        while !dir.is_empty() {
            self.dirs.insert(dir.to_owned());
            dir = dir.rsplit_once('/').map_or("", |(parent, _)| parent);
        }
    }

    /// The web root a server would serve the site from, for a site whose URL is a place on
    /// disk (`check --local`, where a page's URL is its `file:` URL and a `/`-rooted link
    /// resolves to `file:///docs/x.html`). `url` names a directory on the site URL's origin (the
    /// site's own URL for `check DIR --local`, another directory's with `--root-dir`). A path on
    /// that origin outside the web root is then read from the web root, as a server reads it:
    /// `file:///docs/x.html` is `ROOT/docs/x.html`; a path that reaches outside it by `..`
    /// still leaves the root, and so does one beside the root on disk (in the root's top
    /// directory: where `../x` from a page at the root lands).
    ///
    /// ```
    /// use linkbase::site::{Site, Target};
    /// let mut site = Site::new("file:///srv/public/").unwrap();
    /// site.set_web_root("file:///srv/public/").unwrap();
    /// site.add_file("docs/x.html");
    /// let x = Target::Internal { path: "docs/x.html".into(), fragment: None };
    /// // `/docs/x.html` on a page of the tree:
    /// assert_eq!(site.check_reference(Some("file:///docs/x.html"), "/docs/x.html").1, x);
    /// assert_eq!(site.check_reference(Some("file:///srv/public/docs/x.html"), "x.html").1, x);
    /// // `../x.html` from the root climbs out; an absolute file: URL elsewhere is not the site's.
    /// assert_eq!(site.check_reference(Some("file:///srv/x.html"), "../x.html").1, Target::OutsideRoot);
    /// assert_eq!(site.check_reference(Some("file:///usr/x.html"), "file:///usr/x.html").1, Target::External);
    /// ```
    ///
    /// # Errors
    /// [`SiteError::BadUrl`] when `url` is not absolute with an authority, or not on the site
    /// URL's origin.
    pub fn set_web_root(&mut self, url: &str) -> Result<(), SiteError> {
        let root = Site::new(url)?;
        let (a, b) = (root.url.as_ref(), self.url.as_ref());
        let same_origin = a
            .scheme
            .zip(b.scheme)
            .is_some_and(|(x, y)| x.eq_ignore_ascii_case(y))
            && a.authority
                .zip(b.authority)
                .is_some_and(|(x, y)| same_authority(b.scheme.unwrap_or_default(), x, y));
        if !same_origin {
            return Err(SiteError::BadUrl(url.to_owned()));
        }
        self.web_root = Some(root.decoded_path);
        Ok(())
    }

    /// How the tree names the file of a URL (default [`Layout::Plain`]): under
    /// [`Layout::Wget`] a link's query is part of the file name it looks for (`s.css?v=1`
    /// names `s.css?v=1`, or `s.css?v=1.css` when wget `-E` wrote it; `s.css@v=1` on Windows),
    /// a page's URL is read back from its name (`page.html?x=1` was fetched with its query),
    /// and a relative link to it is the name escaped for a URL (`page.html%3Fx=1`).
    ///
    /// ```
    /// use linkbase::{layout::Layout, site::{Site, Verdict}};
    /// let mut site = Site::new("http://h/").unwrap();
    /// for f in ["index.html", "s.css", "s.css?v=1.css", "sub.php.html"] {
    ///     site.add_file(f);
    /// }
    /// // A plain tree: the query is the server's business; `s.css` answers it.
    /// assert_eq!(site.relative("http://h/index.html", "http://h/s.css?v=1").as_deref(), Some("s.css?v=1"));
    /// site.set_layout(Layout::Wget);
    /// assert_eq!(site.relative("http://h/index.html", "http://h/s.css?v=1").as_deref(), Some("s.css%3Fv=1.css"));
    /// assert_eq!(site.relative("http://h/index.html", "http://h/sub.php#x").as_deref(), Some("sub.php.html#x"));
    /// // What wget did not save is missing, not another file.
    /// assert_eq!(site.check(Some("http://h/s.css?v=2")).0, Verdict::Missing);
    /// ```
    pub fn set_layout(&mut self, layout: Layout) {
        self.layout = layout;
    }

    /// Records that the crawler saved `url` (absolute, without fragment) as the file `path`
    /// of the tree, from its own index (HTTrack's `hts-cache/new.txt`, whose names hold a hash
    /// of the query that only the index undoes): a link to `url` names `path`, and the page at
    /// `path` has `url` as its URL. The first record of a URL or file wins.
    ///
    /// ```
    /// use linkbase::{layout::Layout, site::Site};
    /// let mut site = Site::new("http://h/").unwrap();
    /// site.add_file("index.html");
    /// site.add_file("sub/page681a.html");
    /// site.add_saved("http://h/sub/page.php?id=1", "sub/page681a.html");
    /// site.set_layout(Layout::Httrack);
    /// assert_eq!(site.relative("http://h/index.html", "http://h/sub/page.php?id=1#x").as_deref(), Some("sub/page681a.html#x"));
    /// assert_eq!(site.file_url("sub/page681a.html"), "http://h/sub/page.php?id=1");
    /// // HTTrack writes escapes lower-case: the same URL (RFC 3986 §6.2.2.1).
    /// site.add_file("enc/x.html");
    /// site.add_saved("http://H:80/enc/%d1%81.html", "enc/x.html");
    /// assert_eq!(site.relative("http://h/index.html", "http://h/enc/%D1%81.html").as_deref(), Some("enc/x.html"));
    /// ```
    ///
    /// A URL that is not the site's (the index of a mirror checked as it browses from disk,
    /// whose site URL is a `file:` URL) names no page's URL: a link to it leaves the mirror, and
    /// is [`Verdict::LeftAbsolute`] when it is on a host the tree holds a copy of
    /// ([`Site::add_mirrored_host`]).
    pub fn add_saved(&mut self, url: &str, path: &str) {
        if !matches!(self.target(url), Target::Internal { .. }) {
            self.crawled
                .entry(saved_key(url))
                .or_insert_with(|| path.to_owned());
            return;
        }
        self.saved
            .entry(saved_key(url))
            .or_insert_with(|| path.to_owned());
        self.saved_urls
            .entry(path.to_owned())
            .or_insert_with(|| url.to_owned());
    }

    /// Records that the directory `dir` of the tree (`""`: the root) is a crawler's copy of
    /// the http(s) host `authority` (`127.0.0.1:8724`, `example.com`): a link to a URL on that
    /// host whose file the copy has is [`Verdict::LeftAbsolute`] rather than external, so that
    /// `check --local` of a mirror whose links still go to the live site is not an all-clear.
    ///
    /// ```
    /// use linkbase::site::{Site, Verdict};
    /// let mut site = Site::new("file:///m/").unwrap();
    /// site.add_file("example.com/s.css");
    /// site.add_mirrored_host("Example.com:80", "example.com");
    /// assert_eq!(site.check(Some("http://example.com/s.css")).0, Verdict::LeftAbsolute);
    /// assert_eq!(site.check(Some("https://example.com/other.css")).0, Verdict::External);
    /// ```
    pub fn add_mirrored_host(&mut self, authority: &str, dir: &str) {
        let dir = dir.trim_matches('/');
        self.mirrored.push((
            normal_authority(authority),
            if dir.is_empty() {
                String::new()
            } else {
                format!("{dir}/")
            },
        ));
    }

    /// The file of the tree a URL on a mirrored host names, when the tree has it.
    fn mirrored_file(&self, resolved: &str) -> Option<String> {
        if !crate::layout::of_the_web(resolved) {
            return None;
        }
        let r = UriRef::parse(resolved);
        let authority = normal_authority(r.authority?);
        let (_, dir) = self.mirrored.iter().find(|(a, _)| *a == authority)?;
        if let Some(path) = self.crawled.get(&saved_key(resolved)) {
            return self.files.contains(path).then(|| path.clone());
        }
        // The same URL on the site: the site URL, the host's directory, the path.
        let mut url = self.url.as_str().to_owned();
        percent_encode_segment(dir.trim_end_matches('/'), &mut url);
        if !dir.is_empty() {
            url.push('/');
        }
        url.push_str(r.path.trim_start_matches('/'));
        if let Some(q) = r.query {
            url.push('?');
            url.push_str(q);
        }
        match self.locate(&url, Written::Absolute) {
            (Target::Internal { path, .. }, false) if self.files.contains(&path) => Some(path),
            _ => None,
        }
    }

    /// The layout the tree is read with.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// The files of the tree, `/`-separated below the root (in no order).
    pub fn files(&self) -> impl Iterator<Item = &str> {
        self.files.iter().map(String::as_str)
    }

    /// The site URL, ending in `/`.
    pub fn url(&self) -> &Uri {
        &self.url
    }

    /// Records a file of the tree (`/`-separated path below the root); its directories too.
    pub fn add_file(&mut self, path: &str) {
        let mut dir = path;
        while let Some((parent, _)) = dir.rsplit_once('/') {
            self.dirs.insert(parent.to_owned());
            dir = parent;
        }
        self.files.insert(path.to_owned());
    }

    /// Records the ids (and `<a name>` values) of an HTML page.
    pub fn add_ids<'a>(&mut self, path: &str, ids: impl IntoIterator<Item = &'a str>) {
        self.ids.insert(path.to_owned(), FragmentIds::new(ids));
    }

    /// How many files the tree has.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether the tree has no files.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The retrieval URI of a file of the tree. Under [`Layout::Wget`] a `?` in the file's
    /// name starts the query it was fetched with (`page.html?x=1`), so that a query-only or
    /// same-document link on it resolves as it did on the site.
    pub fn file_url(&self, path: &str) -> String {
        if let Some(url) = self.saved_urls.get(path) {
            return url.clone();
        }
        let mut url = self.url.as_str().to_owned();
        let (path, query) = match (self.layout, path.rsplit_once('/')) {
            (Layout::Wget, Some((_, last))) if last.contains('?') => {
                let at = path.len() - last.len() + last.find('?').unwrap_or(0);
                (
                    path.get(..at).unwrap_or(path),
                    path.get(at + 1..).filter(|_| at < path.len()),
                )
            }
            (Layout::Wget, None) if path.contains('?') => path
                .split_once('?')
                .map_or((path, None), |(p, q)| (p, Some(q))),
            _ => (path, None),
        };
        for (n, segment) in path.split('/').enumerate() {
            if n > 0 {
                url.push('/');
            }
            percent_encode_segment(segment, &mut url);
        }
        if let Some(q) = query {
            url.push('?');
            // A query may hold `/` and `?` as they are (RFC 2396 §3.4).
            for part in q.split_inclusive(['/', '?']) {
                let (text, sep) = match part.strip_suffix(['/', '?']) {
                    Some(t) => (t, part.get(t.len()..).unwrap_or("")),
                    None => (part, ""),
                };
                percent_encode_segment(text, &mut url);
                url.push_str(sep);
            }
        }
        url
    }

    /// Where `resolved` (an absolute URI) points.
    pub fn target(&self, resolved: &str) -> Target {
        self.locate(resolved, Written::Absolute).0
    }

    /// [`Site::target`], and whether a path segment holds an encoded `/` (`%2F`): such a
    /// segment names one file whose name contains a slash, which no file can have, so the link
    /// is missing however the decoded path reads (in the returned path it stays `%2F`).
    fn locate(&self, resolved: &str, written: Written) -> (Target, bool) {
        let r = UriRef::parse(resolved);
        if !self.saved.is_empty() {
            if let Some(path) = self.saved.get(&saved_key(resolved)) {
                return (
                    Target::Internal {
                        path: path.clone(),
                        fragment: r.fragment.filter(|f| !f.is_empty()).map(str::to_owned),
                    },
                    false,
                );
            }
        }
        let site = self.url.as_ref();
        let same_origin = r
            .scheme
            .zip(site.scheme)
            .is_some_and(|(a, b)| a.eq_ignore_ascii_case(b))
            && r.authority
                .zip(site.authority)
                .is_some_and(|(a, b)| same_authority(site.scheme.unwrap_or_default(), a, b));
        if !same_origin {
            return (Target::External, false);
        }
        // Remove dot segments (escaped ones too: a server decodes them) from the whole path, so
        // that `/site/docs/../../x` and RFC 2396's kept `/../x` are both seen for what they are.
        let mut stack: Vec<String> = Vec::new();
        let mut climbed = false;
        let mut trailing_slash = false;
        let mut encoded_slash = false;
        for raw in r.path.split('/').skip(1) {
            let mut segment = crate::uri::percent_decode(raw);
            if segment.contains('/') {
                // `..%2F..%2F`: a server that decodes before splitting would climb; nothing is
                // read, and it is reported as leaving the root, not as a missing file.
                if segment.split('/').any(|s| s == "..") {
                    return (Target::OutsideRoot, false);
                }
                encoded_slash = true;
                segment = segment.replace('/', "%2F");
            }
            trailing_slash = matches!(segment.as_str(), "" | "." | "..");
            match segment.as_str() {
                "." => {}
                ".." => {
                    climbed = true;
                    stack.pop();
                }
                _ => stack.push(segment),
            }
        }
        let mut normalized = format!("/{}", stack.join("/"));
        if trailing_slash && !normalized.ends_with('/') {
            normalized.push('/');
        }
        // A web root (`check --local`): a `/`-rooted reference is a server's path, read from
        // the root (`/docs/x.html` resolved against a page's `file:` URL is
        // `file:///docs/x.html`, served as ROOT/docs/x.html); a relative reference that lands
        // outside the root climbed out of it (`../x` from ROOT/index.html). An absolute `file:`
        // URL names that file on disk: inside the tree it is checked, outside it is not.
        if let Some(root) = &self.web_root {
            if !normalized.starts_with(root.as_str()) {
                match written {
                    Written::PathAbsolute if !climbed => {
                        normalized = format!("{}{normalized}", root.trim_end_matches('/'));
                    }
                    Written::PathAbsolute | Written::Relative => {
                        return (Target::OutsideRoot, false)
                    }
                    Written::Absolute => {}
                }
            }
        }
        let site_path = self.decoded_path.as_str();
        let under = normalized
            .strip_prefix(site_path)
            .map(str::to_owned)
            // `https://h/site` (no slash) is the site root too.
            .or_else(|| (format!("{normalized}/") == site_path).then(String::new));
        let target = match under {
            Some(rest) => {
                // Climbing out and back in (`/site/../site/x`) still reads only inside the root.
                self.internal(&rest, r.query, r.fragment)
            }
            None if climbed => Target::OutsideRoot,
            None => Target::External,
        };
        (target, encoded_slash)
    }

    fn internal(&self, path: &str, query: Option<&str>, fragment: Option<&str>) -> Target {
        let fragment = fragment.filter(|f| !f.is_empty()).map(str::to_owned);
        let path = if path.is_empty() || path.ends_with('/') || self.dirs.contains(path) {
            self.directory(path.trim_end_matches('/'), query)
        } else {
            let file = self.layout_file(path, query);
            if self.fallback_extensions.is_empty() || self.files.contains(&file) {
                file
            } else {
                self.with_extension(&file).unwrap_or(file)
            }
        };
        Target::Internal { path, fragment }
    }

    /// The file a link to the directory `dir` (`""`: the root) names: its first index file
    /// ([`Site::set_index_files`]), the directory itself as `dir/` (`./` for the root; `.`, when
    /// no file with a fallback extension stands beside it), or, when it has none, the first name (or `dir/`),
    /// which is missing. A directory the tree does not have may be a file with a fallback
    /// extension (`about/` → `about.html`).
    fn directory(&self, dir: &str, query: Option<&str>) -> String {
        let below = |name: &str| {
            let file = if dir.is_empty() {
                name.to_owned()
            } else {
                format!("{dir}/{name}")
            };
            self.layout_file(&file, query)
        };
        let itself = || {
            if dir.is_empty() {
                "./".to_owned()
            } else {
                format!("{dir}/")
            }
        };
        if !dir.is_empty() && !self.dirs.contains(dir) {
            return self
                .with_extension(dir)
                .unwrap_or_else(|| self.first_index(&below, itself()));
        }
        for index in &self.index_files {
            match index {
                IndexFile::File(name) => {
                    let file = below(name);
                    if self.files.contains(&file) {
                        return file;
                    }
                }
                IndexFile::Itself => {
                    return (!dir.is_empty())
                        .then(|| self.with_extension(dir))
                        .flatten()
                        .unwrap_or_else(itself);
                }
            }
        }
        self.first_index(&below, itself())
    }

    /// What a directory without an index file is reported as: its first index file's name, or
    /// the directory (`dir/`) when no name is a file.
    fn first_index(&self, below: &dyn Fn(&str) -> String, itself: String) -> String {
        self.index_files
            .iter()
            .find_map(|i| match i {
                IndexFile::File(name) => Some(below(name)),
                IndexFile::Itself => None,
            })
            .unwrap_or(itself)
    }

    /// The first `path.EXT` of the tree, for the fallback extensions in their order.
    fn with_extension(&self, path: &str) -> Option<String> {
        if path.is_empty() {
            return None;
        }
        self.fallback_extensions
            .iter()
            .map(|ext| format!("{path}.{ext}"))
            .find(|f| self.files.contains(f))
    }

    /// The file of a link to `path` (with `query`) in the tree's layout: under wget's, the
    /// first of its possible names that the tree has, else its own name (missing).
    fn layout_file(&self, path: &str, query: Option<&str>) -> String {
        if self.layout != Layout::Wget {
            return path.to_owned();
        }
        let (dirs, last) = path.rsplit_once('/').unwrap_or(("", path));
        let dirs: Vec<&str> = dirs.split('/').filter(|d| !d.is_empty()).collect();
        // wget decodes the query; wget2 keeps the escapes of delimiters.
        let mut candidates = crate::layout::wget_candidates(
            &dirs,
            last,
            query.map(crate::uri::percent_decode).as_deref(),
        );
        if let Some(q) = query {
            for c in
                crate::layout::wget_candidates(&dirs, last, Some(&crate::layout::wget2_query(q)))
            {
                if !candidates.contains(&c) {
                    candidates.push(c);
                }
            }
        }
        candidates
            .iter()
            .find(|c| self.files.contains(c.as_str()))
            .or(candidates.first())
            .cloned()
            .unwrap_or_else(|| path.to_owned())
    }

    /// The verdict on a link whose resolution is `resolved` (`None`: it could not be resolved).
    pub fn check(&self, resolved: Option<&str>) -> (Verdict, Target) {
        self.verdict(resolved, Written::Absolute)
    }

    /// [`Site::check`] for a link written as `original` (which decides, under a web root, how a
    /// resolved `file:` path outside the tree is read: [`Site::set_web_root`]).
    pub fn check_reference(&self, resolved: Option<&str>, original: &str) -> (Verdict, Target) {
        self.verdict(resolved, Written::of(original))
    }

    fn verdict(&self, resolved: Option<&str>, written: Written) -> (Verdict, Target) {
        let Some(resolved) = resolved else {
            return (Verdict::Unresolvable, Target::External);
        };
        let (target, encoded_slash) = self.locate(resolved, written);
        if target == Target::External && !self.mirrored.is_empty() {
            if let Some(path) = self.mirrored_file(resolved) {
                let fragment = UriRef::parse(resolved).fragment.map(str::to_owned);
                return (Verdict::LeftAbsolute, Target::Internal { path, fragment });
            }
        }
        let verdict = match &target {
            Target::External => Verdict::External,
            Target::OutsideRoot => Verdict::OutsideRoot,
            // A directory itself: there when `.` is an index file (it has no fragment ids);
            // without index files, a directory link names nothing.
            Target::Internal { path, fragment } if path.is_empty() || path.ends_with('/') => {
                let dir = path.trim_end_matches('/');
                let there = matches!(dir, "" | ".") || self.dirs.contains(dir);
                if encoded_slash || !there || !self.index_files.contains(&IndexFile::Itself) {
                    Verdict::Missing
                } else if fragment.is_some() {
                    Verdict::MissingFragment
                } else {
                    Verdict::Ok
                }
            }
            Target::Internal { path, fragment } => {
                if encoded_slash || !self.files.contains(path) {
                    Verdict::Missing
                } else {
                    match (fragment, self.ids.get(path)) {
                        (Some(f), Some(ids)) if !ids.names(f) => Verdict::MissingFragment,
                        _ => Verdict::Ok,
                    }
                }
            }
        };
        (verdict, target)
    }
}

impl Site {
    /// The relative reference from the page at `document` to the file of the tree `resolved`
    /// names: the shortest path (`../c/x.html`, `x.html`, `#f` within the page), percent-encoded,
    /// with the query and fragment kept. `None` when `resolved` is not a file of the tree (a
    /// missing file, another site) or `document` is not a page of it: the link stays absolute.
    ///
    /// ```
    /// use linkbase::site::Site;
    /// let mut site = Site::new("https://example.com/docs/").unwrap();
    /// for f in ["index.html", "a/page.html", "b/x y.html", "b/index.html"] {
    ///     site.add_file(f);
    /// }
    /// let page = "https://example.com/docs/a/page.html";
    /// assert_eq!(site.relative(page, "https://example.com/docs/b/x%20y.html#s").as_deref(), Some("../b/x%20y.html#s"));
    /// assert_eq!(site.relative(page, "https://example.com/docs/b/").as_deref(), Some("../b/index.html"));
    /// assert_eq!(site.relative(page, "https://example.com/docs/a/page.html#top").as_deref(), Some("#top"));
    /// assert_eq!(site.relative(page, "https://example.com/docs/missing.html"), None);
    /// assert_eq!(site.relative(page, "https://other.example/"), None);
    /// ```
    pub fn relative(&self, document: &str, resolved: &str) -> Option<String> {
        let (Target::Internal { path: from, .. }, false) = self.locate(document, Written::Absolute)
        else {
            return None;
        };
        let (Target::Internal { path: to, fragment }, false) =
            self.locate(resolved, Written::Absolute)
        else {
            return None;
        };
        if !self.files.contains(&to) {
            return None;
        }
        // Under a crawler's layout the query is part of the file's name.
        let query = UriRef::parse(resolved)
            .query
            .filter(|_| self.layout == Layout::Plain);
        let mut out = String::new();
        // The page itself, with a fragment: the fragment alone.
        if !(to == from && query.is_none() && fragment.is_some()) {
            let from: Vec<&str> = from.split('/').collect();
            let to: Vec<&str> = to.split('/').collect();
            relative_path(
                from.get(..from.len().saturating_sub(1)).unwrap_or(&[]),
                &to,
                &mut out,
            );
        }
        if let Some(q) = query {
            out.push('?');
            out.push_str(q);
        }
        if let Some(f) = fragment {
            out.push('#');
            out.push_str(&f);
        }
        Some(out)
    }
}

/// The shortest relative path from a page in directory `from_dirs` to the file `to` (both as
/// path segments from one root), each segment percent-encoded: `../b/x%20y.html`.
pub(crate) fn relative_path(from_dirs: &[&str], to: &[&str], out: &mut String) {
    let common = from_dirs
        .iter()
        .zip(to)
        .take_while(|(a, b)| a == b)
        .count()
        .min(to.len().saturating_sub(1));
    for _ in common..from_dirs.len() {
        out.push_str("../");
    }
    for (n, segment) in to.iter().skip(common).enumerate() {
        if n > 0 {
            out.push('/');
        }
        // `a:b.html` first in a relative reference would read as a scheme.
        if n == 0 && out.is_empty() && segment.contains(':') {
            out.push_str("./");
        }
        percent_encode_segment(segment, out);
    }
}

impl crate::rewrite::Relink for Site {
    fn relink(&self, document: &str, resolved: &str) -> Option<String> {
        self.relative(document, resolved)
    }

    /// Why [`Site::relative`] declined: a URL of the site the tree has no file of is said
    /// apart from other sites' (issue 24: a link left on the live site although it is the
    /// site's own page is what a mirror's user needs to see).
    fn why_absolute(&self, _document: &str, resolved: &str) -> crate::rewrite::KeptAbsolute {
        use crate::rewrite::KeptAbsolute;
        match self.locate(resolved, Written::Absolute) {
            (Target::Internal { path, .. }, slash) if slash || !self.files.contains(&path) => {
                KeptAbsolute::NotSaved
            }
            (Target::Internal { .. }, _) => KeptAbsolute::Declined,
            (Target::OutsideRoot, _) => KeptAbsolute::OutsideRoot,
            (Target::External, _) if crate::layout::of_the_web(resolved) => KeptAbsolute::OtherSite,
            (Target::External, _) => KeptAbsolute::NotWeb,
        }
    }
}

/// One link of a checked page, with its verdict: a line of `check --format jsonl`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CheckRecord {
    /// The page (or stylesheet) the link is in, relative to the root.
    pub file: String,
    /// The link, as `links` reports it.
    #[serde(flatten)]
    pub link: crate::LinkRecord,
    /// The verdict.
    pub verdict: Verdict,
    /// For internal links: the file it names.
    pub target: Option<String>,
}

/// What [`Site::check_page`] leaves unchecked, or checks under another URL (`check --exclude`,
/// `--remap`).
pub trait CheckRules: Sync {
    /// Whether the link with this URL (resolved, else as written) is left unchecked.
    fn excludes(&self, _url: &str) -> bool {
        false
    }

    /// The URL to check a resolved link as (`--remap`); `None` for itself.
    fn remap(&self, _resolved: &str) -> Option<String> {
        None
    }
}

/// Every link checked, none remapped.
#[derive(Debug, Clone, Copy, Default)]
pub struct CheckAll;

impl CheckRules for CheckAll {}

impl Site {
    /// The input of the page at `path` (below the root) with these bytes: retrieved from its
    /// URL in the site.
    pub fn page_input<'a>(&self, path: &'a str, bytes: &'a [u8]) -> crate::pipeline::HtmlInput<'a> {
        crate::pipeline::HtmlInput {
            name: path,
            bytes,
            layers: crate::BaseLayers {
                retrieval_uri: Some(self.file_url(path)),
                ..crate::BaseLayers::default()
            },
            ..crate::pipeline::HtmlInput::default()
        }
    }

    /// The fragment targets of the page at `path` (every `id`, every `<a name>`), for
    /// [`Site::add_ids`]: the first pass of a check.
    ///
    /// # Errors
    /// As [`crate::pipeline::links`].
    pub fn page_ids(
        &self,
        path: &str,
        bytes: &[u8],
        options: &crate::pipeline::Options,
    ) -> Result<Vec<String>, crate::Error> {
        crate::pipeline::fragment_ids(&self.page_input(path, bytes), options)
    }

    /// Every link of the page at `path`, with its verdict: the second pass of a check, once
    /// every file and every page's ids are known. The `<base href>` itself is not a link to
    /// check (links resolve from it).
    ///
    /// ```
    /// use linkbase::site::{CheckAll, Site, Verdict};
    /// let mut site = Site::new("https://example.com/docs/").unwrap();
    /// site.add_file("index.html");
    /// site.add_file("a.html");
    /// site.add_ids("a.html", ["intro"]);
    /// let page = b"<a href=a.html#intro>1</a> <a href=b.html>2</a> <a href=a.html#x>3</a>";
    /// let verdicts: Vec<Verdict> = site
    ///     .check_page("index.html", page, &Default::default(), &CheckAll)
    ///     .unwrap()
    ///     .iter()
    ///     .map(|r| r.verdict)
    ///     .collect();
    /// assert_eq!(verdicts, [Verdict::Ok, Verdict::Missing, Verdict::MissingFragment]);
    /// ```
    ///
    /// # Errors
    /// As [`crate::pipeline::links`].
    pub fn check_page(
        &self,
        path: &str,
        bytes: &[u8],
        options: &crate::pipeline::Options,
        rules: &dyn CheckRules,
    ) -> Result<Vec<CheckRecord>, crate::Error> {
        let report = crate::pipeline::links(&self.page_input(path, bytes), options)?;
        Ok(report
            .links
            .into_iter()
            .filter(|l| l.element != "base")
            .map(|link| self.check_record(path, link, rules))
            .collect())
    }

    /// Every `url()` and `@import` reference of the stylesheet at `path` (below the root) with
    /// these bytes, with its verdict, as a page's links are checked ([`Site::check_page`]): each
    /// resolved against the file's URL and located by line and column. The element of a record
    /// is `url` or `@import`, its attribute none.
    ///
    /// ```
    /// use linkbase::site::{CheckAll, Site, Verdict};
    /// let mut site = Site::new("https://example.com/").unwrap();
    /// site.add_file("css/main.css");
    /// site.add_file("img/bg.png");
    /// let css = b"@import url(\"/css/extra.css\");\nbody { background: url(../img/bg.png) }";
    /// let records = site.check_stylesheet("css/main.css", css, &Default::default(), &CheckAll);
    /// let got: Vec<_> = records.iter().map(|r| (r.link.element.as_str(), r.verdict, r.link.line, r.link.column)).collect();
    /// assert_eq!(got, [("@import", Verdict::Missing, Some(1), Some(14)), ("url", Verdict::Ok, Some(2), Some(24))]);
    /// ```
    pub fn check_stylesheet(
        &self,
        path: &str,
        bytes: &[u8],
        options: &crate::pipeline::Options,
        rules: &dyn CheckRules,
    ) -> Vec<CheckRecord> {
        stylesheet::links(bytes, &self.file_url(path), options)
            .into_iter()
            .map(|link| self.check_record(path, link, rules))
            .collect()
    }

    /// One link of the file at `path` with its verdict: left unchecked at the caller's
    /// request, or checked (remapped first).
    fn check_record(
        &self,
        path: &str,
        link: crate::LinkRecord,
        rules: &dyn CheckRules,
    ) -> CheckRecord {
        let url = link.resolved.as_deref().unwrap_or(&link.original);
        if rules.excludes(url) {
            return CheckRecord {
                file: path.to_owned(),
                link,
                verdict: Verdict::Excluded,
                target: None,
            };
        }
        let remapped = link.resolved.as_deref().map(|r| rules.remap(r));
        let checked = match &remapped {
            Some(Some(r)) => Some(r.as_str()),
            _ => link.resolved.as_deref(),
        };
        let (verdict, target) = self.check_reference(checked, &link.original);
        let target = match target {
            Target::Internal { path, .. } => Some(path),
            _ => None,
        };
        CheckRecord {
            file: path.to_owned(),
            link,
            verdict,
            target,
        }
    }
}

/// How a reference was written (RFC 2396 §3, §5): what a web root does with it depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Written {
    /// With a scheme or an authority: names its place itself.
    Absolute,
    /// An absolute path (`/docs/x.html`; `\docs` reads the same in a browser).
    PathAbsolute,
    /// A relative path, a query or a fragment.
    Relative,
}

impl Written {
    fn of(original: &str) -> Self {
        let reference = original.trim_matches(crate::base::is_ascii_whitespace);
        let r = UriRef::parse(reference);
        if r.scheme.is_some() || r.authority.is_some() || reference.starts_with("\\\\") {
            Written::Absolute
        } else if reference.starts_with(['/', '\\']) {
            Written::PathAbsolute
        } else {
            Written::Relative
        }
    }
}

/// A value for a message: at most 60 characters of it (names may come from a tree's settings).
fn excerpt(value: &str) -> String {
    match value.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", value.get(..at).unwrap_or(value)),
        None => value.to_owned(),
    }
}

/// A URL as a crawler's index is looked up by ([`Site::add_saved`]): without its fragment, the
/// scheme and authority as [`normal_authority`] makes them, and the hex digits of each `%XX`
/// upper-case (RFC 3986 §6.2.2.1: `%d1` and `%D1` are one URL; HTTrack's `new.txt` writes them
/// lower-case, a page's resolved links upper-case).
fn saved_key(url: &str) -> String {
    let r = UriRef::parse(url);
    let mut key = String::with_capacity(url.len());
    if let Some(scheme) = r.scheme {
        key.push_str(&scheme.to_ascii_lowercase());
        key.push(':');
    }
    if let Some(authority) = r.authority {
        key.push_str("//");
        key.push_str(&normal_authority(authority));
    }
    let mut rest = r.path.to_owned();
    if let Some(q) = r.query {
        rest.push('?');
        rest.push_str(q);
    }
    let mut bytes = rest.into_bytes();
    let mut i = 0;
    while i + 2 < bytes.len() {
        if bytes.get(i) == Some(&b'%')
            && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
        {
            for b in bytes.get_mut(i + 1..i + 3).into_iter().flatten() {
                b.make_ascii_uppercase();
            }
            i += 3;
        } else {
            i += 1;
        }
    }
    key.push_str(&String::from_utf8_lossy(&bytes));
    key
}

/// An http(s) authority as one key: no user information, the host lower-cased, no default port.
fn normal_authority(authority: &str) -> String {
    let host = authority
        .rsplit('@')
        .next()
        .unwrap_or(authority)
        .to_ascii_lowercase();
    for port in [":80", ":443"] {
        if let Some(h) = host.strip_suffix(port) {
            return h.to_owned();
        }
    }
    host
}

/// Whether two authorities name the same server: host case-insensitive, and a scheme's default
/// port the same as no port (RFC 2616 §3.2.3, RFC 3986 §6.2.3).
fn same_authority(scheme: &str, a: &str, b: &str) -> bool {
    let default_port = match scheme.to_ascii_lowercase().as_str() {
        "http" | "ws" => ":80",
        "https" | "wss" => ":443",
        "ftp" => ":21",
        _ => "",
    };
    let strip = |s: &str| {
        let s = s.strip_suffix(':').unwrap_or(s);
        if default_port.is_empty() {
            s.to_ascii_lowercase()
        } else {
            s.strip_suffix(default_port)
                .unwrap_or(s)
                .to_ascii_lowercase()
        }
    };
    strip(a) == strip(b)
}

/// The fragment targets of one page (every `id`, every `<a name>`), as a check matches a
/// link's fragment against them: for the pages of a tree, and for a remote page fetched by
/// `check --online`.
#[derive(Debug, Clone, Default)]
pub struct FragmentIds(HashSet<u64>);

impl FragmentIds {
    /// The targets of a page, as [`crate::pipeline::fragment_ids`] lists them.
    pub fn new<'a>(ids: impl IntoIterator<Item = &'a str>) -> FragmentIds {
        FragmentIds(ids.into_iter().map(hash_id).collect())
    }

    /// Whether `fragment` (without `#`) names a place in the page. HTML LS "find a potential
    /// indicated element": the id as written, then percent-decoded; `top` and the empty
    /// fragment name the top of any document.
    ///
    /// ```
    /// use linkbase::site::FragmentIds;
    /// let ids = FragmentIds::new(["intro", "größe"]);
    /// assert!(ids.names("intro") && ids.names("gr%C3%B6%C3%9Fe") && ids.names("TOP") && ids.names(""));
    /// assert!(!ids.names("Intro"));
    /// ```
    pub fn names(&self, fragment: &str) -> bool {
        fragment.is_empty()
            || fragment.eq_ignore_ascii_case("top")
            || self.0.contains(&hash_id(fragment))
            || self
                .0
                .contains(&hash_id(&crate::uri::percent_decode(fragment)))
    }
}

/// Why the fragment targets of a page read as it arrives were not found.
#[derive(Debug)]
#[non_exhaustive]
pub enum PageIdsError {
    /// The page is longer than the bound it was read with.
    TooLarge(u64),
    /// Its encoding cannot be read, or reading failed.
    Read(String),
    /// Only a parse of the whole document could say (the streaming walk hands such a document
    /// to the DOM engine, which holds it all): the reason.
    NeedsTree(&'static str),
}

impl std::fmt::Display for PageIdsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PageIdsError::TooLarge(limit) => {
                write!(f, "the page is larger than {} MiB", limit >> 20)
            }
            PageIdsError::Read(e) => write!(f, "the page could not be read: {e}"),
            PageIdsError::NeedsTree(why) => {
                write!(f, "the page needs a full parse to find its ids ({why})")
            }
        }
    }
}

impl std::error::Error for PageIdsError {}

/// The fragment targets of a page read from `reader` as it arrives, as [`Site::page_ids`] finds
/// a local page's: its encoding sniffed from the transport `charset` and its first bytes (HTML
/// LS "encoding sniffing": a byte order mark, the `<meta>` prescan of the first 1,024 bytes),
/// then every `id` and `<a name>` kept as the streaming walk meets it. Memory holds the targets
/// (hashed in the result) and what the walk has not settled, never the page: at most `limit`
/// bytes are read, and a longer page is [`PageIdsError::TooLarge`]. A document the streaming
/// walk cannot settle is [`PageIdsError::NeedsTree`] rather than parsed whole.
///
/// # Errors
/// See [`PageIdsError`].
pub fn read_page_ids(
    reader: &mut dyn std::io::Read,
    charset: Option<&str>,
    limit: u64,
) -> Result<FragmentIds, PageIdsError> {
    use std::io::Read as _;
    let read_err = |e: std::io::Error| PageIdsError::Read(e.to_string());
    let mut limited = reader.take(limit + 1);
    let mut prefix = Vec::with_capacity(1024);
    (&mut limited)
        .take(1024)
        .read_to_end(&mut prefix)
        .map_err(read_err)?;
    let sniffed = crate::decode::sniff_only_with_default(&prefix, charset, None)
        .map_err(|e| PageIdsError::Read(e.to_string()))?;
    if sniffed.encoding == encoding_rs::REPLACEMENT {
        return Err(PageIdsError::Read(format!(
            "its encoding ({}) cannot be read",
            charset.unwrap_or("replacement")
        )));
    }
    let mut counted = Counted {
        inner: std::io::Cursor::new(prefix).chain(limited),
        read: 0,
    };
    let ids = crate::engine::stream::fragment_ids_read(
        &mut counted,
        sniffed.encoding,
        sniffed.source.is_tentative(),
    );
    if counted.read > limit {
        return Err(PageIdsError::TooLarge(limit));
    }
    match ids {
        Ok(ids) => Ok(FragmentIds::new(ids.iter().map(String::as_str))),
        Err(crate::engine::stream::StreamError::Io(e)) => Err(read_err(e)),
        Err(e) => Err(PageIdsError::NeedsTree(e.fallback().describe())),
    }
}

/// A reader that counts what it gives.
struct Counted<R> {
    inner: R,
    read: u64,
}

impl<R: std::io::Read> std::io::Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        Ok(n)
    }
}

fn hash_id(id: &str) -> u64 {
    let mut h = DefaultHasher::new();
    id.hash(&mut h);
    h.finish()
}

/// RFC 2396 §2.4.3: escape what may not appear in a path segment.
fn percent_encode_segment(segment: &str, out: &mut String) {
    for b in segment.bytes() {
        let keep = b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'-' | b'_'
                    | b'.'
                    | b'!'
                    | b'~'
                    | b'*'
                    | b'\''
                    | b'('
                    | b')'
                    | b':'
                    | b'@'
                    | b'&'
                    | b'='
                    | b'+'
                    | b'$'
                    | b','
                    | b';'
            );
        if keep {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
}

mod stylesheet;

#[cfg(test)]
mod tests;
