//! ① mbox files (many mails, each after a `From ` envelope line): what one looks like, its
//! messages read one at a time from the file ([`MboxReader`]: memory holds one message, never
//! the mailbox), and a mailbox written back with some messages replaced ([`join`],
//! [`write_message`]).
//!
//! The envelope rule is the one Python's `mailbox` module and MimeKit read mboxo and mboxrd
//! by, whatever follows `From ` (`From - ` as Netscape and Thunderbird write it, `From
//! 1844347792267117879@xxx` with no date): a line starting `From ` at the start of the file or
//! after a blank line starts a message. A message with a `Content-Length` (digits only) that
//! does not run past the end of the file is read as MimeKit's `RespectContentLength` reads it:
//! no line of those bytes after the heading starts a message (mboxcl2: its `From ` lines are
//! not quoted), and from there on any line starting `From ` does, blank line before it or not
//! (Netscape's lengths fall a line or more short).

use std::io::{self, BufRead, Read, Seek, SeekFrom, Write};

use super::headers::Headers;

/// A message longer than this is not held in memory: it is skipped and said
/// ([`MboxMessage::too_large`]), and reading goes on at the next one.
pub const MAX_MESSAGE: u64 = 256 * 1024 * 1024;

/// Lines are read in pieces of at most this many bytes: a line of a gigabyte costs no more.
const PIECE: usize = 64 * 1024;

/// Whether `head` (the first bytes of a file) is an mbox: a first line `From ` followed by
/// anything (an envelope sender and date, or not: `From - ` and `From ID@host` are envelope
/// lines too), then at once a header field line (`Name: value`).
pub fn looks_like_mbox(head: &[u8]) -> bool {
    envelope_then_field(head).is_some()
}

/// [`looks_like_mbox`], and whether the first envelope line has a date (a `hh:mm` time or a
/// four-digit year): one without a date is a guess a caller should say.
pub(crate) fn envelope_then_field(head: &[u8]) -> Option<bool> {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let rest = head.strip_prefix(b"From ")?;
    let end = memchr::memchr(b'\n', rest)?;
    let envelope = rest.get(..end).unwrap_or_default();
    let next = rest.get(end + 1..).unwrap_or_default();
    let line = next.split(|&b| b == b'\n').next().unwrap_or_default();
    is_field(line).then(|| plausible_date(envelope))
}

/// An envelope date: `Mon Jan  1 00:00:00 2001` and its variants; a time or a year will do.
fn plausible_date(date: &[u8]) -> bool {
    let time = date.windows(5).any(
        |w| matches!(w, [a, b, b':', c, d] if [a, b, c, d].iter().all(|x| x.is_ascii_digit())),
    );
    let year = date
        .split(|b| !b.is_ascii_digit())
        .any(|run| run.len() == 4);
    time || year
}

/// `Name: value`: a field name of visible ASCII other than `:`, then `:`.
fn is_field(line: &[u8]) -> bool {
    line.iter().position(|&b| b == b':').is_some_and(|i| {
        i > 0
            && line
                .get(..i)
                .is_some_and(|n| n.iter().all(|&b| b.is_ascii_graphic() && b != b':'))
    })
}

/// How a message of an mbox is delimited, for writing it back as it was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// Up to the next `From ` envelope line after a blank line (mboxo, mboxrd): `From ` lines
    /// of its body are quoted `>From ` (and `>From ` ones `>>From `, mboxrd's rule).
    FromLine,
    /// By its `Content-Length` field (mboxcl2): the body is that many bytes after the heading,
    /// quoted nowhere.
    ContentLength,
}

/// Where a record's document is in an mbox: what `links` and `base` records of
/// its messages carry.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MboxRef {
    /// The message's place in the file, from 0.
    pub mbox_message: usize,
    /// Its `Message-ID` (RFC 5322 §3.6.4), as written; `None` when it has none.
    pub message_id: Option<String>,
}

