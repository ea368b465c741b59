//! ARC URL lines (ARC file format 1.0, "URL record definition"): the line that opens each
//! record, parsed and looked for.

/// A URL line, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct UrlLine {
    pub(super) url: String,
    pub(super) ip: String,
    pub(super) date: String,
    pub(super) content_type: String,
    pub(super) length: u64,
}

/// How long a URL line may be.
pub(super) const MAX_LINE: usize = 64 * 1024;

/// Parses a URL line (without its newline) by the file's layout, the fields counted from the
/// end so that a URL with spaces in it is read whole. Strict enough that a line of HTML is not
/// taken for one: an IP-address field of digits and dots (or `0.0.0.0`-like), a date of 12 to
/// 14 digits, a length of digits.
pub(super) fn parse_url_line(line: &[u8], version: u8) -> Option<UrlLine> {
    // A file whose version block is damaged or missing: the other layout is tried too.
    parse_layout(line, version).or_else(|| parse_layout(line, if version == 2 { 1 } else { 2 }))
}

fn parse_layout(line: &[u8], version: u8) -> Option<UrlLine> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let text = std::str::from_utf8(line).ok()?;
    let fields: Vec<&str> = text.split(' ').filter(|f| !f.is_empty()).collect();
    let tail = if version == 2 && fields.len() >= 10 {
        9
    } else {
        4
    };
    if fields.len() < tail + 1 {
        return None;
    }
    let url_end = fields.len() - tail;
    let url = fields.get(..url_end)?.join(" ");
    let ip = *fields.get(url_end)?;
    let date = *fields.get(url_end + 1)?;
    let content_type = *fields.get(url_end + 2)?;
    let length = *fields.last()?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let ip_ok = !ip.is_empty()
        && ip
            .bytes()
            .all(|b| b.is_ascii_hexdigit() || b == b'.' || b == b':' || b == b'-');
    // A URL starts with a scheme (RFC 2396 §3.1) and its colon.
    let scheme = url.split_once(':').is_some_and(|(s, _)| {
        s.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
    });
    if !scheme || !ip_ok || !digits(date) || !(12..=14).contains(&date.len()) {
        return None;
    }
    Some(UrlLine {
        url,
        ip: ip.to_owned(),
        date: date.to_owned(),
        content_type: content_type.to_owned(),
        length: length.parse().ok().filter(|_| digits(length))?,
    })
}

/// `line` without its `\n` or `\r\n`.
pub(super) fn trim_nl(line: &[u8]) -> &[u8] {
    let l = line.strip_suffix(b"\n").unwrap_or(line);
    l.strip_suffix(b"\r").unwrap_or(l)
}

/// Where a URL line starts inside `block` (after a newline), if one does.
pub(super) fn find_url_line(block: &[u8], version: u8) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = memchr::memchr(b'\n', block.get(from..)?) {
        let start = from + i + 1;
        let rest = block.get(start..)?;
        let end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
        if parse_url_line(rest.get(..end)?, version).is_some() {
            return Some(start);
        }
        from = start;
    }
    None
}
