//! ① mbox files (many mails, each after a `From ` envelope line): what one looks like.

use super::headers::Headers;

/// Whether `head` (the first bytes of a file) is an mbox: a first line `From ADDR DATE` (an
/// envelope sender with no space in it, then a date with a `hh:mm` time or a four-digit year),
/// followed at once by a header field line (`Name: value`).
pub fn looks_like_mbox(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let Some(rest) = head.strip_prefix(b"From ") else {
        return false;
    };
    let Some(end) = memchr::memchr(b'\n', rest) else {
        return false;
    };
    let envelope = rest.get(..end).unwrap_or_default();
    let envelope = envelope.strip_suffix(b"\r").unwrap_or(envelope);
    let Some(space) = memchr::memchr(b' ', envelope) else {
        return false;
    };
    let (sender, date) = envelope.split_at(space);
    if sender.is_empty() || !plausible_date(date) {
        return false;
    }
    let next = rest.get(end + 1..).unwrap_or_default();
    let line = next.split(|&b| b == b'\n').next().unwrap_or_default();
    is_field(line)
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

/// Where a record's document is in an mbox (issue 23): what `links` and `base` records of
/// its messages carry.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MboxRef {
    /// The message's place in the file, from 0.
    pub mbox_message: usize,
    /// Its `Message-ID` (RFC 5322 §3.6.4), as written; `None` when it has none.
    pub message_id: Option<String>,
}

/// One message of an mbox, as [`split`] gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MboxMessage {
    /// Its place in the file, from 0.
    pub index: usize,
    /// Where its `From ` envelope line starts in the file.
    pub offset: u64,
    /// The envelope line, without `From ` and the line end (`sender date`).
    pub envelope: String,
    /// The message (heading and body), `>From ` lines unquoted, without the blank line that
    /// separates it from the next.
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

/// Whether `line` (without its line end) is an envelope line: `From `, a sender with no space,
/// a space, a date.
fn is_envelope(bare: &[u8]) -> bool {
    bare.starts_with(b"From ")
        && bare
            .get(5..)
            .and_then(|e| {
                let sp = memchr::memchr(b' ', e)?;
                Some(sp > 0 && plausible_date(e.get(sp..)?))
            })
            .unwrap_or(false)
}

/// The line at the start of `rest`, with its line end, and without.
fn line_at(rest: &[u8]) -> (&[u8], &[u8]) {
    let end = memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
    let line = rest.get(..end).unwrap_or_default();
    let bare = line.strip_suffix(b"\n").unwrap_or(line);
    (line, bare.strip_suffix(b"\r").unwrap_or(bare))
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
        if let Some(value) = bare
            .get(..15)
            .filter(|n| n.eq_ignore_ascii_case(b"Content-Length:"))
            .and_then(|_| bare.get(15..))
        {
            let value = value.trim_ascii();
            if !value.is_empty() && value.iter().all(u8::is_ascii_digit) {
                length = std::str::from_utf8(value).ok()?.parse().ok();
            }
        }
    }
    None
}

/// mboxcl2: the message after the envelope line ending at `start` is framed by its
/// `Content-Length` when the body that long ends at the end of the file, or at a line end
/// (and blank lines) before the next envelope line. Returns where the message ends and where
/// the next one starts.
fn content_length_frame(bytes: &[u8], start: usize) -> Option<(usize, usize)> {
    let (body, length) = heading_length(bytes, start)?;
    let end = body.checked_add(length)?;
    if end == bytes.len() {
        return Some((end, end));
    }
    let mut next = end;
    // The separator: line ends only, at least one.
    loop {
        let rest = bytes.get(next..)?;
        if rest.starts_with(b"\r\n") {
            next += 2;
        } else if rest.starts_with(b"\n") {
            next += 1;
        } else {
            break;
        }
    }
    if next == end {
        return None;
    }
    if next == bytes.len() || is_envelope(line_at(bytes.get(next..)?).1) {
        Some((end, next))
    } else {
        None
    }
}

