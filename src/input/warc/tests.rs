//! The WARC reader's unit tests.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
use super::*;
use std::io::{Cursor, Write};

fn record(kind: &str, uri: &str, block: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:uuid:{uri}>\r\nWARC-Target-URI: {uri}\r\nContent-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    r.extend_from_slice(block);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap_or_default();
    e.finish().unwrap_or_default()
}

fn read_all(bytes: Vec<u8>) -> Vec<Item> {
    match WarcReader::new(Cursor::new(bytes)) {
        Ok(r) => r.collect(),
        Err(e) => panic!("{e}"),
    }
}

fn summary(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .map(|i| match i {
            Item::Record(r) => format!(
                "{}@{}..{:?} {}{}",
                r.target_uri().unwrap_or("-"),
                if r.within > 0 {
                    format!("{}+{}", r.offset, r.within)
                } else {
                    r.offset.to_string()
                },
                r.raw_end,
                String::from_utf8_lossy(r.block.as_deref().unwrap_or_default()),
                match (&r.damage, r.truncated) {
                    (Some(d), true) => format!(" [truncated] {d}"),
                    (Some(d), false) => format!(" [damaged] {d}"),
                    (None, _) => String::new(),
                }
            ),
            Item::Damaged(d) => format!("damaged@{} {}", d.offset, d.message),
        })
        .collect()
}

/// The items of `bytes` read as the ranges cut at `cuts` (ascending), one after the other.
fn read_ranges(bytes: &[u8], cuts: &[u64]) -> Vec<Item> {
    let mut bounds = vec![0];
    bounds.extend_from_slice(cuts);
    let mut items = Vec::new();
    for (i, start) in bounds.iter().enumerate() {
        let end = bounds.get(i + 1).copied();
        let reader = WarcReader::range(Cursor::new(bytes.to_vec()), *start, end).unwrap();
        items.extend(reader);
    }
    items
}

/// Archives to split: records whose payloads hold `WARC/1.` lines and gzip's magic bytes.
fn splittable() -> Vec<Vec<u8>> {
    let mut records = vec![record("warcinfo", "info", b"software: t\r\n")];
    for i in 0..6 {
        let block = format!(
            "HTTP/1.1 200 OK\r\n\r\n<pre>\nWARC/1.1\r\nContent-Length: 3\r\n\r\nabc\r\n</pre>{}",
            "x".repeat(i * 37)
        );
        let mut block = block.into_bytes();
        block.extend_from_slice(&GZIP_MAGIC);
        records.push(record("response", &format!("http://h/{i}"), &block));
    }
    let plain: Vec<u8> = records.concat();
    let members: Vec<u8> = records.iter().flat_map(|r| gz(r)).collect();
    let one_member = gz(&plain);
    vec![plain, members, one_member]
}

#[test]
fn ranges_cut_anywhere_read_every_record_once() {
    for bytes in splittable() {
        let whole = summary(&read_all(bytes.clone()));
        assert_eq!(whole.len(), 7);
        let len = bytes.len() as u64;
        // One cut at every byte: inside a record or a member, exactly at a boundary, at 0
        // and at the end.
        for cut in 0..=len {
            assert_eq!(summary(&read_ranges(&bytes, &[cut])), whole, "cut at {cut}");
        }
        // Many small ranges, of every width up to a record's length.
        for width in (1..300).step_by(7) {
            let cuts: Vec<u64> = (1..).map(|k| k * width).take_while(|c| *c < len).collect();
            assert_eq!(summary(&read_ranges(&bytes, &cuts)), whole, "width {width}");
        }
    }
}

