//! Where the RFC profiles and the URL Standard part ways: the other side's result of a
//! reference, when it is another URL (the `profile-sensitive` diagnostic, docs/base-rules.md).
//!
//! Resolving every link twice would double the cost of a run, so the other side is asked only
//! about references (and bases) whose syntax reaches a step where the two algorithms differ;
//! everything else merges, removes dot segments and serializes alike. The steps, each with the
//! rule of the URL Standard ("basic URL parser") or the RFC that sets it apart:
//!
//! - leading and trailing C0 controls and spaces are dropped, tabs and newlines anywhere (the
//!   parser's first steps; RFC 2396 keeps them, and they are percent-encoded);
//! - `\` is a path separator of special URLs ("path state", "relative slash state");
//! - a reference that is only a query keeps the base's last segment (RFC 2396 §5.2 step 6
//!   drops it: `?y` against `…/c/d` is `…/c/?y`); one that starts with `;` keeps the base path
//!   under RFC 1808 §4 step 5;
//! - `.` and `..` segments are removed from every path, written `%2e` too ("single-dot" and
//!   "double-dot URL path segment"), where RFC 2396 §5.2 removes them only from a merged relative
//!   path (step 5 leaves an absolute path as it is) and never decodes `%2e`;
//! - a special scheme (`http:`, `https:`, `ws:`, `wss:`, `ftp:`, `file:`) without `//` and a host
//!   is no absolute URI: with the base's scheme it is relative (`http:g`, "special relative or
//!   authority state"), with another the host follows whatever slashes there are (`https:g` is
//!   `https://g/`, "special authority ignore slashes state"), as after `///` in a reference
//!   without a scheme; RFC 2396 §5.2 step 3 reads every scheme as absolute;
//! - RFC 1808 §2.1 reads a scheme that starts with a digit or `.` (`.x:y`), and `;params`
//!   apart from the segment (`.;p` is a dot segment), where the URL Standard reads neither;
//! - `|` is a Windows drive letter's other spelling under `file:` ("file state"), a drive letter
//!   after `//` is no host ("file host state"), and a `file:` base whose path starts with a
//!   drive letter keeps it ("file slash state").
//!
//! [`Contrast::other`] then compares the two results as URLs: as the URL Standard serializes them
//! (host case, default port, escapes are not the difference asked about), except that a dot
//! segment one side kept (`/../x`, `/%2e%2e/x`), a `\`, or a host one side has and the other
//! not (`https:g` or `https:///g`, and `https://g/`) is a difference by itself, since the URL Standard's
//! serialization would remove it.

use encoding_rs::Encoding;

use super::options::{Profile, ResolveOptions};
use super::parse::UriRef;
use super::resolve::Resolver;
use super::whatwg::is_special;

/// The other side of the RFC / URL Standard divide for one base.
#[derive(Debug, Clone)]
pub(crate) struct Contrast {
    resolver: Resolver,
    /// The base itself reaches a step where the two differ: every reference is compared.
    base_differs: bool,
    encoding: &'static Encoding,
}

impl Contrast {
    /// The other side from `profile` (the URL Standard for an RFC profile; RFC 2396 for it) for
    /// `base`, queries encoded in `encoding`; `None` when that side cannot use the base.
    pub(crate) fn new(base: &str, profile: Profile, encoding: &'static Encoding) -> Option<Self> {
        let other = match profile {
            Profile::Whatwg => Profile::Rfc2396,
            _ => Profile::Whatwg,
        };
        let resolver = Resolver::new(base, ResolveOptions::for_profile(other))
            .ok()?
            .with_query_encoding(encoding);
        let b = UriRef::parse(base);
        // A base with an authority and an empty path (docs/base-rules.md: its own rule here, a
        // `/` there), or a `file:` base that starts with a drive letter.
        let base_differs = may_differ(base)
            || (b.authority.is_some() && b.path.is_empty())
            || (b.scheme.is_some_and(|s| s.eq_ignore_ascii_case("file"))
                && drive_letter_first(b.path));
        Some(Contrast {
            resolver,
            base_differs,
            encoding,
        })
    }

    /// The profile of the other side.
    pub(crate) fn profile(&self) -> Profile {
        self.resolver.options().profile
    }

