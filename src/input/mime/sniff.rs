//! Whether input is a MIME message or a plain mail: its first heading, looked at.

/// Whether `bytes` look like a MIME message rather than an HTML document: an RFC 822 heading
/// (a `Name:` field on the first line, no `<` before it) that names MIME or a content type.
/// The whole heading counts, up to its blank line (or the end of `bytes`): a mail's MIME
/// fields may follow kilobytes of `Received:` lines.
pub fn looks_like_message(bytes: &[u8]) -> bool {
    let Some((heading, _)) = heading(bytes) else {
        return false;
    };
    let lower = heading.to_ascii_lowercase();
    [
        &b"\nmime-version:"[..],
        b"\ncontent-type:",
        b"\ncontent-location:",
    ]
    .iter()
    .any(|f| memchr::memmem::find(&lower, f).is_some())
        || lower.starts_with(b"mime-version:")
        || lower.starts_with(b"content-type:")
}

/// Whether `bytes` start with a heading of mail fields only (RFC 5322 §2.2: `Name:` lines and
/// their folded continuations, up to a blank line) among which at least two of a mail's own
/// (`From`, `To`, `Subject`, `Date`, `Received`, `Return-Path`, `Message-ID`): a mail without
/// MIME fields, read as text/plain (RFC 2045 §5.2).
pub fn looks_like_mail(bytes: &[u8]) -> bool {
    // The heading must end in a blank line inside `bytes`.
    let Some((heading, true)) = heading(bytes) else {
        return false;
    };
    let mut known = 0;
    for line in heading.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() || line.starts_with(b" ") || line.starts_with(b"\t") {
            continue;
        }
        let Some(colon) = memchr::memchr(b':', line) else {
            return false;
        };
        let name = line.get(..colon).unwrap_or_default();
        if name.is_empty() || !name.iter().all(|&b| b.is_ascii_graphic() && b != b':') {
            return false;
        }
        let mail = [
            &b"from"[..],
            b"to",
            b"subject",
            b"date",
            b"received",
            b"return-path",
            b"message-id",
        ];
        known += usize::from(mail.iter().any(|m| name.eq_ignore_ascii_case(m)));
    }
    known >= 2
}

/// The heading `bytes` start with (a BOM passed): up to its blank line, or all of `bytes`;
/// `None` when the first line is no `Name:` field. The flag: it ends in a blank line.
fn heading(bytes: &[u8]) -> Option<(&[u8], bool)> {
    let head = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let first = head.split(|&b| b == b'\n').next()?;
    let is_field = first.iter().position(|&b| b == b':').is_some_and(|i| {
        i > 0
            && first
                .get(..i)
                .is_some_and(|n| n.iter().all(|&b| b.is_ascii_graphic() && b != b':'))
    });
    if !is_field {
        return None;
    }
    let lf = memchr::memmem::find(head, b"\n\n");
    let crlf = memchr::memmem::find(head, b"\r\n\r\n");
    match lf.into_iter().chain(crlf).min() {
        Some(end) => Some((head.get(..end)?, true)),
        None => Some((head, false)),
    }
}
