//! ① MIME messages (`.eml`, `.mht`, `.mhtml`): the part tree, with absolute byte spans into the
//! input, built by `mailparse` behind this adapter. No other module sees a mailparse type.
//!
//! `message/rfc822` bodies are descended into (RFC 2046 §5.2.1): the enclosed message is a new
//! scope for matching (RFC 2557 §7) but its headings are still a base source. Nesting is bounded.

use std::ops::Range;

use mailparse::{MailHeaderMap, ParsedMail};

use super::Headers;

/// How deep `message/rfc822` nesting is followed (mailparse bounds multipart nesting itself).
const MAX_MESSAGE_DEPTH: usize = 16;

/// What a part is, structurally.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartKind {
    /// A leaf: text/html, image/png, …
    Leaf,
    /// `multipart/*`: its children are parts.
    Multipart,
    /// `message/rfc822`: its one child is the enclosed message.
    Message,
}

/// One entity of a MIME message: the top-level message, a multipart, a leaf, an enclosed message.
#[derive(Debug, Clone)]
pub struct Part {
    /// IMAP section path (RFC 3501 §6.4.5): `1`, `1.2`, …; empty for the top-level message.
    pub path: String,
    /// Heading fields, unfolded, RFC 2047-decoded.
    pub headers: Headers,
    /// The media type, lower-case (`text/html`); `text/plain` when absent (RFC 2045 §5.2).
    pub mime_type: String,
    /// The `charset` parameter of Content-Type, if any.
    pub charset: Option<String>,
    /// Content-Transfer-Encoding, lower-case; `7bit` when absent (RFC 2045 §6.1).
    pub transfer_encoding: String,
    /// Where the body lies in the input (before transfer decoding). `None` inside an enclosed
    /// message whose own transfer encoding had to be undone first: such parts can be read but
    /// not rewritten in place.
    pub body: Option<Range<usize>>,
    /// The body, transfer-decoded (leaves only; containers have none).
    pub decoded: Option<Vec<u8>>,
    /// Indices of the children in [`MessageTree::parts`].
    pub children: Vec<usize>,
    /// Index of the parent.
    pub parent: Option<usize>,
    /// Structure.
    pub kind: PartKind,
    /// Content-ID without angle brackets.
    pub content_id: Option<String>,
    /// Content-Location as written (unfolded, RFC 2047-decoded, RFC 2557 §4.4).
    pub content_location: Option<String>,
    /// Content-Base as written (RFC 2110; accepted on input only).
    pub content_base: Option<String>,
    /// The multipart's `type` and `start` parameters (RFC 2387 §3.1–§3.2).
    pub related_type: Option<String>,
    /// See `related_type`.
    pub related_start: Option<String>,
    /// The line ending the part's heading uses (`\r\n` or `\n`), for re-encoding its body.
    pub eol: &'static str,
}

/// A whole message: parts in pre-order; index 0 is the top-level message.
#[derive(Debug, Clone)]
pub struct MessageTree {
    /// Every part, parents before children.
    pub parts: Vec<Part>,
    /// Things that were wrong but not fatal (truncation, depth).
    pub diagnostics: Vec<String>,
}

/// Why a message could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a readable MIME message: {0}")]
pub struct MimeError(String);

