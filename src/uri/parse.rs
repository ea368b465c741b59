//! RFC 2396 §3–§4 and Appendix B: splitting a URI reference into its five components.
//!
//! Appendix B's regular expression
//!
//! ```text
//! ^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?
//!   12            3  4          5       6  7        8 9
//! ```
//!
//! matches every string, so splitting never fails. One refinement: the regex would accept any run
//! of characters before the first `:` as a scheme, but §3.1 says a scheme is
//! `alpha *( alpha | digit | "+" | "-" | "." )`. A prefix that is not a scheme by that grammar
//! (`1a:b`, `a b:c`, `:x`) is read as part of a relative path, as RFC 3986 §4.2 and browsers do.

use std::ops::Range;

/// A URI reference split into its components (RFC 2396 §4.3), borrowing from the input.
///
/// *Undefined* and *empty* are kept apart: `http://a/b?` has an empty query (`Some("")`), while
/// `http://a/b` has none (`None`). Recomposition with [`UriRef::recompose`] or `Display`
/// (RFC 2396 §5.2 step 7) gives back the parsed string byte for byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UriRef<'a> {
    /// The scheme, without its `:` (§3.1); `None` for a relative reference.
    pub scheme: Option<&'a str>,
    /// The authority, without its leading `//` (§3.2); `None` when there is no `//`.
    pub authority: Option<&'a str>,
    /// The path (§3.3); always present, possibly empty.
    pub path: &'a str,
    /// The query, without its `?` (§3.4).
    pub query: Option<&'a str>,
    /// The fragment identifier, without its `#` (§4.1).
    pub fragment: Option<&'a str>,
}

impl<'a> UriRef<'a> {
    /// Splits `input` into its components per RFC 2396 Appendix B. Never fails: every string is a
    /// URI reference to the splitting regex, even one with characters outside the RFC's set.
    ///
    /// ```
    /// use linkbase::UriRef;
    /// let r = UriRef::parse("http://a/b?");
    /// assert_eq!(r.scheme, Some("http"));
    /// assert_eq!(r.authority, Some("a"));
    /// assert_eq!(r.path, "/b");
    /// assert_eq!(r.query, Some(""));
    /// assert_eq!(r.fragment, None);
    /// ```
    pub fn parse(input: &'a str) -> UriRef<'a> {
        Offsets::of(input).slice(input)
    }

    /// Whether this is an absolute URI: it has a scheme (RFC 2396 §3).
    pub fn is_absolute(&self) -> bool {
        self.scheme.is_some()
    }

    /// Whether this names the current document (RFC 2396 §4.2): the empty reference or a fragment
    /// alone. RFC 2396 §5.2 step 2's test.
    pub fn is_same_document(&self) -> bool {
        self.scheme.is_none()
            && self.authority.is_none()
            && self.path.is_empty()
            && self.query.is_none()
    }

    /// Whether relative references can be resolved against this URI: it has an authority, or its
    /// path is absolute (RFC 2396 §3: `hier_part`). `mailto:x@y` and `urn:x:y` are opaque.
    pub fn is_hierarchical(&self) -> bool {
        self.authority.is_some() || self.path.starts_with('/')
    }

    /// The length of the recomposed reference, for sizing a buffer.
    pub fn len(&self) -> usize {
        self.scheme.map_or(0, |s| s.len() + 1)
            + self.authority.map_or(0, |a| a.len() + 2)
            + self.path.len()
            + self.query.map_or(0, |q| q.len() + 1)
            + self.fragment.map_or(0, |f| f.len() + 1)
    }

    /// Whether the recomposed reference is the empty string.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// RFC 2396 §5.2 step 7: recombine the components into a string.
    pub fn recompose(&self) -> String {
        let mut out = String::with_capacity(self.len());
        self.write_to(&mut out);
        out
    }

    /// Appends the recomposed reference to `out` (RFC 2396 §5.2 step 7).
    pub fn write_to(&self, out: &mut String) {
        if let Some(scheme) = self.scheme {
            out.push_str(scheme);
            out.push(':');
        }
        if let Some(authority) = self.authority {
            out.push_str("//");
            out.push_str(authority);
        }
        out.push_str(self.path);
        if let Some(query) = self.query {
            out.push('?');
            out.push_str(query);
        }
        if let Some(fragment) = self.fragment {
            out.push('#');
            out.push_str(fragment);
        }
    }
}

impl std::fmt::Display for UriRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = String::with_capacity(self.len());
        self.write_to(&mut s);
        f.write_str(&s)
    }
}