/// The messages of an mbox (mboxo, mboxrd and mboxcl2): a message starts at a `From ` envelope
/// line at the start of the file or after a blank line. A message whose `Content-Length` frames
/// it exactly (mboxcl2: the body that long, then the next envelope line or the end) is taken
/// as that many bytes, unquoted; otherwise it runs to the next envelope line after a blank
/// line, and in it a line `>From `, `>>From `, … loses one `>` (mboxrd's rule, which reads
/// mboxo's `>From ` too). Bytes before the first envelope line are no message: [`split`] says
/// how many there were.
pub fn split(bytes: &[u8]) -> (Vec<MboxMessage>, usize) {
    let mut messages: Vec<MboxMessage> = Vec::new();
    let mut current: Option<MboxMessage> = None;
    let mut preamble = 0usize;
    let mut at = 0usize;
    let mut after_blank = true;
    while at < bytes.len() {
        let (line, bare) = line_at(bytes.get(at..).unwrap_or_default());
        if after_blank && is_envelope(bare) {
            if let Some(m) = current.take() {
                messages.push(finish(m, at));
            }
            let envelope = String::from_utf8_lossy(bare.get(5..).unwrap_or_default()).into_owned();
            let start = at + line.len();
            if let Some((end, next)) = content_length_frame(bytes, start) {
                messages.push(MboxMessage {
                    index: messages.len(),
                    offset: at as u64,
                    envelope,
                    bytes: bytes.get(start..end).unwrap_or_default().to_vec(),
                    start: start as u64,
                    unquoted: Vec::new(),
                    end: next as u64,
                    separator: next - end,
                    framing: Framing::ContentLength,
                });
                at = next;
                after_blank = true;
                continue;
            }
            current = Some(MboxMessage {
                index: messages.len(),
                offset: at as u64,
                envelope,
                bytes: Vec::new(),
                start: (at + line.len()) as u64,
                unquoted: Vec::new(),
                end: 0,
                separator: 0,
                framing: Framing::FromLine,
            });
        } else if let Some(m) = current.as_mut() {
            let quoted = bare
                .iter()
                .position(|&b| b != b'>')
                .is_some_and(|n| n > 0 && bare.get(n..).is_some_and(|r| r.starts_with(b"From ")));
            if quoted {
                m.unquoted.push(m.bytes.len());
            }
            m.bytes.extend_from_slice(if quoted {
                line.get(1..).unwrap_or_default()
            } else {
                line
            });
        } else {
            preamble += line.len();
        }
        after_blank = bare.is_empty();
        at += line.len();
    }
    if let Some(m) = current.take() {
        messages.push(finish(m, bytes.len()));
    }
    (messages, preamble)
}

/// A From-line message ending at `end`: the blank line before the next envelope line is the
/// separator's, not the message's.
fn finish(mut m: MboxMessage, end: usize) -> MboxMessage {
    // A message that is nothing but that blank line is empty.
    let separator = if m.bytes.ends_with(b"\r\n\r\n") || m.bytes == b"\r\n" {
        2
    } else if m.bytes.ends_with(b"\n\n") || m.bytes == b"\n" {
        1
    } else {
        0
    };
    m.bytes.truncate(m.bytes.len() - separator);
    m.end = end as u64;
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
        let replaced = new
            .get(i)
            .and_then(Option::as_ref)
            .filter(|b| **b != m.bytes);
        let Some(bytes) = replaced else {
            out.extend_from_slice(raw);
            continue;
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
                quote_from_lines(bytes, &mut out);
                // The next envelope line is one only after a blank line: the message's last
                // line ended, then the separator, a blank line in the line ending of that
                // last line (so that reading takes it away again), written even where the
                // original had none before a next message.
                if offset(m.end) < original.len() || !separator.is_empty() {
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
                continue;
            }
            Framing::ContentLength => set_content_length(bytes, &mut out),
        }
        out.extend_from_slice(separator);
    }
    out
}

fn offset(o: u64) -> usize {
    usize::try_from(o).unwrap_or(usize::MAX)
}

/// mboxrd: every line `>*From ` gains a `>`, so reading takes exactly one away.
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
mod sniff_tests {
    #![allow(clippy::indexing_slicing, clippy::unwrap_used)]

    use super::*;

    #[test]
    fn envelope_then_heading() {
        assert!(looks_like_mbox(
            b"From alice@example.org Mon Jan  1 00:00:00 2001\nFrom: alice@example.org\n\nHi\n"
        ));
        assert!(looks_like_mbox(
            b"From - Tue Jan 13 10:00:00 2015\r\nSubject: x\r\n\r\n"
        ));
        assert!(!looks_like_mbox(
            b"From here on, <a href=x>links</a>\nmore\n"
        ));
        assert!(!looks_like_mbox(
            b"From alice Mon Jan  1 00:00:00 2001\n<html>\n"
        ));
        assert!(!looks_like_mbox(b"From: alice@example.org\nSubject: x\n\n"));
    }

