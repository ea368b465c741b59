//! HTML LS "prescan a byte stream to determine its encoding" (§13.2.3.2 step 5), the `<meta>`
//! readers shared with the tree pass, and "get an XML encoding".

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252, X_USER_DEFINED};

/// How many bytes the `<meta>` prescan looks at: HTML LS §13.2.3.2 "Determining the character
/// encoding" step 5 prescans "the first 1024 bytes" (its *end condition*).
pub(super) const PRESCAN_LIMIT: usize = 1024;

/// UTF-16 in either byte order.
pub(super) fn is_utf16(encoding: &'static Encoding) -> bool {
    encoding == UTF_16LE || encoding == UTF_16BE
}

/// HTML LS "prescan a byte stream to determine its encoding" over at most the first 1024 bytes.
///
/// Finds `<meta charset>` or `<meta http-equiv="Content-Type" content="…; charset=…">`, skipping
/// comments, other tags and their attributes the way the standard does, in one forward pass. When
/// the prescan runs out of bytes without a result, the standard's "get an XML encoding" looks for
/// `<?xml … encoding="…"?>` at the very start.
///
/// The HTML adjustments are applied to what is found: a UTF-16 label means UTF-8 (the bytes were
/// readable as ASCII, so they are not UTF-16), and x-user-defined means windows-1252. The one
/// exception is the standard's "prescan for UTF-16 XML declarations": input starting with `<?x` in
/// UTF-16 gives UTF-16LE or UTF-16BE. (Such input contains NUL bytes, so [`decode`](super::decode) refuses it as
/// binary unless the transport label says UTF-16.)
///
/// ```
/// use linkbase::decode::prescan;
/// let html = b"<!-- <meta charset=big5> --><META HTTP-EQUIV='Content-Type' CONTENT='text/html; charset=EUC-JP'>";
/// assert_eq!(prescan(html), Some(encoding_rs::EUC_JP));
/// ```
#[must_use]
pub fn prescan(bytes: &[u8]) -> Option<&'static Encoding> {
    // The end condition: the first 1024 bytes. Cutting the slice makes "runs out of bytes" and
    // "reaches its end condition" the same event.
    let head = bytes.get(..PRESCAN_LIMIT).unwrap_or(bytes);
    // Step 2. "Prescan for UTF-16 XML declarations" (returned as is, not adjusted).
    if let Some(encoding) = utf16_xml_declaration(head) {
        return Some(encoding);
    }
    let found = match Prescanner::new(head).run() {
        Ok(encoding) => Some(encoding),
        // "If at any point … the user agent runs out of bytes … return the result of get an XML
        // encoding applied to the same bytes."
        Err(Exhausted) => xml_encoding(head),
    };
    found.map(adjust_for_html)
}

/// The prescan's step 14–15 adjustments (and "get an XML encoding" step 17).
///
/// A label found by scanning ASCII bytes cannot be right about UTF-16; x-user-defined is a
/// legacy fonts hack browsers read as windows-1252. The standard's XML path only maps UTF-16;
/// we map x-user-defined there too, so both paths of the prescan agree.
fn adjust_for_html(encoding: &'static Encoding) -> &'static Encoding {
    if is_utf16(encoding) {
        UTF_8
    } else if encoding == X_USER_DEFINED {
        WINDOWS_1252
    } else {
        encoding
    }
}

/// Prescan step 2: `<?x` in UTF-16LE or UTF-16BE at the start. The prefix is two bytes longer
/// than in XML Appendix F and the encoding name is not checked, "for historical reasons".
fn utf16_xml_declaration(bytes: &[u8]) -> Option<&'static Encoding> {
    if bytes.starts_with(b"<\0?\0x\0") {
        Some(UTF_16LE)
    } else if bytes.starts_with(b"\0<\0?\0x") {
        Some(UTF_16BE)
    } else {
        None
    }
}

/// The prescan "runs out of bytes": the standard aborts the whole prescan. Returned as an error so
/// that `?` carries the abort out of any depth of the algorithm, "get an attribute" included.
struct Exhausted;

/// One attribute found by "get an attribute". Both parts borrow the input: the standard builds
/// them byte by byte, lowercasing A–Z, but every consumer here compares case-insensitively, so
/// slices give the same answers without allocating.
struct Attribute<'a> {
    name: &'a [u8],
    value: &'a [u8],
}

/// The prescan's `position` pointer over the (at most 1024) bytes. It only ever moves forward,
/// which is what keeps the prescan a single linear pass.
struct Prescanner<'a> {
    bytes: &'a [u8],
    position: usize,
}

