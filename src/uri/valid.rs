//! References written as URIs: the characters a URI cannot hold (RFC 2396 §2.4.3: controls,
//! space, `"`, `<`, `>`, and every non-ASCII character) percent-encoded as the URL Standard
//! encodes them, so what `rewrite` writes and `links` reports is a URI and is what a browser
//! would request.
//!
//! - Tab, line feed and carriage return are removed (URL Standard "basic URL parser"; RFC 2396
//!   Appendix E: whitespace in a URI is to be ignored).
//! - Path, fragment and userinfo: UTF-8, with the URL Standard's percent-encode set of each
//!   (path: C0 controls, space, `"`, `<`, `>`, `` ` ``, `{`, `}`, and DEL and above; fragment: the
//!   same without `{` and `}`).
//! - Query: the document's encoding (UTF-8 for UTF-16 documents) for a special scheme but ws/wss,
//!   else UTF-8; a character the encoding cannot encode
//!   written as `%26%23N%3B` (URL Standard "query state"); C0 controls, space, `"`, `<`, `>`.
//! - Host: IDNA (UTS #46 ToASCII) for a non-ASCII name, as the URL Standard's host parser does;
//!   percent-encoded UTF-8 where that fails.
//!
//! Everything else, `%` included, stays as it is: the function is idempotent.

use std::borrow::Cow;

use encoding_rs::Encoding;

/// Per byte: whether it may stay as it is in every component (a table: this runs over every
/// resolved URL, and a lookup is a third of the comparisons' instructions).
#[allow(clippy::indexing_slicing)] // `b < 256` indexes a 256-entry table: in bounds.
static FINE_EVERYWHERE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = b > 0x20 && b < 0x7f && !matches!(b, 0x22 | 0x3c | 0x3e | 0x60 | 0x7b | 0x7d);
        b += 1;
    }
    table
};

fn fine_everywhere(b: u8) -> bool {
    FINE_EVERYWHERE
        .get(usize::from(b))
        .copied()
        .unwrap_or(false)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Authority,
    Path,
    Query,
    Fragment,
}

/// Whether the ASCII byte `b` is percent-encoded in `part`.
fn encoded_in(part: Part, b: u8) -> bool {
    let always = b <= b' ' || b == 0x7f || matches!(b, b'"' | b'<' | b'>');
    always
        || match part {
            Part::Path | Part::Authority => matches!(b, b'`' | b'{' | b'}'),
            Part::Fragment => b == b'`',
            Part::Query => false,
        }
}

/// The encoding a URL's query is percent-encoded in (URL Standard "query state"): the
/// document's (UTF-8 for UTF-16 documents) for a special scheme but `ws`/`wss`, UTF-8 for every
/// other scheme (`mailto:?subject=é` is UTF-8 in any page). The url crate applies the same rule
/// to the whatwg profile's parse. A relative reference (no scheme) takes the document's: its
/// base's scheme is nearly always http(s).
fn query_encoding_of(scheme: Option<&str>, document: &'static Encoding) -> &'static Encoding {
    match scheme {
        Some(s)
            if !super::whatwg::is_special(s)
                || ["ws", "wss"].iter().any(|w| s.eq_ignore_ascii_case(w)) =>
        {
            encoding_rs::UTF_8
        }
        _ => document.output_encoding(),
    }
}

/// `uri` (an absolute URI or a reference as resolved) with what a URI cannot hold
/// percent-encoded; `query_encoding` is the document's encoding.
pub(crate) fn valid_uri<'a>(uri: &'a str, query_encoding: &'static Encoding) -> Cow<'a, str> {
    if uri.bytes().all(fine_everywhere) {
        return Cow::Borrowed(uri);
    }
    // The scheme and its `:` (RFC 2396 §3.1's grammar, as the URL Standard's); none for a
    // relative reference.
    let scheme = super::parse::UriRef::parse(uri).scheme;
    let query_encoding = query_encoding_of(scheme, query_encoding);
    let mut out = String::with_capacity(uri.len() + 16);
    let scheme_end = scheme.map_or(0, |s| s.len() + 1);
    out.push_str(uri.get(..scheme_end).unwrap_or_default());
    let mut rest = uri.get(scheme_end..).unwrap_or_default();
    let mut part = Part::Path;
    if rest.starts_with("//") {
        out.push_str("//");
        rest = rest.get(2..).unwrap_or_default();
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let (authority, after) = rest.split_at(end);
        push_authority(&mut out, authority);
        rest = after;
    }
    let mut chars = rest.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '\t' | '\n' | '\r' => continue,
            '?' if part == Part::Path => part = Part::Query,
            '#' if part != Part::Fragment => part = Part::Fragment,
            _ => {}
        }
        if c.is_ascii() {
            push_ascii(&mut out, part, c as u8);
        } else if part == Part::Query {
            // A run of non-ASCII characters, encoded together.
            let mut end = at + c.len_utf8();
            while let Some(&(next, n)) = chars.peek() {
                if n.is_ascii() {
                    break;
                }
                end = next + n.len_utf8();
                chars.next();
            }
            let run = rest.get(at..end).unwrap_or_default();
            // Bytes of the encoding, or an ASCII `%26%23N%3B` for a character it lacks (and
            // ISO-2022-JP's escapes, C0 controls).
            for &b in &super::whatwg::encode_query(query_encoding, run) {
                if b.is_ascii() {
                    push_ascii(&mut out, Part::Query, b);
                } else {
                    push_byte(&mut out, b);
                }
            }
        } else {
            let mut utf8 = [0u8; 4];
            for &b in c.encode_utf8(&mut utf8).as_bytes() {
                push_byte(&mut out, b);
            }
        }
    }
    Cow::Owned(out)
}