    #[test]
    fn split_unquotes_and_keeps_from_in_bodies() {
        let mbox = b"From a@x Mon Jan  1 00:00:00 2001\nSubject: one\n\nFrom the start\n>From quoted\n>>From twice\n\nFrom b@x Mon Jan  1 00:00:01 2001\r\nSubject: two\r\n\r\nbody\r\n";
        let (messages, preamble) = split(mbox);
        assert_eq!(preamble, 0);
        assert_eq!(messages.len(), 2);
        // "From the start" follows a blank line but has no date: a body line.
        assert_eq!(
            messages[0].bytes,
            b"Subject: one\n\nFrom the start\nFrom quoted\n>From twice\n".to_vec()
        );
        assert_eq!(messages[0].envelope, "a@x Mon Jan  1 00:00:00 2001");
        assert_eq!(messages[1].index, 1);
        assert_eq!(messages[1].offset, 90);
        assert_eq!(messages[1].bytes, b"Subject: two\r\n\r\nbody\r\n".to_vec());
        let (messages, preamble) = split(b"junk\n\nFrom a@x Mon Jan  1 00:00:00 2001\nS: 1\n\nb\n");
        assert_eq!((messages.len(), preamble), (1, 6));
    }

    /// A place in a message's bytes maps back to the file past its envelope line and past each
    /// `>` unquoting took away before it: every byte of the message lands on the same byte.
    #[test]
    fn file_place_undoes_the_envelope_and_the_unquoting() {
        let mbox = b"From a@x Mon Jan  1 00:00:00 2001\nSubject: one\n\n>From quoted\nmid\n>>From twice\nend\n\nFrom b@x Mon Jan  1 00:00:01 2001\nS: 2\n\n>From b\n";
        let (messages, _) = split(mbox);
        for m in &messages {
            for (i, &byte) in m.bytes.iter().enumerate() {
                let at = m.file_place(crate::error::Place {
                    offset: i as u64,
                    within: 0,
                });
                assert_eq!(
                    mbox[at.offset as usize], byte,
                    "message {} byte {i}",
                    m.index
                );
            }
        }
        let mid = messages[0]
            .bytes
            .windows(3)
            .position(|w| w == b"mid")
            .unwrap();
        let at = messages[0].file_place(crate::error::Place {
            offset: mid as u64,
            within: 0,
        });
        assert_eq!(
            at.offset as usize,
            mbox.windows(3).position(|w| w == b"mid").unwrap()
        );
    }

    /// mboxcl2: a body framed by its Content-Length is taken whole, its `From ` lines (after a
    /// blank line, with a date) and `>From ` lines as they are; a Content-Length that does not
    /// frame the message is not trusted (the From-line rules read it).
    #[test]
    fn content_length_frames_mboxcl2() {
        let body = "From me Mon Jan  1 00:00:00 2001\n\n>From you\n";
        let mbox = format!(
            "From a@x Mon Jan  1 00:00:00 2001\nContent-Length: {}\n\n{body}\nFrom b@x Mon Jan  1 00:00:01 2001\nContent-Length: 99\n\n>From c\n",
            body.len()
        );
        let (messages, _) = split(mbox.as_bytes());
        assert_eq!(messages.len(), 2);
        assert_eq!(messages[0].framing, Framing::ContentLength);
        assert_eq!(
            String::from_utf8_lossy(&messages[0].bytes),
            format!("Content-Length: {}\n\n{body}", body.len())
        );
        assert_eq!(messages[0].separator, 1);
        assert_eq!(messages[1].framing, Framing::FromLine);
        assert_eq!(
            messages[1].bytes,
            b"Content-Length: 99\n\nFrom c\n".to_vec()
        );
        assert_eq!(messages[1].end, mbox.len() as u64);
    }