/// One message of an mbox, as [`MboxReader`] (or [`split`]) gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MboxMessage {
    /// Its place in the file, from 0.
    pub index: usize,
    /// Where its `From ` envelope line starts in the file.
    pub offset: u64,
    /// The envelope line, without `From ` and the line end (`sender date`).
    pub envelope: String,
    /// The message (heading and body), `>From ` lines unquoted, without the blank line that
    /// separates it from the next; empty when it is [`MboxMessage::too_large`].
    pub bytes: Vec<u8>,
    /// Where [`MboxMessage::bytes`] start in the file (after the envelope line).
    pub start: u64,
    /// The places in `bytes` where a line lost its first `>` (in order): offsets in the
    /// message map back to the file by them ([`MboxMessage::file_place`]).
    pub unquoted: Vec<usize>,
    /// Where it ends in the file: the next message's offset, or the end of the file.
    pub end: u64,
    /// How many of its last bytes in the file are the separator before the next message (the
    /// blank line, or the line end after a Content-Length body), not the message's.
    pub separator: usize,
    /// How it is delimited.
    pub framing: Framing,
    /// The message is longer than the reader holds ([`MAX_MESSAGE`]): its bytes were not kept
    /// (`bytes` is empty); this is how many there were.
    pub too_large: Option<u64>,
}

impl MboxMessage {
    /// The message's `Message-ID`, read from its heading (up to the first blank line).
    pub fn message_id(&self) -> Option<String> {
        let bytes = &self.bytes;
        let crlf = memchr::memmem::find(bytes, b"\r\n\r\n");
        let lf = memchr::memmem::find(bytes, b"\n\n");
        let end = crlf.into_iter().chain(lf).min().unwrap_or(bytes.len());
        let heading = String::from_utf8_lossy(bytes.get(..end).unwrap_or_default());
        Headers::parse(&heading)
            .get("Message-ID")
            .map(|v| v.trim().to_owned())
    }

    /// Where `at`, a place in [`MboxMessage::bytes`] (as a diagnostic of the message read
    /// alone gives it), is in the mbox file.
    pub fn file_place(&self, at: crate::error::Place) -> crate::error::Place {
        let offset = usize::try_from(at.offset).unwrap_or(usize::MAX);
        let removed = self.unquoted.partition_point(|&p| p <= offset) as u64;
        crate::error::Place {
            offset: self.start + at.offset + removed,
            ..at
        }
    }

    /// What the records of this message carry.
    pub fn reference(&self) -> MboxRef {
        MboxRef {
            mbox_message: self.index,
            message_id: self.message_id(),
        }
    }
}

/// The line at the start of `rest`, with its line end, and without.
fn line_at(rest: &[u8]) -> (&[u8], &[u8]) {
    let end = memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
    let line = rest.get(..end).unwrap_or_default();
    let bare = line.strip_suffix(b"\n").unwrap_or(line);
    (line, bare.strip_suffix(b"\r").unwrap_or(bare))
}

/// A piece of a line (at most [`PIECE`] bytes) and whether it starts the line.
struct Piece {
    bytes: Vec<u8>,
    line_start: bool,
}

impl Piece {
    /// The piece without its line end.
    fn bare(&self) -> &[u8] {
        line_at(&self.bytes).1
    }

    /// A whole empty line.
    fn is_blank(&self) -> bool {
        self.line_start && (self.bytes == b"\n" || self.bytes == b"\r\n")
    }

    /// The start of a line that starts `From `.
    fn is_envelope(&self) -> bool {
        self.line_start && self.bytes.starts_with(b"From ")
    }

    fn ends_line(&self) -> bool {
        self.bytes.ends_with(b"\n")
    }
}

