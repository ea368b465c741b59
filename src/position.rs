//! ⑦ Where a link is: the line and column of a byte offset an engine recorded
//! ([`crate::rewrite::Link::offset`]), for reports and CI annotations.
//!
//! Lines are 1-based and end at LF (U+000A; a CRLF ends one line, a lone CR none), and columns
//! are 1-based and count characters (Unicode scalar values) of the document as decoded, as
//! lychee counts them (`RawUriSpan`: the column of the value's first character after its
//! quote). A byte order mark is not counted. A document whose encoding is not ASCII-compatible
//! (UTF-16, ISO-2022-JP) is located in its UTF-8 decoding (`located_text`), so its positions
//! are in its own lines and characters too.
//!
//! Positions are counted in one forward sweep per document, never from the start per link: a
//! minified page is one line, and counting from its start at every link would take the
//! square of its length.

use std::borrow::Cow;

use encoding_rs::Encoding;

/// A link's line and column, both 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// The line.
    pub line: usize,
    /// The column, in characters.
    pub column: usize,
}

/// The text the engines locate values in: the bytes themselves when the encoding is
/// ASCII-compatible (the tokenizers read them as they are), else their UTF-8 decoding without
/// a byte order mark (what the DOM engine parses).
pub(crate) fn located_text<'a>(bytes: &'a [u8], encoding: &'static Encoding) -> Cow<'a, [u8]> {
    if encoding.is_ascii_compatible() {
        Cow::Borrowed(bytes)
    } else {
        match encoding.decode_with_bom_removal(bytes).0 {
            Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
            Cow::Owned(s) => Cow::Owned(s.into_bytes()),
        }
    }
}

/// A forward sweep over a document's bytes: where the last position asked for was, and its line
/// and column.
pub struct Cursor {
    /// How characters are counted: the document's encoding, or UTF-8 for a decoded text.
    encoding: &'static Encoding,
    /// For a multi-byte legacy encoding (Shift_JIS, GBK, …): a decoder, which carries a
    /// character cut between two reads of a streamed document over to the next.
    decoder: Option<encoding_rs::Decoder>,
    at: usize,
    line: usize,
    column: usize,
}

impl Cursor {
    /// A sweep from the start of a document in `encoding` whose first bytes are `head` (to skip
    /// a byte order mark).
    pub fn new(encoding: &'static Encoding, head: &[u8]) -> Cursor {
        let encoding = if encoding.is_ascii_compatible() {
            encoding
        } else {
            encoding_rs::UTF_8
        };
        // Only a UTF-8 BOM can start the bytes of an ASCII-compatible encoding's document
        // (HTML LS §13.2.3.1); the decoded text has none.
        let bom = match Encoding::for_bom(head) {
            Some((e, len)) if e == encoding_rs::UTF_8 => len,
            _ => 0,
        };
        let legacy = encoding != encoding_rs::UTF_8 && !encoding.is_single_byte();
        Cursor {
            encoding,
            decoder: legacy.then(|| encoding.new_decoder_without_bom_handling()),
            at: bom,
            line: 1,
            column: 1,
        }
    }

    /// The offset the sweep stands at.
    pub fn at(&self) -> usize {
        self.at
    }

    /// Moves the sweep over `bytes`, the document's bytes from [`Cursor::at`] on.
    pub fn advance(&mut self, bytes: &[u8]) {
        match bytes.iter().rposition(|&b| b == b'\n') {
            Some(last) => {
                self.line += bytes.iter().filter(|&&b| b == b'\n').count();
                // A character cut before is complete by the LF (a character boundary): the
                // line starts afresh.
                if self.decoder.is_some() {
                    self.decoder = Some(self.encoding.new_decoder_without_bom_handling());
                }
                self.column = 1 + self.chars(bytes.get(last + 1..).unwrap_or_default());
            }
            None => self.column += self.chars(bytes),
        }
        self.at += bytes.len();
    }

    /// The position the sweep stands at.
    pub fn position(&self) -> Position {
        Position {
            line: self.line,
            column: self.column,
        }
    }

