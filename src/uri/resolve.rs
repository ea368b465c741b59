//! RFC 2396 §5.2, "Resolving Relative References to Absolute Form", step by step; and RFC 3986
//! §5.2, which shares its shape. RFC 1808 lives in `rfc1808.rs`, WHATWG in the `url` crate.
//!
//! The result is written straight into one `String` sized up front: resolving allocates nothing
//! but that string.

use super::{rfc1808, DotSegments, Profile, ResolveError, ResolveOptions, SameScheme, Uri, UriRef};

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
    options: ResolveOptions,
    /// The base as the WHATWG parser reads it; only for the whatwg profile.
    whatwg_base: Option<url::Url>,
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
            base,
            options,
            whatwg_base,
        })
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
        let r = UriRef::parse(reference);
        let same_document = r.is_same_document();
        let base = self.base.as_ref();
        let result = match self.options.profile {
            Profile::Rfc2396 | Profile::Rfc3986 => {
                out.reserve(base.len() + reference.len() + 1);
                resolve_2396_or_3986(&base, r, &self.options, out)
            }
            Profile::Rfc1808 => {
                out.reserve(base.len() + reference.len() + 1);
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

    fn resolve_whatwg(&self, reference: &str, out: &mut String) -> Result<(), Failure> {
        let Some(base) = &self.whatwg_base else {
            return Err(Failure::Whatwg("no WHATWG base".to_owned()));
        };
        // url 2.5.8 trips a debug assertion on some `file:` inputs (servo/rust-url#1114; e.g.
        // `file:'/C:` joined with `..`). Hostile input must not panic us, so a panic inside the
        // crate becomes an error for this reference only.
        let joined = std::panic::catch_unwind(|| base.join(reference))
            .map_err(|_| {
                Failure::Whatwg("the url crate panicked on this input (servo/rust-url#1114)".into())
            })?
            .map_err(|e| Failure::Whatwg(e.to_string()))?;
        out.push_str(joined.as_str());
        Ok(())
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

/// Internal failure, turned into a [`ResolveError`] with the owned strings only when it happens.
pub(super) enum Failure {
    Opaque,
    AboveRoot,
    Whatwg(String),
}

/// RFC 2396 §5.2 (and RFC 3986 §5.2.2, whose branches differ only where marked).
fn resolve_2396_or_3986(
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

/// Schemes whose URIs are hierarchical (draft-ietf-uri-url-07 and their successors): the only
/// ones on which the same-scheme loophole of §5.2 step 3 is applied.
fn is_known_hierarchical(scheme: &str) -> bool {
    const HIERARCHICAL: [&str; 10] = [
        "http", "https", "ftp", "file", "gopher", "nntp", "wais", "prospero", "ws", "wss",
    ];
    HIERARCHICAL.iter().any(|s| s.eq_ignore_ascii_case(scheme))
}

/// §5.2 step 7, first half: `scheme ":"` and `"//" authority`.
pub(super) fn write_head(out: &mut String, scheme: Option<&str>, authority: Option<&str>) {
    if let Some(scheme) = scheme {
        out.push_str(scheme);
        out.push(':');
    }
    if let Some(authority) = authority {
        out.push_str("//");
        out.push_str(authority);
    }
}

/// §5.2 step 7, second half: `"?" query` and `"#" fragment`.
pub(super) fn write_tail(out: &mut String, query: Option<&str>, fragment: Option<&str>) {
    if let Some(query) = query {
        out.push('?');
        out.push_str(query);
    }
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(fragment);
    }
}

/// RFC 2396 §5.2 step 6 (and RFC 1808 §4 step 6, RFC 3986 §5.2.3 + §5.2.4, which agree on a path
/// that starts with "/"), appending the resulting path to `out`.
///
/// Step 6a's buffer is the base path without its last segment followed by the reference path.
/// Steps 6b–6e remove `.` segments and `<segment>/..` pairs, leftmost first; that rewriting
/// has the same result as one left-to-right pass that keeps a stack of segments, which is what
/// this does, with the stack being `out` itself.
///
/// Deviation: a base with an authority and an empty path (`http://a`) gives a buffer of just the
/// reference path in the 1998 text, so `g` would become `http://ag`. We merge as RFC 3986 §5.2.3
/// does, with a `/` in front: `http://a/g`.
pub(super) fn merge_paths(
    out: &mut String,
    base: &UriRef<'_>,
    reference_path: &str,
    policy: DotSegments,
) -> Result<(), Failure> {
    // Step 6a: all but the last segment of the base path. The base is hierarchical, so its path
    // is absolute, or empty with an authority (the deviation above).
    let base_dir = match base.path.rfind('/') {
        Some(i) => base.path.get(1..i).map(Some).unwrap_or(None),
        None => None,
    };
    let path_start = out.len();
    let base_segments = base_dir.into_iter().flat_map(|d| d.split('/'));
    let mut segments = base_segments.chain(reference_path.split('/')).peekable();
    while let Some(segment) = segments.next() {
        let last = segments.peek().is_none();
        match segment {
            // Steps 6b and 6c: a "." segment goes; when it ends the path, the "/" before it
            // stays ("./g/." gives "g/").
            "." => {
                if last {
                    out.push('/');
                }
            }
            // Steps 6d and 6e: "<segment>/.." goes, for any complete segment but "..".
            ".." => {
                if pop_segment(out, path_start) {
                    if last {
                        out.push('/');
                    }
                } else {
                    // Step 6g: a ".." with nothing left to remove.
                    match policy {
                        DotSegments::Keep => out.push_str("/.."),
                        DotSegments::Remove => {
                            if last {
                                out.push('/');
                            }
                        }
                        DotSegments::Error => return Err(Failure::AboveRoot),
                    }
                }
            }
            segment => {
                out.push('/');
                out.push_str(segment);
            }
        }
    }
    Ok(())
}

/// Removes the last complete segment written after `path_start`, unless there is none or it is
/// `..` itself; says whether it did.
fn pop_segment(out: &mut String, path_start: usize) -> bool {
    let path = out.get(path_start..).unwrap_or_default();
    match path.rfind('/') {
        Some(i) if path.get(i + 1..) != Some("..") => {
            out.truncate(path_start + i);
            true
        }
        _ => false,
    }
}

/// RFC 3986 §5.2.4 `remove_dot_segments`, rule by rule, appending the result to `out`. Used for
/// paths that are not merged (a reference with a scheme or an authority, or an absolute path).
pub(super) fn remove_dot_segments(out: &mut String, path: &str) {
    let start = out.len();
    let mut input = path;
    while !input.is_empty() {
        if let Some(rest) = input
            .strip_prefix("../")
            .or_else(|| input.strip_prefix("./"))
        {
            // A: a leading "../" or "./" goes.
            input = rest;
        } else if input.starts_with("/./") {
            // B: "/./" becomes "/".
            input = input.get(2..).unwrap_or("/");
        } else if input == "/." {
            input = "/";
        } else if input.starts_with("/../") {
            // C: "/../" becomes "/", and the last output segment goes with its "/".
            input = input.get(3..).unwrap_or("/");
            pop_3986(out, start);
        } else if input == "/.." {
            input = "/";
            pop_3986(out, start);
        } else if input == "." || input == ".." {
            // D: a lone "." or "..".
            input = "";
        } else {
            // E: move the first segment, with its leading "/" if any, to the output.
            let from = usize::from(input.starts_with('/'));
            let end = input
                .get(from..)
                .and_then(|s| s.find('/'))
                .map_or(input.len(), |i| i + from);
            let (segment, rest) = input.split_at(end);
            out.push_str(segment);
            input = rest;
        }
    }
}

/// RFC 3986 §5.2.4 C: remove the last segment and its preceding "/" (if any) from the output.
fn pop_3986(out: &mut String, start: usize) {
    let written = out.get(start..).unwrap_or_default();
    let cut = written.rfind('/').unwrap_or(0);
    out.truncate(start + cut);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rdots(path: &str) -> String {
        let mut out = String::new();
        remove_dot_segments(&mut out, path);
        out
    }

    #[test]
    fn remove_dot_segments_rfc3986_examples() {
        // RFC 3986 §5.2.4's two worked examples.
        assert_eq!(rdots("/a/b/c/./../../g"), "/a/g");
        assert_eq!(rdots("mid/content=5/../6"), "mid/6");
        assert_eq!(rdots("/./g"), "/g");
        assert_eq!(rdots("/../g"), "/g");
        assert_eq!(rdots("../../g"), "g");
        assert_eq!(rdots("."), "");
        assert_eq!(rdots("/a/.."), "/");
        assert_eq!(rdots("a/../b"), "/b");
    }

    fn merged(base_path: &str, r: &str, policy: DotSegments) -> Result<String, ()> {
        let base = UriRef {
            scheme: Some("http"),
            authority: Some("a"),
            path: base_path,
            query: None,
            fragment: None,
        };
        let mut out = String::new();
        merge_paths(&mut out, &base, r, policy).map_err(|_| ())?;
        Ok(out)
    }

    #[test]
    fn merge_keeps_the_base_dots_in_play() {
        // Step 6 works on the whole buffer, base directory included.
        assert_eq!(
            merged("/b/../c/d", "g", DotSegments::Keep),
            Ok("/c/g".into())
        );
        assert_eq!(merged("", "g", DotSegments::Keep), Ok("/g".into()));
        assert_eq!(merged("/", "", DotSegments::Keep), Ok("/".into()));
        assert_eq!(
            merged("/a//b", "../g", DotSegments::Keep),
            Ok("/a/g".into())
        );
        assert_eq!(merged("/b/c", "../..", DotSegments::Keep), Ok("/..".into()));
        assert_eq!(merged("/b/c", "../..", DotSegments::Remove), Ok("/".into()));
        assert_eq!(merged("/b/c", "../..", DotSegments::Error), Err(()));
        assert_eq!(merged("/b/c", "../x/..", DotSegments::Keep), Ok("/".into()));
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
            let base = UriRef::parse("http://h");
            let mut stacked = String::new();
            prop_assert!(merge_paths(&mut stacked, &base, &reference, DotSegments::Remove).is_ok());
            let mut literal = String::new();
            remove_dot_segments(&mut literal, &format!("/{reference}"));
            prop_assert_eq!(stacked, literal);
        }
    }
}
