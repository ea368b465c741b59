//! RFC 2396 §5.2, "Resolving Relative References to Absolute Form", step by step; and RFC 3986
//! §5.2, which shares its shape. RFC 1808 lives in `rfc1808.rs`, WHATWG in the `url` crate.
//!
//! Two implementations of the one algorithm:
//!
//! - [`resolve_reference_slow`] follows the RFC's steps on split components, with step 6's
//!   general segment stack ([`merge_paths`]). It handles every case.
//! - [`Resolver::resolve_fast`] takes the same steps by copying slices of the base (split once,
//!   in [`Resolver::new`]) and of the reference, and does step 6 without a segment stack when
//!   no `.` or `..` segment is left to remove but leading `../` and `./`. It hands anything else
//!   back to the first. A property test checks that the two agree wherever the fast one answers.
//!
//! The result is written straight into one `String` sized up front: resolving allocates nothing
//! but that string.

use std::ops::Range;

use super::absolute::Uri;
use super::options::{DotSegments, Profile, ResolveError, ResolveOptions, SameScheme};
use super::parse::{Offsets, UriRef};
use super::path::{
    has_dot_segment, is_known_hierarchical, merge_paths, remove_dot_segments, write_head,
    write_tail, Failure,
};
use super::rfc1808;
use super::whatwg;

/// An absolute URI produced by resolution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The absolute URI.
    pub uri: String,
    /// Whether the reference named the current document (RFC 2396 §4.2: empty, or a fragment
    /// alone). Its absolute form is then the base without its fragment plus the reference's.
    pub same_document: bool,
}

/// A base URI and the options to resolve references against it. Build one per base and reuse it:
/// the base is parsed once.
///
/// ```
/// use linkbase::{Resolver, ResolveOptions};
/// let r = Resolver::new("http://a/b/c/d;p?q", ResolveOptions::default())?;
/// assert_eq!(r.resolve("../g")?.uri, "http://a/b/g");
/// assert_eq!(r.resolve("?y")?.uri, "http://a/b/c/?y");
/// assert_eq!(r.resolve("../../../g")?.uri, "http://a/../g");
/// # Ok::<(), linkbase::ResolveError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Resolver {
    base: Uri,
    /// Where the base's parts lie, for the fast path.
    layout: BaseLayout,
    options: ResolveOptions,
    /// The base as the WHATWG parser reads it; only for the whatwg profile.
    whatwg_base: Option<url::Url>,
    /// whatwg profile: the document's encoding, for the query (URL Standard "encoding override").
    query_encoding: Option<&'static encoding_rs::Encoding>,
}

/// The base split once, in [`Resolver::new`], as the fast path uses it. The components §5.2
/// inherits from the base come in the base's own order, so each inherited run is one slice of
/// the base string (recomposing a parsed string gives it back byte for byte).
#[derive(Debug, Clone)]
struct BaseLayout {
    /// `base[..scheme_end]` is `scheme ":"` (inherited by step 4).
    scheme_end: usize,
    /// `base[..path_start]` is `scheme ":" ["//" authority]` (inherited by steps 5 and 6).
    path_start: usize,
    /// `base[path_start..path_end]` is the path.
    path_end: usize,
    /// `base[..document_end]` is the base without its fragment (step 2).
    document_end: usize,
    /// Whether relative references can be resolved against the base (RFC 2396 §3).
    hierarchical: bool,
    /// `base[dir_end]` is the last `/` of the path: `base[path_start..=dir_end]` is step 6a's
    /// "all but the last segment of the base path". `None` for an empty path (`http://a`).
    dir_end: Option<usize>,
    /// How many segments that directory puts in step 6's buffer before the reference path:
    /// `/b/c/d;p` gives `b` and `c`, 2.
    dir_segments: usize,
    /// Whether none of those segments is `.` or `..`.
    dir_clean: bool,
}

