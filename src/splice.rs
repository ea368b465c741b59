//! ⑦ Byte splices: attribute values decoded as the tokenizer decodes them and escaped for the
//! quoting in use, a new value fitted into its old one's place, and the changes written into the
//! input's own bytes. Both engines write their output through here.

use std::ops::Range;

use encoding_rs::Encoding;

/// The edit plan both engines produce: ranges of the input, sorted and non-overlapping, each
/// with the bytes (in the document's encoding) that replace it. The streaming engine builds it
/// as it reads; the DOM engine's plan becomes one in [`splice`]; [`write_spliced`] writes it.
pub(crate) type Splices = Vec<(Range<usize>, Vec<u8>)>;

/// `bytes` with `splices` written in, to `out`.
pub(crate) fn write_spliced(
    bytes: &[u8],
    splices: &[(Range<usize>, Vec<u8>)],
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let mut at = 0;
    for (range, text) in splices {
        out.write_all(bytes.get(at..range.start).unwrap_or_default())?;
        out.write_all(text)?;
        at = range.end;
    }
    out.write_all(bytes.get(at..).unwrap_or_default())
}

/// `bytes` with the splices of two lists (each sorted) written in, in source order.
pub(crate) fn write_merged(
    bytes: &[u8],
    first: &[(Range<usize>, Vec<u8>)],
    second: &[(Range<usize>, Vec<u8>)],
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    if second.is_empty() {
        return write_spliced(bytes, first, out);
    }
    let mut merged: Vec<_> = first.iter().chain(second).cloned().collect();
    merged.sort_by_key(|(r, _)| r.start);
    write_spliced(bytes, &merged, out)
}

/// The splice that gives the attribute value at `range` of `bytes` the value `new`: escaped for
/// its quoting ([`escaped`]) and encoded in the document's `encoding`.
pub(crate) fn attribute(
    bytes: &[u8],
    range: Range<usize>,
    new: &str,
    encoding: &'static Encoding,
) -> Option<(Range<usize>, Vec<u8>)> {
    let (range, text) = escaped(bytes, range, new);
    Some((range, encoding.encode(&text).0.into_owned()))
}

/// `bytes` with `splices` written in.
pub(crate) fn apply(bytes: &[u8], splices: &[(Range<usize>, Vec<u8>)]) -> Vec<u8> {
    let extra: usize = splices.iter().map(|(_, b)| b.len()).sum();
    let mut out = Vec::with_capacity(bytes.len() + extra);
    // Writing into memory does not fail.
    let _ = write_spliced(bytes, splices, &mut out);
    out
}

/// The replacement of the value at `range`: `&` and the quote in use escaped; an unquoted value
/// is quoted when the new text needs it (HTML LS §13.2.5.38 unquoted attribute value state), the
/// quotes going just outside the range.
pub(crate) fn escaped(bytes: &[u8], range: Range<usize>, new: &str) -> (Range<usize>, String) {
    let before = range
        .start
        .checked_sub(1)
        .and_then(|i| bytes.get(i))
        .copied();
    let after = bytes.get(range.end).copied();
    escaped_around(before, after, range, new)
}

/// The splice that gives an attribute the value `new`: over its value's `range`, or, for a
/// valueless attribute whose name ends at `name_end`, an `="new"` inserted after the name.
/// `byte(i)` is the document's byte at offset `i` (where known). `None` without either range.
pub(crate) fn value_splice(
    byte: &dyn Fn(usize) -> Option<u8>,
    range: Option<Range<usize>>,
    name_end: Option<usize>,
    new: &str,
) -> Option<(Range<usize>, String)> {
    match (range, name_end) {
        (Some(range), _) => {
            let before = range.start.checked_sub(1).and_then(byte);
            let after = byte(range.end);
            Some(escaped_around(before, after, range, new))
        }
        (None, Some(end)) => {
            let (_, text) = escaped_around(None, None, 0..0, new);
            let quoted = if text.starts_with('"') {
                text
            } else {
                format!("\"{text}\"")
            };
            // `href=` with nothing before `>` (or `/`) has an `=` already: the value goes after
            // it, or the `=` would start another attribute.
            let mut at = end;
            while byte(at).is_some_and(|b| crate::base::is_ascii_whitespace(char::from(b))) {
                at += 1;
            }
            Some(if byte(at) == Some(b'=') {
                (at + 1..at + 1, quoted)
            } else {
                (end..end, format!("={quoted}"))
            })
        }
        (None, None) => None,
    }
}

