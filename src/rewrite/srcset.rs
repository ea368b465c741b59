//! URL lists inside attribute values: `srcset`/`imagesrcset` (HTML LS "parse a srcset
//! attribute"), whitespace-separated lists (`a@ping`, `object@archive`, `head@profile`) and
//! comma-separated lists (`applet@archive`, HTML 4.01).
//!
//! Every function returns byte ranges of the URLs inside the value, in order, and nothing else:
//! separators and descriptors are never part of a range, so a caller that replaces only the
//! ranges keeps every other byte of the value as it was.

use std::ops::Range;

/// ASCII whitespace as HTML LS defines it: TAB, LF, FF, CR, SPACE.
fn is_ascii_ws(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

/// The first index at or after `from` whose byte does not satisfy `pred` (or `bytes.len()`).
fn skip_while(bytes: &[u8], from: usize, pred: impl Fn(u8) -> bool) -> usize {
    bytes
        .get(from..)
        .and_then(|rest| rest.iter().position(|&b| !pred(b)))
        .map_or(bytes.len(), |i| from + i)
}

/// Byte ranges of each image candidate's URL within a srcset/imagesrcset value, in order.
///
/// HTML LS §4.8.4.3.10 "parse a srcset attribute", steps as numbered there:
/// - "splitting loop": skip ASCII whitespace and commas (leading and doubled commas are
///   tolerated parse errors);
/// - the URL is the following run of non-ASCII-whitespace (commas inside it are part of it);
/// - if that run ends with commas, they are removed from the URL and end the candidate (it has
///   no descriptors);
/// - otherwise the descriptor tokenizer runs to the next comma outside parentheses (a `(`
///   opens a parenthesised part that only `)` closes; the tokenizer does not nest them) or to
///   the end. Descriptors, valid or not, are skipped over and never yield a URL.
///
/// The spec's consequence that `a.png,,b.png,` is *one* URL (`a.png,,b.png`: the run has no
/// whitespace) is kept: browsers parse it that way.
pub(crate) fn srcset_urls(value: &str) -> Vec<Range<usize>> {
    let bytes = value.as_bytes();
    let mut urls = Vec::new();
    let mut pos = 0;
    loop {
        // Splitting loop: collect ASCII whitespace and commas.
        pos = skip_while(bytes, pos, |b| is_ascii_ws(b) || b == b',');
        if pos >= bytes.len() {
            return urls;
        }
        // Collect a sequence of code points that are not ASCII whitespace: the URL.
        let start = pos;
        pos = skip_while(bytes, pos, |b| !is_ascii_ws(b));
        let run = bytes.get(start..pos).unwrap_or_default();
        // Trailing commas are removed from the URL and end the candidate.
        let url_len = run.iter().rposition(|&b| b != b',').map_or(0, |i| i + 1);
        // `start` is not a comma (the splitting loop skipped them), so `url_len >= 1`.
        urls.push(start..start + url_len);
        if url_len < run.len() {
            continue;
        }
        // Descriptor tokenizer: runs to the first comma outside parentheses, which it consumes.
        let mut in_parens = false;
        while let Some(&b) = bytes.get(pos) {
            pos += 1;
            if in_parens {
                if b == b')' {
                    in_parens = false;
                }
            } else if b == b',' {
                break;
            } else if b == b'(' {
                in_parens = true;
            }
        }
    }
}

/// Ranges of each token of a list of URLs separated by ASCII whitespace (a@ping, object@archive,
/// head@profile).
///
/// HTML LS "split a string on ASCII whitespace"; HTML 4.01 §13.3 (`archive`: "a space-separated
/// list of URIs") and §7.4.4.3 (`profile`, whose HTML 4.01 text allows one URI, browsers of the
/// time treated it as a space-separated list; so do we).
pub(crate) fn space_separated_urls(value: &str) -> Vec<Range<usize>> {
    let bytes = value.as_bytes();
    let mut urls = Vec::new();
    let mut pos = 0;
    loop {
        pos = skip_while(bytes, pos, is_ascii_ws);
        if pos >= bytes.len() {
            return urls;
        }
        let start = pos;
        pos = skip_while(bytes, pos, |b| !is_ascii_ws(b));
        urls.push(start..pos);
    }
}

/// Ranges of each comma-separated URL, each trimmed of ASCII whitespace, empty items skipped
/// (applet@archive, HTML 4.01 §13.4: "a comma-separated list of URIs").
pub(crate) fn comma_separated_urls(value: &str) -> Vec<Range<usize>> {
    let bytes = value.as_bytes();
    let mut urls = Vec::new();
    let mut item_start = 0;
    while item_start <= bytes.len() {
        let item_end = bytes
            .get(item_start..)
            .and_then(|rest| rest.iter().position(|&b| b == b','))
            .map_or(bytes.len(), |i| item_start + i);
        let start = skip_while(bytes, item_start, is_ascii_ws).min(item_end);
        let end = bytes
            .get(start..item_end)
            .and_then(|item| item.iter().rposition(|&b| !is_ascii_ws(b)))
            .map_or(start, |i| start + i + 1);
        if start < end {
            urls.push(start..end);
        }
        item_start = item_end + 1;
    }
    urls
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

    use super::*;

    /// The URL texts (not just ranges), for readable assertions.
    fn texts<'a>(value: &'a str, ranges: &[Range<usize>]) -> Vec<&'a str> {
        ranges.iter().map(|r| &value[r.clone()]).collect()
    }

    #[test]
    fn srcset_single() {
        assert_eq!(srcset_urls("a.png"), vec![0..5]);
    }

    #[test]
    fn srcset_two_candidates() {
        assert_eq!(srcset_urls("a.png 1x, b.png 2x"), vec![0..5, 10..15]);
    }

    #[test]
    fn srcset_no_space_after_comma() {
        assert_eq!(srcset_urls("a.png 1x,b.png 2x"), vec![0..5, 9..14]);
    }

    #[test]
    fn srcset_commas_without_whitespace_are_one_url() {
        // The non-whitespace run is `a.png,,b.png,`; only its trailing comma goes.
        let v = ",a.png,,b.png,";
        assert_eq!(srcset_urls(v), vec![1..13]);
        assert_eq!(texts(v, &srcset_urls(v)), vec!["a.png,,b.png"]);
    }

    #[test]
    fn srcset_leading_doubled_trailing_commas_between_candidates() {
        let v = ", ,a.png 1x,, b.png,  ,";
        assert_eq!(texts(v, &srcset_urls(v)), vec!["a.png", "b.png"]);
        assert_eq!(srcset_urls(v), vec![3..8, 14..19]);
    }

    #[test]
    fn srcset_comma_inside_url() {
        assert_eq!(srcset_urls("a,b.png 1x"), vec![0..7]);
    }

    #[test]
    fn srcset_data_url() {
        let v = "data:image/png;base64,AAA= 1x, b.png 2x";
        assert_eq!(srcset_urls(v), vec![0..26, 31..36]);
        assert_eq!(
            texts(v, &srcset_urls(v)),
            vec!["data:image/png;base64,AAA=", "b.png"]
        );
    }

    #[test]
    fn srcset_parenthesised_descriptor_comma() {
        let v = "a.png (x, y) 1x, b.png";
        assert_eq!(srcset_urls(v), vec![0..5, 17..22]);
    }

    #[test]
    fn srcset_unclosed_paren_swallows_rest() {
        // The descriptor tokenizer stays "in parens" to the end: `b.png` is a descriptor.
        assert_eq!(srcset_urls("a.png (1x, b.png 2x"), vec![0..5]);
        // `)` outside parentheses is an ordinary descriptor character.
        assert_eq!(srcset_urls("a.png 1x), b.png"), vec![0..5, 11..16]);
    }

    #[test]
    fn srcset_spaces_around() {
        let v = "  a.png   100w  ,  b.png 200w  ";
        assert_eq!(srcset_urls(v), vec![2..7, 19..24]);
    }

    #[test]
    fn srcset_trailing_comma_after_descriptor() {
        assert_eq!(srcset_urls("a.png 1x,"), vec![0..5]);
    }

    #[test]
    fn srcset_url_ending_in_commas_has_no_descriptors() {
        // `a.png,` ends the candidate; `1x` starts a new candidate (an invalid one, but the
        // spec's parser still yields its URL).
        assert_eq!(srcset_urls("a.png, 1x"), vec![0..5, 7..9]);
        assert_eq!(srcset_urls("a.png,,, b.png"), vec![0..5, 9..14]);
    }

    #[test]
    fn srcset_invalid_descriptors_skipped() {
        let v = "a.png foo bar baz, b.png 1x 2x 100w, c.png";
        assert_eq!(texts(v, &srcset_urls(v)), vec!["a.png", "b.png", "c.png"]);
    }

    #[test]
    fn srcset_empty_whitespace_commas() {
        assert!(srcset_urls("").is_empty());
        assert!(srcset_urls(" \t\n\r\x0C ").is_empty());
        assert!(srcset_urls(",,,").is_empty());
        assert!(srcset_urls(" , , ").is_empty());
    }

    #[test]
    fn srcset_non_ascii_whitespace_is_part_of_url() {
        // U+00A0 is not ASCII whitespace.
        let v = "a\u{A0}b.png 1x";
        assert_eq!(texts(v, &srcset_urls(v)), vec!["a\u{A0}b.png"]);
        let v = "é.png 1x, ü.png";
        assert_eq!(texts(v, &srcset_urls(v)), vec!["é.png", "ü.png"]);
    }

    #[test]
    fn space_separated() {
        assert!(space_separated_urls("").is_empty());
        assert!(space_separated_urls(" \t\n ").is_empty());
        assert_eq!(space_separated_urls("a"), vec![0..1]);
        let v = "  /ping1 \t http://x/p2\n/p3 ";
        assert_eq!(
            texts(v, &space_separated_urls(v)),
            vec!["/ping1", "http://x/p2", "/p3"]
        );
        assert_eq!(space_separated_urls(v), vec![2..8, 11..22, 23..26]);
        // Commas are ordinary characters here.
        assert_eq!(space_separated_urls("a,b c"), vec![0..3, 4..5]);
    }

    #[test]
    fn comma_separated() {
        assert!(comma_separated_urls("").is_empty());
        assert!(comma_separated_urls(" , ,, ").is_empty());
        assert_eq!(comma_separated_urls("a.jar"), vec![0..5]);
        let v = " a.jar , b.jar,,c d.jar ,";
        assert_eq!(
            texts(v, &comma_separated_urls(v)),
            vec!["a.jar", "b.jar", "c d.jar"]
        );
        assert_eq!(comma_separated_urls(v), vec![1..6, 9..14, 16..23]);
        assert_eq!(comma_separated_urls(",x,"), vec![1..2]);
    }

    use crate::testutil::XorShift;

    fn check_ranges(value: &str, ranges: &[Range<usize>]) {
        let mut last_end = 0;
        for r in ranges {
            assert!(r.start < r.end, "empty range {r:?} in {value:?}");
            assert!(r.start >= last_end, "overlap {ranges:?} in {value:?}");
            assert!(
                value.get(r.clone()).is_some(),
                "bad range {r:?} in {value:?}"
            );
            last_end = r.end;
        }
    }

    #[test]
    fn pseudo_random_inputs_never_panic() {
        let alphabet = [
            "a", "b", ".", "/", ",", ",", " ", " ", "\t", "\n", "\r", "\x0C", "(", ")", "1x", "2w",
            "é", "\u{A0}", ";", "=",
        ];
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        for _ in 0..5000 {
            let v = rng.string(&alphabet, 40);
            let srcset = srcset_urls(&v);
            check_ranges(&v, &srcset);
            for r in &srcset {
                let url = &v[r.clone()];
                assert!(!url.bytes().any(is_ascii_ws), "{url:?} from {v:?}");
                assert!(!url.starts_with(',') && !url.ends_with(','), "{url:?}");
            }
            let spaces = space_separated_urls(&v);
            check_ranges(&v, &spaces);
            for r in &spaces {
                assert!(!v[r.clone()].bytes().any(is_ascii_ws));
            }
            let commas = comma_separated_urls(&v);
            check_ranges(&v, &commas);
            for r in &commas {
                let url = &v[r.clone()];
                assert!(!url.contains(','));
                assert_eq!(url, url.trim_matches(|c: char| c.is_ascii_whitespace()));
            }
        }
    }
}
