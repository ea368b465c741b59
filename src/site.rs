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

use crate::layout::Layout;
use crate::uri::{Uri, UriRef};

pub use ids::{read_page_ids, FragmentIds, PageIdsError};
pub(crate) use urls::relative_path;
use urls::{excerpt, normal_authority, percent_encode_segment, same_authority, saved_key, Written};
pub use verdict::{CheckAll, CheckRecord, CheckRules, Target, Verdict};

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
}

mod check;
mod ids;
mod relative;
mod stylesheet;
mod urls;
mod verdict;

#[cfg(test)]
mod tests;