/// [`escaped`], given the bytes just before and after the value.
pub(crate) fn escaped_around(
    before: Option<u8>,
    after: Option<u8>,
    range: Range<usize>,
    new: &str,
) -> (Range<usize>, String) {
    let quote = match (before, after) {
        (Some(q @ (b'"' | b'\'')), Some(a)) if a == q => Some(q),
        _ => None,
    };
    let needs_quotes = new.is_empty()
        || new.bytes().any(|c| {
            matches!(
                c,
                b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'"' | b'\'' | b'=' | b'<' | b'>' | b'`'
            )
        });
    let quote = match quote {
        Some(q) => char::from(q),
        None if needs_quotes => '"',
        None => '\0',
    };
    let mut text = String::with_capacity(new.len() + 2);
    let mut rest = new;
    // Copied a run at a time up to each `&` or quote.
    while let Some(at) = memchr::memchr3(b'&', b'"', b'\'', rest.as_bytes()) {
        let (run, tail) = rest.split_at(at);
        text.push_str(run);
        let c = tail.as_bytes().first().copied();
        text.push_str(match c {
            Some(b'&') => "&amp;",
            Some(b'"') if quote == '"' => "&quot;",
            Some(b'\'') if quote == '\'' => "&#39;",
            Some(b'"') => "\"",
            _ => "'",
        });
        rest = tail.get(1..).unwrap_or_default();
    }
    text.push_str(rest);
    if quote == '"' && !matches!(before, Some(b'"')) {
        return (range, format!("\"{text}\""));
    }
    (range, text)
}

