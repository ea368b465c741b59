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
    /// How many directories the base's path has, when it is a special URL's (not `file:`)
    /// absolute path: what a reference's leading `..` segments may climb with both sides
    /// agreeing ([`Contrast::dots_within_base`]).
    directories: Option<usize>,
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
            directories: b
                .scheme
                .filter(|s| is_special(s) && !s.eq_ignore_ascii_case("file"))
                .and(b.path.starts_with('/').then(|| b.path.matches('/').count() - 1)),
            encoding,
        })
    }

    /// The profile of the other side.
    pub(crate) fn profile(&self) -> Profile {
        self.resolver.options().profile
    }

    /// Whether the two sides surely agree on `reference`, a relative path whose dot segments all
    /// lead it (`../../x`, `./x`) with no more `..` than the base has directories: RFC 2396 §5.2
    /// step 6 and the URL Standard's path state then remove the same segments (they part only
    /// where `..` climbs above the root, or stands after a plain segment, or the base is
    /// `file:`), so the other resolution, the costly part, need not be made. Only references of
    /// plain characters qualify: whatever else [`may_differ`] looks at is left to it.
    fn dots_within_base(&self, reference: &str) -> bool {
        let Some(directories) = self.directories.filter(|_| !self.base_differs) else {
            return false;
        };
        let path = reference.split('#').next().unwrap_or_default();
        if path.starts_with('/')
            || !path
                .bytes()
                .all(|c| c.is_ascii_graphic() && !matches!(c, b'\\' | b'|' | b';' | b'%' | b'?' | b':'))
        {
            return false;
        }
        let mut climbs = 0;
        let mut segments = path.split('/').peekable();
        while let Some(segment) = segments.next() {
            match segment {
                // A dot segment that ends the path is not taken: both sides keep a trailing
                // slash, but that is not worth proving here.
                "." | ".." if segments.peek().is_none() => return false,
                ".." => climbs += 1,
                "." => {}
                _ => return segments.all(|s| s != "." && s != "..") && climbs <= directories,
            }
        }
        false
    }

    /// The other side's result of `reference` when it is another URL than `resolved` (this
    /// side's result against the same base).
    pub(crate) fn other(&self, reference: &str, resolved: &str) -> Option<String> {
        if !(self.base_differs || may_differ(reference)) || self.dots_within_base(reference) {
            return None;
        }
        let other = self.resolver.resolve(reference).ok()?.uri;
        differ(&other, resolved, self.encoding).then_some(other)
    }
}

/// Whether `reference`'s syntax reaches a step where the RFC profiles and the URL Standard
/// resolve differently (the list in the module's documentation). True for every reference
/// where they can; a few where they then agree. One pass over the bytes: it runs for every link.
pub(crate) fn may_differ(reference: &str) -> bool {
    let b = reference.as_bytes();
    let (Some(&first), Some(&last)) = (b.first(), b.last()) else {
        return false;
    };
    if first <= b' ' || last <= b' ' || matches!(first, b'?' | b';') {
        return true;
    }
    // The path's segments (RFC 1808 keeps `;params` apart: `.;p` is a dot segment there) up to
    // the query or fragment, where neither algorithm reads `\\`, `|` or dots; the first `:`
    // before any delimiter ends a scheme.
    let dot = |segment: &[u8]| {
        matches!(segment.first(), Some(b'.' | b'%'))
            && is_dot_bytes(segment.split(|&c| c == b';').next().unwrap_or_default())
    };
    let mut start = 0;
    let mut scheme_end = None;
    let mut end = b.len();
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'\t' | b'\n' | b'\r' | b'\\' | b'|' => return true,
            b':' if start == 0 && scheme_end.is_none() => {
                scheme_end = Some(i);
                start = i + 1;
            }
            b'/' => {
                if dot(b.get(start..i).unwrap_or_default()) {
                    return true;
                }
                start = i + 1;
            }
            b'?' | b'#' => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    if dot(b.get(start..end).unwrap_or_default()) {
        return true;
    }
    let rest = match scheme_end {
        Some(end) => {
            let scheme = reference.get(..end).unwrap_or_default();
            // A scheme only RFC 1808's grammar reads (`1a:b`, `.x:y`: a digit or `.` first).
            let rfc2396 = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .bytes()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'));
            if !rfc2396 {
                return true;
            }
            let after = b.get(end + 1..).unwrap_or_default();
            if !is_special(scheme) {
                return false;
            }
            // A special scheme without `//`: no absolute URI for the URL Standard.
            if !after.starts_with(b"//") {
                return true;
            }
            if scheme.eq_ignore_ascii_case("file") {
                // `file:///x` has no host on either side; `file://C:/x` a drive letter.
                return authority(after).is_some_and(drive_letter_first);
            }
            after
        }
        None => b,
    };
    // `///g`, `http:///g`: the host is after the slashes; `//C:/`: a drive letter is no host
    // under `file:`.
    authority(rest).is_some_and(|a| a.is_empty() || drive_letter_first(a))
}

/// The authority after `//` at the start of `rest`, when there is one.
fn authority(rest: &[u8]) -> Option<&str> {
    let after = rest.strip_prefix(b"//")?;
    let end = after
        .iter()
        .position(|c| matches!(c, b'/' | b'?' | b'#'))
        .unwrap_or(after.len());
    std::str::from_utf8(after.get(..end)?).ok()
}

/// Whether two results of one reference are different URLs (see the module's documentation).
pub(crate) fn differ(a: &str, b: &str, encoding: &'static Encoding) -> bool {
    // What the URL Standard's serialization would hide: a kept dot segment, a `\\`, whether
    // there is a host (`file://localhost/` is `file:///`: RFC 8089 §2, "file host state").
    let shape = |u: &str| {
        let r = UriRef::parse(u);
        let file = r.scheme.is_some_and(|s| s.eq_ignore_ascii_case("file"));
        let host = r
            .authority
            .and_then(|a| a.rsplit('@').next())
            .is_some_and(|h| {
                !(h.is_empty()
                    || h.starts_with(':')
                    || (file && h.eq_ignore_ascii_case("localhost")))
            });
        (
            r.path.split('/').any(is_dot_segment),
            u.contains('\\'),
            host,
        )
    };
    // As the URL Standard serializes them: read after the characters a URI cannot hold are
    // encoded as it encodes them (a query in the document's encoding), or as they are (a
    // non-special URL's host is percent-encoded, not IDNA's).
    let norm = |u: &str| {
        let valid = super::valid::valid_uri(u, encoding).into_owned();
        url::Url::parse(&valid).map_or(valid, |p| p.to_string())
    };
    let plain = |u: &str| url::Url::parse(u).map(|p| p.to_string()).ok();
    shape(a) != shape(b) || !(norm(a) == norm(b) || plain(a).is_some_and(|p| plain(b) == Some(p)))
}

/// A `.` or `..` segment, as written or percent-encoded (`%2e`, `.%2E`): the URL Standard's
/// "single-dot" and "double-dot URL path segment".
fn is_dot_segment(segment: &str) -> bool {
    is_dot_bytes(segment.as_bytes())
}

/// [`is_dot_segment`] on bytes.
fn is_dot_bytes(segment: &[u8]) -> bool {
    // By length first: this runs over every segment of the references asked about.
    if !matches!(segment.first(), Some(b'.' | b'%')) {
        return false;
    }
    let is = |s: &[u8]| segment.eq_ignore_ascii_case(s);
    match segment.len() {
        1 => segment == b".",
        2 => segment == b"..",
        3 => is(b"%2e"),
        4 => is(b".%2e") || is(b"%2e."),
        6 => is(b"%2e%2e"),
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