/// Where each component of a reference lies in its string (delimiters excluded).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Offsets {
    pub scheme: Option<Range<usize>>,
    pub authority: Option<Range<usize>>,
    pub path: Range<usize>,
    pub query: Option<Range<usize>>,
    pub fragment: Option<Range<usize>>,
}

impl Offsets {
    /// Appendix B's split, as offsets into `input`, in one left-to-right pass over the bytes:
    /// each group ends at the first of the delimiters that end it in the regular expression.
    /// (Every delimiter is ASCII, so every offset falls on a character boundary.)
    pub fn of(input: &str) -> Offsets {
        let bytes = input.as_bytes();
        let len = bytes.len();
        // Group 2: `[^:/?#]+` then ':', and §3.1's grammar. No scheme character is one of
        // ':', '/', '?' or '#', so a run of scheme characters followed by ':' is exactly a
        // prefix that ends at the first of those four, at a ':', and is a scheme.
        let run = bytes
            .iter()
            .position(|&b| !is_scheme_char(b))
            .unwrap_or(len);
        let scheme = (bytes.get(run) == Some(&b':')
            && bytes.first().is_some_and(u8::is_ascii_alphabetic))
        .then_some(0..run);
        // `pos`: where the next group starts; `pos..scanned` is known to hold none of '/', '?'
        // and '#'. When the run is not a scheme, the path starts at 0 and its scan resumes
        // after the run.
        let (mut pos, mut scanned) = match &scheme {
            Some(s) => (s.end + 1, s.end + 1),
            None => (0, run),
        };
        // Group 4: after "//", up to the next '/', '?' or '#'.
        let mut authority = None;
        if bytes.get(pos..).is_some_and(|rest| rest.starts_with(b"//")) {
            let from = pos + 2;
            pos = first_from(bytes, from, |b| matches!(b, b'/' | b'?' | b'#'));
            scanned = pos;
            authority = Some(from..pos);
        }
        // Group 5: the path, up to '?' or '#'.
        let path_end = first_from(bytes, scanned, |b| matches!(b, b'?' | b'#'));
        // Group 7: after '?', up to '#'.
        let mut hash = path_end;
        let mut query = None;
        if bytes.get(path_end) == Some(&b'?') {
            hash = first_from(bytes, path_end + 1, |b| b == b'#');
            query = Some(path_end + 1..hash);
        }
        // Group 9: everything after the first '#' (no group before it may contain one).
        let fragment = (hash < len).then_some(hash + 1..len);
        Offsets {
            scheme,
            authority,
            path: pos..path_end,
            query,
            fragment,
        }
    }

    /// The components of `input`, which must be the string these offsets were taken from.
    pub fn slice<'a>(&self, input: &'a str) -> UriRef<'a> {
        let at = |r: &Range<usize>| input.get(r.clone()).unwrap_or_default();
        UriRef {
            scheme: self.scheme.as_ref().map(at),
            authority: self.authority.as_ref().map(at),
            path: at(&self.path),
            query: self.query.as_ref().map(at),
            fragment: self.fragment.as_ref().map(at),
        }
    }
}

/// The index of the first byte at or after `from` for which `stop` holds, else `bytes.len()`.
#[inline]
fn first_from(bytes: &[u8], from: usize, stop: impl Fn(u8) -> bool) -> usize {
    bytes
        .get(from..)
        .and_then(|rest| rest.iter().position(|&b| stop(b)))
        .map_or(bytes.len(), |i| from + i)
}

/// RFC 2396 §3.1: `alpha | digit | "+" | "-" | "."`, the characters of a scheme.
#[inline]
fn is_scheme_char(b: u8) -> bool {
    SCHEME_CHARS.get(usize::from(b)) == Some(&true)
}

/// The scheme characters as a table, one entry per byte value: one load per byte of the scan.
static SCHEME_CHARS: [bool; 256] = {
    let mut table = [false; 256];
    let mut entries: &mut [bool] = &mut table;
    let mut b = 0u8;
    while let [entry, rest @ ..] = entries {
        *entry = b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.');
        entries = rest;
        b = b.wrapping_add(1);
    }
    table
};

