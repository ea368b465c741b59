//! ① MIME messages (`.eml`, `.mht`, `.mhtml`): the part tree, with absolute byte spans into the
//! input. `mailparse` reads the headings and the transfer encodings behind this adapter; the
//! multipart bodies are split here, as mailparse splits them but with one linear search per
//! multipart. No other module sees a mailparse type.
//!
//! `message/rfc822` bodies are descended into (RFC 2046 §5.2.1): the enclosed message is a new
//! scope for matching (RFC 2557 §7) but its headings are still a base source. Nesting, the number
//! of parts and the heading fields read are bounded ([`MAX_NESTING`], [`MAX_MESSAGE_DEPTH`],
//! [`MAX_PARTS`], [`MAX_FIELDS`]); what a bound leaves unread is said.

use std::ops::Range;

use mailparse::{MailHeaderMap, ParsedContentType};

use super::headers::Headers;
use crate::error::{Diagnostic, DiagnosticCode, Place};

mod framing;
mod sniff;
mod transfer;

use framing::{strip_trailing_eol, Delimiters, Framing};
pub use sniff::{looks_like_mail, looks_like_message};
use transfer::decode_body;

/// How deep `message/rfc822` nesting is followed (limit "MIME message depth").
pub const MAX_MESSAGE_DEPTH: usize = 16;

/// How deep entities nest in all, multiparts and enclosed messages together (limit "MIME
/// nesting depth"): the bound mailparse kept for multiparts, now kept here, where the parts are
/// split. It also bounds the recursion of [`parse`].
pub const MAX_NESTING: usize = 100;

/// How many parts one message may have, every entity counted, the top-level one and containers
/// included (limit "MIME parts"): each part read costs about 1 KiB besides its bytes (its heading
/// fields, its decoded body, its record), so the parts past this many are not read. At the limit
/// `linkbase links` peaks near 200 MB (BENCHMARKS.md).
pub const MAX_PARTS: usize = 100_000;

/// How many heading fields of one part are read (limit "MIME heading fields"): each costs about
/// 100 bytes of memory for a few bytes of input; real headings have tens of fields.
pub const MAX_FIELDS: usize = 1_000;

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
    /// Where the body starts in the input file, for diagnostics. Inside an enclosed message
    /// that had to be transfer-decoded first, where that message's encoded body starts: the
    /// file holds no nearer byte.
    pub body_at: Place,
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
    /// Things that were wrong but not fatal (truncation, a body that does not decode): `mime`
    /// and `mime-malformed`, each with its place in the input.
    pub diagnostics: Vec<Diagnostic>,
    /// Each part whose content was not read (a limit, an unreadable heading), by its path
    /// ([`display_path`]), with a `part-skipped` diagnostic that names it, its place and the
    /// limit.
    pub skipped: Vec<(String, Diagnostic)>,
}

pub use crate::error::MimeError;

/// Parses `bytes` into a part tree.
///
/// Headings are read by mailparse; multipart bodies are split here, with one linear search per
/// multipart for its delimiter lines (RFC 2046 §5.1.1), so that parsing takes time linear in the
/// input at every nesting level and the limits ([`MAX_NESTING`], [`MAX_PARTS`]) are checked
/// before a part is read. Every part skipped gives a `part-skipped` diagnostic naming the limit.
///
/// # Errors
/// [`MimeError`] when mailparse refuses the top-level heading (nested trouble only gives
/// diagnostics).
pub fn parse(bytes: &[u8]) -> Result<MessageTree, MimeError> {
    let mut tree = MessageTree {
        parts: Vec::new(),
        diagnostics: Vec::new(),
        skipped: Vec::new(),
    };
    let top = Entity::read(bytes, false).map_err(|e| MimeError(e.to_string()))?;
    let origin = Origin::Source(bytes.as_ptr() as usize);
    add(&mut tree, &top, None, String::new(), true, origin, 0, 0);
    // In file order: a multipart's missing close delimiter, said when it is read, is due at its
    // end, after what its parts say.
    tree.diagnostics
        .sort_by_key(|d| d.at.map(|at| (at.offset, at.within)));
    Ok(tree)
}

