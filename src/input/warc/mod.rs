//! ① WARC records (ISO 28500: WARC/1.0 and WARC/1.1), one at a time, from a `.warc` or a
//! `.warc.gz` (one gzip member per record, as the standard's Annex D has it), in memory that does
//! not grow with the archive.
//!
//! A damaged archive is read as far as it can be, as warcio does: a truncated or corrupt gzip
//! member (the first one included), a `Content-Length` that does not end where the record ends or
//! runs past the end of the file, garbage between records. A record whose `Content-Length` is off
//! (or whose terminator is short) is read again from its block's start up to the next `WARC/1.`
//! version line, and that is its block when it is within [`SALVAGE_SLACK`] of the length declared;
//! a record the archive ends inside is read as far as it goes ([`Record::truncated`]). Such a
//! record says what was wrong ([`Record::damage`]). What cannot be read is an [`Item::Damaged`]
//! naming the offset and how many bytes were skipped to which offset, and reading goes on at the
//! next record: the next gzip member after the damaged record's, or the next `WARC/1.` version
//! line from the start of the damaged block (at a line start or not: damage need not end with a
//! newline). Nothing is dropped without a word. A `.warc.gz` made of one member (`gzip
//! file.warc`) is read record by record too; offsets inside it are [`Place`]s.
//!
//! Why not a WARC crate: `fastwarc` 2.0 and `warc` 0.4 were measured on the corpus archive
//! (BENCHMARKS.md): both read it fast, but both stop at the first damaged record, and `fastwarc`
//! returns a truncated last record as if it were whole. The framing is a few lines; the
//! recovery is the point, so it is ours. gzip is `flate2`.

mod record;
mod source;
#[cfg(test)]
mod tests;

pub(crate) use record::strip_angle;
pub use record::{Damage, Place, Record, RecordRef, SALVAGE_SLACK};
use source::*;

use std::io::{self, BufRead, Read, Seek, SeekFrom};

use super::headers::Headers;

/// Whether `head` (the first bytes of a file) is a WARC file: `WARC/` or a gzip member. A gzip
/// member is only taken for WARC when it decompresses to `WARC/`.
pub fn looks_like_warc(head: &[u8]) -> bool {
    if head.starts_with(b"WARC/") {
        return true;
    }
    if !head.starts_with(&GZIP_MAGIC) {
        return false;
    }
    let mut out = [0u8; 5];
    let mut dec = flate2::bufread::GzDecoder::new(head);
    let mut n = 0;
    while n < out.len() {
        match dec.read(out.get_mut(n..).unwrap_or_default()) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
    }
    out.get(..n) == Some(&b"WARC/"[..])
}

/// What reading gave next.
#[derive(Debug, Clone)]
pub enum Item {
    /// A whole record.
    Record(Record),
    /// Damage, skipped; reading goes on after it.
    Damaged(Damage),
}

/// Decides from a record's fields and length whether its block is held.
type Keep = dyn FnMut(&Headers, u64) -> bool + Send + Sync;

/// Reads records from a WARC file (`R` is usually a `BufReader<File>`; seeking is needed to
/// resume after a corrupt gzip member).
pub struct WarcReader<R: BufRead + Seek> {
    src: Source<R>,
    keep: Box<Keep>,
    done: bool,
    /// [`WarcReader::range`]: reading ends at the first record (or damage) at or past this
    /// offset.
    stop: Option<u64>,
    /// Nothing has been read yet.
    first: bool,
}

impl<R: BufRead + Seek> std::fmt::Debug for WarcReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WarcReader")
            .field("gzip", &self.src.is_gzip())
            .finish_non_exhaustive()
    }
}