impl<'a> Prescanner<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Prescanner { bytes, position: 0 }
    }

    /// The bytes from `position` on (empty once past the end).
    fn rest(&self) -> &'a [u8] {
        self.bytes.get(self.position..).unwrap_or_default()
    }

    /// The byte at `position`, or [`Exhausted`] past the end.
    fn byte(&self) -> Result<u8, Exhausted> {
        self.bytes.get(self.position).copied().ok_or(Exhausted)
    }

    /// The bytes from `start` up to `position`.
    fn since(&self, start: usize) -> &'a [u8] {
        self.bytes.get(start..self.position).unwrap_or_default()
    }

    /// Advances `position` to the first byte (at or after it) that satisfies `stop`, and returns
    /// that byte; [`Exhausted`] if there is none.
    fn seek(&mut self, stop: impl Fn(u8) -> bool) -> Result<u8, Exhausted> {
        let offset = self.rest().iter().position(|&b| stop(b)).ok_or(Exhausted)?;
        self.position += offset;
        self.byte()
    }

    /// Steps 3–4, "Loop" and "Next byte", until a `<meta>` gives an encoding or bytes run out.
    fn run(&mut self) -> Result<&'static Encoding, Exhausted> {
        loop {
            if let Some(encoding) = self.step()? {
                return Ok(encoding);
            }
            // Step 4. "Next byte".
            self.position += 1;
        }
    }

    /// Step 3, "Loop": dispatch on what `position` points at. The order of the branches is the
    /// standard's: `<!--` before `<!`, `<meta` before other tags, tags before `</`.
    fn step(&mut self) -> Result<Option<&'static Encoding>, Exhausted> {
        let rest = self.rest();
        if rest.is_empty() {
            return Err(Exhausted);
        }
        if rest.starts_with(b"<!--") {
            self.skip_comment()?;
        } else if starts_meta_tag(rest) {
            // Point at the space or slash after `<meta`.
            self.position += b"<meta".len();
            return self.meta();
        } else if starts_tag(rest) {
            self.skip_tag()?;
        } else if rest.starts_with(b"<!") || rest.starts_with(b"</") || rest.starts_with(b"<?") {
            // "Advance … to the first 0x3E byte (>) that comes after the 0x3C byte": `<!DOCTYPE>`,
            // `</` without a letter, processing instructions and bogus comments.
            self.position += 2;
            self.seek(|b| b == b'>')?;
        }
        // "Any other byte: do nothing with that byte."
        Ok(None)
    }

    /// `<!--`: advance to the first `>` preceded by `--`. The dashes may be those of `<!--`
    /// itself, so `<!-->` is a whole comment: the search starts at the first dash.
    fn skip_comment(&mut self) -> Result<(), Exhausted> {
        let from_dashes = self.rest().get(2..).unwrap_or_default();
        let end = from_dashes
            .windows(3)
            .position(|w| w == b"-->")
            .ok_or(Exhausted)?;
        // Point at the `>`; "Next byte" moves past it.
        self.position += 2 + end + 2;
        Ok(())
    }

    /// `<` (`/`) letter: a start or end tag other than `<meta`. Its attributes are read and
    /// dropped, so that a `>` or `<meta` inside a quoted attribute value does not end the tag.
    fn skip_tag(&mut self) -> Result<(), Exhausted> {
        self.seek(|b| b.is_ascii_whitespace() || b == b'>')?;
        while self.get_attribute()?.is_some() {}
        Ok(())
    }

    /// The `<meta` branch, steps 1–16: read every attribute, then decide.
    fn meta(&mut self) -> Result<Option<&'static Encoding>, Exhausted> {
        let mut meta = MetaAttributes::default();
        // Steps 6–10. "Attributes": until "get an attribute" finds none.
        while let Some(attribute) = self.get_attribute()? {
            meta.add(&attribute);
        }
        // Steps 11–16. "Processing"; `None` means "jump to the step labeled next byte".
        Ok(meta.charset())
    }

    /// "Get an attribute" (HTML LS §13.2.3.2): `Ok(None)` when the tag ends (`>`) first.
    fn get_attribute(&mut self) -> Result<Option<Attribute<'a>>, Exhausted> {
        // Step 1. Skip whitespace and `/`.
        let first = self.seek(|b| !(b.is_ascii_whitespace() || b == b'/'))?;
        // Step 2. `>`: there isn't one.
        if first == b'>' {
            return Ok(None);
        }
        // Steps 3–5. The name: its first byte, whatever it is (a leading `=` belongs to the name,
        // as the `=` rule needs a non-empty name), then up to `=`, whitespace, `/` or `>`.
        let start = self.position;
        self.position += 1;
        let stop = self.seek(|b| matches!(b, b'=' | b'/' | b'>') || b.is_ascii_whitespace())?;
        let name = self.since(start);
        let has_value = match stop {
            b'=' => true,
            b'/' | b'>' => false,
            // Steps 6–7. "Spaces": a value only if `=` follows the whitespace.
            _ => self.seek(|b| !b.is_ascii_whitespace())? == b'=',
        };
        if !has_value {
            return Ok(Some(Attribute { name, value: b"" }));
        }
        // Step 8 (or step 4's "advance position to the next byte"): past the `=`.
        self.position += 1;
        let value = self.attribute_value()?;
        Ok(Some(Attribute { name, value }))
    }

    /// "Get an attribute" steps 9–12, "Value": quoted, empty before `>`, or unquoted up to
    /// whitespace or `>`.
    fn attribute_value(&mut self) -> Result<&'a [u8], Exhausted> {
        // Step 9. Skip whitespace.
        let first = self.seek(|b| !b.is_ascii_whitespace())?;
        match first {
            // Step 10, quotes: up to the matching quote, and past it.
            b'"' | b'\'' => {
                self.position += 1;
                let start = self.position;
                self.seek(|b| b == first)?;
                let value = self.since(start);
                self.position += 1;
                Ok(value)
            }
            // Step 10, `>`: the value is empty; `position` stays on the `>`.
            b'>' => Ok(b""),
            // Steps 10–12, anything else (even `=` or `/`): up to whitespace or `>`.
            _ => {
                let start = self.position;
                self.position += 1;
                self.seek(|b| b.is_ascii_whitespace() || b == b'>')?;
                Ok(self.since(start))
            }
        }
    }
}