#[test]
fn ranges_start_at_record_boundaries() {
    let [plain, members, _] = <[Vec<u8>; 3]>::try_from(splittable()).unwrap();
    for (bytes, gzip) in [(plain, false), (members, true)] {
        let offsets: Vec<u64> = read_all(bytes.clone())
            .iter()
            .map(|i| match i {
                Item::Record(r) => r.offset,
                Item::Damaged(d) => panic!("{d}"),
            })
            .collect();
        let mut cursor = Cursor::new(bytes.clone());
        let mut found = Vec::new();
        let mut at = 0;
        while let Some(b) = next_boundary(&mut cursor, at, gzip).unwrap() {
            found.push(b);
            at = b + 1;
        }
        assert_eq!(found, offsets);
    }
}

#[test]
fn damaged_archives_split_lose_nothing() {
    // Garbage between records, a Content-Length too long, a corrupt member.
    let (a, b, c) = (
        record("response", "http://h/a", b"aaaa"),
        record("response", "http://h/b", b"bbbb"),
        record("response", "http://h/c", b"cccc"),
    );
    let mut long = b.clone();
    let at = memchr::memmem::find(&long, b"Content-Length: 4").unwrap();
    long[at + 16] = b'9';
    let plain = [a.clone(), b"garbage\r\n".to_vec(), long, c.clone()].concat();
    let mut bad = gz(&b);
    let n = bad.len();
    bad[n / 2] ^= 0xff;
    let members = [gz(&a), bad, gz(&c)].concat();
    for bytes in [plain, members] {
        let whole = summary(&read_all(bytes.clone()));
        let records = |items: &[String]| -> Vec<String> {
            items
                .iter()
                .filter(|s| !s.starts_with("damaged"))
                .cloned()
                .collect()
        };
        for cut in 0..=bytes.len() as u64 {
            let got = summary(&read_ranges(&bytes, &[cut]));
            assert_eq!(records(&got), records(&whole), "cut at {cut}");
        }
    }
}

#[test]
fn plain_records_with_offsets() {
    let a = record("response", "http://a/", b"AAA");
    let b = record("resource", "http://b/", b"");
    let mut file = a.clone();
    file.extend_from_slice(&b);
    let items = read_all(file);
    let end = a.len() + b.len();
    assert_eq!(
        summary(&items),
        [
            format!("http://a/@0..Some({}) AAA", a.len()),
            format!("http://b/@{}..Some({end}) ", a.len()),
        ]
    );
}

#[test]
fn gzip_members_with_offsets() {
    let (a, b) = (
        gz(&record("response", "http://a/", b"AAA")),
        gz(&record("response", "http://b/", b"BB")),
    );
    let mut file = a.clone();
    file.extend_from_slice(&b);
    let total = file.len();
    assert!(looks_like_warc(&file));
    assert_eq!(
        summary(&read_all(file)),
        [
            format!("http://a/@0..Some({}) AAA", a.len()),
            format!("http://b/@{}..Some({total}) BB", a.len()),
        ]
    );
}

#[test]
fn garbage_between_records_is_skipped_and_said() {
    let mut file = record("response", "http://a/", b"A");
    file.extend_from_slice(b"junk line\r\nmore junk\r\n");
    file.extend_from_slice(&record("response", "http://b/", b"B"));
    let s = summary(&read_all(file));
    assert_eq!(s.len(), 3);
    assert!(s[1].starts_with("damaged@"), "{s:?}");
    assert!(s[2].starts_with("http://b/@"), "{s:?}");
}

#[test]
fn wrong_content_length_is_said_and_the_next_record_read() {
    for delta in [-2i64, 5, 40] {
        let mut a = record("response", "http://a/", b"0123456789");
        let cl = b"Content-Length: 10";
        let at = memchr::memmem::find(&a, cl).unwrap_or(0);
        let new = format!("Content-Length: {}", 10 + delta);
        a.splice(at..at + cl.len(), new.bytes());
        let next = a.len();
        a.extend_from_slice(&record("response", "http://b/", b"B"));
        a.extend_from_slice(&record("response", "http://c/", b"C"));
        let s = summary(&read_all(a));
        // Read up to the next record, as warcio does: the block and the records after.
        assert_eq!(
            s[0],
            format!("http://a/@0..None 0123456789 [damaged] Content-Length {} does not end at the record's end: its block is 10 bytes, read up to the next record, at offset {next}", 10 + delta),
            "{delta}"
        );
        assert!(s[1].starts_with("http://b/"), "{delta}: {s:?}");
        assert!(s[2].starts_with("http://c/"), "{delta}: {s:?}");
    }
}

