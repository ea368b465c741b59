//! A site's verdicts on links: on one resolved URL, and on every link of a page or a stylesheet.

use super::{stylesheet, CheckRecord, CheckRules, IndexFile, Site, Target, Verdict, Written};
use crate::uri::UriRef;

impl Site {
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