/// One entity as mailparse would give it (`ParsedMail` minus its subparts, which are split
/// lazily by [`Entity::split`]).
struct Entity<'a> {
    /// Heading and body.
    raw: &'a [u8],
    headers: Vec<mailparse::MailHeader<'a>>,
    ctype: ParsedContentType,
    /// Where the body starts in `raw`.
    body_start: usize,
    /// Heading fields past [`MAX_FIELDS`], not read.
    fields_dropped: usize,
    /// How a multipart's body is split ([`Framing`]); `None` for any other entity.
    framing: Option<Framing>,
}

impl<'a> Entity<'a> {
    /// The heading of `raw`; a part of a multipart/digest defaults to message/rfc822
    /// (RFC 2046 §5.1.5), any other to text/plain (RFC 2045 §5.2).
    fn read(raw: &'a [u8], in_digest: bool) -> Result<Self, mailparse::MailParseError> {
        let (mut headers, body_start) = mailparse::parse_headers(raw)?;
        let fields_dropped = headers.len().saturating_sub(MAX_FIELDS);
        if fields_dropped > 0 {
            headers.truncate(MAX_FIELDS);
            headers.shrink_to_fit();
        }
        let ctype = match headers.get_first_value("Content-Type") {
            Some(v) => mailparse::parse_content_type(&v),
            None => {
                let mut ctype = ParsedContentType::default();
                if in_digest {
                    ctype.mimetype = "message/rfc822".to_owned();
                }
                ctype
            }
        };
        let framing = if ctype.mimetype.starts_with("multipart") && raw.len() > body_start {
            Framing::of(raw, body_start, ctype.params.get("boundary"))
        } else {
            None
        };
        Ok(Entity {
            raw,
            headers,
            ctype,
            body_start,
            fields_dropped,
            framing,
        })
    }

    /// The delimiter (`--boundary`) when this entity is split into parts: a type starting with
    /// `multipart`, a body, and a boundary that occurs in it (declared or sniffed, [`Framing`]).
    fn delimiter(&self) -> Option<&str> {
        self.framing.as_ref()?.delimiter.as_deref()
    }

    /// The searcher of this multipart's delimiter lines.
    fn delimiters(&self) -> Option<Delimiters<'a, '_>> {
        let framing = self.framing.as_ref()?;
        Some(Delimiters::new(
            self.raw,
            framing.delimiter.as_deref()?,
            framing.whole_line,
        ))
    }