#[test]
fn truncated_and_corrupt_members_are_said() {
    let a = gz(&record("response", "http://a/", b"AAA"));
    let b = gz(&record("response", "http://b/", &[b'x'; 5000]));
    let c = gz(&record("response", "http://c/", b"C"));
    // A corrupt member in the middle: the next one is still read.
    let mut file = a.clone();
    let mut bad = b.clone();
    for x in bad.iter_mut().skip(20).take(30) {
        *x ^= 0x55;
    }
    file.extend_from_slice(&bad);
    file.extend_from_slice(&c);
    let s = summary(&read_all(file));
    assert!(s[0].starts_with("http://a/"), "{s:?}");
    assert!(s.iter().any(|x| x.starts_with("damaged@")), "{s:?}");
    assert!(
        s.last().is_some_and(|x| x.starts_with("http://c/")),
        "{s:?}"
    );
    // A truncated last member.
    let mut file = a.clone();
    file.extend_from_slice(b.get(..b.len() / 2).unwrap_or_default());
    let s = summary(&read_all(file));
    assert_eq!(s.len(), 2, "{s:?}");
    assert!(
        s[1].starts_with(&format!("damaged@{} truncated", a.len())),
        "{s:?}"
    );
    // Garbage between members.
    let mut file = a.clone();
    file.extend_from_slice(b"GARBAGE\x1f\x8bGARBAGE");
    file.extend_from_slice(&c);
    let s = summary(&read_all(file));
    assert!(s[0].starts_with("http://a/"), "{s:?}");
    assert!(s.iter().any(|x| x.starts_with("damaged@")), "{s:?}");
    assert!(
        s.last().is_some_and(|x| x.starts_with("http://c/")),
        "{s:?}"
    );
}

/// A reader that hands out one byte at a time: every line of a header block arrives in
/// pieces (a CR at the end of one buffer, its LF at the start of the next).
struct Trickle(Cursor<Vec<u8>>);

impl Read for Trickle {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(1);
        self.0.read(&mut buf[..n])
    }
}

impl BufRead for Trickle {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let pos = self.0.position() as usize;
        let data = self.0.get_ref();
        Ok(&data[pos.min(data.len())..(pos + 1).min(data.len())])
    }
    fn consume(&mut self, n: usize) {
        self.0.consume(n);
    }
}

impl Seek for Trickle {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.0.seek(pos)
    }
}

#[test]
fn records_arriving_in_pieces_read_the_same() {
    let mut file = record("response", "http://a/", b"AAA");
    file.extend_from_slice(&record("response", "http://b/", b"BB"));
    for bytes in [file.clone(), gz(&file)] {
        let items: Vec<Item> = WarcReader::new(Trickle(Cursor::new(bytes)))
            .unwrap()
            .collect();
        let s = summary(&items);
        assert_eq!(s.len(), 2, "{s:?}");
        assert!(
            s[0].starts_with("http://a/") && s[0].ends_with(" AAA"),
            "{s:?}"
        );
        assert!(
            s[1].starts_with("http://b/") && s[1].ends_with(" BB"),
            "{s:?}"
        );
    }
}

#[test]
fn blocks_not_kept_are_skipped() {
    let mut file = record("response", "http://a/", b"AAA");
    file.extend_from_slice(&record("metadata", "http://a/", b"META"));
    let items: Vec<Item> = match WarcReader::new(Cursor::new(file)) {
        Ok(r) => r
            .keep(|h, _| h.get("WARC-Type") == Some("response"))
            .collect(),
        Err(e) => panic!("{e}"),
    };
    let kept: Vec<bool> = items
        .iter()
        .map(|i| matches!(i, Item::Record(r) if r.block.is_some()))
        .collect();
    assert_eq!(kept, [true, false]);
}