impl BaseLayout {
    fn of(base: &Uri) -> BaseLayout {
        let text = base.as_str();
        let offsets = &base.offsets;
        let path_start = offsets.path.start;
        let path = text.get(offsets.path.clone()).unwrap_or_default();
        let last_slash = path.rfind('/');
        // As `merge_paths` reads it: the segments between the path's first '/' and its last.
        let directory = last_slash.and_then(|i| path.get(1..i));
        let mut dir_segments = 0;
        let mut dir_clean = true;
        for segment in directory.into_iter().flat_map(|d| d.split('/')) {
            dir_segments += 1;
            dir_clean &= !matches!(segment, "." | "..");
        }
        BaseLayout {
            scheme_end: offsets.scheme.as_ref().map_or(0, |s| s.end + 1),
            path_start,
            path_end: offsets.path.end,
            document_end: offsets
                .fragment
                .as_ref()
                .map_or(text.len(), |f| f.start.saturating_sub(1)),
            hierarchical: offsets.authority.is_some() || path.starts_with('/'),
            dir_end: last_slash.map(|i| path_start + i),
            dir_segments,
            dir_clean,
        }
    }
}

impl Resolver {
    /// Parses `base` and checks `options` against the profile.
    ///
    /// # Errors
    /// - [`ResolveError::RelativeBase`] when `base` has no scheme;
    /// - [`ResolveError::Whatwg`] when the whatwg profile's parser refuses `base`;
    /// - [`ResolveError::PolicyNotApplicable`] for a `keep` or `error` dot-segment policy with a
    ///   profile that always removes dot segments.
    pub fn new(base: &str, options: ResolveOptions) -> Result<Resolver, ResolveError> {
        let base = Uri::parse(base)?;
        if !options.profile.has_dot_segment_choice()
            && options
                .dot_segments
                .is_some_and(|p| p != DotSegments::Remove)
        {
            return Err(ResolveError::PolicyNotApplicable(options.profile));
        }
        let whatwg_base = match options.profile {
            Profile::Whatwg => {
                Some(
                    url::Url::parse(base.as_str()).map_err(|e| ResolveError::Whatwg {
                        input: base.as_str().to_owned(),
                        reason: e.to_string(),
                    })?,
                )
            }
            _ => None,
        };
        Ok(Resolver {
            layout: BaseLayout::of(&base),
            base,
            options,
            whatwg_base,
            query_encoding: None,
        })
    }

    /// The whatwg profile encodes a reference's query in the document's encoding, as browsers do
    /// (URL Standard "encoding override"; HTML LS passes the document's encoding, UTF-8 for
    /// UTF-16 documents). The RFC profiles carry characters through as written and ignore this.
    #[must_use]
    pub fn with_query_encoding(mut self, encoding: &'static encoding_rs::Encoding) -> Resolver {
        let encoding = encoding.output_encoding();
        self.query_encoding = (encoding != encoding_rs::UTF_8).then_some(encoding);
        self
    }

    /// The base URI.
    pub fn base(&self) -> &Uri {
        &self.base
    }

    /// The options in force.
    pub fn options(&self) -> ResolveOptions {
        self.options
    }

    /// Resolves `reference` against the base.
    ///
    /// # Errors
    /// [`ResolveError::OpaqueBase`] for a relative reference against a base that is not
    /// hierarchical; [`ResolveError::AboveRoot`] under [`DotSegments::Error`];
    /// [`ResolveError::Whatwg`] when the browser parser refuses the reference.
    pub fn resolve(&self, reference: &str) -> Result<Resolved, ResolveError> {
        let mut uri = String::new();
        let same_document = self.resolve_into(reference, &mut uri)?;
        Ok(Resolved { uri, same_document })
    }

