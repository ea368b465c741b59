#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use super::*;

#[test]
fn version_lines() {
    assert!(looks_like_arc(
        b"filedesc://x.arc 0.0.0.0 20050614070159 text/plain 77\n1 0 Alexa\n"
    ));
    assert!(looks_like_arc(b"filedesc://x.arc"));
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

/// A version block past `MAX_LINE` (a hostile length) is not held in memory: it is read
/// past, and the records after it are read as usual.
#[test]
fn a_huge_version_block_is_streamed_past() {
    let mut arc = b"filedesc://x.arc 0.0.0.0 20050614070159 text/plain 100000\n".to_vec();
    arc.extend(std::iter::repeat_n(b'1', 100_000));
    arc.extend_from_slice(b"\n");
    let page = b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=x>x</a>";
    arc.extend_from_slice(
        format!(
            "http://ex.org/a/ 1.2.3.4 20050614070159 text/html {}\n",
            page.len()
        )
        .as_bytes(),
    );
    arc.extend_from_slice(page);
    arc.extend_from_slice(b"\n");
    let reader = ArcReader::new(std::io::Cursor::new(arc))
        .unwrap()
        // As the archive asks: blocks within a bound.
        .keep(|_, length| length <= 1_000);
    let records: Vec<Record> = reader
        .filter_map(|item| match item {
            Item::Record(r) => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(records.len(), 2);
    assert!(records[0].block.is_none(), "the version block is not held");
    assert_eq!(records[1].block.as_deref(), Some(&page[..]));
    assert_eq!(records[1].target_uri(), Some("http://ex.org/a/"));
}