/// Reads the messages of an mbox one at a time from `R` (a file, or a `Cursor` over bytes):
/// memory holds the message being read, never the mailbox. Seeking checks where a
/// `Content-Length` lands before the body is read.
///
/// A message starts at a line starting `From ` at the start of the file or after a blank line,
/// or, after the body its `Content-Length` gives, at any line starting `From ` (see the
/// module's help); in a message not framed so, a line `>From `, `>>From `, … loses one `>`
/// (mboxrd's rule, which reads mboxo's `>From ` too).
/// Bytes before the first envelope line are no message: [`MboxReader::preamble`] says how many.
pub struct MboxReader<R: BufRead + Seek> {
    inner: R,
    /// Where the next piece starts in the file.
    pos: u64,
    /// A piece read and put back.
    peeked: Option<Piece>,
    /// Whether the next byte starts a line.
    line_start: bool,
    /// Whether the last whole line was blank (the start of the file counts as one).
    after_blank: bool,
    preamble: u64,
    index: usize,
    limit: u64,
    /// The file's size when the reader was made.
    size: u64,
    /// The piece put back is the envelope line of the next message.
    envelope_next: bool,
    done: bool,
}

impl<R: BufRead + Seek> std::fmt::Debug for MboxReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MboxReader")
            .field("pos", &self.pos)
            .field("index", &self.index)
            .finish_non_exhaustive()
    }
}

impl<R: BufRead + Seek> MboxReader<R> {
    /// A reader of the mbox in `inner`, from where it is.
    ///
    /// # Errors
    /// When `inner` cannot tell where it is.
    pub fn new(mut inner: R) -> io::Result<MboxReader<R>> {
        let pos = inner.stream_position()?;
        let size = inner.seek(SeekFrom::End(0))?;
        inner.seek(SeekFrom::Start(pos))?;
        Ok(MboxReader {
            inner,
            pos,
            peeked: None,
            line_start: true,
            after_blank: true,
            preamble: 0,
            index: 0,
            limit: MAX_MESSAGE,
            size,
            envelope_next: false,
            done: false,
        })
    }

    /// Holds messages up to `limit` bytes instead of [`MAX_MESSAGE`].
    #[must_use]
    pub fn limit(mut self, limit: u64) -> Self {
        self.limit = limit;
        self
    }

    /// Bytes before the first envelope line (known once the first message, or the end, is
    /// read): they belong to no message.
    pub fn preamble(&self) -> u64 {
        self.preamble
    }

    /// The reader's source, to copy a message's bytes as they are in the file
    /// ([`write_message`]).
    pub fn source(&mut self) -> &mut R {
        &mut self.inner
    }

    fn piece(&mut self) -> io::Result<Option<Piece>> {
        if let Some(p) = self.peeked.take() {
            self.pos += p.bytes.len() as u64;
            return Ok(Some(p));
        }
        let mut bytes = Vec::new();
        loop {
            let buf = self.inner.fill_buf()?;
            if buf.is_empty() {
                break;
            }
            let room = PIECE - bytes.len();
            let (take, done) = match memchr::memchr(b'\n', buf) {
                Some(i) if i < room => (i + 1, true),
                _ => (buf.len().min(room), false),
            };
            bytes.extend_from_slice(buf.get(..take).unwrap_or_default());
            self.inner.consume(take);
            if done || bytes.len() >= PIECE {
                break;
            }
        }
        if bytes.is_empty() {
            return Ok(None);
        }
        let piece = Piece {
            line_start: self.line_start,
            bytes,
        };
        self.line_start = piece.ends_line();
        self.pos += piece.bytes.len() as u64;
        Ok(Some(piece))
    }

    fn unread(&mut self, piece: Piece) {
        self.pos -= piece.bytes.len() as u64;
        self.peeked = Some(piece);
    }

    /// Notes `piece` for the blank-line rule.
    fn passed(&mut self, piece: &Piece) {
        if piece.line_start || piece.ends_line() {
            self.after_blank = piece.is_blank();
        }
    }