/// Why an authority (RFC 2396 §3.2) is malformed, when it is: `[` and `]` may only enclose an
/// IP literal host (RFC 2732 §3, RFC 3986 §3.2.2), closed, after any userinfo and before any
/// `:port` of digits (`http://[::1` is no host). Other authorities pass: a registry-based one
/// (§3.2.1) may hold what a host name may not.
pub(crate) fn authority_error(authority: &str) -> Option<&'static str> {
    if !authority.contains(['[', ']']) {
        return None;
    }
    // The userinfo ends at the last `@` (RFC 3986 §3.2.1: it holds none unescaped).
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let Some(literal) = host_port.strip_prefix('[') else {
        return Some("`[` and `]` may only enclose an IP literal host");
    };
    let Some((inside, after)) = literal.split_once(']') else {
        return Some("its IP literal host has no closing `]`");
    };
    if inside.is_empty() || inside.contains('[') {
        return Some("its IP literal host is empty or holds a `[`");
    }
    match after.strip_prefix(':') {
        None if after.is_empty() => None,
        Some(port) if port.bytes().all(|b| b.is_ascii_digit()) => None,
        _ => Some("after its IP literal host comes only `:` and a port of digits"),
    }
}

#[cfg(test)]
mod tests {

    /// RFC 2732 §3: `[` `]` enclose an IP literal host only, closed, before a port of digits.
    #[test]
    fn authorities_with_brackets() {
        for (authority, bad) in [
            ("a", false),
            ("a:80", false),
            ("u:p@a:", false),
            ("[::1]", false),
            ("[::1]:8080", false),
            ("u@[v1.x]:", false),
            ("[::1", true),
            ("[::1]x", true),
            ("[::1]:8x", true),
            ("[]", true),
            ("a[b]", true),
            ("a]", true),
            ("[[::1]]", true),
        ] {
            assert_eq!(super::authority_error(authority).is_some(), bad, "{authority}");
        }
    }
    use super::*;
    use proptest::prelude::*;

    fn parts(s: &str) -> (Option<&str>, Option<&str>, &str, Option<&str>, Option<&str>) {
        let r = UriRef::parse(s);
        (r.scheme, r.authority, r.path, r.query, r.fragment)
    }

