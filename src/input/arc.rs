//! ① ARC files (the Internet Archive's format before WARC): what one looks like.
//!
//! An ARC file opens with a version block, a record whose URL line starts `filedesc://`:
//! `filedesc://NAME IP DATE text/plain LENGTH` (v1 and v2 alike). A `.arc.gz` holds one gzip
//! member per record, the version block first.

use std::io::Read;

/// The gzip magic and deflate method byte (RFC 1952 §2.3.1).
const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];

/// Whether `head` (the first bytes of a file) is an ARC file: a first line that is an ARC
/// version block's URL line (`filedesc://`, five fields, the last a length), or a gzip member
/// that decompresses to one.
pub fn looks_like_arc(head: &[u8]) -> bool {
    if head.starts_with(&GZIP_MAGIC) {
        let mut out = Vec::with_capacity(512);
        let dec = flate2::bufread::GzDecoder::new(head);
        // A truncated member still gives what it decompressed so far.
        let _ = dec.take(512).read_to_end(&mut out);
        return is_version_line(&out);
    }
    is_version_line(head)
}

/// `filedesc://NAME IP DATE CONTENT-TYPE LENGTH`; when the line does not end within `head`, the
/// `filedesc://` prefix alone decides.
fn is_version_line(head: &[u8]) -> bool {
    if !head.starts_with(b"filedesc://") {
        return false;
    }
    let Some(end) = memchr::memchr(b'\n', head) else {
        return true;
    };
    let line = head.get(..end).unwrap_or_default();
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let fields: Vec<&[u8]> = line
        .split(|&b| b == b' ')
        .filter(|f| !f.is_empty())
        .collect();
    fields.len() >= 5
        && fields
            .last()
            .is_some_and(|f| f.iter().all(u8::is_ascii_digit))
}

#[cfg(test)]
mod sniff_tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn version_lines() {
        assert!(looks_like_arc(
            b"filedesc://x.arc 0.0.0.0 20050614070159 text/plain 77\n1 0 Alexa\n"
        ));
        assert!(looks_like_arc(b"filedesc://x.arc"));
        assert!(!looks_like_arc(b"filedesc://x.arc hello\n"));
        assert!(!looks_like_arc(b"<html>filedesc://"));
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(
            &mut gz,
            b"filedesc://x.arc 0.0.0.0 20050614070159 text/plain 77\n",
        )
        .unwrap();
        assert!(looks_like_arc(&gz.finish().unwrap()));
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, b"WARC/1.0\r\n").unwrap();
        assert!(!looks_like_arc(&gz.finish().unwrap()));
    }
}