/// An attribute value as the tokenizer gives it to the tree: decoded from the document's
/// encoding, newlines normalized (HTML LS §13.2.3.5), NUL replaced, and character references
/// decoded by the attribute-value rules (§13.2.5.72–80: a named reference without `;` followed
/// by `=` or an alphanumeric is left as written).
pub(crate) fn decode_attribute(raw: &[u8], encoding: &'static Encoding) -> Option<String> {
    let (text, had_errors) = encoding.decode_without_bom_handling(raw);
    if had_errors {
        return None;
    }
    // Most values have nothing to normalize or decode.
    if memchr::memchr3(b'&', b'\r', b'\0', text.as_bytes()).is_none() {
        return Some(text.into_owned());
    }
    let text = text
        .replace("\r\n", "\n")
        .replace(['\r'], "\n")
        .replace('\0', "\u{fffd}");
    if !text.contains('&') {
        return Some(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(amp) = rest.find('&') {
        out.push_str(rest.get(..amp)?);
        rest = rest.get(amp..)?;
        let (decoded, used) = char_ref(rest);
        match decoded {
            Some(s) => out.push_str(&s),
            None => out.push('&'),
        }
        rest = rest.get(used.max(1)..)?;
    }
    out.push_str(rest);
    Some(out)
}

/// The character reference at the start of `s` (which starts with `&`), in an attribute value:
/// what it decodes to, and how many bytes it takes (`None`, 1: a lone `&`).
fn char_ref(s: &str) -> (Option<String>, usize) {
    let body = s.get(1..).unwrap_or_default();
    if let Some(num) = body.strip_prefix('#') {
        let (hex, digits) = match num.strip_prefix(['x', 'X']) {
            Some(h) => (true, h),
            None => (false, num),
        };
        let len = digits
            .find(|c: char| {
                !(if hex {
                    c.is_ascii_hexdigit()
                } else {
                    c.is_ascii_digit()
                })
            })
            .unwrap_or(digits.len());
        if len == 0 {
            return (None, 1);
        }
        let value =
            u32::from_str_radix(digits.get(..len).unwrap_or("0"), if hex { 16 } else { 10 })
                .unwrap_or(u32::MAX);
        let semicolon = digits.get(len..).is_some_and(|r| r.starts_with(';'));
        let used = 2 + usize::from(hex) + len + usize::from(semicolon);
        return (Some(numeric(value).to_string()), used);
    }
    // Named: the longest entity name that the text starts with (HTML LS named character
    // reference state), from html5ever's own table.
    let mut best: Option<(usize, (u32, u32))> = None;
    for (i, c) in body.char_indices() {
        if !(c.is_ascii_alphanumeric() || c == ';') {
            break;
        }
        let end = i + c.len_utf8();
        let Some(name) = body.get(..end) else { break };
        match markup5ever::data::NAMED_ENTITIES.get(name) {
            Some(&(0, _)) => {}
            Some(&m) => best = Some((end, m)),
            None => break,
        }
        if c == ';' {
            break;
        }
    }
    let Some((len, (a, b))) = best else {
        return (None, 1);
    };
    let ends_with_semicolon = body.get(..len).is_some_and(|n| n.ends_with(';'));
    let next = body.get(len..).and_then(|r| r.chars().next());
    if !ends_with_semicolon && next.is_some_and(|c| c == '=' || c.is_ascii_alphanumeric()) {
        // Historical reasons: `&copy=1` in a URL stays as written.
        return (None, 1);
    }
    let mut decoded = String::new();
    decoded.extend(char::from_u32(a));
    if b != 0 {
        decoded.extend(char::from_u32(b));
    }
    (Some(decoded), 1 + len)
}

/// HTML LS §13.2.5.80 numeric character reference end state.
fn numeric(value: u32) -> char {
    const C1: [u32; 32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
        0x2039, 0x0152, 0x8D, 0x017D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013,
        0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ];
    match value {
        0 => '\u{fffd}',
        0x80..=0x9F => C1
            .get((value - 0x80) as usize)
            .and_then(|&v| char::from_u32(v))
            .unwrap_or('\u{fffd}'),
        v => char::from_u32(v).unwrap_or('\u{fffd}'),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn dec(s: &str) -> String {
        decode_attribute(s.as_bytes(), encoding_rs::UTF_8).unwrap()
    }

    #[test]
    fn attribute_values_decode_as_the_tokenizer_does() {
        assert_eq!(dec("a&amp;b"), "a&b");
        assert_eq!(dec("?a=1&copy=2"), "?a=1&copy=2");
        assert_eq!(dec("&copy;2"), "\u{a9}2");
        assert_eq!(dec("&copy 2"), "\u{a9} 2");
        assert_eq!(dec("&#65;&#x42;&#x43"), "ABC");
        assert_eq!(dec("&#128;"), "\u{20ac}");
        assert_eq!(dec("&#0;"), "\u{fffd}");
        assert_eq!(dec("&nosuch;&"), "&nosuch;&");
        assert_eq!(dec("a\r\nb\rc"), "a\nb\nc");
        // In an attribute, `&not` before an alphanumeric is left as written.
        assert_eq!(dec("&notin;&notit;"), "\u{2209}&notit;");
        assert_eq!(dec("&#;&#x;"), "&#;&#x;");
    }

    #[test]
    fn new_values_are_escaped_for_their_quotes() {
        let src = b"<a href=\"x\" b='y' c=z>";
        assert_eq!(escaped(src, 9..10, "a&\"'").1, "a&amp;&quot;'");
        assert_eq!(escaped(src, 15..16, "a&\"'").1, "a&amp;\"&#39;");
        assert_eq!(escaped(src, 20..21, "http://h/z").1, "http://h/z");
        assert_eq!(escaped(src, 20..21, "http://h/a b").1, "\"http://h/a b\"");
        assert_eq!(escaped(src, 20..21, "").1, "\"\"");
    }
}
