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

#[cfg(test)]
mod sniff_tests {
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
}