    /// The body: for a multipart, the preamble before its first delimiter line (mailparse's
    /// `body_bytes`); none when the body is read as one part.
    fn body(&self) -> &'a [u8] {
        let raw = self.raw;
        let end = match (&self.framing, self.delimiters()) {
            (_, Some(d)) => match d.next_line(self.body_start) {
                Some(at) => strip_trailing_eol(raw, self.body_start, at),
                None => self.body_start,
            },
            (Some(_), None) => self.body_start,
            (None, None) => raw.len(),
        };
        raw.get(self.body_start..end).unwrap_or_default()
    }

    /// The transfer-encoded body with its Content-Transfer-Encoding, as mailparse reads it.
    fn encoded(&self) -> mailparse::body::Body<'_> {
        let encoding = self
            .headers
            .get_first_value("Content-Transfer-Encoding")
            .map(|s| s.to_lowercase());
        mailparse::body::Body::new(self.body(), &self.ctype, &encoding)
    }

    /// The body without its transfer encoding (mailparse's `get_body_raw`).
    fn decoded_body(&self) -> Result<Vec<u8>, mailparse::MailParseError> {
        use mailparse::body::Body;
        match self.encoded() {
            Body::Base64(b) | Body::QuotedPrintable(b) => b.get_decoded(),
            Body::SevenBit(b) | Body::EightBit(b) => Ok(b.get_raw().to_vec()),
            Body::Binary(b) => Ok(b.get_raw().to_vec()),
        }
    }

    /// The raw spans of the parts, in order (RFC 2046 §5.1.1, read as mailparse reads it: a
    /// delimiter is `--boundary` at a line start; the CRLF before it belongs to it; the part
    /// starts after the rest of the delimiter's line; a missing close delimiter ends the last
    /// part at the end of the entity). Each delimiter is searched once, from the previous one.
    fn split(&self) -> Vec<Range<usize>> {
        let mut spans = Vec::new();
        let Some(delimiter) = self.delimiter() else {
            // No delimiter in the body ([`Framing`]): the body is the one part.
            if self.framing.is_some() {
                spans.push(self.body_start..self.raw.len());
            }
            return spans;
        };
        let raw = self.raw;
        let Some(lines) = self.delimiters() else {
            return spans;
        };
        let Some(first) = lines.next_line(self.body_start) else {
            return spans;
        };
        // A first delimiter line that is the close delimiter ends the multipart before any
        // part: everything before it is preamble (RFC 2046 §5.1.1), and there is no part.
        if self.first_closes(first) {
            return spans;
        }
        let mut after = first + delimiter.len();
        while let Some(start) =
            memchr::memchr(b'\n', raw.get(after..).unwrap_or_default()).map(|i| after + i + 1)
        {
            let next = lines.next_line(start);
            let end = next.map_or(raw.len(), |n| strip_trailing_eol(raw, start, n));
            spans.push(start..end);
            after = next.map_or(raw.len(), |n| n + delimiter.len());
            // `--boundary--` closes the multipart; so does the end of the input.
            if after + 2 > raw.len() || raw.get(after..after + 2) == Some(b"--") {
                break;
            }
        }
        spans
    }

    /// Whether the delimiter line at `at` is the close delimiter (`--boundary--`).
    fn first_closes(&self, at: usize) -> bool {
        let end = at + self.delimiter().map_or(0, str::len);
        self.raw.get(end..end + 2) == Some(b"--")
    }

    /// A line of the preamble (before the first delimiter line) that holds the boundary after a
    /// dash but is no delimiter line (`BadBoundary--b`, a dash too few): a part meant to start there is not
    /// read, where an ordinary preamble is only text for mail readers without MIME.
    /// Returns where the line starts in `raw`, and the line (cut at 80 characters).
    fn stray_delimiter(&self) -> Option<(usize, String)> {
        let boundary = self.delimiter()?.get(2..)?;
        let preamble = self.body();
        // After a dash, as in a delimiter: a short boundary may well occur in ordinary text.
        let at = memchr::memmem::find_iter(preamble, boundary.as_bytes())
            .find(|&at| at > 0 && preamble.get(at - 1) == Some(&b'-'))?;
        let start = memchr::memrchr(b'\n', preamble.get(..at)?).map_or(0, |i| i + 1);
        let rest = preamble.get(start..)?;
        let line = rest.get(..memchr::memchr(b'\n', rest).unwrap_or(rest.len()))?;
        let line = String::from_utf8_lossy(line);
        let line = line.trim_end();
        let line = match line.char_indices().nth(80) {
            Some((cut, _)) => format!("{}…", line.get(..cut).unwrap_or_default()),
            None => line.to_owned(),
        };
        Some((self.body_start + start, line))
    }

    /// Whether the multipart's first delimiter line is its close delimiter.
    fn closed_before_any_part(&self) -> bool {
        self.delimiters().is_some_and(|d| {
            d.next_line(self.body_start)
                .is_some_and(|at| self.first_closes(at))
        })
    }
}

/// Whether spans are offsets into the input, or the bytes were decoded first.
#[derive(Clone, Copy)]
enum Origin {
    /// The address of the input's first byte.
    Source(usize),
    /// Transfer-decoded: where the encoded bytes start in the input.
    Decoded(Place),
}

impl Origin {
    /// Where byte `i` of `raw` (a slice of the bytes this origin describes; `i` may be its
    /// length) is in the input file.
    fn place(self, raw: &[u8], i: usize) -> Place {
        match self {
            Origin::Source(start) => Place {
                offset: ((raw.as_ptr() as usize).saturating_sub(start) + i.min(raw.len())) as u64,
                within: 0,
            },
            Origin::Decoded(at) => at,
        }
    }
}

/// How a part shows in a diagnostic: its path, its type, its Content-Location if any.
fn describe(path: &str, mime_type: &str, location: Option<&str>) -> String {
    match location {
        Some(l) => format!(
            "part {} ({mime_type}, Content-Location {l:?})",
            display_path(path)
        ),
        None => format!("part {} ({mime_type})", display_path(path)),
    }
}

