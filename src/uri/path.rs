//! The path steps §5.2 of RFC 2396, RFC 1808 §4 and RFC 3986 §5.2 share: step 6's merge and
//! dot-segment removal, step 7's recombination, and the internal failure they report.

use super::options::DotSegments;
use super::parse::UriRef;

/// Internal failure, turned into a [`ResolveError`] with the owned strings only when it happens.
pub(super) enum Failure {
    Opaque,
    AboveRoot,
    Whatwg(String),
}

/// Whether `path` has a `.` or `..` segment.
pub(super) fn has_dot_segment(path: &[u8]) -> bool {
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
pub(super) fn pop_segment(out: &mut String, path_start: usize) -> bool {
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
pub(super) fn pop_3986(out: &mut String, start: usize) {
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