/// `<meta` (any ASCII case) followed by whitespace or `/`.
fn starts_meta_tag(bytes: &[u8]) -> bool {
    let name = bytes.get(..b"<meta".len());
    let after = bytes.get(b"<meta".len());
    name.is_some_and(|name| name.eq_ignore_ascii_case(b"<meta"))
        && after.is_some_and(|&b| b.is_ascii_whitespace() || b == b'/')
}

/// `<`, an optional `/`, then an ASCII letter.
fn starts_tag(bytes: &[u8]) -> bool {
    let Some(after) = bytes.strip_prefix(b"<") else {
        return false;
    };
    let after = after.strip_prefix(b"/").unwrap_or(after);
    after.first().is_some_and(u8::is_ascii_alphabetic)
}

/// The prescan's `charset` variable: null is distinct from failure, because a failed `charset`
/// attribute still stops a later `content` attribute from setting one (step 9).
#[derive(Clone, Copy, Default)]
enum Charset {
    #[default]
    Null,
    Failure,
    Found(&'static Encoding),
}

/// The state of the `<meta` branch, steps 2–5.
///
/// The standard's "attribute list" only serves to ignore repeated names (steps 7–8); only three
/// names have any effect, so three flags do the same without allocating.
#[derive(Default)]
struct MetaAttributes {
    seen_http_equiv: bool,
    seen_content: bool,
    seen_charset: bool,
    got_pragma: bool,
    need_pragma: Option<bool>,
    charset: Charset,
}

impl MetaAttributes {
    /// Steps 7–9 for one attribute. Names and values compare ASCII case-insensitively, which is
    /// what the standard's lowercasing of A–Z amounts to.
    fn add(&mut self, attribute: &Attribute<'_>) {
        let Attribute { name, value } = *attribute;
        if name.eq_ignore_ascii_case(b"http-equiv") {
            if !std::mem::replace(&mut self.seen_http_equiv, true) {
                self.got_pragma = value.eq_ignore_ascii_case(b"content-type");
            }
        } else if name.eq_ignore_ascii_case(b"content") {
            if !std::mem::replace(&mut self.seen_content, true) {
                self.content(value);
            }
        } else if name.eq_ignore_ascii_case(b"charset")
            && !std::mem::replace(&mut self.seen_charset, true)
        {
            // "Getting an encoding" from the value; an unknown label is failure, not null.
            self.charset = Encoding::for_label(value).map_or(Charset::Failure, Charset::Found);
            self.need_pragma = Some(false);
        }
    }

    /// Step 9, `content`: only while `charset` is still null, and then a pragma is needed.
    fn content(&mut self, value: &[u8]) {
        if !matches!(self.charset, Charset::Null) {
            return;
        }
        if let Some(encoding) = charset_from_meta_content(value) {
            self.charset = Charset::Found(encoding);
            self.need_pragma = Some(true);
        }
    }

    /// Steps 11–16, "Processing".
    fn charset(&self) -> Option<&'static Encoding> {
        match (self.need_pragma, self.charset) {
            // Step 11. No `charset` or usable `content`.
            (None, _) => None,
            // Step 12. `content` without `http-equiv="content-type"`.
            (Some(true), _) if !self.got_pragma => None,
            // Steps 14–16.
            (Some(_), Charset::Found(encoding)) => Some(adjust_for_html(encoding)),
            // Step 13. `charset` is failure.
            (Some(_), Charset::Null | Charset::Failure) => None,
        }
    }
}