/// Whether `bytes` look like a MIME message rather than an HTML document: an RFC 822 heading
/// (a `Name:` field on the first line, no `<` before it) that names MIME or a content type.
pub fn looks_like_message(bytes: &[u8]) -> bool {
    let head = bytes.get(..bytes.len().min(4096)).unwrap_or(bytes);
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let Some(first) = head.split(|&b| b == b'\n').next() else {
        return false;
    };
    let is_field = |line: &[u8]| {
        line.iter().position(|&b| b == b':').is_some_and(|i| {
            i > 0
                && line
                    .get(..i)
                    .is_some_and(|n| n.iter().all(|&b| b.is_ascii_graphic() && b != b':'))
        })
    };
    if !is_field(first) {
        return false;
    }
    // Up to the blank line ending the heading, a MIME field must appear.
    let lower: Vec<u8> = head.to_ascii_lowercase();
    let end = find(&lower, b"\n\n")
        .or_else(|| find(&lower, b"\r\n\r\n"))
        .unwrap_or(lower.len());
    let heading = lower.get(..end).unwrap_or(&lower);
    [
        &b"\nmime-version:"[..],
        b"\ncontent-type:",
        b"\ncontent-location:",
    ]
    .iter()
    .any(|f| find(heading, f).is_some())
        || heading.starts_with(b"mime-version:")
        || heading.starts_with(b"content-type:")
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Parses `bytes` into a part tree.
///
/// # Errors
/// [`MimeError`] when mailparse refuses the top-level heading (nested trouble only gives
/// diagnostics).
pub fn parse(bytes: &[u8]) -> Result<MessageTree, MimeError> {
    let mut tree = MessageTree {
        parts: Vec::new(),
        diagnostics: Vec::new(),
    };
    let origin = Origin::Source(bytes.as_ptr() as usize);
    let (mail, cut) = match mailparse::parse_mail(bytes) {
        Ok(mail) => (mail, None),
        Err(mailparse::MailParseError::Generic(m)) if m.contains("Recursion") => {
            // mailparse refuses a message nested past its bound (100 multipart levels) as a
            // whole. Read the longest prefix it accepts instead: a prefix slice keeps every span
            // an offset into the input, and what lies past it is kept byte for byte.
            let (mut ok, mut too_deep) = (0, bytes.len());
            while too_deep - ok > 1 {
                let mid = ok + (too_deep - ok) / 2;
                match bytes.get(..mid).map(mailparse::parse_mail) {
                    Some(Ok(_)) => ok = mid,
                    _ => too_deep = mid,
                }
            }
            let prefix = bytes.get(..ok).unwrap_or_default();
            let mail = mailparse::parse_mail(prefix).map_err(|e| MimeError(e.to_string()))?;
            tree.diagnostics.push(format!(
                "multipart nesting deeper than the MIME parser's bound (100 levels) from byte {ok}: what follows is kept as it was, unread"
            ));
            (mail, Some(ok))
        }
        Err(e) => return Err(MimeError(e.to_string())),
    };
    add(&mut tree, &mail, None, String::new(), true, origin, 0);
    if let Some(cut) = cut {
        // A part that reaches the cut may be cut short: read it, never write it back.
        for part in &mut tree.parts {
            if part.body.as_ref().is_some_and(|b| b.end >= cut) {
                part.body = None;
            }
        }
    }
    Ok(tree)
}

/// Whether spans are offsets into the input, or the bytes were decoded first.
#[derive(Clone, Copy)]
enum Origin {
    /// The address of the input's first byte.
    Source(usize),
    Decoded,
}

/// Adds `mail` and what it contains. `section` is its IMAP section number (RFC 3501 §6.4.5);
/// a message's own body, when it is not multipart, is numbered `section.1` (`1` at the top).
fn add(
    tree: &mut MessageTree,
    mail: &ParsedMail<'_>,
    parent: Option<usize>,
    section: String,
    is_message: bool,
    origin: Origin,
    depth: usize,
) {
    let index = tree.parts.len();
    let join = |base: &str, n: usize| {
        if base.is_empty() {
            n.to_string()
        } else {
            format!("{base}.{n}")
        }
    };
    let mut headers = Headers::new();
    for h in &mail.headers {
        headers.push_field(&h.get_key(), &h.get_value());
    }
    let mime_type = mail.ctype.mimetype.to_ascii_lowercase();
    let kind = if mime_type.starts_with("multipart/") {
        PartKind::Multipart
    } else if mime_type == "message/rfc822" || mime_type == "message/global" {
        PartKind::Message
    } else {
        PartKind::Leaf
    };
    let transfer_encoding = mail
        .headers
        .get_first_value("Content-Transfer-Encoding")
        .map(|v| v.trim().to_ascii_lowercase())
        .unwrap_or_else(|| "7bit".to_owned());
    let raw_body = mail.get_body_encoded();
    let raw_body = match &raw_body {
        mailparse::body::Body::Base64(b) | mailparse::body::Body::QuotedPrintable(b) => b.get_raw(),
        mailparse::body::Body::SevenBit(b) | mailparse::body::Body::EightBit(b) => b.get_raw(),
        mailparse::body::Body::Binary(b) => b.get_raw(),
    };
    let body = match origin {
        Origin::Source(start) => {
            let at = (raw_body.as_ptr() as usize).saturating_sub(start);
            Some(at..at + raw_body.len())
        }
        Origin::Decoded => None,
    };
    let eol = if mail.raw_bytes.windows(2).any(|w| w == b"\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let strip = |v: String| {
        v.trim()
            .trim_start_matches('<')
            .trim_end_matches('>')
            .trim()
            .to_owned()
    };
    let decoded = if kind == PartKind::Leaf {
        match decode_body(raw_body, &transfer_encoding, || mail.get_body_raw()) {
            Ok(bytes) => Some(bytes),
            Err(why) => {
                tree.diagnostics.push(format!(
                    "part {}: the body cannot be decoded ({why}); left as it was",
                    display_path(&section)
                ));
                None
            }
        }
    } else {
        None
    };
    if kind == PartKind::Multipart {
        // mailparse ends a multipart at the end of the input when its closing delimiter is
        // missing (RFC 2046 §5.1.1): say so, the message was probably cut.
        if let Some(boundary) = mail.ctype.params.get("boundary") {
            let close = format!("--{boundary}--");
            if !mail
                .raw_bytes
                .windows(close.len())
                .any(|w| w == close.as_bytes())
            {
                tree.diagnostics.push(format!(
                    "part {}: no closing boundary {close:?}; the message is truncated",
                    display_path(&section)
                ));
            }
        }
    }
    let path = if is_message && kind != PartKind::Multipart {
        join(&section, 1)
    } else {
        section
    };
    tree.parts.push(Part {
        path: path.clone(),
        content_id: headers.get("Content-ID").map(|v| strip(v.to_owned())),
        content_location: headers.get("Content-Location").map(unfold_location),
        content_base: headers.get("Content-Base").map(unfold_location),
        headers,
        charset: mail.ctype.params.get("charset").cloned(),
        related_type: mail
            .ctype
            .params
            .get("type")
            .map(|t| t.trim().to_ascii_lowercase()),
        related_start: mail.ctype.params.get("start").map(|s| strip(s.clone())),
        mime_type,
        transfer_encoding,
        body,
        decoded,
        children: Vec::new(),
        parent,
        kind,
        eol,
    });
    if let Some(p) = parent.and_then(|p| tree.parts.get_mut(p)) {
        p.children.push(index);
    }
    match kind {
        PartKind::Multipart => {
            for (n, sub) in mail.subparts.iter().enumerate() {
                add(
                    tree,
                    sub,
                    Some(index),
                    join(&path, n + 1),
                    false,
                    origin,
                    depth,
                );
            }
            if mail.subparts.is_empty() {
                tree.diagnostics.push(format!(
                    "part {}: multipart without parts (missing boundary?)",
                    display_path(&path)
                ));
            }
        }
        PartKind::Message => {
            if depth >= MAX_MESSAGE_DEPTH {
                tree.diagnostics.push(format!(
                    "part {path}: message/rfc822 nested deeper than {MAX_MESSAGE_DEPTH}; not descended"
                ));
                return;
            }
            // An identity transfer encoding keeps the enclosed message's bytes where they are;
            // otherwise it is decoded first and can be read but not rewritten in place.
            let identity = matches!(
                tree.parts.get(index).map(|p| p.transfer_encoding.as_str()),
                Some("7bit" | "8bit" | "binary")
            );
            let decoded_bytes;
            let (bytes, inner_origin) = if identity {
                (raw_body, origin)
            } else {
                decoded_bytes = mail.get_body_raw().unwrap_or_default();
                (decoded_bytes.as_slice(), Origin::Decoded)
            };
            match mailparse::parse_mail(bytes) {
                Ok(inner) => add(
                    tree,
                    &inner,
                    Some(index),
                    path.clone(),
                    true,
                    inner_origin,
                    depth + 1,
                ),
                Err(e) => tree
                    .diagnostics
                    .push(format!("part {path}: enclosed message unreadable: {e}")),
            }
        }
        PartKind::Leaf => {}
    }
}

/// A leaf's body without its Content-Transfer-Encoding (RFC 2045 §6).
///
/// Quoted-printable is decoded here: both mailparse and the quoted_printable crate drop raw 8-bit
/// bytes in their lenient mode, and Word writes GB2312 text raw inside QP parts. RFC 2045 §6.7
/// asks a robust decoder to keep what is not a valid escape, which this does. Base64 goes through
/// mailparse; a body that does not decode is an error, so the part is left as it was rather than
/// read (and rewritten) in its encoded form.
fn decode_body(
    raw: &[u8],
    transfer_encoding: &str,
    base64: impl FnOnce() -> Result<Vec<u8>, mailparse::MailParseError>,
) -> Result<Vec<u8>, String> {
    match transfer_encoding {
        "quoted-printable" => Ok(decode_quoted_printable(raw)),
        "base64" => base64().map_err(|e| e.to_string()),
        _ => Ok(raw.to_vec()),
    }
}

/// RFC 2045 §6.7: `=XX` is a byte, `=` at a line end is a soft break, anything else is kept as
/// it is (including raw 8-bit bytes and a lone `=`).
fn decode_quoted_printable(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    let hex = |b: u8| char::from(b).to_digit(16);
    while let Some(&b) = raw.get(i) {
        if b != b'=' {
            out.push(b);
            i += 1;
            continue;
        }
        match (
            raw.get(i + 1).and_then(|&h| hex(h)),
            raw.get(i + 2).and_then(|&l| hex(l)),
        ) {
            (Some(h), Some(l)) => {
                out.push(u8::try_from(h * 16 + l).unwrap_or(b'?'));
                i += 3;
            }
            // Soft line break, with trailing whitespace tolerated (RFC 2045 §6.7 rule 3).
            _ => {
                let mut j = i + 1;
                while matches!(raw.get(j), Some(b' ' | b'\t')) {
                    j += 1;
                }
                match (raw.get(j), raw.get(j + 1)) {
                    (Some(b'\r'), Some(b'\n')) => i = j + 2,
                    (Some(b'\n'), _) => i = j + 1,
                    (None, _) => i = j,
                    _ => {
                        out.push(b'=');
                        i += 1;
                    }
                }
            }
        }
    }
    out
}

/// RFC 2557 §4.4.3: header values are unfolded and RFC 2047-decoded (mailparse did both); what
/// remains of folding whitespace inside a URL is removed.
fn unfold_location(value: &str) -> String {
    value.split_whitespace().collect()
}

/// A part path for messages: the top level shows as `0`.
pub fn display_path(path: &str) -> &str {
    if path.is_empty() {
        "0"
    } else {
        path
    }
}

impl MessageTree {
    /// Indices of the ancestors of `part`, innermost first.
    pub fn ancestors(&self, part: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut at = self.parts.get(part).and_then(|p| p.parent);
        while let Some(i) = at {
            out.push(i);
            at = self.parts.get(i).and_then(|p| p.parent);
        }
        out
    }

    /// The message's root document (issue 14, RFC 2557 §5): the HTML part a reader of the
    /// message sees first. From the top: a multipart/related gives its root
    /// ([`MessageTree::related_root`]); a multipart/alternative its last alternative that holds
    /// HTML (RFC 2046 §5.1.4: the last is the richest); any other multipart its first part that
    /// holds HTML; an enclosed message its body. `None` when no HTML part is reached.
    pub fn root_document(&self) -> Option<usize> {
        let mut at = 0;
        // Each step goes one level down, so the depth of the tree bounds the loop.
        for _ in 0..=self.parts.len() {
            let part = self.parts.get(at)?;
            at = match part.kind {
                PartKind::Leaf => return (part.mime_type == "text/html").then_some(at),
                PartKind::Message => *part.children.first()?,
                PartKind::Multipart if part.mime_type == "multipart/related" => {
                    self.related_root(at)?
                }
                PartKind::Multipart if part.mime_type == "multipart/alternative" => {
                    *part.children.iter().rev().find(|&&c| self.holds_html(c))?
                }
                PartKind::Multipart => *part.children.iter().find(|&&c| self.holds_html(c))?,
            };
        }
        None
    }

    /// Whether part `i` is, or contains, a text/html part.
    fn holds_html(&self, i: usize) -> bool {
        let mut stack = vec![i];
        while let Some(j) = stack.pop() {
            let Some(p) = self.parts.get(j) else {
                continue;
            };
            if p.kind == PartKind::Leaf && p.mime_type == "text/html" {
                return true;
            }
            stack.extend(&p.children);
        }
        false
    }

    /// RFC 2387 §3.1–3.2 / RFC 2557 §7 root of a multipart/related: the `start` part; else the
    /// first part whose type equals the `type` parameter; else the first part; and if that is not
    /// HTML, the first text/html part (MHTML.md §3.6).
    pub fn related_root(&self, related: usize) -> Option<usize> {
        let p = self.parts.get(related)?;
        let children = &p.children;
        if let Some(start) = &p.related_start {
            if let Some(c) = children.iter().find(|&&c| {
                self.parts.get(c).and_then(|x| x.content_id.as_deref()) == Some(start.as_str())
            }) {
                return Some(*c);
            }
        }
        if let Some(t) = &p.related_type {
            if let Some(c) = children
                .iter()
                .find(|&&c| self.parts.get(c).is_some_and(|x| &x.mime_type == t))
            {
                return Some(*c);
            }
        }
        let first = *children.first()?;
        if self
            .parts
            .get(first)
            .is_some_and(|x| x.mime_type == "text/html" || x.kind != PartKind::Leaf)
        {
            return Some(first);
        }
        children
            .iter()
            .find(|&&c| {
                self.parts
                    .get(c)
                    .is_some_and(|x| x.mime_type == "text/html")
            })
            .copied()
            .or(Some(first))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_printable_keeps_raw_8bit_and_soft_breaks() {
        let raw = b"caf\xe9 =E9t\xc4\xe3 x=\r\nyz=  \nw a=3Db =zz=";
        assert_eq!(
            decode_quoted_printable(raw),
            b"caf\xe9 \xe9t\xc4\xe3 xyzw a=b =zz"
        );
    }
}