    /// Resolves `reference`, replacing the contents of `out` with the absolute URI; returns
    /// whether the reference named the current document. Reuse `out` to resolve many references
    /// without allocating. On error `out` is left empty.
    ///
    /// # Errors
    /// As [`Resolver::resolve`].
    pub fn resolve_into(&self, reference: &str, out: &mut String) -> Result<bool, ResolveError> {
        out.clear();
        // RFC 2396 §4.2: empty, or a fragment alone. (No scheme, authority, path or query means
        // nothing before the '#'; this is `UriRef::parse(reference).is_same_document()`.)
        let same_document = reference.is_empty() || reference.starts_with('#');
        // Room for the longest result (the base, a '/', the reference), so that no resolution
        // grows `out` a second time.
        let room = self.base.as_str().len() + reference.len() + 1;
        let result = match self.options.profile {
            Profile::Rfc2396 | Profile::Rfc3986 => {
                out.reserve(room);
                match self.resolve_fast(reference, out) {
                    Some(result) => result,
                    None => {
                        out.clear();
                        resolve_reference_slow(
                            &self.base.as_ref(),
                            UriRef::parse(reference),
                            &self.options,
                            out,
                        )
                    }
                }
            }
            Profile::Rfc1808 => {
                out.reserve(room);
                rfc1808::resolve(self.base.as_str(), reference, &self.options, out)
            }
            Profile::Whatwg => self.resolve_whatwg(reference, out),
        };
        match result {
            Ok(()) => Ok(same_document),
            Err(Failure::AboveRoot) => {
                out.clear();
                Err(ResolveError::AboveRoot(reference.to_owned()))
            }
            Err(Failure::Opaque) => {
                out.clear();
                Err(ResolveError::OpaqueBase {
                    base: self.base.as_str().to_owned(),
                    reference: reference.to_owned(),
                })
            }
            Err(Failure::Whatwg(reason)) => {
                out.clear();
                Err(ResolveError::Whatwg {
                    input: reference.to_owned(),
                    reason,
                })
            }
        }
    }

    /// RFC 2396 §5.2 (and RFC 3986 §5.2.2) as [`resolve_reference_slow`] takes it, branch for
    /// branch, but writing slices: the inherited part of the base is one slice of it (see
    /// [`BaseLayout`]), and what the reference contributes from some component on is one slice
    /// of the reference, since step 7 recomposes components in the order they were parsed.
    ///
    /// Appends to `out` and returns `Some` with the result, or returns `None` (with `out` to be
    /// cleared) for what it leaves to the general code: the same-scheme loophole of step 3, and
    /// a merge in which step 6 has a `.` or `..` segment to remove other than leading `../` and
    /// `./` in the reference (see [`Resolver::merge_fast`]).
    fn resolve_fast(&self, reference: &str, out: &mut String) -> Option<Result<(), Failure>> {
        let base = self.base.as_str();
        let layout = &self.layout;
        let rfc3986 = self.options.profile == Profile::Rfc3986;

        // §5.2 step 2: the empty reference or a fragment alone: the base up to its '#', then
        // the reference ("" or "#" fragment).
        if reference.is_empty() || reference.starts_with('#') {
            out.push_str(base.get(..layout.document_end)?);
            out.push_str(reference);
            return Some(Ok(()));
        }

        let r = Offsets::of(reference);
        let path = reference.get(r.path.clone())?;
        // Step 7's "?" query "#" fragment: everything after the path.
        let tail = reference.get(r.path.end..)?;

        // §5.2 step 3: a reference with a scheme is absolute; recomposing it gives it back.
        if let Some(scheme) = r.scheme.clone() {
            if self.options.same_scheme == SameScheme::Compat {
                // The same-scheme loophole (its test as in the general code) is left to it.
                let scheme = reference.get(scheme)?;
                let base_scheme = base.get(..layout.scheme_end.saturating_sub(1))?;
                if base_scheme.eq_ignore_ascii_case(scheme) && is_known_hierarchical(scheme) {
                    return None;
                }
            }
            if rfc3986 {
                // RFC 3986 §5.2.2: T.path = remove_dot_segments(R.path).
                out.push_str(reference.get(..r.path.start)?);
                remove_dot_segments(out, path);
                out.push_str(tail);
            } else {
                out.push_str(reference);
            }
            return Some(Ok(()));
        }

        // The reference is relative from here on; an opaque base has nothing to resolve it
        // against.
        if !layout.hierarchical {
            return Some(Err(Failure::Opaque));
        }

        // §5.2 step 4: a network-path reference keeps everything but the scheme (RFC 3986
        // removes its path's dot segments).
        if r.authority.is_some() {
            out.push_str(base.get(..layout.scheme_end)?);
            if rfc3986 {
                out.push_str(reference.get(..r.path.start)?);
                remove_dot_segments(out, path);
                out.push_str(tail);
            } else {
                out.push_str(reference);
            }
            return Some(Ok(()));
        }

        if path.starts_with('/') {
            // §5.2 step 5: an absolute-path reference replaces the base path (RFC 3986 removes
            // its dot segments).
            out.push_str(base.get(..layout.path_start)?);
            if rfc3986 {
                remove_dot_segments(out, path);
                out.push_str(tail);
            } else {
                out.push_str(reference);
            }
            return Some(Ok(()));
        }

        if rfc3986 && path.is_empty() {
            // RFC 3986 §5.2.2: an empty path keeps the base path, and the base query (with its
            // '?') unless the reference has one.
            let inherited = match r.query {
                Some(_) => layout.path_end,
                None => layout.document_end,
            };
            out.push_str(base.get(..inherited)?);
            out.push_str(tail);
            return Some(Ok(()));
        }

        // §5.2 step 6: merge, without a segment stack when it can; step 7: the query and
        // fragment come from the reference alone, right after its path.
        self.merge_fast(out, reference, r.path, self.options.dot_segment_policy())
    }