    fn next_message(&mut self) -> io::Result<Option<MboxMessage>> {
        // Up to the first envelope line: the preamble.
        let envelope = loop {
            let Some(piece) = self.piece()? else {
                return Ok(None);
            };
            if piece.is_envelope() && (self.after_blank || self.envelope_next) {
                self.envelope_next = false;
                break piece;
            }
            self.passed(&piece);
            if self.index == 0 {
                self.preamble += piece.bytes.len() as u64;
            }
        };
        let offset = self.pos - envelope.bytes.len() as u64;
        let text = envelope.bare().get(5..).unwrap_or_default();
        let envelope_text = String::from_utf8_lossy(text).into_owned();
        // The rest of an envelope line longer than a piece is the envelope's.
        let mut last = envelope;
        while !last.ends_line() {
            match self.piece()? {
                Some(p) => last = p,
                None => break,
            }
        }
        self.after_blank = false;
        let start = self.pos;
        let index = self.index;
        self.index += 1;
        let mut message = MboxMessage {
            index,
            offset,
            envelope: envelope_text,
            bytes: Vec::new(),
            start,
            unquoted: Vec::new(),
            end: 0,
            separator: 0,
            framing: Framing::FromLine,
            too_large: None,
        };
        let mut size = 0u64;
        let mut in_heading = true;
        let mut content_length: Option<u64> = None;
        // Where a Content-Length body ends: before it no line starts a message; from it on,
        // any line starting `From ` does (MimeKit's RespectContentLength).
        let mut body_end: Option<u64> = None;
        loop {
            let at = self.pos;
            let Some(piece) = self.piece()? else {
                break;
            };
            let in_body = body_end.is_some_and(|end| at < end);
            let past_body = body_end.is_some_and(|end| at >= end);
            if piece.is_envelope() && !in_body && (self.after_blank || past_body) {
                self.unread(piece);
                self.envelope_next = true;
                break;
            }
            self.passed(&piece);
            let bare = piece.bare();
            let quoted = piece.line_start
                && !in_body
                && bare.iter().position(|&b| b != b'>').is_some_and(|n| {
                    n > 0 && bare.get(n..).is_some_and(|r| r.starts_with(b"From "))
                });
            if in_heading && piece.line_start && !quoted {
                if let Some(length) = content_length_of(bare) {
                    content_length = Some(length);
                }
            }
            let bytes = if quoted {
                piece.bytes.get(1..).unwrap_or_default()
            } else {
                &piece.bytes
            };
            size += bytes.len() as u64;
            if message.too_large.is_none() && size > self.limit {
                message.too_large = Some(0);
                message.bytes = Vec::new();
                message.unquoted = Vec::new();
            }
            if message.too_large.is_none() {
                if quoted {
                    message.unquoted.push(message.bytes.len());
                }
                message.bytes.extend_from_slice(bytes);
            }
            if in_heading && piece.is_blank() {
                in_heading = false;
                // A heading with quoted lines is mboxrd's, whatever its Content-Length says; a
                // length past the end of the file is not one.
                body_end = content_length
                    .filter(|_| message.unquoted.is_empty())
                    .map(|length| self.pos.saturating_add(length))
                    .filter(|&end| end <= self.size);
            }
        }
        if body_end.is_some_and(|end| self.pos >= end) {
            message.framing = Framing::ContentLength;
        }
        if message.too_large.is_some() {
            message.too_large = Some(size);
        }
        Ok(Some(finish(message, self.pos)))
    }
}

impl<R: BufRead + Seek> Iterator for MboxReader<R> {
    type Item = io::Result<MboxMessage>;