/// Adds `mail` and what it contains. `section` is its IMAP section number (RFC 3501 §6.4.5);
/// a message's own body, when it is not multipart, is numbered `section.1` (`1` at the top).
/// `depth` counts enclosing entities ([`MAX_NESTING`]), `messages` enclosing messages
/// ([`MAX_MESSAGE_DEPTH`]).
#[allow(clippy::too_many_arguments)]
fn add(
    tree: &mut MessageTree,
    mail: &Entity<'_>,
    parent: Option<usize>,
    section: String,
    is_message: bool,
    origin: Origin,
    depth: usize,
    messages: usize,
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
    let raw_body = mail.body();
    let body_at = origin.place(mail.raw, mail.body_start);
    let body = match (origin, usize::try_from(body_at.offset)) {
        (Origin::Source(_), Ok(at)) => Some(at..at + raw_body.len()),
        _ => None,
    };
    let eol = if memchr::memmem::find(mail.raw, b"\r\n").is_some() {
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
        match decode_body(raw_body, &transfer_encoding, || mail.decoded_body()) {
            Ok(bytes) => Some(bytes),
            Err(why) => {
                tree.note(
                    body_at,
                    format!(
                        "part {}: the body cannot be decoded ({why}); left as it was",
                        display_path(&section)
                    ),
                );
                None
            }
        }
    } else {
        None
    };
    if let Some(framing) = &mail.framing {
        if let Some((at, line)) = &framing.ambiguous {
            let how = if framing.whole_line {
                "not read as its delimiter (as Python's email package, MimeKit, stalwart's \
                 mail-parser and zbateson's mail-mime-parser read it), though RFC 2046 §5.1.1 \
                 would"
            } else {
                "read as its delimiter, as RFC 2046 §5.1.1 reads a line that begins with it, no \
                 line being the delimiter alone"
            };
            tree.note(
                origin.place(mail.raw, *at),
                format!(
                    "part {} ({mime_type}): the line {line:?} begins with its boundary and goes \
                     on: {how}",
                    display_path(&section)
                ),
            );
        }
        // A boundary that never occurs or is not declared: what was read instead.
        if let Some(repaired) = &framing.repaired {
            tree.malformed(
                body_at,
                format!(
                    "part {} ({}): {repaired}",
                    display_path(&section),
                    mime_type
                ),
            );
        }
        // A multipart ended by the end of the input lacks its closing delimiter (RFC 2046
        // §5.1.1): its last part ends at the end of the input, as Chromium reads it; the
        // message was probably cut.
        if let Some(delimiter) = &framing.delimiter {
            let close = format!("{delimiter}--");
            if memchr::memmem::find(mail.raw, close.as_bytes()).is_none() {
                // Said where it was due: at the end of the input.
                tree.malformed(
                    origin.place(mail.raw, mail.raw.len()),
                    format!(
                        "part {}: no closing boundary {close:?}; the message is truncated: its last part ends at the end of the input",
                        display_path(&section)
                    ),
                );
            }
        }
    }
    let path = if is_message && kind != PartKind::Multipart {
        join(&section, 1)
    } else {
        section
    };
    if mail.fields_dropped > 0 {
        tree.note(
            origin.place(mail.raw, 0),
            format!(
                "part {}: {} heading fields past the first {MAX_FIELDS} are not read (limit: MIME heading fields {MAX_FIELDS})",
                display_path(&path),
                mail.fields_dropped
            ),
        );
    }
    let content_location = headers.get("Content-Location").map(unfold_location);
    tree.parts.push(Part {
        path: path.clone(),
        content_id: headers.get("Content-ID").map(|v| strip(v.to_owned())),
        content_base: headers.get("Content-Base").map(unfold_location),
        content_location,
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
        body_at,
        decoded,
        children: Vec::new(),
        parent,
        kind,
        eol,
    });
    if let Some(p) = parent.and_then(|p| tree.parts.get_mut(p)) {
        p.children.push(index);
    }
    let me = |tree: &MessageTree| {
        tree.parts.get(index).map_or_else(String::new, |p| {
            describe(&p.path, &p.mime_type, p.content_location.as_deref())
        })
    };
    match kind {
        PartKind::Multipart => {
            let spans = mail.split();
            if depth + 1 >= MAX_NESTING && !spans.is_empty() {
                let first = spans.first().map_or(mail.body_start, |s| s.start);
                tree.skip(&path, origin.place(mail.raw, first), format!(
                    "{}: nested {} levels deep: its parts ({}) are not read, kept as they were (limit: MIME nesting depth {MAX_NESTING})",
                    me(tree),
                    depth + 1,
                    spans.len()
                ));
                return;
            }
            let in_digest = mail.ctype.mimetype == "multipart/digest";
            for (n, span) in spans.iter().enumerate() {
                let sub_path = join(&path, n + 1);
                if tree.parts.len() >= MAX_PARTS {
                    tree.skip(&path, origin.place(mail.raw, span.start), format!(
                        "{}: {} of its parts, from part {sub_path} on, are not read, kept as they were (limit: MIME parts {MAX_PARTS})",
                        me(tree),
                        spans.len() - n,
                    ));
                    break;
                }
                let raw = mail.raw.get(span.clone()).unwrap_or_default();
                match Entity::read(raw, in_digest) {
                    Ok(sub) => add(
                        tree,
                        &sub,
                        Some(index),
                        sub_path,
                        false,
                        origin,
                        depth + 1,
                        messages,
                    ),
                    Err(e) => tree.skip(
                        &sub_path,
                        origin.place(mail.raw, span.start),
                        format!(
                            "part {sub_path}: the heading cannot be read ({e}); kept as it was"
                        ),
                    ),
                }
            }
            if let (false, Some((at, line))) = (spans.is_empty(), mail.stray_delimiter()) {
                tree.malformed(
                    origin.place(mail.raw, at),
                    format!(
                        "part {}: its preamble has a line with its boundary that is no delimiter \
                     line ({line:?}): what comes before its first delimiter line is not read",
                        display_path(&path)
                    ),
                );
            }
            if spans.is_empty() {
                // At its first delimiter line, or where its body starts when it has none.
                let at = mail
                    .delimiters()
                    .and_then(|d| d.next_line(mail.body_start))
                    .unwrap_or(mail.body_start);
                tree.malformed(
                    origin.place(mail.raw, at),
                    format!(
                        "part {}: multipart without parts ({})",
                        display_path(&path),
                        if mail.closed_before_any_part() {
                            "its first delimiter line is its close delimiter: what comes before it \
                         is preamble, not read"
                        } else if mail.delimiter().is_some() {
                            "nothing follows its delimiter line"
                        } else {
                            "its body is empty"
                        }
                    ),
                );
            }
        }
        PartKind::Message => {
            if messages >= MAX_MESSAGE_DEPTH || depth + 1 >= MAX_NESTING {
                let (what, limit) = if messages >= MAX_MESSAGE_DEPTH {
                    ("message depth", MAX_MESSAGE_DEPTH)
                } else {
                    ("nesting depth", MAX_NESTING)
                };
                tree.skip(&path, body_at, format!(
                    "{}: the enclosed message is not read, kept as it was (limit: MIME {what} {limit})",
                    me(tree)
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
                decoded_bytes = mail.decoded_body().unwrap_or_default();
                (decoded_bytes.as_slice(), Origin::Decoded(body_at))
            };
            match Entity::read(bytes, false) {
                Ok(inner) => add(
                    tree,
                    &inner,
                    Some(index),
                    path.clone(),
                    true,
                    inner_origin,
                    depth + 1,
                    messages + 1,
                ),
                Err(e) => tree.skip(
                    &path,
                    body_at,
                    format!("part {path}: enclosed message unreadable ({e}); kept as it was"),
                ),
            }
        }
        PartKind::Leaf => {}
    }
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
    /// A `mime` diagnostic: about the structure at `at`.
    fn note(&mut self, at: Place, message: String) {
        self.diagnostics
            .push(Diagnostic::new(DiagnosticCode::Mime, message).at(at));
    }

    /// A `mime-malformed` diagnostic: a structure read past damage at `at`, and how.
    fn malformed(&mut self, at: Place, message: String) {
        self.diagnostics
            .push(Diagnostic::new(DiagnosticCode::MimeMalformed, message).at(at));
    }

    /// A `part-skipped` diagnostic about the part at `path`, not read from `at` on.
    fn skip(&mut self, path: &str, at: Place, message: String) {
        self.skipped.push((
            display_path(path).to_owned(),
            Diagnostic::new(DiagnosticCode::PartSkipped, message).at(at),
        ));
    }

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

    /// The message's root document (RFC 2557 §5): the HTML part a reader of the
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
    /// HTML, the first text/html part (docs/mhtml.md §3.6).
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
mod tests;