#[test]
fn arbitrary_bytes_never_panic_or_hang() {
    let base = {
        let mut f = record("response", "http://a/", b"AAA");
        f.extend_from_slice(&record("response", "http://b/", b"BB"));
        f
    };
    for cut in 0..base.len() {
        let _ = read_all(base.get(..cut).unwrap_or_default().to_vec());
        let _ = read_all(gz(base.get(..cut).unwrap_or_default()));
    }
}

/// A `Content-Length` past the end of the file does not take the records
/// after it along: the next `WARC/` line inside the claimed block ends the record.
#[test]
fn content_length_past_eof_keeps_the_records_after() {
    let (b, c) = (
        record("response", "http://b/", b"BB"),
        record("response", "http://c/", b"C"),
    );
    for claimed in [100u64, MAX_HEADER as u64 * 3, 1 << 40] {
        let mut a = record("response", "http://a/", b"AAA");
        let at = memchr::memmem::find(&a, b"Content-Length: 3").unwrap();
        a.splice(at..at + 17, format!("Content-Length: {claimed}").bytes());
        let mut file = a.clone();
        file.extend_from_slice(&b);
        file.extend_from_slice(&c);
        let (ab, end) = (a.len() + b.len(), file.len());
        assert_eq!(
            summary(&read_all(file)),
            [
                format!("http://a/@0..None AAA [damaged] Content-Length {claimed} does not end at the record's end: its block is 3 bytes, read up to the next record, at offset {}", a.len()),
                format!("http://b/@{}..Some({ab}) BB", a.len()),
                format!("http://c/@{ab}..Some({end}) C"),
            ],
            "{claimed}"
        );
        // One member per record: the next member is the next record.
        let (a, b, c) = (gz(&a), gz(&b), gz(&c));
        let file = [a.clone(), b.clone(), c].concat();
        let (ab, end) = (a.len() + b.len(), file.len());
        assert_eq!(
            summary(&read_all(file)),
            [
                format!("http://a/@0..None AAA [damaged] Content-Length {claimed} does not end at the record's end: its block is 3 bytes, read up to the next record, at offset {}", a.len()),
                format!("http://b/@{}..Some({ab}) BB", a.len()),
                format!("http://c/@{ab}..Some({end}) C"),
            ],
            "gzip {claimed}"
        );
    }
}

/// Damage that does not end with a newline does not swallow the intact record
/// that follows it.
#[test]
fn damage_without_a_newline_does_not_swallow_the_next_record() {
    let a = record("response", "http://a/", b"A");
    let b = record("response", "http://b/", b"B");
    let mut file = a.clone();
    file.extend_from_slice(b"junk");
    file.extend_from_slice(&b);
    let at = a.len() + 4;
    let end = at + b.len();
    assert_eq!(
        summary(&read_all(file)),
        [
            format!("http://a/@0..Some({}) A", a.len()),
            format!(
                "damaged@{} not a WARC record (no WARC/ version line); skipped 4 bytes to the next record, at offset {at}",
                a.len()
            ),
            format!("http://b/@{at}..Some({end}) B"),
        ]
    );
    // A Content-Length two bytes short: the rest of the block and its CRLF CRLF are skipped
    // up to the next record, which is read whole.
    let mut a = record("response", "http://a/", b"0123456789");
    let at = memchr::memmem::find(&a, b"Content-Length: 10").unwrap();
    a.splice(at..at + 18, b"Content-Length: 8".iter().copied());
    let mut file = a.clone();
    file.extend_from_slice(&b);
    let end = a.len() + b.len();
    assert_eq!(
        summary(&read_all(file)),
        [
            format!("http://a/@0..None 0123456789 [damaged] Content-Length 8 does not end at the record's end: its block is 10 bytes, read up to the next record, at offset {}", a.len()),
            format!("http://b/@{}..Some({end}) B", a.len()),
        ]
    );
}