    /// The other side's result of `reference` when it is another URL than `resolved` (this
    /// side's result against the same base).
    pub(crate) fn other(&self, reference: &str, resolved: &str) -> Option<String> {
        if !(self.base_differs || may_differ(reference)) {
            return None;
        }
        let other = self.resolver.resolve(reference).ok()?.uri;
        differ(&other, resolved, self.encoding).then_some(other)
    }
}

/// Whether `reference`'s syntax reaches a step where the RFC profiles and the URL Standard
/// resolve differently (the list in the module's documentation). True for every reference
/// where they can; a few where they then agree.
pub(crate) fn may_differ(reference: &str) -> bool {
    let cleaned = reference.starts_with(|c: char| c <= ' ')
        || reference.ends_with(|c: char| c <= ' ')
        || reference.contains(['\t', '\n', '\r']);
    if cleaned || reference.contains(['\\', '|']) || reference.starts_with(['?', ';']) {
        return true;
    }
    let r = UriRef::parse(reference);
    // RFC 1808 §2.1 keeps `;params` apart from a segment: `.;p` is a dot segment there.
    let before_params = |s: &str| s.split(';').next().is_some_and(is_dot_segment);
    if r.path.split('/').any(before_params) {
        return true;
    }
    // A scheme only RFC 1808's grammar reads (`1a:b`, `.x:y`: a digit or `.` first).
    let first = reference.split(['/', '?', '#']).next().unwrap_or("");
    if r.scheme.is_none() && first.contains(':') {
        return true;
    }
    match (r.scheme, r.authority) {
        // `///g`, `http:///g`: the host is after the slashes; `//C:/`: a drive letter is no
        // host under `file:`.
        (_, Some(a)) if a.is_empty() || drive_letter_first(a) => true,
        (Some(scheme), None) => is_special(scheme),
        _ => false,
    }
}

/// Whether two results of one reference are different URLs (see the module's documentation).
pub(crate) fn differ(a: &str, b: &str, encoding: &'static Encoding) -> bool {
    let kept_dots = |u: &str| UriRef::parse(u).path.split('/').any(is_dot_segment);
    // `file://localhost/` is `file:///` (RFC 8089 §2; the URL Standard's "file host state").
    let host = |u: &str| {
        let r = UriRef::parse(u);
        let file = r.scheme.is_some_and(|s| s.eq_ignore_ascii_case("file"));
        r.authority
            .and_then(|a| a.rsplit('@').next())
            .is_some_and(|h| {
                !(h.is_empty()
                    || h.starts_with(':')
                    || (file && h.eq_ignore_ascii_case("localhost")))
            })
    };
    // As the URL Standard serializes them: read after the characters a URI cannot hold are
    // encoded as it encodes them (a query in the document's encoding), or as they are (a
    // non-special URL's host is percent-encoded, not IDNA's).
    let norm = |u: &str| {
        let valid = super::valid_uri(u, encoding).into_owned();
        url::Url::parse(&valid).map_or(valid, |p| p.to_string())
    };
    let plain = |u: &str| url::Url::parse(u).map(|p| p.to_string()).ok();
    let same = norm(a) == norm(b) || plain(a).is_some_and(|p| plain(b) == Some(p));
    kept_dots(a) != kept_dots(b)
        || a.contains('\\') != b.contains('\\')
        || host(a) != host(b)
        || !same
}

/// A `.` or `..` segment, as written or percent-encoded (`%2e`, `.%2E`): the URL Standard's
/// "single-dot" and "double-dot URL path segment".
fn is_dot_segment(segment: &str) -> bool {
    // By length first: this runs over every segment of the references asked about.
    let is = |s: &str| segment.eq_ignore_ascii_case(s);
    match segment.len() {
        1 => segment == ".",
        2 => segment == "..",
        3 => is("%2e"),
        4 => is(".%2e") || is("%2e."),
        6 => is("%2e%2e"),
        _ => false,
    }
}

/// Whether a path's first segment (or an authority) is a Windows drive letter (`/C:`, `/c|`,
/// `C:`).
fn drive_letter_first(path: &str) -> bool {
    let first = path.trim_start_matches('/').split('/').next().unwrap_or("");
    let b = first.as_bytes();
    b.len() == 2
        && b.first().is_some_and(u8::is_ascii_alphabetic)
        && matches!(b.get(1), Some(b':' | b'|'))
}

#[cfg(test)]
mod tests;