impl<R: BufRead + Seek> WarcReader<R> {
    /// A reader of the archive in `inner`, positioned at a record (the start of the file, or a
    /// record's [`Record::offset`]). gzip is recognised by its magic bytes.
    pub fn new(mut inner: R) -> io::Result<WarcReader<R>> {
        let start = inner.stream_position()?;
        // The first bytes, read and then sought back over (a buffer may hold fewer).
        let mut head = Vec::with_capacity(CHUNK);
        (&mut inner).take(CHUNK as u64).read_to_end(&mut head)?;
        inner.seek(SeekFrom::Start(start))?;
        // gzip when it starts with a member, and also when a damaged first member is followed
        // by one (one bad byte in the first header must not make the file unreadable): the
        // damaged member is then reported and skipped like any other.
        Ok(WarcReader {
            src: Source::new(inner, is_gzip_head(&head), start),
            keep: Box::new(|_, _| true),
            done: false,
            stop: None,
            first: true,
        })
    }

    /// A reader of the records of the archive in `inner` that start in the byte range
    /// `start..end` (`None`: to the end of the file), to split one archive into tasks.
    ///
    /// Both ends are moved to the first record boundary at or after them ([`next_boundary`]):
    /// the reader starts at `start`'s and gives every record and every damage up to, and
    /// without, the first at or past `end`'s, reading the last record whole past `end` if need
    /// be. Ranges that meet (`a..b`, `b..c`) therefore give each record of the file exactly
    /// once, wherever the cut falls: inside a gzip member, on a boundary, inside a record. A
    /// `.warc.gz` made of one member (`gzip file.warc`) has no boundary inside it: the range
    /// holding offset 0 reads it all, the others nothing.
    ///
    /// # Errors
    /// When the file cannot be read or sought.
    pub fn range(mut inner: R, start: u64, end: Option<u64>) -> io::Result<WarcReader<R>> {
        inner.seek(SeekFrom::Start(0))?;
        let mut head = Vec::with_capacity(CHUNK);
        (&mut inner).take(CHUNK as u64).read_to_end(&mut head)?;
        let gzip = is_gzip_head(&head);
        let from = next_boundary(&mut inner, start, gzip)?;
        let stop = match end {
            Some(end) => next_boundary(&mut inner, end, gzip)?,
            None => None,
        };
        let begin = from.unwrap_or(0);
        inner.seek(SeekFrom::Start(begin))?;
        Ok(WarcReader {
            src: Source::new(inner, gzip, begin),
            keep: Box::new(|_, _| true),
            // No boundary at or after `start`: nothing starts in the range.
            done: from.is_none(),
            stop,
            // A range holds what it holds: an empty one is no damage.
            first: false,
        })
    }

    /// Which blocks to hold in memory, from the record's header fields and `Content-Length`;
    /// the others are skipped as they are read (a video record of gigabytes costs no memory).
    pub fn keep(mut self, keep: impl FnMut(&Headers, u64) -> bool + Send + Sync + 'static) -> Self {
        self.keep = Box::new(keep);
        self
    }

    /// Whether the file is gzip-compressed.
    pub fn is_gzip(&self) -> bool {
        self.src.is_gzip()
    }