    /// RFC 2396 §5.2 steps 6a–6g, then step 7's query and fragment, for the common shape: a base
    /// directory free of `.` and `..` segments, and a reference path made of leading `../` and
    /// `./` followed by segments that are neither. `None` for any other shape.
    ///
    /// Why this is steps 6a–6g: step 6a's buffer is the `k` directory segments of the base, then
    /// the segments of the reference path. Steps 6b–6e (`merge_paths` takes them left to right
    /// with a stack, the same thing) then see, in order:
    ///
    /// - the `k` directory segments: none is `.` or `..`, so they are pushed;
    /// - each leading `./`: a `.` segment that is not the last (a segment follows its `/`), so
    ///   6b removes it with nothing else changed;
    /// - each leading `../`: a `..` that is not the last. While the stack holds a directory
    ///   segment (never `..`), 6d removes that segment with it; after `k` of them the stack is
    ///   empty, and step 6g's policy applies: `Keep` pushes `..`, which no later `..` can remove
    ///   (`../..` is not `<segment>/..`); `Remove` drops it; `Error` fails;
    /// - the rest: no `.` or `..` among its segments, so they are pushed as they are, each after
    ///   a `/`. (Steps 6c and 6e, for a `.` or `..` that ends the buffer, never apply.)
    ///
    /// So with `up` leading `../`, the path is the base directory cut after the `/` that ends
    /// its first `k - up` segments when `up <= k`, else `"/.."` `up - k` times (Keep) or nothing
    /// (Remove) then `/`; then the rest verbatim. The rest and the reference's query and fragment
    /// are one slice of the reference.
    fn merge_fast(
        &self,
        out: &mut String,
        reference: &str,
        path: Range<usize>,
        policy: DotSegments,
    ) -> Option<Result<(), Failure>> {
        let layout = &self.layout;
        if !layout.dir_clean {
            return None;
        }
        let bytes = reference.as_bytes();
        // The leading "../" (counted) and "./" (skipped).
        let mut rest = path.start;
        let mut up = 0;
        loop {
            match bytes.get(rest..path.end)? {
                [b'.', b'.', b'/', ..] => {
                    up += 1;
                    rest += 3;
                }
                [b'.', b'/', ..] => rest += 2,
                _ => break,
            }
        }
        if has_dot_segment(bytes.get(rest..path.end)?) {
            return None;
        }
        let base = self.base.as_str();
        if up > layout.dir_segments {
            // Step 6g: more ".." than directory segments.
            out.push_str(base.get(..layout.path_start)?);
            match policy {
                DotSegments::Keep => {
                    for _ in layout.dir_segments..up {
                        out.push_str("/..");
                    }
                    out.push('/');
                }
                DotSegments::Remove => out.push('/'),
                DotSegments::Error => return Some(Err(Failure::AboveRoot)),
            }
        } else if let Some(dir_end) = layout.dir_end {
            // Steps 6a–6e: one '/' back per "..". The scheme, the authority and what is left
            // of the directory, with its closing '/', are one slice of the base.
            let mut cut = dir_end;
            for _ in 0..up {
                let directory = base.get(layout.path_start..cut)?;
                cut = layout.path_start + directory.bytes().rposition(|b| b == b'/')?;
            }
            out.push_str(base.get(..=cut)?);
        } else {
            // An empty base path (`http://a`, so `up` is 0): no directory, and the merge gives
            // "/" then the reference path, as RFC 3986 §5.2.3 does (see `merge_paths`); a
            // query-only reference (`?y`) keeps the empty path, as the 1998 text does.
            out.push_str(base.get(..layout.path_start)?);
            if !path.is_empty() {
                out.push('/');
            }
        }
        // The rest of the path, then step 7's query and fragment.
        out.push_str(reference.get(rest..)?);
        Some(Ok(()))
    }

