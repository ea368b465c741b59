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
    let mbox = b"From a@x Mon Jan  1 00:00:00 2001\nSubject: one\n\nFrom the start\nFrom mid-paragraph\n>From quoted\n>>From twice\n\nFrom b@x Mon Jan  1 00:00:01 2001\r\nSubject: two\r\n\r\nbody\r\n";
    let (messages, preamble) = split(mbox);
    assert_eq!(preamble, 0);
    // "From the start" follows a blank line: an envelope line, as Python's mailbox and
    // MimeKit read it, though it has no date (a writer quotes such a body line).
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[0].bytes, b"Subject: one\n".to_vec());
    assert_eq!(messages[1].envelope, "the start");
    // "From mid-paragraph" follows no blank line: a body line.
    assert_eq!(
        messages[1].bytes,
        b"From mid-paragraph\nFrom quoted\n>From twice\n".to_vec()
    );
    assert_eq!(messages[0].envelope, "a@x Mon Jan  1 00:00:00 2001");
    assert_eq!(messages[2].index, 2);
    assert_eq!(messages[2].offset, 109);
    assert_eq!(messages[2].bytes, b"Subject: two\r\n\r\nbody\r\n".to_vec());
    let (messages, preamble) = split(b"junk\n\nFrom a@x Mon Jan  1 00:00:00 2001\nS: 1\n\nb\n");
    assert_eq!((messages.len(), preamble), (1, 6));
}

/// Envelope lines without a date (Netscape's and Thunderbird's `From - `, Gmail's
/// `From ID@xxx`) start messages, as Python's `mailbox` reads them.
#[test]
fn envelopes_without_a_date() {
    let mbox = b"From - \nSubject: a\n\none\n\nFrom 1844347792267117879@xxx\nSubject: b\n\ntwo\n";
    let (messages, preamble) = split(mbox);
    assert_eq!((messages.len(), preamble), (2, 0));
    assert_eq!(messages[0].envelope, "- ");
    assert_eq!(messages[0].bytes, b"Subject: a\n\none\n");
    assert_eq!(messages[1].envelope, "1844347792267117879@xxx");
    assert_eq!(messages[1].bytes, b"Subject: b\n\ntwo\n");
    assert!(looks_like_mbox(b"From - \nReturn-Path: <a@b>\n"));
    assert_eq!(
        envelope_then_field(b"From - \nReturn-Path: <a@b>\n"),
        Some(false)
    );
    assert_eq!(
        envelope_then_field(b"From a Mon Jan  1 00:00:00 2001\nS: x\n"),
        Some(true)
    );
}

/// A message past the reader's limit is not held: it is given with its size, and the next
/// one is read as usual; writing back copies it as it was.
#[test]
fn a_message_past_the_limit_is_skipped_not_held() {
    let big = "x".repeat(300);
    let mbox = format!("From a\nS: 1\n\n{big}\n\nFrom b\nS: 2\n\nsmall\n");
    let reader = MboxReader::new(std::io::Cursor::new(mbox.as_bytes()))
        .unwrap()
        .limit(100);
    let messages: Vec<_> = reader.map(Result::unwrap).collect();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0].too_large, Some(big.len() as u64 + 8));
    assert!(messages[0].bytes.is_empty());
    assert_eq!(messages[1].bytes, b"S: 2\n\nsmall\n");
    let mut source = std::io::Cursor::new(mbox.as_bytes());
    let mut out = Vec::new();
    for m in &messages {
        write_message(&mut source, m, Some(b"S: 9\n\nnew\n"), &mut out).unwrap();
    }
    assert_eq!(
        String::from_utf8(out).unwrap(),
        format!("From a\nS: 1\n\n{big}\n\nFrom b\nS: 9\n\nnew\n")
    );
}

/// A line longer than a piece is read in pieces: only a piece that starts a line can be an
/// envelope line, and the message's bytes are whole.
#[test]
fn long_lines_are_read_in_pieces() {
    let long = format!("{}From x{}", "a".repeat(PIECE - 3), "b".repeat(PIECE));
    let mbox = format!("From a\nS: 1\n\n{long}\n\nFrom b\nS: 2\n\n");
    let (messages, _) = split(mbox.as_bytes());
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0].bytes, format!("S: 1\n\n{long}\n").into_bytes());
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