    fn read_record(&mut self) -> Option<Item> {
        // Blank lines between records are tolerated (some writers emit extra CRLFs).
        match self.src.skip_blank_lines() {
            Ok(true) => {}
            Ok(false) => return None,
            Err(e) => return Some(self.damaged_stream(e, None)),
        }
        let at = self.src.place();
        if self.stop.is_some_and(|stop| at.offset >= stop) {
            // WarcReader::range: the next range's first record.
            return None;
        }
        let header = match self.src.read_header() {
            Ok(h) => h,
            Err(e) => return Some(self.damaged_stream(e, Some(at))),
        };
        let Some(header) = header else {
            let skip = self.src.skip_to_record(None);
            return Some(Item::Damaged(Damage::new(
                at,
                None,
                format!("not a WARC record (no WARC/ version line){skip}"),
            )));
        };
        let (version, headers) = parse_header(&header);
        let id = headers.get("WARC-Record-ID").map(str::to_owned);
        let Some(length) = headers
            .get("Content-Length")
            .and_then(|v| v.trim().parse::<u64>().ok())
        else {
            let skip = self.src.skip_to_record(None);
            return Some(Item::Damaged(Damage::new(
                at,
                id,
                format!("no valid Content-Length{skip}"),
            )));
        };
        // Where the block starts, to read it again when its length proves wrong.
        let block_start = self.src.position();
        let block_at = self.src.place();
        let keep = (self.keep)(&headers, length);
        let mut block = Vec::new();
        let mut got = 0;
        let read = if keep {
            let r = self.src.read_vec(length, &mut block);
            got = block.len() as u64;
            r
        } else {
            self.src.discard(length, &mut got)
        };
        let mut record = Record {
            offset: at.offset,
            within: at.within,
            raw_end: None,
            version,
            headers,
            content_length: length,
            block: keep.then_some(block),
            damage: None,
            truncated: false,
        };
        if let Err(e) = read {
            if e.kind() != io::ErrorKind::UnexpectedEof {
                // A corrupt member: the records in between are read again from the next one.
                self.src.member_start = block_at.offset;
                return Some(self.damaged_stream(e, Some(at)).with_id(id, length));
            }
            // A truncated gzip member: the block is read as far as it goes (warcio and pywb
            // read it too), and reading goes on at a later member, if there is one.
            record.truncated = true;
            record.damage = Some(format!(
                "truncated: {e}, {got} bytes into a block of Content-Length {length}; read as far as it goes"
            ));
            if !matches!(self.src.resync(), Ok(true)) {
                self.done = true;
            }
            return Some(Item::Record(record));
        }
        // The block is followed by CRLF CRLF (ISO 28500 §4).
        let mut tail = [0u8; 4];
        let tail_got = match self.src.read_up_to(&mut tail) {
            Ok(n) => n,
            Err(e) => return Some(self.damaged_stream(e, Some(at)).with_id(id, length)),
        };
        let tail = tail.get(..tail_got).unwrap_or_default();
        let whole = got == length
            && (tail == b"\r\n\r\n"
                || tail == b"\n\n"
                || (tail_got < 4
                    && tail.iter().all(|b| *b == b'\r' || *b == b'\n')
                    && self.src.at_eof()));
        if whole {
            record.raw_end = self.src.boundary();
            return Some(Item::Record(record));
        }
        // A Content-Length that does not end the record (too short, too long, past the end of
        // the file) or a terminator short of a line end. The next record may start inside the
        // claimed block: the block is read again from its start up to the next version line, as
        // warcio resynchronises, and is the record's block when it is near the length declared.
        let seen = record.block.take().map(|mut b| {
            b.extend_from_slice(tail);
            b
        });
        if let Err(e) = self.src.reread_from(block_start, block_at, seen) {
            self.done = true;
            return Some(Item::Damaged(Damage::new(
                at,
                id,
                format!("Content-Length {length} does not end at the record's end; then: {e}"),
            )));
        }
        let mut salvaged = Vec::new();
        let bound = length.saturating_add(SALVAGE_SLACK);
        let skip = self
            .src
            .skip_to_record(keep.then_some((&mut salvaged, bound)));
        if skip.overflow {
            // Far from the length declared: not this record's block.
            let what = if got < length {
                "runs past the end of the archive"
            } else {
                "does not end at the record's end"
            };
            return Some(Item::Damaged(Damage::new(
                at,
                id,
                format!("Content-Length {length} {what}{skip}"),
            )));
        }
        // What ends the block: its terminator, whole or in part; none when the archive ends
        // inside the block.
        let real = skip.read - terminator_len(&skip.tail).min(skip.read);
        let truncated = got < length && matches!(skip.end, SkipEnd::Eof) && real == skip.read;
        let found = match skip.end {
            SkipEnd::Record(next) => format!("the next record, at {next}"),
            SkipEnd::Eof => "the end of the archive".to_owned(),
            SkipEnd::Damage => "the damage said next".to_owned(),
        };
        record.damage = Some(if truncated {
            format!(
                "truncated: the archive ends {real} bytes into a block of Content-Length {length}; read as far as it goes"
            )
        } else if real == length {
            format!(
                "the block is not followed by CRLF CRLF (ISO 28500 §4) but by {} bytes up to {found}; read whole",
                skip.read - real
            )
        } else {
            format!(
                "Content-Length {length} does not end at the record's end: its block is {real} bytes, read up to {found}"
            )
        });
        record.truncated = truncated;
        if keep {
            salvaged.truncate(usize::try_from(real).unwrap_or(usize::MAX));
            record.block = Some(salvaged);
        }
        if matches!(skip.end, SkipEnd::Eof) {
            record.raw_end = self.src.boundary();
        }
        Some(Item::Record(record))
    }

