//! What the URL rules take and give: the options, the relinker an offline mirror hands in,
//! and per URL occurrence a [`Link`] record and the [`Edit`] that changes it.

use crate::base::BaseSource;
use crate::error::Diagnostic;
use crate::tree::{AttrNs, NodeId};
use crate::uri::ResolveOptions;

/// What the rewriter may do besides resolving.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RewriteOptions {
    /// Resolution profile and policies.
    pub resolve: ResolveOptions,
    /// Remove the `<base>` element instead of making its `href` absolute.
    pub drop_base: bool,
    /// Write some resolved URLs in another form (an offline mirror's relative paths).
    pub relink: Option<Relinker>,
}

/// Chooses the text written for a resolved URL, instead of the URL itself: an offline mirror
/// writes a link to a file of its own tree as a relative path ([`crate::site::Site`] does).
pub trait Relink: Send + Sync {
    /// The text for a link of the document at `document` (its URL; empty when it has none)
    /// whose resolution is `resolved`; `None` to write `resolved`.
    fn relink(&self, document: &str, resolved: &str) -> Option<String>;

    /// Why a link [`Relink::relink`] declined is written absolute, for a run's summary (an
    /// offline mirror says what it left on the web and why).
    fn why_absolute(&self, _document: &str, _resolved: &str) -> KeptAbsolute {
        KeptAbsolute::Declined
    }
}

/// What a [`Relink`] made of a resolved link: [`Link::relinked`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relinked {
    /// Written in the relinker's form (a relative path to a file of the mirror).
    Relative,
    /// Written absolute, for this reason.
    Absolute(KeptAbsolute),
}

/// Why a link of an offline mirror stays absolute (`rewrite DIR --relative`'s summary).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KeptAbsolute {
    /// Its URL is in the site, but the mirror has no file of it (not saved by the crawl, or
    /// saved under a name the layout read does not give it).
    NotSaved,
    /// Under the site URL, but climbing out of its root (`/site/../x`).
    OutsideRoot,
    /// An `http(s)` URL outside the site (another host, or a path not under the site URL).
    OtherSite,
    /// A scheme that names no file of a mirror (`mailto:`, `data:`, `javascript:`, `ftp:`):
    /// [`crate::layout::of_the_web`].
    NotWeb,
    /// The relinker gave no other reason (the page itself is no file of the mirror, say).
    Declined,
}

impl KeptAbsolute {
    /// Every reason, in the order a summary lists them.
    pub const ALL: [KeptAbsolute; 5] = [
        KeptAbsolute::NotSaved,
        KeptAbsolute::OutsideRoot,
        KeptAbsolute::OtherSite,
        KeptAbsolute::NotWeb,
        KeptAbsolute::Declined,
    ];

    /// The reason in a few words, as summaries say it.
    pub fn name(self) -> &'static str {
        match self {
            KeptAbsolute::NotSaved => "in the site without a file in the mirror",
            KeptAbsolute::OutsideRoot => "outside the site's root",
            KeptAbsolute::OtherSite => "outside the site",
            KeptAbsolute::NotWeb => "not http(s)",
            KeptAbsolute::Declined => "on a page that is no file of the mirror",
        }
    }
}

/// A shared [`Relink`], for [`RewriteOptions::relink`].
#[derive(Clone)]
pub struct Relinker(pub std::sync::Arc<dyn Relink>);

impl std::fmt::Debug for Relinker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Relinker(..)")
    }
}

impl PartialEq for Relinker {
    fn eq(&self, other: &Relinker) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Relinker {}

/// What a count of links reads of one (`crate::report::LinkTally`), where the link itself is
/// not kept: counting then allocates nothing per link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LinkFacts {
    pub same_document: bool,
    pub resolved: bool,
    pub relinked: Option<Relinked>,
    pub profile_sensitive: bool,
}

/// The form a URL occurrence takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinkKind {
    /// An attribute whose value is one URL.
    Url,
    /// One candidate of a `srcset` / `imagesrcset`.
    Srcset,
    /// One item of a space- or comma-separated list (`ping`, `archive`, `profile`).
    List,
    /// The URL of a `<meta http-equiv=refresh>`.
    Refresh,
    /// A `url(…)` in CSS.
    Css,
    /// An `@import` in CSS.
    CssImport,
    /// An attribute inside a downlevel-hidden conditional comment (`<!--[if mso]> … <![endif]-->`),
    /// which Outlook renders and browsers ignore.
    ConditionalComment,
}

/// One URL occurrence: what it was, what it resolves to, and what was done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// The element it is in.
    pub node: NodeId,
    /// The element's local name.
    pub element: String,
    /// The attribute (`xlink:href` for XLink); `None` for the text of a `<style>` element.
    pub attribute: Option<String>,
    /// The form of the occurrence.
    pub kind: LinkKind,
    /// The URL as written (for lists, this item).
    pub original: String,
    /// Its absolute form; `None` when it could not be resolved (or was empty).
    pub resolved: Option<String>,
    /// It names the current document (RFC 2396 §4.2).
    pub same_document: bool,
    /// The document was changed at this URL.
    pub rewritten: bool,
    /// Why it was left as it was, when that is worth saying.
    pub diagnostic: Option<Diagnostic>,
    /// 0 for the document itself; n inside n levels of `iframe srcdoc`.
    pub srcdoc_depth: usize,
    /// The base it was resolved against (an `iframe srcdoc` document has its own).
    pub base: Option<String>,
    /// Where that base came from.
    pub base_source: BaseSource,
    /// Where it is in the input: the byte offset of the attribute value's first byte (of the
    /// element's text for `<style>`), set by the engine that found it; `None` where no engine
    /// located it. A value inside other markup (an `iframe srcdoc` document, `<noscript>`
    /// markup) is where that attribute or text is; see [`crate::Position`].
    pub offset: Option<usize>,
    /// With [`RewriteOptions::relink`], what the relinker made of its resolution.
    pub relinked: Option<Relinked>,
}

impl Link {
    /// The attribute of its element whose value holds it, for its position: its own, or
    /// `srcdoc` for a link of an `iframe srcdoc` document (deeper than `depth`, the depth of
    /// the document the element is in); `None` for element text.
    pub(crate) fn held_by(&self, depth: usize) -> Option<&str> {
        if self.srcdoc_depth > depth {
            Some("srcdoc")
        } else {
            self.attribute.as_deref()
        }
    }
}

#[doc(hidden)] // The DOM engine's plan: for the oracle tests (see lib.rs).
/// Where an edit applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditTarget {
    /// An attribute's value.
    Attribute {
        /// Its namespace.
        ns: AttrNs,
        /// Its local name.
        name: String,
    },
    /// The text of the element (`<style>`).
    Text,
    /// The element itself goes (the `<base>`, when asked to drop it).
    Remove,
}

#[doc(hidden)] // The DOM engine's plan: for the oracle tests (see lib.rs).
/// One change to the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// The element.
    pub node: NodeId,
    /// What part of it.
    pub target: EditTarget,
    /// The value before.
    pub old: String,
    /// The value after.
    pub new: String,
    /// Why (the rule applied).
    pub reason: &'static str,
}