    /// The characters that start in `bytes` (UTF-8 counts its lead bytes; a legacy
    /// multi-byte encoding goes through the decoder, which keeps a character cut at the end for
    /// the next call). LF is never part of another character in an ASCII-compatible encoding
    /// (every trail byte of the multi-byte ones is 0x30 or above).
    fn chars(&mut self, bytes: &[u8]) -> usize {
        let Some(decoder) = &mut self.decoder else {
            return if self.encoding.is_single_byte() {
                bytes.len()
            } else {
                bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count()
            };
        };
        let mut count = 0;
        let mut rest = bytes;
        let mut out = [0u8; 1024];
        loop {
            let (result, read, written, _) = decoder.decode_to_utf8(rest, &mut out, false);
            let decoded = out.get(..written).unwrap_or_default();
            count += decoded.iter().filter(|&&b| b & 0xC0 != 0x80).count();
            rest = rest.get(read..).unwrap_or_default();
            if result == encoding_rs::CoderResult::InputEmpty {
                return count;
            }
        }
    }
}

/// The positions of `offsets` in `bytes` (a document in `encoding`), in their order; `None`
/// for `None` or an offset past the end. One sweep in offset order, whatever order they come in.
pub fn positions(
    bytes: &[u8],
    encoding: &'static Encoding,
    offsets: &[Option<usize>],
) -> Vec<Option<Position>> {
    let mut out = vec![None; offsets.len()];
    if offsets.iter().all(Option::is_none) {
        return out;
    }
    let text = located_text(bytes, encoding);
    let mut order: Vec<(usize, usize)> = offsets
        .iter()
        .enumerate()
        .filter_map(|(i, o)| o.map(|o| (o, i)))
        .collect();
    order.sort_unstable();
    let mut cursor = Cursor::new(encoding, &text);
    for (offset, i) in order {
        let Some(segment) = text.get(cursor.at()..offset) else {
            // Before the byte order mark, or past the end: no position.
            continue;
        };
        cursor.advance(segment);
        if let Some(slot) = out.get_mut(i) {
            *slot = Some(cursor.position());
        }
    }
    out
}

/// Positions for links handed on one at a time (a document streamed from its file), read from a
/// reader of the document opened anew when a link comes before the last one (never, in source
/// order). Memory: one read buffer.
pub(crate) struct Sweep<'a, 'r> {
    open: &'a mut dyn FnMut() -> std::io::Result<Box<dyn std::io::Read + 'r>>,
    encoding: &'static Encoding,
    reader: Option<Box<dyn std::io::Read + 'r>>,
    cursor: Option<Cursor>,
    buffer: Vec<u8>,
    /// The offset of `buffer`'s first byte.
    buffered_at: usize,
}

impl<'a, 'r> Sweep<'a, 'r> {
    /// A sweep over the document `open` reads (an ASCII-compatible `encoding`: the streaming
    /// engine reads no other).
    pub(crate) fn new(
        open: &'a mut dyn FnMut() -> std::io::Result<Box<dyn std::io::Read + 'r>>,
        encoding: &'static Encoding,
    ) -> Sweep<'a, 'r> {
        Sweep {
            open,
            encoding,
            reader: None,
            cursor: None,
            buffer: Vec::new(),
            buffered_at: 0,
        }
    }