    /// The stream failed (a corrupt or truncated gzip member, or a short read): say so, and go
    /// on at the next member or record.
    fn damaged_stream(&mut self, e: io::Error, at: Option<Place>) -> Item {
        let at = at.unwrap_or_else(|| self.src.place());
        let what = if e.kind() == io::ErrorKind::UnexpectedEof {
            "truncated: the archive ends inside this record".to_owned()
        } else {
            e.to_string()
        };
        match self.src.resync() {
            Ok(true) => {}
            Ok(false) => self.done = true,
            Err(_) => self.done = true,
        }
        Item::Damaged(Damage::new(at, None, what))
    }

    /// Skips `n` decompressed bytes: from a gzip member's start to a record inside it
    /// ([`Record::within`]).
    ///
    /// # Errors
    /// When the stream fails.
    pub fn skip_within(mut self, n: u64) -> io::Result<Self> {
        let mut done = 0;
        self.src.discard(n, &mut done)?;
        Ok(self)
    }
}

/// Whether a file starting with `head` is read as gzip: it starts with a member, or a damaged
/// first member is followed by one (one bad byte in the first header must not make the file
/// unreadable: the damaged member is then reported and skipped like any other).
fn is_gzip_head(head: &[u8]) -> bool {
    head.starts_with(&GZIP_MAGIC)
        || (!head.starts_with(b"WARC/")
            && (head.starts_with(&GZIP_MAGIC[..1])
                || memchr::memmem::find(head, &GZIP_MAGIC).is_some()))
}

/// The first record boundary at or after `from` in a WARC file, where [`WarcReader::range`]
/// starts and stops; `None` when there is none before the end of the file. 0 is a boundary.
///
/// In a `.warc.gz` a boundary is a gzip member that decompresses to `WARC/`. In a `.warc` it is
/// a `WARC/1.` version line at a line start whose header gives a `Content-Length` ending in
/// CRLF CRLF followed by the end of the file or another `WARC/` line: a payload quoting a
/// whole WARC record (an archived `.warc`, uncompressed) can pass for one, so uncompressed
/// archives of archives are read unsplit.
///
/// # Errors
/// When the file cannot be read or sought.
pub fn next_boundary<R: BufRead + Seek>(
    inner: &mut R,
    from: u64,
    gzip: bool,
) -> io::Result<Option<u64>> {
    if from == 0 {
        return Ok(Some(0));
    }
    // In a .warc the byte before the version line is searched too: it must end a line.
    let (needle, back): (&[u8], u64) = if gzip {
        (&GZIP_MAGIC, 0)
    } else {
        (b"\nWARC/1.", 1)
    };
    let mut at = from - back;
    let mut buf = Vec::with_capacity(CHUNK);
    loop {
        inner.seek(SeekFrom::Start(at))?;
        buf.clear();
        (&mut *inner).take(CHUNK as u64).read_to_end(&mut buf)?;
        let mut i = 0;
        while let Some(k) = buf
            .get(i..)
            .and_then(|rest| memchr::memmem::find(rest, needle))
        {
            let candidate = at + (i + k) as u64 + back;
            if record_starts_at(inner, candidate, gzip)? {
                return Ok(Some(candidate));
            }
            i += k + 1;
        }
        if buf.len() < CHUNK {
            return Ok(None);
        }
        // The needle may straddle two chunks.
        at += (buf.len() - (needle.len() - 1)) as u64;
    }
}