    fn next(&mut self) -> Option<io::Result<MboxMessage>> {
        if self.done {
            return None;
        }
        match self.next_message() {
            Ok(Some(m)) => Some(Ok(m)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// The end of the heading starting at `at` (after its blank line) and its `Content-Length`
/// value, when it has one of digits only.
fn heading_length(bytes: &[u8], mut at: usize) -> Option<(usize, usize)> {
    let mut length = None;
    while at < bytes.len() {
        let (line, bare) = line_at(bytes.get(at..)?);
        at += line.len();
        if bare.is_empty() {
            return Some((at, length?));
        }
        if let Some(value) = content_length_of(bare) {
            length = usize::try_from(value).ok();
        }
    }
    None
}

/// The value of `line` (without its line end) when it is a `Content-Length` field of digits
/// only.
fn content_length_of(line: &[u8]) -> Option<u64> {
    let value = line
        .get(..15)
        .filter(|n| n.eq_ignore_ascii_case(b"Content-Length:"))
        .and_then(|_| line.get(15..))?
        .trim_ascii();
    if value.is_empty() || !value.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(value).ok()?.parse().ok()
}

/// The messages of an mbox in memory, as [`MboxReader`] reads them, and how many bytes came
/// before the first.
pub fn split(bytes: &[u8]) -> (Vec<MboxMessage>, usize) {
    let Ok(reader) = MboxReader::new(io::Cursor::new(bytes)) else {
        return (Vec::new(), bytes.len());
    };
    let mut reader = reader.limit(u64::MAX);
    // A Cursor over bytes cannot fail.
    let messages: Vec<MboxMessage> = reader.by_ref().map_while(Result::ok).collect();
    let preamble = usize::try_from(reader.preamble()).unwrap_or(bytes.len());
    (messages, preamble)
}

/// A From-line message ending at `end`: the blank line before the next envelope line is the
/// separator's, not the message's.
fn finish(mut m: MboxMessage, end: u64) -> MboxMessage {
    // A message that is nothing but that blank line is empty.
    let separator = if m.too_large.is_some() {
        0
    } else if m.bytes.ends_with(b"\r\n\r\n") || m.bytes == b"\r\n" {
        2
    } else if m.bytes.ends_with(b"\n\n") || m.bytes == b"\n" {
        1
    } else {
        0
    };
    m.bytes.truncate(m.bytes.len() - separator);
    m.end = end;
    m.separator = separator;
    m
}

/// The mbox `original` (as [`split`] read it into `messages`) with message `i` replaced by
/// `new[i]` where that is `Some` and differs: each message left alone is copied byte for byte;
/// a replaced one keeps its envelope line and separator, and is framed as it was read (its
/// `From ` lines quoted as mboxrd does, or its `Content-Length` set to its new body's length).
pub fn join(original: &[u8], messages: &[MboxMessage], new: &[Option<Vec<u8>>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(original.len() + 1024);
    let first = messages
        .first()
        .map_or(original.len(), |m| offset(m.offset));
    out.extend_from_slice(original.get(..first).unwrap_or_default());
    for (i, m) in messages.iter().enumerate() {
        let raw = original
            .get(offset(m.offset)..offset(m.end))
            .unwrap_or_default();
        let replaced = new.get(i).and_then(Option::as_deref);
        let last = offset(m.end) >= original.len();
        join_one(raw, m, replaced, last, &mut out);
    }
    out
}

/// Writes message `m` of the mbox `source` (as an [`MboxReader`] over it read it) to `out`: as
/// it is in the file, or replaced by `new` when that is given and differs (framed as [`join`]
/// frames it). `source` is left where it was.
///
/// # Errors
/// When `source` cannot be read or `out` written.
pub fn write_message<R: Read + Seek, W: Write + ?Sized>(
    source: &mut R,
    m: &MboxMessage,
    new: Option<&[u8]>,
    out: &mut W,
) -> io::Result<()> {
    let back = source.stream_position()?;
    let size = source.seek(SeekFrom::End(0))?;
    source.seek(SeekFrom::Start(m.offset))?;
    let replaced = new.filter(|b| *b != m.bytes && m.too_large.is_none());
    let result = match replaced {
        None => io::copy(&mut (&mut *source).take(m.end - m.offset), out).map(drop),
        Some(bytes) => {
            let mut raw = Vec::new();
            (&mut *source)
                .take(m.end - m.offset)
                .read_to_end(&mut raw)?;
            let mut buf = Vec::with_capacity(bytes.len() + 256);
            join_one(&raw, m, Some(bytes), m.end >= size, &mut buf);
            out.write_all(&buf)
        }
    };
    source.seek(SeekFrom::Start(back))?;
    result
}

/// One message of [`join`]: `raw` its bytes in the file, `last` whether it ends the file.
fn join_one(raw: &[u8], m: &MboxMessage, new: Option<&[u8]>, last: bool, out: &mut Vec<u8>) {
    let Some(bytes) = new.filter(|b| *b != m.bytes && m.too_large.is_none()) else {
        out.extend_from_slice(raw);
        return;
    };
    let (envelope, _) = line_at(raw);
    out.extend_from_slice(envelope);
    // An envelope line at the very end of the file has no line end: the message gets one.
    if !envelope.ends_with(b"\n") {
        out.push(b'\n');
    }
    let separator = raw
        .get(raw.len() - m.separator.min(raw.len())..)
        .unwrap_or_default();
    match m.framing {
        Framing::FromLine => {
            quote_from_lines(bytes, out);
            // The next envelope line is one only after a blank line: the message's last
            // line ended, then the separator, a blank line in the line ending of that
            // last line (so that reading takes it away again), written even where the
            // original had none before a next message.
            if !last || !separator.is_empty() {
                let eol: &[u8] = if out.ends_with(b"\r\n")
                    || (!out.ends_with(b"\n") && envelope.ends_with(b"\r\n"))
                {
                    b"\r\n"
                } else {
                    b"\n"
                };
                if !out.ends_with(b"\n") {
                    out.extend_from_slice(eol);
                }
                out.extend_from_slice(eol);
            }
        }
        Framing::ContentLength => {
            set_content_length(bytes, out);
            out.extend_from_slice(separator);
        }
    }
}

fn offset(o: u64) -> usize {
    usize::try_from(o).unwrap_or(usize::MAX)
}

/// mboxrd: every line `>*From ` gains a `>`, so reading takes exactly one away. A line
/// `From ` at the start of the message is quoted too: after the envelope line's end it would
/// start a message of its own only after a blank line, but quoting it costs nothing.
fn quote_from_lines(bytes: &[u8], out: &mut Vec<u8>) {
    let mut at = 0;
    while at < bytes.len() {
        let (line, _) = line_at(bytes.get(at..).unwrap_or_default());
        let gt = line.iter().take_while(|&&b| b == b'>').count();
        if line.get(gt..).is_some_and(|r| r.starts_with(b"From ")) {
            out.push(b'>');
        }
        out.extend_from_slice(line);
        at += line.len();
    }
}

/// mboxcl2: the heading's `Content-Length` value replaced by the body's length.
fn set_content_length(bytes: &[u8], out: &mut Vec<u8>) {
    let body = heading_length(bytes, 0).map_or(bytes.len(), |(b, _)| b);
    let length = bytes.len() - body;
    let mut at = 0;
    while at < body {
        let (line, bare) = line_at(bytes.get(at..).unwrap_or_default());
        if bare
            .get(..15)
            .is_some_and(|n| n.eq_ignore_ascii_case(b"Content-Length:"))
        {
            out.extend_from_slice(bare.get(..15).unwrap_or_default());
            out.extend_from_slice(format!(" {length}").as_bytes());
            out.extend_from_slice(line.get(bare.len()..).unwrap_or_default());
        } else {
            out.extend_from_slice(line);
        }
        at += line.len();
    }
    out.extend_from_slice(bytes.get(body..).unwrap_or_default());
}

#[cfg(test)]
mod sniff_tests;

#[cfg(test)]
mod other_tools;
