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

use super::parse::Offsets;
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
        let relative = reference_as_the_standard_reads_it(base, reference);
        let reference = relative.as_deref().unwrap_or(reference);
        let masked = DriveLetterMask::new(base, reference);
        let (parse_base, parse_reference) = match &masked {
            Some(m) => (&m.base, m.reference.as_str()),
            None => (base, reference),
        };
        let joined = whatwg_parse(parse_reference, Some(parse_base), self.query_encoding)
            .map_err(Failure::Whatwg)?;
        if let Some(m) = masked {
            out.push_str(&m.unmask(joined.as_str()));
            return Ok(());
        }
        match keep_file_host(base, self.base.as_str(), reference, &joined)
            .or_else(|| keep_empty_file_segments(reference, &joined))
        {
            Some(fixed) => out.push_str(&fixed),
            None => out.push_str(joined.as_str()),
        }
        Ok(())
    }
}

/// Whether `scheme` is one of the URL Standard's special schemes: with a base of the same
/// scheme, a reference without `//` is relative (`http:g` in the special relative state; `file:g`
/// and `file:/g` take the base's host in the file and file slash states).
pub(crate) fn is_special(scheme: &str) -> bool {
    ["http", "https", "ws", "wss", "ftp", "file"]
        .iter()
        .any(|s| s.eq_ignore_ascii_case(scheme))
}

/// A reference as the URL parser sees it: leading and trailing C0 controls and spaces gone, and
/// every tab and newline (URL Standard "basic URL parser", first steps).
fn cleaned_reference(reference: &str) -> String {
    reference
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect()
}

/// Two states of the URL Standard that url 2.5.8 gets wrong for a relative reference (WPT
/// urltestdata cases the crate's own ledger lists), given as an equivalent reference it reads
/// right:
///
/// - against a special base, "special authority ignore slashes state" skips every `/` and `\`
///   before the host (`///x` against `http://example.org/` is `http://x/`), where the crate
///   takes only two and fails on an empty host;
/// - against a non-special base, `\` is no slash ("relative state" enters "relative slash
///   state" only for a special URL), so `\a` against `foo://foo/a` is the path `/\a`, where the
///   crate reads `//a`.
fn reference_as_the_standard_reads_it(base: &url::Url, reference: &str) -> Option<String> {
    let first = reference
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .next()?;
    if first != '/' && first != '\\' {
        return None;
    }
    let cleaned = cleaned_reference(reference);
    if is_special(base.scheme()) {
        let is_slash = |c: char| c == '/' || c == '\\';
        let rest = cleaned.trim_start_matches(is_slash);
        let slashes = cleaned.len() - rest.len();
        (slashes > 2 && base.scheme() != "file").then(|| format!("//{rest}"))
    } else {
        cleaned.starts_with('\\').then(|| format!("./{cleaned}"))
    }
}

/// url 2.5.8 refuses `..` the segment before a Windows drive letter (`C:`) in any scheme (its
/// `last_slash_can_be_removed`), where the URL Standard keeps drive letters only for `file:`
/// ("shorten a URL's path"): `..` against `abc://x/y/z/C:/` is `abc://x/y/z/`. For a result that
/// is not `file:`, the letter's `:` or `|` is hidden behind a private-use character while the
/// crate parses, and put back after.
struct DriveLetterMask {
    base: url::Url,
    reference: String,
    colon: &'static str,
    bar: &'static str,
}

