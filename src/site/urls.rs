//! How the site compares and writes URLs: a reference's form, the keys a crawler's index and a
//! host are looked up by, percent-encoded path segments and relative paths.

use crate::uri::UriRef;

/// How a reference was written (RFC 2396 §3, §5): what a web root does with it depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Written {
    /// With a scheme or an authority: names its place itself.
    Absolute,
    /// An absolute path (`/docs/x.html`; `\docs` reads the same in a browser).
    PathAbsolute,
    /// A relative path, a query or a fragment.
    Relative,
}

impl Written {
    pub(super) fn of(original: &str) -> Self {
        let reference = original.trim_matches(crate::base::is_ascii_whitespace);
        let r = UriRef::parse(reference);
        if r.scheme.is_some() || r.authority.is_some() || reference.starts_with("\\\\") {
            Written::Absolute
        } else if reference.starts_with(['/', '\\']) {
            Written::PathAbsolute
        } else {
            Written::Relative
        }
    }
}

/// A value for a message: at most 60 characters of it (names may come from a tree's settings).
pub(super) fn excerpt(value: &str) -> String {
    match value.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", value.get(..at).unwrap_or(value)),
        None => value.to_owned(),
    }
}

/// A URL as a crawler's index is looked up by ([`super::Site::add_saved`]): without its fragment, the
/// scheme and authority as [`normal_authority`] makes them, and the hex digits of each `%XX`
/// upper-case (RFC 3986 §6.2.2.1: `%d1` and `%D1` are one URL; HTTrack's `new.txt` writes them
/// lower-case, a page's resolved links upper-case).
pub(super) fn saved_key(url: &str) -> String {
    let r = UriRef::parse(url);
    let mut key = String::with_capacity(url.len());
    if let Some(scheme) = r.scheme {
        key.push_str(&scheme.to_ascii_lowercase());
        key.push(':');
    }
    if let Some(authority) = r.authority {
        key.push_str("//");
        key.push_str(&normal_authority(authority));
    }
    let mut rest = r.path.to_owned();
    if let Some(q) = r.query {
        rest.push('?');
        rest.push_str(q);
    }
    let mut bytes = rest.into_bytes();
    let mut i = 0;
    while i + 2 < bytes.len() {
        if bytes.get(i) == Some(&b'%')
            && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
        {
            for b in bytes.get_mut(i + 1..i + 3).into_iter().flatten() {
                b.make_ascii_uppercase();
            }
            i += 3;
        } else {
            i += 1;
        }
    }
    key.push_str(&String::from_utf8_lossy(&bytes));
    key
}

/// An http(s) authority as one key: no user information, the host lower-cased, no default port.
pub(super) fn normal_authority(authority: &str) -> String {
    let host = authority
        .rsplit('@')
        .next()
        .unwrap_or(authority)
        .to_ascii_lowercase();
    for port in [":80", ":443"] {
        if let Some(h) = host.strip_suffix(port) {
            return h.to_owned();
        }
    }
    host
}

/// Whether two authorities name the same server: host case-insensitive, and a scheme's default
/// port the same as no port (RFC 2616 §3.2.3, RFC 3986 §6.2.3).
pub(super) fn same_authority(scheme: &str, a: &str, b: &str) -> bool {
    let default_port = match scheme.to_ascii_lowercase().as_str() {
        "http" | "ws" => ":80",
        "https" | "wss" => ":443",
        "ftp" => ":21",
        _ => "",
    };
    let strip = |s: &str| {
        let s = s.strip_suffix(':').unwrap_or(s);
        if default_port.is_empty() {
            s.to_ascii_lowercase()
        } else {
            s.strip_suffix(default_port)
                .unwrap_or(s)
                .to_ascii_lowercase()
        }
    };
    strip(a) == strip(b)
}

/// The shortest relative path from a page in directory `from_dirs` to the file `to` (both as
/// path segments from one root), each segment percent-encoded: `../b/x%20y.html`.
pub(crate) fn relative_path(from_dirs: &[&str], to: &[&str], out: &mut String) {
    let common = from_dirs
        .iter()
        .zip(to)
        .take_while(|(a, b)| a == b)
        .count()
        .min(to.len().saturating_sub(1));
    for _ in common..from_dirs.len() {
        out.push_str("../");
    }
    for (n, segment) in to.iter().skip(common).enumerate() {
        if n > 0 {
            out.push('/');
        }
        // `a:b.html` first in a relative reference would read as a scheme.
        if n == 0 && out.is_empty() && segment.contains(':') {
            out.push_str("./");
        }
        percent_encode_segment(segment, out);
    }
}

/// RFC 2396 §2.4.3: escape what may not appear in a path segment.
pub(super) fn percent_encode_segment(segment: &str, out: &mut String) {
    for b in segment.bytes() {
        let keep = b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'-' | b'_'
                    | b'.'
                    | b'!'
                    | b'~'
                    | b'*'
                    | b'\''
                    | b'('
                    | b')'
                    | b':'
                    | b'@'
                    | b'&'
                    | b'='
                    | b'+'
                    | b'$'
                    | b','
                    | b';'
            );
        if keep {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
}