    fn resolve_whatwg(&self, reference: &str, out: &mut String) -> Result<(), Failure> {
        let Some(base) = &self.whatwg_base else {
            return Err(Failure::Whatwg("no WHATWG base".to_owned()));
        };
        whatwg::join(
            base,
            self.base.as_str(),
            reference,
            self.query_encoding,
            out,
        )
    }
}

/// Resolves `reference` against `base` once. To resolve many references against one base, build
/// a [`Resolver`].
///
/// # Errors
/// As [`Resolver::new`] and [`Resolver::resolve`].
///
/// ```
/// use linkbase::{resolve, ResolveOptions, Profile};
/// let opts = ResolveOptions::for_profile(Profile::Rfc3986);
/// assert_eq!(resolve("http://a/b/c/d;p?q", "../../../g", opts)?.uri, "http://a/g");
/// # Ok::<(), linkbase::ResolveError>(())
/// ```
pub fn resolve(
    base: &str,
    reference: &str,
    options: ResolveOptions,
) -> Result<Resolved, ResolveError> {
    Resolver::new(base, options)?.resolve(reference)
}

/// RFC 2396 §5.2 (and RFC 3986 §5.2.2, whose branches differ only where marked): the general
/// algorithm, for every case. [`Resolver::resolve_fast`] answers first where it can.
fn resolve_reference_slow(
    base: &UriRef<'_>,
    mut r: UriRef<'_>,
    options: &ResolveOptions,
    out: &mut String,
) -> Result<(), Failure> {
    let rfc3986 = options.profile == Profile::Rfc3986;

    // §5.2 step 2: the empty reference or a fragment alone is the current document: the base
    // without its fragment, then the reference's fragment. (RFC 3986 §5.2.2 reaches the same
    // result through its "R.path == ''" branch.)
    if r.is_same_document() {
        UriRef {
            fragment: r.fragment,
            ..*base
        }
        .write_to(out);
        return Ok(());
    }

    // §5.2 step 3: a reference with a scheme is absolute ...
    if let Some(scheme) = r.scheme {
        // ... unless the same-scheme loophole is asked for: a scheme equal to the base's, on a
        // scheme known to be hierarchical, is dropped and the rest read as relative.
        let loophole = options.same_scheme == SameScheme::Compat
            && base.scheme.is_some_and(|b| b.eq_ignore_ascii_case(scheme))
            && is_known_hierarchical(scheme);
        if !loophole {
            if rfc3986 {
                // RFC 3986 §5.2.2: T.path = remove_dot_segments(R.path).
                write_head(out, r.scheme, r.authority);
                remove_dot_segments(out, r.path);
                write_tail(out, r.query, r.fragment);
            } else {
                r.write_to(out);
            }
            return Ok(());
        }
        r.scheme = None;
    }

    // The reference is relative from here on; an opaque base has nothing to resolve it against.
    if !base.is_hierarchical() {
        return Err(Failure::Opaque);
    }

    // §5.2 step 4: a network-path reference keeps everything but the scheme.
    if let Some(authority) = r.authority {
        write_head(out, base.scheme, Some(authority));
        if rfc3986 {
            remove_dot_segments(out, r.path);
        } else {
            out.push_str(r.path);
        }
        write_tail(out, r.query, r.fragment);
        return Ok(());
    }

    write_head(out, base.scheme, base.authority);
    if r.path.starts_with('/') {
        // §5.2 step 5: an absolute-path reference replaces the base path. RFC 2396 does not
        // touch its dot segments ("/./g" stays, Appendix C.2); RFC 3986 removes them.
        if rfc3986 {
            remove_dot_segments(out, r.path);
        } else {
            out.push_str(r.path);
        }
        write_tail(out, r.query, r.fragment);
        return Ok(());
    }

    if rfc3986 && r.path.is_empty() {
        // RFC 3986 §5.2.2: an empty path keeps the base path, and the base query unless the
        // reference has one. (RFC 2396 instead merges below: "?y" gives ".../c/?y".)
        out.push_str(base.path);
        write_tail(out, r.query.or(base.query), r.fragment);
        return Ok(());
    }

    // §5.2 step 6: merge the base path's directory with the reference path, then remove dot
    // segments (steps 6a–6g).
    merge_paths(out, base, r.path, options.dot_segment_policy())?;
    // §5.2 step 7: the query and fragment come from the reference alone.
    write_tail(out, r.query, r.fragment);
    Ok(())
}