impl DriveLetterMask {
    /// The private-use stand-ins, percent-encoded as they come out of a path.
    const COLON: (char, &'static str) = ('\u{e000}', "%EE%80%80");
    const BAR: (char, &'static str) = ('\u{e001}', "%EE%80%81");

    fn new(base: &url::Url, reference: &str) -> Option<Self> {
        // Cheap tests first: this runs for every reference.
        let bytes = reference.as_bytes();
        let dots = bytes.windows(2).any(|w| w == b"..")
            || bytes
                .windows(3)
                .any(|w| matches!(w, [b'%', b'2', e] if e | 0x20 == b'e'));
        if base.scheme() == "file" || !dots {
            return None;
        }
        let letters = |s: &str| {
            s.as_bytes()
                .windows(3)
                .any(|w| matches!(w, [b'/' | b'\\', l, b':' | b'|'] if l.is_ascii_alphabetic()))
        };
        let reference = cleaned_reference(reference);
        let own_scheme = UriRef::parse(&reference).scheme;
        let scheme = own_scheme.unwrap_or(base.scheme());
        if scheme.eq_ignore_ascii_case("file")
            || !(letters(base.path()) || letters(&format!("/{reference}")))
        {
            return None;
        }
        // Never when the stand-ins could be told apart from the input's own characters.
        let taken = |s: &str| {
            s.contains(['\u{e000}', '\u{e001}']) || s.to_ascii_lowercase().contains("%ee%80%8")
        };
        if taken(base.as_str()) || taken(&reference) {
            return None;
        }
        let mut masked_base = base.clone();
        masked_base.set_path(&mask_path(base.path(), false));
        // Only the reference's path is masked: its scheme is no drive letter, and neither is its
        // authority (`//t|/x`: a host `t|` must stay what the parser judges; found by
        // fuzz/uri_resolve.rs). The path ends at `?` or `#`.
        let special = is_special(scheme);
        let is_slash = |c: char| c == '/' || (special && c == '\\');
        let scheme_end = own_scheme.map_or(0, |s| s.len() + 1);
        let after_scheme = reference.get(scheme_end..).unwrap_or_default();
        let mut chars = after_scheme.chars();
        let authority_end =
            if chars.next().is_some_and(is_slash) && chars.next().is_some_and(is_slash) {
                let host = after_scheme.get(2..).unwrap_or_default();
                2 + host
                    .find(|c: char| is_slash(c) || c == '?' || c == '#')
                    .unwrap_or(host.len())
            } else {
                0
            };
        let (prefix, after) = reference.split_at(scheme_end + authority_end);
        let path_end = after.find(['?', '#']).unwrap_or(after.len());
        let (path, rest) = after.split_at(path_end);
        Some(Self {
            base: masked_base,
            reference: format!("{prefix}{}{rest}", mask_path(path, special)),
            colon: Self::COLON.1,
            bar: Self::BAR.1,
        })
    }

    fn unmask(&self, joined: &str) -> String {
        joined.replace(self.colon, ":").replace(self.bar, "|")
    }
}

/// `path` with the `:` or `|` of every two-letter segment that looks like a drive letter
/// replaced by its stand-in (`\` separates segments too in a special URL).
fn mask_path(path: &str, special: bool) -> String {
    let mut out = String::with_capacity(path.len());
    let mut segment_start = true;
    let mut chars = path.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        let separator = c == '/' || (special && c == '\\');
        if segment_start && c.is_ascii_alphabetic() {
            let mut ahead = chars.clone();
            let letter = ahead.next();
            let after = ahead.next();
            let ends = after.is_none_or(|a| a == '/' || (special && a == '\\'));
            match letter {
                Some(':') if ends => {
                    chars.next();
                    out.push(DriveLetterMask::COLON.0);
                }
                Some('|') if ends => {
                    chars.next();
                    out.push(DriveLetterMask::BAR.0);
                }
                _ => {}
            }
        }
        segment_start = separator;
    }
    out
}

/// The URL Standard's parser on `reference`, against `base` when there is one, queries encoded
/// in `query_encoding` (UTF-8 when `None`).
fn whatwg_parse(
    reference: &str,
    base: Option<&url::Url>,
    query_encoding: Option<&'static encoding_rs::Encoding>,
) -> Result<url::Url, String> {
    // url 2.5.8 trips a debug assertion on some `file:` inputs (servo/rust-url#1114; e.g.
    // `file:'/C:` joined with `..`). Hostile input must not panic us, so a panic inside the
    // crate becomes an error for this reference only.
    let encoding = query_encoding.unwrap_or(encoding_rs::UTF_8);
    let encode = query_encoder(move |query| encode_query(encoding, query).into());
    std::panic::catch_unwind(|| {
        url::Url::options()
            .base_url(base)
            .encoding_override(
                query_encoding.map(|_| &encode as &dyn Fn(&str) -> std::borrow::Cow<'_, [u8]>),
            )
            .parse(reference)
    })
    .map_err(|_| "the url crate panicked on this input (servo/rust-url#1114)".to_owned())?
    .map_err(|e| e.to_string())
}

/// An absolute URL as a browser reads it without any base (`new URL(reference)`): the
/// `whatwg` profile reports this for absolute references of a document that has no base.
///
/// # Errors
/// [`ResolveError::Whatwg`], as against a base.
pub(crate) fn whatwg_absolute(
    reference: &str,
    encoding: &'static encoding_rs::Encoding,
) -> Result<String, ResolveError> {
    let query_encoding = (encoding != encoding_rs::UTF_8).then_some(encoding);
    whatwg_parse(reference, None, query_encoding)
        .map(String::from)
        .map_err(|reason| ResolveError::Whatwg {
            input: reference.to_owned(),
            reason,
        })
}

/// A reference as the URL parser reads it against a `file:` base, without a leading `file:`:
/// leading and trailing C0 controls and spaces, and every tab and newline, go (URL Standard).
fn file_reference_after_scheme(reference: &str) -> String {
    let cleaned = cleaned_reference(reference);
    match cleaned.get(..5) {
        Some(s) if s.eq_ignore_ascii_case("file:") => {
            cleaned.get(5..).unwrap_or_default().to_owned()
        }
        _ => cleaned,
    }
}

/// Post-normalisation for url 2.5.8's known failure (its `expected_failures.txt`; upstream PRs
/// #890 and #1149): a relative reference against a `file:` base with a host, whose result path
/// starts with a Windows drive letter (`C|`, `/C:/`, `file:/C:/` against `file://host/…`), loses
/// the host. The URL Standard keeps it: in the "file state" and "file slash state" a reference
/// without an authority of its own takes the base's host, and no later state clears it. The
/// crate's path, query and fragment are kept; only `//host` is put back.
fn keep_file_host(
    base: &url::Url,
    raw_base: &str,
    reference: &str,
    joined: &url::Url,
) -> Option<String> {
    if base.scheme() != "file"
        || joined.scheme() != "file"
        || joined.host_str().is_some_and(|h| !h.is_empty())
    {
        return None;
    }
    // The crate drops the host of a base like `file://h/C:/a/b` too: then it is read from the
    // base as written, through the crate's own host parser (lower case, IDNA, `localhost` → "").
    let from_raw = || {
        let authority = crate::UriRef::parse(raw_base).authority?;
        let parsed = url::Url::parse(&format!("file://{authority}/")).ok()?;
        parsed
            .host_str()
            .filter(|h| !h.is_empty())
            .map(str::to_owned)
    };
    let host = match base.host_str().filter(|h| !h.is_empty()) {
        Some(h) => h.to_owned(),
        None => from_raw()?,
    };
    let after_scheme = file_reference_after_scheme(reference);
    let after_scheme = after_scheme.as_str();
    // A reference with an authority of its own (`//h/…`, `\\h\…`) names its own host.
    let mut lead = after_scheme.chars();
    if matches!(
        (lead.next(), lead.next()),
        (Some('/' | '\\'), Some('/' | '\\'))
    ) {
        return None;
    }
    let path = joined.path();
    let bytes = path.as_bytes();
    let drive = bytes.len() >= 3
        && bytes.first() == Some(&b'/')
        && bytes.get(1).is_some_and(u8::is_ascii_alphabetic)
        && bytes.get(2) == Some(&b':')
        && matches!(bytes.get(3), None | Some(b'/'));
    if !drive {
        return None;
    }
    let mut fixed = format!("file://{host}{path}");
    if let Some(q) = joined.query() {
        fixed.push('?');
        fixed.push_str(q);
    }
    if let Some(f) = joined.fragment() {
        fixed.push('#');
        fixed.push_str(f);
    }
    Some(fixed)
}

/// Post-normalisation for url 2.5.8's other `file:` failure (WPT `////one/two` against
/// `file:///`, `//localhost//pig` against `file://lion/`, `/..//x`): the crate drops the empty
/// segments a `file:` path starts with, which the URL Standard's path state keeps (`file:////pig`
/// has the path `//pig`). For a reference with an authority or an absolute path, the leading
/// empty segments of the path are counted as the path state makes them (`.` and `..` applied)
/// and the missing ones put back; the rest of the crate's result is kept as it is.
fn keep_empty_file_segments(reference: &str, joined: &url::Url) -> Option<String> {
    if joined.scheme() != "file" {
        return None;
    }
    let after_scheme = file_reference_after_scheme(reference);
    let after_scheme = after_scheme.as_str();
    let is_slash = |c: char| c == '/' || c == '\\';
    let before_query = after_scheme.split(['?', '#']).next().unwrap_or_default();
    let mut chars = before_query.chars();
    let path = match (chars.next(), chars.next()) {
        // `//host/path`: the path starts at the first slash after the host.
        (Some(a), Some(b)) if is_slash(a) && is_slash(b) => {
            let rest = before_query.get(2..).unwrap_or_default();
            rest.get(rest.find(is_slash)?..)?
        }
        (Some(a), _) if is_slash(a) => before_query,
        _ => return None,
    };
    // The URL Standard's path state over the segments after the leading slash.
    let mut segments: Vec<&str> = Vec::new();
    let parts: Vec<&str> = path.get(1..)?.split(is_slash).collect();
    for (i, segment) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let lower = segment.to_ascii_lowercase();
        let dots = lower.replace("%2e", ".");
        match dots.as_str() {
            ".." => {
                segments.pop();
                if last {
                    segments.push("");
                }
            }
            "." => {
                if last {
                    segments.push("");
                }
            }
            _ => segments.push(segment),
        }
    }
    // Windows drive letters have rules of their own (and `keep_file_host`): left to the crate.
    let drive = |s: &str| {
        let b = s.as_bytes();
        b.len() == 2
            && b.first().is_some_and(u8::is_ascii_alphabetic)
            && matches!(b.get(1), Some(b':' | b'|'))
    };
    if segments.iter().any(|s| drive(s)) {
        return None;
    }
    // Leading slashes of the path as the standard serializes it, and as the crate did.
    let spec_path = format!("/{}", segments.join("/"));
    let want = spec_path.bytes().take_while(|b| *b == b'/').count();
    let have = joined.path().bytes().take_while(|b| *b == b'/').count();
    if want <= have {
        return None;
    }
    let missing = "/".repeat(want - have);
    let text = joined.as_str();
    let host_end = "file://".len()
        + joined.host_str().map_or(0, str::len)
        + joined.port().map_or(0, |p| p.to_string().len() + 1);
    let (head, tail) = (text.get(..host_end)?, text.get(host_end..)?);
    Some(format!("{head}{missing}{tail}"))
}

/// Gives a closure the higher-ranked signature the url crate's encoding override wants.
fn query_encoder<F>(f: F) -> F
where
    F: for<'q> Fn(&'q str) -> std::borrow::Cow<'q, [u8]>,
{
    f
}