/// One bad byte in the first gzip member's header costs that member only.
#[test]
fn a_bad_first_member_header_costs_that_member_only() {
    let a = gz(&record("response", "http://a/", b"AAA"));
    let b = gz(&record("response", "http://b/", b"BB"));
    for (at, byte) in [(0usize, 0x00u8), (1, 0x00), (2, 0x09), (3, 0xff)] {
        let mut bad = a.clone();
        bad[at] = byte;
        let mut file = bad.clone();
        file.extend_from_slice(&b);
        let s = summary(&read_all(file.clone()));
        assert_eq!(s.len(), 2, "byte {at}: {s:?}");
        assert!(s[0].starts_with("damaged@0 "), "byte {at}: {s:?}");
        assert_eq!(
            s[1],
            format!("http://b/@{}..Some({}) BB", a.len(), file.len()),
            "byte {at}"
        );
    }
}

/// A block read up to the next record is the record's only when it is near the
/// length declared ([`SALVAGE_SLACK`]); a block not kept is found again in a gzip member
/// holding several records by decompressing the member again.
#[test]
fn salvage_is_bounded_and_works_on_blocks_not_kept() {
    let big = vec![b'x'; SALVAGE_SLACK as usize + 100];
    let mut a = record("response", "http://a/", &big);
    let cl = format!("Content-Length: {}", big.len());
    let at = memchr::memmem::find(&a, cl.as_bytes()).unwrap();
    a.splice(at..at + cl.len(), b"Content-Length: 1".iter().copied());
    let b = record("response", "http://b/", b"B");
    let file = [a.clone(), b.clone()].concat();
    assert_eq!(
        summary(&read_all(file)),
        [
            format!(
                "damaged@0 Content-Length 1 does not end at the record's end; skipped {} bytes to the next record, at offset {}",
                big.len() + 4,
                a.len()
            ),
            format!("http://b/@{}..Some({}) B", a.len(), a.len() + b.len()),
        ]
    );
    // One gzip member, blocks not kept, a Content-Length 3 bytes short.
    let mut a = record("metadata", "http://a/", b"0123456789");
    let at = memchr::memmem::find(&a, b"Content-Length: 10").unwrap();
    a.splice(at..at + 18, b"Content-Length: 7".iter().copied());
    let file = gz(&[a.clone(), b.clone()].concat());
    let end = file.len();
    let items: Vec<Item> = WarcReader::new(Cursor::new(file))
        .unwrap()
        .keep(|h, _| h.get("WARC-Type") == Some("response"))
        .collect();
    assert_eq!(
        summary(&items),
        [
            format!("http://a/@0..None  [damaged] Content-Length 7 does not end at the record's end: its block is 10 bytes, read up to the next record, at offset 0 (byte {} of its gzip member)", a.len()),
            format!("http://b/@0+{}..Some({end}) B", a.len()),
        ]
    );
}

/// Garbage after a member: the record before it still ends at its member's end, and the
/// member after the garbage is read.
#[test]
fn garbage_after_a_member_keeps_both_neighbours() {
    let a = gz(&record("response", "http://a/", b"AAA"));
    let c = gz(&record("response", "http://c/", b"C"));
    let file = [a.clone(), b"GARBAGE".to_vec(), c.clone()].concat();
    let end = file.len();
    assert_eq!(
        summary(&read_all(file)),
        [
            format!("http://a/@0..Some({}) AAA", a.len()),
            format!(
                "damaged@{} gzip member at offset {} is corrupt (invalid gzip header)",
                a.len(),
                a.len()
            ),
            format!("http://c/@{}..Some({end}) C", a.len() + 7),
        ]
    );
}
