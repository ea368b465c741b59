//! WARC damage recovery: an archive of intact records with fuzz-chosen damage
//! between them (garbage) or in one of them (a wrong `Content-Length`), plain and as a
//! `.warc.gz` of one member per record. Checks: every intact record is read whole, at its offset
//! and in order, whatever the damage; damage is reported with an offset inside the damaged span;
//! nothing else is read as a record.
//!
//! Input: byte 0 = number of records (1–6), byte 1 bit 0 = gzip, bit 1 = damage in a record's
//! `Content-Length` (bytes 3–6 its value) rather than garbage; byte 2 = where (which gap or
//! record); the rest = the garbage. The garbage never holds `W` or `0x1f` (mapped to `w` and
//! `0x1e`): a version line or a gzip member in it would be a record, which is no damage. A wrong
//! `Content-Length` is shorter than the block or runs past the end of the file: a longer one
//! that happens to end at a later record's end takes that record as its block, as it should
//! under ISO 28500 framing.
#![no_main]

use std::io::{Cursor, Write};

use libfuzzer_sys::fuzz_target;
use linkbase::input::warc::{Item, WarcReader};

fn record(i: usize, content_length: Option<u64>) -> (String, Vec<u8>, Vec<u8>) {
    let uri = format!("http://r{i}/");
    let block = format!(
        "HTTP/1.1 200 OK\r\n\r\n<a href=x{i}>{}</a>",
        "y".repeat(i * 7)
    )
    .into_bytes();
    let mut r = format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\nContent-Length: {}\r\n\r\n",
        content_length.unwrap_or(block.len() as u64)
    )
    .into_bytes();
    r.extend_from_slice(&block);
    r.extend_from_slice(b"\r\n\r\n");
    (uri, block, r)
}

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let _ = e.write_all(bytes);
    e.finish().unwrap_or_default()
}

fuzz_target!(|data: &[u8]| {
    let [count, flags, at, rest @ ..] = data else {
        return;
    };
    let n = 1 + usize::from(*count) % 6;
    let gzip = flags & 1 == 1;
    let in_record = flags & 2 == 2;
    let (length, garbage) = match rest {
        [a, b, c, d, g @ ..] if in_record => (u32::from_le_bytes([*a, *b, *c, *d]), g),
        _ => (0, rest),
    };
    let garbage: Vec<u8> = garbage
        .iter()
        .map(|b| match b {
            b'W' => b'w',
            0x1f => 0x1e,
            b => *b,
        })
        .collect();
    let damaged = in_record.then_some(usize::from(*at) % n);
    let gap = (!in_record).then_some(usize::from(*at) % (n + 1));

    // (uri, block, offset, end) of each intact record; the damaged span's start and end.
    let mut intact = Vec::new();
    let mut file = Vec::new();
    let mut span = None;
    for i in 0..=n {
        if gap == Some(i) && garbage.iter().any(|b| !matches!(b, b'\r' | b'\n')) {
            let start = file.len();
            file.extend_from_slice(&garbage);
            span = Some((start, file.len()));
        }
        if i == n {
            break;
        }
        let (uri, block, mut bytes) = record(i, None);
        if damaged == Some(i) {
            // Shorter than the block, or past the end of any file built here.
            let claimed = if length % 2 == 0 {
                u64::from(length) % block.len() as u64
            } else {
                u64::from(length) | (1 << 32)
            };
            bytes = record(i, Some(claimed)).2;
        }
        if gzip {
            bytes = gz(&bytes);
        }
        let start = file.len();
        file.extend_from_slice(&bytes);
        if damaged == Some(i) {
            span = Some((start, file.len()));
        } else {
            intact.push((uri, block, start as u64, file.len() as u64));
        }
    }
    let Ok(reader) = WarcReader::new(Cursor::new(file.clone())) else {
        return;
    };
    let items: Vec<Item> = reader.collect();
    let records: Vec<_> = items
        .iter()
        .filter_map(|i| match i {
            Item::Record(r) => Some(r),
            Item::Damaged(_) => None,
        })
        .filter(|r| intact.iter().any(|(u, ..)| r.target_uri() == Some(u)))
        .collect();
    assert_eq!(records.len(), intact.len(), "{items:?}");
    for (r, (uri, block, offset, end)) in records.iter().zip(&intact) {
        assert_eq!(r.target_uri(), Some(uri.as_str()), "{items:?}");
        assert_eq!(r.offset, *offset, "{items:?}");
        assert_eq!(r.raw_end, Some(*end), "{items:?}");
        assert_eq!(r.block.as_deref(), Some(&block[..]), "{items:?}");
    }
    // Only the damaged record may be read besides the intact ones (when its length happened to
    // frame something).
    for i in &items {
        if let Item::Record(r) = i {
            assert!(
                records.iter().any(|k| std::ptr::eq(*k, r)) || span.is_some(),
                "{items:?}"
            );
        }
    }
    if let Some((start, end)) = span {
        let said = items.iter().any(|i| match i {
            Item::Damaged(d) => (start as u64..end as u64).contains(&d.offset),
            Item::Record(_) => false,
        });
        let whole = items.iter().any(|i| match i {
            Item::Record(r) => r.offset == start as u64 && damaged.is_some(),
            Item::Damaged(_) => false,
        });
        assert!(
            said || whole,
            "damage at {start}..{end} not reported: {items:?}"
        );
    }
});