/// A resolution's result string, or its failure's name.
#[cfg(test)]
type Outcome = Result<String, &'static str>;

/// What the fast path says (`None`: not handled), and what the general algorithm says, for one
/// reference.
#[cfg(test)]
fn fast_and_slow(resolver: &Resolver, reference: &str) -> (Option<Outcome>, Outcome) {
    fn outcome(result: Result<(), Failure>, out: String) -> Outcome {
        match result {
            Ok(()) => Ok(out),
            Err(Failure::Opaque) => Err("opaque"),
            Err(Failure::AboveRoot) => Err("above root"),
            Err(Failure::Whatwg(_)) => Err("whatwg"),
        }
    }
    let mut fast = String::new();
    let fast = resolver
        .resolve_fast(reference, &mut fast)
        .map(|result| outcome(result, fast));
    let mut slow = String::new();
    let result = resolve_reference_slow(
        &resolver.base.as_ref(),
        UriRef::parse(reference),
        &resolver.options,
        &mut slow,
    );
    (fast, outcome(result, slow))
}

#[cfg(test)]
mod fast_path {
    use super::*;

    fn resolver(base: &str, dot_segments: Option<DotSegments>) -> Resolver {
        let options = ResolveOptions {
            dot_segments,
            ..ResolveOptions::default()
        };
        Resolver::new(base, options).unwrap_or_else(|e| unreachable!("{e}"))
    }

    /// The shapes the fast path is for answer there (and as the general code does); the others
    /// go to the general code.
    #[test]
    fn which_references_take_the_fast_path() {
        const FAST: &str = "|#s|g:h|//g|/g|/./g|g|./g|g/|g?y|g;x?y#s|./|../|../g|./../g|../../|\
                            ../../g|../../../g|?y|g?y/./x|g#s/../x";
        const GENERAL: &str = ".|..|../..|g/./h|g/../h|./g/.|g;x=1/../y";
        let r = resolver("http://a/b/c/d;p?q#f", None);
        for reference in FAST.split('|') {
            let (fast, slow) = fast_and_slow(&r, reference);
            assert_eq!(fast, Some(slow), "{reference:?}");
        }
        for reference in GENERAL.split('|') {
            assert_eq!(fast_and_slow(&r, reference).0, None, "{reference:?}");
        }
        let fast = |base: &str, policy: Option<DotSegments>, reference: &str| {
            fast_and_slow(&resolver(base, policy), reference).0
        };
        let error = Some(DotSegments::Error);
        let remove = Some(DotSegments::Remove);
        let ok = |s: &str| Some(Ok(s.to_owned()));
        assert_eq!(
            fast("http://a/b/c/d", error, "../../../g"),
            Some(Err("above root"))
        );
        assert_eq!(
            fast("http://a/b/c/d", remove, "../../../g"),
            ok("http://a/g")
        );
        assert_eq!(fast("http://a", None, "../g"), ok("http://a/../g"));
        assert_eq!(fast("mailto:x@y", None, "g"), Some(Err("opaque")));
        // A base directory with a dot segment leaves every merge to the general code.
        assert_eq!(fast("http://a/b/../c/d", None, "g"), None);
        // So does the same-scheme loophole.
        let compat = Resolver::new(
            "http://a/b/c/d;p?q",
            ResolveOptions {
                same_scheme: SameScheme::Compat,
                ..ResolveOptions::default()
            },
        )
        .unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(fast_and_slow(&compat, "http:g").0, None);
        assert_eq!(fast_and_slow(&compat, "ftp:g").0, ok("ftp:g"));
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// On a path that starts with "/", the segment-stack merge (policy remove) and RFC 3986
        /// §5.2.4's rule-by-rule `remove_dot_segments` agree: the two implementations of one rule.
        #[test]
        fn stack_merge_equals_remove_dot_segments(
            segments in prop::collection::vec(prop::sample::select(vec![".", "..", "a", "b", "", "a.", ".b"]), 0..10)
        ) {
            let reference = segments.join("/");
            // An empty reference path against an empty base path is a query-only reference,
            // which keeps the empty path (no "/" to start from).
            prop_assume!(!reference.is_empty());
            let base = UriRef::parse("http://h");
            let mut stacked = String::new();
            prop_assert!(merge_paths(&mut stacked, &base, &reference, DotSegments::Remove).is_ok());
            let mut literal = String::new();
            remove_dot_segments(&mut literal, &format!("/{reference}"));
            prop_assert_eq!(stacked, literal);
        }
    }