    /// Writing back: messages left alone are copied byte for byte; a replaced one is quoted
    /// (mboxrd) or has its Content-Length set, so that reading it gives the new bytes.
    #[test]
    fn join_writes_back_what_split_reads() {
        let cl2 = "Content-Length: 4\n\nabc\n";
        let mbox = format!(
            "pre\n\nFrom a@x Mon Jan  1 00:00:00 2001\nS: 1\n\n>From q\n>>From qq\nx\n\nFrom b@x Mon Jan  1 00:00:01 2001\n{cl2}\nFrom c@x Mon Jan  1 00:00:02 2001\r\nS: 3\r\n\r\nkeep\r\n"
        );
        let (messages, preamble) = split(mbox.as_bytes());
        assert_eq!((messages.len(), preamble), (3, 5));
        // Nothing replaced, or replaced by the same bytes: the input.
        let same: Vec<_> = messages.iter().map(|m| Some(m.bytes.clone())).collect();
        assert_eq!(join(mbox.as_bytes(), &messages, &same), mbox.as_bytes());
        assert_eq!(join(mbox.as_bytes(), &messages, &[]), mbox.as_bytes());
        let new = [
            Some(b"S: 1\n\nFrom q\n>From qq\ny\n".to_vec()),
            Some(b"Content-Length: 4\n\nabcdef\n".to_vec()),
            None,
        ];
        let out = join(mbox.as_bytes(), &messages, &new);
        assert_eq!(
            String::from_utf8_lossy(&out),
            "pre\n\nFrom a@x Mon Jan  1 00:00:00 2001\nS: 1\n\n>From q\n>>From qq\ny\n\nFrom b@x Mon Jan  1 00:00:01 2001\nContent-Length: 7\n\nabcdef\n\nFrom c@x Mon Jan  1 00:00:02 2001\r\nS: 3\r\n\r\nkeep\r\n"
        );
        let (again, _) = split(&out);
        let got: Vec<_> = again.iter().map(|m| Some(m.bytes.clone())).collect();
        // The Content-Length read back is the one written.
        let cl2_new = b"Content-Length: 7\n\nabcdef\n".to_vec();
        assert_eq!(
            got,
            [
                new[0].clone(),
                Some(cl2_new),
                Some(messages[2].bytes.clone())
            ]
        );
    }

    /// Found by the `mbox` fuzz target: a message that is only the blank line before the next
    /// envelope line is empty, and a replaced message is followed by a blank line, so that the
    /// next message is still one when read back.
    #[test]
    fn a_replaced_message_keeps_the_next_one_apart() {
        let mbox =
            b"From a@x Mon Jan  1 00:00:00 2001\n\nFrom b@x Mon Jan  1 00:00:01 2001\nS: 1\n\nb\n";
        let (messages, _) = split(mbox);
        assert_eq!(messages.len(), 2);
        assert_eq!(
            (messages[0].bytes.as_slice(), messages[0].separator),
            (&b""[..], 1)
        );
        for new in [&b"S: 2\n\nFrom x\n"[..], b"S: 2\n\nno line end"] {
            let out = join(mbox, &messages, &[Some(new.to_vec()), None]);
            let (again, _) = split(&out);
            assert_eq!(again.len(), 2, "{}", String::from_utf8_lossy(&out));
            assert_eq!(again[1].bytes, messages[1].bytes);
            let mut want = new.to_vec();
            if !want.ends_with(b"\n") {
                want.push(b'\n');
            }
            assert_eq!(again[0].bytes, want);
        }
        // Found next: a separator in another line ending than the new message's last line.
        let crlf =
            b"From a@x Mon Jan  1 00:00:00 2001\r\nS: 1\r\n\r\nFrom b@x Mon Jan  1 00:00:01 2001\n";
        let (messages, _) = split(crlf);
        let out = join(crlf, &messages, &[Some(b"S: 2\n".to_vec()), None]);
        assert_eq!(split(&out).0[0].bytes, b"S: 2\n");
        // Found next: an envelope line at the end of the file, without a line end.
        let last = b"From a@x Mon Jan  1 00:00:00 2001";
        let (messages, _) = split(last);
        assert_eq!(messages[0].bytes, b"");
        let out = join(last, &messages, &[Some(b"\nFrom x\n".to_vec())]);
        assert_eq!(out, b"From a@x Mon Jan  1 00:00:00 2001\n\n>From x\n");
        assert_eq!(split(&out).0[0].bytes, b"\nFrom x\n");
    }

    /// An mbox another tool wrote: Python's `mailbox.mbox` (mboxo, `>From ` quoting), the
    /// fixture's source in `fixtures/README.md`.
    #[test]
    fn an_mbox_written_by_pythons_mailbox_module() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/mbox/python-mailbox.mbox"
        );
        let bytes = std::fs::read(path).unwrap_or_default();
        let (messages, preamble) = split(&bytes);
        assert_eq!((messages.len(), preamble), (2, 0));
        assert!(messages[0]
            .bytes
            .starts_with(b"From: Ann <ann@example.org>\n"));
        let body = String::from_utf8_lossy(&messages[1].bytes);
        assert!(body.contains("\nFrom here on, the body says"), "{body}");
        assert!(!body.contains(">From"), "{body}");
        assert!(body.ends_with("at a line start.\n"), "{body:?}");
    }
}