/// Whether a record starts at `at` (see [`next_boundary`]).
fn record_starts_at<R: BufRead + Seek>(inner: &mut R, at: u64, gzip: bool) -> io::Result<bool> {
    inner.seek(SeekFrom::Start(at))?;
    let mut head = Vec::new();
    let want = if gzip { CHUNK } else { MAX_HEADER + 4 };
    (&mut *inner).take(want as u64).read_to_end(&mut head)?;
    if gzip {
        return Ok(head.starts_with(&GZIP_MAGIC) && looks_like_warc(&head));
    }
    let crlf = memchr::memmem::find(&head, b"\r\n\r\n").map(|i| (i, i + 4));
    let lf = memchr::memmem::find(&head, b"\n\n").map(|i| (i, i + 2));
    let Some((header_end, block_start)) = (match (crlf, lf) {
        (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
        (a, b) => a.or(b),
    }) else {
        return Ok(false);
    };
    let (_, headers) = parse_header(head.get(..header_end).unwrap_or_default());
    let Some(length) = headers
        .get("Content-Length")
        .and_then(|v| v.trim().parse::<u64>().ok())
    else {
        return Ok(false);
    };
    let Some(block_end) = at
        .checked_add(block_start as u64)
        .and_then(|s| s.checked_add(length))
    else {
        return Ok(false);
    };
    inner.seek(SeekFrom::Start(block_end))?;
    let mut tail = Vec::with_capacity(16);
    (&mut *inner).take(16).read_to_end(&mut tail)?;
    let ends = tail
        .iter()
        .take_while(|b| **b == b'\r' || **b == b'\n')
        .count();
    let next = tail.get(ends..).unwrap_or_default();
    Ok((tail.starts_with(b"\r\n\r\n") || tail.starts_with(b"\n\n"))
        && (next.is_empty() || next.starts_with(b"WARC/") || b"WARC/".starts_with(next)))
}

/// How many bytes at the end of `bytes` are a record's terminator (CRLF CRLF, or what there is
/// of it): the last line ends, at most two.
fn terminator_len(bytes: &[u8]) -> u64 {
    let mut rest = bytes;
    let mut n = 0;
    for _ in 0..2 {
        if let Some(r) = rest.strip_suffix(b"\r\n") {
            rest = r;
            n += 2;
        } else if let Some(r) = rest.strip_suffix(b"\n") {
            rest = r;
            n += 1;
        } else {
            break;
        }
    }
    n
}

impl Item {
    fn with_id(self, id: Option<String>, length: u64) -> Item {
        match self {
            Item::Damaged(mut d) => {
                d.record_id = id;
                d.message = format!("{} (Content-Length {length})", d.message);
                Item::Damaged(d)
            }
            other => other,
        }
    }
}

impl<R: BufRead + Seek> Iterator for WarcReader<R> {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        if self.done {
            return None;
        }
        let first = std::mem::take(&mut self.first);
        let item = self.read_record();
        if item.is_none() {
            self.done = true;
            if first && self.stop.is_none() {
                // An empty file is no archive: said, not read as one of no records.
                return Some(Item::Damaged(Damage::new(
                    Place {
                        offset: 0,
                        within: 0,
                    },
                    None,
                    "the file is empty (or blank lines only): no WARC record".to_owned(),
                )));
            }
        }
        item
    }
}

/// The version line and the fields of a header block (without its final blank line).
fn parse_header(block: &[u8]) -> (String, Headers) {
    // Field values are UTF-8 in WARC/1.1 (§4); other bytes become replacement characters.
    let text = String::from_utf8_lossy(block);
    let (first, rest) = text.split_once('\n').unwrap_or((&text, ""));
    let version = first.trim_end_matches('\r').trim().to_owned();
    let mut headers = Headers::new();
    let mut last: Option<(String, String)> = None;
    for line in rest.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.starts_with([' ', '\t']) {
            // Folded continuation (ISO 28500 §4, as RFC 2616).
            if let Some((_, v)) = &mut last {
                v.push(' ');
                v.push_str(line.trim());
            }
            continue;
        }
        if let Some((n, v)) = last.take() {
            headers.push_field(&n, &v);
        }
        if let Some((name, value)) = line.split_once(':') {
            if !name.trim().is_empty() {
                last = Some((name.trim().to_owned(), value.trim().to_owned()));
            }
        }
    }
    if let Some((n, v)) = last {
        headers.push_field(&n, &v);
    }
    (version, headers)
}
