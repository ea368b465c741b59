//! The URL inside `<meta http-equiv=refresh content=...>`.

use std::ops::Range;

/// ASCII whitespace as HTML LS defines it: TAB, LF, FF, CR, SPACE.
fn is_ascii_ws(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

/// The byte range of the URL in a refresh `content` value, per HTML LS "shared declarative
/// refresh steps"; None when there is no URL (a delay-only value) or the value is not a valid
/// refresh.
///
/// The steps are followed as written (numbers are the spec's); the one liberty is that the
/// returned range excludes leading and trailing ASCII whitespace of the URL string. The spec
/// hands `urlString` to the URL parser, which strips those anyway ("leading and trailing C0
/// control or space"), so the meaning is the same, and a caller replacing only the range keeps
/// the surrounding bytes. An empty URL (`0; URL=`, `0; URL=''`) refreshes to the document
/// itself: there is nothing to rewrite, so it is None too.
pub(crate) fn refresh_url(content: &str) -> Option<Range<usize>> {
    let bytes = content.as_bytes();
    let at = |pos: usize| bytes.get(pos).copied();
    let skip = |mut pos: usize, pred: fn(u8) -> bool| {
        while at(pos).is_some_and(pred) {
            pos += 1;
        }
        pos
    };

    // 2–3. Skip ASCII whitespace.
    let mut pos = skip(0, is_ascii_ws);
    // 5. Collect ASCII digits (the delay).
    let digits_start = pos;
    pos = skip(pos, |b| b.is_ascii_digit());
    // 6. No digits: unless the next code point is `.`, return (not a refresh).
    if pos == digits_start && at(pos) != Some(b'.') {
        return None;
    }
    // 8. Collect and ignore ASCII digits and `.`.
    pos = skip(pos, |b| b.is_ascii_digit() || b == b'.');
    // 10. If position is not past the end of input:
    if pos < bytes.len() {
        // 10.1. The next code point must be `;`, `,` or ASCII whitespace, else return.
        if !at(pos).is_some_and(|b| b == b';' || b == b',' || is_ascii_ws(b)) {
            return None;
        }
        // 10.2. Skip ASCII whitespace.
        pos = skip(pos, is_ascii_ws);
        // 10.3. Skip one `;` or `,`.
        if matches!(at(pos), Some(b';' | b',')) {
            pos += 1;
        }
        // 10.4. Skip ASCII whitespace.
        pos = skip(pos, is_ascii_ws);
    }
    // 11. If position is past the end of input, there is no URL: a delay-only refresh.
    if pos >= bytes.len() {
        return None;
    }
    // 11.1. urlString is the rest of input; a jump to "parse" below uses this value.
    let url_string = pos..bytes.len();
    let url = 'url: {
        // 11.2–11.4. Case-insensitive `URL`: on `U` go on, otherwise jump to "skip quotes";
        // a `U` not followed by `R`, `L` jumps to "parse" (the URL starts at the `U`).
        if at(pos).is_some_and(|b| b.eq_ignore_ascii_case(&b'u')) {
            pos += 1;
            if !at(pos).is_some_and(|b| b.eq_ignore_ascii_case(&b'r')) {
                break 'url url_string;
            }
            pos += 1;
            if !at(pos).is_some_and(|b| b.eq_ignore_ascii_case(&b'l')) {
                break 'url url_string;
            }
            pos += 1;
            // 11.5. Skip ASCII whitespace.
            pos = skip(pos, is_ascii_ws);
            // 11.6. `=`, or jump to "parse".
            if at(pos) != Some(b'=') {
                break 'url url_string;
            }
            pos += 1;
            // 11.7. Skip ASCII whitespace.
            pos = skip(pos, is_ascii_ws);
        }
        // 11.8. Skip quotes: an opening `'` or `"` is remembered and skipped.
        let quote = at(pos).filter(|&b| b == b'\'' || b == b'"');
        if quote.is_some() {
            pos += 1;
        }
        // 11.9–11.10. urlString is the rest, truncated at the first matching quote if any.
        let end = quote
            .and_then(|q| {
                bytes
                    .get(pos..)
                    .and_then(|rest| rest.iter().position(|&b| b == q))
            })
            .map_or(bytes.len(), |i| pos + i);
        pos..end
    };
    // 11.11. Parse: the URL parser strips leading and trailing whitespace; so do we.
    let start = skip(url.start, is_ascii_ws).min(url.end);
    let end = bytes
        .get(start..url.end)
        .and_then(|s| s.iter().rposition(|&b| !is_ascii_ws(b)))
        .map_or(start, |i| start + i + 1);
    (start < end).then_some(start..end)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

    use super::*;

    /// The URL text, for readable assertions.
    fn url(content: &str) -> Option<&str> {
        refresh_url(content).map(|r| &content[r])
    }

    #[test]
    fn delay_only() {
        assert_eq!(refresh_url("5"), None);
        assert_eq!(refresh_url("  5  "), None);
        assert_eq!(refresh_url("5;"), None);
        assert_eq!(refresh_url("5 ; "), None);
        assert_eq!(refresh_url("3.5"), None);
        assert_eq!(refresh_url(".5"), None);
        assert_eq!(refresh_url(""), None);
        assert_eq!(refresh_url("   "), None);
    }

    #[test]
    fn url_with_keyword() {
        assert_eq!(refresh_url("5; URL=foo"), Some(7..10));
        assert_eq!(refresh_url("0;url=foo"), Some(6..9));
        assert_eq!(url("0;UrL=foo"), Some("foo"));
        assert_eq!(url("0;url=http://x/a?b=c;d"), Some("http://x/a?b=c;d"));
    }

    #[test]
    fn quoted_url_ends_at_matching_quote() {
        let c = "0; url = 'foo bar' x";
        assert_eq!(refresh_url(c), Some(10..17));
        assert_eq!(url(c), Some("foo bar"));
        assert_eq!(refresh_url(r#"3.5; URL="a.html""#), Some(10..16));
        assert_eq!(url(r#"0; url="a'b" c"#), Some("a'b"));
        // No closing quote: to the end.
        assert_eq!(url("0; url='foo"), Some("foo"));
        // Quotes without `URL=` are skipped too (the "skip quotes" step).
        assert_eq!(url("0; 'foo' bar"), Some("foo"));
    }

    #[test]
    fn url_without_keyword() {
        assert_eq!(refresh_url("0,foo"), Some(2..5));
        assert_eq!(refresh_url("0 foo"), Some(2..5));
        assert_eq!(url("0\tfoo"), Some("foo"));
        assert_eq!(url("0;foo bar "), Some("foo bar"));
    }

    #[test]
    fn no_delay_is_not_a_refresh() {
        assert_eq!(refresh_url("; url=x"), None);
        assert_eq!(refresh_url("url=foo"), None);
        assert_eq!(refresh_url("x; url=foo"), None);
    }

    #[test]
    fn delay_must_be_followed_by_separator() {
        // Step 10.1: after the delay comes `;`, `,` or whitespace.
        assert_eq!(refresh_url("0foo"), None);
        assert_eq!(refresh_url("0:url=foo"), None);
        assert_eq!(url("1.2.3, foo"), Some("foo"));
    }

    #[test]
    fn empty_url_is_none() {
        assert_eq!(refresh_url("0;URL="), None);
        assert_eq!(refresh_url("0; URL = "), None);
        assert_eq!(refresh_url("0; URL=''"), None);
        assert_eq!(refresh_url("0; URL=\"\" x"), None);
        assert_eq!(refresh_url("0; URL=' '"), None);
    }

    #[test]
    fn whitespace_everywhere() {
        let c = "  7  ;  URL  =  \"q\" ";
        assert_eq!(refresh_url(c), Some(17..18));
        assert_eq!(url(c), Some("q"));
        // Trailing whitespace of an unquoted URL is not part of the range.
        assert_eq!(refresh_url("0; url=foo \t\n"), Some(7..10));
    }

    #[test]
    fn url_keyword_not_followed_by_equals_starts_the_url() {
        // Steps 11.2–11.6 jump to "parse" with urlString starting at the `U`.
        assert_eq!(refresh_url("0; URLfoo"), Some(3..9));
        assert_eq!(url("0; URL foo"), Some("URL foo"));
        assert_eq!(url("0; Ufoo"), Some("Ufoo"));
        assert_eq!(url("0; URfoo"), Some("URfoo"));
        assert_eq!(url("0; u"), Some("u"));
        // A quote after a failed `URL` match is part of the URL, not skipped.
        assert_eq!(url("0; URL 'x'"), Some("URL 'x'"));
    }

    #[test]
    fn only_one_separator_is_skipped() {
        assert_eq!(url("0;;foo"), Some(";foo"));
        assert_eq!(url("0, ;foo"), Some(";foo"));
    }

    #[test]
    fn non_ascii() {
        assert_eq!(url("0; url=é.html"), Some("é.html"));
        assert_eq!(url("0; url=\u{A0}x\u{A0}"), Some("\u{A0}x\u{A0}"));
        assert_eq!(refresh_url("é; url=x"), None);
    }

    use crate::testutil::XorShift;

    #[test]
    fn pseudo_random_inputs_never_panic() {
        let alphabet = [
            "0", "1", ".", ";", ",", " ", "\t", "\n", "u", "U", "r", "R", "l", "L", "=", "'", "\"",
            "x", "é", "/",
        ];
        let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
        for _ in 0..5000 {
            let c = rng.string(&alphabet, 23);
            if let Some(r) = refresh_url(&c) {
                let u = c.get(r.clone()).expect("range on char boundaries");
                assert!(!u.is_empty(), "{c:?}");
                assert_eq!(u, u.trim_matches(|ch: char| ch.is_ascii_whitespace()));
                assert!(c
                    .trim_start()
                    .starts_with(|ch: char| ch.is_ascii_digit() || ch == '.'));
            }
        }
    }
}