    // The strategies of tests/properties.rs, plus paths made of dot segments.

    /// References built from URI-ish pieces, so that dots, slashes and delimiters meet often.
    fn uriish() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop::sample::select(vec![
                "/", ".", "..", "./", "../", "?", "#", ":", ";", "//", "a", "b", "g", "http:",
                "x:", "%2e", " ", "\u{fc}", "\\", "@", "=",
            ]),
            0..12,
        )
        .prop_map(|parts| parts.concat())
    }

    /// Paths of `.`, `..` and plain segments, with an optional query and fragment: the shapes
    /// step 6 works on.
    fn dotted() -> impl Strategy<Value = String> {
        (
            prop::collection::vec(
                prop::sample::select(vec![".", "..", "a", "b", "", "a.", ".b", "..."]),
                0..8,
            ),
            prop::sample::select(vec!["", "/", "?y", "#s", "?y/../x#s/./x"]),
        )
            .prop_map(|(segments, tail)| format!("{}{tail}", segments.join("/")))
    }

    fn any_ref() -> impl Strategy<Value = String> {
        prop_oneof![uriish(), dotted(), "\\PC{0,24}", ".{0,12}"]
    }

    fn base() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("http://a/b/c/d;p?q".to_owned()),
            Just("http://a".to_owned()),
            Just("http://a/".to_owned()),
            Just("file:///x/y/z".to_owned()),
            Just("https://h:8080/p/q/?r#f".to_owned()),
            Just("mailto:x@y".to_owned()),
            Just("foo:/a/b".to_owned()),
            Just("HTTP://a/b/c".to_owned()),
            uriish().prop_map(|s| format!("http://h/{s}")),
            dotted().prop_map(|s| format!("http://h/{s}")),
            dotted().prop_map(|s| format!("foo:/{s}")),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

        /// Wherever the fast path answers, it answers as the general algorithm does: same
        /// string, or same failure, for rfc2396 and rfc3986, every dot-segment policy and both
        /// same-scheme modes.
        #[test]
        fn fast_path_equals_general_algorithm(b in base(), reference in any_ref()) {
            let policies = [None, Some(DotSegments::Keep), Some(DotSegments::Remove), Some(DotSegments::Error)];
            for profile in [Profile::Rfc2396, Profile::Rfc3986] {
                for dot_segments in policies {
                    for same_scheme in [SameScheme::Strict, SameScheme::Compat] {
                        let options = ResolveOptions { profile, dot_segments, same_scheme };
                        let Ok(resolver) = Resolver::new(&b, options) else { continue };
                        let (fast, slow) = fast_and_slow(&resolver, &reference);
                        if let Some(fast) = fast {
                            prop_assert_eq!(&fast, &slow, "{:?} against {:?}, {:?}", reference, b, options);
                        }
                        // And `resolve_into`, fast or not, gives the general answer.
                        let mut out = String::new();
                        let public = resolver.resolve_into(&reference, &mut out);
                        prop_assert_eq!(public.is_ok(), slow.is_ok());
                        prop_assert_eq!(out, slow.unwrap_or_default());
                    }
                }
            }
        }
    }
}
