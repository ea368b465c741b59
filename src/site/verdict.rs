//! What a check says of one link: where it points ([`Target`]), its [`Verdict`], the record a
//! checked page's link becomes, and the rules a caller checks under.

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
    /// directory, [`super::Site::add_mirrored_host`]): from disk it leaves the mirror for the live
    /// site, although the mirror has the file.
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

/// What [`super::Site::check_page`] leaves unchecked, or checks under another URL (`check --exclude`,
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