/// URL Standard "percent-encode after encoding" for a query: the bytes of `query` in `encoding`,
/// each character the encoding cannot represent written as `%26%23` decimal `%3B` (an HTML
/// numeric reference, percent-encoded); the URL parser percent-encodes the rest.
pub(super) fn encode_query(encoding: &'static encoding_rs::Encoding, query: &str) -> Vec<u8> {
    let mut encoder = encoding.new_encoder();
    let mut out = Vec::with_capacity(query.len() + 16);
    let mut rest = query;
    let mut buffer = [0u8; 256];
    loop {
        let (result, read, written) =
            encoder.encode_from_utf8_without_replacement(rest, &mut buffer, true);
        out.extend_from_slice(buffer.get(..written).unwrap_or_default());
        rest = rest.get(read..).unwrap_or_default();
        match result {
            encoding_rs::EncoderResult::InputEmpty => break,
            encoding_rs::EncoderResult::OutputFull => {}
            encoding_rs::EncoderResult::Unmappable(c) => {
                out.extend_from_slice(format!("%26%23{}%3B", u32::from(c)).as_bytes());
            }
        }
    }
    out
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

/// Whether `path` has a `.` or `..` segment.
fn has_dot_segment(path: &[u8]) -> bool {
    // A segment starts at 0 and after each '/'.
    let dot_segment_at = |i: usize| {
        matches!(
            path.get(i..),
            Some([b'.'] | [b'.', b'/', ..] | [b'.', b'.'] | [b'.', b'.', b'/', ..])
        )
    };
    dot_segment_at(0)
        || path
            .iter()
            .enumerate()
            .any(|(i, &b)| b == b'/' && dot_segment_at(i + 1))
}

/// Schemes whose URIs are hierarchical (draft-ietf-uri-url-07 and their successors): the only
/// ones on which the same-scheme loophole of §5.2 step 3 is applied.
pub(crate) fn is_known_hierarchical(scheme: &str) -> bool {
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
/// does, with a `/` in front: `http://a/g`. The `/` is for a reference path to follow: with an
/// empty reference path (`?y`) the 1998 buffer is empty and stays so (`http://a?y`).
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
    if base.path.is_empty() && reference_path.is_empty() {
        // Step 6a's buffer is empty; the deviation's `/` is only for a segment to follow it.
        return Ok(());
    }
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