/// The encoding a `<meta>` element declares, as the tree builder reads it ("in head", HTML LS
/// §13.2.6.4.4): its `charset` attribute, else an `http-equiv=Content-Type` `content`; adjusted as
/// the prescan adjusts (UTF-16 means UTF-8, x-user-defined means windows-1252). The same readers
/// as the prescan's, so the two never disagree.
pub(crate) fn meta_element_encoding(
    charset: Option<&str>,
    http_equiv: Option<&str>,
    content: Option<&str>,
) -> Option<&'static Encoding> {
    if let Some(label) = charset {
        return Encoding::for_label(label.trim().as_bytes()).map(adjust_for_html);
    }
    if http_equiv.is_some_and(|h| h.trim().eq_ignore_ascii_case("content-type")) {
        return charset_from_meta_content(content?.as_bytes()).map(adjust_for_html);
    }
    None
}

/// HTML LS "URLs and fetching", "algorithm for extracting a character encoding from a `meta`
/// element": `charset=` in a `content` value such as `text/html; charset=utf-8`.
fn charset_from_meta_content(content: &[u8]) -> Option<&'static Encoding> {
    Encoding::for_label(content.get(meta_content_charset_label(content)?)?)
}

/// The same algorithm, giving where the label lies in `content` (quotes excluded). The one
/// reader of a `content` charset: the prescan decodes with it and the serializer rewrites that
/// label with it, so both agree on `charset = x`.
pub(crate) fn meta_content_charset_label(content: &[u8]) -> Option<std::ops::Range<usize>> {
    // Every slice below is a suffix of `content`: its offset is what it lacks in length.
    let offset = |suffix: &[u8]| content.len() - suffix.len();
    let mut rest = content;
    let value = loop {
        // Step 2. "Loop": the next "charset", in any ASCII case; none → nothing.
        let at = find_ignore_ascii_case(rest, b"charset")?;
        // Step 3. Whitespace after the word.
        let after = rest.get(at + b"charset".len()..)?.trim_ascii_start();
        // Step 4. Not `=`: search again from that character.
        match after.strip_prefix(b"=") {
            Some(value) => break value,
            None => rest = after,
        }
    };
    // Step 5. Whitespace after `=`.
    let value = value.trim_ascii_start();
    // Step 6. No next character → nothing.
    let (&first, tail) = value.split_first()?;
    if first == b'"' || first == b'\'' {
        // A quoted label up to the matching quote; an unmatched quote → nothing.
        let end = tail.iter().position(|&b| b == first)?;
        let start = offset(tail);
        Some(start..start + end)
    } else {
        // Unquoted: up to whitespace, `;` or the end.
        let end = value
            .iter()
            .position(|&b| b.is_ascii_whitespace() || b == b';')
            .unwrap_or(value.len());
        let start = offset(value);
        Some(start..start + end)
    }
}

/// The start of the first ASCII-case-insensitive occurrence of `needle` in `haystack`.
fn find_ignore_ascii_case(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window.eq_ignore_ascii_case(needle))
}

/// HTML LS "get an XML encoding": `<?xml … encoding="label" … >` at the very start.
///
/// The standard finds the declaration's end (step 3) but its later steps do not say to stop
/// there; like Servo and WebKit we search only inside the declaration, so an `encoding` word in
/// the document body is never taken for one.
fn xml_encoding(bytes: &[u8]) -> Option<&'static Encoding> {
    // Step 2. `<?xml` at the start, case-sensitively.
    let declaration = bytes.strip_prefix(b"<?xml")?;
    // Step 3. Up to the first `>`; none → failure.
    let end = declaration.iter().position(|&b| b == b'>')?;
    let declaration = declaration.get(..end)?;
    // Steps 4–5. The word `encoding`, case-sensitively.
    let at = declaration.windows(8).position(|w| w == b"encoding")?;
    let rest = declaration.get(at + b"encoding".len()..)?;
    // Steps 6–9. `=` between bytes ≤ 0x20 (spaces and controls, not only ASCII whitespace).
    let rest = skip_space_or_control(rest).strip_prefix(b"=")?;
    let rest = skip_space_or_control(rest);
    // Steps 10–14. A quoted label.
    let (&quote, rest) = rest.split_first()?;
    if quote != b'"' && quote != b'\'' {
        return None;
    }
    let end = rest.iter().position(|&b| b == quote)?;
    let label = rest.get(..end)?;
    // Step 15. No spaces or controls inside.
    if label.iter().any(|&b| b <= 0x20) {
        return None;
    }
    // Step 16. "Getting an encoding"; step 17 is in `adjust_for_html`.
    Encoding::for_label(label)
}

/// `bytes` without its leading bytes ≤ 0x20, as "get an XML encoding" steps 6 and 9 skip them.
fn skip_space_or_control(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().position(|&b| b > 0x20).unwrap_or(bytes.len());
    bytes.get(start..).unwrap_or_default()
}
