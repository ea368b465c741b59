//! RFC 1808 (1995), "Relative Uniform Resource Locators": the §2.4 parse and the §4 algorithm.
//!
//! It differs from RFC 2396 in three ways that matter: `;params` are a component of their own
//! (split at the first `;` of the path, §2.4.5), an empty path inherits the base path, params and
//! query (§4 step 5: `?y` gives `http://a/b/c/d;p?y`), and the empty reference inherits the whole
//! base, fragment included (§4 step 2a).

use super::options::{ResolveOptions, SameScheme};
use super::parse::UriRef;
use super::path::{merge_paths, write_tail, Failure};

/// A URL split per RFC 1808 §2.4. The path keeps its leading `/`, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Url1808<'a> {
    scheme: Option<&'a str>,
    net_loc: Option<&'a str>,
    path: &'a str,
    params: Option<&'a str>,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

impl<'a> Url1808<'a> {
    /// §2.4.1–§2.4.6, in the RFC's order: fragment, scheme, net_loc, query, params, path.
    fn parse(input: &'a str) -> Url1808<'a> {
        let (rest, fragment) = split_off(input, '#');
        // §2.4.2: a colon after the first character, every character before it a scheme
        // character (§2.1: alphanumerics, "+", ".", "-").
        let (scheme, rest) = match rest.split_once(':') {
            Some((s, after))
                if !s.is_empty()
                    && s.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-')) =>
            {
                (Some(s), after)
            }
            _ => (None, rest),
        };
        // §2.4.3: "//" and everything up to the next "/".
        let (net_loc, rest) = match rest.strip_prefix("//") {
            Some(after) => match after.find('/') {
                Some(i) => (after.get(..i), after.get(i..).unwrap_or_default()),
                None => (Some(after), ""),
            },
            None => (None, rest),
        };
        let (rest, query) = split_off(rest, '?');
        let (path, params) = split_off(rest, ';');
        Url1808 {
            scheme,
            net_loc,
            path,
            params,
            query,
            fragment,
        }
    }

    /// Whether every component is empty or absent (§4 step 2a).
    fn is_empty(&self) -> bool {
        self.scheme.is_none()
            && self.net_loc.is_none()
            && self.path.is_empty()
            && self.params.is_none()
            && self.query.is_none()
            && self.fragment.is_none()
    }
}

/// Splits at the first `delimiter`: (before, after it if present).
fn split_off(s: &str, delimiter: char) -> (&str, Option<&str>) {
    match s.split_once(delimiter) {
        Some((before, after)) => (before, Some(after)),
        None => (s, None),
    }
}

fn non_empty(s: Option<&str>) -> bool {
    s.is_some_and(|s| !s.is_empty())
}

/// RFC 1808 §4, steps 1–7, appending the absolute URL to `out`.
pub(super) fn resolve(
    base_str: &str,
    reference: &str,
    options: &ResolveOptions,
    out: &mut String,
) -> Result<(), Failure> {
    let base = Url1808::parse(base_str);
    let mut r = Url1808::parse(reference);

    // Step 2a: the empty reference is the whole base, fragment included.
    if r.is_empty() {
        out.push_str(base_str);
        return Ok(());
    }
    // Step 2b: a scheme makes it absolute — unless the same-scheme loophole of §5.2 is asked for.
    if let Some(scheme) = r.scheme {
        let loophole = options.same_scheme == SameScheme::Compat
            && base.scheme.is_some_and(|b| b.eq_ignore_ascii_case(scheme))
            && (base.net_loc.is_some() || base.path.starts_with('/'));
        if !loophole {
            out.push_str(reference);
            return Ok(());
        }
        r.scheme = None;
    }
    // Only a fragment: the base without its fragment, then the reference's (steps 3–5 inherit
    // everything else). Allowed against an opaque base too.
    let fragment_only =
        r.net_loc.is_none() && r.path.is_empty() && r.params.is_none() && r.query.is_none();
    let hierarchical = base.net_loc.is_some() || base.path.starts_with('/');
    if !hierarchical && !fragment_only {
        return Err(Failure::Opaque);
    }

    // Step 2c: inherit the scheme.
    if let Some(scheme) = base.scheme {
        out.push_str(scheme);
        out.push(':');
    }
    // Step 3: a non-empty net_loc ends the inheritance.
    if non_empty(r.net_loc) {
        push_net_loc(out, r.net_loc);
        out.push_str(r.path);
        write_params(out, r.params);
        write_tail(out, r.query, r.fragment);
        return Ok(());
    }
    push_net_loc(out, base.net_loc);
    // Step 4: a path preceded by a slash is used as it is.
    if r.path.starts_with('/') {
        out.push_str(r.path);
        write_params(out, r.params);
        write_tail(out, r.query, r.fragment);
        return Ok(());
    }
    // Step 5: an empty path inherits the base path, then params and query unless given.
    if r.path.is_empty() {
        out.push_str(base.path);
        if non_empty(r.params) {
            write_params(out, r.params);
            write_tail(out, r.query, r.fragment);
        } else {
            write_params(out, base.params);
            let query = if non_empty(r.query) {
                r.query
            } else {
                base.query
            };
            write_tail(out, query, r.fragment);
        }
        return Ok(());
    }
    // Step 6: the base path without its last segment, then the reference path; dot segments are
    // removed exactly as in RFC 2396 step 6 (shared code), params never take part.
    let base_for_merge = UriRef {
        scheme: base.scheme,
        authority: base.net_loc,
        path: base.path,
        query: None,
        fragment: None,
    };
    merge_paths(out, &base_for_merge, r.path, options.dot_segment_policy())?;
    // Step 7: recombine.
    write_params(out, r.params);
    write_tail(out, r.query, r.fragment);
    Ok(())
}

fn push_net_loc(out: &mut String, net_loc: Option<&str>) {
    if let Some(net_loc) = net_loc {
        out.push_str("//");
        out.push_str(net_loc);
    }
}

fn write_params(out: &mut String, params: Option<&str>) {
    if let Some(params) = params {
        out.push(';');
        out.push_str(params);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_in_the_rfc_order() {
        let u = Url1808::parse("http://a/b/c/d;p?q#f");
        assert_eq!(u.scheme, Some("http"));
        assert_eq!(u.net_loc, Some("a"));
        assert_eq!(u.path, "/b/c/d");
        assert_eq!(u.params, Some("p"));
        assert_eq!(u.query, Some("q"));
        assert_eq!(u.fragment, Some("f"));
        // Params start at the first ';' of the whole path (§2.4.5).
        let u = Url1808::parse("g;x=1/./y");
        assert_eq!((u.path, u.params), ("g", Some("x=1/./y")));
        // §2.1 allows a digit first in a scheme.
        assert_eq!(Url1808::parse("1a:b").scheme, Some("1a"));
    }
}
