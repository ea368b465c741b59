//! ① mbox files (many mails, each after a `From ` envelope line): what one looks like.

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
}

/// The messages of an mbox (mboxo and mboxrd): a message starts at a `From ` envelope line at
/// the start of the file or after a blank line; in its body, a line `>From `, `>>From `, …
/// loses one `>` (mboxrd's rule, which reads mboxo's `>From ` too). Bytes before the first
/// envelope line are no message: [`split`] says how many there were.
pub fn split(bytes: &[u8]) -> (Vec<MboxMessage>, usize) {
    let mut messages: Vec<MboxMessage> = Vec::new();
    let mut current: Option<MboxMessage> = None;
    let mut preamble = 0usize;
    let mut at = 0usize;
    let mut after_blank = true;
    while at < bytes.len() {
        let rest = bytes.get(at..).unwrap_or_default();
        let end = memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
        let line = rest.get(..end).unwrap_or_default();
        let bare = line.strip_suffix(b"\n").unwrap_or(line);
        let bare = bare.strip_suffix(b"\r").unwrap_or(bare);
        let envelope = after_blank
            && bare.starts_with(b"From ")
            && bare
                .get(5..)
                .and_then(|e| {
                    let sp = memchr::memchr(b' ', e)?;
                    Some(sp > 0 && plausible_date(e.get(sp..)?))
                })
                .unwrap_or(false);
        if envelope {
            if let Some(mut m) = current.take() {
                strip_separator(&mut m.bytes);
                messages.push(m);
            }
            current = Some(MboxMessage {
                index: messages.len(),
                offset: at as u64,
                envelope: String::from_utf8_lossy(bare.get(5..).unwrap_or_default()).into_owned(),
                bytes: Vec::new(),
            });
        } else if let Some(m) = current.as_mut() {
            let quoted = bare
                .iter()
                .position(|&b| b != b'>')
                .is_some_and(|n| n > 0 && bare.get(n..).is_some_and(|r| r.starts_with(b"From ")));
            m.bytes.extend_from_slice(if quoted {
                line.get(1..).unwrap_or_default()
            } else {
                line
            });
        } else {
            preamble += line.len();
        }
        after_blank = bare.is_empty();
        at += end;
    }
    if let Some(mut m) = current.take() {
        strip_separator(&mut m.bytes);
        messages.push(m);
    }
    (messages, preamble)
}

/// The blank line before the next envelope line is the separator's, not the message's.
fn strip_separator(bytes: &mut Vec<u8>) {
    if bytes.ends_with(b"\r\n\r\n") {
        bytes.truncate(bytes.len() - 2);
    } else if bytes.ends_with(b"\n\n") {
        bytes.truncate(bytes.len() - 1);
    }
}

#[cfg(test)]
mod sniff_tests {
    #![allow(clippy::indexing_slicing)]

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
