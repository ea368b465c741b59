//! The relative reference from one page of the tree to another (`rewrite DIR --relative`).

use super::{relative_path, Site, Target, Written};
use crate::layout::Layout;
use crate::uri::UriRef;

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

impl crate::rewrite::Relink for Site {
    fn relink(&self, document: &str, resolved: &str) -> Option<String> {
        self.relative(document, resolved)
    }

    /// Why [`Site::relative`] declined: a URL of the site the tree has no file of is said
    /// apart from other sites': a link left on the live site although it is the site's own page
    /// is what a mirror's user needs to see.
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