/// `userinfo@host:port`, the host's name through IDNA when it is not ASCII.
fn push_authority(out: &mut String, authority: &str) {
    let (userinfo, hostport) = match authority.rfind('@') {
        Some(at) => authority.split_at(at + 1),
        None => ("", authority),
    };
    for c in userinfo.chars() {
        push_char(out, Part::Authority, c);
    }
    // The port follows the last `:` outside an IP literal's brackets.
    let port_at = match hostport.rfind(':') {
        Some(colon) if !hostport.get(colon..).is_some_and(|p| p.contains(']')) => colon,
        _ => hostport.len(),
    };
    let (host, port) = hostport.split_at(port_at);
    // IDNA lets some characters through that a URI cannot hold (`ü ` gives `xn-- -1bb`): such a
    // name is percent-encoded instead (found by fuzz/pipeline.rs: not idempotent).
    let ascii = (!host.is_ascii())
        .then(|| idna::domain_to_ascii(host).ok())
        .flatten()
        .filter(|name| name.bytes().all(fine_everywhere));
    match ascii {
        Some(name) => out.push_str(&name),
        None => {
            for c in host.chars() {
                push_char(out, Part::Authority, c);
            }
        }
    }
    for c in port.chars() {
        push_char(out, Part::Authority, c);
    }
}

fn push_char(out: &mut String, part: Part, c: char) {
    if matches!(c, '\t' | '\n' | '\r') {
        return;
    }
    if c.is_ascii() {
        push_ascii(out, part, c as u8);
    } else {
        let mut utf8 = [0u8; 4];
        for &b in c.encode_utf8(&mut utf8).as_bytes() {
            push_byte(out, b);
        }
    }
}

fn push_ascii(out: &mut String, part: Part, b: u8) {
    if encoded_in(part, b) {
        push_byte(out, b);
    } else {
        out.push(char::from(b));
    }
}

/// `%XX`.
fn push_byte(out: &mut String, b: u8) {
    out.push_str(&format!("%{b:02X}"));
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn v(s: &str) -> String {
        valid_uri(s, encoding_rs::UTF_8).into_owned()
    }

    #[test]
    fn what_a_uri_cannot_hold_is_encoded_per_component() {
        assert_eq!(v("http://h/d/sp ace.html"), "http://h/d/sp%20ace.html");
        assert_eq!(v("http://h/a\nb\tc\rd"), "http://h/abcd");
        assert_eq!(v("http://h/ü?ä#ö"), "http://h/%C3%BC?%C3%A4#%C3%B6");
        assert_eq!(
            v("http://h/\"<>`{}|?\"<>`{}#\"<>`{}"),
            "http://h/%22%3C%3E%60%7B%7D|?%22%3C%3E`{}#%22%3C%3E%60{}"
        );
        assert_eq!(v("http://h/\u{1}\u{7f}"), "http://h/%01%7F");
        assert_eq!(
            v("http://bücher.example/x"),
            "http://xn--bcher-kva.example/x"
        );
        assert_eq!(v("http://ü ser@h:80/"), "http://%C3%BC%20ser@h:80/");
        assert_eq!(v("http://ü /x"), "http://%C3%BC%20/x");
        assert_eq!(v("http://[::1]:8080/a b"), "http://[::1]:8080/a%20b");
        // Already a URI: borrowed, and the function is idempotent.
        assert!(matches!(
            valid_uri("http://h/%20?a=%41#x", encoding_rs::UTF_8),
            Cow::Borrowed(_)
        ));
        let once = v("http://h/ü ß?q=ä ö#f g");
        assert_eq!(v(&once), once);
    }

    #[test]
    fn the_query_takes_the_documents_encoding() {
        let w1251 = encoding_rs::WINDOWS_1251;
        assert_eq!(valid_uri("http://h/с?с", w1251), "http://h/%D1%81?%F1");
        // A character the encoding lacks: an NCR, percent-encoded (URL Standard query state).
        assert_eq!(
            valid_uri("http://h/?€ü", encoding_rs::WINDOWS_1252),
            "http://h/?%80%FC"
        );
        assert_eq!(
            valid_uri("http://h/?ж", encoding_rs::WINDOWS_1252),
            "http://h/?%26%231078%3B"
        );
        // UTF-16 documents send UTF-8.
        assert_eq!(
            valid_uri("http://h/?ü", encoding_rs::UTF_16LE),
            "http://h/?%C3%BC"
        );
    }

    #[test]
    fn a_relative_reference_is_encoded_as_a_path() {
        assert_eq!(v("a b/c?d e"), "a%20b/c?d%20e");
        assert_eq!(v("1a:b c"), "1a:b%20c");
        assert_eq!(v("mailto:a b@c"), "mailto:a%20b@c");
    }
}