    /// Every combination of present / absent / empty components, and its recomposition.
    #[test]
    fn every_combination_of_components() {
        let schemes = [None, Some("http")];
        let authorities = [None, Some(""), Some("a")];
        let paths = ["", "/", "/b", "b/c"];
        let queries = [None, Some(""), Some("q")];
        let fragments = [None, Some(""), Some("f")];
        let mut n = 0;
        for scheme in schemes {
            for authority in authorities {
                for path in paths {
                    // With an authority, a path must be empty or absolute (§3): "//ab/c" would
                    // read as authority "ab".
                    if authority.is_some() && !(path.is_empty() || path.starts_with('/')) {
                        continue;
                    }
                    // Without scheme or authority, a path whose first segment has a ':' would be
                    // read as a scheme; none of ours has one.
                    for query in queries {
                        for fragment in fragments {
                            let want = UriRef {
                                scheme,
                                authority,
                                path,
                                query,
                                fragment,
                            };
                            let text = want.recompose();
                            assert_eq!(UriRef::parse(&text), want, "parsing {text:?}");
                            assert_eq!(want.len(), text.len());
                            n += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(n, 2 * (4 + 2 * 3) * 3 * 3);
    }

    #[test]
    fn empty_is_not_absent() {
        assert_eq!(
            parts("http://a/b?"),
            (Some("http"), Some("a"), "/b", Some(""), None)
        );
        assert_eq!(
            parts("http://a/b"),
            (Some("http"), Some("a"), "/b", None, None)
        );
        assert_eq!(
            parts("http://a/b#"),
            (Some("http"), Some("a"), "/b", None, Some(""))
        );
        assert_eq!(
            parts("file:///x"),
            (Some("file"), Some(""), "/x", None, None)
        );
        assert_eq!(parts(""), (None, None, "", None, None));
        assert_eq!(parts("#"), (None, None, "", None, Some("")));
        assert_eq!(parts("?"), (None, None, "", Some(""), None));
        assert_eq!(parts("//"), (None, Some(""), "", None, None));
    }

    #[test]
    fn delimiters_inside_later_components() {
        // '?' and '/' inside the fragment, ':' after a '/', '#' inside nothing else.
        assert_eq!(parts("g#s/./x?y"), (None, None, "g", None, Some("s/./x?y")));
        assert_eq!(parts("a/b:c"), (None, None, "a/b:c", None, None));
        assert_eq!(parts("?a:b/c"), (None, None, "", Some("a:b/c"), None));
        assert_eq!(parts("//a?b/c"), (None, Some("a"), "", Some("b/c"), None));
        assert_eq!(parts("http:g"), (Some("http"), None, "g", None, None));
        assert_eq!(parts("http:"), (Some("http"), None, "", None, None));
    }

    #[test]
    fn scheme_must_follow_the_grammar() {
        assert_eq!(parts("g:h").0, Some("g"));
        assert_eq!(parts("a+b-c.d:x").0, Some("a+b-c.d"));
        assert_eq!(parts("1a:b"), (None, None, "1a:b", None, None));
        assert_eq!(parts(":x"), (None, None, ":x", None, None));
        assert_eq!(parts("a b:c"), (None, None, "a b:c", None, None));
        assert_eq!(parts("é:x"), (None, None, "é:x", None, None));
    }

    #[test]
    fn characters_outside_the_uri_set_are_carried() {
        let s = "a b/ü\\c?d e#f g";
        assert_eq!(parts(s), (None, None, "a b/ü\\c", Some("d e"), Some("f g")));
        assert_eq!(UriRef::parse(s).recompose(), s);
    }

    /// The split as it was first written, with four `find` scans: the oracle for the one-pass
    /// [`Offsets::of`].
    fn offsets_by_find(input: &str) -> Offsets {
        let len = input.len();
        let hash = input.find('#');
        let fragment = hash.map(|h| h + 1..len);
        let end = hash.unwrap_or(len);
        let head = input.get(..end).unwrap_or_default();
        let is_scheme = |s: &str| {
            let mut bytes = s.bytes();
            matches!(bytes.next(), Some(b) if b.is_ascii_alphabetic())
                && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
        };
        let scheme = match head.find([':', '/', '?']) {
            Some(i) if head.as_bytes().get(i) == Some(&b':') => {
                is_scheme(head.get(..i).unwrap_or_default()).then_some(0..i)
            }
            _ => None,
        };
        let mut pos = scheme.as_ref().map_or(0, |s| s.end + 1);
        let question = head
            .get(pos..)
            .and_then(|rest| rest.find('?'))
            .map(|i| pos + i);
        let query = question.map(|q| q + 1..end);
        let before_query = question.unwrap_or(end);
        let mut authority = None;
        if head
            .get(pos..before_query)
            .is_some_and(|s| s.starts_with("//"))
        {
            let from = pos + 2;
            let to = head
                .get(from..before_query)
                .and_then(|s| s.find('/'))
                .map_or(before_query, |i| from + i);
            authority = Some(from..to);
            pos = to;
        }
        Offsets {
            scheme,
            authority,
            path: pos..before_query,
            query,
            fragment,
        }
    }

    #[test]
    fn scheme_character_table() {
        for b in 0..=u8::MAX {
            let want = b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.');
            assert_eq!(is_scheme_char(b), want, "byte {b:#04x}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]
        /// The one-pass split and the four-scan split agree on every string.
        #[test]
        fn one_pass_split_equals_find_split(
            s in prop_oneof![
                prop::collection::vec(prop::sample::select(vec![
                    "/", "//", "?", "#", ":", ".", "a", "B", "1", "+", "-", " ", "\u{fc}", "http:", "//h",
                ]), 0..10).prop_map(|parts| parts.concat()),
                "\\PC{0,16}",
            ]
        ) {
            prop_assert_eq!(Offsets::of(&s), offsets_by_find(&s));
        }
    }

    #[test]
    fn hierarchy() {
        assert!(UriRef::parse("http://a").is_hierarchical());
        assert!(UriRef::parse("foo:/x").is_hierarchical());
        assert!(!UriRef::parse("mailto:x@y").is_hierarchical());
        assert!(!UriRef::parse("urn:x:y").is_hierarchical());
        assert!(UriRef::parse("").is_same_document());
        assert!(UriRef::parse("#s").is_same_document());
        assert!(!UriRef::parse("?y").is_same_document());
        assert!(!UriRef::parse("g").is_same_document());
    }
}