    /// The position of `offset`, or `None` when the document cannot be read again or ends
    /// before it.
    pub(crate) fn position(&mut self, offset: usize) -> Option<Position> {
        use std::io::Read;
        if self.cursor.as_ref().is_none_or(|c| c.at() > offset) || self.reader.is_none() {
            let mut reader = (self.open)().ok()?;
            let mut head = [0u8; 3];
            let mut got = 0;
            while got < head.len() {
                match reader.read(head.get_mut(got..)?) {
                    Ok(0) => break,
                    Ok(n) => got += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => return None,
                }
            }
            self.buffer = head.get(..got)?.to_vec();
            self.buffered_at = 0;
            self.cursor = Some(Cursor::new(self.encoding, &self.buffer));
            self.reader = Some(reader);
        }
        let cursor = self.cursor.as_mut()?;
        loop {
            let start = cursor.at().checked_sub(self.buffered_at)?;
            let end = offset.checked_sub(self.buffered_at)?;
            if end <= self.buffer.len() {
                cursor.advance(self.buffer.get(start..end)?);
                return Some(cursor.position());
            }
            cursor.advance(self.buffer.get(start..)?);
            self.buffered_at += self.buffer.len();
            self.buffer.resize(64 * 1024, 0);
            let n = loop {
                match self.reader.as_mut()?.read(&mut self.buffer) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => return None,
                }
            };
            self.buffer.truncate(n);
            if n == 0 {
                return None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn at(text: &[u8], encoding: &'static Encoding, offsets: &[usize]) -> Vec<(usize, usize)> {
        let offsets: Vec<_> = offsets.iter().map(|&o| Some(o)).collect();
        positions(text, encoding, &offsets)
            .into_iter()
            .map(|p| p.map(|p| (p.line, p.column)).unwrap_or((0, 0)))
            .collect()
    }

    #[test]
    fn lines_end_at_lf_and_columns_count_characters() {
        let text = "<a href=x>\r\n  <é href=\"y\">\r<b href=z>".as_bytes();
        let x = 8;
        let y = text.iter().position(|&b| b == b'y').unwrap();
        let z = text.iter().position(|&b| b == b'z').unwrap();
        // Asked out of order, answered in order; a lone CR ends no line (as lychee counts).
        assert_eq!(
            at(text, encoding_rs::UTF_8, &[z, x, y]),
            [(2, 24), (1, 9), (2, 12)]
        );
    }

    #[test]
    fn a_bom_is_not_counted_and_offsets_past_the_end_have_none() {
        let text = b"\xEF\xBB\xBF<a href=x>";
        assert_eq!(at(text, encoding_rs::UTF_8, &[11, 99]), [(1, 9), (0, 0)]);
    }

    #[test]
    fn a_character_cut_between_reads_counts_once() {
        let mut cursor = Cursor::new(encoding_rs::SHIFT_JIS, b"");
        cursor.advance(b"\x82");
        cursor.advance(b"\xA0\x82");
        cursor.advance(b"\xA0<a href=");
        assert_eq!(
            cursor.position(),
            Position {
                line: 1,
                column: 11
            }
        );
        // Cut, then a line passed over whole.
        cursor.advance(b"\x82");
        cursor.advance(b"\xA0\n\x82\xA0<");
        assert_eq!(cursor.position(), Position { line: 2, column: 3 });
    }

    #[test]
    fn legacy_encodings_count_their_characters() {
        // windows-1252: one byte each; Shift_JIS: two bytes for one character.
        assert_eq!(
            at(b"\xE9\xE9<a href=x>", encoding_rs::WINDOWS_1252, &[10]),
            [(1, 11)]
        );
        assert_eq!(
            at(b"\x82\xA0<a href=x>", encoding_rs::SHIFT_JIS, &[10]),
            [(1, 10)]
        );
    }

    #[test]
    fn utf16_is_located_in_its_decoding() {
        let mut le = vec![0xFF, 0xFE];
        for unit in "é\n<a href=x>".encode_utf16() {
            le.extend_from_slice(&unit.to_le_bytes());
        }
        // The UTF-8 decoding: "é\n<a href=x>", the value at byte 11.
        assert_eq!(at(&le, encoding_rs::UTF_16LE, &[11]), [(2, 9)]);
    }

    #[test]
    fn a_streamed_document_is_swept_from_its_reader() {
        let text: &'static [u8] = b"<p>\n<a href=x>\n\n<a href=y>";
        let mut opened = 0;
        let mut open = || {
            opened += 1;
            Ok(Box::new(text) as Box<dyn std::io::Read>)
        };
        let mut sweep = Sweep::new(&mut open, encoding_rs::UTF_8);
        let p = |p: Option<Position>| p.map(|p| (p.line, p.column));
        assert_eq!(p(sweep.position(12)), Some((2, 9)));
        assert_eq!(p(sweep.position(24)), Some((4, 9)));
        // Backwards: read again from the start.
        assert_eq!(p(sweep.position(12)), Some((2, 9)));
        assert_eq!(p(sweep.position(99)), None);
        drop(sweep);
        assert_eq!(opened, 2);
    }
}
